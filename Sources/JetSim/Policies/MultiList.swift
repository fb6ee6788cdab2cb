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

    /// The apps' nodes, then one node per list holding its head (`next`) and tail
    /// (`prev`): one array, so an update checks it is uniquely referenced once, not
    /// once per array (three before: nodes, heads, tails; 4 % of the default run's
    /// instructions were those checks).
    @usableFromInline var nodes: ContiguousArray<Node>
    /// The number of apps: list `l`'s node is `nodes[apps + l]`.
    @usableFromInline var apps = 0
    @usableFromInline let lists: Int

    public init(lists: Int) {
        self.lists = lists
        nodes = ContiguousArray(repeating: Node(), count: lists)
    }

    public mutating func reset(appCount: Int) {
        nodes.removeAll(keepingCapacity: true)
        nodes.append(contentsOf: repeatElement(Node(), count: appCount + lists))
        apps = appCount
    }

    /// The list `app` is in, or -1.
    @inlinable public func list(of app: Int32) -> Int {
        precondition(Int(app) < apps, "app \(app) out of range")
        return Int(nodes[Int(app)].list)
    }

    /// The app after `app` in its list, or -1.
    @inlinable public func next(_ app: Int32) -> Int32 {
        precondition(Int(app) < apps, "app \(app) out of range")
        return nodes[Int(app)].next
    }

    /// The first app of list `l`, or -1.
    @inlinable public func head(_ l: Int) -> Int32 {
        precondition(l >= 0 && l < lists, "list \(l) out of range")
        return nodes[apps &+ l].next
    }

    /// Appends `app` to list `l` (removing it from its current list first). O(1).
    @inline(__always)
    public mutating func append(_ app: Int32, to l: Int) {
        let a = Int(app)
        precondition(a >= 0 && a < apps, "app \(app) out of range")
        precondition(l >= 0 && l < lists, "list \(l) out of range")
        let base = apps
        let s = base &+ l
        // One buffer access for the removal from its current list and the append: one
        // uniqueness check per move instead of two.
        nodes.withUnsafeMutableBufferPointer { n in
            // Links and list nodes are in range by construction.
            let node = n[a]
            if node.list >= 0 {
                let from = base &+ Int(node.list)
                if node.prev >= 0 { n[Int(node.prev)].next = node.next } else { n[from].next = node.next }
                if node.next >= 0 { n[Int(node.next)].prev = node.prev } else { n[from].prev = node.prev }
            }
            let tail = n[s].prev
            n[a] = Node(next: -1, prev: tail, list: Int32(truncatingIfNeeded: l))
            if tail >= 0 { n[Int(tail)].next = app } else { n[s].next = app }
            n[s].prev = app
        }
    }

    /// Bytes of storage held (capacities).
    public var stateBytes: Int { nodes.capacity * MemoryLayout<Node>.stride }

    /// Removes `app` from its list, if any. O(1). Reads before it writes: an app in
    /// no list costs no uniqueness check.
    @inline(__always)
    public mutating func remove(_ app: Int32) {
        let a = Int(app)
        precondition(a >= 0 && a < apps, "app \(app) out of range")
        let node = nodes[a]
        let l = Int(node.list)
        guard l >= 0 else { return }
        let s = apps &+ l
        nodes.withUnsafeMutableBufferPointer { n in
            n[a] = Node()
            if node.prev >= 0 { n[Int(node.prev)].next = node.next } else { n[s].next = node.next }
            if node.next >= 0 { n[Int(node.next)].prev = node.prev } else { n[s].prev = node.prev }
        }
    }
}
