import SimKernel

/// One thing a device run counts: a slot of `DeviceMetrics`. Each counter is declared
/// once, by the layer that counts it: its slot (a static member of `Counter`) and its
/// `Declaration` beside it. The lifecycle's are here; the memory managers' are in
/// their folders (`XNUVocabulary`, `AndroidVocabulary`, `MemoryVocabulary`), and
/// Memory/Vocabulary.swift lists them all. The slot order is the CSV's and the shard
/// state's order, so a new counter takes the next free slot (`Counter.count`, a test
/// checks that the slots run 0..<count). Adding one: its slot and declaration in the
/// folder of the code that counts it, the increment, and its line in docs/columns.md (a
/// test checks that file); its column is appended to the summary (and per-device) CSV,
/// and shard states become version 2 (`ShardState`), so the goldens are recorded again.
public struct Counter: Hashable, Sendable, CustomStringConvertible {
    /// Its slot in `DeviceMetrics` (and its place in the CSV and the shard state).
    @usableFromInline let slot: UInt8
    @inlinable public var rawValue: Int { Int(slot) }
    @inlinable init(_ slot: UInt8) { self.slot = slot }
    public var description: String { declaration.name }

    /// What one counter is.
    public struct Declaration: Sendable {
        public let counter: Counter
        /// Its name in the shard state file.
        public let name: String
        /// Its summary (and per-device) CSV column.
        public let column: String
        /// Whether the per-device CSV shows it.
        public let perDevice: Bool
        /// The save strategy whose lost edits it counts (`DeviceMetrics.countLoss`).
        public let loss: SaveStrategy?
        /// What it counts (docs/columns.md is the reference text).
        public let meaning: String

        init(_ counter: Counter, _ name: String, column: String? = nil, perDevice: Bool = false,
             loss: SaveStrategy? = nil, _ meaning: String) {
            self.counter = counter
            self.name = name
            self.column = column ?? name
            self.perDevice = perDevice
            self.loss = loss
            self.meaning = meaning
        }
    }
}

// The lifecycle's counters (every OS).
extension Counter {
    public static var launches: Counter { Counter(0) }
    public static var relaunches: Counter { Counter(1) }
    public static var coldRelaunches: Counter { Counter(2) }
    public static var warmRelaunches: Counter { Counter(3) }
    public static var hotRelaunches: Counter { Counter(4) }
    public static var launchFailures: Counter { Counter(5) }
    public static var relaunchLatencySumMicros: Counter { Counter(6) }
    public static var killsPressure: Counter { Counter(7) }
    public static var killsBgExpired: Counter { Counter(8) }
    public static var killsWatchdog: Counter { Counter(9) }
    public static var killsUser: Counter { Counter(10) }
    public static var killsLimit: Counter { Counter(11) }
    public static var killsExitsOnSuspend: Counter { Counter(12) }
    public static var killsPowerOff: Counter { Counter(13) }
    public static var foregroundKills: Counter { Counter(14) }
    public static var dataLossEvents: Counter { Counter(15) }
    public static var dataLossUnits: Counter { Counter(16) }
    public static var lossOnResignActive: Counter { Counter(17) }
    public static var lossOnEnterBackground: Counter { Counter(18) }
    public static var lossOnTerminate: Counter { Counter(19) }
    public static var lossPeriodic: Counter { Counter(20) }
    public static var lossNever: Counter { Counter(21) }
    public static var stateLossEvents: Counter { Counter(22) }
    public static var coalescedReceived: Counter { Counter(24) }
    public static var coalescedDelivered: Counter { Counter(25) }
    public static var coalescedDropped: Counter { Counter(26) }
    public static var immediateDeliveries: Counter { Counter(27) }
    public static var savesCompleted: Counter { Counter(28) }
    public static var savesAbandoned: Counter { Counter(29) }
    public static var decompressedRelaunches: Counter { Counter(32) }
    public static var thawedRelaunches: Counter { Counter(33) }
    public static var decompressedKB: Counter { Counter(36) }
    public static var bgExpiryEnded: Counter { Counter(60) }
    public static var cachedRelaunches: Counter { Counter(61) }
    public static var systemLaunches: Counter { Counter(62) }
    public static var systemWakes: Counter { Counter(63) }
    public static var prewarms: Counter { Counter(64) }
    public static var prewarmedLaunches: Counter { Counter(65) }
    public static var prewarmsKilled: Counter { Counter(66) }


    /// Their declarations.
    static let core: [Declaration] = [
        .init(.launches, "launches", perDevice: true, "apps brought to the front that were not already there"),
        .init(.relaunches, "relaunches", perDevice: true, "launches of an app this device had launched before"),
        .init(.coldRelaunches, "cold_relaunches", perDevice: true, "relaunches that had to create the process"),
        .init(.warmRelaunches, "warm_relaunches", perDevice: true, "relaunches from suspended"),
        .init(.hotRelaunches, "hot_relaunches", perDevice: true, "relaunches from still running in the background"),
        .init(.launchFailures, "launch_failures", "launches that ended in a kill before the app became active"),
        .init(.relaunchLatencySumMicros, "relaunch_latency_sum_us", "sum of relaunch latencies, microseconds (shown as relaunch_mean_ms)"),
        .init(.killsPressure, "kills_pressure", perDevice: true, "chosen by the policy when memory ran short"),
        .init(.killsBgExpired, "kills_bg_expired", perDevice: true, "background task ran past its allowance"),
        .init(.killsWatchdog, "kills_watchdog", perDevice: true, "didEnterBackground did not return within its limit"),
        .init(.killsUser, "kills_user", perDevice: true, "removed by the user in the app switcher"),
        .init(.killsLimit, "kills_limit", perDevice: true, "exceeded the per-app memory limit"),
        .init(.killsExitsOnSuspend, "kills_exits_on_suspend", "opted out of backgrounding"),
        .init(.killsPowerOff, "kills_power_off", "the device was shut down"),
        .init(.foregroundKills, "kills_foreground", "memory-pressure kills of the app in front"),
        .init(.dataLossEvents, "data_loss_events", perDevice: true, "kills of an app that held unsaved work"),
        .init(.dataLossUnits, "data_loss_units", perDevice: true, "unsaved edits lost"),
        .init(.lossOnResignActive, "loss_on_resign_active", column: "data_loss_units_on_resign_active", loss: .onResignActive, "edits lost by apps saving on resign-active"),
        .init(.lossOnEnterBackground, "loss_on_enter_background", column: "data_loss_units_on_enter_background", loss: .onEnterBackground, "edits lost by apps saving on enter-background"),
        .init(.lossOnTerminate, "loss_on_terminate", column: "data_loss_units_on_terminate", loss: .onTerminate, "edits lost by apps saving on terminate"),
        .init(.lossPeriodic, "loss_periodic", column: "data_loss_units_periodic", loss: .periodic, "edits lost by apps saving periodically"),
        .init(.lossNever, "loss_never", column: "data_loss_units_never", loss: .never, "edits lost by apps that never save"),
        .init(.stateLossEvents, "state_loss_events", perDevice: true, "cold relaunches that lost the user's place"),
        .init(.coalescedReceived, "coalesced_received", "system events held for a suspended app"),
        .init(.coalescedDelivered, "coalesced_delivered", "deliveries of held events on resume (one per kind)"),
        .init(.coalescedDropped, "coalesced_dropped", "held events dropped because their app was killed"),
        .init(.immediateDeliveries, "immediate_deliveries", "system events delivered at once to running apps"),
        .init(.savesCompleted, "saves_completed", "saves that finished"),
        .init(.savesAbandoned, "saves_abandoned", "saves cut off by a suspension or kill"),
        .init(.decompressedRelaunches, "decompressed_relaunches", "warm relaunches whose memory came back from the compressor"),
        .init(.thawedRelaunches, "thawed_relaunches", "warm relaunches of a frozen app (pages from flash)"),
        .init(.decompressedKB, "decompressed_kb", "KiB decompressed on resumes"),
        .init(.bgExpiryEnded, "bg_expiry_ended", "background tasks past their allowance whose expiration handler ended them (the app is suspended, not killed)"),
        .init(.cachedRelaunches, "cached_relaunches", "cold relaunches within page_cache_window_s of a kill: files still cached, faster (Apple's warm launch; included in cold_relaunches)"),
        .init(.systemLaunches, "system_launches", "apps the system launched into the background (location, voip push, silent push, background refresh)"),
        .init(.systemWakes, "system_wakes", "suspended apps the system woke into the background for the same reasons"),
        .init(.prewarms, "prewarms", "iOS 15 prewarms: not-running apps the system created and stopped before main (no delegate message)"),
        .init(.prewarmedLaunches, "prewarmed_launches", "user launches of a prewarmed app: didFinishLaunching then, cold minus the pre-main part (included in launches, and in cold_relaunches when a relaunch)"),
        .init(.prewarmsKilled, "prewarms_killed", "prewarmed apps terminated before any launch used them (silently: wasted prewarms; included in the kill columns)"),
    ]

    /// The counter of each save strategy's lost edits (indexed by its raw value).
    @inlinable static func ofLoss(_ s: SaveStrategy) -> Counter {
        switch s {
        case .onResignActive: .lossOnResignActive
        case .onEnterBackground: .lossOnEnterBackground
        case .onTerminate: .lossOnTerminate
        case .periodic: .lossPeriodic
        case .never: .lossNever
        }
    }
}

/// What one device run measured: one integer per `Counter`, in fixed inline storage.
/// Integers only, so per-device results add up exactly, in any order, into fleet
/// results. Read and count with `metrics[.coldRelaunches] += 1`.
public struct DeviceMetrics: Sendable, Equatable {
    /// Room for the counters (a test checks it holds every `Counter`; raise it when
    /// it says so). Slots past `Counter.count` stay 0. Kept close to the number of
    /// counters: the device copies this storage, so each slot costs time
    /// (docs/performance.md). 80 holds issue 14's 67 counters and those since.
    public typealias Storage = InlineArray<80, Int>

    @usableFromInline var values = Storage(repeating: 0)

    public init() {}

    @inlinable public subscript(_ c: Counter) -> Int {
        get { values[c.rawValue] }
        set { values[c.rawValue] = newValue }
        _modify { yield &values[c.rawValue] }
    }

    /// Every slot (those past the last counter stay 0).
    public static func == (a: DeviceMetrics, b: DeviceMetrics) -> Bool {
        for i in 0..<Storage.count where a.values[i] != b.values[i] { return false }
        return true
    }

    /// Counts edits lost by an app with save strategy `s`.
    @inlinable public mutating func countLoss(_ units: Int, strategy s: SaveStrategy) {
        self[.dataLossEvents] += 1
        self[.dataLossUnits] = .saturatingSum(self[.dataLossUnits], units)
        self[Counter.ofLoss(s)] = .saturatingSum(self[Counter.ofLoss(s)], units)
    }

    /// Counts one kill.
    @inlinable public mutating func countKill(_ reason: KillReason) {
        self[reason.counter] += 1
    }


    /// Adds another device's (or shard's) counters, exactly, slot by slot (no
    /// allocation); a sum past Int.max stays at Int.max instead of trapping.
    @inlinable public mutating func add(_ o: DeviceMetrics) {
        for i in 0..<Storage.count { values[i] = .saturatingSum(values[i], o.values[i]) }
    }
}
