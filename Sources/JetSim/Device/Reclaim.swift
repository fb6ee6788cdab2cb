import SimKernel

// The device's core: the reclaim loop. The kill loop belongs to the device, not to a
// policy (XNU's memorystatus does the same): while a trigger holds, ask the policy for a
// victim, terminate it, account what it freed. Every kill removes a candidate, so a loop
// ends after at most one pass over the candidates; it cannot spin.
extension Device {
    /// Makes room for a launch that needs `needKB` more: warnings when the launch would
    /// take available memory below the warning level, and the kill loop when it would
    /// go below the critical level (it then kills until the target is met).
    mutating func makeRoom(needKB: Int64, launching: Int32, _ now: SimTime) {
        if params.android.enabled { androidMakeRoom(needKB: needKB, launching: launching, now); return }
        let after = availableKB - needKB
        if params.xnuBands && params.pressureLevels {
            // Warnings follow the compressor's pressure level instead (Memory/XNU/Pressure.swift).
        } else if after < kb.warningKB {
            if !warned {
                warned = true
                sendMemoryWarnings(except: launching, now)
            }
        } else {
            warned = false
        }
        if !params.xnuBands {
            if availableKB - needKB < kb.criticalKB {
                killLoop(untilAvailable: needKB + kb.killTargetKB, now)
            }
            return
        }
        // As memory falls toward the launch's need: idle-band kills below the idle
        // level first, then kills up through the bands below critical, only until the
        // launch fits above critical.
        if availableKB - needKB < kb.idleKB { idleKills(untilAvailable: needKB + kb.idleKB, now) }
        if availableKB - needKB < kb.criticalKB { killLoop(untilAvailable: needKB + kb.criticalKB, now) }
    }

    /// Kills candidates in the policy's order until `availableKB >= target` or no
    /// candidate is left; with `idleBandOnly`, also stops at the first victim outside
    /// the idle band (XNU's idle-level kills).
    @inline(never)  // a function of its own: profilers can attribute kill cost to it
    mutating func killLoop(untilAvailable target: Int64, _ now: SimTime,
                           reason: KillReason = .memoryPressure, idleBandOnly: Bool = false) {
        trace.killLoop(began: true)
        while availableKB < target, let victim = nextVictim() {
            if idleBandOnly && apps[Int(victim)].band != XNUBand.idle { break }
            kill(victim, named: victim, reason, now)
        }
        trace.killLoop(began: false)
    }

    /// The policy's next victim, or nil when it has no candidate. Every kill loop asks
    /// here (XNU's and lmkd's alike), so each checks the protocol's contract: the victim
    /// is a resident app other than the one in front.
    @inline(__always) func nextVictim() -> Int32? {
        guard policy.hasCandidates else { return nil }
        let victim = policy.victim()
        precondition(victim >= 0 && victim != front && apps[Int(victim)].state.isResident,
                     "\(Policy.name) named app \(victim), which is not a candidate")
        return victim
    }

    /// Kills `app`; `willEvict` goes to the policy only when `app` is the victim it named
    /// (the protocol's contract; lmkd may kill a heavier app of the victim's level).
    @inline(__always) mutating func kill(_ app: Int32, named victim: Int32, _ reason: KillReason, _ now: SimTime) {
        if app == victim { policy.willEvict(victim) }
        terminate(app, reason, now)
    }

    /// A scripted pressure spike: some other process claims `demandKB`. The kill loop
    /// runs until the demand fits above the target; the foreground app dies only if
    /// nothing else is left and the demand still does not fit.
    mutating func pressureSpike(demandKB: Int64, _ now: SimTime) {
        killLoop(untilAvailable: demandKB + kb.killTargetKB, now)
        if availableKB - demandKB < kb.criticalKB && front >= 0 && !policy.hasCandidates {
            metrics[.foregroundKills] += 1
            terminate(front, .memoryPressure, now)
        }
    }
}
