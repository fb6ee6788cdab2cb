import Testing
@testable import SimKernel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ziggurat (Marsaglia and Tsang 2000) against theory: its layers as the paper
/// defines them, and the draws' distribution (Kolmogorov-Smirnov and the tail's share)
/// on 1e6 draws with a fixed seed, each bound derived from the test's theory.
@Suite("Ziggurat variates follow the normal and exponential laws")
struct ZigguratTests {
    static let n = 1_000_000

    /// The Kolmogorov-Smirnov statistic sup |F_n(x) - F(x)| of `xs` (sorted here).
    static func ks(_ xs: [Double], cdf: (Double) -> Double) -> Double {
        let s = xs.sorted()
        let m = Double(s.count)
        var d = 0.0
        for (i, x) in s.enumerated() {
            let f = cdf(x)
            d = max(d, abs(Double(i + 1) / m - f), abs(f - Double(i) / m))
        }
        return d
    }

    /// The critical value of the KS statistic at level 0.001 for n draws (asymptotic:
    /// sqrt(-ln(0.001 / 2) / 2) / sqrt(n) = 1.9495 / sqrt(n)).
    static var ksCritical: Double { (-log(0.001 / 2) / 2).squareRoot() / Double(n).squareRoot() }

    @Test("the layers close: equal areas V from R up to the top, the base layer's with its tail")
    func layers() {
        // Normal: R·f(R) + ∫_R^∞ e^(-x²/2) dx = V, and the 255th layer reaches f = 1.
        let nt = ZigguratTable.normal
        let r = nt.r
        let vN = r * exp(-r * r / 2) + (Double.pi / 2).squareRoot() * erfc(r / 2.0.squareRoot())
        // Doornik 2005's V, to double precision (Marsaglia and Tsang's 12 digits,
        // 0.00492867323399, were 1.5e-14 off).
        #expect(abs(vN - 0.00492867323397465524494) < 1e-17)
        // The 255th layer reaches f = 1 to 2.7e-15 (it missed by 2.3e-11 with 12 digits).
        #expect(abs(exp(-0.5 * nt.x[255] * nt.x[255]) + vN / nt.x[255] - 1) < 1e-13)
        #expect(nt.x[256] == 0 && nt.f[256] == 1 && abs(nt.x[0] * nt.f[1] - 0.00492867323397465524494) < 1e-17)
        // Exponential: R·e^(-R) + e^(-R) = V; the top layer likewise.
        let et = ZigguratTable.exponential
        let vE = (et.r + 1) * exp(-et.r)
        #expect(abs(vE - 0.0039496598225815571993) < 1e-15)
        #expect(abs(exp(-et.x[255]) + vE / et.x[255] - 1) < 1e-9)
        // Decreasing edges, increasing densities.
        for i in 1..<256 { #expect(nt.x[i] > nt.x[i + 1] && et.x[i] > et.x[i + 1]) }
    }

    @Test("normal draws: KS distance to Φ under the 0.1 % critical value; tail share past R")
    func normal() {
        var g = Xoshiro256StarStar(seed: 2026, 1)
        let xs = (0..<Self.n).map { _ in StandardNormal.sample(&g) }
        let d = Self.ks(xs) { 0.5 * erfc(-$0 / 2.0.squareRoot()) }
        #expect(d < Self.ksCritical, "KS distance \(d) >= \(Self.ksCritical)")
        // Draws beyond ±R come only from the tail branch: binomial(n, erfc(R/√2)),
        // within 4.5 standard deviations (two-sided level 7e-6).
        let r = ZigguratTable.normal.r
        let p = erfc(r / 2.0.squareRoot())
        let tail = Double(xs.count(where: { abs($0) > r }))
        let sd = (Double(Self.n) * p * (1 - p)).squareRoot()
        #expect(abs(tail - Double(Self.n) * p) < 4.5 * sd, "\(tail) draws past R, expected \(Double(Self.n) * p)")
        // Symmetric: the count of positive draws is binomial(n, 1/2).
        let positive = Double(xs.count(where: { $0 > 0 }))
        #expect(abs(positive - Double(Self.n) / 2) < 4.5 * (Double(Self.n) / 4).squareRoot())
    }

    @Test("exponential draws: KS distance to 1 - e^(-x) under the 0.1 % critical value; tail share past R")
    func exponential() {
        var g = Xoshiro256StarStar(seed: 2026, 2)
        let xs = (0..<Self.n).map { _ in Exponential.sample(mean: 1, &g) }
        #expect(xs.allSatisfy { $0 >= 0 })
        let d = Self.ks(xs) { $0 <= 0 ? 0 : -expm1(-$0) }
        #expect(d < Self.ksCritical, "KS distance \(d) >= \(Self.ksCritical)")
        let r = ZigguratTable.exponential.r
        let p = exp(-r)
        let tail = Double(xs.count(where: { $0 > r }))
        let sd = (Double(Self.n) * p * (1 - p)).squareRoot()
        #expect(abs(tail - Double(Self.n) * p) < 4.5 * sd, "\(tail) draws past R, expected \(Double(Self.n) * p)")
    }

    @Test("the first draws of a seed are pinned: a change to the tables, the layer's bits or the tails shows here")
    func pinnedDraws() {
        // Recorded from this implementation (seed 9, stream 3): the statistics tests above
        // check the distributions; this pins the stream every golden output rests on.
        var g = Xoshiro256StarStar(seed: 9, 3)
        let normals = (0..<4).map { _ in StandardNormal.sample(&g) }
        let exponentials = (0..<4).map { _ in Exponential.sample(mean: 2, &g) }
        #expect(normals.map { ($0 * 1e12).rounded() } == [-728_177_427_907, -157_615_940_752, 2_155_163_633_714, 120_371_158_489])
        #expect(exponentials.map { ($0 * 1e12).rounded() } == [1_619_483_067_415, 3_763_453_807_158, 419_058_109_221, 1_876_599_969_717])
    }

    @Test("the variants with a caller-held table draw the same bits from the same numbers, rejections included")
    func heldTableVariants() {
        // 200,000 draws of each: about 3,000 normal and 4,400 exponential first numbers
        // fall outside their rectangle, so the out-of-line paths are compared too.
        var a = Xoshiro256StarStar(seed: 11, 4), b = a
        let normal = ZigguratTable.normal, exponential = ZigguratTable.exponential
        var differ = 0
        for _ in 0..<200_000 {
            if StandardNormal.sample(&a).bitPattern != StandardNormal.sample(&b, table: normal).bitPattern { differ += 1 }
            if Exponential.standard(&a).bitPattern != Exponential.standard(&b, table: exponential).bitPattern { differ += 1 }
        }
        #expect(differ == 0)
        #expect(a.next() == b.next(), "the two streams consumed different numbers")
    }
}

/// The constant layer tables (`zigguratNormalX` and friends, written out so a draw
/// needs no once-check) are, bit for bit, what the layers' recurrence derives.
@Suite("Ziggurat tables are the layers' recurrence, bit for bit")
struct ZigguratTableConstantTests {
    @Test("normal and exponential: x and f, all 257 entries, identical bits")
    func tablesMatchRecurrence() {
        let cases: [(String, (x: [Double], f: [Double]), ZigguratTable, Double)] = [
            ("normal", ZigguratTable.normalLayers(), ZigguratTable.normal, ZigguratTable.normalR),
            ("exponential", ZigguratTable.exponentialLayers(), ZigguratTable.exponential, ZigguratTable.exponentialR),
        ]
        for (name, derived, table, r) in cases {
            #expect(table.r.bitPattern == r.bitPattern, "\(name) R")
            #expect(derived.x.count == 257 && derived.f.count == 257)
            var mismatches = 0
            for i in 0...256 where table.x[i].bitPattern != derived.x[i].bitPattern
                || table.f[i].bitPattern != derived.f[i].bitPattern {
                mismatches += 1
            }
            #expect(mismatches == 0, "\(name): \(mismatches) entries differ from the recurrence")
        }
        #expect(zigguratNormalX.count == 257 && zigguratNormalF.count == 257
            && zigguratExponentialX.count == 257 && zigguratExponentialF.count == 257)
    }
}
