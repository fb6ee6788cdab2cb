/// A point in simulated time, or a span of it, in whole microseconds.
///
/// Integer time keeps runs exactly repeatable: no rounding drift when many small
/// durations are added, and the same ordering on every machine. An `Int64` of
/// microseconds spans about 292,000 years.
public struct SimTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number of microseconds since the start of the run (or the length of a span).
    public var microseconds: Int64

    @inlinable public init(microseconds: Int64) { self.microseconds = microseconds }

    /// Computed, not stored: a stored static is read through an accessor with a
    /// lazy-initialisation check at every use across modules (docs/performance.md,
    /// "Costs behind the code's shapes").
    @inlinable public static var zero: SimTime { SimTime(microseconds: 0) }
    /// The largest representable time; used as "never".
    @inlinable public static var never: SimTime { SimTime(microseconds: Int64.max) }

    @inlinable public static func microseconds(_ n: Int64) -> SimTime { SimTime(microseconds: n) }
    @inlinable public static func milliseconds(_ n: Int64) -> SimTime { SimTime(microseconds: n * 1_000) }
    @inlinable public static func seconds(_ n: Int64) -> SimTime { SimTime(microseconds: n * 1_000_000) }
    @inlinable public static func minutes(_ n: Int64) -> SimTime { SimTime(microseconds: n * 60_000_000) }
    @inlinable public static func hours(_ n: Int64) -> SimTime { SimTime(microseconds: n * 3_600_000_000) }
    @inlinable public static func days(_ n: Int64) -> SimTime { SimTime(microseconds: n * 86_400_000_000) }

    /// Converts seconds given as a real number, rounding to the nearest microsecond;
    /// beyond `SimTime.horizon` (either way) it saturates there, NaN reads as 0.
    /// Inlined: it was a call at each drawn duration (236,000 in the default run's
    /// 200 devices, a quarter of the conversion's cost).
    @inlinable @inline(__always) public init(seconds: Double) {
        self.init(saturatingMicroseconds: seconds * 1_000_000)
    }

    /// This time in seconds, as a real number (for reporting, never for ordering).
    @inlinable public var seconds: Double { Double(microseconds) / 1_000_000 }
    /// This time in milliseconds, as a real number (for reporting).
    @inlinable public var milliseconds: Double { Double(microseconds) / 1_000 }

    @inlinable public static func < (a: SimTime, b: SimTime) -> Bool { a.microseconds < b.microseconds }
    @inlinable public static func + (a: SimTime, b: SimTime) -> SimTime {
        SimTime(microseconds: a.microseconds + b.microseconds)
    }
    @inlinable public static func - (a: SimTime, b: SimTime) -> SimTime {
        SimTime(microseconds: a.microseconds - b.microseconds)
    }
    @inlinable public static func += (a: inout SimTime, b: SimTime) { a.microseconds += b.microseconds }
    @inlinable public static func * (a: SimTime, k: Int64) -> SimTime { SimTime(microseconds: a.microseconds * k) }

    /// The shortest text that `SimTime(parsing:)` reads back to the same value,
    /// e.g. `250ms`, `10s`, `1.5s`, `3m`, `2h`, `1d`, `0s`.
    public var description: String { DurationText.format(self) }
}

/// Parsing and printing of durations such as `250ms`, `10s`, `1.5s`, `3m`, `2h`, `1d`.
public enum DurationText {
    /// Units accepted after the number, with their length in microseconds.
    public static let units: [(suffix: String, microseconds: Int64)] = [
        ("us", 1), ("ms", 1_000), ("s", 1_000_000), ("m", 60_000_000),
        ("h", 3_600_000_000), ("d", 86_400_000_000),
    ]

    /// What a duration must look like; used in error messages.
    public static let expected = "a duration: a non-negative number followed by a unit us, ms, s, m, h or d (e.g. 250ms, 1.5s, 3m, 2h, 1d)"

    /// Reads a duration. The number may have a decimal part (`1.5s`); the result is
    /// rounded to the nearest microsecond. Negative values, a missing or unknown
    /// unit, and empty text are errors.
    public static func parse(_ text: String) throws(DurationParseError) -> SimTime {
        let trimmed = text.trimmingSpaces()
        guard !trimmed.isEmpty else { throw DurationParseError(text: text) }
        // Split at the first letter: number, then unit.
        guard let unitStart = trimmed.firstIndex(where: { $0.isLetter }) else {
            throw DurationParseError(text: text)
        }
        let number = trimmed[..<unitStart]
        let unit = trimmed[unitStart...]
        guard let scale = units.first(where: { $0.suffix == unit })?.microseconds else {
            throw DurationParseError(text: text)
        }
        // Digits with at most one dot, at least one digit.
        var sawDot = false
        var digits = 0
        for ch in number {
            if ch == "." {
                if sawDot { throw DurationParseError(text: text) }
                sawDot = true
            } else if ch.isASCII, ch.isNumber {
                digits += 1
            } else {
                throw DurationParseError(text: text)
            }
        }
        guard digits > 0 else { throw DurationParseError(text: text) }
        // Exact decimal arithmetic: integer part and fraction scaled separately.
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        let whole = parts[0].isEmpty ? 0 : Int64(parts[0])
        guard let whole else { throw DurationParseError(text: text) }
        let (wholeMicros, overflow) = whole.multipliedReportingOverflow(by: scale)
        guard !overflow else { throw DurationParseError(text: text) }
        var fracMicros: Int64 = 0
        if parts.count == 2, !parts[1].isEmpty {
            // fraction * scale, rounded to nearest, computed digit by digit.
            var numerator: Int64 = 0
            var denominator: Int64 = 1
            for ch in parts[1].prefix(15) {
                numerator = numerator * 10 + Int64(ch.wholeNumberValue!)
                denominator *= 10
            }
            let scaled = Double(numerator) / Double(denominator) * Double(scale)
            fracMicros = Int64(scaled.rounded())
        }
        let (total, overflow2) = wholeMicros.addingReportingOverflow(fracMicros)
        guard !overflow2 else { throw DurationParseError(text: text) }
        return SimTime(microseconds: total)
    }

    /// The shortest exact text for a duration: a whole number of days, hours, minutes
    /// or seconds when it is one; else decimal seconds from one second up (`1.5s`),
    /// whole or decimal milliseconds from one millisecond up (`250ms`, `1.5ms`), and
    /// microseconds below that (`250us`).
    public static func format(_ t: SimTime) -> String {
        let us = t.microseconds
        if us == 0 { return "0s" }
        if us < 0 { return "-" + format(SimTime(microseconds: -us)) }
        for (suffix, scale) in units.reversed() where scale >= 1_000_000 && us % scale == 0 {
            return "\(us / scale)\(suffix)"
        }
        if us >= 1_000_000 { return decimal(us, scale: 1_000_000, digits: 6, suffix: "s") }
        if us % 1_000 == 0 { return "\(us / 1_000)ms" }
        if us >= 1_000 { return decimal(us, scale: 1_000, digits: 3, suffix: "ms") }
        return "\(us)us"
    }

    static func decimal(_ us: Int64, scale: Int64, digits: Int, suffix: String) -> String {
        fixed(us, scale: scale, digits: digits) + suffix
    }

    /// `us` in units of `scale` (10^`digits` microseconds), exact, with no trailing
    /// zeros: `12`, `0.5`, `-1.25`. The one formatter for the CSV times of traces,
    /// usage files and durations.
    public static func fixed(_ us: Int64, scale: Int64, digits: Int) -> String {
        let m = us.magnitude, s = UInt64(scale)
        let sign = us < 0 ? "-" : ""
        if m % s == 0 { return sign + String(m / s) }
        var frac = String(m % s)
        frac = String(repeating: "0", count: digits - frac.count) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        return "\(sign)\(m / s).\(frac)"
    }
}

/// Duration text that could not be read.
public struct DurationParseError: Error, CustomStringConvertible, Equatable {
    public var text: String
    public var description: String { "'\(text)' is not \(DurationText.expected)" }
}

extension StringProtocol {
    @usableFromInline func trimmingSpaces() -> Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
