import SimKernel

/// A device class: memory, thresholds and the system's time limits.
///
/// Defaults and their sources (docs/sources.md):
/// - thresholds: XNU memorystatus fallbacks by RAM size (critical 5/4/4 %, idle-kill
///   10/9/8 %, soft-limit 15/15/12 % for <=3 GB / 3-6 GB / >6 GB);
/// - per-app limit: crash footprints measured at 50-68 % of RAM (StackOverflow
///   q 5887248), default 60 %;
/// - background grace ~10 s (seed 004), didEnterBackground limit ~5 s (Apple),
///   background-task allowance 30 s (iOS 13+).
public struct DeviceParameters: Sendable, Equatable {
    /// Total RAM.
    public var ramKB: Int64
    /// What the OS keeps for itself (kernel, daemons, SpringBoard).
    public var osReserveKB: Int64
    /// Available memory below which running apps get didReceiveMemoryWarning (% of RAM).
    public var warningAvailablePct: Double
    /// Available memory below which the kill loop runs (% of RAM).
    public var criticalAvailablePct: Double
    /// The kill loop stops once available memory is back above this (% of RAM).
    public var killTargetAvailablePct: Double
    /// A foreground app whose footprint exceeds this is terminated (% of RAM). Default
    /// 54: the iPhone 11's measured crash footprint, 2068 of 3844 MB (docs/sources.md),
    /// the default device class.
    public var perAppLimitPct: Double
    /// Apps fit the devices they run on: an app's peak footprint on a device is at most
    /// this share of its per-app limit (%); an app drawn larger scales all its
    /// footprints down to it (`AppCatalog.profiles(fittedTo:)`), as apps that pick their
    /// assets by device do. *Assumption* (developers keep under the limit of the devices
    /// they support, Apple "Reducing your app's memory use", `os_proc_available_memory`;
    /// how far under is not published): 90, plausible 75-100. Above 100, apps may reach
    /// past the limit and fail their launches.
    public var appFitPct: Double = 90
    /// Share of what a running app can free that it frees on a memory warning.
    public var memoryWarningFreeShare: Double
    /// Suspended memory is compressed by this ratio (1 = not compressed). Default 2:
    /// WKdm compresses to about half (Apple, OS X Mavericks Core Technology Overview).
    public var suspendedCompressionRatio: Double
    /// Time to decompress one MiB of compressed memory on resume.
    public var decompressPerMB: SimTime
    /// Launch-to-launch variation: each launch's latency is multiplied by a lognormal
    /// factor with median 1 and this sigma (0: every launch of an app takes the same).
    /// Default 0.25 (*assumption*).
    public var launchJitterSigma: Double
    /// Time from didEnterBackground to suspension for an app with no background work.
    public var backgroundGrace: SimTime
    /// didEnterBackground must return within this, or the watchdog kills the app.
    public var enterBackgroundLimit: SimTime
    /// How long willTerminate may run; a save longer than this does not complete.
    public var willTerminateLimit: SimTime
    /// How long a background task may run before its expiration handler is called.
    public var bgTaskAllowance: SimTime

    // XNU memorystatus (apple-oss-distributions/xnu; each key's source is in
    // Workloads/README.md and docs/sources.md). Set after `init`, by the device class.
    /// Time in the aging band (20) after leaving the front, before the idle band:
    /// 10 s idle deferral / 5 (bsd/kern/kern_memorystatus.c).
    public var agingTime: SimTime = .seconds(2)
    /// Apps in the dock band (30) when idle: the device's most-launched apps (0: none).
    public var dockSize = 4
    /// The reaper: idle-band apps idle at least `reaperMinAge` are killed while
    /// available memory is below the reaper level (nil: XNU's fallback by RAM size),
    /// one sweep per `reaperInterval`.
    public var reaperAvailablePct: Double? = nil
    // The switches sit together after the optional (packed into its padding; the
    // device's size is bounded, StateBytesTests).
    /// Bands as XNU assigns them (aging, dock, assertions) and its kill triggers
    /// (idle band below the idle level, up through the bands below critical, checked
    /// whenever available memory falls). false: every idle app in one band and kills
    /// only when a launch needs room, down to the target (the model before XNU's).
    public var xnuBands = true
    /// The reaper (see `reaperAvailablePct`, `reaperMinAge`, `reaperInterval`).
    public var reaper = true
    /// The freezer (CONFIG_FREEZE, doc/vm/freezer.md, bsd/sys/kern_memorystatus_freeze.h).
    public var freezer = true
    /// Memory growth in front (see `growthTime`).
    public var memoryGrowth = true
    /// Pressure levels from compressor occupancy and the warnings they send (xnu
    /// doc/vm/memorystatus_notify.md); false: warnings when a launch takes available
    /// memory below the warning level (the model before).
    public var pressureLevels = true
    /// Idle-band kills after pressure stays above normal for `sustainedWindow`.
    public var sustainedPressureKills = true
    /// Kills while the compressor is near its compressed-pages limit.
    public var compressorShortageKills = true
    /// iOS 15 and later prewarm apps (`SystemWakeKind.prewarm`); false: an earlier
    /// iOS, or the ablation. Android never prewarms, whatever this says.
    public var prewarming = true
    public var reaperMinAge: SimTime = .seconds(300)
    public var reaperInterval: SimTime = .seconds(300)
    /// The compressor pool's bound, % of RAM (physical, compressed KiB); a suspended
    /// app whose memory does not fit stays uncompressed.
    public var compressorPoolPct = 100.0
    /// Pressure level thresholds, % of the memory not wired (RAM - OS reserve) left
    /// uncompressed: warning below `pressureWarningPct`, back to normal above
    /// `pressureWarningClearPct`; critical below `pressureCriticalPct`, back to warning
    /// above `pressureCriticalClearPct` (doc/vm/memorystatus_notify.md, embedded).
    public var pressureWarningPct = 50.0
    public var pressureWarningClearPct = 60.0
    public var pressureCriticalPct = 30.0
    public var pressureCriticalClearPct = 35.0
    /// Apps below this footprint get no pressure warning (VM_PRESSURE_MINIMUM_RSIZE).
    public var warningMinKB: Int64 = 6 * 1_024
    /// After notifying every eligible app, none again at that level for this long.
    public var warningResting: SimTime = .seconds(25)
    /// Pressure above normal this long: sustained-pressure kills.
    public var sustainedWindow: SimTime = .seconds(600)
    /// The per-app inactive (soft) limit, % of RAM: an app over it out of front dies
    /// as a high-water kill while available memory is below the warning level.
    public var inactiveLimitPct = 30.0
    /// The compressor's compressed-pages limit, % of RAM of uncompressed memory (nil:
    /// XNU's, 200 % at <= 2 GiB, else 100 %), and the share of it that is a shortage.
    public var compressorPagesLimitPct: Double? = nil
    public var compressorShortagePct = 98.0
    /// Share of a compressed app's memory decompressed before its first frame on a
    /// resume, in parts per million (the rest on demand). *Assumption*: 0.3.
    public var resumeTouchPPM: Int32 = 300_000
    /// A refreeze writes this share of the app's memory (what it dirtied since its
    /// thaw), in parts per million. *Assumption*: 0.3.
    public var refreezeDirtyPPM: Int32 = 300_000
    /// Per freezer day at most this many demotions of frozen apps thawed fewer than
    /// `freezeDemotionThaws` times.
    public var freezeDemotionsMax = 2
    public var freezeDemotionThaws = 5
    /// With the most frozen apps reached, the freezer still runs (refreezing) while
    /// at least this many apps are thawed with their state on flash.
    public var freezeRefreezeThawed: Int32 = 3
    /// A thaw brings back from flash only this share of the app's frozen memory (what
    /// it touches; the rest stays on flash, read on demand, xnu doc/vm/freezer.md:
    /// 62-64), in parts per million. *Assumption*: 0.2. Beside
    /// `freezeRefreezeThawed` (both 32 bits), so the parameters do not grow.
    public var thawTouchPPM: Int32 = 200_000
    /// The freezer thread's throttle (bsd/kern/kern_memorystatus_freeze.c:2945-2954):
    /// after every run it may not run again for `freezerIdleDelay` (XNU's
    /// memorystatus_apps_idle_delay_time, memstat_idle_deferral_time_s 10 s,
    /// bsd/kern/kern_memorystatus.c:409, 2001) times a multiplier: FAST (1), or with
    /// the dynamic delay (watchOS only, kern_memorystatus_freeze.c:111-116) SLOW (30)
    /// after a run that froze nothing while apps are frozen (:119-120, 2947-2952).
    public var freezerIdleDelay: SimTime = .seconds(10)
    public var freezerFastMultiplier: Int32 = 1
    public var freezerSlowMultiplier: Int32 = 30
    public var freezerDynamicDelay = false
    /// Freeze only while available memory is below this (% of RAM).
    public var freezeAvailablePct = 50.0
    /// ...and more than this many unfrozen suspended apps exist.
    public var freezeSuspendedThreshold = 4
    /// At most this many frozen apps.
    public var freezeMaxProcesses = 20
    /// An app smaller than this is not frozen.
    public var freezeMinKB: Int64 = 8 * 1_024
    /// Flash the freezer may write per day.
    public var freezeDailyKB: Int64 = 2_048 * 1_024
    /// Time to bring one MiB back from flash on a thaw.
    public var thawPerMB: SimTime = .milliseconds(1)
    /// Compression over time: each suspended app's memory goes into the compressor
    /// at this many uncompressed KiB per second, credited at whole seconds of the
    /// device clock (0: all of it at suspension, the model before). *Assumption*: XNU
    /// has no rate; pages are compressed as vm_pageout_scan steals them from the
    /// inactive queue (Memory/XNU/Compression.swift). Default 4 MiB/s.
    public var compressionKBPerS: Int64 = 4 * 1_024
    /// Memory growth in front: from the launch footprint to the app's peak over
    /// `growthTime` of use, in steps of `growthStep` (assumption: no published curve).
    public var growthTime: SimTime = .seconds(120)
    public var growthStep: SimTime = .seconds(30)
    /// Android's lmkd, zram and ActivityManager (`os: android`; Memory/Android/).
    public var android = AndroidParameters()
    /// A cold launch less than this after the app was killed finds its files still in
    /// the page cache (`LaunchKind.cached`); 0 turns it off. *Assumption*: 600 s, no
    /// published figure (the page cache is reclaimed under the same pressure).
    public var pageCacheWindow: SimTime = .seconds(600)
    /// How long a system-launched or woken app runs in the background before it is
    /// suspended (Apple: a silent push or a background fetch has up to 30 s).
    public var systemWakeRun: SimTime = .seconds(30)

    public init(
        ramKB: Int64 = 4 * 1024 * 1024, osReserveKB: Int64? = nil,
        warningAvailablePct: Double? = nil, criticalAvailablePct: Double? = nil,
        killTargetAvailablePct: Double? = nil, perAppLimitPct: Double = 54,
        memoryWarningFreeShare: Double = 0.5, suspendedCompressionRatio: Double = 2,
        decompressPerMB: SimTime = .microseconds(500), launchJitterSigma: Double = 0.25,
        backgroundGrace: SimTime = .seconds(10), enterBackgroundLimit: SimTime = .seconds(5),
        willTerminateLimit: SimTime = .seconds(5),
        bgTaskAllowance: SimTime = BackgroundTimePreset.ios13plus.allowance
    ) {
        self.ramKB = ramKB
        let bands = Self.xnuThresholds(ramKB: ramKB)
        self.osReserveKB = osReserveKB ?? Self.defaultOSReserveKB(ramKB: ramKB)
        self.warningAvailablePct = warningAvailablePct ?? bands.warning
        self.criticalAvailablePct = criticalAvailablePct ?? bands.critical
        self.killTargetAvailablePct = killTargetAvailablePct ?? bands.target
        self.perAppLimitPct = perAppLimitPct
        self.memoryWarningFreeShare = memoryWarningFreeShare
        self.suspendedCompressionRatio = suspendedCompressionRatio
        self.decompressPerMB = decompressPerMB
        self.launchJitterSigma = launchJitterSigma
        self.backgroundGrace = backgroundGrace
        self.enterBackgroundLimit = enterBackgroundLimit
        self.willTerminateLimit = willTerminateLimit
        self.bgTaskAllowance = bgTaskAllowance
    }

    /// The model's defaults (a 4 GB device): each knob's one default, with its source
    /// beside it above. A workload's device class starts from these (`DeviceClass`),
    /// so a test built on `DeviceParameters()` simulates the shipped device.
    public static let standard = DeviceParameters()

    /// XNU's fallback thresholds (% of RAM available) for a RAM size: warning at the
    /// soft-limit level, critical, and the idle-kill level as the kill loop's target.
    public static func xnuThresholds(ramKB: Int64) -> (warning: Double, critical: Double, target: Double) {
        let gb = Double(ramKB) / (1024 * 1024)
        if gb <= 3 { return (15, 5, 10) }
        if gb <= 6 { return (15, 4, 9) }
        return (12, 4, 8)
    }

    /// The default OS reserve (memory apps cannot use), from public JetsamEvent reports
    /// (issue 31; docs/evidence-reserve-and-wakes.md, refit by scripts/fit-reserve.py
    /// from docs/data/): the firmware carve-out and wired memory (fitted: 107 + 0.247 x
    /// RAM over the iOS 11+ reports) plus the daemons and system processes resident above
    /// the idle band (0.165 x RAM, from the one complete report), capped where one app
    /// was measured to reach RAM - cap: 640 / 1024 / 1792 / 2624 MiB at 2 / 3 / 4 /
    /// 6 GiB, linear between; below 2 GiB the 2 GiB share (31.25 %); above 6 GiB held at
    /// 2624 (no 8 GB iPhone report: the iPhone fit gives 3493 there, an 8 GB iPad's
    /// one-app footprint bounds it at 2048). Until issue 31: 25 % of RAM, at most 1536,
    /// an assumption.
    public static func defaultOSReserveKB(ramKB: Int64) -> Int64 {
        let points: [(ramMB: Int64, reserveMB: Int64)] = [(2_048, 640), (3_072, 1_024), (4_096, 1_792), (6_144, 2_624)]
        let mb = Double(ramKB) / 1_024
        guard mb > Double(points[0].ramMB) else { return Int64((Double(ramKB) * 640 / 2_048).rounded(.down)) }
        for (a, b) in zip(points, points.dropFirst()) where mb <= Double(b.ramMB) {
            let t = (mb - Double(a.ramMB)) / Double(b.ramMB - a.ramMB)
            return Int64(((Double(a.reserveMB) + t * Double(b.reserveMB - a.reserveMB)) * 1_024).rounded(.down))
        }
        return points[points.count - 1].reserveMB * 1_024
    }

    /// Thresholds in KiB.
    @inlinable public var warningKB: Int64 { Int64(Double(ramKB) * warningAvailablePct / 100) }
    @inlinable public var criticalKB: Int64 { Int64(Double(ramKB) * criticalAvailablePct / 100) }
    @inlinable public var killTargetKB: Int64 { Int64(Double(ramKB) * killTargetAvailablePct / 100) }
    @inlinable public var perAppLimitKB: Int64 { Int64(Double(ramKB) * perAppLimitPct / 100) }
    /// The largest peak footprint an app has on this device (`appFitPct`).
    public var appFitKB: Int64 { Int64((Double(perAppLimitKB) * appFitPct / 100).rounded(.down)) }
    /// The idle level: below it, kills in the idle band only (the kill target).
    @inlinable public var idleKB: Int64 { killTargetKB }
    /// XNU's reaper level fallback, % of RAM: 20 / 18 / 16 (<=3 / <=6 / >6 GB).
    @inline(__always) public static func reaperPct(ramKB: Int64) -> Double {
        let gb = Double(ramKB) / (1024 * 1024)
        return gb <= 3 ? 20 : gb <= 6 ? 18 : 16
    }
    @inline(__always) public var reaperKB: Int64 { Int64(Double(ramKB) * (reaperAvailablePct ?? Self.reaperPct(ramKB: ramKB)) / 100) }
    @inline(__always) public var freezeKB: Int64 { Int64(Double(ramKB) * freezeAvailablePct / 100) }
    @inline(__always) public var compressorPoolKB: Int64 { Int64(Double(ramKB) * compressorPoolPct / 100) }
    /// Memory not wired by the OS (XNU's AVAILABLE_MEMORY: what is free, in apps or
    /// in the compressor).
    @inline(__always) public var pageableKB: Int64 { ramKB - osReserveKB }
    /// The pressure thresholds in KiB of uncompressed pageable memory.
    @inline(__always) public var pressureWarningKB: Int64 { Int64(Double(pageableKB) * pressureWarningPct / 100) }
    @inline(__always) public var pressureWarningClearKB: Int64 { Int64(Double(pageableKB) * pressureWarningClearPct / 100) }
    @inline(__always) public var pressureCriticalKB: Int64 { Int64(Double(pageableKB) * pressureCriticalPct / 100) }
    @inline(__always) public var pressureCriticalClearKB: Int64 { Int64(Double(pageableKB) * pressureCriticalClearPct / 100) }
    @inline(__always) public var inactiveLimitKB: Int64 { Int64(Double(ramKB) * inactiveLimitPct / 100) }
    /// XNU's compressed-pages limit on iOS, % of RAM: the pool (max_mem) times the
    /// pool multiplier, 2 at <= 2 GiB, else 1 (osfmk/vm/vm_compressor.c, vm_compressor_init).
    public static func compressorPagesLimitPct(ramKB: Int64) -> Double { ramKB <= 2 * 1_048_576 ? 200 : 100 }
    /// The uncompressed KiB in the compressor above which it is short of space.
    @inline(__always) public var compressorShortageKB: Int64 {
        let limit = Double(ramKB) * (compressorPagesLimitPct ?? Self.compressorPagesLimitPct(ramKB: ramKB)) / 100
        return Int64(min(limit * compressorShortagePct / 100, 9e18))
    }
    /// Whether suspended memory is compressed.
    @inlinable public var compresses: Bool { suspendedCompressionRatio > 1 }
    /// What one second of compression turns `compressionKBPerS` KiB into (whole KiB).
    @inline(__always) public var compressionChunkPackedKB: Int64 {
        Int64((Double(compressionKBPerS) / max(1, suspendedCompressionRatio)).rounded())
    }
}
