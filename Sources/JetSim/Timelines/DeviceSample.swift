import SimKernel

/// `--sample-devices FRACTION`: a deterministic subset of a trace's devices, chosen by
/// each device's id alone, so the same devices run for every policy, RAM size, seed,
/// shard and thread count, and a smaller fraction's devices are among a larger one's.
/// A device is kept when SplitMix64's output function of FNV-1a 64 of its id's bytes
/// is below FRACTION x 2^64 (the mix spreads ids that differ in one byte,
/// `dev00001` and `dev00002`, over the whole range). Nothing is scaled: the summary
/// counts the sample's devices, and its rates are per device and day as always.
public struct DeviceSample: Sendable, Equatable {
    /// The share of devices kept, in (0, 1].
    public let fraction: Double
    /// Kept when the mixed hash is below this; nil: every device (a fraction of 1).
    let threshold: UInt64?

    /// The rule as provenance records it.
    public static let rule = "a device is kept when SplitMix64.mix(FNV-1a 64 of its id's bytes) < fraction x 2^64"

    /// Nil unless `fraction` is in (0, 1].
    public init?(fraction: Double) {
        guard fraction > 0, fraction <= 1 else { return nil }
        self.fraction = fraction
        let t = fraction * 18_446_744_073_709_551_616.0  // 2^64
        threshold = t >= 18_446_744_073_709_551_616.0 ? nil : UInt64(t)
    }

    /// Whether the device whose id has these bytes is kept.
    public func keeps<C: Collection>(id bytes: C) -> Bool where C.Element == UInt8 {
        guard let threshold else { return true }
        return SplitMix64.mix(FNV1a.hash(bytes)) < threshold
    }
}
