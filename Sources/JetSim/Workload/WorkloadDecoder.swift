import SimKernel

/// Reads a workload from its located tree, through the table in `Schema`. Every key
/// is known or an error; every value is checked for type and range; each error names
/// the file, the line, the key path and what was expected. Keys left out keep their
/// defaults (`Workload()`, which equals `Workloads/default.yaml`).
public enum WorkloadDecoder {
    /// Reads workload text, decodes it, and applies `--set` overrides to the decoded
    /// workload (any key can be set, even one the file leaves to its default).
    public static func load(_ text: String, source: String, overrides: [String] = []) throws(InputError) -> Workload {
        let tree = try ConfigTree.parse(text, source: source)
        let w = try decode(tree)
        return overrides.isEmpty ? w : try applying(overrides, to: w)
    }

    /// Where the resolved workload's tree comes from (never a file's name): an error
    /// located there is one of a check across keys, which names the overrides instead.
    static let resolvedSource = "\u{0}the resolved workload"

    /// Applies `--set` overrides to a decoded workload: its tree (every key, as
    /// `WorkloadPrinter` writes it, which reads back to the same workload) takes every
    /// override, in order, and is then decoded once. Every check across keys sees the
    /// final values, so the same options are accepted or refused whatever their order
    /// (checked after each one, `--set critical_available_pct=20 --set
    /// kill_target_available_pct=25` was refused and the other order accepted). An
    /// error of such a check names the overrides whose paths share the most with its key.
    public static func applying(_ overrides: [String], to w: Workload) throws(InputError) -> Workload {
        var tree = try ConfigTree.parse(WorkloadPrinter.yaml(w), source: resolvedSource)
        var paths: [[String]] = []
        for o in overrides {
            let (path, value) = try ConfigTree.parseOverride(o)
            try ConfigTree.set(path[...], value: value, in: &tree, source: value.location.source, walked: [])
            paths.append(path)
        }
        do { return try decode(tree) } catch {
            guard error.source == resolvedSource else { throw error }
            let key = (error.key ?? "").split(separator: ".").map(String.init)
            func shared(_ p: [String]) -> Int { zip(p, key).prefix { $0 == $1 }.count }
            let most = paths.map(shared).max() ?? 0
            let blamed = most == 0 ? Array(overrides.indices) : paths.indices.filter { shared(paths[$0]) == most }
            throw InputError(source: blamed.map { "--set \(overrides[$0])" }.joined(separator: ", "), key: error.key, error.message)
        }
    }

    /// Checks a workload again after a command-line flag set a value in it
    /// (`--duration`; the checks do not read the devices or the seed): the checks
    /// across keys that a file or a `--set` of the same key gets (the action bound),
    /// the error named after `flag`.
    /// The flag's own range is the caller's to check, against the key's.
    public static func recheck(_ w: Workload, flag: String) throws(InputError) {
        try Schema.workload.validate(w, at: SourceLocation(flag), path: "")
    }

    public static func decode(_ root: ConfigNode) throws(InputError) -> Workload {
        var w = Schema.workload.template
        var f = try Fields(root, path: "")
        try Schema.workload.read(&f, into: &w, checkAt: root.location)
        return w
    }

    /// Applies one `--set KEY.PATH=VALUE` to a decoded workload. Errors are located
    /// at the flag.
    public static func apply(_ assignment: String, to w: inout Workload) throws(InputError) {
        w = try applying([assignment], to: w)
    }

    // MARK: Values

    /// The keys of one mapping, read one by one; `finish` rejects any left unread.
    struct Fields {
        var entries: [ConfigEntry]
        var path: String
        var location: SourceLocation
        var read: Set<String> = []

        init(_ node: ConfigNode, path: String) throws(InputError) {
            self.path = path
            location = node.location
            switch node {
            case .mapping(let e, _): entries = e
            case .null: entries = []
            default: throw InputError(at: node.location, key: path.isEmpty ? nil : path, "expected a mapping of keys, got \(node.kindName)")
            }
        }

        mutating func take(_ key: String) -> ConfigEntry? {
            read.insert(key)
            guard var e = entries.first(where: { $0.key == key }) else { return nil }
            e.key = path.isEmpty ? key : path + "." + key
            return e
        }

        func finish() throws(InputError) {
            if let unknown = entries.first(where: { !read.contains($0.key) }) {
                let full = path.isEmpty ? unknown.key : path + "." + unknown.key
                throw InputError(at: unknown.location, key: full, KeySuggestion.unknownKey(unknown.key, among: Array(read)))
            }
        }
    }

    static func error(_ e: ConfigEntry, _ message: String) -> InputError {
        InputError(at: valueOrKey(e), key: e.key, message)
    }

    /// Where the value came from (a --set flag, or its line), else where its key is.
    static func valueOrKey(_ e: ConfigEntry) -> SourceLocation {
        let v = e.value.location, k = e.location
        return v.line == nil && k.line != nil && v.source == k.source ? k : v
    }

    static func scalar(_ e: ConfigEntry, expected: String) throws(InputError) -> String {
        switch e.value {
        case .scalar(let s, _, _): return s
        default: throw error(e, "expected \(expected), got \(e.value.kindName)")
        }
    }

    static func string(_ e: ConfigEntry) throws(InputError) -> String {
        let s = try scalar(e, expected: "a word")
        if s.isEmpty { throw error(e, "expected a non-empty word") }
        return s
    }

    static func number(_ e: ConfigEntry, _ range: ClosedRange<Double>) throws(InputError) -> Double {
        let s = try scalar(e, expected: "a number in \(format(range.lowerBound))...\(format(range.upperBound))")
        guard case .scalar(_, true, _) = e.value, let x = Double(s.replacingUnderscores()), x.isFinite else {
            throw error(e, "expected a number in \(format(range.lowerBound))...\(format(range.upperBound)), got '\(s)'")
        }
        guard range.contains(x) else {
            throw error(e, "\(s) is out of range: expected a number in \(format(range.lowerBound))...\(format(range.upperBound))")
        }
        return x
    }

    static func integer(_ e: ConfigEntry, _ range: ClosedRange<Int>) throws(InputError) -> Int {
        let s = try scalar(e, expected: "a whole number")
        guard case .scalar(_, true, _) = e.value, let x = Int(s.replacingUnderscores()) else {
            throw error(e, "expected a whole number in \(range.lowerBound)...\(range.upperBound), got '\(s)'")
        }
        guard range.contains(x) else { throw error(e, "\(x) is out of range: expected \(range.lowerBound)...\(range.upperBound)") }
        return x
    }

    /// `auto` (nil: the default rule) or a value.
    static func auto<T>(_ e: ConfigEntry, _ read: (ConfigEntry) throws(InputError) -> T) throws(InputError) -> T? {
        if case .scalar("auto", _, _) = e.value { return nil }
        if case .null = e.value { return nil }
        do { return try read(e) } catch {
            throw InputError(source: error.source, line: error.line, key: error.key, error.message + " (or auto)")
        }
    }

    static func list<T>(_ e: ConfigEntry, _ read: (ConfigEntry) throws(InputError) -> T) throws(InputError) -> [T] {
        guard case .sequence(let items, _) = e.value else {
            if case .null = e.value { return [] }
            throw error(e, "expected a list, got \(e.value.kindName)")
        }
        var out: [T] = []
        for (i, item) in items.enumerated() {
            out.append(try read(ConfigEntry(key: "\(e.key).\(i)", value: item, location: item.location)))
        }
        return out
    }

    /// A mapping with exactly one key, one of `kinds`: `{lognormal: {...}}`.
    static func tagged(_ e: ConfigEntry, kinds: [String]) throws(InputError) -> (String, ConfigNode) {
        guard case .mapping(let entries, _) = e.value, entries.count == 1, kinds.contains(entries[0].key) else {
            throw error(e, "expected one of \(kinds.map { "{\($0): ...}" }.joined(separator: ", "))")
        }
        return (entries[0].key, entries[0].value)
    }

    static let distributionKinds = ["constant", "uniform", "exponential", "normal", "lognormal", "empirical"]

    /// A number (constant), or `{lognormal: {median: M, sigma: S}}`, `{uniform: [LOW, HIGH]}`,
    /// `{exponential: {mean: M}}`, `{normal: {mean: M, sd: S}}`, `{empirical: [V, ...]}`.
    static func distribution(_ e: ConfigEntry, nonNegative: Bool = false, within: ClosedRange<Double>? = nil) throws(InputError) -> RealDistribution {
        let bounds = within ?? (nonNegative ? 0...1e12 : -1e12...1e12)
        if case .scalar = e.value { return .constant(try number(e, bounds)) }
        let (kind, params) = try tagged(e, kinds: distributionKinds)
        let key = e.key + "." + kind
        let sub = ConfigEntry(key: key, value: params, location: params.location)
        switch kind {
        case "constant":
            return .constant(try number(sub, bounds))
        case "uniform":
            let v = try list(sub) { n throws(InputError) in try number(n, bounds) }
            guard v.count == 2, v[0] <= v[1] else { throw error(sub, "expected [LOW, HIGH] with LOW <= HIGH") }
            return .uniform(low: v[0], high: v[1])
        case "empirical":
            let v = try list(sub) { n throws(InputError) in try number(n, bounds) }
            guard !v.isEmpty else { throw error(sub, "expected a non-empty list of values") }
            return .empirical(v)
        default:
            var f = try Fields(params, path: key)
            var d: RealDistribution
            switch kind {
            case "exponential":
                guard let m = f.take("mean") else { throw InputError(at: params.location, key: key + ".mean", "missing") }
                d = .exponential(mean: try number(m, 0...1e12))
            case "normal":
                guard let m = f.take("mean"), let s = f.take("sd") else { throw InputError(at: params.location, key: key, "expected {mean: M, sd: S}") }
                d = .normal(mean: try number(m, -1e12...1e12), sd: try number(s, 0...1e12))
                if nonNegative || within != nil {
                    throw InputError(at: params.location, key: key, "a normal distribution can go out of range here; use lognormal, uniform or empirical")
                }
            default:  // lognormal
                guard let m = f.take("median"), let s = f.take("sigma") else { throw InputError(at: params.location, key: key, "expected {median: M, sigma: S}") }
                d = .lognormal(median: try number(m, 0...1e12), sigma: try number(s, 0...20))
                if let within, within.upperBound <= 1 {
                    throw InputError(at: params.location, key: key, "a lognormal can exceed \(format(within.upperBound)) here; use uniform, constant or empirical")
                }
            }
            try f.finish()
            return d
        }
    }

    static func format(_ x: Double) -> String {
        if x == x.rounded() && abs(x) < 1e15 { return String(Int64(x)) }
        return String(x)
    }
}

extension InputError {
    init(at loc: SourceLocation, key: String?, _ message: String) {
        self.init(source: loc.source, line: loc.line, key: key, message)
    }
}

extension String {
    func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}
