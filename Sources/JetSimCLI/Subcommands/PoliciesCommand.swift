import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// `jetsim policies`: one policy per line, its name first, then what it kills first.
struct PoliciesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "policies", abstract: "List the eviction policies, one per line: name, then description.",
                                                    discussion: "Besides these, external:NAME runs a policy declared in the workload's policies.external.NAME as a separate process (docs/external-policies.md).")
    func run() throws {
        let width = PolicyID.all.map(\.name.count).max() ?? 0
        for p in PolicyID.all { print(p.name + String(repeating: " ", count: width - p.name.count + 2) + p.summary) }
    }
}
