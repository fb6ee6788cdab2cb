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
        if core.apps[a].lifecycle.contains(.exitCommitted) {
            core.send(.willTerminate, to: app, now)
            saveOnTerminate(app, now)
            terminate(app, .exitsOnSuspend, now)
        } else if core.apps[a].lifecycle.contains(.watchdogCommitted) {
            terminate(app, .watchdog, now)
        }
        let p = core.pi(app)
        // A prewarmed process (`prewarm`) is launched as from not running: it stopped
        // before main, so it gets didFinishLaunching now; its launch is `cold` less the
        // pre-main part it already did, or `cached` when its files are still in the
        // page cache and that is faster (then the prewarm saved nothing: not counted).
        let wasPrewarmed = core.apps[a].isPrewarmed
        if wasPrewarmed {
            core.apps[a].lifecycle.remove(.prewarmed)
            core.apps[a].state = .notRunning
        }
        let prior = core.apps[a].state
        let wasFrozen = core.apps[a].memory.contains(.frozen)
        var wasCompressed = core.apps[a].memory.contains(.compressed)
        // A part-compressed app decompresses only what was compressed so far (set
        // when it leaves the compressor below).
        let wasPart = core.apps[a].memory.contains(.compressing)
        var partKB: Int64? = nil
        let kind: LaunchKind = prior == .notRunning
            ? (core.filesCached(app, now) && (!wasPrewarmed || core.cachedLatency(p) <= core.prewarmedLatency(p)) ? .cached : .cold)
            : prior == .suspended ? (wasFrozen ? .thaw : .warm) : .hot
        let usedPrewarm = wasPrewarmed && kind == .cold
        let isRelaunch = core.apps[a].launches > 0
        core.metrics[.launches] += 1
        core.countByArchetype(app, .launches)
        let nextUse = actionIndex >= 0 && actionIndex < core.timeline.nextUseAfter.count ? core.timeline.nextUseAfter[actionIndex] : nil
        // Its count and next use; background timers stop and its background work with
        // them (it carries on in front). Neither the policy's removal nor the dock below
        // reads the timers or those two flags.
        core.apps[a].launches &+= 1
        if let nextUse { core.apps[a].nextUse = nextUse }
        core.apps[a].cancel(0)
        core.apps[a].lifecycle.subtract([.bgTask, .modeActive, .systemStarted])
        core.dropHeldTimer(app)  // the rest of `cancelTimers(app, family: 0)`
        // No longer a candidate, through to the front (or its failure).
        removeCandidate(app)
        core.launching = app
        defer { core.launching = -1 }
        // The app the dock let go, if any, may be in another band now.
        let leftDock = memory.appLaunching(&core, app, now)
        if leftDock >= 0 { bandMayChange(leftDock, now) }

        // Room for its active footprint, which it reaches during launch. An app over
        // the per-app limit (`core.kb.appLimitKB`: XNU's; none on Android) grows only to the
        // limit (others are killed to make room as it grows, as jetsam would) and is
        // then killed for exceeding it.
        // A thaw (or a resume of an app thawed before) leaves on flash what it does not
        // touch ("On-demand thaw"): its footprint in front is the rest.
        let limit = core.kb.appLimitKB
        let overLimit = core.profiles[p].activeKB > limit
        let reach = overLimit ? limit : max(0, core.profiles[p].activeKB - memory.onFlashKB(core, app))
        let need = max(0, reach - memory.residentNowKB(core, app))
        makeRoom(needKB: need, for: app, now)
        if core.availableKB < need {
            // Nothing else left to kill and it still does not fit: the launch fails.
            core.metrics[.launchFailures] += 1
            core.metrics[.foregroundKills] += 1
            if wasPrewarmed {
                core.apps[a].state = .suspended
                core.apps[a].lifecycle.insert(.prewarmed)
                reclaim(.app(app, .memoryPressure), now, launchFailed: true)
            } else {
                reclaim(.app(app, .memoryPressure), now)
            }
            return
        }
        core.front = app
        if usedPrewarm { core.metrics[.prewarmedLaunches] += 1 }
        var swapIn = SimTime.zero
        if kind.createsProcess {
            // A prewarmed app's process started at its prewarm.
            if !wasPrewarmed { core.policy.processStarted(app) }
            core.apps[a].state = .inactive
            core.setResident(app, max(reach, core.apps[a].residentKB))
            core.running.append(app)
            core.send(.didFinishLaunching, to: app, now)
        } else {
            core.apps[a].state = .inactive
            if kind == .warm || kind == .thaw {
                core.running.append(app)
                core.suspendedCount -= 1
                let resumed = memory.appResuming(&core, app, compressed: wasCompressed, frozen: wasFrozen, now)
                swapIn = resumed.swapIn
                if wasPart { partKB = resumed.compressedKB; wasCompressed = resumed.compressedKB > 0 }
                if wasCompressed { core.metrics[.decompressedKB] += Int(partKB ?? memory.suspendedPlainKB(core, app)) }
            }
            core.setResident(app, max(reach, core.apps[a].residentKB))
            core.send(.willEnterForeground, to: app, now)
            if kind == .warm || kind == .thaw { deliverHeld(app, now) }
        }
        if overLimit {
            core.metrics[.launchFailures] += 1
            reclaim(.app(app, .perProcessLimit), now)
            return
        }
        var latency: SimTime
        switch kind {
        case .cold: latency = usedPrewarm ? core.prewarmedLatency(p) : core.coldLatency(p)
        case .cached: latency = core.cachedLatency(p)
        case .warm, .thaw: latency = memory.resumeLatency(core, app, kind, compressed: wasCompressed, compressedKB: partKB, swapIn: swapIn)
        case .hot: latency = core.profiles[p].hotLaunch
        }
        if core.params.launchJitterSigma > 0 {
            // Keyed by the app's launch number, which the user alone decides: the
            // same jitter for this launch under every policy and RAM size.
            var g = core.appDraws(app, Draw.launchJitter, UInt64(core.apps[a].launches))
            latency = Self.lognormal(latency, core.params.launchJitterSigma, &g, core.normalTable)
        }
        memory.appLaunched(&core, app, kind, relaunch: isRelaunch, latency: latency)
        if isRelaunch {
            core.metrics[.relaunches] += 1
            core.countByArchetype(app, .relaunches)
            switch kind {
            case .cold, .cached:
                core.metrics[.coldRelaunches] += 1
                core.countByArchetype(app, .coldRelaunches)
                if kind == .cached { core.metrics[.cachedRelaunches] += 1 }
                if !core.profiles[p].preservesUIState, core.apps[a].lastKill.contains(.losesUserPlace) {
                    core.metrics[.stateLossEvents] += 1
                }
            case .warm:
                core.metrics[.warmRelaunches] += 1
                if wasCompressed { core.metrics[.decompressedRelaunches] += 1 }
            case .thaw:
                core.metrics[.warmRelaunches] += 1
                core.metrics[.thawedRelaunches] += 1
            case .hot: core.metrics[.hotRelaunches] += 1
            }
            core.relaunchLatencyByKind.record(latency, kind == .cold ? .cold : kind == .cached ? .cached : kind == .hot ? .hot
                                         : kind == .thaw ? .thaw : wasCompressed ? .decompressed : .resume)
            core.metrics[.relaunchLatencySumMicros] = .saturatingSum(core.metrics[.relaunchLatencySumMicros], Int(latency.microseconds))
            core.countRelaunchLatencyByGroup(app, latency)
        }
        core.apps[a].lastKill = KillMark()
        core.apps[a].state = .active
        core.apps[a].activeSince = now
        core.send(.didBecomeActive, to: app, now, detail: .launch(kind, latency: latency))
        if core.profiles[p].saves(.periodic) {
            core.cancelTimers(app, family: 2)
            core.scheduleTimer(.periodicSave, app, at: now + core.profiles[p].saveInterval, &s)
        }
        if core.params.memoryGrowth && core.profiles[p].peakKB > core.apps[a].residentKB && core.params.growthStep > .zero {
            core.scheduleTimer(.grow, app, at: now + core.params.growthStep, &s)
        }
        memoryFell(now)
    }
}
