import SimKernel

// The device's core: what the one reclaim loop (Lifecycle/ReclaimLoop.swift) speaks. Every
// kill a memory manager decides goes through that loop (the lifecycle's own
// terminations: the user, the watchdog, an expired background task, exits on suspend
// and a power-off stay in the lifecycle).
//
// The loop is shaped as XNU's memorystatus thread (bsd/kern/kern_memorystatus_policy.c,
// memorystatus_pick_action; bsd/kern/kern_memorystatus.c, memorystatus_do_action):
// a trigger, then one action at a time picked by its manager from a closed set (none,
// kill an app, spare an app, kill a process of the manager's own), done by the loop,
// until the manager answers none. A manager never kills: it answers which trigger is
// next (`ReclaimTrigger`, Memory/MemoryManager.swift) and which action
// (`ReclaimAction`). The kill loop belongs to
// the device, not to a policy: the policy only names victims (`nextVictim`). Every
// kill removes a candidate (and a spare clears a flag), so a loop ends after at most
// one pass over the apps; it cannot spin.

/// One action of a reclaim (memorystatus_action_t's role).
enum ReclaimAction {
    /// Nothing (more) to do: the loop ends.
    case none
    /// Kill `app` for `reason`; `victim` is the app the policy named (`willEvict` goes
    /// to the policy when they are the same app), -1 when the manager chose the app
    /// itself (the reaper, high-water, the cached cap, one app). An app with no process
    /// (a launch that found no room) is counted and traced as killed, as before.
    case kill(app: Int32, victim: Int32, reason: KillReason)
    /// Leave `app` alive and clear its high-water flag (it shrank under its limit).
    case spare(app: Int32)
    /// Kill one of the manager's own processes (no app, not the policy's: XNU's
    /// idle-band daemons, Memory/XNU/IdleDaemons.swift).
    case killOwnProcess
}

/// A reclaim loop's own state between its actions: a walk's position, a budget, the
/// band a walk is in.
struct ReclaimCursor {
    /// The next app of a walk of a list (-1: the walk is over).
    var app: Int32 = -1
    /// The next app index of a scan of all apps.
    var index = 0
    /// A count the trigger spends (kills left, cached apps over the cap).
    var budget = 0
    /// The band a scan is in, and the lowest band above it seen so far.
    var band = 0
    var nextBand = Int.max
    /// Whether an action was done already (`.app` acts once).
    var acted = false
}

extension DeviceCore {
    /// The policy's next victim, or nil when it has no candidate. Every loop that
    /// follows the policy asks here (XNU's and lmkd's alike), so each checks the
    /// protocol's contract: the victim is a resident app other than the one in front.
    @inline(__always) func nextVictim() -> Int32? {
        guard policy.hasCandidates else { return nil }
        let victim = policy.victim()
        precondition(victim >= 0 && victim != front && apps[Int(victim)].state.isResident,
                     "\(Policy.name) named app \(victim), which is not a candidate")
        return victim
    }

    /// The policy's next victim while available memory is below `target`, for `reason`,
    /// in the idle band only when `idleBandOnly`, below the foreground band when
    /// `belowForeground`; none when memory is back or no candidate is left (or the
    /// victim is not idle, or above the foreground band).
    @inline(__always)
    func victimUntilAvailable(_ target: Int64, _ reason: KillReason, idleBandOnly: Bool = false,
                              belowForeground: Bool = false) -> ReclaimAction {
        guard availableKB < target, let victim = nextVictim() else { return .none }
        if idleBandOnly && apps[Int(victim)].band != XNUBand.idle { return .none }
        if belowForeground && apps[Int(victim)].band > XNUBand.foreground { return .none }
        return .kill(app: victim, victim: victim, reason: reason)
    }

    /// `.app`'s pick: the app once.
    @inline(__always) func pickOneApp(_ app: Int32, _ reason: KillReason, _ c: inout ReclaimCursor) -> ReclaimAction {
        if c.acted { return .none }
        c.acted = true
        return .kill(app: app, victim: -1, reason: reason)
    }
}

extension DeviceCore {
    /// A launch that found no room for an app with no process (`reclaim`): counted as a
    /// memory kill and traced as one; nothing to terminate.
    mutating func recordFailedLaunch(_ app: Int32, _ reason: KillReason, _ now: SimTime) {
        metrics.countKill(reason)
        if !byArchetype.isEmpty { byArchetype[Int(archetypeOf[pi(app)])].countKill(reason) }
        trace.record(time: now, app: app, event: .terminated(reason), detail: .reason(reason), state: .notRunning)
    }
}
