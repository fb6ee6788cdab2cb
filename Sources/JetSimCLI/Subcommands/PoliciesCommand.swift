import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// `jetsim policies`: one policy name per line.
struct PoliciesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "policies", abstract: "List the eviction policies, one name per line.")
    func run() throws {
        print(PolicyName.allCases.map(\.rawValue).joined(separator: "\n"))
    }
}
