import SimKernel

// The lifecycle: system events, delivered to running apps and held (coalesced) for
// suspended ones; the running list.
extension Device {
    // MARK: System events

    /// A system event for `app`: delivered at once if it runs, held and coalesced if
    /// it is suspended, ignored if it is not running.
    mutating func systemEvent(_ kind: SystemEventKind, value: Int32, to app: Int32, _ now: SimTime) {
        let a = Int(app)
        switch core.apps[a].state {
        case .active, .inactive, .background:
            core.metrics[.immediateDeliveries] += 1
            core.trace.record(time: now, app: app, event: .deliver(kind, count: 1), detail: .delivery(kind, 1, value: value), state: core.apps[a].state)
        case .suspended where !core.apps[a].isPrewarmed:
            core.metrics[.coalescedReceived] += 1
            core.apps[a].held.hold(kind, value: value)
        case .suspended, .notRunning:
            // Not running, or prewarmed (stopped before main: it registered for nothing).
            break
        }
    }

    /// Delivers held events, one per kind (after willEnterForeground, before
    /// didBecomeActive): those addressed to the app while it was suspended, and the
    /// broadcasts it missed since its mark.
    mutating func deliverHeld(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        // Nothing held and no broadcast missed (a replay, a workload without system
        // events): nothing to deliver, and the held counts are zero already.
        if core.apps[a].held.total == 0 && core.apps[a].broadcastMark == broadcastCount { return }
        let mark = Int(core.apps[a].broadcastMark) * SystemEventKind.count
        let totals = core.broadcastHistory.count - SystemEventKind.count
        for k in SystemEventKind.allCases {
            let missed = Int(core.broadcastHistory[totals + Int(k.rawValue)] - core.broadcastHistory[mark + Int(k.rawValue)])
            let n = core.apps[a].held.count(k) + missed
            if n > 0 {
                core.metrics[.coalescedDelivered] += 1
                let value = missed > 0 ? Int32(core.broadcastLatest[Int(k.rawValue)]) : core.apps[a].held.value(k)
                core.trace.record(time: now, app: app, event: .deliver(k, count: n), detail: .delivery(k, n, value: value), state: core.apps[a].state)
            }
        }
        core.apps[a].held = HeldEvents()
    }

    /// The number of broadcasts so far.
    @inline(__always) var broadcastCount: UInt32 { UInt32(core.broadcastHistory.count / SystemEventKind.count - 1) }

    /// Events held for a suspended app: addressed to it, plus broadcasts it missed.
    @inline(__always) func heldTotal(_ app: Int32) -> Int {
        core.apps[Int(app)].held.total + Int(broadcastCount - core.apps[Int(app)].broadcastMark)
    }

    /// An event for every app (orientation, locale, location): delivered at once to
    /// each running app; counted as held by every suspended one, which finds out what
    /// it missed when it resumes. O(running apps), not O(apps).
    mutating func broadcast(_ kind: SystemEventKind, value: Int32, _ now: SimTime) {
        let k = Int(kind.rawValue)
        core.broadcastLatest[k] = UInt8(clamping: value)
        // The new totals: the last entry's, one more of this kind.
        let last = core.broadcastHistory.count - SystemEventKind.count
        for j in 0..<SystemEventKind.count { core.broadcastHistory.append(core.broadcastHistory[last + j] &+ (j == k ? 1 : 0)) }
        core.metrics[.coalescedReceived] += core.suspendedCount
        for app in core.running {
            core.metrics[.immediateDeliveries] += 1
            core.trace.record(time: now, app: app, event: .deliver(kind, count: 1), detail: .delivery(kind, 1, value: value), state: core.apps[Int(app)].state)
        }
    }
}
