import Foundation
import SimKernel

/// One-at-a-time sensitivity of the paired comparison (`jetsim sensitivity`, issue 30):
/// every key with a plausible range (`Plausible`, declared in the schema) and every
/// group (`Schema.plausibleGroups`) is set to the low and then the high end of its
/// range, the rest left as shipped, and the policies are compared with the baseline
/// at each end as `jetsim run --baseline` compares them. A point is exactly the run
/// with its `--set` values (`Point.sets`), so any row can be reproduced by hand.
///
/// The rows say how far each policy's paired delta moves, whether its sign flips and
/// whether the ranking of the policies by cold-relaunch ratio flips.
public enum Sensitivity {
    /// One thing varied: a key (every device class or archetype at once) or a group.
    public struct Variation: Sendable, Equatable {
        /// The reference key (`device_classes.os_reserve_mb`) or the group's name.
        public var name: String
        public var isGroup: Bool
        /// `Plausible.text`.
        public var range: String
        public var why: String
        /// The `--set` values of each end.
        public var low: [String]
        public var high: [String]

        /// An end's value as the CSV shows it: the value when every element takes the
        /// same (`400`), else the factor (`x0.78`).
        public func label(high: Bool) -> String {
            let values = Set((high ? self.high : low).map { String($0[$0.index(after: $0.firstIndex(of: "=")!)...]) })
            if values.count == 1 && !isGroup { return values.first! }
            let parts = range.split(separator: "...", omittingEmptySubsequences: false)
            return String(high ? parts.last! : parts.first!)
        }
    }

    /// The variations of `w` at one RAM (nil: each class's own): each key with a
    /// plausible range in the reference's order, then each group. Throws, naming the
    /// key, when a relative range meets a value it cannot scale.
    public static func variations(_ w: Workload, ramKB: Int64?) throws(InputError) -> [Variation] {
        let keys = Schema.plausibleKeys()
        var out: [Variation] = []
        func sets(_ k: PlausibleKey, _ ends: Plausible.Ends, high: Bool) throws(InputError) -> [String] {
            guard let s = k.settings(w, ramKB, ends, high) else {
                throw InputError(at: SourceLocation("the schema"), key: k.key, "its plausible range is relative, but a value cannot be scaled (auto or a switch)")
            }
            return s
        }
        for k in keys {
            guard let p = k.plausible else { continue }
            out.append(Variation(name: k.key, isGroup: false, range: p.text, why: p.why,
                                 low: try sets(k, p.ends, high: false), high: try sets(k, p.ends, high: true)))
        }
        for g in Schema.plausibleGroups {
            var low: [String] = [], high: [String] = []
            for k in keys where g.keys.contains(k.key) {
                low += try sets(k, .factors(g.low, g.high), high: false)
                high += try sets(k, .factors(g.low, g.high), high: true)
            }
            out.append(Variation(name: g.name, isGroup: true, range: g.text, why: g.why, low: low, high: high))
        }
        return out
    }

    /// Which end of a variation a point runs.
    public enum End: String, Sendable { case center, low, high }

    /// One run: the shipped workload at a RAM (`center`), or one variation's end.
    public struct Point: Sendable {
        /// 1-based, as `--list` numbers them.
        public var index: Int
        public var ramKB: Int64?
        /// nil for the center.
        public var variation: Variation?
        public var end: End
        /// A corner of the interaction screening (`Sensitivity.corners`): a second
        /// variation at its own end, set after the first.
        public var second: Variation? = nil
        public var secondEnd: End = .center
        public var sets: [String] {
            (variation.map { end == .high ? $0.high : $0.low } ?? []) + (second.map { secondEnd == .high ? $0.high : $0.low } ?? [])
        }
        public var label: String {
            let ram = ramKB.map(SizeText.mebibytes) ?? "own"
            var what = variation.map { "\($0.name)-\(end.rawValue)" } ?? "center"
            if let second { what += "+\(second.name)-\(secondEnd.rawValue)" }
            return String("\(ram)-\(what)".map { $0.isLetter || $0.isNumber || "._=+-".contains($0) ? $0 : "-" }.prefix(second == nil ? 120 : 200))
        }
        /// A corner's file is named by its pair and ends, not its index, so that a
        /// screening of more or fewer keys in the same directory reuses it.
        public var fileName: String { second == nil ? "\(index)-\(label).csv" : "pair-\(label).csv" }
    }

    /// The points: per RAM, its center and then each variation's low and high end.
    public static func points(_ w: Workload, rams: [Int64?]) throws(InputError) -> [Point] {
        var out: [Point] = []
        for r in rams {
            out.append(Point(index: out.count + 1, ramKB: r, variation: nil, end: .center))
            for v in try variations(w, ramKB: r) {
                out.append(Point(index: out.count + 1, ramKB: r, variation: v, end: .low))
                out.append(Point(index: out.count + 1, ramKB: r, variation: v, end: .high))
            }
        }
        return out
    }

    // MARK: Outcomes

    /// What a row compares: one of the paired deltas of `jetsim run --baseline`, and
    /// the figure policies are ranked by (lower is better for each).
    public enum Metric: String, CaseIterable, Sendable {
        case coldRatio = "cold_ratio", meanMs = "mean_ms", p99Ms = "p99_ms", lossPerDeviceDay = "loss_per_device_day"

        /// The summary's column of the figure, and of its delta from the baseline.
        var valueColumn: String {
            switch self {
            case .coldRatio: "relaunch_cold_ratio"
            case .meanMs: "relaunch_mean_ms"
            case .p99Ms: "relaunch_p99_ms"
            case .lossPerDeviceDay: "data_loss_per_device_day"
            }
        }
        var deltaColumn: String { "delta_" + valueColumn }
        /// Decimals in the CSV, as the summary writes the delta.
        var decimals: Int { self == .coldRatio || self == .lossPerDeviceDay ? 6 : 3 }
        /// The table's unit and scale: the cold ratio in percentage points.
        public var tableUnit: String {
            switch self {
            case .coldRatio: "cold %"
            case .meanMs: "mean relaunch ms"
            case .p99Ms: "p99 relaunch ms (interval not paired)"
            case .lossPerDeviceDay: "lost edits per device-day"
            }
        }
        var tableScale: Double { self == .coldRatio ? 100 : 1 }
        var tableDecimals: Int { self == .lossPerDeviceDay ? 3 : 2 }
    }

    /// A policy's figures at one point: its value of the metric and its paired delta
    /// from the baseline (the summary's units: a ratio, ms, or edits per device-day).
    public struct Outcome: Sendable, Equatable {
        public var policy: String
        /// The figure the policies are ranked by.
        public var value: Double
        public var delta: Double
        public var ci95: Double
    }

    /// The outcomes of a point for `metric`, read back from its summary CSV (written
    /// with a baseline), in the CSV's row order; nil when it is not such a CSV (a row
    /// short of a column it needs included).
    public static func outcomes(summaryCSV text: String, metric: Metric = .coldRatio) -> [Outcome]? {
        let rows = records(text)
        guard let head = rows.first else { return nil }
        func col(_ name: String) -> Int? { head.firstIndex(of: name) }
        guard let p = col("policy"), let c = col(metric.valueColumn), let d = col(metric.deltaColumn),
              let h = col(metric.deltaColumn + "_ci95") else { return nil }
        var out: [Outcome] = []
        for f in rows.dropFirst() {
            guard f.count == head.count else { return nil }
            out.append(Outcome(policy: f[p], value: Double(f[c]) ?? .nan, delta: Double(f[d]) ?? .nan, ci95: Double(f[h]) ?? .nan))
        }
        return out
    }

    /// The records of an RFC 4180 text, each its fields: a quoted field may hold a
    /// comma, a doubled quote and a line break (a workload name with a line break is
    /// written so; split at every line break, its row trapped `sensitivity` after all
    /// its points had run). A CR before a record's LF is dropped; no empty records.
    static func records(_ text: String) -> [[String]] {
        var out: [[String]] = [], row: [String] = [], cur: [UInt8] = [], quoted = false, started = false
        let bytes = Array(text.utf8)
        var i = 0
        func endField() { row.append(String(decoding: cur, as: UTF8.self)); cur.removeAll(keepingCapacity: true) }
        while i < bytes.count {
            let b = bytes[i]
            if quoted {
                if b == 0x22 {
                    if i + 1 < bytes.count, bytes[i + 1] == 0x22 { cur.append(0x22); i += 1 } else { quoted = false }
                } else { cur.append(b) }
            } else if b == 0x22 {
                quoted = true; started = true
            } else if b == 0x2C {
                endField(); started = true
            } else if b == 0x0A || (b == 0x0D && i + 1 < bytes.count && bytes[i + 1] == 0x0A) {
                if b == 0x0D { i += 1 }
                if started || !cur.isEmpty { endField(); out.append(row) }
                row = []; started = false
            } else {
                cur.append(b); started = true
            }
            i += 1
        }
        if started || !cur.isEmpty { endField(); out.append(row) }
        return out
    }

    // MARK: Rows

    /// Whether a policy's delta changes sign between the center and an end: `no`,
    /// `yes` (both intervals exclude 0, so the flip is not noise) or `within-ci`.
    public enum SignFlip: String, Sendable { case no, yes, withinCI = "within-ci" }

    static func signFlip(_ c: Outcome, _ e: Outcome) -> SignFlip {
        guard c.delta * e.delta < 0 else { return .no }
        return abs(c.delta) > c.ci95 && abs(e.delta) > e.ci95 ? .yes : .withinCI
    }

    /// A pair of policies whose order by cold ratio reverses strictly between the
    /// center and an end (a tie that opens or closes is not a reversal): `better` was
    /// ahead at the center. `clear` when at both points the two differ by more than
    /// the sum of their paired half-widths against the baseline (the exact paired
    /// interval when one of them is the baseline, whose half-width is 0; otherwise a
    /// bound on it, since sd(a - b) <= sd(a) + sd(b)), so the reversal is not noise.
    public struct Reversal: Sendable, Equatable {
        public var better: String
        public var worse: String
        public var clear: Bool
        /// `a>b`, with `?` after it when it is within the intervals.
        public var text: String { "\(better)>\(worse)" + (clear ? "" : "?") }
    }

    static func reversals(_ c: [Outcome], _ e: [Outcome], baseline: String) -> [Reversal] {
        var out: [Reversal] = []
        func ci(_ o: Outcome) -> Double { o.policy == baseline ? 0 : o.ci95 }
        for i in c.indices {
            for j in c.indices where j > i {
                guard let ei = e.first(where: { $0.policy == c[i].policy }), let ej = e.first(where: { $0.policy == c[j].policy }) else { continue }
                let before = c[i].value - c[j].value, after = ei.value - ej.value
                guard before * after < 0 else { continue }
                let clear = abs(before) > ci(c[i]) + ci(c[j]) && abs(after) > ci(ei) + ci(ej)
                out.append(before < 0 ? Reversal(better: c[i].policy, worse: c[j].policy, clear: clear)
                                      : Reversal(better: c[j].policy, worse: c[i].policy, clear: clear))
            }
        }
        return out
    }

    /// One row of the CSV: a variation, at one RAM, for one policy.
    public struct Row: Sendable {
        public var ramLabel: String
        public var variation: Variation
        public var metric: Metric
        public var baseline: String
        public var center: Outcome
        public var low: Outcome
        public var high: Outcome
        /// The variation's pairs of policies whose order reverses at the low or high end.
        public var reversedLow: [Reversal]
        public var reversedHigh: [Reversal]
        /// Whether an end changes the workload as the model reads it: false when both
        /// ends run the shipped workload (a key the classes' memory manager does not
        /// read, such as Android's on an iPhone class, or a factor on a value of 0), so
        /// the row's zeros say nothing about the key (CSV: `moved`).
        public var moved = true
        /// Whether the center and both ends gave a delta (a point with no relaunches
        /// gives none: `nan`). A row without one has no effect and is never ranked.
        public var complete: Bool { center.delta.isFinite && low.delta.isFinite && high.delta.isFinite }
        /// How far the delta moves from the center at the farther end (nan when an end
        /// or the center gave none: never the other end's move alone).
        public var effect: Double { complete ? max(abs(low.delta - center.delta), abs(high.delta - center.delta)) : .nan }
        public var signFlip: SignFlip {
            let a = Sensitivity.signFlip(center, low), b = Sensitivity.signFlip(center, high)
            return a == .yes || b == .yes ? .yes : a == .withinCI || b == .withinCI ? .withinCI : .no
        }
        /// `yes` when some pair reverses clearly, `within-ci` when pairs reverse only
        /// within their intervals, else `no` (the same words as `signFlip`).
        public var rankingFlip: SignFlip {
            let all = reversedLow + reversedHigh
            return all.contains(where: \.clear) ? .yes : all.isEmpty ? .no : .withinCI
        }
    }

    /// The rows of one RAM: `center` the center point's outcomes, `ends` each
    /// variation's (low, high) outcomes in `variations`' order; `unmoved` names the
    /// variations both of whose ends are the shipped workload as the model reads it
    /// (`Row.moved`). The baseline's own rows (always 0) are left out.
    public static func rows(ramLabel: String, baseline: String, metric: Metric = .coldRatio, center: [Outcome],
                            ends: [(Variation, low: [Outcome], high: [Outcome])], unmoved: Set<String> = []) -> [Row] {
        var out: [Row] = []
        for (v, lo, hi) in ends {
            let rl = reversals(center, lo, baseline: baseline), rh = reversals(center, hi, baseline: baseline)
            for c in center where c.policy != baseline {
                guard let l = lo.first(where: { $0.policy == c.policy }), let h = hi.first(where: { $0.policy == c.policy }) else { continue }
                out.append(Row(ramLabel: ramLabel, variation: v, metric: metric, baseline: baseline, center: c, low: l, high: h,
                               reversedLow: rl, reversedHigh: rh, moved: !unmoved.contains(v.name)))
            }
        }
        return out
    }

    public static let header = ["workload", "ram_mb", "varied", "kind", "range", "low", "high", "metric", "policy", "baseline",
                                "value_center", "delta_center", "delta_center_ci95",
                                "delta_low", "delta_low_ci95", "delta_high", "delta_high_ci95",
                                "effect", "sign_flip", "ranking_flip", "reversed_low", "reversed_high", "moved"].joined(separator: ",")

    /// The CSV: one row per RAM, metric, variation and policy, in that order
    /// (deterministic: a function of the points' summaries only). `value_center` and
    /// the deltas are in the summary's units and decimals for the metric (the cold
    /// ratio as a ratio, latencies in ms, lost edits per device-day; p99's interval is
    /// not paired, as in the summary); `effect` is the larger move of the delta
    /// from the center; `reversed_*` list the pairs `a>b` of policies (a was better
    /// than b at the center) whose order the end reverses, separated by spaces, each
    /// with `?` after it when the reversal is within the intervals (`Reversal`); `moved`
    /// is `no` when neither end changed the workload as the model reads it (`Row.moved`).
    public static func csv(workload: String, rows: [Row]) -> String {
        var out = header + "\n"
        for r in rows {
            let f = { (x: Double) in Summary.fixed(x, r.metric.decimals) }
            out += [CSV.escape(workload), r.ramLabel, r.variation.name, r.variation.isGroup ? "group" : "key", CSV.escape(r.variation.range),
                    CSV.escape(r.variation.label(high: false)), CSV.escape(r.variation.label(high: true)), r.metric.rawValue, r.center.policy, r.baseline,
                    f(r.center.value), f(r.center.delta), f(r.center.ci95),
                    f(r.low.delta), f(r.low.ci95), f(r.high.delta), f(r.high.ci95),
                    f(r.effect), r.signFlip.rawValue, r.rankingFlip.rawValue,
                    r.reversedLow.map(\.text).joined(separator: " "), r.reversedHigh.map(\.text).joined(separator: " "),
                    r.moved ? "yes" : "no"].joined(separator: ",") + "\n"
        }
        return out
    }

    /// The terminal table of one metric: one line per RAM and variation, sorted by its
    /// largest effect (ties in point order); the cold ratio in percentage points.
    /// `--policy-of-interest`: one line per varied key (or group) and RAM for `policy`
    /// alone: its paired Δ at the shipped value and at each end, whether its sign flips,
    /// and the ranking flips it takes part in (the pairs a>b an end reverses with
    /// `policy` as a or b). Ranked as `table` ranks, by how far this policy's Δ moves.
    public static func policyTable(workload: String, devices: Int, days: Double, baseline: String, rows: [Row], metric: Metric = .coldRatio,
                                   policy: String, limit: Int? = nil) -> String {
        let mine = rows.filter { $0.metric == metric && $0.center.policy == policy }
        let ranked = mine.enumerated().sorted { a, b in
            let ea = a.element.complete ? a.element.effect : -1, eb = b.element.complete ? b.element.effect : -1
            return ea != eb ? ea > eb : a.offset < b.offset
        }.map(\.element)
        func pts(_ x: Double) -> String { Summary.fixed(x * metric.tableScale, metric.tableDecimals) }
        func short(_ t: String) -> String { t.count > 24 ? String(t.prefix(23)) + "…" : t }
        var lines: [[String]] = []
        var survives = 0, complete = 0
        for r in ranked.prefix(limit ?? ranked.count) {
            let reversals = (r.reversedLow + r.reversedHigh).filter { $0.better == policy || $0.worse == policy }
            var flips: [String] = []
            for x in reversals where !flips.contains(x.text) { flips.append(x.text) }
            lines.append([r.variation.name, r.ramLabel, short(r.variation.label(high: false)), short(r.variation.label(high: true)),
                          pts(r.center.delta), pts(r.low.delta), pts(r.high.delta), pts(max(r.low.ci95, r.high.ci95)),
                          !r.complete ? "no value" : r.moved ? pts(r.effect) : "-", r.signFlip.rawValue,
                          flips.isEmpty ? "-" : flips.joined(separator: " ")])
        }
        for r in ranked where r.complete {
            complete += 1
            if r.signFlip != .yes && !(r.reversedLow + r.reversedHigh).contains(where: { $0.clear && ($0.better == policy || $0.worse == policy) }) { survives += 1 }
        }
        var out = "\(workload): \(devices) devices x \(Summary.fixed(days, 1)) days; \(policy)'s paired Δ \(metric.tableUnit) against \(baseline), "
        out += "at the shipped value and at each end (± the larger half-width); sign flip: yes, within-ci or no; ranking flips: the pairs with \(policy) that an end reverses (? within the intervals)\n"
        out += Summary.aligned(["varied", "RAM MB", "low", "high", "Δ shipped", "Δ low", "Δ high", "±", "moves", "sign flip", "ranking flips"], lines)
        if let limit, ranked.count > limit { out += "... \(ranked.count - limit) more, with smaller effects (all in the CSV)\n" }
        out += "\(policy): no clear sign or ranking flip at \(survives) of the \(complete) variations with a value\n"
        return out
    }

    public static func table(workload: String, devices: Int, days: Double, baseline: String, rows: [Row], metric: Metric = .coldRatio,
                             limit: Int? = nil) -> String {
        var groups: [(key: String, rows: [Row])] = []
        for r in rows where r.metric == metric {
            let k = r.ramLabel + "\u{0}" + r.variation.name
            if groups.last?.key == k { groups[groups.count - 1].rows.append(r) } else { groups.append((k, [r])) }
        }
        // Ranked by the rows that have all their ends; a key with none comes last,
        // unranked (its moves: "no value").
        func rank(_ rs: [Row]) -> Double { rs.filter(\.complete).map(\.effect).max() ?? -1 }
        let ranked = groups.enumerated().sorted { a, b in
            let ea = rank(a.element.rows), eb = rank(b.element.rows)
            return ea != eb ? ea > eb : a.offset < b.offset
        }.map(\.element.rows)
        let unranked = ranked.filter { rank($0) < 0 }.count
        func pts(_ x: Double) -> String { Summary.fixed(x * metric.tableScale, metric.tableDecimals) }
        var lines: [[String]] = []
        for rs in ranked.prefix(limit ?? ranked.count) {
            let complete = rs.filter(\.complete)
            let top = complete.enumerated().max { a, b in a.element.effect != b.element.effect ? a.element.effect < b.element.effect : a.offset > b.offset }?.element ?? rs[0]
            let flips = rs.filter { $0.signFlip == .yes }.map(\.center.policy)
            let soft = rs.filter { $0.signFlip == .withinCI }.map(\.center.policy)
            let reversed = rs[0].reversedLow + rs[0].reversedHigh
            var clear: [String] = []
            for r in reversed where r.clear && !clear.contains(r.text) { clear.append(r.text) }
            // A range written out in full (a save strategy's weights) is cut short: the CSV has it whole.
            func short(_ t: String) -> String { t.count > 24 ? String(t.prefix(23)) + "…" : t }
            lines.append([top.variation.name, top.ramLabel, short(top.variation.range), short(top.variation.label(high: false)), short(top.variation.label(high: true)),
                          top.center.policy, pts(top.center.delta), pts(top.low.delta), pts(top.high.delta), pts(max(top.low.ci95, top.high.ci95)),
                          !top.complete ? "no value" : top.moved ? pts(top.effect) : "-", flips.isEmpty ? (soft.isEmpty ? "-" : "(" + soft.joined(separator: ",") + ")") : flips.joined(separator: ","),
                          clear.isEmpty ? (reversed.isEmpty ? "-" : "(\(reversed.count) within ci)") : clear.joined(separator: " ")])
        }
        var out = "\(workload): \(devices) devices x \(Summary.fixed(days, 1)) days; paired Δ \(metric.tableUnit) against \(baseline), "
        out += "at the shipped value and at each end (the policy whose Δ moves most; ± the larger half-width; moves \"-\": neither end "
        out += "changes the workload as the model reads it, such as another OS's key). Sign flips: "
        out += "the policies whose Δ changes sign, in brackets when within the intervals; ranking flips: the pairs a>b (a better as shipped) that an end clearly reverses\n"
        out += Summary.aligned(["varied", "RAM MB", "range", "low", "high", "policy", "Δ shipped", "Δ low", "Δ high", "±", "moves",
                                "sign flips", "ranking flips"], lines)
        if let limit, ranked.count > limit { out += "... \(ranked.count - limit) more, with smaller effects (all in the CSV)\n" }
        if unranked > 0 {
            out += "\(unranked) of them not ranked (moves \"no value\"): the center or an end gave no delta (nan in the CSV: no relaunches there)\n"
        }
        return out
    }
}
