import SimKernel

/// One device run with a trace recorder (for `jetsim trace`).
public enum TraceRun {
    public static func run(_ policy: PolicyID, catalog: AppCatalog, installed: ContiguousArray<Int32>, timeline: Timeline,
                           params: DeviceParameters, context: PolicyContext, until: SimTime) -> [TraceRecord] {
        run(policy.type, catalog, installed, timeline, params, context, until)
    }

    static func run<P: EvictionPolicy>(_: P.Type, _ catalog: AppCatalog, _ installed: ContiguousArray<Int32>, _ timeline: Timeline,
                                       _ params: DeviceParameters, _ context: PolicyContext, _ until: SimTime) -> [TraceRecord] {
        var device = Device<P, TraceRecorder>(trace: TraceRecorder())
        device.reset(profiles: catalog.profiles, installed: installed, params: params, timeline: timeline, context: context)
        device.checksInvariants = true
        var sim = Simulation(model: device)
        sim.run(until: until)
        return sim.model.trace.records
    }
}
