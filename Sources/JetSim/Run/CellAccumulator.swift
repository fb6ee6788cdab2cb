import SimKernel

/// One cell of a run: a policy at a RAM size (nil: each device class's own RAM), in
/// a variant of the workload (`--compare-set`: an index into `RunPlan.variants`; 0
/// without variants).
public struct Cell: Sendable, Hashable {
    public var policy: PolicyID
    public var ramKB: Int64?
    public var variant = 0
    public init(policy: PolicyID, ramKB: Int64?, variant: Int = 0) {
        self.policy = policy
        self.ramKB = ramKB
        self.variant = variant
    }
}

/// Everything a cell accumulates over its devices: the devices' metrics added up,
/// the sums of squares its confidence intervals need, and the latency histogram.
/// Integers only (and integer histogram buckets), so adding devices in any order, on
/// any number of threads or shards, gives exactly the same state, and the same CSV
/// bytes. The metric totals read by counter (`acc[.coldRelaunches]`).
public struct CellAccumulator: Sendable, Equatable {
    public var devices = 0
    public var events = 0
    /// The devices' metrics, added up.
    public var totals = DeviceMetrics()
    /// Sums over devices for the confidence intervals: relaunches², cold², cold·relaunches, loss units².
    public var sumRelaunchesSquared = 0
    public var sumColdSquared = 0
    public var sumColdTimesRelaunches = 0
    public var sumLossUnitsSquared = 0
    /// The relaunch latencies by relaunch kind (the per-kind percentile columns).
    public var kindLatency = RelaunchKindLatencies()
    /// Relaunch latencies of no known kind: those of a shard state written before the
    /// per-kind lines (its total only). Empty otherwise.
    public var latencyWithoutKind = LatencyHistogram()
    /// Every relaunch latency (the percentile columns): the kinds merged, as a device
    /// records each relaunch under its kind only, and any without a kind. Built when
    /// read (a merge of seven histograms), not kept.
    public var latency: LatencyHistogram {
        var h = kindLatency.total
        h.merge(latencyWithoutKind)
        return h
    }
    /// With `--baseline`: the per-device sums pairing this cell with the baseline
    /// cell at the same RAM (nil without a baseline).
    public var paired: PairedSums? = nil
    /// With `--compare-set`: the per-device sums pairing this cell with the same
    /// policy and RAM in the reference variant (the first; nil without variants).
    public var variantPaired: PairedSums? = nil
    /// With `--by app`: a group's per-device sums for its own figures (`AppSums`).
    public var app: AppSums? = nil

    public init() {}

    /// A counter's total over the cell's devices.
    public subscript(_ c: Counter) -> Int { totals[c] }

    /// The sums of squares in state order, and their names there.
    var squares: [Int] {
        get { [sumRelaunchesSquared, sumColdSquared, sumColdTimesRelaunches, sumLossUnitsSquared] }
        set { (sumRelaunchesSquared, sumColdSquared, sumColdTimesRelaunches, sumLossUnitsSquared) = (newValue[0], newValue[1], newValue[2], newValue[3]) }
    }
    static let squareNames = ["sum_relaunches_sq", "sum_cold_sq", "sum_cold_x_relaunches", "sum_loss_units_sq"]

    /// The integer state in a fixed order (the histogram is kept apart): devices,
    /// events, every counter in `Counter` order, the sums of squares. For the shard
    /// state file; names are in `counterNames`.
    public var counters: [Int] {
        get { [devices, events] + totals.counters + squares }
        set {
            precondition(newValue.count == Self.counterNames.count)
            devices = newValue[0]
            events = newValue[1]
            let n = Counter.allCases.count
            totals.counters = Array(newValue[2..<(2 + n)])
            squares = Array(newValue[(2 + n)...])
        }
    }

    /// Names of `counters`, for the state file.
    public static let counterNames = ["devices", "events"] + Counter.names + squareNames

    /// The state names of the sums that reached Int.max (or Int.min): saturated, so
    /// they and every figure derived from them are lower bounds, not results. Sums
    /// saturate instead of trapping and then stay there (every term is non-negative),
    /// so a device that saturated leaves its cell's sum saturated too. Ranges keep
    /// the loss totals below it; the CLI warns for what is left (issue 11).
    public var saturated: [String] {
        zip(Self.counterNames, counters).filter { $0.1 == .max || $0.1 == .min }.map(\.0)
    }

    /// Adds one device's results.
    public mutating func add(_ m: DeviceMetrics, events e: Int) {
        devices += 1
        events += e
        totals.add(m)
        // Saturating: extreme inputs (edit rates of 1e12 per minute) must not trap.
        sumRelaunchesSquared = .saturatingSum(sumRelaunchesSquared, .saturatingProduct(m[.relaunches], m[.relaunches]))
        sumColdSquared = .saturatingSum(sumColdSquared, .saturatingProduct(m[.coldRelaunches], m[.coldRelaunches]))
        sumColdTimesRelaunches = .saturatingSum(sumColdTimesRelaunches, .saturatingProduct(m[.coldRelaunches], m[.relaunches]))
        sumLossUnitsSquared = .saturatingSum(sumLossUnitsSquared, .saturatingProduct(m[.dataLossUnits], m[.dataLossUnits]))
    }

    /// Adds another accumulator (exact): the counters slot by slot, the sums, the histogram.
    public mutating func merge(_ o: CellAccumulator) {
        devices += o.devices
        events += o.events
        totals.add(o.totals)
        sumRelaunchesSquared = .saturatingSum(sumRelaunchesSquared, o.sumRelaunchesSquared)
        sumColdSquared = .saturatingSum(sumColdSquared, o.sumColdSquared)
        sumColdTimesRelaunches = .saturatingSum(sumColdTimesRelaunches, o.sumColdTimesRelaunches)
        sumLossUnitsSquared = .saturatingSum(sumLossUnitsSquared, o.sumLossUnitsSquared)
        latencyWithoutKind.merge(o.latencyWithoutKind)
        kindLatency.merge(o.kindLatency)
        if let op = o.paired {
            if paired == nil { paired = PairedSums() }
            paired!.merge(op)
        }
        if let op = o.variantPaired {
            if variantPaired == nil { variantPaired = PairedSums() }
            variantPaired!.merge(op)
        }
        if let oa = o.app {
            if app == nil { app = AppSums() }
            app!.merge(oa)
        }
    }
}

/// `--by app`: the per-device sums of one group (a named app, or the drawn apps) that
/// its own figures and intervals need beyond `CellAccumulator`'s: the devices that
/// installed it and that used it (launched it at least once), and with each device's
/// launches l, lost edits u, relaunches n and relaunch latency sum t (microseconds):
/// Σl², Σu·l, Σt², Σt·n. Exact integers (Int128, saturating), so any order of
/// devices, threads or shards gives the same state.
public struct AppSums: Sendable, Equatable {
    public var installed = 0
    public var used = 0
    public var sumLaunchesSquared: Int128 = 0
    public var sumLossTimesLaunches: Int128 = 0
    public var sumLatencySquared: Int128 = 0
    public var sumLatencyTimesRelaunches: Int128 = 0

    public init() {}

    /// Adds one device's counts of the group (`installed`: the device has the app).
    public mutating func add(_ m: DeviceMetrics, installed isInstalled: Bool) {
        if isInstalled { installed += 1 }
        if m[.launches] > 0 { used += 1 }
        let l = Int128(m[.launches]), u = Int128(m[.dataLossUnits]), n = Int128(m[.relaunches]), t = Int128(m[.relaunchLatencySumMicros])
        sumLaunchesSquared = PairedSums.add(sumLaunchesSquared, l * l)
        sumLossTimesLaunches = PairedSums.add(sumLossTimesLaunches, u * l)
        sumLatencySquared = PairedSums.add(sumLatencySquared, t * t)
        sumLatencyTimesRelaunches = PairedSums.add(sumLatencyTimesRelaunches, t * n)
    }

    public mutating func merge(_ o: AppSums) {
        installed = .saturatingSum(installed, o.installed)
        used = .saturatingSum(used, o.used)
        sumLaunchesSquared = PairedSums.add(sumLaunchesSquared, o.sumLaunchesSquared)
        sumLossTimesLaunches = PairedSums.add(sumLossTimesLaunches, o.sumLossTimesLaunches)
        sumLatencySquared = PairedSums.add(sumLatencySquared, o.sumLatencySquared)
        sumLatencyTimesRelaunches = PairedSums.add(sumLatencyTimesRelaunches, o.sumLatencyTimesRelaunches)
    }

    /// The six integers in state order (`group_app:` lines).
    public var values: [Int128] {
        get { [Int128(installed), Int128(used), sumLaunchesSquared, sumLossTimesLaunches, sumLatencySquared, sumLatencyTimesRelaunches] }
        set {
            precondition(newValue.count == Self.valueCount)
            installed = Int(clamping: newValue[0]); used = Int(clamping: newValue[1])
            sumLaunchesSquared = newValue[2]; sumLossTimesLaunches = newValue[3]
            sumLatencySquared = newValue[4]; sumLatencyTimesRelaunches = newValue[5]
        }
    }
    public static let valueCount = 6
}
