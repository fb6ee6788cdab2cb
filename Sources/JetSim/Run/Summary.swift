import Foundation
import SimKernel

/// The summary: one row per cell. Columns never move: new ones are appended.
public enum Summary {
    /// The columns, in order (README, "CSV columns", explains each).
    public static let columns = [
        "workload", "policy", "ram_mb", "devices", "duration_h", "seed", "launches", "relaunches",
        "cold_relaunches", "relaunch_cold_ratio", "relaunch_cold_ratio_ci95", "relaunch_p50_ms",
        "relaunch_p90_ms", "relaunch_p99_ms", "relaunch_mean_ms", "kills", "kills_pressure", "kills_bg_expired",
        "kills_watchdog", "kills_user", "kills_limit", "data_loss_events", "data_loss_units",
        "data_loss_per_device_day", "data_loss_per_device_day_ci95", "state_loss_events", "memory_warnings",
        "coalesced_received", "coalesced_delivered", "coalesced_dropped", "events",
        // Appended after the fixed set:
        "warm_relaunches", "hot_relaunches", "launch_failures", "kills_exits_on_suspend", "kills_power_off",
        "kills_foreground", "immediate_deliveries", "saves_completed", "saves_abandoned",
        "data_loss_units_on_resign_active", "data_loss_units_on_enter_background", "data_loss_units_on_terminate",
        "data_loss_units_periodic", "data_loss_units_never", "overrides",
    ]

    public static var header: String { columns.joined(separator: ",") }

    /// The values of one row, in column order.
    public static func values(workload: Workload, cell: Cell, acc a: CellAccumulator, overrides: [String] = []) -> [String] {
        let days = workload.fleet.duration.seconds / 86_400
        let ram = ramLabel(cell, workload)
        let ratio = coldRatio(a)
        let lossPerDeviceDay = lossPerDeviceDay(a, days: days)
        return [
            CSV.escape(workload.name), cell.policy.rawValue, ram, String(a.devices),
            fixed(workload.fleet.duration.seconds / 3_600, 3), String(workload.seed),
            String(a.launches), String(a.relaunches), String(a.coldRelaunches),
            fixed(ratio, 6), fixed(ratioCI95(a), 6),
            millis(a.latency.count > 0 ? a.latency.percentile(50) : nil),
            millis(a.latency.count > 0 ? a.latency.percentile(90) : nil),
            millis(a.latency.count > 0 ? a.latency.percentile(99) : nil),
            a.relaunches > 0 ? fixed(Double(a.relaunchLatencySumMicros) / Double(a.relaunches) / 1_000, 3) : "nan",
            String(a.totalKills), String(a.killsPressure), String(a.killsBgExpired), String(a.killsWatchdog),
            String(a.killsUser), String(a.killsLimit), String(a.dataLossEvents), String(a.dataLossUnits),
            fixed(lossPerDeviceDay, 6), fixed(lossCI95(a, days: days), 6),
            String(a.stateLossEvents), String(a.memoryWarnings), String(a.coalescedReceived),
            String(a.coalescedDelivered), String(a.coalescedDropped), String(a.events),
            String(a.warmRelaunches), String(a.hotRelaunches), String(a.launchFailures),
            String(a.killsExitsOnSuspend), String(a.killsPowerOff), String(a.foregroundKills),
            String(a.immediateDeliveries), String(a.savesCompleted), String(a.savesAbandoned),
            String(a.lossOnResignActive), String(a.lossOnEnterBackground), String(a.lossOnTerminate),
            String(a.lossPeriodic), String(a.lossNever), CSV.escape(overrides.joined(separator: ";")),
        ]
    }

    /// The CSV text: header and one line per cell.
    public static func csv(workload: Workload, result: FleetResult, overrides: [String] = []) -> String {
        var out = header + "\n"
        for (cell, acc) in zip(result.cells, result.accumulators) {
            out += values(workload: workload, cell: cell, acc: acc, overrides: overrides).joined(separator: ",") + "\n"
        }
        return out
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
        a.relaunches > 0 ? Double(a.coldRelaunches) / Double(a.relaunches) : .nan
    }

    /// Lost edits per device per day (nan without devices).
    public static func lossPerDeviceDay(_ a: CellAccumulator, days: Double) -> Double {
        a.devices > 0 ? Double(a.dataLossUnits) / (Double(a.devices) * days) : .nan
    }

    /// Half-width of the 95% interval of the pooled cold ratio R = Σcold / Σrelaunches,
    /// with devices as clusters (delta method for a ratio estimator):
    /// SE² = Σ(c_i − R n_i)² / (m (m−1) n̄²).
    public static func ratioCI95(_ a: CellAccumulator) -> Double {
        let m = Double(a.devices)
        guard a.devices >= 2, a.relaunches > 0 else { return .nan }
        let n = Double(a.relaunches), c = Double(a.coldRelaunches)
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
        let sum = Double(a.dataLossUnits)
        let variance = max(0, (Double(a.sumLossUnitsSquared) - sum * sum / m) / (m - 1)) / (days * days)
        return Student.t975(df: a.devices - 1) * (variance / m).squareRoot()
    }

    /// A fixed-decimal number, `nan` when undefined.
    public static func fixed(_ x: Double, _ decimals: Int) -> String {
        x.isFinite ? String(format: "%.\(decimals)f", x) : "nan"
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
            a.latency.count > 0 ? num(Double(a.latency.percentile(p)) / 1_000, 1) : "nan"
        }
        var rows: [[String]] = []
        for (cell, a) in zip(result.cells, result.accumulators) {
            rows.append([cell.policy.rawValue, ramLabel(cell, workload), String(a.devices), String(a.relaunches),
                         num(coldRatio(a) * 100, 2), num(ratioCI95(a) * 100, 2),
                         ms(50, a), ms(90, a), ms(99, a),
                         String(a.totalKills), num(lossPerDeviceDay(a, days: days), 3), String(a.stateLossEvents)])
        }
        var widths = heads.map(\.count)
        for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in
                i == 0 ? c.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - c.count) + c
            }.joined(separator: "  ")
        }
        var out = "\(workload.name): \(result.accumulators.first?.devices ?? 0) devices x \(fixed(workload.fleet.duration.seconds / 86_400, 1)) days, seed \(workload.seed)\n"
        out += line(heads) + "\n"
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

    /// The 0.975 quantile with `df` degrees of freedom: tabulated to 30, then the
    /// Cornish–Fisher expansion around the normal (error < 1e-4).
    public static func t975(df: Int) -> Double {
        if df < 1 { return .nan }
        if df <= 30 { return table[df - 1] }
        let z = 1.959963984540054, n = Double(df)
        let z3 = z * z * z, z5 = z3 * z * z
        return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n)
    }
}

/// Per-device rows (`--per-device`).
public enum PerDeviceRow {
    public static let columns = [
        "device", "class", "policy", "ram_mb", "apps", "launches", "relaunches", "cold_relaunches",
        "warm_relaunches", "hot_relaunches", "relaunch_mean_ms", "kills", "kills_pressure", "kills_bg_expired",
        "kills_watchdog", "kills_user", "kills_limit", "data_loss_events", "data_loss_units",
        "state_loss_events", "memory_warnings", "events",
    ]
    public static var header: String { columns.joined(separator: ",") }

    static func line(device: Int, deviceClass: String, cell: Cell, ramKB: Int64, apps: Int, duration: SimTime,
                     metrics m: DeviceMetrics, events: Int) -> String {
        let mean = m.relaunches > 0 ? Summary.fixed(Double(m.relaunchLatencySumMicros) / Double(m.relaunches) / 1_000, 3) : "nan"
        let fields: [String] = [
            String(device), CSV.escape(deviceClass), cell.policy.rawValue, SizeText.mebibytes(ramKB), String(apps),
            String(m.launches), String(m.relaunches), String(m.coldRelaunches), String(m.warmRelaunches),
            String(m.hotRelaunches), mean, String(m.totalKills), String(m.killsPressure), String(m.killsBgExpired),
            String(m.killsWatchdog), String(m.killsUser), String(m.killsLimit), String(m.dataLossEvents),
            String(m.dataLossUnits), String(m.stateLossEvents), String(m.memoryWarnings), String(events),
        ]
        return fields.joined(separator: ",") + "\n"
    }
}
