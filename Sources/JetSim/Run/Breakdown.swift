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

    /// The group names, in index order.
    public func groups(_ w: Workload, usage: Bool) -> [String] {
        switch self {
        case .deviceClass: usage ? ["usage"] : w.deviceClasses.map(\.name)
        case .archetype: w.catalog.archetypes.map(\.name)
        }
    }
}

/// `--by archetype`: one device's counts per archetype, lent to the device for a run.
final class ArchetypeTally: @unchecked Sendable {
    var values: ContiguousArray<DeviceMetrics>
    init(archetypes: Int) { values = ContiguousArray(repeating: DeviceMetrics(), count: archetypes) }
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

    public static var header: String { layout.map(\.name).joined(separator: ",") }

    /// The columns `--baseline` appends to a breakdown row: the group's paired
    /// differences from the same group of the baseline's cell at the same RAM, on the
    /// devices of the group (the summary's `deltaColumns` for the two figures a
    /// breakdown row has; the model keeps no latency per archetype).
    public static let deltaColumns = ["baseline", "delta_relaunch_cold_ratio", "delta_relaunch_cold_ratio_ci95",
                                      "delta_data_loss_per_device_day", "delta_data_loss_per_device_day_ci95"]

    /// The CSV text (nil when the result has no breakdown). With a baseline, and
    /// paired sums in every group (a merge of states written before groups had them
    /// has none), `deltaColumns` follow.
    public static func csv(workload: Workload, result: FleetResult) -> String? {
        guard let by = result.groupBy, let groups = result.groups else { return nil }
        let names = result.groupNames
        let baseline = groups.allSatisfy({ $0.paired != nil }) ? result.baseline : nil
        let days = workload.fleet.duration.seconds / 86_400
        var out = header + (baseline == nil ? "" : "," + deltaColumns.joined(separator: ",")) + "\n"
        for (ci, cell) in result.cells.enumerated() {
            for (gi, name) in names.enumerated() {
                let acc = groups[ci * names.count + gi]
                let row = Row(workload: workload, cell: cell, by: by, group: name, acc: acc)
                out += layout.map { $0.value(row) }.joined(separator: ",")
                if let baseline, let p = acc.paired {
                    let cold = Paired.coldRatio(p, devices: acc.devices)
                    let loss = Paired.lossPerDeviceDay(p, devices: acc.devices, days: days)
                    out += "," + baseline.rawValue + "," + [Summary.fixed(cold.value, 6), Summary.fixed(cold.ci95, 6),
                                                            Summary.fixed(loss.value, 6), Summary.fixed(loss.ci95, 6)].joined(separator: ",")
                }
                out += "\n"
            }
        }
        return out
    }
}
