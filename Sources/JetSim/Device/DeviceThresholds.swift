import SimKernel

// The device's core: the KiB thresholds its parameters derive, computed once a reset.
/// The KiB thresholds a device's parameters derive (each a share of RAM: a
/// floating-point product and a checked conversion per read), computed once when the
/// parameters are set, since the triggers read them after every memory change. Each
/// equals the `CoreParameters` property of the same name.
struct DeviceThresholds: Sendable {
    let warningKB, criticalKB, killTargetKB, appLimitKB: Int64

    /// From the core's knobs, and the per-app limit its memory manager sets
    /// (`DeviceParameters.appLimitKB`).
    init(_ p: CoreParameters, appLimitKB: Int64) {
        warningKB = p.warningKB; criticalKB = p.criticalKB; killTargetKB = p.killTargetKB; self.appLimitKB = appLimitKB
    }

    /// The idle level (the kill target), as `DeviceParameters.idleKB`.
    var idleKB: Int64 { killTargetKB }
}
