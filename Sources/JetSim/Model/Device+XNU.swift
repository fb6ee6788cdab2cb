import SimKernel

/// XNU's memorystatus around the policy: bands as XNU assigns them, the kill
/// triggers, the reaper, the compressor pool and the freezer. All belong to the
/// device (the OS), so every policy runs on the same OS; a policy only names victims.
///
/// Sources (apple-oss-distributions/xnu): bands bsd/sys/kern_memorystatus.h; aging,
/// idle and critical kills and the reaper bsd/kern/kern_memorystatus.c and
/// doc/vm/memorystatus_kills.md; freezer limits bsd/sys/kern_memorystatus_freeze.h,
/// its policy bsd/kern/kern_memorystatus_freeze.c and doc/vm/freezer.md.
public enum XNUBand {
    /// JETSAM_PRIORITY_IDLE.
    public static let idle: UInt8 = 0
    /// JETSAM_PRIORITY_AGING_BAND2 (apps leaving the front age here).
    public static let aging: UInt8 = 20
    /// JETSAM_PRIORITY_BACKGROUND: a background-task assertion, and the dock.
    public static let background: UInt8 = 30
    /// JETSAM_PRIORITY_PHONE: an active voip mode.
    public static let phone: UInt8 = 50
    /// JETSAM_PRIORITY_FREEZER (memorystatus_freeze_jetsam_band).
    public static let frozen: UInt8 = 75
    /// JETSAM_PRIORITY_AUDIO_AND_ACCESSORY: audio or location playing, above foreground (100).
    public static let audioAndAccessory: UInt8 = 120
}

/// XNU's pressure levels (kVMPressure*, bsd/sys/event_private.h:328-332; values as in
/// doc/vm/memorystatus_notify.md; Urgent is synonymous with Warning and not modelled).
public enum XNUPressure {
    public static let normal: UInt8 = 0
    public static let warning: UInt8 = 1
    public static let critical: UInt8 = 3
}

extension Device {
    /// The band XNU gives a candidate now.
    @inline(__always) func xnuBand(_ app: Int32, _ now: SimTime) -> UInt8 {
        let a = Int(app)
        // Band 75 is XNU's: an Android app written back to flash (marked frozen) has none.
        // An app frozen once keeps its state on flash, and with it the elevated
        // inactive band, through its thaws until it is demoted or exits: any band up to
        // 75 it would have becomes 75 (bsd/kern/kern_memorystatus.c:2868-2879,
        // memstat_update_priority_locked; P_MEMSTAT_FROZEN is kept on resume,
        // kern_memorystatus.c:3780-3796; the elevated band is set at freeze,
        // kern_memorystatus_freeze.c:1912-1918, and cleared by a demotion, :2308).
        let elevated = params.xnuBands && apps[a].freezerMarks & (AppRuntime.hasFlashCopy | AppRuntime.demoted) == AppRuntime.hasFlashCopy
        if params.xnuBands && apps[a].has(AppRuntime.frozen) && !elevated { return XNUBand.idle }
        let band = naturalBand(app, now)
        return elevated && band <= XNUBand.frozen ? XNUBand.frozen : band
    }

    /// The band without the freezer's elevation.
    @inline(__always) func naturalBand(_ app: Int32, _ now: SimTime) -> UInt8 {
        let a = Int(app)
        // A prewarmed process sits where an idle process sits (`Device.prewarm`).
        if apps[a].isPrewarmed { return XNUBand.idle }
        if apps[a].state == .background {
            if apps[a].has(AppRuntime.modeActive) {
                switch profiles[pi(app)].mode {
                case .voip: return XNUBand.phone
                case .audio, .location: return XNUBand.audioAndAccessory
                case .none: break
                }
            }
            if apps[a].has(AppRuntime.bgTask) { return XNUBand.background }
            // The simpler model: everything executing in the background in band 30.
            if !params.xnuBands { return XNUBand.background }
        }
        guard params.xnuBands else { return XNUBand.idle }
        if now < apps[a].lastUsed + params.agingTime { return XNUBand.aging }
        if apps[a].has(AppRuntime.inDock) { return XNUBand.background }
        return XNUBand.idle
    }

    /// Tells the policy about a candidate (new, or an attribute changed), with its band;
    /// keeps the idle-band order.
    mutating func refreshCandidate(_ app: Int32, _ now: SimTime, leftFront: Bool = false) {
        let b = xnuBand(app, now)
        // Written only when it changes: a write costs the apps array a uniqueness check.
        if apps[Int(app)].band != b { apps[Int(app)].band = b }
        if !keepsIdleOrder || Policy.ordersIdleBands {
            // Nothing reads the order (no XNU bands, not Android), or the policy's
            // update below keeps it (`idleOrder`).
        } else if b == XNUBand.idle {
            if ownIdleOrder.list(of: app) != 0 { ownIdleOrder.append(app, to: 0) }
        } else if b == XNUBand.frozen {
            if ownIdleOrder.list(of: app) != 1 { ownIdleOrder.append(app, to: 1) }
        } else {
            ownIdleOrder.remove(app)
        }
        policy.update(app, candidate(app, leftFront: leftFront))
        if leftFront { inactiveLimitCheck(app, now) }
    }

    /// `refreshCandidate` for a background or suspended app whose band may not have
    /// moved (a suspension, a finished compression): a policy that reads the band
    /// alone and keeps the idle order itself (jetsam-bands) hears nothing new unless
    /// the band moved. Such an app is a candidate in its stored band's list since it
    /// left the front or was launched in the background (every band change since went
    /// through `refreshCandidate`; `checkMemoryInvariant` asserts it after every
    /// event), so `refreshCandidate` would find the same band and leave it in place.
    @inline(__always)
    mutating func refreshCandidateIfBandMoved(_ app: Int32, _ now: SimTime) {
        if Policy.readsBandOnly && Policy.ordersIdleBands && xnuBand(app, now) == apps[Int(app)].band { return }
        refreshCandidate(app, now)
    }

    /// No longer a candidate (in front, or terminated).
    mutating func removeCandidate(_ app: Int32) {
        policy.remove(app)
        if keepsIdleOrder && !Policy.ordersIdleBands { ownIdleOrder.remove(app) }
        clearSoftLimit(app)
    }

    /// Whether the idle- and frozen-band order is kept: only what reads it (XNU's
    /// reaper, freezer and sustained-pressure kills, all behind the bands; Android's
    /// cached-process cap) needs it, so with neither it costs nothing per event.
    @inline(__always) var keepsIdleOrder: Bool { params.xnuBands || params.android.enabled }

    /// The idle-band (list 0) and frozen-band (list 1) order (`ownIdleOrder`): the
    /// policy's own lists when they are that order (`EvictionPolicy.ordersIdleBands`),
    /// so a candidate update moves an app in one list instead of two.
    var idleOrder: MultiList {
        _read {
            if Policy.ordersIdleBands { yield policy.idleLists } else { yield ownIdleOrder }
        }
    }

    /// A timer or a change may have moved a candidate to another band.
    mutating func bandMayChange(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard apps[a].state == .background || apps[a].state == .suspended else { return }
        if xnuBand(app, now) != apps[a].band { refreshCandidate(app, now) }
        freezerWake(now)
    }

    /// Counts a launch toward the dock: the device's `dockSize` most-launched apps
    /// (ties keep the incumbent). O(dock size).
    /// Inline up to its first check (no XNU bands, no dock, in the dock already).
    @inline(__always)
    mutating func updateDock(_ app: Int32, _ now: SimTime) {
        guard params.xnuBands, params.dockSize > 0, !apps[Int(app)].has(AppRuntime.inDock) else { return }
        updateDockNow(app, now)
    }

    /// `updateDock` for an app not in the dock.
    mutating func updateDockNow(_ app: Int32, _ now: SimTime) {
        if dock.count < params.dockSize {
            dock.append(app)
            apps[Int(app)].set(AppRuntime.inDock)
            return
        }
        var mi = 0
        for i in 1..<dock.count where apps[Int(dock[i])].launches < apps[Int(dock[mi])].launches { mi = i }
        let out = dock[mi]
        guard apps[Int(out)].launches < apps[Int(app)].launches else { return }
        apps[Int(out)].clear(AppRuntime.inDock)
        dock[mi] = app
        apps[Int(app)].set(AppRuntime.inDock)
        bandMayChange(out, now)
    }

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

    // MARK: Pressure levels, warnings, sustained pressure, compressor shortage

    /// XNU's pressure level (kVMPressureNormal / Warning / Critical), from how much of
    /// the pageable memory is left uncompressed (doc/vm/memorystatus_notify.md,
    /// "Pressure Thresholds", with a rising and a falling threshold per level). O(1);
    /// runs whenever the compressor pool changes.
    mutating func updatePressureLevel(_ now: SimTime) {
        guard params.pressureLevels, params.xnuBands else { return }
        let left = params.pageableKB - compressorKB
        let old = pressureLevel
        var level = old
        switch old {
        case XNUPressure.normal:
            if left < kb.pressureCriticalKB { level = XNUPressure.critical }
            else if left < kb.pressureWarningKB { level = XNUPressure.warning }
        case XNUPressure.warning:
            if left < kb.pressureCriticalKB { level = XNUPressure.critical }
            else if left > kb.pressureWarningClearKB { level = XNUPressure.normal }
        default:
            if left > kb.pressureWarningClearKB { level = XNUPressure.normal }
            else if left > kb.pressureCriticalClearKB { level = XNUPressure.warning }
        }
        guard level != old else { return }
        pressureLevel = level
        // kern_memorystatus_notify.c (memorystatus_update_vm_pressure): leaving normal
        // arms the sustained-pressure kill after the window; back to normal cancels it.
        if old == XNUPressure.normal { sustainedDue = now + params.sustainedWindow }
        if level == XNUPressure.normal { sustainedDue = .never }
        // A rise notifies the eligible apps again at the new level.
        if level > old { warningRestUntil = .zero }
    }

    /// The pressure triggers, O(1) unless one fires: compressor-space-shortage kills,
    /// warnings at an elevated level once the resting period is over, and
    /// sustained-pressure kills once the window has passed. The window is checked at
    /// the device's next memory event after it ends (launch, growth, suspension, a
    /// band change), not by a timer of its own.
    ///
    /// Inline up to the test that finds nothing to do (no shortage, normal pressure:
    /// most calls); what acts is out of line (`pressureAct`).
    @inline(__always)
    mutating func pressureCheck(_ now: SimTime) {
        guard params.xnuBands else { return }
        let short = params.compressorShortageKills && compressorShort
        if short || (params.pressureLevels && pressureLevel != XNUPressure.normal) { pressureAct(now, short: short) }
    }

    /// `pressureCheck` when the compressor is short or pressure is above normal.
    @inline(never)
    mutating func pressureAct(_ now: SimTime, short: Bool) {
        if short { compressorShortageKills(now) }
        guard params.pressureLevels, pressureLevel != XNUPressure.normal else { return }
        if now >= warningRestUntil { pressureWarnings(now) }
        if params.sustainedPressureKills && now >= sustainedDue { sustainedPressureKills(now) }
    }

    /// Kills in the policy's order (any band, as XNU's MEMORYSTATUS_KILL_TOP_PROCESS
    /// in ascending priority) until the compressor holds no more than its shortage
    /// level (osfmk/vm/vm_compressor.c, c_segment_pages_compressed_nearing_limit).
    mutating func compressorShortageKills(_ now: SimTime) {
        trace.killLoop(began: true)
        while compressorKB > kb.compressorShortPoolKB, let victim = nextVictim() {
            kill(victim, named: victim, .compressorSpaceShortage, now)
        }
        trace.killLoop(began: false)
    }

    /// One round of pressure warnings (kern_memorystatus_notify.c,
    /// vm_pressure_select_optimal_candidate_to_notify): one app at a time, the least
    /// important first (lowest band; the app in front counts as band 100), the
    /// largest first within a band; only apps that execute code (never suspended or
    /// frozen: memorystatus_bg_pressure_eligible), in bands 20 and up, with at least
    /// the minimum footprint. Each frees its share as on any warning. Then none again
    /// for the resting period. O(running apps^2), and only when a round is due.
    mutating func pressureWarnings(_ now: SimTime) {
        let level = pressureLevel
        while true {
            var pick: Int32 = -1
            var pickBand = Int.max
            var pickKB: Int64 = -1
            for app in running {
                let a = Int(app)
                guard !apps[a].has(AppRuntime.pressureNotified), apps[a].residentKB >= params.warningMinKB else { continue }
                let band = app == front ? 100 : Int(apps[a].band)
                guard band >= Int(XNUBand.aging) || app == front else { continue }
                if band < pickBand || (band == pickBand && apps[a].residentKB > pickKB) {
                    pick = app; pickBand = band; pickKB = apps[a].residentKB
                }
            }
            guard pick >= 0 else { break }
            apps[Int(pick)].set(AppRuntime.pressureNotified)
            warn(pick, now)
            metrics[level == XNUPressure.critical ? .warningsAtCritical : .warningsAtWarning] += 1
        }
        for app in running { apps[Int(app)].clear(AppRuntime.pressureNotified) }
        warningRestUntil = now + params.warningResting
    }

    /// Sustained pressure (kern_memorystatus_notify.c, sustained_pressure_handler):
    /// kills in the idle band (memorystatus_sustained_pressure_maximum_band =
    /// JETSAM_PRIORITY_IDLE), in the policy's order, until the level is back to
    /// normal, at most twice the idle band's count, then gives up until pressure has
    /// been normal again. XNU pauses 500 ms between kills; here they follow at once,
    /// each re-reading the level.
    mutating func sustainedPressureKills(_ now: SimTime) {
        sustainedDue = .never
        var idle = 0
        var app = idleOrder.head(0)
        while app >= 0 { idle += 1; app = idleOrder.next(app) }
        var budget = 2 * idle
        trace.killLoop(began: true)
        while budget > 0 && pressureLevel != XNUPressure.normal, let victim = nextVictim() {
            if apps[Int(victim)].band != XNUBand.idle { break }
            kill(victim, named: victim, .sustainedPressure, now)
            budget -= 1
        }
        trace.killLoop(began: false)
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

    // MARK: Memory that grows

    /// One growth step of the app in front: toward its peak by (peak - launch
    /// footprint) x step / growth time. Room is made as for a launch (idle kills, then
    /// critical); past the per-app limit it is killed (per-process-limit); if nothing
    /// is left to kill and it still does not fit, it dies as a foreground kill.
    mutating func grow(_ app: Int32, _ s: inout Scheduler<DeviceEvent>) {
        let now = s.now
        let a = Int(app)
        let p = pi(app)
        guard front == app, apps[a].state == .active || apps[a].state == .inactive else { return }
        let peak = profiles[p].peakKB
        // (peak - launch) x step / time, exactly, in 128 bits: the product passes Int64
        // for footprints and steps the schema accepts (terabytes x a day in
        // microseconds); a quotient past Int64 saturates (it reaches the peak anyway).
        let distance = max(0, peak - profiles[p].activeKB)
        let span = max(1, params.growthTime.microseconds)
        let stepMicros = max(0, params.growthStep.microseconds)
        let step: Int64
        let small = distance.multipliedReportingOverflow(by: stepMicros)
        if !small.overflow {
            // The usual case: the product fits in 64 bits (the same quotient as the
            // 128-bit division below, without its cost at every growth step).
            step = max(1, small.partialValue / span)
        } else {
            let product = distance.multipliedFullWidth(by: stepMicros)
            let fits = 2 * product.high + Int64(product.low >> 63) < span
            step = max(1, fits ? span.dividingFullWidth(product).quotient : .max)
        }
        let target = step >= peak - apps[a].residentKB ? peak : apps[a].residentKB + step
        guard target > apps[a].residentKB else { return }
        let limit = kb.perAppLimitKB
        let reach = min(target, max(limit, apps[a].residentKB))
        let need = reach - apps[a].residentKB
        if need > 0 {
            makeRoom(needKB: need, launching: app, now)
            if availableKB < need {
                metrics[.foregroundKills] += 1
                terminate(app, .memoryPressure, now)
                return
            }
            setResident(app, apps[a].residentKB + need)
        }
        if target > limit {
            terminate(app, .perProcessLimit, now)
            return
        }
        memoryFell(now)
        if target < peak { scheduleTimer(.grow, app, at: now + params.growthStep, &s) }
    }

    // MARK: Compressor

    /// The pool grows or shrinks by `delta` KiB at `now` (its time integral and peak
    /// follow).
    mutating func compressorChange(_ delta: Int64, _ now: SimTime) {
        flushCompressor(now)
        compressorKB += delta
        compressorShort = compressorKB > 0 && compressorKB > kb.compressorShortPoolKB
        if compressorKB > Int64(metrics[.compressorPeakKB]) { metrics[.compressorPeakKB] = Int(compressorKB) }
        updatePressureLevel(now)
    }

    /// `kb` KiB held for `ms` milliseconds, in KiB x s: the Double figure
    /// `Int(saturating: Double(kb) * Double(ms) / 1_000)`, in integers where that is
    /// exact. Below 2^52 the product is exact as a Double, and the quotient (below
    /// 2^42.1) rounds to within 2^-11 of itself, while a fraction in thousandths is at
    /// least 0.001 from the next integer: truncating it is the integer division.
    /// Non-negative arguments.
    @inline(__always) static func kbSeconds(_ kb: Int64, ms: Int64) -> Int {
        let (product, overflow) = kb.multipliedReportingOverflow(by: ms)
        if !overflow && product < 1 << 52 { return Int(product / 1_000) }
        // A terabyte pool held for months passes Int64 as a product: saturate.
        return Int(saturating: Double(kb) * Double(ms) / 1_000)
    }

    /// Adds the pool's occupancy since the last change to its time integral (KiB x s).
    mutating func flushCompressor(_ now: SimTime) {
        let ms = (now - compressorSince).microseconds / 1_000
        if ms > 0 && compressorKB > 0 {
            let add = Self.kbSeconds(compressorKB, ms: ms)
            metrics[.compressorKBSeconds] = .saturatingSum(metrics[.compressorKBSeconds], add)
        }
        compressorSince = now
    }

    /// A suspended app's memory: compressed into the pool when there is room (resident
    /// = suspended footprint / ratio), else left uncompressed. With a compression rate
    /// the app enters the pool uncompressed and is compressed over the seconds that
    /// follow ("Compression over time" below); the pool's bound is checked against
    /// its size once compressed.
    mutating func compressOnSuspend(_ app: Int32, _ now: SimTime) {
        if params.android.enabled { androidCached(app, now); return }
        let a = Int(app)
        let p = pi(app)
        let plain = min(apps[a].residentKB, suspendedPlainKB(app))
        // The compressor off: the suspended footprint, nothing else to compute.
        guard params.compresses else {
            setResident(app, plain)
            if plain <= kb.inactiveLimitKB { clearSoftLimit(app) }
            return
        }
        let packed = min(apps[a].residentKB, Int64(apps[a].packedKB))
        if compressorCommittedKB + packed <= kb.compressorPoolKB {
            apps[a].set(AppRuntime.compressed)
            compressorCommittedKB += packed
            let seconds = params.compressionKBPerS > 0 ? compressionSeconds(plainKB: plain, finalKB: packed) : 0
            if seconds > 0 {
                setResident(app, plain)
                startCompressing(app, seconds: seconds, now)
            } else {
                setResident(app, packed)
                compressorChange(packed, now)
            }
        } else {
            setResident(app, plain)
        }
        if apps[a].residentKB <= kb.inactiveLimitKB { clearSoftLimit(app) }
    }

    /// What a resume waits for: decompressing the share of the compressed memory
    /// (`compressedKB`: the suspended footprint, or what a part-compressed app had
    /// compressed) the app touches before its first frame (`resumeTouchShare`); the
    /// rest comes back on demand while it runs, outside the launch latency. Exact in
    /// integers (the share in parts per million).
    @inline(__always) func resumeDecompression(_ p: Int, compressedKB: Int64? = nil) -> SimTime {
        let touched = (compressedKB ?? profiles[p].suspendedKB) * Int64(params.resumeTouchPPM) / 1_000_000
        return SimTime(microseconds: params.decompressPerMB.microseconds * touched / 1_024)
    }

    /// The app's memory leaves the compressor (resume, freeze or kill). Returns the
    /// uncompressed KiB a part-compressed app had compressed (0 otherwise): its
    /// resident memory becomes what it holds now, uncompressed part and compressed
    /// part together.
    /// Inline up to the check (every resume and kill passes here, and with the
    /// compressor off no app is in it): the rest out of line.
    @discardableResult @inline(__always)
    mutating func leaveCompressor(_ app: Int32, _ now: SimTime) -> Int64 {
        clearSoftLimit(app)  // terminate clears the flags after this, before removeCandidate
        guard apps[Int(app)].has(AppRuntime.compressed) else { return 0 }
        return leaveCompressorNow(app, now)
    }

    /// `leaveCompressor` for an app in the compressor.
    @inline(never)
    mutating func leaveCompressorNow(_ app: Int32, _ now: SimTime) -> Int64 {
        let a = Int(app)
        if !compressing.isEmpty { advanceCompression(now) }
        if apps[a].freezerMarks & AppRuntime.compressing != 0 {
            let c = compressionProgress(app)
            stopCompressing(app)
            apps[a].leaveCompressor(residentKB: c.residentKB)  // available memory counts it already
            compressorCommittedKB -= c.finalKB
            compressorChange(-c.packedKB, now)
            return c.inputKB
        }
        apps[a].clear(AppRuntime.compressed)
        compressorCommittedKB -= apps[a].residentKB
        compressorChange(-apps[a].residentKB, now)
        return 0
    }

    // MARK: Compression over time

    // XNU compresses no app at suspension: its pages age through the active and
    // inactive queues and are compressed when vm_pageout_scan steals them (the
    // inactive target is half the pageable memory, osfmk/vm/vm_pageout.c:221
    // VM_PAGE_INACTIVE_TARGET; the compressor threads take them in batches,
    // vm_pageout.c:4177-4247), so an app suspended a few seconds ago is still mostly
    // uncompressed. XNU has no rate constant; `compression_mb_per_s` is an
    // *assumption*.
    //
    // The model: every app being compressed turns `compressionKBPerS` uncompressed KiB
    // into `compressionChunkPackedKB` at each whole second of the device clock after
    // its suspension, until the seconds its memory needs (`compressionSeconds`); then
    // it holds exactly what the instant model gives it. The device credits all of
    // them at once, lazily, at its next event (count x seconds x chunk: O(1), no scan),
    // and finishes the apps that are done at the second they are done (a scan of the
    // few apps being compressed, only then). Available memory, the pool, the pressure
    // level and every kill trigger read the same credited figures; an app's own
    // figures follow from its uncompressed size at suspension (kept in `resident`),
    // its suspension time (`stateTime`) and the credited second (`compressionProgress`).

    /// Whole seconds an app of `plainKB` needs to reach `finalKB`: full chunks only,
    /// never past its memory, its final size or what it frees (the rest at the end).
    @inline(__always) func compressionSeconds(plainKB: Int64, finalKB: Int64) -> Int64 {
        let c = params.compressionKBPerS
        guard c > 0 else { return 0 }
        let pk = kb.compressionChunkPackedKB
        var n = plainKB / c
        if c - pk > 0 { n = min(n, (plainKB - finalKB) / (c - pk)) }
        if pk > 0 { n = min(n, finalKB / pk) }
        return max(0, n)
    }

    /// An app being compressed, as of the last credited second: seconds credited and
    /// needed; KiB in the pool, resident (uncompressed + compressed part), once done,
    /// and compressed so far (uncompressed).
    @inline(__always)
    func compressionProgress(_ app: Int32) -> (ticks: Int64, total: Int64, packedKB: Int64, residentKB: Int64, finalKB: Int64, inputKB: Int64) {
        let a = Int(app)
        let plain = apps[a].residentKB
        let final = min(plain, Int64(apps[a].packedKB))
        let c = params.compressionKBPerS, pk = kb.compressionChunkPackedKB
        let ticks = compressTick - apps[a].stateTime.microseconds / 1_000_000
        return (ticks, compressionSeconds(plainKB: plain, finalKB: final), ticks * pk, plain - ticks * (c - pk), final, ticks * c)
    }

    /// An app's resident memory now (with the seconds credited so far).
    @inline(__always) func residentNowKB(_ app: Int32) -> Int64 {
        apps[Int(app)].freezerMarks & AppRuntime.compressing != 0 ? compressionProgress(app).residentKB : apps[Int(app)].residentKB
    }

    /// An app's resident memory once its compression is done.
    @inline(__always) func residentSettledKB(_ app: Int32) -> Int64 {
        apps[Int(app)].freezerMarks & AppRuntime.compressing != 0 ? compressionProgress(app).finalKB : apps[Int(app)].residentKB
    }

    /// Puts a just-suspended app (resident = its uncompressed size) on the list.
    mutating func startCompressing(_ app: Int32, seconds: Int64, _ now: SimTime) {
        let tick = now.microseconds / 1_000_000
        if !compressing.isEmpty { advanceCompression(now) }
        // Nothing being compressed (or the others just finished): start the count now.
        if compressing.isEmpty { compressTick = tick }
        apps[Int(app)].markCompressing(since: now)
        // Done at the seconds `compressionProgress` counts (from the resident size now).
        compressing.append(CompressingApp(app: app, doneTick: tick + compressionProgress(app).total))
        compressNextDone = min(compressNextDone, tick + seconds)
    }

    /// Takes an app off the list (its figures are settled by the caller).
    mutating func stopCompressing(_ app: Int32) {
        if let i = compressing.firstIndex(where: { $0.app == app }) { stopCompressing(at: i) }
    }

    /// Takes the app at position `i` of the list off it (the last one takes its place).
    mutating func stopCompressing(at i: Int) {
        apps[Int(compressing[i].app)].freezerMarks &= ~AppRuntime.compressing
        let last = compressing.count - 1
        // The last one (the only one, mostly) needs no move: a write less.
        if i != last { compressing[i] = compressing[last] }
        compressing.removeLast()
        if compressing.isEmpty { compressNextDone = .max }
    }

    /// Credits every app being compressed with the whole seconds up to `now`, and
    /// finishes each at the second it is done. O(1) per call, plus a scan of the list
    /// at each second some app may be done.
    mutating func advanceCompression(_ now: SimTime) {
        let tick = now.microseconds / 1_000_000
        while !compressing.isEmpty && compressTick < tick {
            let upTo = min(tick, compressNextDone)
            let steps = upTo - compressTick
            compressTick = upTo
            let at = SimTime(microseconds: upTo * 1_000_000)
            if steps > 0 {
                let n = Int64(compressing.count) * steps
                availableKB += n * (params.compressionKBPerS - kb.compressionChunkPackedKB)
                compressorChange(n * kb.compressionChunkPackedKB, at)
            }
            if upTo == compressNextDone { finishCompressions(at, now) }
        }
    }

    /// Finishes the apps whose seconds are all credited, and finds the next second
    /// one may be done.
    mutating func finishCompressions(_ at: SimTime, _ now: SimTime) {
        var i = 0
        var next = Int64.max
        while i < compressing.count {
            // Its done second was stored when it started (`CompressingApp`): a compare
            // per app, its figures computed only when it is done.
            let entry = compressing[i]
            if compressTick >= entry.doneTick {
                let c = compressionProgress(entry.app)
                stopCompressing(at: i)
                finishCompression(entry.app, c, at, now)
            } else {
                next = min(next, entry.doneTick)
                i += 1
            }
        }
        compressNextDone = compressing.isEmpty ? .max : next
    }

    /// The rest of an app's memory goes in at once: it holds its final size, as in
    /// the instant model. The pool changes at `at` (the credited second); the policy
    /// hears of its new size at `now`.
    mutating func finishCompression(_ app: Int32, _ c: (ticks: Int64, total: Int64, packedKB: Int64, residentKB: Int64, finalKB: Int64, inputKB: Int64),
                                    _ at: SimTime, _ now: SimTime) {
        let a = Int(app)
        availableKB += c.residentKB - c.finalKB
        apps[a].residentKB = c.finalKB
        compressorChange(c.finalKB - c.packedKB, at)
        if apps[a].residentKB <= kb.inactiveLimitKB { clearSoftLimit(app) }
        refreshCandidateIfBandMoved(app, now)
    }

    /// Finishes one app's compression now (the freezer compresses what is left
    /// itself before writing it out).
    mutating func finishCompressionNow(_ app: Int32, _ now: SimTime) {
        advanceCompression(now)
        guard apps[Int(app)].freezerMarks & AppRuntime.compressing != 0 else { return }
        let c = compressionProgress(app)
        stopCompressing(app)
        finishCompression(app, c, now, now)
    }

    // MARK: Freezer

    /// A freezer wake-up (XNU's memorystatus_pages_update waking the freezer thread,
    /// bsd/kern/kern_memorystatus.c:5845-5852): at every suspension, band change and
    /// fall of memory. The pressure checks (and Android's cached-process cap) run at
    /// every call; the freezer itself only when `memorystatus_freeze_thread_should_run`
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
    /// Inline up to the tests that find nothing to do (most wake-ups: no pressure, the
    /// same budget day, the thread not due or memory above the freeze level); what
    /// acts is out of line (`pressureCheck`, `freezerWakeRun`).
    @inline(__always)
    mutating func freezerWake(_ now: SimTime) {
        if params.android.enabled {
            // The cap kills only cached (suspended) apps, so not while there are no more.
            if suspendedCount > params.android.maxCachedProcesses { cachedCap(now) }
            return
        }
        guard params.xnuBands else { return }
        pressureCheck(now)
        guard params.freezer else { return }
        // Throttled: `freezerDue` is set (by the last run), so the first event at or
        // after `freezerNextRun` runs `freezerCatchUp`.
        if freezerDay(now) != flashDay || (now >= freezerNextRun && freezerShouldRun) { freezerWakeRun(now) }
    }

    /// `freezerWake`'s freezer part when the day changed or the thread may run.
    @inline(never)
    mutating func freezerWakeRun(_ now: SimTime) {
        freezerNewDay(now)
        guard freezerShouldRun, now >= freezerNextRun else { return }
        freezerRun(now)
    }

    /// memorystatus_freeze_thread_should_run's checks of memory and of the frozen
    /// count (kern_memorystatus_policy.c:751-771); the time is checked by the callers.
    @inline(__always) var freezerShouldRun: Bool {
        availableKB < kb.freezeKB
            && (Int(flashCopyCount) < params.freezeMaxProcesses || refreezeEligibleCount >= params.freezeRefreezeThawed)
    }

    /// The freezer's budget day of `now` (`flashDay` is the current one's).
    @inline(__always) func freezerDay(_ now: SimTime) -> Int32 {
        Int32(truncatingIfNeeded: now.microseconds / 86_400_000_000)
    }

    /// A new budget interval: the budget resets and frozen apps are demoted
    /// (kern_memorystatus_freeze.c, memorystatus_freeze_start_normal_throttle_interval).
    @inline(__always) mutating func freezerNewDay(_ now: SimTime) {
        let day = freezerDay(now)
        if day != flashDay {
            flashDay = day
            flashTodayKB = 0
            demoteFrozen(now)
        }
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
    /// thread stops waiting, or its next run is the first after now). It is inlined at
    /// the top of a timer's event (`freezerCatchUpIfDue`), where most catch-ups run;
    /// `handleInput` calls this function instead (inlined there too, it cost Android's
    /// inputs more than it saved).
    @inline(never)
    mutating func freezerCatchUp(_ now: SimTime) {
        if freezerIdleRun(now) { return }
        freezerCatchUpLoop(now)
    }

    /// At the top of a timer's event (`handle`): `freezerCatchUp` if a run is due,
    /// its common case inline.
    @inline(__always) mutating func freezerCatchUpIfDue(_ now: SimTime) {
        if freezerDue && now >= freezerNextRun && !freezerIdleRun(now) { freezerCatchUpLoop(now) }
    }

    /// `freezerCatchUp`'s common case (above): whether it was that, and was run.
    @inline(__always) mutating func freezerIdleRun(_ now: SimTime) -> Bool {
        guard freezerDue && compressing.isEmpty && params.freezer && params.xnuBands && !(freezerShouldRun && freezerPassMayAct)
        else { return false }
        let t = freezerNextRun
        guard t <= now && freezerDay(t) == flashDay && freezerDay(now) == flashDay else { return false }
        freezerDue = false
        guard freezerShouldRun else { return true }
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
    mutating func freezerCatchUpLoop(_ now: SimTime) {
        while freezerDue && freezerNextRun <= now {
            freezerDue = false
            let t = freezerNextRun
            guard params.freezer, params.xnuBands else { return }
            // Memory as it is at t: compression went on since the last event.
            if !compressing.isEmpty { advanceCompression(t) }
            freezerNewDay(t)
            guard freezerShouldRun else { return }
            if freezerRun(t) || !freezerDue { continue }
            let step = (freezerNextRun - t).microseconds
            // The first run after now (the last run before it would set this).
            let afterNow = Self.freezerGrid(from: t.microseconds, step: step, after: now.microseconds)
            if !compressing.isEmpty {
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
    mutating func freezerRun(_ now: SimTime) -> Bool {
        let (froze, acted) = freezerPass(now)
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
    @inline(__always) var freezerPassMayAct: Bool {
        // XNU's counts are unsigned: more apps with state on flash than suspended
        // apps wraps the difference to a large number, which passes (:2231).
        let unfrozenSuspended = suspendedCount - Int(flashCopyCount)
        return suspendedCount > 0 && (unfrozenSuspended < 0 || unfrozenSuspended > params.freezeSuspendedThreshold)
    }

    /// The freezer thread's loop, once (`freezerRun`): whether it froze an app, and
    /// whether it froze or demoted one.
    mutating func freezerPass(_ now: SimTime) -> (froze: Bool, acted: Bool) {
        guard freezerPassMayAct else { return (false, false) }
        if flashTodayKB >= params.freezeDailyKB {
            return (false, urgentDemotion(now))
        }
        // The freezer full: refreezes only (kern_memorystatus_policy.c:659-671).
        if Int(flashCopyCount) >= params.freezeMaxProcesses { return refreezeFirstThawed(now) }
        var app = idleOrder.head(0)
        while app >= 0 {
            let a = Int(app)
            // A demoted thawed app (its state on flash, no longer refreeze-eligible)
            // is passed over: memorystatus_freeze_process returns EINVAL for it
            // (kern_memorystatus_freeze.c:1799-1803) and memorystatus_freeze_top_process
            // tries the next candidate (:2168-2178).
            if apps[a].state == .suspended && !apps[a].has(AppRuntime.frozen) && !apps[a].isPrewarmed
                && apps[a].freezerMarks & (AppRuntime.hasFlashCopy | AppRuntime.refreezeEligible) != AppRuntime.hasFlashCopy
                && residentSettledKB(app) >= params.freezeMinKB {
                guard flashTodayKB + flashWrite(app) <= params.freezeDailyKB else { return (false, false) }
                freeze(app, now)
                return (true, true)
            }
            app = idleOrder.next(app)
        }
        // No new candidate left: a refreeze, with enough apps thawed
        // (kern_memorystatus_policy.c:718-727; doc/vm/freezer.md:66-68: "Once the
        // freezer is full or we have no more candidate processes we will do a
        // re-freeze").
        guard refreezeEligibleCount >= params.freezeRefreezeThawed else { return (false, false) }
        return refreezeFirstThawed(now)
    }

    /// A refreeze (memorystatus_freeze_pick_refreeze_process,
    /// kern_memorystatus_policy.c:600-647): the first thawed app in the frozen band.
    mutating func refreezeFirstThawed(_ now: SimTime) -> (froze: Bool, acted: Bool) {
        // No minimum size for a refreeze: only a first freeze checks eligibility
        // (memorystatus_freeze_process, kern_memorystatus_freeze.c:1797-1830), and a
        // thawed app holds only what it touched.
        let app = firstThawedInFrozenBand(suspendedOnly: true)
        guard app >= 0, flashTodayKB + flashWrite(app) <= params.freezeDailyKB else { return (false, false) }
        freeze(app, now)
        return (true, true)
    }

    /// The first refreeze-eligible (thawed) app in the frozen band's order, suspended
    /// if `suspendedOnly`, or -1. O(apps in the band).
    func firstThawedInFrozenBand(suspendedOnly: Bool) -> Int32 {
        var app = idleOrder.head(1)
        while app >= 0 {
            let a = Int(app)
            if apps[a].freezerMarks & AppRuntime.refreezeEligible != 0 && (!suspendedOnly || apps[a].state == .suspended) {
                return app
            }
            app = idleOrder.next(app)
        }
        return -1
    }

    /// What freezing an app writes to flash: all of its memory, or for a refreeze
    /// (thawed, its state still on flash) only the share it dirtied since.
    @inline(__always) func flashWrite(_ app: Int32) -> Int64 {
        let settledKB = residentSettledKB(app)
        guard apps[Int(app)].freezerMarks & AppRuntime.hasFlashCopy != 0 else { return settledKB }
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
    mutating func demoteFrozen(_ now: SimTime) {
        guard flashCopyCount > 0 else { return }
        var demoted = 0
        var app = idleOrder.head(1)
        while app >= 0 && demoted < params.freezeDemotionsMax {
            let next = idleOrder.next(app)
            if Int(apps[Int(app)].thaws) < params.freezeDemotionThaws {
                demote(app, now)
                demoted += 1
            }
            app = next
        }
    }

    /// Urgent-mode demotion (kern_memorystatus_freeze.c:2357-2366 and 2378-2381): the
    /// budget is spent, so a thawed app cannot be refrozen and its memory would stay
    /// in RAM up in band 75; the first thawed app in the band goes to the idle band.
    /// Whether it demoted one.
    mutating func urgentDemotion(_ now: SimTime) -> Bool {
        let app = firstThawedInFrozenBand(suspendedOnly: false)
        guard app >= 0 else { return false }
        demote(app, now)
        return true
    }

    /// memorystatus_demote_frozen_process (kern_memorystatus_freeze.c:2301-2336): the
    /// elevated band is cleared and the app is no longer refreeze-eligible; its state
    /// stays on flash (it still counts as frozen).
    mutating func demote(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        apps[a].freezerMarks |= AppRuntime.demoted
        if apps[a].freezerMarks & AppRuntime.refreezeEligible != 0 {
            apps[a].freezerMarks &= ~AppRuntime.refreezeEligible
            refreezeEligibleCount -= 1
        }
        metrics[.freezerDemotions] += 1
        refreshCandidate(app, now)
    }

    /// Writes a suspended app's (compressed) memory to flash: it leaves RAM and moves
    /// to the frozen band (elevated again if it had been demoted,
    /// kern_memorystatus_freeze.c:1912-1918).
    mutating func freeze(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        finishCompressionNow(app, now)
        let writeKB = flashWrite(app)
        if apps[a].freezerMarks & AppRuntime.hasFlashCopy != 0 {
            metrics[.refreezes] += 1
        } else {
            flashCopyCount += 1
        }
        if apps[a].freezerMarks & AppRuntime.refreezeEligible != 0 { refreezeEligibleCount -= 1 }
        apps[a].freezerMarks = (apps[a].freezerMarks & ~(AppRuntime.demoted | AppRuntime.refreezeEligible)) | AppRuntime.hasFlashCopy
        leaveCompressor(app, now)
        flashTodayKB += writeKB
        metrics[.flashWrittenKB] += Int(writeKB)
        metrics[.freezes] += 1
        setResident(app, 0)
        apps[a].set(AppRuntime.frozen)
        frozenCount += 1
        trace.record(time: now, app: app, event: .frozen, detail: .none, state: .suspended)
        refreshCandidate(app, now)
    }

    /// A suspended app resumes (memorystatus_on_resume, bsd/kern/kern_memorystatus.c:
    /// 3770-3815). If its memory was on flash, it comes back (a thaw). If its state is
    /// on flash (frozen once, XNU's P_MEMSTAT_FROZEN, kept on resume), the resume counts
    /// as a thaw against demotion and makes it refreeze-eligible (a refreeze writes only
    /// what it dirties); it keeps band 75 unless demoted.
    /// Inline up to the check (every resume and kill passes here, and with the
    /// freezer off no app is frozen or on flash): the rest out of line.
    @inline(__always)
    mutating func unfreeze(_ app: Int32) {
        let a = Int(app)
        if apps[a].has(AppRuntime.frozen) || apps[a].freezerMarks & AppRuntime.hasFlashCopy != 0 { unfreezeNow(app) }
    }

    /// `unfreeze` for an app frozen or with its state on flash.
    @inline(never)
    mutating func unfreezeNow(_ app: Int32) {
        let a = Int(app)
        if apps[a].has(AppRuntime.frozen) {
            apps[a].clear(AppRuntime.frozen)
            frozenCount -= 1
        }
        guard apps[a].freezerMarks & AppRuntime.hasFlashCopy != 0 else { return }
        // On demand: it holds only what it touched ("On-demand thaw"), compressed at
        // its next suspension to its own packed size (the profile's again at its exit).
        apps[a].packedKB = Int32(clamping: packedKB(plainKB: thawTouchedKB(pi(app))))
        if apps[a].freezerMarks & AppRuntime.refreezeEligible == 0 {
            apps[a].freezerMarks |= AppRuntime.refreezeEligible
            refreezeEligibleCount += 1
        }
        if apps[a].thaws < .max { apps[a].thaws += 1 }
    }

    /// An app exits: the freezer forgets it (its record is then reset). Inline up to
    /// its first check: only an app the freezer knows (frozen, or a freezer mark).
    @inline(__always)
    mutating func forgetFrozen(_ app: Int32) {
        let a = Int(app)
        if apps[a].freezerMarks != 0 || apps[a].has(AppRuntime.frozen) { forgetFrozenNow(app) }
    }

    /// `forgetFrozen` for an app the freezer knows.
    mutating func forgetFrozenNow(_ app: Int32) {
        let a = Int(app)
        if apps[a].has(AppRuntime.frozen) { frozenCount -= 1 }
        let marks = apps[a].freezerMarks
        if marks & AppRuntime.refreezeEligible != 0 { refreezeEligibleCount -= 1 }
        if marks & AppRuntime.hasFlashCopy != 0 {
            flashCopyCount -= 1
            // Its state leaves flash: a next process holds the profile's suspended footprint.
            apps[a].packedKB = Int32(clamping: suspendedResidentKB(pi(app)))
        }
    }
}
