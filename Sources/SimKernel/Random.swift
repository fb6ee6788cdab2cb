/// Uniform reals from any of the generators (SplitMix64, xoshiro256**, and the
/// ziggurat's generic draws): written once.
extension RandomNumberGenerator {
    /// A uniform real in [0, 1) with 53 random bits.
    @inlinable @inline(__always)
    public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A uniform real in (0, 1]: safe to take the logarithm of.
    @inlinable @inline(__always)
    public mutating func nextOpenUnit() -> Double { Double((next() >> 11) &+ 1) * 0x1.0p-53 }
}

/// SplitMix64: a tiny generator used to seed others and to mix stream ids.
/// (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014.)
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64
    @inlinable public init(state: UInt64) { self.state = state }

    @inlinable public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// The SplitMix64 output function: a bijective avalanche of 64 bits.
    @inlinable public static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// xoshiro256** 1.0 (Blackman and Vigna, 2018): the generator behind every random
/// number in a run. 256 bits of state, period 2^256 - 1, passes BigCrush.
///
/// Seed it through `init(seed:stream:)` to get independent streams: the numbers drawn
/// for one stream never depend on how many numbers any other stream drew.
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    @usableFromInline var s0: UInt64
    @usableFromInline var s1: UInt64
    @usableFromInline var s2: UInt64
    @usableFromInline var s3: UInt64

    /// A generator whose 256-bit state is filled by SplitMix64 from `seed`.
    @inlinable public init(seed: UInt64) {
        var sm = SplitMix64(state: seed)
        s0 = sm.next(); s1 = sm.next(); s2 = sm.next(); s3 = sm.next()
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }  // the all-zero state is a fixed point
    }

    /// A generator with exactly this state (not all zero); for reference vectors.
    @inlinable public init(state s0: UInt64, _ s1: UInt64, _ s2: UInt64, _ s3: UInt64) {
        precondition(s0 | s1 | s2 | s3 != 0, "the all-zero state is a fixed point")
        self.s0 = s0; self.s1 = s1; self.s2 = s2; self.s3 = s3
    }

    /// The stream named by up to three ids under the run's `seed`. Each id is folded
    /// into a 64-bit key through the SplitMix64 mixer, so (seed, 1, 2) and (seed, 2, 1)
    /// and (seed, 12) all differ; the key then seeds the state as `init(seed:)` does.
    @inlinable public init(seed: UInt64, _ a: UInt64, _ b: UInt64 = 0, _ c: UInt64 = 0) {
        var key = SplitMix64.mix(seed &+ 0x9E37_79B9_7F4A_7C15)
        key = SplitMix64.mix(key ^ SplitMix64.mix(a &+ 0x632B_E59B_D9B4_E019))
        key = SplitMix64.mix(key ^ SplitMix64.mix(b &+ 0x8CB9_2BA7_2F3D_8DD7))
        key = SplitMix64.mix(key ^ SplitMix64.mix(c &+ 0xD6E8_FEB8_6659_FD93))
        self.init(seed: key)
    }

    @inlinable @inline(__always)
    public mutating func next() -> UInt64 {
        let result = rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotl(s3, 45)
        return result
    }

    @inlinable @inline(__always)
    func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 &- k)) }

    /// A uniform integer in 0..<n (n > 0), by Lemire's multiply-shift with rejection:
    /// unbiased, usually one multiplication.
    @inlinable @inline(__always)
    public mutating func nextIndex(_ n: Int) -> Int {
        let bound = UInt64(n)
        var m = next().multipliedFullWidth(by: bound)
        if m.low < bound {
            let threshold = (0 &- bound) % bound
            while m.low < threshold { m = next().multipliedFullWidth(by: bound) }
        }
        return Int(m.high)
    }
}
