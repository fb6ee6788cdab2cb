import Foundation
import SimKernel

/// Something with a value per counter: a row's counters for `CSVColumn.counter`.
public protocol CounterRow {
    subscript(counter c: Counter) -> Int { get }
}

/// One CSV column: its name, the counters it shows (its own, or those a derived
/// figure stands for, such as the latency sum behind a mean), and its value for a row.
public struct CSVColumn<Row: CounterRow>: Sendable {
    public let name: String
    public let shows: [Counter]
    let value: @Sendable (Row) -> String

    public init(_ name: String, shows: [Counter] = [], _ value: @escaping @Sendable (Row) -> String) {
        self.name = name
        self.shows = shows
        self.value = value
    }

    /// A counter under its declared column name.
    public static func counter(_ c: Counter) -> CSVColumn {
        CSVColumn(c.declaration.column, shows: [c]) { String($0[counter: c]) }
    }

    /// The listed columns, then a column for every counter `include` selects that no
    /// listed column shows, in declaration order: a new counter appears at the end.
    /// A derived column in `after` follows its counter's column, so columns appended
    /// later never move it.
    public static func layout(_ listed: [CSVColumn], appending include: (Counter) -> Bool,
                              after: [(Counter, CSVColumn)] = []) -> [CSVColumn] {
        let shown = Set(listed.flatMap(\.shows))
        var out = listed
        for c in Counter.allCases where include(c) && !shown.contains(c) {
            out.append(counter(c))
            for (anchor, column) in after where anchor == c { out.append(column) }
        }
        return out
    }
}

/// The summary: one row per cell. Columns never move: new ones are appended.
public enum Summary {
    /// What a summary row is computed from.
    public struct Row: CounterRow {
        public var workload: Workload
        public var cell: Cell
        public var acc: CellAccumulator
        public var overrides: [String]
        public var days: Double { workload.fleet.duration.seconds / 86_400 }
        public subscript(counter c: Counter) -> Int { acc[c] }
    }

    /// The columns, in order (docs/columns.md explains each): identity,
    /// counters and derived figures; every counter not listed follows `overrides`.
    public static let layout: [CSVColumn<Row>] = CSVColumn<Row>.layout([
        .init("workload") { CSV.escape($0.workload.name) },
        .init("policy") { $0.cell.policy.rawValue },
        .init("ram_mb") { ramLabel($0.cell, $0.workload) },
        .init("devices") { String($0.acc.devices) },
        .init("duration_h") { fixed($0.workload.fleet.duration.seconds / 3_600, 3) },
        .init("seed") { String($0.workload.seed) },
        .counter(.launches), .counter(.relaunches), .counter(.coldRelaunches),
        .init("relaunch_cold_ratio") { fixed(coldRatio($0.acc), 6) },
        .init("relaunch_cold_ratio_ci95") { fixed(ratioCI95($0.acc), 6) },
        .init("relaunch_p50_ms") { percentileMillis($0.acc.latency, 50) },
        .init("relaunch_p90_ms") { percentileMillis($0.acc.latency, 90) },
        .init("relaunch_p99_ms") { percentileMillis($0.acc.latency, 99) },
        .init("relaunch_mean_ms", shows: [.relaunchLatencySumMicros]) { meanMillis($0) },
        .init("kills") { String($0.acc.totals.totalKills) },
        .counter(.killsPressure), .counter(.killsBgExpired), .counter(.killsWatchdog), .counter(.killsUser),
        .counter(.killsLimit), .counter(.dataLossEvents), .counter(.dataLossUnits),
        .init("data_loss_per_device_day") { fixed(lossPerDeviceDay($0.acc, days: $0.days), 6) },
        .init("data_loss_per_device_day_ci95") { fixed(lossCI95($0.acc, days: $0.days), 6) },
        .counter(.stateLossEvents), .counter(.memoryWarnings), .counter(.coalescedReceived),
        .counter(.coalescedDelivered), .counter(.coalescedDropped),
        .init("events") { String($0.acc.events) },
        // Appended after the fixed set:
        .counter(.warmRelaunches), .counter(.hotRelaunches), .counter(.launchFailures),
        .counter(.killsExitsOnSuspend), .counter(.killsPowerOff), .counter(.foregroundKills),
        .counter(.immediateDeliveries), .counter(.savesCompleted), .counter(.savesAbandoned),
        .counter(.lossOnResignActive), .counter(.lossOnEnterBackground), .counter(.lossOnTerminate),
        .counter(.lossPeriodic), .counter(.lossNever),
        .init("overrides") { CSV.escape($0.overrides.joined(separator: ";")) },
    ], appending: { _ in true }, after: [
        (.warningsAtCritical, .init("flash_mb_per_device_day") { fixed(perDeviceDay($0.acc[.flashWrittenKB], $0) / 1_024, 3) }),
        (.warningsAtCritical, .init("compressor_mean_mb") { fixed(perDeviceDay($0.acc[.compressorKBSeconds], $0) / 86_400 / 1_024, 3) }),
    ] + percentileColumns.map { (.systemWakes, $0) } + fieldExitColumns.map { (.killsPressureAfterKill, $0) })

    /// The kills as an app's field data counts them: one column per MetricKit exit
    /// category, then one per ApplicationExitInfo reason (each kill reason's mapping,
    /// Device/KillReason.swift). Each adds the kill counters of the reasons mapped to it.
    static var fieldExitColumns: [CSVColumn<Row>] {
        MetricKitExit.allCases.map { e in
            let counters = KillReason.allCases.filter { $0.metricKit == e }.map(\.counter)
            return CSVColumn(e.column) { r in String(counters.reduce(0) { .saturatingSum($0, r.acc[$1]) }) }
        } + ExitInfoReason.allCases.map { e in
            let counters = KillReason.allCases.filter { $0.exitInfo == e }.map(\.counter)
            return CSVColumn(e.column) { r in String(counters.reduce(0) { .saturatingSum($0, r.acc[$1]) }) }
        }
    }

    /// The percentiles of every relaunch's latency beyond p50, p90 and p99, for the
    /// latency CDF (`scripts/plot.sh`): 15 points in all from p1 to p99.9, every decile
    /// (relaunches mix hot, resumed and cold launches an order of magnitude apart, so
    /// the curve has steps that deciles place to 10 points), the quartiles (a box
    /// plot's), and p1, p95 and p99.9 for the tails. The name of p99.9 is `p99_9`.
    public static let cdfPercentiles: [Double] = [1, 10, 20, 25, 30, 40, 60, 70, 75, 80, 95, 99.9]

    /// The percentile's name in a column: `p99_9` for 99.9.
    static func percentileName(_ p: Double) -> String {
        "p" + (p == p.rounded() ? String(Int(p)) : String(p).replacingOccurrences(of: ".", with: "_"))
    }

    /// The appended latency columns: `cdfPercentiles` of all relaunches, then p50 and
    /// p99 per relaunch kind (issue 12; `nan` for a kind with no relaunches).
    static let percentileColumns: [CSVColumn<Row>] = cdfPercentiles.map { p in
        CSVColumn<Row>("relaunch_\(percentileName(p))_ms") { percentileMillis($0.acc.latency, p) }
    } + RelaunchKind.allCases.flatMap { k in
        [50.0, 99].map { p in
            CSVColumn<Row>("relaunch_\(k.name)_\(percentileName(p))_ms") {
                let h = $0.acc.kindLatency[k]
                return millis(h.count > 0 ? h.percentile(p) : nil)
            }
        }
    }

    /// A fleet total per device and simulated day (nan without devices or time).
    static func perDeviceDay(_ total: Int, _ r: Row) -> Double {
        r.acc.devices > 0 && r.days > 0 ? Double(total) / (Double(r.acc.devices) * r.days) : .nan
    }

    /// The column names, in order.
    public static let columns = layout.map(\.name)

    public static var header: String { columns.joined(separator: ",") }

    /// The values of one row, in column order.
    public static func values(workload: Workload, cell: Cell, acc a: CellAccumulator, overrides: [String] = []) -> [String] {
        let row = Row(workload: workload, cell: cell, acc: a, overrides: overrides)
        return layout.map { $0.value(row) }
    }

    /// The exact mean relaunch latency in milliseconds (nan without relaunches).
    static func meanMillis(_ r: some CounterRow) -> String {
        let n = r[counter: .relaunches]
        return n > 0 ? fixed(Double(r[counter: .relaunchLatencySumMicros]) / Double(n) / 1_000, 3) : "nan"
    }

    /// The CSV text: header and one line per cell.
    /// With `--baseline`, `deltaColumns` follow the summary's own columns.
    public static func csv(workload: Workload, result: FleetResult, overrides: [String] = []) -> String {
        let deltas = pairedDeltas(workload: workload, result: result)
        var out = header + (deltas == nil ? "" : "," + deltaColumns.joined(separator: ",")) + "\n"
        for (i, (cell, acc)) in zip(result.cells, result.accumulators).enumerated() {
            out += values(workload: workload, cell: cell, acc: acc, overrides: overrides).joined(separator: ",")
            if let deltas, let b = result.baseline {
                let d = deltas[i]
                out += "," + b.rawValue + "," + [fixed(d.cold.value, 6), fixed(d.cold.ci95, 6), fixed(d.mean.value, 3), fixed(d.mean.ci95, 3),
                                                 fixed(d.p99.value, 3), fixed(d.p99.ci95, 3), fixed(d.loss.value, 6), fixed(d.loss.ci95, 6)]
                    .joined(separator: ",")
            }
            out += "\n"
        }
        return out
    }

    /// The columns `--baseline` appends (docs/columns.md, "With `--baseline`").
    public static let deltaColumns = ["baseline", "delta_relaunch_cold_ratio", "delta_relaunch_cold_ratio_ci95",
                                      "delta_relaunch_mean_ms", "delta_relaunch_mean_ms_ci95",
                                      "delta_relaunch_p99_ms", "delta_relaunch_p99_ms_ci95",
                                      "delta_data_loss_per_device_day", "delta_data_loss_per_device_day_ci95"]

    /// One cell's differences from its baseline cell.
    public struct Deltas: Sendable {
        public var cold: PairedDelta, mean: PairedDelta, p99: PairedDelta, loss: PairedDelta
    }

    /// Each cell's paired differences from the baseline at its RAM; nil without a baseline.
    public static func pairedDeltas(workload: Workload, result: FleetResult) -> [Deltas]? {
        guard let b = result.baseline else { return nil }
        let base = RunPlan.baselineCells(result.cells, b)
        let days = workload.fleet.duration.seconds / 86_400
        return result.accumulators.indices.map { i in
            let a = result.accumulators[i], p = a.paired ?? PairedSums()
            return Deltas(cold: Paired.coldRatio(p, devices: a.devices), mean: Paired.meanLatencyMillis(p, devices: a.devices),
                          p99: Paired.p99Millis(a, result.accumulators[base[i]], p),
                          loss: Paired.lossPerDeviceDay(p, devices: a.devices, days: days))
        }
    }

    /// The cell's RAM in MiB: the `--ram` value, else the device class's RAM, or
    /// `mixed` when the fleet's classes differ.
    public static func ramLabel(_ cell: Cell, _ w: Workload) -> String {
        if let kb = cell.ramKB { return SizeText.mebibytes(kb) }
        let rams = Set(w.deviceClasses.map(\.ramKB))
        return rams.count == 1 ? SizeText.mebibytes(rams.first!) : "mixed"
    }

    /// The pooled cold ratio: cold relaunches over relaunches (nan without any).
    public static func coldRatio(_ a: CellAccumulator) -> Double {
        a[.relaunches] > 0 ? Double(a[.coldRelaunches]) / Double(a[.relaunches]) : .nan
    }

    /// Lost edits per device per day (nan without devices).
    public static func lossPerDeviceDay(_ a: CellAccumulator, days: Double) -> Double {
        a.devices > 0 ? Double(a[.dataLossUnits]) / (Double(a.devices) * days) : .nan
    }

    /// Half-width of the 95% interval of the pooled cold ratio R = Σcold / Σrelaunches,
    /// with devices as clusters (delta method for a ratio estimator):
    /// SE² = Σ(c_i − R n_i)² / (m (m−1) n̄²).
    public static func ratioCI95(_ a: CellAccumulator) -> Double {
        let m = Double(a.devices)
        guard a.devices >= 2, a[.relaunches] > 0 else { return .nan }
        let n = Double(a[.relaunches]), c = Double(a[.coldRelaunches])
        let r = c / n
        let ss = max(0, Double(a.sumColdSquared) - 2 * r * Double(a.sumColdTimesRelaunches) + r * r * Double(a.sumRelaunchesSquared))
        let nbar = n / m
        let se = (ss / (m * (m - 1))).squareRoot() / nbar
        return Student.t975(df: a.devices - 1) * se
    }

    /// Half-width of the 95% interval of the mean data loss per device-day.
    public static func lossCI95(_ a: CellAccumulator, days: Double) -> Double {
        guard a.devices >= 2, days > 0 else { return .nan }
        let m = Double(a.devices)
        let sum = Double(a[.dataLossUnits])
        let variance = max(0, (Double(a.sumLossUnitsSquared) - sum * sum / m) / (m - 1)) / (days * days)
        return Student.t975(df: a.devices - 1) * (variance / m).squareRoot()
    }

    /// A fixed-decimal number, `nan` when undefined.
    public static func fixed(_ x: Double, _ decimals: Int) -> String {
        x.isFinite ? String(format: "%.\(decimals)f", x) : "nan"
    }

    /// Percentile `p` of `h` in milliseconds (`nan` when empty); `h` read once (a
    /// cell's total latency is its kinds merged, `CellAccumulator.latency`).
    static func percentileMillis(_ h: LatencyHistogram, _ p: Double) -> String {
        millis(h.count > 0 ? h.percentile(p) : nil)
    }

    /// Microseconds as milliseconds with three decimals.
    static func millis(_ us: UInt64?) -> String {
        guard let us else { return "nan" }
        let frac = String(us % 1_000)
        return "\(us / 1_000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    /// A readable table of the main columns, for a terminal.
    public static func table(workload: Workload, result: FleetResult) -> String {
        let heads = ["policy", "RAM MB", "devices", "relaunches", "cold %", "± 95%", "p50 ms", "p90 ms", "p99 ms",
                     "kills", "lost/dev-day", "state lost"]
        let days = workload.fleet.duration.seconds / 86_400
        func num(_ x: Double, _ decimals: Int) -> String { x.isFinite ? String(format: "%.\(decimals)f", x) : "nan" }
        func ms(_ p: Double, _ a: CellAccumulator) -> String {
            let h = a.latency  // the kinds merged: once
            return h.count > 0 ? num(Double(h.percentile(p)) / 1_000, 1) : "nan"
        }
        var rows: [[String]] = []
        for (cell, a) in zip(result.cells, result.accumulators) {
            rows.append([cell.policy.rawValue, ramLabel(cell, workload), String(a.devices), String(a[.relaunches]),
                         num(coldRatio(a) * 100, 2), num(ratioCI95(a) * 100, 2),
                         ms(50, a), ms(90, a), ms(99, a),
                         String(a.totals.totalKills), num(lossPerDeviceDay(a, days: days), 3), String(a[.stateLossEvents])])
        }
        var out = "\(workload.name): \(result.accumulators.first?.devices ?? 0) devices x \(fixed(workload.fleet.duration.seconds / 86_400, 1)) days, seed \(workload.seed)\n"
        out += aligned(heads, rows)
        if let deltas = pairedDeltas(workload: workload, result: result), let b = result.baseline {
            out += "\nminus \(b.rawValue) at the same RAM, paired over devices (± 95%; p99's interval is not paired)\n"
            out += aligned(["policy", "RAM MB", "Δ cold %", "±", "Δ mean ms", "±", "Δ p99 ms", "±", "Δ lost/dev-day", "±"],
                           zip(result.cells, deltas).map { cell, d in
                               [cell.policy.rawValue, ramLabel(cell, workload), num(d.cold.value * 100, 2), num(d.cold.ci95 * 100, 2),
                                num(d.mean.value, 1), num(d.mean.ci95, 1), num(d.p99.value, 1), num(d.p99.ci95, 1),
                                num(d.loss.value, 3), num(d.loss.ci95, 3)]
                           })
        } else if Set(result.cells.map(\.policy)).count > 1 {
            // The ± above are across devices, per policy: overlapping ones do not mean
            // two policies are alike. Say how to get the figures that compare them.
            out += "\n± 95% is each policy's own interval across devices; to compare policies use the paired differences: --baseline POLICY\n"
        }
        return out
    }

    /// Columns padded to their widest cell: the first left-aligned, the rest right.
    static func aligned(_ heads: [String], _ rows: [[String]]) -> String {
        var widths = heads.map(\.count)
        for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in
                i == 0 ? c.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - c.count) + c
            }.joined(separator: "  ")
        }
        var out = line(heads) + "\n"
        out += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
        for r in rows { out += line(r) + "\n" }
        return out
    }
}

/// Quantiles of Student's t distribution.
public enum Student {
    static let table: [Double] = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                  2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                  2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]

    /// The normal distribution's 0.975 quantile.
    public static let z975 = 1.959963984540054

    /// The 0.975 quantile with `df` degrees of freedom: tabulated to 30, then the
    /// Cornish–Fisher expansion around the normal (error < 1e-4).
    public static func t975(df: Int) -> Double {
        if df < 1 { return .nan }
        if df <= 30 { return table[df - 1] }
        let z = z975, n = Double(df)
        let z3 = z * z * z, z5 = z3 * z * z
        return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n)
    }
}

/// Per-device rows (`--per-device`): the listed columns, then every counter declared
/// `perDevice` that they do not show.
public enum PerDeviceRow {
    /// What a per-device row is computed from.
    public struct Fields: CounterRow {
        public var device: Int
        public var deviceClass: String
        public var cell: Cell
        public var ramKB: Int64
        public var apps: Int
        public var metrics: DeviceMetrics
        public var events: Int
        public var deviceName: String
        public subscript(counter c: Counter) -> Int { metrics[c] }
    }

    public static let layout: [CSVColumn<Fields>] = CSVColumn<Fields>.layout([
        .init("device") { String($0.device) },
        .init("class") { CSV.escape($0.deviceClass) },
        .init("policy") { $0.cell.policy.rawValue },
        .init("ram_mb") { SizeText.mebibytes($0.ramKB) },
        .init("apps") { String($0.apps) },
        .counter(.launches), .counter(.relaunches), .counter(.coldRelaunches), .counter(.warmRelaunches),
        .counter(.hotRelaunches),
        .init("relaunch_mean_ms", shows: [.relaunchLatencySumMicros]) { Summary.meanMillis($0) },
        .init("kills") { String($0.metrics.totalKills) },
        .counter(.killsPressure), .counter(.killsBgExpired), .counter(.killsWatchdog), .counter(.killsUser),
        .counter(.killsLimit), .counter(.dataLossEvents), .counter(.dataLossUnits), .counter(.stateLossEvents),
        .counter(.memoryWarnings),
        .init("events") { String($0.events) },
        .init("device_name") { CSV.escape($0.deviceName) },
    ], appending: { $0.declaration.perDevice })

    public static let columns = layout.map(\.name)
    public static var header: String { columns.joined(separator: ",") }

    static func line(device: Int, deviceClass: String, cell: Cell, ramKB: Int64, apps: Int, duration: SimTime,
                     metrics m: DeviceMetrics, events: Int, deviceName: String = "") -> String {
        let row = Fields(device: device, deviceClass: deviceClass, cell: cell, ramKB: ramKB, apps: apps, metrics: m, events: events,
                         deviceName: deviceName)
        return layout.map { $0.value(row) }.joined(separator: ",") + "\n"
    }
}
