import SimKernel

// The lifecycle: termination, whoever decides it.
extension Device {
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
        if apps[a].lifecycle.contains(.saveInFlight) { metrics[.savesAbandoned] += 1 }
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
        memoryAppExited(app, now)
        setResident(app, 0)
        let dock = apps[a].memory.intersection(.inDock)
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
        apps[a].filesCachedSince = now  // `filesCached`
        apps[a].memory = dock
        // Timer generations outlive the process, or a timer of the dead one could
        // match a timer of the next one: carry them over, then make every pending
        // timer stale.
        apps[a].generations = generations
        for family in 0..<3 { cancelTimers(app, family: family) }
        removeCandidate(app)
        if front == app { front = -1 }
        if previousApp == app { previousApp = -1 }
        trace.record(time: now, app: app, event: .terminated(reason), detail: .reason(reason), state: .notRunning)
    }
}
