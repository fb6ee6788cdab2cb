import SimKernel

/// Runs one scenario and returns its trace.
public enum ScenarioRunner {
    /// A scenario run's trace and what it measured.
    public struct Result: Sendable {
        public var records: [TraceRecord]
        public var metrics: DeviceMetrics
        public var latencies: LatencyHistogram
        /// System events still held (for suspended apps) when the run ended.
        public var heldAtEnd: Int
        /// Kills a memory manager decided outside the device's reclaim loop (none).
        public var memoryKillsOutsideReclaim = 0
        /// XNU's idle-band daemons at the end (Memory/XNU/IdleDaemons.swift).
        public var idleDaemons = IdleDaemonPool()
    }

    /// Runs the scenario with its policy (memory invariant checked after every event).
    /// Without `recordsTrace` the result's records are empty: for callers that read
    /// only what it measured.
    public static func run(_ sc: Scenario, checkInvariants: Bool = true, recordsTrace: Bool = true, recordsSaves: Bool = false) -> Result {
        let (installed, timeline) = TimelineSource.scenarioInputs(sc)
        var inputs = TraceRun.Inputs(
            profiles: ContiguousArray(sc.profiles), installed: installed, params: sc.params,
            timeline: timeline, context: PolicyContext(seed: 1, device: 0),
            until: sc.endTime, checksInvariants: checkInvariants)
        inputs.recordsTrace = recordsTrace
        inputs.recordsSaves = recordsSaves
        let out = TraceRun.run(sc.policy, inputs)
        return Result(records: out.records, metrics: out.metrics, latencies: out.latencies, heldAtEnd: out.heldAtEnd,
                      memoryKillsOutsideReclaim: out.memoryKillsOutsideReclaim, idleDaemons: out.idleDaemons)
    }

    /// The trace as CSV text (header and one line per record).
    public static func csv(_ sc: Scenario, _ records: [TraceRecord]) -> String {
        var out = TraceCSV.header + "\n"
        for r in records {
            out += TraceCSV.line(r, device: 0, appName: { sc.appNames[Int($0)] },
                                 valueName: { $0 > 0 && Int($0) < sc.values.count ? sc.values[Int($0)] : nil })
            out += "\n"
        }
        return out
    }
}
