import Yams

/// Where a value came from: a file and line, or a command-line override.
public struct SourceLocation: Sendable, Equatable {
    public var source: String
    public var line: Int?
    public init(_ source: String, line: Int? = nil) {
        self.source = source
        self.line = line
    }
}

/// A YAML document as a tree whose every node remembers where it came from, so that
/// errors can name the file, the line and the key path, and so that `--set`
/// overrides can be spliced in with a location of their own.
public indirect enum ConfigNode: Sendable {
    case scalar(String, plain: Bool, SourceLocation)
    case mapping([ConfigEntry], SourceLocation)
    case sequence([ConfigNode], SourceLocation)
    case null(SourceLocation)

    public var location: SourceLocation {
        switch self {
        case .scalar(_, _, let l), .mapping(_, let l), .sequence(_, let l), .null(let l): l
        }
    }

    /// A word for error messages.
    var kindName: String {
        switch self {
        case .scalar: "a value"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .null: "nothing"
        }
    }
}

public struct ConfigEntry: Sendable {
    public var key: String
    public var value: ConfigNode
    public var location: SourceLocation
}

public enum ConfigTree {
    /// Parses YAML text. A syntax error is an `InputError` at its line.
    public static func parse(_ text: String, source: String) throws(InputError) -> ConfigNode {
        let node: Node?
        let parser: Parser
        do {
            parser = try Parser(yaml: text)
            node = try parser.singleRoot()
        } catch let error as YamlError {
            throw located(error, source: source)
        } catch {
            throw InputError(source: source, "not valid YAML: \(error)")
        }
        guard let node else { return .mapping([], SourceLocation(source, line: 1)) }
        // Yams shares an alias's node with its anchor (so composing is linear), and
        // keeps the anchors alive while the parser lives: a node that carries an anchor
        // is refused where it is first met (its definition), before `convert` would
        // expand an alias bomb ("billion laughs") into an exponential tree.
        return try withExtendedLifetime(parser) { () throws(InputError) -> ConfigNode in try convert(node, source: source) }
    }

    static func refuseAnchor(_ anchor: Anchor?, _ loc: SourceLocation) throws(InputError) {
        if let anchor {
            throw InputError(source: loc.source, line: loc.line,
                             "YAML anchors and aliases (&\(anchor.rawValue), *\(anchor.rawValue)) are not supported; write the value out")
        }
    }

    /// A NUL character (a raw byte, or YAML's `"\0"`) in a value or a key: no value
    /// of a workload may hold one. A C string ends at it, so a command word with one ran
    /// a shorter command than the workload and its provenance record, and a name with
    /// one reads differently in every file it is written to.
    static func refuseNUL(_ text: String, _ loc: SourceLocation) throws(InputError) {
        if text.utf8.contains(0) {
            throw InputError(source: loc.source, line: loc.line, "a NUL character (\\0) is not allowed in a workload's values or keys")
        }
    }

    static func located(_ error: YamlError, source: String) -> InputError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return InputError(source: source, line: mark.line, "not valid YAML: \(problem)")
        case .duplicatedKeysInMapping(let keys, let context):
            return InputError(source: source, line: context.mark.line > 0 ? context.mark.line : nil,
                              key: keys.joined(separator: ", "), "duplicate key (a key may appear once in a mapping)")
        default:
            return InputError(source: source, "not valid YAML: \(error)")
        }
    }

    static func convert(_ node: Node, source: String) throws(InputError) -> ConfigNode {
        let loc = SourceLocation(source, line: node.mark?.line)
        switch node {
        case .scalar(let s):
            try refuseAnchor(s.anchor, loc)
            try refuseNUL(s.string, loc)
            let plain = s.style == .plain || s.style == .any
            if plain && ["", "~", "null", "Null", "NULL"].contains(s.string) { return .null(loc) }
            return .scalar(s.string, plain: plain, loc)
        case .mapping(let m):
            try refuseAnchor(m.anchor, loc)
            var entries: [ConfigEntry] = []
            for (k, v) in m {
                guard case .scalar(let ks) = k else {
                    throw InputError(source: source, line: k.mark?.line, "mapping keys must be plain words")
                }
                try refuseNUL(ks.string, SourceLocation(source, line: k.mark?.line))
                if entries.contains(where: { $0.key == ks.string }) {
                    throw InputError(source: source, line: k.mark?.line, key: ks.string, "duplicate key")
                }
                entries.append(ConfigEntry(key: ks.string, value: try convert(v, source: source),
                                           location: SourceLocation(source, line: k.mark?.line)))
            }
            return .mapping(entries, loc)
        case .sequence(let s):
            try refuseAnchor(s.anchor, loc)
            var items: [ConfigNode] = []
            for item in s { items.append(try convert(item, source: source)) }
            return .sequence(items, loc)
        case .alias:
            throw InputError(source: source, line: loc.line, "YAML aliases are not supported; write the value out")
        }
    }

    /// Applies `--set KEY.PATH=VALUE`: VALUE is read as YAML (a number, a word, a
    /// list `[1, 2]` or a mapping `{lognormal: {median: 30, sigma: 1}}`). Path parts
    /// name mapping keys; in a list, a part is an index (0-based) or the `name` of an
    /// element. Missing mappings are created; whether the key exists is checked when
    /// the workload is decoded, with the error pointing at the override.
    public static func applyOverride(_ assignment: String, to root: inout ConfigNode) throws(InputError) {
        let (path, value) = try parseOverride(assignment)
        try set(path[...], value: value, in: &root, source: value.location.source, walked: [])
    }

    /// Splits `KEY.PATH=VALUE` into the path parts and the value read as YAML, located
    /// at the flag.
    static func parseOverride(_ assignment: String) throws(InputError) -> ([String], ConfigNode) {
        let source = "--set \(assignment)"
        guard let eq = assignment.firstIndex(of: "="), eq != assignment.startIndex else {
            throw InputError(source: source, "expected KEY=VALUE, e.g. user.sessions_per_day=80")
        }
        let path = assignment[..<eq].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if path.contains(where: \.isEmpty) {
            throw InputError(source: source, "the key path '\(assignment[..<eq])' has an empty part")
        }
        let valueText = String(assignment[assignment.index(after: eq)...])
        var value = try parse(valueText, source: source)
        if case .mapping(let e, _) = value, e.isEmpty, valueText.trimmingCharacters().isEmpty {
            value = .null(SourceLocation(source))
        }
        return (path, relocate(value, to: SourceLocation(source)))
    }

    static func relocate(_ node: ConfigNode, to loc: SourceLocation) -> ConfigNode {
        switch node {
        case .scalar(let s, let p, _): return .scalar(s, plain: p, loc)
        case .null: return .null(loc)
        case .sequence(let items, _): return .sequence(items.map { relocate($0, to: loc) }, loc)
        case .mapping(let entries, _):
            return .mapping(entries.map { ConfigEntry(key: $0.key, value: relocate($0.value, to: loc), location: loc) }, loc)
        }
    }

    static func set(_ path: ArraySlice<String>, value: ConfigNode, in node: inout ConfigNode,
                    source: String, walked: [String]) throws(InputError) {
        guard let head = path.first else {
            node = value
            return
        }
        let here = (walked + [head]).joined(separator: ".")
        switch node {
        case .mapping(var entries, let loc):
            if let i = entries.firstIndex(where: { $0.key == head }) {
                try set(path.dropFirst(), value: value, in: &entries[i].value, source: source, walked: walked + [head])
            } else {
                var child: ConfigNode = .mapping([], SourceLocation(source))
                try set(path.dropFirst(), value: value, in: &child, source: source, walked: walked + [head])
                entries.append(ConfigEntry(key: head, value: child, location: SourceLocation(source)))
            }
            node = .mapping(entries, loc)
        case .null:
            var child: ConfigNode = .mapping([], SourceLocation(source))
            try set(path, value: value, in: &child, source: source, walked: walked)
            node = child
        case .sequence(var items, let loc):
            var index: Int? = Int(head)
            if index == nil {
                index = items.firstIndex { item in
                    if case .mapping(let e, _) = item, let n = e.first(where: { $0.key == "name" }),
                       case .scalar(let s, _, _) = n.value { return s == head }
                    return false
                }
            }
            guard let i = index, i >= 0, i < items.count else {
                throw InputError(source: source, key: here, "no list element '\(head)': give an index 0...\(items.count - 1) or an element's name")
            }
            try set(path.dropFirst(), value: value, in: &items[i], source: source, walked: walked + [head])
            node = .sequence(items, loc)
        case .scalar:
            throw InputError(source: source, key: walked.joined(separator: "."), "is a single value; '\(head)' cannot be set inside it")
        }
    }
}
