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
        /// Record the device's available and compressed memory after each instant
        /// with events (`Output.memory`, for the Perfetto trace's counter tracks).
        public var samplesMemory = false
        /// Keep the trace's records (`Output.records`); false when only the metrics are read.
        public var recordsTrace = true
        /// Keep the save rows too (`TraceRecorder.saves`: `--saves`).
        public var recordsSaves = false
    }

    /// The device's memory after the events of one instant.
    public struct MemorySample: Sendable, Equatable {
        public var time: SimTime
        public var availableKB: Int64
        public var compressedKB: Int64
    }

    /// What a traced run produced.
    public struct Output {
        public var records: [TraceRecord]
        public var metrics: DeviceMetrics
        public var latencies: LatencyHistogram
        /// System events still held (for suspended apps) when the run ended.
        public var heldAtEnd: Int
        /// With `samplesMemory`: memory after each instant that changed it, from time 0.
        public var memory: [MemorySample] = []
        /// Kills a memory manager decided outside the reclaim loop (`TraceRecorder`): 0.
        public var memoryKillsOutsideReclaim = 0
        /// XNU's idle-band daemons at the end (their kills and relaunches: no CSV has them).
        public var idleDaemons = IdleDaemonPool()
    }

    /// `run`, with memory samples: the traced run and the device's memory over time.
    public static func runSampled(_ policy: PolicyID, catalog: AppCatalog, installed: ContiguousArray<Int32>, timeline: Timeline,
                                  params: DeviceParameters, context: PolicyContext, until: SimTime, saves: Bool = false) -> Output {
        var i = Inputs(profiles: catalog.profiles(fittedTo: params), installed: installed, params: params, timeline: timeline,
                       context: context, until: until, checksInvariants: true)
        i.samplesMemory = true
        i.recordsSaves = saves
        return run(policy, i)
    }

    public static func run(_ policy: PolicyID, catalog: AppCatalog, installed: ContiguousArray<Int32>, timeline: Timeline,
                           params: DeviceParameters, context: PolicyContext, until: SimTime, saves: Bool = false) -> [TraceRecord] {
        var i = Inputs(profiles: catalog.profiles(fittedTo: params), installed: installed, params: params, timeline: timeline,
                       context: context, until: until, checksInvariants: true)
        i.recordsSaves = saves
        return run(policy, i).records
    }

    /// Runs `policy` with the device loop compiled for it (built by its registry entry).
    static func run(_ policy: PolicyID, _ inputs: Inputs) -> Output {
        precondition(policy.external == nil, "a traced run takes registered policies only (the CLI refuses external ones)")
        return PolicyRunners.all[policy.index].runTraced(inputs)
    }

    static func run<P: EvictionPolicy>(_: P.Type, _ io: Inputs) -> Output {
        var device = Device<P, TraceRecorder>(trace: TraceRecorder(keeps: io.recordsTrace, saves: io.recordsSaves))
        device.reset(profiles: io.profiles, installed: io.installed, params: io.params, timeline: io.timeline, context: io.context)
        device.checksInvariants = io.checksInvariants
        var sim = Simulation(model: device)
        var memory: [MemorySample] = []
        if io.samplesMemory {
            // Instant by instant (each run(until:) handles every event at that time, as
            // one run does), sampling memory after each.
            func sample(_ m: Device<P, TraceRecorder>, _ t: SimTime) {
                // The pool: what compressed apps keep resident (part-compressed ones too).
                let s = MemorySample(time: t, availableKB: m.availableKB, compressedKB: m.compressorKB)
                if memory.last.map({ $0.availableKB != s.availableKB || $0.compressedKB != s.compressedKB }) ?? true { memory.append(s) }
            }
            sample(sim.model, .zero)
            while true {
                let q = sim.scheduler.queue.min()?.time
                let input = sim.model.nextInputTime
                guard let t = [q, input].compactMap({ $0 }).min(), t <= io.until else { break }
                sim.run(until: t)
                sample(sim.model, t)
            }
        }
        sim.run(until: io.until)
        // The amortised checks skip events on a device of many apps: one more at the end.
        if io.checksInvariants { sim.model.checkMemoryInvariant() }
        let held = sim.model.apps.indices.reduce(0) {
            $0 + (sim.model.apps[$1].state == .suspended && !sim.model.apps[$1].isPrewarmed ? sim.model.heldTotal(Int32($1)) : 0)
        }
        return Output(records: sim.model.trace.records, metrics: sim.model.metrics,
                      latencies: sim.model.relaunchLatencyByKind.total, heldAtEnd: held, memory: memory,
                      memoryKillsOutsideReclaim: sim.model.trace.memoryKillsOutsideReclaim,
                      idleDaemons: sim.model.idleDaemons)
    }
}
