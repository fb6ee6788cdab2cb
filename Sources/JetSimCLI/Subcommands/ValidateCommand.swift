import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// `jetsim validate`: check a workload and print what it resolved to.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a workload file and print the workload it resolves to (every key, defaults filled in).")

    @Argument(help: "The workload file (default: the built-in default workload).")
    var file: String?

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a key, e.g. --set user.sessions_per_day=80.", valueName: "key=value"))
    var overrides: [String] = []

    @Flag(name: .customLong("keys"), help: "List every workload key from the schema table, one per line: key, type, min, max, plausible range, groups (tab-separated; '-' when the key has no numeric range, no plausible range or no group; list keys for element 0, as --set takes them).")
    var keys = false

    func run() throws {
        if keys {
            for k in Schema.keyTable() {
                let groups = k.groups.isEmpty ? "-" : k.groups.joined(separator: ",")
                print([k.key, k.type, k.min ?? "-", k.max ?? "-", k.plausible ?? "-", groups].joined(separator: "\t"))
            }
            return
        }
        let source = file ?? "default.yaml (built in)"
        let text = try file.map(readInput) ?? defaultWorkloadText
        let w: Workload
        do { w = try WorkloadDecoder.load(text, source: source, overrides: overrides) } catch { throw BadInput(description: error.description) }
        print("# \(source): valid. The workload it resolves to:")
        print(WorkloadPrinter.yaml(w), terminator: "")
    }
}
