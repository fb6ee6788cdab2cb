import Foundation
import Testing

@Suite("Provenance sidecars", .endToEnd)
struct ProvenanceCLITests {
    static func fnv1a(_ s: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let x = String(h, radix: 16)
        return String(repeating: "0", count: 16 - x.count) + x
    }

    static func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static let sets = ["--set", "fleet.devices=3", "--set", "fleet.duration_days=0.25", "--set", "user.sessions_per_day=30", "--set", "seed=7"]

    @Test("run --out writes OUT.provenance.json: version, commit, command line, workload hash, seed, threads, output hash")
    func runSidecar() throws {
        let tmp = try CLI.tempDir()
        let args = ["run", "--policy", "lru,oracle", "--ram", "2GB", "--quiet", "--threads", "2", "--out", tmp + "/r.csv",
                    "--per-device", tmp + "/d.csv"] + Self.sets
        let r = try CLI.run(args)
        #expect(r.status == 0, "\(r.stderr)")
        let p = try Self.json(tmp + "/r.csv.provenance.json")
        // `--version` prints the version and the commit the sidecar records.
        let version = try CLI.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(version.hasPrefix((p["jetsim_version"] as? String ?? "?") + " (commit "), "\(version)")
        let commit = p["commit"] as? String ?? "?"
        #expect(version.contains(commit.hasSuffix("-dirty") ? String(commit.dropLast(6)) + ", dirty" : commit + ")")
                || (commit == "unknown" && version.contains("commit unknown")), "\(version) vs \(commit)")
        #expect(p["command_line"] as? [String] == [CLI.binary] + args)
        #expect(p["seed"] as? String == "7")
        #expect(p["threads"] as? Int == 2)
        #expect(p["devices"] as? Int == 3)
        #expect(p["duration_s"] as? Double == 21_600)
        #expect(p["policies"] as? [String] == ["lru", "oracle"])
        #expect(p["shard"] is NSNull)
        let csv = try String(contentsOfFile: tmp + "/r.csv", encoding: .utf8)
        #expect(p["output_fnv1a64"] as? String == Self.fnv1a(csv))
        // The workload hash is that of what `jetsim validate` resolves the same inputs to.
        let v = try CLI.run(["validate"] + Self.sets)
        let yaml = v.stdout.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)[1]
        #expect(p["workload_fnv1a64"] as? String == Self.fnv1a(String(yaml)))
        // The commit: this checkout's HEAD, when the binary was built from it (as
        // scripts/test-e2e.sh does; the plugin BuildCommit records it at build time).
        let head = Process()
        head.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        head.arguments = ["git", "-C", CLI.root, "rev-parse", "HEAD"]
        let pipe = Pipe()
        head.standardOutput = pipe
        try head.run()
        let sha = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        head.waitUntilExit()
        if head.terminationStatus == 0 { #expect((p["commit"] as? String)?.hasPrefix(sha) == true, "\(p["commit"] ?? "")") }
        // The per-device file has one too (its bytes stream out, so no output hash).
        let d = try Self.json(tmp + "/d.csv.provenance.json")
        #expect(d["output_fnv1a64"] is NSNull)
        #expect(d["workload_fnv1a64"] as? String == p["workload_fnv1a64"] as? String)
    }

    @Test("the workload hash follows the resolved workload, not the thread count; stdout gets no sidecar")
    func hashFollowsWorkload() throws {
        let tmp = try CLI.tempDir()
        func hash(_ extra: [String], _ name: String) throws -> String? {
            let r = try CLI.run(["run", "--policy", "lru", "--ram", "2GB", "--quiet", "--out", tmp + "/" + name] + Self.sets + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return try Self.json(tmp + "/" + name + ".provenance.json")["workload_fnv1a64"] as? String
        }
        let a = try hash(["--threads", "1"], "a.csv"), b = try hash(["--threads", "2"], "b.csv")
        let c = try hash(["--set", "user.sessions_per_day=31"], "c.csv")
        #expect(a != nil && a == b)
        #expect(a != c)
        let before = try FileManager.default.contentsOfDirectory(atPath: tmp).count
        let s = try CLI.run(["run", "--policy", "lru", "--ram", "2GB", "--quiet", "--format", "csv"] + Self.sets, cwd: tmp)
        #expect(s.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).count == before)
    }

    @Test("sweep points, the combined CSV and merge get sidecars")
    func sweepAndMerge() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["sweep", "--policy", "lru", "--ram", "2GB", "--quiet", "--out", tmp + "/sw", "--set", "fleet.devices=2",
                             "--set", "fleet.duration_days=0.1", "--set", "user.sessions_per_day=10,20"])
        #expect(r.status == 0, "\(r.stderr)")
        let point = try Self.json(tmp + "/sw/points/2-user.sessions_per_day=20.csv.provenance.json")
        #expect(point["sweep_point"] as? Int == 2)
        #expect((point["overrides"] as? [String])?.last == "user.sessions_per_day=20")
        let combined = try Self.json(tmp + "/sw/combined.csv.provenance.json")
        let points = try #require(combined["points"] as? [[String: Any]])
        #expect(points.count == 2)
        let csv1 = try String(contentsOfFile: tmp + "/sw/points/1-user.sessions_per_day=10.csv", encoding: .utf8)
        #expect(points[0]["fnv1a64"] as? String == Self.fnv1a(csv1))

        let run = ["run", "--policy", "lru", "--ram", "2GB", "--quiet"] + Self.sets
        for i in 1...2 { #expect(try CLI.run(run + ["--shard", "\(i)/2", "--out", tmp + "/s\(i).csv"]).status == 0) }
        let m = try CLI.run(["merge", tmp + "/s1.csv.state", tmp + "/s2.csv.state", "--out", tmp + "/m.csv"])
        #expect(m.status == 0, "\(m.stderr)")
        let mp = try Self.json(tmp + "/m.csv.provenance.json")
        #expect(mp["merged_from"] as? [String] == [tmp + "/s1.csv.state", tmp + "/s2.csv.state"])
        #expect(mp["workload_fnv1a64"] as? String == (try Self.json(tmp + "/s1.csv.provenance.json"))["workload_fnv1a64"] as? String)
    }
}
