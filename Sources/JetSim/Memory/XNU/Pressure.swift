import SimKernel

// XNU memorystatus: pressure levels from the compressor, the warnings they send,
// sustained-pressure and compressor-shortage kills.
/// XNU's pressure levels (kVMPressure*, bsd/sys/event_private.h:328-332; values as in
/// doc/vm/memorystatus_notify.md; Urgent is synonymous with Warning and not modelled).
public enum XNUPressure {
    public static let normal: UInt8 = 0
    public static let warning: UInt8 = 1
    public static let critical: UInt8 = 3
}

extension XNUMemory {
    // MARK: Pressure levels, warnings, sustained pressure, compressor shortage

    /// XNU's pressure level (kVMPressureNormal / Warning / Critical), from how much of
    /// the pageable memory is left uncompressed (doc/vm/memorystatus_notify.md,
    /// "Pressure Thresholds", with a rising and a falling threshold per level). A
    /// compressor low on space is critical too, whatever is left uncompressed
    /// (VM_PRESSURE_WARNING_TO_CRITICAL: `vm_compressor_low_on_space() || ...`,
    /// osfmk/vm/vm_pageout.c:10025-10034, xnu-11417.101.15; low on space is the
    /// compressed-pages limit's nearing level, osfmk/vm/vm_compressor.c:535-539,
    /// 563-568: `compressorShort`). XNU leaves critical by the uncompressed share alone
    /// (:10040-10063) and re-evaluates the level continually, so while the compressor
    /// stays short its next evaluation raises it to critical again: here it stays
    /// critical until the compressor is no longer short. O(1); runs whenever the
    /// compressor pool changes.
    mutating func updatePressureLevel(_ core: inout Core, _ now: SimTime) {
        guard params.pressureLevels, params.bands else { return }
        let left = core.params.pageableKB - compressor.pool.kb
        let old = pressureLevel
        var level = old
        switch old {
        case XNUPressure.normal:
            if compressorShort || left < kb.pressureCriticalKB { level = XNUPressure.critical }
            else if left < kb.pressureWarningKB { level = XNUPressure.warning }
        case XNUPressure.warning:
            if compressorShort || left < kb.pressureCriticalKB { level = XNUPressure.critical }
            else if left > kb.pressureWarningClearKB { level = XNUPressure.normal }
        default:
            if compressorShort { break }
            if left > kb.pressureWarningClearKB { level = XNUPressure.normal }
            else if left > kb.pressureCriticalClearKB { level = XNUPressure.warning }
        }
        guard level != old else { return }
        pressureLevel = level
        // bsd/kern/kern_memorystatus_notify.c:1479-1497 (memorystatus_update_vm_pressure):
        // leaving normal schedules the sustained-pressure handler after the window
        // (thread_call_enter_delayed: a timer, `armSustainedTimer` at the end of this
        // event); back to normal cancels it (thread_call_cancel; here the timer finds
        // `sustainedDue` changed and does nothing).
        if old == XNUPressure.normal {
            sustainedDue = now + params.sustainedWindow
            if params.sustainedPressureKills { armTimers.insert(.sustained) }
        }
        if level == XNUPressure.normal { sustainedDue = .never }
        // A rise notifies the eligible apps again at the new level.
        if level > old { warningRestUntil = .zero }
    }

    /// Warnings at an elevated pressure level once the resting period is over (the
    /// pressure checks of a fall of memory, after its compressor-shortage kills:
    /// `xnuFallReclaim`). Inline up to the test that finds nothing to do (normal
    /// pressure: most calls).
    @inline(__always)
    mutating func pressureWarningsCheck(_ core: inout Core, _ now: SimTime) {
        if params.pressureLevels && pressureLevel != XNUPressure.normal && now >= warningRestUntil { pressureWarnings(&core, now) }
    }

    /// Schedules the device timers an event asked for (`armTimers`). Out of line: once
    /// per rise of pressure, once per move of the idle daemons' next relaunch.
    @inline(never)
    mutating func armDeviceTimers(_ core: inout Core, _ s: inout Scheduler<DeviceEvent>) {
        let arm = armTimers
        armTimers = []
        if arm.contains(.sustained) { armSustainedTimer(&core, &s) }
        if arm.contains(.idleDaemon) { armIdleDaemonTimer(&core, &s) }
    }

    /// Schedules the sustained-pressure timer at `sustainedDue` (the end of an event
    /// whose pressure left normal).
    mutating func armSustainedTimer(_ core: inout Core, _ s: inout Scheduler<DeviceEvent>) {
        guard sustainedDue < .never && !core.apps.isEmpty else { return }
        // A rise found by the freezer's catch-up (memory as it was at a past run time)
        // may be due before this event already: the timer fires now, as the first
        // moment the device can act (the state in between did not change).
        if sustainedDue < s.now { sustainedDue = s.now }
        core.scheduleTimer(.sustainedPressure, 0, at: sustainedDue, &s)
    }

    /// The sustained-pressure timer fired: when it is current (`sustainedDue` is its
    /// time: pressure has not been normal since it was armed), the handler's kills
    /// (sustained_pressure_handler, bsd/kern/kern_memorystatus_notify.c:1302-1336).
    mutating func sustainedPressureReclaim(_ q: inout ReclaimSequence, _ now: SimTime) -> ReclaimTrigger? {
        guard q.step == 0 else { return nil }
        q.step = 1
        guard now == sustainedDue, params.sustainedPressureKills, pressureLevel != XNUPressure.normal else { return nil }
        return .xnu(.sustainedPressure)
    }

    /// `.compressorShortage`'s next kill: the policy's victim (any band, as XNU's
    /// MEMORYSTATUS_KILL_TOP_PROCESS in ascending priority) until the compressor holds no more than its shortage
    /// level (osfmk/vm/vm_compressor.c, c_segment_pages_compressed_nearing_limit).
    func pickCompressorShortage(_ core: Core) -> ReclaimAction {
        guard compressor.pool.kb > kb.compressorShortPoolKB, let victim = core.nextVictim() else { return .none }
        return .kill(app: victim, victim: victim, reason: .compressorSpaceShortage)
    }

    /// One round of pressure warnings (kern_memorystatus_notify.c,
    /// vm_pressure_select_optimal_candidate_to_notify): one app at a time, the least
    /// important first (lowest band; the app in front counts as band 100), the
    /// largest first within a band; only apps that execute code (never suspended or
    /// frozen: memorystatus_bg_pressure_eligible), in bands 20 and up, with at least
    /// the minimum footprint. Each frees its share as on any warning. Then none again
    /// for the resting period. O(running apps^2), and only when a round is due.
    mutating func pressureWarnings(_ core: inout Core, _ now: SimTime) {
        let level = pressureLevel
        while true {
            var pick: Int32 = -1
            var pickBand = Int.max
            var pickKB: Int64 = -1
            for app in core.running {
                let a = Int(app)
                guard !core.apps[a].memory.contains(.pressureNotified), core.apps[a].residentKB >= params.warningMinKB else { continue }
                let band = app == core.front ? 100 : Int(core.apps[a].band)
                guard band >= Int(XNUBand.aging) || app == core.front else { continue }
                if band < pickBand || (band == pickBand && core.apps[a].residentKB > pickKB) {
                    pick = app; pickBand = band; pickKB = core.apps[a].residentKB
                }
            }
            guard pick >= 0 else { break }
            core.apps[Int(pick)].memory.insert(.pressureNotified)
            warn(&core, pick, now)
            core.metrics[level == XNUPressure.critical ? .warningsAtCritical : .warningsAtWarning] += 1
        }
        for app in core.running { core.apps[Int(app)].memory.remove(.pressureNotified) }
        warningRestUntil = now + params.warningResting
    }

    /// Sustained pressure (kern_memorystatus_notify.c, sustained_pressure_handler):
    /// kills in the idle band (memorystatus_sustained_pressure_maximum_band =
    /// JETSAM_PRIORITY_IDLE), in the policy's order, until the level is back to
    /// normal, at most twice the idle band's count, then gives up until pressure has
    /// been normal again. XNU pauses 500 ms between kills; here they follow at once,
    /// each re-reading the level. At its start: the timer is disarmed and the budget set.
    mutating func startSustainedPressure(_ core: Core, _ c: inout ReclaimCursor) {
        sustainedDue = .never
        var idle = 0
        var app = core.idleOrder.head(0)
        while app >= 0 { idle += 1; app = core.idleOrder.next(app) }
        c.budget = 2 * idle
    }

    /// `.sustainedPressure`'s next kill: the policy's victim while the budget lasts,
    /// pressure is above normal and the victim is in the idle band.
    func pickSustainedPressure(_ core: Core, _ c: inout ReclaimCursor) -> ReclaimAction {
        guard c.budget > 0 && pressureLevel != XNUPressure.normal, let victim = core.nextVictim(),
              core.apps[Int(victim)].band == XNUBand.idle else { return .none }
        c.budget -= 1
        return .kill(app: victim, victim: victim, reason: .sustainedPressure)
    }
}
