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
            when it is (or with --format table). The columns are explained in docs/columns.md. \
            Wall time and events per second go to stderr (and to --perf), never into the \
            summary: the same inputs give byte-identical CSV whatever the thread count.
            """
    )

    @OptionGroup var sim: SimulationOptions
    @OptionGroup var execution: ExecutionOptions
    @OptionGroup var results: ResultOptions
    @OptionGroup var outputs: RunResultOptions

    @Option(name: .long, help: "Write the summary here (- for stdout; written to a temporary file and renamed when complete).")
    var out: String?

    @Option(name: .long, help: ArgumentHelp("Also write one row per device and cell here (- for stdout).", valueName: "path"))
    var perDevice: String?

    @Option(name: .long, help: "csv or table (default: table on a terminal, else csv).")
    var format: OutputFormat?

    @Option(name: .long, help: ArgumentHelp("Write wall time per cell here (- for stdout): policy,ram_mb,events,wall_s,events_per_s.", valueName: "path"))
    var perf: String?

    @Option(name: .long, help: ArgumentHelp("Run shard I of N (I from 1): a deterministic share of the devices; needs --out, and writes OUT.state beside it for `jetsim merge`.", valueName: "I/N"),
            transform: ShardSpec.parse)
    var shard: ShardSpec?

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case csv, table }

    func validate() throws {
        if outputs.by?.grouping == .archetype, sim.usage != nil, sim.appMap == nil {
            throw ValidationError("--by archetype: with --usage, give --app-map FILE.csv too (it says which archetype each replayed app is; without it a name outside the catalog takes a profile by hash, whatever its archetype)")
        }
        if !results.compareSets.isEmpty, sim.usage != nil {
            throw ValidationError("--compare-set: not with --usage (variants run on the synthetic users)")
        }
        if !results.compareSets.isEmpty, outputs.timeseries != nil {
            throw ValidationError("--compare-set: not with --timeseries (the hourly series has no variant column)")
        }
        if outputs.timeseries != nil, sim.usage != nil {
            throw ValidationError("--timeseries: not with --usage (replayed devices run for different spans)")
        }
        if shard != nil, out == nil || out == "-" {
            throw ValidationError("--shard: needs --out PATH (the shard's state goes to PATH.state)")
        }
        // The state is one item a line: a line break in what it records (the usage
        // path, a --set) gave shards that exit 0 and that merge cannot read.
        if shard != nil {
            let breaks = { (s: String) in s.utf8.contains { $0 == 0x0A || $0 == 0x0D } }
            if let u = sim.usage, breaks(u) { throw ValidationError("--usage: with --shard, the path may not hold a line break (the shard state records it on one line); rename the file") }
            if let o = sim.overrides.first(where: breaks) {
                throw ValidationError("--set \(o.debugDescription): with --shard, a value may not hold a line break (the shard state records it on one line); write it on one line")
            }
        }
        // A BadInput thrown here would reach main wrapped by the parser (exit 1): as a
        // validation error it is bad input (exit 2), like the checks above.
        do {
            let named: [(option: String, path: String?)] = [
                ("--out", out), ("--per-device", perDevice), ("--perf", perf),
                ("the shard state", shard != nil ? out.map { $0 + ".state" } : nil), ("--by-out", outputs.byOut),
                ("--timeseries", outputs.timeseries),
            ] + sidecars.map { ("a provenance sidecar", $0) }
            try OutputFile.checkDistinct(named)
            try OutputFile.checkNotInputs(named, inputs: sim.inputs)
        } catch let e as BadInput { throw ValidationError(e.description) }
    }

    /// The provenance sidecars of the file outputs (docs/cli.md, "Provenance").
    var sidecars: [String] {
        [out, perDevice, perf, outputs.byOut, outputs.timeseries].compactMap(ProvenanceFile.sidecar(of:))
    }

    func run() throws {
        let started = ContinuousClock.now
        // Every output path is checked before any input is read (a directory, a
        // missing parent); they are opened once the inputs are known to be good.
        for path in [out, perDevice, perf, outputs.byOut, outputs.timeseries, shard != nil ? out.map { $0 + ".state" } : nil].compactMap({ $0 }) + sidecars where path != "-" {
            try AtomicOutput.check(path)
        }
        var workload = try sim.loadWorkload()
        let cells = try sim.cells(for: workload)
        var plan = RunPlan(workload: workload, cells: cells, threads: execution.threadCount)
        try results.apply(to: &plan)
        outputs.apply(to: &plan)
        try SimulationOptions.checkGroups(plan)
        sim.warnNamedFit(plan)
        if plan.timeSeries, let why = HourlySeries.refusal(cells: cells.count, duration: workload.fleet.duration, threads: plan.threads) {
            throw BadInput(description: "--timeseries: " + why)
        }
        if sim.usage != nil, shard != nil, sim.duration == nil {
            throw BadInput(description: "--shard with --usage: give --duration too (without it each device runs for its own span, and the shards' summaries could not be merged)")
        }
        try sim.checkUsageDevices()
        var usageStream: UsageStream? = nil
        if let u = sim.usage { usageStream = try sim.openUsage(u) }
        // The shard state names the trace by a hash of its bytes, read in blocks
        // before the run (the trace is never held whole in memory; a piped trace was
        // hashed as it was copied: `InputFiles`), with the app map and column mapping.
        let usageHash: UInt64? = shard != nil ? try sim.usageStateHash() : nil
        if let shard {
            plan.shardIndex = shard.index - 1
            plan.shardCount = shard.count
        }
        let toTerminal = (out == nil || out == "-") && isatty(STDOUT_FILENO) == 1
        let fmt = format ?? (toTerminal ? .table : .csv)

        // Open every output first, so a bad path fails before the work.
        let summary = try OutputFile.open(out ?? "-")
        let state = try shard.map { _ in try OutputFile.open(summary.path + ".state") }
        let perDeviceFile = try perDevice.map(OutputFile.open)
        let perfFile = try perf.map(OutputFile.open)
        let byFile = try outputs.byOut.map(OutputFile.open)
        let seriesFile = try outputs.timeseries.map(OutputFile.open)

        let catalog = AppCatalog(workload)
        var sink: PerDeviceSink? = nil
        if let perDeviceFile {
            perDeviceFile.write(PerDeviceRow.header(variants: !plan.variants.isEmpty) + "\n")
            sink = PerDeviceSink { text in perDeviceFile.write(text) }
        }
        let progress = RunProgress()
        let bar = (!execution.quiet && isatty(STDERR_FILENO) == 1 && sim.usage == nil) ? ProgressBar(total: plan.shardIndex < plan.fleetSize ? (plan.fleetSize - plan.shardIndex - 1) / plan.shardCount + 1 : 0, cells: cells.count, progress: progress) : nil
        bar?.start()
        // The files of the external policies' commands, hashed before they run.
        let externalHashes = ProvenanceFile.externalHashes(workload, cells: cells)
        let (result, replayedDevices, replayApps) = try sim.runFleet(plan, workload: &workload, stream: usageStream.take(), catalog: catalog,
                                                         progress: progress, perDeviceSink: sink)
        bar?.stop()
        let elapsed = started.duration(to: .now)
        let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18

        // Outputs: every file written to its temporary file, then all moved into place
        // together (`OutputFile.commitAll`): the state before the summary, each sidecar
        // before its output, so that an output on disk has its provenance and state;
        // what goes to standard output is written once the files are in place.
        var files: [OutputFile?] = []
        var toStdout: [(OutputFile, String)] = []
        func put(_ f: OutputFile, _ text: String, sidecar p: Provenance?) throws {
            if let p { files.append(try ProvenanceFile.stage(p, beside: f, outputText: text)) }
            if f.isStdout { toStdout.append((f, text)) } else { f.write(text); files.append(f) }
        }
        if let state {
            var s = ShardState(workload: workload, overrides: sim.overrides, usage: sim.usage, plan: plan, result: result,
                               usageHash: usageHash, fleetDevices: replayedDevices, externalHashes: externalHashes)
            // A sample's devices in this shard, and in all (the census counts every shard's).
            if sim.sample != nil, let apps = replayApps { s.sampleDevices = (result.accumulators.first?.devices ?? 0, apps.devices) }
            try put(state, s.text, sidecar: nil)
        }
        warnSaturated(result, workload)
        var summaryText = fmt == .csv ? Summary.csv(workload: workload, result: result, overrides: sim.overrides)
                                      : Summary.table(workload: workload, result: result)
        if fmt == .table, toTerminal, let width = Terminal.width(STDOUT_FILENO) { summaryText = Terminal.fit(table: summaryText, width: width) }
        var provenance = ProvenanceFile.base()
        provenance.describe(workload: workload, source: sim.workloadSource, cells: cells, overrides: sim.overrides)
        provenance.set("threads", .int(plan.threads))
        provenance.set("shard", .optional(shard.map { "\($0.index)/\($0.count)" }))
        provenance.set("baseline", .optional(plan.baseline?.rawValue))
        if !plan.variants.isEmpty { provenance.set("compare_set", .strings(plan.variants.map(\.label))) }
        provenance.set("by", .optional(plan.groupBy?.rawValue))
        provenance.set("usage", .optional(sim.usage))
        sim.recordReplay(replayApps, in: &provenance)
        ProvenanceFile.record(external: externalHashes, workload: workload, in: &provenance)
        try put(summary, summaryText, sidecar: provenance)
        if let perDeviceFile {
            // Streamed while the run went on: its sidecar holds no hash.
            files.append(try ProvenanceFile.stage(provenance, beside: perDeviceFile, outputText: nil))
            files.append(perDeviceFile)
        }
        if let seriesFile, let series = result.series { try put(seriesFile, series.csv(workload: workload, cells: result.cells), sidecar: provenance) }
        if let byFile, let text = Breakdown.csv(workload: workload, result: result) { try put(byFile, text, sidecar: provenance) }
        let events = result.accumulators.reduce(0) { $0 + $1.events }
        if let perfFile {
            var p = "policy,ram_mb,events,wall_s,events_per_s\n"
            for (i, cell) in result.cells.enumerated() {
                let s = result.cellSeconds[i]
                p += "\(cell.policy.rawValue),\(Summary.ramLabel(cell, workload)),\(result.accumulators[i].events),\(String(format: "%.3f", s)),\(String(format: "%.0f", s > 0 ? Double(result.accumulators[i].events) / s : 0))\n"
            }
            p += "total,,\(events),\(String(format: "%.3f", wall)),\(String(format: "%.0f", Double(events) / wall))\n"
            try put(perfFile, p, sidecar: provenance)
        }
        try OutputFile.commitAll(files)
        for (f, text) in toStdout { f.write(text) }
        try OutputFile.commitAll(toStdout.map(\.0))
        if !execution.quiet {
            let devices = result.accumulators.first?.devices ?? 0
            let line = String(format: "jetsim: %d cells x %d devices, %.2fM events in %.2f s: %.2fM events/s, %.0f devices/s (%d threads)\n",
                              cells.count, devices, Double(events) / 1e6, wall, Double(events) / wall / 1e6, Double(devices) / wall, plan.threads)
            printError(Terminal.width(STDERR_FILENO).map { Terminal.wrap(line, width: $0) } ?? line)
        }
    }
}
