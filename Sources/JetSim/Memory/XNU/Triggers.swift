import SimKernel

// XNU memorystatus: the kill triggers on available memory (critical, idle), the
// per-app inactive (soft) limit and the reaper.
extension Device {
    // MARK: Kill triggers

    /// Room for a launch (or wake, or growth step) that needs `needKB` more: warnings
    /// as on the plain model unless pressure levels send them; then, as memory falls
    /// toward the launch's need, idle-band kills below the idle level first
    /// (`.idleUntilAvailable`: the policy's victims while they are idle), then kills up
    /// through the bands below critical, only until the launch fits above critical.
    mutating func xnuMakeRoom(needKB: Int64, launching: Int32, _ now: SimTime) {
        if !params.pressureLevels { lowMemoryWarnings(needKB: needKB, launching: launching, now) }
        if availableKB - needKB < kb.idleKB { reclaim(.idleUntilAvailable(needKB + kb.idleKB), now) }
        if availableKB - needKB < kb.criticalKB { reclaim(.untilAvailable(needKB + kb.criticalKB), now) }
    }

    /// `memoryFell` on XNU: below critical, kills up through the bands; below the idle
    /// level, idle-band kills; high-water kills; the reaper; the pressure checks and
    /// the freezer.
    mutating func memoryFellXNU(_ now: SimTime) {
        if availableKB < kb.criticalKB { reclaim(.untilAvailable(kb.criticalKB), now) }
        if availableKB < kb.idleKB { reclaim(.idleUntilAvailable(kb.idleKB), now) }
        if overSoftLimitCount > 0 && availableKB < kb.warningKB { reclaim(.highWater, now) }
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
        guard apps[a].residentKB > kb.inactiveLimitKB else { return }
        if availableKB < kb.warningKB {
            reclaim(.app(app, .highWater), now)
        } else if !apps[a].memory.contains(.overSoftLimit) {
            apps[a].memory.insert(.overSoftLimit)
            // In index order (few apps are flagged at a time).
            var i = softLimitApps.count
            while i > 0 && softLimitApps[i - 1] > app { i -= 1 }
            softLimitApps.insert(app, at: i)
        }
    }

    /// Forgets the soft-limit flag (the app came to the front, shrank, or dies).
    /// The count first: with no app flagged (always, with the XNU bands off) it costs
    /// one compare, not a read of the app's record.
    @inline(__always)
    mutating func clearSoftLimit(_ app: Int32) {
        guard overSoftLimitCount > 0, apps[Int(app)].memory.contains(.overSoftLimit) else { return }
        apps[Int(app)].memory.remove(.overSoftLimit)
        if let i = softLimitApps.firstIndex(of: app) { softLimitApps.remove(at: i) }
    }

    /// High-water kills (`.highWater`), one action at a time: every flagged app still
    /// over its inactive limit dies, one no longer over it is spared (its flag
    /// cleared), lowest band first (XNU kills high-water victims in ascending
    /// priority): per band that holds a flagged app, the flagged apps in index order
    /// (`softLimitApps`: what a scan of every app that skips the unflagged ones
    /// visits, without the scan, which cost O(apps) a high-water episode: about 1,600
    /// instructions a kill at 8,000 installed apps, 13,700 at 32,000). Runs only
    /// while some app is flagged and memory is below the soft-limit level.
    func pickHighWater(_ c: inout ReclaimCursor) -> ReclaimAction {
        while overSoftLimitCount > 0 && c.band <= Int(XNUBand.audioAndAccessory) {
            // The flagged apps from app index `c.index` on (the list may have changed
            // since the last pick: a kill or a spare clears its app's flag).
            var k = 0
            while k < softLimitApps.count && Int(softLimitApps[k]) < c.index { k += 1 }
            while k < softLimitApps.count {
                let i = Int(softLimitApps[k])
                k += 1
                c.index = i + 1
                let b = Int(apps[i].band)
                if b == c.band {
                    return residentNowKB(Int32(i)) > kb.inactiveLimitKB ? .kill(app: Int32(i), victim: -1, reason: .highWater) : .spare(app: Int32(i))
                } else if b > c.band {
                    c.nextBand = min(c.nextBand, b)
                }
            }
            c.band = c.nextBand
            c.nextBand = .max
            c.index = 0
        }
        return .none
    }

    /// The reaper: below the reaper level, at most one sweep per interval, kills every
    /// idle-band app idle for at least the minimum age (oldest first: `.reaper`).
    mutating func reaperCheck(_ now: SimTime) {
        guard params.reaper, availableKB < kb.reaperKB,
              now >= SimTime.seconds(Int64(nextReaperSweepS)) else { return }
        let next = (now + params.reaperInterval).microseconds
        nextReaperSweepS = Int32(clamping: (next + 999_999) / 1_000_000)
        reclaim(.reaper, now)
    }

    /// The reaper's sweep (`.reaper`), one kill at a time: the next app in the idle
    /// band's order (from its head, `startReclaim`) idle at least the minimum age.
    func pickReaper(_ c: inout ReclaimCursor, _ now: SimTime) -> ReclaimAction {
        while c.app >= 0 {
            let app = c.app
            c.app = idleOrder.next(app)
            // Idle since its last use; a prewarmed process since its prewarm (it entered
            // the idle band then; `stateTime`, `Device.prewarm`).
            let since = apps[Int(app)].isPrewarmed ? apps[Int(app)].stateTime : apps[Int(app)].lastUsed
            if now - since >= params.reaperMinAge { return .kill(app: app, victim: -1, reason: .longIdleExit) }
        }
        return .none
    }
}
