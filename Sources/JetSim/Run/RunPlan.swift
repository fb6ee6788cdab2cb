import Foundation
import SimKernel
import Synchronization

/// What to run: a workload, its cells, and how to split the work.
public struct RunPlan: Sendable {
    public var workload: Workload
    public var cells: [Cell]
    /// Worker threads (results do not depend on it).
    public var threads: Int
    /// This shard (0-based) of `shardCount`: devices d with d % shardCount == shardIndex.
    public var shardIndex = 0
    public var shardCount = 1
    /// Replayed usage instead of the synthetic user: the batch of trace devices this
    /// plan runs (`UsageRunner` streams a trace through plans batch by batch).
    public var usage: UsageReplay? = nil
    /// With `usage`: the simulated time per device when given (`--duration`); nil: each
    /// device runs for its own span (`UsageReplay.span`).
    public var usageUntil: SimTime? = nil

    public init(workload: Workload, cells: [Cell], threads: Int) {
        self.workload = workload
        self.cells = cells
        self.threads = threads
    }

    /// The devices of the fleet (or of the usage trace, up to the end of the batch).
    public var fleetSize: Int { usage?.endDevice ?? workload.fleet.devices }

    /// The devices this shard runs, in order (of the usage batch, if any).
    public var shardDevices: StrideTo<Int> {
        let first = usage?.firstDevice ?? 0
        let start = first + ((shardIndex - first % shardCount) % shardCount + shardCount) % shardCount
        return stride(from: start, to: fleetSize, by: shardCount)
    }
}

/// Live counters a progress display can read while a run goes on.
public final class RunProgress: Sendable {
    public let devicesDone = Atomic<Int>(0)
    public let eventsDone = Atomic<Int>(0)
    public init() {}
}

/// What a run produced. `cellSeconds` (thread-seconds per cell) is performance, kept
/// out of every simulated result.
public struct FleetResult: Sendable {
    public var cells: [Cell]
    public var accumulators: [CellAccumulator]
    public var cellSeconds: [Double]
}
