import Testing
import SimKernel
@testable import JetSim

/// Ports of AOSP's own tests and code paths for ActivityManager's oom_score_adj
/// (docs/fidelity.md lists every case, and the ones jetsim cannot express, with why).
/// Source test file: frameworks/base
/// services/tests/mockingservicestests/src/com/android/server/am/MockingOomAdjusterTests.java,
/// read at aosp-mirror/platform_frameworks_base 04de710c (the code index gives no line
/// numbers: cases are cited by test name). Source code: OomAdjuster.java and
/// ProcessList.java at 02978520d9e8, the commit docs/sources.md cites. Every port runs
/// under android-lmk with ActivityManagerConstants' defaults (USE_TIERED_CACHED_ADJ
/// false, so the test's sFirstCachedAdj is CACHED_APP_MIN_ADJ + 5 = 905).
@Suite("Conformance (Android): MockingOomAdjusterTests and OomAdjuster")
struct OomAdjusterConformanceTests {
    /// A 4 GB Android device under android-lmk with `apps` and `timeline` lines.
    static func run(_ body: String, until t: SimTime) throws -> (Scenario, Device<AndroidLMK, NoTrace>) {
        let sc = try Scenario.parse("device ram=4GB os=android app-limit-pct=60 policy=android-lmk\n" + body, source: "conformance")
        var sim = Simulation(model: scenarioDevice(sc, AndroidLMK.self, trace: NoTrace()))
        sim.run(until: t)
        return (sc, sim.model)
    }

    static func adj(_ d: Device<AndroidLMK, NoTrace>, _ sc: Scenario, _ name: String, at t: SimTime) -> Int {
        d.memory.android.oomScoreAdj(d.core, sc.app(named: name)!, t)
    }

    // MockingOomAdjusterTests.testUpdateOomAdj_DoOne_TopApp_Awake: the top app is
    // PROCESS_STATE_TOP at FOREGROUND_APP_ADJ (0).
    @Test("testUpdateOomAdj_DoOne_TopApp_Awake: the top app is FOREGROUND_APP_ADJ 0")
    func topApp() throws {
        let (sc, d) = try Self.run("app A\n0s launch A\n1m end\n", until: .seconds(5))
        #expect(Self.adj(d, sc, "A", at: .seconds(5)) == 0)
        #expect(d.core.baseOomAdj(sc.app(named: "A")!) == 0)
    }

    // MockingOomAdjusterTests.testUpdateOomAdj_DoOne_PreviousApp: isPreviousProcess and
    // hasActivities give PROCESS_STATE_LAST_ACTIVITY at PREVIOUS_APP_ADJ (700).
    @Test("testUpdateOomAdj_DoOne_PreviousApp: the previous app with activities is PREVIOUS_APP_ADJ 700")
    func previousApp() throws {
        let (sc, d) = try Self.run("app A\napp B\n0s launch A\n5s launch B\n2m end\n", until: .seconds(30))
        #expect(Self.adj(d, sc, "A", at: .seconds(30)) == OomAdj.previous)
        #expect(d.policy.held == sc.app(named: "A")!)
    }

    // OomAdjuster.computeOomAdjLSP (02978520d9e8), "previous-expired": once the previous
    // process has been PROCESS_STATE_LAST_ACTIVITY longer than MAX_PREVIOUS_TIME
    // (ActivityManagerConstants DEFAULT_MAX_PREVIOUS_TIME = 60 s), adj = CACHED_APP_MIN_ADJ.
    @Test("computeOomAdjLSP previous-expired: the previous app is 700 for MAX_PREVIOUS_TIME (60 s), then 900")
    func previousExpired() throws {
        let (sc, d) = try Self.run("app A\napp B\n0s launch A\n5s launch B\n5m end\n", until: .seconds(64))
        // A left the front at 5 s: 700 up to 65 s (lastStateTime + 60 s < now is false), 900 after.
        #expect(Self.adj(d, sc, "A", at: .seconds(65)) == OomAdj.previous)
        #expect(Self.adj(d, sc, "A", at: .seconds(65) + .microseconds(1)) == OomAdj.cachedMin)
        #expect(d.memory.android.params.maxPreviousTime == .seconds(60))
    }

    // MockingOomAdjusterTests.testUpdateOomAdj_DoOne_FgService: a foreground service
    // (an active background mode here) not recently top: PROCESS_STATE_FOREGROUND_SERVICE
    // at PERCEPTIBLE_APP_ADJ (200).
    // MockingOomAdjusterTests.testUpdateOomAdj_DoOne_PerceptibleRecent_FgService: the
    // same with lastTopTime = now: PERCEPTIBLE_RECENT_FOREGROUND_APP_ADJ (50), for
    // TOP_TO_FGS_GRACE_DURATION (DEFAULT_TOP_TO_FGS_GRACE_DURATION = 15 s).
    @Test("testUpdateOomAdj_DoOne_FgService and _PerceptibleRecent_FgService: a foreground service is 50 for 15 s after top, then 200")
    func foregroundService() throws {
        let (sc, d) = try Self.run("app M mode=audio:10m\napp B\n0s launch M\n5s launch B\n5m end\n", until: .seconds(10))
        #expect(d.core.baseOomAdj(sc.app(named: "M")!) == Int16(OomAdj.perceptible))
        #expect(Self.adj(d, sc, "M", at: .seconds(10)) == OomAdj.perceptibleRecentForeground)
        #expect(Self.adj(d, sc, "M", at: .seconds(19)) == OomAdj.perceptibleRecentForeground)
        #expect(Self.adj(d, sc, "M", at: .seconds(20)) == OomAdj.perceptible)
    }

    // MockingOomAdjusterTests.testUpdateOomAdj_DoOne_Service_Started: a started service
    // with recent activity, hasShownUi false: PROCESS_STATE_SERVICE at SERVICE_ADJ (500).
    // jetsim's equivalent: an app the system launched into the background (no UI) while
    // its run lasts.
    @Test("testUpdateOomAdj_DoOne_Service_Started: a system-started app at work is SERVICE_ADJ 500")
    func serviceStarted() throws {
        let (sc, d) = try Self.run("app S\napp F\n0s launch F\n10s wake S silent-push\n5m end\n", until: .seconds(11))
        #expect(d.apps[Int(sc.app(named: "S")!)].state == .background)
        #expect(Self.adj(d, sc, "S", at: .seconds(11)) == OomAdj.service)
    }

    // MockingOomAdjusterTests.testUpdateOomAdj_DoOne_Service_Self, _Provider_Self,
    // _Service_Started_WaivePriority: a lone PROCESS_STATE_CACHED_EMPTY process (or one
    // that falls to the empty sequence) gets sFirstCachedAdj = CACHED_APP_MIN_ADJ +
    // CACHED_APP_IMPORTANCE_LEVELS = 905 (tiered cached adj off).
    // MockingOomAdjusterTests.testUpdateOomAdj_DoOne_NonCachedToCached: a process that
    // was SERVICE_ADJ and has nothing left ends in CACHED_APP_MIN_ADJ...CACHED_APP_MAX_ADJ.
    @Test("testUpdateOomAdj_DoOne_Service_Self and _NonCachedToCached: a lone empty process is 905 (sFirstCachedAdj)")
    func firstEmpty() throws {
        let (sc, d) = try Self.run("app S\napp F\n0s launch F\n10s wake S silent-push\n5m end\n", until: .minutes(2))
        let s = sc.app(named: "S")!
        #expect(d.apps[Int(s)].state == .suspended && d.apps[Int(s)].memory.contains(.emptyProcess))
        #expect(Self.adj(d, sc, "S", at: .minutes(2)) == 905)
        #expect((OomAdj.cachedMin...OomAdj.cachedMax).contains(Self.adj(d, sc, "S", at: .minutes(2))))
        #expect(d.policy.heaps.heap(of: s) == AndroidLMK.empty && d.policy.victim() == s)
    }

    // MockingOomAdjusterTests.testUpdateOomAdj_DoAll_Service_KeepWarmingList (its first
    // assertions): two processes in the empty sequence, app the most recent in the LRU
    // list: cachedAdj1 = CACHED_APP_MIN_ADJ + CACHED_APP_IMPORTANCE_LEVELS (905), app2
    // cachedAdj2 = cachedAdj1 + CACHED_APP_IMPORTANCE_LEVELS * 2 (915).
    @Test("testUpdateOomAdj_DoAll_Service_KeepWarmingList: two empty processes are 905 (more recent) and 915")
    func twoEmpty() throws {
        // E1 and E2 were used (E2 later), removed from the switcher, then started by the
        // system: empty processes whose recency is their last use.
        let body = """
            app E1
            app E2
            app F
            0s    launch E1
            2s    launch E2
            4s    launch F
            6s    switcher
            7s    switcher-remove E1
            8s    switcher-remove E2
            9s    home
            20s   wake E1 silent-push
            21s   wake E2 silent-push
            5m    end
            """
        let (sc, d) = try Self.run(body, until: .minutes(2))
        let (e1, e2) = (sc.app(named: "E1")!, sc.app(named: "E2")!)
        #expect([e1, e2].allSatisfy { d.apps[Int($0)].memory.contains(.emptyProcess) })
        #expect(Self.adj(d, sc, "E2", at: .minutes(2)) == 905)
        #expect(Self.adj(d, sc, "E1", at: .minutes(2)) == 915)
        // lmkd's order is the adj's: E1 (915) dies first.
        #expect(d.policy.victim() == e1)
    }

    // OomAdjuster.assignCachedAdjIfNecessary (02978520d9e8, USE_TIERED_CACHED_ADJ
    // false): mNumSlots = ((999 - 900 + 1) >> 1) / 5 = 10; cached processes with
    // activities from 900 and empty ones from 905, each slot 10 above the last, from
    // the most recent; factor = ceil(count / 10) processes to a slot; 999 past the
    // tenth slot (nextCachedAdj, nextEmptyAdj capped at CACHED_APP_MAX_ADJ).
    @Test("assignCachedAdjIfNecessary: slots 900, 910 ... 990, 999 (activities) and 905 ... 995, 999 (empty); ceil(n/10) a slot")
    func cachedSlots() {
        #expect(OomAdj.cachedSlots == 10 && OomAdj.cachedEmptyMin == 905)
        #expect((0..<12).map { OomAdj.cachedSlot(rank: $0, count: 10, first: 900) }
                == [900, 910, 920, 930, 940, 950, 960, 970, 980, 990, 999, 999])
        #expect((0..<12).map { OomAdj.cachedSlot(rank: $0, count: 10, first: 905) }
                == [905, 915, 925, 935, 945, 955, 965, 975, 985, 995, 999, 999])
        // 11 to 20 processes: two to a slot (cachedFactor = (n + 9) / 10).
        #expect((0..<6).map { OomAdj.cachedSlot(rank: $0, count: 15, first: 900) } == [900, 900, 910, 910, 920, 920])
        #expect(OomAdj.cachedSlot(rank: 19, count: 20, first: 905) == 995)
        // 21 processes: three to a slot; the last, rank 20, in slot 6.
        #expect(OomAdj.cachedSlot(rank: 20, count: 21, first: 900) == 960)
    }

    // assignCachedAdjIfNecessary's two sequences, with lmkd's order over them
    // (find_and_kill_process walks adj from 1000 down, lmkd.cpp:2484-2509): one cached
    // app with activities, used longest ago, sits at 900; three empty processes at
    // 905, 915, 925 all die before it, the oldest first.
    @Test("two cached sequences: empty processes in higher slots die before an older cached app with activities")
    func sequencesInterleave() throws {
        let body = """
            app A
            app E1
            app E2
            app E3
            app F
            0s    launch A
            2s    launch E1
            3s    launch E2
            4s    launch E3
            5s    launch F
            6s    switcher
            7s    switcher-remove E1
            8s    switcher-remove E2
            9s    switcher-remove E3
            10s   home
            20s   wake E1 silent-push
            21s   wake E2 silent-push
            22s   wake E3 silent-push
            5m    end
            """
        var (sc, d) = try Self.run(body, until: .minutes(2))
        let (a, e1, e2, e3) = (sc.app(named: "A")!, sc.app(named: "E1")!, sc.app(named: "E2")!, sc.app(named: "E3")!)
        // A left the front at 2 s (used longest ago); F, which left at 10 s, is the
        // previous app; the E apps, last used at 3-5 s, run again as empty processes.
        #expect(d.core.previousApp == sc.app(named: "F")!)
        #expect(Self.adj(d, sc, "A", at: .minutes(2)) == 900)
        #expect([e3, e2, e1].map { d.memory.android.oomScoreAdj(d.core, $0, .minutes(2)) } == [905, 915, 925])
        var order: [Int32] = []
        for _ in 0..<4 {
            let v = d.policy.victim()
            order.append(v)
            d.policy.remove(v)
        }
        #expect(order == [e1, e2, e3, a])
    }
}
