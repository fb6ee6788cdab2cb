import SimKernel

/// What a trace line records, besides the message names.
public enum TraceEvent: Sendable, Equatable {
    case message(LifecycleMessage)
    /// The system suspended the app (no message).
    case suspended
    /// The freezer wrote the suspended app's memory to flash (no message).
    case frozen
    /// The app was terminated (no message of its own; willTerminate, if any, precedes it).
    case terminated(KillReason)
    /// Held system events of one kind were delivered, `count` raw events coalesced
    /// into one (1 for an app that was running).
    case deliver(SystemEventKind, count: Int)
    /// The system launched the app into the background (then didFinishLaunching), or
    /// woke it there, for a location change, a push or a refresh (the detail).
    case systemLaunch(SystemWakeKind)
    case systemWake(SystemWakeKind)

    /// The `event` column.
    public var name: String {
        switch self {
        case .message(let m): m.name
        case .suspended: "suspended"
        case .frozen: "frozen"
        case .terminated: "terminated"
        case .deliver: "deliver"
        case .systemLaunch: "system-launch"
        case .systemWake: "system-wake"
        }
    }
}

/// Extra information in the `detail` column.
public enum TraceDetail: Sendable, Equatable {
    case none
    /// A launch completed with didBecomeActive: its kind and latency.
    case launch(LaunchKind, latency: SimTime)
    /// A kill's reason.
    case reason(KillReason)
    /// A delivery: `KIND/N`, and the latest value (0: none given).
    case delivery(SystemEventKind, Int, value: Int32)
    /// A memory warning: how much the app freed.
    case freed(kb: Int64)
}

/// Receives the per-event trace. The device is generic over its sink, so with
/// `NoTrace` every call compiles away.
public protocol TraceSink {
    mutating func record(time: SimTime, app: Int32, event: TraceEvent, detail: TraceDetail, state: AppState)

    /// Called when the kill loop starts (`true`) and ends (`false`): a hook for
    /// measuring it (see the stress benchmarks). Default: nothing.
    mutating func killLoop(began: Bool)
}

extension TraceSink {
    @inlinable @inline(__always) public mutating func killLoop(began: Bool) {}
}

/// The sink that records nothing (batch runs).
public struct NoTrace: TraceSink {
    @inlinable public init() {}
    @inlinable @inline(__always)
    public mutating func record(time: SimTime, app: Int32, event: TraceEvent, detail: TraceDetail, state: AppState) {}
}

/// One trace line before it is rendered.
public struct TraceRecord: Sendable, Equatable {
    public var time: SimTime
    public var app: Int32
    public var event: TraceEvent
    public var detail: TraceDetail
    public var state: AppState
}

/// A sink that keeps every record (scenarios, `jetsim trace`, tests), or none when
/// `keeps` is false (a traced run whose caller reads only its metrics).
public struct TraceRecorder: TraceSink {
    public var records: [TraceRecord] = []
    public var keeps: Bool
    /// Reclaim loops open now (`killLoop`), and the kills a memory manager decided
    /// outside any: the device's one reclaim loop brackets every one (checked by tests).
    public private(set) var reclaimDepth = 0
    public private(set) var memoryKillsOutsideReclaim = 0
    public init(keeps: Bool = true) { self.keeps = keeps }
    public mutating func killLoop(began: Bool) { reclaimDepth += began ? 1 : -1 }
    public mutating func record(time: SimTime, app: Int32, event: TraceEvent, detail: TraceDetail, state: AppState) {
        if case .terminated(let reason) = event, reason.decider != .lifecycle, reclaimDepth == 0 {
            memoryKillsOutsideReclaim += 1
        }
        guard keeps else { return }
        records.append(TraceRecord(time: time, app: app, event: event, detail: detail, state: state))
    }
}

extension DeviceCore {
    /// Sends a delegate message: records it in the trace (the state is the app's after
    /// it). What the app does on it is its sender's: the lifecycle's, or a memory
    /// manager's for didReceiveMemoryWarning (`warn`).
    mutating func send(_ m: LifecycleMessage, to app: Int32, _ now: SimTime, detail: TraceDetail = .none) {
        trace.record(time: now, app: app, event: .message(m), detail: detail, state: apps[Int(app)].state)
    }
}
