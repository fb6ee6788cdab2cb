import SimKernel

// Android's lmkd and ActivityManager: their kill reasons and counters, declared once
// here (Memory/Vocabulary.swift lists every manager's). Android's kills are SIGKILL:
// no callback reaches the app. ApplicationExitInfo records lmkd's kills as
// REASON_LOW_MEMORY, and ActivityManager's trim as REASON_OTHER with
// SUBREASON_TOO_MANY_CACHED or SUBREASON_TRIM_EMPTY (OomAdjuster.updateAndTrimProcessLSP,
// its app.killLocked calls); none has an iOS counterpart.

extension KillReason {
    /// Android lmkd, PSI mode (lmkd.cpp kill reasons): LOW_MEM woken by a partial stall.
    public static var lmkdPsiPartial: KillReason { .init(counter: .killsPsiPartial, .android, notices: false, losesPlace: true,
        metricKit: .notReported, exitInfo: .lowMemory) }
    /// NOT_RESPONDING: a complete stall.
    public static var lmkdPsiComplete: KillReason { .init(counter: .killsPsiComplete, .android, notices: false, losesPlace: true,
        metricKit: .notReported, exitInfo: .lowMemory) }
    /// LOW_MEM_AND_THRASHING.
    public static var lmkdThrashing: KillReason { .init(counter: .killsThrashing, .android, notices: false, losesPlace: true,
        metricKit: .notReported, exitInfo: .lowMemory) }
    /// LOW_SWAP_AND_THRASHING or LOW_MEM_AND_SWAP.
    public static var lmkdLowSwap: KillReason { .init(counter: .killsLowSwap, .android, notices: false, losesPlace: true,
        metricKit: .notReported, exitInfo: .lowMemory) }
    /// The legacy minfree levels.
    public static var lmkdMinfree: KillReason { .init(counter: .killsMinfree, .android, notices: false, losesPlace: true,
        metricKit: .notReported, exitInfo: .lowMemory) }
    /// ActivityManager's trim (OomAdjuster.updateAndTrimProcessLSP): the oldest cached
    /// process with activities or empty process beyond its limit, or an empty one
    /// unused for longer than the maximum empty time.
    public static var cachedCap: KillReason { .init(counter: .killsCachedCap, .android, notices: false, losesPlace: true,
        metricKit: .notReported, exitInfo: .other) }
    /// Android lmkd, PSI mode: PRESSURE_AFTER_KILL, a request still unmet right after
    /// a kill (lmkd.cpp:2896-2904; any adj by default).
    public static var lmkdPressureAfterKill: KillReason { .init(counter: .killsPressureAfterKill, .android, notices: false, losesPlace: true,
        metricKit: .notReported, exitInfo: .lowMemory) }
}

extension Counter {
    public static var swapIns: Counter { Counter(46) }
    public static var swapInLatencySumMicros: Counter { Counter(47) }
    public static var killsPsiPartial: Counter { Counter(48) }
    public static var killsPsiComplete: Counter { Counter(49) }
    public static var killsThrashing: Counter { Counter(50) }
    public static var killsLowSwap: Counter { Counter(51) }
    public static var killsMinfree: Counter { Counter(52) }
    public static var killsCachedCap: Counter { Counter(53) }
    public static var androidColdLaunches: Counter { Counter(54) }
    public static var androidWarmLaunches: Counter { Counter(55) }
    public static var androidHotLaunches: Counter { Counter(56) }
    public static var coldOverVitals: Counter { Counter(57) }
    public static var warmOverVitals: Counter { Counter(58) }
    public static var hotOverVitals: Counter { Counter(59) }
    public static var killsPressureAfterKill: Counter { Counter(67) }

}

/// Android's kill reasons and counter declarations, for Memory/Vocabulary.swift.
enum AndroidVocabulary {
    static let killReasons: [(KillReason, String)] = [
        (.lmkdPsiPartial, "lmkd-psi-partial"),
        (.lmkdPsiComplete, "lmkd-psi-complete"),
        (.lmkdThrashing, "lmkd-thrashing"),
        (.lmkdLowSwap, "lmkd-low-swap"),
        (.lmkdMinfree, "lmkd-minfree"),
        (.cachedCap, "cached-cap"),
        (.lmkdPressureAfterKill, "lmkd-pressure-after-kill"),
    ]
    static let counters: [Counter.Declaration] = [
        .init(.swapIns, "swap_ins", "Android: resumes of a cached app whose memory came back from zram"),
        .init(.swapInLatencySumMicros, "swap_in_latency_sum_us", "Android: time those swap-ins took, microseconds"),
        .init(.killsPsiPartial, "kills_psi_partial", "Android lmkd: low memory, woken by a partial (some) stall over the limit"),
        .init(.killsPsiComplete, "kills_psi_complete", "Android lmkd: complete (full) stall over the limit, device not responding"),
        .init(.killsThrashing, "kills_thrashing", "Android lmkd: low memory and thrashing (refaults over the limit)"),
        .init(.killsLowSwap, "kills_low_swap", "Android lmkd: zram nearly full, with low memory or thrashing"),
        .init(.killsMinfree, "kills_minfree", "Android lmkd, legacy minfree levels"),
        .init(.killsCachedCap, "kills_cached_cap", "Android ActivityManager: the oldest cached (with activities) or empty process beyond its limit, or an empty one unused too long"),
        .init(.androidColdLaunches, "android_cold_launches", "Android: launches that created the process without saved state"),
        .init(.androidWarmLaunches, "android_warm_launches", "Android: launches that re-created the process with saved state"),
        .init(.androidHotLaunches, "android_hot_launches", "Android: launches that brought a live process's activity to the front"),
        .init(.coldOverVitals, "cold_over_vitals", "Android: cold launches at or over the Vitals threshold (5 s)"),
        .init(.warmOverVitals, "warm_over_vitals", "Android: warm launches at or over the Vitals threshold (2 s)"),
        .init(.hotOverVitals, "hot_over_vitals", "Android: hot launches at or over the Vitals threshold (1.5 s)"),
        .init(.killsPressureAfterKill, "kills_pressure_after_kill", "Android lmkd: a request still unmet right after a kill (PRESSURE_AFTER_KILL, any adj)"),
    ]
}
