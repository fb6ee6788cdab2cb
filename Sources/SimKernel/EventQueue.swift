/// The future event set: an array-backed 4-ary min-heap of small plain-struct entries.
///
/// ## Ordering contract
/// Entries come out in ascending `(time, sequence)` order. The sequence number is a
/// counter that the queue assigns at `push`, so two events scheduled for the same time
/// come out in the order they were pushed (first in, first out). Given the same pushes
/// in the same order, the pops are the same on every machine and every run.
///
/// ## Cost
/// `push` and `popMin` are O(log₄ n). Storage is one contiguous buffer; once its
/// capacity covers the largest number of pending events (see `reserveCapacity(_:)`),
/// neither operation allocates.
///
/// Cancellation is not done here (it would need a search): stamp events with a
/// generation (see `GenerationTable`) and let the model skip stale ones when they
/// come up.
public struct EventQueue<Event> {
    /// One pending event with its key.
    public struct Entry {
        public var time: SimTime
        public var sequence: UInt64
        public var event: Event

        @inlinable init(time: SimTime, sequence: UInt64, event: Event) {
            self.time = time
            self.sequence = sequence
            self.event = event
        }

        /// Strict `(time, sequence)` order.
        @inlinable @inline(__always)
        static func precedes(_ a: Entry, _ b: Entry) -> Bool {
            a.time.microseconds < b.time.microseconds
                || (a.time.microseconds == b.time.microseconds && a.sequence < b.sequence)
        }
    }

    /// The heap's slots. `storage[0..<live]` is the heap; when `rootIsHole` is set,
    /// `storage[0]` is a popped entry whose slot waits to be refilled (see `popMin`),
    /// and the heap proper is `storage[1..<live]` plus that hole. Slots from `live` on
    /// are spare: a pop leaves its slot there and the next push writes into it, so a
    /// queue whose size goes up and down by one (a device's timers: mostly zero to
    /// three pending) neither appends nor removes, and a pop of the last entry writes
    /// nothing. Only for trivial events (`_isPOD`); others are removed at once, so the
    /// queue keeps no reference alive. The sifts read and write through the buffer's
    /// address (no closure, no check): their indices are in range by construction.
    /// An `UncheckedArray`: its writes check no uniqueness; `prepareWrite` makes the
    /// buffer unique first, once per operation, or once per run (`heldByRun`).
    @usableFromInline var storage: UncheckedArray<Entry>
    @usableFromInline var live = 0
    @usableFromInline var nextSequence: UInt64 = 0
    @usableFromInline var rootIsHole = false
    /// A run holds the queue (`Simulation.run`, `holdForRun`): it made the buffer
    /// unique when it began, and nothing else holds this queue until it ends (the
    /// model is handed the scheduler `inout` and must not copy it), so the run's pushes
    /// and pops skip the uniqueness check (one a push before; its cost: docs/performance.md,
    /// "Costs behind the code's shapes"). Debug builds assert the buffer is unique at
    /// every write.
    @usableFromInline var heldByRun = false

    /// An empty queue. O(1).
    @inlinable public init() { storage = UncheckedArray() }

    /// An empty queue with room for `capacity` pending events. O(capacity) once.
    @inlinable public init(capacity: Int) {
        storage = UncheckedArray()
        storage.reserveCapacity(capacity)
    }

    /// Makes the buffer this queue's own before a write (a copy if another queue
    /// shares it), unless a run holds the queue and did it when it began.
    @inlinable @inline(__always) mutating func prepareWrite() {
        if !heldByRun { storage.makeUnique() }
    }

    /// For the length of a run: makes the buffer unique once, and the run's
    /// operations skip the check (`heldByRun`). `release()` when the run ends.
    @inlinable public mutating func holdForRun() {
        storage.makeUnique()
        heldByRun = true
    }

    /// The run that held the queue ended: every write checks uniqueness again.
    @inlinable public mutating func release() { heldByRun = false }

    /// The number of pending events. O(1).
    @inlinable public var count: Int { rootIsHole ? live &- 1 : live }
    /// Whether no event is pending. O(1).
    @inlinable public var isEmpty: Bool { count == 0 }
    /// The number of events the queue holds before it must grow. O(1).
    @inlinable public var capacity: Int { storage.capacity }
    /// The number of pushes so far; the next push gets this sequence number. O(1).
    @inlinable public var pushedCount: UInt64 { nextSequence }

    /// Makes room for `n` pending events, so pushes up to that size never allocate.
    /// O(n) when it grows, else O(1).
    @inlinable public mutating func reserveCapacity(_ n: Int) { storage.reserveCapacity(n) }

    /// Removes every pending event but keeps the storage, and restarts sequence
    /// numbers at zero, so a reused queue behaves exactly like a new one. O(1) for
    /// trivially destructible events.
    @inlinable public mutating func removeAll() {
        storage.removeAll()
        live = 0
        nextSequence = 0
        rootIsHole = false
    }

    /// The earliest pending entry, without removing it. O(log n) right after a pop
    /// (it settles the heap), else O(1).
    @inlinable @inline(__always) public mutating func min() -> Entry? {
        fillHole()
        return live > 0 ? storage[0] : nil
    }

    /// The address of the earliest pending entry, or nil when empty; valid until the
    /// queue's next write (for the engine: `Simulation.next`). O(log n) right after a
    /// pop (it settles the heap), else O(1).
    @inlinable @inline(__always) mutating func minAddress() -> UnsafePointer<Entry>? {
        fillHole()
        return live > 0 ? UnsafePointer(storage.first) : nil
    }

    /// The time of the earliest pending event, or `nil` when empty. O(log n) right
    /// after a pop (it settles the heap), else O(1).
    @inlinable public mutating func nextTime() -> SimTime? {
        fillHole()
        return live > 0 ? storage[0].time : nil
    }

    /// Adds an event at `time`. O(log n); allocates only when the capacity is exceeded.
    ///
    /// Right after a pop, the new entry drops into the root's hole and sifts down: a
    /// handler that schedules one event per event it handles costs one sift, not two.
    ///
    /// The common case, a queue held by a run with no hole and a spare slot (a
    /// device's timers: 62 % of the default run's pushes find the queue empty, one
    /// store; 27 % find one or more pending, mostly one step up), is inlined where the
    /// push is: the same sift as `pushInHeap`'s, without its call. The rest (the
    /// root's hole, growth, a push outside a run) goes on out of line.
    @inlinable @inline(__always)
    public mutating func push(_ event: Event, at time: SimTime) {
        if _isPOD(Entry.self) && heldByRun && !rootIsHole {
            if live < storage.count {
                assert(storage.isUnique(), "a held queue shares its buffer")
                pushIntoSpareSlot(Entry(time: time, sequence: nextSequence, event: event))
                return
            }
        }
        pushInHeap(event, at: time)
    }

    /// `push` in general: into the root's hole, or a new last slot and up. A run's
    /// push into a spare slot makes no call (nothing to keep across one: no
    /// registers saved and restored for it); the rest, out of line (`pushChecked`).
    @inlinable @inline(never)
    mutating func pushInHeap(_ event: Event, at time: SimTime) {
        let entry = Entry(time: time, sequence: nextSequence, event: event)
        let n = live
        if heldByRun {
            if rootIsHole {
                nextSequence &+= 1
                rootIsHole = false
                Self.siftDown(entry, in: storage.first, count: n)
                return
            }
            if n < storage.count {
                pushIntoSpareSlot(entry)
                return
            }
        }
        pushChecked(entry)
    }

    /// A held queue's push into its next spare slot, then up (`push`, `pushInHeap`).
    @inlinable @inline(__always)
    mutating func pushIntoSpareSlot(_ entry: Entry) {
        let n = live
        nextSequence &+= 1
        live = n &+ 1
        Self.siftUp(entry, from: n, in: storage.first)
    }

    /// `push` with its uniqueness check (outside a run) and its growth.
    @inlinable @inline(never)
    mutating func pushChecked(_ entry: Entry) {
        nextSequence &+= 1
        let n = live
        prepareWrite()
        if rootIsHole {
            rootIsHole = false
            Self.siftDown(entry, in: storage.first, count: n)
            return
        }
        live = n &+ 1
        // A new slot only past the spare ones (the array grows to the most pending).
        if n == storage.count { storage.append(entry) }
        Self.siftUp(entry, from: n, in: storage.first)
    }

    /// Removes and returns the earliest entry (smallest `(time, sequence)`), or `nil`
    /// when empty. O(log n); never allocates. The root's slot is left as a hole that
    /// the next push or pop fills.
    @inlinable
    public mutating func popMin() -> Entry? {
        fillHole()
        guard live > 0 else { return nil }
        let top = storage[0]
        removeSettledMin()
        return top
    }

    /// Removes and returns the earliest entry if its time is ≤ `end`. O(log n).
    @inlinable
    public mutating func popMin(notAfter end: SimTime) -> Entry? {
        fillHole()
        guard live > 0 else { return nil }
        let top = storage[0]
        guard top.time <= end else { return nil }
        removeSettledMin()
        return top
    }

    /// Removes the earliest entry of a settled (no hole), non-empty queue: the last
    /// one leaves its slot spare; otherwise the root becomes the hole. O(1).
    @inlinable @inline(__always)
    mutating func removeSettledMin() {
        if live == 1 {
            live = 0
            if !_isPOD(Entry.self) { _ = storage.removeLast() }
        } else {
            rootIsHole = true
        }
    }

    /// Moves the last entry into the root's hole, if there is one. O(log n). Through
    /// the buffer's address, which the engine's loop inlines whole.
    @inlinable @inline(__always)
    mutating func fillHole() {
        guard rootIsHole else { return }
        prepareWrite()
        rootIsHole = false
        let n = live &- 1
        live = n
        let last = _isPOD(Entry.self) ? storage[n] : storage.removeLast()
        Self.siftDown(last, in: storage.first, count: n)
    }

    /// Places `moving` into slot `start` (a new last slot) and walks it up to its
    /// position.
    @inlinable @inline(__always)
    static func siftUp(_ moving: Entry, from start: Int, in heap: UnsafeMutablePointer<Entry>) {
        var child = start
        while child > 0 {
            let parent = (child &- 1) >> 2
            let p = heap[parent]
            if !Entry.precedes(moving, p) { break }
            heap[child] = p
            child = parent
        }
        heap[child] = moving
    }

    /// Places `moving` into the hole at the root of the heap of `n` slots, walking it
    /// down to its position.
    @inlinable @inline(__always)
    static func siftDown(_ moving: Entry, in heap: UnsafeMutablePointer<Entry>, count n: Int) {
        var hole = 0
        while true {
            let first = (hole << 2) &+ 1
            if first >= n { break }
            // Smallest of up to four children.
            var best = first
            var bestEntry = heap[first]
            let end = Swift.min(first &+ 4, n)
            var c = first &+ 1
            while c < end {
                let e = heap[c]
                if Entry.precedes(e, bestEntry) {
                    best = c
                    bestEntry = e
                }
                c &+= 1
            }
            if !Entry.precedes(bestEntry, moving) { break }
            heap[hole] = bestEntry
            hole = best
        }
        heap[hole] = moving
    }
}

extension EventQueue {
    /// Checks the heap property over every entry. O(n). For tests and debug checks.
    public func isValidHeap() -> Bool {
        // With a hole at the root, only the subtrees below it need be heaps.
        for i in stride(from: rootIsHole ? 5 : 1, to: live, by: 1) {
            let parent = (i - 1) >> 2
            if Entry.precedes(storage[i], storage[parent]) { return false }
        }
        return true
    }
}

extension EventQueue: Sendable where Event: Sendable {}
extension EventQueue.Entry: Sendable where Event: Sendable {}
