import SimKernel

/// What one device run measured. Integers only, so per-device results add up
/// exactly, in any order, into fleet results.
public struct DeviceMetrics: Sendable, Equatable {
    /// Every launch (an app brought to the front that was not already there).
    public var launches = 0
    /// Launches of an app this device had launched before.
    public var relaunches = 0
    /// Relaunches by kind.
    public var coldRelaunches = 0
    public var warmRelaunches = 0
    public var hotRelaunches = 0
    /// Sum of relaunch latencies, in microseconds (the histogram holds their spread).
    public var relaunchLatencySumMicros: Int64 = 0
    /// Launches that ended in a kill before the app became active (per-process limit,
    /// or no memory even after every other app was killed).
    public var launchFailures = 0
    /// Kills by reason.
    public var killsPressure = 0
    public var killsBgExpired = 0
    public var killsWatchdog = 0
    public var killsUser = 0
    public var killsLimit = 0
    public var killsExitsOnSuspend = 0
    public var killsPowerOff = 0
    /// Memory-pressure kills of the foreground app (only when nothing else was left).
    public var foregroundKills = 0
    /// Kills of an app holding unsaved work, and the edits lost.
    public var dataLossEvents = 0
    public var dataLossUnits = 0
    /// Lost edits by the save strategy of the app that lost them.
    public var lossOnResignActive = 0
    public var lossOnEnterBackground = 0
    public var lossOnTerminate = 0
    public var lossPeriodic = 0
    public var lossNever = 0
    /// Cold relaunches that lost the user's place (app killed by the system, UI state
    /// not preserved).
    public var stateLossEvents = 0
    /// didReceiveMemoryWarning messages sent.
    public var memoryWarnings = 0
    /// Raw system events held for suspended apps; deliveries of held events (one per
    /// kind per resume); raw held events dropped because their app was killed.
    public var coalescedReceived = 0
    public var coalescedDelivered = 0
    public var coalescedDropped = 0
    /// System events delivered at once to running apps.
    public var immediateDeliveries = 0
    /// Saves completed, and saves lost to a suspension or kill before completing.
    public var savesCompleted = 0
    public var savesAbandoned = 0

    public init() {}

    /// Every kill, whatever the reason.
    public var totalKills: Int {
        killsPressure + killsBgExpired + killsWatchdog + killsUser + killsLimit + killsExitsOnSuspend + killsPowerOff
    }

    /// Counts edits lost by an app with save strategy `s`.
    @inlinable public mutating func countLoss(_ units: Int, strategy s: SaveStrategy) {
        dataLossEvents += 1
        dataLossUnits += units
        switch s {
        case .onResignActive: lossOnResignActive += units
        case .onEnterBackground: lossOnEnterBackground += units
        case .onTerminate: lossOnTerminate += units
        case .periodic: lossPeriodic += units
        case .never: lossNever += units
        }
    }

    /// Counts one kill.
    @inlinable public mutating func countKill(_ reason: KillReason) {
        switch reason {
        case .memoryPressure: killsPressure += 1
        case .bgTaskExpired: killsBgExpired += 1
        case .watchdog: killsWatchdog += 1
        case .user: killsUser += 1
        case .perProcessLimit: killsLimit += 1
        case .exitsOnSuspend: killsExitsOnSuspend += 1
        case .powerOff: killsPowerOff += 1
        }
    }

    /// Every counter, in a fixed order: how shard states store metrics, and how they
    /// add up (`add`). Names are in `counterNames`.
    public var counters: [Int] {
        get {
            [launches, relaunches, coldRelaunches, warmRelaunches, hotRelaunches, launchFailures,
             Int(relaunchLatencySumMicros), killsPressure, killsBgExpired, killsWatchdog, killsUser, killsLimit,
             killsExitsOnSuspend, killsPowerOff, foregroundKills, dataLossEvents, dataLossUnits,
             lossOnResignActive, lossOnEnterBackground, lossOnTerminate, lossPeriodic, lossNever,
             stateLossEvents, memoryWarnings, coalescedReceived, coalescedDelivered, coalescedDropped,
             immediateDeliveries, savesCompleted, savesAbandoned]
        }
        set {
            precondition(newValue.count == Self.counterNames.count)
            var i = 0
            func next() -> Int { defer { i += 1 }; return newValue[i] }
            launches = next(); relaunches = next(); coldRelaunches = next(); warmRelaunches = next()
            hotRelaunches = next(); launchFailures = next(); relaunchLatencySumMicros = Int64(next())
            killsPressure = next(); killsBgExpired = next(); killsWatchdog = next(); killsUser = next()
            killsLimit = next(); killsExitsOnSuspend = next(); killsPowerOff = next(); foregroundKills = next()
            dataLossEvents = next(); dataLossUnits = next(); lossOnResignActive = next()
            lossOnEnterBackground = next(); lossOnTerminate = next(); lossPeriodic = next(); lossNever = next()
            stateLossEvents = next(); memoryWarnings = next(); coalescedReceived = next()
            coalescedDelivered = next(); coalescedDropped = next(); immediateDeliveries = next()
            savesCompleted = next(); savesAbandoned = next()
        }
    }

    public static let counterNames = [
        "launches", "relaunches", "cold_relaunches", "warm_relaunches", "hot_relaunches", "launch_failures",
        "relaunch_latency_sum_us", "kills_pressure", "kills_bg_expired", "kills_watchdog", "kills_user",
        "kills_limit", "kills_exits_on_suspend", "kills_power_off", "kills_foreground", "data_loss_events",
        "data_loss_units", "loss_on_resign_active", "loss_on_enter_background", "loss_on_terminate",
        "loss_periodic", "loss_never", "state_loss_events", "memory_warnings", "coalesced_received",
        "coalesced_delivered", "coalesced_dropped", "immediate_deliveries", "saves_completed", "saves_abandoned",
    ]

    /// Adds another device's (or shard's) counters, exactly. Field by field (the
    /// same fields as `counters`; a test checks they agree), so it never allocates.
    public mutating func add(_ o: DeviceMetrics) {
        launches += o.launches
        relaunches += o.relaunches
        coldRelaunches += o.coldRelaunches
        warmRelaunches += o.warmRelaunches
        hotRelaunches += o.hotRelaunches
        launchFailures += o.launchFailures
        relaunchLatencySumMicros += o.relaunchLatencySumMicros
        killsPressure += o.killsPressure
        killsBgExpired += o.killsBgExpired
        killsWatchdog += o.killsWatchdog
        killsUser += o.killsUser
        killsLimit += o.killsLimit
        killsExitsOnSuspend += o.killsExitsOnSuspend
        killsPowerOff += o.killsPowerOff
        foregroundKills += o.foregroundKills
        dataLossEvents += o.dataLossEvents
        dataLossUnits += o.dataLossUnits
        lossOnResignActive += o.lossOnResignActive
        lossOnEnterBackground += o.lossOnEnterBackground
        lossOnTerminate += o.lossOnTerminate
        lossPeriodic += o.lossPeriodic
        lossNever += o.lossNever
        stateLossEvents += o.stateLossEvents
        memoryWarnings += o.memoryWarnings
        coalescedReceived += o.coalescedReceived
        coalescedDelivered += o.coalescedDelivered
        coalescedDropped += o.coalescedDropped
        immediateDeliveries += o.immediateDeliveries
        savesCompleted += o.savesCompleted
        savesAbandoned += o.savesAbandoned
    }
}
