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
        guard core.apps[a].state == .active else { return }
        core.apps[a].accrueActive(until: now)
        core.apps[a].state = .inactive
        core.send(.willResignActive, to: app, now)
        if core.profiles[core.pi(app)].saves(.onResignActive) { startSave(app, now, &s) }
    }

    /// didBecomeActive for an inactive app in front (not a launch).
    mutating func becomeActive(_ app: Int32, _ now: SimTime) {
        guard core.apps[Int(app)].state == .inactive else { return }
        core.apps[Int(app)].state = .active
        core.apps[Int(app)].activeSince = now
        core.send(.didBecomeActive, to: app, now)
    }

    /// didEnterBackground: the inactive app in front goes to the background. What
    /// follows depends on the app: exit (UIApplicationExitsOnSuspend), the watchdog
    /// (a handler over its limit), or background time until suspension.
    mutating func enterBackground(_ app: Int32, _ now: SimTime, _ s: inout Scheduler<DeviceEvent>) {
        let a = Int(app)
        guard core.apps[a].state == .inactive || core.apps[a].state == .active else { return }
        if core.apps[a].state == .active { resignActive(app, now, &s) }
        let p = core.pi(app)
        core.apps[a].state = .background
        core.apps[a].lastUsed = now
        // The previous app, on every OS (AndroidLMK reads it from the candidate): the
        // former one, held at adj 700 while suspended or in the grace, becomes a
        // cached app.
        let former = core.previousApp
        core.previousApp = app
        if Policy.readsPrevious && former >= 0 && former != app
            && (core.apps[Int(former)].state == .suspended || core.apps[Int(former)].state == .background) {
            core.policy.update(former, memory.candidate(core, former))
        }
        core.apps[a].backgroundEntries &+= 1
        if core.front == app { core.front = -1 }
        core.cancelTimers(app, family: 2)  // no periodic saves in the background
        core.setResident(app, min(core.apps[a].residentKB, core.profiles[p].backgroundKB))  // trims its caches
        core.send(.didEnterBackground, to: app, now)
        memory.appEnteredBackground(&core, app, now, &s)

        // The handler runs; saving here is part of it.
        var handler = core.profiles[p].enterBackgroundHandler
        if core.profiles[p].saves(.onEnterBackground) {
            startSave(app, now, &s)
            handler += core.profiles[p].saveDuration
        }
        if handler > core.params.enterBackgroundLimit {
            core.apps[a].lifecycle.insert(.watchdogCommitted)
            core.scheduleTimer(.watchdogKill, app, at: now + core.params.enterBackgroundLimit, &s)
        } else if core.profiles[p].exitsOnSuspend {
            core.apps[a].lifecycle.insert(.exitCommitted)
            core.scheduleTimer(.exitOnSuspend, app, at: now + handler, &s)
        } else {
            let trip = UInt64(core.apps[a].backgroundEntries)
            // A background task, with the work it needs.
            if core.profiles[p].bgTaskProbability > 0 {
                var g = core.appDraws(app, Draw.backgroundTask, trip)
                if core.profiles[p].bgTaskProbability >= 1 || g.nextUnit() < core.profiles[p].bgTaskProbability {
                    let work = Self.lognormal(core.profiles[p].bgTaskMedian, core.profiles[p].bgTaskSigma, &g, core.normalTable)
                    core.apps[a].lifecycle.insert(.bgTask)
                    if work <= core.params.bgTaskAllowance {
                        core.scheduleTimer(.bgTaskDone, app, at: now + work, &s)
                    } else {
                        core.scheduleTimer(.bgTaskExpired, app, at: now + core.params.bgTaskAllowance, &s)
                    }
                }
            }
            // A background mode's activity.
            if core.profiles[p].mode != .none {
                var g = core.appDraws(app, Draw.modeActivity, trip)
                let activity = Self.lognormal(core.profiles[p].modeActivityMedian, core.profiles[p].modeActivitySigma, &g, core.normalTable)
                if activity > .zero {
                    core.apps[a].lifecycle.insert(.modeActive)
                    core.scheduleTimer(.modeEnded, app, at: now + activity, &s)
                }
            }
            core.apps[a].suspendNotBefore = now + max(core.params.backgroundGrace, handler)
            core.scheduleTimer(.suspendDue, app, at: core.apps[a].suspendNotBefore, &s)
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
        guard core.apps[Int(app)].state == .background else { return }
        suspendIfIdle(app, now)
        if core.apps[Int(app)].state == .background {
            refreshCandidate(app, now)
            memoryChanged(now)
        }
    }

    /// Suspends a background app whose work has ended and whose grace has passed.
    @inline(__always)
    mutating func suspendIfIdle(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard core.apps[a].state == .background,
              !core.apps[a].lifecycle.contains(.bgTask), !core.apps[a].lifecycle.contains(.modeActive),
              now >= core.apps[a].suspendNotBefore else { return }
        if core.apps[a].lifecycle.contains(.saveInFlight) {
            // A save still running when the app stops executing is lost.
            core.apps[a].lifecycle.remove(.saveInFlight)
            core.cancelTimers(app, family: 1)
            core.metrics[.savesAbandoned] += 1
            core.trace.record(time: now, app: app, event: .saveAbandoned, detail: .none, state: core.apps[a].state)
        }
        core.apps[a].state = .suspended
        stopRunning(app)
        core.suspendedCount += 1
        core.apps[a].broadcastMark = broadcastCount
        memory.appSuspended(&core, app, now)
        core.trace.record(time: now, app: app, event: .suspended, detail: .none, state: .suspended)
        refreshCandidateIfBandMoved(app, now)
        memoryChanged(now)
    }

    /// Takes an app off the running list (it stopped executing code), keeping the
    /// others' order (warnings go out in it). By hand, so that the common case (the
    /// last app, the one that just left the front) moves nothing (docs/performance.md).
    mutating func stopRunning(_ app: Int32) {
        // Found by hand too (`firstIndex(of:)` stayed a generic call), reading through a
        // buffer: no bounds check per app.
        let n = core.running.count
        let i = core.running.withUnsafeBufferPointer { r in
            var i = 0
            while i < n && r[i] != app { i &+= 1 }
            return i
        }
        if i == n { return }
        let last = n &- 1
        if i < last {
            core.running.withUnsafeMutableBufferPointer { r in
                for j in i..<last { r[j] = r[j &+ 1] }
            }
        }
        // The last app (most often the one that just left the front): no shift, and
        // one uniqueness check, removeLast's.
        core.running.removeLast()
    }
}
