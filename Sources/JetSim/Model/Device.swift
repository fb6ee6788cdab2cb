#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// One app's state on one device. A plain struct in a contiguous array, indexed by
/// the app's index on the device: 80 bytes, laid out so that with its timer stamps,
/// its installed-app entry and its share of any policy's index it stays under 128
/// bytes (`Device.stateBytes`).
public struct AppRuntime: Sendable, Equatable {
    public var state: AppState = .notRunning
    @usableFromInline var flags: UInt8 = 0
    /// The reason of the last kill (raw value), or `noKill`; cleared by a launch.
    @usableFromInline var lastKill: UInt8 = AppRuntime.noKill
    /// Its XNU jetsam band (priority) while a candidate (`Device.xnuBand`).
    public internal(set) var band: UInt8 = 0
    /// Held (coalesced) system events: count and latest value per kind.
    @usableFromInline var held = HeldEvents()
    /// Thaws since it was last frozen from scratch (saturating), and the freezer's
    /// marks (`hasFlashCopy`, `demoted`): in the bytes after `held`.
    @usableFromInline var thaws: UInt8 = 0
    @usableFromInline var freezerMarks: UInt8 = 0
    /// Resident memory now, KiB (32 bits: up to 2 TiB).
    @usableFromInline var resident: Int32 = 0
    /// Launches on this device so far.
    public var launches: UInt32 = 0
    /// The number of broadcast events when it was suspended: it has missed the ones
    /// after (see `Device.broadcast`).
    @usableFromInline var broadcastMark: UInt32 = 0
    /// Trips to the background so far, modulo 2^16 (keys its per-trip random draws).
    @usableFromInline var backgroundEntries: UInt16 = 0
    /// Timer generations (lazy cancellation, as the engine's `GenerationTable` does,
    /// kept here so a timer costs no separate array): background work, save, periodic.
    @usableFromInline var generations: (UInt16, UInt16, UInt16) = (0, 0, 0)
    /// Its suspended footprint after compression (`Device.suspendedResidentKB`, clamped
    /// to 32 bits as `resident` is), set at reset and kept across kills: compression
    /// reads it per event, and recomputing it cost a division and a libm `round`.
    /// In the padding before `stateTime` (the record stays 96 bytes).
    @usableFromInline var packedKB: Int32 = 0
    /// When the current state's clock started: when it became active (unsaved work
    /// accrues while active), or, in the background, the time before which it is not
    /// suspended (didEnterBackground + the grace); while not running, when it was
    /// killed (`Device.filesCached`). One field: the three never overlap.
    @usableFromInline var stateTime: SimTime = .zero
    /// Active time whose edits are not saved yet, in microseconds.
    public var unsavedMicros: Int64 = 0
    /// The unsaved amount the save in flight will clear when it completes.
    @usableFromInline var saveSnapshot: Int64 = 0
    /// When the user last left it.
    public var lastUsed: SimTime = .zero
    /// When the user will next bring it to the front (oracle only).
    @usableFromInline var nextUse: SimTime = .never

    static let noKill: UInt8 = 0xFF
    @usableFromInline static let bgTask: UInt8 = 1, modeActive: UInt8 = 2, saveInFlight: UInt8 = 4
    /// Frozen (its memory on flash), in the dock, its memory in the compressor.
    @usableFromInline static let frozen: UInt8 = 8, inDock: UInt8 = 16, compressed: UInt8 = 32
    /// Notified in the current pressure-warning round; over its inactive (soft) limit.
    @usableFromInline static let pressureNotified: UInt8 = 64, overSoftLimit: UInt8 = 128
    /// Freezer marks: frozen once, its state still on flash (XNU's P_MEMSTAT_FROZEN,
    /// kept through thaws until it exits; a refreeze writes only what it dirtied);
    /// demoted from the frozen band to the idle band.
    @usableFromInline static let hasFlashCopy: UInt8 = 1, demoted: UInt8 = 2
    /// A termination is committed (issue 14): an exits-on-suspend exit after its
    /// didEnterBackground, or the watchdog for a didEnterBackground that overran. The
    /// user tapping the app again does not cancel it (`Device.launch`).
    /// In `freezerMarks` (the flags byte is full); a termination resets the record.
    @usableFromInline static let exitCommitted: UInt8 = 4, watchdogCommitted: UInt8 = 8
    /// In `freezerMarks`: its memory is still being compressed (`Device.compressing`);
    /// `resident` then holds its uncompressed size at suspension and `stateTime` when
    /// it was suspended (Device+XNU, "Compression over time").
    @usableFromInline static let compressing: UInt8 = 16
    /// In `freezerMarks`: a prewarmed process (iOS 15, `Device.prewarm`): state
    /// `suspended`, stopped before main, no delegate message yet.
    @usableFromInline static let prewarmed: UInt8 = 32
    @inlinable var isPrewarmed: Bool { freezerMarks & Self.prewarmed != 0 }
    /// In `freezerMarks`: resumed since it was frozen, its state still on flash:
    /// XNU's P_MEMSTAT_REFREEZE_ELIGIBLE (bsd/kern/kern_memorystatus.c:3793-3796).
    @usableFromInline static let refreezeEligible: UInt8 = 64
    public var isFrozen: Bool { has(Self.frozen) }

    /// Being compressed since `t` (`Device.startCompressing`). The two writes in one
    /// method: one access to the record, one uniqueness check of the device's array.
    @inlinable mutating func markCompressing(since t: SimTime) {
        stateTime = t
        freezerMarks |= Self.compressing
    }
    /// Out of the compressor, holding `kb` (`Device.leaveCompressorNow`): one access.
    @inlinable mutating func leaveCompressor(residentKB kb: Int64) {
        clear(Self.compressed)
        residentKB = kb
    }
    /// Holds `kb` from now; returns what that frees (`Device.setResident` adds it to
    /// available memory).
    @inlinable @inline(__always) mutating func replaceResident(_ kb: Int64) -> Int64 {
        let freed = residentKB - kb
        residentKB = kb
        return freed
    }
    /// Adds the active time since `activeSince` to the unsaved work
    /// (`Device.accrueUnsaved`, for an active app).
    @inlinable @inline(__always) mutating func accrueActive(until now: SimTime) {
        unsavedMicros += (now - activeSince).microseconds
        activeSince = now
    }

    @inlinable func has(_ f: UInt8) -> Bool { flags & f != 0 }
    @inlinable mutating func set(_ f: UInt8) { flags |= f }
    @inlinable mutating func clear(_ f: UInt8) { flags &= ~f }

    /// Resident memory now, KiB.
    public var residentKB: Int64 {
        @inlinable get { Int64(resident) }
        @inlinable set { resident = Int32(newValue) }
    }
    /// When it last became active (meaningful while active).
    @inlinable var activeSince: SimTime {
        get { stateTime }
        set { stateTime = newValue }
    }
    /// Not suspended before this (meaningful while in the background).
    @inlinable var suspendNotBefore: SimTime {
        get { stateTime }
        set { stateTime = newValue }
    }

    public init() {}

    /// The current generation of a timer family (0 background, 1 save, 2 periodic).
    @inlinable func generation(_ family: Int) -> UInt16 {
        family == 0 ? generations.0 : family == 1 ? generations.1 : generations.2
    }

    /// Makes every pending timer of a family stale.
    @inlinable mutating func cancel(_ family: Int) {
        switch family {
        case 0: generations.0 &+= 1
        case 1: generations.1 &+= 1
        default: generations.2 &+= 1
        }
    }

    public static func == (a: AppRuntime, b: AppRuntime) -> Bool {
        a.state == b.state && a.flags == b.flags && a.lastKill == b.lastKill && a.band == b.band && a.held == b.held
            && a.resident == b.resident && a.launches == b.launches && a.broadcastMark == b.broadcastMark
            && a.backgroundEntries == b.backgroundEntries && a.generations == b.generations
            && a.thaws == b.thaws && a.freezerMarks == b.freezerMarks && a.packedKB == b.packedKB
            && a.stateTime == b.stateTime && a.unsavedMicros == b.unsavedMicros && a.saveSnapshot == b.saveSnapshot
            && a.lastUsed == b.lastUsed && a.nextUse == b.nextUse
    }
}

/// System events held for a suspended app: per kind, how many arrived and the latest
/// value. Fixed size (15 bytes): nothing allocated per event.
public struct HeldEvents: Sendable, Equatable {
    /// 32 bits per kind: exact for every run the schema accepts (a synthetic device
    /// makes at most `Workload.maxActionsPerDevice`, 50 million, actions; a scenario
    /// at most `Scenario.maxNotifiesPerApp` notifies to one app). Issue 11: 16 bits
    /// saturated silently past 65,535 held events.
    @usableFromInline var counts: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0)
    /// Last, so the record's next fields fill the 3 bytes after them (25 bytes, not 28).
    @usableFromInline var values: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)

    public init() {}

    @inlinable public func count(_ k: SystemEventKind) -> Int {
        switch k.rawValue {
        case 0: Int(counts.0)
        case 1: Int(counts.1)
        case 2: Int(counts.2)
        case 3: Int(counts.3)
        default: Int(counts.4)
        }
    }

    @inlinable public func value(_ k: SystemEventKind) -> Int32 {
        switch k.rawValue {
        case 0: Int32(values.0)
        case 1: Int32(values.1)
        case 2: Int32(values.2)
        case 3: Int32(values.3)
        default: Int32(values.4)
        }
    }

    /// Holds one more event of kind `k` with `value` (the latest value wins; values
    /// are interned ids below 256).
    @inlinable public mutating func hold(_ k: SystemEventKind, value: Int32) {
        let v = UInt8(clamping: value)
        switch k.rawValue {
        case 0: counts.0 &+= counts.0 < .max ? 1 : 0; values.0 = v
        case 1: counts.1 &+= counts.1 < .max ? 1 : 0; values.1 = v
        case 2: counts.2 &+= counts.2 < .max ? 1 : 0; values.2 = v
        case 3: counts.3 &+= counts.3 < .max ? 1 : 0; values.3 = v
        default: counts.4 &+= counts.4 < .max ? 1 : 0; values.4 = v
        }
    }

    /// Every held event, all kinds.
    @inlinable public var total: Int {
        Int(counts.0) + Int(counts.1) + Int(counts.2) + Int(counts.3) + Int(counts.4)
    }

    @inlinable public static func == (a: HeldEvents, b: HeldEvents) -> Bool {
        a.counts == b.counts && a.values == b.values
    }
}

/// A device timer event: a small plain struct with a generation stamp, so that
/// cancelled ones are skipped. (User actions are not events: the engine takes the
/// timeline as the device's input stream.)
public struct DeviceEvent: Sendable {
    public enum Kind: UInt8, Sendable {
        /// The background grace ended: suspend if no work is left.
        case suspendDue
        /// The background task finished its work.
        case bgTaskDone
        /// The background task's allowance ran out with work unfinished.
        case bgTaskExpired
        /// The background mode's activity ended.
        case modeEnded
        /// didEnterBackground overran its limit.
        case watchdogKill
        /// An exits-on-suspend app's didEnterBackground returned.
        case exitOnSuspend
        /// A save completed.
        case saveDone
        /// Time for a periodic save.
        case periodicSave
        /// The app's time in the aging band is over: to the idle (or dock) band.
        case agingEnded
        /// The app in front grows one step toward its peak.
        case grow
    }

    public var kind: Kind
    public var app: Int32
    public var stamp: UInt32

    @inlinable init(_ kind: Kind, app: Int32, stamp: UInt32 = 0) {
        self.kind = kind
        self.app = app
        self.stamp = stamp
    }

    /// The timer slot family of an app timer: background work, save, periodic save.
    @inlinable var slotFamily: Int {
        switch kind {
        case .saveDone: 1
        case .periodicSave, .grow: 2
        default: 0
        }
    }
}

/// The KiB thresholds a device's parameters derive (each a share of RAM: a
/// floating-point product and a checked conversion per read), computed once when the
/// parameters are set, since the triggers read them after every memory change. Each
/// equals the `DeviceParameters` property of the same name.
struct DeviceThresholds: Sendable {
    let warningKB, criticalKB, killTargetKB, perAppLimitKB, reaperKB, freezeKB, compressorPoolKB, inactiveLimitKB: Int64
    let pressureWarningKB, pressureWarningClearKB, pressureCriticalKB, pressureCriticalClearKB: Int64
    let compressionChunkPackedKB: Int64
    /// The largest pool (physical KiB) not short of space: the pool is short
    /// (`compressorInputKB(pool) > compressorShortageKB`) exactly when it holds more
    /// than this (`compressorShortPoolKB`), so the triggers compare integers instead
    /// of converting the pool to a Double and back at every change.
    let compressorShortPoolKB: Int64

    init(_ p: DeviceParameters) {
        warningKB = p.warningKB; criticalKB = p.criticalKB; killTargetKB = p.killTargetKB; perAppLimitKB = p.perAppLimitKB
        reaperKB = p.reaperKB
        freezeKB = p.freezeKB; compressorPoolKB = p.compressorPoolKB; inactiveLimitKB = p.inactiveLimitKB
        pressureWarningKB = p.pressureWarningKB; pressureWarningClearKB = p.pressureWarningClearKB
        pressureCriticalKB = p.pressureCriticalKB; pressureCriticalClearKB = p.pressureCriticalClearKB
        compressionChunkPackedKB = p.compressionChunkPackedKB
        compressorShortPoolKB = Self.compressorShortPoolKB(p)
    }

    /// The largest pool `kb` >= 0 with `compressorInputKB(kb) <=
    /// compressorShortageKB` (-1 when even an empty pool is over it; `.max` when no
    /// pool is). The input is monotone in the pool (a product by a ratio >= 1, rounded,
    /// capped and truncated: each step keeps the order), so the pools over the level
    /// are exactly those above this one; found by bisection (64 steps, once a reset).
    static func compressorShortPoolKB(_ p: DeviceParameters) -> Int64 {
        let level = p.compressorShortageKB
        let input = { (kb: Int64) in compressorInputKB(kb, ratio: p.suspendedCompressionRatio) }
        if input(0) > level { return -1 }
        if input(.max) <= level { return .max }
        var lo: Int64 = 0, hi: Int64 = .max  // input(lo) <= level < input(hi)
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if input(mid) <= level { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// The uncompressed size of what a pool of `kb` KiB holds (its compressed pages) at
    /// a compression ratio.
    @inline(__always) static func compressorInputKB(_ kb: Int64, ratio: Double) -> Int64 {
        Int64(min(Double(kb) * max(1, ratio), 9e18))
    }

    /// The idle level (the kill target), as `DeviceParameters.idleKB`.
    var idleKB: Int64 { killTargetKB }
}

/// One device: its apps, memory, the user's view and an eviction policy. Runs on the
/// engine as its `EventHandler`; generic over the policy and the trace sink, so the
/// event loop is specialised for each (no existential or closure per event).
///
/// Memory invariant: `availableKB + Σ residentKB + osReserveKB == ramKB`, checked
/// after every event when `checksInvariants` is set.
public struct Device<Policy: EvictionPolicy, Trace: TraceSink>: EventHandler {
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
    /// once: `ZigguratTable.exponential` and `.normal` are calls into SimKernel, about
    /// 9 instructions a draw with the call. The same constant tables: the same draws.
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
    /// Broadcast events' latest values, by kind.
    var broadcastLatest = ContiguousArray<UInt8>(repeating: 0, count: SystemEventKind.count)
    /// The totals of broadcast events (to every app) by kind after each broadcast (five
    /// per entry; entry 0 is all zeros; the last entry is the totals so far): what a
    /// suspended app missed since its mark is `last - history[mark]`, without ever
    /// visiting suspended apps when an event is broadcast.
    var broadcastHistory = ContiguousArray<UInt32>()
    /// The app in front (-1: none).
    public internal(set) var front: Int32 = -1
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
    /// Verify the memory invariant after every event (tests).
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
    /// The reaper sweeps no earlier than this, in whole seconds (rounded up).
    var nextReaperSweepS: Int32 = 0
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
    /// The dock: the device's most-launched apps (at most `params.dockSize`).
    var dock = ContiguousArray<Int32>()
    /// The compressor pool now (physical KiB: what compressed apps keep resident).
    public internal(set) var compressorKB: Int64 = 0
    /// When the pool last changed (for its time integral; its peak is the counter).
    var compressorSince: SimTime = .zero
    /// What the freezer wrote on its budget day.
    var flashTodayKB: Int64 = 0
    /// Apps whose memory is being compressed now (Device+XNU, "Compression over time"),
    /// the last whole second credited to them, and the first second at which one of
    /// them may be done (a lower bound: `.max` when none).
    var compressing = ContiguousArray<CompressingApp>()
    var compressTick: Int64 = 0
    var compressNextDone: Int64 = .max
    /// The pool's size once every app in it is fully compressed (the pool's bound is
    /// checked against this).
    var compressorCommittedKB: Int64 = 0
    /// The compressor holds more than its shortage level (`compressorKB >
    /// kb.compressorShortPoolKB`, pool not empty): set where the pool changes, read by
    /// `pressureCheck` after every memory change.
    var compressorShort = false
    /// XNU's pressure level from compressor occupancy (`XNUPressure`).
    public internal(set) var pressureLevel: UInt8 = 0
    /// Apps flagged over their inactive (soft) limit out of front.
    var overSoftLimitCount: Int32 = 0
    /// No pressure warnings before this (the resting period; .zero: due now).
    var warningRestUntil: SimTime = .zero
    /// Sustained-pressure kills are due at this time (.never: not armed).
    var sustainedDue: SimTime = .never
    /// Android's state (`os: android`; Device+Android.swift).
    var android = AndroidState()
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

    /// Purposes of per-app random draws.
    static var drawBackgroundTask: UInt64 { 1 }
    static var drawModeActivity: UInt64 { 2 }
    static var drawLaunchJitter: UInt64 { 3 }
    static var drawSystemWake: UInt64 { 4 }
    static var drawPrewarmTarget: UInt64 { 5 }

    /// Prepares the device for a run, reusing every buffer: `installed` apps (indices
    /// into `profiles`), parameters, the timeline, and the policy's context.
    public mutating func reset(profiles: ContiguousArray<AppProfile>, installed: ContiguousArray<Int32>,
                               params: DeviceParameters, timeline: Timeline, context: PolicyContext) {
        self.profiles = profiles
        self.installed = installed
        self.params = params
        self.timeline = timeline
        drawKey = SplitMix64.mix(context.seed ^ SplitMix64.mix(context.device &+ 0xD1CE))
        let n = installed.count
        apps.removeAll()
        apps.append(repeating: AppRuntime(), count: n)
        for a in 0..<min(n, timeline.firstUse.count) { apps[a].nextUse = timeline.firstUse[a] }
        policy.reset(appCount: n, context: context)
        metrics = DeviceMetrics()
        availableKB = params.ramKB - params.osReserveKB
        running.removeAll(keepingCapacity: true)
        suspendedCount = 0
        for k in 0..<SystemEventKind.count { broadcastLatest[k] = 0 }
        broadcastHistory.removeAll(keepingCapacity: true)
        broadcastHistory.append(contentsOf: repeatElement(0, count: SystemEventKind.count))
        front = -1
        ui = UIState()
        refusedActions = 0
        warned = false
        nextAction = 0
        // Unused when the policy's lists are the order (`idleOrder`).
        if !Policy.ordersIdleBands { ownIdleOrder.reset(appCount: n) }
        heldApp = -1
        inInput = false
        dock.removeAll(keepingCapacity: true)
        frozenCount = 0
        flashCopyCount = 0; refreezeEligibleCount = 0
        compressorKB = 0; compressorSince = .zero; compressorShort = false
        compressing.removeAll(keepingCapacity: true)
        for a in 0..<n { apps[a].packedKB = Int32(clamping: suspendedResidentKB(Int(installed[a]))) }
        compressTick = 0; compressNextDone = .max; compressorCommittedKB = 0
        flashDay = 0; flashTodayKB = 0
        freezerNextRun = .zero; freezerDue = false
        nextReaperSweepS = 0
        pressureLevel = 0; overSoftLimitCount = 0
        warningRestUntil = .zero; sustainedDue = .never
        android.reset(appCount: params.android.enabled ? n : 0, thrashingLimit: params.android.thrashingLimitPct)
        buildWakeTable()
        wakeCount = 0
        drawNextWake(after: .zero)
        refreshInputTime()
    }

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
    /// `holdOrQueue` when it queues the held timer, `dropHeldTimer`; a timer held
    /// during an input waits for the input's own refresh); `checkMemoryInvariant` and
    /// debug builds' reads check it.
    @inline(__always) mutating func refreshInputTime() { inputTime = computedInputTime }

    /// Performs the next user action, or the next system launch or wake. Inlined into
    /// `handleInputs`, its one caller in a run: one entry and exit a call of that, not
    /// one an input.
    @inline(__always)
    public mutating func handleInput(scheduler s: inout Scheduler<DeviceEvent>) {
        holdApps()
        if freezerDue && s.now >= freezerNextRun { freezerCatchUp(s.now) }
        inInput = true
        defer { inInput = false }
        if !compressing.isEmpty { advanceCompression(s.now) }
        if heldApp >= 0 && heldDue <= s.now {
            // The held suspension timer (first at its time): as `handle` does
            // `suspendDue`, and as a timer, not an input: a timer its handler made
            // would be queued, not held (`suspendIfIdle` schedules nothing today).
            let app = heldApp
            heldApp = -1
            inInput = false
            suspendIfIdle(app, s.now)
        } else if nextAction < timeline.actions.count && timeline.actions[nextAction].time <= nextWake {
            let i = nextAction
            nextAction += 1
            perform(timeline.actions[i], index: i, &s)
        } else {
            let (app, kind) = (nextWakeApp, nextWakeKind)
            wakeCount &+= 1
            drawNextWake(after: nextWake)
            if !poweredOff {
                if kind == .prewarm {
                    let target = prewarmTarget()
                    if target >= 0 { prewarm(target, s.now) }
                } else {
                    systemWake(app, kind, &s)
                }
            }
        }
        refreshInputTime()
        if checksInvariants { checkMemoryInvariant() }
    }

    /// `handleInput`, then the inputs after it while no timer is queued
    /// (`EventHandler.handleInputs`: exactly what one engine step each would do). A
    /// replay's plain device queues nothing (its only timers, the suspensions, are
    /// held: `heldApp`), so its inputs (Home, the launch, the held suspension) run in
    /// one call, without an engine step each (about 35 instructions an input).
    public mutating func handleInputs(notAfter end: SimTime, limit: Int, scheduler s: inout Scheduler<DeviceEvent>) -> Int {
        var k = 0
        while true {
            handleInput(scheduler: &s)
            k &+= 1
            guard k < limit, s.queue.isEmpty, let t = nextInputTime, t <= end else { return k }
            s.advance(toInput: t)
        }
    }

    /// Draws the next system arrival after `t`: the gap, exponential at the device's
    /// total rate; the (app, kind) pair, in proportion to its rate, from the alias
    /// table in O(1) (Walker 1977; one uniform gives the column and, from its
    /// fraction, the coin, as Walker draws them). Keyed by the arrival's number, so
    /// every policy and RAM size sees the same arrivals.
    mutating func drawNextWake(after t: SimTime) {
        let m = wakeTable.count &- 1
        guard m > 0 else { nextWake = .never; return }
        let total = wakeTable[0].cut
        var g = deviceDraws(Self.drawSystemWake, wakeCount)
        nextWake = t + SimTime(seconds: Exponential.standard(&g, table: exponentialTable) / total * 86_400)
        let u = g.nextUnit() * Double(m)
        let c = min(Int(u), m &- 1)
        let column = wakeTable[1 &+ c]
        if u - Double(c) < column.cut {
            nextWakeApp = column.app; nextWakeKind = column.kind
        } else {
            nextWakeApp = column.aliasApp; nextWakeKind = column.aliasKind
        }
    }

    /// Builds the alias table of the system arrivals (`wakeTable`) by Vose's method
    /// (Vose 1991, "A linear algorithm for generating random numbers with a given
    /// distribution", IEEE TSE 17(9): the small and large work lists), in O(pairs),
    /// with no allocation: the two lists are stacks linked through the columns'
    /// `link`. Column i keeps its own pair with probability `cut`, else gives its
    /// alias's; pair j comes out with probability (cut_j + sum of (1 - cut_i) over
    /// the columns aliased to it) / m = rate_j / total.
    mutating func buildWakeTable() {
        wakeTable.removeAll(keepingCapacity: true)
        wakeTable.append(WakeColumn(cut: 0, app: -1, kind: .location))
        var total = 0.0
        for a in 0..<installed.count {
            let p = Int(installed[a])
            for k in SystemWakeKind.allCases {
                let r = k == .prewarm && !prewarms ? 0 : profiles[p].wakesPerDay(k)
                if r > 0 {
                    total += r
                    wakeTable.append(WakeColumn(cut: r, app: Int32(a), kind: k))
                }
            }
        }
        let m = wakeTable.count - 1
        guard m > 0 else { return }
        wakeTable.withUnsafeMutableBufferPointer { t in
            t[0].cut = total
            let scale = Double(m) / total
            var small: Int32 = -1, large: Int32 = -1
            for c in 1...m {
                t[c].cut *= scale
                if t[c].cut < 1 { t[c].link = small; small = Int32(c) } else { t[c].link = large; large = Int32(c) }
            }
            while small >= 0 && large >= 0 {
                let s = Int(small), l = Int(large)
                small = t[s].link
                t[s].aliasApp = t[l].app
                t[s].aliasKind = t[l].kind
                t[l].cut = (t[l].cut + t[s].cut) - 1
                if t[l].cut < 1 {
                    large = t[l].link
                    t[l].link = small
                    small = Int32(l)
                }
            }
            // Left on either list: 1 up to rounding; they keep their own pair.
            while small >= 0 { let c = Int(small); t[c].cut = 1; small = t[c].link }
            while large >= 0 { let c = Int(large); t[c].cut = 1; large = t[c].link }
        }
    }

    /// The app a prewarm goes to (-1: none). The device prewarms at the sum of its
    /// apps' `prewarmsPerDay` (the arrivals above). iOS prewarms the app it predicts
    /// the user will open; jetsim predicts from the past only (no oracle): the app of
    /// one of the user's launches so far, drawn uniformly (so in proportion to each
    /// app's launches), prewarmed if it is not running (else nothing: the predicted app
    /// is there already). *Assumption*: Apple does not publish its predictor. O(1): up
    /// to 8 draws for a launch among the past actions; keyed by the arrival's number
    /// like the arrivals.
    mutating func prewarmTarget() -> Int32 {
        guard nextAction > 0 else { return -1 }
        var g = deviceDraws(Self.drawPrewarmTarget, wakeCount)
        for _ in 0..<8 {
            let i = min(nextAction - 1, Int(g.nextUnit() * Double(nextAction)))
            let action = timeline.actions[i]
            if action.kind == .launch || action.kind == .switcherPick {
                return apps[Int(action.app)].state == .notRunning ? action.app : -1
            }
        }
        return -1
    }

    /// The device's random numbers for `purpose` (system arrivals, prewarm targets)
    /// at arrival `n`: a SplitMix64 sequence started at a hash of (device key,
    /// purpose, n), so arrival n's draws depend on nothing else (every policy and RAM
    /// size sees the same arrivals) and no generator is kept between arrivals. Two
    /// mixes to start and one per number; a keyed xoshiro256** cost twelve to start.
    /// Sequences for different keys start at independent points of SplitMix64's
    /// 2^64 cycle (Steele, Lea and Flood 2014), so they do not overlap in practice.
    @inline(__always) func deviceDraws(_ purpose: UInt64, _ n: UInt64) -> SplitMix64 {
        SplitMix64(state: SplitMix64.mix(drawKey ^ purpose) &+ SplitMix64.mix(n))
    }

    /// An app's random numbers for `purpose` (background task, mode activity, launch
    /// jitter) at its `n`-th trip or launch, as `deviceDraws`: three mixes to start.
    @inline(__always) func appDraws(_ app: Int32, _ purpose: UInt64, _ n: UInt64) -> SplitMix64 {
        SplitMix64(state: SplitMix64.mix(drawKey ^ SplitMix64.mix(UInt64(UInt32(bitPattern: app)) << 8 | purpose))
                   &+ SplitMix64.mix(n))
    }

    /// Whether this device prewarms: iOS 15 and later (`prewarming`), never Android.
    @inline(__always) var prewarms: Bool { params.prewarming && !params.android.enabled }

    /// The index of an app's profile in `profiles`. The model reads profile fields in
    /// place (`profiles[pi(app)].activeKB`) rather than copying the 170-byte profile.
    @inline(__always) func pi(_ app: Int32) -> Int { Int(installed[Int(app)]) }

    /// `--by archetype`: counts `c` once more for the app's archetype (nothing when off).
    @inline(__always) mutating func countByArchetype(_ app: Int32, _ c: Counter) {
        if byArchetype.isEmpty { return }
        byArchetype[Int(archetypeOf[pi(app)])][c] += 1
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
        return apps[Int(e.app)].generation(e.slotFamily) != UInt16(truncatingIfNeeded: e.stamp)
    }

    public mutating func handle(_ e: DeviceEvent, scheduler s: inout Scheduler<DeviceEvent>) {
        holdApps()
        freezerCatchUpIfDue(s.now)
        if !compressing.isEmpty { advanceCompression(s.now) }
        switch e.kind {
        case .suspendDue:
            suspendIfIdle(e.app, s.now)
        case .bgTaskDone:
            apps[Int(e.app)].clear(AppRuntime.bgTask)
            backgroundWorkChanged(e.app, s.now)
        case .bgTaskExpired:
            // The allowance ran out with work unfinished: the system calls the
            // expiration handler. An app that ends its task there is suspended (if
            // nothing else keeps it running); one that does not is killed (Apple,
            // UIApplication.beginBackgroundTask(expirationHandler:)).
            apps[Int(e.app)].clear(AppRuntime.bgTask)
            send(.expirationHandler, to: e.app, s.now)
            if profiles[pi(e.app)].endsTaskOnExpiry {
                metrics[.bgExpiryEnded] += 1
                backgroundWorkChanged(e.app, s.now)
            } else {
                terminate(e.app, .bgTaskExpired, s.now)
            }
        case .modeEnded:
            apps[Int(e.app)].clear(AppRuntime.modeActive)
            backgroundWorkChanged(e.app, s.now)
        case .watchdogKill:
            terminate(e.app, .watchdog, s.now)
        case .exitOnSuspend:
            send(.willTerminate, to: e.app, s.now)
            saveOnTerminate(e.app)
            terminate(e.app, .exitsOnSuspend, s.now)
        case .saveDone:
            completeSave(e.app, s.now)
        case .grow:
            grow(e.app, &s)
        case .agingEnded:
            let a = Int(e.app)
            if apps[a].state == .background || apps[a].state == .suspended { bandMayChange(e.app, s.now) }
        case .periodicSave:
            let a = Int(e.app)
            if apps[a].state == .active || apps[a].state == .inactive {
                startSave(e.app, s.now, &s)
                scheduleTimer(.periodicSave, e.app, at: s.now + profiles[pi(e.app)].saveInterval, &s)
            }
        }
        if checksInvariants { checkMemoryInvariant() }
    }

    /// Schedules an app timer stamped with the current generation of its slot.
    /// A suspension timer with nothing in the queue is held by the device (`heldApp`);
    /// a held one goes into the queue before anything else is scheduled, so the queue
    /// orders it (time, then sequence) exactly as if it had been pushed when made.
    @inline(__always)
    mutating func scheduleTimer(_ kind: DeviceEvent.Kind, _ app: Int32, at time: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        if heldApp >= 0 || (kind == .suspendDue && inInput && s.queue.isEmpty) {
            holdOrQueue(kind, app, at: time, &s)
            return
        }
        push(kind, app, at: time, &s)
    }

    /// `scheduleTimer`'s rare part, out of line: the held timer goes into the queue
    /// first, or this suspension timer is held.
    mutating func holdOrQueue(_ kind: DeviceEvent.Kind, _ app: Int32, at time: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        if heldApp >= 0 {
            let held = heldApp
            heldApp = -1
            refreshInputTime()
            push(.suspendDue, held, at: heldDue, &s)
        } else {
            precondition(time >= s.now, "an event cannot be scheduled in the past")
            // Only an input holds a timer (`scheduleTimer`), and `handleInput` refreshes
            // the kept input time at its end: no refresh here (a replay holds a timer at
            // every row; the refresh cost it 17 instructions a row).
            assert(inInput, "only an input holds a suspension timer")
            heldApp = app
            heldDue = time
            return
        }
        push(kind, app, at: time, &s)
    }

    @inline(__always) mutating func push(_ kind: DeviceEvent.Kind, _ app: Int32, at time: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        var e = DeviceEvent(kind, app: app)
        e.stamp = UInt32(apps[Int(app)].generation(e.slotFamily))
        s.schedule(e, at: time)
    }

    /// Cancels an app's timers of one family (0 background, 1 save, 2 periodic); a
    /// held suspension timer of the app is dropped (as a queued one would be skipped).
    mutating func cancelTimers(_ app: Int32, family: Int) {
        apps[Int(app)].cancel(family)
        if family == 0 { dropHeldTimer(app) }
    }

    /// The held suspension timer (family 0) is `app`'s: it is cancelled with the rest.
    @inline(__always) mutating func dropHeldTimer(_ app: Int32) {
        if app == heldApp { heldApp = -1; refreshInputTime() }
    }

    /// Checks `available + Σ resident + reserve == RAM` and that nothing is negative;
    /// the compressor pool is exactly what compressed apps keep resident, within its
    /// bound; frozen apps are suspended and keep nothing in RAM.
    public func checkMemoryInvariant() {
        var resident: Int64 = 0
        var pool: Int64 = 0
        var committed: Int64 = 0
        var frozen = 0, flashCopies = 0, eligible = 0
        var inProgress = 0
        precondition(inputTime == computedInputTime, "the cached next input time \(inputTime) is stale: \(computedInputTime)")
        let bands = policy as? JetsamBands  // once, not a cast (and a copy) per app
        for i in apps.indices {
            let a = apps[i]
            if let bands, a.state == .background || a.state == .suspended {
                // A candidate sits in its stored band's list (`refreshCandidateIfBandMoved`).
                precondition(bands.bands.list(of: Int32(i)) == JetsamBands.list(of: a.band),
                             "app \(i) is in band list \(bands.bands.list(of: Int32(i))), its band \(a.band) is list \(JetsamBands.list(of: a.band))")
            }
            if a.freezerMarks & AppRuntime.hasFlashCopy != 0 { flashCopies += 1 }
            if a.freezerMarks & AppRuntime.refreezeEligible != 0 {
                precondition(a.freezerMarks & AppRuntime.hasFlashCopy != 0 && !a.has(AppRuntime.frozen),
                             "app \(i) is refreeze-eligible without its state on flash, or frozen")
                eligible += 1
            }
            // On-demand thaw: what a thawed app did not touch stays on flash; suspended,
            // it holds at most what it touched, packed to its own size; any other app
            // packs to its profile's.
            let thawed = thawedWithFlashCopy(Int32(i))
            let p = pi(Int32(i))
            precondition(a.packedKB == Int32(clamping: thawed ? packedKB(plainKB: thawTouchedKB(p)) : suspendedResidentKB(p)),
                         "app \(i) packs to \(a.packedKB) KiB, not its \(thawed ? "touched share's" : "profile's")")
            if thawed && a.state == .suspended && !a.has(AppRuntime.frozen) {
                precondition(a.residentKB <= thawTouchedKB(p), "thawed app \(i) holds \(a.residentKB) KiB suspended, more than the \(thawTouchedKB(p)) it touched")
            }
            precondition(a.residentKB >= 0, "negative resident memory")
            precondition(a.state.isResident || a.residentKB == 0, "a terminated app holds memory")
            precondition(a.state.isResident || a.flags & (AppRuntime.frozen | AppRuntime.compressed) == 0, "a terminated app is frozen or compressed")
            if a.freezerMarks & AppRuntime.compressing != 0 {
                // Part compressed: what the device credited it so far, never past its end.
                let c = compressionProgress(Int32(i))
                precondition(a.has(AppRuntime.compressed) && a.state == .suspended, "a compressing app is not suspended in the compressor")
                precondition(c.ticks >= 0 && c.ticks <= c.total, "app \(i) compressed \(c.ticks) of its \(c.total) seconds")
                // Its done second, stored when it started, is still what its figures give
                // (`CompressingApp`): nothing changes them while it is compressed.
                let done = compressing.first(where: { $0.app == Int32(i) })?.doneTick
                precondition(done != nil, "app \(i) compresses outside the device's list")
                precondition(done == a.stateTime.microseconds / 1_000_000 + c.total,
                             "app \(i) is listed as done at second \(done!), its figures say \(a.stateTime.microseconds / 1_000_000 + c.total)")
                pool += c.packedKB; committed += c.finalKB; inProgress += 1
                resident += c.residentKB
                continue
            }
            if a.has(AppRuntime.compressed) { precondition(a.state == .suspended, "a running app is compressed"); pool += a.residentKB; committed += a.residentKB }
            if a.has(AppRuntime.frozen) { precondition(a.state == .suspended && a.residentKB == 0, "a frozen app holds RAM"); frozen += 1 }
            resident += a.residentKB
        }
        precondition(inProgress == compressing.count, "\(compressing.count) apps listed as compressing, \(inProgress) are")
        precondition(pool == compressorKB, "compressor pool \(compressorKB) KiB != compressed apps' \(pool) KiB")
        precondition(committed == compressorCommittedKB,
                     "compressor commitments \(compressorCommittedKB) KiB != compressed apps' final \(committed) KiB")
        // zram's bound is in uncompressed KiB; the pool rounds each app to whole KiB.
        precondition(params.android.enabled ? zramStoredKB <= params.android.zramKB + 4 * Int64(apps.count)
                        : compressorKB <= compressorCommittedKB && compressorCommittedKB <= max(params.compressorPoolKB, 0), "compressor pool over its bound")
        precondition(frozen == Int(frozenCount), "frozen count \(frozenCount) != \(frozen)")
        precondition(flashCopies == Int(flashCopyCount) && eligible == Int(refreezeEligibleCount),
                     "freezer counts \(flashCopyCount)/\(refreezeEligibleCount) != \(flashCopies)/\(eligible)")
        precondition(availableKB + resident + params.osReserveKB == params.ramKB,
                     "memory not conserved: available \(availableKB) + resident \(resident) + reserve \(params.osReserveKB) != RAM \(params.ramKB)")
        precondition(availableKB >= 0, "available memory is negative: \(availableKB) KiB")
    }
}

/// An app whose memory is being compressed (`Device.compressing`), and the whole
/// second at which it is done: its suspension's second plus the seconds its memory
/// needs (`Device.compressionSeconds`). Stored when it starts, so finding the apps
/// that are done costs no division per app. The figures it follows from cannot change
/// while it is compressed: its uncompressed size (`resident`) and suspension time
/// (`stateTime`) are written only where it enters or leaves the compressor (every
/// other writer acts on a running app, or on a suspended one after
/// `leaveCompressor`), its `packedKB` only where it is frozen or thawed (after
/// `finishCompressionNow`, or not compressed), and the rate and chunk are the
/// run's; `checkInvariants` asserts it after every event.
struct CompressingApp {
    var app: Int32
    var doneTick: Int64
}

/// One column of the system arrivals' alias table (`Device.wakeTable`; Walker
/// 1977, "An efficient method for generating discrete random variables with general
/// distributions", ACM TOMS 3(3)): its own (app, kind) pair, kept with probability
/// `cut`, else its alias's pair. `link` chains the work lists while it is built.
struct WakeColumn {
    var cut: Double
    var app: Int32
    var aliasApp: Int32
    var link: Int32 = -1
    var kind: SystemWakeKind
    var aliasKind: SystemWakeKind

    init(cut: Double, app: Int32, kind: SystemWakeKind) {
        self.cut = cut
        self.app = app
        self.aliasApp = app
        self.kind = kind
        self.aliasKind = kind
    }
}

extension Device {
    /// Sizes the device's buffers for `apps` apps, so that resets up to that size never
    /// allocate (the policy's index included), and the event queue for `events` pending.
    public mutating func reserve(apps n: Int, actions: Int, events: Int, queue: inout EventQueue<DeviceEvent>) {
        apps.reserveCapacity(n)
        policy.reset(appCount: n, context: PolicyContext())
        running.reserveCapacity(64)
        if !Policy.ordersIdleBands { ownIdleOrder.reset(appCount: n) }
        dock.reserveCapacity(64)
        compressing.reserveCapacity(n)
        wakeTable.reserveCapacity(1 + n * SystemWakeKind.allCases.count)
        broadcastHistory.reserveCapacity(SystemEventKind.count * max(64, actions / 8))
        queue.reserveCapacity(events)
    }

    /// Bytes of simulator state the device holds (array capacities, not counts),
    /// including its policy's index: for the 128-bytes-per-installed-app target.
    /// The event queue and the lent inputs (timeline) are per-device overhead.
    public var stateBytes: (perApp: Int, fixed: Int) {
        let apps = self.apps.capacity * MemoryLayout<AppRuntime>.stride
            + installed.capacity * MemoryLayout<Int32>.stride
            + policy.stateBytes + ownIdleOrder.stateBytes + android.uncompressed.stateBytes
            + compressing.capacity * MemoryLayout<CompressingApp>.stride
        let fixed = MemoryLayout<Self>.size
        return (apps, fixed)
    }
}
