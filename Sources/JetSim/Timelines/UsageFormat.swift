/// How a usage trace names its columns and writes its times (`--usage-columns`,
/// `--usage-time-unit`, `--usage-duration-unit`). The default is jetsim's own format:
/// `device,time_s,app,duration_s` in seconds, which `jetsim import` and `jetsim trace
/// --format usage` write.
public struct UsageFormat: Sendable, Equatable {
    /// The header names of the four columns the replay reads.
    public var device = "device", time = "time_s", app = "app", duration = "duration_s"
    public var timeUnit = TimeUnit.s
    public var durationUnit = TimeUnit.s

    /// A number of seconds, milliseconds or microseconds, or (times only) an ISO 8601
    /// date and time.
    public enum TimeUnit: String, CaseIterable, Sendable {
        case s, ms, us, iso

        /// Microseconds in one unit (nil: `iso`).
        var micros: Int64? {
            switch self {
            case .s: 1_000_000
            case .ms: 1_000
            case .us: 1
            case .iso: nil
            }
        }

        /// What a field of this unit must hold, for errors.
        var expected: String {
            switch self {
            case .s: "seconds (a non-negative number below 1e10)"
            case .ms: "milliseconds (a non-negative decimal number below 1e13)"
            case .us: "microseconds (a non-negative decimal number below 1e16)"
            case .iso: "an ISO 8601 date and time (YYYY-MM-DDThh:mm:ss[.ffffff][Z|+hh:mm|-hh:mm], years 1 to 9999)"
            }
        }
    }

    public init() {}

    /// Whether both times are whole or decimal seconds (the reader's fast paths).
    var seconds: Bool { timeUnit == .s && durationUnit == .s }

    /// The four column names, in the order device, time, app, duration.
    public var columns: [String] { [device, time, app, duration] }

    /// The keys of `--usage-columns`, in the order of `columns`.
    public static let columnKeys = ["device", "time", "app", "duration"]

    /// Reads `--usage-columns KEY=NAME[,KEY=NAME...]` (keys: device, time, app,
    /// duration; the others keep their default names). Errors name the option and key.
    public mutating func setColumns(_ text: String) throws(InputError) {
        var given: Set<String> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(kv[0]).trimmingCharacters()
            guard kv.count == 2, !key.isEmpty, !String(kv[1]).trimmingCharacters().isEmpty else {
                throw InputError(source: "--usage-columns", key: key.isEmpty ? nil : key, "expected KEY=NAME (keys: \(Self.columnKeys.joined(separator: ", "))), got '\(part)'")
            }
            let name = String(kv[1]).trimmingCharacters()
            guard Self.columnKeys.contains(key) else {
                throw InputError(source: "--usage-columns", key: key, "unknown key; expected one of: \(Self.columnKeys.joined(separator: ", "))")
            }
            guard given.insert(key).inserted else { throw InputError(source: "--usage-columns", key: key, "given twice") }
            switch key {
            case "device": device = name
            case "time": time = name
            case "app": app = name
            default: duration = name
            }
        }
        if Set(columns).count < 4 {
            throw InputError(source: "--usage-columns", "two keys name the same column (device=\(device), time=\(time), app=\(app), duration=\(duration))")
        }
    }

    /// `field` as microseconds in `unit` (for `iso`, since 1970-01-01T00:00:00Z; may
    /// be negative); nil if it is not such a value.
    static func microseconds(_ f: UnsafeBufferPointer<UInt8>, _ unit: TimeUnit) -> Int64? {
        switch unit {
        case .s: return ByteNumber.microseconds(f)
        case .iso: return isoMicroseconds(f)
        case .ms, .us: return decimalMicroseconds(f, perUnit: unit.micros!)
        }
    }

    /// A plain decimal number (`1500`, `1500.25`) of units worth `perUnit`
    /// microseconds each, below 1e16 microseconds; digits finer than a microsecond are
    /// dropped.
    static func decimalMicroseconds(_ f: UnsafeBufferPointer<UInt8>, perUnit: Int64) -> Int64? {
        let zero = UInt8(ascii: "0"), limit: Int64 = 10_000_000_000_000_000
        var i = 0, whole: Int64 = 0
        while i < f.count, f[i] &- zero < 10 {
            whole = whole * 10 + Int64(f[i] &- zero)
            if whole >= limit { return nil }
            i += 1
        }
        if i == 0 { return nil }
        let (us, over) = whole.multipliedReportingOverflow(by: perUnit)
        if over || us >= limit { return nil }
        var result = us, scale = perUnit
        if i < f.count {
            guard f[i] == UInt8(ascii: "."), i + 1 < f.count else { return nil }
            i += 1
            while i < f.count {
                let d = f[i] &- zero
                guard d < 10 else { return nil }
                scale /= 10
                result += Int64(d) * scale
                i += 1
            }
        }
        return result < limit ? result : nil
    }

    /// `YYYY-MM-DDThh:mm:ss` (or a space for the T), then optional decimals of the
    /// second (to the microsecond; finer ones dropped), then `Z`, `+hh:mm`, `-hh:mm`,
    /// `+hhmm` or `+hh` (none: UTC), as microseconds since 1970-01-01T00:00:00Z.
    static func isoMicroseconds(_ f: UnsafeBufferPointer<UInt8>) -> Int64? {
        let zero = UInt8(ascii: "0")
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= f.count else { return nil }
            var v = 0
            for k in i..<(i + n) {
                let d = f[k] &- zero
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            i += n
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < f.count, f[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let y = digits(4), expect("-"), let mo = digits(2), expect("-"), let d = digits(2) else { return nil }
        guard i < f.count, f[i] == UInt8(ascii: "T") || f[i] == UInt8(ascii: " ") || f[i] == UInt8(ascii: "t") else { return nil }
        i += 1
        guard let h = digits(2), expect(":"), let mi = digits(2), expect(":"), let s = digits(2) else { return nil }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        let monthDays = mo == 2 ? (leap ? 29 : 28) : (mo == 4 || mo == 6 || mo == 9 || mo == 11 ? 30 : 31)
        guard (1...9999).contains(y), (1...12).contains(mo), (1...monthDays).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var micros: Int64 = 0
        if i < f.count, f[i] == UInt8(ascii: ".") || f[i] == UInt8(ascii: ",") {
            i += 1
            var scale: Int64 = 1_000_000, n = 0
            while i < f.count, f[i] &- zero < 10 {
                scale /= 10
                micros += Int64(f[i] &- zero) * scale
                i += 1; n += 1
            }
            if n == 0 { return nil }
        }
        var offset = 0
        if i < f.count {
            if f[i] == UInt8(ascii: "Z") || f[i] == UInt8(ascii: "z") {
                i += 1
            } else if f[i] == UInt8(ascii: "+") || f[i] == UInt8(ascii: "-") {
                let sign = f[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = digits(2), oh < 24 else { return nil }
                var om = 0
                if i < f.count {
                    _ = expect(":")
                    guard let m = digits(2), m < 60 else { return nil }
                    om = m
                }
                offset = sign * (oh * 3_600 + om * 60)
            }
        }
        guard i == f.count else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm, as `UsageImporter`).
        let yy = mo <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        let seconds = Int64(days * 86_400 + h * 3_600 + mi * 60 + s - offset)
        return seconds * 1_000_000 + micros
    }
}
