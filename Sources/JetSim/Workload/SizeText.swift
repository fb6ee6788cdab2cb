import SimKernel

/// Memory sizes such as `512MB`, `3GB`, `1.5GB`, `2048MiB`. Every unit is a power of
/// 1024 (KB = KiB = 1024 bytes); the result is in KiB.
public enum SizeText {
    public static let expected = "a size: a number and a unit KB, MB, GB or TB (powers of 1024; KiB, MiB, GiB, TiB and K, M, G, T also accepted), e.g. 512MB, 1.5GB, 2048MiB, 8G"

    static let units: [(String, Double)] = [
        ("KB", 1), ("KiB", 1), ("K", 1), ("MB", 1_024), ("MiB", 1_024), ("M", 1_024),
        ("GB", 1_048_576), ("GiB", 1_048_576), ("G", 1_048_576),
        ("TB", 1_073_741_824), ("TiB", 1_073_741_824), ("T", 1_073_741_824),
    ]

    /// Parses a size to KiB (rounded to the nearest KiB), or nil when malformed.
    public static func parseKB(_ text: String) -> Int64? {
        let t = text.trimmingCharacters()
        guard let unitStart = t.firstIndex(where: { $0.isLetter }) else { return nil }
        let number = t[..<unitStart]
        let unit = String(t[unitStart...])
        guard let scale = units.first(where: { $0.0.lowercased() == unit.lowercased() })?.1,
              !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }),
              let value = Double(number), value.isFinite, value >= 0, value < 1e12 else { return nil }
        return Int64(saturating: (value * scale).rounded())
    }

    /// A size in MiB for reports: `512`, `1536`, `1.5` (KiB precision).
    public static func mebibytes(_ kb: Int64) -> String {
        if kb % 1_024 == 0 { return String(kb / 1_024) }
        var s = String(Double(kb) / 1_024)
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }
}

extension String {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
