import SimKernel

/// The workload's `policies:` section: each registered policy's own parameters. The
/// workload decoder and printer call only `decode` and `yamlLines`; what a policy's
/// section holds belongs to the policy (its `Parameters`).
public struct PolicySettings: Sendable, Equatable {
    /// Each registered policy's parameters, by registry index.
    var values: [any PolicyParameters]
    /// `policies.external`: each external policy's command, by NAME (`external:NAME`).
    public var external: [String: ExternalPolicySpec] = [:]

    /// Every policy's defaults (shared storage: a default context allocates nothing).
    public init() { values = Self.defaultValues }

    static let defaultValues: [any PolicyParameters] = PolicyRegistry.all.map { defaults($0.type) }

    /// Policy `P`'s parameters.
    public subscript<P: EvictionPolicy>(_: P.Type) -> P.Parameters {
        get { values[PolicyID(P.self).index] as! P.Parameters }
        set { values[PolicyID(P.self).index] = newValue }
    }

    static func defaults<P: EvictionPolicy>(_: P.Type) -> any PolicyParameters { P.Parameters() }

    public static func == (a: PolicySettings, b: PolicySettings) -> Bool {
        func same<T: PolicyParameters>(_ x: T, _ y: any PolicyParameters) -> Bool { (y as? T) == x }
        guard a.values.count == b.values.count, a.external == b.external else { return false }
        for i in a.values.indices {
            let x: any PolicyParameters = a.values[i]
            if !same(x, b.values[i]) { return false }
        }
        return true
    }

    /// Reads the `policies:` section: each policy with parameters reads its own key.
    static func decode(_ v: ConfigEntry) throws(InputError) -> PolicySettings {
        var s = PolicySettings()
        var f = try WorkloadDecoder.Fields(v.value, path: "policies")
        for p in PolicyRegistry.all { try s.read(p.type, &f) }
        if let e = f.take("external") { s.external = try decodeExternal(e) }
        try f.finish()
        return s
    }

    mutating func read<P: EvictionPolicy>(_: P.Type, _ f: inout WorkloadDecoder.Fields) throws(InputError) {
        guard P.Parameters.hasSection, let c = f.take(P.sectionKey) else { return }
        self[P.self] = try P.Parameters.decode(c, path: "policies.\(P.sectionKey)")
    }

    /// The section's lines, indented relative to `policies:`: each policy with
    /// parameters, in registry order (one whose parameters do not print their defaults,
    /// `PolicyParameters.printsDefaults`, only when they differ).
    var yamlLines: [String] {
        PolicyRegistry.all.flatMap { lines($0.type) } + (external.isEmpty ? [] : ["external:"] + external.keys.sorted().flatMap { name in
            ["  \(name):"] + Schema.externalPolicy.lines(external[name]!).map { "    " + $0 }
        })
    }

    /// `policies.external`: a mapping from NAME to its keys (`Schema.externalPolicy`).
    static func decodeExternal(_ e: ConfigEntry) throws(InputError) -> [String: ExternalPolicySpec] {
        var out: [String: ExternalPolicySpec] = [:]
        let f = try WorkloadDecoder.Fields(e.value, path: "policies.external")
        for entry in f.entries {
            let path = "policies.external." + entry.key
            guard ExternalPolicySpec.isValidName(entry.key) else {
                throw InputError(at: entry.location, key: path, "'\(entry.key)' is not a policy name: letters, digits, '-', '_' and '.' only")
            }
            var g = try WorkloadDecoder.Fields(entry.value, path: path)
            guard g.entries.contains(where: { $0.key == "command" }) else {
                throw InputError(at: entry.location, key: path + ".command", "missing: the program and its arguments, e.g. [python3, Workloads/policies/lru.py]")
            }
            var spec = ExternalPolicySpec()
            try Schema.externalPolicy.read(&g, into: &spec, checkAt: entry.location)
            out[entry.key] = spec
        }
        return out
    }

    func lines<P: EvictionPolicy>(_: P.Type) -> [String] {
        guard P.Parameters.hasSection else { return [] }
        if !P.Parameters.printsDefaults && self[P.self] == P.Parameters() { return [] }
        return ["\(P.sectionKey):"] + self[P.self].yamlLines.map { "  " + $0 }
    }
}
