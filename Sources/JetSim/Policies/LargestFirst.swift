import SimKernel

/// `largest-first`: kill the candidate with the largest resident footprint (seed 003:
/// when RAM runs out the OS "begins with the ones that have the most memory
/// reserved"). Ties go to the one left longest ago.
///
/// Index: a heap keyed by (−footprint, last use). O(log n) per update and kill.
public struct LargestFirst: EvictionPolicy {
    public static let name = "largest-first"
    /// Reads no costs from a candidate (`EvictionPolicy.readsCosts`).
    public static var readsCosts: Bool { false }
    public static let summary = "the largest resident footprint first; ties: the one left longest ago"
    var heap = IndexedHeap()

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) { heap.reset(appCount: appCount) }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        heap.set(app, .init(-c.residentKB, c.lastUsed.microseconds))
    }

    public mutating func remove(_ app: Int32) { heap.remove(app) }

    public var stateBytes: Int { heap.stateBytes }

    public var hasCandidates: Bool { !heap.isEmpty }

    public func victim() -> Int32 { heap.min! }
}
