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
    /// Rows of a replayed device fed to its simulation at a time (`ReplayFeed`): its
    /// timeline is held a chunk at a time, not whole (0: built whole). Any size gives the
    /// same outcome.
    public var replayChunkRows = UsageReplay.chunkRows
    /// With `usage`: which archetype each app name is (`--app-map`); nil: catalog names
    /// and the hash rule only (`AppMap.profile`).
    public var appMap: AppMap? = nil

    /// `--compare-set`: the variants of the workload (each `workload` with one key
    /// changed), every cell run in each, the same devices and draws; cells carry their
    /// variant's index, and each is compared, device by device, with the same policy
    /// and RAM in variant 0 (`CellAccumulator.variantPaired`). Empty: none (each cell
    /// runs `workload`).
    public var variants: [Variant] = []

    /// One variant: the `--compare-set KEY=VALUE` text and the workload it gives.
    public struct Variant: Sendable {
        public var label: String
        public var workload: Workload
        public init(label: String, workload: Workload) {
            self.label = label
            self.workload = workload
        }
    }

    /// The workload cell `c` runs.
    public func workload(of c: Cell) -> Workload { variants.isEmpty ? workload : variants[c.variant].workload }

    /// For each cell, the index of the same policy and RAM in variant 0 (nil: no variants).
    public var variantReferenceCells: [Int]? {
        variants.isEmpty ? nil : Self.variantReferenceCells(cells)
    }

    public static func variantReferenceCells(_ cells: [Cell]) -> [Int] {
        cells.map { c in cells.firstIndex { $0.variant == 0 && $0.policy == c.policy && $0.ramKB == c.ramKB }! }
    }

    /// `--baseline`: every cell is also compared, device by device, with this policy's
    /// cell at the same RAM (`PairedSums`); nil: no comparison (and no extra work).
    public var baseline: PolicyID? = nil
    /// `--by`: also accumulate each cell by this grouping of the devices (nil: no breakdown).
    public var groupBy: GroupBy? = nil
    /// `--timeseries`: also sample every device hour by hour (`HourlySeries`).
    public var timeSeries = false
    /// The breakdown's groups.
    public var groupNames: [String] { groupBy?.groups(workload, usage: usage != nil) ?? [] }

    /// For each cell, the index of the baseline's cell at the same RAM (nil: no baseline).
    public var baselineCells: [Int]? {
        baseline.map { Self.baselineCells(cells, $0) }
    }

    /// For each cell, the index of `baseline`'s cell at the same RAM (it must exist: `covers`).
    public static func baselineCells(_ cells: [Cell], _ baseline: PolicyID) -> [Int] {
        cells.map { c in cells.firstIndex { $0.policy == baseline && $0.ramKB == c.ramKB && $0.variant == c.variant }! }
    }

    /// Whether every RAM of the cells has a cell of `policy`.
    public static func covers(_ cells: [Cell], baseline policy: PolicyID) -> Bool {
        cells.allSatisfy { c in cells.contains { $0.policy == policy && $0.ramKB == c.ramKB && $0.variant == c.variant } }
    }

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

    /// The devices this shard runs: `shardDevices` but those a `--sample-devices`
    /// sample leaves out (`UsageReplay.runs`).
    public var runDevices: [Int] {
        guard let usage, !usage.runs.isEmpty else { return Array(shardDevices) }
        return shardDevices.filter { usage.runs(device: $0) }
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
    /// The `--baseline` policy, when the accumulators hold paired sums.
    public var baseline: PolicyID? = nil
    /// The breakdown (`--by`): its grouping, group names and one accumulator per cell
    /// and group (`groups[cell * groupNames.count + group]`).
    public var groupBy: GroupBy? = nil
    public var groupNames: [String] = []
    public var groups: [CellAccumulator]? = nil
    /// `--timeseries`: per cell and hour.
    public var series: HourlySeries? = nil
    /// The sum of the devices' run lengths (`DeviceInputs.until`: a replayed device's
    /// span), added as each device's inputs are built.
    public var spanSum = SimTime.zero
    /// Set when an external policy's process failed (it died, hung or answered
    /// nonsense): a message naming the policy and the request. The results are then
    /// incomplete and must not be written.
    public var failure: String? = nil
    /// `--compare-set`: the variants the cells' `variant` indexes (empty: none).
    public var variants: [RunPlan.Variant] = []
}
