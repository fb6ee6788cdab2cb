import SimKernel

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
    /// once per array (three before: nodes, heads, tails; docs/performance.md, "Costs
    /// behind the code's shapes"). SimKernel's `UncheckedArray`: a run holds it
    /// (`beginRun`: made unique once, then written without a check per update);
    /// outside a run each update makes it unique first. Debug builds assert it is
    /// unique at every write.
    @usableFromInline var nodes: UncheckedArray<Node>
    /// Whether a run holds the nodes (`beginRun` until `endRun`).
    @usableFromInline var held = false
    /// The number of apps: list `l`'s node is `nodes[apps + l]`.
    @usableFromInline var apps = 0
    @usableFromInline let lists: Int

    public init(lists: Int) {
        self.lists = lists
        nodes = UncheckedArray()
        nodes.append(repeating: Node(), count: lists)
    }

    public mutating func reset(appCount: Int) {
        nodes.removeAll()
        nodes.append(repeating: Node(), count: appCount + lists)
        apps = appCount
    }

    /// A run starts (`Device.beginRun`, through `EvictionPolicy.beginRun` for a
    /// policy's lists): the nodes are made unique once, and the run's updates write
    /// them without a uniqueness check each (217k appends in the default run). Only
    /// the run's loop updates them until `endRun`, and nothing copies them meanwhile.
    public mutating func beginRun() {
        nodes.makeUnique()
        held = true
    }

    /// The run ended: each update checks uniqueness again.
    public mutating func endRun() { held = false }

    /// Before an update's writes: the nodes are this value's own.
    @inline(__always) mutating func hold() {
        if !held { nodes.makeUnique() }
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
        // One buffer access for the removal from its current list and the append,
        // unique as `hold` leaves it (no check within a run).
        hold()
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
        hold()
        nodes.withUnsafeMutableBufferPointer { n in
            n[a] = Node()
            if node.prev >= 0 { n[Int(node.prev)].next = node.next } else { n[s].next = node.next }
            if node.next >= 0 { n[Int(node.next)].prev = node.prev } else { n[s].prev = node.prev }
        }
    }
}
