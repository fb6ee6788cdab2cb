import SimKernel

/// `oracle`: the offline bound (Belady's MIN). Kill the candidate whose next use lies
/// furthest in the future, read from the device's user timeline (which no policy or
/// RAM size changes, so looking ahead is well defined). Apps not used again go first,
/// larger first. "Furthest" is by position in the timeline (`Timeline.nextUseAfter`),
/// so uses at the same instant are ordered as the user makes them: with equal
/// footprints this is exactly Belady, ties included.
///
/// With equal footprints and relaunch costs this is optimal for the number of cold
/// relaunches. With unequal sizes, killing the furthest-used app is not necessarily
/// optimal (the problem becomes NP-hard, like caching with sizes): read it as a
/// strong heuristic that shows how far a real policy is from what hindsight allows,
/// not as a proven optimum.
///
/// Index: a heap keyed by (−next use, −footprint). O(log n).
public struct Oracle: EvictionPolicy {
    public static let name = "oracle"
    /// Reads no costs from a candidate (`EvictionPolicy.readsCosts`).
    public static var readsCosts: Bool { false }
    /// Ranks by next use (`EvictionPolicy.readsNextUse`).
    public static var readsNextUse: Bool { true }
    public static let summary = "offline bound (Belady): the app next used furthest in the future"
    var heap = IndexedHeap()

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) { heap.reset(appCount: appCount) }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        heap.set(app, .init(-c.nextUse.microseconds, -c.residentKB))
    }

    public mutating func remove(_ app: Int32) { heap.remove(app) }

    public var stateBytes: Int { heap.stateBytes }

    public var hasCandidates: Bool { !heap.isEmpty }

    public func victim() -> Int32 { heap.min! }
}
