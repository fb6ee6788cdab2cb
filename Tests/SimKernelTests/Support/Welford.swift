/// Streaming mean and variance by Welford's method, mergeable by Chan et al.'s
/// pairwise formula. O(1) memory.
///
/// Merging is exact in real arithmetic but not bit-for-bit equal to recording the same
/// values in one stream (floating point is not associative). Where results must be
/// byte-identical however the work is split, accumulate integers instead (see
/// `LatencyHistogram` and the model's summary accumulators).
public struct Welford: Sendable, Equatable {
    @usableFromInline var _count: Int = 0
    @usableFromInline var _mean: Double = 0
    /// The number of values recorded.
    @inlinable public var count: Int { _count }
    /// Their mean (0 when empty).
    @inlinable public var mean: Double { _mean }
    @usableFromInline var m2: Double = 0

    @inlinable public init() {}

    /// Adds one value. O(1).
    @inlinable public mutating func record(_ x: Double) {
        _count += 1
        let delta = x - _mean
        _mean += delta / Double(_count)
        m2 += delta * (x - _mean)
    }

    /// The unbiased sample variance (n − 1 in the denominator); 0 below two values.
    @inlinable public var variance: Double { count > 1 ? m2 / Double(count - 1) : 0 }
    /// The population variance (n in the denominator).
    @inlinable public var populationVariance: Double { count > 0 ? m2 / Double(count) : 0 }
    /// The sample standard deviation.
    @inlinable public var standardDeviation: Double { variance.squareRoot() }

    /// Combines another accumulator into this one. O(1).
    public mutating func merge(_ other: Welford) {
        guard other.count > 0 else { return }
        guard count > 0 else { self = other; return }
        let n = Double(count + other.count)
        let delta = other.mean - mean
        _mean += delta * Double(other.count) / n
        m2 += other.m2 + delta * delta * Double(count) * Double(other.count) / n
        _count += other.count
    }
}
