import SimKernel

/// One cell of a run: a policy at a RAM size (nil: each device class's own RAM).
public struct Cell: Sendable, Hashable {
    public var policy: PolicyName
    public var ramKB: Int64?
    public init(policy: PolicyName, ramKB: Int64?) {
        self.policy = policy
        self.ramKB = ramKB
    }
}

/// Everything a cell accumulates over its devices: integer sums only (and integer
/// histogram buckets), so adding devices in any order, on any number of threads or
/// shards, gives exactly the same state, and the same CSV bytes.
public struct CellAccumulator: Sendable, Equatable {
    public var devices = 0
    public var launches = 0
    public var relaunches = 0
    public var coldRelaunches = 0
    public var warmRelaunches = 0
    public var hotRelaunches = 0
    public var launchFailures = 0
    public var relaunchLatencySumMicros: Int64 = 0
    public var killsPressure = 0
    public var killsBgExpired = 0
    public var killsWatchdog = 0
    public var killsUser = 0
    public var killsLimit = 0
    public var killsExitsOnSuspend = 0
    public var killsPowerOff = 0
    public var foregroundKills = 0
    public var dataLossEvents = 0
    public var dataLossUnits = 0
    public var stateLossEvents = 0
    public var memoryWarnings = 0
    public var coalescedReceived = 0
    public var coalescedDelivered = 0
    public var coalescedDropped = 0
    public var immediateDeliveries = 0
    public var savesCompleted = 0
    public var savesAbandoned = 0
    public var events = 0
    /// Sums over devices for the confidence intervals: relaunches², cold², cold·relaunches, loss units².
    public var sumRelaunchesSquared = 0
    public var sumColdSquared = 0
    public var sumColdTimesRelaunches = 0
    public var sumLossUnitsSquared = 0
    /// Lost edits by save strategy.
    public var lossOnResignActive = 0
    public var lossOnEnterBackground = 0
    public var lossOnTerminate = 0
    public var lossPeriodic = 0
    public var lossNever = 0
    public var latency = LatencyHistogram()

    public init() {}

    /// The integer fields, in a fixed order: for the state file and for merging.
    /// (The histogram is kept apart.)
    public var counters: [Int] {
        get {
            [devices, launches, relaunches, coldRelaunches, warmRelaunches, hotRelaunches, launchFailures,
             Int(relaunchLatencySumMicros), killsPressure, killsBgExpired, killsWatchdog, killsUser, killsLimit,
             killsExitsOnSuspend, killsPowerOff, foregroundKills, dataLossEvents, dataLossUnits, stateLossEvents,
             memoryWarnings, coalescedReceived, coalescedDelivered, coalescedDropped, immediateDeliveries,
             savesCompleted, savesAbandoned, events, sumRelaunchesSquared, sumColdSquared, sumColdTimesRelaunches,
             sumLossUnitsSquared, lossOnResignActive, lossOnEnterBackground, lossOnTerminate, lossPeriodic, lossNever]
        }
        set {
            precondition(newValue.count == Self.counterNames.count)
            var i = 0
            func next() -> Int { defer { i += 1 }; return newValue[i] }
            devices = next(); launches = next(); relaunches = next(); coldRelaunches = next()
            warmRelaunches = next(); hotRelaunches = next(); launchFailures = next()
            relaunchLatencySumMicros = Int64(next()); killsPressure = next(); killsBgExpired = next()
            killsWatchdog = next(); killsUser = next(); killsLimit = next(); killsExitsOnSuspend = next()
            killsPowerOff = next(); foregroundKills = next(); dataLossEvents = next(); dataLossUnits = next()
            stateLossEvents = next(); memoryWarnings = next(); coalescedReceived = next()
            coalescedDelivered = next(); coalescedDropped = next(); immediateDeliveries = next()
            savesCompleted = next(); savesAbandoned = next(); events = next(); sumRelaunchesSquared = next()
            sumColdSquared = next(); sumColdTimesRelaunches = next(); sumLossUnitsSquared = next()
            lossOnResignActive = next(); lossOnEnterBackground = next(); lossOnTerminate = next()
            lossPeriodic = next(); lossNever = next()
        }
    }

    /// Names of `counters`, for the state file.
    public static let counterNames = [
        "devices", "launches", "relaunches", "cold_relaunches", "warm_relaunches", "hot_relaunches",
        "launch_failures", "relaunch_latency_sum_us", "kills_pressure", "kills_bg_expired", "kills_watchdog",
        "kills_user", "kills_limit", "kills_exits_on_suspend", "kills_power_off", "kills_foreground",
        "data_loss_events", "data_loss_units", "state_loss_events", "memory_warnings", "coalesced_received",
        "coalesced_delivered", "coalesced_dropped", "immediate_deliveries", "saves_completed", "saves_abandoned",
        "events", "sum_relaunches_sq", "sum_cold_sq", "sum_cold_x_relaunches", "sum_loss_units_sq",
        "loss_on_resign_active", "loss_on_enter_background", "loss_on_terminate", "loss_periodic", "loss_never",
    ]

    /// Adds one device's results.
    public mutating func add(_ m: DeviceMetrics, events e: Int) {
        devices += 1
        launches += m.launches
        relaunches += m.relaunches
        coldRelaunches += m.coldRelaunches
        warmRelaunches += m.warmRelaunches
        hotRelaunches += m.hotRelaunches
        launchFailures += m.launchFailures
        relaunchLatencySumMicros += m.relaunchLatencySumMicros
        killsPressure += m.killsPressure
        killsBgExpired += m.killsBgExpired
        killsWatchdog += m.killsWatchdog
        killsUser += m.killsUser
        killsLimit += m.killsLimit
        killsExitsOnSuspend += m.killsExitsOnSuspend
        killsPowerOff += m.killsPowerOff
        foregroundKills += m.foregroundKills
        dataLossEvents += m.dataLossEvents
        dataLossUnits += m.dataLossUnits
        stateLossEvents += m.stateLossEvents
        memoryWarnings += m.memoryWarnings
        coalescedReceived += m.coalescedReceived
        coalescedDelivered += m.coalescedDelivered
        coalescedDropped += m.coalescedDropped
        immediateDeliveries += m.immediateDeliveries
        savesCompleted += m.savesCompleted
        savesAbandoned += m.savesAbandoned
        events += e
        sumRelaunchesSquared += m.relaunches * m.relaunches
        sumColdSquared += m.coldRelaunches * m.coldRelaunches
        sumColdTimesRelaunches += m.coldRelaunches * m.relaunches
        sumLossUnitsSquared += m.dataLossUnits * m.dataLossUnits
        lossOnResignActive += m.lossOnResignActive
        lossOnEnterBackground += m.lossOnEnterBackground
        lossOnTerminate += m.lossOnTerminate
        lossPeriodic += m.lossPeriodic
        lossNever += m.lossNever
    }

    /// Adds another accumulator (exact).
    public mutating func merge(_ o: CellAccumulator) {
        var mine = counters
        let theirs = o.counters
        for i in mine.indices { mine[i] += theirs[i] }
        counters = mine
        latency.merge(o.latency)
    }

    public var totalKills: Int {
        killsPressure + killsBgExpired + killsWatchdog + killsUser + killsLimit + killsExitsOnSuspend + killsPowerOff
    }
}
