import SimKernel

/// The plain memory manager (`xnu_bands: false`, not Android): no bands (every idle app
/// in one band, 30 while executing in the background: `DeviceCore.plainBand`), no
/// triggers on falling memory, no reaper or freezer. Memory warnings when a launch takes
/// available memory below the warning level, and kills only when a launch needs room,
/// down to the kill target: the model before XNU's, kept as the ablation baseline. The
/// compressor runs if configured (`suspended_compression_ratio`), as on XNU, with XNU's
/// compressor keys.
struct PlainMemory<Policy: EvictionPolicy, Trace: TraceSink>: Compressing {
    typealias Core = DeviceCore<Policy, Trace>
    var compressor = Compressor()
    /// Memory warnings were sent and available memory has not recovered since.
    var warned = false

    static var keepsIdleOrder: Bool { false }

    mutating func configure(_ p: DeviceParameters) { compressor.configure(p) }

    mutating func reset(_ core: inout Core, runs: Bool) {
        compressor.reset()
        warned = false
    }

    mutating func reserve(apps n: Int) { compressor.compressing.reserveCapacity(n) }

    var stateBytes: Int { compressor.compressing.capacity * MemoryLayout<CompressingApp>.stride }

    /// Compression up to now.
    @inline(__always) mutating func timePassed(_ core: inout Core, _ now: SimTime) {
        if !compressor.compressing.isEmpty { advanceCompression(&core, now) }
    }

    @inline(__always) mutating func eventEnded(_ core: inout Core, _ s: inout Scheduler<DeviceEvent>) {}

    mutating func reclaimOnTimer(_ core: inout Core, _ kind: DeviceEvent.Kind, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger? {
        preconditionFailure("the plain model arms no timer of its own (\(kind))")
    }

    @inline(__always) mutating func appLaunching(_ core: inout Core, _ app: Int32, _ now: SimTime) -> Int32 { -1 }

    @inline(__always) mutating func appEnteredBackground(_ core: inout Core, _ app: Int32, _ now: SimTime,
                                                               _ s: inout Scheduler<DeviceEvent>) {}

    @inline(__always) mutating func reclaimAfterLeavingFront(_ core: inout Core, _ app: Int32,
                                                                   _ now: SimTime) -> ReclaimTrigger? { nil }

    /// Compressed if the compressor runs.
    @inline(__always) mutating func appSuspended(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        compressOnSuspend(&core, app, now)
    }

    @inline(__always) mutating func appResuming(_ core: inout Core, _ app: Int32, compressed: Bool, frozen: Bool,
                                                      _ now: SimTime) -> (swapIn: SimTime, compressedKB: Int64) {
        (.zero, leaveCompressor(&core, app, now))
    }

    @inline(__always) mutating func appExited(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        leaveCompressor(&core, app, now)
    }

    @inline(__always) mutating func appLaunched(_ core: inout Core, _ app: Int32, _ kind: LaunchKind, relaunch: Bool,
                                                      latency: SimTime) {}

    var marksKeptOnExit: MemoryFlags { [] }

    @inline(__always) mutating func reclaimAfterFall(_ core: inout Core, _ q: inout ReclaimSequence,
                                                           _ now: SimTime) -> ReclaimTrigger? { nil }

    @inline(__always) mutating func reclaimAfterChange(_ core: inout Core, _ q: inout ReclaimSequence,
                                                             _ now: SimTime) -> ReclaimTrigger? { nil }

    /// Room for a launch that needs `needKB` more: warnings below the warning level,
    /// then, below the critical level, the policy's victims until the launch fits
    /// above the kill target. One trigger a question (`ReclaimSequence`).
    @inline(__always) mutating func reclaimForRoom(_ core: inout Core, needKB: Int64, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger? {
        guard q.step == 0 else { return nil }
        q.step = 1
        warned = lowMemoryWarnings(&core, needKB: needKB, warned: warned, now)
        return core.availableKB - needKB < core.kb.criticalKB ? .untilAvailable(needKB + core.kb.killTargetKB) : nil
    }

    @inline(__always) mutating func startReclaim(_ core: inout Core, _ trigger: ReclaimTrigger) -> ReclaimCursor {
        ReclaimCursor()
    }

    @inline(__always) mutating func pickReclaimAction(_ core: inout Core, _ trigger: ReclaimTrigger,
                                                            _ c: inout ReclaimCursor, _ now: SimTime) -> ReclaimAction {
        switch trigger {
        case .untilAvailable(let target): core.victimUntilAvailable(target, .memoryPressure)
        case .app(let app, let reason): core.pickOneApp(app, reason, &c)
        case .xnu, .android: preconditionFailure("the plain model was asked for another manager's reclaim \(trigger)")
        }
    }

    @inline(__always) mutating func reclaimWillKill(_ core: inout Core, _ trigger: ReclaimTrigger, _ now: SimTime) {}

    mutating func reclaimSpare(_ core: inout Core, _ app: Int32) {
        preconditionFailure("the plain model spares no app")
    }

    mutating func reclaimOwnProcess(_ core: inout Core, _ now: SimTime) {
        preconditionFailure("the plain model has no process of its own")
    }

    @inline(__always) mutating func reclaimKilled(_ core: inout Core, _ trigger: ReclaimTrigger, _ reason: KillReason,
                                                        _ now: SimTime) {}

    @inline(__always) func band(_ core: Core, _ app: Int32, _ now: SimTime) -> UInt8 { core.plainBand(app) }

    @inline(__always) func onFlashKB(_ core: Core, _ app: Int32) -> Int64 { 0 }

    @inline(__always) func suspendedPlainKB(_ core: Core, _ app: Int32) -> Int64 {
        core.profiles[core.pi(app)].suspendedKB
    }

    /// The decompression whenever the compressor runs (the model before XNU's).
    @inline(__always) func resumeLatency(_ core: Core, _ app: Int32, _ kind: LaunchKind, compressed: Bool,
                                               compressedKB: Int64?, swapIn: SimTime) -> SimTime {
        warmLatency(core, core.pi(app), compressedKB: compressedKB ?? suspendedPlainKB(core, app))
    }

    @inline(__always) func suspendedLaunchCost(_ core: Core, _ app: Int32) -> SimTime {
        warmLatency(core, core.pi(app), compressedKB: suspendedPlainKB(core, app))
    }

    @inline(__always) mutating func removeCandidate(_ core: inout Core, _ app: Int32) {
        core.removeCandidate(app, keepsIdleOrder: Self.keepsIdleOrder)
    }

    @inline(__always) func prewarms(_ p: CoreParameters) -> Bool { p.prewarming }

    var residentOutsideAppsKB: Int64 { 0 }

    mutating func compressorChanged(_ core: inout Core, _ now: SimTime) {}

    @inline(__always) mutating func compressionFinished(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        refreshCandidateIfBandMoved(&core, app, now)
    }

    func checkInvariant(_ core: Core) {
        checkCompressorInvariant(core, frozenCount: 0)
    }
}
