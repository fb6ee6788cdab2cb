import Foundation
import SimKernel

/// A workload: the fleet, its device classes, the app catalog, the user and the run.
/// Every number has a name with its unit, a default, and (in `Workloads/*.yaml` and
/// `Workloads/README.md`) its source in `docs/sources.md`, or the word
/// "assumption" where nothing was published.
public struct Workload: Sendable, Equatable {
    public var name = "default"
    /// The run's seed: the same seed and inputs give byte-identical results.
    public var seed: UInt64 = 1
    public var fleet = Fleet()
    public var deviceClasses: [DeviceClass] = [DeviceClass()]
    public var catalog = Catalog()
    public var user = UserBehaviour()
    public var policies = PolicySettings()
    public var run = RunDefaults()

    public init() {}

    public struct Fleet: Sendable, Equatable {
        public var devices = 500
        public var duration = SimTime.days(7)
        public init() {}
    }

    /// Which cells `jetsim run` runs when the command line does not say.
    public struct RunDefaults: Sendable, Equatable {
        /// Policy names, or ["all"].
        public var policies: [String] = ["all"]
        /// RAM sizes in KiB; empty: each device class's own RAM. Default: 2, 3 and 4 GB.
        public var ramKB: [Int64] = [2 * 1_048_576, 3 * 1_048_576, 4 * 1_048_576]
        public init() {}
    }
}

/// A class of devices: RAM, thresholds, time limits, and its share of the fleet.
public struct DeviceClass: Sendable, Equatable {
    public var name = "iphone-11"
    /// Share of the fleet (shares are normalised over all classes).
    public var share = 1.0
    /// iPhone 11: 3844 MB total (StackOverflow q 5887248), rounded to 4 GB.
    public var ramKB: Int64 = DeviceParameters.standard.ramKB
    /// nil: 25% of RAM, at most 1.5 GB (assumption, see DeviceParameters).
    public var osReserveKB: Int64? = nil
    /// nil: XNU's fallback for the RAM size.
    public var warningAvailablePct: Double? = nil
    public var criticalAvailablePct: Double? = nil
    public var killTargetAvailablePct: Double? = nil
    /// Crash footprint / RAM, 50-68% on phones; iPhone 11: 2068/3844 = 54%.
    public var perAppLimitPct = DeviceParameters.standard.perAppLimitPct
    public var appFitPct = DeviceParameters.standard.appFitPct
    public var memoryWarningFreeShare = DeviceParameters.standard.memoryWarningFreeShare
    /// WKdm compresses to about half (Apple, OS X Mavericks Core Technology Overview).
    public var suspendedCompressionRatio = DeviceParameters.standard.suspendedCompressionRatio
    /// Launch-to-launch variation of latency (lognormal sigma; assumption).
    public var launchJitterSigma = DeviceParameters.standard.launchJitterSigma
    public var backgroundGraceS = DeviceParameters.standard.backgroundGrace.seconds
    public var enterBackgroundLimitS = DeviceParameters.standard.enterBackgroundLimit.seconds
    public var willTerminateLimitS = DeviceParameters.standard.willTerminateLimit.seconds
    /// The background-task allowance preset (iOS 13+: 30 s).
    public var ios = BackgroundTimePreset.ios13plus
    /// Overrides the preset when set.
    public var bgTaskAllowanceS: Double? = nil
    /// XNU memorystatus's parameters, which its keys write directly (Workload+XNU.swift).
    public var xnu = XNUParameters()
    public var memoryGrowth = DeviceParameters.standard.memoryGrowth
    public var growthTimeS = DeviceParameters.standard.growthTime.seconds
    public var growthStepS = DeviceParameters.standard.growthStep.seconds
    /// The memory manager, and Android's keys (Workload+Android.swift).
    public var os = DeviceOS.ios
    public var android = AndroidClass()
    public var fleet = FleetClass()
    /// A cold launch this soon after a kill is `cached` (assumption, see DeviceParameters).
    public var pageCacheWindowS = DeviceParameters.standard.pageCacheWindow.seconds
    /// A system-launched app runs this long in the background (Apple: up to 30 s).
    public var systemWakeRunS = DeviceParameters.standard.systemWakeRun.seconds
    /// iOS 15 and later prewarm apps (DeviceParameters.prewarming; never on Android).
    public var prewarming = DeviceParameters.standard.prewarming

    public init() {}

    /// The device parameters, with `ramKB` overridden when given (thresholds that
    /// default by RAM size follow the override).
    public func parameters(ramKB override: Int64? = nil) -> DeviceParameters {
        let ram = override ?? ramKB
        var p = DeviceParameters(
            ramKB: ram, osReserveKB: osReserveKB.map { min($0, ram - 1) },
            warningAvailablePct: warningAvailablePct, criticalAvailablePct: criticalAvailablePct,
            killTargetAvailablePct: killTargetAvailablePct, perAppLimitPct: perAppLimitPct,
            memoryWarningFreeShare: memoryWarningFreeShare, suspendedCompressionRatio: suspendedCompressionRatio,
            launchJitterSigma: launchJitterSigma,
            backgroundGrace: SimTime(seconds: backgroundGraceS), enterBackgroundLimit: SimTime(seconds: enterBackgroundLimitS),
            willTerminateLimit: SimTime(seconds: willTerminateLimitS),
            bgTaskAllowance: bgTaskAllowanceS.map { SimTime(seconds: $0) } ?? ios.allowance)
        p.appFitPct = appFitPct
        p.xnu = xnu
        p.pageCacheWindow = SimTime(seconds: pageCacheWindowS)
        p.systemWakeRun = SimTime(seconds: systemWakeRunS)
        p.prewarming = prewarming
        p.memoryGrowth = memoryGrowth
        p.growthTime = SimTime(seconds: growthTimeS)
        p.growthStep = SimTime(seconds: growthStepS)
        if os == .android || os == .fleet { android.apply(to: &p) }
        if os == .fleet { fleet.apply(to: &p) }
        return p
    }

    /// The class with the keys its memory manager does not read at their defaults: the
    /// `android_*` keys unless `os` is android or fleet, the `fleet_*` keys unless it is
    /// fleet (`parameters()` applies them only then). Two classes equal after this run
    /// the same device (`jetsim sensitivity` does not rerun a point that differs from
    /// its center only in such keys).
    public func withUnreadKeysAtDefaults() -> DeviceClass {
        var c = self
        if os != .android && os != .fleet { c.android = AndroidClass() }
        if os != .fleet { c.fleet = FleetClass() }
        return c
    }

    /// A share as parts per million, as the device keeps it.
    static func ppm(_ share: Double) -> Int32 { Int32((share * 1_000_000).rounded()) }
    /// MiB per second as whole KiB per second (rounded up: a rate above 0 stays above 0).
    static func kibibytesPerSecond(_ mbPerS: Double) -> Int64 { Int64((mbPerS * 1_024).rounded(.up)) }
}

/// The app catalog: thousands of apps drawn from archetypes, with a popularity.
public struct Catalog: Sendable, Equatable {
    /// Apps in the catalog.
    public var apps = 2_000
    /// Global popularity: Zipf over catalog rank with this exponent (assumption:
    /// app-store downloads are heavy-tailed; 0.9 is a common fit).
    public var popularityZipfExponent = 0.9
    /// Apps each device installs (drawn, then clamped to 1...apps). Falaki et al.:
    /// 10-90 apps used per user.
    public var installedPerDevice: RealDistribution = .lognormal(median: 60, sigma: 0.4)
    public var archetypes: [Archetype] = Archetype.defaults
    /// Apps declared by name, each with its own profile, its place in the users'
    /// rankings and the share of devices that install it (none by default): the app
    /// engineer's own app among the drawn ones (`NamedApp`).
    public var namedApps: [NamedApp] = []

    public init() {}
}

/// An app declared by name (`catalog.named_apps`): its profile starts from an
/// archetype's keys and overrides any of them; it is drawn once (a constant is the
/// app as declared). Installed on a device with probability `installShare` (its own
/// stream, by device), it then takes place `userRank` in that user's ranking of
/// installed apps (1: the app the user opens most); the drawn apps keep their order
/// around it. Its footprints are never scaled to the device (`AppCatalog.profiles(fittedTo:)`):
/// a declared footprint over a class's app fit is said, not changed.
public struct NamedApp: Sendable, Equatable {
    public var name = ""
    /// The archetype whose keys it starts from; `--by archetype` counts it there.
    public var archetype = ""
    /// Share of devices that install it.
    public var installShare = 1.0
    /// Its place in the ranking of every user who installs it (1 = first).
    public var userRank = 1
    /// Its profile's keys, as an archetype's (its `share` unused).
    public var profile = Archetype(name: "", share: 0, activeMB: .constant(0))

    public init() {}

    /// The group name of the drawn apps in `--by app` (no named app may take it).
    public static let restGroup = "rest"
}

/// A kind of app, with distributions for everything an app is.
public struct Archetype: Sendable, Equatable {
    public var name: String
    /// Share of the catalog.
    public var share: Double
    public var activeMB: RealDistribution
    /// Background footprint as a share of the active one (caches trimmed).
    public var backgroundShare: RealDistribution = .uniform(low: 0.4, high: 0.6)
    /// Suspended footprint as a share of the active one (seed 004: what it does not
    /// need while suspended is destroyed).
    public var suspendedShare: RealDistribution = .uniform(low: 0.2, high: 0.35)
    /// The footprint an app grows toward in a session, as a multiple of its launch
    /// footprint (assumption: no published curve).
    public var peakShare: RealDistribution = .uniform(low: 1.0, high: 1.5)
    public var coldLaunchMs: RealDistribution = .lognormal(median: 1_200, sigma: 0.4)
    public var stateRestoreMs: RealDistribution = .lognormal(median: 300, sigma: 0.4)
    public var warmLaunchMs: RealDistribution = .lognormal(median: 250, sigma: 0.3)
    public var hotLaunchMs: RealDistribution = .lognormal(median: 100, sigma: 0.3)
    public var enterBackgroundHandlerMs: RealDistribution = .lognormal(median: 40, sigma: 0.8)
    /// Probability that a trip to the background begins a background task, and the
    /// work it needs (seconds, lognormal by median and sigma).
    public var bgTaskProbability = 0.1
    public var bgTaskMedianS = 8.0
    public var bgTaskSigma = 1.0
    /// Probability that an app of this kind has each background mode.
    public var modeAudio = 0.0
    public var modeLocation = 0.0
    public var modeVoip = 0.0
    /// How long a mode's activity lasts after entering the background.
    public var modeActivityMedianS = 600.0
    public var modeActivitySigma = 1.0
    public var exitsOnSuspendProbability = 0.0
    /// Launch time with its files still in the page cache, as a share of the cold
    /// launch (state restore comes on top). *Assumption*: 0.5; Android vitals' limits
    /// for an excessive start, warm 2 s against cold 5 s, give 0.4.
    public var cachedLaunchShare = 0.5
    /// System launches and wakes into the background per app per day (*assumption*
    /// each: iOS decides from usage, battery and network and publishes no rates).
    /// VoIP pushes reach only apps with the voip mode.
    public var locationWakesPerDay = 0.0
    public var voipPushesPerDay = 0.0
    public var silentPushesPerDay = 0.25
    public var backgroundRefreshesPerDay = 0.125
    /// iOS 15 prewarms per app per day, the prewarmed process's footprint as a share
    /// of the active one, and the share of the cold launch a prewarm saves (the
    /// pre-main part). *Assumptions* (Apple publishes no rate, footprint or saving):
    /// 0.1 a day per app (the device's arrivals are the sum; `Device.prewarmTarget`
    /// picks the app); 0.1 of the footprint (dyld's
    /// work maps mostly shared, clean pages); 0.2 of the launch (one published
    /// measurement: 74 ms pre-main, useyourloaf.com after WWDC16 406, against
    /// Apple's 400 ms launch target, WWDC19 423).
    public var prewarmsPerDay = 0.1
    public var prewarmFootprintShare = Archetype.defaultPrewarmFootprintShare
    public var prewarmSavingShare = Archetype.defaultPrewarmSavingShare
    /// The defaults, also a scenario app's (`Scenario.parseApp`).
    public static let defaultPrewarmFootprintShare = 0.1, defaultPrewarmSavingShare = 0.2
    /// Share of this kind's apps whose expiration handler ends the background task
    /// (then suspended, not killed, when the allowance runs out). *Assumption*: Apple's
    /// documentation and sample code end the task in the handler, so most apps do;
    /// no published share.
    public var bgTaskEndsOnExpiryProbability = 0.8
    /// Probability of each save strategy (normalised).
    public var saveStrategy: [SaveStrategy: Double] = [.onEnterBackground: 0.6, .onResignActive: 0.15, .periodic: 0.1, .onTerminate: 0.1, .never: 0.05]
    /// Strategies every app of this kind saves with besides its drawn one (none: the
    /// drawn one alone). Its loss still counts under the drawn one.
    public var saveAlso: SaveSet = []
    public var saveMs: RealDistribution = .lognormal(median: 150, sigma: 0.8)
    public var saveIntervalS = 30.0
    public var unsavedEditsPerMin: RealDistribution = .lognormal(median: 1, sigma: 0.8)
    public var preservesUIStateProbability = 0.7

    public init(name: String, share: Double, activeMB: RealDistribution) {
        self.name = name
        self.share = share
        self.activeMB = activeMB
    }

    /// The default archetypes. Footprints are assumptions (no per-app figures are
    /// published), sized against the per-app crash limits (50-68% of RAM).
    public static var defaults: [Archetype] {
        var social = Archetype(name: "social", share: 0.15, activeMB: .lognormal(median: 350, sigma: 0.35))
        social.bgTaskProbability = 0.3
        var messaging = Archetype(name: "messaging", share: 0.1, activeMB: .lognormal(median: 180, sigma: 0.3))
        messaging.modeVoip = 0.3
        messaging.modeActivityMedianS = 120
        messaging.bgTaskProbability = 0.4
        messaging.bgTaskMedianS = 5
        messaging.voipPushesPerDay = 4
        messaging.silentPushesPerDay = 1
        messaging.prewarmsPerDay = 0.3
        var game = Archetype(name: "game", share: 0.2, activeMB: .lognormal(median: 800, sigma: 0.45))
        game.coldLaunchMs = .lognormal(median: 3_000, sigma: 0.5)
        game.saveStrategy = [.onResignActive: 0.3, .onEnterBackground: 0.3, .periodic: 0.2, .onTerminate: 0.1, .never: 0.1]
        game.exitsOnSuspendProbability = 0.02
        game.preservesUIStateProbability = 0.4
        var maps = Archetype(name: "maps", share: 0.05, activeMB: .lognormal(median: 400, sigma: 0.3))
        maps.modeLocation = 0.6
        maps.modeActivityMedianS = 900
        maps.locationWakesPerDay = 8
        var music = Archetype(name: "music", share: 0.05, activeMB: .lognormal(median: 200, sigma: 0.3))
        music.modeAudio = 0.9
        music.modeActivityMedianS = 1_800
        var camera = Archetype(name: "camera", share: 0.05, activeMB: .lognormal(median: 450, sigma: 0.3))
        camera.bgTaskProbability = 0.5
        camera.bgTaskMedianS = 15
        camera.unsavedEditsPerMin = .lognormal(median: 3, sigma: 0.5)
        var browser = Archetype(name: "browser", share: 0.05, activeMB: .lognormal(median: 450, sigma: 0.4))
        browser.unsavedEditsPerMin = .lognormal(median: 0.5, sigma: 1)
        var mail = Archetype(name: "mail", share: 0.05, activeMB: .lognormal(median: 160, sigma: 0.3))
        mail.bgTaskProbability = 0.5
        mail.bgTaskMedianS = 6
        mail.unsavedEditsPerMin = .lognormal(median: 4, sigma: 0.5)
        var productivity = Archetype(name: "productivity", share: 0.15, activeMB: .lognormal(median: 220, sigma: 0.4))
        productivity.unsavedEditsPerMin = .lognormal(median: 6, sigma: 0.5)
        productivity.saveStrategy = [.periodic: 0.4, .onEnterBackground: 0.3, .onResignActive: 0.1, .onTerminate: 0.15, .never: 0.05]
        var video = Archetype(name: "video", share: 0.15, activeMB: .lognormal(median: 500, sigma: 0.35))
        video.modeAudio = 0.1
        video.modeActivityMedianS = 600
        return [social, messaging, game, maps, music, camera, browser, mail, productivity, video]
    }
}

/// The synthetic user. Rates are per day over the waking window unless named per
/// hour of use. Sources: Falaki et al. (MobiSys 2010), Böhmer et al. (MobileHCI
/// 2011), LiveLab (Rice); see `Workloads/README.md`.
public struct UserBehaviour: Sendable, Equatable {
    /// Session attempts per day of the median user (`sessionsPerDaySigma` spreads it
    /// across users). Calibrated: with the other defaults the fleet's users spend
    /// Böhmer et al.'s 59 min a day in apps, measured by `jetsim usage-stats` (the mean
    /// user makes exp(sigma^2 / 2) = 1.98 times the median's sessions).
    public var sessionsPerDay = 19.0
    /// The waking window in hours of the day, [start, end).
    public var wakeHour = 7.0
    public var sleepHour = 23.0
    /// Share of sessions that touch one app only (Falaki: ~90%).
    public var singleAppSessionShare = 0.9
    /// Mean number of extra apps in a multi-app session (geometric).
    public var extraAppsMean = 1.5
    /// Time in one app. Calibrated so the app sessions `jetsim usage-stats` measures
    /// (split by interruptions, spread by `dwellSigma` across users) meet LiveLab's half
    /// under 30 s and 90% under 4 min and Böhmer et al.'s mean of 71.6 s. (A single
    /// lognormal cannot meet all three: median 30 s and p90 240 s give a mean of 112 s.)
    public var dwellS: RealDistribution = .lognormal(median: 38, sigma: 1.2)
    /// How the user picks the next app among installed ones, by personal rank.
    /// Decay calibrated to Kim et al. (2019): 14-18 distinct apps a week on iOS.
    public var appChoice = AppChoice.exponential(decay: 3)
    /// Share of app switches made through the app switcher rather than Home.
    public var switcherShare = 0.2
    /// Share of unlocks that go on with the app left in front (rather than Home first).
    public var resumeFrontShare = 0.5
    /// Share of sessions that end with Home before the lock (else the app stays in
    /// front, inactive, while locked).
    public var homeBeforeLockShare = 0.6
    /// Interruptions per day over the waking window; only those that land while an
    /// app is in use reach it.
    public var callsPerDay = 5.0
    public var smsPerDay = 30.0
    public var alertsPerDay = 5.0
    /// Share answered (or tapped), by kind.
    public var answerCallShare = 0.6
    public var answerSmsShare = 0.5
    public var answerAlertShare = 0.3
    /// Time to respond, and time spent on the answered interruption.
    public var responseDelayS: RealDistribution = .lognormal(median: 4, sigma: 0.5)
    public var callDurationS: RealDistribution = .lognormal(median: 90, sigma: 1)
    public var smsReplyS: RealDistribution = .lognormal(median: 20, sigma: 0.7)
    public var alertHandlingS: RealDistribution = .lognormal(median: 10, sigma: 0.7)
    /// Share of answered interruptions after which the user returns to the same app.
    public var returnAfterInterruptionShare = 0.8
    /// Apps the user removes from the switcher per day.
    public var switcherRemovalsPerDay = 2.0
    /// System events: orientation changes per hour of app use (broadcast), locale
    /// changes per day (broadcast), notifications per day (to apps by preference),
    /// significant location changes per day (broadcast).
    public var orientationChangesPerHourOfUse = 4.0
    public var localeChangesPerDay = 0.01
    public var notificationsPerDay = 60.0
    public var locationChangesPerDay = 10.0

    /// Heterogeneous users: each device's user scales the population's rates by its
    /// own lognormal factors (median 1, these sigmas), drawn once per device from its
    /// keyed stream (`UserModel.Person`). 0: every user the same.
    ///
    /// Sessions a day (Falaki et al. 2010: 10-200 interactions a day across 255 users;
    /// read as the 10th and 90th percentiles, sigma = ln(200/10) / (2 x 1.2816) = 1.17,
    /// so the measured p90/p10 is an order of magnitude, as the issue asks; read as the
    /// 5th and 95th (0.91) it measured 7.6x, the sessions that arrive during one
    /// merging into it).
    public var sessionsPerDaySigma = 1.17
    /// The user's typical app-session length (Falaki et al. 2010: mean interaction
    /// 10-250 s across users; *assumption*: 0.5 of the total spread is between users,
    /// the rest within, in `dwell_s`).
    public var dwellSigma = 0.5
    /// How concentrated the user's app choice is: the exponential decay (or 1 / the
    /// Zipf exponent) scaled (Falaki et al. 2010: 10-90 apps used per user,
    /// ln(90/10) / 3.29 = 0.67).
    public var appChoiceSigma = 0.67
    /// Calls, SMS and alerts a day (*assumption*).
    public var interruptionsSigma = 0.5
    /// A user's factor is drawn within this many sigmas of the median (*assumption*:
    /// bounds the busiest user so a run's size stays predictable).
    public var userSpreadClampSigmas = 3.0

    public init() {}

    public enum AppChoice: Sendable, Equatable {
        /// P(rank r) ∝ exp(−r / decay) (Falaki: per-user popularity fits an exponential).
        case exponential(decay: Double)
        /// P(rank r) ∝ 1 / r^s.
        case zipf(exponent: Double)
    }
}

extension Workload {
    /// Whether a device of this workload gets the same inputs as one of `o` (its
    /// class, installed apps and timeline: `DeviceInputs.build`), whatever the
    /// profiles: the same seed, run, class shares, catalog size and popularity,
    /// installed-apps draw, named apps' installs and ranks, and user. `--compare-set`
    /// variants that change only what apps or devices are share each device's build.
    public func buildsSameInputs(as o: Workload) -> Bool {
        seed == o.seed && fleet == o.fleet && deviceClasses.map(\.share) == o.deviceClasses.map(\.share)
            && catalog.apps == o.catalog.apps && catalog.popularityZipfExponent == o.catalog.popularityZipfExponent
            && catalog.installedPerDevice == o.catalog.installedPerDevice
            && catalog.namedApps.map(\.installShare) == o.catalog.namedApps.map(\.installShare)
            && catalog.namedApps.map(\.userRank) == o.catalog.namedApps.map(\.userRank)
            && user == o.user
    }
}

extension DeviceClass {
    /// Why the idle-band daemons cannot share their pool (nil: they can, or there is
    /// none): every daemon holds `idle_daemons_mb / idle_daemon_count` in whole KiB, so
    /// more daemons than the pool has KiB hold 0 KiB each (a pool of 465 MB held
    /// nothing, and its runs equalled no pool's).
    public var idleDaemonShareProblem: String? {
        let p = parameters()
        guard p.runsIdleDaemons, Int64(p.xnu.idleDaemonCount) > p.xnu.idleDaemonsKB else { return nil }
        return "\(p.xnu.idleDaemonCount) idle-band daemons share idle_daemons_mb (\(p.xnu.idleDaemonsKB) KiB): each would hold 0 KiB and the pool nothing; give at most one daemon per KiB of the pool"
    }

    /// The most idle-band daemon relaunches a device of this class can have over
    /// `duration`: every daemon dead and relaunched at its rate (0 with no pool).
    public func mostIdleDaemonRelaunches(over duration: SimTime) -> Double {
        let p = parameters()
        guard p.runsIdleDaemons else { return 0 }
        return p.xnu.idleDaemonRelaunchesPerHour * Double(p.xnu.idleDaemonCount) * duration.seconds / 3_600
    }

    /// Why this class cannot run at a cell's RAM (nil: it can): the checks across keys
    /// that read the RAM, on the RAM the cell simulates (`--ram`, or `run.ram_mb`),
    /// not the class's own `ram_mb`, which the file's checks read. The OS reserve as
    /// written (`parameters` clamps it below the RAM) and, with the idle-band daemons,
    /// the reserve and the pool must leave memory for apps (a run started with negative
    /// free memory, and `jetsim trace` trapped on it); the critical level must not
    /// exceed the kill target, as `auto` resolves them at this RAM.
    public func problem(atRAM ramKB: Int64) -> String? {
        let p = parameters(ramKB: ramKB)
        let reserve = osReserveKB ?? p.osReserveKB
        if reserve >= ramKB {
            return "\(SizeText.mebibytes(ramKB))MB is not more than the OS reserve (\(SizeText.mebibytes(reserve))MB) of device class \(name): nothing would be left for apps"
        }
        if !p.idleDaemonsFit {
            return "at \(SizeText.mebibytes(ramKB))MB, device class \(name)'s idle-band daemons (idle_daemons_mb \(SizeText.mebibytes(p.xnu.idleDaemonsKB))) and OS reserve (\(SizeText.mebibytes(p.osReserveKB))MB) are not smaller than the RAM: nothing would be left for apps"
        }
        // `auto` levels follow the RAM: a critical level below the class's own target
        // can be above the target at another size.
        if p.criticalAvailablePct > p.killTargetAvailablePct {
            return "at \(SizeText.mebibytes(ramKB))MB, device class \(name)'s critical_available_pct (\(WorkloadPrinter.num(p.criticalAvailablePct))%) exceeds its kill_target_available_pct (\(WorkloadPrinter.num(p.killTargetAvailablePct))%; auto at this RAM): the loop kills until the target"
        }
        return nil
    }
}

extension Workload {
    /// Why a cell of this workload at `ramKB` (nil: each class's own RAM) cannot run
    /// (nil: it can): `DeviceClass.problem(atRAM:)` of each class.
    public func cellProblem(ramKB: Int64?) -> String? {
        for c in deviceClasses { if let why = c.problem(atRAM: ramKB ?? c.ramKB) { return why } }
        return nil
    }

    /// The most timeline actions a device may expect over the run (synthetic user):
    /// a device's timeline is built whole in memory (about 40 bytes an action, so
    /// about 2 GB at this bound). *Assumption*: what one machine's worker can hold.
    public static let maxActionsPerDevice: Double = 50_000_000

    /// Actions the synthetic user makes on one device over the run, a generous mean:
    /// per session at most a handful of actions per app, plus interruptions; and the
    /// all-day events.
    public var expectedActionsPerDevice: Double {
        let u = user
        let days = max(fleet.duration.seconds / 86_400, 1)
        // The busiest user a device may draw (heterogeneous users, clamped).
        let sessions = u.sessionsPerDay * exp(u.userSpreadClampSigmas * u.sessionsPerDaySigma)
        let interruptions = (u.callsPerDay + u.smsPerDay + u.alertsPerDay) * exp(u.userSpreadClampSigmas * u.interruptionsSigma)
        let perDay = sessions * (6 + 4 * u.extraAppsMean) + interruptions
            + u.notificationsPerDay + u.localeChangesPerDay + u.locationChangesPerDay + 24 * u.orientationChangesPerHourOfUse
        return perDay * days
    }

    /// System wakes a device may expect over the run (the archetypes' five
    /// `*_per_day` rates, prewarms included, over its installed apps, counting the voip pushes for every
    /// app as if each had the mode: generous). Drawn as they come, so they take no
    /// timeline memory, but each is a launch or a wake the device simulates: the same
    /// bound refuses a workload whose wakes alone would be a runaway.
    public var expectedSystemWakesPerDevice: Double {
        let days = max(fleet.duration.seconds / 86_400, 1)
        let shares = catalog.archetypes.reduce(0) { $0 + max(0, $1.share) }
        guard shares > 0 else { return 0 }
        let perApp = catalog.archetypes.reduce(0) { $0 + max(0, $1.share) / shares
            * ($1.locationWakesPerDay + $1.voipPushesPerDay + $1.silentPushesPerDay + $1.backgroundRefreshesPerDay + $1.prewarmsPerDay) }
        let installed = min(Double(catalog.apps), max(1, catalog.installedPerDevice.mean))
        // Each named app on every device (generous), at its own rates.
        let named = catalog.namedApps.reduce(0) { let a = $1.profile
            return $0 + a.locationWakesPerDay + a.voipPushesPerDay + a.silentPushesPerDay + a.backgroundRefreshesPerDay + a.prewarmsPerDay }
        return (perApp * installed + named) * days
    }
}
