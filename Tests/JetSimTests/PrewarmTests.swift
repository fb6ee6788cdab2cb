import Testing
import SimKernel
@testable import JetSim

/// iOS 15 prewarming (issue 14; Apple, "About the app launch sequence"): a process
/// created before the user opens the app, stopped before main. The scenario
/// (Workloads/scenarios/43-prewarm) shows the trace line by line; these pin the counts,
/// the memory and the latency on hand-built devices, and the switch on the fleet.
@Suite("iOS 15 prewarming")
struct PrewarmTests {
    /// Scenario 43's script (Mail prewarmed then launched; Notes prewarmed then killed),
    /// with the reserve it was derived with.
    static let script = """
        device reserve=1536MB
        app Mail
        app Maps
        app Notes
        0s    launch Maps
        5s    home
        30s   wake Mail prewarm
        40s   notify Mail orientation landscape
        60s   launch Mail
        90s   home
        100s  wake Notes prewarm
        110s  pressure critical 5925MB
        2m    launch Notes
        3m    end
        """

    @Test("a prewarm gets no message; the user's launch is its first didFinishLaunching and cold minus the pre-main part")
    func scenarioCounts() throws {
        let (sc, r) = try run(Self.script)
        #expect(events(r, sc, app: "Mail").prefix(3) == ["system-launch prewarm", "didFinishLaunching", "didBecomeActive cold 1260ms"])
        // Notes dies silently (no willTerminate) and its launch is an ordinary cold one.
        #expect(events(r, sc, app: "Notes") == ["system-launch prewarm", "terminated memory-pressure", "didFinishLaunching", "didBecomeActive cold 1500ms"])
        #expect(r.metrics[.prewarms] == 2)
        #expect(r.metrics[.prewarmedLaunches] == 1)
        #expect(r.metrics[.prewarmsKilled] == 1)
        #expect(r.metrics[.killsPressure] == 1)
        #expect(r.metrics[.launches] == 3)
        #expect(r.metrics[.coalescedReceived] == 0 && r.metrics[.immediateDeliveries] == 0)
        #expect(r.metrics[.systemLaunches] == 0)
    }

    @Test("a prewarmed process holds its pre-main footprint in the idle band, not running, not counted as suspended")
    func memoryAndBand() throws {
        let (sc, d) = try XNUDemotionTests.device("app Mail footprint=300MB\n0s wake Mail prewarm\n1s end\n")
        let mail = Int(sc.app(named: "Mail")!)
        // A scenario app's pre-main footprint is the default archetype's share of its
        // footprint (prewarm_footprint_share 0.1): 30 MiB of 300.
        #expect(sc.profiles[mail].prewarmKB == 30 * 1_024)
        #expect(d.apps[mail].state == .suspended && d.apps[mail].isPrewarmed)
        #expect(d.apps[mail].residentKB == 30 * 1_024)
        #expect(d.availableKB == d.params.ramKB - d.params.osReserveKB - 30 * 1_024)
        #expect(d.apps[mail].band == XNUBand.idle)
        #expect(d.core.running.isEmpty && d.core.suspendedCount == 0)
        #expect(d.metrics[.prewarms] == 1)
    }

    @Test("the launch takes only what the prewarm did not hold; a second prewarm of a running app does nothing")
    func launchNeedsTheRest() throws {
        let (sc, d) = try XNUDemotionTests.device("app Mail footprint=300MB\n0s wake Mail prewarm\n1s launch Mail\n2s wake Mail prewarm\n3s end\n")
        let mail = Int(sc.app(named: "Mail")!)
        #expect(d.apps[mail].state == .active && !d.apps[mail].isPrewarmed)
        #expect(d.apps[mail].residentKB == 300 * 1_024)
        #expect(d.availableKB == d.params.ramKB - d.params.osReserveKB - 300 * 1_024)
        #expect(d.metrics[.prewarms] == 1 && d.metrics[.prewarmedLaunches] == 1)
    }

    @Test("a system launch of a prewarmed app is its didFinishLaunching and a system launch, not a prewarmed launch")
    func systemLaunchOfPrewarmed() throws {
        let (sc, r) = try run("app Mail\n0s wake Mail prewarm\n10s wake Mail silent-push\n1m end\n")
        #expect(events(r, sc, app: "Mail") == ["system-launch prewarm", "system-launch silent-push", "didFinishLaunching", "suspended"])
        #expect(r.metrics[.systemLaunches] == 1 && r.metrics[.prewarmedLaunches] == 0 && r.metrics[.prewarmsKilled] == 0)
    }

    @Test("a prewarmed app whose files are still cached launches cached when that is faster, and the prewarm is not counted as used")
    func cachedBeatsPrewarm() throws {
        // X is removed by the user at 5 s and prewarmed at 20 s; launched at 30 s.
        // Cached: 700 + 500 ms restore = 1,200 ms; prewarmed: 2,000 less the pre-main part
        // (prewarm_saving_share 0.2 of it: 400 ms) + 500 = 2,100 ms.
        let script = "app X cold-launch=2s cached-launch=700ms state-restore=500ms\n0s launch X\n4s switcher\n5s switcher-remove X\n6s home\n20s wake X prewarm\n30s launch X\n1m end\n"
        let (sc, r) = try run(script)
        #expect(events(r, sc, app: "X").suffix(3) == ["system-launch prewarm", "didFinishLaunching", "didBecomeActive cached 1200ms"])
        #expect(r.metrics[.prewarms] == 1 && r.metrics[.prewarmedLaunches] == 0 && r.metrics[.prewarmsKilled] == 0)
        #expect(r.metrics[.cachedRelaunches] == 1)
        // Past the window (counted from the prewarm, which read the files again), or
        // with cached slower than the prewarm's launch: cold less the pre-main part.
        for device in ["device cache-window=5s\n", ""] {
            let text = device.isEmpty ? script.replacingOccurrences(of: "cached-launch=700ms", with: "cached-launch=1900ms") : device + script
            let (sc2, r2) = try run(text)
            #expect(events(r2, sc2, app: "X").last == "didBecomeActive cold 2100ms", "\(device)")
            #expect(r2.metrics[.prewarmedLaunches] == 1 && r2.metrics[.cachedRelaunches] == 0)
        }
    }

    @Test("a prewarmed app whose user launch fails for lack of memory is a failed launch, not a wasted prewarm")
    func failedLaunchOfPrewarmed() throws {
        let (_, r) = try run("device ram=1GB app-limit-pct=100\napp Huge footprint=2GB\n0s wake Huge prewarm\n10s launch Huge\n1m end\n")
        #expect(r.metrics[.prewarms] == 1 && r.metrics[.launchFailures] == 1 && r.metrics[.foregroundKills] == 1)
        #expect(r.metrics[.prewarmsKilled] == 0 && r.metrics[.prewarmedLaunches] == 0 && r.metrics[.killsPressure] == 1)
    }

    @Test("prewarming=false (an iOS before 15, or the ablation): a prewarm does nothing")
    func switchedOff() throws {
        let (sc, r) = try run("device prewarming=false\napp Mail\n0s wake Mail prewarm\n1m launch Mail\n2m end\n")
        #expect(events(r, sc, app: "Mail") == ["didFinishLaunching", "didBecomeActive cold 1500ms"])
        #expect(r.metrics[.prewarms] == 0)
    }

    @Test("no prewarm that would take available memory below the warning level; nothing is killed for one")
    func notUnderPressure() throws {
        // The warning level at 99 % of RAM: any prewarm would take memory below it.
        let (sc, r) = try run("device warning-pct=99\napp Big\napp Mail\n0s launch Big\n1s wake Mail prewarm\n2s end\n")
        #expect(events(r, sc, app: "Mail").isEmpty)
        #expect(r.metrics[.prewarms] == 0 && r.metrics.totalKills == 0)
    }

    @Test("prewarm arrivals are Poisson at the app's rate; none on a device that does not prewarm")
    func arrivals() {
        var a = AppProfile()
        a.prewarmsPerDay = 10
        a.silentPushesPerDay = 10
        var d = Device<LRU, NoTrace>(trace: NoTrace())
        d.reset(profiles: [a], installed: [0], params: DeviceParameters(), timeline: Timeline(), context: PolicyContext(seed: 3))
        var n = 0, prewarms = 0
        while d.core.nextWake <= SimTime(seconds: 100 * 86_400) {
            n += 1
            if d.core.nextWakeKind == .prewarm { prewarms += 1 }
            d.core.wakeCount &+= 1
            d.core.drawNextWake(after: d.core.nextWake)
        }
        #expect(abs(Double(n) - 2_000) < 5 * 2_000.0.squareRoot(), "\(n)")
        #expect(abs(Double(prewarms) - 1_000) < 5 * 1_000.0.squareRoot(), "\(prewarms)")
        var off = DeviceParameters()
        off.prewarming = false
        a.silentPushesPerDay = 0
        d.reset(profiles: [a], installed: [0], params: off, timeline: Timeline(), context: PolicyContext(seed: 3))
        #expect(d.core.nextWake == .never)
        var android = DeviceParameters()
        android.android.enabled = true
        d.reset(profiles: [a], installed: [0], params: android, timeline: Timeline(), context: PolicyContext(seed: 3))
        #expect(d.core.nextWake == .never)
    }

    @Test("the default fleet prewarms, launches prewarmed apps and wastes some; rate 0 is the same run as the switch off")
    func fleet() throws {
        let on = try LifecycleLooseEndsTests.run([])
        #expect(on[.prewarms] > 0)
        #expect(on[.prewarmedLaunches] > 0 && on[.prewarmedLaunches] <= on[.launches])
        #expect(on[.prewarmsKilled] > 0)
        #expect(on[.prewarmedLaunches] + on[.prewarmsKilled] <= on[.prewarms])
        let zero = try LifecycleLooseEndsTests.run((0..<10).map { "catalog.archetypes.\($0).prewarms_per_day=0" })
        let off = try LifecycleLooseEndsTests.run(["device_classes.0.prewarming=false"])
        #expect(zero[.prewarms] == 0 && off[.prewarms] == 0)
        #expect(zero.totals == off.totals)
    }
}
