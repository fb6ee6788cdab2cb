import SimKernel

/// The device's core: the app records, the memory ledger, the timers, the inputs, the
/// candidates, the policy, the trace and the counters, with their functions (the
/// extensions in Device/). It knows no memory manager: where it needs a manager's
/// answer (a candidate's band, what a relaunch would cost) the caller passes it in, so
/// the core never calls a manager. The device (`Device`, Lifecycle/Device.swift) holds
/// one core beside its memory manager; the tests also run a core alone
/// (`DeviceCoreTests`). Generic over the policy and the trace sink, as the device is,
/// so a release build's event loop is specialised for each.
public struct DeviceCore<Policy: EvictionPolicy, Trace: TraceSink> {

    // Inputs.
    /// The profiles apps point into (a catalog shared by a fleet, or a scenario's apps).
    public var profiles: ContiguousArray<AppProfile> = []
    /// The profile of each app on this device (an index into `profiles`).
    public var installed: ContiguousArray<Int32> = []
    public internal(set) var params = CoreParameters()
    /// The thresholds `params` derives (`DeviceThresholds`), kept in step with it.
    var kb = DeviceThresholds(CoreParameters(), appLimitKB: CoreParameters().perAppLimitKB)
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
    /// `--by app`: each relaunch's latency counted again for the app's group (its sum
    /// in `byArchetype`, the value here). Empty (the default, and `--by archetype`):
    /// not counted. Lent by the runner, as `byArchetype`.
    public var byArchetypeLatency = ContiguousArray<LatencyHistogram>()
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
    /// Verify the memory invariant (tests, scenarios, traces): after every event, or
    /// amortised on a device of many apps (`checkInvariantsAmortised`).
    public var checksInvariants = false
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
    /// The app whose suspension timer is held (`heldDue`), or -1; here, in the
    /// padding after the Int32 above.
    var heldApp: Int32 = -1
    /// Idle-band (0) apps in the order they entered it (list 0): the reaper's and the
    /// freezer's order (oldest idle first), whatever the policy; and frozen-band (75)
    /// apps in the order they entered it (list 1): the demotions' order; and the aging
    /// band (20, list 2) in entry order: the freezer's candidates after the idle band's
    /// (FREEZE_MAX_CANDIDATE_BAND is AGING_BAND2 on iOS). XNU keeps each
    /// band as a list and appends an app that enters it at the tail
    /// (bsd/kern/kern_memorystatus.c:2918-2922, memstat_update_priority_locked).
    /// Read through `idleOrder`: a policy whose own index is this order
    /// (`EvictionPolicy.ordersIdleBands`: jetsam-bands) lends it, and this copy is
    /// not kept.
    var ownIdleOrder = MultiList(lists: 3)
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

    /// A run starts: the app records and the policy's lists are made unique once for
    /// all its events (`Device.beginRun`).
    mutating func beginRun() {
        apps.makeUnique()
        appsHeld = true
        policy.beginRun()
        ownIdleOrder.beginRun()
    }

    /// The run ended: each event checks uniqueness again.
    mutating func endRun() {
        appsHeld = false
        policy.endRun()
        ownIdleOrder.endRun()
    }

    /// At the top of each event (`handle`, `handleInput`): the event's one uniqueness
    /// check of the app records (`AppTable`), unless a run holds them (`beginRun`).
    @inline(__always) mutating func holdApps() {
        if !appsHeld { apps.makeUnique() }
    }
}

/// Purposes of per-app and per-device random draws (`DeviceCore.appDraws`,
/// `deviceDraws`): each purpose its own sequence.
enum Draw {
    static let backgroundTask: UInt64 = 1
    static let modeActivity: UInt64 = 2
    static let launchJitter: UInt64 = 3
    static let systemWake: UInt64 = 4
    static let prewarmTarget: UInt64 = 5
    static let idleDaemon: UInt64 = 6
}

extension DeviceCore {
    /// `nextInputTime` from its inputs (`.never`: none): the earliest of the next user
    /// action, the next system arrival and, if one is held, the suspension timer. The
    /// order at equal times is `handleInput`'s, which reads the inputs themselves.
    @inline(__always) var computedInputTime: SimTime {
        let user = nextAction < timeline.actions.count ? timeline.actions[nextAction].time : SimTime.never
        let t = min(user, nextWake)
        return heldApp >= 0 ? min(heldDue, t) : t
    }

    /// Stores `computedInputTime` in `inputTime`: after every change of the next user
    /// action, the next system arrival or the held timer (`reset`, `handleInput`,
    /// `queueHeldTimer`, `dropHeldTimer`; a timer held during an input waits for the
    /// input's own refresh); `checkMemoryInvariant` and debug builds' reads check it.
    @inline(__always) mutating func refreshInputTime() { inputTime = computedInputTime }
}
