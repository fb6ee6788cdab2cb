#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// One device: its core (apps, ledger, timers, inputs, candidates, policy, trace,
/// counters: `DeviceCore`) and its memory manager's state. Runs on the engine as its
/// `EventHandler`; generic over the policy and the trace sink, so the event loop is
/// specialised for each (no existential or closure per event).
///
/// Memory invariant: `availableKB + Σ residentKB + idle daemons + osReserveKB == ramKB`, checked
/// when `checksInvariants` is set: after every event on a device of up to 64 apps,
/// every apps/64 events on a larger one (`checkInvariantsAmortised`).
public struct Device<Policy: EvictionPolicy, Trace: TraceSink>: EventHandler {
    /// The core: everything but the memory manager's state.
    public var core: DeviceCore<Policy, Trace>

    public typealias Event = DeviceEvent
    /// Memory warnings were sent and available memory has not recovered since.
    var warned = false
    /// The freezer thread ran with a throttle (`freezerRun`, a non-zero delay): it is
    /// due again at `freezerNextRun`, where `freezerCatchUp` runs it if its conditions
    /// hold then (XNU's page counts keep moving, so its thread gets that chance
    /// whether or not an event comes). In the padding after the flags above.
    var freezerDue = false
    /// Frozen apps now (their memory on flash).
    var frozenCount: Int32 = 0
    /// Apps with state on flash (frozen, or thawed since): XNU's
    /// memorystatus_frozen_count, which a thaw does not decrement
    /// (bsd/kern/kern_memorystatus.c:3780-3792); and those of them resumed since
    /// (memorystatus_refreeze_eligible_count).
    var flashCopyCount: Int32 = 0
    var refreezeEligibleCount: Int32 = 0
    /// The freezer's budget day (days since the start).
    var flashDay: Int32 = 0
    /// The freezer thread runs no earlier than this (XNU's
    /// memorystatus_freezer_thread_next_run_ts, kern_memorystatus_freeze.c:2954).
    var freezerNextRun: SimTime = .zero
    /// The reaper sweeps no earlier than this, in whole seconds (rounded up); its
    /// cached answer to "the oldest reapable idle app" is refreshed no earlier than
    /// `reaperInfoExpiryS`, and `reaperNoneKnown` says it was none (`reaperSweepDue`).
    var nextReaperSweepS: Int32 = 0
    var reaperInfoExpiryS: Int32 = 0
    var reaperNoneKnown = false
    /// Device timers to schedule at the end of this event (`armDeviceTimers`): the
    /// sustained-pressure timer at `sustainedDue`, the idle daemons' relaunch at
    /// `idleDaemons.relaunchDue` (both are set deep in the memory code, without the
    /// scheduler at hand; one byte in the padding here, one compare an event).
    var armTimers = DeviceTimerArm()
    /// The dock: the device's most-launched apps (at most `params.xnu.dockSize`).
    var dock = ContiguousArray<Int32>()
    /// The compressor pool now (physical KiB: what compressed apps keep resident).
    public internal(set) var compressorKB: Int64 = 0
    /// When the pool last changed (for its time integral; its peak is the counter).
    var compressorSince: SimTime = .zero
    /// What Android's zram writeback wrote on its budget day.
    var flashTodayKB: Int64 = 0
    /// XNU's freezer budget left (memorystatus_freeze_budget_pages_remaining, in KiB):
    /// a day's at the start, then each new budget interval adds a day's to what is
    /// left (`freezerNewDay`); a freeze takes what it writes, at most what is left.
    var freezeBudgetKB: Int64 = 0
    /// Apps whose memory is being compressed now (Memory/XNU/Compression.swift),
    /// the last whole second credited to them, and the first second at which one of
    /// them may be done (a lower bound: `.max` when none).
    var compressing = ContiguousArray<CompressingApp>()
    var compressTick: Int64 = 0
    var compressNextDone: Int64 = .max
    /// The pool's size once every app in it is fully compressed (the pool's bound is
    /// checked against this).
    var compressorCommittedKB: Int64 = 0
    /// The compressor holds more than its shortage level (`compressorKB >
    /// kb.xnu.compressorShortPoolKB`, pool not empty): set where the pool changes, read by
    /// the pressure checks after every memory change (`xnuFallReclaim`).
    var compressorShort = false
    /// XNU's pressure level from compressor occupancy (`XNUPressure`).
    public internal(set) var pressureLevel: UInt8 = 0
    /// Apps flagged over their inactive (soft) limit out of front, by app index
    /// ascending: the high-water kills visit these, not every app (`pickHighWater`).
    var softLimitApps = ContiguousArray<Int32>()
    @inline(__always) var overSoftLimitCount: Int { softLimitApps.count }
    /// No pressure warnings before this (the resting period; .zero: due now).
    var warningRestUntil: SimTime = .zero
    /// Sustained-pressure kills are due at this time (.never: not armed).
    var sustainedDue: SimTime = .never
    /// Android's state (`os: android`; Memory/Android/).
    var android = AndroidState()
    /// XNU's idle-band daemons (Memory/XNU/IdleDaemons.swift; empty by default).
    public internal(set) var idleDaemons = IdleDaemonPool()

    public init(trace: Trace) { core = DeviceCore(trace: trace) }

    // The device's face to its runners and tests: the core's inputs and results.
    public var params: DeviceParameters {
        get { core.params }
        set { core.params = newValue }
    }
    public var profiles: ContiguousArray<AppProfile> { core.profiles }
    public var installed: ContiguousArray<Int32> { core.installed }
    public var timeline: Timeline { core.timeline }
    public var apps: AppTable { core.apps }
    public var availableKB: Int64 { core.availableKB }
    public var front: Int32 { core.front }
    public var ui: UIState { core.ui }
    public var poweredOff: Bool { core.poweredOff }
    public var refusedActions: Int { core.refusedActions }
    public var policy: Policy {
        get { core.policy }
        _modify { yield &core.policy }
    }
    public var trace: Trace {
        get { core.trace }
        _modify { yield &core.trace }
    }
    public var metrics: DeviceMetrics {
        get { core.metrics }
        _modify { yield &core.metrics }
    }
    public var relaunchLatencyByKind: RelaunchKindLatencies {
        get { core.relaunchLatencyByKind }
        _modify { yield &core.relaunchLatencyByKind }
    }
    public var byArchetype: ContiguousArray<DeviceMetrics> {
        get { core.byArchetype }
        _modify { yield &core.byArchetype }
    }
    public var archetypeOf: ContiguousArray<Int32> {
        get { core.archetypeOf }
        set { core.archetypeOf = newValue }
    }
    public var checksInvariants: Bool {
        get { core.checksInvariants }
        set { core.checksInvariants = newValue }
    }

    /// The next input's time: the next user action, or the next system launch or wake
    /// if earlier (at the same time the user goes first), or the held suspension timer
    /// (`heldApp`) if no later than both. The engine interleaves the inputs with the
    /// device's timers (see `EventHandler.nextInputTime`).
    /// Read once per engine step, so kept in `inputTime` (`refreshInputTime`), not
    /// recomputed from its five inputs each time.
    public var nextInputTime: SimTime? {
        assert(core.inputTime == core.computedInputTime, "the cached next input time is stale")
        return core.inputTime < .never ? core.inputTime : nil
    }

    /// A run starts: the app records are made unique once for all its events
    /// (`EventHandler.beginRun`; `handle` and `handleInput` then skip the check). Only
    /// the run's loop calls them until `endRun`, and nothing copies the device while
    /// it runs; debug builds still assert uniqueness at every write (`AppTable`).
    public mutating func beginRun() {
        core.beginRun()
        android.uncompressed.beginRun()
    }

    /// The run ended: each event checks uniqueness again (a lone `Simulation.step`).
    public mutating func endRun() {
        core.endRun()
        android.uncompressed.endRun()
    }

    public func isCancelled(_ e: DeviceEvent) -> Bool {
        // The sustained-pressure and idle-daemon timers belong to no app (their handlers
        // skip a stale one); the kind is read only when app 0's stamp does not match
        // (not per live timer).
        return core.apps[Int(e.app)].generation(e.slotFamily) != UInt16(truncatingIfNeeded: e.stamp) && !e.kind.isDeviceTimer
    }

}
