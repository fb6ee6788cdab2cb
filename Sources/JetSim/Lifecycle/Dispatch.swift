import SimKernel

// The device's events, dispatched: the user's actions and the system's arrivals
// (`handleInput`), and its timers (`handle`): the lifecycle's, and the memory manager's
// (sustained pressure, an idle daemon's relaunch) through its hooks. The top of the
// device: it calls the lifecycle, the memory hooks and the core, and nothing below
// calls it (docs/layout.md).
extension Device {
    /// Performs the next user action, or the next system launch or wake. Inlined into
    /// `handleInputs`, its one caller in a run: one entry and exit a call of that, not
    /// one an input.
    @inline(__always)
    public mutating func handleInput(scheduler s: inout Scheduler<DeviceEvent>) {
        core.holdApps()
        memory.timePassed(&core, s.now)
        core.inInput = true
        defer { core.inInput = false }
        if core.heldApp >= 0 && core.heldDue <= s.now {
            // The held suspension timer (first at its time): as `handle` does
            // `suspendDue`, and as a timer, not an input: a timer its handler made
            // would be queued, not held (`suspendIfIdle` schedules nothing today).
            let app = core.heldApp
            core.heldApp = -1
            core.inInput = false
            suspendIfIdle(app, s.now)
        } else if core.nextAction < core.timeline.actions.count && core.timeline.actions[core.nextAction].time <= core.nextWake {
            let i = core.nextAction
            core.nextAction += 1
            perform(core.timeline.actions[i], index: i, &s)
        } else {
            let (app, kind) = (core.nextWakeApp, core.nextWakeKind)
            core.wakeCount &+= 1
            core.drawNextWake(after: core.nextWake)
            if !core.poweredOff {
                if kind == .prewarm {
                    let target = core.prewarmTarget()
                    if target >= 0 { prewarm(target, s.now) }
                } else {
                    systemWake(app, kind, &s)
                }
            }
        }
        memory.eventEnded(&core, &s)
        core.refreshInputTime()
        if core.checksInvariants { checkInvariantsAmortised() }
    }

    /// `handleInput`, then the inputs after it while no timer is queued
    /// (`EventHandler.handleInputs`: exactly what one engine step each would do). A
    /// replay's plain device queues nothing (its only timers, the suspensions, are
    /// held: `heldApp`), so its inputs (Home, the launch, the held suspension) run in
    /// one call, without an engine step each (docs/performance.md, pass 8).
    public mutating func handleInputs(notAfter end: SimTime, limit: Int, scheduler s: inout Scheduler<DeviceEvent>) -> Int {
        var k = 0
        while true {
            handleInput(scheduler: &s)
            k &+= 1
            guard k < limit, s.queue.isEmpty, let t = nextInputTime, t <= end else { return k }
            s.advance(toInput: t)
        }
    }

    public mutating func handle(_ e: DeviceEvent, scheduler s: inout Scheduler<DeviceEvent>) {
        core.holdApps()
        memory.timePassed(&core, s.now)
        switch e.kind {
        case .suspendDue:
            suspendIfIdle(e.app, s.now)
        case .bgTaskDone:
            core.apps[Int(e.app)].lifecycle.remove(.bgTask)
            backgroundWorkChanged(e.app, s.now)
        case .bgTaskExpired:
            // The allowance ran out with work unfinished: the system calls the
            // expiration handler. An app that ends its task there is suspended (if
            // nothing else keeps it running); one that does not is killed (Apple,
            // UIApplication.beginBackgroundTask(expirationHandler:)).
            core.apps[Int(e.app)].lifecycle.remove(.bgTask)
            core.send(.expirationHandler, to: e.app, s.now)
            if core.profiles[core.pi(e.app)].endsTaskOnExpiry {
                core.metrics[.bgExpiryEnded] += 1
                backgroundWorkChanged(e.app, s.now)
            } else {
                terminate(e.app, .bgTaskExpired, s.now)
            }
        case .modeEnded:
            core.apps[Int(e.app)].lifecycle.remove(.modeActive)
            backgroundWorkChanged(e.app, s.now)
        case .watchdogKill:
            terminate(e.app, .watchdog, s.now)
        case .exitOnSuspend:
            core.send(.willTerminate, to: e.app, s.now)
            saveOnTerminate(e.app, s.now)
            terminate(e.app, .exitsOnSuspend, s.now)
        case .saveDone:
            completeSave(e.app, s.now)
        case .grow:
            grow(e.app, &s)
        case .agingEnded:
            let a = Int(e.app)
            if core.apps[a].state == .background || core.apps[a].state == .suspended { bandMayChange(e.app, s.now) }
        case .periodicSave:
            let a = Int(e.app)
            if core.apps[a].state == .active || core.apps[a].state == .inactive {
                startSave(e.app, s.now, &s)
                core.scheduleTimer(.periodicSave, e.app, at: s.now + core.profiles[core.pi(e.app)].saveInterval, &s)
            }
        case .sustainedPressure, .idleDaemonRelaunch:
            memoryTimerFired(e.kind, s.now)
        }
        memory.eventEnded(&core, &s)
        if core.checksInvariants { checkInvariantsAmortised() }
    }
}
