import SimKernel

/// `fifo`: kill the candidate whose process started first, whatever its use since (a
/// use does not reorder it: libCacheSim's FIFO, the cache's insertion order). The
/// device says when a process starts (`processStarted`: a launch from no process, a
/// system launch, a prewarm). A baseline, outside `all`: name it to run it.
///
/// Index: a heap keyed by the process's start number.
public struct FIFO: EvictionPolicy {
    public static let name = "fifo"
    public static var readsCosts: Bool { false }
    public static var inAll: Bool { false }
    public static let summary = "baseline: the oldest process first (started longest ago, however used since)"
    var heap = IndexedHeap()
    /// Each app's process start number (0: none seen). 32 bits, so the policy stays
    /// within 144 bytes an installed app (StateBytesTests); it would wrap after 2^32
    /// process starts on one device, a thousand times more than a century of use.
    var started: [UInt32] = []
    var starts: UInt32 = 0

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) {
        heap.reset(appCount: appCount)
        started.removeAll(keepingCapacity: true)
        started.append(contentsOf: repeatElement(0, count: appCount))
        starts = 0
    }

    @inline(__always)
    public mutating func processStarted(_ app: Int32) {
        starts &+= 1
        started[Int(app)] = starts
    }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        guard !heap.contains(app) else { return }
        // A candidate whose start the device did not announce (a hand-built test
        // feeding updates alone) starts when it is first seen.
        if started[Int(app)] == 0 { processStarted(app) }
        heap.set(app, .init(Int64(started[Int(app)])))
    }

    @inline(__always) public mutating func remove(_ app: Int32) { heap.remove(app) }

    public var stateBytes: Int { heap.stateBytes + started.capacity * MemoryLayout<UInt32>.stride }

    public var hasCandidates: Bool { !heap.isEmpty }

    public func victim() -> Int32 { heap.min! }
}
