import Testing
import SimKernel
@testable import JetSim

/// Android memory (Memory/Android/): each lmkd trigger, zram, the cached cap and
/// the Vitals counts pinned on small hand-built devices. RAM 2 GB with a 512 MB
/// reserve leaves 1536 MB for apps; an app keeps 30 % of its footprint when cached.
/// Their devices keep the per-app limit of 60 % they were built with (the default
/// is now the iPhone 11's 54 %, under which their 1200 MB app would fail to launch).
@Suite("Android: lmkd, zram, cached cap, launch kinds")
struct AndroidTests {
    static func kills(_ r: ScenarioRunner.Result, _ sc: Scenario) -> [String] {
        r.records.compactMap { rec in
            guard case .terminated(let why) = rec.event else { return nil }
            return "\(sc.appNames[Int(rec.app)]) \(why.name)"
        }
    }

    /// P plays audio in the background (perceptible, adj 200); X is cached (900+);
    /// Y was used last (previous, adj 700); then Big asks for BIG.
    static func pressure(_ device: String, big: String) -> String {
        """
        device ram=2GB reserve=512MB os=android app-limit-pct=60 policy=android-lmk \(device)
        app P footprint=300MB mode=audio:10m
        app X footprint=300MB
        app Y footprint=300MB
        app Big footprint=\(big)
        0s    launch P
        5s    home
        20s   launch X
        25s   home
        40s   launch Y
        45s   home
        100s  launch Big
        3m    end
        """
    }

    @Test("the previous app has one owner, the device: after a system wake the policy holds it at 700 again, and a newer previous demotes it")
    func previousAfterWake() throws {
        let text = """
        device ram=2GB reserve=512MB os=android app-limit-pct=60 policy=android-lmk
        app X footprint=300MB
        app Y footprint=300MB
        app Z footprint=300MB
        0s    launch X
        5s    home
        20s   launch Y
        25s   home
        1m    wake Y silent-push
        3m    end
        """
        let sc = try Scenario.parse(text, source: "test")
        let (x, y) = (sc.app(named: "X")!, sc.app(named: "Y")!)
        var sim = Simulation(model: scenarioDevice(sc, AndroidLMK.self, trace: NoTrace()))
        // Y left last: previous, held at 700, outside the cached heap (X is there).
        sim.run(until: .seconds(50))
        #expect(sim.model.core.previousApp == y && sim.model.policy.held == y && sim.model.memory.android.oomScoreAdj(sim.model.core, y, sim.now) == OomAdj.previous)
        // Woken: out of the policy (it runs), still the device's previous.
        sim.run(until: .seconds(61))
        #expect(sim.model.apps[Int(y)].state == .background && sim.model.policy.held == -1 && sim.model.core.previousApp == y)
        // Suspended after its 30 s: held at 700 again (the policy had forgotten it: it
        // went to the cached heap while the device still gave it adj 700).
        sim.run(until: sc.endTime)
        #expect(sim.model.apps[Int(y)].state == .suspended)
        #expect(sim.model.policy.held == y && sim.model.policy.victim() == x)
        // A newer previous (X leaves the front) demotes Y to the cached heap.
        var d = sim.model
        d.core.previousApp = x
        d.policy.update(y, d.memory.candidate(d.core, y))
        #expect(d.policy.held == -1 && d.policy.heaps.heap(of: y) == AndroidLMK.cached)
    }

    @Test("in the background grace an app is the previous one (700) or cached (900), not a service; a background task makes it one (500)")
    func graceAdj() throws {
        // T runs a background task from 1 s; A leaves the front at 2 s, B at 3 s (the
        // previous app). All three are in the background, not suspended, at 4 s.
        let text = """
            device os=android app-limit-pct=60 policy=android-lmk bg-allowance=1h
            app T bg-task=1m
            app A
            app B
            0s    launch T
            1s    launch A
            2s    launch B
            3s    home
            20s   end
            """
        let sc = try Scenario.parse(text, source: "test")
        let (t, a, b) = (sc.app(named: "T")!, sc.app(named: "A")!, sc.app(named: "B")!)
        var sim = Simulation(model: scenarioDevice(sc, AndroidLMK.self, trace: NoTrace()))
        sim.run(until: .seconds(4))
        #expect([t, a, b].map { sim.model.apps[Int($0)].state } == [.background, .background, .background])
        #expect([t, a, b].map { sim.model.memory.android.oomScoreAdj(sim.model.core, $0, sim.now) } == [OomAdj.service, OomAdj.cachedMin, OomAdj.previous])
        // android-lmk agrees: A (cached) first, B held at 700, T behind them.
        #expect(sim.model.policy.victim() == a && sim.model.policy.held == b)
        #expect(sim.model.policy.heaps.heap(of: t) == AndroidLMK.service)
        // Suspended at 12 and 13 s: the same adjs.
        sim.run(until: .seconds(14))
        #expect([a, b].map { sim.model.apps[Int($0)].state } == [.suspended, .suspended])
        #expect([a, b].map { sim.model.memory.android.oomScoreAdj(sim.model.core, $0, sim.now) } == [OomAdj.cachedMin, OomAdj.previous])
    }

    @Test("oom_score_adj by state: foreground 0, perceptible 200, service 500, previous 700, cached 900")
    func adj() throws {
        #expect(OomAdj.foreground == 0 && OomAdj.visible == 100 && OomAdj.perceptible == 200 && OomAdj.service == 500)
        #expect(OomAdj.home == 600 && OomAdj.previous == 700 && OomAdj.cachedMin == 900 && OomAdj.cachedMax == 999)
    }

    @Test("low memory woken by a partial stall kills cached apps only (adj > 700), one per decision")
    func psiPartial() throws {
        // zram holds 102.4 MB: X's 90 MB go in (180 ms of stall at 2 ms/MiB: over
        // 70 ms), Y's do not. Still below the 100 MB watermark: lmkd kills X (cached)
        // and stops at Y (previous, 700); P (perceptible) lives.
        let (sc, r) = try run(Self.pressure("zram-pct=5 swap-low-pct=0", big: "1200MB"))
        #expect(Self.kills(r, sc) == ["X lmkd-psi-partial"])
        #expect(r.metrics[.killsPsiPartial] == 1 && r.metrics.totalKills == 1)
        #expect(r.metrics[.compressorPeakKB] == 35_721)  // 92,160 KiB / 2.58
        // With the partial limit above the stall, lmkd is not woken and nothing dies.
        let (_, quiet) = try run(Self.pressure("zram-pct=5 swap-low-pct=0 psi-partial-ms=500", big: "1200MB"))
        #expect(quiet.metrics.totalKills == 0)
    }

    @Test("a request still unmet right after a kill: pressure after kill, at any adj; low memory alone then spares the perceptible app")
    func pressureAfterKill() throws {
        // 1320 MB does not fit after X dies (1,296 MB): the next decision is the cycle
        // after a kill below the watermark, PRESSURE_AFTER_KILL (lmkd.cpp:2896-2904, any
        // adj): Y (previous, 700) dies. 1,386 MB then meets the request but not the
        // watermark: low memory alone takes adj > 700 only, so P (200) lives.
        let (sc, r) = try run(Self.pressure("zram-pct=5 swap-low-pct=0 app-limit-pct=100", big: "1320MB"))
        #expect(Self.kills(r, sc) == ["X lmkd-psi-partial", "Y lmkd-pressure-after-kill"])
        #expect(r.metrics[.killsPressureAfterKill] == 1 && r.metrics[.killsPsiComplete] == 0)
        #expect(r.metrics[.launchFailures] == 0)
    }

    @Test("a request lmkd cannot meet without a kill it may not make is a complete stall: one not-responding kill at any adj")
    func notResponding() throws {
        // lru's victim is P (perceptible, 200): low memory may not take it, so no kill,
        // and 1,320 MB is not met: the request stalls every task for a whole window
        // (android_oom_stall_ms), over psi_complete_stall_ms: NOT_RESPONDING takes P
        // whatever its adj (lmkd.cpp:2905-2912). 1,411 MB then meets the request, not the
        // watermark: low memory takes X (cached, lru's next), and 1,501 MB is enough.
        let text = Self.pressure("zram-pct=5 swap-low-pct=0 app-limit-pct=100", big: "1320MB")
            .replacingOccurrences(of: "policy=android-lmk", with: "policy=lru")
        let (sc, r) = try run(text)
        #expect(Self.kills(r, sc) == ["P lmkd-psi-complete", "X lmkd-psi-partial"])
        #expect(r.metrics[.launchFailures] == 0)
    }

    @Test("PSI's full avg10 (lmkd's critical_stall) follows the windows' full stall, and is not kept at its default limit of 100")
    func fullAverage() throws {
        let e = 0.904_837_418_035_959_6
        let sc = try Scenario.parse("device os=android app-limit-pct=60 stall-critical-pct=5\napp A\n0s launch A\n1s end\n", source: "test")
        var d = scenarioDevice(sc, AndroidLMK.self, trace: NoTrace())
        d.memory.android.psiWindow(.zero)
        d.memory.android.state.fullStallUs = 900_000
        d.memory.android.psiWindow(.seconds(1))  // window 0's 90 % enters the average
        #expect(abs(d.memory.android.state.fullAvg10 - 90 * (1 - e)) < 1e-9)
        d.memory.android.psiWindow(.seconds(3))  // window 1 (no stall) and window 2 (no event) decay it
        #expect(abs(d.memory.android.state.fullAvg10 - 90 * (1 - e) * e * e) < 1e-9)
        #expect(d.memory.android.state.fullAvg10 > 5 && d.memory.android.state.fullAvg10 < 100)
        // At the default limit (100) the average can never exceed it: not computed.
        var plain = scenarioDevice(try Scenario.parse("device os=android app-limit-pct=60\napp A\n0s launch A\n1s end\n", source: "test"), AndroidLMK.self, trace: NoTrace())
        plain.memory.android.psiWindow(.zero)
        plain.memory.android.state.fullStallUs = 900_000
        plain.memory.android.psiWindow(.seconds(1))
        #expect(plain.memory.android.state.fullAvg10 == 0)
    }

    @Test("lru picks the perceptible app first: lmkd will not kill it until the stall is critical")
    func lruDiffers() throws {
        let text = Self.pressure("zram-pct=5 swap-low-pct=0", big: "1200MB").replacingOccurrences(of: "policy=android-lmk", with: "policy=lru")
        let (sc, r) = try run(text)
        // lru's next victim is P (used first, adj 200): low memory (adj > 700) stops
        // there, and 1200 MB fits without a kill.
        #expect(Self.kills(r, sc) == [])
    }

    @Test("kill_heaviest_task looks within one adj slot: three cached apps in three slots die as without it")
    func killHeaviest() throws {
        // Cached X (300 MB, oldest), Z (600 MB), W (300 MB); Y previous (left 55 s
        // before Big's launch: within MAX_PREVIOUS_TIME). ActivityManager gives the
        // three slots 920, 910, 900 (assignCachedAdjIfNecessary), and lmkd's
        // proc_get_heaviest scans one slot (lmkd.cpp:2172-2193, ADJTOSLOT): with
        // kill_heaviest_task the heaviest of X's slot is X itself, so lmkd kills X,
        // then Z, as by the policy's order.
        func text(_ on: Bool) -> String {
            """
            device ram=2GB reserve=512MB os=android app-limit-pct=60 policy=android-lmk zram-pct=5 swap-low-pct=0 kill-heaviest=\(on)
            app X footprint=300MB
            app Z footprint=600MB
            app W footprint=300MB
            app Y footprint=300MB
            app Big footprint=1200MB
            0s    launch X
            5s    home
            20s   launch Z
            25s   home
            30s   launch W
            35s   home
            40s   launch Y
            45s   home
            100s  launch Big
            3m    end
            """
        }
        let (sc, byOrder) = try run(text(false))
        // (Z dies right after X with the request still unmet: pressure after kill.)
        #expect(Self.kills(byOrder, sc) == ["X lmkd-psi-partial", "Z lmkd-pressure-after-kill"])
        let (sc2, heaviest) = try run(text(true))
        #expect(Self.kills(heaviest, sc2) == ["X lmkd-psi-partial", "Z lmkd-pressure-after-kill"])
        #expect(heaviest.metrics[.launchFailures] == 0)
    }

    @Test("swap nearly full with low memory kills down to adj 201 (previous, not perceptible)")
    func lowSwap() throws {
        // zram 102.4 MB holds X's 90 MB: 12 % free, under a 20 % low-swap level.
        let (sc, r) = try run(Self.pressure("zram-pct=5 swap-low-pct=20", big: "1200MB"))
        #expect(Self.kills(r, sc) == ["X lmkd-low-swap"])
        #expect(r.metrics[.killsLowSwap] == 1)
    }

    /// A and B cached, C's launch makes reclaim compress A (the oldest), then A is
    /// launched again at 1 min (zramSwapIn; wakeLeavesReclaim wakes it instead).
    static let zramThree = """
        device ram=2GB reserve=512MB os=android app-limit-pct=60 policy=android-lmk
        app A footprint=600MB
        app B footprint=600MB
        app C footprint=1100MB
        0s    launch A
        5s    home
        20s   launch B
        25s   home
        40s   launch C
        45s   home
        1m    launch A
        2m    end
        """

    @Test("zram: reclaim compresses the oldest cached app; its resume is a swap-in with latency per MiB")
    func zramSwapIn() throws {
        let text = Self.zramThree
        let (sc, r) = try run(text)
        #expect(r.metrics.totalKills == 0)
        // A's 180 MB (184,320 KiB) compress to 71,442 KiB at lz4's 2.58.
        #expect(r.metrics[.compressorPeakKB] == 71_442)
        #expect(r.metrics[.swapIns] == 1)
        // 180 MiB x 0.5 ms = 90 ms, on top of the 250 ms resume.
        #expect(r.metrics[.swapInLatencySumMicros] == 90_000)
        #expect(r.records.contains { $0.app == sc.app(named: "A")! && TraceCSV.detail($0) == "warm 340ms" })
        // zstd packs tighter: 184,320 / 3.96 = 46,545 KiB.
        let (_, z) = try run(text.replacingOccurrences(of: "policy=android-lmk", with: "policy=android-lmk zram-algorithm=zstd"))
        #expect(z.metrics[.compressorPeakKB] == 46_545)
        // Without zram nothing is compressed and A resumes without a swap-in.
        let (_, off) = try run(text.replacingOccurrences(of: "policy=android-lmk", with: "policy=android-lmk zram=false"))
        #expect(off.metrics[.swapIns] == 0 && off.metrics[.compressorPeakKB] == 0)
    }

    @Test("ActivityManager's limit on cached apps with activities (max - max/2) kills the oldest beyond it, whatever memory says")
    func cachedCap() throws {
        let text = """
            device os=android app-limit-pct=60 policy=android-lmk max-cached=2
            app A
            app B
            app C
            app D
            0s    launch A
            5s    home
            20s   launch B
            25s   home
            40s   launch C
            45s   home
            1m    launch D
            65s   home
            2m    end
            """
        let (sc, r) = try run(text)
        // max-cached=2: one cached app with activities (2 - 2/2), one empty. At 55 s C
        // is suspended and previous; A and B are cached: A dies. At 75 s D is the
        // previous app; B and C are cached: B dies.
        #expect(Self.kills(r, sc) == ["A cached-cap", "B cached-cap"])
        let times: [SimTime] = r.records.compactMap { if case .terminated = $0.event { return $0.time } else { return nil } }
        #expect(times == [SimTime.seconds(55), SimTime.seconds(75)])
        #expect(r.metrics[.killsCachedCap] == 2)
        let (_, off) = try run(text.replacingOccurrences(of: "max-cached=2", with: "max-cached=0"))
        #expect(off.metrics.totalKills == 0)
    }

    @Test("launch kinds: cold, warm after a kill with saved state, hot from a live process; Vitals thresholds")
    func launchKinds() throws {
        let text = """
            device os=android app-limit-pct=60 policy=android-lmk max-cached=1
            app A cold-launch=5s state-restore=1ms
            app B
            app C
            0s    launch A
            5s    home
            20s   launch B
            25s   home
            40s   launch C
            45s   home
            1m    launch A
            65s   home
            80s   launch C
            2m    end
            """
        let (sc, r) = try run(text)
        // A is killed by the cap at 55 s and comes back warm (saved state); C is hot.
        #expect(Self.kills(r, sc).first == "A cached-cap")
        #expect(r.metrics[.androidColdLaunches] == 3)
        #expect(r.metrics[.androidWarmLaunches] == 1)
        #expect(r.metrics[.androidHotLaunches] == 1)
        // A's cold launch (5 s) and its warm relaunch (5.001 s) are over their limits.
        #expect(r.metrics[.coldOverVitals] == 1 && r.metrics[.warmOverVitals] == 1 && r.metrics[.hotOverVitals] == 0)
    }

    @Test("legacy minfree levels: below a level, apps at or above its adj die")
    func minfree() throws {
        // Free after Big: 1536 - 150 (P) - 90 - 90 - 1200 = 6 MB, under the first
        // level (72 MB, adj 0): X dies. Then 96 MB free is under 108 MB (adj 200): Y
        // (700) dies. 186 MB free is above every level (180 MB): P lives.
        let (sc, r) = try run(Self.pressure("psi=false zram=false", big: "1200MB"))
        #expect(Self.kills(r, sc) == ["X lmkd-minfree", "Y lmkd-minfree"])
        #expect(r.metrics[.killsMinfree] == 2)
    }

    @Test("as AOSP's lmkd_test: one app at each adj class, the one in front allocating steadily: kills in adj order, never the one in front")
    func lmkdTestOrder() throws {
        // zram off: only kills make room. G grows from 300 MB toward 1,500 MB, 60 MB
        // per 30 s step, on 1,536 MB: every other app must die, highest adj first.
        let text = """
            device ram=2GB reserve=512MB os=android policy=android-lmk zram=false app-limit-pct=100 growth-time=10m growth-step=30s bg-allowance=1h
            app C1
            app C2
            app Pc mode=audio:1h
            app Sv bg-task=1h
            app Pv
            app G footprint=300MB peak=1500MB
            0s    launch C1
            5s    home
            20s   launch C2
            25s   home
            40s   launch Pc
            45s   home
            60s   launch Sv
            65s   home
            80s   launch Pv
            85s   home
            100s  launch G
            20m   end
            """
        let (sc, r) = try run(text)
        // cached 900+ (oldest first), previous 700, service 500, perceptible 200.
        #expect(Self.kills(r, sc).map { String($0.prefix { $0 != " " }) } == ["C1", "C2", "Pv", "Sv", "Pc"])
        #expect(r.metrics[.foregroundKills] == 0 && r.metrics[.launchFailures] == 0)
        // lru kills by last use instead: C1 first, then Pc (used third) before C2
        // only once the stall is critical.
        let (sc2, lru) = try run(text.replacingOccurrences(of: "policy=android-lmk", with: "policy=lru"))
        #expect(Self.kills(lru, sc2).map { String($0.prefix { $0 != " " }) } != ["C1", "C2", "Pv", "Sv", "Pc"])
        #expect(lru.metrics[.foregroundKills] == 0)
    }

    @Test("reclaim never compresses the cached app being launched")
    func launchingNotReclaimed() throws {
        // A is the oldest cached app and is launched when memory is short (C keeps
        // 900 MB in the background): reclaim takes B instead, lmkd then kills B
        // (cached) and stops at C (service), and A comes back without a swap-in.
        let (sc, r) = try run("""
            device ram=2GB reserve=512MB os=android app-limit-pct=60 policy=android-lmk
            app A footprint=600MB
            app B footprint=600MB
            app C footprint=900MB background-footprint=900MB
            0s    launch A
            5s    home
            20s   launch B
            25s   home
            40s   launch C
            1m    launch A
            2m    end
            """)
        #expect(r.metrics[.swapIns] == 0)
        #expect(Self.kills(r, sc) == ["B lmkd-psi-partial"])
        #expect(r.metrics[.compressorPeakKB] == 71_442)  // B's 180 MB
    }

    @Test("thrashing: refaults (swap-ins) in the window over the page cache let lmkd kill down to adj 201, once per refault burst")
    func thrashing() throws {
        // At 60 s C's launch compresses A (180 MB). At 70 s A comes back: 180 MiB
        // swapped in, over a 1 % page cache (20 MiB). In the same second Y's launch
        // finds memory low: X (cached) dies as a thrashing kill. lmkd then starts its
        // thrashing count again (lmkd.cpp:2776-2785), so C (a service, 500, while its
        // background task runs) is not a thrashing victim: memory is only low, which
        // spares adj <= 700.
        let text = """
            device ram=2GB reserve=512MB os=android app-limit-pct=60 policy=android-lmk page-cache-pct=1 thrashing-swap-ins=true bg-allowance=1h
            app A footprint=600MB
            app X footprint=300MB
            app P footprint=300MB mode=audio:1h
            app C footprint=1100MB bg-task=1h
            app Y footprint=500MB
            0s    launch A
            5s    home
            20s   launch X
            25s   home
            40s   launch P
            45s   home
            60s   launch C
            65s   home
            70s   launch A
            70s   launch Y
            2m    end
            """
        let (sc, r) = try run(text)
        #expect(r.metrics[.swapIns] == 1)
        #expect(Self.kills(r, sc) == ["X lmkd-thrashing"])
        // No page cache to measure against: plain low memory, cached apps only.
        let (sc2, off) = try run(text.replacingOccurrences(of: "page-cache-pct=1 thrashing-swap-ins=true", with: "page-cache-pct=0 thrashing-swap-ins=true"))
        #expect(Self.kills(off, sc2) == ["X lmkd-psi-partial"])
    }

    /// V1, V2, R2 and R1 are cached and compressed by C's launch at 60 s. At 70 s R1
    /// comes back (180 MiB swapped in: 878 % of a 20 MiB page cache) and L1's launch
    /// finds memory low; at 70.5 s R2 comes back (12 MiB: 58 %) and L2's launch finds
    /// memory low again, in the same PSI window (96 ms of stall: lmkd is awake).
    static let thrashingBursts = """
        device ram=2GB reserve=512MB os=android app-limit-pct=60 policy=android-lmk page-cache-pct=1 thrashing-swap-ins=true thrashing-decay-pct=50
        app V1 footprint=600MB
        app V2 footprint=600MB
        app R2 footprint=40MB
        app R1 footprint=600MB
        app C footprint=1150MB
        app L1 footprint=450MB
        app L2 footprint=300MB
        0s    launch V1
        2s    home
        3s    launch V2
        5s    home
        6s    launch R2
        8s    home
        9s    launch R1
        11s   home
        60s   launch C
        65s   home
        70s   launch R1
        70s   launch L1
        70500ms launch R2
        70500ms launch L2
        2m    end
        """

    @Test("thrashing-limit decay: a thrashing kill cuts the window's limit, so 58 % of refaults is thrashing after it (lmkd.cpp:3009-3015)")
    func thrashingDecay() throws {
        // 878 % > 100: V1 dies for thrashing, and the limit becomes 100 x (100 - 50) / 100
        // = 50. The count starts again; R2's 58 % is over 50: V2 dies for thrashing too.
        let (sc, r) = try run(Self.thrashingBursts)
        #expect(Self.kills(r, sc) == ["V1 lmkd-thrashing", "V2 lmkd-thrashing"])
        #expect(r.metrics[.killsThrashing] == 2)
        // No decay: 58 % is under 100, V2 dies only because memory is low.
        let (sc0, none) = try run(Self.thrashingBursts.replacingOccurrences(of: "thrashing-decay-pct=50", with: "thrashing-decay-pct=0"))
        #expect(Self.kills(none, sc0) == ["V1 lmkd-thrashing", "V2 lmkd-psi-partial"])
        // Two seconds later the PSI window has moved on: 6 ms of stall does not wake
        // lmkd, and L2 fits above the minimum.
        let (scL, later) = try run(Self.thrashingBursts.replacingOccurrences(of: "70500ms", with: "72500ms"))
        #expect(Self.kills(later, scL) == ["V1 lmkd-thrashing"])
    }

    @Test("thrashing at the critical level (3 x the limit) lets lmkd kill a perceptible app; under it the app is spared")
    func thrashingCritical() throws {
        // lru's oldest is P (audio, adj 200). 878 % >= 300: the thrashing kill may take
        // adj 200 (lmkd.cpp:2951), then low memory alone takes V1 (cached).
        let text = """
            device ram=2GB reserve=512MB os=android app-limit-pct=60 policy=lru page-cache-pct=1 thrashing-swap-ins=true
            app P footprint=40MB mode=audio:1h
            app V1 footprint=600MB
            app V2 footprint=600MB
            app R1 footprint=600MB
            app C footprint=1150MB
            app L1 footprint=450MB
            0s    launch P
            1s    home
            2s    launch V1
            3s    home
            4s    launch V2
            5s    home
            9s    launch R1
            11s   home
            60s   launch C
            65s   home
            70s   launch R1
            70s   launch L1
            2m    end
            """
        let (sc, r) = try run(text)
        #expect(Self.kills(r, sc) == ["P lmkd-thrashing", "V1 lmkd-psi-partial"])
        // A critical level of 1000 %: P is protected, and lmkd stops at lru's victim.
        let (scP, spared) = try run(text.replacingOccurrences(of: "page-cache-pct=1 thrashing-swap-ins=true", with: "page-cache-pct=1 thrashing-swap-ins=true thrashing-critical-pct=1000"))
        #expect(Self.kills(spared, scP) == [])
    }

    @Test("an app the system wakes leaves reclaim's order: it runs, so zram never takes it (it trapped before)")
    func wakeLeavesReclaim() throws {
        // A is cached, uncompressed, when a silent push wakes it (300 MB in the
        // background). C's launch then needs reclaim: nothing cached is left to compress.
        let text = """
            device ram=2GB reserve=512MB os=android app-limit-pct=60 policy=android-lmk
            app A footprint=600MB
            app C footprint=1200MB
            0s    launch A
            5s    home
            30s   wake A silent-push
            35s   launch C
            2m    end
            """
        let (sc, r) = try run(text)
        #expect(r.metrics[.systemWakes] == 1 && r.metrics[.compressorPeakKB] == 0)
        #expect(Self.kills(r, sc) == [])
        // Woken from zram instead (C's launch compressed it, as in zramSwapIn): its
        // 180 MiB come back as a swap-in, 90 ms at 0.5 ms/MiB.
        let (_, z) = try run(Self.zramThree.replacingOccurrences(of: "1m    launch A", with: "1m    wake A silent-push"))
        #expect(z.metrics[.compressorPeakKB] == 71_442)
        #expect(z.metrics[.systemWakes] == 1 && z.metrics[.swapIns] == 1)
        #expect(z.metrics[.swapInLatencySumMicros] == 90_000)
    }

    @Test("zram writeback: with zram full, reclaim writes a cached app to flash within the daily limit; its resume reads it back")
    func writeback() throws {
        // zram holds 102.4 MB: A's 180 MB do not fit, so they go to flash.
        let text = Self.zramThree.replacingOccurrences(of: "policy=android-lmk", with: "policy=android-lmk zram-pct=5 writeback=true")
        let (sc, r) = try run(text)
        #expect(r.metrics[.flashWrittenKB] == 184_320)
        #expect(r.metrics[.swapIns] == 1 && r.metrics[.thawedRelaunches] == 1)
        // 180 MiB x 4 ms from flash, on top of the 250 ms resume.
        #expect(r.records.contains { $0.app == sc.app(named: "A")! && TraceCSV.detail($0) == "thaw 970ms" })
        #expect(r.metrics.totalKills == 0)
        // A 100 MB daily limit leaves A in RAM: nothing written, a plain resume.
        let (_, limited) = try run(text.replacingOccurrences(of: "writeback=true", with: "writeback=true writeback-daily=100MB"))
        #expect(limited.metrics[.flashWrittenKB] == 0 && limited.metrics[.swapIns] == 0)
    }

    @Test("an iOS device ignores the Android keys")
    func iosUnchanged() throws {
        let text = Self.pressure("zram-pct=5", big: "1200MB")
        let (_, ios) = try run(text.replacingOccurrences(of: "os=android", with: "os=ios"))
        let (_, plain) = try run(text.replacingOccurrences(of: "os=android", with: "").replacingOccurrences(of: "zram-pct=5", with: ""))
        #expect(ios.metrics == plain.metrics)
    }
}
