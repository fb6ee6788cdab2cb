import SimKernel

// XNU's memorystatus: its kill reasons and counters, declared once here
// (Memory/Vocabulary.swift lists every manager's). Every jetsam kill is MetricKit's memory
// pressure exit except highwater, a kill over the app's own (inactive) limit, which is
// its memory resource limit exit; none has an Android counterpart.

extension KillReason {
    /// Killed in the idle band (0) because available memory fell below the idle
    /// level (XNU kMemorystatusKilledIdleExit, "idle-exit").
    public static var idleExit: KillReason { .init(counter: .killsIdle, .xnu, notices: true, losesPlace: true,
        metricKit: .memoryPressure, exitInfo: .notRecorded) }
    /// Killed by the reaper: idle-band app idle for at least the reaper's minimum age
    /// while available memory was below the reaper level (XNU "long-idle-exit").
    public static var longIdleExit: KillReason { .init(counter: .killsReaper, .xnu, notices: true, losesPlace: true,
        metricKit: .memoryPressure, exitInfo: .notRecorded) }
    /// Killed over its soft (inactive) limit while available memory was below the
    /// soft-limit level (XNU JETSAM_REASON_MEMORY_HIGHWATER, doc/vm/memorystatus_kills.md).
    public static var highWater: KillReason { .init(counter: .killsHighWater, .xnu, notices: false, losesPlace: true,
        metricKit: .memoryResourceLimit, exitInfo: .notRecorded) }
    /// Killed in the idle band after pressure stayed above normal for the sustained
    /// window (XNU JETSAM_REASON_MEMORY_SUSTAINED_PRESSURE, kern_memorystatus_notify.c).
    public static var sustainedPressure: KillReason { .init(counter: .killsSustained, .xnu, notices: true, losesPlace: true,
        metricKit: .memoryPressure, exitInfo: .notRecorded) }
    /// Killed because the compressor neared its compressed-pages limit (XNU
    /// JETSAM_REASON_MEMORY_VMCOMPRESSOR_SPACE_SHORTAGE, osfmk/vm/vm_compressor.c).
    public static var compressorSpaceShortage: KillReason { .init(counter: .killsCompressor, .xnu, notices: true, losesPlace: true,
        metricKit: .memoryPressure, exitInfo: .notRecorded) }
}

extension Counter {
    public static var killsIdle: Counter { Counter(30) }
    public static var killsReaper: Counter { Counter(31) }
    public static var freezes: Counter { Counter(34) }
    public static var killsHighWater: Counter { Counter(39) }
    public static var killsSustained: Counter { Counter(40) }
    public static var killsCompressor: Counter { Counter(41) }
    public static var warningsAtWarning: Counter { Counter(42) }
    public static var warningsAtCritical: Counter { Counter(43) }
    public static var refreezes: Counter { Counter(44) }
    public static var freezerDemotions: Counter { Counter(45) }

}

/// XNU's kill reasons and counter declarations, for Memory/Vocabulary.swift.
enum XNUVocabulary {
    static let killReasons: [(KillReason, String)] = [
        (.idleExit, "idle-exit"),
        (.longIdleExit, "long-idle-exit"),
        (.highWater, "highwater"),
        (.sustainedPressure, "sustained-pressure"),
        (.compressorSpaceShortage, "vm-compressor-space-shortage"),
    ]
    static let counters: [Counter.Declaration] = [
        .init(.killsIdle, "kills_idle", "idle-band (0) kills below the idle level (XNU idle-exit)"),
        .init(.killsReaper, "kills_reaper", "reaper kills of long-idle apps below the reaper level (XNU long-idle-exit)"),
        .init(.freezes, "freezes", "apps the freezer wrote to flash"),
        .init(.killsHighWater, "kills_highwater", "over the inactive (soft) limit while available memory was below the soft-limit level (XNU highwater)"),
        .init(.killsSustained, "kills_sustained", "idle-band kills after pressure stayed above normal for the sustained window (XNU sustained-pressure)"),
        .init(.killsCompressor, "kills_compressor", "kills while the compressor was near its compressed-pages limit (XNU vm-compressor-space-shortage)"),
        .init(.warningsAtWarning, "memory_warnings_warning", "memory warnings sent at the warning pressure level (compressor occupancy)"),
        .init(.warningsAtCritical, "memory_warnings_critical", "memory warnings sent at the critical pressure level (compressor occupancy)"),
        .init(.refreezes, "refreezes", "freezes of a thawed app whose state was still on flash: only its dirty share written (included in freezes)"),
        .init(.freezerDemotions, "freezer_demotions", "apps with state on flash demoted from the frozen band (75) to the idle band (0), urgent-mode demotions of thawed apps included"),
    ]
}
