import SimKernel

/// `random`: a uniformly random candidate, drawn from the policy's own stream
/// (seed, device, "random"), so its choices never shift anyone else's numbers.
///
/// Index: a dense array of candidates with positions (swap-remove). O(1).
public struct RandomEviction: EvictionPolicy {
    public static let name = "random"
    /// Reads no costs from a candidate (`EvictionPolicy.readsCosts`).
    public static var readsCosts: Bool { false }
    public static let summary = "a uniformly random candidate, from the policy's own stream"
    /// The stream id of this policy's generator.
    static let streamID: UInt64 = 0x52_41_4E_44  // "RAND"

    var members: ContiguousArray<Int32> = []
    var position: ContiguousArray<Int32> = []
    var rng = Xoshiro256StarStar(seed: 0)

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) {
        members.removeAll(keepingCapacity: true)
        members.reserveCapacity(appCount)
        position.removeAll(keepingCapacity: true)
        position.append(contentsOf: repeatElement(-1, count: appCount))
        rng = Xoshiro256StarStar(seed: context.seed, context.device, Self.streamID)
    }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        guard position[Int(app)] < 0 else { return }
        position[Int(app)] = Int32(members.count)
        members.append(app)
    }

    public mutating func remove(_ app: Int32) {
        let p = Int(position[Int(app)])
        guard p >= 0 else { return }
        let last = members.removeLast()
        if p < members.count {
            members[p] = last
            position[Int(last)] = Int32(p)
        }
        position[Int(app)] = -1
    }

    public var stateBytes: Int { members.capacity * 4 + position.capacity * 4 }

    public var hasCandidates: Bool { !members.isEmpty }

    /// The next draw of the stream, on a copy: the stream moves on only when the
    /// device kills the app (`willEvict`), so asking changes nothing.
    public func victim() -> Int32 {
        var draw = rng
        return members[draw.nextIndex(members.count)]
    }

    /// The same draw as `victim()`, now taken from the stream.
    public mutating func willEvict(_ app: Int32) {
        _ = rng.nextIndex(members.count)
    }
}
