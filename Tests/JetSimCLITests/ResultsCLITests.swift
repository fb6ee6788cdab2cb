import Foundation
import Testing

@Suite("Results: --baseline", .endToEnd)
struct ResultsCLITests {
    static let args = ["run", "--devices", "13", "--duration", "1d", "--policy", "lru,oracle,random", "--ram", "2GB,3GB", "--quiet",
                       "--baseline", "lru"]

    static func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test("--baseline appends the delta columns; the baseline's own row is 0 with interval 0")
    func baselineColumns() throws {
        let r = try CLI.run(Self.args)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 7)
        #expect(lines[0].hasSuffix(",overrides," + lines[0].components(separatedBy: ",overrides,")[1]))
        #expect(lines[0].hasSuffix(",baseline,delta_relaunch_cold_ratio,delta_relaunch_cold_ratio_ci95,delta_relaunch_mean_ms,delta_relaunch_mean_ms_ci95,delta_relaunch_p99_ms,delta_relaunch_p99_ms_ci95,delta_data_loss_per_device_day,delta_data_loss_per_device_day_ci95"))
        let zero = ",lru,0.000000,0.000000,0.000,0.000,0.000,0.000,0.000000,0.000000"
        for l in lines.dropFirst() {
            #expect(l.hasPrefix("default,lru,") == l.hasSuffix(zero), "\(l)")
        }
        // Without --baseline the rows are the same, without the delta columns.
        let plain = try CLI.run(Array(Self.args.dropLast(2)))
        let plainLines = plain.stdout.split(separator: "\n").map(String.init)
        for (p, l) in zip(plainLines, lines) { #expect(l.hasPrefix(p + ",")) }
        // The table shows them under their own heading.
        let table = try CLI.run(Self.args + ["--format", "table"])
        #expect(table.stdout.contains("minus lru at the same RAM, paired over devices"))
        #expect(table.stdout.contains("Δ cold %"))
        #expect(!table.stdout.contains("use the paired differences"))
        // Without it, the table says how to get them.
        let hint = try CLI.run(Array(Self.args.dropLast(2)) + ["--format", "table"])
        #expect(hint.stdout.contains("to compare policies use the paired differences: --baseline POLICY"), "\(hint.stdout)")
    }

    @Test("--baseline: merging shards' states gives the unsharded CSV, byte for byte")
    func baselineShards() throws {
        let tmp = try CLI.tempDir()
        let whole = try CLI.run(Self.args + ["--out", tmp + "/all.csv"])
        #expect(whole.status == 0, "\(whole.stderr)")
        var states: [String] = []
        for i in 1...3 {
            let r = try CLI.run(Self.args + ["--shard", "\(i)/3", "--out", tmp + "/s\(i).csv", "--threads", String(1 + i % 2)])
            #expect(r.status == 0, "\(r.stderr)")
            states.append(tmp + "/s\(i).csv.state")
        }
        #expect(try Self.read(states[0]).contains("\nbaseline: lru\n"))
        #expect(try Self.read(states[0]).contains("\npaired: "))
        let merged = try CLI.run(["merge"] + states + ["--out", tmp + "/merged.csv"])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try Self.read(tmp + "/all.csv") == Self.read(tmp + "/merged.csv"))
        // A state without the baseline does not merge with these (different inputs).
        let other = try CLI.run(Array(Self.args.dropLast(2)) + ["--shard", "1/3", "--out", tmp + "/o1.csv"])
        #expect(other.status == 0)
        let mixed = try CLI.run(["merge", tmp + "/o1.csv.state", states[1], states[2]])
        #expect(mixed.status == 2)
        #expect(mixed.stderr.contains("differ"))
    }

    @Test("--baseline that is not run, or not a policy, is bad input (exit 2) before any work")
    func badBaseline() throws {
        let notRun = try CLI.run(["run", "--devices", "2", "--duration", "1h", "--policy", "oracle", "--baseline", "lru", "--quiet"])
        #expect(notRun.status == 2)
        #expect(notRun.stderr.contains("--baseline lru: not among the policies run (oracle)"))
        let unknown = try CLI.run(["run", "--devices", "2", "--duration", "1h", "--baseline", "nope", "--quiet"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("'nope' is not a policy"))
        let tmp = try CLI.tempDir()
        let sweep = try CLI.run(["sweep", "--devices", "2", "--duration", "1h", "--policy", "oracle", "--baseline", "lru", "--quiet",
                                 "--set", "user.sessions_per_day=10,20", "--out", tmp + "/sw"])
        #expect(sweep.status == 2)
        #expect(!FileManager.default.fileExists(atPath: tmp + "/sw"))
    }

    @Test("sweep --baseline: every point's CSV and the combined CSV carry the delta columns")
    func sweepBaseline() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["sweep", "--devices", "4", "--duration", "6h", "--policy", "lru,oracle", "--ram", "2GB", "--baseline", "oracle", "--quiet",
                             "--set", "user.sessions_per_day=10,20", "--out", tmp + "/sw"])
        #expect(r.status == 0, "\(r.stderr)")
        let combined = try Self.read(tmp + "/sw/combined.csv")
        #expect(combined.split(separator: "\n").count == 5)
        #expect(combined.split(separator: "\n").dropFirst().allSatisfy { $0.contains(",oracle,") })
        #expect(combined.hasPrefix(try Self.read(tmp + "/sw/points/1-user.sessions_per_day=10.csv").split(separator: "\n")[0] + "\n"))
        #expect(combined.split(separator: "\n")[0].hasSuffix("delta_data_loss_per_device_day_ci95"))
    }
}

@Suite("Results: --by class", .endToEnd)
struct BreakdownCLITests {
    static let args = ["run", "--workload", "Workloads/mixed-fleet.yaml", "--devices", "11", "--duration", "1d", "--policy", "lru,oracle",
                       "--quiet", "--by", "class"]

    static func rows(_ text: String) -> [[String]] { text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } }

    @Test("--by class: one row per cell and class; the classes add up to the cell, and match the per-device rows")
    func byClass() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(Self.args + ["--by-out", tmp + "/by.csv", "--out", tmp + "/s.csv", "--per-device", tmp + "/d.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let by = Self.rows(try String(contentsOfFile: tmp + "/by.csv", encoding: .utf8))
        let summary = Self.rows(try String(contentsOfFile: tmp + "/s.csv", encoding: .utf8))
        let perDevice = Self.rows(try String(contentsOfFile: tmp + "/d.csv", encoding: .utf8))
        let h = by[0], sh = summary[0], dh = perDevice[0]
        let classes = ["iphone-6s", "iphone-7-plus", "iphone-x", "iphone-xs", "iphone-11"]
        #expect(by.count == 1 + 2 * classes.count)
        #expect(by.dropFirst().map { $0[h.firstIndex(of: "group")!] } == classes + classes)
        for (ci, s) in summary.dropFirst().enumerated() {
            let policy = s[sh.firstIndex(of: "policy")!]
            let mine = by.dropFirst().filter { $0[h.firstIndex(of: "policy")!] == policy }
            #expect(mine.count == classes.count)
            for column in ["devices", "launches", "relaunches", "cold_relaunches", "kills", "kills_pressure", "data_loss_units"] {
                let total = mine.reduce(0) { $0 + Int($1[h.firstIndex(of: column)!])! }
                #expect(String(total) == s[sh.firstIndex(of: column)!], "\(policy) \(column)")
            }
            // Per class: its devices' per-device rows add up to its row.
            for row in mine {
                let cls = row[h.firstIndex(of: "group")!]
                let devs = perDevice.dropFirst().filter { $0[dh.firstIndex(of: "class")!] == cls && $0[dh.firstIndex(of: "policy")!] == policy }
                #expect(String(devs.count) == row[h.firstIndex(of: "devices")!], "\(policy) \(cls)")
                let cold = devs.reduce(0) { $0 + Int($1[dh.firstIndex(of: "cold_relaunches")!])! }
                #expect(String(cold) == row[h.firstIndex(of: "cold_relaunches")!], "\(policy) \(cls)")
            }
            _ = ci
        }
        #expect(FileManager.default.fileExists(atPath: tmp + "/by.csv.provenance.json"))
    }

    @Test("--by archetype through the binary: ten rows per cell, in catalog order; refused with --usage")
    func byArchetype() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["run", "--devices", "3", "--duration", "1d", "--policy", "lru,oracle", "--ram", "2GB", "--quiet",
                             "--by", "archetype", "--by-out", tmp + "/by.csv", "--out", tmp + "/s.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let by = Self.rows(try String(contentsOfFile: tmp + "/by.csv", encoding: .utf8))
        let names = ["social", "messaging", "game", "maps", "music", "camera", "browser", "mail", "productivity", "video"]
        #expect(by.dropFirst().map { $0[4] } == names + names)
        #expect(by.dropFirst().allSatisfy { $0[3] == "archetype" && $0[5] == "3" })
        let u = try CLI.run(["run", "--usage", tmp + "/none.csv", "--by", "archetype", "--by-out", tmp + "/u.csv", "--quiet"])
        // Without --app-map a replayed app has no archetype of its own (issue 47: with one, accepted).
        #expect(u.status == 2 && u.stderr.contains("--by archetype: with --usage, give --app-map FILE.csv too"))
    }

    @Test("--by class: shards merge into the unsharded breakdown, byte for byte; --by needs --by-out")
    func byClassShards() throws {
        let tmp = try CLI.tempDir()
        #expect(try CLI.run(Self.args + ["--by-out", tmp + "/by.csv", "--out", tmp + "/all.csv"]).status == 0)
        var states: [String] = []
        for i in 1...3 {
            let r = try CLI.run(Self.args + ["--by-out", tmp + "/by\(i).csv", "--shard", "\(i)/3", "--out", tmp + "/s\(i).csv"])
            #expect(r.status == 0, "\(r.stderr)")
            states.append(tmp + "/s\(i).csv.state")
        }
        let m = try CLI.run(["merge"] + states + ["--out", tmp + "/m.csv", "--by-out", tmp + "/mby.csv"])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(try String(contentsOfFile: tmp + "/m.csv", encoding: .utf8) == String(contentsOfFile: tmp + "/all.csv", encoding: .utf8))
        #expect(try String(contentsOfFile: tmp + "/mby.csv", encoding: .utf8) == String(contentsOfFile: tmp + "/by.csv", encoding: .utf8))
        // Each merged output's sidecar: the merged workload, the output's own key, the states.
        func keys(_ file: String) throws -> [String] {
            try String(contentsOfFile: tmp + "/" + file + ".provenance.json", encoding: .utf8).split(separator: "\n")
                .compactMap { $0.hasPrefix("  \"") ? String($0.dropFirst(3).prefix { $0 != "\"" }) : nil }
        }
        let summaryKeys = try keys("m.csv"), byKeys = try keys("mby.csv")
        #expect(summaryKeys.suffix(6) == ["baseline", "merged_from", "inputs", "output", "output_fnv1a64", "written_utc"])
        #expect(byKeys.suffix(5) == ["by", "merged_from", "output", "output_fnv1a64", "written_utc"])
        #expect(Array(byKeys.dropLast(5)) == Array(summaryKeys.dropLast(6)))
        let missing = try CLI.run(["run", "--devices", "2", "--duration", "1h", "--by", "class", "--quiet"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("--by-out"))
    }
}

@Suite("Results: --timeseries", .endToEnd)
struct TimeSeriesCLITests {
    static let args = ["run", "--devices", "12", "--duration", "1d", "--policy", "lru,oracle", "--ram", "2GB", "--quiet"]

    @Test("--timeseries: 24 rows per cell; counts add up to the summary's; the summary is unchanged; any thread count gives the same bytes")
    func hourly() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(Self.args + ["--timeseries", tmp + "/ts.csv", "--out", tmp + "/s.csv", "--threads", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        let plain = try CLI.run(Self.args + ["--out", tmp + "/plain.csv"])
        #expect(plain.status == 0)
        let summaryText = try String(contentsOfFile: tmp + "/s.csv", encoding: .utf8)
        #expect(summaryText == (try String(contentsOfFile: tmp + "/plain.csv", encoding: .utf8)))
        let one = try CLI.run(Self.args + ["--timeseries", "-", "--out", "/dev/null", "--threads", "1"])
        let text = try String(contentsOfFile: tmp + "/ts.csv", encoding: .utf8)
        #expect(one.stdout == text)
        let rows = text.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        let h = rows[0]
        #expect(rows.count == 1 + 2 * 24)
        let summary = summaryText.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let sh = summary[0]
        for s in summary.dropFirst() {
            let policy = s[sh.firstIndex(of: "policy")!]
            let mine = rows.dropFirst().filter { $0[1] == policy }
            #expect(mine.map { $0[h.firstIndex(of: "hour")!] } == (0..<24).map(String.init))
            for column in ["launches", "cold_relaunches", "kills", "kills_pressure", "kills_user", "kills_bg_expired"] {
                let total = mine.reduce(0) { $0 + Int($1[h.firstIndex(of: column)!])! }
                #expect(String(total) == s[sh.firstIndex(of: column)!], "\(policy) \(column)")
            }
            // Hour 0 (the users sleep): no user relaunches; only apps the system launched
            // into the background (issue 14) take memory, so at most RAM minus the OS
            // reserve is free: 2048 - 512 MB (os_reserve_mb: auto, 25% of RAM).
            let first = mine[0]
            #expect(first[h.firstIndex(of: "cold_relaunches")!] == "0")
            // RAM - reserve: 2048 - 640 (issue 31's reserve at 2 GB).
            #expect(Double(first[h.firstIndex(of: "available_mb_mean")!])! <= 1408)
            #expect(Double(first[h.firstIndex(of: "available_mb_min")!])! < 1408, "the system launches an app in the first hour on one of 12 devices (seed 1)")
            #expect(first[h.firstIndex(of: "devices")!] == "12")
            // Resident + available = RAM - reserve in every hour (means over the same devices).
            for row in mine {
                let a = Double(row[h.firstIndex(of: "available_mb_mean")!])!, res = Double(row[h.firstIndex(of: "resident_mb_mean")!])!
                #expect(abs(a + res - 1408) < 0.002)
                #expect(Double(row[h.firstIndex(of: "available_mb_min")!])! <= a)
            }
        }
    }

    @Test("a series that would take more than 1 GiB is refused before any work (exit 2, nothing written)")
    func tooLarge() throws {
        let tmp = try CLI.tempDir()
        // 21 cells x 144,000 hours x 27 fields x 8 bytes x 3 buffers: 1,868 MiB (27 with
        // kills_pressure_after_kill, issue 29).
        let r = try CLI.run(["run", "--devices", "1", "--duration", "6000d", "--policy", "all", "--ram", "2GB,3GB,4GB", "--quiet",
                             "--threads", "2", "--timeseries", tmp + "/ts.csv", "--out", tmp + "/s.csv"])
        #expect(r.status == 2 && r.stderr.contains("--timeseries") && r.stderr.contains("1868 MiB"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tmp + "/s.csv") && !FileManager.default.fileExists(atPath: tmp + "/ts.csv"))
        let sw = try CLI.run(["sweep", "--out", tmp + "/sw", "--set", "fleet.duration_days=1,6000", "--devices", "1", "--policy", "all",
                              "--ram", "2GB,3GB,4GB", "--quiet", "--threads", "2", "--timeseries"])
        #expect(sw.status == 2 && sw.stderr.contains("point 2"), "\(sw.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tmp + "/sw"))
    }

    @Test("--timeseries with --shard: three shards merge to the unsharded series and summary, byte for byte")
    func sharded() throws {
        let tmp = try CLI.tempDir()
        let whole = try CLI.run(Self.args + ["--timeseries", tmp + "/ts.csv", "--out", tmp + "/all.csv"])
        #expect(whole.status == 0, "\(whole.stderr)")
        var states: [String] = []
        for i in 1...3 {
            let r = try CLI.run(Self.args + ["--timeseries", tmp + "/ts\(i).csv", "--shard", "\(i)/3", "--out", tmp + "/s\(i).csv",
                                             "--threads", String(1 + i % 2)])
            #expect(r.status == 0, "\(r.stderr)")
            states.append(tmp + "/s\(i).csv.state")
        }
        // Shard 1 of 3 ran devices 0, 3, 6, 9: its own series counts 4.
        #expect((try String(contentsOfFile: tmp + "/ts1.csv", encoding: .utf8)).split(separator: "\n")[1].split(separator: ",")[4] == "4")
        // No output may replace one of the states being merged (or its sidecar).
        let over = try CLI.run(["merge"] + states + ["--out", tmp + "/x.csv", "--timeseries", states[1]])
        #expect(over.status == 2 && over.stderr.contains("would replace the state file"), "\(over.stderr)")
        #expect(try String(contentsOfFile: states[1], encoding: .utf8).hasPrefix("# jetsim shard state"))
        // However the path is spelled: relative with ./ against the state's plain name,
        // through a directory's .., or a symbolic link to it.
        try FileManager.default.createSymbolicLink(atPath: tmp + "/link.state", withDestinationPath: states[2])
        let names = ["s1.csv.state", "s2.csv.state", "s3.csv.state"]
        for (given, output) in [(names, "./s2.csv.state"), (names, "../\(URL(fileURLWithPath: tmp).lastPathComponent)/s3.csv.state"),
                                (names, "link.state"), (["./s1.csv.state", "s2.csv.state", "link.state"], "s3.csv.state")] {
            let r = try CLI.run(["merge"] + given + ["--out", tmp + "/x.csv", "--timeseries", output], cwd: tmp)
            #expect(r.status == 2 && r.stderr.contains("--timeseries \(output) would replace the state file"), "\(output): \(r.stderr)")
        }
        for s in states { #expect(try String(contentsOfFile: s, encoding: .utf8).hasPrefix("# jetsim shard state")) }
        #expect(!FileManager.default.fileExists(atPath: tmp + "/x.csv"))
        try FileManager.default.removeItem(atPath: tmp + "/link.state")
        let m = try CLI.run(["merge"] + states.reversed() + ["--out", tmp + "/merged.csv", "--timeseries", tmp + "/merged-ts.csv"])
        #expect(m.status == 0, "\(m.stderr)")
        let seriesSidecar = try String(contentsOfFile: tmp + "/merged-ts.csv.provenance.json", encoding: .utf8)
        #expect(seriesSidecar.contains("\"merged_from\": [\"\(states[2])\", "), "\(seriesSidecar)")
        for (a, b) in [("ts.csv", "merged-ts.csv"), ("all.csv", "merged.csv")] {
            #expect(try Data(contentsOf: URL(fileURLWithPath: tmp + "/" + a)) == Data(contentsOf: URL(fileURLWithPath: tmp + "/" + b)), "\(b)")
        }
        // A shard run without --timeseries is another run (its inputs differ); and
        // states without a series have none to merge.
        let plain = try CLI.run(Self.args + ["--shard", "2/3", "--out", tmp + "/p2.csv"])
        #expect(plain.status == 0)
        let mixed = try CLI.run(["merge", states[0], tmp + "/p2.csv.state", states[2], "--out", tmp + "/x.csv"])
        #expect(mixed.status == 2 && mixed.stderr.contains("inputs"))
        var plainStates = [tmp + "/p2.csv.state"]
        for i in [1, 3] {
            _ = try CLI.run(Self.args + ["--shard", "\(i)/3", "--out", tmp + "/p\(i).csv"])
            plainStates.append(tmp + "/p\(i).csv.state")
        }
        let none = try CLI.run(["merge"] + plainStates + ["--out", tmp + "/y.csv", "--timeseries", tmp + "/y-ts.csv"])
        #expect(none.status == 2 && none.stderr.contains("no time series"))
        #expect(!FileManager.default.fileExists(atPath: tmp + "/y-ts.csv"))
    }

    @Test("sweep --timeseries: each point's series is the one `run --timeseries` writes with its --set values, byte for byte")
    func sweep() throws {
        let tmp = try CLI.tempDir()
        let common = ["--devices", "4", "--duration", "6h", "--policy", "lru", "--ram", "2GB", "--quiet"]
        let s = try CLI.run(["sweep", "--timeseries", "--out", tmp + "/sw", "--set", "user.sessions_per_day=10,20"] + common)
        #expect(s.status == 0, "\(s.stderr)")
        for (i, v) in ["10", "20"].enumerated() {
            let r = try CLI.run(["run", "--set", "user.sessions_per_day=\(v)", "--timeseries", tmp + "/ts\(v).csv", "--out", "/dev/null"] + common)
            #expect(r.status == 0, "\(r.stderr)")
            let point = tmp + "/sw/points/\(i + 1)-user.sessions_per_day=\(v).timeseries.csv"
            #expect(try String(contentsOfFile: point, encoding: .utf8) == String(contentsOfFile: tmp + "/ts\(v).csv", encoding: .utf8))
            #expect(FileManager.default.fileExists(atPath: point + ".provenance.json"))
        }
        #expect(try String(contentsOfFile: tmp + "/sw/plan.txt", encoding: .utf8).contains("\ntimeseries: yes\n"))
        // The same directory without --timeseries is another sweep.
        let again = try CLI.run(["sweep", "--out", tmp + "/sw", "--set", "user.sessions_per_day=10,20"] + common)
        #expect(again.status == 2 && again.stderr.contains("different sweep"))
    }
}

@Suite("Results: trace --format perfetto", .endToEnd)
struct PerfettoCLITests {
    @Test("perfetto JSON: required fields, balanced slices, monotonic time per track, the CSV trace's events as instants")
    func perfetto() throws {
        let args = ["trace", "--duration", "1d", "--devices", "2", "--policy", "lru", "--ram", "2GB"]
        let r = try CLI.run(args + ["--format", "perfetto"])
        #expect(r.status == 0, "\(r.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let events = try #require(root["traceEvents"] as? [[String: Any]])
        var depth: [String: Int] = [:], last: [String: Int] = [:]
        var phases: [String: Int] = [:]
        var killed = 0
        for e in events {
            let ph = try #require(e["ph"] as? String)
            phases[ph, default: 0] += 1
            let pid = try #require(e["pid"] as? Int), tid = try #require(e["tid"] as? Int)
            if ph == "M" { #expect(e["name"] as? String == "process_name" || e["name"] as? String == "thread_name"); continue }
            let ts = try #require(e["ts"] as? Int)
            #expect(ts >= 0 && ts <= 86_400_000_000)
            let track = ph == "C" ? "\(pid)/C/\(e["name"] as? String ?? "")" : "\(pid)/\(tid)"
            #expect(ts >= last[track, default: 0], "time goes back on \(track)")
            last[track] = ts
            switch ph {
            case "B":
                #expect(["inactive", "active", "background", "suspended"].contains(e["name"] as? String ?? ""))
                depth[track, default: 0] += 1
                #expect(depth[track]! == 1, "nested slice on \(track)")
            case "E":
                depth[track, default: 0] -= 1
                #expect(depth[track]! == 0, "E without B on \(track)")
            case "i":
                #expect(e["s"] as? String == "t")
                #expect(e["name"] is String)
                if (e["name"] as? String)?.hasPrefix("killed: ") == true { killed += 1 }
            case "C":
                let mb = try #require((e["args"] as? [String: Any])?["MB"] as? Double)
                #expect(mb >= 0 && mb <= 2_048)
            default:
                Issue.record("unexpected phase \(ph)")
            }
        }
        #expect(depth.values.allSatisfy { $0 == 0 })
        #expect(phases["B"] == phases["E"])
        #expect((phases["B"] ?? 0) > 10)
        #expect((phases["C"] ?? 0) > 10)
        // The same run as the CSV trace: one instant per CSV line, the same kills.
        let csv = try CLI.run(args).stdout.split(separator: "\n").dropFirst()
        #expect(phases["i"] == csv.count)
        #expect(killed == csv.filter { $0.split(separator: ",")[3] == "terminated" }.count)
        #expect(killed > 0)
    }

    @Test("perfetto from a usage trace of several devices is one JSON document with a process per device")
    func perfettoUsage() throws {
        let tmp = try CLI.tempDir()
        let usage = tmp + "/u.csv"
        try "device,time_s,app,duration_s\na,0,Mail,30\na,100,Maps,20\nb,0,Mail,10\nb,50,Chat,40\nc,5,Maps,5\n"
            .write(toFile: usage, atomically: true, encoding: .utf8)
        let r = try CLI.run(["trace", "--usage", usage, "--format", "perfetto", "--policy", "lru", "--ram", "2GB"])
        #expect(r.status == 0, "\(r.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let events = try #require(root["traceEvents"] as? [[String: Any]])
        let processes = events.filter { $0["name"] as? String == "process_name" }.compactMap { $0["pid"] as? Int }
        #expect(processes.count == 3 && Set(processes).count == 3)
    }
}
