import SimKernel

/// XNU's reclaims (the shared ones are `ReclaimTrigger`'s).
enum XNUTrigger {
    /// The critical level: the policy's victims in the bands below the foreground
    /// band (100), until available memory reaches the target; a victim above it
    /// ends the loop (the app in front dies first: `fallReclaim`, its critical steps).
    case belowForeground(Int64)
    /// The idle level: the policy's victims in the idle band only, until available
    /// memory reaches the target.
    case idleUntilAvailable(Int64)
    /// The compressor is near its compressed-pages limit.
    case compressorShortage
    /// Pressure stayed above normal for the sustained window.
    case sustainedPressure
    /// The reaper's sweep of the idle band.
    case reaper
    /// Apps over their inactive (soft) limit, one at a time while available memory
    /// is below the target (the warning level, plus a launch's need).
    case highWater(Int64)
}

/// XNU's memorystatus as a value: its parameters, the levels they give, and its state
/// (the compressor, the dock, the freezer, the reaper, the pressure level and its
/// warnings, the high-water flags, the idle-band daemons). The rest of this folder is
/// its functions; each takes what it needs of the core.
///
/// Sources (apple-oss-distributions/xnu): bands bsd/sys/kern_memorystatus.h; aging,
/// idle and critical kills and the reaper bsd/kern/kern_memorystatus.c and
/// doc/vm/memorystatus_kills.md; freezer limits bsd/sys/kern_memorystatus_freeze.h,
/// its policy bsd/kern/kern_memorystatus_freeze.c and doc/vm/freezer.md.
struct XNUMemory<Policy: EvictionPolicy, Trace: TraceSink>: Compressing {
    typealias Core = DeviceCore<Policy, Trace>
    /// Its knobs (`params.xnu`) and the KiB levels they give on the device's RAM.
    var params = XNUParameters()
    var kb = XNUThresholds(DeviceParameters())
    var compressor = Compressor()
    /// Memory warnings were sent below the warning level and available memory has not
    /// recovered since (without pressure levels: `lowMemoryWarnings`).
    var warned = false
    /// The freezer thread ran with a throttle (`freezerRun`, a non-zero delay): it is
    /// due again at `freezerNextRun`, where `freezerCatchUp` runs it if its conditions
    /// hold then (XNU's page counts keep moving, so its thread gets that chance
    /// whether or not an event comes).
    var freezerDue = false
    /// The reaper's cached answer to "the oldest reapable idle app" was none
    /// (`reaperSweepDue`).
    var reaperNoneKnown = false
    /// The compressor holds more than its shortage level (`compressor.pool.kb >
    /// kb.compressorShortPoolKB`, pool not empty): set where the pool changes, read by
    /// the pressure checks after every memory change (`fallReclaim`).
    var compressorShort = false
    /// XNU's pressure level from compressor occupancy (`XNUPressure`).
    var pressureLevel: UInt8 = 0
    /// Device timers to schedule at the end of this event (`armDeviceTimers`): the
    /// sustained-pressure timer at `sustainedDue`, the idle daemons' relaunch at
    /// `idleDaemons.relaunchDue` (both are set deep in the memory code, without the
    /// scheduler at hand; one compare an event).
    var armTimers = DeviceTimerArm()
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
    /// The reaper sweeps no earlier than this, in whole seconds (rounded up); its
    /// cached answer is refreshed no earlier than `reaperInfoExpiryS`.
    var nextReaperSweepS: Int32 = 0
    var reaperInfoExpiryS: Int32 = 0
    /// The freezer thread runs no earlier than this (XNU's
    /// memorystatus_freezer_thread_next_run_ts, kern_memorystatus_freeze.c:2954).
    var freezerNextRun: SimTime = .zero
    /// XNU's freezer budget left (memorystatus_freeze_budget_pages_remaining, in KiB):
    /// a day's at the start, then each new budget interval adds a day's to what is
    /// left (`freezerNewDay`); a freeze takes what it writes, at most what is left.
    var freezeBudgetKB: Int64 = 0
    /// The dock: the device's most-launched apps (at most `params.dockSize`).
    var dock = ContiguousArray<Int32>()
    /// Apps flagged over their inactive (soft) limit out of front, by app index
    /// ascending: the high-water kills visit these, not every app (`pickHighWater`).
    var softLimitApps = ContiguousArray<Int32>()
    @inline(__always) var overSoftLimitCount: Int { softLimitApps.count }
    /// No pressure warnings before this (the resting period; .zero: due now).
    var warningRestUntil: SimTime = .zero
    /// Sustained-pressure kills are due at this time (.never: not armed).
    var sustainedDue: SimTime = .never
    /// The idle-band daemons (IdleDaemons.swift; empty by default).
    var idleDaemons = IdleDaemonPool()

    static var keepsIdleOrder: Bool { true }

    // MARK: Setup

    mutating func configure(_ p: DeviceParameters) {
        params = p.xnu
        kb = XNUThresholds(p)
        compressor.configure(p)
    }

    mutating func reset(_ core: inout Core, runs: Bool) {
        dock.removeAll(keepingCapacity: true)
        frozenCount = 0
        flashCopyCount = 0; refreezeEligibleCount = 0
        compressor.reset(); compressorShort = false
        flashDay = 0; freezeBudgetKB = params.freezeDailyKB
        freezerNextRun = .zero; freezerDue = false
        nextReaperSweepS = 0; reaperInfoExpiryS = 0; reaperNoneKnown = false
        pressureLevel = 0; softLimitApps.removeAll(keepingCapacity: true)
        warningRestUntil = .zero; sustainedDue = .never; armTimers = []
        warned = false
        resetIdleDaemons(&core, runs: runs)
    }

    mutating func reserve(apps n: Int) {
        dock.reserveCapacity(64)
        compressor.compressing.reserveCapacity(n)
    }

    var stateBytes: Int { compressor.compressing.capacity * MemoryLayout<CompressingApp>.stride }

    // MARK: Time

    /// The freezer thread's runs due since the last event, then compression up to now.
    @inline(__always) mutating func timePassed(_ core: inout Core, _ now: SimTime) {
        if freezerDue && now >= freezerNextRun { freezerCatchUp(&core, now) }
        if !compressor.compressing.isEmpty { advanceCompression(&core, now) }
    }

    /// The sustained-pressure timer and the idle daemons' relaunch, if asked for.
    @inline(__always) mutating func eventEnded(_ core: inout Core, _ s: inout Scheduler<DeviceEvent>) {
        if !armTimers.isEmpty { armDeviceTimers(&core, &s) }
    }

    mutating func reclaimOnTimer(_ core: inout Core, _ kind: DeviceEvent.Kind, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger? {
        switch kind {
        case .sustainedPressure: return sustainedPressureReclaim(&q, now)
        case .idleDaemonRelaunch: return idleDaemonRelaunchReclaim(&core, &q, now)
        default:
            assertionFailure("reclaimOnTimer: \(kind) is the lifecycle's timer")
            return nil
        }
    }

    // MARK: The lifecycle's changes

    /// The dock counts the launch.
    @inline(__always) mutating func appLaunching(_ core: inout Core, _ app: Int32, _ now: SimTime) -> Int32 {
        updateDock(&core, app, now)
    }

    /// Its time in the aging band starts.
    @inline(__always) mutating func appEnteredBackground(_ core: inout Core, _ app: Int32, _ now: SimTime,
                                                               _ s: inout Scheduler<DeviceEvent>) {
        if params.agingTime > .zero { core.scheduleTimer(.agingEnded, app, at: now + params.agingTime, &s) }
    }

    /// Its inactive limit: a high-water kill at once, or a flag.
    @inline(__always) mutating func reclaimAfterLeavingFront(_ core: inout Core, _ app: Int32,
                                                                   _ now: SimTime) -> ReclaimTrigger? {
        inactiveLimitReclaim(&core, app, now)
    }

    /// Compressed if the compressor runs; under its inactive limit only if its
    /// suspended footprint is: compression does not count (phys_footprint holds
    /// compressed pages uncompressed, `physFootprintKB`).
    @inline(__always) mutating func appSuspended(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        compressOnSuspend(&core, app, now)
        if overSoftLimitCount > 0 && physFootprintKB(core, app) <= kb.inactiveLimitKB { clearSoftLimit(&core, app) }
    }

    /// Out of the compressor, and the freezer counts the thaw.
    @inline(__always) mutating func appResuming(_ core: inout Core, _ app: Int32, compressed: Bool, frozen: Bool,
                                                      _ now: SimTime) -> (swapIn: SimTime, compressedKB: Int64) {
        clearSoftLimit(&core, app)
        let compressedKB = leaveCompressor(&core, app, now)
        unfreeze(&core, app)
        return (.zero, compressedKB)
    }

    /// Out of the compressor, and the freezer forgets it. (The lifecycle clears the
    /// flags after this, before the candidate is removed.)
    @inline(__always) mutating func appExited(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        clearSoftLimit(&core, app)
        leaveCompressor(&core, app, now)
        forgetFrozen(&core, app)
    }

    @inline(__always) mutating func appLaunched(_ core: inout Core, _ app: Int32, _ kind: LaunchKind, relaunch: Bool,
                                                      latency: SimTime) {}

    /// The dock's mark outlives the process.
    var marksKeptOnExit: MemoryFlags { .inDock }

    // MARK: The reclaims

    @inline(__always) mutating func reclaimAfterFall(_ core: inout Core, _ q: inout ReclaimSequence,
                                                           _ now: SimTime) -> ReclaimTrigger? {
        fallReclaim(&core, &q.step, now)
    }

    /// Every trigger of a fall, since XNU re-evaluates its thresholds at every priority
    /// change (memstat_update_priority_locked ends with
    /// _memstat_consider_waking_jetsam_thread, bsd/kern/kern_memorystatus.c:2842-2984,
    /// 3951-3960): an app that ages into the idle band while memory is below the idle
    /// level dies then, not at a later fall of memory.
    @inline(__always) mutating func reclaimAfterChange(_ core: inout Core, _ q: inout ReclaimSequence,
                                                             _ now: SimTime) -> ReclaimTrigger? {
        fallReclaim(&core, &q.step, now)
    }

    @inline(__always) mutating func reclaimForRoom(_ core: inout Core, needKB: Int64, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger? {
        roomReclaim(&core, needKB: needKB, &q.step, now)
    }

    // MARK: The reclaim loop's picks

    @inline(__always) mutating func startReclaim(_ core: inout Core, _ trigger: ReclaimTrigger) -> ReclaimCursor {
        var c = ReclaimCursor()
        switch trigger {
        case .xnu(.sustainedPressure): startSustainedPressure(core, &c)
        case .xnu(.reaper): c.app = core.idleOrder.head(0)
        case .untilAvailable, .app, .xnu, .android: break
        }
        return c
    }

    /// The triggers that free available memory from band 0 up take the idle-band
    /// daemons first, the head of band 0 (`idleDaemonFirst`; no pool: one compare).
    @inline(__always) mutating func pickReclaimAction(_ core: inout Core, _ trigger: ReclaimTrigger,
                                                            _ c: inout ReclaimCursor, _ now: SimTime) -> ReclaimAction {
        switch trigger {
        case .untilAvailable(let target):
            idleDaemonFirst(core, target) ?? core.victimUntilAvailable(target, .memoryPressure)
        case .app(let app, let reason): core.pickOneApp(app, reason, &c)
        case .xnu(let t):
            switch t {
            case .belowForeground(let target):
                idleDaemonFirst(core, target) ?? core.victimUntilAvailable(target, .memoryPressure, belowForeground: true)
            case .idleUntilAvailable(let target):
                idleDaemonFirst(core, target) ?? core.victimUntilAvailable(target, .idleExit, idleBandOnly: true)
            case .compressorShortage: pickCompressorShortage(core)
            case .sustainedPressure: pickSustainedPressure(core, &c)
            case .reaper: pickReaper(core, &c, now)
            case .highWater(let target): pickHighWater(core, target, &c)
            }
        case .android:
            preconditionFailure("XNU was asked for Android's reclaim \(trigger)")
        }
    }

    /// XNU's idle, critical and compressor kills (memorystatus_kill_top_process)
    /// refresh the reaper's oldest-reapable answer first (`reaperRefresh`).
    @inline(__always) mutating func reclaimWillKill(_ core: inout Core, _ trigger: ReclaimTrigger, _ now: SimTime) {
        switch trigger {
        case .xnu(.belowForeground), .xnu(.idleUntilAvailable), .xnu(.compressorShortage): reaperRefresh(&core, now)
        case .untilAvailable, .app, .xnu, .android: break
        }
    }

    /// The high-water flag cleared (the app shrank under its inactive limit).
    @inline(__always) mutating func reclaimSpare(_ core: inout Core, _ app: Int32) { clearSoftLimit(&core, app) }

    /// One of the idle-band daemons dies.
    @inline(__always) mutating func reclaimOwnProcess(_ core: inout Core, _ now: SimTime) { killIdleDaemon(&core, now) }

    @inline(__always) mutating func reclaimKilled(_ core: inout Core, _ trigger: ReclaimTrigger, _ reason: KillReason,
                                                        _ now: SimTime) {}

    // MARK: What the lifecycle and the policy read

    @inline(__always) func band(_ core: Core, _ app: Int32, _ now: SimTime) -> UInt8 { xnuBand(core, app, now) }

    /// A warm resume of an app not compressed takes its resume alone; a thaw reads
    /// from flash; else the decompression of what it touches.
    @inline(__always) func resumeLatency(_ core: Core, _ app: Int32, _ kind: LaunchKind, compressed: Bool,
                                               compressedKB: Int64?, swapIn: SimTime) -> SimTime {
        let p = core.pi(app)
        if kind == .warm && !compressed { return core.profiles[p].warmLaunch }
        return kind == .thaw ? thawLatency(core, p) : warmLatency(core, p, compressedKB: compressedKB ?? suspendedPlainKB(core, app))
    }

    @inline(__always) func suspendedLaunchCost(_ core: Core, _ app: Int32) -> SimTime {
        let p = core.pi(app)
        return core.apps[Int(app)].memory.contains(.frozen) ? thawLatency(core, p) : warmLatency(core, p, compressedKB: suspendedPlainKB(core, app))
    }

    /// What a thaw waits for: the resume, plus the on-demand share read back from flash.
    @inline(__always) func thawLatency(_ core: Core, _ p: Int) -> SimTime {
        core.profiles[p].warmLaunch + SimTime(microseconds: params.thawPerMB.microseconds * thawTouchedKB(core, p) / 1_024)
    }

    /// A candidate leaves: its high-water flag goes with it.
    @inline(__always) mutating func removeCandidate(_ core: inout Core, _ app: Int32) {
        core.removeCandidate(app, keepsIdleOrder: Self.keepsIdleOrder)
        clearSoftLimit(&core, app)
    }

    @inline(__always) func prewarms(_ p: CoreParameters) -> Bool { p.prewarming }

    var residentOutsideAppsKB: Int64 { idleDaemons.residentKB }

    // MARK: The compressor's questions (`Compressing`)

    /// Its shortage and the pressure level follow the pool.
    @inline(__always) mutating func compressorChanged(_ core: inout Core, _ now: SimTime) {
        compressorShort = compressor.pool.kb > 0 && compressor.pool.kb > kb.compressorShortPoolKB
        updatePressureLevel(&core, now)
    }

    @inline(__always) mutating func compressionFinished(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        if core.apps[Int(app)].residentKB <= kb.inactiveLimitKB { clearSoftLimit(&core, app) }
        refreshCandidateIfBandMoved(&core, app, now)
    }
}

extension XNUMemory {
    /// The compressor's accounting, then the freezer's counts of apps with state on
    /// flash and of thawed ones, a thawed app holding at most what it touched, the
    /// high-water list, and the idle daemons within their pool.
    func checkInvariant(_ core: Core) {
        checkCompressorInvariant(core, frozenCount: frozenCount)
        var flagged = 0, flashCopies = 0, eligible = 0
        for i in core.apps.indices {
            let a = core.apps[i]
            if a.memory.contains(.hasFlashCopy) { flashCopies += 1 }
            if a.memory.contains(.overSoftLimit) { flagged += 1 }
            if a.memory.contains(.refreezeEligible) {
                precondition(a.memory.contains(.hasFlashCopy) && !a.memory.contains(.frozen),
                             "app \(i) is refreeze-eligible without its state on flash, or frozen")
                eligible += 1
            }
            // On-demand thaw: what a thawed app did not touch stays on flash; suspended,
            // it holds at most what it touched.
            let p = core.pi(Int32(i))
            if thawedWithFlashCopy(core, Int32(i)) && a.state == .suspended && !a.memory.contains(.frozen) {
                precondition(a.residentKB <= thawTouchedKB(core, p), "thawed app \(i) holds \(a.residentKB) KiB suspended, more than the \(thawTouchedKB(core, p)) it touched")
            }
        }
        // The soft-limit list is the flagged apps, each once, in index order.
        precondition(flagged == softLimitApps.count && zip(softLimitApps, softLimitApps.dropFirst()).allSatisfy { $0 < $1 }
                     && softLimitApps.allSatisfy { core.apps[Int($0)].memory.contains(.overSoftLimit) },
                     "soft-limit list \(softLimitApps) is not the \(flagged) flagged apps in index order")
        precondition(flashCopies == Int(flashCopyCount) && eligible == Int(refreezeEligibleCount),
                     "freezer counts \(flashCopyCount)/\(refreezeEligibleCount) != \(flashCopies)/\(eligible)")
        precondition(idleDaemonsWithinBound, "idle daemons resident \(idleDaemons.resident) out of their pool")
    }
}

/// XNU's marks on an app record (on the bits after the shared ones, `MemoryFlags`).
extension MemoryFlags {
    /// In the dock (XNU's band 30 when idle).
    @inlinable static var inDock: Self { Self(rawValue: 8) }
    /// Notified in the current pressure-warning round.
    @inlinable static var pressureNotified: Self { Self(rawValue: 16) }
    /// Over its inactive (soft) limit out of front (high-water).
    @inlinable static var overSoftLimit: Self { Self(rawValue: 32) }
    /// Frozen once, its state still on flash (XNU's P_MEMSTAT_FROZEN, kept through
    /// thaws until it exits; a refreeze writes only what it dirtied).
    @inlinable static var hasFlashCopy: Self { Self(rawValue: 64) }
    /// Demoted from the frozen band to the idle band.
    @inlinable static var demoted: Self { Self(rawValue: 128) }
    /// Resumed since it was frozen, its state still on flash: XNU's
    /// P_MEMSTAT_REFREEZE_ELIGIBLE (bsd/kern/kern_memorystatus.c:3793-3796).
    @inlinable static var refreezeEligible: Self { Self(rawValue: 256) }
    /// The marks the freezer must forget when the app exits (`forgetFrozen`).
    @inlinable static var freezerKnows: Self { [.frozen, .hasFlashCopy, .demoted, .compressing, .refreezeEligible] }
}
