import Foundation
import Testing
import SimKernel
@testable import JetSim

/// Every workload key the docs name is one the decoder reads (issue 46: the schema's own
/// doc string said `android_zram_pct` for `android_zram_size_pct`, and the generated
/// references and docs/model.md repeated it). Two kinds of name are checked, in every
/// word of the docs (prose, tables and examples alike):
/// - a key path (`user.sessions_per_day`, `device_classes.iphone-11.ram_mb`,
///   `policies.external.NAME.command`): given to the decoder as a `--set` of that path,
///   it must not be an unknown key (a list element's name stands for the first element);
/// - a bare name that looks like a key (its words are a run of some key's words, or a
///   key's words a run of its: `android_zram_pct`): it must be a key, a column of a CSV
///   jetsim writes, or one of the names below that are not keys.
@Suite("The docs' key names are the decoder's")
struct DocKeysTests {
    static let docs: [String] = {
        let dir = root + "/docs"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".md") }.sorted()
        return ["README.md", "Workloads/README.md", "Workloads/scenarios/README.md"] + names.map { "docs/" + $0 }
    }()

    /// The top-level sections a key path starts with.
    static let sections: Set<String> = ["fleet", "run", "device_classes", "catalog", "user", "policies"]

    /// Names the docs use that look like keys but are none: each is a name in another
    /// program's source or data, or one of jetsim's provenance fields.
    static let notKeys: Set<String> = [
        // XNU's and lmkd's own names (the sources the defaults cite)
        "memorystatus_apps_idle_delay_time", "memorystatus_freezer_thread_next_run_ts",
        "memorystatus_kill_on_sustained_pressure_window_s", "memorystatus_reaper", "memstat_reaper_rescan_secs",
        "os_proc_available_memory", "psi_complete_stall_ms", "psi_partial_stall_ms", "stall_limit_critical",
        "thrashing_limit", "thrashing_limit_pct",
        // columns of published datasets and of the paper's figure data
        "app_name", "user_id", "fleet_earlier_1", "fleet_earlier_2",
        // provenance sidecar fields (docs/cli.md, "Provenance")
        "command_line", "usage_apps", "external_policies", "in_catalog", "usage_file", "sample_devices",
        "devices_kept", "devices_read", "header_fnv1a64", "shard_devices",
        // the unit parts of key names, named as such
        "per_day", "per_hour_of_use",
    ]

    /// Every leaf key the decoder reads: the schema's, each policy's section's, and the
    /// sections' own names.
    static let leaves: Set<String> = {
        var out = Set(Schema.referenceKeys().flatMap { $0.split(separator: ".").map(String.init) })
        out.formUnion(PolicyRegistry.table(PolicyKeyNames.self).flatMap { $0 })
        return out
    }()

    enum PolicyKeyNames: PolicyTable {
        static func row<P: EvictionPolicy>(_: P.Type) -> [String] {
            P.Parameters.hasSection ? [P.sectionKey] + P.Parameters.keys.map(\.name) : []
        }
    }

    /// The reference's key paths (list elements left out, `policies.external.NAME`)
    /// and every section above them.
    static let referencePrefixes: Set<String> = {
        var out = Set<String>()
        for k in Schema.referenceKeys() {
            let parts = k.split(separator: ".")
            for n in 1...parts.count { out.insert(parts.prefix(n).joined(separator: ".")) }
        }
        return out
    }()

    /// The columns of the CSVs jetsim writes.
    static let columns: Set<String> = {
        var out = Set<String>()
        for header in [Summary.header, PerDeviceRow.header, Breakdown.header, TraceCSV.header,
                       Sensitivity.header, Sensitivity.interactionHeader,
                       "device,time_s,app,duration_s", "policy,ram_mb,events,wall_s,events_per_s"] {
            out.formUnion(header.split(separator: ",").map(String.init))
        }
        // --by app's and --compare-set's own columns.
        out.formUnion(Breakdown.appColumns.map(\.name) + Breakdown.variantColumns + Breakdown.appVariantColumns + Summary.variantColumns)
        return out
    }()

    /// The words of a text: runs of letters, digits, `_`, `.` and `-` that start with a
    /// letter or digit and do not follow one of those or `/` (a file path's parts), with
    /// a trailing `.`, `-` or `_` cut (`android_*` names a family, not a key).
    static func words(_ text: String) -> [String] {
        var out: [String] = []
        let chars = Array(text.unicodeScalars)
        func part(_ c: Unicode.Scalar) -> Bool { c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "." || c == "-") }
        var i = 0
        while i < chars.count {
            guard part(chars[i]), i == 0 || (!part(chars[i - 1]) && chars[i - 1] != "/") else { i += 1; continue }
            var j = i
            while j < chars.count, part(chars[j]) { j += 1 }
            defer { i = j }
            guard chars[i].properties.isAlphabetic || ("0"..."9").contains(chars[i]) else { continue }
            var w = String(String.UnicodeScalarView(chars[i..<j]))
            while w.hasSuffix(".") || w.hasSuffix("-") || w.hasSuffix("_") { w.removeLast() }
            if !w.isEmpty { out.append(w) }
        }
        return out
    }

    /// Whether `a`'s words appear in `b`'s, in order (not necessarily next to each other).
    static func run(_ a: [Substring], in b: [Substring]) -> Bool {
        var it = b.makeIterator()
        return a.allSatisfy { x in while let y = it.next() { if y == x { return true } }; return false }
    }

    /// Why a key path is not one the decoder reads (nil: it is, or it cannot be told).
    static func pathProblem(_ path: String) -> String? {
        var parts = path.split(separator: ".").map(String.init)
        guard let last = parts.last, last.lowercased() == last else { return nil }  // a placeholder: `device_classes.NAME.KEY`
        // A list element by name or placeholder: the first element (or a new external
        // policy); the reference's form without one (`device_classes.ram_mb`) too.
        var i = 1
        while i < parts.count {
            let list = parts[i - 1] == "device_classes" || (i >= 2 && parts[i - 2] == "catalog" && parts[i - 1] == "archetypes")
            let external = i >= 2 && parts[i - 2] == "policies" && parts[i - 1] == "external"
            if list || external {
                let element = external ? "x" : "0"
                if leaves.contains(parts[i]) && !(external && !["command", "timeout_s"].contains(parts[i])) { parts.insert(element, at: i) } else { parts[i] = element }
            }
            i += 1
        }
        // A key of the reference, or a section above keys: no need to ask the decoder.
        let reference = parts.filter { $0 != "0" }.map { $0 == "x" ? "NAME" : $0 }.joined(separator: ".")
        if referencePrefixes.contains(reference) { return nil }
        do { _ = try WorkloadDecoder.load("", source: "docs", overrides: [parts.joined(separator: ".") + "=0"]) } catch {
            if error.message.hasPrefix("unknown key") || error.message.contains("is a single value") { return error.message }
        }
        return nil
    }

    @Test("every key path and key-like name in the docs is a key the decoder reads")
    func docKeys() throws {
        var problems: [String] = []
        var checkedPaths = 0
        var paths: [String: String?] = [:]  // each path decoded once
        let leafWords = Self.leaves.map { $0.split(separator: "_") }
        for doc in Self.docs {
            let text = try String(contentsOfFile: root + "/" + doc, encoding: .utf8)
            var seen = Set<String>()
            for w in Self.words(text) where seen.insert(w).inserted {
                let parts = w.split(separator: ".")
                if parts.count > 1, Self.sections.contains(String(parts[0])) {
                    checkedPaths += 1
                    if paths[w] == nil { paths[w] = .some(Self.pathProblem(w)) }
                    if let why = paths[w]! { problems.append("\(doc): `\(w)`: \(why)") }
                    continue
                }
                guard parts.count == 1, w.contains("_"), w.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }),
                      !Self.leaves.contains(w), !Self.columns.contains(w), !Self.notKeys.contains(w) else { continue }
                let ws = w.split(separator: "_")
                if leafWords.contains(where: { Self.run(ws, in: $0) || Self.run($0, in: ws) }) {
                    let near = KeySuggestion.nearest(w, among: Array(Self.leaves))
                    problems.append("\(doc): `\(w)` looks like a key but the decoder has none of that name" + (near.isEmpty ? "" : " (did you mean \(near.joined(separator: " or "))?)"))
                }
            }
        }
        #expect(checkedPaths > 100, "the docs name \(checkedPaths) key paths; the scan found too few to trust")
        #expect(problems.isEmpty, "\(problems.count) name(s) in the docs are not the decoder's keys:\n\(problems.joined(separator: "\n"))")
    }

    @Test("the check finds a wrong key name: the one issue 46 found, and a wrong path")
    func findsWrongNames() {
        let ws = "android_zram_pct".split(separator: "_")
        #expect(Self.leaves.map { $0.split(separator: "_") }.contains { Self.run(ws, in: $0) })
        #expect(!Self.leaves.contains("android_zram_pct"))
        #expect(Self.pathProblem("device_classes.iphone-11.android_zram_pct") != nil)
        #expect(Self.pathProblem("device_classes.iphone-11.android_zram_size_pct") == nil)
        #expect(Self.pathProblem("user.sessions_per_dya") != nil)
        #expect(Self.pathProblem("policies.external.NAME.command") == nil)
        #expect(Self.pathProblem("policies.smartlmk.reuse_half_life_h") == nil)
        #expect(Self.pathProblem("catalog.archetypes.game.active_mb.lognormal.median") == nil)
        #expect(Self.words("see `user.wake_hour`. Workloads/README.md, android_zram_pct;") == ["see", "user.wake_hour", "Workloads", "android_zram_pct"])
    }
}
