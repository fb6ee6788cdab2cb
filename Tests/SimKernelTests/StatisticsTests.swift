import Testing
import SimKernel

@Suite("Latency histogram: fixed memory, 1% percentiles, exact merge")
struct LatencyHistogramTests {
    static func lognormalSample(seed: UInt64, n: Int) -> [UInt64] {
        var g = Xoshiro256StarStar(seed: seed, 2)
        let d = RealDistribution.lognormal(median: 400_000, sigma: 1.0)  // 400 ms median, in µs
        return (0..<n).map { _ in UInt64(d.sample(&g).rounded()) }
    }

    @Test("percentiles are within 1% of the exact nearest-rank values on lognormal samples")
    func percentilesAccurate() {
        let values = Self.lognormalSample(seed: 1, n: 200_000)
        var h = LatencyHistogram()
        for v in values { h.record(v) }
        let sorted = values.sorted()
        for p in [1.0, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100] {
            let rank = max(1, Int((p / 100 * Double(sorted.count)).rounded(.up)))
            let exact = Double(sorted[rank - 1])
            let got = Double(h.percentile(p))
            #expect(abs(got - exact) <= 0.01 * exact, "p\(p): \(got) vs exact \(exact)")
        }
        #expect(h.count == 200_000)
        #expect(h.sum == values.reduce(0, +))
        #expect(h.min == sorted.first && h.max == sorted.last)
    }

    @Test("small values are exact")
    func smallExact() {
        var h = LatencyHistogram()
        for v: UInt64 in [0, 1, 2, 3, 255] { h.record(v) }
        #expect(h.percentile(20) == 0)
        #expect(h.percentile(40) == 1)
        #expect(h.percentile(100) == 255)
    }

    @Test("bucket bounds tile the value range without gaps")
    func bucketsTile() {
        var expectedLow: UInt64 = 0
        for i in 0..<(LatencyHistogram.bucketCount - 1) {
            #expect(LatencyHistogram.lowerBound(ofBucket: i) == expectedLow)
            #expect(LatencyHistogram.bucketIndex(expectedLow) == i)
            let w = LatencyHistogram.width(ofBucket: i)
            #expect(LatencyHistogram.bucketIndex(expectedLow + w - 1) == i)
            // At most 1/128 of the lower bound wide (beyond the exact range).
            if i >= 256 { #expect(w * 128 <= expectedLow) }
            expectedLow += w
        }
    }

    @Test("merging two histograms equals recording every value into one")
    func mergeExact() {
        let a = Self.lognormalSample(seed: 2, n: 50_000)
        let b = Self.lognormalSample(seed: 3, n: 70_000)
        var ha = LatencyHistogram(), hb = LatencyHistogram(), all = LatencyHistogram()
        for v in a { ha.record(v); all.record(v) }
        for v in b { hb.record(v); all.record(v) }
        var merged = hb
        merged.merge(ha)
        #expect(merged == all)
        #expect(merged.percentile(99) == all.percentile(99))
    }

    @Test("a histogram rebuilt from its non-empty buckets is equal to the original")
    func roundTrip() throws {
        var h = LatencyHistogram()
        for v in Self.lognormalSample(seed: 4, n: 1_000) { h.record(v) }
        let rebuilt = try #require(LatencyHistogram(buckets: h.nonEmptyBuckets, sum: h.sum, min: h.min, max: h.max))
        #expect(rebuilt == h)
        #expect(LatencyHistogram(buckets: [(index: -1, count: 1)], sum: 0, min: 0, max: 0) == nil)
    }
}

@Suite("Welford's streaming mean and variance")
struct WelfordTests {
    @Test("matches the two-pass formulas, and merging matches one stream")
    func matchesTwoPass() {
        var g = Xoshiro256StarStar(seed: 8)
        let xs = (0..<10_001).map { _ in 1e6 + RealDistribution.normal(mean: 0, sd: 3).sample(&g) }
        var w = Welford()
        xs.forEach { w.record($0) }
        let mean = xs.reduce(0, +) / Double(xs.count)
        let variance = xs.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(xs.count - 1)
        #expect(abs(w.mean - mean) < 1e-9 * mean)
        #expect(abs(w.variance - variance) < 1e-7 * variance)
        var left = Welford(), right = Welford()
        xs[..<3_000].forEach { left.record($0) }
        xs[3_000...].forEach { right.record($0) }
        left.merge(right)
        #expect(left.count == w.count)
        #expect(abs(left.mean - w.mean) < 1e-9 * mean)
        #expect(abs(left.variance - w.variance) < 1e-7 * variance)
    }
}
