import Foundation
import Testing
import SimKernel
@testable import JetSim

/// Issue 16's `--by archetype`: who gets killed, per archetype of the app.
@Suite("--by archetype: launches, cold relaunches, kills and data loss per archetype")
struct ArchetypeBreakdownTests {
    static let cells = ["jetsam-bands", "lru"].map { Cell(policy: PolicyID(rawValue: $0)!, ramKB: 2 * 1_048_576) }

    static func run(devices: Int = 3, by: GroupBy? = .archetype, shard: (Int, Int) = (0, 1)) throws -> (Workload, RunPlan, FleetResult) {
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "t", overrides: ["fleet.devices=\(devices)", "fleet.duration_days=1"])
        var plan = RunPlan(workload: w, cells: cells, threads: 2)
        plan.groupBy = by
        (plan.shardIndex, plan.shardCount) = shard
        return (w, plan, FleetRunner.run(plan, catalog: AppCatalog(w)))
    }

    static let summed: [Counter] = [.launches, .relaunches, .coldRelaunches, .dataLossEvents, .dataLossUnits] + Counter.kills

    @Test("the archetype rows add up to the cell, counter by counter; the cell is the same as without --by")
    func addsUp() throws {
        let (w, _, r) = try Self.run()
        let (_, _, plain) = try Self.run(by: nil)
        let names = w.catalog.archetypes.map(\.name)
        #expect(r.groupNames == names && names.count == 10)
        let groups = try #require(r.groups)
        for (ci, a) in r.accumulators.enumerated() {
            #expect(a == plain.accumulators[ci])
            let mine = groups[(ci * names.count)..<((ci + 1) * names.count)]
            for c in Self.summed { #expect(mine.reduce(0) { $0 + $1[c] } == a[c], "\(r.cells[ci].policy.rawValue) \(c)") }
            #expect(mine.allSatisfy { $0.devices == 3 })
            #expect(mine.filter { $0[.launches] > 0 }.count >= 8)
        }
        // Pinned (3 devices x 1 day at 2 GB, seed 1), archetypes in catalog order
        // (social, messaging, game, maps, music, camera, browser, mail, productivity,
        // video). Launches are the users' own, the same under every policy (common
        // random numbers); kills are not. Maps is launched 8 times but killed 42 times
        // under jetsam-bands: the reaper and the idle band take the apps the system
        // launched for location wakes (kills_reaper 24, kills_idle 9).
        func column(_ ci: Int, _ c: Counter) -> [Int] { (0..<10).map { groups[ci * 10 + $0][c] } }
        #expect(column(0, .launches) == [35, 16, 48, 8, 3, 0, 4, 0, 37, 16])
        #expect(column(1, .launches) == column(0, .launches))
        #expect(column(0, .coldRelaunches) == [14, 2, 17, 3, 0, 0, 0, 0, 13, 7])
        #expect(column(0, .killsReaper) == [14, 34, 13, 24, 1, 3, 1, 4, 17, 8])
        #expect((0..<10).map { groups[$0].totals.totalKills } == [33, 50, 35, 42, 2, 6, 2, 6, 32, 15])
        #expect(column(0, .dataLossUnits) == [0, 4, 79, 0, 0, 0, 0, 0, 150, 1])
        #expect(column(1, .killsPressure) == [13, 15, 16, 15, 4, 2, 0, 1, 13, 4])
        let text = try #require(Breakdown.csv(workload: w, result: r))
        #expect(text.contains("\ndefault,jetsam-bands,2048,archetype,maps,3,8,5,3,0.600000,0.894362,42,"))
    }

    @Test("shards' states merge into the unsharded breakdown, byte for byte")
    func shards() throws {
        let (w, _, whole) = try Self.run(devices: 5)
        var states: [(source: String, state: ShardState)] = []
        for i in 0..<2 {
            let (_, plan, r) = try Self.run(devices: 5, shard: (i, 2))
            let text = ShardState(workload: w, overrides: [], usage: nil, plan: plan, result: r).text
            #expect(text.contains("\nby: archetype\n"))
            states.append(("s\(i)", try ShardState.parse(text, source: "s\(i)")))
        }
        let (mw, merged, _) = try ShardState.merge(states)
        #expect(merged.groupBy == .archetype)
        #expect(try #require(Breakdown.csv(workload: mw, result: merged)) == Breakdown.csv(workload: w, result: whole))
    }
}
