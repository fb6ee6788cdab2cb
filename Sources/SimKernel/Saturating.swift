/// Saturating conversions and sums, for values the model computes from accepted
/// input: a lognormal draw with sigma 20 reaches 1e69, an edit rate times a century
/// passes Int.max. Swift traps on `Int64(x)` out of range and on overflowing `+`;
/// the model clamps instead, at bounds no result can reach within the longest run.
public extension Int64 {
    /// `x` rounded toward zero, clamped to Int64's range; NaN reads as 0.
    @inlinable init(saturating x: Double) {
        if x.isNaN { self = 0 }
        else if x >= 9.223_372_036_854_775e18 { self = .max }
        else if x <= -9.223_372_036_854_775e18 { self = .min }
        else { self = Int64(x) }
    }
}

public extension FixedWidthInteger where Self: SignedInteger {
    /// `a + b`, clamped to the type's range instead of trapping (Int, Int64).
    @inlinable static func saturatingSum(_ a: Self, _ b: Self) -> Self {
        let (s, o) = a.addingReportingOverflow(b)
        return o ? (b > 0 ? .max : .min) : s
    }
}

public extension Int {
    /// `x` rounded toward zero, clamped to Int's range; NaN reads as 0.
    @inlinable init(saturating x: Double) { self = Int(Int64(saturating: x)) }

    /// `a * b`, clamped to Int's range instead of trapping.
    @inlinable static func saturatingProduct(_ a: Int, _ b: Int) -> Int {
        let (p, o) = a.multipliedReportingOverflow(by: b)
        return o ? ((a < 0) == (b < 0) ? .max : .min) : p
    }
}

public extension SimTime {
    /// The longest duration the model represents: 2^60 us, about 36,500 years, a
    /// thousand times the longest run (36,500 days). A delay drawn longer is this
    /// (it never comes within the run), and a few of them added to any time of the
    /// run still fit in Int64 (2^63), so `+` on model times cannot overflow.
    /// (Computed, as `zero` and `never` are: no accessor call per use.)
    @inlinable static var horizon: SimTime { SimTime(microseconds: 1 << 60) }

    /// Microseconds given as a real number, rounded, clamped to -horizon...horizon.
    /// Inlined: a call each drawn duration (launch jitter, system arrivals, the
    /// synthetic user's dwells) cost about as much as the conversion.
    @inlinable @inline(__always) init(saturatingMicroseconds us: Double) {
        let h = Double(SimTime.horizon.microseconds)
        guard us < h && us > -h else {  // NaN fails both
            self.init(microseconds: us.isNaN ? 0 : us >= h ? SimTime.horizon.microseconds : -SimTime.horizon.microseconds)
            return
        }
        self.init(microseconds: SimTime.roundedHalfAway(us))
    }

    /// `Int64(x.rounded())` (to nearest, ties away from zero) for |x| < 2^63, without
    /// a call to libm's `round` (one per drawn duration; its cost: docs/performance.md,
    /// "Costs behind the code's shapes"). Exact: `x - Double(Int64(x))` is x's fraction
    /// with no rounding (it is a multiple of x's ulp below 1 in size; at |x| >= 2^52
    /// x is whole and it is 0), so the comparisons with 0.5 decide as `round` does.
    @inlinable @inline(__always) static func roundedHalfAway(_ x: Double) -> Int64 {
        let i = Int64(x)  // toward zero
        let f = x - Double(i)
        return f >= 0.5 ? i &+ 1 : f <= -0.5 ? i &- 1 : i
    }
}
