import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// `jetsim run`: a batch run, one summary row per cell (policy x RAM).
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Simulate a fleet under each policy and RAM size; write one summary row per cell.",
        discussion: """
            CSV goes to --out, or to stdout when it is not a terminal; a readable table \
            when it is (or with --format table). The columns are explained in the README. \
            Wall time and events per second go to stderr (and to --perf), never into the \
            summary: the same inputs give byte-identical CSV whatever the thread count.
            """
    )

    @OptionGroup var sim: SimulationOptions

    @Option(name: .long, help: "Write the summary here (written to a temporary file and renamed when complete).")
    var out: String?

    @Option(name: .long, help: ArgumentHelp("Also write one row per device and cell here.", valueName: "path"))
    var perDevice: String?

    @Option(name: .long, help: "csv or table (default: table on a terminal, else csv).")
    var format: OutputFormat?

    @Flag(name: .long, help: "No progress bar or timing lines on stderr.")
    var quiet = false

    @Option(name: .long, help: ArgumentHelp("Write wall time per cell here: policy,ram_mb,events,wall_s,events_per_s.", valueName: "path"))
    var perf: String?

    @Option(name: .long, help: "Worker threads (default: all cores). Results do not depend on it.")
    var threads: Int?

    @Option(name: .long, help: ArgumentHelp("Run shard I of N (I from 1): a deterministic share of the devices; needs --out, and writes OUT.state beside it for `jetsim merge`.", valueName: "I/N"))
    var shard: String?

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case csv, table }

    func run() throws {
        let started = ContinuousClock.now
        let workload = try sim.loadWorkload()
        let cells = try sim.cells(for: workload)
        var plan = RunPlan(workload: workload, cells: cells, threads: try threadCount())
        plan.usage = try sim.loadUsage()
        if let shard {
            let (i, n) = try parseShard(shard)
            plan.shardIndex = i - 1
            plan.shardCount = n
            guard out != nil else { throw BadInput(description: "--shard: needs --out PATH (the shard's state goes to PATH.state)") }
        }
        let toTerminal = out == nil && isatty(STDOUT_FILENO) == 1
        let fmt = format ?? (toTerminal ? .table : .csv)

        // Open every output first, so a bad path fails before the work.
        let summaryTemp = try out.map(AtomicOutput.begin)
        let stateTemp = try (shard != nil ? out.map { try AtomicOutput.begin($0 + ".state") } : nil)
        let perDeviceTemp = try perDevice.map(AtomicOutput.begin)
        let perfTemp = try perf.map(AtomicOutput.begin)

        let catalog = AppCatalog(workload)
        var sink: PerDeviceSink? = nil
        var perDeviceHandle: FileHandle? = nil
        if let perDeviceTemp {
            // Plain open(2), not FileManager.createFile: that one renames a temporary
            // file into place, which would replace a device such as /dev/null.
            let fd = open(perDeviceTemp, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw RunFailure(description: "cannot write \(perDevice ?? perDeviceTemp): \(String(cString: strerror(errno)))") }
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            handle.write(Data((PerDeviceRow.header + "\n").utf8))
            perDeviceHandle = handle
            sink = PerDeviceSink { text in handle.write(Data(text.utf8)) }
        }
        let progress = RunProgress()
        let bar = (!quiet && isatty(STDERR_FILENO) == 1) ? ProgressBar(total: Array(plan.shardDevices).count, cells: cells.count, progress: progress) : nil
        bar?.start()
        let result = FleetRunner.run(plan, catalog: catalog, progress: progress, perDeviceSink: sink)
        bar?.stop()
        let elapsed = started.duration(to: .now)
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18

        // Outputs.
        let text = fmt == .csv ? Summary.csv(workload: workload, result: result, overrides: sim.overrides) : Summary.table(workload: workload, result: result)
        if let summaryTemp, let out {
            try Data(text.utf8).write(to: URL(fileURLWithPath: summaryTemp))
            if let stateTemp {
                let state = ShardState(workload: workload, overrides: sim.overrides,
                                       usage: sim.usage, plan: plan, result: result, usageText: try sim.usage.map(readInput))
                try Data(state.text.utf8).write(to: URL(fileURLWithPath: stateTemp))
                try AtomicOutput.commit(stateTemp, to: out + ".state")
            }
            try AtomicOutput.commit(summaryTemp, to: out)
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        if let perDeviceTemp, let perDevice {
            try perDeviceHandle?.close()
            try AtomicOutput.commit(perDeviceTemp, to: perDevice)
        }
        let events = result.accumulators.reduce(0) { $0 + $1.events }
        if let perfTemp, let perf {
            var p = "policy,ram_mb,events,wall_s,events_per_s\n"
            for (i, cell) in result.cells.enumerated() {
                let s = result.cellSeconds[i]
                p += "\(cell.policy.rawValue),\(Summary.ramLabel(cell, workload)),\(result.accumulators[i].events),\(String(format: "%.3f", s)),\(String(format: "%.0f", s > 0 ? Double(result.accumulators[i].events) / s : 0))\n"
            }
            p += "total,,\(events),\(String(format: "%.3f", wall)),\(String(format: "%.0f", Double(events) / wall))\n"
            try Data(p.utf8).write(to: URL(fileURLWithPath: perfTemp))
            try AtomicOutput.commit(perfTemp, to: perf)
        }
        if !quiet {
            let devices = result.accumulators.first?.devices ?? 0
            let line = String(format: "jetsim: %d cells x %d devices, %.2fM events in %.2f s: %.2fM events/s, %.0f devices/s (%d threads)\n",
                              cells.count, devices, Double(events) / 1e6, wall, Double(events) / wall / 1e6, Double(devices) / wall, plan.threads)
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    func threadCount() throws -> Int {
        if let threads {
            guard threads >= 1 else { throw BadInput(description: "--threads: expected a whole number >= 1, got \(threads)") }
            return threads
        }
        return ProcessInfo.processInfo.activeProcessorCount
    }
}

/// Reads `I/N` (1 <= I <= N).
func parseShard(_ text: String) throws -> (Int, Int) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 1, i <= n else {
        throw BadInput(description: "--shard: expected I/N with 1 <= I <= N (e.g. 2/8), got '\(text)'")
    }
    return (i, n)
}
