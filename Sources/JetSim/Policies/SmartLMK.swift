#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// Parameters of the `smartlmk` policy: how fast its learned reuse forgets.
/// SmartLMK's paper learns "app usage statistics" online; its body (the exact estimator
/// and any window) was not reachable here (docs/reproductions.md), so the estimator is
/// an exponentially decayed launch count and its half-life an *assumption*.
public struct SmartLMKParameters: PolicyParameters, Equatable {
    /// The half-life of a launch's weight in the reuse estimate, in hours. Default 24 h
    /// (yesterday's use counts half as much as today's: daily routines); plausible
    /// 6 h (the last few sessions) to 168 h (a week's habits). Accepted 0.1...8760.
    public var reuseHalfLifeHours: Double

    public init(reuseHalfLifeHours: Double) { self.reuseHalfLifeHours = reuseHalfLifeHours }

    public init() { self.init(reuseHalfLifeHours: 24) }

    /// The accepted range (hours).
    public static let halfLifeRange: ClosedRange<Double> = 0.1...8_760

    /// Printed only when not at its defaults: the section came after the printed
    /// workloads (shard states, transcripts, golden files) were fixed, and a baseline
    /// outside `all` changes none of them (`PolicyParameters.printsDefaults`).
    public static var printsDefaults: Bool { false }

    /// `policies.smartlmk`: `reuse_half_life_h`.
    public static var keys: [PolicyKey<SmartLMKParameters>] {
        [PolicyKey("reuse_half_life_h", halfLifeRange, \.reuseHalfLifeHours)]
    }
}

/// `smartlmk`: Android's low-memory killer with SmartLMK's victim choice among cached
/// apps (Kim, Jeong, Kim, Maeng, "SmartLMK: A Memory Reclamation Scheme for Improving
/// User-Perceived App Launch Time", ACM TECS 15(3), article 47, 2016). Android's
/// classes stay as `android-lmk` has them (cached, then the previous app held at adj
/// 700, then services, then perceptible apps, each class emptied before the next): a
/// service, a perceptible app or the previous app is never chosen before a cached one.
/// Within the cached class the least *valuable* app dies first instead of the least
/// recently used, the value of keeping it being
///
///     V = P(reuse) × (cold launch − warm or hot launch, ms) / resident MiB
///
/// (what its kill would add to the user's next launch of it, weighted by the chance of
/// that launch, per MiB the kill frees). P(reuse) is learned online: each use of the
/// app (the update that has it leave the front, `EvictionCandidate.leftFront`, at its
/// `lastUsed`) adds a weight that decays with half-life `reuse_half_life_h`,
///
///     F_i(t) = Σ_k exp(−(t − t_k) / τ),  τ = half-life / ln 2,
///
/// and P(reuse) ∝ F. Dividing by the sum over apps and the common decay since a fixed
/// reference time scale every app alike, so the order is that of
/// log F_i(0) = log Σ_k exp(t_k / τ), kept per app by log-sum-exp as uses come (never
/// recomputed, never overflowing). The heap key is log F + log(penalty) − log(MiB):
/// an app never used by the user, or one whose kill costs nothing, has key −∞ and goes
/// first. Ties: the least recently used first. What the paper adds beyond this (its
/// estimate of the memory demand to come, killing several apps at once) is not
/// modelled: the device's kill loop decides how much to kill.
///
/// Index: one heap for cached apps, services and perceptible apps (the previous app is
/// held outside it, as in `android-lmk`), its primary key the class and the order within:
/// cached apps by `orderKey(log V)`, which is at most `orderKey(+∞)`, then by last use;
/// services and perceptible apps above that, by a tag in the range that only NaNs'
/// bit patterns would use, then first in first out, and largest first. O(log n) per
/// update and kill, nothing allocated after `reset`; 28 bytes an app with the learned
/// uses (single precision, as `cost-aware`'s base: within 4 bytes of the 152 bytes an
/// app of StateBytesTests). A baseline outside `all`.
public struct SmartLMK: EvictionPolicy {
    public static let name = "smartlmk"
    public static let summary = "SmartLMK: Android's classes; cached apps by the least reuse x launch penalty per MiB first"
    public static let sectionKey = "smartlmk"
    public typealias Parameters = SmartLMKParameters
    public static var inAll: Bool { false }
    /// Holds the previous app at adj 700, as `android-lmk`.
    public static var readsPrevious: Bool { true }

    /// The classes' primary keys above every cached key (`orderKey(+∞)` is
    /// 0x7FF0_0000_0000_0000; NaN never occurs).
    static let cachedMax = Int64(bitPattern: Double.infinity.bitPattern)
    static let serviceTag = cachedMax + 1, perceptibleTag = cachedMax + 2

    var heap = IndexedHeap()
    /// The previous app, idle: held outside the heap (adj 700); or -1.
    var held: Int32 = -1
    /// A counter for first-in-first-out order among services.
    var adjustments: Int64 = 0
    /// log F_i(0) per app (−∞ until its first use). Single precision: log F grows as
    /// t / τ, 4.9 after a week at the default half-life (a step of 5e-7), 25,000 after a
    /// century (a step of 0.002, F within 0.1 %): ample for ordering.
    var logUses: ContiguousArray<Float> = []
    /// 1 / τ, per microsecond.
    var inverseTauPerMicrosecond = 0.0

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) {
        heap.reset(appCount: appCount)
        held = -1
        adjustments = 0
        logUses.removeAll(keepingCapacity: true)
        logUses.append(contentsOf: repeatElement(-Float.infinity, count: appCount))
        let halfLife = context.policies[SmartLMK.self].reuseHalfLifeHours * 3_600e6
        inverseTauPerMicrosecond = log(2.0) / halfLife
    }

    public var stateBytes: Int { heap.stateBytes + logUses.capacity * 4 }

    /// log(e^a + e^b), exact for −∞.
    @inline(__always)
    static func logAddExp(_ a: Double, _ b: Double) -> Double {
        if a == -.infinity { return b }
        if b == -.infinity { return a }
        let m = Swift.max(a, b)
        return m + log1p(exp(-abs(a - b)))
    }

    /// An order-preserving map of a Double (not NaN) to Int64: non-negative doubles
    /// order like their bit patterns; a negative one's magnitude bits are flipped, so
    /// a larger magnitude gives a smaller integer. −∞ maps below every finite value,
    /// +∞ above (to `Int64(bitPattern: Double.infinity.bitPattern)`).
    @inline(__always)
    public static func orderKey(_ x: Double) -> Int64 {
        let i = Int64(bitPattern: x.bitPattern)
        return i >= 0 ? i : i ^ Int64.max
    }

    /// log V (up to a constant common to all apps): log F + log(penalty ms) − log(MiB);
    /// −∞ for an app never used by the user or whose kill adds nothing to its launch.
    @inline(__always)
    func logValue(_ app: Int32, _ c: EvictionCandidate) -> Double {
        let f = Double(logUses[Int(app)])
        let penaltyMs = Double((c.coldLaunchCost - c.residentLaunchCost).microseconds) / 1_000
        if f == -.infinity || !(penaltyMs > 0) { return -.infinity }
        let sizeMiB = Swift.max(Double(c.residentKB) / 1_024, 1.0 / 1_024)
        return f + log(penaltyMs) - log(sizeMiB)
    }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        if c.leftFront {
            // A use, at the time the user left it: e^(t/τ) added to F(0).
            let a = Int(app)
            let t = Double(c.lastUsed.microseconds) * inverseTauPerMicrosecond
            logUses[a] = Float(Self.logAddExp(Double(logUses[a]), t))
        }
        // Android's class, as android-lmk (see there).
        let idle = c.mode == .none && !c.runsTask
        if idle && c.isPrevious {
            assert(held < 0 || held == app, "the former previous app \(held) was not demoted before \(app)")
            heap.remove(app)
            held = app
            return
        }
        if app == held { held = -1 }
        if c.mode != .none {
            heap.set(app, .init(Self.perceptibleTag, -c.residentKB))
        } else if c.runsTask {
            if !heap.contains(app) || heap.key(of: app).primary != Self.serviceTag {
                adjustments += 1
                heap.set(app, .init(Self.serviceTag, adjustments))
            }
        } else {
            heap.set(app, .init(Self.orderKey(logValue(app, c)), c.lastUsed.microseconds))
        }
    }

    public mutating func remove(_ app: Int32) {
        heap.remove(app)
        if held == app { held = -1 }
    }

    public var hasCandidates: Bool { !heap.isEmpty || held >= 0 }

    public func victim() -> Int32 {
        if let a = heap.min {
            // A cached app first; the held previous app before services and perceptible apps.
            if heap.key(of: a).primary <= Self.cachedMax || held < 0 { return a }
        }
        return held
    }
}
