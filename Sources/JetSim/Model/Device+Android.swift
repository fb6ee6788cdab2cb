import SimKernel

// Android memory as lmkd and ActivityManager manage it (issue 13). A device class
// with `os: android` runs this instead of XNU's memorystatus: no bands, no freezer,
// no reaper, no memory warnings. Sources (docs/sources.md):
// - lmkd: AOSP system/memory/lmkd, lmkd.cpp as mirrored in github yaap/system_memory_lmkd
//   at c62ac7e (2023-12); line numbers below are of that file.
// - oom_score_adj: AOSP frameworks/base services/core/java/com/android/server/am/
//   ProcessList.java (the constants named below).
// - cached-process cap: ActivityManagerConstants.DEFAULT_MAX_CACHED_PROCESSES.
// - zram ratios: Linux Reviews (1.1 GB sample); Pixel 4 zram size: 2 GiB.

/// oom_score_adj values as ActivityManager's ProcessList assigns them.
public enum OomAdj {
    /// FOREGROUND_APP_ADJ: the app in front.
    public static let foreground = 0
    /// VISIBLE_APP_ADJ: visible but not in front (not modelled: no split screen).
    public static let visible = 100
    /// PERCEPTIBLE_APP_ADJ: e.g. background music (an active background mode here).
    public static let perceptible = 200
    /// SERVICE_ADJ: an application service (executing in the background here).
    public static let service = 500
    /// HOME_APP_ADJ: the launcher (not an app of the model).
    public static let home = 600
    /// PREVIOUS_APP_ADJ: the app the user was in before the current one.
    public static let previous = 700
    /// CACHED_APP_MIN_ADJ ... CACHED_APP_MAX_ADJ: cached apps, older higher.
    public static let cachedMin = 900
    public static let cachedMax = 999
}

/// Android's memory parameters of a device class (`os: android`); sources on the
/// schema keys (`Schema.androidKnobs`).
public struct AndroidParameters: Sendable, Equatable {
    /// `os: android`: lmkd and ActivityManager instead of XNU.
    public var enabled = false
    /// zram: cached apps' memory compressed into a bounded RAM pool under pressure.
    public var zram: Bool
    /// zram's capacity in uncompressed KiB (its disksize).
    public var zramKB: Int64
    /// zram compression ratio (by algorithm: lz4 2.58, zstd 3.96).
    public var zramRatio: Double
    /// Reclaim cost: time to compress one MiB into zram, and to swap one MiB back in.
    public var compressPerMB: SimTime
    public var swapInPerMB: SimTime
    /// zram writeback: when zram is full, reclaim writes a cached app's pages to the
    /// backing file on flash instead, within a daily limit (writeback_limit).
    public var writeback: Bool
    public var writebackDailyKB: Int64
    /// lmkd's PSI mode (false: the legacy minfree levels).
    public var psi: Bool
    /// PSI "some" stall per 1 s window that wakes lmkd (psi_partial_stall_ms) and
    /// "full" stall that means the device is not responding (psi_complete_stall_ms).
    public var partialStall: SimTime
    public var completeStall: SimTime
    /// Share of reclaim work during which every task is stalled (PSI full).
    public var fullStallShare: Double
    /// Full stall an allocation that reclaim cannot satisfy causes.
    public var oomStall: SimTime
    /// thrashing_limit_pct: refaults (swap-ins) per window as % of the page cache.
    public var thrashingLimitPct: Int64
    /// thrashing_limit_decay_pct: each thrashing kill cuts the window's limit by this
    /// share of itself (lmkd.cpp:3009-3015).
    public var thrashingDecayPct: Int64
    /// thrashing_critical_pct: thrashing at or above it lets lmkd kill perceptible
    /// apps (lmkd.cpp:2920, 2931, 2951; default 3 x the limit, 3924-3925).
    public var thrashingCriticalPct: Int64
    public var pageCacheKB: Int64
    /// swap_free_low_percentage: swap is low below this share of zram free.
    public var swapFreeLowPct: Double
    /// The high watermark: reclaim and lmkd keep this much free above a request.
    public var highWatermarkKB: Int64
    /// ActivityManager's cached-process cap (0: none).
    public var maxCachedProcesses: Int
    /// ro.lmk.kill_heaviest_task: the heaviest app of the victim's adj level dies.
    public var killHeaviestTask: Bool
    /// Vitals thresholds: launches at or over these are excessive.
    public var vitalsCold: SimTime
    public var vitalsWarm: SimTime
    public var vitalsHot: SimTime

    /// Android off; every other field is the workload's default (`AndroidClass`), on no RAM.
    public init() {
        self.init(AndroidClass(), ramKB: 0)
        enabled = false
    }

    /// ProcessList.mOomMinFreeHigh (KiB) for mOomAdj {0, 100, 200, 250, 900, 950}:
    /// the legacy minfree levels (lmkd with ro.lmk.use_minfree_levels).
    public static let minfreeKB: [Int64] = [73_728, 92_160, 110_592, 129_024, 147_456, 184_320]
    public static let minfreeAdj: [Int] = [0, 100, 200, 250, 900, 950]
}

/// A device's Android state: the cached apps not yet in zram (oldest first: reclaim's
/// order), the previous app (kept on every OS: the policies read it from the candidate),
/// the PSI window's stall, and lmkd's thrashing measure.
public struct AndroidState: Sendable {
    var uncompressed = MultiList(lists: 1)
    /// The app the user was in before the current one (-1: none).
    var previous: Int32 = -1
    /// The current 1 s PSI window (whole seconds since the start) and its totals.
    var window: Int64 = -1
    var someStallUs: Int64 = 0
    var fullStallUs: Int64 = 0
    /// lmkd's thrashing measure (mp_event_psi, lmkd.cpp:2713-2858): refaults (swap-ins
    /// here) since `thrashResetUs`, the previous windows' decayed thrashing and this
    /// window's limit, which thrashing kills cut.
    var refaultKB: Int64 = 0
    var thrashResetUs: Int64 = 0
    var prevThrashPct: Int64 = 0
    var thrashingLimit: Int64 = 0
    /// The window in which lmkd last acted on a complete stall (PSI reports an event
    /// at most once per window).
    var notRespondingWindow: Int64 = -1

    init() {}

    mutating func reset(appCount: Int, thrashingLimit limit: Int64) {
        uncompressed.reset(appCount: appCount)
        previous = -1
        window = -1
        someStallUs = 0; fullStallUs = 0
        refaultKB = 0; thrashResetUs = 0; prevThrashPct = 0; thrashingLimit = limit
        notRespondingWindow = -1
    }
}

extension Device {
    /// The oom_score_adj ActivityManager gives a resident app now (ProcessList):
    /// foreground 0, perceptible 200 (an active background mode), service 500
    /// (executing in the background), previous 700, cached 900 and up (the policy
    /// orders cached apps by recency, as lmkd's adj slots do).
    @inline(__always) public func oomScoreAdj(_ app: Int32) -> Int {
        let a = Int(app)
        if app == front { return OomAdj.foreground }
        switch apps[a].state {
        case .active, .inactive: return OomAdj.foreground
        case .background:
            return apps[a].has(AppRuntime.modeActive) ? OomAdj.perceptible : OomAdj.service
        case .suspended:
            return app == android.previous ? OomAdj.previous : OomAdj.cachedMin
        case .notRunning: return OomAdj.cachedMax + 1
        }
    }

    /// Uncompressed memory in zram now (the pool's physical KiB times the ratio).
    @inline(__always) var zramStoredKB: Int64 { Int64((Double(compressorKB) * params.android.zramRatio).rounded()) }

    /// Moves lmkd's 1 s PSI window to the one holding `now` (PSI_WINDOW_SIZE_MS
    /// 1000, lmkd.cpp:137): stall starts again from zero.
    mutating func psiWindow(_ now: SimTime) {
        let w = now.microseconds / 1_000_000
        guard w != android.window else { return }
        android.window = w
        android.someStallUs = 0
        android.fullStallUs = 0
    }

    /// lmkd's thrashing window on a wake-up at `now` (mp_event_psi, lmkd.cpp:2832-2856):
    /// when more than THRASHING_RESET_INTERVAL_MS (1 s, lmkd.cpp:110) has passed since
    /// the last reset, the finished window's thrashing becomes the carried amount, halved
    /// for each window passed unless exactly one passed and it was over the limit (no
    /// victim was found: lmkd keeps it to retry), and the count, the reset time and the
    /// limit start again. While memory is under pressure lmkd polls every 10 ms
    /// (PSI_POLL_PERIOD_SHORT_MS, lmkd.cpp:139), so a burst of refaults is measured by the
    /// polls it spans; a swap-in is one instant here, so the window is moved before its
    /// refaults are counted, as the burst's first poll would.
    mutating func thrashingWindow(_ now: SimTime) {
        let ap = params.android
        guard ap.pageCacheKB > 0 else { return }
        let since = now.microseconds - android.thrashResetUs
        guard since > 1_000_000 else { return }
        var prev = refaultPct
        let windows = since / 1_000_000
        if windows > 1 || prev < android.thrashingLimit { prev = windows >= 63 ? 0 : prev >> windows }
        android.prevThrashPct = prev
        android.refaultKB = 0
        android.thrashResetUs = now.microseconds
        android.thrashingLimit = ap.thrashingLimitPct
    }

    /// Refaults since the last reset, % of the page cache. lmkd counts 4 KiB pages and
    /// divides by the file LRU + 1 page (lmkd.cpp:2836-2837, 2855); jetsim counts KiB and
    /// adds 4 KiB.
    @inline(__always) var refaultPct: Int64 {
        Int64(saturating: Double(android.refaultKB) * 100 / Double(params.android.pageCacheKB + 4))
    }

    /// lmkd's thrashing on a wake-up at `now`, % of the page cache: this window's
    /// refaults plus the carried amount (lmkd.cpp:2853-2858).
    mutating func thrashingPct(_ now: SimTime) -> Int64 {
        guard params.android.pageCacheKB > 0 else { return 0 }
        // A wake-up that moves the window counts only the carried amount (2853-2855):
        // the move zeroes the count.
        thrashingWindow(now)
        return .saturatingSum(refaultPct, android.prevThrashPct)
    }

    /// After a kill lmkd starts its thrashing measure again (lmkd.cpp:2776-2785), and a
    /// kill for thrashing cuts this window's limit by `thrashingDecayPct` of itself
    /// (cut_thrashing_limit, lmkd.cpp:3009-3015), so that it keeps killing while the
    /// system still thrashes.
    mutating func thrashingAfterKill(_ reason: KillReason, _ now: SimTime) {
        if reason == .lmkdThrashing {
            android.thrashingLimit = android.thrashingLimit * (100 - params.android.thrashingDecayPct) / 100
        }
        android.refaultKB = 0
        android.prevThrashPct = 0
        android.thrashResetUs = now.microseconds
    }

    /// Reclaim work of `kb` KiB at `perMB` per MiB: PSI "some" stall for all of it,
    /// "full" stall for `fullStallShare` of it (assumption: no published split).
    mutating func stall(_ kb: Int64, perMB: SimTime) {
        let us = Int64(saturating: Double(perMB.microseconds) * Double(kb) / 1_024)
        android.someStallUs = .saturatingSum(android.someStallUs, us)
        android.fullStallUs = .saturatingSum(android.fullStallUs, Int64(saturating: Double(us) * params.android.fullStallShare))
    }

    /// An app became cached (suspended): its memory stays uncompressed until reclaim
    /// needs it; it joins reclaim's order.
    mutating func androidCached(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        setResident(app, min(apps[a].residentKB, profiles[pi(app)].suspendedKB))
        android.uncompressed.append(app, to: 0)
    }

    /// The app leaves the cached set (resumed or killed): out of reclaim's order; if
    /// its memory was in zram, a swap-in (resume) or a free (kill) follows.
    mutating func androidForget(_ app: Int32) {
        android.uncompressed.remove(app)
    }

    /// A cached app resumes (a user's launch, or a system wake): out of reclaim's
    /// order (it runs now), its pages back from zram (`compressed`) or flash
    /// (`frozen`; the flash read is the time when both). Returns the swap-in time.
    @discardableResult
    mutating func androidResume(_ app: Int32, compressed: Bool, frozen: Bool, _ now: SimTime) -> SimTime {
        androidForget(app)
        var swapIn = SimTime.zero
        if compressed { swapIn = androidSwapIn(app, now) }
        if frozen { swapIn = androidSwapIn(app, fromFlash: true, now) }
        return swapIn
    }

    /// A resume of a cached app from zram: its pages come back (a swap-in), which
    /// stalls and counts as refaults for lmkd's thrashing measure. Returns the time.
    mutating func androidSwapIn(_ app: Int32, fromFlash: Bool = false, _ now: SimTime) -> SimTime {
        // From flash: the cached footprint, read back at `thawPerMB`.
        let plain = fromFlash ? profiles[pi(app)].suspendedKB
            : Int64((Double(apps[Int(app)].residentKB) * params.android.zramRatio).rounded())
        let perMB = fromFlash ? params.thawPerMB : params.android.swapInPerMB
        psiWindow(now)
        stall(plain, perMB: perMB)
        thrashingWindow(now)
        android.refaultKB = .saturatingSum(android.refaultKB, plain)
        let t = SimTime(saturatingMicroseconds: Double(perMB.microseconds) * Double(plain) / 1_024)
        metrics[.swapIns] += 1
        metrics[.swapInLatencySumMicros] = .saturatingSum(metrics[.swapInLatencySumMicros], Int(t.microseconds))
        return t
    }

    /// Reclaim (kswapd, then direct reclaim) for a request of `needKB`: compresses
    /// the oldest cached apps into zram until the request fits above the high
    /// watermark, while zram has room. Each MiB compressed is stall.
    mutating func zramReclaim(untilAvailable target: Int64, sparing launching: Int32, _ now: SimTime) {
        guard params.android.zram, params.android.zramRatio > 1 else { return }
        var app = android.uncompressed.head(0)
        while availableKB < target && app >= 0 {
            let next = android.uncompressed.next(app)
            // The app being launched is on its way to the front: not reclaimed.
            if app == launching { app = next; continue }
            let a = Int(app)
            let plain = apps[a].residentKB
            if zramStoredKB + plain > params.android.zramKB {
                // zram full: write back to flash if today's limit allows, else stop.
                guard params.android.writeback else { break }
                let day = Int32(truncatingIfNeeded: now.microseconds / 86_400_000_000)
                if day != flashDay { flashDay = day; flashTodayKB = 0 }
                guard flashTodayKB + plain <= params.android.writebackDailyKB else { break }
                flashTodayKB += plain
                metrics[.flashWrittenKB] = .saturatingSum(metrics[.flashWrittenKB], Int(plain))
                android.uncompressed.remove(app)
                setResident(app, 0)
                apps[a].set(AppRuntime.frozen)
                frozenCount += 1
                stall(plain, perMB: params.thawPerMB)
                policy.update(app, candidate(app))
                app = next
                continue
            }
            let packed = Int64((Double(plain) / params.android.zramRatio).rounded())
            android.uncompressed.remove(app)
            setResident(app, packed)
            apps[a].set(AppRuntime.compressed)
            compressorCommittedKB += packed  // leaveCompressor takes it back
            compressorChange(packed, now)
            stall(plain, perMB: params.android.compressPerMB)
            policy.update(app, candidate(app))
            app = next
        }
    }

    /// What lmkd decides on a wake-up at `now` (lmkd.cpp mp_event_psi, 2896-3002): the
    /// kill reason and the lowest oom_score_adj it may kill, or nil (no kill). Thrashing
    /// is measured (`thrashingPct`) only when lmkd is woken, as mp_event_psi runs only then.
    /// - woken only by a PSI event: some stall over psi_partial_stall_ms, full stall
    ///   over psi_complete_stall_ms, or a request reclaim cannot meet (lmkd.cpp:3381-3383);
    /// - complete stall: "device is not responding", any adj, once per window
    ///   (lmkd.cpp:2906-2913; PSI events at most once per window, lmkd.cpp:131-137);
    /// - swap low (free zram below swap_free_low_percentage, lmkd.cpp:2792-2793) and
    ///   thrashing over thrashing_limit_pct, or below the high watermark: adj > 200
    ///   unless below min or thrashing at the critical level (2913-2933);
    /// - below the high watermark and thrashing over this window's (cut) limit: adj > 200
    ///   unless thrashing at the critical level (2944-2953);
    /// - below the high watermark: adj > 700 (LOW_MEM, 2983-2987);
    /// - a critical full stall lets any of these go down to adj 0 (lmkd.cpp:3000-3001).
    @inline(__always) mutating func lmkdDecision(needKB: Int64, _ now: SimTime) -> (reason: KillReason, minAdj: Int)? {
        let ap = params.android
        let belowMin = availableKB < needKB
        let belowHigh = availableKB < needKB + ap.highWatermarkKB
        let critical = android.fullStallUs > ap.completeStall.microseconds
        let woken = android.someStallUs > ap.partialStall.microseconds || critical || belowMin
        guard woken else { return nil }
        let thrashing = thrashingPct(now)
        // No page cache, no measure (thrashing is 0): not critical even at a 0 % level.
        let thrashingCritical = ap.pageCacheKB > 0 && thrashing >= ap.thrashingCriticalPct
        let swapLow = ap.zram && ap.zramKB > 0
            && Double(ap.zramKB - zramStoredKB) * 100 < ap.swapFreeLowPct * Double(ap.zramKB)
        var reason: KillReason? = nil
        var minAdj = 0
        if critical && android.notRespondingWindow != android.window {
            reason = .lmkdPsiComplete
        } else if swapLow && (thrashing > ap.thrashingLimitPct || belowHigh) {
            reason = .lmkdLowSwap
            minAdj = belowMin || thrashingCritical ? 0 : OomAdj.perceptible + 1
        } else if belowHigh && thrashing > android.thrashingLimit {
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
    mutating func androidMakeRoom(needKB: Int64, launching: Int32, _ now: SimTime) {
        let ap = params.android
        psiWindow(now)
        zramReclaim(untilAvailable: needKB + ap.highWatermarkKB, sparing: launching, now)
        if !ap.psi {
            minfreeKills(needKB: needKB, now)
            return
        }
        trace.killLoop(began: true)
        lmkdKills(needKB: needKB, now)
        if availableKB < needKB {
            // The request still cannot be met: direct reclaim makes no progress and
            // every task waits (PSI full; assumption: `oomStall`), so lmkd sees a
            // critical stall and may go down to adj 0.
            android.someStallUs = .saturatingSum(android.someStallUs, ap.oomStall.microseconds)
            android.fullStallUs = .saturatingSum(android.fullStallUs, ap.oomStall.microseconds)
            lmkdKills(needKB: needKB, now)
        }
        trace.killLoop(began: false)
    }

    /// lmkd's decisions, one kill each, until no trigger holds or the policy's next
    /// victim is below the lowest adj the trigger may kill.
    mutating func lmkdKills(needKB: Int64, _ now: SimTime) {
        while let d = lmkdDecision(needKB: needKB, now) {
            if d.reason == .lmkdPsiComplete { android.notRespondingWindow = android.window }
            guard let victim = nextVictim() else { break }
            // The policy's next victim is protected at this level.
            let adj = oomScoreAdj(victim)
            if adj < d.minAdj { break }
            kill(lmkdPick(victim, adj: adj), named: victim, d.reason, now)
            thrashingAfterKill(d.reason, now)
        }
    }

    /// lmkd's choice within the adj level of the policy's victim (find_and_kill_process,
    /// lmkd.cpp:2480-2500): the victim itself, or the heaviest resident app of that level
    /// when `kill_heaviest_task` is set or the level is perceptible or more important
    /// (adj <= 200, where lmkd always takes the heaviest "to minimize the number of
    /// victims"). A scan of the apps, as lmkd's proc_get_heaviest scans its adj bucket:
    /// only when killing, and only in those cases.
    @inline(__always) func lmkdPick(_ victim: Int32, adj: Int) -> Int32 {
        guard params.android.killHeaviestTask || adj <= OomAdj.perceptible else { return victim }
        var best = victim, bestKB = apps[Int(victim)].residentKB
        for i in 0..<apps.count {
            let app = Int32(i)
            guard app != front, apps[i].state.isResident, apps[i].residentKB > bestKB, oomScoreAdj(app) == adj else { continue }
            best = app
            bestKB = apps[i].residentKB
        }
        return best
    }

    /// The legacy minfree mode (ro.lmk.use_minfree_levels, lmkd.cpp:3152-3190): the
    /// lowest level whose minfree exceeds free memory (after the request) sets the
    /// lowest adj that may die; one kill per decision until free memory is above it.
    mutating func minfreeKills(needKB: Int64, _ now: SimTime) {
        trace.killLoop(began: true)
        while true {
            let free = availableKB - needKB
            var minAdj = -1
            for i in 0..<AndroidParameters.minfreeKB.count where free < AndroidParameters.minfreeKB[i] {
                minAdj = AndroidParameters.minfreeAdj[i]
                break
            }
            if minAdj < 0 { break }
            guard let victim = nextVictim() else { break }
            let adj = oomScoreAdj(victim)
            if adj < minAdj { break }
            kill(lmkdPick(victim, adj: adj), named: victim, .lmkdMinfree, now)
        }
        trace.killLoop(began: false)
    }

    /// ActivityManager's cap on cached processes (ActivityManagerConstants
    /// DEFAULT_MAX_CACHED_PROCESSES; OomAdjuster trims the oldest beyond it):
    /// whatever memory says, the oldest cached apps beyond the cap are killed.
    mutating func cachedCap(_ now: SimTime) {
        let cap = params.android.maxCachedProcesses
        guard cap > 0 else { return }
        var cached = suspendedCount - (android.previous >= 0 && apps[Int(android.previous)].state == .suspended ? 1 : 0)
        var app = idleOrder.head(0)
        while cached > cap && app >= 0 {
            let next = idleOrder.next(app)
            if app != android.previous && apps[Int(app)].state == .suspended {
                terminate(app, .cachedCap, now)
                cached -= 1
            }
            app = next
        }
    }

    /// Counts a launch by Android's kind and against the Vitals thresholds.
    mutating func androidVitals(_ kind: LaunchKind, savedState: Bool, latency: SimTime) {
        let ap = params.android
        switch kind {
        // A process created with its files still in the page cache is still a cold or
        // warm launch in Android's terms (Vitals names by process and saved state).
        case .cold where savedState, .cached where savedState:
            metrics[.androidWarmLaunches] += 1
            if latency >= ap.vitalsWarm { metrics[.warmOverVitals] += 1 }
        case .cold, .cached:
            metrics[.androidColdLaunches] += 1
            if latency >= ap.vitalsCold { metrics[.coldOverVitals] += 1 }
        case .warm, .hot, .thaw:
            metrics[.androidHotLaunches] += 1
            if latency >= ap.vitalsHot { metrics[.hotOverVitals] += 1 }
        }
    }
}
