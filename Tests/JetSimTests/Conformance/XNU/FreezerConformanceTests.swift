import Testing
import SimKernel
@testable import JetSim

/// Ports of xnu's freezer tests and of the eligibility they exercise
/// (apple-oss-distributions/xnu at xnu-11417.101.15: tests/vm/memorystatus_freeze_test.c;
/// bsd/kern/kern_memorystatus_policy.c, memorystatus_is_process_eligible_for_freeze and
/// memorystatus_freeze_pick_process). The kernel's tests run on a device: each port sets
/// up the same situation as a scenario under jetsam-bands, with every wake-up running
/// the freezer (freezer-idle-delay=0s) and no threshold in the way (freeze-pct=100,
/// freeze-suspended=0), and asserts what the test asserts. docs/fidelity.md lists them.
@Suite("Conformance (XNU): the freezer's candidates")
struct FreezerConformanceTests {
    static let device = "device freeze-pct=100 freeze-suspended=0 freezer-idle-delay=0s reaper=false"

    static func frozen(_ text: String) throws -> [String] {
        let (sc, r) = try run(text)
        return r.records.filter { $0.event == .frozen }.map { "\(sc.appNames[Int($0.app)]) \($0.time.microseconds / 1_000_000)" }
    }

    // memorystatus_freeze_test.c:1801-1841, memorystatus_freeze_skip_docked: a docked
    // process is not frozen (freeze_top_process fails with ESRCH; verify_proc_not_frozen).
    // A docked app idles in band 30 (JETSAM_PRIORITY_BACKGROUND), above
    // FREEZE_MAX_CANDIDATE_BAND (JETSAM_PRIORITY_AGING_BAND2 on iOS,
    // bsd/sys/kern_memorystatus_freeze.h:102-106): "elevated", skipped
    // (kern_memorystatus_policy.c:560-570).
    @Test("memorystatus_freeze_skip_docked: the docked app is never frozen; undocked, it is")
    func skipDocked() throws {
        // A is launched twice, B once: with one dock slot A is docked.
        let script = "app A\napp B\n0s launch A\n5s home\n10s launch A\n15s home\n20s launch B\n25s home\n2m end\n"
        #expect(try Self.frozen(Self.device + " dock=1\n" + script) == ["B 35"])
        #expect(try Self.frozen(Self.device + " dock=0\n" + script) == ["A 25", "B 35"])
    }

    // memorystatus_is_process_eligible_for_freeze (kern_memorystatus_policy.c:499-505):
    // "Application. Only freeze if it's suspended." memorystatus_freeze_test.c's
    // frozen_background helper is frozen only once it is suspended (prepare_proc_for_freezing).
    // An app finishing a background task (band 30 while it runs) is frozen at its
    // suspension, not before.
    @Test("only a suspended app is frozen: one executing a background task is frozen when it is suspended")
    func onlySuspended() throws {
        #expect(try Self.frozen(Self.device + " dock=0\napp T bg-task=20s\n0s launch T\n5s home\n2m end\n") == ["T 25"])
    }

    // memorystatus_freeze_pick_process (kern_memorystatus_policy.c:652-716) walks the
    // bands from JETSAM_PRIORITY_IDLE up, first eligible first, once
    // memorystatus_can_freeze_processes lets it run: more unfrozen suspended apps than
    // FREEZE_SUSPENDED_THRESHOLD (kern_memorystatus_freeze.c:2222-2243). With a
    // threshold of 1, nothing is frozen while A alone is suspended (15 s); once B is too
    // (17 s), A, which entered the idle band first, is frozen, not B.
    @Test("the freezer waits for more suspended apps than its threshold, then takes the idle band in order")
    func idleOrder() throws {
        let text = "device freeze-pct=100 freeze-suspended=1 freezer-idle-delay=0s reaper=false dock=0 freeze-max=1\n"
            + "app A\napp B\n0s launch A\n5s home\n6s launch B\n7s home\n2m end\n"
        #expect(try Self.frozen(text) == ["A 17"])
    }

    // FREEZE_MAX_CANDIDATE_BAND is JETSAM_PRIORITY_AGING_BAND2 on iOS
    // (bsd/sys/kern_memorystatus_freeze.h:102-106): memorystatus_is_process_eligible_for_freeze
    // refuses only a priority above it (kern_memorystatus_policy.c:560-570), and
    // memorystatus_freeze_pick_process walks the bands from the idle band up
    // (:652-716). A suspended app still in the aging band is a candidate: with aging
    // longer than the 10 s grace, A is frozen at its suspension (15 s), not when its
    // aging ends (35 s, jetsim's before this port); an idle-band app goes first.
    @Test("the aging band's suspended apps are candidates too, after the idle band's")
    func agingBandCandidates() throws {
        let script = "app A\n0s launch A\n5s home\n2m end\n"
        #expect(try Self.frozen(Self.device + " dock=0 aging=30s\n" + script) == ["A 15"])
        #expect(try Self.frozen(Self.device + " dock=0\n" + script) == ["A 15"])
        // A and B are suspended at 15 s and 17 s, both still aging (until 35 s and 37 s).
        // With a threshold of 1 the first pass is at 17 s: it takes A, which entered the
        // aging band first.
        let two = Self.device + " dock=0 aging=30s freeze-suspended=1 freeze-max=1\napp A\napp B\n0s launch A\n5s home\n6s launch B\n7s home\n2m end\n"
        #expect(try Self.frozen(two) == ["A 17"])
    }
}
