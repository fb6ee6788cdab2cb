import Foundation
import JetSim
import SimKernel

/// The directory of a sweep or a sensitivity run: `plan.txt`, `points/`, the combined
/// CSV. What it finds there is checked, never trusted: the plan records the content of
/// every file the points read (the workload, the usage trace, the app map, and each
/// external policy's command with the content of its words that name files), not only
/// their names, so a resume after one changed is refused naming what changed; a
/// point's CSV counts as done only when its provenance sidecar holds its hash and this
/// plan's, so a point cut short, edited or copied from another sweep is refused rather
/// than glued into the combined CSV.
enum PointsDirectory {
    /// Creates DIR/points, with a clear message when DIR is a file or cannot be made.
    static func prepare(_ dir: String) throws -> String {
        try AtomicOutput.checkName(dir + "/points/plan.txt")
        var st = stat()
        if stat(dir, &st) == 0, st.st_mode & S_IFMT != S_IFDIR {
            throw BadInput(description: "--out \(dir): it is a file, not a directory (a sweep writes a directory of points); give a new or existing directory")
        }
        let points = dir + "/points"
        if stat(points, &st) == 0, st.st_mode & S_IFMT != S_IFDIR {
            throw BadInput(description: "--out \(dir): \(points) is a file, not a directory")
        }
        do { try FileManager.default.createDirectory(atPath: points, withIntermediateDirectories: true) } catch {
            let code = ((error as? CocoaError)?.underlying as? POSIXError)?.code.rawValue
            let reason = code.map { String(cString: strerror($0)) } ?? error.localizedDescription
            if code == ENOTDIR || code == EEXIST { throw BadInput(description: "--out \(dir): cannot create \(points): \(reason) (a part of the path is a file)") }
            throw RunFailure(description: "cannot create \(points): \(reason)")
        }
        return points
    }

    /// The plan's format: 2 records the app map's bytes and the external policies
    /// (issue 46; a directory of format 1 is refused on resume, saying so).
    static let planFormat = 2

    /// A plan's first line: what it plans, and its format.
    static func heading(_ what: String) -> String {
        "# jetsim \(what) plan, format \(planFormat): the inputs every point shares (with the bytes of every file they read), then one line per point\n"
    }

    /// The plan lines naming the content of the input files (FNV-1a 64 of their bytes;
    /// the built-in workload's text when no --workload is given): the workload, the
    /// usage trace, the app map, and each external policy the points of `workloads`
    /// run (`externalLines`).
    static func inputLines(_ sim: SimulationOptions, workloads: [Workload]) throws -> String {
        let workload = try sim.workload.map(readInput) ?? defaultWorkloadText
        var text = "workload_fnv1a64: \(FNV1a.hex(FNV1a.hash(workload)))\n"
        if let u = sim.usage { text += "usage_fnv1a64: \(FNV1a.hex(try InputFiles.usageHash(u)))\n" }
        if let m = sim.appMap { text += "app_map_fnv1a64: \(FNV1a.hex(FNV1a.hash(try readInput(m))))\n" }
        return text + externalLines(sim, workloads: workloads)
    }

    /// One line per external policy the points run, each distinct command once: its
    /// words and the hash of the files they name (`ExternalPolicySpec.filesHash`), so a
    /// script edited between two runs of a sweep changes the plan.
    static func externalLines(_ sim: SimulationOptions, workloads: [Workload]) -> String {
        var lines: [String] = []
        var hashes = planned
        for w in workloads {
            let policies = sim.policy?.policies ?? (try? PolicyList.parse(w.run.policies.joined(separator: ",")))?.policies ?? []
            for case let name? in policies.map(\.external) {
                guard let spec = w.policies.external[name] else { continue }
                let h = hashes[spec.command] ?? spec.filesHash()
                hashes[spec.command] = h
                let line = "external \(name): command \(spec.command.map(Provenance.escape).joined(separator: " ")) files_fnv1a64 \(FNV1a.hex(h))"
                if !lines.contains(line) { lines.append(line) }
            }
        }
        planned = hashes
        return lines.sorted().map { $0 + "\n" }.joined()
    }

    /// The files' hash of each external command as the plan recorded it.
    nonisolated(unsafe) static var planned: [[String]: UInt64] = [:]

    /// Refuses to record a point whose external policies' files changed since the plan
    /// was made (a script edited while the sweep runs): the point ran another version.
    static func checkUnchanged(_ hashes: [String: UInt64], workload w: Workload) throws {
        for (n, h) in hashes.sorted(by: { $0.key < $1.key }) {
            guard let spec = w.policies.external[n], let p = planned[spec.command], p != h else { continue }
            throw RunFailure(description: "external:\(n): a file its command names (\(spec.commandLine)) changed while the points ran: this point would run another version than the points before it, so nothing more runs; restore the file and run the same command again to go on, or use another --out")
        }
    }

    /// Writes DIR/plan.txt, or checks the one there: another plan is refused naming
    /// the first line that differs.
    static func checkPlan(dir: String, text: String, what: String) throws {
        let path = dir + "/plan.txt"
        guard let existing = FileManager.default.contents(atPath: path) else {
            return try AtomicOutput.write(text, to: path)
        }
        let old = String(decoding: existing, as: UTF8.self)
        guard old != text else { return }
        if let first = old.split(separator: "\n", maxSplits: 1).first, first.hasPrefix("# jetsim "), !first.contains(", format ") {
            throw BadInput(description: "\(dir) was made by an earlier jetsim: its plan (\(path)) does not record the bytes of the app map or of the external policies' files, so its points cannot be checked against this command's inputs; use another --out, or remove it and run again")
        }
        let a = old.split(separator: "\n", omittingEmptySubsequences: false), b = text.split(separator: "\n", omittingEmptySubsequences: false)
        let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        let there = i < a.count ? "'\(a[i])'" : "(the end)", here = i < b.count ? "'\(b[i])'" : "(the end)"
        var why = ""
        if i < a.count, i < b.count {
            if a[i].hasPrefix("workload_fnv1a64:") { why = " (the workload \(text.split(separator: "\n").first { $0.hasPrefix("workload: ") }?.dropFirst(10) ?? "") changed since the points there were run)" }
            if a[i].hasPrefix("usage_fnv1a64:") { why = " (the usage file changed since the points there were run)" }
            if a[i].hasPrefix("app_map_fnv1a64:") { why = " (the app map changed since the points there were run)" }
            if a[i].hasPrefix("external "), b[i].hasPrefix("external ") { why = " (an external policy's command, or a file it names, changed since the points there were run)" }
        }
        throw BadInput(description: "\(dir) holds a different \(what): line \(i + 1) of \(path) is \(there), this command's is \(here)\(why); use another --out, or remove it")
    }

    static func planHash(_ text: String) -> String { FNV1a.hex(FNV1a.hash(text)) }

    /// Why the point CSV at `path` cannot be used (nil when it can): its sidecar must
    /// exist, hold the CSV's hash (a point cut short or edited fails), this plan's (a
    /// point copied from another sweep fails) and the point's number (one copied from
    /// another point of this sweep fails).
    /// `kind` names the keys: `sweep_point` and `sweep_plan_fnv1a64` for a sweep,
    /// `sensitivity_point` and `sensitivity_plan_fnv1a64` for a sensitivity run.
    static func problem(point path: String, index: Int, text: String, planHash: String, kind: String = "sweep") -> String? {
        let side = ProvenanceFile.path(for: path)
        guard let data = FileManager.default.contents(atPath: side),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return "it has no readable provenance sidecar (\(side))"
        }
        guard json["output_fnv1a64"] as? String == Provenance.hash(text) else {
            return "its bytes do not match the hash in its provenance sidecar: it was cut short or edited"
        }
        guard json[kind + "_plan_fnv1a64"] as? String == planHash else {
            return "its provenance names another plan: it belongs to another \(kind) run (or was written by an older jetsim)"
        }
        guard json[kind + "_point"] as? Int == index else {
            return "its provenance names another point (\(json[kind + "_point"].map { "\($0)" } ?? "none")): it was copied or renamed from another point's file"
        }
        guard text.hasSuffix("\n") else { return "it does not end with a line break: it was cut short" }
        return nil
    }

    /// `problem` as bad input naming the point and what to do.
    static func check(point path: String, index: Int, text: String, planHash: String, kind: String = "sweep") throws {
        if let why = problem(point: path, index: index, text: text, planHash: planHash, kind: kind) {
            throw BadInput(description: "\(path): \(why); remove it and its .provenance.json, then run the same command again to redo the point")
        }
    }
}
