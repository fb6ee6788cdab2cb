import SimKernel

/// The workload's `policies:` section: each policy's own parameters. The workload
/// decoder and printer call only `decode` and `yamlLines`; what the section holds
/// belongs to the policies.
public struct PolicySettings: Sendable, Equatable {
    public var costAware = CostAwareWeights()
    public init() {}

    /// Reads the `policies:` section.
    static func decode(_ v: ConfigEntry) throws(InputError) -> PolicySettings {
        var s = PolicySettings()
        var f = try WorkloadDecoder.Fields(v.value, path: "policies")
        if let c = f.take("cost_aware") {
            var g = try WorkloadDecoder.Fields(c.value, path: "policies.cost_aware")
            if let x = g.take("unsaved_edit_penalty_ms") { s.costAware.unsavedEditPenalty = try WorkloadDecoder.number(x, 0...1e9) }
            if let x = g.take("state_loss_penalty_ms") { s.costAware.stateLossPenalty = try WorkloadDecoder.number(x, 0...1e9) }
            try g.finish()
        }
        try f.finish()
        return s
    }

    /// The section's lines, indented relative to `policies:`.
    var yamlLines: [String] {
        ["cost_aware:",
         "  unsaved_edit_penalty_ms: \(WorkloadPrinter.num(costAware.unsavedEditPenalty))",
         "  state_loss_penalty_ms: \(WorkloadPrinter.num(costAware.stateLossPenalty))"]
    }
}
