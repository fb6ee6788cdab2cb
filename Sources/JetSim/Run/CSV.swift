/// Minimal CSV quoting (RFC 4180): fields with a comma, quote or newline are quoted.
public enum CSV {
    public static func escape(_ field: String) -> String {
        if field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            var quoted = "\""
            for ch in field {
                if ch == "\"" { quoted += "\"\"" } else { quoted.append(ch) }
            }
            return quoted + "\""
        }
        return field
    }
}
