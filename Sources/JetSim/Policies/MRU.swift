import SimKernel

/// `mru`: kill the most recently used candidate, the one the user left last; apps the
/// user never used go last, in launch order. A baseline (libCacheSim's MRU), outside
/// `all`: name it to run it.
///
/// Index: a heap keyed by (−last use, arrival), never-used apps at the far end.
public struct MRU: EvictionPolicy {
    public static let name = "mru"
    public static var readsCosts: Bool { false }
    public static var inAll: Bool { false }
    public static let summary = "baseline: the most recently used first (the app the user left last; never used: last)"
    var heap = IndexedHeap()
    var arrivals: Int64 = 0

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) {
        heap.reset(appCount: appCount)
        arrivals = 0
    }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        guard !heap.contains(app) else { return }
        arrivals &+= 1
        let used = c.lastUsed.microseconds
        heap.set(app, .init(used == 0 ? .max : -used, arrivals))
    }

    @inline(__always) public mutating func remove(_ app: Int32) { heap.remove(app) }

    public var stateBytes: Int { heap.stateBytes }

    public var hasCandidates: Bool { !heap.isEmpty }

    public func victim() -> Int32 { heap.min! }
}
