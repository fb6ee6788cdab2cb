import SimKernel

/// The device's core, as the functions of Device/ see it: the app records, the memory
/// ledger, the timers, the inputs, the policy and the trace, and three answers from
/// above (the knobs it reads and whether the OS prewarms). The device
/// (`Device`, Memory/Device.swift) is the model's one conforming type (the tests add a
/// bare one, `DeviceCoreTests`, to run the core alone): it holds this state
/// beside each memory manager's, and its stored properties are the requirements, so
/// a function of the core (an extension of this protocol) compiles against the core
/// alone, and Device/ uses nothing declared above it (docs/layout.md). Specialised for
/// `Device<Policy, Trace>` like the rest of the device: no witness table in a release
/// build's event loop.
protocol DeviceCore {
    associatedtype Policy: EvictionPolicy
    associatedtype Trace: TraceSink

    // Inputs.
    var profiles: ContiguousArray<AppProfile> { get }
    var installed: ContiguousArray<Int32> { get }
    var timeline: Timeline { get }
    var drawKey: UInt64 { get }
    var exponentialTable: ZigguratTable { get }
    var wakeTable: ContiguousArray<WakeColumn> { get set }
    var nextWake: SimTime { get set }
    var nextWakeApp: Int32 { get set }
    var nextWakeKind: SystemWakeKind { get set }
    var wakeCount: UInt64 { get set }
    var nextAction: Int { get set }
    var inputTime: SimTime { get set }

    // State.
    var apps: AppTable { get set }
    var policy: Policy { get set }
    var trace: Trace { get set }
    var metrics: DeviceMetrics { get set }
    var byArchetype: ContiguousArray<DeviceMetrics> { get set }
    var archetypeOf: ContiguousArray<Int32> { get }
    var availableKB: Int64 { get set }
    var front: Int32 { get }
    var heldApp: Int32 { get set }
    var heldDue: SimTime { get set }
    var inInput: Bool { get }

    // Answers from above: the two knobs the core reads (`DeviceParameters`) and
    // whether the OS prewarms apps (the memory manager's `prewarms`).
    var pageCacheWindow: SimTime { get }
    var suspendedCompressionRatio: Double { get }
    var prewarms: Bool { get }
}

extension DeviceCore {
    /// Purposes of per-app random draws.
    static var drawBackgroundTask: UInt64 { 1 }
    static var drawModeActivity: UInt64 { 2 }
    static var drawLaunchJitter: UInt64 { 3 }
    static var drawSystemWake: UInt64 { 4 }
    static var drawPrewarmTarget: UInt64 { 5 }
    static var drawIdleDaemon: UInt64 { 6 }

    /// `nextInputTime` from its inputs (`.never`: none): the earliest of the next user
    /// action, the next system arrival and, if one is held, the suspension timer. The
    /// order at equal times is `handleInput`'s, which reads the inputs themselves.
    @inline(__always) var computedInputTime: SimTime {
        let user = nextAction < timeline.actions.count ? timeline.actions[nextAction].time : SimTime.never
        let t = min(user, nextWake)
        return heldApp >= 0 ? min(heldDue, t) : t
    }

    /// Stores `computedInputTime` in `inputTime`: after every change of the next user
    /// action, the next system arrival or the held timer (`reset`, `handleInput`,
    /// `queueHeldTimer`, `dropHeldTimer`; a timer held during an input waits for the
    /// input's own refresh); `checkMemoryInvariant` and debug builds' reads check it.
    @inline(__always) mutating func refreshInputTime() { inputTime = computedInputTime }
}
