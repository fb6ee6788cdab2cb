import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// `jetsim trace`: the per-event trace of a small run, with the scenario trace's columns.
struct TraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Write the per-event lifecycle trace of a small run (one policy, one RAM size).",
        discussion: """
            Columns: time_ms,device,app,event,detail,state (as jetsim scenario); apps are \
            named by the catalog (or the usage trace). The options are run's, but trace's \
            defaults differ from what their help below says: --devices 1, --policy \
            jetsam-bands, --ram the workload's first RAM size. With --usage every device of \
            the trace is replayed unless --devices N says otherwise. With --format usage: the \
            user's app sessions as a usage CSV (device,time_s,app,duration_s; the input of \
            --usage and of jetsim usage-stats), taken from the user's actions without \
            simulating, so the same for every policy and RAM size.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case lifecycle, usage, perfetto }

    @Option(name: .long, help: """
        lifecycle (the per-event trace as CSV, the scenario trace's columns; the default), usage (the user's app \
        sessions as a usage CSV) or perfetto (Chrome trace-event JSON for ui.perfetto.dev and chrome://tracing: a \
        track per app with its states as slices, messages and kills as instants, available and compressed memory \
        as counters).
        """)
    var format: Format = .lifecycle

    @OptionGroup var sim: SimulationOptions

    @Option(name: .long, help: "Write the trace here (- for stdout, the default).")
    var out: String = "-"

    @Flag(name: .long, help: "Accepted as run takes it; trace prints no progress line or statistics anyway.")
    var quiet = false

    @Flag(name: .long, help: "Also write a row for each completed save (save), each save cut off (save-abandoned) and each loss of unsaved edits (lost-edits, the edits in the detail); lifecycle and perfetto formats.")
    var saves = false

    func run() throws {
        try OutputFile.checkNotInputs([("--out", out)], inputs: sim.inputs)
        var workload = try sim.loadWorkload()
        if sim.devices == nil { workload.fleet.devices = 1 }
        var cells = try sim.cells(for: workload)
        if sim.policy == nil { cells = cells.filter { $0.policy == PolicyID(JetsamBands.self) } }
        if sim.ram == nil, let first = cells.first { cells = cells.filter { $0.ramKB == first.ramKB } }
        guard cells.count == 1, let cell = cells.first else {
            throw BadInput(description: "trace: needs exactly one policy and one RAM size (got \(cells.count) cells); pass --policy NAME and --ram SIZE")
        }
        if cell.policy.external != nil {
            throw BadInput(description: "trace: \(cell.policy) is an external policy; external policies run in run and sweep only (docs/external-policies.md)")
        }
        var plan = RunPlan(workload: workload, cells: [cell], threads: 1)
        plan.usageUntil = sim.usageUntil
        sim.warnNamedFit(plan)
        let catalog = AppCatalog(workload)
        // A usage trace is streamed one device at a time (memory: one device's rows and
        // the ids of the devices read, not the trace); --devices is checked first.
        guard let path = sim.usage else {
            let output = try OutputFile.open(out)
            var perfetto: [PerfettoTrace.Device] = []
            output.write(Self.header(format) + Self.trace(plan, cell: cell, catalog: catalog, format: format, saves: saves, perfetto: &perfetto))
            if format == .perfetto { output.write(PerfettoTrace.json(perfetto, valueName: Self.valueName)) }
            try output.commit()
            return
        }
        try sim.checkUsageDevices()
        var stream = try sim.openUsage(path)
        plan.appMap = try sim.loadAppMap(workload, catalog: catalog)
        var apps = ReplayAppCensus()
        let limit = sim.devices ?? .max
        let output = try OutputFile.open(out)
        output.write(Self.header(format))
        // Perfetto's JSON is one document: its devices are gathered over the batches and
        // written once at the end (the CSV formats stream, a device at a time).
        var perfetto: [PerfettoTrace.Device] = []
        // A device of many apps with the system arrivals on is refused as it is read
        // (`UsageRunner.checkApps`); --format usage simulates nothing.
        let arrivals = format != .usage && UsageRunner.replayHasSystemArrivals(plan, catalog: catalog)
        _ = try Self.readDevices(&stream, upTo: limit, arrivals: arrivals) { batch in
            plan.usage = batch
            apps.add(batch, catalog: catalog, map: plan.appMap)
            output.write(Self.trace(plan, cell: cell, catalog: catalog, format: format, saves: saves, perfetto: &perfetto))
        }
        SimulationOptions.warnUnmatched(apps, trace: path, catalogApps: catalog.drawn)
        if format == .perfetto { output.write(PerfettoTrace.json(perfetto, valueName: Self.valueName)) }
        try output.commit()
    }

    /// Reads a trace one device at a time, up to `limit` devices, handing each to
    /// `body`; returns the devices read.
    static func readDevices(_ s: inout UsageStream, upTo limit: Int, arrivals: Bool = false, _ body: (UsageReplay) -> Void) throws -> Int {
        do {
            while s.devicesRead < limit, let batch = try s.nextBatch(rows: 1, maxDevices: limit - s.devicesRead) {
                try UsageRunner.checkApps(batch, arrivals: arrivals, source: s.source)
                body(batch)
                batch.releasePages()
            }
        } catch let e as InputError { throw BadInput(description: e.description) }
        return s.devicesRead
    }

    static func header(_ format: Format) -> String {
        switch format {
        case .usage: "device,time_s,app,duration_s\n"
        case .lifecycle: TraceCSV.header + "\n"
        case .perfetto: ""
        }
    }

    /// A delivered event's value name, if it has one.
    static let valueName: @Sendable (Int32) -> String? = { $0 > 0 && Int($0) < UserModel.valueNames.count ? UserModel.valueNames[Int($0)] : nil }

    /// The trace lines of the plan's devices (a usage batch's, or the fleet's); for
    /// `perfetto`, nothing: the devices are appended to `perfetto` for one JSON document.
    static func trace(_ plan: RunPlan, cell: Cell, catalog: AppCatalog, format: Format, saves: Bool = false, perfetto: inout [PerfettoTrace.Device]) -> String {
        let workload = plan.workload
        var text = ""
        var inputs = DeviceInputs(plan: plan, catalog: catalog)
        if format == .usage {
            for d in plan.runDevices {
                _ = inputs.build(device: d)
                let names: [String] = plan.usage.map { $0.appNames(ofDevice: d) } ?? inputs.installed.map { catalog.names[Int($0)] }
                let id = plan.usage.map { CSV.escape($0.name(ofDevice: d)) } ?? String(d)
                UsageStats.appSessions(of: inputs.timeline, until: inputs.until) { start, app, length in
                    text += "\(id),\(UsageStats.seconds(start)),\(CSV.escape(names[Int(app)])),\(UsageStats.seconds(length))\n"
                }
            }
            return text
        }
        let valueName = Self.valueName
        for d in plan.runDevices {
            let classIndex = inputs.build(device: d)
            let params = workload.deviceClasses[classIndex].parameters(ramKB: cell.ramKB)
            let context = PolicyContext(seed: workload.seed, device: UInt64(d), policies: workload.policies)
            let names: [String] = plan.usage.map { $0.appNames(ofDevice: d) } ?? inputs.installed.map { catalog.names[Int($0)] }
            if format == .perfetto {
                let o = TraceRun.runSampled(cell.policy, catalog: catalog, installed: inputs.installed, timeline: inputs.timeline,
                                            params: params, context: context, until: inputs.until, saves: saves)
                perfetto.append(PerfettoTrace.Device(index: d, label: "device \(d) (\(cell.policy.rawValue), \(SizeText.mebibytes(params.ramKB)) MB)",
                                                     appNames: names, records: o.records, memory: o.memory, until: inputs.until))
                continue
            }
            let records = TraceRun.run(cell.policy, catalog: catalog, installed: inputs.installed, timeline: inputs.timeline,
                                       params: params, context: context, until: inputs.until, saves: saves)
            for r in records {
                text += TraceCSV.line(r, device: d, appName: { names[Int($0)] }, valueName: valueName) + "\n"
            }
        }
        return text
    }
}
