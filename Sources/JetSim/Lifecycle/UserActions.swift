import SimKernel

// The lifecycle: user actions, as the seeds say each one reaches the frontmost app (seed
// 002's scenarios, seeds 000 and 001 for interruptions, seed 004 for lock and
// background). `UIState` decides whether an action can happen now and what it does to
// the app in front; the device refuses what it refuses (nothing happens;
// `refusedActions` counts it) exactly as the scenario parser does. The device is
// tolerant only of memory: an action whose app is gone changes what it can and sends
// nothing.
extension Device {
    @inline(__always)
    mutating func perform(_ action: UserAction, index: Int, _ s: inout Scheduler<DeviceEvent>) {
        // A replay's actions, nearly all a launch or Home on an uncovered screen (not
        // off), done as the general path below does them: `ui.apply` accepts both,
        // changes nothing (Home closes the switcher and the power dialog, closed
        // already) and covers or uncovers nothing. It cost a call, its refusal checks
        // and the effect's enum per action. This part is inlined into the caller, the
        // rest is out of line (docs/performance.md, passes 6 and 7).
        if !core.ui.covered && !core.ui.poweredOff {
            if action.kind == .launch {
                let app = action.app
                if core.front >= 0 && core.front != app { leaveFront(s.now, &s) }
                if core.front != app { launch(app, actionIndex: index, &s) }
                return
            }
            if action.kind == .home {
                if core.front >= 0 { leaveFront(s.now, &s) }
                return
            }
        }
        performGeneral(action, index: index, &s)
    }

    /// `perform` for every other action, or a covered or powered-off screen.
    @inline(never)
    mutating func performGeneral(_ action: UserAction, index: Int, _ s: inout Scheduler<DeviceEvent>) {
        let now = s.now
        let wasCovered = core.ui.covered
        let effect: UIState.FrontEffect
        do { effect = try core.ui.apply(action) } catch {
            core.refusedActions += 1
            return
        }
        switch action.kind {
        case .notify:
            let kind = SystemEventKind(rawValue: action.eventKind) ?? .notification
            if action.app == UserAction.allApps {
                broadcast(kind, value: action.value, now)
            } else {
                systemEvent(kind, value: action.value, to: action.app, now)
            }
            return
        case .pressureWarning:
            memory.sendMemoryWarnings(&core, now)
            return
        case .pressureCritical:
            pressureSpike(demandKB: Int64(action.value) * 1_024, now)
            return
        case .systemWake:
            systemWake(action.app, SystemWakeKind(rawValue: action.eventKind) ?? .silentPush, &s)
            return
        case .end:
            return
        default:
            break
        }
        switch effect {
        case .none:
            break
        case .open(let app):
            // From the home screen; an app still in front goes to the background first.
            if core.front >= 0 && core.front != app { leaveFront(now, &s) }
            if core.front != app { launch(app, actionIndex: index, &s) }
        case .toBackground:
            if core.front >= 0 { leaveFront(now, &s) }
        case .pick(let app):
            if app != core.front {
                if core.front >= 0 { leaveFront(now, &s) }
                launch(app, actionIndex: index, &s)
            }
        case .remove(let app):
            if core.apps[Int(app)].state.isResident { terminate(app, .user, now) }
        case .powerOff:
            if core.front >= 0 {
                let app = core.front
                enterBackground(app, now, &s)
                terminate(app, .powerOff, now)
            }
            for a in core.apps.indices where core.apps[a].state.isResident {
                terminate(Int32(a), .powerOff, now)
            }
            return
        }
        // Covered: willResignActive (once); uncovered: didBecomeActive (seed 003's rows
        // for the switcher, the lock and the power dialog; seed 000's for interruptions).
        if core.front >= 0 {
            if core.ui.covered { resignActive(core.front, now, &s) } else if wasCovered { becomeActive(core.front, now) }
        }
    }

    /// The app in front leaves it: willResignActive (if active), didEnterBackground.
    mutating func leaveFront(_ now: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        let app = core.front
        guard app >= 0 else { return }
        resignActive(app, now, &s)
        enterBackground(app, now, &s)
    }
}
