import SimKernel

/// `android-lmk`: Android's low-memory killer order by oom_score_adj (AOSP
/// ProcessList.java, system/memory/lmkd): the highest adj dies first; within an adj
/// the least recently adjusted; at adj <= 200 the largest resident set instead.
///
/// | adj | class | candidates here | order within |
/// |---|---|---|---|
/// | 900-999 | cached | suspended apps, except the previous one | least recently used first (older = higher adj) |
/// | 700 | previous | the app the user was in before the current one, if suspended | - |
/// | 500 | service | executing in the background (task or grace) | least recently adjusted first |
/// | 200 | perceptible | an active background mode (audio, location, voip) | largest resident first |
///
/// Index: a heap for cached apps (by last use), a FIFO list for services, a heap for
/// perceptible apps (by size). O(log n) per update and kill.
public struct AndroidLMK: EvictionPolicy {
    public static let name = "android-lmk"

    static let none: UInt8 = 0, cached: UInt8 = 1, previousClass: UInt8 = 2, service: UInt8 = 3, perceptible: UInt8 = 4

    var cachedHeap = IndexedHeap()
    var services = AppList()
    var perceptibleHeap = IndexedHeap()
    var category: ContiguousArray<UInt8> = []
    var lastUsed: ContiguousArray<Int64> = []
    /// The app most recently left by the user, or -1.
    var previous: Int32 = -1

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) {
        cachedHeap.reset(appCount: appCount)
        services.reset(appCount: appCount)
        perceptibleHeap.reset(appCount: appCount)
        category.removeAll(keepingCapacity: true)
        category.append(contentsOf: repeatElement(Self.none, count: appCount))
        lastUsed.removeAll(keepingCapacity: true)
        lastUsed.append(contentsOf: repeatElement(0, count: appCount))
        previous = -1
    }

    /// The oom_score_adj class of a candidate (the previous app only when suspended:
    /// a service or perceptible app keeps its lower adj).
    func classOf(_ app: Int32, _ c: EvictionCandidate) -> UInt8 {
        if c.mode != .none { return Self.perceptible }
        if c.state == .background { return Self.service }
        return app == previous ? Self.previousClass : Self.cached
    }

    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        lastUsed[Int(app)] = c.lastUsed.microseconds
        if c.leftFront && previous != app {
            let old = previous
            previous = app
            // The former previous app, if it was held at 700, drops to cached.
            if old >= 0 && category[Int(old)] == Self.previousClass { place(old, Self.cached, residentKB: 0) }
        }
        place(app, classOf(app, c), residentKB: c.residentKB)
    }

    mutating func place(_ app: Int32, _ cls: UInt8, residentKB: Int64) {
        let a = Int(app)
        let old = category[a]
        if old != cls {
            detach(app)
            category[a] = cls
        }
        switch cls {
        case Self.cached: cachedHeap.set(app, .init(lastUsed[a]))
        case Self.service: if !services.contains(app) { services.append(app) }
        case Self.perceptible: perceptibleHeap.set(app, .init(-residentKB, lastUsed[a]))
        default: break
        }
    }

    mutating func detach(_ app: Int32) {
        switch category[Int(app)] {
        case Self.cached: cachedHeap.remove(app)
        case Self.service: services.remove(app)
        case Self.perceptible: perceptibleHeap.remove(app)
        default: break
        }
        category[Int(app)] = Self.none
    }

    public mutating func remove(_ app: Int32) {
        detach(app)
        if previous == app { previous = -1 }
    }

    public mutating func victim() -> Int32? {
        if let a = cachedHeap.min { return a }
        if previous >= 0 && category[Int(previous)] == Self.previousClass { return previous }
        if services.head >= 0 { return services.head }
        return perceptibleHeap.min
    }
}
