import Foundation
import Testing
import SimKernel
@testable import JetSim

/// Which thawed apps the freezer refreezes (Memory/XNU/Freezer.swift, `freezerPass`): with no new
/// candidate left it refreezes (kern_memorystatus_policy.c:718-727; doc/vm/freezer.md:
/// 66-68), and never a demoted thawed app, which is not refreeze-eligible
/// (memorystatus_freeze_process returns EINVAL, kern_memorystatus_freeze.c:1799-1803).
/// Every wake-up runs the freezer here (freezer-idle-delay=0s; the throttle is
/// XNUFreezerThrottleTests').
@Suite("XNU freezer: refreezes")
struct XNUFreezerRefreezeTests {
    static func frozen(_ sc: Scenario, _ r: ScenarioRunner.Result) -> [String] {
        r.records.filter { $0.event == .frozen }.map { "\(sc.appNames[Int($0.app)]) \($0.time.microseconds / 1_000_000)" }
    }

    @Test("with no new candidate left and enough apps thawed, the freezer refreezes although it is not full")
    func noCandidateLeft() throws {
        // S (4 MB, below the 8 MB minimum) is never a candidate. A is frozen at 15 s, B
        // at 35 s; A thaws at 40 s and is suspended at 55 s back in band 75. The idle
        // band holds only S: no new candidate, one app thawed (freeze-refreeze-thawed=1),
        // so A is refrozen although 2 of 20 slots are used.
        let text = """
            device dock=0 freeze-pct=100 freeze-suspended=0 freeze-refreeze-thawed=1 freezer-idle-delay=0s reaper=false
            app S footprint=4MB background-footprint=4MB suspended-footprint=4MB
            app A
            app B
            0s    launch S
            1s    launch A
            5s    home
            20s   launch B
            25s   home
            40s   launch A
            45s   home
            2m    end
            """
        let (sc, r) = try run(text)
        #expect(Self.frozen(sc, r) == ["A 15", "B 35", "A 55"])
        #expect(r.metrics[.freezes] == 3 && r.metrics[.refreezes] == 1)
        // As shipped (3 thawed needed) one thawed app is not enough.
        let (sc2, r2) = try run(text.replacingOccurrences(of: "freeze-refreeze-thawed=1", with: "freeze-refreeze-thawed=3"))
        #expect(Self.frozen(sc2, r2) == ["A 15", "B 35"] && r2.metrics[.refreezes] == 0)
    }

    @Test("a demoted thawed app in the idle band is passed over, not refrozen")
    func demotedNotRefrozen() throws {
        // T (400 MB, 200 compressed) is frozen at 15 s (200 MiB written), thawed at 20 s
        // (25 % touched) and refrozen at 35 s when suspended (no new candidate: S and U
        // are below the minimum; 30 % of 50 MiB = 15 MiB: the 215 MiB budget is spent).
        // Thawed again at 40 s and suspended at 55 s with 50 MiB, it is demoted (urgent
        // mode) to the idle band, not refreeze-eligible. A day later the budget is
        // new and U's launch wakes the freezer: T is the only idle suspended app of the
        // minimum size, but XNU refuses to refreeze it, so nothing is frozen.
        let text = """
            device ram=2GB reserve=512MB dock=0 freeze-pct=100 freeze-suspended=0 freeze-max=2 freeze-refreeze-thawed=1 thaw-touch-share=0.25 compression-mb-per-s=0 freeze-daily=215MB freezer-idle-delay=0s reaper=false
            app S footprint=4MB background-footprint=4MB suspended-footprint=4MB
            app U footprint=4MB background-footprint=4MB suspended-footprint=4MB
            app T footprint=400MB background-footprint=400MB suspended-footprint=400MB
            0s    launch S
            1s    launch T
            5s    home
            20s   launch T
            25s   home
            40s   launch T
            45s   home
            24h   launch U
            1441m end
            """
        let (sc, r) = try run(text)
        #expect(Self.frozen(sc, r) == ["T 15", "T 35"])
        #expect(r.metrics[.refreezes] == 1 && r.metrics[.freezerDemotions] == 1)
        #expect(r.metrics[.flashWrittenKB] == 215 * 1_024)
    }
}
