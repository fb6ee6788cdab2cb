import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// Options shared by `run` and `trace`: what to simulate.
struct SimulationOptions: ParsableArguments {
    @Option(name: .long, help: "Workload YAML (default: the built-in default workload, Workloads/default.yaml).")
    var workload: String?

    @Option(name: .long, help: ArgumentHelp("Policies: NAME[,NAME...] or all (default: the workload's run.policies).", valueName: "names"))
    var policy: String?

    @Option(name: .long, help: ArgumentHelp("RAM sizes: SIZE[,SIZE...], e.g. 2GB,3GB or 1536MB (powers of 1024; default: the workload's run.ram_mb).", valueName: "sizes"))
    var ram: String?

    @Option(name: .long, help: "Devices in the fleet (default: the workload's fleet.devices).")
    var devices: Int?

    @Option(name: .long, help: ArgumentHelp("Simulated time per device, e.g. 1d, 12h (default: the workload's fleet.duration_days).", valueName: "dur"))
    var duration: String?

    @Option(name: .long, help: "Seed (default: the workload's seed).")
    var seed: UInt64?

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a workload key, e.g. --set user.sessions_per_day=80 (repeatable).", valueName: "key=value"))
    var overrides: [String] = []

    @Option(name: .long, help: ArgumentHelp("Replay recorded usage (CSV with device,time_s,app,duration_s) instead of the synthetic user.", valueName: "file.csv"))
    var usage: String?

    /// The workload file name as shown in errors and the `workload` column.
    var workloadSource: String { workload ?? "default.yaml (built in)" }

    /// Reads the workload, applies overrides and flags.
    func loadWorkload() throws -> Workload {
        let text = try workload.map(readInput) ?? defaultWorkloadText
        var w: Workload
        do { w = try WorkloadDecoder.load(text, source: workloadSource, overrides: overrides) } catch {
            throw BadInput(description: error.description)
        }
        if let devices {
            guard devices >= 1 else { throw BadInput(description: "--devices: expected a whole number >= 1, got \(devices)") }
            w.fleet.devices = devices
        }
        if let duration {
            do { w.fleet.duration = try DurationText.parse(duration) } catch { throw BadInput(description: "--duration: \(error.description)") }
            guard w.fleet.duration > .zero else { throw BadInput(description: "--duration: must be longer than 0") }
        }
        if let seed { w.seed = seed }
        return w
    }

    /// The cells: the policies crossed with the RAM sizes.
    func cells(for w: Workload) throws -> [Cell] {
        let policyText = policy ?? w.run.policies.joined(separator: ",")
        var policies: [PolicyID] = []
        for name in policyText.split(separator: ",", omittingEmptySubsequences: false).map({ String($0).trimmingCharacters(in: .whitespaces) }) {
            if name == "all" {
                for p in PolicyID.all where !policies.contains(p) { policies.append(p) }
            } else if let p = PolicyID(rawValue: name) {
                if !policies.contains(p) { policies.append(p) }
            } else {
                throw BadInput(description: "--policy: '\(name)' is not a policy; expected all or one of \(PolicyRegistry.nameList) (see jetsim policies)")
            }
        }
        var rams: [Int64?] = []
        if let ram {
            for text in ram.split(separator: ",", omittingEmptySubsequences: false).map({ String($0).trimmingCharacters(in: .whitespaces) }) {
                guard let kb = SizeText.parseKB(text), kb >= 64 * 1_024 else {
                    throw BadInput(description: "--ram: '\(text)' is not \(SizeText.expected), of at least 64MB")
                }
                if !rams.contains(kb) { rams.append(kb) }
            }
        } else {
            rams = w.run.ramKB.isEmpty ? [nil] : w.run.ramKB.map { $0 }
        }
        for r in rams.compactMap({ $0 }) {
            for c in w.deviceClasses where c.parameters(ramKB: r).osReserveKB >= r {
                throw BadInput(description: "--ram: \(SizeText.mebibytes(r))MB leaves nothing beside the OS reserve of device class \(c.name)")
            }
        }
        return rams.flatMap { r in policies.map { Cell(policy: $0, ramKB: r) } }
    }

    func loadUsage() throws -> UsageReplay? {
        guard let usage else { return nil }
        do { return try UsageReplay.parse(try readInput(usage), source: usage) } catch let e as InputError {
            throw BadInput(description: e.description)
        }
    }
}
