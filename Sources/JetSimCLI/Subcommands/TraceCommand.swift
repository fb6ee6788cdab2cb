import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// `jetsim trace`: the per-event trace of a small run, with the scenario trace's columns.
struct TraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Write the per-event lifecycle trace of a small run (one policy, one RAM size).",
        discussion: "Columns: time_ms,device,app,event,detail,state (as jetsim scenario). Devices default to 1; apps are named by the catalog."
    )

    @OptionGroup var sim: SimulationOptions

    @Option(name: .long, help: "Write the trace here (- for stdout, the default).")
    var out: String = "-"

    @Option(name: .long, help: "csv (the scenario trace's columns) or perfetto (Chrome trace-event JSON for ui.perfetto.dev and chrome://tracing: a track per app with its states as slices, messages and kills as instants, available and compressed memory as counters).")
    var format: TraceFormat = .csv

    enum TraceFormat: String, ExpressibleByArgument, CaseIterable { case csv, perfetto }

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
        plan.usageUntil = sim.usageUntil
        let catalog = AppCatalog(workload)
        let output = try OutputFile.open(out)
        var text = TraceCSV.header + "\n"
        var perfetto: [PerfettoTrace.Device] = []
        var inputs = DeviceInputs(plan: plan, catalog: catalog)
        for d in plan.shardDevices {
            let classIndex = inputs.build(device: d)
            let params = workload.deviceClasses[classIndex].parameters(ramKB: cell.ramKB)
            let context = PolicyContext(seed: workload.seed, device: UInt64(d), policies: workload.policies)
            let names: [String] = plan.usage.map { $0.appNames(ofDevice: d) } ?? inputs.installed.map { catalog.names[Int($0)] }
            if format == .perfetto {
                let o = TraceRun.runSampled(cell.policy, catalog: catalog, installed: inputs.installed, timeline: inputs.timeline,
                                            params: params, context: context, until: inputs.until)
                perfetto.append(PerfettoTrace.Device(index: d, label: "device \(d) (\(cell.policy.rawValue), \(SizeText.mebibytes(params.ramKB)) MB)",
                                                     appNames: names, records: o.records, memory: o.memory, until: inputs.until))
                continue
            }
            let records = TraceRun.run(cell.policy, catalog: catalog, installed: inputs.installed, timeline: inputs.timeline,
                                       params: params, context: context, until: inputs.until)
            for r in records {
                text += TraceCSV.line(r, device: d, appName: { names[Int($0)] },
                                      valueName: { $0 > 0 && Int($0) < UserModel.valueNames.count ? UserModel.valueNames[Int($0)] : nil }) + "\n"
            }
        }
        if format == .perfetto {
            text = PerfettoTrace.json(perfetto, valueName: { $0 > 0 && Int($0) < UserModel.valueNames.count ? UserModel.valueNames[Int($0)] : nil })
        }
        output.write(text)
        try output.commit()
    }
}
