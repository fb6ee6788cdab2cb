import SimKernel

// The lifecycle: launches (cold, cached, warm, thaw, hot).
extension Device {
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
        if apps[a].lifecycle.contains(.exitCommitted) {
            send(.willTerminate, to: app, now)
            saveOnTerminate(app)
            terminate(app, .exitsOnSuspend, now)
        } else if apps[a].lifecycle.contains(.watchdogCommitted) {
            terminate(app, .watchdog, now)
        }
        let p = pi(app)
        // A prewarmed process (`prewarm`) is launched as from not running: it stopped
        // before main, so it gets didFinishLaunching now; its launch is `cold` less the
        // pre-main part it already did, or `cached` when its files are still in the
        // page cache and that is faster (then the prewarm saved nothing: not counted).
        let wasPrewarmed = apps[a].isPrewarmed
        if wasPrewarmed {
            apps[a].lifecycle.remove(.prewarmed)
            apps[a].state = .notRunning
        }
        let prior = apps[a].state
        let wasFrozen = apps[a].memory.contains(.frozen)
        var wasCompressed = apps[a].memory.contains(.compressed)
        // A part-compressed app decompresses only what was compressed so far (set
        // when it leaves the compressor below).
        let wasPart = apps[a].memory.contains(.compressing)
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
        // them (it carries on in front). Neither the policy's removal nor the dock below
        // reads the timers or those two flags.
        apps[a].launches &+= 1
        if let nextUse { apps[a].nextUse = nextUse }
        apps[a].cancel(0)
        apps[a].lifecycle.subtract([.bgTask, .modeActive, .systemStarted])
        dropHeldTimer(app)  // the rest of `cancelTimers(app, family: 0)`
        // No longer a candidate, through to the front (or its failure).
        removeCandidate(app)
        launching = app
        defer { launching = -1 }
        // The app the dock let go, if any, may be in another band now.
        let leftDock = memoryAppLaunching(app, now)
        if leftDock >= 0 { bandMayChange(leftDock, now) }

        // Room for its active footprint, which it reaches during launch. An app over
        // the per-app limit (`appLimitKB`: XNU's; none on Android) grows only to the
        // limit (others are killed to make room as it grows, as jetsam would) and is
        // then killed for exceeding it.
        // A thaw (or a resume of an app thawed before) leaves on flash what it does not
        // touch ("On-demand thaw"): its footprint in front is the rest.
        let limit = appLimitKB
        let overLimit = profiles[p].activeKB > limit
        let reach = overLimit ? limit : max(0, profiles[p].activeKB - onFlashKB(app))
        let need = max(0, reach - residentNowKB(app))
        makeRoom(needKB: need, for: app, now)
        if availableKB < need {
            // Nothing else left to kill and it still does not fit: the launch fails.
            metrics[.launchFailures] += 1
            metrics[.foregroundKills] += 1
            if wasPrewarmed {
                apps[a].state = .suspended
                apps[a].lifecycle.insert(.prewarmed)
                reclaim(.app(app, .memoryPressure), now, launchFailed: true)
            } else {
                reclaim(.app(app, .memoryPressure), now)
            }
            return
        }
        front = app
        if usedPrewarm { metrics[.prewarmedLaunches] += 1 }
        var swapIn = SimTime.zero
        if kind.createsProcess {
            // A prewarmed app's process started at its prewarm.
            if !wasPrewarmed { policy.processStarted(app) }
            apps[a].state = .inactive
            setResident(app, max(reach, apps[a].residentKB))
            running.append(app)
            send(.didFinishLaunching, to: app, now)
        } else {
            apps[a].state = .inactive
            if kind == .warm || kind == .thaw {
                running.append(app)
                suspendedCount -= 1
                let resumed = memoryAppResuming(app, compressed: wasCompressed, frozen: wasFrozen, now)
                swapIn = resumed.swapIn
                if wasPart { partKB = resumed.compressedKB; wasCompressed = resumed.compressedKB > 0 }
                if wasCompressed { metrics[.decompressedKB] += Int(partKB ?? suspendedPlainKB(app)) }
            }
            setResident(app, max(reach, apps[a].residentKB))
            send(.willEnterForeground, to: app, now)
            if kind == .warm || kind == .thaw { deliverHeld(app, now) }
        }
        if overLimit {
            metrics[.launchFailures] += 1
            reclaim(.app(app, .perProcessLimit), now)
            return
        }
        var latency: SimTime
        switch kind {
        case .cold: latency = usedPrewarm ? prewarmedLatency(p) : coldLatency(p)
        case .cached: latency = cachedLatency(p)
        case .warm, .thaw: latency = resumeLatency(app, kind, compressed: wasCompressed, compressedKB: partKB, swapIn: swapIn)
        case .hot: latency = profiles[p].hotLaunch
        }
        if params.launchJitterSigma > 0 {
            // Keyed by the app's launch number, which the user alone decides: the
            // same jitter for this launch under every policy and RAM size.
            var g = appDraws(app, Self.drawLaunchJitter, UInt64(apps[a].launches))
            latency = Self.lognormal(latency, params.launchJitterSigma, &g, normalTable)
        }
        memoryAppLaunched(app, kind, relaunch: isRelaunch, latency: latency)
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
}
