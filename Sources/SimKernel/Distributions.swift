#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The continuous distributions a model draws durations, sizes and rates from.
///
/// Each case states its parameters; `sample` draws one value with the given
/// generator. Values are in whatever unit the caller attaches (the model puts the
/// unit into its key names).
public enum RealDistribution: Sendable, Equatable {
    /// Always `value`.
    case constant(Double)
    /// Uniform on [low, high).
    case uniform(low: Double, high: Double)
    /// Exponential with the given mean (rate = 1 / mean).
    case exponential(mean: Double)
    /// Normal with the given mean and standard deviation.
    case normal(mean: Double, sd: Double)
    /// Log-normal given by its median (e^mu) and sigma (the standard deviation of
    /// the logarithm). Mean = median · e^(sigma²/2).
    case lognormal(median: Double, sigma: Double)
    /// One of the listed values, each equally likely (an empirical distribution).
    case empirical([Double])

    /// Draws one value. O(1).
    @inlinable
    public func sample(_ g: inout Xoshiro256StarStar) -> Double {
        switch self {
        case .constant(let v): return v
        case .uniform(let lo, let hi): return lo + (hi - lo) * g.nextUnit()
        case .exponential(let mean): return Exponential.sample(mean: mean, &g)
        case .normal(let mean, let sd): return mean + sd * StandardNormal.sample(&g)
        case .lognormal(let median, let sigma):
            return median * exp(sigma * StandardNormal.sample(&g))
        case .empirical(let values): return values[g.nextIndex(values.count)]
        }
    }

    /// The theoretical mean.
    public var mean: Double {
        switch self {
        case .constant(let v): return v
        case .uniform(let lo, let hi): return (lo + hi) / 2
        case .exponential(let mean): return mean
        case .normal(let mean, _): return mean
        case .lognormal(let median, let sigma): return median * exp(sigma * sigma / 2)
        case .empirical(let values): return values.reduce(0, +) / Double(values.count)
        }
    }

    /// The theoretical variance.
    public var variance: Double {
        switch self {
        case .constant: return 0
        case .uniform(let lo, let hi): return (hi - lo) * (hi - lo) / 12
        case .exponential(let mean): return mean * mean
        case .normal(_, let sd): return sd * sd
        case .lognormal(let median, let sigma):
            let s2 = sigma * sigma
            return (exp(s2) - 1) * median * median * exp(s2)
        case .empirical(let values):
            let m = mean
            return values.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(values.count)
        }
    }

    /// The smallest value a draw can take (−∞ for the normal).
    public var lowerBound: Double {
        switch self {
        case .constant(let v): return v
        case .uniform(let lo, _): return lo
        case .exponential, .lognormal: return 0
        case .normal: return -.infinity
        case .empirical(let values): return values.min() ?? 0
        }
    }
}

/// Exponential variates by inversion.
public enum Exponential {
    /// One draw with the given mean: −mean · ln U, U uniform on (0, 1].
    @inlinable @inline(__always)
    public static func sample(mean: Double, _ g: inout Xoshiro256StarStar) -> Double {
        -mean * log(g.nextOpenUnit())
    }
}

/// Standard normal variates by the Box–Muller transform (one of the pair is used, so
/// a draw depends on nothing but the two uniforms it consumes).
public enum StandardNormal {
    @inlinable @inline(__always)
    public static func sample<G: RandomNumberGenerator>(_ g: inout G) -> Double {
        let u1 = Double((g.next() >> 11) &+ 1) * 0x1.0p-53  // (0, 1]
        let u2 = Double(g.next() >> 11) * 0x1.0p-53  // [0, 1)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

/// A Bernoulli trial with success probability `p`.
public struct Bernoulli: Sendable, Equatable {
    public var p: Double
    @inlinable public init(p: Double) { self.p = p }
    /// `true` with probability p. O(1).
    @inlinable public func sample(_ g: inout Xoshiro256StarStar) -> Bool { g.nextUnit() < p }
}

/// Weighted choice among n outcomes in O(1) per draw: Walker's alias method, built
/// by Vose's O(n) algorithm.
public struct AliasTable: Sendable, Equatable {
    @usableFromInline var probability: ContiguousArray<Double>
    @usableFromInline var alias: ContiguousArray<Int32>

    /// The number of outcomes.
    public var count: Int { probability.count }

    /// A table for non-negative `weights` with a positive sum. O(n).
    public init(weights: [Double]) {
        precondition(!weights.isEmpty, "an alias table needs at least one weight")
        let n = weights.count
        let total = weights.reduce(0, +)
        precondition(total > 0 && weights.allSatisfy { $0 >= 0 && $0.isFinite },
                     "alias weights must be non-negative with a positive sum")
        var scaled = weights.map { $0 * Double(n) / total }
        probability = ContiguousArray(repeating: 1, count: n)
        alias = ContiguousArray(0..<Int32(n))
        var small: [Int] = []
        var large: [Int] = []
        for i in 0..<n {
            if scaled[i] < 1 { small.append(i) } else { large.append(i) }
        }
        while let s = small.last, let l = large.last {
            small.removeLast()
            probability[s] = scaled[s]
            alias[s] = Int32(l)
            scaled[l] = (scaled[l] + scaled[s]) - 1
            if scaled[l] < 1 {
                large.removeLast()
                small.append(l)
            }
        }
        // Leftovers are 1 up to rounding.
        for i in large { probability[i] = 1 }
        for i in small { probability[i] = 1 }
    }

    /// An outcome index in 0..<count, with probability weight[i] / Σ weights. O(1).
    @inlinable
    public func sample(_ g: inout Xoshiro256StarStar) -> Int {
        let i = g.nextIndex(probability.count)
        return g.nextUnit() < probability[i] ? i : Int(alias[i])
    }
}

/// Zipf's law over ranks 1...n with exponent s ≥ 0: P(k) ∝ 1 / k^s.
///
/// Draws use rejection-inversion (Hörmann and Derflinger, "Rejection-inversion to
/// generate variates from monotone discrete distributions", 1996), as in Apache
/// Commons' `RejectionInversionZipfSampler`: O(1) expected time per draw and O(1)
/// memory whatever n is. s = 0 is the uniform distribution.
public struct Zipf: Sendable, Equatable {
    public let n: Int
    public let exponent: Double
    @usableFromInline let hIntegralX1: Double
    @usableFromInline let hIntegralN: Double
    @usableFromInline let threshold: Double

    public init(n: Int, exponent: Double) {
        precondition(n >= 1, "Zipf needs at least one item")
        precondition(exponent >= 0 && exponent.isFinite, "Zipf exponent must be finite and >= 0")
        self.n = n
        self.exponent = exponent
        hIntegralX1 = Zipf.hIntegral(1.5, exponent) - 1
        hIntegralN = Zipf.hIntegral(Double(n) + 0.5, exponent)
        threshold = 2 - Zipf.hIntegralInverse(Zipf.hIntegral(2.5, exponent) - Zipf.h(2, exponent), exponent)
    }

    /// A rank in 1...n. O(1) expected.
    @inlinable
    public func sample(_ g: inout Xoshiro256StarStar) -> Int {
        if exponent == 0 { return 1 + g.nextIndex(n) }
        while true {
            let u = hIntegralN + g.nextUnit() * (hIntegralX1 - hIntegralN)
            let x = Zipf.hIntegralInverse(u, exponent)
            var k = Int(x + 0.5)
            if k < 1 { k = 1 } else if k > n { k = n }
            if Double(k) - x <= threshold || u >= Zipf.hIntegral(Double(k) + 0.5, exponent) - Zipf.h(Double(k), exponent) {
                return k
            }
        }
    }

    /// The exact probability of rank k (for tests and reports). O(n) the first time.
    public func probability(ofRank k: Int) -> Double {
        var norm = 0.0
        for i in 1...n { norm += pow(Double(i), -exponent) }
        return pow(Double(k), -exponent) / norm
    }

    @inlinable static func h(_ x: Double, _ s: Double) -> Double { exp(-s * log(x)) }

    @inlinable static func hIntegral(_ x: Double, _ s: Double) -> Double {
        let logX = log(x)
        return helper2((1 - s) * logX) * logX
    }

    @inlinable static func hIntegralInverse(_ x: Double, _ s: Double) -> Double {
        var t = x * (1 - s)
        if t < -1 { t = -1 }
        return exp(helper1(t) * x)
    }

    /// log(1 + x) / x, accurate near zero.
    @inlinable static func helper1(_ x: Double) -> Double {
        abs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }

    /// (e^x − 1) / x, accurate near zero.
    @inlinable static func helper2(_ x: Double) -> Double {
        abs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x * (1.0 / 3.0) * (1 + 0.25 * x))
    }
}
