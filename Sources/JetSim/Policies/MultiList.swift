/// Several intrusive FIFO lists over the same apps, each app in at most one: the
/// bands of `jetsam-bands`. Append, remove and head are O(1); storage is shared, and
/// an app's links and list sit together in one 12-byte node (one cache line to touch).
public struct MultiList: Sendable {
    @usableFromInline struct Node: Sendable {
        @usableFromInline var next: Int32 = -1
        @usableFromInline var prev: Int32 = -1
        /// The list the app is in, or -1.
        @usableFromInline var list: Int32 = -1
        @usableFromInline init(next: Int32 = -1, prev: Int32 = -1, list: Int32 = -1) {
            self.next = next; self.prev = prev; self.list = list
        }
    }

    @usableFromInline var nodes: ContiguousArray<Node> = []
    @usableFromInline var heads: ContiguousArray<Int32>
    @usableFromInline var tails: ContiguousArray<Int32>

    public init(lists: Int) {
        heads = ContiguousArray(repeating: -1, count: lists)
        tails = ContiguousArray(repeating: -1, count: lists)
    }

    public mutating func reset(appCount: Int) {
        for i in heads.indices { heads[i] = -1; tails[i] = -1 }
        nodes.removeAll(keepingCapacity: true)
        nodes.append(contentsOf: repeatElement(Node(), count: appCount))
    }

    /// The list `app` is in, or -1.
    @inlinable public func list(of app: Int32) -> Int { Int(nodes[Int(app)].list) }

    /// The app after `app` in its list, or -1.
    @inlinable public func next(_ app: Int32) -> Int32 { nodes[Int(app)].next }

    /// The first app of list `l`, or -1.
    @inlinable public func head(_ l: Int) -> Int32 { heads[l] }

    /// Appends `app` to list `l` (removing it from its current list first). O(1).
    @inline(__always)
    public mutating func append(_ app: Int32, to l: Int) {
        remove(app)
        let a = Int(app)
        nodes[a] = Node(next: -1, prev: tails[l], list: Int32(l))
        if tails[l] >= 0 { nodes[Int(tails[l])].next = app } else { heads[l] = app }
        tails[l] = app
    }

    /// Bytes of storage held (capacities).
    public var stateBytes: Int { nodes.capacity * MemoryLayout<Node>.stride }

    /// Removes `app` from its list, if any. O(1).
    @inline(__always)
    public mutating func remove(_ app: Int32) {
        let a = Int(app)
        let node = nodes[a]
        let l = Int(node.list)
        guard l >= 0 else { return }
        nodes[a] = Node()
        if node.prev >= 0 { nodes[Int(node.prev)].next = node.next } else { heads[l] = node.next }
        if node.next >= 0 { nodes[Int(node.next)].prev = node.prev } else { tails[l] = node.prev }
    }
}
