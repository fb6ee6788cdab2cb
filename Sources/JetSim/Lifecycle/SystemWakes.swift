import SimKernel

// The lifecycle: apps the system launches or wakes in the background, and iOS 15's
// prewarming.
extension Device {
    /// The system launches `app` into the background or wakes it there (seed 000: "it
    /// is launched by the system if the app processes events in background or monitors
    /// a significant location change"). Not running: the process is created at its
    /// background footprint (room is made as for a launch; without room it is not
    /// launched), didFinishLaunching, and it runs `systemWakeRun` under a background
    /// assertion (band 30), then is suspended; it can be killed like any background
    /// app. Suspended: woken the same way, its held events delivered. Running: the
    /// event reaches it at once. The user's launch counters do not change.
    /// A prewarmed app is launched as from not running (didFinishLaunching: it had not
    /// run main), and counted as a system launch.
    mutating func systemWake(_ app: Int32, _ kind: SystemWakeKind, _ s: inout Scheduler<DeviceEvent>) {
        if kind == .prewarm { prewarm(app, s.now); return }
        let now = s.now
        let a = Int(app)
        let p = core.pi(app)
        let wasPrewarmed = core.apps[a].isPrewarmed
        if wasPrewarmed { core.apps[a].lifecycle.remove(.prewarmed); core.apps[a].state = .notRunning }
        let prior = core.apps[a].state
        guard prior == .notRunning || prior == .suspended else {
            core.trace.record(time: now, app: app, event: .systemWake(kind), detail: .none, state: prior)
            return
        }
        removeCandidate(app)
        // A frozen or thawed app leaves on flash what it does not touch, as at a
        // launch ("On-demand thaw"): it needs its background footprint less that.
        let need = max(0, max(0, core.profiles[p].backgroundKB - memory.onFlashKB(core, app)) - memory.residentNowKB(core, app))
        makeRoom(needKB: need, for: app, now)
        if core.availableKB < need {
            // No room even after the kill loop: the system does not launch it (a
            // prewarmed process stays prewarmed).
            if wasPrewarmed { core.apps[a].lifecycle.insert(.prewarmed); core.apps[a].state = .suspended }
            if core.apps[a].state == .suspended { refreshCandidate(app, now) }
            return
        }
        if prior == .notRunning {
            // A prewarmed process started at its prewarm.
            if !wasPrewarmed { core.policy.processStarted(app) }
            core.metrics[.systemLaunches] += 1
            core.apps[a].lifecycle.insert(.systemStarted)
            core.trace.record(time: now, app: app, event: .systemLaunch(kind), detail: .none, state: .notRunning)
        } else {
            core.metrics[.systemWakes] += 1
            core.suspendedCount -= 1
            // As a user's resume (launch); on Android its stall without a launch to slow.
            _ = memory.appResuming(&core, app, compressed: core.apps[a].memory.contains(.compressed), frozen: core.apps[a].memory.contains(.frozen), now)
            core.trace.record(time: now, app: app, event: .systemWake(kind), detail: .none, state: .background)
        }
        core.apps[a].state = .background
        core.running.append(app)
        core.setResident(app, core.apps[a].residentKB + need)
        if prior == .notRunning { core.send(.didFinishLaunching, to: app, now) } else { deliverHeld(app, now) }
        core.cancelTimers(app, family: 0)
        core.apps[a].lifecycle.insert(.bgTask)
        core.apps[a].suspendNotBefore = now + core.params.systemWakeRun
        core.scheduleTimer(.bgTaskDone, app, at: now + core.params.systemWakeRun, &s)
        refreshCandidate(app, now)
        memoryFell(now)
    }

    /// iOS 15 prewarming (Apple, "About the app launch sequence": "In iOS 15 and later,
    /// the system may, depending on device conditions, prewarm your app — launch
    /// nonrunning application processes to reduce the amount of time the user waits
    /// before the app is usable. Prewarming executes an app’s launch sequence up until,
    /// but not including, when main() calls UIApplicationMain(_:_:).").
    ///
    /// A not-running app's process is created with its pre-main footprint (`prewarmKB`)
    /// and stops before main: state `suspended` (it executes no code) with the
    /// `prewarmed` mark, in the idle band (0) as XNU puts an idle process, not in the
    /// running list, sent no delegate message and no system event, never compressed
    /// or frozen. It can be killed silently like a suspended app (`prewarms_killed`).
    /// The user's launch of it is cold minus `prewarmSaving` (`launch`).
    /// "Depending on device conditions": the system kills nothing to prewarm and does
    /// not prewarm when it would take available memory below the warning level
    /// (*assumption*: no published rule). Any other state: nothing happens.
    mutating func prewarm(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        let need = core.profiles[core.pi(app)].prewarmKB
        guard memory.prewarms(core.params), core.apps[a].state == .notRunning, core.availableKB - need >= core.kb.warningKB else { return }
        core.policy.processStarted(app)
        core.apps[a].state = .suspended
        core.apps[a].lifecycle.insert(.prewarmed)
        core.apps[a].broadcastMark = broadcastCount
        core.apps[a].filesCachedSince = now  // its files are read (`filesCached`)
        core.setResident(app, need)
        core.metrics[.prewarms] += 1
        core.trace.record(time: now, app: app, event: .systemLaunch(.prewarm), detail: .none, state: .suspended)
        refreshCandidate(app, now)
        memoryFell(now)
    }
}
