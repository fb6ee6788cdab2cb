import SimKernel

// The device's core: why an app was terminated, a closed set as in XNU. Each reason
// declares, beside its name, who decides it and how the app and the user meet it
// (`KillReason.Properties`): a reason added later says all of it where it is added, and
// nothing is inferred from its position in the list.

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
    /// ActivityManager's trim (OomAdjuster.updateAndTrimProcessLSP): the oldest cached
    /// process with activities or empty process beyond its limit, or an empty one
    /// unused for longer than the maximum empty time.
    case cachedCap
    /// Android lmkd, PSI mode: PRESSURE_AFTER_KILL, a request still unmet right after
    /// a kill (lmkd.cpp:2896-2904; any adj by default).
    case lmkdPressureAfterKill

    /// What a reason is, declared once per reason.
    public struct Properties: Sendable {
        /// The name in traces and counters (static: the table is plain data, read per
        /// kill without reference counting).
        public let name: StaticString
        /// Who decides it.
        public let decider: KillDecider
        /// Whether an app still executing code gets willTerminate before this kill
        /// (seed 000: the system calls applicationWillTerminate: for an app running in
        /// the background when it removes it). Kills for breaking a rule (an expired
        /// task, the watchdog, the memory limit) are crashes and send nothing;
        /// exits-on-suspend sends its willTerminate itself, before the kill; Android's
        /// kills are SIGKILL.
        public let noticesRunningApp: Bool
        /// Whether a later cold relaunch counts as losing the user's place when the app
        /// does not preserve its UI state: only kills the user did not ask for (and
        /// not exits-on-suspend, which the app chose, nor a shutdown).
        public let losesUserPlace: Bool

        @inlinable init(_ name: StaticString, _ decider: KillDecider, _ noticesRunningApp: Bool, _ losesUserPlace: Bool) {
            self.name = name
            self.decider = decider
            self.noticesRunningApp = noticesRunningApp
            self.losesUserPlace = losesUserPlace
        }
    }

    /// Each reason's properties: one row per reason, beside its name.
    @inlinable public var properties: Properties {
        switch self {
        //                                  name                            decider      notices  loses place
        case .memoryPressure:          .init("memory-pressure",              .memory,     true,    true)
        case .bgTaskExpired:           .init("bg-task-expired",              .lifecycle,  false,   true)
        case .watchdog:                .init("watchdog",                     .lifecycle,  false,   true)
        case .user:                    .init("user",                         .lifecycle,  true,    false)
        case .perProcessLimit:         .init("per-process-limit",            .memory,     false,   true)
        case .exitsOnSuspend:          .init("exits-on-suspend",             .lifecycle,  false,   false)
        case .powerOff:                .init("power-off",                    .lifecycle,  true,    false)
        case .idleExit:                .init("idle-exit",                    .xnu,        true,    true)
        case .longIdleExit:            .init("long-idle-exit",               .xnu,        true,    true)
        case .highWater:               .init("highwater",                    .xnu,        false,   true)
        case .sustainedPressure:       .init("sustained-pressure",           .xnu,        true,    true)
        case .compressorSpaceShortage: .init("vm-compressor-space-shortage", .xnu,        true,    true)
        case .lmkdPsiPartial:          .init("lmkd-psi-partial",             .android,    false,   true)
        case .lmkdPsiComplete:         .init("lmkd-psi-complete",            .android,    false,   true)
        case .lmkdThrashing:           .init("lmkd-thrashing",               .android,    false,   true)
        case .lmkdLowSwap:             .init("lmkd-low-swap",                .android,    false,   true)
        case .lmkdMinfree:             .init("lmkd-minfree",                 .android,    false,   true)
        case .cachedCap:               .init("cached-cap",                   .android,    false,   true)
        case .lmkdPressureAfterKill:   .init("lmkd-pressure-after-kill",     .android,    false,   true)
        }
    }

    public var name: String { properties.name.description }
    @inlinable public var noticesRunningApp: Bool { properties.noticesRunningApp }
    @inlinable public var losesUserPlace: Bool { properties.losesUserPlace }
}
