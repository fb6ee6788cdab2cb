import Testing
import SimKernel
import JetSim

/// Exact results of every registered policy on a small fixed workload (as libCacheSim
/// pins miss counts per algorithm): any change in a policy's choices, or in what the
/// device does with them, shows here by name. A new policy must add its line.
@Suite("Pinned results of every policy on a small fixed workload")
struct PolicyPinTests {
    struct Pin: Equatable, CustomStringConvertible {
        var relaunches, cold, killsPressure, kills, dataLossEvents, dataLossUnits: Int
        var description: String {
            "Pin(relaunches: \(relaunches), cold: \(cold), killsPressure: \(killsPressure), kills: \(kills), "
                + "dataLossEvents: \(dataLossEvents), dataLossUnits: \(dataLossUnits))"
        }
    }

    /// The default workload, 6 devices, one day, every policy at 2 GB.
    static let pinned: [String: Pin] = [
        "largest-first": Pin(relaunches: 187, cold: 80, killsPressure: 123, kills: 167, dataLossEvents: 30, dataLossUnits: 260),
        "lru": Pin(relaunches: 187, cold: 97, killsPressure: 152, kills: 194, dataLossEvents: 39, dataLossUnits: 312),
        "jetsam-bands": Pin(relaunches: 187, cold: 97, killsPressure: 151, kills: 193, dataLossEvents: 39, dataLossUnits: 312),
        "android-lmk": Pin(relaunches: 187, cold: 97, killsPressure: 152, kills: 194, dataLossEvents: 39, dataLossUnits: 312),
        "cost-aware": Pin(relaunches: 187, cold: 98, killsPressure: 149, kills: 191, dataLossEvents: 34, dataLossUnits: 291),
        "random": Pin(relaunches: 187, cold: 100, killsPressure: 152, kills: 193, dataLossEvents: 37, dataLossUnits: 316),
        "oracle": Pin(relaunches: 187, cold: 83, killsPressure: 133, kills: 175, dataLossEvents: 37, dataLossUnits: 311),
    ]

    static func run() -> [(PolicyID, Pin)] {
        var w = try! WorkloadDecoder.load(defaultWorkloadText, source: "default")
        w.fleet.devices = 6
        w.fleet.duration = .days(1)
        let plan = RunPlan(workload: w, cells: PolicyID.all.map { Cell(policy: $0, ramKB: 2 * 1_048_576) }, threads: 1)
        let r = FleetRunner.run(plan, catalog: AppCatalog(w))
        return zip(r.cells, r.accumulators).map { cell, a in
            (cell.policy, Pin(relaunches: a[.relaunches], cold: a[.coldRelaunches], killsPressure: a[.killsPressure],
                              kills: a.totals.totalKills, dataLossEvents: a[.dataLossEvents], dataLossUnits: a[.dataLossUnits]))
        }
    }

    @Test("each registered policy's numbers are exactly its pinned line")
    func pinnedNumbers() {
        let results = Self.run()
        #expect(results.map(\.0) == PolicyID.all)
        for (policy, got) in results {
            guard let want = Self.pinned[policy.name] else {
                Issue.record("\(policy.name) has no pinned line; add: \"\(policy.name)\": \(got),")
                continue
            }
            #expect(got == want, "\(policy.name): got \(got)")
        }
        #expect(Set(Self.pinned.keys) == Set(PolicyID.all.map(\.name)), "pinned lines for unregistered policies")
    }

    @Test("the workload is tight enough to tell policies apart")
    func policiesDiffer() {
        let results = Self.run()
        #expect(results.allSatisfy { $0.1.killsPressure > 0 })
        #expect(Set(results.map { $0.1.cold }).count > 1)
        // The same users in every cell: the same relaunches, cold or not.
        #expect(Set(results.map { $0.1.relaunches }).count == 1)
    }
}
