/// The message for an unknown key: the nearest known keys by edit distance, or every
/// key when there are few, so a typo (`sessions_per_dya`) points at its fix instead of
/// a list of 40 names.
public enum KeySuggestion {
    /// At most this many keys are listed whole; past it, only the nearest are named.
    static let listWhole = 8

    /// "unknown key; did you mean ...?" or "unknown key; expected one of: ...".
    public static func unknownKey(_ key: String, among known: [String]) -> String {
        let sorted = known.sorted()
        if sorted.count <= listWhole { return "unknown key; expected one of: \(sorted.joined(separator: ", "))" }
        let near = nearest(key, among: sorted)
        let all = "(\(sorted.count) keys here: `jetsim validate --keys` lists them)"
        if near.isEmpty { return "unknown key \(all)" }
        return "unknown key; did you mean \(near.joined(separator: " or "))? \(all)"
    }

    /// The known keys within an edit distance of a third of the key's length (at least
    /// 2), closest first, at most three; ties in alphabetical order.
    public static func nearest(_ key: String, among known: [String]) -> [String] {
        let limit = max(2, key.count / 3)
        var near: [(key: String, distance: Int)] = []
        for k in known {
            let d = distance(key, k)
            if d <= limit { near.append((k, d)) }
        }
        near.sort { a, b in a.distance != b.distance ? a.distance < b.distance : a.key < b.key }
        return near.prefix(3).map(\.key)
    }

    /// Levenshtein distance over bytes (keys are ASCII).
    public static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        if a.isEmpty { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            if b.isEmpty { continue }
            for j in 1...b.count {
                let kept = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = kept
            }
        }
        return row[b.count]
    }
}
