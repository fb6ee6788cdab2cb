import Foundation
import Testing
import SimKernel
import JetSim

/// Issue 29: XNU's mechanisms as its source does them, each on the scenario that pins
/// its trace (Workloads/scenarios/47-53, each citing xnu-11417.101.15's file and line
/// or the kernel's own test): exact counts, and the same scenario with the mechanism's
/// input changed, so each test fails if the rule goes.
@Suite("XNU as its source does it (issue 29)")
struct XNUSourceTests {
    static func killed(_ sc: Scenario, _ r: ScenarioRunner.Result) -> [String] {
        r.records.compactMap {
            if case .terminated = $0.event { "\(sc.appNames[Int($0.app)]) \($0.time.microseconds / 1_000) \(TraceCSV.detail($0))" } else { nil }
        }
    }

    @Test("high-water kills come first, one at a time, and compression does not clear a violation")
    func highWaterFirst() throws {
        let text = try XNUTests.file("47-highwater-before-idle.scenario")
        let (sc, r) = try run(text)
        #expect(Self.killed(sc, r) == ["H 60000 highwater"])
        #expect(r.metrics[.killsHighWater] == 1 && r.metrics[.killsIdle] == 0)
        // H under its limit (inactive limit 40 % of RAM, 819 MB): Big's room comes from
        // the idle band: I1, the oldest, is enough.
        let (sc2, under) = try run(text.replacingOccurrences(of: "inactive-limit-pct=20", with: "inactive-limit-pct=40"))
        #expect(Self.killed(sc2, under) == ["I1 60000 idle-exit"])
    }

    @Test("a compressor low on space is critical pressure, whatever is left uncompressed")
    func compressorShortIsCritical() throws {
        let text = try XNUTests.file("48-compressor-short-is-critical.scenario")
        let (_, r) = try run(text)
        #expect(r.metrics[.warningsAtCritical] == 1 && r.metrics[.warningsAtWarning] == 0)
        // The limit at its default (100 % of 8 GB): not short, 99 % left, normal.
        let (_, roomy) = try run(text.replacingOccurrences(of: "compressor-pages-limit-pct=1 ", with: ""))
        #expect(roomy.metrics[.warningsAtCritical] == 0 && roomy.metrics[.warningsAtWarning] == 0)
    }

    @Test("critical kills walk up the bands: the app in front dies before an audio app")
    func foregroundBeforeAudio() throws {
        let text = try XNUTests.file("49-foreground-before-audio.scenario")
        let (sc, r) = try run(text)
        #expect(Self.killed(sc, r) == ["F 10000 memory-pressure"])
        #expect(r.metrics[.foregroundKills] == 1 && r.metrics[.killsPressure] == 1)
        // Au's mode over (band 0 when F comes): Au dies, F lives.
        let (sc2, quiet) = try run(text.replacingOccurrences(of: "mode=audio:10m", with: "mode=audio:1s"))
        #expect(Self.killed(sc2, quiet) == ["Au 10000 idle-exit"])
        #expect(quiet.metrics[.foregroundKills] == 0)
    }

    @Test("an app that ages into the idle band below the idle level dies then")
    func agingIntoIdleBand() throws {
        let text = try XNUTests.file("50-aging-into-idle-band.scenario")
        let (sc, r) = try run(text)
        #expect(Self.killed(sc, r) == ["A 7000 idle-exit"])
        // No aging: A is in the idle band when F's launch needs room, and dies then.
        let (sc2, r2) = try run(text.replacingOccurrences(of: "growth=false", with: "growth=false aging=0s"))
        #expect(Self.killed(sc2, r2) == ["A 5000 idle-exit"])
    }

    @Test("the reaper's age is the time in the idle band, and a sweep waits out its interval")
    func reaperTimeInBand() throws {
        let text = try XNUTests.file("51-reaper-time-in-band.scenario")
        let (sc, r) = try run(text)
        #expect(Self.killed(sc, r) == ["U 400000 long-idle-exit", "W 1015000 long-idle-exit"])
        #expect(r.metrics[.killsReaper] == 2)
        // A minimum age of 250 s: W (280 s in band 0) goes at 710 s, X (298 s) at 1,015 s.
        let (sc2, r2) = try run(text.replacingOccurrences(of: "growth=false", with: "growth=false reaper-age=250s"))
        #expect(Self.killed(sc2, r2) == ["U 400000 long-idle-exit", "W 710000 long-idle-exit", "X 1015000 long-idle-exit"])
    }

    @Test("sustained pressure kills at its timer, with nothing else happening")
    func sustainedPressureTimer() throws {
        let text = try XNUTests.file("52-sustained-pressure-timer.scenario")
        let (sc, r) = try run(text)
        #expect(Self.killed(sc, r) == ["A 615000 sustained-pressure"])
        #expect(r.metrics[.killsSustained] == 1)
        // A 100 s window: the timer fires at 115 s.
        let (sc2, r2) = try run(text.replacingOccurrences(of: "growth=false", with: "growth=false sustained-window=100s"))
        #expect(Self.killed(sc2, r2) == ["A 115000 sustained-pressure"])
        // Off: A lives.
        let (sc3, r3) = try run(text.replacingOccurrences(of: "growth=false", with: "growth=false sustained-pressure-kills=false"))
        #expect(Self.killed(sc3, r3).isEmpty)
    }

    @Test("the freezer's budget carries what a day left, and a freeze writes up to what is left")
    func freezerBudgetCarried() throws {
        let text = try XNUTests.file("53-freezer-budget-carried.scenario")
        let frozen = { (sc: Scenario, r: ScenarioRunner.Result) in
            r.records.filter { $0.event == .frozen }.map { "\(sc.appNames[Int($0.app)]) \($0.time.microseconds / 1_000_000)" }
        }
        let (sc, r) = try run(text)
        #expect(frozen(sc, r) == ["A 15", "C 86415", "D 86420"])
        // 30 + 30 + 20 MiB (D's partial freeze: the 20 left of day 1's 10 + 40).
        #expect(r.metrics[.flashWrittenKB] == 80 * 1_024)
        // 30 MB a day: day 0's budget is spent on A, day 1's on C; nothing is left for D.
        let (sc2, r2) = try run(text.replacingOccurrences(of: "freeze-daily=40MB", with: "freeze-daily=30MB"))
        #expect(frozen(sc2, r2) == ["A 15", "C 86415"])
        #expect(r2.metrics[.flashWrittenKB] == 60 * 1_024)
    }
}
