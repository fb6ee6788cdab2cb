import Foundation
import Testing

/// Usage replays through the binary: how replayed app names are matched to profiles
/// (the warning, the provenance record, `--app-map`), and traces in other column
/// names and time units.
@Suite("Usage replays: app names, --app-map, column names and units", .endToEnd)
struct ReplayCLITests {
    static let trace = "Workloads/examples/usage.csv"
    static let map = "Workloads/examples/app-map.csv"

    static func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("names not in the catalog: one warning (how many, examples) and a record in provenance; --app-map maps them")
    func unmatchedNames() throws {
        let tmp = try CLI.tempDir()
        let plain = try CLI.run(["run", "--usage", Self.trace, "--policy", "lru", "--ram", "3GB", "--quiet", "--out", tmp + "/plain.csv"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.components(separatedBy: "warning:").count == 2, "\(plain.stderr)")
        #expect(plain.stderr.contains("8 of the 8 app names of \(Self.trace) (180 of 180 rows) are not in the catalog (e.g. chat, maps, camera, game, music, ...)"), "\(plain.stderr)")
        let p = try Self.json(tmp + "/plain.csv.provenance.json")
        let apps = try #require(p["usage_apps"] as? [String: Any])
        #expect(apps["names"] as? Int == 8 && apps["by_hash"] as? Int == 8 && apps["mapped"] as? Int == 0)
        #expect((apps["rule"] as? String)?.contains("FNV-1a(name) mod catalog.apps") == true)
        #expect(p["app_map"] is NSNull)

        let mapped = try CLI.run(["run", "--usage", Self.trace, "--app-map", Self.map, "--policy", "lru", "--ram", "3GB", "--quiet", "--out", tmp + "/mapped.csv"])
        #expect(mapped.status == 0, "\(mapped.stderr)")
        #expect(!mapped.stderr.contains("warning"), "\(mapped.stderr)")
        let q = try Self.json(tmp + "/mapped.csv.provenance.json")
        #expect(q["app_map"] as? String == Self.map)
        #expect((q["usage_apps"] as? [String: Any])?["mapped"] as? Int == 8)
        // Other profiles, other results.
        #expect(try String(contentsOfFile: tmp + "/plain.csv", encoding: .utf8) != String(contentsOfFile: tmp + "/mapped.csv", encoding: .utf8))
    }

    @Test("a sweep warns once, not at every point")
    func sweepWarnsOnce() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["sweep", "--usage", Self.trace, "--policy", "lru", "--ram", "2GB,3GB", "--set", "catalog.popularity_zipf_exponent=0.8,1",
                             "--quiet", "--out", tmp + "/sw"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.components(separatedBy: "not in the catalog").count == 2, "\(r.stderr)")
    }

    @Test("a bad map is bad input naming the file, line and column; nothing is written")
    func badMap() throws {
        let tmp = try CLI.tempDir()
        try "app,archetype\nchat,messaging\nmaps,mapz\n".write(toFile: tmp + "/m.csv", atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", "--usage", Self.trace, "--app-map", tmp + "/m.csv", "--ram", "3GB", "--quiet", "--out", tmp + "/o.csv"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("\(tmp)/m.csv:3: archetype: unknown archetype 'mapz' (did you mean maps"), "\(r.stderr)")
        #expect(CLI.files(in: tmp) == ["m.csv"])
        let noUsage = try CLI.run(["run", "--app-map", tmp + "/m.csv", "--ram", "3GB", "--quiet"])
        #expect(noUsage.status == 2 && noUsage.stderr.contains("--app-map: only with --usage"), "\(noUsage.stderr)")
    }

    @Test("shards run with different maps do not merge: the usage hash covers the map")
    func shardsCheckTheMap() throws {
        let tmp = try CLI.tempDir()
        try "app,archetype\nchat,game\n".write(toFile: tmp + "/other.csv", atomically: true, encoding: .utf8)
        for (i, map) in [(1, Self.map), (2, tmp + "/other.csv")] {
            let r = try CLI.run(["run", "--usage", Self.trace, "--app-map", map, "--duration", "1d", "--policy", "lru", "--ram", "3GB",
                                 "--quiet", "--shard", "\(i)/2", "--out", tmp + "/s\(i).csv"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let m = try CLI.run(["merge", tmp + "/s1.csv.state", tmp + "/s2.csv.state", "--out", tmp + "/all.csv"])
        #expect(m.status == 2)
        #expect(m.stderr.contains("the usage file"), "\(m.stderr)")
    }

    /// The example trace with other column names, in milliseconds.
    static func inMilliseconds() throws -> String {
        let text = try String(contentsOfFile: CLI.root + "/" + trace, encoding: .utf8)
        var out = "who,start_ms,package,length_ms\n"
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",")
            out += "\(f[0]),\(Int(Double(f[1])! * 1000)),\(f[2]),\(Int(Double(f[3])! * 1000))\n"
        }
        return out
    }

    @Test("--usage-columns and --usage-time-unit: the same trace in other names and units gives the same CSV; recorded in provenance")
    func mappedColumns() throws {
        let tmp = try CLI.tempDir()
        try Self.inMilliseconds().write(toFile: tmp + "/ms.csv", atomically: true, encoding: .utf8)
        let common = ["--policy", "lru,cost-aware", "--ram", "2GB", "--quiet"]
        let a = try CLI.run(["run", "--usage", Self.trace, "--out", tmp + "/a.csv"] + common)
        let b = try CLI.run(["run", "--usage", tmp + "/ms.csv", "--usage-columns", "device=who,time=start_ms,app=package,duration=length_ms",
                             "--usage-time-unit", "ms", "--out", tmp + "/b.csv"] + common)
        #expect(a.status == 0 && b.status == 0, "\(a.stderr)\(b.stderr)")
        #expect(try String(contentsOfFile: tmp + "/a.csv", encoding: .utf8) == String(contentsOfFile: tmp + "/b.csv", encoding: .utf8))
        let p = try Self.json(tmp + "/b.csv.provenance.json")
        #expect(p["usage_format"] as? String == "columns=who,start_ms,package,length_ms time=ms duration=ms")
        // usage-stats reads it the same way.
        let s1 = try CLI.run(["usage-stats", Self.trace, "--format", "csv"])
        let s2 = try CLI.run(["usage-stats", tmp + "/ms.csv", "--format", "csv", "--usage-columns", "device=who,time=start_ms,app=package,duration=length_ms",
                              "--usage-time-unit", "ms"])
        #expect(s1.status == 0 && s1.stdout == s2.stdout, "\(s2.stderr)")
        // Without the mapping: the missing column, named, and how to map it.
        let c = try CLI.run(["run", "--usage", tmp + "/ms.csv"] + common)
        #expect(c.status == 2)
        #expect(c.stderr.contains("\(tmp)/ms.csv:1: device: missing column; the header must name at least device,time_s,app,duration_s; it has who,start_ms,package,length_ms; --usage-columns device=NAME"), "\(c.stderr)")
        // A unit that does not fit: the file, the line and the file's column.
        let d = try CLI.run(["run", "--usage", tmp + "/ms.csv", "--usage-columns", "device=who,time=start_ms,app=package,duration=length_ms",
                             "--usage-time-unit", "iso"] + common)
        #expect(d.status == 2)
        #expect(d.stderr.contains("\(tmp)/ms.csv:2: start_ms: expected an ISO 8601 date and time"), "\(d.stderr)")
        let e = try CLI.run(["run", "--usage-time-unit", "ms"] + common)
        #expect(e.status == 2 && e.stderr.contains("only with --usage"), "\(e.stderr)")
    }
}
