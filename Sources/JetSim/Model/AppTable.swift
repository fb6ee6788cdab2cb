/// A device's app records (`Device.apps`): one contiguous buffer, as the
/// `ContiguousArray` it replaces, but whose element writes skip the array's per-write
/// uniqueness check (a call into the runtime, about 4 a default-workload event) and
/// bounds check.
///
/// Copy-on-write is made explicit instead: the device calls `makeUnique()` once at
/// the top of each event (`Device.handle`, `Device.handleInput`: every public
/// mutating entry that reaches a write; `reset` and the table's own growing methods
/// make it unique themselves), so an element write never lands in a buffer another
/// copy shares. Debug builds (the tests) assert both at every write, so a path that
/// writes without passing through one of those entries fails its test rather than
/// corrupting a copy. Indices are the app numbers the device hands out (0..<count);
/// debug builds check them too.
///
/// Allocation is the array's: one buffer for the largest count reserved, grown by
/// doubling (`reserveCapacity`, `append(repeating:count:)`) at the same points as
/// `ContiguousArray` grows, so the allocation gates count the same.
public struct AppTable: RandomAccessCollection, Equatable, @unchecked Sendable {
    // @unchecked Sendable: a value with copy-on-write, as Array is (a shared buffer
    // is only read; a write first makes it unique).
    public typealias Element = AppRuntime
    public typealias Index = Int
    public typealias Indices = Range<Int>

    /// The buffer: its header is the number of records in use.
    @usableFromInline final class Buffer: ManagedBuffer<Int, AppRuntime> {
        deinit { _ = withUnsafeMutablePointers { count, e in e.deinitialize(count: count.pointee) } }
    }

    /// nil until the first record or reservation (an empty table allocates nothing).
    @usableFromInline var buffer: Buffer?

    @inlinable public init() {}

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }
    @inlinable public var count: Int {
        guard let b = buffer else { return 0 }
        return b.header
    }
    @inlinable public var indices: Range<Int> { 0..<count }
    /// The records the buffer has room for.
    public var capacity: Int { buffer?.capacity ?? 0 }

    /// The first record's address (a buffer exists whenever an index is valid).
    @inlinable @inline(__always) var first: UnsafeMutablePointer<AppRuntime> {
        buffer.unsafelyUnwrapped.withUnsafeMutablePointerToElements { $0 }
    }

    /// Record `i`. Reads are plain loads; a write goes straight to the buffer, made
    /// unique by the event's `makeUnique()` (asserted in debug builds).
    @inlinable public subscript(i: Int) -> AppRuntime {
        @inline(__always) get {
            assert(i >= 0 && i < count, "app \(i) out of range")
            return first[i]
        }
        @inline(__always) _modify {
            assert(i >= 0 && i < count, "app \(i) out of range")
            assert(isKnownUniquelyReferenced(&buffer), "an app record written without makeUnique()")
            let address = first + i
            yield &address.pointee
        }
    }

    /// Makes the buffer this table's own (a copy if another value shares it): once per
    /// event, before any write.
    @inlinable @inline(__always) public mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&buffer) { copyBuffer(capacity: capacity) }
    }

    /// Replaces the buffer by a copy of its records with room for `n`
    /// (`ManagedBuffer.create`: one allocation, as the array's).
    @usableFromInline mutating func copyBuffer(capacity n: Int) {
        let count = self.count
        guard n > 0 else { buffer = nil; return }
        let new = unsafeDowncast(Buffer.create(minimumCapacity: n) { _ in count }, to: Buffer.self)
        if count > 0 {
            new.withUnsafeMutablePointerToElements { $0.initialize(from: first, count: count) }
        }
        buffer = new
    }

    /// Room for `n` records, so appends up to that count never allocate (as
    /// `ContiguousArray.reserveCapacity`: exactly `n`, or what the allocator rounds it
    /// up to). Also makes the buffer unique.
    public mutating func reserveCapacity(_ n: Int) {
        if n > capacity { copyBuffer(capacity: n) } else { makeUnique() }
    }

    /// Empties the table, keeping its buffer.
    public mutating func removeAll() {
        guard buffer != nil else { return }
        makeUnique()
        buffer.unsafelyUnwrapped.header = 0
    }

    /// Appends `n` copies of `r`, growing as `ContiguousArray.append(contentsOf:)` does
    /// (to the larger of the new count and twice the capacity).
    public mutating func append(repeating r: AppRuntime, count n: Int) {
        let old = count
        if old + n > capacity { copyBuffer(capacity: Swift.max(old + n, 2 * capacity)) } else { makeUnique() }
        guard n > 0 else { return }
        (first + old).initialize(repeating: r, count: n)
        buffer.unsafelyUnwrapped.header = old + n
    }

    /// The records as a mutable buffer (unique, as `ContiguousArray`'s method makes it).
    @inlinable @inline(__always)
    public mutating func withUnsafeMutableBufferPointer<R>(_ body: (inout UnsafeMutableBufferPointer<AppRuntime>) throws -> R) rethrows -> R {
        assert(isKnownUniquelyReferenced(&buffer) || buffer == nil, "app records written without makeUnique()")
        var b = UnsafeMutableBufferPointer(start: buffer == nil ? nil : first, count: count)
        return try body(&b)
    }

    public static func == (a: AppTable, b: AppTable) -> Bool {
        a.count == b.count && a.indices.allSatisfy { a[$0] == b[$0] }
    }
}
