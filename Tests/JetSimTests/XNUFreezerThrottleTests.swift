import Foundation
import Testing
import SimKernel
@testable import JetSim

/// The freezer thread's throttle (Memory/XNU/Freezer.swift, `freezerWake`, `freezerCatchUp`): after
/// every run XNU sets memorystatus_freezer_thread_next_run_ts = now +
/// memorystatus_apps_idle_delay_time (10 s) x the multiplier
/// (bsd/kern/kern_memorystatus_freeze.c:2945-2954) and refuses wake-ups before it
/// (kern_memorystatus_policy.c:774-778). Workloads/scenarios/46-freezer-throttle
/// (its trace is pinned beside it).
@Suite("XNU freezer: the thread's throttle")
struct XNUFreezerThrottleTests {
    static func frozen(_ text: String) throws -> [String] {
        let (sc, r) = try run(text)
        return r.records.filter { $0.event == .frozen }.map { "\(sc.appNames[Int($0.app)]) \($0.time.microseconds / 1_000_000)" }
    }

    @Test("one run per 10 s: wake-ups before the next run freeze nothing, and the freezer runs at its next-run time")
    func throttle() throws {
        let text = try XNUTests.file("46-freezer-throttle.scenario")
        let sc = try Scenario.parse(text, source: "test")
        #expect(sc.params.xnu.freezerIdleDelay == .seconds(10) && sc.params.xnu.freezerFastMultiplier == 1 && !sc.params.xnu.freezerDynamicDelay)
        // The thread runs at 0 s (memory is below the freeze level from the start,
        // freeze-pct=100) and at 10 s with nothing suspended: its next run is at 20 s.
        // Suspended at 11, 12, 13 s (wake-ups refused); frozen at 20, 30, 40 s (found
        // by A's launch at 50 s, before it acts: so A's launch is a thaw).
        #expect(try Self.frozen(text) == ["A 20", "B 30", "C 40"])
        let (_, r) = try run(text)
        #expect(r.metrics[.freezes] == 3 && r.metrics[.thawedRelaunches] == 1)
        // Without the throttle (a delay of 0, the model before) each suspension freezes.
        let off = text.replacingOccurrences(of: "device ram=2GB", with: "device freezer-idle-delay=0s ram=2GB")
        #expect(try Self.frozen(off) == ["A 11", "B 12", "C 13"])
        // A 4 s delay: runs at 0 and 4 s, then at 12 s (before B's suspension acts), 16, 20.
        let four = text.replacingOccurrences(of: "device ram=2GB", with: "device freezer-idle-delay=4s ram=2GB")
        #expect(try Self.frozen(four) == ["A 12", "B 16", "C 20"])
    }

    @Test("the dynamic delay (watchOS): after a run that froze nothing with apps frozen, the next run waits 30 x 10 s")
    func dynamicDelay() throws {
        // D leaves the front at 46 s, suspended at 56 s. The run at 50 s finds no
        // candidate (3 suspended, 3 frozen). With the fast multiplier D's suspension
        // comes before the next run (60 s), which freezes it (found by A's launch at
        // 360 s); with the slow one the next run after 50 s is at 50 + 300 = 350 s, with a
        // slow multiplier of 3 at 80 s. (The runs at 0 and 10 s froze nothing with
        // nothing frozen: fast, kern_memorystatus_freeze.c:2947-2949.)
        let text = try XNUTests.file("46-freezer-throttle.scenario")
            .replacingOccurrences(of: "app C footprint", with: "app D footprint=100MB background-footprint=100MB suspended-footprint=100MB\napp C footprint")
            .replacingOccurrences(of: "50s   launch A\n55s   end", with: "45s   launch D\n46s   home\n360s  launch A\n365s  end")
        #expect(try Self.frozen(text) == ["A 20", "B 30", "C 40", "D 60"])
        let slow = text.replacingOccurrences(of: "device ram=2GB", with: "device freezer-dynamic-delay=true ram=2GB")
        #expect(try Self.frozen(slow) == ["A 20", "B 30", "C 40", "D 350"])
        let slow2 = slow.replacingOccurrences(of: "freezer-dynamic-delay=true", with: "freezer-dynamic-delay=true freezer-slow-multiplier=3")
        #expect(try Self.frozen(slow2) == ["A 20", "B 30", "C 40", "D 80"])
    }

    @Test("a run due between events sees memory as compression left it at its time, not as the last event did")
    func catchUpSeesCompression() throws {
        // 1,536 MiB available; A (100 MiB), B and C (500 MiB each) leave the front by
        // 3 s and are suspended at 11, 12 and 13 s. The run due at 12 s (found by B's
        // suspension before it acts) freezes A; the next is due at 22 s, before A's
        // launch at 50 s. At C's suspension (13 s, the last event before it) about 538
        // MiB are available: 1,536 - 1,000, and B's first second of compression (4 MiB
        // packed 2:1). By 22 s compression has freed 20 MiB of B's and 18 of C's: about
        // 574. With the freeze level at 27.3 % of RAM (559 MiB) XNU's thread finds
        // memory above it at 22 s and freezes nothing (deciding on the memory of 13 s,
        // it froze B); at 28.5 % (584 MiB) it is still below and B is frozen at 22 s.
        let text = """
            device ram=2GB reserve=512MB dock=0 freeze-pct=27.3 freeze-suspended=0 reaper=false
            app A footprint=100MB background-footprint=100MB suspended-footprint=100MB
            app B footprint=500MB background-footprint=500MB suspended-footprint=500MB
            app C footprint=500MB background-footprint=500MB suspended-footprint=500MB
            0s    launch A
            1s    launch B
            2s    launch C
            3s    home
            50s   launch A
            55s   end

            """
        #expect(try Self.frozen(text) == ["A 12"])
        #expect(try Self.frozen(text.replacingOccurrences(of: "freeze-pct=27.3", with: "freeze-pct=28.5")) == ["A 12", "B 22"])
    }
}
