/// The five states of an app (seed 004, Table 18.1).
///
/// | state | visible | receives events | executes code |
/// |---|---|---|---|
/// | not running | no | no | no |
/// | active | yes | yes | yes |
/// | inactive | mostly | no | yes |
/// | background | no | no | yes |
/// | suspended | no | no | no |
public enum AppState: UInt8, Sendable, CaseIterable {
    case notRunning, inactive, active, background, suspended

    /// The name used in traces and files.
    public var name: String {
        switch self {
        case .notRunning: "not-running"
        case .inactive: "inactive"
        case .active: "active"
        case .background: "background"
        case .suspended: "suspended"
        }
    }

    /// Whether the app executes code in this state (active, inactive, background).
    /// By a switch: written with `==` it stayed a call at every kill.
    @inlinable @inline(__always) public var executesCode: Bool {
        switch self {
        case .active, .inactive, .background: true
        case .suspended, .notRunning: false
        }
    }

    /// Whether the app's process exists and holds memory.
    @inlinable public var isResident: Bool { self != .notRunning }
}

/// The messages the system sends to an app's delegate, plus the expiration handler of
/// a background task.
public enum LifecycleMessage: UInt8, Sendable, CaseIterable {
    case didFinishLaunching, didBecomeActive, willResignActive, didEnterBackground
    case willEnterForeground, willTerminate, didReceiveMemoryWarning, expirationHandler

    public var name: String {
        switch self {
        case .didFinishLaunching: "didFinishLaunching"
        case .didBecomeActive: "didBecomeActive"
        case .willResignActive: "willResignActive"
        case .didEnterBackground: "didEnterBackground"
        case .willEnterForeground: "willEnterForeground"
        case .willTerminate: "willTerminate"
        case .didReceiveMemoryWarning: "didReceiveMemoryWarning"
        case .expirationHandler: "expirationHandler"
        }
    }
}

/// Why an app was terminated. A closed set, as in XNU.
public enum KillReason: UInt8, Sendable, CaseIterable {
    /// Chosen by the eviction policy when memory ran short (jetsam).
    case memoryPressure
    /// Its background task ran past the allowance with work unfinished (0x2182bad2).
    case bgTaskExpired
    /// didEnterBackground did not return within its limit (0x8badf00d).
    case watchdog
    /// The user removed it from the app switcher.
    case user
    /// Its footprint exceeded the per-app limit while in front.
    case perProcessLimit
    /// It opted out of backgrounding with UIApplicationExitsOnSuspend.
    case exitsOnSuspend
    /// The device was shut down.
    case powerOff
    /// Killed in the idle band (0) because available memory fell below the idle
    /// level (XNU kMemorystatusKilledIdleExit, "idle-exit").
    case idleExit
    /// Killed by the reaper: idle-band app idle for at least the reaper's minimum age
    /// while available memory was below the reaper level (XNU "long-idle-exit").
    case longIdleExit
    /// Killed over its soft (inactive) limit while available memory was below the
    /// soft-limit level (XNU JETSAM_REASON_MEMORY_HIGHWATER, doc/vm/memorystatus_kills.md).
    case highWater
    /// Killed in the idle band after pressure stayed above normal for the sustained
    /// window (XNU JETSAM_REASON_MEMORY_SUSTAINED_PRESSURE, kern_memorystatus_notify.c).
    case sustainedPressure
    /// Killed because the compressor neared its compressed-pages limit (XNU
    /// JETSAM_REASON_MEMORY_VMCOMPRESSOR_SPACE_SHORTAGE, osfmk/vm/vm_compressor.c).
    case compressorSpaceShortage
    /// Android lmkd, PSI mode (lmkd.cpp kill reasons): LOW_MEM woken by a partial
    /// stall; NOT_RESPONDING (complete stall); LOW_MEM_AND_THRASHING;
    /// LOW_SWAP_AND_THRASHING or LOW_MEM_AND_SWAP; and the legacy minfree levels.
    case lmkdPsiPartial, lmkdPsiComplete, lmkdThrashing, lmkdLowSwap, lmkdMinfree
    /// ActivityManager killed the oldest cached process beyond its cap.
    case cachedCap

    public var name: String {
        switch self {
        case .memoryPressure: "memory-pressure"
        case .bgTaskExpired: "bg-task-expired"
        case .watchdog: "watchdog"
        case .user: "user"
        case .perProcessLimit: "per-process-limit"
        case .exitsOnSuspend: "exits-on-suspend"
        case .powerOff: "power-off"
        case .idleExit: "idle-exit"
        case .longIdleExit: "long-idle-exit"
        case .highWater: "highwater"
        case .sustainedPressure: "sustained-pressure"
        case .compressorSpaceShortage: "vm-compressor-space-shortage"
        case .lmkdPsiPartial: "lmkd-psi-partial"
        case .lmkdPsiComplete: "lmkd-psi-complete"
        case .lmkdThrashing: "lmkd-thrashing"
        case .lmkdLowSwap: "lmkd-low-swap"
        case .lmkdMinfree: "lmkd-minfree"
        case .cachedCap: "cached-cap"
        }
    }

    /// Whether an app still executing code gets willTerminate before this kill
    /// (seed 000: the system calls applicationWillTerminate: for an app running in the
    /// background when it removes it). Kills for breaking a rule (an expired task, the
    /// watchdog, the memory limit) are crashes and send nothing; exits-on-suspend sends
    /// its willTerminate itself, before the kill.
    @inlinable public var noticesRunningApp: Bool {
        self == .memoryPressure || self == .user || self == .powerOff || self == .idleExit || self == .longIdleExit
            || self == .sustainedPressure || self == .compressorSpaceShortage
    }

    /// Whether a later cold relaunch counts as losing the user's place when the app
    /// does not preserve its UI state: only kills the user did not ask for.
    @inlinable public var losesUserPlace: Bool {
        self == .memoryPressure || self == .bgTaskExpired || self == .watchdog || self == .perProcessLimit
            || self == .idleExit || self == .longIdleExit || self == .highWater || self == .sustainedPressure
            || self == .compressorSpaceShortage || self.isAndroid
    }

    /// Kills by Android's lmkd or ActivityManager (SIGKILL: no callback).
    @inlinable public var isAndroid: Bool { rawValue >= KillReason.lmkdPsiPartial.rawValue }
}

/// When an app saves its unsaved work.
public enum SaveStrategy: UInt8, Sendable, CaseIterable {
    case onResignActive, onEnterBackground, onTerminate, periodic, never

    public var name: String {
        switch self {
        case .onResignActive: "on-resign-active"
        case .onEnterBackground: "on-enter-background"
        case .onTerminate: "on-terminate"
        case .periodic: "periodic"
        case .never: "never"
        }
    }

    public init?(name: String) {
        guard let s = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = s
    }
}

/// Background modes that keep an app executing in the background while their
/// activity lasts (seed 003).
public enum BackgroundMode: UInt8, Sendable, CaseIterable {
    case none, audio, location, voip

    public var name: String {
        switch self {
        case .none: "none"
        case .audio: "audio"
        case .location: "location"
        case .voip: "voip"
        }
    }

    public init?(name: String) {
        guard let m = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = m
    }
}

/// System events addressed to apps; held and coalesced per kind while an app is
/// suspended (seed 000), delivered at once to a running app.
public enum SystemEventKind: UInt8, Sendable, CaseIterable {
    case orientation, locale, notification, location, significantTimeChange

    /// The number of kinds: the fixed number of coalescing slots per app.
    public static let count = 5

    public var name: String {
        switch self {
        case .orientation: "orientation"
        case .locale: "locale"
        case .notification: "notification"
        case .location: "location"
        case .significantTimeChange: "significant-time-change"
        }
    }

    public init?(name: String) {
        guard let k = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = k
    }
}

/// Why the system launches an app into the background, or wakes it there (issue 14;
/// seed 000: "launched by the system if the app processes events in background or
/// monitors a significant location change"), and iOS 15's prewarming (`prewarm`).
public enum SystemWakeKind: UInt8, Sendable, CaseIterable {
    /// A significant location change (Core Location's significant-change service).
    case location
    /// A PushKit VoIP push (apps with the voip mode only).
    case voipPush
    /// A silent (content-available) remote notification.
    case silentPush
    /// Background app refresh (BGAppRefreshTask).
    case backgroundRefresh
    /// iOS 15 prewarming (Apple, "About the app launch sequence": "In iOS 15 and later,
    /// the system may, depending on device conditions, prewarm your app — launch
    /// nonrunning application processes to reduce the amount of time the user waits
    /// before the app is usable. Prewarming executes an app’s launch sequence up until,
    /// but not including, when main() calls UIApplicationMain(_:_:)."). Not a wake:
    /// the process is created and stops before main (`Device.prewarm`).
    case prewarm

    public var name: String {
        switch self {
        case .location: "location"
        case .voipPush: "voip-push"
        case .silentPush: "silent-push"
        case .backgroundRefresh: "background-refresh"
        case .prewarm: "prewarm"
        }
    }

    public init?(name: String) {
        guard let k = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = k
    }
}

/// How a launch found the app. jetsim's names, and Apple's and Android's terms for
/// each, are in docs/model.md ("Relaunch kinds"): Apple calls jetsim's `cached` a warm launch
/// and its `warm`, `hot` and `thaw` resumes.
public enum LaunchKind: UInt8, Sendable, CaseIterable {
    /// No process: created from scratch (didFinishLaunching).
    case cold
    /// Suspended in memory: thawed (and decompressed).
    case warm
    /// Still executing in the background.
    case hot
    /// Frozen: a resume whose pages come back from flash (XNU freezer, doc/vm/freezer.md).
    case thaw
    /// No process, but killed less than `page_cache_window_s` ago: created from
    /// scratch with its files still in the page cache, faster than cold (Apple's
    /// "warm launch", WWDC16 session 406: "launched and quit previously, and it's still
    /// sitting in the disk cache in the kernel").
    case cached

    public var name: String {
        switch self {
        case .cold: "cold"
        case .warm: "warm"
        case .hot: "hot"
        case .thaw: "thaw"
        case .cached: "cached"
        }
    }

    /// Whether the launch creates the process (didFinishLaunching). By a switch:
    /// written with `==` it stayed a call at every launch.
    @inlinable @inline(__always) public var createsProcess: Bool {
        switch self {
        case .cold, .cached: true
        case .warm, .thaw, .hot: false
        }
    }
}
