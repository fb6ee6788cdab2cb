import SimKernel

/// `--by class | archetype`: each cell's results split by the device's class or by
/// the archetype of the app, one accumulator per cell and group (docs/cli.md, "Breakdowns").
public enum GroupBy: String, Sendable, CaseIterable {
    /// The device class (`device_classes`): mixed fleets.
    case deviceClass = "class"
    /// The app's archetype (`catalog.archetypes`): who gets killed. The model counts
    /// launches, relaunches, cold relaunches, kills by reason and data loss per
    /// archetype (`Device.byArchetype`); every device adds to every archetype's row.
    case archetype
    /// The app: each named app (`catalog.named_apps`) a row, the drawn apps one
    /// (`rest`). Counted as archetypes are (`Device.byArchetype`, each profile's group
    /// the app's), with the relaunch latencies too; every device adds to every row.
    case app

    /// The group names, in index order. A replay's classes: `usage` when the workload
    /// has one class (as before replays ran on the classes), else their names.
    public func groups(_ w: Workload, usage: Bool) -> [String] {
        switch self {
        case .deviceClass: usage && w.deviceClasses.count == 1 ? ["usage"] : w.deviceClasses.map(\.name)
        case .archetype: w.catalog.archetypes.map(\.name)
        case .app: w.catalog.namedApps.map(\.name) + [NamedApp.restGroup]
        }
    }

    /// Each catalog profile's group (`--by archetype`, `--by app`; nil otherwise).
    public func groupOf(_ catalog: AppCatalog) -> ContiguousArray<Int32>? {
        switch self {
        case .deviceClass: nil
        case .archetype: ContiguousArray(catalog.archetype)
        case .app:
            ContiguousArray((0..<catalog.profiles.count).map { Int32($0 < catalog.drawn ? catalog.profiles.count - catalog.drawn : $0 - catalog.drawn) })
        }
    }
}

/// `--by archetype` or `app`: one device's counts per group, lent to the device for a
/// run; with `app`, also each cell's relaunch latencies per group (`latency[cell]`),
/// lent to the device for the cell's runs, kept across devices.
final class ArchetypeTally: @unchecked Sendable {
    var values: ContiguousArray<DeviceMetrics>
    var latency: [ContiguousArray<LatencyHistogram>]
    init(archetypes: Int, latencyCells: Int = 0) {
        values = ContiguousArray(repeating: DeviceMetrics(), count: archetypes)
        latency = (0..<latencyCells).map { _ in ContiguousArray((0..<archetypes).map { _ in LatencyHistogram() }) }
    }
}

/// The breakdown CSV: one row per cell and group, cells in summary order.
public enum Breakdown {
    /// What a breakdown row is computed from.
    public struct Row: CounterRow {
        public var workload: Workload
        public var cell: Cell
        public var by: GroupBy
        public var group: String
        public var acc: CellAccumulator
        /// `--by app`: the named app's edit rate per active minute (nil: the drawn apps).
        public var editsPerMinute: Double? = nil
        public var days: Double { workload.fleet.duration.seconds / 86_400 }
        public subscript(counter c: Counter) -> Int { acc[c] }
    }

    public static let layout: [CSVColumn<Row>] = [
        .init("workload") { CSV.escape($0.workload.name) },
        .init("policy") { $0.cell.policy.rawValue },
        .init("ram_mb") { Summary.ramLabel($0.cell, $0.workload) },
        .init("by") { $0.by.rawValue },
        .init("group") { CSV.escape($0.group) },
        .init("devices") { String($0.acc.devices) },
        .counter(.launches), .counter(.relaunches), .counter(.coldRelaunches),
        .init("relaunch_cold_ratio") { Summary.fixed(Summary.coldRatio($0.acc), 6) },
        .init("relaunch_cold_ratio_ci95") { Summary.fixed(Summary.ratioCI95($0.acc), 6) },
        .init("kills") { String($0.acc.totals.totalKills) },
    ] + Counter.kills.map { CSVColumn<Row>.counter($0) } + [
        .counter(.dataLossEvents), .counter(.dataLossUnits),
        .init("data_loss_per_device_day") { Summary.fixed(Summary.lossPerDeviceDay($0.acc, days: $0.workload.fleet.duration.seconds / 86_400), 6) },
    ]

    /// `--by app`'s own columns, after `layout` (docs/columns.md, "Breakdowns"): the
    /// mean relaunch latency and the loss per session, per device that installed the
    /// app and per device that used it, in edits and in seconds of work, each with its
    /// 95 % interval across devices; the percentiles without one (a device has too few
    /// relaunches of one app for a per-device percentile, and the pooled histogram's
    /// order-statistic interval would treat relaunches as independent).
    public static let appColumns: [CSVColumn<Row>] = [
        .init("relaunch_mean_ms", shows: [.relaunchLatencySumMicros]) { Summary.meanMillis($0) },
        .init("relaunch_mean_ms_ci95") { r in
            let a = r.acc, s = a.app ?? AppSums()
            return Summary.fixed(ratioCI95(devices: a.devices, num: a[.relaunchLatencySumMicros], den: a[.relaunches],
                                           num2: s.sumLatencySquared, numDen: s.sumLatencyTimesRelaunches, den2: Int128(a.sumRelaunchesSquared)) / 1_000, 3)
        },
        .init("relaunch_p50_ms") { Summary.percentileMillis($0.acc.latency, 50) },
        .init("relaunch_p90_ms") { Summary.percentileMillis($0.acc.latency, 90) },
        .init("relaunch_p99_ms") { Summary.percentileMillis($0.acc.latency, 99) },
        .init("data_loss_per_device_day_ci95") { Summary.fixed(Summary.lossCI95($0.acc, days: $0.days), 6) },
        .init("devices_installed") { String($0.acc.app?.installed ?? 0) },
        .init("devices_used") { String($0.acc.app?.used ?? 0) },
        .init("data_loss_per_session") { Summary.fixed(perSession($0).value, 6) },
        .init("data_loss_per_session_ci95") { Summary.fixed(perSession($0).ci95, 6) },
        .init("data_loss_per_installed_device_day") { Summary.fixed(perDeviceDay($0, devices: $0.acc.app?.installed ?? 0).value, 6) },
        .init("data_loss_per_installed_device_day_ci95") { Summary.fixed(perDeviceDay($0, devices: $0.acc.app?.installed ?? 0).ci95, 6) },
        .init("data_loss_per_using_device_day") { Summary.fixed(perDeviceDay($0, devices: $0.acc.app?.used ?? 0).value, 6) },
        .init("data_loss_per_using_device_day_ci95") { Summary.fixed(perDeviceDay($0, devices: $0.acc.app?.used ?? 0).ci95, 6) },
        .init("unsaved_edits_per_min") { Summary.fixed($0.editsPerMinute ?? .nan, 6) },
        .init("lost_work_s_per_session") { Summary.fixed(seconds($0, perSession($0)).value, 3) },
        .init("lost_work_s_per_session_ci95") { Summary.fixed(seconds($0, perSession($0)).ci95, 3) },
        .init("lost_work_s_per_using_device_day") { Summary.fixed(seconds($0, perDeviceDay($0, devices: $0.acc.app?.used ?? 0)).value, 3) },
        .init("lost_work_s_per_using_device_day_ci95") { Summary.fixed(seconds($0, perDeviceDay($0, devices: $0.acc.app?.used ?? 0)).ci95, 3) },
    ]

    /// Lost edits per launch of the group's apps (a session: the app brought to the
    /// front), a ratio estimator over devices (as `Summary.ratioCI95`).
    static func perSession(_ r: Row) -> PairedDelta {
        let a = r.acc, s = a.app ?? AppSums()
        let value = a[.launches] > 0 ? Double(a[.dataLossUnits]) / Double(a[.launches]) : .nan
        return PairedDelta(value: value, ci95: ratioCI95(devices: a.devices, num: a[.dataLossUnits], den: a[.launches],
                                                         num2: Int128(a.sumLossUnitsSquared), numDen: s.sumLossTimesLaunches, den2: s.sumLaunchesSquared))
    }

    /// Lost edits per day of each of `m` devices (those that installed or used the app:
    /// the others lose none of its edits, so the sums are theirs), with its interval.
    static func perDeviceDay(_ r: Row, devices m: Int) -> PairedDelta {
        let days = r.days
        guard m >= 1, days > 0 else { return PairedDelta(value: .nan, ci95: .nan) }
        let sum = Double(r.acc[.dataLossUnits]), md = Double(m)
        guard m >= 2 else { return PairedDelta(value: sum / (md * days), ci95: .nan) }
        let variance = max(0, (Double(r.acc.sumLossUnitsSquared) - sum * sum / md) / (md - 1)) / (days * days)
        return PairedDelta(value: sum / (md * days), ci95: Student.t975(df: m - 1) * (variance / md).squareRoot())
    }

    /// Edits as seconds of the app's active use (60 / its edits a minute); nan for the
    /// drawn apps (their rates differ) or an app that makes no edits.
    static func seconds(_ r: Row, _ d: PairedDelta) -> PairedDelta {
        guard let rate = r.editsPerMinute, rate > 0 else { return PairedDelta(value: .nan, ci95: .nan) }
        return PairedDelta(value: d.value * 60 / rate, ci95: d.ci95 * 60 / rate)
    }

    /// Half-width of the 95 % interval of Σnum / Σden with devices as clusters (delta
    /// method, as `Summary.ratioCI95`): SE² = Σ(x_i − R y_i)² / (m (m−1) ȳ²).
    static func ratioCI95(devices m: Int, num: Int, den: Int, num2: Int128, numDen: Int128, den2: Int128) -> Double {
        guard m >= 2, den > 0 else { return .nan }
        let md = Double(m), n = Double(den), r = Double(num) / n
        let ss = max(0, Double(num2) - 2 * r * Double(numDen) + r * r * Double(den2))
        let ybar = n / md
        return Student.t975(df: m - 1) * (ss / (md * (md - 1))).squareRoot() / ybar
    }

    public static var header: String { layout.map(\.name).joined(separator: ",") }

    /// The columns `--baseline` appends to a breakdown row: the group's paired
    /// differences from the same group of the baseline's cell at the same RAM, on the
    /// devices of the group (the summary's `deltaColumns` for the two figures a
    /// breakdown row has; the model keeps no latency per archetype).
    public static let deltaColumns = ["baseline", "delta_relaunch_cold_ratio", "delta_relaunch_cold_ratio_ci95",
                                      "delta_data_loss_per_device_day", "delta_data_loss_per_device_day_ci95"]

    /// The columns `--compare-set` appends: the cell's variant, the reference
    /// variant, and the group's paired differences from the same group, policy and RAM
    /// in the reference variant; with `--by app` also the mean latency's and the loss
    /// per device that used the app, in edits and in seconds of work.
    public static let variantColumns = ["variant", "variant_reference", "variant_delta_relaunch_cold_ratio", "variant_delta_relaunch_cold_ratio_ci95",
                                        "variant_delta_data_loss_per_device_day", "variant_delta_data_loss_per_device_day_ci95"]
    public static let appVariantColumns = ["variant_delta_relaunch_mean_ms", "variant_delta_relaunch_mean_ms_ci95",
                                           "variant_delta_data_loss_per_using_device_day", "variant_delta_data_loss_per_using_device_day_ci95",
                                           "variant_delta_lost_work_s_per_using_device_day", "variant_delta_lost_work_s_per_using_device_day_ci95"]

    /// Each named app's edit rate (`--by app`'s rows, by group; nil for the drawn apps).
    static func editRates(_ w: Workload) -> [Double?] {
        w.catalog.namedApps.indices.map { AppCatalog.namedProfile(w, $0).unsavedEditsPerMinute } + [nil]
    }

    /// The CSV text (nil when the result has no breakdown). With a baseline, and
    /// paired sums in every group (a merge of states written before groups had them
    /// has none), `deltaColumns` follow; with variants, `variantColumns`.
    public static func csv(workload: Workload, result: FleetResult) -> String? {
        guard let by = result.groupBy, let groups = result.groups else { return nil }
        let names = result.groupNames
        let baseline = groups.allSatisfy({ $0.paired != nil }) ? result.baseline : nil
        let variants = !result.variants.isEmpty && groups.allSatisfy({ $0.variantPaired != nil })
        let days = workload.fleet.duration.seconds / 86_400
        let columns = by == .app ? layout + appColumns : layout
        let workloads = result.variants.isEmpty ? [workload] : result.variants.map(\.workload)
        let rates = by == .app ? workloads.map(editRates) : []
        var out = columns.map(\.name).joined(separator: ",") + (baseline == nil ? "" : "," + deltaColumns.joined(separator: ","))
        if variants { out += "," + (variantColumns + (by == .app ? appVariantColumns : [])).joined(separator: ",") }
        out += "\n"
        let references = variants ? RunPlan.variantReferenceCells(result.cells) : []
        for (ci, cell) in result.cells.enumerated() {
            for (gi, name) in names.enumerated() {
                let acc = groups[ci * names.count + gi]
                var row = Row(workload: workload, cell: cell, by: by, group: name, acc: acc)
                if by == .app { row.editsPerMinute = rates[cell.variant][gi] }
                out += columns.map { $0.value(row) }.joined(separator: ",")
                if let baseline, let p = acc.paired {
                    let cold = Paired.coldRatio(p, devices: acc.devices)
                    let loss = Paired.lossPerDeviceDay(p, devices: acc.devices, days: days)
                    out += "," + baseline.rawValue + "," + [Summary.fixed(cold.value, 6), Summary.fixed(cold.ci95, 6),
                                                            Summary.fixed(loss.value, 6), Summary.fixed(loss.ci95, 6)].joined(separator: ",")
                }
                if variants, let p = acc.variantPaired {
                    let cold = Paired.coldRatio(p, devices: acc.devices)
                    let loss = Paired.lossPerDeviceDay(p, devices: acc.devices, days: days)
                    out += "," + CSV.escape(result.variants[cell.variant].label) + "," + CSV.escape(result.variants[result.cells[references[ci]].variant].label)
                    out += "," + [Summary.fixed(cold.value, 6), Summary.fixed(cold.ci95, 6), Summary.fixed(loss.value, 6), Summary.fixed(loss.ci95, 6)].joined(separator: ",")
                    if by == .app {
                        let mean = Paired.meanLatencyMillis(p, devices: acc.devices)
                        let used = Paired.lossPerDeviceDay(p, devices: acc.app?.used ?? 0, days: days)
                        let work = seconds(row, used)
                        out += "," + [Summary.fixed(mean.value, 3), Summary.fixed(mean.ci95, 3), Summary.fixed(used.value, 6), Summary.fixed(used.ci95, 6),
                                      Summary.fixed(work.value, 3), Summary.fixed(work.ci95, 3)].joined(separator: ",")
                    }
                }
                out += "\n"
            }
        }
        return out
    }
}
