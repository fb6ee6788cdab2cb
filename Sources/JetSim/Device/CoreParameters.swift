import SimKernel

/// The device's own knobs, which the core and the lifecycle read: memory, thresholds
/// and the system's time limits (each memory manager's are its own: `DeviceParameters`).
///
/// Defaults and their sources (docs/sources.md):
/// - thresholds: XNU memorystatus fallbacks by RAM size (critical 5/4/4 %, idle-kill
///   10/9/8 %, soft-limit 15/15/12 % for <=3 GB / 3-6 GB / >6 GB);
/// - per-app limit: crash footprints measured at 50-68 % of RAM (StackOverflow
///   q 5887248), default 60 %;
/// - background grace ~10 s (seed 004), didEnterBackground limit ~5 s (Apple),
///   background-task allowance 30 s (iOS 13+).
public struct CoreParameters: Sendable, Equatable {
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

    /// Memory growth in front (see `growthTime`).
    public var memoryGrowth = true
    /// iOS 15 and later prewarm apps (`SystemWakeKind.prewarm`); false: an earlier
    /// iOS, or the ablation. Android never prewarms, whatever this says (its manager's
    /// `prewarms`).
    public var prewarming = true
    /// Memory growth in front: from the launch footprint to the app's peak over
    /// `growthTime` of use, in steps of `growthStep` (assumption: no published curve).
    public var growthTime: SimTime = .seconds(120)
    public var growthStep: SimTime = .seconds(30)
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
        launchJitterSigma: Double = 0.25,
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
        self.launchJitterSigma = launchJitterSigma
        self.backgroundGrace = backgroundGrace
        self.enterBackgroundLimit = enterBackgroundLimit
        self.willTerminateLimit = willTerminateLimit
        self.bgTaskAllowance = bgTaskAllowance
    }


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
    /// Memory not wired by the OS (XNU's AVAILABLE_MEMORY: what is free, in apps or
    /// in the compressor).
    @inline(__always) public var pageableKB: Int64 { ramKB - osReserveKB }
    /// Whether suspended memory is compressed.
    @inlinable public var compresses: Bool { suspendedCompressionRatio > 1 }
}
