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
            Columns: time_ms,device,app,event,detail,state (as jetsim scenario). Devices default to 1; apps are named by the catalog. \
            With --format usage: the user's app sessions as a usage CSV (device,time_s,app,duration_s; the input of \
            --usage and of jetsim usage-stats), taken from the user's actions without simulating, so the same for every \
            policy and RAM size.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case lifecycle, usage }

    @Option(name: .long, help: "lifecycle (the per-event trace, default) or usage (the user's app sessions as a usage CSV).")
    var format: Format = .lifecycle

    @OptionGroup var sim: SimulationOptions

    @Option(name: .long, help: "Write the trace here (- for stdout, the default).")
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
        plan.usageUntil = sim.usageUntil
        let catalog = AppCatalog(workload)
        let output = try OutputFile.open(out)
        var text = TraceCSV.header + "\n"
        var inputs = DeviceInputs(plan: plan, catalog: catalog)
        if format == .usage {
            output.write("device,time_s,app,duration_s\n")
            for d in plan.shardDevices {
                _ = inputs.build(device: d)
                let names: [String] = plan.usage.map { $0.appNames(ofDevice: d) } ?? inputs.installed.map { catalog.names[Int($0)] }
                let id = plan.usage.map { CSV.escape($0.name(ofDevice: d)) } ?? String(d)
                var rows = ""
                UsageStats.appSessions(of: inputs.timeline, until: inputs.until) { start, app, length in
                    rows += "\(id),\(UsageStats.seconds(start)),\(CSV.escape(names[Int(app)])),\(UsageStats.seconds(length))\n"
                }
                output.write(rows)
            }
            try output.commit()
            return
        }
        for d in plan.shardDevices {
            let classIndex = inputs.build(device: d)
            let params = workload.deviceClasses[classIndex].parameters(ramKB: cell.ramKB)
            let records = TraceRun.run(cell.policy, catalog: catalog, installed: inputs.installed, timeline: inputs.timeline,
                                       params: params, context: PolicyContext(seed: workload.seed, device: UInt64(d), policies: workload.policies),
                                       until: inputs.until)
            let names: [String] = plan.usage.map { $0.appNames(ofDevice: d) } ?? inputs.installed.map { catalog.names[Int($0)] }
            for r in records {
                text += TraceCSV.line(r, device: d, appName: { names[Int($0)] },
                                      valueName: { $0 > 0 && Int($0) < UserModel.valueNames.count ? UserModel.valueNames[Int($0)] : nil }) + "\n"
            }
        }
        output.write(text)
        try output.commit()
    }
}
