import SimKernel

/// The plain memory manager (`xnu_bands: false`, not Android): no bands (every idle app
/// in one band, 30 while executing in the background: `DeviceCore.plainBand`), no
/// triggers on falling memory, no reaper or freezer. Memory warnings when a launch takes
/// available memory below the warning level, and kills only when a launch needs room,
/// down to the kill target: the model before XNU's, kept as the ablation baseline. The
/// compressor runs if configured (`suspended_compression_ratio`), as on XNU, with XNU's
/// compressor keys.
struct PlainMemory: Compressing {
    var compressor = Compressor()
    /// Memory warnings were sent and available memory has not recovered since.
    var warned = false

    static var keepsIdleOrder: Bool { false }

    mutating func configure(_ p: DeviceParameters) { compressor.configure(p) }

    mutating func reset<P, T>(_ core: inout DeviceCore<P, T>, runs: Bool) {
        compressor.reset()
        warned = false
    }

    mutating func reserve(apps n: Int) { compressor.compressing.reserveCapacity(n) }

    var stateBytes: Int { compressor.compressing.capacity * MemoryLayout<CompressingApp>.stride }

    /// Compression up to now.
    @inline(__always) mutating func timePassed<P, T>(_ core: inout DeviceCore<P, T>, _ now: SimTime) {
        if !compressor.compressing.isEmpty { advanceCompression(&core, now) }
    }

    @inline(__always) mutating func eventEnded<P, T>(_ core: inout DeviceCore<P, T>, _ s: inout Scheduler<DeviceEvent>) {}

    mutating func reclaimOnTimer<P, T>(_ core: inout DeviceCore<P, T>, _ kind: DeviceEvent.Kind, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger? {
        preconditionFailure("the plain model arms no timer of its own (\(kind))")
    }

    @inline(__always) mutating func appLaunching<P, T>(_ core: inout DeviceCore<P, T>, _ app: Int32, _ now: SimTime) -> Int32 { -1 }

    @inline(__always) mutating func appEnteredBackground<P, T>(_ core: inout DeviceCore<P, T>, _ app: Int32, _ now: SimTime,
                                                               _ s: inout Scheduler<DeviceEvent>) {}

    @inline(__always) mutating func reclaimAfterLeavingFront<P, T>(_ core: inout DeviceCore<P, T>, _ app: Int32,
                                                                   _ now: SimTime) -> ReclaimTrigger? { nil }

    /// Compressed if the compressor runs.
    @inline(__always) mutating func appSuspended<P, T>(_ core: inout DeviceCore<P, T>, _ app: Int32, _ now: SimTime) {
        compressOnSuspend(&core, app, now)
    }

    @inline(__always) mutating func appResuming<P, T>(_ core: inout DeviceCore<P, T>, _ app: Int32, compressed: Bool, frozen: Bool,
                                                      _ now: SimTime) -> (swapIn: SimTime, compressedKB: Int64) {
        (.zero, leaveCompressor(&core, app, now))
    }

    @inline(__always) mutating func appExited<P, T>(_ core: inout DeviceCore<P, T>, _ app: Int32, _ now: SimTime) {
        leaveCompressor(&core, app, now)
    }

    @inline(__always) mutating func appLaunched<P, T>(_ core: inout DeviceCore<P, T>, _ app: Int32, _ kind: LaunchKind, relaunch: Bool,
                                                      latency: SimTime) {}

    var marksKeptOnExit: MemoryFlags { [] }

    @inline(__always) mutating func reclaimAfterFall<P, T>(_ core: inout DeviceCore<P, T>, _ q: inout ReclaimSequence,
                                                           _ now: SimTime) -> ReclaimTrigger? { nil }

    @inline(__always) mutating func reclaimAfterChange<P, T>(_ core: inout DeviceCore<P, T>, _ q: inout ReclaimSequence,
                                                             _ now: SimTime) -> ReclaimTrigger? { nil }

    /// Room for a launch that needs `needKB` more: warnings below the warning level,
    /// then, below the critical level, the policy's victims until the launch fits
    /// above the kill target. One trigger a question (`ReclaimSequence`).
    @inline(__always) mutating func reclaimForRoom<P, T>(_ core: inout DeviceCore<P, T>, needKB: Int64, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger? {
        guard q.step == 0 else { return nil }
        q.step = 1
        warned = lowMemoryWarnings(&core, needKB: needKB, warned: warned, now)
        return core.availableKB - needKB < core.kb.criticalKB ? .untilAvailable(needKB + core.kb.killTargetKB) : nil
    }

    @inline(__always) mutating func startReclaim<P, T>(_ core: inout DeviceCore<P, T>, _ trigger: ReclaimTrigger) -> ReclaimCursor {
        ReclaimCursor()
    }

    @inline(__always) mutating func pickReclaimAction<P, T>(_ core: inout DeviceCore<P, T>, _ trigger: ReclaimTrigger,
                                                            _ c: inout ReclaimCursor, _ now: SimTime) -> ReclaimAction {
        switch trigger {
        case .untilAvailable(let target): core.victimUntilAvailable(target, .memoryPressure)
        case .app(let app, let reason): core.pickOneApp(app, reason, &c)
        case .xnu, .android: preconditionFailure("the plain model was asked for another manager's reclaim \(trigger)")
        }
    }

    @inline(__always) mutating func reclaimWillKill<P, T>(_ core: inout DeviceCore<P, T>, _ trigger: ReclaimTrigger, _ now: SimTime) {}

    mutating func reclaimSpare<P, T>(_ core: inout DeviceCore<P, T>, _ app: Int32) {
        preconditionFailure("the plain model spares no app")
    }

    mutating func reclaimOwnProcess<P, T>(_ core: inout DeviceCore<P, T>, _ now: SimTime) {
        preconditionFailure("the plain model has no process of its own")
    }

    @inline(__always) mutating func reclaimKilled<P, T>(_ core: inout DeviceCore<P, T>, _ trigger: ReclaimTrigger, _ reason: KillReason,
                                                        _ now: SimTime) {}

    @inline(__always) func band<P, T>(_ core: DeviceCore<P, T>, _ app: Int32, _ now: SimTime) -> UInt8 { core.plainBand(app) }

    @inline(__always) func onFlashKB<P, T>(_ core: DeviceCore<P, T>, _ app: Int32) -> Int64 { 0 }

    @inline(__always) func suspendedPlainKB<P, T>(_ core: DeviceCore<P, T>, _ app: Int32) -> Int64 {
        core.profiles[core.pi(app)].suspendedKB
    }

    /// The decompression whenever the compressor runs (the model before XNU's).
    @inline(__always) func resumeLatency<P, T>(_ core: DeviceCore<P, T>, _ app: Int32, _ kind: LaunchKind, compressed: Bool,
                                               compressedKB: Int64?, swapIn: SimTime) -> SimTime {
        warmLatency(core, core.pi(app), compressedKB: compressedKB ?? suspendedPlainKB(core, app))
    }

    @inline(__always) func suspendedLaunchCost<P, T>(_ core: DeviceCore<P, T>, _ app: Int32) -> SimTime {
        warmLatency(core, core.pi(app), compressedKB: suspendedPlainKB(core, app))
    }

    @inline(__always) mutating func removeCandidate<P, T>(_ core: inout DeviceCore<P, T>, _ app: Int32) {
        core.removeCandidate(app, keepsIdleOrder: Self.keepsIdleOrder)
    }

    @inline(__always) func prewarms(_ p: CoreParameters) -> Bool { p.prewarming }

    var residentOutsideAppsKB: Int64 { 0 }

    mutating func compressorChanged<P, T>(_ core: inout DeviceCore<P, T>, _ now: SimTime) {}

    @inline(__always) mutating func compressionFinished<P, T>(_ core: inout DeviceCore<P, T>, _ app: Int32, _ now: SimTime) {
        refreshCandidateIfBandMoved(&core, app, now)
    }

    func checkInvariant<P, T>(_ core: DeviceCore<P, T>) {
        checkCompressorInvariant(core, frozenCount: 0)
    }
}
