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
    /// Constant data (the arrays below, statically initialised: no once-check per
    /// draw; docs/performance.md, "Costs behind the code's shapes");
    /// `layers(r:v:density:inverse:)` derives them, and a test checks every bit.
    @usableFromInline let x: UnsafePointer<Double>
    @usableFromInline let f: UnsafePointer<Double>
    /// Where the tail starts (R).
    @usableFromInline let r: Double

    @inlinable @inline(__always) init(x: UnsafePointer<Double>, f: UnsafePointer<Double>, r: Double) {
        self.x = x
        self.f = f
        self.r = r
    }

    /// The layers of the decreasing density `density` (without its constant) with
    /// inverse `inverse`: every layer has area `v`, the base layer's counting the tail
    /// past `r`; x[i+1] = f⁻¹(f(x[i]) + v / x[i]) (Marsaglia and Tsang 2000, section 2).
    /// The tables below are these, computed once and written out (`ZigguratTests`).
    static func layers(r: Double, v: Double, density: (Double) -> Double,
                       inverse: (Double) -> Double) -> (x: [Double], f: [Double]) {
        var x = [Double](repeating: 0, count: 257)
        x[0] = v / density(r)
        x[1] = r
        for i in 2..<256 { x[i] = inverse(density(x[i - 1]) + v / x[i - 1]) }
        x[256] = 0
        return (x, x.map(density))
    }

    /// The address of a constant table's first element (the array is a global `let`,
    /// never freed: the address stays valid).
    @inlinable @inline(__always) static func address(_ a: [Double]) -> UnsafePointer<Double> {
        a.withUnsafeBufferPointer { $0.baseAddress.unsafelyUnwrapped }
    }

    /// The standard normal's 256 layers (density e^(-x²/2)): R = 3.6541528853610088,
    /// V = 0.00492867323397465524494 (Doornik 2005, "An improved ziggurat method to
    /// generate normal random samples", to full precision; Marsaglia and Tsang 2000,
    /// section 3, print 12 digits, 0.00492867323399: with them the top layer missed
    /// f = 1 by 2.3e-11).
    /// V = R f(R) + the tail's area, sqrt(pi/2) erfc(R/sqrt 2): 0.0049286732339746549 at
    /// this R (checked with 30-digit arithmetic).
    public static var normal: ZigguratTable {
        @inline(__always) get { ZigguratTable(x: address(zigguratNormalX), f: address(zigguratNormalF), r: 3.6541528853610088) }
    }
    static let normalR = 3.6541528853610088
    static let normalV = 0.00492867323397465524494
    /// The normal's layers as `layers` derives them (the tables' source).
    static func normalLayers() -> (x: [Double], f: [Double]) {
        layers(r: normalR, v: normalV, density: { exp(-0.5 * $0 * $0) }, inverse: { (-2 * log($0)).squareRoot() })
    }
    /// The standard exponential's 256 layers (density e^(-x)): R = 7.69711747013104972,
    /// V = 0.0039496598225815571993 (Marsaglia and Tsang 2000, section 3).
    public static var exponential: ZigguratTable {
        @inline(__always) get {
            ZigguratTable(x: address(zigguratExponentialX), f: address(zigguratExponentialF), r: 7.69711747013104972)
        }
    }
    static let exponentialR = 7.69711747013104972
    static let exponentialV = 0.0039496598225815571993
    /// The exponential's layers as `layers` derives them (the tables' source).
    static func exponentialLayers() -> (x: [Double], f: [Double]) {
        layers(r: exponentialR, v: exponentialV, density: { exp(-$0) }, inverse: { -log($0) })
    }
}

/// Exponential variates by the ziggurat (`ZigguratTable`).
public enum Exponential {
    /// One draw with the given mean. Usually one 64-bit number; O(1) expected.
    @inlinable @inline(__always)
    public static func sample<G: RandomNumberGenerator>(mean: Double, _ g: inout G) -> Double {
        mean * standard(&g)
    }

    /// `sample(mean:_:)` with the table held by the caller (`ZigguratTable.exponential`,
    /// read once for many draws): the same draw, without the getter's call each time.
    @inlinable @inline(__always)
    public static func sample<G: RandomNumberGenerator>(mean: Double, _ g: inout G, table: ZigguratTable) -> Double {
        mean * standard(&g, table: table)
    }

    /// One draw with mean 1. The common case (the point falls inside its layer's
    /// rectangle: 97.8 % of draws, the mean of x[i+1]/x[i]) is inlined where it is called; the rest goes on
    /// out of line (`standardAfterReject`) with the same numbers, in the same order.
    @inlinable @inline(__always)
    public static func standard<G: RandomNumberGenerator>(_ g: inout G) -> Double {
        standard(&g, table: ZigguratTable.exponential)
    }

    /// `standard(_:)` with the table held by the caller (`ZigguratTable.exponential`).
    @inlinable @inline(__always)
    public static func standard<G: RandomNumberGenerator>(_ g: inout G, table t: ZigguratTable) -> Double {
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
        sample(&g, table: ZigguratTable.normal)
    }

    /// `sample(_:)` with the table held by the caller (`ZigguratTable.normal`, read
    /// once): the same numbers, in the same order.
    @inlinable @inline(__always)
    public static func sample<G: RandomNumberGenerator>(_ g: inout G, table t: ZigguratTable) -> Double {
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

/// `ZigguratTable.normal`'s layer edges x[0...256] (see `ZigguratTable.layers`).
@usableFromInline let zigguratNormalX: [Double] = [
    0x1.f493b7815d97fp+1, 0x1.d3bb48209ad33p+1, 0x1.b981f3878fdb0p+1, 0x1.a8fdc78947759p+1,
    0x1.9cbee014057abp+1, 0x1.92ee0946f4496p+1, 0x1.8ab0fbfaa7c14p+1, 0x1.839030529f234p+1,
    0x1.7d42df4d6ce8cp+1, 0x1.7799556090673p+1, 0x1.72728f05f7a34p+1, 0x1.6db6b8d09e232p+1,
    0x1.69540be9fe5c3p+1, 0x1.653ce7b006aeap+1, 0x1.61669cf861e4cp+1, 0x1.5dc8a243ad0fep+1,
    0x1.5a5c08b718dd9p+1, 0x1.571b1a94ae41bp+1, 0x1.54011523a7e42p+1, 0x1.5109f53e9ac41p+1,
    0x1.4e3250dcd8902p+1, 0x1.4b7739d6b5a27p+1, 0x1.48d62759c43bcp+1, 0x1.464ce44a73a15p+1,
    0x1.43d9815545e93p+1, 0x1.417a49cb9e5d9p+1, 0x1.3f2dbaa60f473p+1, 0x1.3cf27b31704a4p+1,
    0x1.3ac7570ae88f8p+1, 0x1.38ab392564108p+1, 0x1.369d27a33a83ep+1, 0x1.349c405ae12a1p+1,
    0x1.32a7b5e68a4a1p+1, 0x1.30becd256aeecp+1, 0x1.2ee0db1a978f4p+1, 0x1.2d0d43196db96p+1,
    0x1.2b437532a0a51p+1, 0x1.2982ecd770e77p+1, 0x1.27cb2faa8592dp+1, 0x1.261bcc77658dfp+1,
    0x1.24745a4ac9c23p+1, 0x1.22d477a6fd3eep+1, 0x1.213bc9d04cc81p+1, 0x1.1fa9fc2e2d901p+1,
    0x1.1e1ebfbe4ae39p+1, 0x1.1c99ca971a694p+1, 0x1.1b1ad777f2f8ep+1, 0x1.19a1a564eebacp+1,
    0x1.182df74d21261p+1, 0x1.16bf93b9deef3p+1, 0x1.1556448602e3bp+1, 0x1.13f1d69c4096dp+1,
    0x1.129219bbb5d35p+1, 0x1.1136e04207041p+1, 0x1.0fdffefa69fb6p+1, 0x1.0e8d4cf116593p+1,
    0x1.0d3ea34aa3d30p+1, 0x1.0bf3dd1eed448p+1, 0x1.0aacd7571c0c4p+1, 0x1.0969708e8a254p+1,
    0x1.082988f632e17p+1, 0x1.06ed023a72668p+1, 0x1.05b3bf6adb37ep+1, 0x1.047da4e3ef5c7p+1,
    0x1.034a983a902abp+1, 0x1.021a8028fc947p+1, 0x1.00ed447d3a075p+1, 0x1.ff859c118f60bp+0,
    0x1.fd360d22fe785p+0, 0x1.faebb187122bfp+0, 0x1.f8a6604899782p+0, 0x1.f665f20c90168p+0,
    0x1.f42a40fb74d6dp+0, 0x1.f1f328ac25321p+0, 0x1.efc086101eca9p+0, 0x1.ed9237610a73ap+0,
    0x1.eb681c0f76f08p+0, 0x1.e94214b2abf0ap+0, 0x1.e72002f97fe25p+0, 0x1.e501c99c1d188p+0,
    0x1.e2e74c4ea46f5p+0, 0x1.e0d06fb49d21bp+0, 0x1.debd195522e36p+0, 0x1.dcad2f8fc490ep+0,
    0x1.daa0999206e70p+0, 0x1.d8973f4d7fba5p+0, 0x1.d691096e7f123p+0, 0x1.d48de1533c647p+0,
    0x1.d28db1037ef20p+0, 0x1.d0906328b8f6ep+0, 0x1.ce95e3068e037p+0, 0x1.cc9e1c73bd68fp+0,
    0x1.caa8fbd36a2abp+0, 0x1.c8b66e0eba617p+0, 0x1.c6c6608ec8705p+0, 0x1.c4d8c136e0d1cp+0,
    0x1.c2ed7e5f07a2dp+0, 0x1.c10486cec16a0p+0, 0x1.bf1dc9b81ae83p+0, 0x1.bd3936b2ec0a2p+0,
    0x1.bb56bdb85256ep+0, 0x1.b9764f1e5f73cp+0, 0x1.b797db93f8927p+0, 0x1.b5bb541ce3d03p+0,
    0x1.b3e0aa0e00c00p+0, 0x1.b207cf09a985bp+0, 0x1.b030b4fc3a11ap+0, 0x1.ae5b4e18bb336p+0,
    0x1.ac878cd5af5cep+0, 0x1.aab563e9ff108p+0, 0x1.a8e4c64a0313dp+0, 0x1.a715a724aa9a4p+0,
    0x1.a547f9e0bbb88p+0, 0x1.a37bb21a2c85bp+0, 0x1.a1b0c39f93692p+0, 0x1.9fe7226fad24ap+0,
    0x1.9e1ec2b6f7411p+0, 0x1.9c5798cd5d92cp+0, 0x1.9a919933f99bfp+0, 0x1.98ccb892e2a31p+0,
    0x1.9708ebb70d5eep+0, 0x1.954627903a28ap+0, 0x1.9384612ef0afcp+0, 0x1.91c38dc288347p+0,
    0x1.9003a2973b58fp+0, 0x1.8e44951446a27p+0, 0x1.8c865aba10c9cp+0, 0x1.8ac8e9205c043p+0,
    0x1.890c35f47f72dp+0, 0x1.875036f7a7ec5p+0, 0x1.8594e1fd1f5bdp+0, 0x1.83da2ce899f15p+0,
    0x1.82200dac88676p+0, 0x1.80667a486ea1fp+0, 0x1.7ead68c73dee7p+0, 0x1.7cf4cf3db22fbp+0,
    0x1.7b3ca3c8b1409p+0, 0x1.7984dc8babd93p+0, 0x1.77cd6faeff449p+0, 0x1.7616535e5731fp+0,
    0x1.745f7dc70eedcp+0, 0x1.72a8e516914c6p+0, 0x1.70f27f78b68ebp+0, 0x1.6f3c43161f854p+0,
    0x1.6d8626128d352p+0, 0x1.6bd01e8b343bbp+0, 0x1.6a1a22950b2b1p+0, 0x1.6864283b13136p+0,
    0x1.66ae257c99671p+0, 0x1.64f8104b7260ap+0, 0x1.6341de8a2b0a1p+0, 0x1.618b860a31fc2p+0,
    0x1.5fd4fc89f5e36p+0, 0x1.5e1e37b2f8cd1p+0, 0x1.5c672d17d733bp+0, 0x1.5aafd23241b56p+0,
    0x1.58f81c60e8511p+0, 0x1.574000e555f75p+0, 0x1.558774e1bb2c4p+0, 0x1.53ce6d56a664bp+0,
    0x1.5214df20a8b57p+0, 0x1.505abef5e555ep+0, 0x1.4ea001638a601p+0, 0x1.4ce49acb311d8p+0,
    0x1.4b287f6024159p+0, 0x1.496ba32488f2bp+0, 0x1.47adf9e66c333p+0, 0x1.45ef773cac75ap+0,
    0x1.44300e83c30a1p+0, 0x1.426fb2da6745ap+0, 0x1.40ae571e09e71p+0, 0x1.3eebede725a80p+0,
    0x1.3d28698561ddep+0, 0x1.3b63bbfb83d01p+0, 0x1.399dd6fb2b262p+0, 0x1.37d6abe055868p+0,
    0x1.360e2baca52d3p+0, 0x1.3444470265e9fp+0, 0x1.3278ee1f4b92ep+0, 0x1.30ac10d6e48d5p+0,
    0x1.2edd9e8cba98bp+0, 0x1.2d0d862e1b850p+0, 0x1.2b3bb62b82ed7p+0, 0x1.29681c719d719p+0,
    0x1.2792a661dd37dp+0, 0x1.25bb40ca96bfap+0, 0x1.23e1d7de9c31ep+0, 0x1.2206572c4c6e8p+0,
    0x1.2028a9940a09ep+0, 0x1.1e48b93e0d42bp+0, 0x1.1c666f8f82ac8p+0, 0x1.1a81b51ee6d84p+0,
    0x1.189a71a78da30p+0, 0x1.16b08bfc42019p+0, 0x1.14c3e9f8e913cp+0, 0x1.12d4707310fb9p+0,
    0x1.10e20329515e9p+0, 0x1.0eec84b160867p+0, 0x1.0cf3d664bcc7bp+0, 0x1.0af7d84bc610fp+0,
    0x1.08f869071f408p+0, 0x1.06f565b72a00ep+0, 0x1.04eea9e16a5fap+0, 0x1.02e40f5398f98p+0,
    0x1.00d56e04234eap+0, 0x1.fd8537dfa2ea9p-1, 0x1.f956d9e87d7aap-1, 0x1.f51f654d8f684p-1,
    0x1.f0de784f06222p-1, 0x1.ec93abdf982cap-1, 0x1.e83e9337a6efdp-1, 0x1.e3debb5d2edfap-1,
    0x1.df73aa9f1764ep-1, 0x1.dafce0023b8bfp-1, 0x1.d679d29e41f0bp-1, 0x1.d1e9f0e80b743p-1,
    0x1.cd4c9fe722686p-1, 0x1.c8a13a5323b5cp-1, 0x1.c3e70f9594eefp-1, 0x1.bf1d62abf822fp-1,
    0x1.ba4368e529f37p-1, 0x1.b558487427a26p-1, 0x1.b05b16d136c99p-1, 0x1.ab4ad6e10162cp-1,
    0x1.a62676d77cd56p-1, 0x1.a0eccdca4a728p-1, 0x1.9b9c98e38c543p-1, 0x1.96347822c1ee7p-1,
    0x1.90b2ea94ecf94p-1, 0x1.8b1649e7b7694p-1, 0x1.855cc53430a72p-1, 0x1.7f845ad46f53ep-1,
    0x1.798ad10b32a73p-1, 0x1.736dad346f8a3p-1, 0x1.6d2a29200056cp-1, 0x1.66bd261a37c39p-1,
    0x1.60231cfd97ee5p-1, 0x1.59580a707ce90p-1, 0x1.52575621ad36cp-1, 0x1.4b1bb363dfe9fp-1,
    0x1.439ef8dff9b4bp-1, 0x1.3bd9ec1a2b125p-1, 0x1.33c3fc05791ebp-1, 0x1.2b52e3863d876p-1,
    0x1.227a28f7a1aeap-1, 0x1.192a69741366dp-1, 0x1.0f5053b025d38p-1, 0x1.04d32278ebba2p-1,
    0x1.f32482d4cd5acp-2, 0x1.dac2f5a747258p-2, 0x1.c004d2f3861d9p-2, 0x1.a230c2e4cd096p-2,
    0x1.801fce82fa6dep-2, 0x1.57cb938443b28p-2, 0x1.250af3c2c5b64p-2, 0x1.b8d0be3fdf5cep-3,
    0x0p0,
]
/// `ZigguratTable.normal`'s densities f[i] = e^(-x[i]²/2).
@usableFromInline let zigguratNormalF: [Double] = [
    0x1.f4a946f13845dp-12, 0x1.4a605b6b9f70fp-10, 0x1.55f9f43c1b072p-9, 0x1.08a1f03b0b205p-8,
    0x1.69ea8d90cb85dp-8, 0x1.ce160f8ec6837p-8, 0x1.1a59229952f92p-7, 0x1.4eb96421acfe0p-7,
    0x1.841040d8da478p-7, 0x1.ba48d274f8facp-7, 0x1.f152a4f72dd49p-7, 0x1.1490334603012p-6,
    0x1.30d388dab5e13p-6, 0x1.4d6eaf2fbb064p-6, 0x1.6a5daf40bbf82p-6, 0x1.879d1b600c10ap-6,
    0x1.a529f4e22ebf8p-6, 0x1.c301983cd091ap-6, 0x1.e121adb828c75p-6, 0x1.ff881d718a5c4p-6,
    0x1.0f1982e968011p-5, 0x1.1e9059f1f6abcp-5, 0x1.2e27ce83df497p-5, 0x1.3ddf2ce98eecbp-5,
    0x1.4db5d0e112764p-5, 0x1.5dab23cf2adddp-5, 0x1.6dbe9b398d072p-5, 0x1.7defb77af272dp-5,
    0x1.8e3e02a68b5bbp-5, 0x1.9ea90f9295573p-5, 0x1.af30790385f81p-5, 0x1.bfd3e0f282a3ep-5,
    0x1.d092efeadf171p-5, 0x1.e16d547b25194p-5, 0x1.f262c2b6c6e41p-5, 0x1.01b979e30e49dp-4,
    0x1.0a4ed2c159629p-4, 0x1.12f14d0f217a2p-4, 0x1.1ba0cbe978982p-4, 0x1.245d344dd0d96p-4,
    0x1.2d266cf9b3115p-4, 0x1.35fc5e4d93e70p-4, 0x1.3edef23269a86p-4, 0x1.47ce1401b2213p-4,
    0x1.50c9b06fa2baep-4, 0x1.59d1b577466a4p-4, 0x1.62e6124854d18p-4, 0x1.6c06b73694a4cp-4,
    0x1.753395aaa1176p-4, 0x1.7e6ca013eefd6p-4, 0x1.87b1c9dbf2852p-4, 0x1.9103075a4a0abp-4,
    0x1.9a604dc9d5b19p-4, 0x1.a3c9933ea6286p-4, 0x1.ad3ece9caf633p-4, 0x1.b6bff78f2e233p-4,
    0x1.c04d0680b1015p-4, 0x1.c9e5f493b740ap-4, 0x1.d38abb9bd91e5p-4, 0x1.dd3b56176e88fp-4,
    0x1.e6f7bf29aa54bp-4, 0x1.f0bff29520e1cp-4, 0x1.fa93ecb6b222cp-4, 0x1.0239d54067d2ap-3,
    0x1.072f94bb8bf85p-3, 0x1.0c2b33d5209bap-3, 0x1.112cb1da26eb9p-3, 0x1.16340e5a82d63p-3,
    0x1.1b41492757d42p-3, 0x1.2054625183c34p-3, 0x1.256d5a2835eb7p-3, 0x1.2a8c3137a071ap-3,
    0x1.2fb0e847c2a65p-3, 0x1.34db805b4ab88p-3, 0x1.3a0bfaae8d7eep-3, 0x1.3f4258b6931aep-3,
    0x1.447e9c20375d5p-3, 0x1.49c0c6cf5ce2dp-3, 0x1.4f08dade31fc1p-3, 0x1.5456da9c86835p-3,
    0x1.59aac88f31d6fp-3, 0x1.5f04a76f883fcp-3, 0x1.64647a2adf19ep-3, 0x1.69ca43e21f25cp-3,
    0x1.6f3607e964716p-3, 0x1.74a7c9c7ab5a6p-3, 0x1.7a1f8d368a323p-3, 0x1.7f9d5621f7175p-3,
    0x1.852128a819a38p-3, 0x1.8aab09192815bp-3, 0x1.903afbf74fa69p-3, 0x1.95d105f6a7c28p-3,
    0x1.9b6d2bfd2fe5ap-3, 0x1.a10f7322d7e3dp-3, 0x1.a6b7e0b19267ep-3, 0x1.ac667a2571807p-3,
    0x1.b21b452ccd13ap-3, 0x1.b7d647a8731aap-3, 0x1.bd9787abe18a1p-3, 0x1.c35f0b7d89d47p-3,
    0x1.c92cd9971df53p-3, 0x1.cf00f8a5e6fccp-3, 0x1.d4db6f8b2514fp-3, 0x1.dabc455c7900ap-3,
    0x1.e0a3816457184p-3, 0x1.e6912b2283cddp-3, 0x1.ec854a4c99c44p-3, 0x1.f27fe6ce998d2p-3,
    0x1.f88108cb83235p-3, 0x1.fe88b89df93c5p-3, 0x1.024b7f6c7747ep-2, 0x1.0555f2242e9d9p-2,
    0x1.0863b8f904336p-2, 0x1.0b74d88b242dap-2, 0x1.0e895598709c4p-2, 0x1.11a134fcf2423p-2,
    0x1.14bc7bb34ee67p-2, 0x1.17db2ed5454e8p-2, 0x1.1afd539c2f050p-2, 0x1.1e22ef6188116p-2,
    0x1.214c079f7cc9ep-2, 0x1.2478a1f17de89p-2, 0x1.27a8c414db11ep-2, 0x1.2adc73e963fddp-2,
    0x1.2e13b77210766p-2, 0x1.314e94d5af62fp-2, 0x1.348d125f9d19ep-2, 0x1.37cf368081379p-2,
    0x1.3b1507cf143aep-2, 0x1.3e5e8d08ed2dbp-2, 0x1.41abcd1357a19p-2, 0x1.44fccefc324fep-2,
    0x1.485199fad6ad4p-2, 0x1.4baa357109ca2p-2, 0x1.4f06a8ebf6d92p-2, 0x1.5266fc2533bedp-2,
    0x1.55cb3703d0100p-2, 0x1.5933619d6eebep-2, 0x1.5c9f84376c244p-2, 0x1.600fa7480d2c8p-2,
    0x1.6383d377be515p-2, 0x1.66fc11a25cbe2p-2, 0x1.6a786ad88de21p-2, 0x1.6df8e86124caap-2,
    0x1.717d93ba9614cp-2, 0x1.7506769c7b1edp-2, 0x1.78939af9252ebp-2, 0x1.7c250aff414b1p-2,
    0x1.7fbad11b8d913p-2, 0x1.8354f7faa0ddbp-2, 0x1.86f38a8ac5ab8p-2, 0x1.8a9693fde918bp-2,
    0x1.8e3e1fcb9f119p-2, 0x1.91ea39b33cb1bp-2, 0x1.959aedbe09f98p-2, 0x1.995048418c0ccp-2,
    0x1.9d0a55e1e93e5p-2, 0x1.a0c9239468445p-2, 0x1.a48cbea20c056p-2, 0x1.a85534aa4d889p-2,
    0x1.ac2293a5f5aa5p-2, 0x1.aff4e9ea1855ap-2, 0x1.b3cc462b331d2p-2, 0x1.b7a8b78071324p-2,
    0x1.bb8a4d6716d9ap-2, 0x1.bf7117c616a1fp-2, 0x1.c35d26f1d2cbfp-2, 0x1.c74e8bb00d7cep-2,
    0x1.cb45573c0a84ep-2, 0x1.cf419b4ae5b75p-2, 0x1.d3436a1021086p-2, 0x1.d74ad6426de39p-2,
    0x1.db57f320b56b6p-2, 0x1.df6ad47763a0ep-2, 0x1.e3838ea5f9b89p-2, 0x1.e7a236a4ec3cap-2,
    0x1.ebc6e20bd1f59p-2, 0x1.eff1a717e8f9ap-2, 0x1.f4229cb2f7af8p-2, 0x1.f859da7a900cfp-2,
    0x1.fc9778c7bbda8p-2, 0x1.006dc85b8cac8p-1, 0x1.02931e18b822dp-1, 0x1.04bbcafa63f30p-1,
    0x1.06e7dccf03c38p-1, 0x1.091761d995d82p-1, 0x1.0b4a68d70d9afp-1, 0x1.0d810104142a1p-1,
    0x1.0fbb3a2325915p-1, 0x1.11f9248311f3bp-1, 0x1.143ad105ea9a0p-1, 0x1.16805128639dep-1,
    0x1.18c9b709b3c55p-1, 0x1.1b171573fd117p-1, 0x1.1d687fe54996fp-1, 0x1.1fbe0a9929627p-1,
    0x1.2217ca92ff7f7p-1, 0x1.2475d5a90db89p-1, 0x1.26d84290504f2p-1, 0x1.293f28e93cd1ap-1,
    0x1.2baaa14d7954dp-1, 0x1.2e1ac55ea3bf0p-1, 0x1.308fafd6438f1p-1, 0x1.33097c9703a38p-1,
    0x1.358848bf550ebp-1, 0x1.380c32bda00d7p-1, 0x1.3a955a662cd10p-1, 0x1.3d23e10af31a5p-1,
    0x1.3fb7e99585b84p-1, 0x1.425198a355fe5p-1, 0x1.44f114a49367bp-1, 0x1.479685fdf5014p-1,
    0x1.4a42172dc527bp-1, 0x1.4cf3f4f494ec3p-1, 0x1.4fac4e820b66ap-1, 0x1.526b55a656cd8p-1,
    0x1.55313f08d9e49p-1, 0x1.57fe4264c8d92p-1, 0x1.5ad29acc85c8bp-1, 0x1.5dae86f4aff6cp-1,
    0x1.6092498802667p-1, 0x1.637e298550c1ap-1, 0x1.667272a92e325p-1, 0x1.696f75e513b2cp-1,
    0x1.6c7589e635a8bp-1, 0x1.6f850baea7af0p-1, 0x1.729e5f43f6d14p-1, 0x1.75c1f0770d858p-1,
    0x1.78f033ca0b0d8p-1, 0x1.7c29a779c685bp-1, 0x1.7f6ed4b20e2cep-1, 0x1.82c050f56cf71p-1,
    0x1.861ebfc37bcadp-1, 0x1.898ad48badf04p-1, 0x1.8d0554fe60aaap-1, 0x1.908f1bd317151p-1,
    0x1.94291c21b7a4ap-1, 0x1.97d4657617ac4p-1, 0x1.9b9228d240685p-1, 0x1.9f63bee651fdcp-1,
    0x1.a34aafdf5af14p-1, 0x1.a748bd550c9e6p-1, 0x1.ab5fef17a2509p-1, 0x1.af92a3f6ce8a7p-1,
    0x1.b3e3a8234dd15p-1, 0x1.b85653a8ff557p-1, 0x1.bceeb4ee1dc87p-1, 0x1.c1b1cd9eebaefp-1,
    0x1.c6a5ecea97884p-1, 0x1.cbd33a8a72df1p-1, 0x1.d144978a119e2p-1, 0x1.d70920657bcf9p-1,
    0x1.dd36fa704de9dp-1, 0x1.e3f11e027f080p-1, 0x1.eb7545b6ca920p-1, 0x1.f446ac979f094p-1,
    0x1.0000000000000p+0,
]
/// `ZigguratTable.exponential`'s layer edges x[0...256].
@usableFromInline let zigguratExponentialX: [Double] = [
    0x1.164ec94bf5dc3p+3, 0x1.ec9d9297ebb83p+2, 0x1.bc39e51da71fcp+2, 0x1.9e9dc0d487b85p+2,
    0x1.8939fe6f2ed19p+2, 0x1.78750d6eac62fp+2, 0x1.6aa676d4bbf72p+2, 0x1.5ee7ae17313d2p+2,
    0x1.54ad83ccf73f5p+2, 0x1.4b9d7cd4751d0p+2, 0x1.4379766e41361p+2, 0x1.3c14ec7c8b860p+2,
    0x1.354ee27ccf75dp+2, 0x1.2f0e38a4411f0p+2, 0x1.293f5ae49aaa5p+2, 0x1.23d2bb659919fp+2,
    0x1.1ebbca0c9fa7cp+2, 0x1.19f03bcb3c2d6p+2, 0x1.156786775442ap+2, 0x1.111a8034392a6p+2,
    0x1.0d031785d48a0p+2, 0x1.091c1cdcba54ep+2, 0x1.056118bf58eefp+2, 0x1.01ce2b362ec2ep+2,
    0x1.fcbfe43f6c6e6p+1, 0x1.f626e9791f7a7p+1, 0x1.efcc26750ea4ap+1, 0x1.e9aaf2af383c1p+1,
    0x1.e3bf26e190960p+1, 0x1.de050af4ef19fp+1, 0x1.d87946fec3becp+1, 0x1.d318d6b2738c5p+1,
    0x1.cde0fecf2a97fp+1, 0x1.c8cf442c8c8f3p+1, 0x1.c3e1641c2e0a6p+1, 0x1.bf154de4bef76p+1,
    0x1.ba691d276da5dp+1, 0x1.b5db15091ea0ep+1, 0x1.b1699c003b608p+1, 0x1.ad13382d845c3p+1,
    0x1.a8d68c2ad86e8p+1, 0x1.a4b2543e84c3ap+1, 0x1.a0a563e49f177p+1, 0x1.9caea3a24d9e9p+1,
    0x1.98cd0f18d1ad7p+1, 0x1.94ffb34fc2a0dp+1, 0x1.9145ad2f37543p+1, 0x1.8d9e2823b3695p+1,
    0x1.8a085ce695baap+1, 0x1.8683906687341p+1, 0x1.830f12cc0bec3p+1, 0x1.7faa3e96e1412p+1,
    0x1.7c5477d1476d3p+1, 0x1.790d2b56b71f9p+1, 0x1.75d3ce2bd71c3p+1, 0x1.72a7dce5cd218p+1,
    0x1.6f88db1f42507p+1, 0x1.6c7652f9a7b1ep+1, 0x1.696fd4a9748eep+1, 0x1.6674f60c3f431p+1,
    0x1.63855247b2e93p+1, 0x1.60a0897081877p+1, 0x1.5dc640388bd9cp+1, 0x1.5af61fa38e106p+1,
    0x1.582fd4c1b4460p+1, 0x1.5573106f8a759p+1, 0x1.52bf871acaab1p+1, 0x1.5014f08b99508p+1,
    0x1.4d7307b1cb127p+1, 0x1.4ad98a75da14cp+1, 0x1.4848398d39432p+1, 0x1.45bed851bc92cp+1,
    0x1.433d2c9bd42f8p+1, 0x1.40c2fe9f5eeadp+1, 0x1.3e5018caddecfp+1, 0x1.3be447a8d8b83p+1,
    0x1.397f59c345143p+1, 0x1.37211f88ca856p+1, 0x1.34c96b33bc965p+1, 0x1.327810b2aa7cfp+1,
    0x1.302ce59265964p+1, 0x1.2de7c0e962d70p+1, 0x1.2ba87b445db50p+1, 0x1.296eee942532bp+1,
    0x1.273af61c7daa6p+1, 0x1.250c6e6403bbap+1, 0x1.22e33524fe550p+1, 0x1.20bf293f0f4a2p+1,
    0x1.1ea02aa9b3371p+1, 0x1.1c861a6782a5bp+1, 0x1.1a70da7a27821p+1, 0x1.18604dd6fae9ep+1,
    0x1.1654585c404c1p+1, 0x1.144cdec6f3a2cp+1, 0x1.1249c6a92154bp+1, 0x1.104af660befcfp+1,
    0x1.0e50550efcfb8p+1, 0x1.0c59ca9009470p+1, 0x1.0a673f733c81ap+1, 0x1.08789cf3aad0fp+1,
    0x1.068dccf1126dbp+1, 0x1.04a6b9e9224a3p+1, 0x1.02c34ef11391bp+1, 0x1.00e377af911d5p+1,
    0x1.fe0e40add09d9p+0, 0x1.fa5c6b3efe1e6p+0, 0x1.f6b1498515ed1p+0, 0x1.f30cb6ea0bc81p+0,
    0x1.ef6e8fc5b9169p+0, 0x1.ebd6b154a767ap+0, 0x1.e844f9af42381p+0, 0x1.e4b947c16a454p+0,
    0x1.e1337b426509dp+0, 0x1.ddb374ad23581p+0, 0x1.da391538da50cp+0, 0x1.d6c43ed1ea401p+0,
    0x1.d354d4130f2b0p+0, 0x1.cfeab83ed7182p+0, 0x1.cc85cf395a56ep+0, 0x1.c925fd82323fep+0,
    0x1.c5cb282eab1a7p+0, 0x1.c27534e42e02fp+0, 0x1.bf2409d2dfd87p+0, 0x1.bbd78db072612p+0,
    0x1.b88fa7b324fb7p+0, 0x1.b54c3f8cf2543p+0, 0x1.b20d3d66e8bb6p+0, 0x1.aed289dcaad00p+0,
    0x1.ab9c0df81657bp+0, 0x1.a869b32d0f310p+0, 0x1.a53b63556c691p+0, 0x1.a21108ad0592ep+0,
    0x1.9eea8dcdde952p+0, 0x1.9bc7ddac7035ep+0, 0x1.98a8e3940bbf5p+0, 0x1.958d8b235828bp+0,
    0x1.9275c048e73e2p+0, 0x1.8f616f3fe1514p+0, 0x1.8c50848cc6095p+0, 0x1.8942ecfa40f55p+0,
    0x1.86389596108e8p+0, 0x1.83316badfe62bp+0, 0x1.802d5ccce7278p+0, 0x1.7d2c56b7d17f9p+0,
    0x1.7a2e476b1240cp+0, 0x1.77331d177d131p+0, 0x1.743ac61fa041dp+0, 0x1.714531150a9fcp+0,
    0x1.6e524cb59a609p+0, 0x1.6b6207e8d3ce1p+0, 0x1.687451bd3ebf0p+0, 0x1.65891965c9b8ep+0,
    0x1.62a04e3731a2fp+0, 0x1.5fb9dfa56cf28p+0, 0x1.5cd5bd4119336p+0, 0x1.59f3d6b4e9cfap+0,
    0x1.57141bc316f27p+0, 0x1.54367c42cb5f9p+0, 0x1.515ae81d900fcp+0, 0x1.4e814f4cb45ebp+0,
    0x1.4ba9a1d6b18a5p+0, 0x1.48d3cfcc883c4p+0, 0x1.45ffc94716ca7p+0, 0x1.432d7e6466cd0p+0,
    0x1.405cdf44f09c4p+0, 0x1.3d8ddc08d336ep+0, 0x1.3ac064ccfeffcp+0, 0x1.37f469a851aefp+0,
    0x1.3529daa8a1ba0p+0, 0x1.3260a7cfb7611p+0, 0x1.2f98c11031720p+0, 0x1.2cd2164a53b5dp+0,
    0x1.2a0c9748bcda9p+0, 0x1.274833bd0189fp+0, 0x1.2484db3c2a329p+0, 0x1.21c27d3b10e04p+0,
    0x1.1f01090a9c4e0p+0, 0x1.1c406dd3d5281p+0, 0x1.19809a93d2394p+0, 0x1.16c17e1777ff9p+0,
    0x1.140306f707dbcp+0, 0x1.114523917ac13p+0, 0x1.0e87c207a2f64p+0, 0x1.0bcad03710135p+0,
    0x1.090e3bb4b0070p+0, 0x1.0651f1c7276f5p+0, 0x1.0395df60db15fp+0, 0x1.00d9f119a3cd6p+0,
    0x1.fc3c26504a99cp-1, 0x1.f6c462b57feb0p-1, 0x1.f14c6e2029499p-1, 0x1.ebd41e5e21b5dp-1,
    0x1.e65b483cf103ep-1, 0x1.e0e1bf77c31f8p-1, 0x1.db6756a429050p-1, 0x1.d5ebdf1d86b87p-1,
    0x1.d06f28ef0e6f4p-1, 0x1.caf102bc25ad4p-1, 0x1.c57139a70d298p-1, 0x1.bfef99359fe92p-1,
    0x1.ba6beb33f8f83p-1, 0x1.b4e5f794c9795p-1, 0x1.af5d844f224c2p-1, 0x1.a9d255396d25bp-1,
    0x1.a4442be148844p-1, 0x1.9eb2c75ff03b8p-1, 0x1.991de42ad1332p-1, 0x1.93853bdfda23dp-1,
    0x1.8de8850d0c523p-1, 0x1.884772f2be1e5p-1, 0x1.82a1b53fed593p-1, 0x1.7cf6f7c7e816cp-1,
    0x1.7746e2307796dp-1, 0x1.71911797990b5p-1, 0x1.6bd5362faa93ep-1, 0x1.6612d6d0c68dap-1,
    0x1.60498c7dd2ec8p-1, 0x1.5a78e3db8bef6p-1, 0x1.54a0629786f47p-1, 0x1.4ebf86bcd0b8dp-1,
    0x1.48d5c5f35e70cp-1, 0x1.42e28ca706742p-1, 0x1.3ce53d121629ap-1, 0x1.36dd2e26d81fbp-1,
    0x1.30c9aa526da45p-1, 0x1.2aa9ee1236804p-1, 0x1.247d26538ff28p-1, 0x1.1e426e93e49e1p-1,
    0x1.17f8ceb4bdf9bp-1, 0x1.119f38749f5aap-1, 0x1.0b348479b80f7p-1, 0x1.04b76ed6a7553p-1,
    0x1.fc4d25d683201p-2, 0x1.ef00ccf5f4fa3p-2, 0x1.e186678f17352p-2, 0x1.d3da24df17c2dp-2,
    0x1.c5f7bd78c3f7fp-2, 0x1.b7da5dddda3b9p-2, 0x1.a97c8be5d51f8p-2, 0x1.9ad80552237c7p-2,
    0x1.8be5954d36063p-2, 0x1.7c9cdda17d00ep-2, 0x1.6cf40f0a72bb2p-2, 0x1.5cdf89d024ab7p-2,
    0x1.4c515c60bfe16p-2, 0x1.3b388fe3d6ebdp-2, 0x1.2980290da2625p-2, 0x1.170db24d6f662p-2,
    0x1.03bf049c65c2dp-2, 0x1.decd8b76dbd7bp-3, 0x1.b38d1ef79b7aep-3, 0x1.85090fbc27a5ep-3,
    0x1.522e6e54a2a4ep-3, 0x1.19335a95b8d8ep-3, 0x1.ad6b2495b4cc6p-4, 0x1.0589d8b5d408fp-4,
    0x0p0,
]
/// `ZigguratTable.exponential`'s densities f[i] = e^(-x[i]).
@usableFromInline let zigguratExponentialF: [Double] = [
    0x1.5e5d3f59d0549p-13, 0x1.dc31c329f0b48p-12, 0x1.fb20af78dfcb7p-11, 0x1.92bb5540c3e26p-10,
    0x1.1946ba8e1a326p-9, 0x1.6d888f3a1fefep-9, 0x1.c58b381cd4b11p-9, 0x1.1073d69574045p-8,
    0x1.3fa97cee32301p-8, 0x1.7049f37ec3627p-8, 0x1.a23e9d497483bp-8, 0x1.d5751fa745dcdp-8,
    0x1.04ef2295fd7fbp-7, 0x1.1fb69edb37672p-7, 0x1.3b0b8c1516f63p-7, 0x1.56e930be416ccp-7,
    0x1.734b6e6aa74f7p-7, 0x1.902ea688fa7bbp-7, 0x1.ad8fa5542c92dp-7, 0x1.cb6b9146e275ap-7,
    0x1.e9bfdde89c7cep-7, 0x1.04452091e02eep-6, 0x1.13e4554725f5dp-6, 0x1.23bc9e1b93a30p-6,
    0x1.33cd225315d82p-6, 0x1.44151ce87f0bdp-6, 0x1.5493da6ab0250p-6, 0x1.6548b72a24077p-6,
    0x1.76331da87fc96p-6, 0x1.8752853ec9968p-6, 0x1.98a670f132a49p-6, 0x1.aa2e6e6924e9cp-6,
    0x1.bbea150fa5871p-6, 0x1.cdd9054331b0fp-6, 0x1.dffae7a51746dp-6, 0x1.f24f6c7af9895p-6,
    0x1.026b2590dfaf0p-5, 0x1.0bc7a0c7cd654p-5, 0x1.153d09f19b3a5p-5, 0x1.1ecb45ff312d7p-5,
    0x1.28723c956c00fp-5, 0x1.3231d7e3f14b1p-5, 0x1.3c0a047ff1901p-5, 0x1.45fab14266b1bp-5,
    0x1.5003cf296c5eep-5, 0x1.5a25513c5d2cdp-5, 0x1.645f2c726a043p-5, 0x1.6eb1579b6af53p-5,
    0x1.791bcb4ab08a0p-5, 0x1.839e81c3a396dp-5, 0x1.8e3976e80776ep-5, 0x1.98eca827b7c4dp-5,
    0x1.a3b81471bf138p-5, 0x1.ae9bbc26a8083p-5, 0x1.b997a10bed984p-5, 0x1.c4abc640721e8p-5,
    0x1.cfd83031e7949p-5, 0x1.db1ce49315810p-5, 0x1.e679ea52eb2e7p-5, 0x1.f1ef49944e838p-5,
    0x1.fd7d0ba69967cp-5, 0x1.04919d7f5c81ap-4, 0x1.0a70f19871b3fp-4, 0x1.105c88756ca53p-4,
    0x1.165468f755395p-4, 0x1.1c589a86fa342p-4, 0x1.22692512c9d8dp-4, 0x1.2886110ce0571p-4,
    0x1.2eaf676948dd1p-4, 0x1.34e5319c6e718p-4, 0x1.3b277999b9f9fp-4, 0x1.417649d25b10fp-4,
    0x1.47d1ad343985cp-4, 0x1.4e39af290d929p-4, 0x1.54ae5b959d037p-4, 0x1.5b2fbed91bb40p-4,
    0x1.61bde5ccadef8p-4, 0x1.6858ddc30b621p-4, 0x1.6f00b488416b8p-4, 0x1.75b5786193c21p-4,
    0x1.7c77380d7a6f5p-4, 0x1.834602c3bc4bbp-4, 0x1.8a21e835a533dp-4, 0x1.910af88e574bap-4,
    0x1.9801447336b70p-4, 0x1.9f04dd046f428p-4, 0x1.a615d3dd938b6p-4, 0x1.ad343b1655464p-4,
    0x1.b460254356546p-4, 0x1.bb99a5771268cp-4, 0x1.c2e0cf42e10adp-4, 0x1.ca35b6b80fd56p-4,
    0x1.d198706914dd5p-4, 0x1.d909116ad9396p-4, 0x1.e087af561baf8p-4, 0x1.e8146048eb9c9p-4,
    0x1.efaf3ae83c339p-4, 0x1.f758566190412p-4, 0x1.ff0fca6cbea8bp-4, 0x1.036ad7a6e7f04p-3,
    0x1.07550eeb7a5bfp-3, 0x1.0b4697b54b62fp-3, 0x1.0f3f7efec171fp-3, 0x1.133fd20c9712ep-3,
    0x1.17479e6f0ae77p-3, 0x1.1b56f2031d665p-3, 0x1.1f6ddaf3dca63p-3, 0x1.238c67bbbe876p-3,
    0x1.27b2a7260993ep-3, 0x1.2be0a8504cf32p-3, 0x1.30167aabe7d6cp-3, 0x1.34542dffa0cadp-3,
    0x1.3899d2694d5c7p-3, 0x1.3ce7785f8a903p-3, 0x1.413d30b386a97p-3, 0x1.459b0c92dccc3p-3,
    0x1.4a011d8983093p-3, 0x1.4e6f7583cb6f7p-3, 0x1.52e626d078c46p-3, 0x1.57654422e78f1p-3,
    0x1.5bece0954c2b2p-3, 0x1.607d0fab06a2ep-3, 0x1.6515e5530d1a9p-3, 0x1.69b775ea6da26p-3,
    0x1.6e61d63ee84e9p-3, 0x1.73151b91a2838p-3, 0x1.77d15b99f46fdp-3, 0x1.7c96ac8851badp-3,
    0x1.816525094e7e4p-3, 0x1.863cdc48c1af8p-3, 0x1.8b1de9f5062d3p-3, 0x1.900866425bb78p-3,
    0x1.94fc69ee6929fp-3, 0x1.99fa0e43e1621p-3, 0x1.9f016d1e4c510p-3, 0x1.a412a0edf5cbap-3,
    0x1.a92dc4bc03c47p-3, 0x1.ae52f42eb5b0ap-3, 0x1.b3824b8dcef3cp-3, 0x1.b8bbe7c72e4a3p-3,
    0x1.bdffe67394433p-3, 0x1.c34e65db9afecp-3, 0x1.c8a784fce17ffp-3, 0x1.ce0b638f6d09bp-3,
    0x1.d37a220b431fap-3, 0x1.d8f3e1ae3eeb6p-3, 0x1.de78c48224f37p-3, 0x1.e408ed62f83a4p-3,
    0x1.e9a48005940efp-3, 0x1.ef4ba0fe8e098p-3, 0x1.f4fe75c963e7bp-3, 0x1.fabd24cff9351p-3,
    0x1.0043eab934769p-2, 0x1.032f580797c2bp-2, 0x1.0620ef05d90d1p-2, 0x1.0918c4ee93e12p-2,
    0x1.0c16ef88f5332p-2, 0x1.0f1b852d9a66bp-2, 0x1.12269ccba9fb9p-2, 0x1.15384dee291eep-2,
    0x1.1850b0c191981p-2, 0x1.1b6fde19abc59p-2, 0x1.1e95ef77b09dap-2, 0x1.21c2ff10b7effp-2,
    0x1.24f727d4776fdp-2, 0x1.2832857457628p-2, 0x1.2b75346ae2263p-2, 0x1.2ebf520394271p-2,
    0x1.3210fc6312436p-2, 0x1.356a528fcd0ddp-2, 0x1.38cb747b17defp-2, 0x1.3c34830abb285p-2,
    0x1.3fa5a0230a14fp-2, 0x1.431eeeb1841e2p-2, 0x1.46a092b80beefp-2, 0x1.4a2ab158bdad4p-2,
    0x1.4dbd70e26f920p-2, 0x1.5158f8dde89f7p-2, 0x1.54fd721bda3e9p-2, 0x1.58ab06c3aa9f1p-2,
    0x1.5c61e2631ee6fp-2, 0x1.602231fef5879p-2, 0x1.63ec2424827e7p-2, 0x1.67bfe8fc60da1p-2,
    0x1.6b9db25e4e99fp-2, 0x1.6f85b3e649ea1p-2, 0x1.7378230b08deep-2, 0x1.77753735e72e7p-2,
    0x1.7b7d29dc68022p-2, 0x1.7f90369b6ce5dp-2, 0x1.83ae9b544613dp-2, 0x1.87d8984bc3f90p-2,
    0x1.8c0e704b75d3ep-2, 0x1.905068c545d09p-2, 0x1.949ec9f9a8115p-2, 0x1.98f9df2097badp-2,
    0x1.9d61f695a3797p-2, 0x1.a1d76207521f9p-2, 0x1.a65a76aa30145p-2, 0x1.aaeb8d6fdf6ebp-2,
    0x1.af8b03428ef65p-2, 0x1.b439394548075p-2, 0x1.b8f6951990b8ep-2, 0x1.bdc3812aeeebbp-2,
    0x1.c2a06d00ea588p-2, 0x1.c78dcd983fb66p-2, 0x1.cc8c1dc40e098p-2, 0x1.d19bde97e1a11p-2,
    0x1.d6bd97db9ed80p-2, 0x1.dbf1d88a72112p-2, 0x1.e139375e13802p-2, 0x1.e6945367dd357p-2,
    0x1.ec03d4b969d96p-2, 0x1.f1886d1eb4253p-2, 0x1.f722d8ebfc600p-2, 0x1.fcd3dfe21457cp-2,
    0x1.014e2b160f327p-1, 0x1.043e8ebd2654bp-1, 0x1.073b931ee3b80p-1, 0x1.0a45b8854d02dp-1,
    0x1.0d5d8812b1e2ep-1, 0x1.108394a1cc390p-1, 0x1.13b87bc33169fp-1, 0x1.16fce6dce6ff2p-1,
    0x1.1a518c71e3b29p-1, 0x1.1db7319877b8dp-1, 0x1.212eaba813eccp-1, 0x1.24b8e228c50a6p-1,
    0x1.2856d111132c0p-1, 0x1.2c098b61f4f27p-1, 0x1.2fd23e345da61p-1, 0x1.33b23450e631bp-1,
    0x1.37aada708dddcp-1, 0x1.3bbdc44e1d116p-1, 0x1.3fecb2bb18b82p-1, 0x1.44399afa8e128p-1,
    0x1.48a6afb8ee06cp-1, 0x1.4d366c151f8b2p-1, 0x1.51eba1578899ep-1, 0x1.56c9882da8777p-1,
    0x1.5bd3d694cac79p-1, 0x1.610edc1a7af6ap-1, 0x1.667fa6d4f5c0ap-1, 0x1.6c2c3498418cap-1,
    0x1.721bb5ba94b67p-1, 0x1.7856e9b09d483p-1, 0x1.7ee8a2d24312bp-1, 0x1.85de87806c5bdp-1,
    0x1.8d4a376d3d235p-1, 0x1.95431c455aa3fp-1, 0x1.9de9715556da1p-1, 0x1.a76baa562faeep-1,
    0x1.b210f0ee67f32p-1, 0x1.be5007beb7b31p-1, 0x1.cd0a65081fffcp-1, 0x1.e0545e5881147p-1,
    0x1.0000000000000p+0,
]
