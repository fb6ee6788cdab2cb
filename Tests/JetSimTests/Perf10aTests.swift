import Testing
import SimKernel
@testable import JetSim

/// The device keeps its next input time (`Device.inputTime`) instead of computing it
/// at every engine step (issue 12's event rate): after every step it must equal the
/// time computed from the inputs themselves, the next user action, the next system
/// arrival and the held suspension timer, as `nextInputTime` computed it before.
@Suite("Device: the kept next input time")
struct Perf10aInputTimeTests {
    /// `nextInputTime` computed from the device's inputs, as it was before it was kept.
    static func reference<P: EvictionPolicy, T: TraceSink>(_ d: Device<P, T>) -> SimTime? {
        let user = d.core.nextAction < d.timeline.actions.count ? d.timeline.actions[d.core.nextAction].time : nil
        if d.core.heldApp >= 0 { return min(d.core.heldDue, user ?? .never, d.core.nextWake) }
        if let user, user <= d.core.nextWake { return user }
        return d.core.nextWake < .never ? d.core.nextWake : user
    }

    /// A replay-like device (`UsageStreamTests.relaunch`): `a`'s suspension timer is
    /// held, then queued when `b`'s periodic save is scheduled; `b` also gets silent
    /// pushes (system arrivals) when `pushes`. Steps to the end; returns the steps made
    /// and how many of them began with a timer held.
    static func stepAndCheck(withB: Bool, pushes: Bool) -> (steps: Int, held: Int, wakes: UInt64) {
        var sc = UsageStreamTests.plainTwoApps()
        var b = AppProfile(enterBackgroundHandler: .zero, save: .periodic, unsavedEditsPerMinute: 0)
        if pushes { b.silentPushesPerDay = 20_000 }
        sc.profiles = [AppProfile(enterBackgroundHandler: .zero, save: .never, unsavedEditsPerMinute: 0), b]
        sc.actions = [UserAction(time: .zero, kind: .launch, app: 0), UserAction(time: .seconds(5), kind: .home)]
        if withB { sc.actions.append(UserAction(time: .seconds(6), kind: .launch, app: 1)) }
        sc.actions += [UserAction(time: .seconds(30), kind: .launch, app: 0), UserAction(time: .seconds(31), kind: .home),
                       UserAction(time: .seconds(60), kind: .launch, app: 0)]
        sc.endTime = .seconds(100)
        var sim = Simulation(model: scenarioDevice(sc, LRU.self, trace: NoTrace()))
        var steps = 0, held = 0
        #expect(sim.model.nextInputTime == reference(sim.model))
        while sim.now <= sc.endTime, sim.step() {
            steps += 1
            if sim.model.core.heldApp >= 0 { held += 1 }
            #expect(sim.model.core.inputTime == sim.model.core.computedInputTime)
            #expect(sim.model.nextInputTime == reference(sim.model), "step \(steps) at \(sim.now)")
        }
        return (steps, held, sim.model.core.wakeCount)
    }

    @Test("after every step, with a timer held or queued and with system arrivals, it is the time the inputs give")
    func keptEqualsComputed() {
        for withB in [false, true] {
            for pushes in [false, true] {
                let r = Self.stepAndCheck(withB: withB, pushes: pushes)
                #expect(r.steps >= 6)
                // The cases the kept time must follow: a held timer (not with both `b`
                // and its pushes, whose timers keep the queue busy), and arrivals.
                if !(withB && pushes) { #expect(r.held > 0, "withB \(withB) pushes \(pushes)") }
                #expect((r.wakes > 0) == pushes)
            }
        }
    }

    @Test("a device with no inputs left has none")
    func noInputs() {
        var d = Device<LRU, NoTrace>(trace: NoTrace())
        #expect(d.nextInputTime == nil)
        d.reset(profiles: [AppProfile()], installed: [0], params: DeviceParameters(),
                timeline: Timeline(actions: [], appCount: 1), context: PolicyContext())
        #expect(d.nextInputTime == nil)
        #expect(d.core.inputTime == .never)
    }
}

/// `freezerCatchUp`'s common case made without its loop (`Device.freezerIdleRun`):
/// wherever it applies, it must leave the device exactly as the loop does.
@Suite("XNU freezer: the catch-up's common case")
struct Perf10aFreezerIdleRunTests {
    /// The freezer's and the memory's state a catch-up may change.
    struct FreezerState: Equatable {
        var nextRun: SimTime, due: Bool, day: Int32, todayKB: Int64
        var frozen: Int32, flashCopies: Int32, eligible: Int32, availableKB: Int64, compressorKB: Int64
        var metrics: DeviceMetrics
        init<P: EvictionPolicy, T: TraceSink>(_ d: Device<P, T>) {
            nextRun = d.memory.xnu.freezerNextRun; due = d.memory.xnu.freezerDue; day = d.memory.xnu.flashDay; todayKB = d.memory.android.flashTodayKB
            frozen = d.memory.xnu.frozenCount; flashCopies = d.memory.xnu.flashCopyCount; eligible = d.memory.xnu.refreezeEligibleCount
            availableKB = d.availableKB; compressorKB = d.compressorKB; metrics = d.metrics
        }
    }

    /// Steps the scenario; before each step, with a run due, compares the common case
    /// with the loop at times from the due run to days after it. Returns how many
    /// comparisons the common case applied to.
    static func compare(_ text: String) throws -> Int {
        let sc = try Scenario.parse(text, source: "test")
        var sim = Simulation(model: scenarioDevice(sc, LRU.self, trace: NoTrace()))
        var applied = 0
        while sim.now <= sc.endTime {
            if sim.model.memory.xnu.freezerDue {
                let t = sim.model.memory.xnu.freezerNextRun
                for k: Int64 in [0, 1, 3, 10, 37, 1_000, 7_919, 40_000, 90_000] {
                    let now = t + .seconds(k)
                    var a = sim.model, b = sim.model
                    a.core.holdApps(); b.core.holdApps()
                    if a.memory.xnu.freezerIdleRun(availableKB: a.core.availableKB, suspended: a.core.suspendedCount, now) {
                        applied += 1
                        b.memory.xnu.freezerCatchUpLoop(&b.core, now)
                        #expect(FreezerState(a) == FreezerState(b), "run due at \(t), now \(now)")
                    }
                }
            }
            if !sim.step() { break }
        }
        return applied
    }

    @Test("it leaves the freezer and memory as the loop does: throttled, stopped, slow and zero delays")
    func sameAsLoop() throws {
        let text = try XNUTests.file("46-freezer-throttle.scenario")
        let device = "compression-mb-per-s=0 reaper=false"  // the end of the device line: later keys win
        var total = 0
        for variant in ["", "freeze-suspended=2", "freeze-pct=10", "freezer-dynamic-delay=true freeze-suspended=2",
                        "freezer-dynamic-delay=true", "freezer-idle-delay=3s freeze-suspended=1", "compression-mb-per-s=5 freeze-suspended=2"] {
            let n = try Self.compare(text.replacingOccurrences(of: device, with: "\(device) \(variant)"))
            total += n
        }
        // It applied (a test that never reached it would prove nothing).
        #expect(total > 20)
    }
}
