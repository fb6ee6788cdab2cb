import Testing
import SimKernel
import JetSim

/// XNU's pressure levels, warnings and the kill triggers that follow them
/// (Memory/XNU/): exact counts on small hand-built devices.
@Suite("XNU memorystatus: pressure levels, warnings, high-water, sustained and compressor kills")
struct XNUPressureTests {
    /// 1 GiB, no reserve: pageable 1024 MiB. A-F (200 MiB, kept whole when suspended,
    /// 100 MiB compressed 2:1) are suspended at 30, 50, ..., 130 s; the sixth takes the
    /// pool to 600 MiB, leaving 424 MiB (41 %) uncompressed: below 50 %, warning.
    /// G (20 MiB) is then in the background (aging band 20) and H in front. These
    /// fixtures compress at suspension (compression-mb-per-s=0), so that the pool's
    /// level changes at the suspensions; over time: XNUCompressionTests.
    static let sixSuspended = """
        device ram=1GB reserve=0MB dock=0 freezer=false compression-mb-per-s=0 reaper=false growth=false warning-pct=15 target-pct=10 critical-pct=5
        app A footprint=200MB background-footprint=200MB suspended-footprint=200MB
        app B footprint=200MB background-footprint=200MB suspended-footprint=200MB
        app C footprint=200MB background-footprint=200MB suspended-footprint=200MB
        app D footprint=200MB background-footprint=200MB suspended-footprint=200MB
        app E footprint=200MB background-footprint=200MB suspended-footprint=200MB
        app F footprint=200MB background-footprint=200MB suspended-footprint=200MB
        app G footprint=20MB background-footprint=20MB suspended-footprint=20MB
        app H footprint=30MB background-footprint=30MB suspended-footprint=30MB
        0s    launch A
        20s   launch B
        40s   launch C
        60s   launch D
        80s   launch E
        100s  launch F
        120s  launch G
        129s  launch H
        """

    static func warned(_ r: ScenarioRunner.Result, _ sc: Scenario) -> [String] {
        r.records.filter { $0.event == .message(.didReceiveMemoryWarning) }
            .map { "\(sc.appNames[Int($0.app)]) \($0.time.microseconds / 1_000_000)" }
    }

    @Test("warning level from compressor occupancy: one app at a time, lowest band first, then a resting period")
    func warnings() throws {
        let (sc, r) = try run(Self.sixSuspended + "\n150s  end\n")
        // G (band 20) before H (in front, band 100); the suspended apps get nothing.
        #expect(Self.warned(r, sc) == ["G 130", "H 130"])
        #expect(r.metrics[.warningsAtWarning] == 2 && r.metrics[.warningsAtCritical] == 0)
        #expect(r.metrics[.memoryWarnings] == 2)
        #expect(r.metrics.totalKills == 0)
        // Below the minimum footprint G gets none.
        let (sc2, small) = try run(Self.sixSuspended.replacingOccurrences(of: "critical-pct=5", with: "critical-pct=5 warning-min-mb=25MB") + "\n150s  end\n")
        #expect(Self.warned(small, sc2) == ["H 130"])
        // Switched off: the old trigger (a launch below 15 % available) never fires here.
        let (_, off) = try run(Self.sixSuspended.replacingOccurrences(of: "critical-pct=5", with: "critical-pct=5 pressure-levels=false") + "\n150s  end\n")
        #expect(off.metrics[.memoryWarnings] == 0)
    }

    @Test("critical level: an eighth suspended app leaves less than 30 % uncompressed")
    func critical() throws {
        // Eight 200 MiB apps, each launched and sent home, suspended 10 s later. The
        // sixth (115 s) leaves 424 MiB (41 %) uncompressed: warning, with no app
        // running to warn; the round rests until 140 s, when H's launch warns H. The
        // seventh (135 s) leaves 324 MiB (31.6 %); the eighth (155 s) 224 MiB (21.9 %):
        // critical, a rise, so a new round at once: I (in front since 150 s).
        var text = "device ram=1GB reserve=0MB dock=0 freezer=false compression-mb-per-s=0 reaper=false growth=false warning-pct=15 target-pct=10 critical-pct=5\n"
        for name in ["A", "B", "C", "D", "E", "F", "G", "H"] {
            text += "app \(name) footprint=200MB background-footprint=200MB suspended-footprint=200MB\n"
        }
        text += "app I footprint=10MB background-footprint=10MB suspended-footprint=10MB\n"
        for (i, name) in ["A", "B", "C", "D", "E", "F", "G", "H"].enumerated() { text += "\(i * 20)s launch \(name)\n\(i * 20 + 5)s home\n" }
        text += "150s launch I\n170s end\n"
        let (sc, r) = try run(text)
        #expect(Self.warned(r, sc) == ["H 140", "I 155"])
        #expect(r.metrics[.warningsAtWarning] == 1 && r.metrics[.warningsAtCritical] == 1)
        #expect(r.metrics.totalKills == 0)
        // With critical below 20 % the eighth leaves it at warning, and I, launched
        // inside the resting period, gets nothing.
        let (sc2, low) = try run(text.replacingOccurrences(of: "critical-pct=5", with: "critical-pct=5 pressure-critical-pct=20"))
        #expect(Self.warned(low, sc2) == ["H 140"])
        #expect(low.metrics[.warningsAtCritical] == 0)
    }

    @Test("sustained pressure: after 600 s above normal, idle-band kills until the level is normal")
    func sustained() throws {
        // Warning from 130 s; due at 730 s, checked at the next memory event (the
        // launch at 740 s). Back to normal needs > 60 % (614.4 MiB) uncompressed: the
        // pool of 600 + 10 + 15 must drop below 409.6 MiB: A, B then the pool is 425,
        // C: 325. Oldest idle first: A, B, C.
        let text = Self.sixSuspended + "\n150s  home\n740s  launch G\n800s  end\n"
        let (sc, r) = try run(text)
        let killed = r.records.filter { $0.event == .terminated(.sustainedPressure) }.map { sc.appNames[Int($0.app)] }
        #expect(killed == ["A", "B", "C"])
        #expect(r.metrics[.killsSustained] == 3)
        let (_, off) = try run(text.replacingOccurrences(of: "critical-pct=5", with: "critical-pct=5 sustained-pressure-kills=false"))
        #expect(off.metrics[.killsSustained] == 0)
        // A window longer than the run: nothing.
        let (_, late) = try run(text.replacingOccurrences(of: "critical-pct=5", with: "critical-pct=5 sustained-window=1000s"))
        #expect(late.metrics[.killsSustained] == 0)
    }

    @Test("compressor space shortage: kills in the policy's order until below 98 % of the pages limit")
    func compressorShortage() throws {
        // Pages limit 50 % of 1 GiB = 512 MiB uncompressed; short above 501.76 MiB.
        // A and B compressed hold 400 MiB; C's suspension takes it to 600: A (oldest
        // idle) dies, 400 is below the level.
        let text = """
            device ram=1GB reserve=0MB dock=0 freezer=false compression-mb-per-s=0 reaper=false growth=false compressor-pages-limit-pct=50
            app A footprint=200MB background-footprint=200MB suspended-footprint=200MB
            app B footprint=200MB background-footprint=200MB suspended-footprint=200MB
            app C footprint=200MB background-footprint=200MB suspended-footprint=200MB
            0s    launch A
            20s   launch B
            40s   launch C
            60s   home
            90s   end
            """
        let (sc, r) = try run(text)
        #expect(r.records.filter { $0.event == .terminated(.compressorSpaceShortage) }.map { "\(sc.appNames[Int($0.app)]) \($0.time.microseconds / 1_000_000)" } == ["A 70"])
        #expect(r.metrics[.killsCompressor] == 1)
        let (_, off) = try run(text.replacingOccurrences(of: "growth=false", with: "growth=false compressor-shortage-kills=false"))
        #expect(off.metrics[.killsCompressor] == 0 && off.metrics.totalKills == 0)
        // XNU's own limit at 1 GiB (200 %) is never near: no kill.
        let (_, xnu) = try run(text.replacingOccurrences(of: " compressor-pages-limit-pct=50", with: ""))
        #expect(xnu.metrics[.killsCompressor] == 0)
    }

    @Test("high-water: over its inactive limit out of front, killed once memory is below the soft-limit level")
    func highWater() throws {
        // X leaves the front at 10 s with 400 MiB, over its 30 % (307 MiB) inactive
        // limit, but 624 MiB are free (above the 15 % level): flagged. Y's launch at
        // 11 s leaves 144 MiB free: below 15 % (153.6), above the idle level (102.4),
        // so no idle kill, and X (aging band 20) dies as a high-water kill.
        let text = """
            device ram=1GB reserve=0MB dock=0 freezer=false reaper=false growth=false warning-pct=15 target-pct=10 critical-pct=5 inactive-limit-pct=30
            app X footprint=400MB background-footprint=400MB suspended-footprint=100MB
            app Y footprint=480MB background-footprint=100MB suspended-footprint=100MB
            0s    launch X
            10s   home
            11s   launch Y
            30s   end
            """
        let (sc, r) = try run(text)
        #expect(r.records.filter { $0.event == .terminated(.highWater) }.map { "\(sc.appNames[Int($0.app)]) \($0.time.microseconds / 1_000_000)" } == ["X 11"])
        #expect(r.metrics[.killsHighWater] == 1 && r.metrics.totalKills == 1)
        // Without Y, memory never falls below the level: X lives (suspended at 20 s it
        // shrinks below the limit, and the flag goes).
        let (_, calm) = try run(text.replacingOccurrences(of: "11s   launch Y\n", with: ""))
        #expect(calm.metrics.totalKills == 0)
        // Leaving the front already below the level: killed at once.
        let (sc3, now) = try run(text.replacingOccurrences(of: "warning-pct=15", with: "warning-pct=70").replacingOccurrences(of: "target-pct=10", with: "target-pct=10"))
        #expect(now.records.filter { $0.event == .terminated(.highWater) }.map { "\(sc3.appNames[Int($0.app)]) \($0.time.microseconds / 1_000_000)" } == ["X 10"])
        // A 100 % limit switches it off.
        let (_, off) = try run(text.replacingOccurrences(of: "inactive-limit-pct=30", with: "inactive-limit-pct=100"))
        #expect(off.metrics[.killsHighWater] == 0)
    }

    @Test("a resume decompresses only the share it touches first; the rest on demand, outside the latency")
    func resumeTouch() throws {
        // 60 MiB suspended, 0.5 ms/MiB: 30 % is 18 MiB, 9 ms on top of the 250 ms warm
        // launch; all of it, 30 ms. The compressor releases the whole app either way.
        let text = "device dock=0 freezer=false\napp A\napp B\n0s launch A\n5s home\n20s launch B\n25s home\n40s launch A\n1m end\n"
        let (_, r) = try run(text)
        #expect(r.records.contains { TraceCSV.detail($0) == "warm 259ms" })
        #expect(r.metrics[.decompressedKB] == 60 * 1_024)
        let (_, all) = try run(text.replacingOccurrences(of: "freezer=false", with: "freezer=false resume-touch-share=1"))
        #expect(all.records.contains { TraceCSV.detail($0) == "warm 280ms" })
        let (_, none) = try run(text.replacingOccurrences(of: "freezer=false", with: "freezer=false resume-touch-share=0"))
        #expect(none.records.contains { TraceCSV.detail($0) == "warm 250ms" })
    }

    @Test("a thawed app keeps band 75; with the freezer full it is refrozen (dirty share only), or demoted when the budget is spent")
    func refreeze() throws {
        // 60 MiB suspended, 30 MiB compressed; every suspension wakes the freezer.
        // A, B, C are frozen at their suspensions (30 MiB each); A thaws at 60 s and
        // is suspended again at 75 s, back in band 75 with its state on flash (XNU
        // keeps P_MEMSTAT_FROZEN on resume), so the freezer, picking from the idle
        // band, freezes D at 95 s, not A. No throttle (freezer-idle-delay=0s: every
        // wake-up runs the freezer; the throttle is XNUFreezerThrottleTests').
        let text = """
            device dock=0 freeze-pct=100 freeze-suspended=0 freezer-idle-delay=0s reaper=false
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
            60s   launch A
            65s   home
            80s   launch D
            85s   home
            100s  launch D
            105s  home
            2m    end
            """
        let (sc, r) = try run(text)
        func frozen(_ r: ScenarioRunner.Result) -> [String] {
            r.records.filter { $0.event == .frozen }.map { "\(sc.appNames[Int($0.app)]) \($0.time.microseconds / 1_000_000)" }
        }
        #expect(frozen(r) == ["A 15", "B 35", "C 55", "D 95"])
        #expect(r.metrics[.freezes] == 4 && r.metrics[.refreezes] == 0 && r.metrics[.freezerDemotions] == 0)
        // With at most 3 apps with state on flash (A, B, C: A's thaw does not free its
        // slot), a wake-up only refreezes, and only with at least
        // `freeze-refreeze-thawed` thawed (1 here): A, the first thawed app in band 75,
        // at D's suspension. A's thaw read back only what it touched (20 % of 60 MiB =
        // 12,288 KiB, 6,144 KiB compressed; the rest stayed on flash), so the
        // refreeze writes 30 % of 6,144 = 1,843 KiB (below the 8 MiB minimum, which
        // only a first freeze checks).
        let full = "reaper=false freeze-max=3 freeze-refreeze-thawed=1"
        let (_, refrozen) = try run(text.replacingOccurrences(of: "reaper=false", with: full))
        #expect(frozen(refrozen) == ["A 15", "B 35", "C 55", "A 95"])
        #expect(refrozen.metrics[.freezes] == 4 && refrozen.metrics[.refreezes] == 1)
        #expect(refrozen.metrics[.flashWrittenKB] == 3 * 30 * 1_024 + 1_843)
        // As shipped (3 thawed needed), one thawed app is not enough: nothing more.
        let (_, threshold) = try run(text.replacingOccurrences(of: "reaper=false", with: "reaper=false freeze-max=3"))
        #expect(frozen(threshold) == ["A 15", "B 35", "C 55"])
        let (_, whole) = try run(text.replacingOccurrences(of: "reaper=false", with: full + " refreeze-dirty-share=1"))
        #expect(whole.metrics[.flashWrittenKB] == 3 * 30 * 1_024 + 6_144)
        // A thaw that touches everything (the whole-app thaw) refreezes 30 % of 30 MiB.
        let (_, all) = try run(text.replacingOccurrences(of: "reaper=false", with: full + " thaw-touch-share=1"))
        #expect(all.metrics[.flashWrittenKB] == 3 * 30 * 1_024 + 9_216)
        // A 92 MiB budget has room for the refreeze (92,160 + 1,843 KiB); with 91 MiB
        // it writes the 1,024 KiB left (a partial refreeze: XNU hands task_freeze the
        // budget left as its page limit, kern_memorystatus_freeze.c:1838).
        let (_, budget) = try run(text.replacingOccurrences(of: "reaper=false", with: full + " freeze-daily=92MB"))
        #expect(frozen(budget) == ["A 15", "B 35", "C 55", "A 95"] && budget.metrics[.freezerDemotions] == 0)
        let (_, tight) = try run(text.replacingOccurrences(of: "reaper=false", with: full + " freeze-daily=91MB"))
        #expect(frozen(tight) == ["A 15", "B 35", "C 55", "A 95"] && tight.metrics[.freezerDemotions] == 0)
        #expect(tight.metrics[.flashWrittenKB] == 3 * 30 * 1_024 + 1_024)
        // With the budget spent (90 MiB written of 90), A's suspension at 75 s wakes
        // the freezer in urgent mode: A, thawed, cannot be refrozen, so it is demoted
        // to the idle band (one a wake-up), and is refreeze-eligible no more.
        let (_, spent) = try run(text.replacingOccurrences(of: "reaper=false", with: full + " freeze-daily=90MB"))
        #expect(spent.metrics[.freezes] == 3 && spent.metrics[.freezerDemotions] == 1)
    }

    @Test("each freezer day demotes at most 2 frozen apps thawed fewer than 5 times to the idle band")
    func demotions() throws {
        // A and B are frozen on day 0; the first wake-up of day 1 (a launch) demotes both.
        let text = """
            device dock=0 freeze-pct=100 freeze-suspended=1 reaper=false
            app A
            app B
            app C
            0s      launch A
            5s      home
            20s     launch B
            25s     home
            40s     launch C
            45s     home
            86400s  launch C
            86460s  end
            """
        let (_, r) = try run(text)
        #expect(r.metrics[.freezes] == 2 && r.metrics[.freezerDemotions] == 2)
        let (_, one) = try run(text.replacingOccurrences(of: "reaper=false", with: "reaper=false freeze-demotions=1"))
        #expect(one.metrics[.freezerDemotions] == 1)
        let (_, none) = try run(text.replacingOccurrences(of: "reaper=false", with: "reaper=false freeze-demotion-thaws=0"))
        #expect(none.metrics[.freezerDemotions] == 0)
        // Demoted, a frozen app is in the idle band: an idle kill reaches it first (it
        // frees no RAM, but its slot). On day 0 nothing is demoted.
        let (_, early) = try run(text.replacingOccurrences(of: "86400s", with: "600s").replacingOccurrences(of: "86460s", with: "660s"))
        #expect(early.metrics[.freezerDemotions] == 0)
    }
}
