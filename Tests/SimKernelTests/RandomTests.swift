import Testing
import SimKernel
#if canImport(Glibc)
import Glibc
#endif

@Suite("Seeded random streams are repeatable and independent")
struct RandomStreamTests {
    @Test("xoshiro256** matches the reference implementation")
    func referenceVector() {
        // State set to 1, 2, 3, 4: outputs from Vigna's xoshiro256starstar.c.
        var g = Xoshiro256StarStar(state: 1, 2, 3, 4)
        let expected: [UInt64] = [11520, 0, 1509978240, 1215971899390074240]
        #expect((0..<4).map { _ in g.next() } == expected)
    }

    @Test("SplitMix64 matches the reference implementation")
    func splitMixVector() {
        var s = SplitMix64(state: 1234567)
        let expected: [UInt64] = [6457827717110365317, 3203168211198807973, 9817491932198370423]
        #expect((0..<3).map { _ in s.next() } == expected)
    }

    @Test("the same seed and stream give the same numbers")
    func repeatable() {
        var a = Xoshiro256StarStar(seed: 42, 17, 3)
        var b = Xoshiro256StarStar(seed: 42, 17, 3)
        for _ in 0..<1_000 { #expect(a.next() == b.next()) }
    }

    @Test("different streams, ids in another order, and other seeds all differ")
    func independent() {
        func first(_ g: Xoshiro256StarStar) -> [UInt64] { var g = g; return (0..<4).map { _ in g.next() } }
        let streams = [
            Xoshiro256StarStar(seed: 42, 17, 3), Xoshiro256StarStar(seed: 42, 3, 17),
            Xoshiro256StarStar(seed: 42, 17, 4), Xoshiro256StarStar(seed: 43, 17, 3),
            Xoshiro256StarStar(seed: 42, 173), Xoshiro256StarStar(seed: 42, 0),
            Xoshiro256StarStar(seed: 42),
        ].map(first)
        #expect(Set(streams.map { $0.description }).count == streams.count)
    }

    @Test("streams are uncorrelated: neighbouring stream ids give independent uniforms")
    func uncorrelated() {
        var a = Xoshiro256StarStar(seed: 1, 1)
        var b = Xoshiro256StarStar(seed: 1, 2)
        let n = 200_000
        var sxy = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0
        for _ in 0..<n {
            let x = a.nextUnit(), y = b.nextUnit()
            sx += x; sy += y; sxy += x * y; sxx += x * x; syy += y * y
        }
        let nn = Double(n)
        let r = (sxy / nn - sx / nn * sy / nn) / ((sxx / nn - sx * sx / nn / nn) * (syy / nn - sy * sy / nn / nn)).squareRoot()
        // Standard error of r is 1/sqrt(n) ≈ 0.0022; 5 standard errors.
        #expect(abs(r) < 0.011)
    }

    @Test("nextIndex stays in range and is uniform")
    func indexUniform() {
        var g = Xoshiro256StarStar(seed: 9)
        var counts = [Int](repeating: 0, count: 7)
        for _ in 0..<700_000 { counts[g.nextIndex(7)] += 1 }
        let chi = counts.reduce(0.0) { $0 + pow(Double($1) - 100_000, 2) / 100_000 }
        #expect(chi < ChiSquare.critical999(df: 6))
    }
}

@Suite("Distributions have the stated mean and variance")
struct DistributionTests {
    static let draws = 1_000_000

    static func moments(_ d: RealDistribution, seed: UInt64) -> Welford {
        var g = Xoshiro256StarStar(seed: seed, 5)
        var w = Welford()
        for _ in 0..<draws { w.record(d.sample(&g)) }
        return w
    }

    @Test("sample mean and variance on 1e6 draws match theory", arguments: [
        RealDistribution.uniform(low: 2, high: 5),
        .exponential(mean: 3),
        .normal(mean: -1, sd: 2),
        .lognormal(median: 100, sigma: 0.5),
        .empirical([1, 2, 2, 10]),
        .constant(4),
    ])
    func moments(d: RealDistribution) {
        let w = Self.moments(d, seed: 11)
        let sd = d.variance.squareRoot()
        // Mean within 5 standard errors; variance within 2% (lognormal's heavy tail: 3%).
        #expect(abs(w.mean - d.mean) <= 5 * sd / Double(Self.draws).squareRoot() + 1e-12)
        let tolerance = (d == .lognormal(median: 100, sigma: 0.5) ? 0.03 : 0.02)
        #expect(abs(w.variance - d.variance) <= tolerance * d.variance + 1e-12)
    }

    @Test("the lognormal is parameterised by its median: half the draws fall below it")
    func lognormalMedian() {
        var g = Xoshiro256StarStar(seed: 3)
        let d = RealDistribution.lognormal(median: 250, sigma: 0.8)
        var below = 0
        for _ in 0..<Self.draws where d.sample(&g) < 250 { below += 1 }
        #expect(abs(Double(below) / Double(Self.draws) - 0.5) < 0.0025)
    }

    @Test("Bernoulli succeeds with probability p")
    func bernoulli() {
        var g = Xoshiro256StarStar(seed: 4)
        let b = Bernoulli(p: 0.3)
        var hits = 0
        for _ in 0..<Self.draws where b.sample(&g) { hits += 1 }
        let sd = (0.3 * 0.7 / Double(Self.draws)).squareRoot()
        #expect(abs(Double(hits) / Double(Self.draws) - 0.3) < 5 * sd)
    }

    @Test("the alias table draws each outcome with its weight (chi-square, fixed seed)")
    func aliasFrequencies() {
        let weights: [Double] = [5, 1, 0, 3, 0.5, 10, 2, 2, 0.25, 7]
        let table = AliasTable(weights: weights)
        var g = Xoshiro256StarStar(seed: 21)
        var counts = [Int](repeating: 0, count: weights.count)
        for _ in 0..<Self.draws { counts[table.sample(&g)] += 1 }
        #expect(counts[2] == 0)  // zero weight is never drawn
        let total = weights.reduce(0, +)
        var chi = 0.0
        var df = -1
        for (i, w) in weights.enumerated() where w > 0 {
            let expected = w / total * Double(Self.draws)
            chi += pow(Double(counts[i]) - expected, 2) / expected
            df += 1
        }
        #expect(chi < ChiSquare.critical999(df: df))
    }

    @Test("Zipf ranks follow 1/k^s (chi-square, fixed seed)", arguments: [
        (100, 1.0), (50, 0.8), (1_000, 1.2), (20, 0.0), (5_000, 2.0),
    ])
    func zipfFrequencies(n: Int, s: Double) {
        let z = Zipf(n: n, exponent: s)
        var g = Xoshiro256StarStar(seed: 33)
        var counts = [Int](repeating: 0, count: n + 1)
        for _ in 0..<Self.draws {
            let k = z.sample(&g)
            #expect(k >= 1 && k <= n)
            counts[k] += 1
        }
        // Pool the tail so that every cell expects at least 20 draws.
        var norm = 0.0
        for k in 1...n { norm += pow(Double(k), -s) }
        var chi = 0.0, df = -1
        var pooledObserved = 0, pooledExpected = 0.0
        for k in 1...n {
            let e = pow(Double(k), -s) / norm * Double(Self.draws)
            if e >= 20 {
                chi += pow(Double(counts[k]) - e, 2) / e
                df += 1
            } else {
                pooledObserved += counts[k]
                pooledExpected += e
            }
        }
        if pooledExpected > 0 {
            chi += pow(Double(pooledObserved) - pooledExpected, 2) / pooledExpected
            df += 1
        }
        #expect(chi < ChiSquare.critical999(df: df))
    }
}

/// Chi-square critical values by the Wilson–Hilferty approximation (good to a few
/// tenths of a percent for df ≥ 3).
enum ChiSquare {
    static func critical999(df: Int) -> Double {
        let z = 3.090232  // the 0.999 quantile of the standard normal
        let k = Double(df)
        let t = 1 - 2 / (9 * k) + z * (2 / (9 * k)).squareRoot()
        return k * t * t * t
    }
}

