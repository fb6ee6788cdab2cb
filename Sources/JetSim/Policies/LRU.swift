import SimKernel

/// `lru`: kill the least recently used candidate, the one the user left longest ago.
///
/// Recency is the user's: a candidate's `lastUsed` is when the user last left it, and
/// an app the user never used (one the system launched or prewarmed) is the oldest of
/// all. An app the system launches joins at the place of its user's last use, not at
/// the tail as if just used (issue 29: a list appended on every new candidate made a
/// system launch count as a use, and `mru` beat `lru` by 6.6 points on the default
/// workload). Ties (apps never used) go in the order they became candidates, which
/// is their launch order. Where nothing but the user launches apps (libCacheSim's
/// traces, Workloads/lru-reference.yaml) this is the order apps left the front, as
/// before.
///
/// Index: a heap keyed by (last use, arrival). An app leaving the front has the
/// largest key (O(1) sift); a kill or a removal is O(log n).
public struct LRU: EvictionPolicy {
    public static let name = "lru"
    /// Reads no costs from a candidate (`EvictionPolicy.readsCosts`).
    public static var readsCosts: Bool { false }
    public static let summary = "the least recently used: the app the user left longest ago (never used: oldest)"
    var heap = IndexedHeap()
    var arrivals: Int64 = 0

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) {
        heap.reset(appCount: appCount)
        arrivals = 0
    }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        // Only leaving the front is a use, and a candidate is not in front: its key
        // is fixed while it stays one.
        guard !heap.contains(app) else { return }
        arrivals &+= 1
        heap.set(app, .init(c.lastUsed.microseconds, arrivals))
    }

    @inline(__always) public mutating func remove(_ app: Int32) { heap.remove(app) }

    public var stateBytes: Int { heap.stateBytes }

    public var hasCandidates: Bool { !heap.isEmpty }

    public func victim() -> Int32 { heap.min! }
}
