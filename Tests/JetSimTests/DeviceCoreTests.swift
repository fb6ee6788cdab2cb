import Testing
import SimKernel
@testable import JetSim

/// The device's core on its own (Device/, issue 44): a `DeviceCore`, the one the device
/// holds, built with no memory manager and no lifecycle, runs its functions. The rules
/// pinned here are the core's alone: the held suspension timer and the ledger.
typealias BareCore = DeviceCore<LRU, TraceRecorder>

extension DeviceCore where Policy == LRU, Trace == TraceRecorder {
    /// A core of `n` apps, nothing installed, memory uncompressed.
    init(apps n: Int) {
        self.init(trace: TraceRecorder())
        var p = CoreParameters()
        p.suspendedCompressionRatio = 1
        params = p
        apps.append(repeating: AppRuntime(), count: n)
    }
}

@Suite("the device's core alone (DeviceCore)")
struct DeviceCoreTests {
    /// The queue's events in the order it gives them: (time in seconds, kind, app).
    static func drain(_ s: inout Scheduler<DeviceEvent>) -> [(Int64, DeviceEvent.Kind, Int32)] {
        var out: [(Int64, DeviceEvent.Kind, Int32)] = []
        while let e = s.queue.popMin() { out.append((e.time.microseconds / 1_000_000, e.event.kind, e.event.app)) }
        return out
    }

    @Test("a suspension timer made during an input with nothing queued is held; the next timer queues it first, in its place")
    func heldTimer() {
        var core = BareCore(apps: 3)
        var s = Scheduler<DeviceEvent>()
        core.inInput = true
        core.scheduleTimer(.suspendDue, 1, at: .seconds(10), &s)
        #expect(core.heldApp == 1 && core.heldDue == .seconds(10))
        #expect(s.queue.isEmpty)
        // Any timer scheduled next puts the held one into the queue before itself, so at
        // the same time the held one comes first (its sequence), as if pushed when made.
        core.scheduleTimer(.bgTaskExpired, 2, at: .seconds(10), &s)
        #expect(core.heldApp == -1)
        // The kept input time follows (nothing else is an input here).
        #expect(core.inputTime == .never)
        let events = Self.drain(&s)
        #expect(events.map { $0.0 } == [10, 10])
        #expect(events.map { $0.1 } == [.suspendDue, .bgTaskExpired])
        #expect(events.map { $0.2 } == [1, 2])
    }

    @Test("a suspension timer is queued, not held, outside an input or with an event queued")
    func notHeld() {
        var core = BareCore(apps: 2)
        var s = Scheduler<DeviceEvent>()
        core.scheduleTimer(.suspendDue, 0, at: .seconds(5), &s)  // not in an input
        #expect(core.heldApp == -1 && s.queue.count == 1)
        core.inInput = true
        core.scheduleTimer(.suspendDue, 1, at: .seconds(6), &s)  // the queue holds one
        #expect(core.heldApp == -1 && s.queue.count == 2)
        core.scheduleTimer(.modeEnded, 1, at: .seconds(1), &s)  // not a suspension timer
        #expect(core.heldApp == -1)
        #expect(Self.drain(&s).map { $0.2 } == [1, 0, 1])
    }

    @Test("cancelling an app's background timers drops its held suspension timer and refreshes the input time")
    func heldTimerCancelled() {
        var core = BareCore(apps: 2)
        var s = Scheduler<DeviceEvent>()
        core.inInput = true
        core.scheduleTimer(.suspendDue, 1, at: .seconds(3), &s)
        core.refreshInputTime()
        #expect(core.inputTime == .seconds(3))
        core.cancelTimers(0, family: 0)  // another app's: kept
        #expect(core.heldApp == 1)
        core.cancelTimers(1, family: 1)  // its save timers: kept
        #expect(core.heldApp == 1)
        core.cancelTimers(1, family: 0)
        #expect(core.heldApp == -1 && core.inputTime == .never && s.queue.isEmpty)
    }

    @Test("the ledger: a resident size moves available memory by its change; packing divides by the ratio, rounded")
    func ledger() {
        var core = BareCore(apps: 2)
        core.availableKB = 1_000
        core.setResident(0, 300)
        core.setResident(1, 200)
        #expect(core.availableKB == 500)
        core.setResident(0, 100)
        #expect(core.availableKB == 700 && core.apps[0].residentKB == 100)
        core.setResident(1, 0)
        #expect(core.availableKB == 900)
        #expect(core.packedKB(plainKB: 1_001) == 1_001)
        core.params.suspendedCompressionRatio = 2
        #expect(core.packedKB(plainKB: 1_001) == 501)  // 500.5, rounded half away from zero
        core.params.suspendedCompressionRatio = 3
        #expect(core.packedKB(plainKB: 1_000) == 333)
    }
}
