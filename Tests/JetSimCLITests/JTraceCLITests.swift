import Foundation
import Testing

/// `.jtrace` through the binary (docs/jtrace.md): `import` writes it, every command that
/// reads a usage trace takes it with the CSV's results byte for byte, hostile files are
/// bad input before any work, and `--sample-devices`.
@Suite("Binary usage traces through the binary", .endToEnd)
struct JTraceCLITests {
    /// The shipped traces (the golden tests' is a copy of the example: both are run).
    static let traces = ["Workloads/examples/usage.csv", "Tests/Golden/usage.csv"]
    static let policies = ["largest-first", "lru", "jetsam-bands", "android-lmk", "cost-aware", "random", "oracle", "mru", "fifo", "smartlmk"]

    static func read(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// Imports `csv` to `out` (a .jtrace), expecting success.
    static func importTrace(_ csv: String, _ out: String, _ extra: [String] = []) throws {
        let r = try CLI.run(["import", "--format", "usage", csv, "--out", out] + extra)
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// Runs `run` on each of the two traces with `args`, expecting every output equal.
    static func expectSameRun(_ csv: String, _ jt: String, _ args: [String], dir: String, _ note: String) throws {
        var outs: [[Data]] = []
        for (k, u) in [csv, jt].enumerated() {
            let o = dir + "/\(k)"
            let r = try CLI.run(["run", "--usage", u, "--quiet", "--out", o + ".csv", "--per-device", o + ".pd.csv", "--by", "class", "--by-out", o + ".by.csv"] + args)
            #expect(r.status == 0, "\(note): \(r.stderr)")
            outs.append(try [o + ".csv", o + ".pd.csv", o + ".by.csv"].map(Self.read))
        }
        #expect(outs[0] == outs[1], "\(note)")
        #expect(!outs[0][1].isEmpty)
    }

    @Test("every shipped trace: the .jtrace gives the CSV's summary, per-device and breakdown bytes for every policy, shard and thread count")
    func shippedTraces() throws {
        let tmp = try CLI.tempDir()
        for (i, csv) in Self.traces.enumerated() {
            let jt = tmp + "/t\(i).jtrace"
            try Self.importTrace(csv, jt)
            for threads in ["1", "2"] {
                try Self.expectSameRun(csv, jt, ["--policy", Self.policies.joined(separator: ","), "--ram", "1GB,3GB", "--threads", threads], dir: tmp, "\(csv), \(threads) threads")
            }
            for shard in ["1/2", "2/2", "2/3"] {
                try Self.expectSameRun(csv, jt, ["--policy", "lru,oracle,jetsam-bands", "--ram", "2GB", "--duration", "1d", "--shard", shard], dir: tmp, "\(csv), shard \(shard)")
            }
            // trace and usage-stats read it as they read the CSV.
            for args in [["trace", "--usage", "U", "--policy", "lru", "--ram", "2GB"], ["trace", "--usage", "U", "--policy", "oracle", "--ram", "1GB", "--format", "usage"],
                         ["usage-stats", "U", "--format", "csv"]] {
                let a = try CLI.run(args.map { $0 == "U" ? csv : $0 }), b = try CLI.run(args.map { $0 == "U" ? jt : $0 })
                #expect(a.status == 0 && b.status == 0 && a.stdout == b.stdout && !a.stdout.isEmpty, "\(args): \(b.stderr)")
            }
        }
    }

    @Test("a 1e6-row trace over 100 devices: the .jtrace replays to the CSV's bytes, on 1 and 2 threads and in shards that merge to the whole")
    func millionRows() throws {
        let tmp = try CLI.tempDir()
        // scripts/bench-replay.sh's shape: 100 devices x 10,000 rows, 30 apps a device.
        var csv = "device,time_s,app,duration_s\n"
        csv.reserveCapacity(25_000_000)
        var x: UInt64 = 7
        for d in 0..<100 {
            let id = "dev" + String(d + 100_000).dropFirst()
            for i in 0..<10_000 {
                x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let u = Double(x >> 11) / 9_007_199_254_740_992
                let a = Int(30 * u * u)
                csv += "\(id),\(i * 90),app\(a < 10 ? "0" : "")\(a),30\n"
            }
        }
        try csv.write(toFile: tmp + "/m.csv", atomically: false, encoding: .utf8)
        try Self.importTrace(tmp + "/m.csv", tmp + "/m.jtrace")
        let common = ["--workload", "Workloads/lru-reference.yaml", "--ram", "2GB"]
        for threads in ["1", "2"] {
            try Self.expectSameRun(tmp + "/m.csv", tmp + "/m.jtrace", common + ["--policy", "lru,jetsam-bands", "--threads", threads], dir: tmp, "1e6 rows, \(threads) threads")
        }
        // Shards of the .jtrace merge to the unsharded CSV run.
        for s in ["1/2", "2/2"] {
            let r = try CLI.run(["run", "--usage", tmp + "/m.jtrace", "--duration", "7d", "--policy", "lru", "--shard", s, "--quiet", "--out", tmp + "/s\(s.first!).csv"] + common)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let merged = try CLI.run(["merge", tmp + "/s1.csv.state", tmp + "/s2.csv.state", "--out", tmp + "/merged.csv"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let whole = try CLI.run(["run", "--usage", tmp + "/m.csv", "--duration", "7d", "--policy", "lru", "--quiet", "--out", tmp + "/whole.csv"] + common)
        #expect(whole.status == 0)
        #expect(try Self.read(tmp + "/merged.csv") == Self.read(tmp + "/whole.csv"))
    }

    @Test("import: a CSV in other names and units gives the same .jtrace bytes; a .jtrace converts back to the CSV; a dataset imports to a .jtrace")
    func imports() throws {
        let tmp = try CLI.tempDir()
        let csv = Self.traces[0]
        try Self.importTrace(csv, tmp + "/a.jtrace")
        // The same rows as user,start_ms,package,length_ms.
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst()
        var ms = "user,start_ms,package,length_ms,extra\n"
        for l in lines {
            let f = l.split(separator: ",", omittingEmptySubsequences: false)
            func millis(_ s: Substring) -> String { String(Int((Double(s)! * 1_000).rounded())) }
            ms += "\(f[0]),\(millis(f[1])),\(f[2]),\(millis(f[3])),x\n"
        }
        try ms.write(toFile: tmp + "/ms.csv", atomically: true, encoding: .utf8)
        try Self.importTrace(tmp + "/ms.csv", tmp + "/b.jtrace", ["--usage-columns", "device=user,time=start_ms,app=package,duration=length_ms", "--usage-time-unit", "ms"])
        #expect(try Self.read(tmp + "/a.jtrace") == Self.read(tmp + "/b.jtrace"))
        // Back to a CSV (any --out not ending in .jtrace), and that CSV to the same .jtrace.
        let back = try CLI.run(["import", "--format", "usage", tmp + "/a.jtrace", "--out", tmp + "/back.csv"])
        #expect(back.status == 0, "\(back.stderr)")
        try Self.importTrace(tmp + "/back.csv", tmp + "/c.jtrace")
        #expect(try Self.read(tmp + "/a.jtrace") == Self.read(tmp + "/c.jtrace"))
        #expect(try String(contentsOfFile: tmp + "/back.csv", encoding: .utf8).hasPrefix("device,time_s,app,duration_s\n"))
        // A dataset: the .jtrace replays as the CSV import writes.
        let ds = "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\n1\t1\t2019-01-01 10:00:00\tMail\tOpened\n1\t1\t2019-01-01 10:02:00\tMail\tClosed\n"
            + "2\t1\t2019-01-01 11:00:00\tChat\tOpened\n2\t1\t2019-01-01 11:00:40\tChat\tClosed\n2\t1\t2019-01-01 11:05:00\tMail\tOpened\n2\t1\t2019-01-01 11:06:00\tMail\tClosed\n"
        try ds.write(toFile: tmp + "/ds.tsv", atomically: true, encoding: .utf8)
        for out in ["ds.csv", "ds.jtrace"] {
            let r = try CLI.run(["import", "--format", "lsapp", tmp + "/ds.tsv", "--out", tmp + "/" + out])
            #expect(r.status == 0, "\(r.stderr)")
        }
        try Self.expectSameRun(tmp + "/ds.csv", tmp + "/ds.jtrace", ["--policy", "lru", "--ram", "2GB"], dir: tmp, "lsapp")
        // Options that describe a CSV are refused for a .jtrace and outside --format usage.
        let r1 = try CLI.run(["run", "--usage", tmp + "/a.jtrace", "--usage-time-unit", "ms", "--quiet"])
        #expect(r1.status == 2 && r1.stderr.contains("is a .jtrace, whose columns and units were read when it was written"), "\(r1.stderr)")
        let r2 = try CLI.run(["import", "--format", "lsapp", tmp + "/ds.tsv", "--usage-time-unit", "ms"])
        #expect(r2.status == 2 && r2.stderr.contains("only with --format usage"), "\(r2.stderr)")
    }

    @Test("hostile .jtrace files: exit 2 naming the file and what is wrong, before any output; a piped one is read as a file is")
    func hostile() throws {
        let tmp = try CLI.tempDir()
        try Self.importTrace(Self.traces[0], tmp + "/good.jtrace")
        let good = [UInt8](try Self.read(tmp + "/good.jtrace"))
        func refused(_ bytes: [UInt8], _ name: String, _ expected: String) throws {
            let p = tmp + "/" + name
            _ = FileManager.default.createFile(atPath: p, contents: Data(bytes))
            let r = try CLI.run(["run", "--usage", p, "--policy", "lru", "--ram", "3GB", "--quiet", "--out", tmp + "/o.csv"])
            #expect(r.status == 2 && r.stderr.contains("jetsim: \(p): \(expected)"), "\(name): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: tmp + "/o.csv"))
        }
        try refused(Array(good[0..<1_000]), "cut.jtrace", "truncated: the header says the file is \(good.count) bytes, it has 1000")
        try refused(Array(good[0..<40]), "short.jtrace", "truncated: 40 bytes, shorter than a .jtrace header (64 bytes)")
        var b = good; b[3] = 0
        try refused(b, "magic.jtrace", "not a .jtrace file: its first 8 bytes are 89 4A 54 00 41 43 45 0A")
        b = good; b[8] = 9
        try refused(b, "version.bin", "version 9 of the .jtrace format; this jetsim reads version 1")
        b = good; b[500] ^= 0xFF
        try refused(b, "damaged.jtrace", "checksum mismatch")
        b = good; b[24] &+= 1
        try refused(b, "claims.jtrace", "the header claims")
        // Piped, it is copied and mapped as a file is.
        let piped = try CLI.run(["-c", "cat \(tmp)/good.jtrace | \(CLI.binary) run --usage /dev/stdin --policy lru --ram 3GB --quiet --out \(tmp)/p.csv"], runner: "/bin/sh")
        #expect(piped.status == 0, "\(piped.stderr)")
        let direct = try CLI.run(["run", "--usage", Self.traces[0], "--policy", "lru", "--ram", "3GB", "--quiet", "--out", tmp + "/d.csv"])
        let a = try Self.read(tmp + "/p.csv"), b2 = try Self.read(tmp + "/d.csv")
        #expect(direct.status == 0 && a == b2)
    }

    @Test("a sweep resumed after its .jtrace changed is refused; one whose body was damaged too")
    func resumedSweep() throws {
        let tmp = try CLI.tempDir()
        try Self.importTrace(Self.traces[0], tmp + "/u.jtrace")
        let sweep = ["sweep", "--usage", tmp + "/u.jtrace", "--policy", "lru", "--ram", "3GB", "--set", "catalog.popularity_zipf_exponent=0.8,1", "--quiet", "--out", tmp + "/sw"]
        let first = try CLI.run(sweep + ["--point", "1"])
        #expect(first.status == 0, "\(first.stderr)")
        // The same trace less its last row.
        let rows = try String(contentsOfFile: Self.traces[0], encoding: .utf8).split(separator: "\n")
        try (rows.dropLast().joined(separator: "\n") + "\n").write(toFile: tmp + "/less.csv", atomically: true, encoding: .utf8)
        try Self.importTrace(tmp + "/less.csv", tmp + "/u.jtrace")
        let again = try CLI.run(sweep)
        #expect(again.status == 2 && again.stderr.contains("the usage file changed since the points there were run"), "\(again.stderr)")
        var b = [UInt8](try Self.read(tmp + "/u.jtrace")); b[100] ^= 1
        _ = FileManager.default.createFile(atPath: tmp + "/u.jtrace", contents: Data(b))
        let damaged = try CLI.run(sweep)
        #expect(damaged.status == 2 && damaged.stderr.contains("checksum mismatch"), "\(damaged.stderr)")
    }

    @Test("--sample-devices: the CSV's and the .jtrace's samples give the same bytes, recorded in provenance; a smaller sample's devices are a larger one's; shards of one sample merge, of two do not")
    func sampleDevices() throws {
        let tmp = try CLI.tempDir()
        // 200 devices of 20 rows.
        var csv = "device,time_s,app,duration_s\n"
        for d in 0..<200 { for i in 0..<20 { csv += "phone-\(d),\(i * 300),app\((d + i * 3) % 7),45\n" } }
        try csv.write(toFile: tmp + "/s.csv", atomically: true, encoding: .utf8)
        try Self.importTrace(tmp + "/s.csv", tmp + "/s.jtrace")
        var devices: [Set<String>] = []
        for f in ["0.25", "0.5"] {
            try Self.expectSameRun(tmp + "/s.csv", tmp + "/s.jtrace", ["--policy", "lru,jetsam-bands", "--ram", "2GB", "--sample-devices", f], dir: tmp, "sample \(f)")
            let p = try ReplayCLITests.json(tmp + "/1.csv.provenance.json")
            let s = try #require(p["sample_devices"] as? [String: Any])
            let kept = try #require(s["devices_kept"] as? Int)
            #expect(s["fraction"] as? Double == Double(f) && s["devices_read"] as? Int == 200 && kept > 20 && kept < 140, "\(s)")
            let rows = try String(contentsOfFile: tmp + "/1.pd.csv", encoding: .utf8).split(separator: "\n").dropFirst()
            let names = Set(rows.compactMap { $0.split(separator: ",").first { $0.hasPrefix("phone-") }.map(String.init) })
            #expect(names.count == kept)
            devices.append(names)
        }
        #expect(devices[0].isSubset(of: devices[1]) && devices[0].count < devices[1].count)
        // Shards of one sample merge to the unsharded sample; shards of two samples do not merge.
        let shard = ["run", "--usage", tmp + "/s.jtrace", "--policy", "lru", "--ram", "2GB", "--duration", "1d", "--quiet"]
        for (name, f, s) in [("a", "0.5", "1/2"), ("b", "0.5", "2/2"), ("c", "0.25", "2/2")] {
            let r = try CLI.run(shard + ["--sample-devices", f, "--shard", s, "--out", tmp + "/\(name).csv"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let whole = try CLI.run(shard + ["--sample-devices", "0.5", "--out", tmp + "/whole.csv"])
        let merged = try CLI.run(["merge", tmp + "/a.csv.state", tmp + "/b.csv.state", "--out", tmp + "/merged.csv"])
        #expect(whole.status == 0 && merged.status == 0, "\(merged.stderr)")
        #expect(try Self.read(tmp + "/merged.csv") == Self.read(tmp + "/whole.csv"))
        let mixed = try CLI.run(["merge", tmp + "/a.csv.state", tmp + "/c.csv.state", "--out", tmp + "/mixed.csv"])
        #expect(mixed.status == 2, "\(mixed.stderr)")
        for (args, why) in [(["--sample-devices", "0.5"], "--sample-devices: only with --usage"), (["--usage", tmp + "/s.csv", "--sample-devices", "0"], "expected a fraction above 0 and at most 1")] {
            let r = try CLI.run(["run", "--quiet"] + args)
            #expect(r.status == 2 && r.stderr.contains(why), "\(r.stderr)")
        }
    }
}
