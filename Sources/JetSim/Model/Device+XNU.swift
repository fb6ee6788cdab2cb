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

extension Device {
    /// The band XNU gives a candidate now.
    func xnuBand(_ app: Int32, _ now: SimTime) -> UInt8 {
        let a = Int(app)
        if apps[a].has(AppRuntime.frozen) { return XNUBand.frozen }
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
        apps[Int(app)].band = b
        if b == XNUBand.idle {
            if idleOrder.list(of: app) != 0 { idleOrder.append(app, to: 0) }
        } else {
            idleOrder.remove(app)
        }
        policy.update(app, candidate(app, leftFront: leftFront))
    }

    /// No longer a candidate (in front, or terminated).
    mutating func removeCandidate(_ app: Int32) {
        policy.remove(app)
        idleOrder.remove(app)
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
    mutating func updateDock(_ app: Int32, _ now: SimTime) {
        guard params.xnuBands, params.dockSize > 0, !apps[Int(app)].has(AppRuntime.inDock) else { return }
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

    /// Available memory fell (a launch): the critical and idle triggers, the reaper and
    /// the freezer. O(1) unless a trigger fires.
    mutating func memoryFell(_ now: SimTime) {
        guard params.xnuBands else { return }
        if availableKB < params.criticalKB { killLoop(untilAvailable: params.criticalKB, now) }
        if availableKB < params.idleKB { idleKills(untilAvailable: params.idleKB, now) }
        reaperCheck(now)
        freezerWake(now)
    }

    /// The reaper: below the reaper level, at most one sweep per interval, kills every
    /// idle-band app idle for at least the minimum age (oldest first).
    mutating func reaperCheck(_ now: SimTime) {
        guard params.reaper, params.xnuBands, availableKB < params.reaperKB,
              now >= SimTime.seconds(Int64(nextReaperSweepS)) else { return }
        let next = (now + params.reaperInterval).microseconds
        nextReaperSweepS = Int32(clamping: (next + 999_999) / 1_000_000)
        var app = idleOrder.head(0)
        while app >= 0 {
            let next = idleOrder.next(app)
            if now - apps[Int(app)].lastUsed >= params.reaperMinAge { terminate(app, .longIdleExit, now) }
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
        let product = distance.multipliedFullWidth(by: max(0, params.growthStep.microseconds))
        let fits = 2 * product.high + Int64(product.low >> 63) < span
        let step = max(1, fits ? span.dividingFullWidth(product).quotient : .max)
        let target = step >= peak - apps[a].residentKB ? peak : apps[a].residentKB + step
        guard target > apps[a].residentKB else { return }
        let limit = params.perAppLimitKB
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
        if compressorKB > Int64(metrics[.compressorPeakKB]) { metrics[.compressorPeakKB] = Int(compressorKB) }
    }

    /// Adds the pool's occupancy since the last change to its time integral (KiB x s).
    mutating func flushCompressor(_ now: SimTime) {
        let ms = (now - compressorSince).microseconds / 1_000
        if ms > 0 && compressorKB > 0 {
            // A terabyte pool held for months passes Int64 as a product: saturate.
            let add = Int(saturating: Double(compressorKB) * Double(ms) / 1_000)
            metrics[.compressorKBSeconds] = .saturatingSum(metrics[.compressorKBSeconds], add)
        }
        compressorSince = now
    }

    /// A suspended app's memory: compressed into the pool when there is room (resident
    /// = suspended footprint / ratio), else left uncompressed.
    mutating func compressOnSuspend(_ app: Int32, _ now: SimTime) {
        if params.android.enabled { androidCached(app, now); return }
        let a = Int(app)
        let p = pi(app)
        let plain = min(apps[a].residentKB, profiles[p].suspendedKB)
        guard params.compresses else { setResident(app, plain); return }
        let packed = min(apps[a].residentKB, suspendedResidentKB(p))
        if compressorKB + packed <= params.compressorPoolKB {
            setResident(app, packed)
            apps[a].set(AppRuntime.compressed)
            compressorChange(packed, now)
        } else {
            setResident(app, plain)
        }
    }

    /// The app's memory leaves the compressor (resume, freeze or kill).
    mutating func leaveCompressor(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard apps[a].has(AppRuntime.compressed) else { return }
        apps[a].clear(AppRuntime.compressed)
        compressorChange(-apps[a].residentKB, now)
    }

    // MARK: Freezer

    /// One freezer wake-up: below the freeze level, with more unfrozen suspended apps
    /// than the threshold and a slot and budget left, freezes the oldest idle
    /// suspended app of at least the minimum size. At most one per wake-up.
    mutating func freezerWake(_ now: SimTime) {
        if params.android.enabled { cachedCap(now); return }
        guard params.freezer, params.xnuBands, availableKB < params.freezeKB,
              Int(frozenCount) < params.freezeMaxProcesses,
              suspendedCount - Int(frozenCount) > params.freezeSuspendedThreshold else { return }
        let day = Int32(truncatingIfNeeded: now.microseconds / 86_400_000_000)
        if day != flashDay { flashDay = day; flashTodayKB = 0 }
        var app = idleOrder.head(0)
        while app >= 0 {
            let a = Int(app)
            if apps[a].state == .suspended && apps[a].residentKB >= params.freezeMinKB {
                if flashTodayKB + apps[a].residentKB <= params.freezeDailyKB { freeze(app, now) }
                return
            }
            app = idleOrder.next(app)
        }
    }

    /// Writes a suspended app's (compressed) memory to flash: it leaves RAM and moves
    /// to the frozen band.
    mutating func freeze(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        leaveCompressor(app, now)
        let kb = apps[a].residentKB
        flashTodayKB += kb
        metrics[.flashWrittenKB] += Int(kb)
        metrics[.freezes] += 1
        setResident(app, 0)
        apps[a].set(AppRuntime.frozen)
        frozenCount += 1
        trace.record(time: now, app: app, event: .frozen, detail: .none, state: .suspended)
        refreshCandidate(app, now)
    }

    /// A frozen app resumes (or is killed): it is frozen no more.
    mutating func unfreeze(_ app: Int32) {
        guard apps[Int(app)].has(AppRuntime.frozen) else { return }
        apps[Int(app)].clear(AppRuntime.frozen)
        frozenCount -= 1
    }
}
