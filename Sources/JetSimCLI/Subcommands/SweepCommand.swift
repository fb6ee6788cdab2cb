import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// `jetsim sweep`: the cross product of value lists for workload keys, each point run
/// with every policy x RAM cell in one process (the cells of a point share the users'
/// timelines, as in `run`).
struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Run the cross product of value lists for workload keys; one CSV per point and a combined CSV.",
        discussion: """
            Every --set KEY=V1,V2,... with several values is an axis (commas inside [..] or \
            {..} do not split); the points are the cross product of the axes, the first \
            axis varying slowest. Each point is one run of every policy x RAM cell, \
            written to DIR/points/I-LABEL.csv exactly as `jetsim run` with those --set \
            values would write it; DIR/combined.csv has every point's rows under one \
            header (the `overrides` column says which values made each row), and \
            DIR/plan.txt lists the points. With --timeseries, each point also writes \
            DIR/points/I-LABEL.timeseries.csv (as `jetsim run --timeseries` would), before \
            its CSV.

            Resuming: a point whose CSV exists is done (it is renamed into place only when \
            complete) and is not run again, so stopping a sweep and starting the same \
            command again loses nothing and repeats nothing. A different sweep in the \
            same DIR is refused, and so is the same sweep once a file it reads changed \
            (DIR/plan.txt records the bytes of the workload, the usage trace, the app map \
            and each external policy's files).

            For job arrays: --list prints the points, --point I runs point I only, and \
            --combine writes DIR/combined.csv from the points that exist (exit 1 naming \
            the missing ones).
            """
    )

    @OptionGroup var sim: SimulationOptions
    @OptionGroup var execution: ExecutionOptions
    @OptionGroup var results: ResultOptions

    @Option(name: .long, help: ArgumentHelp("The sweep's directory (created if missing).", valueName: "dir"))
    var out: String?

    @Flag(name: .long, help: "Print the points (I, label, their --set values) and exit.")
    var list = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Run point I only (1-based, as --list numbers them), e.g. from a Slurm job array.", valueName: "I"))
    var point: Int?

    @Flag(name: .long, help: "Only write DIR/combined.csv from the points' CSVs that exist.")
    var combine = false

    @Flag(name: .long, help: "Also write each point's hourly series (as run --timeseries) to DIR/points/I-LABEL.timeseries.csv. Not with --usage.")
    var timeseries = false

    @Option(name: .long, help: ArgumentHelp("Also split every point's cells by class, archetype or app (as run --by) into DIR/points/I-LABEL.by.csv, and all points' rows into DIR/combined.by.csv.", valueName: "grouping"))
    var by: GroupByArgument?

    /// One point: its position, label, and the --set values of its axes.
    struct Point {
        var index: Int   // 1-based
        var sets: [String]
        var label: String {
            let text = sets.joined(separator: "_")
            // At most 120 bytes (not characters: a letter may take 4), so that the longest
            // file of a point, `I-LABEL.timeseries.csv.provenance.json`, stays within a
            // file name's 255 bytes.
            var safe = ""
            for c in text.map({ $0.isLetter || $0.isNumber || "._=+-".contains($0) ? $0 : "-" }) {
                if safe.utf8.count + String(c).utf8.count > 120 { break }
                safe.append(c)
            }
            return safe.isEmpty ? "all" : safe
        }
        var fileName: String { "\(index)-\(label).csv" }
        var seriesFileName: String { "\(index)-\(label).timeseries.csv" }
        var byFileName: String { "\(index)-\(label).by.csv" }
    }

    func validate() throws {
        if !list, out == nil || out == "-" { throw ValidationError("--out DIR is required (the sweep writes a directory)") }
        if [list, point != nil, combine].filter({ $0 }).count > 1 { throw ValidationError("--list, --point and --combine exclude each other") }
        if let point, point < 1 { throw ValidationError("--point: expected a whole number >= 1, got \(point)") }
        if timeseries, sim.usage != nil { throw ValidationError("--timeseries: not with --usage (replayed devices run for different spans)") }
        if by?.grouping == .archetype, sim.usage != nil, sim.appMap == nil {
            throw ValidationError("--by archetype: with --usage, give --app-map FILE.csv too (it says which archetype each replayed app is)")
        }
        if !results.compareSets.isEmpty, sim.usage != nil { throw ValidationError("--compare-set: not with --usage (variants run on the synthetic users)") }
        if !results.compareSets.isEmpty, timeseries { throw ValidationError("--compare-set: not with --timeseries (the hourly series has no variant column)") }
    }

    /// The fixed --set values (one value each) and the axes (several values each).
    func axes() throws -> (fixed: [String], axes: [[String]]) {
        var fixed: [String] = [], axes: [[String]] = []
        var given: [String: String] = [:]  // each key's --set, to refuse a key given twice
        for text in sim.overrides {
            let o = try Override.parse(text)
            if let other = given[o.key] {
                throw BadInput(description: "--set \(text): \(o.key) is already given (--set \(other)); give each key once, with all its values in one list")
            }
            given[o.key] = text
            let values = splitTopLevel(o.value)
            if values.contains(where: \.isEmpty) { throw BadInput(description: "--set \(text): an empty value in the list") }
            if values.count == 1 { fixed.append(text) } else { axes.append(values.map { o.key + "=" + $0 }) }
        }
        return (fixed, axes)
    }

    func points() throws -> [Point] {
        var combos: [[String]] = [[]]
        for axis in try axes().axes {
            combos = combos.flatMap { prefix in axis.map { prefix + [$0] } }
        }
        return combos.enumerated().map { Point(index: $0.offset + 1, sets: $0.element) }
    }

    func run() throws {
        let points = try points()
        let fixed = try axes().fixed
        if list {
            for p in points { print("\(p.index)\t\(p.label)\t" + p.sets.map { "--set \($0)" }.joined(separator: " ")) }
            return
        }
        if let point, point > points.count {
            throw BadInput(description: "--point \(point): the sweep has \(points.count) point(s) (see --list)")
        }
        // Check the inputs of every point before creating anything or running any.
        var workloads: [(Point, Workload, [Cell])] = []
        if !combine {
            for p in points where point == nil || p.index == point {
                let w = try sim.loadWorkload(overrides: fixed + p.sets)
                let cells = try sim.cells(for: w)
                var check = RunPlan(workload: w, cells: cells, threads: 1)
                try results.apply(to: &check)
                check.groupBy = by?.grouping
                do { try SimulationOptions.checkGroups(check) } catch let e as BadInput {
                    throw BadInput(description: "point \(p.index) (\(p.label)): " + e.description)
                }
                if timeseries, let why = HourlySeries.refusal(cells: cells.count, duration: w.fleet.duration, threads: execution.threadCount) {
                    throw BadInput(description: "--timeseries: point \(p.index) (\(p.label)): " + why)
                }
                workloads.append((p, w, cells))
            }
            _ = try sim.usage.map(sim.openUsage)
            for (_, w, _) in workloads { _ = try sim.loadAppMap(w, catalog: AppCatalog(w)) }
            try sim.checkUsageDevices()
        }
        let dir = out!
        // Every file the sweep may write: no name too long, none an input.
        var files = [dir + "/plan.txt", dir + "/combined.csv", dir + "/combined.csv.provenance.json"]
            + (by != nil ? [dir + "/combined.by.csv", dir + "/combined.by.csv.provenance.json"] : [])
        for p in points {
            let path = dir + "/points/" + p.fileName, series = dir + "/points/" + p.seriesFileName, byPath = dir + "/points/" + p.byFileName
            files += [path, ProvenanceFile.path(for: path)] + (timeseries ? [series, ProvenanceFile.path(for: series)] : [])
                + (by != nil ? [byPath, ProvenanceFile.path(for: byPath)] : [])
        }
        for f in files { try AtomicOutput.checkName(f) }
        try OutputFile.checkNotInputs(files.map { ("--out \(dir): the sweep's file", $0) }, inputs: sim.inputs)
        let pointsDir = try PointsDirectory.prepare(dir)
        let planHash = try checkPlan(dir: dir, points: points, fixed: fixed)
        // Temporary files of points whose process died (none that another jetsim writes).
        AtomicOutput.removeStaleTemporaries(in: pointsDir)
        AtomicOutput.removeStaleTemporaries(in: dir)
        if combine { return try writeCombined(dir: dir, points: points, planHash: planHash) }
        AtomicOutput.setInterruptNote("the points finished so far are kept in \(pointsDir); run the same command again to go on")
        // A point is done when its CSV is there and checks out against its sidecar.
        var done: Set<Int> = []
        for (p, _, _) in workloads {
            let path = pointsDir + "/" + p.fileName
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            try PointsDirectory.check(point: path, index: p.index, text: String(decoding: data, as: UTF8.self), planHash: planHash)
            done.insert(p.index)
        }
        say("sweep: \(workloads.count) point(s), \(done.count) already done, \(workloads.count - done.count) to run")
        for (p, var w, cells) in workloads {
            let path = pointsDir + "/" + p.fileName
            if done.contains(p.index) { continue }
            let started = ContinuousClock.now
            // Every file of the point is checked before its run: the series and the
            // sidecars (written beside them after the run), then its CSV (opened), so a
            // refused sidecar leaves no temporary CSV behind.
            let seriesPath = pointsDir + "/" + p.seriesFileName, byPath = pointsDir + "/" + p.byFileName
            for other in [ProvenanceFile.sidecar(of: path)] + (timeseries ? [seriesPath, ProvenanceFile.sidecar(of: seriesPath)] : [])
                + (by != nil ? [byPath, ProvenanceFile.sidecar(of: byPath)] : []) {
                if let other { try AtomicOutput.check(other) }
            }
            let output = try OutputFile.open(path)
            var plan = RunPlan(workload: w, cells: cells, threads: execution.threadCount)
            try results.apply(to: &plan)
            plan.timeSeries = timeseries
            plan.groupBy = by?.grouping
            sim.warnNamedFit(plan)
            let stream = try sim.usage.map(sim.openUsage)
            let externalHashes = ProvenanceFile.externalHashes(w, cells: cells)
            try PointsDirectory.checkUnchanged(externalHashes, workload: w)
            let (result, _, replayApps) = try sim.runFleet(plan, workload: &w, stream: stream, catalog: AppCatalog(w))
            warnSaturated(result, w)
            let text = Summary.csv(workload: w, result: result, overrides: fixed + p.sets)
            var prov = ProvenanceFile.base()
            prov.describe(workload: w, source: sim.workloadSource, cells: cells, overrides: fixed + p.sets)
            prov.set("threads", .int(plan.threads))
            prov.set("baseline", .optional(plan.baseline?.rawValue))
            if !plan.variants.isEmpty { prov.set("compare_set", .strings(plan.variants.map(\.label))) }
            prov.set("by", .optional(plan.groupBy?.rawValue))
            prov.set("usage", .optional(sim.usage))
            sim.recordReplay(replayApps, in: &prov)
            ProvenanceFile.record(external: externalHashes, workload: w, in: &prov)
            prov.set("sweep_point", .int(p.index))
            prov.set("sweep_plan_fnv1a64", .string(planHash))
            // The series and the sidecars first, all moved into place together: a
            // point's CSV on disk (which marks it done) has its provenance and series.
            var files: [OutputFile?] = []
            if timeseries, let series = result.series {
                let seriesText = series.csv(workload: w, cells: cells)
                files.append(try ProvenanceFile.stage(prov, beside: seriesPath, outputText: seriesText))
                let seriesFile = try OutputFile.open(seriesPath)
                seriesFile.write(seriesText)
                files.append(seriesFile)
            }
            if by != nil, let byText = Breakdown.csv(workload: w, result: result) {
                files.append(try ProvenanceFile.stage(prov, beside: byPath, outputText: byText))
                let byFile = try OutputFile.open(byPath)
                byFile.write(byText)
                files.append(byFile)
            }
            files.append(try ProvenanceFile.stage(prov, beside: path, outputText: text))
            output.write(text)
            files.append(output)
            try OutputFile.commitAll(files)
            let s = started.duration(to: .now)
            say(String(format: "sweep: point %d/%d (%@) done in %.1f s", p.index, points.count, p.label,
                       Double(s.components.seconds) + Double(s.components.attoseconds) * 1e-18))
        }
        if point == nil { try writeCombined(dir: dir, points: points, planHash: planHash) }
    }

    func say(_ line: String) {
        if !execution.quiet { printError(line) }
    }

    /// DIR/plan.txt: what this sweep computes. A directory holding another sweep's
    /// points is refused, so that resuming never mixes two sweeps.
    func checkPlan(dir: String, points: [Point], fixed: [String]) throws -> String {
        var text = PointsDirectory.heading("sweep")
        text += "workload: \(sim.workloadSource)\n"
        // Every point's workload, for the external policies they run (a point may set
        // another command): the same plan whichever points this invocation runs.
        text += try PointsDirectory.inputLines(sim, workloads: points.map { try sim.loadWorkload(overrides: fixed + $0.sets) })
        if let p = sim.policy { text += "policy: \(p.policies.map(\.rawValue).joined(separator: ","))\n" }
        if let r = sim.ram { text += "ram_mb: \(r.kilobytes.map(SizeText.mebibytes).joined(separator: ","))\n" }
        if let d = sim.devices { text += "devices: \(d)\n" }
        if let d = sim.duration { text += "duration: \(d.time)\n" }
        if let s = sim.seed { text += "seed: \(s)\n" }
        if let u = sim.usage { text += "usage: \(u)\n" }
        if let m = sim.appMap { text += "app-map: \(m)\n" }
        if sim.usageFormat.given { text += "usage-format: \(sim.usageFormat.description)\n" }
        if let s = sim.sample { text += "sample-devices: \(s.fraction)\n" }
        if let b = results.baseline { text += "baseline: \(b.policy.rawValue)\n" }
        for c in results.compareSets { text += "compare-set: \(c)\n" }
        if let by { text += "by: \(by.grouping.rawValue)\n" }
        if timeseries { text += "timeseries: yes\n" }
        for f in fixed { text += "set: \(f)\n" }
        for p in points { text += "point \(p.index): \(p.label)\t" + p.sets.joined(separator: " ") + "\n" }
        try PointsDirectory.checkPlan(dir: dir, text: text, what: "sweep")
        return PointsDirectory.planHash(text)
    }

    /// Every point's rows under one header, in point order (with --by, the
    /// breakdowns' too, into combined.by.csv).
    func writeCombined(dir: String, points: [Point], planHash: String) throws {
        try writeCombined(dir: dir, points: points, planHash: planHash, file: \.fileName, to: "combined.csv", overrides: nil)
        // A breakdown row has no overrides column: the point's --set values are appended.
        if by != nil { try writeCombined(dir: dir, points: points, planHash: planHash, file: \.byFileName, to: "combined.by.csv", overrides: try axes().fixed) }
    }

    func writeCombined(dir: String, points: [Point], planHash: String, file: KeyPath<Point, String>, to name: String, overrides fixed: [String]?) throws {
        var header: String? = nil
        var body = ""
        var missing: [String] = []
        var hashes: [String] = []  // each point's, read once
        for p in points {
            let path = dir + "/points/" + p[keyPath: file]
            guard let data = FileManager.default.contents(atPath: path) else { missing.append(p[keyPath: file]); continue }
            let text = String(decoding: data, as: UTF8.self)
            try PointsDirectory.check(point: path, index: p.index, text: text, planHash: planHash)
            hashes.append(Provenance.hash(text))
            guard let nl = text.firstIndex(of: "\n") else { throw RunFailure(description: "\(path): empty") }
            let h = String(text[..<nl])
            if header == nil { header = h }
            guard h == header else { throw RunFailure(description: "\(path) has a different header from the other points") }
            if let fixed {
                let tag = "," + CSV.escape((fixed + p.sets).joined(separator: ";"))
                for line in text[text.index(after: nl)...].split(separator: "\n") { body += line + tag + "\n" }
            } else {
                body += text[text.index(after: nl)...]
            }
        }
        if !missing.isEmpty {
            throw RunFailure(description: "\(missing.count) point(s) not done yet: \(missing.joined(separator: ", ")); run them (--point I), then --combine")
        }
        let text = (header ?? Summary.header) + (fixed != nil ? ",overrides" : "") + "\n" + body
        var prov = ProvenanceFile.base()
        prov.set("points", .array(zip(points, hashes).map { p, hash in
            .object([("file", .string("points/" + p[keyPath: file])), ("fnv1a64", .string(hash)), ("sets", .strings(p.sets))])
        }))
        let combined = try OutputFile.open(dir + "/" + name)
        combined.write(text)
        try OutputFile.commitAll([try ProvenanceFile.stage(prov, beside: combined, outputText: text), combined])
        say("sweep: wrote \(dir)/\(name) (\(body.split(separator: "\n").count) rows)")
    }
}
