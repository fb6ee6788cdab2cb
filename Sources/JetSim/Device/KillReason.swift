import SimKernel

// The device's core: why an app was terminated. A kill reason is a plain value that
// declares everything about itself where it is declared: its name, who decides it, how
// the app and the user meet it, and the counter that counts it. The lifecycle's and the
// memory-neutral reasons are declared here; each memory manager declares its own in its
// folder (`extension KillReason` there), and Memory/Vocabulary.swift lists them all.

/// Who decides a termination.
public enum KillDecider: UInt8, Sendable {
    /// The lifecycle: the user, the system's rules for apps (watchdog, expired
    /// background task, exits-on-suspend), a shutdown. Every OS.
    case lifecycle
    /// A memory manager's reclaim, on any OS (the policy's victim when memory ran
    /// short; a per-app limit).
    case memory
    /// XNU's memorystatus.
    case xnu
    /// Android's lmkd or ActivityManager (SIGKILL: no callback).
    case android
}

/// The category under which MetricKit reports an exit on iOS (MXBackgroundExitData and
/// MXForegroundExitData, cumulative…ExitCount), so that jetsim's kills can be held
/// against an app's own field data. `notReported`: MetricKit counts no exit for it
/// (the user's swipe, a shutdown) or the kill has no iOS counterpart (Android's).
public enum MetricKitExit: UInt8, Sendable, CaseIterable {
    case notReported, normalAppExit, memoryResourceLimit, memoryPressure, appWatchdog, backgroundTaskAssertionTimeout

    /// Its summary CSV column: the kills under this category.
    public var column: String {
        switch self {
        case .notReported: "metrickit_not_reported"
        case .normalAppExit: "metrickit_normal_app_exit"
        case .memoryResourceLimit: "metrickit_memory_resource_limit"
        case .memoryPressure: "metrickit_memory_pressure"
        case .appWatchdog: "metrickit_app_watchdog"
        case .backgroundTaskAssertionTimeout: "metrickit_background_task_assertion_timeout"
        }
    }
}

/// The reason Android's ApplicationExitInfo records for an exit (`getReason()`, with
/// the constant's value), so that jetsim's kills can be held against an app's
/// `getHistoricalProcessExitReasons`. `notRecorded`: the kill has no Android
/// counterpart (XNU's, iOS's background-task rule) or nothing is recorded (a shutdown).
public enum ExitInfoReason: UInt8, Sendable, CaseIterable {
    case notRecorded, exitSelf, lowMemory, crash, anr, userRequested, other

    /// Its summary CSV column: the kills under this reason.
    public var column: String {
        switch self {
        case .notRecorded: "exitinfo_not_recorded"
        case .exitSelf: "exitinfo_exit_self"
        case .lowMemory: "exitinfo_low_memory"
        case .crash: "exitinfo_crash"
        case .anr: "exitinfo_anr"
        case .userRequested: "exitinfo_user_requested"
        case .other: "exitinfo_other"
        }
    }

    /// The constant's value in android.app.ApplicationExitInfo (REASON_EXIT_SELF 1,
    /// REASON_LOW_MEMORY 3, REASON_CRASH 4, REASON_ANR 6, REASON_USER_REQUESTED 10,
    /// REASON_OTHER 13); nil for `notRecorded`.
    public var code: Int? {
        switch self {
        case .notRecorded: nil
        case .exitSelf: 1
        case .lowMemory: 3
        case .crash: 4
        case .anr: 6
        case .userRequested: 10
        case .other: 13
        }
    }
}

/// Why an app was terminated: a closed set per OS, as in XNU. A plain value of five
/// bytes (passed per kill): its counter, who decides it, how the app and the user meet
/// it, and what field data shows for it. Its name, for traces, is beside it in its
/// vocabulary's list (`KillReason.named`, Memory/Vocabulary.swift).
public struct KillReason: Sendable, Hashable {
    /// The counter of this reason's kills: one per reason, and its identity (a test
    /// checks that no two reasons share one).
    public let counter: Counter
    /// Who decides it.
    public let decider: KillDecider
    @usableFromInline let effects: Effects
    /// What an app's MetricKit data shows for it on iOS.
    public let metricKit: MetricKitExit
    /// What ApplicationExitInfo records for it on Android.
    public let exitInfo: ExitInfoReason

    @usableFromInline struct Effects: OptionSet, Sendable, Hashable {
        @usableFromInline let rawValue: UInt8
        @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }
        @usableFromInline static let notices = Effects(rawValue: 1)
        @usableFromInline static let losesPlace = Effects(rawValue: 2)
        @usableFromInline static let clearsFileCache = Effects(rawValue: 4)
    }

    /// Whether an app still executing code gets willTerminate before this kill
    /// (seed 000: the system calls applicationWillTerminate: for an app running in
    /// the background when it removes it). Kills for breaking a rule (an expired
    /// task, the watchdog, the memory limit) are crashes and send nothing;
    /// exits-on-suspend sends its willTerminate itself, before the kill; Android's
    /// kills are SIGKILL.
    @inlinable public var noticesRunningApp: Bool { effects.contains(.notices) }
    /// Whether a later cold relaunch counts as losing the user's place when the app
    /// does not preserve its UI state: only kills the user did not ask for (and
    /// not exits-on-suspend, which the app chose, nor a shutdown).
    @inlinable public var losesUserPlace: Bool { effects.contains(.losesPlace) }
    /// Whether the kill drops the device's file cache as well (a shutdown), so that no
    /// later launch finds the app's files cached (`LaunchLatency`).
    @inlinable public var clearsFileCache: Bool { effects.contains(.clearsFileCache) }

    @inlinable init(counter: Counter, _ decider: KillDecider, notices: Bool, losesPlace: Bool,
                    clearsFileCache: Bool = false, metricKit: MetricKitExit, exitInfo: ExitInfoReason) {
        self.counter = counter
        self.decider = decider
        var e: Effects = []
        if notices { e.insert(.notices) }
        if losesPlace { e.insert(.losesPlace) }
        if clearsFileCache { e.insert(.clearsFileCache) }
        effects = e
        self.metricKit = metricKit
        self.exitInfo = exitInfo
    }

    @inlinable public static func == (a: KillReason, b: KillReason) -> Bool { a.counter == b.counter }
    public func hash(into h: inout Hasher) { h.combine(counter) }

    /// What a kill leaves in the app's record (`AppRuntime.lastKill`) for its next launch.
    @inlinable var mark: KillMark {
        var m: KillMark = .killed
        if losesUserPlace { m.insert(.losesUserPlace) }
        if clearsFileCache { m.insert(.clearsFileCache) }
        return m
    }
}

/// What the last kill of an app left for its next launch (`AppRuntime.lastKill`):
/// empty when it was not killed since its last launch.
public struct KillMark: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let killed = KillMark(rawValue: 1)
    public static let losesUserPlace = KillMark(rawValue: 2)
    public static let clearsFileCache = KillMark(rawValue: 4)
}

// The lifecycle's and the memory-neutral reasons (every OS). The field mappings:
// memory pressure is jetsam's category (MetricKit) and lmkd's low memory (Android); the
// per-app limit is MetricKit's memory resource limit and, on Android, the heap's
// OutOfMemoryError crash; the watchdog is MetricKit's app watchdog and Android's ANR;
// the expired background task is MetricKit's background task assertion timeout (no
// Android counterpart); the user's removal is not reported by MetricKit and is
// USER_REQUESTED on Android; exits-on-suspend exits on its own.
extension KillReason {
    /// Chosen by the eviction policy when memory ran short (jetsam).
    public static var memoryPressure: KillReason { .init(counter: .killsPressure, .memory, notices: true, losesPlace: true,
        metricKit: .memoryPressure, exitInfo: .lowMemory) }
    /// Its background task ran past the allowance with work unfinished (0x2182bad2).
    public static var bgTaskExpired: KillReason { .init(counter: .killsBgExpired, .lifecycle, notices: false, losesPlace: true,
        metricKit: .backgroundTaskAssertionTimeout, exitInfo: .notRecorded) }
    /// didEnterBackground did not return within its limit (0x8badf00d).
    public static var watchdog: KillReason { .init(counter: .killsWatchdog, .lifecycle, notices: false, losesPlace: true,
        metricKit: .appWatchdog, exitInfo: .anr) }
    /// The user removed it from the app switcher.
    public static var user: KillReason { .init(counter: .killsUser, .lifecycle, notices: true, losesPlace: false,
        metricKit: .notReported, exitInfo: .userRequested) }
    /// Its footprint exceeded the per-app limit while in front.
    public static var perProcessLimit: KillReason { .init(counter: .killsLimit, .memory, notices: false, losesPlace: true,
        metricKit: .memoryResourceLimit, exitInfo: .crash) }
    /// It opted out of backgrounding with UIApplicationExitsOnSuspend.
    public static var exitsOnSuspend: KillReason { .init(counter: .killsExitsOnSuspend, .lifecycle, notices: false, losesPlace: false,
        metricKit: .normalAppExit, exitInfo: .exitSelf) }
    /// The device was shut down (its file cache goes too).
    public static var powerOff: KillReason { .init(counter: .killsPowerOff, .lifecycle, notices: true, losesPlace: false, clearsFileCache: true,
        metricKit: .notReported, exitInfo: .notRecorded) }

    /// The core's reasons with their names, in counter order (Memory/Vocabulary.swift
    /// lists every reason).
    static let core: [(KillReason, String)] = [
        (.memoryPressure, "memory-pressure"), (.bgTaskExpired, "bg-task-expired"), (.watchdog, "watchdog"), (.user, "user"),
        (.perProcessLimit, "per-process-limit"), (.exitsOnSuspend, "exits-on-suspend"), (.powerOff, "power-off"),
    ]
}
