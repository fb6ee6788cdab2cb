import Testing
import SimKernel
@testable import JetSim

/// `--baseline` with `--by`: each breakdown row's paired differences from the same
/// group of the baseline's cell.
@Suite("Breakdown rows with --baseline: paired differences per group")
struct BreakdownDeltaTests {
    static let cells = ["lru", "cost-aware", "jetsam-bands"].map { Cell(policy: PolicyID(rawValue: $0)!, ramKB: 2 * 1_048_576) }

    static func run(by: GroupBy, baseline: String? = "lru", devices: Int = 6, shard: (Int, Int) = (0, 1)) throws -> (Workload, RunPlan, FleetResult) {
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "t", overrides: ["fleet.devices=\(devices)", "fleet.duration_days=1"])
        var plan = RunPlan(workload: w, cells: cells, threads: 2)
        plan.groupBy = by
        plan.baseline = baseline.flatMap { PolicyID(rawValue: $0) }
        (plan.shardIndex, plan.shardCount) = shard
        return (w, plan, FleetRunner.run(plan, catalog: AppCatalog(w)))
    }

    static func rows(_ text: String) -> [[String]] {
        text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test("by class on a one-class fleet, the class row's deltas are the summary's, to the last digit")
    func oneClassEqualsSummary() throws {
        let (w, _, r) = try Self.run(by: .deviceClass)
        let by = Self.rows(try #require(Breakdown.csv(workload: w, result: r)))
        let summary = Self.rows(Summary.csv(workload: w, result: r))
        #expect(Array(by[0].suffix(5)) == Breakdown.deltaColumns)
        for column in Breakdown.deltaColumns {
            let bi = by[0].firstIndex(of: column)!, si = summary[0].firstIndex(of: column)!
            #expect(by.dropFirst().map { $0[bi] } == summary.dropFirst().map { $0[si] }, "\(column)")
        }
    }

    @Test("by archetype: the baseline's rows are exactly 0 with interval 0; others differ; without --baseline the CSV has no delta columns")
    func byArchetype() throws {
        let (w, _, r) = try Self.run(by: .archetype)
        let by = Self.rows(try #require(Breakdown.csv(workload: w, result: r)))
        let h = by[0]
        let lru = by.dropFirst().filter { $0[h.firstIndex(of: "policy")!] == "lru" }
        #expect(lru.count == 10)
        // (A cold ratio is nan in a group without relaunches.)
        let relaunched = lru.filter { $0[h.firstIndex(of: "relaunches")!] != "0" }
        #expect(relaunched.count >= 5)
        for c in ["delta_relaunch_cold_ratio", "delta_relaunch_cold_ratio_ci95"] {
            #expect(relaunched.allSatisfy { $0[h.firstIndex(of: c)!] == "0.000000" }, "\(c)")
        }
        for c in ["delta_data_loss_per_device_day", "delta_data_loss_per_device_day_ci95"] {
            #expect(lru.allSatisfy { $0[h.firstIndex(of: c)!] == "0.000000" }, "\(c)")
        }
        #expect(by.dropFirst().allSatisfy { $0[h.firstIndex(of: "baseline")!] == "lru" })
        #expect(by.dropFirst().contains { $0[h.firstIndex(of: "delta_relaunch_cold_ratio")!] != "0.000000" })
        let (pw, _, plain) = try Self.run(by: .archetype, baseline: nil)
        let plainText = try #require(Breakdown.csv(workload: pw, result: plain))
        #expect(plainText.hasPrefix(Breakdown.header + "\n"))
        // The deltas only append: the rows' own columns are the same.
        #expect(Self.rows(plainText).map { Array($0.prefix(h.count - 5)) } == by.map { Array($0.prefix(h.count - 5)) })
    }

    @Test("shards' states carry each group's paired sums: merged, the breakdown with deltas is the unsharded one byte for byte")
    func shards() throws {
        for by in [GroupBy.archetype, .deviceClass] {
            let (w, _, whole) = try Self.run(by: by, devices: 7)
            var states: [(source: String, state: ShardState)] = []
            var texts: [String] = []
            for i in 0..<3 {
                let (_, plan, r) = try Self.run(by: by, devices: 7, shard: (i, 3))
                let text = ShardState(workload: w, overrides: [], usage: nil, plan: plan, result: r).text
                #expect(text.contains("\ngroup_paired: "))
                texts.append(text)
                states.append(("s\(i)", try ShardState.parse(text, source: "s\(i)")))
            }
            let (mw, merged, _) = try ShardState.merge(states)
            #expect(try #require(Breakdown.csv(workload: mw, result: merged)) == Breakdown.csv(workload: w, result: whole))
            // A state written before groups had paired sums: no delta columns, not partial sums.
            let old = texts[0].split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("group_paired:") }.joined(separator: "\n")
            states[0] = ("old", try ShardState.parse(ShardState.resealed(old), source: "old"))
            let (ow, mixed, _) = try ShardState.merge(states)
            #expect(try #require(Breakdown.csv(workload: ow, result: mixed)).hasPrefix(Breakdown.header + "\n"))
        }
    }
}
