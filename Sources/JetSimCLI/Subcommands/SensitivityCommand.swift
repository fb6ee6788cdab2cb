import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// `jetsim sensitivity`: the paired comparison at the low and high end of every
/// assumption's plausible range and of every group, one at a time (`Sensitivity`).
/// Each point is one run of the policies at one RAM, exactly as `jetsim run --ram R
/// --baseline B --set ...` with the point's values would write it; the points are
/// kept in DIR/points, so a stopped run resumes, and job arrays run them apart.
struct SensitivityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensitivity",
        abstract: "Rerun the paired comparison at the ends of every assumption's plausible range; say which deltas and rankings flip.",
        discussion: """
            The plausible ranges and groups are declared in the schema (jetsim validate \
            --keys, and Workloads/README.md). For each RAM size: one run as shipped (the \
            center), then for every key and group one run at the low end of its range and \
            one at the high end, the rest as shipped. Every run has every policy and the \
            same users (the seed), and compares each policy with --baseline device by \
            device. A point whose workload is the shipped one (a factor on a value of 0, \
            a key the workload does not use the value of) is not run again: it takes the \
            center's results.

            Writes DIR/points/I-LABEL.csv (each point's summary, as `jetsim run` writes \
            it), DIR/plan.txt, and DIR/sensitivity.csv: one row per RAM, metric (the \
            cold-relaunch ratio, mean and p99 relaunch latency, lost edits per \
            device-day), key or group, and policy, with the policy's paired delta and its \
            95% interval at the shipped value and at each end, how far it moves, whether \
            its sign flips (yes: both intervals exclude 0; within-ci: not clearly) and \
            whether the ranking of the policies by the metric flips. The table (stdout) \
            shows one metric (--metric), the keys and groups sorted by their largest move.

            Resuming, --list, --point I and --combine work as in `jetsim sweep`.
            """
    )

    @OptionGroup var sim: SimulationOptions
    @OptionGroup var execution: ExecutionOptions
    @OptionGroup var results: ResultOptions

    @Option(name: .long, help: ArgumentHelp("The directory for the points and sensitivity.csv (created if missing).", valueName: "dir"))
    var out: String?

    @Flag(name: .long, help: "Print the points (I, label, their --set values) and exit.")
    var list = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Run point I only (1-based, as --list numbers them), e.g. from a Slurm job array.", valueName: "I"))
    var point: Int?

    @Flag(name: .long, help: "Only write DIR/sensitivity.csv from the points that exist.")
    var combine = false

    @Option(name: .long, help: ArgumentHelp("The delta the table shows: \(Sensitivity.Metric.allCases.map(\.rawValue).joined(separator: ", ")) (default: cold_ratio). The CSV has every one.", valueName: "metric"),
            transform: { text in
                guard let m = Sensitivity.Metric(rawValue: text) else {
                    throw ValidationError("--metric: '\(text)' is not one of \(Sensitivity.Metric.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return m
            })
    var metric: Sensitivity.Metric = .coldRatio

    func validate() throws {
        if results.baseline == nil { throw ValidationError("--baseline POLICY is required (every delta is against it)") }
        if !list, out == nil || out == "-" { throw ValidationError("--out DIR is required (the points and sensitivity.csv go there)") }
        if [list, point != nil, combine].filter({ $0 }).count > 1 { throw ValidationError("--list, --point and --combine exclude each other") }
        if let point, point < 1 { throw ValidationError("--point: expected a whole number >= 1, got \(point)") }
        if sim.usage != nil { throw ValidationError("--usage: not in a sensitivity run (replayed users have no user.* keys to vary)") }
    }

    /// A point ready to run: its workload and cells, or the center it equals.
    struct Planned {
        var point: Sensitivity.Point
        var workload: Workload
        var cells: [Cell]
        /// The index (in `points`) of the center this point equals, when its workload
        /// is the shipped one.
        var sameAs: Int?
        var overrides: [String]
    }

    func run() throws {
        // Every point's inputs are checked before anything is created or run.
        let base = try sim.loadWorkload()
        let allCells = try sim.cells(for: base)
        var rams: [Int64?] = []
        for c in allCells where !rams.contains(c.ramKB) { rams.append(c.ramKB) }
        let points: [Sensitivity.Point]
        do { points = try Sensitivity.points(base, rams: rams) } catch { throw BadInput(description: error.description) }
        if let point, point > points.count {
            throw BadInput(description: "--point \(point): the run has \(points.count) point(s) (see --list)")
        }
        var planned: [Planned] = []
        var centerText: [Int: String] = [:]  // point index of a center -> its printed workload
        var centerOf = 0
        for p in points {
            let overrides = sim.overrides + p.sets
            let w: Workload
            do { w = try sim.loadWorkload(overrides: overrides) } catch let e as BadInput {
                throw BadInput(description: "point \(p.index) (\(p.label)): \(e.description)")
            }
            let cells = allCells.filter { $0.ramKB == p.ramKB }
            var check = RunPlan(workload: w, cells: cells, threads: 1)
            try results.apply(to: &check)
            if p.end == .center { centerOf = planned.count }
            let text = WorkloadPrinter.yaml(w)
            if p.end == .center { centerText[centerOf] = text }
            planned.append(Planned(point: p, workload: w, cells: cells, sameAs: p.end != .center && centerText[centerOf] == text ? centerOf : nil,
                                   overrides: overrides))
        }
        if list {
            for p in planned {
                let same = p.sameAs.map { "\t(= point \(planned[$0].point.index), the center)" } ?? ""
                print("\(p.point.index)\t\(p.point.label)\t" + p.point.sets.map { "--set \($0)" }.joined(separator: " ") + same)
            }
            return
        }
        let dir = out!
        let pointsDir = dir + "/points"
        do { try FileManager.default.createDirectory(atPath: pointsDir, withIntermediateDirectories: true) } catch {
            throw RunFailure(description: "cannot create \(pointsDir): \(error.localizedDescription)")
        }
        try checkPlan(dir: dir, points: points)
        if !combine {
            if point == nil { removeStaleTemporaries(in: pointsDir) }
            AtomicOutput.setInterruptNote("the points finished so far are kept in \(pointsDir); run the same command again to go on")
            let todo = planned.filter { p in (point == nil || p.point.index == point) && p.sameAs == nil }
            let done = todo.filter { FileManager.default.fileExists(atPath: pointsDir + "/" + $0.point.fileName) }.count
            say("sensitivity: \(todo.count) point(s) to run (\(planned.count - todo.count) equal to their center), \(done) already done")
            for p in todo { try runPoint(p, dir: pointsDir, of: points.count) }
        }
        if point == nil { try writeResult(dir: dir, planned: planned, base: base, allCells: allCells) }
    }

    func runPoint(_ p: Planned, dir: String, of total: Int) throws {
        let path = dir + "/" + p.point.fileName
        if FileManager.default.fileExists(atPath: path) { return }
        let started = ContinuousClock.now
        if let side = ProvenanceFile.sidecar(of: path) { try AtomicOutput.check(side) }
        let output = try OutputFile.open(path)
        var w = p.workload
        var plan = RunPlan(workload: w, cells: p.cells, threads: execution.threadCount)
        try results.apply(to: &plan)
        let (result, _) = try sim.runFleet(plan, workload: &w, stream: nil, catalog: AppCatalog(w))
        warnSaturated(result, w)
        let text = Summary.csv(workload: w, result: result, overrides: p.overrides)
        var prov = ProvenanceFile.base()
        prov.describe(workload: w, source: sim.workloadSource, cells: p.cells, overrides: p.overrides)
        prov.set("threads", .int(plan.threads))
        prov.set("baseline", .optional(plan.baseline?.rawValue))
        prov.set("sensitivity_point", .int(p.point.index))
        try ProvenanceFile.write(prov, beside: path, outputText: text)
        output.write(text)
        try output.commit()
        let s = started.duration(to: .now)
        say(String(format: "sensitivity: point %d/%d (%@) done in %.1f s", p.point.index, total, p.point.label,
                   Double(s.components.seconds) + Double(s.components.attoseconds) * 1e-18))
    }

    /// DIR/sensitivity.csv (and its provenance) from the points' summaries, and the
    /// table on stdout. Missing points: exit 1 naming them.
    func writeResult(dir: String, planned: [Planned], base: Workload, allCells: [Cell]) throws {
        var summaries: [Int: String] = [:]
        var missing: [String] = []
        var hashes: [(String, String)] = []
        for (i, p) in planned.enumerated() where p.sameAs == nil {
            let path = dir + "/points/" + p.point.fileName
            guard let data = FileManager.default.contents(atPath: path) else { missing.append(p.point.fileName); continue }
            let text = String(decoding: data, as: UTF8.self)
            guard Sensitivity.outcomes(summaryCSV: text) != nil else { throw RunFailure(description: "\(path): not a summary with a baseline") }
            summaries[i] = text
            hashes.append((p.point.fileName, Provenance.hash(text)))
        }
        if !missing.isEmpty {
            throw RunFailure(description: "\(missing.count) point(s) not done yet: \(missing.prefix(10).joined(separator: ", "))\(missing.count > 10 ? ", ..." : ""); run them (--point I), then --combine")
        }
        let baseline = results.baseline!.policy.rawValue
        var rows: [Sensitivity.Row] = []
        var i = 0
        while i < planned.count {
            let c = planned[i]
            var j = i + 1
            while j < planned.count, planned[j].point.end != .center { j += 2 }
            let label = Summary.ramLabel(c.cells[0], base)
            for metric in Sensitivity.Metric.allCases {
                func outcomes(_ k: Int) -> [Sensitivity.Outcome] {
                    Sensitivity.outcomes(summaryCSV: summaries[planned[k].sameAs ?? k]!, metric: metric)!
                }
                let ends = stride(from: i + 1, to: j, by: 2).map { k in (planned[k].point.variation!, low: outcomes(k), high: outcomes(k + 1)) }
                rows += Sensitivity.rows(ramLabel: label, baseline: baseline, metric: metric, center: outcomes(i), ends: ends)
            }
            i = j
        }
        let text = Sensitivity.csv(workload: base.name, rows: rows)
        let path = dir + "/sensitivity.csv"
        var prov = ProvenanceFile.base()
        prov.describe(workload: base, source: sim.workloadSource, cells: allCells, overrides: sim.overrides)
        prov.set("baseline", .string(baseline))
        prov.set("points", .array(hashes.map { f, h in .object([("file", .string("points/" + f)), ("fnv1a64", .string(h))]) }))
        try ProvenanceFile.write(prov, beside: path, outputText: text)
        try AtomicOutput.write(text, to: path)
        print(Sensitivity.table(workload: base.name, devices: base.fleet.devices, days: base.fleet.duration.seconds / 86_400,
                                baseline: baseline, rows: rows, metric: metric), terminator: "")
        say("sensitivity: wrote \(path) (\(rows.count) rows)")
    }

    func say(_ line: String) {
        if !execution.quiet { printError(line) }
    }

    /// DIR/plan.txt: the inputs and the points. A directory holding another run's
    /// points is refused, so that resuming never mixes two.
    func checkPlan(dir: String, points: [Sensitivity.Point]) throws {
        var text = "# jetsim sensitivity plan: the inputs every point shares, then one line per point\n"
        text += "workload: \(sim.workloadSource)\n"
        if let p = sim.policy { text += "policy: \(p.policies.map(\.rawValue).joined(separator: ","))\n" }
        if let r = sim.ram { text += "ram_mb: \(r.kilobytes.map(SizeText.mebibytes).joined(separator: ","))\n" }
        if let d = sim.devices { text += "devices: \(d)\n" }
        if let d = sim.duration { text += "duration: \(d.time)\n" }
        if let s = sim.seed { text += "seed: \(s)\n" }
        if let b = results.baseline { text += "baseline: \(b.policy.rawValue)\n" }
        for f in sim.overrides { text += "set: \(f)\n" }
        for p in points { text += "point \(p.index): \(p.label)\t" + p.sets.joined(separator: " ") + "\n" }
        let path = dir + "/plan.txt"
        if let existing = FileManager.default.contents(atPath: path) {
            guard String(decoding: existing, as: UTF8.self) == text else {
                throw BadInput(description: "\(dir) holds a different sensitivity run or sweep (see \(path)); use another --out, or remove it")
            }
            return
        }
        try AtomicOutput.write(text, to: path)
    }

    /// Temporary files of points that a killed run did not finish.
    func removeStaleTemporaries(in dir: String) {
        for f in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where f.hasPrefix(".") && f.contains(".tmp-") {
            unlink(dir + "/" + f)
        }
    }
}
