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

    /// The whole usage trace (or its first --devices devices), for `trace` and `sweep`.
    func loadUsage() throws -> UsageReplay? {
        guard let usage else { return nil }
        var stream = try openUsage(usage)
        do {
            let r = try stream.nextBatch(rows: .max, maxDevices: devices ?? .max) ?? UsageReplay()
            if let devices, r.devices.count < devices {
                throw BadInput(description: "--devices \(devices): \(usage) has only \(r.devices.count) device(s)")
            }
            return r
        } catch let e as InputError { throw BadInput(description: e.description) }
    }
}
