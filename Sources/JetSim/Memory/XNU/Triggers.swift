import SimKernel

// XNU memorystatus: the kill triggers on available memory (critical, idle), the
// per-app inactive (soft) limit and the reaper.
extension Device {
    // MARK: Kill triggers

    /// Below the idle level: kills in the idle band only, in the policy's order, until
    /// `availableKB >= target`; stops when the policy's next victim is not idle.
    mutating func idleKills(untilAvailable target: Int64, _ now: SimTime) {
        killLoop(untilAvailable: target, now, reason: .idleExit, idleBandOnly: true)
    }

    /// Available memory fell (a launch): the critical and idle triggers, high-water
    /// kills, the reaper, the pressure checks and the freezer. O(1) unless a trigger
    /// fires. Inline up to its first check (XNU's bands only).
    @inline(__always)
    mutating func memoryFell(_ now: SimTime) {
        if params.xnuBands { memoryFellXNU(now) }
    }

    /// `memoryFell` on a device with XNU's bands.
    mutating func memoryFellXNU(_ now: SimTime) {
        if availableKB < kb.criticalKB { killLoop(untilAvailable: kb.criticalKB, now) }
        if availableKB < kb.idleKB { idleKills(untilAvailable: kb.idleKB, now) }
        if overSoftLimitCount > 0 && availableKB < kb.warningKB { highWaterKills(now) }
        reaperCheck(now)
        freezerWake(now)
    }

    // MARK: Per-app inactive (soft) limit: high-water kills

    /// An app that just left the front: over its inactive limit, it dies at once if
    /// available memory is below the soft-limit level (the warning level, XNU's
    /// memorystatus_available_pages_pressure), else it is flagged and dies when
    /// memory falls below that level while it is still over (doc/vm/memorystatus_kills.md,
    /// JETSAM_REASON_MEMORY_HIGHWATER: "Any process over its soft memory limit is
    /// eligible").
    mutating func inactiveLimitCheck(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard params.xnuBands, apps[a].residentKB > kb.inactiveLimitKB else { return }
        if availableKB < kb.warningKB {
            terminate(app, .highWater, now)
        } else if !apps[a].has(AppRuntime.overSoftLimit) {
            apps[a].set(AppRuntime.overSoftLimit)
            overSoftLimitCount += 1
        }
    }

    /// Forgets the soft-limit flag (the app came to the front, shrank, or dies).
    /// The count first: with no app flagged (always, with the XNU bands off) it costs
    /// one compare, not a read of the app's record.
    @inline(__always)
    mutating func clearSoftLimit(_ app: Int32) {
        guard overSoftLimitCount > 0, apps[Int(app)].has(AppRuntime.overSoftLimit) else { return }
        apps[Int(app)].clear(AppRuntime.overSoftLimit)
        overSoftLimitCount -= 1
    }

    /// Kills every flagged app still over its inactive limit, lowest band first
    /// (XNU kills high-water victims in ascending priority). Runs only while some app
    /// is flagged and memory is below the soft-limit level.
    mutating func highWaterKills(_ now: SimTime) {
        var band: Int = 0
        while overSoftLimitCount > 0 && band <= Int(XNUBand.audioAndAccessory) {
            var nextBand = Int.max
            for i in 0..<apps.count where apps[i].has(AppRuntime.overSoftLimit) {
                let b = Int(apps[i].band)
                if b == band {
                    if residentNowKB(Int32(i)) > kb.inactiveLimitKB { terminate(Int32(i), .highWater, now) } else { clearSoftLimit(Int32(i)) }
                } else if b > band {
                    nextBand = min(nextBand, b)
                }
            }
            band = nextBand
        }
    }

    /// The reaper: below the reaper level, at most one sweep per interval, kills every
    /// idle-band app idle for at least the minimum age (oldest first).
    mutating func reaperCheck(_ now: SimTime) {
        guard params.reaper, params.xnuBands, availableKB < kb.reaperKB,
              now >= SimTime.seconds(Int64(nextReaperSweepS)) else { return }
        let next = (now + params.reaperInterval).microseconds
        nextReaperSweepS = Int32(clamping: (next + 999_999) / 1_000_000)
        var app = idleOrder.head(0)
        while app >= 0 {
            let next = idleOrder.next(app)
            // Idle since its last use; a prewarmed process since its prewarm (it entered
            // the idle band then; `stateTime`, `Device.prewarm`).
            let since = apps[Int(app)].isPrewarmed ? apps[Int(app)].stateTime : apps[Int(app)].lastUsed
            if now - since >= params.reaperMinAge { terminate(app, .longIdleExit, now) }
            app = next
        }
    }
}
