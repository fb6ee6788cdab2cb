import Foundation
import JetSim
import Testing

let summaryHeader = "workload,policy,ram_mb,devices,duration_h,seed,launches,relaunches,cold_relaunches,relaunch_cold_ratio,relaunch_cold_ratio_ci95,relaunch_p50_ms,relaunch_p90_ms,relaunch_p99_ms,relaunch_mean_ms,kills,kills_pressure,kills_bg_expired,kills_watchdog,kills_user,kills_limit,data_loss_events,data_loss_units,data_loss_per_device_day,data_loss_per_device_day_ci95,state_loss_events,memory_warnings,coalesced_received,coalesced_delivered,coalesced_dropped,events"

/// A small run, quick in a debug build.
let small = ["--devices", "12", "--duration", "2d", "--quiet"]

func rows(_ csv: String) -> [[String: String]] {
    let lines = csv.split(separator: "\n").map(String.init)
    let head = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    return lines.dropFirst().map { line in
        Dictionary(uniqueKeysWithValues: zip(head, line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)))
    }
}

@Suite("jetsim run, end to end through the binary", .endToEnd)
struct RunCLITests {
    @Test("the default run succeeds: one row per policy and RAM size, under the documented header")
    func defaultRun() throws {
        // The whole default fleet (500 devices x 7 days x 21 cells) takes minutes in a
        // debug build under load. Its last shard runs the same defaults on one device
        // (1/500 of the work): the cells and duration are in its CSV, the fleet it is a
        // shard of in its state. Shards add up to the whole run byte for byte
        // (ShardCLITests); `run` without --out writes to stdout (`deterministic`).
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["run", "--quiet", "--shard", "500/500", "--out", tmp + "/default.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let csv = try String(contentsOfFile: tmp + "/default.csv", encoding: .utf8)
        let lines = csv.split(separator: "\n")
        #expect(lines.first.map { $0.hasPrefix(summaryHeader + ",") } == true)
        #expect(lines.count == 1 + PolicyID.allSelected.count * 3)
        let table = rows(csv)
        #expect(Set(table.map { $0["policy"]! }) == Set(PolicyID.allSelected.map(\.name)))
        #expect(Set(table.map { $0["ram_mb"]! }) == ["2048", "3072", "4096"])
        #expect(table.allSatisfy { $0["devices"] == "1" && $0["duration_h"] == "168.000" && Int($0["relaunches"]!)! > 0 })
        let state = try String(contentsOfFile: tmp + "/default.csv.state", encoding: .utf8)
        #expect(state.contains("\nshard: 500/500\nfleet_devices: 500\n"))
    }

    @Test("the same inputs give byte-identical CSV, for any thread count")
    func deterministic() throws {
        // Enough devices that 7 workers each take a chunk (the runner uses at most one
        // thread per chunk of FleetRunner.chunkSize devices: 12 devices ran 2).
        let devices = 7 * FleetRunner.chunkSize + 3
        let args = ["run", "--devices", String(devices), "--duration", "1d", "--quiet"]
        let a = try CLI.run(args + ["--threads", "1"])
        let b = try CLI.run(args + ["--threads", "2"])
        let c = try CLI.run(args + ["--threads", "7"])
        #expect(a.status == 0 && b.status == 0 && c.status == 0)
        #expect(a.stdout == b.stdout)
        #expect(a.stdout == c.stdout)
        let d = try CLI.run(args + ["--seed", "2"])
        #expect(d.stdout != a.stdout)
    }

    @Test("every cell sees the same users: relaunch counts agree across policies at one RAM size")
    func commonRandomNumbers() throws {
        let r = try CLI.run(["run"] + small + ["--ram", "3GB"])
        let launches = Set(rows(r.stdout).map { $0["launches"]! })
        #expect(launches.count == 1)
    }

    @Test("policies and RAM sizes run as a cross product; sizes in MB, GB, decimals and MiB")
    func crossProduct() throws {
        let r = try CLI.run(["run"] + small + ["--policy", "lru,oracle", "--ram", "1.5GB,2048MiB,3GB"])
        #expect(r.status == 0, "\(r.stderr)")
        let t = rows(r.stdout)
        #expect(t.map { $0["policy"]! } == ["lru", "oracle", "lru", "oracle", "lru", "oracle"])
        #expect(t.map { $0["ram_mb"]! } == ["1536", "1536", "2048", "2048", "3072", "3072"])
    }

    @Test("on irm-zipf at a fixed seed, relaunch_cold_ratio of oracle <= lru <= random")
    func irmOrdering() throws {
        let r = try CLI.run(["run", "--workload", "Workloads/irm-zipf.yaml", "--devices", "60", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        var ratio: [String: Double] = [:]
        for row in rows(r.stdout) { ratio[row["policy"]!] = Double(row["relaunch_cold_ratio"]!) }
        #expect(ratio["oracle"]! <= ratio["lru"]!)
        #expect(ratio["lru"]! <= ratio["random"]!)
    }

    @Test("--out, --per-device and --perf write complete files; stdout stays empty")
    func outputs() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["run"] + small + ["--policy", "lru,random", "--ram", "2GB", "--out", tmp + "/s.csv",
                                               "--per-device", tmp + "/d.csv", "--perf", tmp + "/p.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        // Each output, and its provenance sidecar (docs/cli.md, "Provenance").
        #expect(CLI.files(in: tmp) == ["d.csv", "d.csv.provenance.json", "p.csv", "p.csv.provenance.json", "s.csv", "s.csv.provenance.json"])
        let perDevice = try String(contentsOfFile: tmp + "/d.csv", encoding: .utf8).split(separator: "\n")
        #expect(perDevice.count == 1 + 12 * 2)
        #expect(perDevice[1].hasPrefix("0,iphone-11,lru,2048,"))
        #expect(perDevice[2].hasPrefix("0,iphone-11,random,2048,"))
        let perf = try String(contentsOfFile: tmp + "/p.csv", encoding: .utf8).split(separator: "\n")
        #expect(perf.first == "policy,ram_mb,events,wall_s,events_per_s")
        #expect(perf.last?.hasPrefix("total,,") == true)
        // Per-device results add up to the summary.
        let summary = rows(try String(contentsOfFile: tmp + "/s.csv", encoding: .utf8))
        let devices = rows(perDevice.joined(separator: "\n"))
        for policy in ["lru", "random"] {
            let sum = devices.filter { $0["policy"] == policy }.reduce(0) { $0 + Int($1["cold_relaunches"]!)! }
            #expect(summary.first { $0["policy"] == policy }?["cold_relaunches"] == String(sum))
        }
    }

    @Test("--set overrides a workload key")
    func setOverride() throws {
        let a = try CLI.run(["run"] + small + ["--policy", "lru", "--ram", "2GB"])
        let b = try CLI.run(["run"] + small + ["--policy", "lru", "--ram", "2GB", "--set", "user.sessions_per_day=10"])
        #expect(b.status == 0)
        #expect(Int(rows(b.stdout)[0]["launches"]!)! < Int(rows(a.stdout)[0]["launches"]!)!)
    }

    @Test("--usage replays a recorded trace instead of the synthetic user")
    func usage() throws {
        let tmp = try CLI.tempDir()
        var csv = "device,time_s,app,duration_s\n"
        for d in 0..<3 { for i in 0..<200 where i % 3 == d { csv += "d\(i % 3),\(i * 120),app\(i * 7 % 11),60\n" } }
        try csv.write(toFile: tmp + "/u.csv", atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", "--usage", tmp + "/u.csv", "--policy", "lru", "--ram", "2GB", "--duration", "1d", "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let row = rows(r.stdout)[0]
        #expect(row["devices"] == "3")
        #expect(row["launches"] == "200")
    }

    @Test("--usage: the duration comes from the trace, --devices selects, rows past --duration are reported, names reach --per-device")
    func usageSpanAndSelection() throws {
        let tmp = try CLI.tempDir()
        // Two devices: a ends its last use at 3600 s, b at 7200 s; spans add 1 s (lock) + 60 s.
        let csv = "\u{FEFF}device,time_s,app,duration_s\r\n\"phone a\",0,mail,60\r\n\"phone a\",3540,maps,60\r\nb,7100,mail,100\r\n"
        try csv.write(toFile: tmp + "/u.csv", atomically: true, encoding: .utf8)
        let base = ["run", "--usage", tmp + "/u.csv", "--policy", "lru", "--ram", "2GB", "--quiet"]
        let r = try CLI.run(base + ["--per-device", tmp + "/pd.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        // Mean span (3661 + 7261) / 2 s = 1.517 h.
        #expect(rows(r.stdout)[0]["duration_h"] == "1.517")
        let pd = rows(try String(contentsOfFile: tmp + "/pd.csv", encoding: .utf8))
        #expect(pd.map { $0["device_name"] } == ["phone a", "b"])
        let one = try CLI.run(base + ["--devices", "1"])
        #expect(one.status == 0 && rows(one.stdout)[0]["devices"] == "1")
        let three = try CLI.run(base + ["--devices", "3"])
        #expect(three.status == 2 && three.stderr.contains("--devices 3: \(tmp)/u.csv has only 2 device(s)"))
        let short = try CLI.run(base + ["--duration", "1h"])
        #expect(short.status == 0 && short.stderr.contains("warning: 1 row(s) of \(tmp)/u.csv start at or after --duration"))
        try "device,time_s,app,duration_s\na,0,x,1\nb,0,x,1\na,5,y,1\n".write(toFile: tmp + "/bad.csv", atomically: true, encoding: .utf8)
        let bad = try CLI.run(["run", "--usage", tmp + "/bad.csv", "--quiet"])
        #expect(bad.status == 2 && bad.stderr.contains("\(tmp)/bad.csv:4: device: device 'a' comes back after other devices"))
    }

    /// Each class of bad input: exit 2, a message that locates it, no output file.
    @Test("bad input exits 2 with a located message and writes nothing", arguments: [
        ("bad-yaml", ["--workload", "W"], "fleet:\n  devices: [1\n", "W:"),
        ("unknown-key", ["--workload", "W"], "fleet:\n  devices: 10\n  colour: red\n", "W:3: fleet.colour: unknown key"),
        ("wrong-type", ["--workload", "W"], "fleet:\n  devices: many\n", "W:2: fleet.devices: expected a whole number"),
        ("out-of-range", ["--workload", "W"], "user:\n  switcher_share: 2\n", "W:2: user.switcher_share: 2 is out of range"),
        ("bad-flag", ["--devise", "3"], nil, "Unknown option '--devise'"),
        ("bad-size", ["--ram", "3XB"], nil, "'--ram <sizes>': '3XB' is not a size"),
        ("bad-policy", ["--policy", "lifo"], nil, "'--policy <names>': 'lifo' is not a policy"),
        ("bad-duration", ["--duration", "soon"], nil, "'--duration <dur>': 'soon' is not a duration"),
        ("bad-set", ["--set", "user.nope=3"], nil, "--set user.nope=3: user.nope: unknown key"),
        ("unreadable", ["--workload", "/nonexistent/w.yaml"], nil, "/nonexistent/w.yaml: no such file"),
        ("bad-shard", ["--shard", "5/4"], nil, "'--shard <I/N>': expected I/N"),
        ("bad-threads", ["--threads", "0"], nil, "--threads"),
        // A negative number is a bad value, not "Missing value" (a flag to ArgumentParser).
        ("negative-seed", ["--seed", "-1"], nil, "'--seed <seed>': expected a whole number from 0 to 18446744073709551615 (the seed key's range)"),
        ("negative-devices", ["--devices", "-3"], nil, "--devices: expected a whole number from 1 to 100000000 (fleet.devices's range), got -3"),
        ("negative-threads", ["--threads", "-2"], nil, "--threads: expected a whole number >= 1, got -2"),
        ("word-threads", ["--threads", "two"], nil, "'--threads <threads>': expected a whole number >= 1"),
        ("size-out-of-range", ["--ram", "32MB"], nil, "'--ram <sizes>': '32MB' is out of range: a RAM size is from 64MB to 1TB"),
    ] as [(String, [String], String?, String)])
    func badInput(name: String, flags: [String], file: String?, message: String) throws {
        let tmp = try CLI.tempDir(name)
        var args = flags
        var expected = message
        if let file {
            try file.write(toFile: tmp + "/w.yaml", atomically: true, encoding: .utf8)
            args = args.map { $0 == "W" ? tmp + "/w.yaml" : $0 }
            expected = expected.replacingOccurrences(of: "W:", with: tmp + "/w.yaml:")
        }
        let r = try CLI.run(["run", "--devices", "2", "--duration", "1h", "--out", tmp + "/out.csv"] + args)
        #expect(r.status == 2, "\(name): status \(r.status), \(r.stderr)")
        #expect(r.stderr.contains(expected), "\(name): \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tmp + "/out.csv"))
        #expect(CLI.files(in: tmp).allSatisfy { $0 == "w.yaml" })
    }

    @Test("an output in a missing directory is a bad-input error before any work")
    func missingDirectory() throws {
        let r = try CLI.run(["run", "--devices", "2", "--duration", "1h", "--out", "/nonexistent/dir/x.csv"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("/nonexistent/dir"))
    }

    /// `--duration` stands for `fleet.duration_days` and gets the key's checks: its
    /// range and, after it is applied, the checks across keys (the action bound), in
    /// `run`, `trace` and `sweep`. Before, Int64.max microseconds with --timeseries
    /// trapped (arithmetic overflow in the series' hour count) and 36,500 days ran.
    @Test("--duration is checked as fleet.duration_days is (range, action bound): exit 2 before any work, nothing written")
    func durationCheckedAsTheKey() throws {
        let tmp = try CLI.tempDir()
        let range = "--duration: expected from 0.001d to 36500d (fleet.duration_days's range), got"
        let bound = ": user: these rates over fleet.duration_days make about 291 million actions per device, and the system wakes about 3 million more; at most 50 million in all are accepted"
        let cases: [([String], String)] = [
            (["run", "--duration", "9223372036854775807us", "--timeseries", tmp + "/ts.csv", "--out", tmp + "/s.csv"], "\(range) 9223372036854.775807s"),
            (["run", "--duration", "36501d", "--out", tmp + "/s.csv"], "\(range) 36501d"),
            (["run", "--duration", "86s", "--out", tmp + "/s.csv"], "\(range) 86s"),
            (["run", "--duration", "36500d", "--timeseries", tmp + "/ts.csv", "--out", tmp + "/s.csv"], "--duration 36500d\(bound)"),
            (["trace", "--duration", "36500d"], "--duration 36500d\(bound)"),
            (["sweep", "--out", tmp + "/sw", "--set", "user.notifications_per_day=1,2", "--duration", "36501d"], "\(range) 36501d"),
        ]
        for (args, message) in cases {
            let r = try CLI.run(args + ["--devices", "1", "--policy", "lru", "--ram", "2GB", "--quiet"])
            #expect(r.status == 2 && r.stderr.contains("jetsim: \(message)"), "\(args): \(r.status) \(r.stderr)")
            #expect(r.stdout.isEmpty && CLI.files(in: tmp).isEmpty, "\(args)")
        }
        // The same bound, said the same way, as a --set of the key.
        let set = try CLI.run(["run", "--set", "fleet.duration_days=36500", "--devices", "1", "--policy", "lru", "--ram", "2GB", "--quiet", "--out", tmp + "/s.csv"])
        #expect(set.status == 2 && set.stderr.contains("--set fleet.duration_days=36500\(bound)"), "\(set.stderr)")
        // The ends of the range run (0.001 days is 86.4 s).
        let shortest = try CLI.run(["run", "--duration", "86400ms", "--devices", "1", "--policy", "lru", "--ram", "2GB", "--quiet", "--out", tmp + "/s.csv"])
        #expect(shortest.status == 0, "\(shortest.stderr)")
    }

    @Test("two outputs that name one file, however spelled (./, .., a symbolic link), are refused before any work")
    func outputsDistinct() throws {
        let tmp = try CLI.tempDir()
        FileManager.default.createFile(atPath: tmp + "/a.csv", contents: Data("keep\n".utf8))
        try FileManager.default.createSymbolicLink(atPath: tmp + "/link.csv", withDestinationPath: tmp + "/a.csv")
        for other in [tmp + "/./a.csv", tmp + "/sub/../a.csv", tmp + "/link.csv"] {
            let r = try CLI.run(["run", "--devices", "1", "--policy", "lru", "--ram", "2GB", "--duration", "1d", "--quiet",
                                 "--out", tmp + "/a.csv", "--timeseries", other])
            #expect(r.status == 2 && r.stderr.contains("--out and --timeseries both write to"), "\(other): \(r.status) \(r.stderr)")
            #expect(try String(contentsOfFile: tmp + "/a.csv", encoding: .utf8) == "keep\n")
        }
        let fine = try CLI.run(["run", "--devices", "1", "--policy", "lru", "--ram", "2GB", "--duration", "1d", "--quiet",
                                "--out", tmp + "/a.csv", "--timeseries", tmp + "/b.csv"])
        #expect(fine.status == 0, "\(fine.stderr)")
    }
}

@Suite("jetsim trace, policies, validate", .endToEnd)
struct OtherCommandTests {
    @Test("trace writes the scenario trace's columns for a small synthetic run")
    func trace() throws {
        let r = try CLI.run(["trace", "--duration", "1d", "--policy", "lru", "--ram", "2GB"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.first == "time_ms,device,app,event,detail,state")
        #expect(lines.count > 100)
        #expect(lines.contains { $0.contains(",didFinishLaunching,,inactive") })
        let again = try CLI.run(["trace", "--duration", "1d", "--policy", "lru", "--ram", "2GB"])
        #expect(again.stdout == r.stdout)
    }

    @Test("trace --usage streams every trace device, or the first --devices N; too few devices is exit 2 before any output")
    func traceUsage() throws {
        let dir = try CLI.tempDir()
        let csv = dir + "/u.csv"
        try "device,time_s,app,duration_s\n\"a,1\",0,x,30\n\"a,1\",100,y,30\nb,0,x,10\nc,5,z,20\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let all = try CLI.run(["trace", "--usage", csv, "--policy", "lru", "--ram", "2GB"])
        #expect(all.status == 0, "\(all.stderr)")
        let devices = Set(all.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[1] })
        #expect(devices == ["0", "1", "2"])
        let two = try CLI.run(["trace", "--usage", csv, "--policy", "lru", "--ram", "2GB", "--devices", "2"])
        #expect(two.status == 0, "\(two.stderr)")
        let kept = all.stdout.split(separator: "\n").filter { $0.split(separator: ",")[1] != "2" }
        #expect(two.stdout.split(separator: "\n") == kept)
        let many = try CLI.run(["trace", "--usage", csv, "--policy", "lru", "--ram", "2GB", "--devices", "4"])
        #expect(many.status == 2 && many.stdout.isEmpty)
        #expect(many.stderr.contains("--devices 4: \(csv) has only 3 device(s)"))
    }

    @Test("trace refuses more than one cell")
    func traceOneCell() throws {
        let r = try CLI.run(["trace", "--duration", "1h", "--policy", "lru,oracle", "--ram", "2GB"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("exactly one policy and one RAM size"))
    }

    @Test("policies prints one line per registered policy, in registry order: its name, then its description")
    func policies() throws {
        let r = try CLI.run(["policies"])
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(r.status == 0 && r.stdout.hasSuffix("\n"))
        #expect(lines.count == PolicyID.all.count)
        for (line, p) in zip(lines, PolicyID.all) {
            #expect(line.split(separator: " ").first.map(String.init) == p.name, "\(line)")
            #expect(line.hasSuffix("  " + p.summary), "\(line)")
            #expect(!p.summary.isEmpty)
        }
    }

    @Test("validate prints the resolved workload, which validates again")
    func validate() throws {
        let r = try CLI.run(["validate", "Workloads/small-ram.yaml"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("ram_mb: 2048"))
        #expect(r.stdout.contains("sessions_per_day: 19"))  // the default user's (issue 14)
        let tmp = try CLI.tempDir()
        try r.stdout.write(toFile: tmp + "/resolved.yaml", atomically: true, encoding: .utf8)
        let again = try CLI.run(["validate", tmp + "/resolved.yaml"])
        #expect(again.status == 0)
        #expect(again.stdout.split(separator: "\n").dropFirst() == r.stdout.split(separator: "\n").dropFirst())
        let bad = try CLI.run(["validate", "Workloads/small-ram.yaml", "--set", "fleet.devices=0"])
        #expect(bad.status == 2 && bad.stderr.contains("fleet.devices"))
    }
}
