import SimKernel

// The device's core: app timers (generations, the held suspension timer).
extension DeviceCore {
    /// Schedules an app timer stamped with the current generation of its slot.
    /// A suspension timer with nothing in the queue is held by the device (`heldApp`);
    /// a held one goes into the queue before anything else is scheduled, so the queue
    /// orders it (time, then sequence) exactly as if it had been pushed when made.
    @inline(__always)
    mutating func scheduleTimer(_ kind: DeviceEvent.Kind, _ app: Int32, at time: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        if heldApp >= 0 {
            queueHeldTimer(&s)
        } else if kind == .suspendDue && inInput && s.queue.isEmpty {
            // Held: only an input holds a timer, and `handleInput` refreshes the kept
            // input time at its end, so none is needed here (a replay holds a timer
            // at every row; docs/performance.md, pass 9).
            precondition(time >= s.now, "an event cannot be scheduled in the past")
            heldApp = app
            heldDue = time
            return
        }
        push(kind, app, at: time, &s)
    }

    /// The held suspension timer goes into the queue (before the timer being
    /// scheduled). Apart from the hold above, which a replay does at every row.
    mutating func queueHeldTimer(_ s: inout Scheduler<DeviceEvent>) {
        let held = heldApp
        heldApp = -1
        refreshInputTime()
        push(.suspendDue, held, at: heldDue, &s)
    }

    @inline(__always) mutating func push(_ kind: DeviceEvent.Kind, _ app: Int32, at time: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        var e = DeviceEvent(kind, app: app)
        e.stamp = UInt32(apps[Int(app)].generation(e.slotFamily))
        s.schedule(e, at: time)
    }

    /// Cancels an app's timers of one family (0 background, 1 save, 2 periodic); a
    /// held suspension timer of the app is dropped (as a queued one would be skipped).
    mutating func cancelTimers(_ app: Int32, family: Int) {
        apps[Int(app)].cancel(family)
        if family == 0 { dropHeldTimer(app) }
    }

    /// The held suspension timer (family 0) is `app`'s: it is cancelled with the rest.
    @inline(__always) mutating func dropHeldTimer(_ app: Int32) {
        if app == heldApp { heldApp = -1; refreshInputTime() }
    }
}
