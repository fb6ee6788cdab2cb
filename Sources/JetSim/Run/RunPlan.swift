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
    /// Replayed usage instead of the synthetic user.
    public var usage: UsageReplay? = nil

    public init(workload: Workload, cells: [Cell], threads: Int) {
        self.workload = workload
        self.cells = cells
        self.threads = threads
    }

    /// The devices of the fleet (or of the usage trace).
    public var fleetSize: Int { usage?.devices.count ?? workload.fleet.devices }

    /// The devices this shard runs, in order.
    public var shardDevices: StrideTo<Int> { stride(from: shardIndex, to: fleetSize, by: shardCount) }
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
