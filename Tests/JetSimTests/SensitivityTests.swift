import Foundation
import Testing
import SimKernel
@testable import JetSim

/// Issue 30: `jetsim sensitivity` reports a key whose range flips a ranking as
/// flipping, and one that cannot as not.
@Suite("sensitivity: flips of sign and ranking")
struct SensitivityTests {
    /// The points of `names` on a small fixture (the default workload, 60 devices x 1
    /// day at 1.75 GB; jetsam-bands against random; 30 devices at 1.5 GB until apps
    /// fit their devices, issue 29, under which that flip was no longer clear), run in process as `jetsim
    /// sensitivity --baseline jetsam-bands` runs them, and their rows.
    static func rows(_ names: [String]) throws -> [Sensitivity.Row] {
        let base = ["fleet.devices=60", "fleet.duration_days=1"]
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "default", overrides: base)
        let ram: Int64 = 1_792 * 1_024
        let cells = ["jetsam-bands", "random"].map { Cell(policy: PolicyID(rawValue: $0)!, ramKB: ram) }
        func outcomes(_ sets: [String]) throws -> [Sensitivity.Outcome] {
            let pw = try WorkloadDecoder.load(defaultWorkloadText, source: "default", overrides: base + sets)
            var plan = RunPlan(workload: pw, cells: cells, threads: 2)
            plan.baseline = PolicyID(rawValue: "jetsam-bands")!
            let result = FleetRunner.run(plan, catalog: AppCatalog(pw))
            return try #require(Sensitivity.outcomes(summaryCSV: Summary.csv(workload: pw, result: result)))
        }
        let variations = try Sensitivity.variations(w, ramKB: ram).filter { names.contains($0.name) }
        #expect(variations.count == names.count)
        return Sensitivity.rows(ramLabel: "1792", baseline: "jetsam-bands", center: try outcomes([]),
                                ends: try variations.map { ($0, try outcomes($0.low), try outcomes($0.high)) })
    }

    @Test("halving the suspended footprints flips random ahead of jetsam-bands, within the intervals; an Android key on an iPhone moves nothing")
    func flipAndNoFlip() throws {
        let rows = try Self.rows(["catalog.archetypes.suspended_share", "device_classes.android_oom_stall_ms"])
        #expect(rows.count == 2)  // one policy besides the baseline, two keys
        let flips = try #require(rows.first { $0.variation.name == "catalog.archetypes.suspended_share" })
        // random - jetsam-bands, cold-relaunch ratio: +1.41 points (± 1.71) as shipped,
        // -0.14 (± 0.96) at x0.5: the sign and the ranking flip within the intervals.
        // Before issue 29 and 31 (apps fit the device, XNU's orders, the reserve from
        // reports) this was a clear flip; no key flips this pair clearly on a fixture
        // this small now (the clear case: `clearFlip`, below).
        #expect(Summary.fixed(flips.center.delta, 6) == "0.014139" && Summary.fixed(flips.center.ci95, 6) == "0.017140")
        #expect(Summary.fixed(flips.low.delta, 6) == "-0.001418" && Summary.fixed(flips.low.ci95, 6) == "0.009620")
        #expect(flips.signFlip == .withinCI)
        #expect(flips.rankingFlip == .withinCI)
        #expect(flips.reversedLow == [Sensitivity.Reversal(better: "jetsam-bands", worse: "random", clear: false)])
        #expect(flips.reversedHigh.isEmpty)

        let none = try #require(rows.first { $0.variation.name == "device_classes.android_oom_stall_ms" })
        #expect(none.low == none.center && none.high == none.center)
        #expect(none.effect == 0)
        #expect(none.signFlip == .no && none.rankingFlip == .no)
        #expect(none.reversedLow.isEmpty && none.reversedHigh.isEmpty)
    }

    static func outcome(_ policy: String, _ cold: Double, _ delta: Double, _ ci: Double) -> Sensitivity.Outcome {
        Sensitivity.Outcome(policy: policy, value: cold, delta: delta, ci95: ci)
    }

    @Test("a reversal within the intervals is within-ci, not a flip; a tie that opens is no reversal")
    func withinIntervals() {
        let v = Sensitivity.Variation(name: "k", isGroup: false, range: "x0.5...x2", why: "", low: ["k=1"], high: ["k=4"])
        let center = [Self.outcome("lru", 0.30, 0, 0), Self.outcome("a", 0.25, -0.05, 0.01), Self.outcome("b", 0.26, -0.04, 0.01)]
        // a and b swap by 0.01 with half-widths of 0.01 each: noise. b ties lru: no reversal.
        let low = [Self.outcome("lru", 0.30, 0, 0), Self.outcome("a", 0.27, -0.03, 0.01), Self.outcome("b", 0.26, -0.04, 0.01)]
        let high = [Self.outcome("lru", 0.30, 0, 0), Self.outcome("a", 0.25, -0.05, 0.01), Self.outcome("b", 0.30, 0, 0.01)]
        let rows = Sensitivity.rows(ramLabel: "2048", baseline: "lru", center: center, ends: [(v, low, high)])
        #expect(rows.map(\.center.policy) == ["a", "b"])
        #expect(rows[0].reversedLow == [Sensitivity.Reversal(better: "a", worse: "b", clear: false)])
        #expect(rows[0].reversedHigh.isEmpty)
        #expect(rows[0].rankingFlip == .withinCI)
        #expect(rows.allSatisfy { $0.signFlip == .no })
        #expect(Sensitivity.csv(workload: "w", rows: rows).split(separator: "\n")[1]
                    == "w,2048,k,key,x0.5...x2,1,4,cold_ratio,a,lru,0.250000,-0.050000,0.010000,-0.030000,0.010000,-0.050000,0.010000,0.020000,no,within-ci,a>b?,,yes")
    }

    @Test("a variation whose ends are both the shipped workload as the model reads it is marked moved=no, and its table line moves \"-\"")
    func unmovedVariation() {
        let v = Sensitivity.Variation(name: "k", isGroup: false, range: "x0.5...x2", why: "", low: ["k=1"], high: ["k=4"])
        let w = Sensitivity.Variation(name: "other_os_key", isGroup: false, range: "x0.5...x2", why: "", low: ["o=1"], high: ["o=4"])
        let center = [Self.outcome("lru", 0.30, 0, 0), Self.outcome("a", 0.25, -0.05, 0.01)]
        let moved = [Self.outcome("lru", 0.30, 0, 0), Self.outcome("a", 0.20, -0.10, 0.01)]
        let rows = Sensitivity.rows(ramLabel: "2048", baseline: "lru", center: center,
                                    ends: [(v, moved, center), (w, center, center)], unmoved: ["other_os_key"])
        #expect(rows.map(\.moved) == [true, false])
        let csv = Sensitivity.csv(workload: "w", rows: rows).split(separator: "\n")
        #expect(csv[0].hasSuffix(",reversed_low,reversed_high,moved"))
        #expect(csv[1].hasSuffix(",yes") && csv[2].hasSuffix(",no"))
        let table = Sensitivity.table(workload: "w", devices: 2, days: 1, baseline: "lru", rows: rows)
        // The 11th column is "moves" (varied, RAM, range, low, high, policy, three Δs, ±, moves).
        func moves(_ name: String) -> String? {
            table.split(separator: "\n").first { $0.hasPrefix(name + " ") }.map { String($0.split(separator: " ")[10]) }
        }
        #expect(moves("other_os_key") == "-")
        #expect(moves("k") != nil && moves("k") != "-")
    }

    @Test("a delta whose intervals exclude 0 on both sides of 0 is a clear flip of sign and ranking")
    func clearFlip() {
        let v = Sensitivity.Variation(name: "k", isGroup: false, range: "x0.5...x2", why: "", low: ["k=1"], high: ["k=4"])
        let center = [Self.outcome("lru", 0.30, 0, 0), Self.outcome("a", 0.33, 0.03, 0.01)]
        let low = [Self.outcome("lru", 0.30, 0, 0), Self.outcome("a", 0.27, -0.03, 0.01)]
        let high = [Self.outcome("lru", 0.30, 0, 0), Self.outcome("a", 0.34, 0.04, 0.01)]
        let rows = Sensitivity.rows(ramLabel: "2048", baseline: "lru", center: center, ends: [(v, low, high)])
        #expect(rows.count == 1 && rows[0].signFlip == .yes && rows[0].rankingFlip == .yes)
        #expect(rows[0].reversedLow == [Sensitivity.Reversal(better: "lru", worse: "a", clear: true)])  // the center's order, reversed
        #expect(rows[0].reversedHigh.isEmpty)
    }

    @Test("the screening pairs the strongest variations, leaves out a group with its own key, and measures a corner against the sum of the two moves")
    func interactions() {
        func v(_ name: String, _ sets: [String], group: Bool = false) -> Sensitivity.Variation {
            Sensitivity.Variation(name: name, isGroup: group, range: "x0.5...x2", why: "", low: sets.map { $0 + "=1" }, high: sets.map { $0 + "=2" })
        }
        let a = v("a", ["k.a"]), b = v("b", ["k.b"]), g = v("g", ["k.a", "k.c"], group: true), weak = v("weak", ["k.w"])
        func o(_ d: Double) -> [Sensitivity.Outcome] { [Self.outcome("lru", 0.30, 0, 0), Self.outcome("x", 0.30 + d, d, 0.01)] }
        let center = o(-0.05)
        let rows = Sensitivity.rows(ramLabel: "2048", baseline: "lru", center: center,
                                    ends: [(a, o(-0.03), o(-0.06)), (g, o(-0.01), o(-0.05)), (b, o(-0.02), o(-0.05)), (weak, center, center)])
        let top = Sensitivity.strongest(rows, metric: .coldRatio, count: 4)
        #expect(top.map(\.name) == ["g", "b", "a"])  // by effect (0.04, 0.03, 0.02); weak moves nothing
        let pairs = Sensitivity.pairs(top)
        #expect(pairs.map { $0.0.name + $0.1.name } == ["gb", "ba"])  // g and a both set k.a
        let corners = Sensitivity.corners([pairs[1]], ramKB: nil, first: 10)
        #expect(corners.map(\.index) == [10, 11, 12, 13])
        #expect(corners[1].sets == ["k.b=1", "k.a=2"] && corners[1].fileName == "pair-own-b-low+a-high.csv")
        // b low alone -0.02, a low alone -0.03, as shipped -0.05: additive 0.00; the corner -0.01.
        let r = Sensitivity.interactionRows(ramLabel: "own", baseline: "lru", metric: .coldRatio, center: center,
                                            single: ["a": (o(-0.03), o(-0.06)), "b": (o(-0.02), o(-0.05))],
                                            corners: [(corners[0], o(-0.01))])
        #expect(r.count == 1)
        #expect(abs(r[0].additive) < 1e-12 && abs(r[0].interaction + 0.01) < 1e-12 && abs(r[0].interactionBound - 0.04) < 1e-12)
        #expect(r[0].signFlip == .no)
    }

    @Test("a class's unread keys go back to their defaults: Android's off Android and Fleet, Fleet's off Fleet; read keys stay")
    func unreadKeys() {
        var c = DeviceClass()
        c.android.gcHeapPct = 26
        c.fleet.launchSwapInPct = 50
        c.osReserveKB = 400 * 1_024
        let ios = c.withUnreadKeysAtDefaults()
        #expect(ios.android == AndroidClass() && ios.fleet == FleetClass() && ios.osReserveKB == 400 * 1_024)
        c.os = .android
        let android = c.withUnreadKeysAtDefaults()
        #expect(android.android.gcHeapPct == 26 && android.fleet == FleetClass())
        c.os = .fleet
        #expect(c.withUnreadKeysAtDefaults() == c)
        // What it resets, the model does not read: the same parameters either way.
        for os in [DeviceOS.ios, .android, .fleet] {
            c.os = os
            #expect(c.withUnreadKeysAtDefaults().parameters() == c.parameters(), "\(os)")
        }
    }
}
