import SimKernel

/// One device run with a trace recorder (for `jetsim trace` and the scenario runner).
public enum TraceRun {
    /// What a traced run needs.
    public struct Inputs {
        public var profiles: ContiguousArray<AppProfile>
        public var installed: ContiguousArray<Int32>
        public var params: DeviceParameters
        public var timeline: Timeline
        public var context: PolicyContext
        public var until: SimTime
        /// Verify the memory invariant after every event.
        public var checksInvariants: Bool
    }

    /// What a traced run produced.
    public struct Output {
        public var records: [TraceRecord]
        public var metrics: DeviceMetrics
        public var latencies: LatencyHistogram
        /// System events still held (for suspended apps) when the run ended.
        public var heldAtEnd: Int
    }

    public static func run(_ policy: PolicyID, catalog: AppCatalog, installed: ContiguousArray<Int32>, timeline: Timeline,
                           params: DeviceParameters, context: PolicyContext, until: SimTime) -> [TraceRecord] {
        run(policy, Inputs(profiles: catalog.profiles, installed: installed, params: params, timeline: timeline,
                           context: context, until: until, checksInvariants: true)).records
    }

    /// Runs `policy` with the device loop compiled for it (built by its registry entry).
    static func run(_ policy: PolicyID, _ inputs: Inputs) -> Output {
        PolicyRegistry.all[policy.index].runTraced(inputs)
    }

    static func run<P: EvictionPolicy>(_: P.Type, _ io: Inputs) -> Output {
        var device = Device<P, TraceRecorder>(trace: TraceRecorder())
        device.reset(profiles: io.profiles, installed: io.installed, params: io.params, timeline: io.timeline, context: io.context)
        device.checksInvariants = io.checksInvariants
        var sim = Simulation(model: device)
        sim.run(until: io.until)
        let held = sim.model.apps.indices.reduce(0) {
            $0 + (sim.model.apps[$1].state == .suspended ? sim.model.heldTotal(Int32($1)) : 0)
        }
        return Output(records: sim.model.trace.records, metrics: sim.model.metrics,
                      latencies: sim.model.relaunchLatency, heldAtEnd: held)
    }
}
