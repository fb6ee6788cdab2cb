import SimKernel

// XNU: the freezer (CONFIG_FREEZE): apps' memory written to flash, thaws, refreezes,
// demotions, and the freezer thread's throttle.
extension XNUMemory {
    // MARK: Freezer

    /// A freezer wake-up (XNU's memorystatus_pages_update waking the freezer thread,
    /// bsd/kern/kern_memorystatus.c:5845-5852): at every suspension, band change and
    /// fall of memory (the last step of `xnuFallReclaim`, after the pressure checks):
    /// the freezer runs only when `memorystatus_freeze_thread_should_run`
    /// says so (kern_memorystatus_policy.c:741-781): below the freeze level, while
    /// fewer than the most apps have state on flash or at least
    /// `freezeRefreezeThawed` of them are thawed, and not before the thread's next-run
    /// time (:774-778). A wake-up before that time is not lost: XNU's page counts keep
    /// changing, so its next check at or after the next-run time wakes the thread if
    /// the conditions still hold. jetsim's memory changes only at events, so the state
    /// at the next-run time is the state after the last event before it:
    /// `freezerCatchUp` runs the freezer at that time, at the start of the first event
    /// (timer or input) at or after it, before the event acts.
    ///
    /// Inline up to the tests that find nothing to do (most wake-ups: the same budget
    /// day, the thread not due or memory above the freeze level); what acts is out of
    /// line (`freezerWakeRun`).
    @inline(__always)
    mutating func freezerWake(_ core: inout Core, _ now: SimTime) {
        guard params.freezer else { return }
        // Throttled: `freezerDue` is set (by the last run), so the first event at or
        // after `freezerNextRun` runs `freezerCatchUp`.
        if freezerDay(now) != flashDay || (now >= freezerNextRun && freezerShouldRun(core)) { freezerWakeRun(&core, now) }
    }

    /// `freezerWake`'s freezer part when the day changed or the thread may run.
    @inline(never)
    mutating func freezerWakeRun(_ core: inout Core, _ now: SimTime) {
        freezerNewDay(&core, now)
        guard freezerShouldRun(core), now >= freezerNextRun else { return }
        freezerRun(&core, now)
    }

    /// memorystatus_freeze_thread_should_run's checks of memory and of the frozen
    /// count (kern_memorystatus_policy.c:751-771); the time is checked by the callers.
    @inline(__always) func freezerShouldRun(_ core: Core) -> Bool { freezerShouldRun(availableKB: core.availableKB) }

    /// `freezerShouldRun` on the core's available memory, passed in (the catch-up's
    /// common case reads two of the core's figures, not the core).
    @inline(__always) func freezerShouldRun(availableKB: Int64) -> Bool {
        availableKB < kb.freezeKB
            && (Int(flashCopyCount) < params.freezeMaxProcesses || refreezeEligibleCount >= params.freezeRefreezeThawed)
    }

    /// The freezer's budget day of `now` (`flashDay` is the current one's).
    @inline(__always) func freezerDay(_ now: SimTime) -> Int32 {
        Int32(truncatingIfNeeded: now.microseconds / 86_400_000_000)
    }

    /// A new budget interval (memorystatus_freeze_reset_interval,
    /// bsd/kern/kern_memorystatus_freeze.c:1565-1598, xnu-11417.101.15): the new
    /// budget is what the old interval left unused plus a day's
    /// (memorystatus_freeze_calculate_new_budget, :2495-2535; the budget-replenishment
    /// test, tests/vm/memorystatus_freeze_test.c:763-814), and frozen apps are
    /// demoted. XNU's reset is a timer at each interval's end, so intervals that pass
    /// with no event here each add a day's budget and demote as theirs would have
    /// (the state between events does not change); its extra budget for "days missed"
    /// covers a timer that fired late, which never happens here.
    @inline(__always) mutating func freezerNewDay(_ core: inout Core, _ now: SimTime) {
        let day = freezerDay(now)
        if day != flashDay { freezerNewIntervals(&core, day, now) }
    }

    /// `freezerNewDay` when the day changed: one reset per interval passed.
    @inline(never)
    mutating func freezerNewIntervals(_ core: inout Core, _ day: Int32, _ now: SimTime) {
        let intervals = Int64(day) - Int64(flashDay)
        flashDay = day
        let left = max(0, freezeBudgetKB)
        let added = params.freezeDailyKB.multipliedReportingOverflow(by: intervals)
        let sum = left.addingReportingOverflow(added.partialValue)
        freezeBudgetKB = added.overflow || sum.overflow ? .max : sum.partialValue
        // One demotion round per reset; a round that demotes nothing leaves the same
        // state to the next.
        var round: Int64 = 0
        while round < intervals && demoteFrozen(&core, now) { round += 1 }
    }

    /// The freezer's runs due since the last event: at its next-run time (the state
    /// is the one the last event left, with compression advanced to that time), the
    /// thread runs if `freezerShouldRun`, and again at each next-run time up to `now`
    /// while it holds (one run per `freezerIdleDelay` x multiplier, as XNU's thread on
    /// a device whose page counts keep moving). With no compression in progress a run
    /// that changes nothing leaves the same state to the next one, so the runs up to
    /// the next budget day (or up to `now`) are skipped. While apps are still being
    /// compressed, memory moves at whole seconds (`advanceCompression`), so the runs
    /// are made one whole second apart at most: those within the second of one that
    /// changed nothing see its state and are skipped. The loop makes at most one pass
    /// per run that acts, per budget day of the gap, and per second of compression in
    /// it, whatever the delay (a delay of 1 us made one pass per microsecond).
    ///
    /// Most calls find one run that cannot act: no compression in progress (memory at
    /// the run time is the last event's), the same budget day at the run time and
    /// now, and memory above the freeze level or too few unfrozen suspended apps
    /// (`freezerPassMayAct`). `freezerIdleRun` makes that run without the loop and
    /// without calling `freezerPass`, exactly as the loop's first pass would (the
    /// thread stops waiting, or its next run is the first after now). Not inlined into
    /// the top of a timer's event: that saved under 1 % (docs/performance.md).
    @inline(never)
    mutating func freezerCatchUp(_ core: inout Core, _ now: SimTime) {
        if freezerIdleRun(availableKB: core.availableKB, suspended: core.suspendedCount, now) { return }
        freezerCatchUpLoop(&core, now)
    }

    /// `freezerCatchUp`'s common case (above): whether it was that, and was run.
    @inline(__always) mutating func freezerIdleRun(availableKB: Int64, suspended: Int, _ now: SimTime) -> Bool {
        guard freezerDue && compressor.compressing.isEmpty && params.freezer && params.bands
              && !(freezerShouldRun(availableKB: availableKB) && freezerPassMayAct(suspended: suspended))
        else { return false }
        let t = freezerNextRun
        guard t <= now && freezerDay(t) == flashDay && freezerDay(now) == flashDay else { return false }
        freezerDue = false
        guard freezerShouldRun(availableKB: availableKB) else { return true }
        // `freezerRun(t)` of a pass that returns at its first guard.
        let delay = freezerDelay(froze: false)
        freezerNextRun = t + delay
        guard delay > .zero else { return true }
        freezerDue = true
        // The loop's first run after now (`afterNow`): the next budget day is after now.
        freezerNextRun = SimTime(microseconds: Self.freezerGrid(from: t.microseconds, step: delay.microseconds, after: now.microseconds))
        return true
    }

    /// The first of the thread's runs t, t + step, t + 2 step, ... strictly after
    /// `after` (`freezerIdleRun`, `freezerCatchUpLoop`), in microseconds.
    @inline(__always) static func freezerGrid(from t: Int64, step: Int64, after: Int64) -> Int64 {
        t + ((after - t) / step + 1) * step
    }

    /// The first of the thread's runs t, t + step, ... at or after `atOrAfter`.
    @inline(__always) static func freezerGrid(from t: Int64, step: Int64, atOrAfter x: Int64) -> Int64 {
        t + (x - t + step - 1) / step * step
    }

    /// `freezerCatchUp`'s loop.
    @inline(never)
    mutating func freezerCatchUpLoop(_ core: inout Core, _ now: SimTime) {
        while freezerDue && freezerNextRun <= now {
            freezerDue = false
            let t = freezerNextRun
            guard params.freezer, params.bands else { return }
            // Memory as it is at t: compression went on since the last event.
            if !compressor.compressing.isEmpty { advanceCompression(&core, t) }
            freezerNewDay(&core, t)
            guard freezerShouldRun(core) else { return }
            if freezerRun(&core, t) || !freezerDue { continue }
            let step = (freezerNextRun - t).microseconds
            // The first run after now (the last run before it would set this).
            let afterNow = Self.freezerGrid(from: t.microseconds, step: step, after: now.microseconds)
            if !compressor.compressing.isEmpty {
                // The first run in the next whole second, where compression changes
                // memory at the earliest (or the first after now, if sooner).
                let second = (t.microseconds / 1_000_000 + 1) * 1_000_000
                let inNext = Self.freezerGrid(from: t.microseconds, step: step, atOrAfter: second)
                if freezerNextRun.microseconds < second { freezerNextRun = SimTime(microseconds: min(inNext, afterNow)) }
                continue
            }
            let nextDay = (Int64(flashDay) + 1) * 86_400_000_000
            if nextDay <= now.microseconds {
                // The first run in the next budget day.
                freezerNextRun = SimTime(microseconds: Self.freezerGrid(from: t.microseconds, step: step, atOrAfter: nextDay))
            } else {
                freezerNextRun = SimTime(microseconds: afterNow)
                return
            }
        }
    }

    /// One run of the freezer thread (bsd/kern/kern_memorystatus_freeze.c:2902-2958,
    /// memorystatus_freeze_thread), at most one freeze: with more suspended apps than
    /// apps with state on flash plus the threshold (memorystatus_can_freeze_processes,
    /// :2222-2243), with no budget left, demote one thawed app (urgent mode,
    /// :2936-2938); with the freezer full, refreeze the first thawed app in the frozen
    /// band (kern_memorystatus_policy.c:600-647, 659-671); otherwise freeze the oldest
    /// idle suspended app of at least the minimum size, or with none left refreeze as
    /// when full if enough apps are thawed (:718-727). Then the thread's next run:
    /// now + `freezerIdleDelay` x the multiplier (:2945-2954); the slow one only with
    /// the dynamic delay, after a run that froze nothing while apps are frozen. With a
    /// delay of zero every wake-up runs it (no throttle). Whether it froze or demoted.
    @discardableResult
    mutating func freezerRun(_ core: inout Core, _ now: SimTime) -> Bool {
        let (froze, acted) = freezerPass(&core, now)
        let delay = freezerDelay(froze: froze)
        freezerNextRun = now + delay
        freezerDue = delay > .zero
        return acted
    }

    /// The delay to the thread's next run after one that froze or not (`freezerRun`:
    /// kern_memorystatus_freeze.c:2945-2954): `freezerIdleDelay` x the multiplier, the
    /// slow one only with the dynamic delay, after a run that froze nothing while apps
    /// are frozen.
    @inline(__always) func freezerDelay(froze: Bool) -> SimTime {
        let slow = params.freezerDynamicDelay && !froze && flashCopyCount > 0
        return params.freezerIdleDelay * Int64(slow ? params.freezerSlowMultiplier : params.freezerFastMultiplier)
    }

    /// `freezerPass`'s first guard (memorystatus_can_freeze_processes,
    /// kern_memorystatus_freeze.c:2222-2243): more suspended apps than apps with state
    /// on flash plus the threshold. Without it the pass does nothing.
    @inline(__always) func freezerPassMayAct(_ core: Core) -> Bool { freezerPassMayAct(suspended: core.suspendedCount) }

    /// `freezerPassMayAct` on the core's count of suspended apps, passed in.
    @inline(__always) func freezerPassMayAct(suspended: Int) -> Bool {
        // XNU's counts are unsigned: more apps with state on flash than suspended
        // apps wraps the difference to a large number, which passes (:2231).
        let unfrozenSuspended = suspended - Int(flashCopyCount)
        return suspended > 0 && (unfrozenSuspended < 0 || unfrozenSuspended > params.freezeSuspendedThreshold)
    }

    /// The freezer thread's loop, once (`freezerRun`): whether it froze an app, and
    /// whether it froze or demoted one.
    mutating func freezerPass(_ core: inout Core, _ now: SimTime) -> (froze: Bool, acted: Bool) {
        guard freezerPassMayAct(core) else { return (false, false) }
        // No budget left: urgent mode (kern_memorystatus_freeze.c:2927-2938).
        if freezeBudgetKB <= 0 {
            return (false, urgentDemotion(&core, now))
        }
        // The freezer full: refreezes only (kern_memorystatus_policy.c:659-671).
        if Int(flashCopyCount) >= params.freezeMaxProcesses { return refreezeFirstThawed(&core, now) }
        // memorystatus_freeze_pick_process walks the bands from the idle band up to
        // FREEZE_MAX_CANDIDATE_BAND, AGING_BAND2 (20) on iOS (kern_memorystatus_policy.c:
        // 652-716, 560-570; bsd/sys/kern_memorystatus_freeze.h:102-106): the idle band
        // (list 0), then the aging band (list 2), each first in, first considered.
        var app = firstEligible(core, list: 0)
        if app < 0 { app = firstEligible(core, list: 2) }
        if app >= 0 {
            freeze(&core, app, now)
            return (true, true)
        }
        // No new candidate left: a refreeze, with enough apps thawed
        // (kern_memorystatus_policy.c:718-727; doc/vm/freezer.md:66-68: "Once the
        // freezer is full or we have no more candidate processes we will do a
        // re-freeze").
        guard refreezeEligibleCount >= params.freezeRefreezeThawed else { return (false, false) }
        return refreezeFirstThawed(&core, now)
    }

    /// A first freeze's candidate (memorystatus_is_process_eligible_for_freeze,
    /// kern_memorystatus_policy.c:446-589): suspended, not frozen, not prewarmed, at
    /// least the minimum size. A demoted thawed app (its state on flash, no longer
    /// refreeze-eligible) is passed over: memorystatus_freeze_process returns EINVAL
    /// for it (kern_memorystatus_freeze.c:1799-1803) and memorystatus_freeze_top_process
    /// tries the next candidate (:2168-2178).
    /// The first candidate of idle-order list `list` (0 idle, 2 aging), or -1.
    @inline(__always) func firstEligible(_ core: Core, list: Int) -> Int32 {
        var app = core.idleOrder.head(list)
        while app >= 0 && !freezeEligible(core, app) { app = core.idleOrder.next(app) }
        return app
    }

    @inline(__always) func freezeEligible(_ core: Core, _ app: Int32) -> Bool {
        let a = Int(app)
        return core.apps[a].state == .suspended && !core.apps[a].memory.contains(.frozen) && !core.apps[a].isPrewarmed
            && core.apps[a].memory.intersection([.hasFlashCopy, .refreezeEligible]) != .hasFlashCopy
            && residentSettledKB(core, app) >= params.freezeMinKB
    }

    /// A refreeze (memorystatus_freeze_pick_refreeze_process,
    /// kern_memorystatus_policy.c:600-647): the first thawed app in the frozen band.
    mutating func refreezeFirstThawed(_ core: inout Core, _ now: SimTime) -> (froze: Bool, acted: Bool) {
        // No minimum size for a refreeze: only a first freeze checks eligibility
        // (memorystatus_freeze_process, kern_memorystatus_freeze.c:1797-1830), and a
        // thawed app holds only what it touched.
        let app = firstThawedInFrozenBand(core, suspendedOnly: true)
        guard app >= 0 else { return (false, false) }
        freeze(&core, app, now)
        return (true, true)
    }

    /// The first refreeze-eligible (thawed) app in the frozen band's order, suspended
    /// if `suspendedOnly`, or -1. O(apps in the band).
    func firstThawedInFrozenBand(_ core: Core, suspendedOnly: Bool) -> Int32 {
        var app = core.idleOrder.head(1)
        while app >= 0 {
            let a = Int(app)
            if core.apps[a].memory.contains(.refreezeEligible) && (!suspendedOnly || core.apps[a].state == .suspended) {
                return app
            }
            app = core.idleOrder.next(app)
        }
        return -1
    }

    /// What freezing an app writes to flash: all of its memory, or for a refreeze
    /// (thawed, its state still on flash) only the share it dirtied since.
    @inline(__always) func flashWrite(_ core: Core, _ app: Int32) -> Int64 {
        let settledKB = residentSettledKB(core, app)
        guard core.apps[Int(app)].memory.contains(.hasFlashCopy) else { return settledKB }
        return settledKB * Int64(params.refreezeDirtyPPM) / 1_000_000
    }

    /// Normal-mode demotions (bsd/kern/kern_memorystatus_freeze.c:2339-2387,
    /// memorystatus_demote_frozen_processes_using_thaw_count): XNU walks the frozen
    /// band from its first entry (memorystatus_get_first_proc_locked on
    /// memorystatus_freeze_jetsam_band) and demotes each app with state on flash
    /// (frozen, or thawed and back in the band) thawed fewer than
    /// `freezeDemotionThaws` times to the idle band, at most `freezeDemotionsMax`; the
    /// band is a list in the order apps entered it (bsd/kern/kern_memorystatus.c:
    /// 2918-2922), so the app that entered it longest ago goes first. A demoted app
    /// enters the idle band at its tail (kern_memorystatus_freeze.c:2302-2315, no
    /// aging). Once per freezer day (memorystatus_freeze_start_normal_throttle_interval,
    /// kern_memorystatus_freeze.c:1596-1598). O(apps in the band).
    @discardableResult
    mutating func demoteFrozen(_ core: inout Core, _ now: SimTime) -> Bool {
        guard flashCopyCount > 0 else { return false }
        var demoted = 0
        var app = core.idleOrder.head(1)
        while app >= 0 && demoted < params.freezeDemotionsMax {
            let next = core.idleOrder.next(app)
            if Int(core.apps[Int(app)].thaws) < params.freezeDemotionThaws {
                demote(&core, app, now)
                demoted += 1
            }
            app = next
        }
        return demoted > 0
    }

    /// Urgent-mode demotion (kern_memorystatus_freeze.c:2357-2366 and 2378-2381): the
    /// budget is spent, so a thawed app cannot be refrozen and its memory would stay
    /// in RAM up in band 75; the first thawed app in the band goes to the idle band.
    /// Whether it demoted one.
    mutating func urgentDemotion(_ core: inout Core, _ now: SimTime) -> Bool {
        let app = firstThawedInFrozenBand(core, suspendedOnly: false)
        guard app >= 0 else { return false }
        demote(&core, app, now)
        return true
    }

    /// memorystatus_demote_frozen_process (kern_memorystatus_freeze.c:2301-2336): the
    /// elevated band is cleared and the app is no longer refreeze-eligible; its state
    /// stays on flash (it still counts as frozen).
    mutating func demote(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        let a = Int(app)
        core.apps[a].memory.insert(.demoted)
        if core.apps[a].memory.contains(.refreezeEligible) {
            core.apps[a].memory.remove(.refreezeEligible)
            refreezeEligibleCount -= 1
        }
        core.metrics[.freezerDemotions] += 1
        refreshCandidate(&core, app, now)
    }

    /// Writes a suspended app's (compressed) memory to flash: it leaves RAM and moves
    /// to the frozen band (elevated again if it had been demoted,
    /// kern_memorystatus_freeze.c:1912-1918). At most the budget left is written: XNU
    /// hands task_freeze the remaining budget as its page limit (:1838) and the app
    /// is frozen with what fit; the share of its memory not written stays in RAM,
    /// compressed (a partial freeze; the budget is then spent, so the next runs demote
    /// in urgent mode).
    mutating func freeze(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        let a = Int(app)
        finishCompressionNow(&core, app, now)
        let fullKB = flashWrite(core, app)
        let writeKB = min(fullKB, max(0, freezeBudgetKB))
        let settledKB = core.apps[a].residentKB
        let keepKB = writeKB < fullKB ? settledKB - settledKB * writeKB / fullKB : 0
        if core.apps[a].memory.contains(.hasFlashCopy) {
            core.metrics[.refreezes] += 1
        } else {
            flashCopyCount += 1
        }
        if core.apps[a].memory.contains(.refreezeEligible) { refreezeEligibleCount -= 1 }
        core.apps[a].memory = core.apps[a].memory.subtracting([.demoted, .refreezeEligible]).union(.hasFlashCopy)
        clearSoftLimit(&core, app)
        leaveCompressor(&core, app, now)
        freezeBudgetKB -= writeKB
        core.metrics[.flashWrittenKB] += Int(writeKB)
        core.metrics[.freezes] += 1
        core.setResident(app, keepKB)
        if keepKB > 0 {
            // What did not fit stays compressed in RAM.
            core.apps[a].memory.insert(.compressed)
            compressor.pool.committedKB += keepKB
            compressorChange(&core, keepKB, now)
        }
        core.apps[a].memory.insert(.frozen)
        frozenCount += 1
        core.trace.record(time: now, app: app, event: .frozen, detail: .none, state: .suspended)
        refreshCandidate(&core, app, now)
    }

    /// A suspended app resumes (memorystatus_on_resume, bsd/kern/kern_memorystatus.c:
    /// 3770-3815). If its memory was on flash, it comes back (a thaw). If its state is
    /// on flash (frozen once, XNU's P_MEMSTAT_FROZEN, kept on resume), the resume counts
    /// as a thaw against demotion and makes it refreeze-eligible (a refreeze writes only
    /// what it dirties); it keeps band 75 unless demoted.
    /// Inline up to the check (every resume and kill passes here, and with the
    /// freezer off no app is frozen or on flash): the rest out of line.
    @inline(__always)
    mutating func unfreeze(_ core: inout Core, _ app: Int32) {
        let a = Int(app)
        if core.apps[a].memory.contains(.frozen) || core.apps[a].memory.contains(.hasFlashCopy) { unfreezeNow(&core, app) }
    }

    /// `unfreeze` for an app frozen or with its state on flash.
    @inline(never)
    mutating func unfreezeNow(_ core: inout Core, _ app: Int32) {
        let a = Int(app)
        if core.apps[a].memory.contains(.frozen) {
            core.apps[a].memory.remove(.frozen)
            frozenCount -= 1
        }
        guard core.apps[a].memory.contains(.hasFlashCopy) else { return }
        // On demand: it holds only what it touched ("On-demand thaw"), compressed at
        // its next suspension to its own packed size (the profile's again at its exit).
        core.apps[a].packedKB = Int32(clamping: core.packedKB(plainKB: thawTouchedKB(core, core.pi(app))))
        if !core.apps[a].memory.contains(.refreezeEligible) {
            core.apps[a].memory.insert(.refreezeEligible)
            refreezeEligibleCount += 1
        }
        if core.apps[a].thaws < .max { core.apps[a].thaws += 1 }
    }

    /// An app exits: the freezer forgets it (its record is then reset). Inline up to
    /// its first check: only an app the freezer knows (frozen, or a freezer mark).
    @inline(__always)
    mutating func forgetFrozen(_ core: inout Core, _ app: Int32) {
        let a = Int(app)
        if !core.apps[a].memory.isDisjoint(with: MemoryFlags.freezerKnows) { forgetFrozenNow(&core, app) }
    }

    /// `forgetFrozen` for an app the freezer knows.
    mutating func forgetFrozenNow(_ core: inout Core, _ app: Int32) {
        let a = Int(app)
        if core.apps[a].memory.contains(.frozen) { frozenCount -= 1 }
        let marks = core.apps[a].memory
        if marks.contains(.refreezeEligible) { refreezeEligibleCount -= 1 }
        if marks.contains(.hasFlashCopy) {
            flashCopyCount -= 1
            // Its state leaves flash: a next process holds the profile's suspended footprint.
            core.apps[a].packedKB = Int32(clamping: core.suspendedResidentKB(core.pi(app)))
        }
    }
}
