import SimKernel

// The workload's `policies:` section: each registered policy's keys, as the policy
// declares them (`PolicyParameters.keys`), and `policies.external`.
extension PolicySettings {
    /// Reads the `policies:` section: each policy with parameters reads its own key.
    static func decode(_ v: ConfigEntry) throws(InputError) -> PolicySettings {
        var s = PolicySettings()
        var f = try WorkloadDecoder.Fields(v.value, path: "policies")
        for p in PolicyRegistry.all { try s.read(p, &f) }
        if let e = f.take("external") { s.external = try decodeExternal(e) }
        try f.finish()
        return s
    }

    mutating func read<P: EvictionPolicy>(_: P.Type, _ f: inout WorkloadDecoder.Fields) throws(InputError) {
        guard P.Parameters.hasSection, let c = f.take(P.sectionKey) else { return }
        var g = try WorkloadDecoder.Fields(c.value, path: "policies.\(P.sectionKey)")
        var p = P.Parameters()
        for k in P.Parameters.keys {
            if let x = g.take(k.name) { p[keyPath: k.value] = try WorkloadDecoder.number(x, k.range) }
        }
        try g.finish()
        self[P.self] = p
    }

    /// The section's lines, indented relative to `policies:`: each policy with
    /// parameters, in registry order (one whose parameters do not print their defaults,
    /// `PolicyParameters.printsDefaults`, only when they differ).
    var yamlLines: [String] {
        PolicyRegistry.all.flatMap { lines($0) } + (external.isEmpty ? [] : ["external:"] + external.keys.sorted().flatMap { name in
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
                throw InputError(at: entry.location, key: path, "'\(entry.key)' is not a policy name: \(ExternalPolicySpec.nameRule)")
            }
            var g = try WorkloadDecoder.Fields(entry.value, path: path)
            // A key that is not one of the policy's, before a missing command: the key
            // the user wrote (`--set policies.external.my.pol.command=...` gives policy
            // `my` a key `pol`), not a `command` it never wrote.
            let keys = Schema.externalPolicy.knobs.map(\.key)
            if let unknown = g.entries.first(where: { !keys.contains($0.key) }) {
                throw InputError(at: unknown.location, key: path + "." + unknown.key,
                                 KeySuggestion.unknownKey(unknown.key, among: keys) + "; a policy's name may not hold '.' (it separates the parts of a key path)")
            }
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
        let p = self[P.self]
        if !P.Parameters.printsDefaults && p == P.Parameters() { return [] }
        return ["\(P.sectionKey):"] + P.Parameters.keys.map { "  \($0.name): \(WorkloadPrinter.num(p[keyPath: $0.value]))" }
    }
}
