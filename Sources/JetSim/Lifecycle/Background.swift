#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

// The lifecycle: front and back, background time and suspension, exactly as the
// seeds describe them (seeds 000-004).
extension Device {
    // MARK: Front and back

    /// willResignActive: the active app becomes inactive (an overlay, the switcher,
    /// the lock, or on its way to the background).
    mutating func resignActive(_ app: Int32, _ now: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        let a = Int(app)
        guard apps[a].state == .active else { return }
        apps[a].accrueActive(until: now)
        apps[a].state = .inactive
        send(.willResignActive, to: app, now)
        if profiles[pi(app)].save == .onResignActive { startSave(app, now, &s) }
    }

    /// didBecomeActive for an inactive app in front (not a launch).
    mutating func becomeActive(_ app: Int32, _ now: SimTime) {
        guard apps[Int(app)].state == .inactive else { return }
        apps[Int(app)].state = .active
        apps[Int(app)].activeSince = now
        send(.didBecomeActive, to: app, now)
    }

    /// didEnterBackground: the inactive app in front goes to the background. What
    /// follows depends on the app: exit (UIApplicationExitsOnSuspend), the watchdog
    /// (a handler over its limit), or background time until suspension.
    mutating func enterBackground(_ app: Int32, _ now: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        let a = Int(app)
        guard apps[a].state == .inactive || apps[a].state == .active else { return }
        if apps[a].state == .active { resignActive(app, now, &s) }
        let p = pi(app)
        apps[a].state = .background
        apps[a].lastUsed = now
        // The previous app, on every OS (AndroidLMK reads it from the candidate): the
        // former one, held at adj 700 while suspended or in the grace, becomes a
        // cached app.
        let former = previousApp
        previousApp = app
        if Policy.readsPrevious && former >= 0 && former != app
            && (apps[Int(former)].state == .suspended || apps[Int(former)].state == .background) {
            policy.update(former, candidate(former))
        }
        apps[a].backgroundEntries &+= 1
        if front == app { front = -1 }
        cancelTimers(app, family: 2)  // no periodic saves in the background
        setResident(app, min(apps[a].residentKB, profiles[p].backgroundKB))  // trims its caches
        send(.didEnterBackground, to: app, now)
        memoryAppEnteredBackground(app, now, &s)

        // The handler runs; saving here is part of it.
        var handler = profiles[p].enterBackgroundHandler
        if profiles[p].save == .onEnterBackground {
            startSave(app, now, &s)
            handler += profiles[p].saveDuration
        }
        if handler > params.enterBackgroundLimit {
            apps[a].lifecycle.insert(.watchdogCommitted)
            scheduleTimer(.watchdogKill, app, at: now + params.enterBackgroundLimit, &s)
        } else if profiles[p].exitsOnSuspend {
            apps[a].lifecycle.insert(.exitCommitted)
            scheduleTimer(.exitOnSuspend, app, at: now + handler, &s)
        } else {
            let trip = UInt64(apps[a].backgroundEntries)
            // A background task, with the work it needs.
            if profiles[p].bgTaskProbability > 0 {
                var g = appDraws(app, Self.drawBackgroundTask, trip)
                if profiles[p].bgTaskProbability >= 1 || g.nextUnit() < profiles[p].bgTaskProbability {
                    let work = Self.lognormal(profiles[p].bgTaskMedian, profiles[p].bgTaskSigma, &g, normalTable)
                    apps[a].lifecycle.insert(.bgTask)
                    if work <= params.bgTaskAllowance {
                        scheduleTimer(.bgTaskDone, app, at: now + work, &s)
                    } else {
                        scheduleTimer(.bgTaskExpired, app, at: now + params.bgTaskAllowance, &s)
                    }
                }
            }
            // A background mode's activity.
            if profiles[p].mode != .none {
                var g = appDraws(app, Self.drawModeActivity, trip)
                let activity = Self.lognormal(profiles[p].modeActivityMedian, profiles[p].modeActivitySigma, &g, normalTable)
                if activity > .zero {
                    apps[a].lifecycle.insert(.modeActive)
                    scheduleTimer(.modeEnded, app, at: now + activity, &s)
                }
            }
            apps[a].suspendNotBefore = now + max(params.backgroundGrace, handler)
            scheduleTimer(.suspendDue, app, at: apps[a].suspendNotBefore, &s)
        }
        refreshCandidate(app, now, leftFront: true)
        memoryAppLeftFront(app, now)
    }

    /// A lognormal duration by median and sigma (sigma 0: the median itself), with the
    /// device's `normalTable`. Static, so that its mutating callers need not copy the
    /// whole device to read the table from `self`.

    @inline(__always) static func lognormal(_ median: SimTime, _ sigma: Double, _ g: inout SplitMix64,
                                            _ table: ZigguratTable) -> SimTime {
        if sigma == 0 { return median }
        return SimTime(saturatingMicroseconds: Double(median.microseconds) * exp(sigma * StandardNormal.sample(&g, table: table)))
    }

    /// A background task or mode ended: the policy learns the new band, and the app
    /// is suspended if nothing else keeps it running (either way the memory manager
    /// hears of the change: `memoryChanged`).
    mutating func backgroundWorkChanged(_ app: Int32, _ now: SimTime) {
        guard apps[Int(app)].state == .background else { return }
        suspendIfIdle(app, now)
        if apps[Int(app)].state == .background {
            refreshCandidate(app, now)
            memoryChanged(now)
        }
    }

    /// Suspends a background app whose work has ended and whose grace has passed.
    @inline(__always)
    mutating func suspendIfIdle(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard apps[a].state == .background,
              !apps[a].lifecycle.contains(.bgTask), !apps[a].lifecycle.contains(.modeActive),
              now >= apps[a].suspendNotBefore else { return }
        if apps[a].lifecycle.contains(.saveInFlight) {
            // A save still running when the app stops executing is lost.
            apps[a].lifecycle.remove(.saveInFlight)
            cancelTimers(app, family: 1)
            metrics[.savesAbandoned] += 1
        }
        apps[a].state = .suspended
        stopRunning(app)
        suspendedCount += 1
        apps[a].broadcastMark = broadcastCount
        memoryAppSuspended(app, now)
        trace.record(time: now, app: app, event: .suspended, detail: .none, state: .suspended)
        refreshCandidateIfBandMoved(app, now)
        memoryChanged(now)
    }

    /// Takes an app off the running list (it stopped executing code), keeping the
    /// others' order (warnings go out in it). By hand, so that the common case (the
    /// last app, the one that just left the front) moves nothing (docs/performance.md).
    mutating func stopRunning(_ app: Int32) {
        // Found by hand too (`firstIndex(of:)` stayed a generic call), reading through a
        // buffer: no bounds check per app.
        let n = running.count
        let i = running.withUnsafeBufferPointer { r in
            var i = 0
            while i < n && r[i] != app { i &+= 1 }
            return i
        }
        if i == n { return }
        let last = n &- 1
        if i < last {
            running.withUnsafeMutableBufferPointer { r in
                for j in i..<last { r[j] = r[j &+ 1] }
            }
        }
        // The last app (most often the one that just left the front): no shift, and
        // one uniqueness check, removeLast's.
        running.removeLast()
    }
}
