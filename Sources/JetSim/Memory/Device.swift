#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// One device: its apps, memory, the user's view and an eviction policy. Runs on the
/// engine as its `EventHandler`; generic over the policy and the trace sink, so the
/// event loop is specialised for each (no existential or closure per event).
///
/// Declared here, in Memory/, because it holds each memory manager's state and
/// parameters beside the core's: the core's functions (Device/) see it only as a
/// `DeviceCore`, the managers (Memory/) and the lifecycle (Lifecycle/, the top)
/// extend it (docs/layout.md, "The device's parts").
///
/// Memory invariant: `availableKB + Σ residentKB + idle daemons + osReserveKB == ramKB`, checked
/// when `checksInvariants` is set: after every event on a device of up to 64 apps,
/// every apps/64 events on a larger one (`checkInvariantsAmortised`).
public struct Device<Policy: EvictionPolicy, Trace: TraceSink>: EventHandler, DeviceCore {
    public typealias Event = DeviceEvent

    // Inputs.
    /// The profiles apps point into (a catalog shared by a fleet, or a scenario's apps).
    public var profiles: ContiguousArray<AppProfile> = []
    /// The profile of each app on this device (an index into `profiles`).
    public var installed: ContiguousArray<Int32> = []
    public var params = DeviceParameters() { didSet { kb = DeviceThresholds(params) } }
    /// The thresholds `params` derives (`DeviceThresholds`), kept in step with it.
    var kb = DeviceThresholds(DeviceParameters())
    /// Set by `reset` only: the kept next input time (`inputTime`) follows it.
    public internal(set) var timeline = Timeline()
    /// Key of this device's per-app random draws (from seed and device index).
    var drawKey: UInt64 = 0
    /// The ziggurat tables of the device's draws (`drawNextWake`, `lognormal`), read
    /// once (`ZigguratTable.exponential` and `.normal` are calls into SimKernel;
    /// docs/performance.md, pass 9). The same constant tables: the same draws.
    let exponentialTable = ZigguratTable.exponential
    let normalTable = ZigguratTable.normal

    // State.
    /// The app records, by app index (`AppTable`: made unique once a run, or once an
    /// event outside a run, then written without a uniqueness check per write).
    public internal(set) var apps = AppTable()
    public var policy = Policy()
    public var trace: Trace
    public var metrics = DeviceMetrics()
    /// Relaunch latencies by relaunch kind; the runner swaps in its accumulator's for
    /// the run. The kinds partition relaunches, so all of them are the kinds merged
    /// (`RelaunchKindLatencies.total`): each relaunch is recorded once.
    public var relaunchLatencyByKind = RelaunchKindLatencies()
    /// `--by archetype`: launches, relaunches, cold relaunches, kills and data loss
    /// counted again per archetype of the app (`byArchetype[archetypeOf[profile]]`).
    /// Empty (the default): not counted. The runner lends both for a run.
    public var byArchetype = ContiguousArray<DeviceMetrics>()
    public var archetypeOf = ContiguousArray<Int32>()
    public internal(set) var availableKB: Int64 = 0
    /// Apps executing code (active, inactive, background), in the order they started:
    /// few at a time, so warnings and broadcasts go through this list, not all apps.
    var running = ContiguousArray<Int32>()
    /// Apps suspended now (32 bits, beside the next system arrival's app: the device
    /// stays under its size bound, `FixedOverheadTests`).
    var suspendedApps: Int32 = 0
    @inline(__always) var suspendedCount: Int {
        get { Int(suspendedApps) }
        set { suspendedApps = Int32(truncatingIfNeeded: newValue) }
    }
    /// The next system arrival's app (`nextWake`).
    var nextWakeApp: Int32 = -1
    /// The app the user was in before the current one (-1: none), on every OS: the
    /// policies read it from the candidate (`isPrevious`), Android holds it at adj 700.
    var previousApp: Int32 = -1
    /// Broadcast events' latest values, by kind.
    var broadcastLatest = ContiguousArray<UInt8>(repeating: 0, count: SystemEventKind.count)
    /// The totals of broadcast events (to every app) by kind after each broadcast (five
    /// per entry; entry 0 is all zeros; the last entry is the totals so far): what a
    /// suspended app missed since its mark is `last - history[mark]`, without ever
    /// visiting suspended apps when an event is broadcast.
    var broadcastHistory = ContiguousArray<UInt32>()
    /// The app in front (-1: none).
    public internal(set) var front: Int32 = -1
    /// The app room is being made for (-1: none): a launch, from its removal from the
    /// candidates to the front (its dock update re-evaluates the triggers too), or a
    /// system launch, wake or growth step while `makeRoom` runs. Reclaim spares it, no
    /// warning reaches it, and `refreshCandidate` never makes it a candidate again.
    var launching: Int32 = -1
    /// What covers the screen (`UIState`: the one source of truth the scenario parser
    /// also checks against).
    public internal(set) var ui = UIState()
    /// Actions `ui` refused (none from a scenario, which the parser checked, or from the
    /// synthetic user and the replay, which produce none).
    public internal(set) var refusedActions = 0
    public var poweredOff: Bool { ui.poweredOff }
    /// The timeline index of the next user action.
    var nextAction = 0
    /// Memory warnings were sent and available memory has not recovered since.
    var warned = false
    /// Verify the memory invariant (tests, scenarios, traces): after every event, or
    /// amortised on a device of many apps (`checkInvariantsAmortised`).
    public var checksInvariants = false
    /// The freezer thread ran with a throttle (`freezerRun`, a non-zero delay): it is
    /// due again at `freezerNextRun`, where `freezerCatchUp` runs it if its conditions
    /// hold then (XNU's page counts keep moving, so its thread gets that chance
    /// whether or not an event comes). In the padding after the flags above.
    var freezerDue = false
    /// The next system arrival's kind (`nextWake`; in the padding here).
    var nextWakeKind = SystemWakeKind.silentPush
    /// An input (user action, system arrival) is being handled: only then may a
    /// suspension timer be held (`heldApp`; in the padding here).
    var inInput = false
    /// A run holds the app records (`beginRun`): made unique when it started, so its
    /// events skip the check (in the padding here).
    var appsHeld = false
    /// Events since the whole-device check last ran (`checkInvariantsAmortised`; in
    /// the padding here).
    var eventsSinceInvariantCheck: UInt16 = 0
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
    /// The app whose suspension timer is held (`heldDue`), or -1; here, in the
    /// padding after the Int32 above.
    var heldApp: Int32 = -1
    /// Idle-band (0) apps in the order they entered it (list 0): the reaper's and the
    /// freezer's order (oldest idle first), whatever the policy; and frozen-band (75)
    /// apps in the order they entered it (list 1): the demotions' order. XNU keeps each
    /// band as a list and appends an app that enters it at the tail
    /// (bsd/kern/kern_memorystatus.c:2918-2922, memstat_update_priority_locked).
    /// Read through `idleOrder`: a policy whose own index is this order
    /// (`EvictionPolicy.ordersIdleBands`: jetsam-bands) lends it, and this copy is
    /// not kept.
    var ownIdleOrder = MultiList(lists: 2)
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
    /// System launches and wakes (issue 14): one Poisson stream per device at the sum
    /// of its apps' rates, each arrival given to an (app, kind) pair in proportion to
    /// its rate by an alias table (`WakeColumn`): element 0 is a header whose `cut`
    /// holds the total rate per day, then one column per pair with a positive rate.
    /// Reused across devices.
    var wakeTable = ContiguousArray<WakeColumn>()
    /// The next arrival (`.never`: none), its app and kind, and how many came before.
    var nextWake = SimTime.never
    /// A suspension timer (`suspendDue`) held here instead of in the event queue, and
    /// when it is due (`heldApp` -1: none). Held only while the queue is empty, and put
    /// into the queue before anything else is scheduled (`scheduleTimer`), so it keeps
    /// its place: it fires as the next input when due, before a user action or system
    /// arrival at the same time. The queued timer would have come first too, as it is
    /// held only when made while an input is handled (`inInput`): the engine counts
    /// the inputs after it as scheduled later (`Simulation.next`); one made by a
    /// timer's handler would go after the next input at its time, so it is queued.
    /// Replay's plain devices (no background work, saves, growth or aging) schedule
    /// nothing else, so most of their timers never touch the heap: a push and a pop a
    /// use saved.
    var heldDue = SimTime.zero
    var wakeCount: UInt64 = 0
    /// `nextInputTime` (`.never`: none), kept up to date by `refreshInputTime` (8
    /// bytes: the device dropped its broadcast totals' array, the last entry of
    /// `broadcastHistory`, for them).
    var inputTime = SimTime.never

    public init(trace: Trace) { self.trace = trace }

    /// The knobs the core reads (`DeviceCore`): from the parameters.
    @inline(__always) var pageCacheWindow: SimTime { params.pageCacheWindow }
    @inline(__always) var suspendedCompressionRatio: Double { params.suspendedCompressionRatio }

    /// The next input's time: the next user action, or the next system launch or wake
    /// if earlier (at the same time the user goes first), or the held suspension timer
    /// (`heldApp`) if no later than both. The engine interleaves the inputs with the
    /// device's timers (see `EventHandler.nextInputTime`).
    /// Read once per engine step, so kept in `inputTime` (`refreshInputTime`), not
    /// recomputed from its five inputs each time.
    public var nextInputTime: SimTime? {
        assert(inputTime == computedInputTime, "the cached next input time is stale")
        return inputTime < .never ? inputTime : nil
    }

    /// A run starts: the app records are made unique once for all its events
    /// (`EventHandler.beginRun`; `handle` and `handleInput` then skip the check). Only
    /// the run's loop calls them until `endRun`, and nothing copies the device while
    /// it runs; debug builds still assert uniqueness at every write (`AppTable`).
    public mutating func beginRun() {
        apps.makeUnique()
        appsHeld = true
        // The idle order and the policy's lists likewise (`MultiList.beginRun`).
        policy.beginRun()
        ownIdleOrder.beginRun()
        android.uncompressed.beginRun()
    }

    /// The run ended: each event checks uniqueness again (a lone `Simulation.step`).
    public mutating func endRun() {
        appsHeld = false
        policy.endRun()
        ownIdleOrder.endRun()
        android.uncompressed.endRun()
    }

    /// At the top of each event (`handle`, `handleInput`): the event's one uniqueness
    /// check of the app records (`AppTable`), unless a run holds them (`beginRun`).
    @inline(__always) mutating func holdApps() {
        if !appsHeld { apps.makeUnique() }
    }

    public func isCancelled(_ e: DeviceEvent) -> Bool {
        // The sustained-pressure and idle-daemon timers belong to no app (their handlers
        // skip a stale one); the kind is read only when app 0's stamp does not match
        // (not per live timer).
        return apps[Int(e.app)].generation(e.slotFamily) != UInt16(truncatingIfNeeded: e.stamp) && !e.kind.isDeviceTimer
    }
}
