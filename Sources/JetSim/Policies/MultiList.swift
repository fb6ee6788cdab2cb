/// Several intrusive FIFO lists over the same apps, each app in at most one: the
/// bands of `jetsam-bands`. Append, remove and head are O(1); storage is shared.
public struct MultiList: Sendable {
    @usableFromInline var next: ContiguousArray<Int32> = []
    @usableFromInline var prev: ContiguousArray<Int32> = []
    /// The list each app is in, or -1.
    @usableFromInline var listOf: ContiguousArray<Int8> = []
    @usableFromInline var heads: ContiguousArray<Int32>
    @usableFromInline var tails: ContiguousArray<Int32>

    public init(lists: Int) {
        heads = ContiguousArray(repeating: -1, count: lists)
        tails = ContiguousArray(repeating: -1, count: lists)
    }

    public mutating func reset(appCount: Int) {
        for i in heads.indices { heads[i] = -1; tails[i] = -1 }
        if listOf.count != appCount {
            next.removeAll(keepingCapacity: true)
            prev.removeAll(keepingCapacity: true)
            listOf.removeAll(keepingCapacity: true)
            next.append(contentsOf: repeatElement(-1, count: appCount))
            prev.append(contentsOf: repeatElement(-1, count: appCount))
            listOf.append(contentsOf: repeatElement(-1, count: appCount))
        } else {
            for i in listOf.indices { listOf[i] = -1 }
        }
    }

    /// The list `app` is in, or -1.
    @inlinable public func list(of app: Int32) -> Int { Int(listOf[Int(app)]) }

    /// The first app of list `l`, or -1.
    @inlinable public func head(_ l: Int) -> Int32 { heads[l] }

    /// Appends `app` to list `l` (removing it from its current list first). O(1).
    public mutating func append(_ app: Int32, to l: Int) {
        remove(app)
        let a = Int(app)
        listOf[a] = Int8(l)
        prev[a] = tails[l]
        next[a] = -1
        if tails[l] >= 0 { next[Int(tails[l])] = app } else { heads[l] = app }
        tails[l] = app
    }

    /// Bytes of storage held (capacities).
    public var stateBytes: Int { next.capacity * 4 + prev.capacity * 4 + listOf.capacity }

    /// Removes `app` from its list, if any. O(1).
    public mutating func remove(_ app: Int32) {
        let a = Int(app)
        let l = Int(listOf[a])
        guard l >= 0 else { return }
        listOf[a] = -1
        let p = prev[a], n = next[a]
        if p >= 0 { next[Int(p)] = n } else { heads[l] = n }
        if n >= 0 { prev[Int(n)] = p } else { tails[l] = p }
    }
}
