import SimKernel

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

/// Several binary min-heaps over the same apps, each app in at most one, sharing one
/// key and position table (so a policy with several orders pays for one set of keys).
/// Keys are single 64-bit integers; ties are broken by the smaller app index.
///
/// Two buffers (`UncheckedArray`), each made unique once per operation: the apps'
/// records (key, position, heap) and the heaps' slots (every heap's apps, and the
/// counts). Nested arrays (an array of heaps, and a key, position and heap array)
/// checked a uniqueness per write, a dozen an update, and retained the keys per
/// sift (their cost under android-lmk: docs/performance.md, "Costs behind the code's
/// shapes"). The heaps' order is the same (the same sifts).
public struct IndexedHeaps: Sendable {
    /// An app's key, its position in its heap, and its heap (-1: none).
    @usableFromInline struct Record: Sendable {
        @usableFromInline var key: Int64 = 0
        @usableFromInline var position: Int32 = -1
        @usableFromInline var heap: Int8 = -1
        @usableFromInline init() {}
    }

    @usableFromInline var records = UncheckedArray<Record>()
    /// Heap `h`'s count at `slots[h]`, its apps at `slots[heapCount + h * apps ..<]`.
    @usableFromInline var slots = UncheckedArray<Int32>()
    @usableFromInline let heapCount: Int
    /// The apps (each heap's room).
    @usableFromInline var apps = 0

    public init(count: Int) { heapCount = count }

    public mutating func reset(appCount: Int) {
        apps = appCount
        records.removeAll()
        records.append(repeating: Record(), count: appCount)
        slots.removeAll()
        slots.append(repeating: 0, count: heapCount * (1 + appCount))
    }

    /// The heap `app` is in, or -1.
    @inlinable public func heap(of app: Int32) -> Int { Int(records[checked(app)].heap) }
    @inlinable public func count(_ h: Int) -> Int { Int(slots[checkedHeap(h)]) }
    @inlinable public func min(_ h: Int) -> Int32? { count(h) > 0 ? slots[heapCount + h * apps] : nil }
    /// The key `app` was last put in its heap with.
    @inlinable public func key(of app: Int32) -> Int64 { records[checked(app)].key }

    /// `app` as an index, checked (the buffers' subscripts check only in debug builds).
    @inlinable @inline(__always) func checked(_ app: Int32) -> Int {
        precondition(app >= 0 && Int(app) < apps, "app \(app) out of range")
        return Int(app)
    }

    @inlinable @inline(__always) func checkedHeap(_ h: Int) -> Int {
        precondition(h >= 0 && h < heapCount, "heap \(h) out of range")
        return h
    }

    /// Puts `app` in heap `h` with `key` (moving it from another heap if needed). O(log n).
    public mutating func set(_ app: Int32, _ key: Int64, in h: Int) {
        let a = checked(app), h = checkedHeap(h)
        if Int(records[a].heap) != h { remove(app) }
        let base = heapCount + h * apps
        records.makeUnique()
        slots.makeUnique()
        records.withUnsafeMutableBufferPointer { r in
            slots.withUnsafeMutableBufferPointer { s in
                r[a].key = key
                let p = Int(r[a].position)
                if p < 0 {
                    let n = Int(s[h])
                    s[h] = Int32(n + 1)
                    s[base + n] = app
                    r[a].heap = Int8(h)
                    r[a].position = Int32(n)
                    Self.siftUp(s, base, n, r)
                } else {
                    Self.siftUp(s, base, p, r)
                    Self.siftDown(s, base, Int(s[h]), Int(r[a].position), r)
                }
            }
        }
    }

    /// Removes `app` from its heap, if any. O(log n).
    public mutating func remove(_ app: Int32) {
        let a = checked(app)
        let h = Int(records[a].heap)
        guard h >= 0 else { return }
        let base = heapCount + h * apps
        records.makeUnique()
        slots.makeUnique()
        records.withUnsafeMutableBufferPointer { r in
            slots.withUnsafeMutableBufferPointer { s in
                let p = Int(r[a].position)
                r[a].position = -1
                r[a].heap = -1
                let n = Int(s[h]) - 1
                s[h] = Int32(n)
                let last = s[base + n]
                if p < n {
                    s[base + p] = last
                    r[Int(last)].position = Int32(p)
                    Self.siftUp(s, base, p, r)
                    Self.siftDown(s, base, n, Int(r[Int(last)].position), r)
                }
            }
        }
    }

    @inline(__always)
    static func less(_ a: Int32, _ b: Int32, _ r: UnsafeMutableBufferPointer<Record>) -> Bool {
        let ka = r[Int(a)].key, kb = r[Int(b)].key
        return ka < kb || (ka == kb && a < b)
    }

    /// Sifts the app at position `start` of the heap at `s[base...]` up. Positions and
    /// apps are in range by construction.
    @inline(__always)
    static func siftUp(_ s: UnsafeMutableBufferPointer<Int32>, _ base: Int, _ start: Int, _ r: UnsafeMutableBufferPointer<Record>) {
        var i = start
        let app = s[base + i]
        while i > 0 {
            let parent = (i - 1) >> 1
            if !less(app, s[base + parent], r) { break }
            s[base + i] = s[base + parent]
            r[Int(s[base + i])].position = Int32(i)
            i = parent
        }
        s[base + i] = app
        r[Int(app)].position = Int32(i)
    }

    /// Sifts the app at position `start` of the heap of `n` apps at `s[base...]` down.
    @inline(__always)
    static func siftDown(_ s: UnsafeMutableBufferPointer<Int32>, _ base: Int, _ n: Int, _ start: Int,
                         _ r: UnsafeMutableBufferPointer<Record>) {
        var i = start
        let app = s[base + i]
        while true {
            let l = 2 * i + 1
            if l >= n { break }
            var c = l
            if l + 1 < n, less(s[base + l + 1], s[base + l], r) { c = l + 1 }
            if !less(s[base + c], app, r) { break }
            s[base + i] = s[base + c]
            r[Int(s[base + i])].position = Int32(i)
            i = c
        }
        s[base + i] = app
        r[Int(app)].position = Int32(i)
    }

    /// Bytes of storage held (capacities).
    public var stateBytes: Int {
        slots.capacity * 4 + records.capacity * MemoryLayout<Record>.stride
    }
}
