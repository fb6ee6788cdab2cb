/// The registered eviction policies. Everything that lists policies (the CLI, the
/// workload's `run.policies` and `policies:` sections, shard states, scenarios, the
/// runners, tests and benchmarks) reads this list.
public enum PolicyRegistry {
    /// Every policy, in the order results list them (CSV rows, `all`). Adding a
    /// policy: its file in Sources/JetSim/Policies and one entry here.
    public static let all: [Entry] = [
        Entry(LargestFirst.self), Entry(LRU.self), Entry(JetsamBands.self), Entry(AndroidLMK.self),
        Entry(CostAware.self), Entry(RandomEviction.self), Entry(Oracle.self),
        // Baselines outside `all` (`EvictionPolicy.inAll`): last, so the places of the
        // others, and every default output, stay as they were.
        Entry(MRU.self), Entry(FIFO.self), Entry(SmartLMK.self),
    ]

    /// The names, comma-separated (for messages).
    public static var nameList: String { all.map { $0.type.name }.joined(separator: ", ") }

    /// One registered policy: its type, and what must be built where the type is
    /// concrete. `Entry(P.self)` is called above with each policy's own type, so the
    /// compiler specialises it for that policy: the fleet runner it makes runs a device
    /// loop compiled for `P`, and so does its traced run (made from an opened
    /// existential, either would run the generic, unspecialised loop, several times
    /// slower).
    public struct Entry: Sendable {
        public let type: any EvictionPolicy.Type
        /// A worker's reusable runner, its buffers sized for (apps, actions, events).
        let makeCellRunner: @Sendable (_ apps: Int, _ actions: Int, _ events: Int) -> CellRunner
        /// One device run with a trace recorder (`jetsim trace`, scenarios).
        let runTraced: @Sendable (TraceRun.Inputs) -> TraceRun.Output

        public init<P: EvictionPolicy>(_: P.Type) {
            type = P.self
            makeCellRunner = { CellRunner(P.self, apps: $0, actions: $1, events: $2) }
            runTraced = { TraceRun.run(P.self, $0) }
        }
    }
}

/// A policy a cell, a scenario or a shard state names: a registered one, by its place
/// in `PolicyRegistry.all`, or an external one (`external:NAME`, its command in the
/// workload's `policies.external.NAME`). Reads and prints as the policy's name.
public struct PolicyID: Sendable, Hashable, CustomStringConvertible {
    /// The index in `PolicyRegistry.all` (for an external policy: past its end).
    public let index: Int
    /// An external policy's NAME (nil: a registered policy).
    public let external: String?

    /// The prefix of an external policy's name: `external:NAME`.
    public static let externalPrefix = "external:"

    /// The registered policy named `name`, or nil if no registered policy has that
    /// name (an external one is `init(parsing:)`'s).
    public init?(rawValue name: String) {
        guard let i = PolicyRegistry.all.firstIndex(where: { $0.type.name == name }) else { return nil }
        index = i
        external = nil
    }

    /// A registered policy's name, or `external:NAME` with NAME a valid external
    /// name (whether the workload declares it is checked where the workload is known).
    public init?(parsing text: String) {
        if text.hasPrefix(Self.externalPrefix) {
            let name = String(text.dropFirst(Self.externalPrefix.count))
            guard ExternalPolicySpec.isValidName(name) else { return nil }
            self.init(external: name)
        } else {
            self.init(rawValue: text)
        }
    }

    /// The external policy `policies.external.NAME`.
    public init(external name: String) {
        index = PolicyRegistry.all.count
        external = name
    }

    /// The registered policy `P` (it must be in `PolicyRegistry.all`).
    public init<P: EvictionPolicy>(_: P.Type) {
        guard let i = PolicyRegistry.all.firstIndex(where: { ObjectIdentifier($0.type) == ObjectIdentifier(P.self) }) else {
            preconditionFailure("\(P.self) is not in PolicyRegistry.all")
        }
        index = i
        external = nil
    }

    /// Every registered policy, in registry order.
    public static var all: [PolicyID] { PolicyRegistry.all.indices.map { PolicyID(index: $0) } }
    /// What `all` selects: every registered policy but the baselines that are run
    /// only when named (`EvictionPolicy.inAll`).
    public static var allSelected: [PolicyID] { all.filter { $0.type.inAll } }

    init(index: Int) {
        self.index = index
        external = nil
    }

    /// The policy's type: open it into a generic function to run it specialised.
    public var type: any EvictionPolicy.Type { external == nil ? PolicyRegistry.all[index].type : ExternalPolicy.self }
    public var name: String { external.map { Self.externalPrefix + $0 } ?? type.name }
    public var rawValue: String { name }
    public var summary: String { external.map { "the process of policies.external.\($0)" } ?? type.summary }
    public var description: String { name }
}

/// A policy's own parameters: the `policies.<sectionKey>` section of a workload,
/// which the policy reads and prints itself (as libCacheSim's algorithms parse their
/// own parameter strings).
public protocol PolicyParameters: Sendable, Equatable {
    /// The defaults (what a workload without the section gets).
    init()
    /// Whether the policy has a section at all (`NoParameters`: no).
    static var hasSection: Bool { get }
    /// Reads the section (`section` is its entry, `path` e.g. `policies.cost_aware`).
    static func decode(_ section: ConfigEntry, path: String) throws(InputError) -> Self
    /// The section's lines, indented relative to its key.
    var yamlLines: [String] { get }
    /// Whether a printed workload shows the section when it holds the defaults. A
    /// section added after printed workloads were fixed (shard states and golden files
    /// embed the workload) says false, so they stay as they were. Default true.
    static var printsDefaults: Bool { get }
}

extension PolicyParameters {
    public static var hasSection: Bool { true }
    public static var printsDefaults: Bool { true }
}

/// The parameters of a policy that has none.
public struct NoParameters: PolicyParameters, Equatable {
    public init() {}
    public static var hasSection: Bool { false }
    public static func decode(_ section: ConfigEntry, path: String) throws(InputError) -> NoParameters { NoParameters() }
    public var yamlLines: [String] { [] }
}
