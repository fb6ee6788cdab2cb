/// A binary min-heap of app indices with a two-part key, supporting update and
/// removal of any app in O(log n) through a position table. Ties are broken by the
/// smaller app index, so the order is total and runs are repeatable.
public struct IndexedHeap: Sendable {
    public struct Key: Sendable, Equatable {
        public var primary: Int64
        public var secondary: Int64
        @inlinable public init(_ primary: Int64, _ secondary: Int64 = 0) {
            self.primary = primary
            self.secondary = secondary
        }
    }

    @usableFromInline var heap: ContiguousArray<Int32> = []
    @usableFromInline var keys: ContiguousArray<Key> = []
    /// Position of each app in `heap`, or -1.
    @usableFromInline var position: ContiguousArray<Int32> = []

    public init() {}

    /// Empties the heap for apps 0..<appCount, keeping storage.
    public mutating func reset(appCount: Int) {
        heap.removeAll(keepingCapacity: true)
        heap.reserveCapacity(appCount)
        if position.count != appCount {
            position.removeAll(keepingCapacity: true)
            position.append(contentsOf: repeatElement(-1, count: appCount))
            keys.removeAll(keepingCapacity: true)
            keys.append(contentsOf: repeatElement(Key(0), count: appCount))
        } else {
            for i in position.indices { position[i] = -1 }
        }
    }

    @inlinable public var count: Int { heap.count }
    @inlinable public var isEmpty: Bool { heap.isEmpty }
    @inlinable public func contains(_ app: Int32) -> Bool { position[Int(app)] >= 0 }
    @inlinable public func key(of app: Int32) -> Key { keys[Int(app)] }

    /// The app with the smallest key, without removing it. O(1).
    @inlinable public var min: Int32? { heap.first }

    @inlinable @inline(__always)
    func less(_ a: Int32, _ b: Int32) -> Bool {
        let ka = keys[Int(a)], kb = keys[Int(b)]
        if ka.primary != kb.primary { return ka.primary < kb.primary }
        if ka.secondary != kb.secondary { return ka.secondary < kb.secondary }
        return a < b
    }

    /// Inserts `app` with `key`, or moves it to its new key. O(log n).
    @inlinable
    public mutating func set(_ app: Int32, _ key: Key) {
        let p = Int(position[Int(app)])
        if p < 0 {
            keys[Int(app)] = key
            heap.append(app)
            position[Int(app)] = Int32(heap.count - 1)
            siftUp(heap.count - 1)
        } else {
            let old = keys[Int(app)]
            keys[Int(app)] = key
            if old == key { return }
            siftUp(p)
            siftDown(Int(position[Int(app)]))
        }
    }

    /// Removes `app` if present. O(log n).
    @inlinable
    public mutating func remove(_ app: Int32) {
        let p = Int(position[Int(app)])
        if p < 0 { return }
        position[Int(app)] = -1
        let last = heap.removeLast()
        if p < heap.count {
            heap[p] = last
            position[Int(last)] = Int32(p)
            siftUp(p)
            siftDown(Int(position[Int(last)]))
        }
    }

    @inlinable
    mutating func siftUp(_ start: Int) {
        var i = start
        let app = heap[i]
        while i > 0 {
            let parent = (i - 1) >> 1
            if !less(app, heap[parent]) { break }
            heap[i] = heap[parent]
            position[Int(heap[i])] = Int32(i)
            i = parent
        }
        heap[i] = app
        position[Int(app)] = Int32(i)
    }

    @inlinable
    mutating func siftDown(_ start: Int) {
        var i = start
        let n = heap.count
        let app = heap[i]
        while true {
            let l = 2 * i + 1
            if l >= n { break }
            var c = l
            if l + 1 < n, less(heap[l + 1], heap[l]) { c = l + 1 }
            if !less(heap[c], app) { break }
            heap[i] = heap[c]
            position[Int(heap[i])] = Int32(i)
            i = c
        }
        heap[i] = app
        position[Int(app)] = Int32(i)
    }

    /// Bytes of storage held (capacities).
    public var stateBytes: Int {
        heap.capacity * 4 + keys.capacity * MemoryLayout<Key>.stride + position.capacity * 4
    }

    /// Checks the heap and position invariants. O(n); for tests.
    public func isValid() -> Bool {
        for (i, app) in heap.enumerated() {
            if position[Int(app)] != Int32(i) { return false }
            if i > 0 && less(app, heap[(i - 1) >> 1]) { return false }
        }
        return position.enumerated().filter { $0.element >= 0 }.count == heap.count
    }
}

/// An intrusive doubly-linked list of app indices: append at the tail, remove any,
/// read the head, all O(1). Used for recency (LRU). Each app's links sit together in
/// one 8-byte node (not in separate arrays), so touching an app's place in the list
/// costs one cache line, not three.
public struct AppList: Sendable {
    /// Per app: next and prev (-1: none); prev == -2 means not in the list.
    @usableFromInline var nodes: ContiguousArray<(next: Int32, prev: Int32)> = []
    public private(set) var head: Int32 = -1
    public private(set) var tail: Int32 = -1
    public private(set) var count = 0
    @usableFromInline static let outside: Int32 = -2

    public init() {}

    /// Empties the list for apps 0..<appCount, keeping storage.
    public mutating func reset(appCount: Int) {
        head = -1; tail = -1; count = 0
        nodes.removeAll(keepingCapacity: true)
        nodes.append(contentsOf: repeatElement((next: Int32(-1), prev: Self.outside), count: appCount))
    }

    @inlinable @inline(__always) public func contains(_ app: Int32) -> Bool { nodes[Int(app)].prev != Self.outside }

    /// Appends `app` (which must not be in the list) at the tail. O(1). Through one
    /// buffer access, inlined: the generic path was a call, a uniqueness check per
    /// write and a bounds check per read (about 45 instructions an append, at every
    /// app leaving the front under `lru`). Links are in range by construction; `app`
    /// is checked once.
    @inline(__always)
    public mutating func append(_ app: Int32) {
        let a = Int(app)
        precondition(a >= 0 && a < nodes.count, "app \(app) out of range")
        let t = tail
        nodes.withUnsafeMutableBufferPointer { n in
            precondition(n[a].prev == Self.outside, "app \(app) is already in the list")
            n[a] = (-1, t)
            if t >= 0 { n[Int(t)].next = app }
        }
        if t < 0 { head = app }
        tail = app
        count += 1
    }

    /// Removes `app` if present. O(1). Reads before it writes (an app not in the
    /// list, as at most launches, costs no uniqueness check), then one buffer access.
    @inline(__always)
    public mutating func remove(_ app: Int32) {
        let a = Int(app)
        precondition(a >= 0 && a < nodes.count, "app \(app) out of range")
        let node = nodes.withUnsafeBufferPointer { $0[a] }
        guard node.prev != Self.outside else { return }
        nodes.withUnsafeMutableBufferPointer { n in
            n[a] = (-1, Self.outside)
            if node.prev >= 0 { n[Int(node.prev)].next = node.next }
            if node.next >= 0 { n[Int(node.next)].prev = node.prev }
        }
        if node.prev < 0 { head = node.next }
        if node.next < 0 { tail = node.prev }
        count -= 1
    }

    /// Bytes of storage held (capacities).
    public var stateBytes: Int { nodes.capacity * MemoryLayout<(next: Int32, prev: Int32)>.stride }

    /// The apps in order; O(n), for tests and debugging.
    public var elements: [Int32] {
        var out: [Int32] = []
        var a = head
        while a >= 0 { out.append(a); a = nodes[Int(a)].next }
        return out
    }
}

/// Several binary min-heaps over the same apps, each app in at most one, sharing one
/// key and position table (so a policy with several orders pays for one set of keys).
/// Keys are single 64-bit integers; ties are broken by the smaller app index.
public struct IndexedHeaps: Sendable {
    @usableFromInline var heaps: [ContiguousArray<Int32>]
    @usableFromInline var keys: ContiguousArray<Int64> = []
    @usableFromInline var position: ContiguousArray<Int32> = []
    /// The heap each app is in, or -1.
    @usableFromInline var heapOf: ContiguousArray<Int8> = []

    public init(count: Int) { heaps = Array(repeating: [], count: count) }

    public mutating func reset(appCount: Int) {
        for h in heaps.indices {
            heaps[h].removeAll(keepingCapacity: true)
            heaps[h].reserveCapacity(appCount)
        }
        if position.count != appCount {
            position.removeAll(keepingCapacity: true)
            position.append(contentsOf: repeatElement(-1, count: appCount))
            heapOf.removeAll(keepingCapacity: true)
            heapOf.append(contentsOf: repeatElement(-1, count: appCount))
            keys.removeAll(keepingCapacity: true)
            keys.append(contentsOf: repeatElement(0, count: appCount))
        } else {
            for i in position.indices { position[i] = -1; heapOf[i] = -1 }
        }
    }

    /// The heap `app` is in, or -1.
    @inlinable public func heap(of app: Int32) -> Int { Int(heapOf[Int(app)]) }
    @inlinable public func count(_ h: Int) -> Int { heaps[h].count }
    @inlinable public func min(_ h: Int) -> Int32? { heaps[h].first }

    /// Puts `app` in heap `h` with `key` (moving it from another heap if needed). O(log n).
    public mutating func set(_ app: Int32, _ key: Int64, in h: Int) {
        if heap(of: app) != h { remove(app) }
        let p = Int(position[Int(app)])
        keys[Int(app)] = key
        // The heap is moved out of `heaps` while it is worked on (and back after):
        // writing `heaps[h][i]` in place checks both arrays for a unique reference
        // on every write (android-lmk's updates spent ~8 % of the Android run here).
        var heap = ContiguousArray<Int32>()
        swap(&heap, &heaps[h])
        if p < 0 {
            heap.append(app)
            heapOf[Int(app)] = Int8(h)
            position[Int(app)] = Int32(heap.count - 1)
            Self.siftUp(&heap, heap.count - 1, keys: keys, position: &position)
        } else {
            Self.siftUp(&heap, p, keys: keys, position: &position)
            Self.siftDown(&heap, Int(position[Int(app)]), keys: keys, position: &position)
        }
        swap(&heap, &heaps[h])
    }

    /// Removes `app` from its heap, if any. O(log n).
    public mutating func remove(_ app: Int32) {
        let h = heap(of: app)
        guard h >= 0 else { return }
        let p = Int(position[Int(app)])
        position[Int(app)] = -1
        heapOf[Int(app)] = -1
        var heap = ContiguousArray<Int32>()
        swap(&heap, &heaps[h])
        let last = heap.removeLast()
        if p < heap.count {
            heap[p] = last
            position[Int(last)] = Int32(p)
            Self.siftUp(&heap, p, keys: keys, position: &position)
            Self.siftDown(&heap, Int(position[Int(last)]), keys: keys, position: &position)
        }
        swap(&heap, &heaps[h])
    }

    @inline(__always)
    static func less(_ a: Int32, _ b: Int32, _ keys: ContiguousArray<Int64>) -> Bool {
        let ka = keys[Int(a)], kb = keys[Int(b)]
        return ka < kb || (ka == kb && a < b)
    }

    static func siftUp(_ heap: inout ContiguousArray<Int32>, _ start: Int, keys: ContiguousArray<Int64>,
                       position: inout ContiguousArray<Int32>) {
        var i = start
        let app = heap[i]
        while i > 0 {
            let parent = (i - 1) >> 1
            if !less(app, heap[parent], keys) { break }
            heap[i] = heap[parent]
            position[Int(heap[i])] = Int32(i)
            i = parent
        }
        heap[i] = app
        position[Int(app)] = Int32(i)
    }

    static func siftDown(_ heap: inout ContiguousArray<Int32>, _ start: Int, keys: ContiguousArray<Int64>,
                         position: inout ContiguousArray<Int32>) {
        var i = start
        let n = heap.count
        let app = heap[i]
        while true {
            let l = 2 * i + 1
            if l >= n { break }
            var c = l
            if l + 1 < n, less(heap[l + 1], heap[l], keys) { c = l + 1 }
            if !less(heap[c], app, keys) { break }
            heap[i] = heap[c]
            position[Int(heap[i])] = Int32(i)
            i = c
        }
        heap[i] = app
        position[Int(app)] = Int32(i)
    }

    /// Bytes of storage held (capacities).
    public var stateBytes: Int {
        heaps.reduce(0) { $0 + $1.capacity * 4 } + keys.capacity * 8
            + position.capacity * 4 + heapOf.capacity
    }
}
