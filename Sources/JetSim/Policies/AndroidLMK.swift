import SimKernel

/// `android-lmk`: Android's low-memory killer order by oom_score_adj (AOSP
/// ProcessList.java, system/memory/lmkd): the highest adj dies first; within an adj
/// the least recently adjusted; at adj <= 200 the largest resident set instead. The adj
/// is the one ActivityManager gives (`EvictionCandidate.oomAdj`, the device's
/// `baseOomAdj`).
///
/// | adj | class | candidates here | order within |
/// |---|---|---|---|
/// | 900-999 | cached | suspended apps, and apps in the background grace (no task, no mode), except the previous one: two sequences of slots by recency, with activities from 900, empty processes from 905 (`OomAdj.cachedSlot`) | the higher slot of the two sequences' oldest; a tie, the older |
/// | 700 | previous | the app the user was in before the current one, if suspended or in the grace | - |
/// | 500 | service | executing background work (a task, or the system's run after a wake) | least recently adjusted first |
/// | 200 | perceptible | an active background mode (audio, location, voip) | largest resident first |
///
/// Index: a heap for each cached sequence (by last use), a FIFO list for services, a
/// heap for perceptible apps (by size). O(log n) per update and kill.
public struct AndroidLMK: EvictionPolicy {
    public static let name = "android-lmk"
    /// Reads no costs from a candidate (`EvictionPolicy.readsCosts`).
    public static var readsCosts: Bool { false }
    /// Holds the previous app at adj 700 (`EvictionPolicy.readsPrevious`).
    public static var readsPrevious: Bool { true }
    public static let summary = "Android lmkd: the highest oom_score_adj first (cached slots, previous, service, perceptible)"

    /// The heaps: cached apps with activities and empty ones, each by last use;
    /// services by the time they became one (first in, first out); perceptible apps by
    /// size, largest first. One key table for the four.
    static let cached = 0, service = 1, perceptible = 2, empty = 3
    var heaps = IndexedHeaps(count: 4)
    /// The previous app (the device's, `EvictionCandidate.isPrevious`) while it is
    /// suspended: held at adj 700, outside the heaps; or -1.
    var held: Int32 = -1
    var heldLastUsed: Int64 = 0
    /// A counter for first-in-first-out order among services.
    var adjustments: Int64 = 0

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) {
        heaps.reset(appCount: appCount)
        held = -1
        adjustments = 0
    }

    public var stateBytes: Int { heaps.stateBytes }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        // An app out of front with no work and no mode has the previous or a cached
        // adj, in the grace as when suspended: ActivityManager's adj follows the
        // process state (OomAdjuster.computeOomAdjLSP: a stopped activity is
        // PREVIOUS_APP_ADJ or cached; only a running service is SERVICE_ADJ).
        let idle = c.mode == .none && !c.runsTask
        if idle && c.isPrevious {
            // The previous app, idle: adj 700, outside the heaps. Held is
            // this app or none: a held app is suspended and the device's previous
            // one, and the device reports it again (no longer previous, so it leaves
            // `held` below) when another becomes previous (`enterBackground`) or it
            // changes state (`refreshCandidate`, or `removeCandidate`: `remove`).
            assert(held < 0 || held == app, "the former previous app \(held) was not demoted before \(app)")
            heaps.remove(app)
            held = app
            heldLastUsed = c.lastUsed.microseconds
            return
        }
        if app == held { held = -1 }
        if Int(c.oomAdj) <= OomAdj.perceptible {
            heaps.set(app, -c.residentKB, in: Self.perceptible)
        } else if Int(c.oomAdj) == OomAdj.service {
            if heaps.heap(of: app) != Self.service {
                adjustments += 1
                heaps.set(app, adjustments, in: Self.service)
            }
        } else {
            heaps.set(app, c.lastUsed.microseconds, in: Int(c.oomAdj) >= OomAdj.cachedEmptyMin ? Self.empty : Self.cached)
        }
    }

    public mutating func remove(_ app: Int32) {
        heaps.remove(app)
        if held == app { held = -1 }
    }

    public var hasCandidates: Bool {
        heaps.count(Self.cached) > 0 || heaps.count(Self.empty) > 0 || held >= 0 || heaps.count(Self.service) > 0
            || heaps.count(Self.perceptible) > 0
    }

    /// The victim: of the two cached sequences' oldest, the one in the higher slot
    /// (each sequence's oldest holds its highest), a tie to the older; then the held
    /// previous app, the oldest service, the largest perceptible app.
    public func victim() -> Int32 {
        if let e = heaps.min(Self.empty) {
            guard let a = heaps.min(Self.cached) else { return e }
            let nA = heaps.count(Self.cached), nE = heaps.count(Self.empty)
            let adjA = OomAdj.cachedSlot(rank: nA - 1, count: nA, first: OomAdj.cachedMin)
            let adjE = OomAdj.cachedSlot(rank: nE - 1, count: nE, first: OomAdj.cachedEmptyMin)
            if adjA != adjE { return adjA > adjE ? a : e }
            return (heaps.key(of: e), e) < (heaps.key(of: a), a) ? e : a
        }
        if let a = heaps.min(Self.cached) { return a }
        if held >= 0 { return held }
        if let a = heaps.min(Self.service) { return a }
        return heaps.min(Self.perceptible) ?? -1
    }
}
