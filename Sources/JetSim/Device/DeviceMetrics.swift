import SimKernel

/// Everything a device run counts. Each counter is declared here once: its case (the
/// order is the shard state's order: append new counters at the end) and, in
/// `declaration`, its state name, CSV column, whether the per-device CSV shows it,
/// the kill reason or save strategy it counts, and its meaning. The device's storage
/// (`DeviceMetrics`), `add`, the cell accumulator, the summary and per-device CSVs and
/// the shard state derive from this table. Adding a counter: a case here (at the
/// end) with its declaration below, the increment in the model, and its line in
/// docs/columns.md (a test checks that file); its
/// column is appended to the summary (and per-device) CSV, and shard states become
/// version 2 (`ShardState`), so the golden outputs are recorded again.
public enum Counter: Int, CaseIterable, Sendable {
    case launches, relaunches, coldRelaunches, warmRelaunches, hotRelaunches, launchFailures
    case relaunchLatencySumMicros
    case killsPressure, killsBgExpired, killsWatchdog, killsUser, killsLimit, killsExitsOnSuspend, killsPowerOff
    case foregroundKills, dataLossEvents, dataLossUnits
    case lossOnResignActive, lossOnEnterBackground, lossOnTerminate, lossPeriodic, lossNever
    case stateLossEvents, memoryWarnings, coalescedReceived, coalescedDelivered, coalescedDropped
    case immediateDeliveries, savesCompleted, savesAbandoned
    case killsIdle, killsReaper, decompressedRelaunches, thawedRelaunches
    case freezes, flashWrittenKB, decompressedKB, compressorPeakKB, compressorKBSeconds
    case killsHighWater, killsSustained, killsCompressor, warningsAtWarning, warningsAtCritical
    case refreezes, freezerDemotions
    // Android (issue 13).
    case swapIns, swapInLatencySumMicros
    case killsPsiPartial, killsPsiComplete, killsThrashing, killsLowSwap, killsMinfree, killsCachedCap
    case androidColdLaunches, androidWarmLaunches, androidHotLaunches, coldOverVitals, warmOverVitals, hotOverVitals
    // Issue 14, lifecycle (kept in one block).
    case bgExpiryEnded, cachedRelaunches, systemLaunches, systemWakes
    // Issue 14, iOS 15 prewarming (kept in one block).
    case prewarms, prewarmedLaunches, prewarmsKilled
    // Issue 29, lmkd's pressure-after-kill reason.
    case killsPressureAfterKill

    /// What one counter is.
    public struct Declaration: Sendable {
        /// Its name in the shard state file.
        public let name: String
        /// Its summary (and per-device) CSV column.
        public let column: String
        /// Whether the per-device CSV shows it.
        public let perDevice: Bool
        /// The kill reason it counts (`DeviceMetrics.countKill`); `totalKills` adds these.
        public let kill: KillReason?
        /// The save strategy whose lost edits it counts (`DeviceMetrics.countLoss`).
        public let loss: SaveStrategy?
        /// What it counts (docs/columns.md is the reference text).
        public let meaning: String

        init(_ name: String, column: String? = nil, perDevice: Bool = false, kill: KillReason? = nil,
             loss: SaveStrategy? = nil, _ meaning: String) {
            self.name = name
            self.column = column ?? name
            self.perDevice = perDevice
            self.kill = kill
            self.loss = loss
            self.meaning = meaning
        }
    }

    public var declaration: Declaration {
        switch self {
        case .launches: .init("launches", perDevice: true, "apps brought to the front that were not already there")
        case .relaunches: .init("relaunches", perDevice: true, "launches of an app this device had launched before")
        case .coldRelaunches: .init("cold_relaunches", perDevice: true, "relaunches that had to create the process")
        case .warmRelaunches: .init("warm_relaunches", perDevice: true, "relaunches from suspended")
        case .hotRelaunches: .init("hot_relaunches", perDevice: true, "relaunches from still running in the background")
        case .launchFailures: .init("launch_failures", "launches that ended in a kill before the app became active")
        case .relaunchLatencySumMicros: .init("relaunch_latency_sum_us", "sum of relaunch latencies, microseconds (shown as relaunch_mean_ms)")
        case .killsPressure: .init("kills_pressure", perDevice: true, kill: .memoryPressure, "chosen by the policy when memory ran short")
        case .killsBgExpired: .init("kills_bg_expired", perDevice: true, kill: .bgTaskExpired, "background task ran past its allowance")
        case .killsWatchdog: .init("kills_watchdog", perDevice: true, kill: .watchdog, "didEnterBackground did not return within its limit")
        case .killsUser: .init("kills_user", perDevice: true, kill: .user, "removed by the user in the app switcher")
        case .killsLimit: .init("kills_limit", perDevice: true, kill: .perProcessLimit, "exceeded the per-app memory limit")
        case .killsExitsOnSuspend: .init("kills_exits_on_suspend", kill: .exitsOnSuspend, "opted out of backgrounding")
        case .killsPowerOff: .init("kills_power_off", kill: .powerOff, "the device was shut down")
        case .foregroundKills: .init("kills_foreground", "memory-pressure kills of the app in front")
        case .dataLossEvents: .init("data_loss_events", perDevice: true, "kills of an app that held unsaved work")
        case .dataLossUnits: .init("data_loss_units", perDevice: true, "unsaved edits lost")
        case .lossOnResignActive: .init("loss_on_resign_active", column: "data_loss_units_on_resign_active", loss: .onResignActive, "edits lost by apps saving on resign-active")
        case .lossOnEnterBackground: .init("loss_on_enter_background", column: "data_loss_units_on_enter_background", loss: .onEnterBackground, "edits lost by apps saving on enter-background")
        case .lossOnTerminate: .init("loss_on_terminate", column: "data_loss_units_on_terminate", loss: .onTerminate, "edits lost by apps saving on terminate")
        case .lossPeriodic: .init("loss_periodic", column: "data_loss_units_periodic", loss: .periodic, "edits lost by apps saving periodically")
        case .lossNever: .init("loss_never", column: "data_loss_units_never", loss: .never, "edits lost by apps that never save")
        case .stateLossEvents: .init("state_loss_events", perDevice: true, "cold relaunches that lost the user's place")
        case .memoryWarnings: .init("memory_warnings", perDevice: true, "didReceiveMemoryWarning messages sent")
        case .coalescedReceived: .init("coalesced_received", "system events held for a suspended app")
        case .coalescedDelivered: .init("coalesced_delivered", "deliveries of held events on resume (one per kind)")
        case .coalescedDropped: .init("coalesced_dropped", "held events dropped because their app was killed")
        case .immediateDeliveries: .init("immediate_deliveries", "system events delivered at once to running apps")
        case .savesCompleted: .init("saves_completed", "saves that finished")
        case .savesAbandoned: .init("saves_abandoned", "saves cut off by a suspension or kill")
        case .killsIdle: .init("kills_idle", kill: .idleExit, "idle-band (0) kills below the idle level (XNU idle-exit)")
        case .killsReaper: .init("kills_reaper", kill: .longIdleExit, "reaper kills of long-idle apps below the reaper level (XNU long-idle-exit)")
        case .decompressedRelaunches: .init("decompressed_relaunches", "warm relaunches whose memory came back from the compressor")
        case .thawedRelaunches: .init("thawed_relaunches", "warm relaunches of a frozen app (pages from flash)")
        case .freezes: .init("freezes", "apps the freezer wrote to flash")
        case .flashWrittenKB: .init("flash_written_kb", "KiB the freezer wrote to flash")
        case .decompressedKB: .init("decompressed_kb", "KiB decompressed on resumes")
        case .compressorPeakKB: .init("compressor_peak_kb", "each device's peak compressor pool (physical KiB), summed over devices")
        case .compressorKBSeconds: .init("compressor_kb_s", "compressor pool occupancy integrated over time, KiB x s (mean = this / (devices x duration))")
        case .killsHighWater: .init("kills_highwater", kill: .highWater, "over the inactive (soft) limit while available memory was below the soft-limit level (XNU highwater)")
        case .killsSustained: .init("kills_sustained", kill: .sustainedPressure, "idle-band kills after pressure stayed above normal for the sustained window (XNU sustained-pressure)")
        case .killsCompressor: .init("kills_compressor", kill: .compressorSpaceShortage, "kills while the compressor was near its compressed-pages limit (XNU vm-compressor-space-shortage)")
        case .warningsAtWarning: .init("memory_warnings_warning", "memory warnings sent at the warning pressure level (compressor occupancy)")
        case .warningsAtCritical: .init("memory_warnings_critical", "memory warnings sent at the critical pressure level (compressor occupancy)")
        case .refreezes: .init("refreezes", "freezes of a thawed app whose state was still on flash: only its dirty share written (included in freezes)")
        case .freezerDemotions: .init("freezer_demotions", "apps with state on flash demoted from the frozen band (75) to the idle band (0), urgent-mode demotions of thawed apps included")
        case .swapIns: .init("swap_ins", "Android: resumes of a cached app whose memory came back from zram")
        case .swapInLatencySumMicros: .init("swap_in_latency_sum_us", "Android: time those swap-ins took, microseconds")
        case .killsPsiPartial: .init("kills_psi_partial", kill: .lmkdPsiPartial, "Android lmkd: low memory, woken by a partial (some) stall over the limit")
        case .killsPsiComplete: .init("kills_psi_complete", kill: .lmkdPsiComplete, "Android lmkd: complete (full) stall over the limit, device not responding")
        case .killsThrashing: .init("kills_thrashing", kill: .lmkdThrashing, "Android lmkd: low memory and thrashing (refaults over the limit)")
        case .killsLowSwap: .init("kills_low_swap", kill: .lmkdLowSwap, "Android lmkd: zram nearly full, with low memory or thrashing")
        case .killsMinfree: .init("kills_minfree", kill: .lmkdMinfree, "Android lmkd, legacy minfree levels")
        case .killsCachedCap: .init("kills_cached_cap", kill: .cachedCap, "Android ActivityManager: the oldest cached (with activities) or empty process beyond its limit, or an empty one unused too long")
        case .androidColdLaunches: .init("android_cold_launches", "Android: launches that created the process without saved state")
        case .androidWarmLaunches: .init("android_warm_launches", "Android: launches that re-created the process with saved state")
        case .androidHotLaunches: .init("android_hot_launches", "Android: launches that brought a live process's activity to the front")
        case .coldOverVitals: .init("cold_over_vitals", "Android: cold launches at or over the Vitals threshold (5 s)")
        case .warmOverVitals: .init("warm_over_vitals", "Android: warm launches at or over the Vitals threshold (2 s)")
        case .hotOverVitals: .init("hot_over_vitals", "Android: hot launches at or over the Vitals threshold (1.5 s)")
        case .bgExpiryEnded: .init("bg_expiry_ended", "background tasks past their allowance whose expiration handler ended them (the app is suspended, not killed)")
        case .systemLaunches: .init("system_launches", "apps the system launched into the background (location, voip push, silent push, background refresh)")
        case .systemWakes: .init("system_wakes", "suspended apps the system woke into the background for the same reasons")
        case .prewarms: .init("prewarms", "iOS 15 prewarms: not-running apps the system created and stopped before main (no delegate message)")
        case .prewarmedLaunches: .init("prewarmed_launches", "user launches of a prewarmed app: didFinishLaunching then, cold minus the pre-main part (included in launches, and in cold_relaunches when a relaunch)")
        case .prewarmsKilled: .init("prewarms_killed", "prewarmed apps terminated before any launch used them (silently: wasted prewarms; included in the kill columns)")
        case .killsPressureAfterKill: .init("kills_pressure_after_kill", kill: .lmkdPressureAfterKill, "Android lmkd: a request still unmet right after a kill (PRESSURE_AFTER_KILL, any adj)")
        case .cachedRelaunches: .init("cached_relaunches", "cold relaunches within page_cache_window_s of a kill: files still cached, faster (Apple's warm launch; included in cold_relaunches)")
        }
    }

    /// The counter of a kill reason: the one whose declaration names it (a test checks
    /// every reason). By a switch: a table built from the declarations was a lazily
    /// initialised global, whose `swift_once` was a call at every kill.
    @inlinable public static func ofKill(_ r: KillReason) -> Counter {
        switch r {
        case .memoryPressure: .killsPressure
        case .bgTaskExpired: .killsBgExpired
        case .watchdog: .killsWatchdog
        case .user: .killsUser
        case .perProcessLimit: .killsLimit
        case .exitsOnSuspend: .killsExitsOnSuspend
        case .powerOff: .killsPowerOff
        case .idleExit: .killsIdle
        case .longIdleExit: .killsReaper
        case .highWater: .killsHighWater
        case .sustainedPressure: .killsSustained
        case .compressorSpaceShortage: .killsCompressor
        case .lmkdPsiPartial: .killsPsiPartial
        case .lmkdPsiComplete: .killsPsiComplete
        case .lmkdThrashing: .killsThrashing
        case .lmkdLowSwap: .killsLowSwap
        case .lmkdMinfree: .killsMinfree
        case .cachedCap: .killsCachedCap
        case .lmkdPressureAfterKill: .killsPressureAfterKill
        }
    }

    /// The counter of each save strategy's lost edits (indexed by its raw value).
    public static let forLoss: [Counter] = SaveStrategy.allCases.map { s in
        guard let c = allCases.first(where: { $0.declaration.loss == s }) else { fatalError("no counter declares save strategy \(s)") }
        return c
    }

    /// The counters of kill reasons: `totalKills` adds them.
    public static let kills: [Counter] = allCases.filter { $0.declaration.kill != nil }

    /// State names, in order.
    public static let names: [String] = allCases.map(\.declaration.name)

    /// How many counters there are.
    public static let count = allCases.count
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

    public static func == (a: DeviceMetrics, b: DeviceMetrics) -> Bool {
        for i in 0..<Counter.count where a.values[i] != b.values[i] { return false }
        return true
    }

    /// Every kill, whatever the reason.
    public var totalKills: Int {
        var n = 0
        for c in Counter.kills { n += self[c] }
        return n
    }

    /// Counts edits lost by an app with save strategy `s`.
    @inlinable public mutating func countLoss(_ units: Int, strategy s: SaveStrategy) {
        self[.dataLossEvents] += 1
        self[.dataLossUnits] = .saturatingSum(self[.dataLossUnits], units)
        self[Counter.forLoss[Int(s.rawValue)]] = .saturatingSum(self[Counter.forLoss[Int(s.rawValue)]], units)
    }

    /// Counts one kill.
    @inlinable public mutating func countKill(_ reason: KillReason) {
        self[Counter.ofKill(reason)] += 1
    }

    /// Every counter, in `Counter` order: how shard states store metrics.
    public var counters: [Int] {
        get { (0..<Counter.count).map { values[$0] } }
        set {
            precondition(newValue.count == Counter.count)
            for i in 0..<Counter.count { values[i] = newValue[i] }
        }
    }

    /// Adds another device's (or shard's) counters, exactly, slot by slot (no
    /// allocation); a sum past Int.max stays at Int.max instead of trapping.
    @inlinable public mutating func add(_ o: DeviceMetrics) {
        for i in 0..<Counter.count { values[i] = .saturatingSum(values[i], o.values[i]) }
    }
}
