import SimKernel

/// lmkd's and ActivityManager's reclaims (the shared ones are `ReclaimTrigger`'s).
enum AndroidTrigger {
    /// ActivityManager: cached processes beyond the cap.
    case cachedCap
    /// lmkd, PSI mode, for a request of `needKB`.
    case lmkd(needKB: Int64)
    /// lmkd, the legacy minfree levels, for a request of `needKB`.
    case minfree(needKB: Int64)
}

/// Android's memory management as a value (lmkd, PSI, zram and its writeback budget,
/// ActivityManager): its parameters, Fleet's when it runs Fleet (`os: fleet`:
/// Memory/Fleet/), its state, and zram's pool. The rest of this folder is its
/// functions; each takes what it needs of the core.
struct AndroidMemory<Policy: EvictionPolicy, Trace: TraceSink>: MemoryManaging {
    typealias Core = DeviceCore<Policy, Trace>
    var params = AndroidParameters()
    /// Fleet's changes (`isFleet`: the device runs Fleet).
    var fleet = FleetParameters()
    var isFleet = false
    var state = AndroidState()
    /// zram's pool (physical KiB; a swap file keeps none in RAM).
    var pool = CompressorPool()
    /// Apps written back to flash now (`MemoryFlags.frozen`), zram writeback's budget
    /// day, and what it wrote that day.
    var frozenCount: Int32 = 0
    var flashDay: Int32 = 0
    var flashTodayKB: Int64 = 0

    static var keepsIdleOrder: Bool { true }

    // MARK: Setup

    mutating func configure(_ p: DeviceParameters) {
        params = p.android
        fleet = p.fleet
        isFleet = switch p.memoryManager {
        case .fleet: true
        case .android, .xnu, .plain: false
        }
    }

    mutating func reset(_ core: inout Core, runs: Bool) {
        state.reset(appCount: runs ? core.apps.count : 0, thrashingLimit: params.thrashingLimitPct,
                    holds: runs && zramHeldShare > 0, swapFile: runs && params.swapFile)
        pool = CompressorPool()
        frozenCount = 0
        flashDay = 0; flashTodayKB = 0
    }

    mutating func reserve(apps n: Int) {}

    var stateBytes: Int { state.uncompressed.stateBytes }

    // MARK: Time

    @inline(__always) mutating func timePassed(_ core: inout Core, _ now: SimTime) {}

    @inline(__always) mutating func eventEnded(_ core: inout Core, _ s: inout Scheduler<DeviceEvent>) {}

    mutating func reclaimOnTimer(_ core: inout Core, _ kind: DeviceEvent.Kind, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger? {
        preconditionFailure("Android arms no timer of its own (\(kind))")
    }

    // MARK: The lifecycle's changes

    @inline(__always) mutating func appLaunching(_ core: inout Core, _ app: Int32, _ now: SimTime) -> Int32 { -1 }

    @inline(__always) mutating func appEnteredBackground(_ core: inout Core, _ app: Int32, _ now: SimTime,
                                                               _ s: inout Scheduler<DeviceEvent>) {}

    @inline(__always) mutating func reclaimAfterLeavingFront(_ core: inout Core, _ app: Int32,
                                                                   _ now: SimTime) -> ReclaimTrigger? { nil }

    /// A cached app: uncompressed until reclaim needs it.
    mutating func appSuspended(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        androidCached(&core, app, now)
    }

    /// Its pages back from zram or flash (the swap-in it waits for), out of the pool.
    mutating func appResuming(_ core: inout Core, _ app: Int32, compressed: Bool, frozen: Bool,
                                                      _ now: SimTime) -> (swapIn: SimTime, compressedKB: Int64) {
        let swapIn = androidResume(&core, app, compressed: compressed, frozen: frozen, now)
        leaveZram(&core, app, now)
        forgetWriteback(&core, app)
        return (swapIn, 0)
    }

    /// Out of zram, of flash, of reclaim's order and of the swap file.
    mutating func appExited(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        leaveZram(&core, app, now)
        forgetWriteback(&core, app)
        androidForget(&core, app)
        swapFileRelease(app)
    }

    /// Counted by Android's own kinds and against the Vitals thresholds (`lastKill`:
    /// the reason of the process before).
    mutating func appLaunched(_ core: inout Core, _ app: Int32, _ kind: LaunchKind, relaunch: Bool,
                                                      latency: SimTime) {
        let saved = relaunch && core.profiles[core.pi(app)].preservesUIState
            && core.apps[Int(app)].lastKill.contains(.losesUserPlace)
        androidVitals(&core, kind, savedState: saved, latency: latency)
    }

    var marksKeptOnExit: MemoryFlags { [] }

    // MARK: The reclaims

    @inline(__always) mutating func reclaimAfterFall(_ core: inout Core, _ q: inout ReclaimSequence,
                                                           _ now: SimTime) -> ReclaimTrigger? { nil }

    /// ActivityManager's trim of cached and empty processes, when it would kill.
    @inline(__always) mutating func reclaimAfterChange(_ core: inout Core, _ q: inout ReclaimSequence,
                                                             _ now: SimTime) -> ReclaimTrigger? {
        guard q.step == 0 else { return nil }
        q.step = 1
        return processTrimDue(core, now) ? .android(.cachedCap) : nil
    }

    @inline(__always) mutating func reclaimForRoom(_ core: inout Core, needKB: Int64, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger? {
        androidRoomReclaim(&core, needKB: needKB, &q.step, now)
    }

    // MARK: The reclaim loop's picks

    @inline(__always) mutating func startReclaim(_ core: inout Core, _ trigger: ReclaimTrigger) -> ReclaimCursor {
        ReclaimCursor()
    }

    mutating func pickReclaimAction(_ core: inout Core, _ trigger: ReclaimTrigger,
                                                            _ c: inout ReclaimCursor, _ now: SimTime) -> ReclaimAction {
        switch trigger {
        case .untilAvailable(let target): core.victimUntilAvailable(target, .memoryPressure)
        case .app(let app, let reason): core.pickOneApp(app, reason, &c)
        case .android(.cachedCap): pickCachedCap(core, now)
        case .android(.lmkd(let need)): pickLmkd(&core, needKB: need, &c, now)
        case .android(.minfree(let need)): pickMinfree(core, needKB: need, now)
        case .xnu: preconditionFailure("Android was asked for XNU's reclaim \(trigger)")
        }
    }

    @inline(__always) mutating func reclaimWillKill(_ core: inout Core, _ trigger: ReclaimTrigger, _ now: SimTime) {}

    mutating func reclaimSpare(_ core: inout Core, _ app: Int32) {
        preconditionFailure("Android spares no app")
    }

    mutating func reclaimOwnProcess(_ core: inout Core, _ now: SimTime) {
        preconditionFailure("Android's manager has no process of its own")
    }

    /// After a kill of lmkd's, its thrashing measure starts again.
    @inline(__always) mutating func reclaimKilled(_ core: inout Core, _ trigger: ReclaimTrigger, _ reason: KillReason,
                                                        _ now: SimTime) {
        if case .android(.lmkd) = trigger { thrashingAfterKill(reason, now) }
    }

    // MARK: What the lifecycle and the policy read

    /// No bands: a background mode's band or 30 while it executes in the background, else 0.
    @inline(__always) func band(_ core: Core, _ app: Int32, _ now: SimTime) -> UInt8 { core.plainBand(app) }

    @inline(__always) func residentNowKB(_ core: Core, _ app: Int32) -> Int64 { core.apps[Int(app)].residentKB }

    @inline(__always) func onFlashKB(_ core: Core, _ app: Int32) -> Int64 { 0 }

    @inline(__always) func suspendedPlainKB(_ core: Core, _ app: Int32) -> Int64 {
        core.profiles[core.pi(app)].suspendedKB
    }

    /// The resume plus the swap-in.
    @inline(__always) func resumeLatency(_ core: Core, _ app: Int32, _ kind: LaunchKind, compressed: Bool,
                                               compressedKB: Int64?, swapIn: SimTime) -> SimTime {
        core.profiles[core.pi(app)].warmLaunch + swapIn
    }

    /// A written-back app's reads its cached footprint back from flash; any other's is
    /// its resume (what zram would swap back in is not known before reclaim takes it).
    @inline(__always) func suspendedLaunchCost(_ core: Core, _ app: Int32) -> SimTime {
        let p = core.pi(app)
        guard core.apps[Int(app)].memory.contains(.frozen) else { return core.profiles[p].warmLaunch }
        return core.profiles[p].warmLaunch + SimTime(microseconds: params.flashSwapInPerMB.microseconds * core.profiles[p].suspendedKB / 1_024)
    }

    @inline(__always) mutating func removeCandidate(_ core: inout Core, _ app: Int32) {
        core.removeCandidate(app, keepsIdleOrder: Self.keepsIdleOrder)
    }

    /// Android never prewarms.
    @inline(__always) func prewarms(_ p: CoreParameters) -> Bool { false }

    var residentOutsideAppsKB: Int64 { 0 }

    // MARK: zram's pool, flash and Fleet's shares

    /// The app leaves zram (resumed or killed): what its GC held is forgotten and the
    /// packed rest leaves the pool.
    mutating func leaveZram(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard core.apps[a].memory.contains(.compressed) else { return }
        core.apps[a].memory.remove(.compressed)
        let packed = core.apps[a].residentKB - zramTakeHeld(app)
        pool.committedKB -= packed
        pool.change(-packed, &core.metrics, now)
    }

    /// The app's memory is no longer on flash (resumed, or killed).
    mutating func forgetWriteback(_ core: inout Core, _ app: Int32) {
        guard core.apps[Int(app)].memory.contains(.frozen) else { return }
        core.apps[Int(app)].memory.remove(.frozen)
        frozenCount -= 1
    }

    /// The share of a cached app's memory that stays in RAM while zram has the rest
    /// (Zram.swift): what swap cannot take, and what the app's garbage collector
    /// touches of its heap: all of it on Android, its background objects on Fleet
    /// (Memory/Fleet/). 0 with Android's defaults.
    @inline(__always) var zramHeldShare: Double {
        isFleet ? fleetHeldShare : params.heldShare(touch: params.gcTouchShare)
    }

    /// The share of a cached app's Java heap its garbage collector touches: all of it
    /// on Android (`android_gc_touch_pct`), the background objects on Fleet.
    @inline(__always) var gcTouchShare: Double { isFleet ? fleet.gcTouchShare : params.gcTouchShare }

    /// What a resume from zram waits for of the `plainKB` swapped back in: all of it
    /// on Android, the launch objects on Fleet (the rest after the first frame).
    @inline(__always) func launchSwapInKB(plainKB: Int64) -> Int64 {
        isFleet ? fleetLaunchSwapInKB(plainKB: plainKB) : plainKB
    }

    // MARK: The invariant

    /// zram's pool is exactly what its apps keep compressed (less what their GC holds
    /// uncompressed), within the swap device's size (uncompressed KiB; the pool rounds
    /// each app to whole KiB); written-back apps hold no RAM and are counted.
    func checkInvariant(_ core: Core) {
        var pool: Int64 = 0, frozen = 0
        for i in core.apps.indices {
            let a = core.apps[i]
            precondition(a.packedKB == Int32(clamping: core.suspendedResidentKB(core.pi(Int32(i)))),
                         "app \(i) packs to \(a.packedKB) KiB, not its profile's")
            precondition(!a.memory.contains(.compressing), "app \(i) is being compressed on Android")
            if a.memory.contains(.compressed) {
                precondition(a.state == .suspended, "a running app is in zram")
                let held = zramHeldKB(Int32(i))
                precondition(held >= 0 && held <= a.residentKB, "app \(i) keeps \(held) KiB of its \(a.residentKB)")
                pool += a.residentKB - held
            }
            if a.memory.contains(.frozen) {
                precondition(a.state == .suspended && a.residentKB == 0, "a written-back app holds RAM")
                frozen += 1
            }
        }
        precondition(pool == self.pool.kb && pool == self.pool.committedKB,
                     "zram pool \(self.pool.kb) KiB (committed \(self.pool.committedKB)) != its apps' \(pool) KiB")
        precondition(zramStoredKB <= params.swapKB + 4 * Int64(core.apps.count), "zram over its size")
        precondition(frozen == Int(frozenCount), "written-back count \(frozenCount) != \(frozen)")
    }
}

/// Android's marks on an app record (on the bits after the shared ones, `MemoryFlags`).
extension MemoryFlags {
    /// Cached with no activity, an empty process (started by the system, no UI shown:
    /// `LifecycleFlags.systemStarted`), counted in `AndroidState.emptyCount`.
    @inlinable static var emptyProcess: Self { Self(rawValue: 512) }
}
