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
            device. A point whose workload is the shipped one as the model reads it (a \
            factor on a value of 0, a key the workload does not use the value of, a key \
            the classes' memory manager does not read: Android's on an iPhone class) is \
            not run again: it takes the center's results. An end that `jetsim run` would \
            refuse (its reserve not below the RAM, say) is refused before any point runs. \
            A key whose center or end gave no delta (no relaunches there: nan) is not \
            ranked: the table lists it last.

            Writes DIR/points/I-LABEL.csv (each point's summary, as `jetsim run` writes \
            it), DIR/plan.txt, and DIR/sensitivity.csv: one row per RAM, metric (the \
            cold-relaunch ratio, mean and p99 relaunch latency, lost edits per \
            device-day), key or group, and policy, with the policy's paired delta and its \
            95% interval at the shipped value and at each end, how far it moves, whether \
            its sign flips (yes: both intervals exclude 0; within-ci: not clearly) and \
            whether the ranking of the policies by the metric flips. The table (stdout) \
            shows one metric (--metric), the keys and groups sorted by their largest move.

            --interactions N screens for interactions: the N keys or groups that moved \
            the --metric most one at a time, in pairs, each pair at its four corners \
            (N(N-1)/2 x 4 more points per RAM, run once the one-at-a-time points are \
            done, numbered after them). DIR/interactions.csv gives, for each corner and \
            policy, the delta, what the two moves alone add up to, and the difference \
            (the interaction), with the same flip flags.

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

    @Option(name: .long, help: ArgumentHelp("The table shows this policy alone: its delta at each end of every key, whether its sign flips and the ranking flips it takes part in (default: the policy that moves most, a row per key).", valueName: "policy"),
            transform: BaselinePolicy.parse)
    var policyOfInterest: BaselinePolicy?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Also screen the N keys or groups that moved --metric most, in pairs at their four corners (0: no screening).", valueName: "N"),
            transform: { try wholeNumber($0, "a whole number from 0 to 20") })
    var interactions: Int = 0

    func validate() throws {
        if results.baseline == nil { throw ValidationError("--baseline POLICY is required (every delta is against it)") }
        if !list, out == nil || out == "-" { throw ValidationError("--out DIR is required (the points and sensitivity.csv go there)") }
        if [list, point != nil, combine].filter({ $0 }).count > 1 { throw ValidationError("--list, --point and --combine exclude each other") }
        if let point, point < 1 { throw ValidationError("--point: expected a whole number >= 1, got \(point)") }
        if sim.usage != nil { throw ValidationError("--usage: not in a sensitivity run (replayed users have no user.* keys to vary)") }
        if !results.compareSets.isEmpty { throw ValidationError("--compare-set: not in a sensitivity run (its points vary the keys themselves)") }
        if let p = policyOfInterest?.policy, let b = results.baseline?.policy, p == b {
            throw ValidationError("--policy-of-interest \(p.rawValue): the baseline's delta is 0 everywhere; name another policy")
        }
        if !(0...20).contains(interactions) { throw ValidationError("--interactions: expected a whole number from 0 to 20, got \(interactions)") }
    }

    /// A point ready to run: its workload and cells, or the center it equals.
    struct Planned {
        var point: Sensitivity.Point
        var workload: Workload
        var cells: [Cell]
        /// The index (in `points`) of the center this point equals, when its workload
        /// is the shipped one as the model reads it (`DeviceClass.withUnreadKeysAtDefaults`).
        var sameAs: Int?
        var overrides: [String]
    }

    func run() throws {
        // Every point's inputs are checked before anything is created or run (the
        // corners of --interactions, chosen from the one-at-a-time results, before
        // any corner runs).
        let base = try sim.loadWorkload()
        let allCells = try sim.cells(for: base)
        var rams: [Int64?] = []
        for c in allCells where !rams.contains(c.ramKB) { rams.append(c.ramKB) }
        let points: [Sensitivity.Point]
        do { points = try Sensitivity.points(base, rams: rams) } catch { throw BadInput(description: error.description) }
        let planned = try plan(points, allCells: allCells)
        // Each point's sidecar names this plan: a point of another run is refused.
        let planHash = PointsDirectory.planHash(try planText(points: points))
        let pointsDir = out.map { $0 + "/points" }
        if list {
            for p in planned { print(listLine(p, planned)) }
            if interactions > 0 {
                if let pointsDir, let corners = try corners(planned, base: base, allCells: allCells, dir: pointsDir, planHash: planHash, skipping: false) {
                    for p in corners { print(listLine(p, planned)) }
                } else {
                    printError("sensitivity: the corners of --interactions are listed once the one-at-a-time points are done (with --out DIR)")
                }
            }
            return
        }
        if let point, point > points.count, interactions == 0 {
            throw BadInput(description: "--point \(point): the run has \(points.count) point(s) (see --list)")
        }
        let dir = out!
        _ = try PointsDirectory.prepare(dir)
        try checkPlan(dir: dir, points: points)
        if !combine {
            // Temporary files of points whose process died (none that another jetsim writes).
            AtomicOutput.removeStaleTemporaries(in: pointsDir!)
            AtomicOutput.setInterruptNote("the points finished so far are kept in \(pointsDir!); run the same command again to go on")
            try runAll(planned, dir: pointsDir!, planHash: planHash, total: points.count)
        }
        var corners: [Planned] = []
        if interactions > 0, point == nil || point! > points.count {
            guard let c = try self.corners(planned, base: base, allCells: allCells, dir: pointsDir!, planHash: planHash, skipping: true) else {
                throw RunFailure(description: "--interactions: the one-at-a-time points are not all done yet; run them first (or without --point)")
            }
            corners = c
            if let point, point > points.count + corners.count {
                throw BadInput(description: "--point \(point): the run has \(points.count + corners.count) point(s) (see --list)")
            }
            if !combine { try runAll(corners, dir: pointsDir!, planHash: planHash, total: points.count + corners.count) }
        }
        if point == nil { try writeResult(dir: dir, planned: planned, corners: corners, base: base, allCells: allCells, planHash: planHash) }
    }

    /// Checks and plans `points`: each one's workload (bad input names the point) and
    /// whether it equals its RAM's center.
    func plan(_ points: [Sensitivity.Point], allCells: [Cell], centers: [Int64?: (index: Int, text: String)] = [:]) throws -> [Planned] {
        var planned: [Planned] = []
        var centers = centers
        for p in points {
            let overrides = sim.overrides + p.sets
            let w: Workload
            do { w = try sim.loadWorkload(overrides: overrides) } catch let e as BadInput {
                throw BadInput(description: "point \(p.index) (\(p.label)): \(e.description)")
            }
            let cells = allCells.filter { $0.ramKB == p.ramKB }
            // The checks `run` makes of each cell's RAM with this point's values: an end
            // that a run would refuse (its reserve not below the RAM: its row came out
            // nan and the ranking left the key out) is refused here, before any work.
            if let why = w.cellProblem(ramKB: p.ramKB) {
                throw BadInput(description: "point \(p.index) (\(p.label)): a run would refuse this end (\(why)); sensitivity refuses it before any point runs: give a larger --ram, or a workload whose values leave the ends room")
            }
            var check = RunPlan(workload: w, cells: cells, threads: 1)
            try results.apply(to: &check)
            // Compared as the model reads it: a key the class's memory manager does not
            // read (an Android key on an iPhone class) leaves the point its center's.
            var read = w
            read.deviceClasses = w.deviceClasses.map { $0.withUnreadKeysAtDefaults() }
            let text = WorkloadPrinter.yaml(read)
            if p.end == .center, p.second == nil { centers[p.ramKB] = (planned.count, text) }
            let same = p.end == .center && p.second == nil ? nil : centers[p.ramKB].flatMap { $0.text == text ? $0.index : nil }
            planned.append(Planned(point: p, workload: w, cells: cells, sameAs: same, overrides: overrides))
        }
        return planned
    }

    func listLine(_ p: Planned, _ planned: [Planned]) -> String {
        let same = p.sameAs.map { "\t(= point \(planned[$0].point.index), the center)" } ?? ""
        return "\(p.point.index)\t\(p.point.label)\t" + p.point.sets.map { "--set \($0)" }.joined(separator: " ") + same
    }

    /// Runs the points of `planned` this invocation runs (all, or --point's), skipping
    /// those done and those equal to their center.
    func runAll(_ planned: [Planned], dir: String, planHash: String, total: Int) throws {
        let todo = planned.filter { p in (point == nil || p.point.index == point) && p.sameAs == nil }
        guard !todo.isEmpty || point == nil else { return }
        let done = todo.filter { FileManager.default.fileExists(atPath: dir + "/" + $0.point.fileName) }.count
        let kind = planned.first?.point.second == nil ? "point(s)" : "corner point(s)"
        say("sensitivity: \(todo.count) \(kind) to run (\(planned.count - todo.count) equal to their center), \(done) already done")
        for p in todo { try runPoint(p, dir: dir, planHash: planHash, of: total) }
    }

    /// The corners of --interactions, planned after the one-at-a-time points (in
    /// `planned`, whose summaries must all be in `dir`; nil when some are missing).
    /// A pair one of whose corners the workload refuses (two shares over 1 together)
    /// is left out and named on stderr when `skipping`.
    func corners(_ planned: [Planned], base: Workload, allCells: [Cell], dir: String, planHash: String, skipping: Bool) throws -> [Planned]? {
        guard let summaries = try readSummaries(planned, dir: dir, planHash: planHash, failing: false) else { return nil }
        var out: [Planned] = []
        var centers: [Int64?: (index: Int, text: String)] = [:]
        var next = planned.count + 1
        for block in blocks(planned) {
            let c = planned[block.center]
            centers[c.point.ramKB] = (block.center, WorkloadPrinter.yaml(c.workload))
            let rows = singleRows(planned, block: block, summaries: summaries, metric: metric, base: base)
            let top = Sensitivity.strongest(rows, metric: metric, count: interactions)
            for (a, b) in Sensitivity.pairs(top) {
                let pts = Sensitivity.corners([(a, b)], ramKB: c.point.ramKB, first: next)
                do {
                    out += try plan(pts, allCells: allCells, centers: centers)
                    next += pts.count
                } catch let e as BadInput {
                    if skipping { say("sensitivity: --interactions: the pair \(a.name), \(b.name) is left out: \(e.description)") }
                }
            }
        }
        // A corner equal to the center: its index is the center's in `planned`.
        return out
    }

    /// The one-at-a-time points of each RAM: its center's index and its variations' (low, high) indices.
    func blocks(_ planned: [Planned]) -> [(center: Int, ends: [(Int, Int)])] {
        var out: [(center: Int, ends: [(Int, Int)])] = []
        var i = 0
        while i < planned.count {
            var j = i + 1
            var ends: [(Int, Int)] = []
            while j + 1 < planned.count, planned[j].point.end != .center { ends.append((j, j + 1)); j += 2 }
            out.append((i, ends))
            i = j
        }
        return out
    }

    /// The summaries of the points that were run, by index in `planned`; nil (or a
    /// failure naming them, with `failing`) when some are missing. Each must check
    /// out against its sidecar (`PointsDirectory.check`): its bytes, this plan, its
    /// point number.
    func readSummaries(_ planned: [Planned], dir: String, planHash: String, failing: Bool) throws -> [Int: String]? {
        var summaries: [Int: String] = [:]
        var missing: [String] = []
        for (i, p) in planned.enumerated() where p.sameAs == nil {
            let path = dir + "/" + p.point.fileName
            guard let data = FileManager.default.contents(atPath: path) else { missing.append(p.point.fileName); continue }
            let text = String(decoding: data, as: UTF8.self)
            try PointsDirectory.check(point: path, index: p.point.index, text: text, planHash: planHash, kind: "sensitivity")
            guard Sensitivity.outcomes(summaryCSV: text) != nil else { throw RunFailure(description: "\(path): not a summary with a baseline") }
            summaries[i] = text
        }
        if !missing.isEmpty {
            guard failing else { return nil }
            throw RunFailure(description: "\(missing.count) point(s) not done yet: \(missing.prefix(10).joined(separator: ", "))\(missing.count > 10 ? ", ..." : ""); run them (--point I), then --combine")
        }
        return summaries
    }

    /// One RAM's one-at-a-time rows for `metric`.
    func singleRows(_ planned: [Planned], block: (center: Int, ends: [(Int, Int)]), summaries: [Int: String], metric: Sensitivity.Metric,
                    base: Workload) -> [Sensitivity.Row] {
        func outcomes(_ k: Int) -> [Sensitivity.Outcome] {
            Sensitivity.outcomes(summaryCSV: summaries[planned[k].sameAs ?? k]!, metric: metric)!
        }
        let ends = block.ends.map { lo, hi in (planned[lo].point.variation!, low: outcomes(lo), high: outcomes(hi)) }
        // Both ends the center's workload as the model reads it: the row cannot move.
        let unmoved = Set(block.ends.filter { lo, hi in planned[lo].sameAs != nil && planned[hi].sameAs != nil }
                                    .map { lo, _ in planned[lo].point.variation!.name })
        return Sensitivity.rows(ramLabel: Summary.ramLabel(planned[block.center].cells[0], base), baseline: results.baseline!.policy.rawValue,
                                metric: metric, center: outcomes(block.center), ends: ends, unmoved: unmoved)
    }

    func runPoint(_ p: Planned, dir: String, planHash: String, of total: Int) throws {
        let path = dir + "/" + p.point.fileName
        if let data = FileManager.default.contents(atPath: path) {
            // Done, if it checks out against its sidecar.
            return try PointsDirectory.check(point: path, index: p.point.index, text: String(decoding: data, as: UTF8.self),
                                             planHash: planHash, kind: "sensitivity")
        }
        let started = ContinuousClock.now
        if let side = ProvenanceFile.sidecar(of: path) { try AtomicOutput.check(side) }
        let output = try OutputFile.open(path)
        var w = p.workload
        var plan = RunPlan(workload: w, cells: p.cells, threads: execution.threadCount)
        try results.apply(to: &plan)
        let externalHashes = ProvenanceFile.externalHashes(w, cells: p.cells)
        try PointsDirectory.checkUnchanged(externalHashes, workload: w)
        let (result, _, _) = try sim.runFleet(plan, workload: &w, stream: nil, catalog: AppCatalog(w))
        warnSaturated(result, w)
        let text = Summary.csv(workload: w, result: result, overrides: p.overrides)
        var prov = ProvenanceFile.base()
        prov.describe(workload: w, source: sim.workloadSource, cells: p.cells, overrides: p.overrides)
        prov.set("threads", .int(plan.threads))
        prov.set("baseline", .optional(plan.baseline?.rawValue))
        ProvenanceFile.record(external: externalHashes, workload: w, in: &prov)
        prov.set("sensitivity_point", .int(p.point.index))
        prov.set("sensitivity_plan_fnv1a64", .string(planHash))
        output.write(text)
        try OutputFile.commitAll([try ProvenanceFile.stage(prov, beside: output, outputText: text), output])
        let s = started.duration(to: .now)
        say(String(format: "sensitivity: point %d/%d (%@) done in %.1f s", p.point.index, total, p.point.label,
                   Double(s.components.seconds) + Double(s.components.attoseconds) * 1e-18))
    }

    /// DIR/sensitivity.csv (and its provenance) from the points' summaries, with
    /// --interactions DIR/interactions.csv, and the tables on stdout. Missing points:
    /// exit 1 naming them.
    func writeResult(dir: String, planned: [Planned], corners: [Planned], base: Workload, allCells: [Cell], planHash: String) throws {
        let summaries = try readSummaries(planned, dir: dir + "/points", planHash: planHash, failing: true)!
        let cornerSummaries = try readSummaries(corners, dir: dir + "/points", planHash: planHash, failing: true)!
        let baseline = results.baseline!.policy.rawValue
        var rows: [Sensitivity.Row] = []
        var pairRows: [Sensitivity.InteractionRow] = []
        for block in blocks(planned) {
            for m in Sensitivity.Metric.allCases {
                rows += singleRows(planned, block: block, summaries: summaries, metric: m, base: base)
            }
            // The corners of this RAM, against its one-at-a-time outcomes (metric: --metric's).
            let ram = planned[block.center].point.ramKB
            func outcomes(_ text: String) -> [Sensitivity.Outcome] { Sensitivity.outcomes(summaryCSV: text, metric: metric)! }
            var single: [String: (low: [Sensitivity.Outcome], high: [Sensitivity.Outcome])] = [:]
            for (lo, hi) in block.ends {
                single[planned[lo].point.variation!.name] = (outcomes(summaries[planned[lo].sameAs ?? lo]!), outcomes(summaries[planned[hi].sameAs ?? hi]!))
            }
            let mine = corners.enumerated().filter { $0.element.point.ramKB == ram }.map { i, c in
                (c.point, outcomes(c.sameAs.map { summaries[$0]! } ?? cornerSummaries[i]!))
            }
            pairRows += Sensitivity.interactionRows(ramLabel: Summary.ramLabel(planned[block.center].cells[0], base), baseline: baseline, metric: metric,
                                                    center: outcomes(summaries[block.center]!), single: single, corners: mine)
        }
        var prov = ProvenanceFile.base()
        prov.describe(workload: base, source: sim.workloadSource, cells: allCells, overrides: sim.overrides)
        prov.set("baseline", .string(baseline))
        func hashes(_ ps: [Planned], _ texts: [Int: String]) -> Provenance.Value {
            .array(ps.enumerated().compactMap { i, p in
                texts[i].map { .object([("file", .string("points/" + p.point.fileName)), ("fnv1a64", .string(Provenance.hash($0)))]) }
            })
        }
        prov.set("points", hashes(planned, summaries))
        let text = Sensitivity.csv(workload: base.name, rows: rows)
        // sensitivity.csv and interactions.csv with their sidecars, moved together.
        let csvFile = try OutputFile.open(dir + "/sensitivity.csv")
        csvFile.write(text)
        var files: [OutputFile?] = [try ProvenanceFile.stage(prov, beside: csvFile, outputText: text), csvFile]
        var table: String
        if let p = policyOfInterest?.policy {
            guard rows.contains(where: { $0.center.policy == p.rawValue }) else {
                throw BadInput(description: "--policy-of-interest \(p.rawValue): not among the policies run (\(Array(Set(rows.map(\.center.policy))).sorted().joined(separator: ",")))")
            }
            table = Sensitivity.policyTable(workload: base.name, devices: base.fleet.devices, days: base.fleet.duration.seconds / 86_400,
                                            baseline: baseline, rows: rows, metric: metric, policy: p.rawValue)
        } else {
            table = Sensitivity.table(workload: base.name, devices: base.fleet.devices, days: base.fleet.duration.seconds / 86_400,
                                      baseline: baseline, rows: rows, metric: metric)
        }
        if interactions > 0 {
            var pairProv = prov
            pairProv.set("interactions", .int(interactions))
            pairProv.set("metric", .string(metric.rawValue))
            pairProv.set("corner_points", hashes(corners, cornerSummaries))
            let pairText = Sensitivity.interactionCSV(workload: base.name, rows: pairRows)
            let pairFile = try OutputFile.open(dir + "/interactions.csv")
            pairFile.write(pairText)
            files += [try ProvenanceFile.stage(pairProv, beside: pairFile, outputText: pairText), pairFile]
            table += Sensitivity.interactionTable(rows: pairRows)
        }
        try OutputFile.commitAll(files)
        // On a terminal narrower than the table, the columns that do not fit are named
        // under it (as `run`'s); piped, the table is whole.
        if isatty(STDOUT_FILENO) == 1, let width = Terminal.width(STDOUT_FILENO) { table = Terminal.fit(table: table, width: width) }
        print(table, terminator: "")
        say("sensitivity: wrote \(dir)/sensitivity.csv (\(rows.count) rows)" + (interactions > 0 ? " and interactions.csv (\(pairRows.count) rows)" : ""))
    }

    func say(_ line: String) {
        if !execution.quiet { printError(line) }
    }

    /// DIR/plan.txt: the inputs and the points. A directory holding another run's
    /// points is refused, so that resuming never mixes two.
    func checkPlan(dir: String, points: [Sensitivity.Point]) throws {
        try PointsDirectory.checkPlan(dir: dir, text: try planText(points: points), what: "sensitivity run or sweep")
    }

    /// DIR/plan.txt's text.
    func planText(points: [Sensitivity.Point]) throws -> String {
        var text = PointsDirectory.heading("sensitivity")
        text += "workload: \(sim.workloadSource)\n"
        // The points vary keys with plausible ranges, never an external policy's command.
        text += try PointsDirectory.inputLines(sim, workloads: [try sim.loadWorkload()])
        if let p = sim.policy { text += "policy: \(p.policies.map(\.rawValue).joined(separator: ","))\n" }
        if let r = sim.ram { text += "ram_mb: \(r.kilobytes.map(SizeText.mebibytes).joined(separator: ","))\n" }
        if let d = sim.devices { text += "devices: \(d)\n" }
        if let d = sim.duration { text += "duration: \(d.time)\n" }
        if let s = sim.seed { text += "seed: \(s)\n" }
        if let b = results.baseline { text += "baseline: \(b.policy.rawValue)\n" }
        for f in sim.overrides { text += "set: \(f)\n" }
        for p in points { text += "point \(p.index): \(p.label)\t" + p.sets.joined(separator: " ") + "\n" }
        return text
    }
}
