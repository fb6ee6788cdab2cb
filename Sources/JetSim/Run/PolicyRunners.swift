/// Each registered policy's runners, built where its type is concrete: one row of
/// `PolicyRegistry.table` per policy, in registry order (`PolicyID.index` indexes both).
/// `PolicyRunners.row(P.self)` is called with each policy's own type, so the fleet
/// runner it makes runs a device loop compiled for `P`, and so does its traced run.
enum PolicyRunners: PolicyTable {
    static let all: [Entry] = PolicyRegistry.table(PolicyRunners.self)

    static func row<P: EvictionPolicy>(_: P.Type) -> Entry { Entry(P.self) }

    /// One registered policy's runners.
    struct Entry: Sendable {
        /// A worker's reusable runner, its buffers sized for (apps, actions, events).
        let makeCellRunner: @Sendable (_ apps: Int, _ actions: Int, _ events: Int) -> CellRunner
        /// One device run with a trace recorder (`jetsim trace`, scenarios).
        let runTraced: @Sendable (TraceRun.Inputs) -> TraceRun.Output

        init<P: EvictionPolicy>(_: P.Type) {
            makeCellRunner = { CellRunner(P.self, apps: $0, actions: $1, events: $2) }
            runTraced = { TraceRun.run(P.self, $0) }
        }
    }
}
