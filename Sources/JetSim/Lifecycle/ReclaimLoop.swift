import SimKernel

// The lifecycle: the one reclaim loop, and the reclaims each change of memory asks
// the memory manager for. A manager never kills (Device/Reclaim.swift): at a change of
// memory the lifecycle asks its hook (`reclaimAfterFall`, `reclaimAfterChange`,
// `reclaimForRoom`, `reclaimAfterLeavingFront`, `reclaimOnTimer`: Memory/MemoryManager.swift)
// which reclaim is next, runs it here, and asks again until the answer is nil.
extension Device {
    /// The reclaim loop: the trigger's manager picks one action at a time
    /// (`pickReclaimAction`), the loop does it, until the manager answers none. The
    /// trace brackets each loop here, once.
    mutating func reclaim(_ trigger: ReclaimTrigger, _ now: SimTime, launchFailed: Bool = false) {
        core.trace.killLoop(began: true)
        core.policy.clock(now)
        var cursor = memory.startReclaim(&core, trigger)
        loop: while true {
            switch memory.pickReclaimAction(&core, trigger, &cursor, now) {
            case .none:
                break loop
            case .kill(let app, let victim, let reason):
                memory.reclaimWillKill(&core, trigger, now)
                if app == victim { core.policy.willEvict(victim) }
                if core.apps[Int(app)].state.isResident {
                    terminate(app, reason, now, launchFailed: launchFailed)
                } else {
                    // A launch that found no room for a process that never ran.
                    core.recordFailedLaunch(app, reason, now)
                }
                memory.reclaimKilled(&core, trigger, reason, now)
            case .spare(let app):
                memory.reclaimSpare(&core, app)
            case .killOwnProcess:
                memory.reclaimWillKill(&core, trigger, now)
                memory.reclaimOwnProcess(&core, now)
            }
        }
        core.trace.killLoop(began: false)
    }

    /// Available memory fell (a launch, a wake, a prewarm, growth): the manager's
    /// reclaims (`reclaimAfterFall`). O(1) unless a trigger fires.
    @inline(__always) mutating func memoryFell(_ now: SimTime) {
        var q = ReclaimSequence()
        while let trigger = memory.reclaimAfterFall(&core, &q, now) { reclaim(trigger, now) }
    }

    /// Memory or a band changed (a suspension, a band change): the manager's reclaims
    /// (`reclaimAfterChange`).
    @inline(__always) mutating func memoryChanged(_ now: SimTime) {
        var q = ReclaimSequence()
        while let trigger = memory.reclaimAfterChange(&core, &q, now) { reclaim(trigger, now) }
    }

    /// A launch, wake or growth step of `app` needs `needKB` more: the manager makes
    /// room (`reclaimForRoom`). Meanwhile `app` is `launching` (a launch marks it from
    /// earlier: its dock update), which every path of the room-making reads: reclaim
    /// spares it, no warning reaches it, and nothing makes it a candidate again
    /// (`refreshCandidate`). Inlined at its three callers (launch, wake, growth;
    /// measured in docs/performance.md, "the reclaim loop the lifecycle's").
    @inline(__always)
    mutating func makeRoom(needKB: Int64, for app: Int32, _ now: SimTime) {
        let outer = core.launching
        core.launching = app
        defer { core.launching = outer }
        var q = ReclaimSequence()
        while let trigger = memory.reclaimForRoom(&core, needKB: needKB, &q, now) { reclaim(trigger, now) }
    }

    /// An app just left the front and is a candidate again: the manager's reclaim for
    /// it, if any (`reclaimAfterLeavingFront`: XNU's inactive limit). Never the app
    /// being launched (that one is not leaving the front).
    @inline(__always) mutating func memoryAppLeftFront(_ app: Int32, _ now: SimTime) {
        assert(app != core.launching, "the app being launched left the core.front")
        if let trigger = memory.reclaimAfterLeavingFront(&core, app, now) { reclaim(trigger, now) }
    }

    /// One of the manager's own timers fired (`DeviceEvent.Kind.isDeviceTimer`): its
    /// reclaims (`reclaimOnTimer`).
    mutating func memoryTimerFired(_ kind: DeviceEvent.Kind, _ now: SimTime) {
        var q = ReclaimSequence()
        while let trigger = memory.reclaimOnTimer(&core, kind, &q, now) { reclaim(trigger, now) }
    }

    /// A timer or a change may have moved a candidate to another band: the policy
    /// hears of it if it did, and the manager of the change (`memoryChanged`).
    mutating func bandMayChange(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard core.apps[a].state == .background || core.apps[a].state == .suspended else { return }
        if memory.band(core, app, now) != core.apps[a].band { refreshCandidate(app, now) }
        memoryChanged(now)
    }

    /// A scripted pressure spike: some other process claims `demandKB`. The kill loop
    /// runs until the demand fits above the target; the foreground app dies only if
    /// nothing else is left and the demand still does not fit.
    mutating func pressureSpike(demandKB: Int64, _ now: SimTime) {
        reclaim(.untilAvailable(demandKB + core.kb.killTargetKB), now)
        if core.availableKB - demandKB < core.kb.criticalKB && core.front >= 0 && !core.policy.hasCandidates {
            core.metrics[.foregroundKills] += 1
            reclaim(.app(core.front, .memoryPressure), now)
        }
    }
}

