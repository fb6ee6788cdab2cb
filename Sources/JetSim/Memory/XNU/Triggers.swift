import SimKernel

// XNU memorystatus: the kill triggers on available memory (critical, idle), the
// per-app inactive (soft) limit and the reaper.
extension XNUMemory {
    // MARK: Kill triggers

    /// Room for a launch (or wake, or growth step) that needs `needKB` more: warnings
    /// as on the plain model unless pressure levels send them; then, as memory falls
    /// toward the launch's need, idle-band kills below the idle level first
    /// (`.idleUntilAvailable`: the policy's victims while they are idle), then kills up
    /// through the bands below critical, only until the launch fits above critical.
    /// One trigger a question (`ReclaimSequence`, Memory/MemoryManager.swift).
    mutating func roomReclaim(_ core: inout Core, needKB: Int64, _ step: inout UInt8, _ now: SimTime) -> ReclaimTrigger? {
        if step == 0 {
            step = 1
            if !params.pressureLevels { warned = lowMemoryWarnings(&core, needKB: needKB, warned: warned, now) }
            // High-water kills come first while memory would be below the soft-limit
            // level (memorystatus_pick_action, bsd/kern/kern_memorystatus_policy.c:162-206).
            if overSoftLimitCount > 0 && core.availableKB - needKB < core.kb.warningKB { return .xnu(.highWater(needKB + core.kb.warningKB)) }
        }
        if step == 1 {
            step = 2
            if core.availableKB - needKB < core.kb.idleKB { return .xnu(.idleUntilAvailable(needKB + core.kb.idleKB)) }
        }
        if step == 2 {
            step = 3
            // Below critical, up through the bands below the foreground band (100): the
            // app being launched (or woken, or growing in front) holds that band, so
            // what does not fit then fails it, not an app above it.
            if core.availableKB - needKB < core.kb.criticalKB { return .xnu(.belowForeground(needKB + core.kb.criticalKB)) }
        }
        return nil
    }

    /// Where `fallReclaim` is in its sequence between two questions (`ReclaimSequence.step`).
    /// A sequence, not a function that runs each check in turn, because the lifecycle
    /// runs the reclaim loop between two of its questions: each step answers at most
    /// one trigger, and its condition is read after the kills of the steps before it
    /// (the order memorystatus_pick_action's loop gives, and the goldens pin).
    enum FallStep: UInt8 {
        case highWater = 0, critical, criticalFront, criticalAbove, idle, reaper, reaperRescheduled, compressorShortage,
             pressureAndFreezer, done
    }

    /// A fall of memory (or a change) on XNU, in the order of XNU's memorystatus thread
    /// (memorystatus_pick_action, bsd/kern/kern_memorystatus_policy.c:149-240): below
    /// the soft-limit level, high-water kills first (:162-206), one at a time while
    /// memory stays below that level; below critical, kills up through the bands;
    /// below the idle level, idle-band kills; the reaper; the compressor's shortage
    /// kills; then the pressure checks and the freezer. One trigger a question
    /// (`ReclaimSequence`); the steps that find nothing to do cost a compare each.
    mutating func fallReclaim(_ core: inout Core, _ step: inout UInt8, _ now: SimTime) -> ReclaimTrigger? {
        if step == FallStep.highWater.rawValue {
            step = FallStep.critical.rawValue
            if overSoftLimitCount > 0 && core.availableKB < core.kb.warningKB { return .xnu(.highWater(core.kb.warningKB)) }
        }
        // Critical kills (MEMORYSTATUS_KILL_TOP_PROCESS, memorystatus_kill_top_process,
        // bsd/kern/kern_memorystatus.c:6393, 6450-6452: the bands walked from the lowest
        // up to JETSAM_PRIORITY_MAX): the policy's victims up to the foreground band,
        // then the app in front (JETSAM_PRIORITY_FOREGROUND, 100), then what is above
        // it (JETSAM_PRIORITY_AUDIO_AND_ACCESSORY, 120; bsd/sys/kern_memorystatus.h:
        // 65-66), each only while available memory is below critical. Memory back
        // above critical at any of the three skips the rest, to the idle step.
        if step == FallStep.critical.rawValue {
            step = FallStep.idle.rawValue
            if core.availableKB < core.kb.criticalKB {
                step = FallStep.criticalFront.rawValue
                return .xnu(.belowForeground(core.kb.criticalKB))
            }
        }
        if step == FallStep.criticalFront.rawValue {
            step = FallStep.idle.rawValue
            if core.availableKB < core.kb.criticalKB {
                step = FallStep.criticalAbove.rawValue
                if core.front >= 0 {
                    core.metrics[.foregroundKills] += 1
                    return .app(core.front, .memoryPressure)
                }
            }
        }
        if step == FallStep.criticalAbove.rawValue {
            step = FallStep.idle.rawValue
            if core.availableKB < core.kb.criticalKB { return .untilAvailable(core.kb.criticalKB) }
        }
        if step == FallStep.idle.rawValue {
            step = FallStep.reaper.rawValue
            if core.availableKB < core.kb.idleKB { return .xnu(.idleUntilAvailable(core.kb.idleKB)) }
        }
        if step == FallStep.reaper.rawValue {
            step = FallStep.compressorShortage.rawValue
            if reaperSweepDue(core, now) {
                // A sweep: the oldest-reapable answer refreshed, the kills, then the
                // interval from its end (the next step).
                reaperRefresh(&core, now)
                step = FallStep.reaperRescheduled.rawValue
                return .xnu(.reaper)
            }
        }
        if step == FallStep.reaperRescheduled.rawValue {
            step = FallStep.compressorShortage.rawValue
            nextReaperSweepS = Self.secondsUp(now + params.reaperInterval)
        }
        if step == FallStep.compressorShortage.rawValue {
            step = FallStep.pressureAndFreezer.rawValue
            // Compressor-space-shortage kills (sustained-pressure kills have their own
            // timer: `sustainedPressureReclaim`).
            if params.compressorShortageKills && compressorShort { return .xnu(.compressorShortage) }
        }
        if step == FallStep.pressureAndFreezer.rawValue {
            step = FallStep.done.rawValue
            pressureWarningsCheck(&core, now)
            freezerWake(&core, now)
        }
        return nil
    }

    // MARK: Per-app inactive (soft) limit: high-water kills

    /// An app that just left the front: over its inactive limit, it dies at once if
    /// available memory is below the soft-limit level (the warning level, XNU's
    /// memorystatus_available_pages_pressure), else it is flagged and dies when
    /// memory falls below that level while it is still over (doc/vm/memorystatus_kills.md,
    /// JETSAM_REASON_MEMORY_HIGHWATER: "Any process over its soft memory limit is
    /// eligible").
    mutating func inactiveLimitReclaim(_ core: inout Core, _ app: Int32, _ now: SimTime) -> ReclaimTrigger? {
        let a = Int(app)
        guard core.apps[a].residentKB > kb.inactiveLimitKB else { return nil }
        if core.availableKB < core.kb.warningKB {
            return .app(app, .highWater)
        } else if !core.apps[a].memory.contains(.overSoftLimit) {
            core.apps[a].memory.insert(.overSoftLimit)
            // In index order (few apps are flagged at a time).
            var i = softLimitApps.count
            while i > 0 && softLimitApps[i - 1] > app { i -= 1 }
            softLimitApps.insert(app, at: i)
        }
        return nil
    }

    /// The footprint XNU holds against an app's memory limit: phys_footprint, which
    /// counts the pages the compressor holds for the app, in RAM or paged out to
    /// storage, at their uncompressed size (internal_compressed; osfmk/kern/task.c:
    /// 1184-1199, xnu-11417.101.15), so neither compression nor the freezer brings an
    /// app under its limit: a compressed (or compressing) app's uncompressed suspended
    /// footprint, a frozen app's whole suspended footprint, plus what a thawed app left
    /// on flash; else what it holds.
    @inline(__always) func physFootprintKB(_ core: Core, _ app: Int32) -> Int64 {
        let m = core.apps[Int(app)].memory
        if m.contains(.frozen) { return core.profiles[core.pi(app)].suspendedKB }
        return (m.contains(.compressed) ? suspendedPlainKB(core, app) : residentNowKB(core, app)) + onFlashKB(core, app)
    }

    /// Forgets the soft-limit flag (the app came to the front, shrank, or dies).
    /// The count first: with no app flagged (always, with the XNU bands off) it costs
    /// one compare, not a read of the app's record.
    @inline(__always)
    mutating func clearSoftLimit(_ core: inout Core, _ app: Int32) {
        guard overSoftLimitCount > 0, core.apps[Int(app)].memory.contains(.overSoftLimit) else { return }
        core.apps[Int(app)].memory.remove(.overSoftLimit)
        if let i = softLimitApps.firstIndex(of: app) { softLimitApps.remove(at: i) }
    }

    /// High-water kills (`.highWater(target)`), one action at a time while available
    /// memory is below `target` (the soft-limit level, plus a launch's need): XNU's
    /// thread picks one high-water kill per action and picks again after it, so it
    /// stops once memory is back above that level (memorystatus_pick_action,
    /// bsd/kern/kern_memorystatus_policy.c:162-206; memorystatus_kill_hiwat_proc,
    /// bsd/kern/kern_memorystatus.c:6975-7080, one kill). A flagged app still over its
    /// inactive limit dies, one no longer over it is spared (its flag cleared); over
    /// means its phys_footprint, which counts compressed pages at their uncompressed
    /// size (`physFootprintKB`). Lowest band first (XNU kills high-water victims in
    /// ascending priority): per band that holds a flagged app, the flagged apps in index order
    /// (`softLimitApps`: what a scan of every app that skips the unflagged ones
    /// visits, without the scan, which cost O(apps) a high-water episode:
    /// docs/performance.md, "Costs behind the code's shapes"). Runs only
    /// while some app is flagged and memory is below the soft-limit level.
    func pickHighWater(_ core: Core, _ target: Int64, _ c: inout ReclaimCursor) -> ReclaimAction {
        guard core.availableKB < target else { return .none }
        while overSoftLimitCount > 0 && c.band <= Int(XNUBand.audioAndAccessory) {
            // The flagged apps from app index `c.index` on (the list may have changed
            // since the last pick: a kill or a spare clears its app's flag).
            var k = 0
            while k < softLimitApps.count && Int(softLimitApps[k]) < c.index { k += 1 }
            while k < softLimitApps.count {
                let i = Int(softLimitApps[k])
                k += 1
                c.index = i + 1
                let b = Int(core.apps[i].band)
                if b == c.band {
                    return physFootprintKB(core, Int32(i)) > kb.inactiveLimitKB ? .kill(app: Int32(i), victim: -1, reason: .highWater) : .spare(app: Int32(i))
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

    /// The reaper (bsd/kern/kern_memorystatus.c, xnu-11417.101.15): below the reaper
    /// level, a sweep kills every idle-band app that has been in the band for at least
    /// the minimum age (oldest entry first: `.reaper`). When a sweep may start follows
    /// memstat_evaluate_page_shortage (:4214-4247): not before the rescan interval has
    /// passed since the last sweep ended (whether or not it killed anything:
    /// _memstat_reaper_end_sweep, :4121-4146, runs when a long-idle kill finds no
    /// victim, :6601-6604), and not while XNU's cached answer to "which idle process is
    /// the oldest reapable one" says none (`reaperRefresh`) and is not older than the
    /// interval (:4097-4106, 4235-4245). Times in whole seconds, rounded up.
    @inline(__always) func reaperSweepDue(_ core: Core, _ now: SimTime) -> Bool {
        guard params.reaper, core.availableKB < kb.reaperKB,
              now >= SimTime.seconds(Int64(nextReaperSweepS)) else { return false }
        return !(reaperNoneKnown && now < SimTime.seconds(Int64(reaperInfoExpiryS)))
    }

    /// _memstat_refresh_oldest_reapable_proc_info (kern_memorystatus.c:6621-6675), which
    /// every kill of the idle, critical, compressor and reaper paths calls first
    /// (memorystatus_kill_top_process, :6447; here `reclaimWillKill`): unless its last answer is younger than
    /// the rescan interval, it looks again for the oldest process in the idle band
    /// that is reapable now (in the band for at least the minimum age,
    /// _memstat_proc_is_reapable, :6677-6722); it remembers whether there was none.
    /// The idle band is in entry order, so that process is its head if any is.
    mutating func reaperRefresh(_ core: inout Core, _ now: SimTime) {
        guard params.reaper, now >= SimTime.seconds(Int64(reaperInfoExpiryS)) else { return }
        reaperInfoExpiryS = Self.secondsUp(now + params.reaperInterval)
        let head = core.idleOrder.head(0)
        reaperNoneKnown = head < 0 || now - core.apps[Int(head)].bandSince < params.reaperMinAge
    }

    /// A time in whole seconds, rounded up (32 bits: 68 years).
    @inline(__always) static func secondsUp(_ t: SimTime) -> Int32 {
        Int32(clamping: (t.microseconds + 999_999) / 1_000_000)
    }

    /// The reaper's sweep (`.reaper`), one kill at a time: the next app in the idle
    /// band's order (from its head, `startReclaim`) that has been in the band for at
    /// least the minimum age: XNU's age is the time in the current band
    /// (_memstat_proc_is_reapable reads p_memstat_prio_start, kern_memorystatus.c:
    /// 6697-6702; `AppRuntime.bandSince`), not the time since the user left the app,
    /// so an app the system launched or woke (band 30 while it runs) or a demoted
    /// frozen app is as old as its time in band 0. The band is in entry order, so the
    /// reapable apps are its head: the sweep ends at the first younger app.
    func pickReaper(_ core: Core, _ c: inout ReclaimCursor, _ now: SimTime) -> ReclaimAction {
        let app = c.app
        guard app >= 0, now - core.apps[Int(app)].bandSince >= params.reaperMinAge else { return .none }
        c.app = core.idleOrder.next(app)
        return .kill(app: app, victim: -1, reason: .longIdleExit)
    }
}
