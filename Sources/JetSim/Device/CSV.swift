/// Minimal CSV quoting (RFC 4180): fields with a comma, quote, CR or LF are quoted.
/// Decided by bytes, not `Character`s: Swift makes "\r\n" one Character, equal to
/// neither "\r" nor "\n", so a field holding CRLF was written unquoted (a broken row).
public enum CSV {
    public static func escape(_ field: String) -> String {
        guard field.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return field }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for u in field.unicodeScalars {
            quoted.append(u)
            if u == "\"" { quoted.append("\"") }
        }
        quoted.append("\"")
        return String(quoted)
    }
}
