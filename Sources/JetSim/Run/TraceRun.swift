import SimKernel

/// One device run with a trace recorder (for `jetsim trace`).
public enum TraceRun {
    public static func run(_ policy: PolicyName, catalog: AppCatalog, installed: ContiguousArray<Int32>, timeline: Timeline,
                           params: DeviceParameters, context: PolicyContext, until: SimTime) -> [TraceRecord] {
        switch policy {
        case .largestFirst: return run(LargestFirst.self, catalog, installed, timeline, params, context, until)
        case .lru: return run(LRU.self, catalog, installed, timeline, params, context, until)
        case .jetsamBands: return run(JetsamBands.self, catalog, installed, timeline, params, context, until)
        case .androidLMK: return run(AndroidLMK.self, catalog, installed, timeline, params, context, until)
        case .costAware: return run(CostAware.self, catalog, installed, timeline, params, context, until)
        case .random: return run(RandomEviction.self, catalog, installed, timeline, params, context, until)
        case .oracle: return run(Oracle.self, catalog, installed, timeline, params, context, until)
        }
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
