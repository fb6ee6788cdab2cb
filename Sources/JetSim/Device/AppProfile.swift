import SimKernel

/// What an app is: its footprints, latencies and behaviour. Plain values, shared
/// read-only by every device that installs the app; per-device state lives in
/// `AppRuntime`.
///
/// Memory is in KiB (integers, so accounting is exact); times in `SimTime`.
public struct AppProfile: Sendable, Equatable {
    /// The largest footprint the model stores (per-app resident memory is an Int32 of KiB).
    public static let maxFootprintKB = Int64(Int32.max)
    /// The highest edit rate an app is given, per minute of active use (one edit every
    /// 60 ms, far past any person: *assumption*). Derived so no loss total saturates:
    /// a device active for the whole longest run (36,500 days = 5.3e7 minutes) loses at
    /// most 5.3e10 edits, and the largest fleet (10^8 devices) 5.3e18, under Int.max
    /// (9.2e18). A drawn rate above it is clamped (`AppCatalog.draw`).
    public static let maxEditsPerMinute: Double = 1_000

    /// Resident footprint while in front (active or inactive), reached during launch.
    public var activeKB: Int64
    /// What it keeps while executing in the background, after trimming its caches.
    public var backgroundKB: Int64
    /// What it keeps while suspended, before the device's compression.
    public var suspendedKB: Int64
    /// The footprint it grows toward while in front (0 or <= activeKB: no growth).
    public var peakKB: Int64 = 0

    /// Time to first frame from no process, before state restoration.
    public var coldLaunch: SimTime
    /// Extra cold-launch time to restore the saved UI state (when it preserves it).
    public var stateRestore: SimTime
    /// Time to resume from suspended, before decompression.
    public var warmLaunch: SimTime
    /// Time to come back when still executing in the background.
    public var hotLaunch: SimTime

    /// How long its didEnterBackground handler runs.
    public var enterBackgroundHandler: SimTime
    /// Probability that entering the background begins a background task.
    public var bgTaskProbability: Double
    /// Work the background task needs: median and sigma of a lognormal (sigma 0:
    /// always the median).
    public var bgTaskMedian: SimTime
    public var bgTaskSigma: Double
    /// A background mode that keeps it executing while its activity lasts.
    public var mode: BackgroundMode
    /// How long the mode's activity lasts after entering the background (lognormal).
    public var modeActivityMedian: SimTime
    public var modeActivitySigma: Double
    /// UIApplicationExitsOnSuspend: terminated on every trip to the background.
    public var exitsOnSuspend: Bool

    /// When it saves, and how long a save takes. `save` is its drawn strategy, under
    /// which its lost edits are counted (`Counter.ofLoss`); `saveAlso` the strategies it
    /// saves with besides (none by default): an app saves on each of them.
    public var save: SaveStrategy
    public var saveAlso: SaveSet = []
    public var saveDuration: SimTime
    /// Whether it saves on `s`: its drawn strategy or one of `saveAlso`.
    /// (A bit test: `saveAlso` never holds `never`'s bit. Building a `SaveSet` here was
    /// a call at every launch and trip to the background, +2.4 % a replayed row.)
    @inlinable @inline(__always) public func saves(_ s: SaveStrategy) -> Bool {
        save == s || saveAlso.rawValue & (1 &<< s.rawValue) != 0
    }
    /// Period of saves for the `periodic` strategy (while in front).
    public var saveInterval: SimTime
    /// Unsaved work created per minute of active use (edits; the unit of data loss).
    public var unsavedEditsPerMinute: Double
    /// Whether it restores the user's place after a cold launch.
    public var preservesUIState: Bool
    /// Whether its background task's expiration handler ends the task (calls
    /// `endBackgroundTask`): then the app is suspended when its allowance runs out;
    /// if not, it is killed (Apple, `UIApplication.beginBackgroundTask(expirationHandler:)`:
    /// "Use this handler to clean up and mark the end of the background task. Failure
    /// to end the task explicitly will result in the termination of the app.").
    /// Default false: a scenario app is killed unless it says `ends-task-on-expiry`.
    public var endsTaskOnExpiry = false
    /// Launch time from no process when its files are still in the page cache
    /// (`LaunchKind.cached`; default half the default cold launch: *assumption*).
    public var cachedLaunch: SimTime = .milliseconds(600)
    /// System launches and wakes into the background, per day while installed, by
    /// `SystemWakeKind` (location, voip push, silent push, background refresh).
    public var locationWakesPerDay = 0.0, voipPushesPerDay = 0.0, silentPushesPerDay = 0.0, backgroundRefreshesPerDay = 0.0
    /// iOS 15 prewarms (`SystemWakeKind.prewarm`) per day: the apps' rates add up to
    /// the device's prewarm arrivals, each of which goes to the app of a random past
    /// launch (`Device.prewarmTarget`), not to the app whose rate drew it; what a
    /// prewarmed process holds (its pre-main footprint); and what a
    /// launch of it saves (the pre-main part of the cold launch). Defaults *assumption*:
    /// 10 % of the default active footprint, 20 % of the default cold launch.
    public var prewarmsPerDay = 0.0
    public var prewarmKB: Int64 = 20 * 1_024
    public var prewarmSaving: SimTime = .milliseconds(240)
    /// Sets what a prewarmed process holds and what a launch of it saves from the
    /// footprint and the cold launch (the catalog's archetype shares; a scenario's app
    /// uses the default archetype's, so overriding its footprint or cold launch scales
    /// them as it does `cachedLaunch`).
    public mutating func derivePrewarm(footprintShare: Double, savingShare: Double) {
        prewarmKB = Int64((Double(activeKB) * footprintShare).rounded())
        prewarmSaving = SimTime(saturatingMicroseconds: Double(coldLaunch.microseconds) * savingShare)
    }
    /// The rate of one kind, per day.
    @inlinable public func wakesPerDay(_ k: SystemWakeKind) -> Double {
        switch k {
        case .location: locationWakesPerDay
        case .voipPush: voipPushesPerDay
        case .silentPush: silentPushesPerDay
        case .backgroundRefresh: backgroundRefreshesPerDay
        case .prewarm: prewarmsPerDay
        }
    }

    public init(
        activeKB: Int64 = 200 * 1024, backgroundKB: Int64 = 100 * 1024, suspendedKB: Int64 = 60 * 1024,
        coldLaunch: SimTime = .milliseconds(1_200), stateRestore: SimTime = .milliseconds(300),
        warmLaunch: SimTime = .milliseconds(250), hotLaunch: SimTime = .milliseconds(100),
        enterBackgroundHandler: SimTime = .milliseconds(50),
        bgTaskProbability: Double = 0, bgTaskMedian: SimTime = .zero, bgTaskSigma: Double = 0,
        mode: BackgroundMode = .none, modeActivityMedian: SimTime = .zero, modeActivitySigma: Double = 0,
        exitsOnSuspend: Bool = false,
        save: SaveStrategy = .onEnterBackground, saveDuration: SimTime = .milliseconds(200),
        saveInterval: SimTime = .seconds(60), unsavedEditsPerMinute: Double = 2,
        preservesUIState: Bool = true
    ) {
        self.activeKB = activeKB
        self.backgroundKB = backgroundKB
        self.suspendedKB = suspendedKB
        self.coldLaunch = coldLaunch
        self.stateRestore = stateRestore
        self.warmLaunch = warmLaunch
        self.hotLaunch = hotLaunch
        self.enterBackgroundHandler = enterBackgroundHandler
        self.bgTaskProbability = bgTaskProbability
        self.bgTaskMedian = bgTaskMedian
        self.bgTaskSigma = bgTaskSigma
        self.mode = mode
        self.modeActivityMedian = modeActivityMedian
        self.modeActivitySigma = modeActivitySigma
        self.exitsOnSuspend = exitsOnSuspend
        self.save = save
        self.saveDuration = saveDuration
        self.saveInterval = saveInterval
        self.unsavedEditsPerMinute = unsavedEditsPerMinute
        self.preservesUIState = preservesUIState
    }
}

/// iOS background-time presets for the background-task allowance
/// (docs/sources.md, "iOS background execution").
public enum BackgroundTimePreset: String, Sendable, CaseIterable {
    /// About 600 s on iOS 4-6.
    case ios4to6 = "ios4-6"
    /// 180 s on iOS 7-12 (crash logs: permittedBackgroundDuration: 180).
    case ios7to12 = "ios7-12"
    /// About 30 s on iOS 13+ (Apple developer forums thread 391799).
    case ios13plus = "ios13+"

    public var allowance: SimTime {
        switch self {
        case .ios4to6: .seconds(600)
        case .ios7to12: .seconds(180)
        case .ios13plus: .seconds(30)
        }
    }
}
