/// A growable contiguous array whose element writes skip the per-write uniqueness
/// check of `ContiguousArray` (a call into the runtime) and, in release builds, the
/// bounds check: for the hot state of a simulation, written many times an event
/// (a device's app records, the event queue's heap).
///
/// Copy-on-write is explicit instead: the owner calls `makeUnique()` before a batch of
/// writes (a device once at the top of each event; the event queue once per run, or
/// per operation outside a run), so an element write never lands in a buffer another
/// copy shares. Debug builds (the tests) assert both at every write, so a path that
/// writes without passing through its owner's `makeUnique()` fails its test instead
/// of changing a copy. Reads are plain loads, valid in any copy.
///
/// One buffer (`ManagedBuffer`: one allocation, as the array's), grown as
/// `ContiguousArray` grows (`reserveCapacity`: to exactly what is asked; appending: to
/// the larger of the new count and twice the capacity), so the allocation gates count
/// the same. Elements are deinitialised when the buffer goes.
public struct UncheckedArray<Element>: RandomAccessCollection, @unchecked Sendable {
    // @unchecked Sendable: a value with copy-on-write, as Array (a shared buffer is
    // only read; a write first makes it unique). Elements should be Sendable to cross.
    public typealias Index = Int
    public typealias Indices = Range<Int>

    /// The buffer; its header is the number of elements initialised.
    @usableFromInline final class Buffer: ManagedBuffer<Int, Element> {
        deinit { _ = withUnsafeMutablePointers { count, e in e.deinitialize(count: count.pointee) } }
    }

    /// nil until the first element or reservation (an empty array allocates nothing).
    @usableFromInline var buffer: Buffer?

    @inlinable public init() {}

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }
    @inlinable public var count: Int { buffer == nil ? 0 : countAddress.pointee }

    /// The count's address (a buffer exists): the header, reached by pointer
    /// arithmetic (`ManagedBufferPointer`), as the elements are. `header` itself is a
    /// class property: every access to it from another module went through the
    /// runtime's exclusivity check, twice a push (docs/performance.md, "Costs behind
    /// the code's shapes").
    @inlinable @inline(__always) var countAddress: UnsafeMutablePointer<Int> {
        ManagedBufferPointer<Int, Element>(unsafeBufferObject: buffer.unsafelyUnwrapped).withUnsafeMutablePointerToHeader { $0 }
    }

    /// Sets the count (a buffer exists).
    @inlinable @inline(__always) func setCount(_ n: Int) { countAddress.pointee = n }

    @inlinable public var indices: Range<Int> { 0..<count }
    /// The elements the buffer has room for.
    public var capacity: Int { buffer?.capacity ?? 0 }

    /// The first element's address (a buffer exists whenever an index is valid).
    @inlinable @inline(__always) var first: UnsafeMutablePointer<Element> {
        ManagedBufferPointer<Int, Element>(unsafeBufferObject: buffer.unsafelyUnwrapped).withUnsafeMutablePointerToElements { $0 }
    }

    /// Whether no other value shares the buffer (debug checks).
    @inlinable public mutating func isUnique() -> Bool { buffer == nil || isKnownUniquelyReferenced(&buffer) }

    /// Element `i`. A write goes straight to the buffer, made unique by the owner's
    /// `makeUnique()` (asserted in debug builds).
    @inlinable public subscript(i: Int) -> Element {
        @inline(__always) get {
            assert(i >= 0 && i < count, "index \(i) out of range")
            return first[i]
        }
        @inline(__always) _modify {
            assert(i >= 0 && i < count, "index \(i) out of range")
            assert(isUnique(), "an element written without makeUnique()")
            let address = first + i
            yield &address.pointee
        }
    }

    /// Makes the buffer this value's own (a copy if another value shares it).
    @inlinable @inline(__always) public mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&buffer) && buffer != nil { copyBuffer(capacity: capacity) }
    }

    /// Replaces the buffer by one with room for `n` holding the elements
    /// (`ManagedBuffer.create`: one allocation); moves them if the old buffer is this
    /// value's alone, else copies them.
    @usableFromInline mutating func copyBuffer(capacity n: Int) {
        let count = self.count
        let new = unsafeDowncast(Buffer.create(minimumCapacity: Swift.max(n, count)) { _ in count }, to: Buffer.self)
        if count > 0 {
            let target = new.withUnsafeMutablePointerToElements { $0 }
            if isKnownUniquelyReferenced(&buffer) {
                target.moveInitialize(from: first, count: count)
                setCount(0)
            } else {
                target.initialize(from: first, count: count)
            }
        }
        buffer = new
    }

    /// Room for `n` elements, so appends up to that count never allocate (as
    /// `ContiguousArray.reserveCapacity`). Also makes the buffer unique.
    public mutating func reserveCapacity(_ n: Int) {
        if n > capacity { copyBuffer(capacity: n) } else { makeUnique() }
    }

    /// Removes every element, keeping the buffer.
    public mutating func removeAll() {
        guard buffer != nil else { return }
        makeUnique()
        buffer.unsafelyUnwrapped.withUnsafeMutablePointers { count, e in
            e.deinitialize(count: count.pointee)
            count.pointee = 0
        }
    }

    /// Makes room for `n` more elements (growing as `ContiguousArray` appends) and
    /// the buffer unique.
    @inlinable @inline(__always) mutating func prepareAppend(_ n: Int) {
        let c = count
        if c &+ n > capacity { copyBuffer(capacity: Swift.max(c &+ n, 2 &* capacity)) } else { makeUnique() }
    }

    /// Appends `n` copies of `e`.
    public mutating func append(repeating e: Element, count n: Int) {
        prepareAppend(n)
        guard n > 0 else { return }
        let old = count
        (first + old).initialize(repeating: e, count: n)
        setCount(old + n)
    }

    /// Appends `e`.
    public mutating func append(_ e: Element) {
        prepareAppend(1)
        let old = count
        (first + old).initialize(to: e)
        setCount(old &+ 1)
    }

    /// Removes and returns the last element (there must be one).
    public mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast of an empty array")
        makeUnique()
        let c = count &- 1
        setCount(c)
        return (first + c).move()
    }

    /// The elements as a mutable buffer. Debug builds assert the buffer is unique.
    @inlinable @inline(__always)
    public mutating func withUnsafeMutableBufferPointer<R>(_ body: (inout UnsafeMutableBufferPointer<Element>) throws -> R) rethrows -> R {
        assert(isUnique(), "elements written without makeUnique()")
        var b = UnsafeMutableBufferPointer(start: buffer == nil ? nil : first, count: count)
        return try body(&b)
    }
}

extension UncheckedArray: Equatable where Element: Equatable {
    public static func == (a: UncheckedArray, b: UncheckedArray) -> Bool {
        a.count == b.count && a.indices.allSatisfy { a[$0] == b[$0] }
    }
}
