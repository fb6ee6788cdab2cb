import SimKernel

// The lifecycle: saves of the unsaved work.
extension Device {
    // MARK: Saves

    /// Starts saving the unsaved work (one save at a time). It completes after the
    /// app's save duration, if the app is still executing code then.
    mutating func startSave(_ app: Int32, _ now: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        let a = Int(app)
        guard !apps[a].lifecycle.contains(.saveInFlight) else { return }
        accrueUnsaved(app, now)
        guard apps[a].unsavedMicros > 0 else { return }
        apps[a].saveSnapshot = apps[a].unsavedMicros
        apps[a].lifecycle.insert(.saveInFlight)
        scheduleTimer(.saveDone, app, at: now + profiles[pi(app)].saveDuration, &s)
    }

    mutating func completeSave(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard apps[a].lifecycle.contains(.saveInFlight), apps[a].state.executesCode else { return }
        apps[a].lifecycle.remove(.saveInFlight)
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
}
