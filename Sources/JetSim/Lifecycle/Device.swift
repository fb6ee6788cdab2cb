#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// One device: its core (apps, ledger, timers, inputs, candidates, policy, trace,
/// counters: `DeviceCore`) and its memory manager (`MemoryManager`), with the
/// lifecycle and the reclaim loop (this folder) above both. Runs on the engine as its
/// `EventHandler`; generic over the policy and the trace sink, so the event loop is
/// specialised for each (no existential or closure per event).
///
/// Memory invariant: `availableKB + Σ residentKB + idle daemons + osReserveKB == ramKB`, checked
/// when `checksInvariants` is set: after every event on a device of up to 64 apps,
/// every apps/64 events on a larger one (`checkInvariantsAmortised`).
public struct Device<Policy: EvictionPolicy, Trace: TraceSink>: EventHandler {
    /// The core: everything but the memory manager's state.
    public var core: DeviceCore<Policy, Trace>

    public typealias Event = DeviceEvent
    /// The memory manager it runs, and each manager's state (`MemoryManager`).
    var memory = MemoryManager<Policy, Trace>()

    public init(trace: Trace) { core = DeviceCore(trace: trace) }

    // The device's face to its runners and tests: the core's inputs and results.
    public var params: DeviceParameters {
        get { memory.parameters(core.params) }
        set {
            core.params = newValue.core
            core.kb = newValue.thresholds
            memory.configure(newValue)
        }
    }
    /// What compressed apps keep resident now (XNU's and the plain model's compressor,
    /// Android's zram), and XNU's idle-band daemons.
    public var compressorKB: Int64 { memory.compressorKB }
    public var idleDaemons: IdleDaemonPool { memory.idleDaemons }
    public var profiles: ContiguousArray<AppProfile> { core.profiles }
    public var installed: ContiguousArray<Int32> { core.installed }
    public var timeline: Timeline { core.timeline }
    public var apps: AppTable { core.apps }
    public var availableKB: Int64 { core.availableKB }
    public var front: Int32 { core.front }
    public var ui: UIState { core.ui }
    public var poweredOff: Bool { core.poweredOff }
    public var refusedActions: Int { core.refusedActions }
    public var policy: Policy {
        get { core.policy }
        _modify { yield &core.policy }
    }
    public var trace: Trace {
        get { core.trace }
        _modify { yield &core.trace }
    }
    public var metrics: DeviceMetrics {
        get { core.metrics }
        _modify { yield &core.metrics }
    }
    public var relaunchLatencyByKind: RelaunchKindLatencies {
        get { core.relaunchLatencyByKind }
        _modify { yield &core.relaunchLatencyByKind }
    }
    public var byArchetype: ContiguousArray<DeviceMetrics> {
        get { core.byArchetype }
        _modify { yield &core.byArchetype }
    }
    public var archetypeOf: ContiguousArray<Int32> {
        get { core.archetypeOf }
        set { core.archetypeOf = newValue }
    }
    public var checksInvariants: Bool {
        get { core.checksInvariants }
        set { core.checksInvariants = newValue }
    }

    /// The next input's time: the next user action, or the next system launch or wake
    /// if earlier (at the same time the user goes first), or the held suspension timer
    /// (`heldApp`) if no later than both. The engine interleaves the inputs with the
    /// device's timers (see `EventHandler.nextInputTime`).
    /// Read once per engine step, so kept in `inputTime` (`refreshInputTime`), not
    /// recomputed from its five inputs each time.
    public var nextInputTime: SimTime? {
        assert(core.inputTime == core.computedInputTime, "the cached next input time is stale")
        return core.inputTime < .never ? core.inputTime : nil
    }

    /// A run starts: the app records are made unique once for all its events
    /// (`EventHandler.beginRun`; `handle` and `handleInput` then skip the check). Only
    /// the run's loop calls them until `endRun`, and nothing copies the device while
    /// it runs; debug builds still assert uniqueness at every write (`AppTable`).
    public mutating func beginRun() {
        core.beginRun()
        memory.beginRun()
    }

    /// The run ended: each event checks uniqueness again (a lone `Simulation.step`).
    public mutating func endRun() {
        core.endRun()
        memory.endRun()
    }

    public func isCancelled(_ e: DeviceEvent) -> Bool {
        // The sustained-pressure and idle-daemon timers belong to no app (their handlers
        // skip a stale one); the kind is read only when app 0's stamp does not match
        // (not per live timer).
        return core.apps[Int(e.app)].generation(e.slotFamily) != UInt16(truncatingIfNeeded: e.stamp) && !e.kind.isDeviceTimer
    }

}

// The lifecycle's words for the memory manager's candidates (the manager that runs
// gives each its band and costs: Memory/Candidates.swift).
extension Device {
    @inline(__always) mutating func refreshCandidate(_ app: Int32, _ now: SimTime, leftFront: Bool = false) {
        memory.refreshCandidate(&core, app, now, leftFront: leftFront)
    }

    @inline(__always) mutating func refreshCandidateIfBandMoved(_ app: Int32, _ now: SimTime) {
        memory.refreshCandidateIfBandMoved(&core, app, now)
    }

    @inline(__always) mutating func removeCandidate(_ app: Int32) { memory.removeCandidate(&core, app) }

    /// After an event, with `checksInvariants`: `checkMemoryInvariant` when the
    /// events since it last ran have paid for its O(apps) walk.
    @inline(never)
    mutating func checkInvariantsAmortised() {
        if core.invariantCheckDue() { checkMemoryInvariant() }
    }

    /// The memory invariant: the core's records and ledger with the manager's
    /// accounting (Memory/Invariants.swift).
    public func checkMemoryInvariant() { memory.checkMemoryInvariant(core) }
}
