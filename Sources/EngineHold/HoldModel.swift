import SimKernel

/// The classic "hold model" for measuring a future event set (Vaucher and Duval,
/// 1975; Jones, 1986): N events are pending; a hold pops the earliest and pushes one
/// at now + Exp(mean 1 s). N stays constant, so the cost of a hold is the cost of one
/// pop and one push at that size, plus one exponential draw.
///
/// Used by the benchmark suite and by `scripts/bench-vs-simpy.sh` (through
/// `jetsim hold`), so both measure exactly the same work.
public struct HoldModel {
    /// The event set; the payload is a small id so entries stay at 24 bytes.
    public var queue: EventQueue<UInt32>
    /// The time of the last event popped.
    public var now: SimTime = .zero
    @usableFromInline var rng: Xoshiro256StarStar
    /// The mean hold time in microseconds (1 s).
    @usableFromInline static let meanHoldMicros = 1_000_000.0

    /// A queue of `pending` events at Exp(1 s) times, with room reserved so that
    /// holds never allocate.
    public init(pending: Int, seed: UInt64 = 1) {
        rng = Xoshiro256StarStar(seed: seed, 0x401D)
        queue = EventQueue(capacity: pending + 1)
        for i in 0..<pending {
            queue.push(UInt32(truncatingIfNeeded: i), at: SimTime(microseconds: Int64(Exponential.sample(mean: Self.meanHoldMicros, &rng))))
        }
    }

    /// Performs `count` holds. Returns a checksum of the popped ids so the work
    /// cannot be optimised away.
    @inlinable @inline(never)
    public mutating func hold(_ count: Int) -> UInt64 {
        var checksum: UInt64 = 0
        for _ in 0..<count {
            let e = queue.popMin().unsafelyUnwrapped
            now = e.time
            checksum &+= UInt64(e.event)
            let delay = Int64(Exponential.sample(mean: Self.meanHoldMicros, &rng))
            queue.push(e.event, at: SimTime(microseconds: e.time.microseconds &+ delay))
        }
        return checksum
    }
}
