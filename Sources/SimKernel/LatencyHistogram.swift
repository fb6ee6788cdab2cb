/// A fixed-memory, mergeable histogram of non-negative integer values (latencies in
/// microseconds, say) with percentiles within 1% relative error.
///
/// Buckets are log-linear, as in HdrHistogram: values below 256 have a bucket each;
/// above, every power-of-two range is split into 128 equal buckets, so a bucket is at
/// most 1/128 (0.79%) of its lower bound wide. A percentile is reported as the middle
/// of its bucket, clamped to the exact minimum and maximum seen: at most 0.4% from a
/// value in that bucket. Values at or above 2^47 (about 4.5 years in microseconds) go
/// to the last bucket.
///
/// Counts are integers, so merging is exact: merging two histograms gives the same
/// buckets, count, sum, minimum and maximum as recording every value into one, in any
/// order. Recording never allocates.
public struct LatencyHistogram: Sendable, Equatable {
    /// Sub-buckets per power of two, as a power of two.
    public static let subBucketBits = 7
    @usableFromInline static let subBucketCount = 1 << subBucketBits
    /// The largest power of two tracked before values are clamped.
    public static let maxExponent = 47
    /// The number of buckets.
    public static let bucketCount = (maxExponent - subBucketBits + 1) * (1 << subBucketBits) + (1 << subBucketBits)

    @usableFromInline var buckets: ContiguousArray<UInt64>
    @usableFromInline var _count: UInt64 = 0
    /// The number of values recorded.
    public var count: UInt64 { _count }
    /// The exact sum of the values recorded (wrapping past 2^64 is not expected:
    /// 10^9 values of an hour each stay below it).
    @usableFromInline var _sum: UInt64 = 0
    public var sum: UInt64 { _sum }
    /// The smallest value recorded (0 when empty).
    public var min: UInt64 { count == 0 ? 0 : minValue }
    /// The largest value recorded (0 when empty).
    public var max: UInt64 { maxValue }
    @usableFromInline var minValue: UInt64 = .max
    @usableFromInline var maxValue: UInt64 = 0

    /// An empty histogram. Allocates its fixed bucket array once.
    public init() {
        buckets = ContiguousArray(repeating: 0, count: Self.bucketCount)
    }

    /// The bucket index of a value. O(1).
    @inlinable @inline(__always)
    public static func bucketIndex(_ value: UInt64) -> Int {
        if value < UInt64(2 * subBucketCount) { return Int(value) }
        let exponent = 63 - value.leadingZeroBitCount  // ≥ subBucketBits + 1
        if exponent > maxExponent { return bucketCount - 1 }
        let shift = exponent - subBucketBits
        let mantissa = Int(value >> UInt64(shift))  // in [128, 256)
        return (shift << subBucketBits) + mantissa
    }

    /// The smallest value that falls into bucket `index`.
    public static func lowerBound(ofBucket index: Int) -> UInt64 {
        if index < 2 * subBucketCount { return UInt64(index) }
        let shift = (index >> subBucketBits) - 1
        let mantissa = UInt64((index & (subBucketCount - 1)) + subBucketCount)
        return mantissa << UInt64(shift)
    }

    /// The number of values that fall into bucket `index`.
    public static func width(ofBucket index: Int) -> UInt64 {
        if index < 2 * subBucketCount { return 1 }
        return 1 << UInt64((index >> subBucketBits) - 1)
    }

    /// Records one value. O(1), never allocates.
    @inlinable @inline(__always)
    public mutating func record(_ value: UInt64) {
        buckets[Self.bucketIndex(value)] &+= 1
        _count &+= 1
        _sum &+= value
        if value < minValue { minValue = value }
        if value > maxValue { maxValue = value }
    }

    /// Records a non-negative `SimTime` in microseconds.
    @inlinable public mutating func record(_ time: SimTime) {
        record(UInt64(Swift.max(0, time.microseconds)))
    }

    /// Adds every value of `other`. O(buckets).
    public mutating func merge(_ other: LatencyHistogram) {
        for i in buckets.indices { buckets[i] &+= other.buckets[i] }
        _count &+= other._count
        _sum &+= other._sum
        minValue = Swift.min(minValue, other.minValue)
        maxValue = Swift.max(maxValue, other.maxValue)
    }

    /// Empties the histogram, keeping its storage.
    public mutating func reset() {
        for i in buckets.indices { buckets[i] = 0 }
        _count = 0; _sum = 0; minValue = .max; maxValue = 0
    }

    /// The exact mean of the values recorded (0 when empty).
    public var mean: Double { count == 0 ? 0 : Double(sum) / Double(count) }

    /// The value at percentile `p` (0...100) by the nearest-rank definition: the
    /// smallest recorded value v such that at least p% of values are ≤ v, reported
    /// to within 0.4% (the middle of its bucket, clamped to the exact min and max).
    /// 0 when empty. O(buckets).
    public func percentile(_ p: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = Swift.max(1, UInt64((p / 100 * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for i in buckets.indices {
            seen &+= buckets[i]
            if seen >= rank {
                let low = Self.lowerBound(ofBucket: i)
                let mid = low + (Self.width(ofBucket: i) - 1) / 2
                return Swift.min(Swift.max(mid, minValue), maxValue)
            }
        }
        return maxValue
    }

    /// The non-empty buckets as (index, count) pairs, in index order: the exact state,
    /// for saving and restoring.
    public var nonEmptyBuckets: [(index: Int, count: UInt64)] {
        buckets.indices.compactMap { buckets[$0] == 0 ? nil : ($0, buckets[$0]) }
    }

    /// Rebuilds a histogram from its saved state. Returns nil when the state is not
    /// consistent (an index out of range or counts that do not add up).
    public init?(buckets pairs: [(index: Int, count: UInt64)], sum: UInt64, min: UInt64, max: UInt64) {
        self.init()
        var total: UInt64 = 0
        for (i, c) in pairs {
            guard i >= 0 && i < Self.bucketCount else { return nil }
            buckets[i] &+= c
            total &+= c
        }
        _count = total
        _sum = sum
        minValue = total == 0 ? .max : min
        maxValue = total == 0 ? 0 : max
    }
}
