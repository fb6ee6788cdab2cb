import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// Options shared by `run` and `trace`: what to simulate.
struct SimulationOptions: ParsableArguments {
    @Option(name: .long, help: "Workload YAML (default: the built-in default workload, Workloads/default.yaml).")
    var workload: String?

    @Option(name: .long, help: ArgumentHelp("Policies: NAME[,NAME...] or all (default: the workload's run.policies).", valueName: "names"),
            transform: PolicyList.parse)
    var policy: PolicyList?

    @Option(name: .long, help: ArgumentHelp("RAM sizes: SIZE[,SIZE...], e.g. 2GB,3GB or 1536MB (powers of 1024; default: the workload's run.ram_mb).", valueName: "sizes"),
            transform: SizeList.parse)
    var ram: SizeList?

    @Option(name: .long, help: "Devices in the fleet (default: the workload's fleet.devices).")
    var devices: Int?

    @Option(name: .long, help: ArgumentHelp("Simulated time per device, e.g. 1d, 12h (default: the workload's fleet.duration_days).", valueName: "dur"),
            transform: DurationArgument.parse)
    var duration: DurationArgument?

    @Option(name: .long, help: "Seed (default: the workload's seed).")
    var seed: UInt64?

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a workload key, e.g. --set user.sessions_per_day=80 (repeatable).", valueName: "key=value"))
    var overrides: [String] = []

    @Option(name: .long, help: ArgumentHelp("Replay recorded usage (CSV with device,time_s,app,duration_s, grouped by device) instead of the synthetic user. Each device runs for its span unless --duration is given; --devices N replays the first N devices.", valueName: "file.csv"))
    var usage: String?

    /// The workload file name as shown in errors and the `workload` column.
    var workloadSource: String { workload ?? "default.yaml (built in)" }

    /// Reads the workload, applies overrides (the `--set` flags unless others are
    /// given) and flags.
    func loadWorkload(overrides: [String]? = nil) throws -> Workload {
        let text = try workload.map(readInput) ?? defaultWorkloadText
        var w: Workload
        do { w = try WorkloadDecoder.load(text, source: workloadSource, overrides: overrides ?? self.overrides) } catch {
            throw BadInput(description: error.description)
        }
        if let devices {
            let r = Schema.devicesRange
            guard r.contains(devices) else {
                throw BadInput(description: "--devices: expected a whole number from \(r.lowerBound) to \(r.upperBound) (fleet.devices's range), got \(devices)")
            }
            w.fleet.devices = devices
        }
        if let duration { w.fleet.duration = duration.time }
        if let seed { w.seed = seed }
        return w
    }

    /// The cells: the policies crossed with the RAM sizes.
    func cells(for w: Workload) throws -> [Cell] {
        let policies: [PolicyID]
        if let policy { policies = policy.policies } else {
            do { policies = try PolicyList.parse(w.run.policies.joined(separator: ",")).policies } catch {
                throw BadInput(description: "run.policies: \(error)")
            }
        }
        let rams: [Int64?] = ram.map { $0.kilobytes.map { $0 } } ?? (w.run.ramKB.isEmpty ? [nil] : w.run.ramKB.map { $0 })
        for r in rams.compactMap({ $0 }) {
            // The class's own reserve as written: parameters() clamps it below the RAM.
            for c in w.deviceClasses where (c.osReserveKB ?? c.parameters(ramKB: r).osReserveKB) >= r {
                let reserve = SizeText.mebibytes(c.osReserveKB ?? c.parameters(ramKB: r).osReserveKB)
                throw BadInput(description: "--ram: \(SizeText.mebibytes(r))MB is not more than the OS reserve (\(reserve)MB) of device class \(c.name): nothing would be left for apps")
            }
        }
        return rams.flatMap { r in policies.map { Cell(policy: $0, ramKB: r) } }
    }

    /// With --usage: the simulated time per device if --duration is given (nil: each
    /// device's span).
    var usageUntil: SimTime? { usage != nil ? duration?.time : nil }

    /// Opens the usage trace for streaming and reads its header.
    func openUsage(_ path: String) throws -> UsageStream {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else { throw BadInput(description: "\(path): no such file") }
        if isDir.boolValue { throw BadInput(description: "\(path): cannot read it (it is a directory)") }
        do { return try UsageStream(path: path) } catch { throw BadInput(description: error.description) }
    }

    /// Runs `plan`: the synthetic fleet, or the usage trace streamed from `stream`
    /// (opened by `openUsage` before any output, so a bad trace fails first). With a
    /// trace and no --duration, the summary's duration (and per-device-day figures) is
    /// the devices' mean span. `run` and `sweep` share this one path, so a sweep point
    /// is exactly the run with its --set values. Returns the fleet size a replay had.
    func runFleet(_ plan: RunPlan, workload: inout Workload, stream: consuming UsageStream?, catalog: AppCatalog,
                  progress: RunProgress? = nil, perDeviceSink: PerDeviceSink? = nil) throws -> (result: FleetResult, replayedDevices: Int?) {
        guard let path = usage, var stream = stream.take() else {
            return (FleetRunner.run(plan, catalog: catalog, progress: progress, perDeviceSink: perDeviceSink), nil)
        }
        var plan = plan
        plan.usageUntil = usageUntil
        let o: UsageRunner.Outcome
        do { o = try UsageRunner.run(plan, stream: &stream, catalog: catalog, deviceLimit: devices, progress: progress, perDeviceSink: perDeviceSink) }
        catch let e as InputError { throw BadInput(description: e.description) }
        if let devices, o.devices < devices {
            throw BadInput(description: "--devices \(devices): \(path) has only \(o.devices) device(s)")
        }
        if o.rowsPastEnd > 0 {
            // Said even with --quiet: no row is dropped silently.
            printError("jetsim: warning: \(o.rowsPastEnd) row(s) of \(path) start at or after --duration \(workload.fleet.duration) and were not replayed")
        }
        if duration == nil { workload.fleet.duration = o.meanSpan }
        return (o.result, o.devices)
    }
}
