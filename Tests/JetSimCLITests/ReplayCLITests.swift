import Foundation
import Testing

/// Usage replays through the binary: how replayed app names are matched to profiles
/// (the warning, the provenance record, `--app-map`).
@Suite("Replayed app names and --app-map", .endToEnd)
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
}
