import Foundation
import Testing
import SimKernel
@testable import JetSim

/// Issue 14, lifecycle: the expiration handler that ends its task, the cached
/// ("warm" in Apple's terms) launch, system-initiated launches. The scenario traces
/// (Workloads/scenarios/32-34) show each rule line by line; these check the fleet.
@Suite("lifecycle loose ends: expiry, cached launches, system launches")
struct LifecycleLooseEndsTests {
    static func run(_ sets: [String], devices: Int = 12, days: Double = 1) throws -> CellAccumulator {
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "t",
                                         overrides: ["fleet.devices=\(devices)", "fleet.duration_days=\(days)"] + sets)
        let plan = RunPlan(workload: w, cells: [Cell(policy: PolicyID(rawValue: "jetsam-bands")!, ramKB: 2 * 1_048_576)], threads: 1)
        return FleetRunner.run(plan, catalog: AppCatalog(w)).accumulators[0]
    }

    @Test("the share of apps whose handler ends the task is the archetype's (binomial, 2000 apps)")
    func expiryShare() throws {
        let sets = (0..<10).map { "catalog.archetypes.\($0).bg_task_ends_on_expiry_probability=0.3" }
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "t", overrides: sets)
        let c = AppCatalog(w)
        let ends = c.profiles.filter(\.endsTaskOnExpiry).count
        let n = Double(c.profiles.count), sd = (n * 0.3 * 0.7).squareRoot()
        #expect(abs(Double(ends) - 0.3 * n) < 5 * sd, "\(ends) of \(c.profiles.count)")
    }

    @Test("every handler ends its task: no expiry kills; none does: no expiry ends")
    func expiryEndsOrKills() throws {
        let all = (0..<10).map { "catalog.archetypes.\($0).bg_task_ends_on_expiry_probability=1" }
        let none = (0..<10).map { "catalog.archetypes.\($0).bg_task_ends_on_expiry_probability=0" }
        let a = try Self.run(all), b = try Self.run(none)
        #expect(a[.killsBgExpired] == 0)
        #expect(a[.bgExpiryEnded] > 0)
        #expect(b[.bgExpiryEnded] == 0)
        #expect(b[.killsBgExpired] > 0)
    }

    @Test("cached relaunches are cold relaunches soon after a kill; none with the window off")
    func cachedLaunches() throws {
        let on = try Self.run([])
        #expect(on[.cachedRelaunches] > 0)
        #expect(on[.cachedRelaunches] <= on[.coldRelaunches])
        let off = try Self.run(["device_classes.0.page_cache_window_s=0"])
        #expect(off[.cachedRelaunches] == 0)
    }
}

@Suite("system launches and wakes: arrivals against the Poisson law")
struct SystemWakeArrivalTests {
    @Test("each app's arrivals over 100 days are Poisson at its rate, each kind at its share (5 sd)")
    func poissonPerAppAndKind() {
        var a = AppProfile(), b = AppProfile()
        a.silentPushesPerDay = 10
        b.backgroundRefreshesPerDay = 20
        b.locationWakesPerDay = 10
        var d = Device<LRU, NoTrace>(trace: NoTrace())
        d.reset(profiles: [a, b], installed: [0, 1], params: DeviceParameters(), timeline: Timeline(), context: PolicyContext(seed: 7))
        let days = 100.0
        var perApp = [0, 0], perKind = [Int](repeating: 0, count: SystemWakeKind.allCases.count)
        var last = SimTime.zero
        while d.core.nextWake <= SimTime(seconds: days * 86_400) {
            #expect(d.core.nextWake >= last)
            last = d.core.nextWake
            perApp[Int(d.core.nextWakeApp)] += 1
            perKind[Int(d.core.nextWakeKind.rawValue)] += 1
            d.core.wakeCount &+= 1
            d.core.drawNextWake(after: d.core.nextWake)
        }
        func near(_ n: Int, _ mean: Double) -> Bool { abs(Double(n) - mean) < 5 * mean.squareRoot() }
        #expect(near(perApp[0], 1_000), "app 0: \(perApp[0])")
        #expect(near(perApp[1], 3_000), "app 1: \(perApp[1])")
        #expect(perKind[Int(SystemWakeKind.silentPush.rawValue)] == perApp[0])
        #expect(near(perKind[Int(SystemWakeKind.backgroundRefresh.rawValue)], 2_000))
        #expect(near(perKind[Int(SystemWakeKind.location.rawValue)], 1_000))
        #expect(perKind[Int(SystemWakeKind.voipPush.rawValue)] == 0)
    }

    @Test("no rates, no arrivals: the device's inputs are the user's alone")
    func noRatesNoArrivals() {
        var d = Device<LRU, NoTrace>(trace: NoTrace())
        d.reset(profiles: [AppProfile()], installed: [0], params: DeviceParameters(), timeline: Timeline(), context: PolicyContext())
        #expect(d.core.nextWake == .never)
        #expect(d.nextInputTime == nil)
    }

    @Test("the default fleet counts system launches and wakes under every policy; none without rates")
    func fleetCounts() throws {
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "t", overrides: ["fleet.devices=6", "fleet.duration_days=1"])
        let cells = ["lru", "jetsam-bands", "oracle"].map { Cell(policy: PolicyID(rawValue: $0)!, ramKB: 2 * 1_048_576) }
        let r = FleetRunner.run(RunPlan(workload: w, cells: cells, threads: 1), catalog: AppCatalog(w))
        for acc in r.accumulators {
            #expect(acc[.systemLaunches] > 0)
            #expect(acc[.systemWakes] > 0)
        }
        // Without arrivals, the same workload has none.
        let quiet = (0..<10).flatMap { i in ["silent_pushes_per_day", "background_refreshes_per_day", "location_wakes_per_day", "voip_pushes_per_day"].map { "catalog.archetypes.\(i).\($0)=0" } }
        let q = try WorkloadDecoder.load(defaultWorkloadText, source: "t", overrides: ["fleet.devices=6", "fleet.duration_days=1"] + quiet)
        let rq = FleetRunner.run(RunPlan(workload: q, cells: [cells[0]], threads: 1), catalog: AppCatalog(q))
        #expect(rq.accumulators[0][.systemLaunches] == 0 && rq.accumulators[0][.systemWakes] == 0)
    }

    @Test("the alias table gives each (app, kind) pair its rate's share of the total, to 1e-12 (Walker 1977, Vose 1991)")
    func aliasTableIsExact() {
        // 40 apps with rates of every size, some kinds off, one app with none; prewarms on and off.
        var g = Xoshiro256StarStar(seed: 11)
        func rate() -> Double { g.nextUnit() < 0.4 ? 0 : g.nextUnit() < 0.5 ? g.nextUnit() * 0.01 : g.nextUnit() * 50 }
        var profiles = ContiguousArray<AppProfile>()
        for i in 0..<40 {
            var p = AppProfile()
            if i != 3 {
                p.locationWakesPerDay = rate(); p.voipPushesPerDay = rate(); p.silentPushesPerDay = rate()
                p.backgroundRefreshesPerDay = rate(); p.prewarmsPerDay = rate()
            }
            profiles.append(p)
        }
        let kinds = SystemWakeKind.allCases
        for prewarming in [true, false] {
            var params = DeviceParameters()
            params.prewarming = prewarming
            var d = Device<LRU, NoTrace>(trace: NoTrace())
            d.reset(profiles: profiles, installed: ContiguousArray(0..<40), params: params, timeline: Timeline(), context: PolicyContext(seed: 5))
            var want = [[Double]](repeating: [Double](repeating: 0, count: kinds.count), count: 40)
            var total = 0.0
            for a in 0..<40 {
                for k in kinds where !(k == .prewarm && !prewarming) {
                    want[a][Int(k.rawValue)] = profiles[a].wakesPerDay(k)
                    total += profiles[a].wakesPerDay(k)
                }
            }
            let m = d.core.wakeTable.count - 1
            #expect(m == want.joined().filter { $0 > 0 }.count)
            #expect(d.core.wakeTable[0].cut == total)
            var got = [[Double]](repeating: [Double](repeating: 0, count: kinds.count), count: 40)
            for c in 1...m {
                let column = d.core.wakeTable[c]
                #expect(column.cut >= 0 && column.cut <= 1)
                got[Int(column.app)][Int(column.kind.rawValue)] += column.cut / Double(m)
                got[Int(column.aliasApp)][Int(column.aliasKind.rawValue)] += (1 - column.cut) / Double(m)
            }
            for a in 0..<40 {
                for k in 0..<kinds.count {
                    #expect(abs(got[a][k] - want[a][k] / total) <= 1e-12, "app \(a) kind \(k): \(got[a][k]) against \(want[a][k] / total)")
                }
            }
        }
    }
}
