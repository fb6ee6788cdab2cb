import SimKernel

// Android lmkd: the kill decisions (PSI mode and the legacy minfree levels).
extension AndroidMemory {
    /// What lmkd decides on a wake-up at `now` (lmkd.cpp mp_event_psi, 2896-3002): the
    /// kill reason and the lowest oom_score_adj it may kill, or nil (no kill). Thrashing
    /// is measured (`thrashingPct`) only when lmkd is woken, as mp_event_psi runs only then.
    /// - woken only by a PSI event: some stall over psi_partial_stall_ms, full stall
    ///   over psi_complete_stall_ms, or a request reclaim cannot meet (lmkd.cpp:3381-3383);
    /// - the decision right after a kill (`afterKill`) with the request still unmet:
    ///   PRESSURE_AFTER_KILL, down to pressure_after_kill_min_score, 0 by default
    ///   (lmkd.cpp:2896-2904, 3907-3908). lmkd asks for the low watermark; jetsim has
    ///   none, and a request still unmet (below min) stands for it;
    /// - complete stall: "device is not responding", any adj, once per window
    ///   (lmkd.cpp:2905-2912; the critical level's PSI event, at most once per window,
    ///   lmkd.cpp:131-137, 3383);
    /// - swap low (free zram below swap_free_low_percentage, lmkd.cpp:2792-2793) and
    ///   thrashing over thrashing_limit_pct, or below the high watermark: adj > 200
    ///   unless below min or thrashing at the critical level (2913-2933);
    /// - below the high watermark and thrashing over this window's (cut) limit: adj > 200
    ///   unless thrashing at the critical level (2944-2953);
    /// - below the high watermark: adj > 700 (LOW_MEM, 2983-2988);
    /// - critical_stall, PSI's full avg10 over stall_limit_critical, lets any of these go
    ///   down to adj 0 (lmkd.cpp:2889-2891, 3000-3002); at its default of 100 it never
    ///   holds. (A full stall over psi_complete_stall_ms in the window is not
    ///   critical_stall: it is the one not-responding kill above.)
    @inline(__always) mutating func lmkdDecision(_ core: inout Core, needKB: Int64, afterKill: Bool, _ now: SimTime) -> (reason: KillReason, minAdj: Int)? {
        let ap = params
        let belowMin = core.availableKB < needKB
        let belowHigh = core.availableKB < needKB + ap.highWatermarkKB
        let notResponding = state.fullStallUs > ap.completeStall.microseconds
        let critical = state.fullAvg10 > ap.stallLimitCriticalPct
        guard lmkdWoken(core, needKB: needKB) else { return nil }
        let thrashing = thrashingPct(now)
        // No page cache, no measure (thrashing is 0): not critical even at a 0 % level.
        let thrashingCritical = ap.measuresThrashing && thrashing >= ap.thrashingCriticalPct
        let swapLow = (ap.zram || ap.swapFile) && ap.swapKB > 0
            && Double(ap.swapKB - zramStoredKB) * 100 < ap.swapFreeLowPct * Double(ap.swapKB)
        var reason: KillReason? = nil
        var minAdj = 0
        if afterKill && belowMin {
            reason = .lmkdPressureAfterKill
            minAdj = OomAdj.foreground  // pressure_after_kill_min_score's default
        } else if notResponding && state.notRespondingWindow != state.window {
            reason = .lmkdPsiComplete
        } else if swapLow && (thrashing > ap.thrashingLimitPct || belowHigh) {
            reason = .lmkdLowSwap
            minAdj = belowMin || thrashingCritical ? 0 : OomAdj.perceptible + 1
        } else if belowHigh && thrashing > state.thrashingLimit {
            reason = .lmkdThrashing
            minAdj = thrashingCritical ? 0 : OomAdj.perceptible + 1
        } else if belowHigh {
            reason = .lmkdPsiPartial
            minAdj = OomAdj.previous + 1
        }
        if critical { minAdj = 0 }
        return reason.map { ($0, minAdj) }
    }

    /// Room for a request of `needKB` on an Android device: reclaim into zram, then
    /// lmkd's kills, one victim per decision (find_and_kill_process, lmkd.cpp:2475-2510),
    /// deciding again after each kill as its polling does, until no trigger holds.
    /// One trigger a question (`ReclaimSequence`).
    mutating func androidRoomReclaim(_ core: inout Core, needKB: Int64, _ step: inout UInt8, _ now: SimTime) -> ReclaimTrigger? {
        let ap = params
        if step == 0 {
            step = 1
            psiWindow(now)
            zramReclaim(&core, untilAvailable: needKB + ap.highWatermarkKB, now)
            if !ap.psi {
                step = 3
                return .android(.minfree(needKB: needKB))
            }
            if lmkdWoken(core, needKB: needKB) { return .android(.lmkd(needKB: needKB)) }
        }
        if step == 1 {
            step = 2
            guard core.availableKB < needKB else { return nil }
            // The request still cannot be met: direct reclaim makes no progress and
            // every task waits (PSI full; assumption: `oomStall`), so lmkd sees a
            // complete stall: one not-responding kill at any adj (once per window),
            // then pressure-after-kill while the request stays unmet.
            state.someStallUs = .saturatingSum(state.someStallUs, ap.oomStall.microseconds)
            state.fullStallUs = .saturatingSum(state.fullStallUs, ap.oomStall.microseconds)
            return .android(.lmkd(needKB: needKB))
        }
        return nil
    }

    /// Whether lmkd is woken for a request of `needKB` (`lmkdDecision`'s first test:
    /// a PSI event or a request reclaim cannot meet): without it no decision can kill,
    /// so the reclaim loop is not entered (most requests).
    @inline(__always) func lmkdWoken(_ core: Core, needKB: Int64) -> Bool {
        let ap = params
        return state.someStallUs > ap.partialStall.microseconds || state.fullStallUs > ap.completeStall.microseconds
            || core.availableKB < needKB
    }

    /// lmkd's next decision (`.lmkd`), one kill each, until no trigger holds or the
    /// policy's next victim is below the lowest adj the trigger may kill. After each
    /// kill the reclaim loop restarts the thrashing measure (`thrashingAfterKill`), and
    /// the next decision is the cycle after a kill (`c.acted`: every decision of the
    /// loop after its first follows a kill, since one that kills nothing ends it).
    mutating func pickLmkd(_ core: inout Core, needKB: Int64, _ c: inout ReclaimCursor, _ now: SimTime) -> ReclaimAction {
        guard let d = lmkdDecision(&core, needKB: needKB, afterKill: c.acted, now) else { return .none }
        if d.reason == .lmkdPsiComplete { state.notRespondingWindow = state.window }
        guard let victim = core.nextVictim() else { return .none }
        // The policy's next victim is protected at this level (the triggers' levels
        // are 0, 201 and 701: the class decides, not the cached slot).
        let adj = oomScoreAdjClass(core, victim, now)
        if adj < d.minAdj { return .none }
        c.acted = true
        return .kill(app: lmkdPick(core, victim, adj: adj, now), victim: victim, reason: d.reason)
    }

    /// lmkd's choice within the adj level of the policy's victim (find_and_kill_process,
    /// lmkd.cpp:2475-2510, walking the levels from 1000 down): the victim itself, the
    /// least recently adjusted of its level (proc_adj_tail) as the policy orders it, or
    /// the heaviest resident app of the level (proc_get_heaviest) when
    /// `kill_heaviest_task` is set (default false, lmkd.cpp:3902-3903) or the level is
    /// perceptible or more important (adj <= 200, where lmkd always takes the heaviest
    /// "to minimize the number of victims"). There the level is the highest adj from
    /// the victim's up to 200 that a resident app has: an app top less than
    /// TOP_TO_FGS_GRACE_DURATION ago is at 50, below the others at 200. A scan of the
    /// apps, as proc_get_heaviest scans its adj bucket: only when killing, only then.
    @inline(__always) func lmkdPick(_ core: Core, _ victim: Int32, adj: Int, _ now: SimTime) -> Int32 {
        if adj <= OomAdj.perceptible { return heaviestPerceptible(core, victim, adj: adj, now) }
        guard params.killHeaviestTask else { return victim }
        let exact = oomScoreAdj(core, victim, now)
        var best = victim, bestKB = core.apps[Int(victim)].residentKB
        for i in 0..<core.apps.count {
            let app = Int32(i)
            guard app != core.front, core.apps[i].state.isResident, core.apps[i].residentKB > bestKB,
                  oomScoreAdj(core, app, now) == exact else { continue }
            best = app
            bestKB = core.apps[i].residentKB
        }
        return best
    }

    /// The heaviest resident app of the highest level in adj...200 (`lmkdPick`).
    func heaviestPerceptible(_ core: Core, _ victim: Int32, adj: Int, _ now: SimTime) -> Int32 {
        var best = victim, bestAdj = adj, bestKB = core.apps[Int(victim)].residentKB
        for i in 0..<core.apps.count {
            let app = Int32(i)
            guard app != core.front, core.apps[i].state.isResident else { continue }
            let x = oomScoreAdjClass(core, app, now)
            guard x >= bestAdj, x <= OomAdj.perceptible else { continue }
            if x > bestAdj || core.apps[i].residentKB > bestKB {
                best = app
                bestAdj = x
                bestKB = core.apps[i].residentKB
            }
        }
        return best
    }

    /// The legacy minfree mode (ro.lmk.use_minfree_levels, lmkd.cpp:3152-3190): the
    /// lowest level whose minfree (`AndroidParameters.minfreeKB`, updateOomLevels' for
    /// the device) exceeds free memory (after the request) sets the lowest adj that may
    /// die; one kill per decision until free memory is above it.
    func pickMinfree(_ core: Core, needKB: Int64, _ now: SimTime) -> ReclaimAction {
        let free = core.availableKB - needKB
        var minAdj = -1
        let levels = params.minfreeKB
        for i in 0..<MinFreeLevels.count where free < levels[i] {
            minAdj = AndroidParameters.minfreeAdj[i]
            break
        }
        guard minAdj >= 0, let victim = core.nextVictim() else { return .none }
        let adj = oomScoreAdj(core, victim, now)
        if adj < minAdj { return .none }
        return .kill(app: lmkdPick(core, victim, adj: adj, now), victim: victim, reason: .lmkdMinfree)
    }
}
