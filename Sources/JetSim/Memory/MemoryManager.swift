import SimKernel

// The one boundary between the lifecycle and a memory manager.
//
// A device runs one memory manager, chosen by its parameters (`MemoryManagerKind`): the
// plain model (no bands; kills only when a launch needs room), XNU's memorystatus
// (bands, triggers, pressure, compressor, freezer: Memory/XNU/), Android's lmkd, zram
// and ActivityManager (Memory/Android/), or Fleet, which is Android's with its GC, swap
// and hot launch changed (Memory/Fleet/). The lifecycle calls the hooks below, each
// from one place, and never asks which manager runs: every `switch memoryManager` is in
// this file (the core asks one thing, through `DeviceCore`: whether the OS prewarms). A
// hook is O(1) unless its manager acts. A manager never kills: the hooks that may kill
// answer which reclaim is next (`ReclaimTrigger`), and the lifecycle runs it
// (Lifecycle/ReclaimLoop.swift).
//
// Dispatch is a switch on a tag, not a protocol the device is generic over: the device
// is already specialised per policy and trace sink, and a third generic parameter would
// multiply the specialisations the build compiles (2 cores); the tag is two booleans of
// the parameters the device reads anyway, so a hook costs what the `if`s it replaced
// cost (docs/performance.md, "The device in parts").
//
// Adding a manager: a case here, its folder under Memory/, its parameters with their
// schema entries, and a case in each hook below and in each of the kind's properties
// (`runsXNU`, `runsAndroid`, `keepsIdleOrder`): every test of the kind is an exhaustive
// switch, so the compiler lists every place a new manager must answer (no `==`).

/// The memory manager a device runs.
public enum MemoryManagerKind: UInt8, Sendable, CaseIterable {
    /// No bands: every idle app in one band, kills only when a launch needs room, down
    /// to the target (the model before XNU's; `xnu_bands: false`). Compression as
    /// configured.
    case plain
    /// XNU memorystatus (`os: ios`, the default).
    case xnu
    /// Android: lmkd, zram and ActivityManager (`os: android`).
    case android
    /// Fleet (ASPLOS 2024): Android's, with its fore/background-aware GC,
    /// runtime-guided swap and hot launch (`os: fleet`; Memory/Fleet/).
    case fleet
}

extension MemoryManagerKind {
    /// Whether XNU's memorystatus runs: bands, the dock, aging, the inactive limit, its
    /// triggers and the idle-band daemons.
    @inline(__always) var runsXNU: Bool {
        switch self {
        case .xnu: true
        case .plain, .android, .fleet: false
        }
    }

    /// Whether Android's lmkd, zram and ActivityManager run: Android's manager, or
    /// Fleet's, which is Android's with its changes.
    @inline(__always) var runsAndroid: Bool {
        switch self {
        case .android, .fleet: true
        case .plain, .xnu: false
        }
    }

    /// Whether the idle- and frozen-band order is kept: only what reads it (XNU's
    /// reaper, freezer and sustained-pressure kills; Android's cached-process cap)
    /// needs it, so on the plain model it costs nothing per event.
    @inline(__always) var keepsIdleOrder: Bool {
        switch self {
        case .xnu, .android, .fleet: true
        case .plain: false
        }
    }
}

/// Where a manager's sequence of reclaims is between the lifecycle's questions
/// (`reclaimAfterFall`, `reclaimForRoom`, ...): the hook's step (0 at the start), and
/// an outer step for a sequence made of others (the idle daemons' relaunch: room, then
/// a fall of memory).
struct ReclaimSequence {
    var step: UInt8 = 0
    var outer: UInt8 = 0
}

extension DeviceParameters {
    /// The footprint an app may reach before its manager kills it for its size
    /// (`Device.appLimitKB`, which says why): the per-app limit on XNU and the plain
    /// model, none on Android and Fleet.
    public var appLimitKB: Int64 {
        switch memoryManager {
        case .xnu, .plain: perAppLimitKB
        case .android, .fleet: .max
        }
    }

    /// The memory manager these parameters select.
    @inlinable public var memoryManager: MemoryManagerKind {
        android.enabled ? (fleet.enabled ? .fleet : .android) : xnu.bands ? .xnu : .plain
    }
}

extension Device {
    /// The memory manager this device runs (from its parameters).
    @inline(__always) var memoryManager: MemoryManagerKind { core.params.memoryManager }

    /// Whether Android's lmkd, zram and ActivityManager run (`MemoryManagerKind.runsAndroid`).
    @inline(__always) var runsAndroid: Bool { memoryManager.runsAndroid }

    // MARK: Reset

    /// Every manager's state for a run of `n` apps: XNU's compressor, freezer, reaper
    /// and pressure state; Android's (only its lists sized when it runs).
    mutating func resetMemoryManager(appCount n: Int) {
        dock.removeAll(keepingCapacity: true)
        frozenCount = 0
        flashCopyCount = 0; refreezeEligibleCount = 0
        compressorKB = 0; compressorSince = .zero; compressorShort = false
        compressing.removeAll(keepingCapacity: true)
        for a in 0..<n { core.apps[a].packedKB = Int32(clamping: core.suspendedResidentKB(Int(core.installed[a]))) }
        compressTick = 0; compressNextDone = .max; compressorCommittedKB = 0
        flashDay = 0; flashTodayKB = 0; freezeBudgetKB = core.params.xnu.freezeDailyKB
        freezerNextRun = .zero; freezerDue = false
        nextReaperSweepS = 0; reaperInfoExpiryS = 0; reaperNoneKnown = false
        pressureLevel = 0; softLimitApps.removeAll(keepingCapacity: true)
        warningRestUntil = .zero; sustainedDue = .never; armTimers = []
        android.reset(appCount: runsAndroid ? n : 0, thrashingLimit: core.params.android.thrashingLimitPct, holds: zramHeldShare > 0,
                      swapFile: runsAndroid && core.params.android.swapFile)
        resetIdleDaemons()
    }

    /// Bytes of per-app state the idle order and the managers hold (array capacities):
    /// part of `Device.stateBytes`.
    var memoryStateBytes: Int {
        core.ownIdleOrder.stateBytes + android.uncompressed.stateBytes + compressing.capacity * MemoryLayout<CompressingApp>.stride
    }

    // MARK: Time

    /// Simulated time reached `now` at the top of an event (a timer, a user action or a
    /// system arrival): the freezer thread's runs due since the last event, then
    /// compression up to now. (Only XNU's freezer sets `freezerDue`; a
    /// compressor runs on the plain model too.)
    @inline(__always) mutating func memoryTimePassed(_ now: SimTime) {
        if freezerDue && now >= freezerNextRun { freezerCatchUp(now) }
        if !compressing.isEmpty { advanceCompression(now) }
    }

    /// The end of an event (`handle`, `handleInput`): the manager's own timers it asked
    /// for during the event (`armTimers`: XNU's sustained-pressure timer, the idle
    /// daemons' relaunch), scheduled now that the scheduler is at hand.
    @inline(__always) mutating func memoryEventEnded(_ s: inout Scheduler<DeviceEvent>) {
        if !armTimers.isEmpty { armDeviceTimers(&s) }
    }

    /// One of the manager's own timers fired (`DeviceEvent.Kind.isDeviceTimer`): its
    /// reclaims, one question at a time (`ReclaimSequence`); a stale timer (not the
    /// time now armed) asks for none.
    mutating func reclaimOnTimer(_ kind: DeviceEvent.Kind, _ q: inout ReclaimSequence, _ now: SimTime) -> ReclaimTrigger? {
        switch kind {
        case .sustainedPressure: return sustainedPressureReclaim(&q, now)
        case .idleDaemonRelaunch: return idleDaemonRelaunchReclaim(&q, now)
        default:
            assertionFailure("reclaimOnTimer: \(kind) is the lifecycle's timer")
            return nil
        }
    }

    // MARK: Lifecycle hooks

    /// An app is being launched by its user (before room is made): XNU counts it
    /// toward the dock. Returns the app the dock let go, whose band may have changed
    /// (the lifecycle's `bandMayChange`), or -1.
    @inline(__always) mutating func memoryAppLaunching(_ app: Int32, _ now: SimTime) -> Int32 {
        memoryManager.runsXNU ? updateDock(app, now) : -1
    }

    /// An app entered the background: XNU starts its time in the aging band.
    @inline(__always)
    mutating func memoryAppEnteredBackground(_ app: Int32, _ now: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        if memoryManager.runsXNU && core.params.xnu.agingTime > .zero {
            core.scheduleTimer(.agingEnded, app, at: now + core.params.xnu.agingTime, &s)
        }
    }

    /// An app just left the front and is a candidate: XNU checks its inactive limit
    /// (a high-water kill at once, or a flag). One reclaim at most.
    @inline(__always)
    mutating func reclaimAfterLeavingFront(_ app: Int32, _ now: SimTime) -> ReclaimTrigger? {
        memoryManager.runsXNU ? inactiveLimitReclaim(app, now) : nil
    }

    /// An app was suspended: XNU and the plain model compress its memory (if the
    /// compressor runs); Android keeps it uncompressed as a cached app until reclaim
    /// needs it.
    @inline(__always) mutating func memoryAppSuspended(_ app: Int32, _ now: SimTime) {
        switch memoryManager {
        case .android, .fleet: androidCached(app, now)
        case .xnu, .plain: compressOnSuspend(app, now)
        }
    }

    /// A suspended app resumes (a user's launch or a system wake): its memory comes
    /// back from zram or flash (Android: returns the swap-in time), out of the
    /// compressor (returns what a part-compressed app had compressed, 0 otherwise), and
    /// the freezer counts the thaw.
    @inline(__always)
    mutating func memoryAppResuming(_ app: Int32, compressed: Bool, frozen: Bool, _ now: SimTime) -> (swapIn: SimTime, compressedKB: Int64) {
        var swapIn = SimTime.zero
        if runsAndroid { swapIn = androidResume(app, compressed: compressed, frozen: frozen, now) }
        let compressedKB = leaveCompressor(app, now)
        unfreeze(app)
        return (swapIn, compressedKB)
    }

    /// An app exits (any termination): its memory leaves the compressor, the freezer
    /// forgets it, and Android's reclaim order drops it.
    @inline(__always) mutating func memoryAppExited(_ app: Int32, _ now: SimTime) {
        leaveCompressor(app, now)
        forgetFrozen(app)
        if runsAndroid { androidForget(app); swapFileRelease(app) }
    }

    /// A user's launch completed with `latency`: Android counts it by its own kinds and
    /// against the Vitals thresholds. (`lastKill`: the reason of the process before.)
    @inline(__always) mutating func memoryAppLaunched(_ app: Int32, _ kind: LaunchKind, relaunch: Bool, latency: SimTime) {
        guard runsAndroid else { return }
        let saved = relaunch && core.profiles[core.pi(app)].preservesUIState
            && KillReason(rawValue: core.apps[Int(app)].lastKill).map { $0.losesUserPlace } == true
        androidVitals(kind, savedState: saved, latency: latency)
    }

    // MARK: Memory changes: the reclaims a manager asks for
    //
    // A manager never kills: each hook below is a question the lifecycle asks again
    // until it answers nil, running the reclaim loop (`reclaim`, Lifecycle/ReclaimLoop.swift)
    // for each trigger it answers; `ReclaimSequence` is where the manager's sequence
    // of triggers is between questions. Each trigger's condition is read when it is
    // asked, after the reclaims before it: the kills and their order are those of the
    // sequence written as calls.

    /// Available memory fell (a launch, a wake, a prewarm, growth): XNU's critical and
    /// idle triggers, high-water kills, the reaper, the pressure checks and the
    /// freezer. O(1) unless a trigger fires.
    @inline(__always) mutating func reclaimAfterFall(_ q: inout ReclaimSequence, _ now: SimTime) -> ReclaimTrigger? {
        memoryManager.runsXNU ? xnuFallReclaim(&q.step, now) : nil
    }

    /// Memory or a band changed (a suspension, a band change, a fall of memory): on
    /// XNU every trigger of `reclaimAfterFall`, since XNU re-evaluates its thresholds at
    /// every priority change (memstat_update_priority_locked ends with
    /// _memstat_consider_waking_jetsam_thread, bsd/kern/kern_memorystatus.c:2842-2984,
    /// 3951-3960): an app that ages into the idle band while memory is below the idle
    /// level dies then, not at a later fall of memory; Android's cached-process cap.
    @inline(__always) mutating func reclaimAfterChange(_ q: inout ReclaimSequence, _ now: SimTime) -> ReclaimTrigger? {
        switch memoryManager {
        case .android, .fleet:
            // ActivityManager's trim of cached and empty processes, when it would kill.
            guard q.step == 0 else { return nil }
            q.step = 1
            return processTrimDue(now) ? .cachedCap : nil
        case .xnu: return xnuFallReclaim(&q.step, now)
        case .plain: return nil
        }
    }

    /// A launch, wake or growth step needs `needKB` more: the manager makes room. The
    /// app room is made for is `launching` meanwhile (the lifecycle's `makeRoom`).
    mutating func reclaimForRoom(needKB: Int64, _ q: inout ReclaimSequence, _ now: SimTime) -> ReclaimTrigger? {
        switch memoryManager {
        case .android, .fleet: androidRoomReclaim(needKB: needKB, &q.step, now)
        case .xnu: xnuRoomReclaim(needKB: needKB, &q.step, now)
        case .plain: plainRoomReclaim(needKB: needKB, &q.step, now)
        }
    }

    // MARK: What the lifecycle reads

    /// The footprint an app may reach before the manager kills it for its size
    /// (`perProcessLimit`): XNU's per-process limit (`per_app_limit_pct`; the plain
    /// model's too, the model before XNU's). None on Android and Fleet: lmkd picks its
    /// victims by oom_score_adj, never by a process's own footprint (`find_and_kill_process`,
    /// system/memory/lmkd/lmkd.cpp:2475-2511, mirror yaap/system_memory_lmkd at c62ac7e),
    /// and an app's Java heap limit (`ActivityManager.getMemoryClass`) ends in an
    /// OutOfMemoryError inside the app, which jetsim does not model. An app there that
    /// does not fit fails its launch or growth as on any manager (no room left). Kept
    /// in `kb` (`DeviceParameters.appLimitKB`), so a launch reads it without a switch.
    @inline(__always) var appLimitKB: Int64 { core.kb.appLimitKB }

    /// The band a candidate has now, as the policy sees it: XNU's band; on the plain
    /// model, Android and Fleet, a background mode's band or 30 while it executes in the
    /// background, else 0 (`plainBand`).
    @inline(__always) func memoryBand(_ app: Int32, _ now: SimTime) -> UInt8 {
        memoryManager.runsXNU ? xnuBand(app, now) : plainBand(app)
    }

    /// Whether the idle- and frozen-band order is kept (`MemoryManagerKind.keepsIdleOrder`).
    @inline(__always) var keepsIdleOrder: Bool { memoryManager.keepsIdleOrder }

    /// What a thaw waits for: the resume, plus the pages read back from flash: XNU's
    /// on-demand share (`thawTouchedKB`); Android's whole cached footprint (writeback).
    @inline(__always) func thawLatency(_ p: Int) -> SimTime {
        let android = runsAndroid
        let readKB = android ? core.profiles[p].suspendedKB : thawTouchedKB(p)
        let perMB = android ? core.params.android.flashSwapInPerMB : core.params.xnu.thawPerMB
        return core.profiles[p].warmLaunch + SimTime(microseconds: perMB.microseconds * readKB / 1_024)
    }

    /// A warm resume: the resume, plus decompressing what it touches when suspended
    /// apps' memory is compressed (`compressedKB`: what is compressed; nil: its whole
    /// compressed share).
    @inline(__always) func warmLatency(_ p: Int, compressedKB: Int64? = nil) -> SimTime {
        guard core.params.suspendedCompressionRatio > 1 else { return core.profiles[p].warmLaunch }
        return core.profiles[p].warmLaunch + resumeDecompression(p, compressedKB: compressedKB)
    }

    /// A user's resume of a suspended app (`warm`, or `thaw` from flash): what it
    /// waits for. Android: the resume plus the swap-in (`swapIn`). XNU: decompressing
    /// what it touches if its memory was compressed, or the thaw. The plain model: the
    /// decompression whenever the compressor runs.
    @inline(__always)
    func resumeLatency(_ app: Int32, _ kind: LaunchKind, compressed: Bool, compressedKB: Int64?, swapIn: SimTime) -> SimTime {
        let p = core.pi(app)
        switch memoryManager {
        case .android, .fleet: return core.profiles[p].warmLaunch + swapIn
        case .xnu where kind == .warm && !compressed: return core.profiles[p].warmLaunch
        case .xnu, .plain:
            return kind == .thaw ? thawLatency(p) : warmLatency(p, compressedKB: compressedKB ?? suspendedPlainKB(app))
        }
    }

    /// The share of a cached app's memory that stays in RAM while zram has the rest
    /// (Memory/Android/Zram.swift): what swap cannot take, and what the app's garbage
    /// collector touches of its heap: all of it on Android, its background objects on
    /// Fleet (Memory/Fleet/). 0 elsewhere, and with Android's defaults.
    @inline(__always) var zramHeldShare: Double {
        switch memoryManager {
        case .android: core.params.android.heldShare(touch: core.params.android.gcTouchShare)
        case .fleet: fleetHeldShare
        case .xnu, .plain: 0
        }
    }

    /// The share of a cached app's Java heap its garbage collector touches: all of it
    /// on Android (`android_gc_touch_pct`), the background objects on Fleet.
    @inline(__always) var gcTouchShare: Double {
        switch memoryManager {
        case .fleet: core.params.fleet.gcTouchShare
        case .android, .xnu, .plain: core.params.android.gcTouchShare
        }
    }

    /// What a resume from zram waits for of the `plainKB` swapped back in: all of it
    /// on Android, the launch objects on Fleet (the rest after the first frame).
    @inline(__always) func launchSwapInKB(plainKB: Int64) -> Int64 {
        switch memoryManager {
        case .fleet: fleetLaunchSwapInKB(plainKB: plainKB)
        case .android, .xnu, .plain: plainKB
        }
    }

    /// Whether the OS prewarms apps: iOS 15 and later (`prewarming`), never Android.
    @inline(__always) var prewarms: Bool { core.params.prewarming && !runsAndroid }

    /// The compressor pool within its bound (the memory invariant): zram's in
    /// uncompressed KiB (the pool rounds each app to whole KiB); XNU's commitments
    /// within the pool's bound.
    var memoryPoolWithinBound: Bool {
        runsAndroid ? zramStoredKB <= core.params.android.swapKB + 4 * Int64(core.apps.count)
            : compressorKB <= compressorCommittedKB && compressorCommittedKB <= max(core.params.compressorPoolKB, 0)
    }
}

// MARK: The reclaim loop's picks (Lifecycle/ReclaimLoop.swift)

extension Device {
    /// A reclaim starts: the trigger's loop state (a walk's start, a budget).
    @inline(__always) mutating func startReclaim(_ trigger: ReclaimTrigger) -> ReclaimCursor {
        var c = ReclaimCursor()
        switch trigger {
        case .sustainedPressure: startSustainedPressure(&c)
        case .reaper: c.app = idleOrder.head(0)
        case .untilAvailable, .belowForeground, .idleUntilAvailable, .compressorShortage, .highWater, .cachedCap, .lmkd, .minfree, .app: break
        }
        return c
    }

    /// The next action of a reclaim for `trigger`: each manager's rule.
    @inline(__always)
    mutating func pickReclaimAction(_ trigger: ReclaimTrigger, _ c: inout ReclaimCursor, _ now: SimTime) -> ReclaimAction {
        switch trigger {
        // The triggers that free available memory from band 0 up: XNU's idle-band
        // daemons first, the head of band 0 (`idleDaemonFirst`; no pool: one compare).
        case .untilAvailable(let target):
            idleDaemonFirst(target) ?? core.victimUntilAvailable(target, .memoryPressure)
        case .belowForeground(let target):
            idleDaemonFirst(target) ?? core.victimUntilAvailable(target, .memoryPressure, belowForeground: true)
        case .idleUntilAvailable(let target):
            idleDaemonFirst(target) ?? core.victimUntilAvailable(target, .idleExit, idleBandOnly: true)
        case .compressorShortage: pickCompressorShortage()
        case .sustainedPressure: pickSustainedPressure(&c)
        case .reaper: pickReaper(&c, now)
        case .highWater(let target): pickHighWater(target, &c)
        case .cachedCap: pickCachedCap(now)
        case .lmkd(let need): pickLmkd(needKB: need, &c, now)
        case .minfree(let need): pickMinfree(needKB: need)
        case .app(let app, let reason): core.pickOneApp(app, reason, &c)
        }
    }

    /// Before a kill of a reclaim: XNU's idle, critical and compressor kills
    /// (memorystatus_kill_top_process) refresh the reaper's oldest-reapable answer
    /// first (`reaperRefresh`). Folds to nothing for the other triggers.
    @inline(__always) mutating func reclaimWillKill(_ trigger: ReclaimTrigger, _ now: SimTime) {
        switch trigger {
        case .belowForeground, .idleUntilAvailable, .compressorShortage: reaperRefresh(now)
        default: break
        }
    }

    /// A reclaim's `.spare`: XNU's high-water flag cleared (the app shrank under its
    /// inactive limit).
    @inline(__always) mutating func reclaimSpare(_ app: Int32) { clearSoftLimit(app) }

    /// A reclaim's `.killIdleDaemon`: XNU kills one of its idle-band daemons.
    @inline(__always) mutating func reclaimIdleDaemon(_ now: SimTime) { killIdleDaemon(now) }

    /// After a kill of a reclaim: lmkd starts its thrashing measure again.
    @inline(__always) mutating func reclaimKilled(_ trigger: ReclaimTrigger, _ reason: KillReason, _ now: SimTime) {
        if case .lmkd = trigger { thrashingAfterKill(reason, now) }
    }
}
