import SimKernel

/// `--timeseries`: per cell and simulated hour, integer sums over devices (docs/cli.md,
/// "Time series"). The memory figures are the device's state at the end of each hour
/// (an instant sample, taken by running the device hour by hour, which handles the same
/// events as one run); the counts are what happened during the hour.
/// One buffer per worker, sized once: nothing is allocated per device or event.
public final class HourlySeries: @unchecked Sendable {
    /// The fields of one (cell, hour) slot, in order.
    public static let fields: [String] = ["devices", "available_kb_sum", "available_kb_min", "resident_kb_sum", "compressed_kb_sum",
                                          "frozen_kb_sum", "launches", "cold_relaunches"] + Counter.kills.map(\.declaration.name)
    static let minField = 2, firstCount = 6
    /// The counters the count fields follow, from `firstCount` on.
    static let counted: [Counter] = [.launches, .coldRelaunches] + Counter.kills

    public let cells: Int
    public let hours: Int
    public internal(set) var values: [Int]

    public init(cells: Int, hours: Int) {
        self.cells = cells
        self.hours = hours
        values = [Int](repeating: 0, count: cells * hours * Self.fields.count)
        for c in 0..<cells { for h in 0..<hours { values[(c * hours + h) * Self.fields.count + Self.minField] = .max } }
    }

    /// The most memory the series of one run may take, over the workers' buffers and
    /// the merged one: 1 GiB (an implementation bound, like the action buffers' cap;
    /// a century of hours for 21 cells on 8 threads would need about 60 GB).
    public static let maxBytes = 1 << 30

    /// Why a series of `cells` cells over `duration` on `threads` workers is refused,
    /// or nil: over `maxBytes`.
    public static func refusal(cells: Int, duration: SimTime, threads: Int) -> String? {
        let h = hours(duration)
        let bytes = Double(cells) * Double(h) * Double(fields.count) * 8 * Double(threads + 1)
        guard bytes > Double(maxBytes) else { return nil }
        return "\(cells) cell(s) x \(h) hours x \(threads + 1) buffers would take \(Int(bytes / 1_048_576)) MiB, over the \(maxBytes >> 20) MiB a series may take: shorten the run, or run fewer cells or threads"
    }

    /// The hours a run of `duration` covers (the last may be partial).
    public static func hours(_ duration: SimTime) -> Int {
        Int((duration.microseconds + 3_599_999_999) / 3_600_000_000)
    }

    /// One slot's value.
    public func value(cell: Int, hour: Int, field: Int) -> Int { values[(cell * hours + hour) * Self.fields.count + field] }

    /// Adds another worker's series (min for the minimum, sums for the rest).
    public func merge(_ o: HourlySeries) {
        let f = Self.fields.count
        for i in values.indices {
            values[i] = i % f == Self.minField ? min(values[i], o.values[i]) : .saturatingSum(values[i], o.values[i])
        }
    }

    /// Adds one device's state at the end of hour `hour` of cell `cell`, and what it
    /// counted since `previous` (updated to now).
    func sample<P: EvictionPolicy>(_ d: Device<P, NoTrace>, cell: Int, hour: Int, previous: inout DeviceMetrics) {
        let base = (cell * hours + hour) * Self.fields.count
        // The pool is what compressed apps keep resident (the device's invariant),
        // part-compressed ones included.
        let compressed = d.compressorKB
        var frozen: Int64 = 0
        for a in d.apps.indices {
            if d.apps[a].isFrozen { frozen += d.profiles[d.core.pi(Int32(a))].suspendedKB }
        }
        // The apps' (XNU's idle-band daemons are the manager's, not apps').
        let resident = d.params.ramKB - d.params.osReserveKB - d.idleDaemons.residentKB - d.availableKB
        values[base] += 1
        values[base + 1] = .saturatingSum(values[base + 1], Int(d.availableKB))
        values[base + 2] = min(values[base + 2], Int(d.availableKB))
        values[base + 3] = .saturatingSum(values[base + 3], Int(resident))
        values[base + 4] = .saturatingSum(values[base + 4], Int(compressed))
        values[base + 5] = .saturatingSum(values[base + 5], Int(frozen))
        for (k, c) in Self.counted.enumerated() {
            values[base + Self.firstCount + k] = .saturatingSum(values[base + Self.firstCount + k], d.metrics[c] - previous[c])
        }
        previous = d.metrics
    }

    /// The CSV: one row per cell and hour.
    public func csv(workload w: Workload, cells list: [Cell]) -> String {
        var out = "workload,policy,ram_mb,hour,devices,available_mb_mean,available_mb_min,resident_mb_mean,compressed_mb_mean,frozen_mb_mean,"
            + "launches,cold_relaunches,kills," + Counter.kills.map(\.declaration.column).joined(separator: ",") + "\n"
        func mb(_ kb: Double) -> String { Summary.fixed(kb / 1_024, 3) }
        for (c, cell) in list.enumerated() {
            for h in 0..<hours {
                let v = { (f: Int) in self.value(cell: c, hour: h, field: f) }
                let n = v(0)
                let mean = { (f: Int) in n > 0 ? mb(Double(v(f)) / Double(n)) : "nan" }
                var kills = 0
                for k in 0..<Counter.kills.count { kills = .saturatingSum(kills, v(Self.firstCount + 2 + k)) }
                var row = [CSV.escape(w.name), cell.policy.rawValue, Summary.ramLabel(cell, w), String(h), String(n),
                           mean(1), n > 0 ? mb(Double(v(2))) : "nan", mean(3), mean(4), mean(5),
                           String(v(6)), String(v(7)), String(kills)]
                for k in 0..<Counter.kills.count { row.append(String(v(Self.firstCount + 2 + k))) }
                out += row.joined(separator: ",") + "\n"
            }
        }
        return out
    }
}
