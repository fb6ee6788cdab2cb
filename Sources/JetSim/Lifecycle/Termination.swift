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
        precondition(core.apps[a].state.isResident, "terminate: app \(app) is not core.running")
        core.accrueUnsaved(app, now)
        if core.apps[a].state.executesCode && reason.noticesRunningApp {
            core.send(.willTerminate, to: app, now)
            saveOnTerminate(app)
        }
        let lost = core.unsavedEdits(app)
        if lost > 0 {
            core.metrics.countLoss(lost, strategy: core.profiles[core.pi(app)].save)
            if !core.byArchetype.isEmpty { core.byArchetype[Int(core.archetypeOf[core.pi(app)])].countLoss(lost, strategy: core.profiles[core.pi(app)].save) }
        }
        if core.apps[a].lifecycle.contains(.saveInFlight) { core.metrics[.savesAbandoned] += 1 }
        let wasPrewarmed = core.apps[a].isPrewarmed
        if wasPrewarmed {
            // Killed before any launch used it: a wasted prewarm (not when the user's
            // launch of it failed). It held no events and was not counted as suspended.
            if !launchFailed { core.metrics[.prewarmsKilled] += 1 }
        } else if core.apps[a].state == .suspended {
            core.metrics[.coalescedDropped] += heldTotal(app)
            core.suspendedCount -= 1
        } else {
            stopRunning(app)
        }
        core.metrics.countKill(reason)
        if !core.byArchetype.isEmpty { core.byArchetype[Int(core.archetypeOf[core.pi(app)])].countKill(reason) }
        memory.appExited(&core, app, now)
        core.setResident(app, 0)
        let kept = core.apps[a].memory.intersection(memory.marksKeptOnExit)
        let launches = core.apps[a].launches
        let nextUse = core.apps[a].nextUse
        let lastUsed = core.apps[a].lastUsed
        let generations = core.apps[a].generations
        let packedKB = core.apps[a].packedKB
        // A prewarmed app that dies keeps its previous process's kill (whether the
        // user's place was lost is that process's story), unless a power-off.
        let lastKill = wasPrewarmed && reason != .powerOff ? core.apps[a].lastKill : reason.mark
        core.apps[a] = AppRuntime()
        core.apps[a].packedKB = packedKB
        core.apps[a].launches = launches
        core.apps[a].nextUse = nextUse
        core.apps[a].lastUsed = lastUsed
        core.apps[a].lastKill = lastKill
        core.apps[a].filesCachedSince = now  // `filesCached`
        core.apps[a].memory = kept
        // Timer generations outlive the process, or a timer of the dead one could
        // match a timer of the next one: carry them over, then make every pending
        // timer stale.
        core.apps[a].generations = generations
        for family in 0..<3 { core.cancelTimers(app, family: family) }
        removeCandidate(app)
        if core.front == app { core.front = -1 }
        if core.previousApp == app { core.previousApp = -1 }
        core.trace.record(time: now, app: app, event: .terminated(reason), detail: .reason(reason), state: .notRunning)
    }
}
