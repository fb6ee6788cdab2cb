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
        var parsed: [(source: String, state: ShardState)] = []
        for path in states {
            do { parsed.append((path, try ShardState.parse(try readInput(path), source: path))) } catch let e as InputError {
                throw BadInput(description: e.description)
            }
        }
        let merged: (Workload, FleetResult, [String])
        do { merged = try ShardState.merge(parsed) } catch { throw BadInput(description: error.description) }
        let text = format == .csv ? Summary.csv(workload: merged.0, result: merged.1, overrides: merged.2) : Summary.table(workload: merged.0, result: merged.1)
        try AtomicOutput.write(text, to: out)
    }
}

/// `jetsim trace`: the per-event trace of a small run, with the scenario trace's columns.
struct TraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Write the per-event lifecycle trace of a small run (one policy, one RAM size).",
        discussion: "Columns: time_ms,device,app,event,detail,state (as jetsim scenario). Devices default to 1; apps are named by the catalog."
    )

    @OptionGroup var sim: SimulationOptions

    @Option(name: .long, help: "Write the trace here (default: stdout).")
    var out: String = "-"

    func run() throws {
        var workload = try sim.loadWorkload()
        if sim.devices == nil { workload.fleet.devices = 1 }
        var cells = try sim.cells(for: workload)
        if sim.policy == nil { cells = cells.filter { $0.policy == PolicyID(JetsamBands.self) } }
        if sim.ram == nil, let first = cells.first { cells = cells.filter { $0.ramKB == first.ramKB } }
        guard cells.count == 1, let cell = cells.first else {
            throw BadInput(description: "trace: needs exactly one policy and one RAM size (got \(cells.count) cells); pass --policy NAME and --ram SIZE")
        }
        var plan = RunPlan(workload: workload, cells: [cell], threads: 1)
        plan.usage = try sim.loadUsage()
        let catalog = AppCatalog(workload)
        let temp = out == "-" ? nil : try AtomicOutput.begin(out)
        var text = TraceCSV.header + "\n"
        var inputs = DeviceInputs(plan: plan, catalog: catalog)
        for d in plan.shardDevices {
            let classIndex = inputs.build(device: d)
            let params = workload.deviceClasses[classIndex].parameters(ramKB: cell.ramKB)
            let records = TraceRun.run(cell.policy, catalog: catalog, installed: inputs.installed, timeline: inputs.timeline,
                                       params: params, context: PolicyContext(seed: workload.seed, device: UInt64(d), policies: workload.policies),
                                       until: workload.fleet.duration)
            let names: [String] = plan.usage.map { $0.appNames[d] } ?? inputs.installed.map { catalog.names[Int($0)] }
            for r in records {
                text += TraceCSV.line(r, device: d, appName: { names[Int($0)] },
                                      valueName: { $0 > 0 && Int($0) < UserModel.valueNames.count ? UserModel.valueNames[Int($0)] : nil }) + "\n"
            }
        }
        if let temp {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temp))
            try AtomicOutput.commit(temp, to: out)
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}

/// `jetsim policies`: one policy per line, its name first, then what it kills first.
struct PoliciesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "policies", abstract: "List the eviction policies, one per line: name, then description.")
    func run() throws {
        let width = PolicyID.all.map(\.name.count).max() ?? 0
        for p in PolicyID.all { print(p.name + String(repeating: " ", count: width - p.name.count + 2) + p.summary) }
    }
}

/// `jetsim validate`: check a workload and print what it resolved to.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a workload file and print the workload it resolves to (every key, defaults filled in).")

    @Argument(help: "The workload file (default: the built-in default workload).")
    var file: String?

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a key, e.g. --set user.sessions_per_day=80.", valueName: "key=value"))
    var overrides: [String] = []

    func run() throws {
        let source = file ?? "default.yaml (built in)"
        let text = try file.map(readInput) ?? defaultWorkloadText
        let w: Workload
        do { w = try WorkloadDecoder.load(text, source: source, overrides: overrides) } catch { throw BadInput(description: error.description) }
        print("# \(source): valid. The workload it resolves to:")
        print(WorkloadPrinter.yaml(w), terminator: "")
    }
}
