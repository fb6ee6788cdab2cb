import SimKernel

// XNU's manager: its KiB levels, computed once a reset (`DeviceThresholds.xnu`).
/// XNU's levels in KiB (each a share of RAM or of pageable memory: a floating-point
/// product and a checked conversion per read), computed once when the parameters are
/// set, since the triggers read them after every memory change. Each equals the
/// `DeviceParameters` property of the same name (Memory/XNU/XNUParameters.swift).
struct XNUThresholds: Sendable {
    let reaperKB, freezeKB, compressorPoolKB, inactiveLimitKB: Int64
    let pressureWarningKB, pressureWarningClearKB, pressureCriticalKB, pressureCriticalClearKB: Int64
    let compressionChunkPackedKB: Int64
    /// The largest pool (physical KiB) not short of space: the pool is short
    /// (`compressorInputKB(pool) > compressorShortageKB`) exactly when it holds more
    /// than this (`compressorShortPoolKB`), so the triggers compare integers instead
    /// of converting the pool to a Double and back at every change.
    let compressorShortPoolKB: Int64

    init(_ p: DeviceParameters) {
        reaperKB = p.reaperKB
        freezeKB = p.freezeKB; compressorPoolKB = p.compressorPoolKB; inactiveLimitKB = p.inactiveLimitKB
        pressureWarningKB = p.pressureWarningKB; pressureWarningClearKB = p.pressureWarningClearKB
        pressureCriticalKB = p.pressureCriticalKB; pressureCriticalClearKB = p.pressureCriticalClearKB
        compressionChunkPackedKB = p.compressionChunkPackedKB
        compressorShortPoolKB = Self.compressorShortPoolKB(p)
    }

    /// The largest pool `kb` >= 0 with `compressorInputKB(kb) <=
    /// compressorShortageKB` (-1 when even an empty pool is over it; `.max` when no
    /// pool is). The input is monotone in the pool (a product by a ratio >= 1, rounded,
    /// capped and truncated: each step keeps the order), so the pools over the level
    /// are exactly those above this one; found by bisection (64 steps, once a reset).
    static func compressorShortPoolKB(_ p: DeviceParameters) -> Int64 {
        let level = p.compressorShortageKB
        let input = { (kb: Int64) in compressorInputKB(kb, ratio: p.suspendedCompressionRatio) }
        if input(0) > level { return -1 }
        if input(.max) <= level { return .max }
        var lo: Int64 = 0, hi: Int64 = .max  // input(lo) <= level < input(hi)
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if input(mid) <= level { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// The uncompressed size of what a pool of `kb` KiB holds (its compressed pages) at
    /// a compression ratio.
    @inline(__always) static func compressorInputKB(_ kb: Int64, ratio: Double) -> Int64 {
        Int64(min(Double(kb) * max(1, ratio), 9e18))
    }
}
