import SimKernel

/// `lru`: kill the least recently used candidate, the one the user left longest ago.
///
/// Index: a list in the order apps left the front (which is the order of their last
/// use); an app joins at the tail when it leaves the front and the head is the
/// victim. O(1) per update and kill.
public struct LRU: EvictionPolicy {
    public static let name = "lru"
    /// Reads no costs from a candidate (`EvictionPolicy.readsCosts`).
    public static var readsCosts: Bool { false }
    public static let summary = "the least recently used: the app the user left longest ago"
    var order = AppList()

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) { order.reset(appCount: appCount) }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        // Only leaving the front is a use; state changes in the background are not.
        if !order.contains(app) { order.append(app) }
    }

    @inline(__always) public mutating func remove(_ app: Int32) { order.remove(app) }

    public var stateBytes: Int { order.stateBytes }

    public var hasCandidates: Bool { order.head >= 0 }

    public func victim() -> Int32 { order.head }
}
