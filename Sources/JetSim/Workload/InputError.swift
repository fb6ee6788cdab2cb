/// Bad input the user can fix: a file, a line, a key, and what was expected. The CLI
/// prints it and exits with status 2, writing nothing.
public struct InputError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file (or `--flag`) the input came from.
    public var source: String
    /// The 1-based line, when known.
    public var line: Int?
    /// The key path (`user.sessions_per_day`) or keyword, when known.
    public var key: String?
    public var message: String

    public init(source: String, line: Int? = nil, key: String? = nil, _ message: String) {
        self.source = source
        self.line = line
        self.key = key
        self.message = message
    }

    /// `FILE:LINE: KEY: message`.
    public var description: String {
        var s = source
        if let line { s += ":\(line)" }
        s += ": "
        if let key { s += "\(key): " }
        return s + message
    }
}
