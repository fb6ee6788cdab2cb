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

    @Option(name: .long, help: "Write the merged CSV here (- for stdout).")
    var out: String = "-"

    @Option(name: .long, help: ArgumentHelp("Write the merged --by breakdown here (the shards must have been run with --by).", valueName: "path"))
    var byOut: String?

    @Option(name: .long, help: ArgumentHelp("Write the merged --timeseries here (the shards must have been run with --timeseries).", valueName: "path"))
    var timeseries: String?

    @Option(name: .long, help: "csv or table.")
    var format: RunCommand.OutputFormat = .csv

    func run() throws {
        guard !states.isEmpty else { throw BadInput(description: "merge: give the .state files of every shard") }
        // No output (or its sidecar) may replace one of the states it is merged from,
        // however either is spelled (`./a.state`, `a.state`, a link to it).
        let stateFiles = Set(states.map(OutputFile.resolved))
        for (option, path) in [("--out", out), ("--by-out", byOut), ("--timeseries", timeseries)] {
            guard let path, path != "-" else { continue }
            for p in [path, ProvenanceFile.path(for: path)] where stateFiles.contains(OutputFile.resolved(p)) {
                throw BadInput(description: "merge: \(option) \(path) would replace the state file \(p); give another path")
            }
        }
        // Every output and its sidecar checked before anything is read or written, and
        // no two the same file (`--by-out X.provenance.json` with `--out X` would put
        // the breakdown in X's sidecar, then overwrite it), as run checks its own.
        let named: [(option: String, path: String?)] = [("--out", out), ("--by-out", byOut), ("--timeseries", timeseries)]
        let all = named + named.compactMap { n in ProvenanceFile.sidecar(of: n.path).map { ("the provenance sidecar of \(n.option)", $0) } }
        for case let (_, path?) in all where path != "-" { try AtomicOutput.check(path) }
        try OutputFile.checkDistinct(all)
        let output = try OutputFile.open(out)
        let byFile = try byOut.map(OutputFile.open)
        let seriesFile = try timeseries.map(OutputFile.open)
        var parsed: [(source: String, state: ShardState)] = []
        for path in states {
            do { parsed.append((path, try ShardState.parse(try readInput(path), source: path))) } catch let e as InputError {
                throw BadInput(description: e.description)
            }
        }
        let merged: (Workload, FleetResult, [String])
        do { merged = try ShardState.merge(parsed) } catch { throw BadInput(description: error.description) }
        var text = format == .csv ? Summary.csv(workload: merged.0, result: merged.1, overrides: merged.2) : Summary.table(workload: merged.0, result: merged.1)
        if format == .table, out == "-", let width = Terminal.width(STDOUT_FILENO) { text = Terminal.fit(table: text, width: width) }
        // Every refusal before the first file is written: a refused merge leaves every
        // output and sidecar as it was.
        var byText: String? = nil
        if byFile != nil {
            guard let t = Breakdown.csv(workload: merged.0, result: merged.1) else {
                throw BadInput(description: "merge --by-out: the states have no breakdown (run the shards with --by)")
            }
            byText = t
        }
        var seriesText: String? = nil
        if seriesFile != nil {
            guard let s = merged.1.series else {
                throw BadInput(description: "merge --timeseries: the states have no time series (run the shards with --timeseries)")
            }
            seriesText = s.csv(workload: merged.0, cells: merged.1.cells)
        }
        // Every output's provenance: the merged workload, the output's own key, the states
        // (built once, and only when some output is a file: the commit runs git).
        var common = Provenance()
        if !output.isStdout || byFile?.isStdout == false || seriesFile?.isStdout == false {
            common = ProvenanceFile.base()
            common.describe(workload: merged.0, source: "the shard states' workload section", cells: merged.1.cells, overrides: merged.2)
        }
        func provenance(_ key: String, _ value: Provenance.Value) -> Provenance {
            var p = common
            p.set(key, value)
            p.set("merged_from", .strings(states))
            return p
        }
        // Every output and its sidecar moved into place together; standard output
        // written once the files are in place.
        var files: [OutputFile?] = []
        var toStdout: [(OutputFile, String)] = []
        func put(_ f: OutputFile, _ text: String, _ p: Provenance) throws {
            files.append(try ProvenanceFile.stage(p, beside: f, outputText: text))
            if f.isStdout { toStdout.append((f, text)) } else { f.write(text); files.append(f) }
        }
        var p = provenance("baseline", .optional(merged.1.baseline?.rawValue))
        p.set("inputs", .string(parsed.first?.state.inputs ?? ""))
        warnSaturated(merged.1, merged.0)
        try put(output, text, p)
        if let byFile, let byText { try put(byFile, byText, provenance("by", .optional(merged.1.groupBy?.rawValue))) }
        if let seriesFile, let seriesText { try put(seriesFile, seriesText, provenance("merged_from", .strings(states))) }
        try OutputFile.commitAll(files)
        for (f, t) in toStdout { f.write(t) }
        try OutputFile.commitAll(toStdout.map(\.0))
    }
}
