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

/// The ziggurat method for the standard normal and the standard exponential
/// (Marsaglia and Tsang, "The Ziggurat Method for Generating Random Variables",
/// Journal of Statistical Software 5(8), 2000), with 256 layers, one 64-bit number
/// giving both the layer and the abscissa as Doornik lays it out ("An Improved
/// Ziggurat Method to Generate Normal Random Samples", 2005).
///
/// A draw takes one 64-bit number: its low 8 bits pick a layer, its high 53 bits the
/// abscissa (disjoint bits). About 99 % of draws return after that, a multiplication
/// and a comparison; the rest test the density at the layer's edge (one `exp`) or, in
/// the base layer, draw from the tail (Marsaglia 1964 for the normal; R plus a fresh
/// exponential for the exponential, by memorylessness). The draws are exact (up to the
/// 53-bit uniforms), not an approximation: the layers cover the density and the
/// rejection steps remove the excess. It replaced inversion (`-log U`) and Box-Muller
/// (`log`, `cos`), which cost a libm call or two per draw.
public struct ZigguratTable: @unchecked Sendable {
    /// Layer edges x[0...256], decreasing (x[0] = V / f(R), the base layer's width with
    /// its tail counted; x[1] = R; x[256] = 0), and the density at each, f[i] = f(x[i]).
    /// Allocated once per process, read-only after `init`, never freed.
    @usableFromInline let x: UnsafeMutablePointer<Double>
    @usableFromInline let f: UnsafeMutablePointer<Double>
    /// Where the tail starts (R).
    @usableFromInline let r: Double

    /// The layers of the decreasing density `density` (without its constant) with
    /// inverse `inverse`: every layer has area `v`, the base layer's counting the tail
    /// past `r`; x[i+1] = f⁻¹(f(x[i]) + v / x[i]) (Marsaglia and Tsang 2000, section 2).
    init(r: Double, v: Double, density: (Double) -> Double, inverse: (Double) -> Double) {
        x = .allocate(capacity: 257)
        f = .allocate(capacity: 257)
        x[0] = v / density(r)
        x[1] = r
        for i in 2..<256 { x[i] = inverse(density(x[i - 1]) + v / x[i - 1]) }
        x[256] = 0
        for i in 0...256 { f[i] = density(x[i]) }
        self.r = r
    }

    /// The standard normal's 256 layers (density e^(-x²/2)): R = 3.6541528853610088,
    /// V = 0.00492867323397465524494 (Doornik 2005, "An improved ziggurat method to
    /// generate normal random samples", to full precision; Marsaglia and Tsang 2000,
    /// section 3, print 12 digits, 0.00492867323399: with them the top layer missed
    /// f = 1 by 2.3e-11).
    /// V = R f(R) + the tail's area, sqrt(pi/2) erfc(R/sqrt 2): 0.0049286732339746549 at
    /// this R (checked with 30-digit arithmetic).
    public static let normal = ZigguratTable(r: 3.6541528853610088, v: 0.00492867323397465524494,
                                             density: { exp(-0.5 * $0 * $0) }, inverse: { (-2 * log($0)).squareRoot() })
    /// The standard exponential's 256 layers (density e^(-x)): R = 7.69711747013104972,
    /// V = 0.0039496598225815571993 (Marsaglia and Tsang 2000, section 3).
    public static let exponential = ZigguratTable(r: 7.69711747013104972, v: 0.0039496598225815571993,
                                                  density: { exp(-$0) }, inverse: { -log($0) })
}

/// Exponential variates by the ziggurat (`ZigguratTable`).
public enum Exponential {
    /// One draw with the given mean. Usually one 64-bit number; O(1) expected.
    @inlinable @inline(__always)
    public static func sample<G: RandomNumberGenerator>(mean: Double, _ g: inout G) -> Double {
        mean * standard(&g)
    }

    /// One draw with mean 1. The common case (the point falls inside its layer's
    /// rectangle: 97.8 % of draws, the mean of x[i+1]/x[i]) is inlined where it is called; the rest goes on
    /// out of line (`standardAfterReject`) with the same numbers, in the same order.
    @inlinable @inline(__always)
    public static func standard<G: RandomNumberGenerator>(_ g: inout G) -> Double {
        let t = ZigguratTable.exponential
        let bits = g.next()
        let i = Int(truncatingIfNeeded: bits & 0xFF)
        let x = Double(bits >> 11) * 0x1.0p-53 * t.x[i]
        if x < t.x[i &+ 1] { return x }
        return standardAfterReject(layer: i, x: x, &g)
    }

    /// `standard` after its first number fell outside its layer's rectangle (layer `i`,
    /// abscissa `x`): the tail or the wedge, then further numbers until one is accepted.
    @inlinable @inline(never)
    static func standardAfterReject<G: RandomNumberGenerator>(layer first: Int, x firstX: Double, _ g: inout G) -> Double {
        let t = ZigguratTable.exponential
        var base = 0.0
        var i = first, x = firstX
        while true {
            if i == 0 {
                // The tail past R: by memorylessness, R plus a fresh exponential.
                base += t.r
            } else {
                // The wedge: a height uniform between the layer's edges, under the density.
                let u = g.nextUnit()
                if t.f[i &+ 1] + (t.f[i] - t.f[i &+ 1]) * u < exp(-x) { return base + x }
            }
            let bits = g.next()
            i = Int(truncatingIfNeeded: bits & 0xFF)
            x = Double(bits >> 11) * 0x1.0p-53 * t.x[i]
            if x < t.x[i &+ 1] { return base + x }
        }
    }
}

/// Standard normal variates by the ziggurat (`ZigguratTable`).
public enum StandardNormal {
    /// One draw. Usually one 64-bit number; O(1) expected. The common case (inside
    /// the layer's rectangle: 98.5 % of draws) is inlined; the rest goes on out of line
    /// (`sampleAfterReject`) with the same numbers, in the same order.
    @inlinable @inline(__always)
    public static func sample<G: RandomNumberGenerator>(_ g: inout G) -> Double {
        let t = ZigguratTable.normal
        let bits = g.next()
        let i = Int(truncatingIfNeeded: bits & 0xFF)
        // Uniform on [-1, 1) from the high 53 bits: the sign and the abscissa.
        let u = Double(bits >> 11) * 0x1.0p-52 - 1
        let x = u * t.x[i]
        if abs(x) < t.x[i &+ 1] { return x }
        return sampleAfterReject(layer: i, u: u, x: x, &g)
    }

    /// `sample` after its first number fell outside its layer's rectangle.
    @inlinable @inline(never)
    static func sampleAfterReject<G: RandomNumberGenerator>(layer first: Int, u firstU: Double, x firstX: Double,
                                                            _ g: inout G) -> Double {
        let t = ZigguratTable.normal
        var i = first, u = firstU, x = firstX
        while true {
            if i == 0 {
                // The tail past R (Marsaglia 1964): e = -ln(U1) / R, y = -ln(U2), accepted
                // when 2y > e²; the value is R + e, with u's sign.
                while true {
                    let e = -log(g.nextOpenUnit()) / t.r
                    let y = -log(g.nextOpenUnit())
                    if 2 * y > e * e { return u < 0 ? -(t.r + e) : t.r + e }
                }
            }
            let h = g.nextUnit()
            if t.f[i &+ 1] + (t.f[i] - t.f[i &+ 1]) * h < exp(-0.5 * x * x) { return x }
            let bits = g.next()
            i = Int(truncatingIfNeeded: bits & 0xFF)
            u = Double(bits >> 11) * 0x1.0p-52 - 1
            x = u * t.x[i]
            if abs(x) < t.x[i &+ 1] { return x }
        }
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
