import SimKernel

// XNU memorystatus's parameters (apple-oss-distributions/xnu; each key's source is on
// its schema entry, `Schema.xnuKnobs`, and in docs/sources.md). Each field's default is
// here, once, and its workload key writes it directly (Workload+XNU.swift), converting
// the file's units (s, ms/MiB, shares, MiB/s) to the device's. The plain model
// (`xnu_bands: false`) is XNU with its bands off: it reads the compressor's knobs here
// too. Android turns XNU's mechanisms off (`AndroidClass.apply`).

/// XNU's memory parameters of a device class (`os: ios`): bands, reaper, compressor
/// (its pool, rate, shortage, and decompression on a resume), pressure levels,
/// inactive limit, freezer and thaw.
public struct XNUParameters: Sendable, Equatable {
    /// Time in the aging band (20) after leaving the front, before the idle band:
    /// 10 s idle deferral / 5 (bsd/kern/kern_memorystatus.c).
    public var agingTime: SimTime = SimTime(seconds: 2)
    /// Apps in the dock band (30) when idle: the device's most-launched apps (0: none).
    public var dockSize: Int = 4
    /// The reaper: idle-band apps idle at least `reaperMinAge` are killed while
    /// available memory is below the reaper level (nil: XNU's fallback by RAM size),
    /// one sweep per `reaperInterval`.
    public var reaperAvailablePct: Double? = nil
    // The switches sit together after the optional (packed into its padding; the
    // device's size is bounded, StateBytesTests).
    /// Bands as XNU assigns them (aging, dock, assertions) and its kill triggers
    /// (idle band below the idle level, up through the bands below critical, checked
    /// whenever available memory falls). false: every idle app in one band and kills
    /// only when a launch needs room, down to the target (the plain model, the model
    /// before XNU's).
    public var bands: Bool = true
    /// The reaper (see `reaperAvailablePct`, `reaperMinAge`, `reaperInterval`).
    public var reaper: Bool = true
    /// The freezer (CONFIG_FREEZE, doc/vm/freezer.md, bsd/sys/kern_memorystatus_freeze.h).
    public var freezer: Bool = true
    /// Pressure levels from compressor occupancy and the warnings they send (xnu
    /// doc/vm/memorystatus_notify.md); false: warnings when a launch takes available
    /// memory below the warning level (the model before).
    public var pressureLevels: Bool = true
    /// Idle-band kills after pressure stays above normal for `sustainedWindow`.
    public var sustainedPressureKills: Bool = true
    /// Kills while the compressor is near its compressed-pages limit.
    public var compressorShortageKills: Bool = true
    /// The freezer's dynamic delay (see `freezerIdleDelay`).
    public var freezerDynamicDelay: Bool = false
    public var reaperMinAge: SimTime = SimTime(seconds: 300)
    public var reaperInterval: SimTime = SimTime(seconds: 300)
    /// The compressor pool's bound, % of RAM (physical, compressed KiB); a suspended
    /// app whose memory does not fit stays uncompressed.
    public var compressorPoolPct: Double = 100
    /// Pressure level thresholds, % of the memory not wired (RAM - OS reserve) left
    /// uncompressed: warning below `pressureWarningPct`, back to normal above
    /// `pressureWarningClearPct`; critical below `pressureCriticalPct`, back to warning
    /// above `pressureCriticalClearPct` (doc/vm/memorystatus_notify.md, embedded).
    public var pressureWarningPct: Double = 50
    public var pressureWarningClearPct: Double = 60
    public var pressureCriticalPct: Double = 30
    public var pressureCriticalClearPct: Double = 35
    /// Apps below this footprint get no pressure warning (VM_PRESSURE_MINIMUM_RSIZE).
    public var warningMinKB: Int64 = 6 * 1_024
    /// After notifying every eligible app, none again at that level for this long.
    public var warningResting: SimTime = SimTime(seconds: 25)
    /// Pressure above normal this long: sustained-pressure kills.
    public var sustainedWindow: SimTime = SimTime(seconds: 600)
    /// The per-app inactive (soft) limit, % of RAM: an app over it out of front dies
    /// as a high-water kill while available memory is below the warning level.
    public var inactiveLimitPct: Double = 30
    /// The compressor's compressed-pages limit, % of RAM of uncompressed memory (nil:
    /// XNU's, 200 % at <= 2 GiB, else 100 %), and the share of it that is a shortage.
    public var compressorPagesLimitPct: Double? = nil
    public var compressorShortagePct: Double = 98
    /// Per freezer day at most this many demotions of frozen apps thawed fewer than
    /// `freezeDemotionThaws` times.
    public var freezeDemotionsMax: Int = 2
    public var freezeDemotionThaws: Int = 5
    /// The freezer thread's throttle (bsd/kern/kern_memorystatus_freeze.c:2945-2954):
    /// after every run it may not run again for `freezerIdleDelay` (XNU's
    /// memorystatus_apps_idle_delay_time, memstat_idle_deferral_time_s 10 s,
    /// bsd/kern/kern_memorystatus.c:409, 2001) times a multiplier: FAST (1), or with
    /// the dynamic delay (watchOS only, kern_memorystatus_freeze.c:111-116) SLOW (30)
    /// after a run that froze nothing while apps are frozen (:119-120, 2947-2952).
    public var freezerIdleDelay: SimTime = SimTime(seconds: 10)
    /// Freeze only while available memory is below this (% of RAM).
    public var freezeAvailablePct: Double = 50
    /// ...and more than this many unfrozen suspended apps exist.
    public var freezeSuspendedThreshold: Int = 4
    /// At most this many frozen apps.
    public var freezeMaxProcesses: Int = 20
    /// An app smaller than this is not frozen.
    public var freezeMinKB: Int64 = 8 * 1_024
    /// Flash the freezer may write per day.
    public var freezeDailyKB: Int64 = 2_048 * 1_024
    /// Time to bring one MiB back from flash on a thaw. *Assumption*: 1 ms (flash
    /// reads of about 1 GB/s).
    public var thawPerMB: SimTime = SimTime(seconds: 1.0 / 1_000)
    /// Compression over time: each suspended app's memory goes into the compressor
    /// at this many uncompressed KiB per second, credited at whole seconds of the
    /// device clock (0: all of it at suspension, the model before). XNU has no rate;
    /// pages are compressed as vm_pageout_scan steals them from the inactive queue
    /// (Compression.swift). *Assumption*: 4 MiB/s.
    public var compressionKBPerS: Int64 = 4 * 1_024
    /// Time to decompress one MiB of compressed memory on a resume. *Assumption*:
    /// 0.5 ms (WKdm decompresses at about 2 GB/s).
    public var decompressPerMB: SimTime = SimTime(seconds: 0.5 / 1_000)
    /// The idle-band daemons' footprint when all are resident (0: none modelled; the
    /// reserve leaves them out) and each killed daemon's relaunch rate
    /// (IdleDaemons.swift). None by default (the model before); the one complete
    /// JetsamEvent report's 345 daemons and 22.7 % of RAM bound the plausible range
    /// (docs/evidence-reserve-and-wakes.md, section 1). *Assumption*: killed daemons
    /// stay dead (0 relaunches an hour).
    public var idleDaemonsKB: Int64 = 0
    public var idleDaemonRelaunchesPerHour: Double = 0
    // The 32-bit fields last, together (an even number: no padding).
    /// Share of a compressed app's memory decompressed before its first frame on a
    /// resume, in parts per million (the rest on demand). *Assumption*: 0.3.
    public var resumeTouchPPM: Int32 = 300_000
    /// A refreeze writes this share of the app's memory (what it dirtied since its
    /// thaw), in parts per million. *Assumption*: 0.3.
    public var refreezeDirtyPPM: Int32 = 300_000
    /// With the most frozen apps reached, the freezer still runs (refreezing) while
    /// at least this many apps are thawed with their state on flash.
    public var freezeRefreezeThawed: Int32 = 3
    /// A thaw brings back from flash only this share of the app's frozen memory (what
    /// it touches; the rest stays on flash, read on demand, xnu doc/vm/freezer.md:
    /// 62-64), in parts per million. *Assumption*: 0.2.
    public var thawTouchPPM: Int32 = 200_000
    /// The freezer's multipliers (see `freezerIdleDelay`).
    public var freezerFastMultiplier: Int32 = 1
    public var freezerSlowMultiplier: Int32 = 30
    /// How many idle-band daemons share `idleDaemonsKB` (the pool dies one at a time).
    public var idleDaemonCount: Int32 = 345
    /// (Padding: an even number of 32-bit fields.)
    var reserved: Int32 = 0

    /// Every field at its default.
    public init() {}

    /// XNU's reaper level fallback, % of RAM: 20 / 18 / 16 (<=3 / <=6 / >6 GB).
    @inline(__always) public static func reaperPct(ramKB: Int64) -> Double {
        let gb = Double(ramKB) / (1024 * 1024)
        return gb <= 3 ? 20 : gb <= 6 ? 18 : 16
    }

    /// XNU's compressed-pages limit on iOS, % of RAM: the pool (max_mem) times the
    /// pool multiplier, 2 at <= 2 GiB, else 1 (osfmk/vm/vm_compressor.c, vm_compressor_init).
    public static func compressorPagesLimitPct(ramKB: Int64) -> Double { ramKB <= 2 * 1_048_576 ? 200 : 100 }
}

/// XNU's levels in KiB on the device's RAM (`XNUThresholds` keeps them per reset).
extension DeviceParameters {
    @inline(__always) public var reaperKB: Int64 {
        Int64(Double(core.ramKB) * (xnu.reaperAvailablePct ?? XNUParameters.reaperPct(ramKB: core.ramKB)) / 100)
    }
    @inline(__always) public var freezeKB: Int64 { Int64(Double(core.ramKB) * xnu.freezeAvailablePct / 100) }
    @inline(__always) public var compressorPoolKB: Int64 { Int64(Double(core.ramKB) * xnu.compressorPoolPct / 100) }
    /// The pressure thresholds in KiB of uncompressed pageable memory.
    @inline(__always) public var pressureWarningKB: Int64 { Int64(Double(core.pageableKB) * xnu.pressureWarningPct / 100) }
    @inline(__always) public var pressureWarningClearKB: Int64 { Int64(Double(core.pageableKB) * xnu.pressureWarningClearPct / 100) }
    @inline(__always) public var pressureCriticalKB: Int64 { Int64(Double(core.pageableKB) * xnu.pressureCriticalPct / 100) }
    @inline(__always) public var pressureCriticalClearKB: Int64 { Int64(Double(core.pageableKB) * xnu.pressureCriticalClearPct / 100) }
    @inline(__always) public var inactiveLimitKB: Int64 { Int64(Double(core.ramKB) * xnu.inactiveLimitPct / 100) }
    /// The uncompressed KiB in the compressor above which it is short of space.
    @inline(__always) public var compressorShortageKB: Int64 {
        let limit = Double(core.ramKB) * (xnu.compressorPagesLimitPct ?? XNUParameters.compressorPagesLimitPct(ramKB: core.ramKB)) / 100
        return Int64(min(limit * xnu.compressorShortagePct / 100, 9e18))
    }
    /// What one second of compression turns `compressionKBPerS` KiB into (whole KiB).
    @inline(__always) public var compressionChunkPackedKB: Int64 {
        Int64((Double(xnu.compressionKBPerS) / max(1, core.suspendedCompressionRatio)).rounded())
    }
}
