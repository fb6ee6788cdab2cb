import Foundation

/// The screening for interactions (`jetsim sensitivity --interactions N`): the N
/// variations that moved a metric most one at a time, taken in pairs, each pair at its
/// four corners (low-low, low-high, high-low, high-high). A corner's delta is compared
/// with what the two moves alone add up to (center + move of A + move of B): the
/// difference is the pair's interaction there. A 2x2 factorial per pair: it finds the
/// two-key interactions among the strongest keys, not those of weaker keys or of three.
extension Sensitivity {
    /// The `count` variations with the largest effect on `metric` among `rows` (one
    /// RAM's), strongest first (ties in point order).
    public static func strongest(_ rows: [Row], metric: Metric, count: Int) -> [Variation] {
        var order: [Variation] = [], effect: [String: Double] = [:]
        for r in rows where r.metric == metric && r.complete {
            if effect[r.variation.name] == nil { order.append(r.variation) }
            effect[r.variation.name] = max(effect[r.variation.name] ?? 0, r.effect)
        }
        let ranked = order.enumerated().sorted { a, b in
            let ea = effect[a.element.name]!, eb = effect[b.element.name]!
            return ea != eb ? ea > eb : a.offset < b.offset
        }
        return ranked.prefix(count).map(\.element).filter { effect[$0.name]! > 0 }
    }

    /// The pairs of `top` in order, leaving out a pair whose two variations set a key
    /// in common (a group and one of its keys): the second would overwrite the first.
    public static func pairs(_ top: [Variation]) -> [(Variation, Variation)] {
        func keys(_ v: Variation) -> Set<String> { Set((v.low + v.high).map { String($0.prefix { $0 != "=" }) }) }
        var out: [(Variation, Variation)] = []
        for i in top.indices {
            for j in top.indices where j > i && keys(top[i]).isDisjoint(with: keys(top[j])) { out.append((top[i], top[j])) }
        }
        return out
    }

    /// The corner points of `pairs` at one RAM, numbered from `first`.
    public static func corners(_ pairs: [(Variation, Variation)], ramKB: Int64?, first: Int) -> [Point] {
        var out: [Point] = []
        for (a, b) in pairs {
            for (ea, eb) in [(End.low, End.low), (.low, .high), (.high, .low), (.high, .high)] {
                out.append(Point(index: first + out.count, ramKB: ramKB, variation: a, end: ea, second: b, secondEnd: eb))
            }
        }
        return out
    }

    /// One row of the interaction CSV: a corner of a pair, for one policy.
    public struct InteractionRow: Sendable {
        public var ramLabel: String
        public var metric: Metric
        public var a: Variation
        public var aEnd: End
        public var b: Variation
        public var bEnd: End
        public var baseline: String
        public var center: Outcome
        /// The delta with A alone at its end, B alone at its end, and both.
        public var alongA: Outcome
        public var alongB: Outcome
        public var corner: Outcome
        public var reversed: [Reversal]
        /// What the two moves alone add up to.
        public var additive: Double { alongA.delta + alongB.delta - center.delta }
        /// The corner's delta minus the additive prediction.
        public var interaction: Double { corner.delta - additive }
        /// A bound on the interaction's 95% half-width: the sum of the four deltas'
        /// (sd(a ± b) <= sd(a) + sd(b); they share users, so the true one is narrower).
        public var interactionBound: Double { corner.ci95 + alongA.ci95 + alongB.ci95 + center.ci95 }
        public var signFlip: SignFlip { Sensitivity.signFlip(center, corner) }
        public var rankingFlip: SignFlip { reversed.contains(where: \.clear) ? .yes : reversed.isEmpty ? .no : .withinCI }
    }

    /// The rows of one RAM's corners: `corners` each corner point with its outcomes,
    /// `single` the one-at-a-time outcomes by variation name and end.
    public static func interactionRows(ramLabel: String, baseline: String, metric: Metric, center: [Outcome],
                                       single: [String: (low: [Outcome], high: [Outcome])],
                                       corners: [(Point, [Outcome])]) -> [InteractionRow] {
        var out: [InteractionRow] = []
        for (p, o) in corners {
            guard let a = p.variation, let b = p.second, let sa = single[a.name], let sb = single[b.name] else { continue }
            let oa = p.end == .high ? sa.high : sa.low, ob = p.secondEnd == .high ? sb.high : sb.low
            let rev = reversals(center, o, baseline: baseline)
            for c in center where c.policy != baseline {
                guard let x = o.first(where: { $0.policy == c.policy }), let xa = oa.first(where: { $0.policy == c.policy }),
                      let xb = ob.first(where: { $0.policy == c.policy }) else { continue }
                out.append(InteractionRow(ramLabel: ramLabel, metric: metric, a: a, aEnd: p.end, b: b, bEnd: p.secondEnd, baseline: baseline,
                                          center: c, alongA: xa, alongB: xb, corner: x, reversed: rev))
            }
        }
        return out
    }

    public static let interactionHeader = ["workload", "ram_mb", "metric", "a", "a_end", "a_value", "b", "b_end", "b_value", "policy", "baseline",
                                           "delta_center", "delta_a", "delta_b", "delta_additive", "delta_corner", "delta_corner_ci95",
                                           "interaction", "interaction_ci95_bound", "sign_flip", "ranking_flip", "reversed"].joined(separator: ",")

    /// The interaction CSV: one row per RAM, pair, corner and policy, in point order.
    public static func interactionCSV(workload: String, rows: [InteractionRow]) -> String {
        var out = interactionHeader + "\n"
        for r in rows {
            let f = { (x: Double) in Summary.fixed(x, r.metric.decimals) }
            out += [CSV.escape(workload), r.ramLabel, r.metric.rawValue, r.a.name, r.aEnd.rawValue, CSV.escape(r.a.label(high: r.aEnd == .high)),
                    r.b.name, r.bEnd.rawValue, CSV.escape(r.b.label(high: r.bEnd == .high)), r.center.policy, r.baseline,
                    f(r.center.delta), f(r.alongA.delta), f(r.alongB.delta), f(r.additive), f(r.corner.delta), f(r.corner.ci95),
                    f(r.interaction), f(r.interactionBound), r.signFlip.rawValue, r.rankingFlip.rawValue,
                    r.reversed.map(\.text).joined(separator: " ")].joined(separator: ",") + "\n"
        }
        return out
    }

    /// The interaction table: the `limit` corners with the largest interaction of any
    /// policy, largest first.
    public static func interactionTable(rows: [InteractionRow], limit: Int = 12) -> String {
        guard let metric = rows.first?.metric else { return "" }
        var corners: [(key: String, rows: [InteractionRow])] = []
        for r in rows {
            let k = [r.ramLabel, r.a.name, r.aEnd.rawValue, r.b.name, r.bEnd.rawValue].joined(separator: "\u{0}")
            if corners.last?.key == k { corners[corners.count - 1].rows.append(r) } else { corners.append((k, [r])) }
        }
        func top(_ rs: [InteractionRow]) -> InteractionRow {
            rs.enumerated().max { x, y in abs(x.element.interaction) != abs(y.element.interaction) ? abs(x.element.interaction) < abs(y.element.interaction) : x.offset > y.offset }!.element
        }
        let ranked = corners.enumerated().sorted { x, y in
            let a = abs(top(x.element.rows).interaction), b = abs(top(y.element.rows).interaction)
            return a != b ? a > b : x.offset < y.offset
        }.map(\.element.rows)
        func v(_ x: Double) -> String { Summary.fixed(x * metric.tableScale, metric.tableDecimals) }
        var lines: [[String]] = []
        for rs in ranked.prefix(limit) {
            let t = top(rs)
            let clear = t.reversed.filter(\.clear).map(\.text)
            lines.append([t.a.name + " " + t.aEnd.rawValue, t.b.name + " " + t.bEnd.rawValue, t.ramLabel, t.center.policy, v(t.center.delta),
                          v(t.additive), v(t.corner.delta), v(t.corner.ci95), v(t.interaction), v(t.interactionBound),
                          rs.filter { $0.signFlip == .yes }.map(\.center.policy).joined(separator: ",").isEmpty ? "-" : rs.filter { $0.signFlip == .yes }.map(\.center.policy).joined(separator: ","),
                          clear.isEmpty ? "-" : clear.joined(separator: " ")])
        }
        var out = "\ninteractions: pairs of the strongest keys at their corners; Δ \(metric.tableUnit) against \(rows[0].baseline) as shipped, "
        out += "as the two moves alone add up to, and at the corner (the policy with the largest interaction; its ± bound sums the four half-widths)\n"
        out += Summary.aligned(["a", "b", "RAM MB", "policy", "Δ shipped", "Δ additive", "Δ corner", "±", "interaction", "± bound", "sign flips", "ranking flips"], lines)
        if ranked.count > limit { out += "... \(ranked.count - limit) more corners (all in interactions.csv)\n" }
        return out
    }
}
