import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// `jetsim merge`: shard states into the CSV one unsharded run would have written.
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine the .state files of every shard of a run into its summary CSV.",
        discussion: "The result is byte-identical to the unsharded run with the same inputs. A missing, duplicated or mismatched shard is an error naming it (exit 2)."
    )

    @Argument(help: "The OUT.state files written by `jetsim run --shard I/N --out OUT`.")
    var states: [String]

    @Option(name: .long, help: "Write the merged CSV here (default: stdout).")
    var out: String = "-"

    @Option(name: .long, help: "csv or table.")
    var format: RunCommand.OutputFormat = .csv

    func run() throws {
        guard !states.isEmpty else { throw BadInput(description: "merge: give the .state files of every shard") }
        if states.contains(out) { throw BadInput(description: "merge: --out \(out) is one of the state files; give another path") }
        let output = try OutputFile.open(out)
        var parsed: [(source: String, state: ShardState)] = []
        for path in states {
            do { parsed.append((path, try ShardState.parse(try readInput(path), source: path))) } catch let e as InputError {
                throw BadInput(description: e.description)
            }
        }
        let merged: (Workload, FleetResult, [String])
        do { merged = try ShardState.merge(parsed) } catch { throw BadInput(description: error.description) }
        let text = format == .csv ? Summary.csv(workload: merged.0, result: merged.1, overrides: merged.2) : Summary.table(workload: merged.0, result: merged.1)
        warnSaturated(merged.1, merged.0)
        output.write(text)
        try output.commit()
    }
}
