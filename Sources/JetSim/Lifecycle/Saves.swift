import SimKernel

// The lifecycle: saves of the unsaved work.
extension Device {
    // MARK: Saves

    /// Starts saving the unsaved work (one save at a time). It completes after the
    /// app's save duration, if the app is still executing code then.
    mutating func startSave(_ app: Int32, _ now: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        let a = Int(app)
        guard !core.apps[a].lifecycle.contains(.saveInFlight) else { return }
        core.accrueUnsaved(app, now)
        guard core.apps[a].unsavedMicros > 0 else { return }
        core.apps[a].saveSnapshot = core.apps[a].unsavedMicros
        core.apps[a].lifecycle.insert(.saveInFlight)
        core.scheduleTimer(.saveDone, app, at: now + core.profiles[core.pi(app)].saveDuration, &s)
    }

    mutating func completeSave(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard core.apps[a].lifecycle.contains(.saveInFlight), core.apps[a].state.executesCode else { return }
        core.apps[a].lifecycle.remove(.saveInFlight)
        core.apps[a].unsavedMicros -= core.apps[a].saveSnapshot
        core.apps[a].saveSnapshot = 0
        core.metrics[.savesCompleted] += 1
        core.trace.record(time: now, app: app, event: .saved, detail: .none, state: core.apps[a].state)
        if core.apps[a].state == .background { refreshCandidate(app, now) }
    }

    /// An app saving on terminate saves inside willTerminate, if the save fits its limit.
    mutating func saveOnTerminate(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        let p = core.pi(app)
        guard core.profiles[p].saves(.onTerminate), core.apps[a].unsavedMicros > 0 else { return }
        if core.profiles[p].saveDuration <= core.params.willTerminateLimit {
            core.apps[a].unsavedMicros = 0
            core.metrics[.savesCompleted] += 1
            core.trace.record(time: now, app: app, event: .saved, detail: .none, state: core.apps[a].state)
        } else {
            core.metrics[.savesAbandoned] += 1
            core.trace.record(time: now, app: app, event: .saveAbandoned, detail: .none, state: core.apps[a].state)
        }
    }
}
