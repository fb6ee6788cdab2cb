#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// The lifecycle: messages, state changes, background time, saves and coalescing,
/// exactly as the seeds describe them.
extension Device {
    /// Sends a delegate message (records it; the state is the app's after it).

    mutating func send(_ m: LifecycleMessage, to app: Int32, _ now: SimTime, detail: TraceDetail = .none) {
        trace.record(time: now, app: app, event: .message(m), detail: detail, state: apps[Int(app)].state)
    }

    /// The edits an app would lose now (its unsaved active time times its edit rate).

    @inline(__always) func unsavedEdits(_ app: Int32) -> Int {
        let micros = apps[Int(app)].unsavedMicros
        guard micros > 0 else { return 0 }
        // An app that makes no edits loses none (the product below is 0): without the
        // conversion, at every kill of an app that was ever in front.
        let rate = profiles[pi(app)].unsavedEditsPerMinute
        guard rate != 0 else { return 0 }
        return Int(saturating: Double(micros) * rate / 60_000_000)
    }

    /// Adds the active time since `activeSince` to the unsaved work.
    @inline(__always)
    mutating func accrueUnsaved(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard apps[a].state == .active else { return }
        apps[a].accrueActive(until: now)
    }

    /// Moves an app's resident memory to `kb`, keeping the accounting exact.
    @inline(__always)
    mutating func setResident(_ app: Int32, _ kb: Int64) {
        availableKB += apps[Int(app)].replaceResident(kb)
    }

    /// What a suspended app keeps resident after the device's compression.

    @inline(__always) func suspendedResidentKB(_ p: Int) -> Int64 { packedKB(plainKB: profiles[p].suspendedKB) }

    /// `plainKB` of suspended memory after the device's compression.
    @inline(__always) func packedKB(plainKB: Int64) -> Int64 {
        params.suspendedCompressionRatio <= 1 ? plainKB
            : Int64((Double(plainKB) / params.suspendedCompressionRatio).rounded())
    }

    // MARK: On-demand thaw

    // A thaw loads nothing from flash proactively: the app's pages come back as it
    // touches them, and what it does not touch stays on flash ("We do not proactively
    // load any of the dirty memory out of the swap file ... consider a suspended &
    // frozen app with 100MB of dirty memory on NAND. On resume it may only touch 20MB
    // and thus the other 80MB stays on NAND", xnu doc/vm/freezer.md:62-64). A refreeze
    // skips what is already on flash (freezer.md:70, vm_compressor_relocate).
    //
    // The model: a thaw brings back the share `thawTouchPPM` of the app's suspended
    // footprint (`thawTouchedKB`, the same share at every thaw: its whole state is on
    // flash again after a refreeze); only that share is read (its latency) and only
    // it is resident; the rest (`onFlashKB`) stays on flash for as long as the app's
    // state is (until it exits: a demotion keeps it, kern_memorystatus_freeze.c:
    // 2301-2336). In front the app holds its active footprint less that rest, and
    // grows from there as any app does; at its next suspension it keeps at most the
    // touched share (`suspendedPlainKB`), compressed to its own `packedKB` (set at the
    // thaw, the profile's again at its exit). What a refreeze writes is the dirty
    // share of that (`flashWrite`).

    /// What a thaw brings back from flash: the touched share of the suspended footprint.
    @inline(__always) func thawTouchedKB(_ p: Int) -> Int64 {
        profiles[p].suspendedKB * Int64(params.thawTouchPPM) / 1_000_000
    }

    /// Whether the app was thawed with its state still on flash (frozen once and
    /// resumed since; `thaws` counts only those and is reset only at its exit).
    @inline(__always) func thawedWithFlashCopy(_ app: Int32) -> Bool {
        let a = Int(app)
        return apps[a].freezerMarks & AppRuntime.hasFlashCopy != 0 && apps[a].thaws > 0
    }

    /// What of its suspended footprint an app with its state on flash leaves there
    /// once thawed (0 for any other): a thawed app's, or a frozen app's at its thaw.
    @inline(__always) func onFlashKB(_ app: Int32) -> Int64 {
        guard apps[Int(app)].freezerMarks & AppRuntime.hasFlashCopy != 0 else { return 0 }
        let p = pi(app)
        return profiles[p].suspendedKB - thawTouchedKB(p)
    }

    /// The suspended footprint an app can hold in RAM (uncompressed): the profile's,
    /// or for a thawed app only what it touched.
    @inline(__always) func suspendedPlainKB(_ app: Int32) -> Int64 {
        thawedWithFlashCopy(app) ? thawTouchedKB(pi(app)) : profiles[pi(app)].suspendedKB
    }

    /// The policy's view of a candidate.

    @inline(__always) func candidate(_ app: Int32, leftFront: Bool = false) -> EvictionCandidate {
        // Fields are read in place: copying the whole app record here showed up as
        // memcpy in profiles.
        let a = Int(app)
        if Policy.readsBandOnly {
            // The band alone (`EvictionPolicy.readsBandOnly`): no profile, no resident size.
            return EvictionCandidate(state: apps[a].state, residentKB: 0, launchCount: 0, preservesUIState: false,
                                     leftFront: leftFront, band: apps[a].band)
        }
        let p = pi(app)
        let state = apps[a].state
        guard Policy.readsCosts else {
            // The policy reads none of the costs: the cheap fields only (the same
            // choices, without computing launch costs and unsaved edits per update).
            return EvictionCandidate(
                state: state, mode: apps[a].has(AppRuntime.modeActive) ? profiles[p].mode : .none,
                residentKB: residentNowKB(app), lastUsed: apps[a].lastUsed, launchCount: 0,
                preservesUIState: false, nextUse: apps[a].nextUse, leftFront: leftFront, isPrevious: app == android.previous, band: apps[a].band)
        }
        return EvictionCandidate(
            state: state, mode: apps[a].has(AppRuntime.modeActive) ? profiles[p].mode : .none,
            residentKB: residentNowKB(app),
            lastUsed: apps[a].lastUsed, launchCount: Int(apps[a].launches),
            coldLaunchCost: coldLatency(p),
            residentLaunchCost: state == .suspended ? (apps[a].isPrewarmed ? prewarmedLatency(p) : apps[a].has(AppRuntime.frozen) ? thawLatency(p) : warmLatency(p, compressedKB: suspendedPlainKB(app))) : profiles[p].hotLaunch,
            unsavedEdits: unsavedEdits(app), preservesUIState: profiles[p].preservesUIState,
            nextUse: apps[a].nextUse, leftFront: leftFront, isPrevious: app == android.previous, band: apps[a].band)
    }

    /// Whether a launch of a not-running app finds its files still in the page cache:
    /// it was killed (not by a power-off, which empties the cache) less than
    /// `pageCacheWindow` ago. The kill time is kept in `stateTime`, unused while not
    /// running (`terminate`).
    @inline(__always) func filesCached(_ app: Int32, _ now: SimTime) -> Bool {
        let a = Int(app)
        let k = apps[a].lastKill
        return params.pageCacheWindow > .zero && k != AppRuntime.noKill && k != KillReason.powerOff.rawValue
            && now - apps[a].stateTime < params.pageCacheWindow
    }

    /// A launch of a prewarmed app: cold, less the pre-main part the prewarm did.
    @inline(__always) func prewarmedLatency(_ p: Int) -> SimTime {
        max(.zero, profiles[p].coldLaunch - profiles[p].prewarmSaving) + uiRestore(p)
    }

    @inline(__always) func coldLatency(_ p: Int) -> SimTime { profiles[p].coldLaunch + uiRestore(p) }

    /// A launch from no process whose files are still in the page cache.
    @inline(__always) func cachedLatency(_ p: Int) -> SimTime { profiles[p].cachedLaunch + uiRestore(p) }

    /// What every launch from no process adds: the state restore, if the app restores.
    @inline(__always) func uiRestore(_ p: Int) -> SimTime { profiles[p].preservesUIState ? profiles[p].stateRestore : .zero }

    /// A thaw: the resume, plus the pages it touches back from flash (`thawTouchedKB`;
    /// the rest stays there, "On-demand thaw").
    /// (Android reads its whole cached footprint back, `androidSwapIn`.)
    @inline(__always) func thawLatency(_ p: Int) -> SimTime {
        let readKB = params.android.enabled ? profiles[p].suspendedKB : thawTouchedKB(p)
        return profiles[p].warmLaunch + SimTime(microseconds: params.thawPerMB.microseconds * readKB / 1_024)
    }

    @inline(__always) func warmLatency(_ p: Int, compressedKB: Int64? = nil) -> SimTime {
        guard params.suspendedCompressionRatio > 1 else { return profiles[p].warmLaunch }
        return profiles[p].warmLaunch + resumeDecompression(p, compressedKB: compressedKB)
    }

    // MARK: Front and back

    /// willResignActive: the active app becomes inactive (an overlay, the switcher,
    /// the lock, or on its way to the background).
    mutating func resignActive(_ app: Int32, _ now: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        let a = Int(app)
        guard apps[a].state == .active else { return }
        // `accrueUnsaved` and the new state in one write to the app's record.
        apps.withUnsafeMutableBufferPointer { b in
            b[a].accrueActive(until: now)
            b[a].state = .inactive
        }
        send(.willResignActive, to: app, now)
        if profiles[pi(app)].save == .onResignActive { startSave(app, now, &s) }
    }

    /// didBecomeActive for an inactive app in front (not a launch).
    mutating func becomeActive(_ app: Int32, _ now: SimTime) {
        guard apps[Int(app)].state == .inactive else { return }
        apps[Int(app)].state = .active
        apps[Int(app)].activeSince = now
        send(.didBecomeActive, to: app, now)
    }

    /// didEnterBackground: the inactive app in front goes to the background. What
    /// follows depends on the app: exit (UIApplicationExitsOnSuspend), the watchdog
    /// (a handler over its limit), or background time until suspension.
    mutating func enterBackground(_ app: Int32, _ now: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        let a = Int(app)
        guard apps[a].state == .inactive || apps[a].state == .active else { return }
        if apps[a].state == .active { resignActive(app, now, &s) }
        let p = pi(app)
        apps[a].state = .background
        apps[a].lastUsed = now
        // The previous app, on every OS (AndroidLMK reads it from the candidate): the
        // former one, held at adj 700 while suspended, becomes a cached app.
        let former = android.previous
        android.previous = app
        if Policy.readsPrevious && former >= 0 && former != app && apps[Int(former)].state == .suspended {
            policy.update(former, candidate(former))
        }
        apps[a].backgroundEntries &+= 1
        if front == app { front = -1 }
        cancelTimers(app, family: 2)  // no periodic saves in the background
        setResident(app, min(apps[a].residentKB, profiles[p].backgroundKB))  // trims its caches
        send(.didEnterBackground, to: app, now)
        if params.xnuBands && params.agingTime > .zero {
            scheduleTimer(.agingEnded, app, at: now + params.agingTime, &s)
        }

        // The handler runs; saving here is part of it.
        var handler = profiles[p].enterBackgroundHandler
        if profiles[p].save == .onEnterBackground {
            startSave(app, now, &s)
            handler += profiles[p].saveDuration
        }
        if handler > params.enterBackgroundLimit {
            apps[a].freezerMarks |= AppRuntime.watchdogCommitted
            scheduleTimer(.watchdogKill, app, at: now + params.enterBackgroundLimit, &s)
        } else if profiles[p].exitsOnSuspend {
            apps[a].freezerMarks |= AppRuntime.exitCommitted
            scheduleTimer(.exitOnSuspend, app, at: now + handler, &s)
        } else {
            let trip = UInt64(apps[a].backgroundEntries)
            // A background task, with the work it needs.
            if profiles[p].bgTaskProbability > 0 {
                var g = appDraws(app, Self.drawBackgroundTask, trip)
                if profiles[p].bgTaskProbability >= 1 || g.nextUnit() < profiles[p].bgTaskProbability {
                    let work = Self.lognormal(profiles[p].bgTaskMedian, profiles[p].bgTaskSigma, &g, normalTable)
                    apps[a].set(AppRuntime.bgTask)
                    if work <= params.bgTaskAllowance {
                        scheduleTimer(.bgTaskDone, app, at: now + work, &s)
                    } else {
                        scheduleTimer(.bgTaskExpired, app, at: now + params.bgTaskAllowance, &s)
                    }
                }
            }
            // A background mode's activity.
            if profiles[p].mode != .none {
                var g = appDraws(app, Self.drawModeActivity, trip)
                let activity = Self.lognormal(profiles[p].modeActivityMedian, profiles[p].modeActivitySigma, &g, normalTable)
                if activity > .zero {
                    apps[a].set(AppRuntime.modeActive)
                    scheduleTimer(.modeEnded, app, at: now + activity, &s)
                }
            }
            apps[a].suspendNotBefore = now + max(params.backgroundGrace, handler)
            scheduleTimer(.suspendDue, app, at: apps[a].suspendNotBefore, &s)
        }
        refreshCandidate(app, now, leftFront: true)
    }

    /// A lognormal duration by median and sigma (sigma 0: the median itself), with the
    /// device's `normalTable`. Static: a method reading the table from `self` made
    /// its mutating callers copy the whole device first (21 instructions an event).

    @inline(__always) static func lognormal(_ median: SimTime, _ sigma: Double, _ g: inout SplitMix64,
                                            _ table: ZigguratTable) -> SimTime {
        if sigma == 0 { return median }
        return SimTime(saturatingMicroseconds: Double(median.microseconds) * exp(sigma * StandardNormal.sample(&g, table: table)))
    }

    /// A background task or mode ended: the policy learns the new band, and the app
    /// is suspended if nothing else keeps it running.
    mutating func backgroundWorkChanged(_ app: Int32, _ now: SimTime) {
        guard apps[Int(app)].state == .background else { return }
        suspendIfIdle(app, now)
        if apps[Int(app)].state == .background { refreshCandidate(app, now) }
    }

    /// Suspends a background app whose work has ended and whose grace has passed.
    mutating func suspendIfIdle(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard apps[a].state == .background,
              !apps[a].has(AppRuntime.bgTask), !apps[a].has(AppRuntime.modeActive),
              now >= apps[a].suspendNotBefore else { return }
        if apps[a].has(AppRuntime.saveInFlight) {
            // A save still running when the app stops executing is lost.
            apps[a].clear(AppRuntime.saveInFlight)
            cancelTimers(app, family: 1)
            metrics[.savesAbandoned] += 1
        }
        apps[a].state = .suspended
        stopRunning(app)
        suspendedCount += 1
        apps[a].broadcastMark = broadcastCount
        compressOnSuspend(app, now)
        trace.record(time: now, app: app, event: .suspended, detail: .none, state: .suspended)
        refreshCandidateIfBandMoved(app, now)
        freezerWake(now)
    }

    // MARK: Launch

    /// Brings `app` to the front (nothing else may be in front): cold from nothing,
    /// warm from suspended, hot from the background. Makes room first if needed.
    mutating func launch(_ app: Int32, actionIndex: Int, _ s: inout Scheduler<DeviceEvent>) {
        let now = s.now
        let a = Int(app)
        // A committed termination is not cancelled by the tap: it happens now, and the
        // launch finds no process (seeds 002, 003: an exits-on-suspend app "is
        // terminated" on its way to the background; seed 000: a didEnterBackground that
        // does not return in time is "terminated and purged from memory"). Its timer
        // goes stale with the process (`terminate`).
        if apps[a].freezerMarks & AppRuntime.exitCommitted != 0 {
            send(.willTerminate, to: app, now)
            saveOnTerminate(app)
            terminate(app, .exitsOnSuspend, now)
        } else if apps[a].freezerMarks & AppRuntime.watchdogCommitted != 0 {
            terminate(app, .watchdog, now)
        }
        let p = pi(app)
        // A prewarmed process (`prewarm`) is launched as from not running: it stopped
        // before main, so it gets didFinishLaunching now; its launch is `cold` less the
        // pre-main part it already did, or `cached` when its files are still in the
        // page cache and that is faster (then the prewarm saved nothing: not counted).
        let wasPrewarmed = apps[a].isPrewarmed
        if wasPrewarmed {
            apps[a].freezerMarks &= ~AppRuntime.prewarmed
            apps[a].state = .notRunning
        }
        let prior = apps[a].state
        let wasFrozen = apps[a].has(AppRuntime.frozen)
        var wasCompressed = apps[a].has(AppRuntime.compressed)
        // A part-compressed app decompresses only what was compressed so far (set
        // when it leaves the compressor below).
        let wasPart = apps[a].freezerMarks & AppRuntime.compressing != 0
        var partKB: Int64? = nil
        let kind: LaunchKind = prior == .notRunning
            ? (filesCached(app, now) && (!wasPrewarmed || cachedLatency(p) <= prewarmedLatency(p)) ? .cached : .cold)
            : prior == .suspended ? (wasFrozen ? .thaw : .warm) : .hot
        let usedPrewarm = wasPrewarmed && kind == .cold
        let isRelaunch = apps[a].launches > 0
        metrics[.launches] += 1
        countByArchetype(app, .launches)
        let nextUse = actionIndex >= 0 && actionIndex < timeline.nextUseAfter.count ? timeline.nextUseAfter[actionIndex] : nil
        // Its count and next use; background timers stop and its background work with
        // them (it carries on in front): one write to the app's record (a uniqueness
        // check each, four before). Neither the policy's removal nor the dock below
        // reads the timers or those two flags.
        apps.withUnsafeMutableBufferPointer { b in
            b[a].launches &+= 1
            if let nextUse { b[a].nextUse = nextUse }
            b[a].cancel(0)
            b[a].clear(AppRuntime.bgTask | AppRuntime.modeActive)
        }
        dropHeldTimer(app)  // the rest of `cancelTimers(app, family: 0)`
        // No longer a candidate.
        removeCandidate(app)
        updateDock(app, now)

        // Room for its active footprint, which it reaches during launch. An app over
        // the per-app limit grows only to the limit (others are killed to make room as
        // it grows, as jetsam would) and is then killed for exceeding it.
        // A thaw (or a resume of an app thawed before) leaves on flash what it does not
        // touch ("On-demand thaw"): its footprint in front is the rest.
        let overLimit = profiles[p].activeKB > kb.perAppLimitKB
        let reach = overLimit ? kb.perAppLimitKB : max(0, profiles[p].activeKB - onFlashKB(app))
        let need = max(0, reach - residentNowKB(app))
        makeRoom(needKB: need, launching: app, now)
        if availableKB < need {
            // Nothing else left to kill and it still does not fit: the launch fails.
            metrics[.launchFailures] += 1
            metrics[.foregroundKills] += 1
            if wasPrewarmed {
                apps[a].state = .suspended
                apps[a].freezerMarks |= AppRuntime.prewarmed
                terminate(app, .memoryPressure, now, launchFailed: true)
            } else if prior.isResident {
                terminate(app, .memoryPressure, now)
            } else {
                metrics.countKill(.memoryPressure)
                countByArchetype(app, .killsPressure)
                trace.record(time: now, app: app, event: .terminated(.memoryPressure), detail: .reason(.memoryPressure), state: .notRunning)
            }
            return
        }
        front = app
        if usedPrewarm { metrics[.prewarmedLaunches] += 1 }
        var swapIn = SimTime.zero
        if kind.createsProcess {
            // Its state and footprint (`setResident`) in one write to its record.
            availableKB += apps.withUnsafeMutableBufferPointer { b in
                b[a].state = .inactive
                return b[a].replaceResident(max(reach, b[a].residentKB))
            }
            running.append(app)
            send(.didFinishLaunching, to: app, now)
        } else {
            apps[a].state = .inactive
            if kind == .warm || kind == .thaw {
                running.append(app)
                suspendedCount -= 1
                if params.android.enabled { swapIn = androidResume(app, compressed: wasCompressed, frozen: wasFrozen, now) }
                let compressedKB = leaveCompressor(app, now)
                if wasPart { partKB = compressedKB; wasCompressed = compressedKB > 0 }
                unfreeze(app)
                if wasCompressed { metrics[.decompressedKB] += Int(partKB ?? suspendedPlainKB(app)) }
            }
            setResident(app, max(reach, apps[a].residentKB))
            send(.willEnterForeground, to: app, now)
            if kind == .warm || kind == .thaw { deliverHeld(app, now) }
        }
        if overLimit {
            metrics[.launchFailures] += 1
            terminate(app, .perProcessLimit, now)
            return
        }
        var latency: SimTime
        switch kind {
        case .cold: latency = usedPrewarm ? prewarmedLatency(p) : coldLatency(p)
        case .cached: latency = cachedLatency(p)
        case .warm: latency = wasCompressed || !params.xnuBands ? warmLatency(p, compressedKB: partKB ?? suspendedPlainKB(app)) : profiles[p].warmLaunch
        case .thaw: latency = thawLatency(p)
        case .hot: latency = profiles[p].hotLaunch
        }
        if params.android.enabled && (kind == .warm || kind == .thaw) { latency = profiles[p].warmLaunch + swapIn }
        if params.launchJitterSigma > 0 {
            // Keyed by the app's launch number, which the user alone decides: the
            // same jitter for this launch under every policy and RAM size.
            var g = appDraws(app, Self.drawLaunchJitter, UInt64(apps[a].launches))
            latency = Self.lognormal(latency, params.launchJitterSigma, &g, normalTable)
        }
        if params.android.enabled {
            let saved = isRelaunch && profiles[p].preservesUIState
                && KillReason(rawValue: apps[a].lastKill).map { $0.losesUserPlace } == true
            androidVitals(kind, savedState: saved, latency: latency)
        }
        if isRelaunch {
            metrics[.relaunches] += 1
            countByArchetype(app, .relaunches)
            switch kind {
            case .cold, .cached:
                metrics[.coldRelaunches] += 1
                countByArchetype(app, .coldRelaunches)
                if kind == .cached { metrics[.cachedRelaunches] += 1 }
                if !profiles[p].preservesUIState, let reason = KillReason(rawValue: apps[a].lastKill), reason.losesUserPlace {
                    metrics[.stateLossEvents] += 1
                }
            case .warm:
                metrics[.warmRelaunches] += 1
                if wasCompressed { metrics[.decompressedRelaunches] += 1 }
            case .thaw:
                metrics[.warmRelaunches] += 1
                metrics[.thawedRelaunches] += 1
            case .hot: metrics[.hotRelaunches] += 1
            }
            relaunchLatencyByKind.record(latency, kind == .cold ? .cold : kind == .cached ? .cached : kind == .hot ? .hot
                                         : kind == .thaw ? .thaw : wasCompressed ? .decompressed : .resume)
            metrics[.relaunchLatencySumMicros] = .saturatingSum(metrics[.relaunchLatencySumMicros], Int(latency.microseconds))
        }
        apps[a].lastKill = AppRuntime.noKill
        apps[a].state = .active
        apps[a].activeSince = now
        send(.didBecomeActive, to: app, now, detail: .launch(kind, latency: latency))
        if profiles[p].save == .periodic {
            cancelTimers(app, family: 2)
            scheduleTimer(.periodicSave, app, at: now + profiles[p].saveInterval, &s)
        }
        if params.memoryGrowth && profiles[p].peakKB > apps[a].residentKB && params.growthStep > .zero {
            scheduleTimer(.grow, app, at: now + params.growthStep, &s)
        }
        memoryFell(now)
    }

    // MARK: Termination

    /// Terminates an app. An app still executing code gets willTerminate first when
    /// the kill is one the system announces (memory pressure, the user, shutdown); a
    /// suspended app gets nothing (seeds 000, 003, 004). Unsaved work is lost.
    /// `launchFailed`: a prewarmed app whose user launch found no room; it dies as a
    /// prewarmed process but was not a wasted prewarm (`prewarms_killed`).
    mutating func terminate(_ app: Int32, _ reason: KillReason, _ now: SimTime, launchFailed: Bool = false) {
        let a = Int(app)
        precondition(apps[a].state.isResident, "terminate: app \(app) is not running")
        accrueUnsaved(app, now)
        if apps[a].state.executesCode && reason.noticesRunningApp {
            send(.willTerminate, to: app, now)
            saveOnTerminate(app)
        }
        let lost = unsavedEdits(app)
        if lost > 0 {
            metrics.countLoss(lost, strategy: profiles[pi(app)].save)
            if !byArchetype.isEmpty { byArchetype[Int(archetypeOf[pi(app)])].countLoss(lost, strategy: profiles[pi(app)].save) }
        }
        if apps[a].has(AppRuntime.saveInFlight) { metrics[.savesAbandoned] += 1 }
        let wasPrewarmed = apps[a].isPrewarmed
        if wasPrewarmed {
            // Killed before any launch used it: a wasted prewarm (not when the user's
            // launch of it failed). It held no events and was not counted as suspended.
            if !launchFailed { metrics[.prewarmsKilled] += 1 }
        } else if apps[a].state == .suspended {
            metrics[.coalescedDropped] += heldTotal(app)
            suspendedCount -= 1
        } else {
            stopRunning(app)
        }
        metrics.countKill(reason)
        if !byArchetype.isEmpty { byArchetype[Int(archetypeOf[pi(app)])].countKill(reason) }
        leaveCompressor(app, now)
        forgetFrozen(app)
        setResident(app, 0)
        let dockFlag = apps[a].flags & AppRuntime.inDock
        let launches = apps[a].launches
        let nextUse = apps[a].nextUse
        let lastUsed = apps[a].lastUsed
        let generations = apps[a].generations
        let packedKB = apps[a].packedKB
        // A prewarmed app that dies keeps its previous process's kill (whether the
        // user's place was lost is that process's story), unless a power-off.
        let lastKill = wasPrewarmed && reason != .powerOff ? apps[a].lastKill : reason.rawValue
        apps[a] = AppRuntime()
        apps[a].packedKB = packedKB
        apps[a].launches = launches
        apps[a].nextUse = nextUse
        apps[a].lastUsed = lastUsed
        apps[a].lastKill = lastKill
        apps[a].stateTime = now  // when it was killed (`filesCached`)
        apps[a].flags = dockFlag
        // Timer generations outlive the process, or a timer of the dead one could
        // match a timer of the next one: carry them over, then make every pending
        // timer stale.
        apps[a].generations = generations
        for family in 0..<3 { cancelTimers(app, family: family) }
        removeCandidate(app)
        if front == app { front = -1 }
        if params.android.enabled { androidForget(app) }
        if android.previous == app { android.previous = -1 }
        trace.record(time: now, app: app, event: .terminated(reason), detail: .reason(reason), state: .notRunning)
    }

    // MARK: Saves

    /// Starts saving the unsaved work (one save at a time). It completes after the
    /// app's save duration, if the app is still executing code then.
    mutating func startSave(_ app: Int32, _ now: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        let a = Int(app)
        guard !apps[a].has(AppRuntime.saveInFlight) else { return }
        accrueUnsaved(app, now)
        guard apps[a].unsavedMicros > 0 else { return }
        apps[a].saveSnapshot = apps[a].unsavedMicros
        apps[a].set(AppRuntime.saveInFlight)
        scheduleTimer(.saveDone, app, at: now + profiles[pi(app)].saveDuration, &s)
    }

    mutating func completeSave(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard apps[a].has(AppRuntime.saveInFlight), apps[a].state.executesCode else { return }
        apps[a].clear(AppRuntime.saveInFlight)
        apps[a].unsavedMicros -= apps[a].saveSnapshot
        apps[a].saveSnapshot = 0
        metrics[.savesCompleted] += 1
        if apps[a].state == .background { refreshCandidate(app, now) }
    }

    /// An on-terminate app saves inside willTerminate, if the save fits its limit.
    mutating func saveOnTerminate(_ app: Int32) {
        let a = Int(app)
        let p = pi(app)
        guard profiles[p].save == .onTerminate, apps[a].unsavedMicros > 0 else { return }
        if profiles[p].saveDuration <= params.willTerminateLimit {
            apps[a].unsavedMicros = 0
            metrics[.savesCompleted] += 1
        } else {
            metrics[.savesAbandoned] += 1
        }
    }

    // MARK: System events

    /// A system event for `app`: delivered at once if it runs, held and coalesced if
    /// it is suspended, ignored if it is not running.
    mutating func systemEvent(_ kind: SystemEventKind, value: Int32, to app: Int32, _ now: SimTime) {
        let a = Int(app)
        switch apps[a].state {
        case .active, .inactive, .background:
            metrics[.immediateDeliveries] += 1
            trace.record(time: now, app: app, event: .deliver(kind, count: 1), detail: .delivery(kind, 1, value: value), state: apps[a].state)
        case .suspended where !apps[a].isPrewarmed:
            metrics[.coalescedReceived] += 1
            apps[a].held.hold(kind, value: value)
        case .suspended, .notRunning:
            // Not running, or prewarmed (stopped before main: it registered for nothing).
            break
        }
    }

    /// Delivers held events, one per kind (after willEnterForeground, before
    /// didBecomeActive): those addressed to the app while it was suspended, and the
    /// broadcasts it missed since its mark.
    mutating func deliverHeld(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        // Nothing held and no broadcast missed (a replay, a workload without system
        // events): nothing to deliver, and the held counts are zero already.
        if apps[a].held.total == 0 && apps[a].broadcastMark == broadcastCount { return }
        let mark = Int(apps[a].broadcastMark) * SystemEventKind.count
        let totals = broadcastHistory.count - SystemEventKind.count
        for k in SystemEventKind.allCases {
            let missed = Int(broadcastHistory[totals + Int(k.rawValue)] - broadcastHistory[mark + Int(k.rawValue)])
            let n = apps[a].held.count(k) + missed
            if n > 0 {
                metrics[.coalescedDelivered] += 1
                let value = missed > 0 ? Int32(broadcastLatest[Int(k.rawValue)]) : apps[a].held.value(k)
                trace.record(time: now, app: app, event: .deliver(k, count: n), detail: .delivery(k, n, value: value), state: apps[a].state)
            }
        }
        apps[a].held = HeldEvents()
    }

    /// The number of broadcasts so far.
    @inline(__always) var broadcastCount: UInt32 { UInt32(broadcastHistory.count / SystemEventKind.count - 1) }

    /// Events held for a suspended app: addressed to it, plus broadcasts it missed.
    @inline(__always) func heldTotal(_ app: Int32) -> Int {
        apps[Int(app)].held.total + Int(broadcastCount - apps[Int(app)].broadcastMark)
    }

    /// An event for every app (orientation, locale, location): delivered at once to
    /// each running app; counted as held by every suspended one, which finds out what
    /// it missed when it resumes. O(running apps), not O(apps).
    mutating func broadcast(_ kind: SystemEventKind, value: Int32, _ now: SimTime) {
        let k = Int(kind.rawValue)
        broadcastLatest[k] = UInt8(clamping: value)
        // The new totals: the last entry's, one more of this kind.
        let last = broadcastHistory.count - SystemEventKind.count
        for j in 0..<SystemEventKind.count { broadcastHistory.append(broadcastHistory[last + j] &+ (j == k ? 1 : 0)) }
        metrics[.coalescedReceived] += suspendedCount
        for app in running {
            metrics[.immediateDeliveries] += 1
            trace.record(time: now, app: app, event: .deliver(kind, count: 1), detail: .delivery(kind, 1, value: value), state: apps[Int(app)].state)
        }
    }

    /// Takes an app off the running list (it stopped executing code), keeping the
    /// others' order (warnings go out in it). By hand: the generic `remove(at:)` was a
    /// call and a memmove per suspension (0.7 % of the default run's instructions).
    mutating func stopRunning(_ app: Int32) {
        // Found by hand too (`firstIndex(of:)` stayed a generic call), reading through a
        // buffer: no bounds check per app.
        let n = running.count
        let i = running.withUnsafeBufferPointer { r in
            var i = 0
            while i < n && r[i] != app { i &+= 1 }
            return i
        }
        if i == n { return }
        let last = n &- 1
        if i < last {
            running.withUnsafeMutableBufferPointer { r in
                for j in i..<last { r[j] = r[j &+ 1] }
            }
        }
        // The last app (most often the one that just left the front): no shift, and
        // one uniqueness check, removeLast's.
        running.removeLast()
    }
}
