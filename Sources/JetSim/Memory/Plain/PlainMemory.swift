import SimKernel

// The plain memory manager (`xnu_bands: false`, not Android): no bands (every idle app
// in one band, 30 while executing in the background: `plainBand`), no triggers on
// falling memory, no reaper or freezer. Memory warnings when a launch takes available
// memory below the warning level, and kills only when a launch needs room, down to the
// kill target: the model before XNU's, kept as the ablation baseline. The compressor
// runs if configured (`suspended_compression_ratio`), as on XNU.

extension Device {
    /// Room for a launch that needs `needKB` more: warnings below the warning level,
    /// then, below the critical level, the policy's victims until the launch fits
    /// above the kill target. One trigger a question (`ReclaimSequence`).
    mutating func plainRoomReclaim(needKB: Int64, _ step: inout UInt8, _ now: SimTime) -> ReclaimTrigger? {
        guard step == 0 else { return nil }
        step = 1
        lowMemoryWarnings(needKB: needKB, now)
        return core.availableKB - needKB < core.kb.criticalKB ? .untilAvailable(needKB + core.kb.killTargetKB) : nil
    }
}
