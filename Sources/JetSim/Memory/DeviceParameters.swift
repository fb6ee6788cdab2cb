import SimKernel

/// A device class's parameters: the device's own knobs (`core`: memory, thresholds, the
/// system's time limits, read by the core and the lifecycle) and each memory manager's
/// (`xnu`, `android`, `fleet`), which the device hands its managers (`MemoryManager`).
/// The core's knobs read as the parameters' own (`params.ramKB`). Defaults and their
/// sources are on each knob (`CoreParameters`, `XNUParameters`, `AndroidParameters`,
/// `FleetParameters`) and in docs/sources.md.
@dynamicMemberLookup
public struct DeviceParameters: Sendable, Equatable {
    /// The device's own knobs.
    public var core: CoreParameters
    /// XNU memorystatus's knobs (bands, reaper, compressor, pressure levels, inactive
    /// limit, freezer, thaw: Memory/XNU/XNUParameters.swift), set by the device class.
    public var xnu = XNUParameters()
    /// Android's lmkd, zram and ActivityManager (`os: android`; Memory/Android/).
    public var android = AndroidParameters()
    /// Fleet's changes to Android's (`os: fleet`; Memory/Fleet/).
    public var fleet = FleetParameters()

    public init(
        ramKB: Int64 = 4 * 1024 * 1024, osReserveKB: Int64? = nil,
        warningAvailablePct: Double? = nil, criticalAvailablePct: Double? = nil,
        killTargetAvailablePct: Double? = nil, perAppLimitPct: Double = 54,
        memoryWarningFreeShare: Double = 0.5, suspendedCompressionRatio: Double = 2,
        launchJitterSigma: Double = 0.25,
        backgroundGrace: SimTime = .seconds(10), enterBackgroundLimit: SimTime = .seconds(5),
        willTerminateLimit: SimTime = .seconds(5),
        bgTaskAllowance: SimTime = BackgroundTimePreset.ios13plus.allowance
    ) {
        core = CoreParameters(ramKB: ramKB, osReserveKB: osReserveKB, warningAvailablePct: warningAvailablePct,
                              criticalAvailablePct: criticalAvailablePct, killTargetAvailablePct: killTargetAvailablePct,
                              perAppLimitPct: perAppLimitPct, memoryWarningFreeShare: memoryWarningFreeShare,
                              suspendedCompressionRatio: suspendedCompressionRatio, launchJitterSigma: launchJitterSigma,
                              backgroundGrace: backgroundGrace, enterBackgroundLimit: enterBackgroundLimit,
                              willTerminateLimit: willTerminateLimit, bgTaskAllowance: bgTaskAllowance)
    }

    init(core: CoreParameters, xnu: XNUParameters, android: AndroidParameters, fleet: FleetParameters) {
        self.core = core
        self.xnu = xnu
        self.android = android
        self.fleet = fleet
    }

    /// The model's defaults (a 4 GB device): each knob's one default, with its source
    /// beside it. A workload's device class starts from these (`DeviceClass`), so a
    /// test built on `DeviceParameters()` simulates the shipped device.
    public static let standard = DeviceParameters()

    /// The core's knobs, as the parameters' own.
    public subscript<V>(dynamicMember key: WritableKeyPath<CoreParameters, V>) -> V {
        get { core[keyPath: key] }
        set { core[keyPath: key] = newValue }
    }

    public subscript<V>(dynamicMember key: KeyPath<CoreParameters, V>) -> V { core[keyPath: key] }

    /// XNU's fallback thresholds (% of RAM available) for a RAM size (`CoreParameters`).
    public static func xnuThresholds(ramKB: Int64) -> (warning: Double, critical: Double, target: Double) {
        CoreParameters.xnuThresholds(ramKB: ramKB)
    }

    /// The default OS reserve for a RAM size (`CoreParameters`).
    public static func defaultOSReserveKB(ramKB: Int64) -> Int64 { CoreParameters.defaultOSReserveKB(ramKB: ramKB) }

    /// The core's KiB thresholds, with the per-app limit the manager sets.
    var thresholds: DeviceThresholds { DeviceThresholds(core, appLimitKB: appLimitKB) }
}
