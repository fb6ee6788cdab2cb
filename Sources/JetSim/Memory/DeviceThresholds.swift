import SimKernel

// The device's core: the KiB thresholds its parameters derive, computed once a reset.
/// The KiB thresholds a device's parameters derive (each a share of RAM: a
/// floating-point product and a checked conversion per read), computed once when the
/// parameters are set, since the triggers read them after every memory change. Each
/// equals the `DeviceParameters` property of the same name.
struct DeviceThresholds: Sendable {
    let warningKB, criticalKB, killTargetKB, appLimitKB: Int64
    /// XNU's levels (`Memory/XNU/XNUThresholds.swift`), read only by its manager.
    let xnu: XNUThresholds

    init(_ p: DeviceParameters) {
        warningKB = p.warningKB; criticalKB = p.criticalKB; killTargetKB = p.killTargetKB; appLimitKB = p.appLimitKB
        xnu = XNUThresholds(p)
    }

    /// The idle level (the kill target), as `DeviceParameters.idleKB`.
    var idleKB: Int64 { killTargetKB }
}
