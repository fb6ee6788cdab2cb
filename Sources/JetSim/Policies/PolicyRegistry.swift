/// The registered eviction policies. Everything that lists policies (the CLI, the
/// workload's `run.policies` and `policies:` sections, shard states, scenarios, the
/// runners, tests and benchmarks) reads this list.
public enum PolicyRegistry {
    /// Every policy, in the order results list them (CSV rows, `all`).
    public static let all: [any EvictionPolicy.Type] = table(Types.self)

    /// The list itself, as a table of `T`'s rows, in registry order. Adding a policy:
    /// its file in Sources/JetSim/Policies and one row here.
    ///
    /// `T.row(P.self)` is called with each policy's own type, so what a row builds is
    /// compiled for that policy: Run/PolicyRunners.swift builds each policy's runners
    /// this way (the fleet's device loop and the traced run, specialised for `P`; made
    /// from an opened existential, either would run the generic, unspecialised loop,
    /// several times slower). The list lives here and the runners in Run/, so Policies
    /// does not name Run's types.
    static func table<T: PolicyTable>(_: T.Type) -> [T.Row] {
        [T.row(LargestFirst.self), T.row(LRU.self), T.row(JetsamBands.self), T.row(AndroidLMK.self),
         T.row(CostAware.self), T.row(RandomEviction.self), T.row(Oracle.self),
         // Baselines outside `all` (`EvictionPolicy.inAll`): last, so the places of the
         // others, and every default output, stay as they were.
         T.row(MRU.self), T.row(FIFO.self), T.row(SmartLMK.self)]
    }

    /// The names, comma-separated (for messages).
    public static var nameList: String { all.map { $0.name }.joined(separator: ", ") }

    /// The rows of `all`: the types.
    enum Types: PolicyTable {
        static func row<P: EvictionPolicy>(_: P.Type) -> any EvictionPolicy.Type { P.self }
    }
}

/// What is built for each registered policy where its type is concrete: one `Row` per
/// policy, from `PolicyRegistry.table`.
protocol PolicyTable {
    associatedtype Row
    static func row<P: EvictionPolicy>(_: P.Type) -> Row
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
        guard let i = PolicyRegistry.all.firstIndex(where: { $0.name == name }) else { return nil }
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
        guard let i = PolicyRegistry.all.firstIndex(where: { ObjectIdentifier($0) == ObjectIdentifier(P.self) }) else {
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
    public var type: any EvictionPolicy.Type { external == nil ? PolicyRegistry.all[index] : ExternalPolicy.self }
    public var name: String { external.map { Self.externalPrefix + $0 } ?? type.name }
    public var rawValue: String { name }
    public var summary: String { external.map { "the process of policies.external.\($0)" } ?? type.summary }
    public var description: String { name }
}

/// A policy's own parameters: the `policies.<sectionKey>` section of a workload. The
/// policy declares its keys (`keys`: each a number with its name, unit and range, as
/// libCacheSim's algorithms declare their parameter strings); the workload reads and
/// prints them (Workload/Workload+Policies.swift).
public protocol PolicyParameters: Sendable, Equatable {
    /// The defaults (what a workload without the section gets).
    init()
    /// The section's keys, in the order they print. Empty: the policy has no section.
    static var keys: [PolicyKey<Self>] { get }
    /// Whether a printed workload shows the section when it holds the defaults. A
    /// section added after printed workloads were fixed (shard states and golden files
    /// embed the workload) says false, so they stay as they were. Default true.
    static var printsDefaults: Bool { get }
}

extension PolicyParameters {
    public static var printsDefaults: Bool { true }
    /// Whether the policy has a section at all (`NoParameters`: no).
    public static var hasSection: Bool { !keys.isEmpty }
}

/// One key of a policy's section: `policies.<sectionKey>.<name>`, a number in `range`
/// (its unit in the name: `_ms`, `_h`), stored at `value`.
public struct PolicyKey<P> {
    public let name: String
    public let range: ClosedRange<Double>
    public let value: WritableKeyPath<P, Double>

    public init(_ name: String, _ range: ClosedRange<Double>, _ value: WritableKeyPath<P, Double>) {
        self.name = name
        self.range = range
        self.value = value
    }
}

/// The parameters of a policy that has none.
public struct NoParameters: PolicyParameters, Equatable {
    public init() {}
    public static var keys: [PolicyKey<NoParameters>] { [] }
}
