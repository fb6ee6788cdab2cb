import SimKernel

/// The workload's `policies:` section: each registered policy's own parameters (what
/// a policy's section holds belongs to the policy: its `Parameters` and their `keys`;
/// the workload reads and prints them, Workload/Workload+Policies.swift).
public struct PolicySettings: Sendable, Equatable {
    /// Each registered policy's parameters, by registry index.
    var values: [any PolicyParameters]
    /// `policies.external`: each external policy's command, by NAME (`external:NAME`).
    public var external: [String: ExternalPolicySpec] = [:]

    /// Every policy's defaults (shared storage: a default context allocates nothing).
    public init() { values = Self.defaultValues }

    static let defaultValues: [any PolicyParameters] = PolicyRegistry.all.map { defaults($0) }

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
}
