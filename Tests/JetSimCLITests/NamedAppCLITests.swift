import Foundation
import Testing

/// Issue 47 through the binary: the shipped named-app example, `--by app` in run and
/// sweep, `--compare-set`, the refusals, replays on the fleet's classes, `--by
/// archetype` with an app map, and external policy protocol 2.
@Suite("Named apps, --by app and --compare-set through the binary", .serialized)
struct NamedAppCLITests {
    static let app = ["--workload", "Workloads/examples/my-app.yaml", "--policy", "jetsam-bands", "--duration", "1d", "--quiet"]
    static func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
    static let saves = ["--compare-set", "catalog.named_apps.photo.save_strategy={on-enter-background: 1}",
                        "--compare-set", "catalog.named_apps.photo.save_strategy={on-enter-background: 0.5, periodic: 0.5}"]

    @Test("the example runs with --by app: a photo and a rest row per RAM, the same at any thread count")
    func example() throws {
        let tmp = try CLI.tempDir()
        for t in ["1", "2"] {
            let r = try CLI.run(["run"] + Self.app + ["--devices", "6", "--ram", "2GB,3GB", "--threads", t, "--by", "app", "--by-out", tmp + "/by\(t).csv",
                                                       "--out", tmp + "/s\(t).csv"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let by = try Self.read(tmp + "/by1.csv")
        #expect(by == (try Self.read(tmp + "/by2.csv")))
        let rows = by.split(separator: "\n").dropFirst()
        #expect(rows.map { $0.split(separator: ",")[4] } == ["photo", "rest", "photo", "rest"])
        #expect(rows.allSatisfy { $0.split(separator: ",")[5] == "6" })
    }

    @Test("a sweep writes each point's breakdown and combined.by.csv, the point's --set values appended")
    func sweep() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["sweep"] + Self.app + ["--devices", "3", "--ram", "2GB", "--by", "app", "--set", "catalog.named_apps.photo.active_mb=300,450",
                                                     "--out", tmp + "/sw"])
        #expect(r.status == 0, "\(r.stderr)")
        let combined = try Self.read(tmp + "/sw/combined.by.csv")
        let lines = combined.split(separator: "\n")
        #expect(lines[0].hasSuffix(",overrides"))
        #expect(lines.count == 1 + 2 * 2)
        #expect(lines[1].hasSuffix(",catalog.named_apps.photo.active_mb=300") && lines[3].hasSuffix(",catalog.named_apps.photo.active_mb=450"))
        let point = try Self.read(tmp + "/sw/points/1-catalog.named_apps.photo.active_mb=300.by.csv")
        #expect(point.split(separator: "\n").count == 3)
    }

    @Test("--compare-set: a variant column in the per-device rows, the paired table, shards merge byte for byte")
    func compare() throws {
        let tmp = try CLI.tempDir()
        let args = ["run"] + Self.app + ["--devices", "5", "--ram", "2GB", "--by", "app"] + Self.saves
        var r = try CLI.run(args + ["--out", tmp + "/all.csv", "--by-out", tmp + "/all.by.csv", "--per-device", tmp + "/d.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        for i in 1...2 {
            r = try CLI.run(args + ["--out", tmp + "/s\(i).csv", "--by-out", tmp + "/s\(i).by.csv", "--shard", "\(i)/2"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        r = try CLI.run(["merge", tmp + "/s1.csv.state", tmp + "/s2.csv.state", "--out", tmp + "/m.csv", "--by-out", tmp + "/m.by.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.read(tmp + "/m.csv") == Self.read(tmp + "/all.csv"))
        #expect(try Self.read(tmp + "/m.by.csv") == Self.read(tmp + "/all.by.csv"))
        let perDevice = try Self.read(tmp + "/d.csv").split(separator: "\n")
        #expect(perDevice[0].hasSuffix(",variant") && perDevice.count == 1 + 5 * 2)
        let table = try CLI.run(args + ["--format", "table", "--by-out", tmp + "/t.by.csv"])
        #expect(table.status == 0)
        #expect(table.stdout.contains("V1: --compare-set catalog.named_apps.photo.save_strategy={on-enter-background: 1} (the reference)"))
        #expect(table.stdout.contains("minus V1 at the same policy and RAM, paired over devices"))
    }

    /// (arguments, words of the error): each exit 2 before any work.
    static let refusals: [([String], String)] = [
        (["run", "--devices", "2", "--duration", "1d", "--by", "app", "--by-out", "-"], "--by app: the workload declares no app by name"),
        (["run", "--devices", "2", "--duration", "1d", "--compare-set", "user.sessions_per_day=5"], "give at least two"),
        (["run", "--devices", "2", "--duration", "1d", "--compare-set", "seed=1", "--compare-set", "seed=2"], "seed cannot differ between variants"),
        (["run", "--devices", "2", "--duration", "1d", "--compare-set", "user.x=1", "--compare-set", "user.x=2"], "user.x"),
        (["run", "--devices", "2", "--duration", "1d", "--compare-set", "user.sessions_per_day=5", "--compare-set", "user.sessions_per_day=5"], "given twice"),
        (["run", "--usage", "Workloads/examples/usage.csv", "--compare-set", "user.sessions_per_day=5", "--compare-set", "user.sessions_per_day=6"],
         "--compare-set: not with --usage"),
        (["run", "--usage", "Workloads/examples/usage.csv", "--by", "archetype", "--by-out", "-"], "give --app-map FILE.csv too"),
    ]

    @Test("bad --by app and --compare-set uses are refused (exit 2), naming the option", arguments: refusals.indices)
    func refused(_ i: Int) throws {
        let (args, words) = Self.refusals[i]
        let r = try CLI.run(args)
        #expect(r.status == 2, "\(args): \(r.stderr)")
        #expect(r.stderr.contains(words), "\(args): \(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test("a declared footprint over a class's app fit runs as declared, said on stderr even with --quiet")
    func overFit() throws {
        let r = try CLI.run(["run"] + Self.app + ["--devices", "2", "--ram", "2GB", "--set", "catalog.named_apps.photo.active_mb=1500"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("jetsim: warning: named app photo: its footprint (1500 MB at its peak) exceeds the app fit of device class"))
        let fits = try CLI.run(["run"] + Self.app + ["--devices", "2", "--ram", "2GB"])
        #expect(!fits.stderr.contains("warning"), "\(fits.stderr)")
    }

    @Test("a replay on a workload of several classes runs each device on a class drawn from its id; --by archetype with --app-map")
    func replay() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["run", "--workload", "Workloads/android.yaml", "--usage", "Workloads/examples/usage.csv", "--policy", "lru", "--quiet",
                             "--out", tmp + "/s.csv", "--per-device", tmp + "/d.csv", "--by", "class", "--by-out", tmp + "/by.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let classes = Set(try Self.read(tmp + "/d.csv").split(separator: "\n").dropFirst().map { $0.split(separator: ",")[1] })
        #expect(classes.count > 1, "\(classes)")
        #expect(!(try Self.read(tmp + "/by.csv")).contains(",usage,"))
        let a = try CLI.run(["run", "--usage", "Workloads/examples/usage.csv", "--app-map", "Workloads/examples/app-map.csv", "--policy", "lru", "--ram", "2GB",
                             "--quiet", "--out", tmp + "/a.csv", "--by", "archetype", "--by-out", tmp + "/a.by.csv"])
        #expect(a.status == 0, "\(a.stderr)")
        let rows = try Self.read(tmp + "/a.by.csv").split(separator: "\n").dropFirst()
        #expect(rows.count == 10 && rows.contains { $0.contains(",archetype,social,") })
    }

    @Test("protocol 2: lru.py gives the built-in lru's rows; each victim request carries the simulated time, non-decreasing per device")
    func protocolTwo() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["run", "--policy", "lru,external:lru", "--devices", "4", "--duration", "1d", "--ram", "2GB", "--quiet", "--out", tmp + "/s.csv",
                             "--set", "policies.external.lru.command=[python3, Workloads/policies/lru.py]", "--set", "policies.external.lru.protocol=2"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try Self.read(tmp + "/s.csv").split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(rows.count == 2 && Array(rows[0].dropFirst(2)) == Array(rows[1].dropFirst(2)))
        // A policy that logs what it is asked and answers any candidate.
        let log = tmp + "/asked.txt"
        try """
            import sys
            out = open(sys.argv[1], "w")
            out.write(sys.stdin.readline())
            print("ok", flush=True)
            live = []
            for line in sys.stdin:
                f = line.split()
                if f[0] == "update" and f[1] not in live: live.append(f[1])
                elif f[0] == "remove" and f[1] in live: live.remove(f[1])
                elif f[0] == "device": live = []; out.write(line)
                elif f[0] == "victim":
                    out.write(line)
                    print(live[0], flush=True)

            """.write(toFile: tmp + "/p.py", atomically: true, encoding: .utf8)
        let t = try CLI.run(["run", "--policy", "external:p", "--devices", "2", "--duration", "1d", "--ram", "2GB", "--quiet", "--threads", "1",
                             "--out", tmp + "/p.csv", "--set", "policies.external.p.command=[python3, \(tmp)/p.py, \(log)]",
                             "--set", "policies.external.p.protocol=2"])
        #expect(t.status == 0, "\(t.stderr)")
        let lines = try Self.read(log).split(separator: "\n")
        #expect(lines[0] == "jetsim-policy 2 p")
        var last = -1, victims = 0
        for l in lines.dropFirst() {
            let f = l.split(separator: " ")
            if f[0] == "device" { last = -1; continue }
            #expect(f.count == 2 && f[0] == "victim", "\(l)")
            let now = Int(f[1]) ?? -1
            #expect(now >= last && now <= 86_400_000_000, "\(l)")
            last = now
            victims += 1
        }
        #expect(victims > 10)
    }

    static let saveEvents: Set<String> = ["save", "save-abandoned", "lost-edits"]
    static func withoutSaveRows(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { !saveEvents.contains(String($0.split(separator: ",", omittingEmptySubsequences: false)[3])) }
    }

    @Test("trace --saves: save, save-abandoned and lost-edits rows that add up to the run's counters; the other rows as without it")
    func traceSaves() throws {
        let tmp = try CLI.tempDir()
        let args = ["--devices", "1", "--duration", "2d", "--ram", "2GB", "--policy", "lru"]
        let plain = try CLI.run(["trace"] + args)
        let saves = try CLI.run(["trace"] + args + ["--saves"])
        let run = try CLI.run(["run"] + args + ["--quiet", "--out", tmp + "/s.csv"])
        #expect(plain.status == 0 && saves.status == 0 && run.status == 0, "\(saves.stderr)")
        #expect(Self.withoutSaveRows(saves.stdout) == plain.stdout.split(separator: "\n"))
        let rows = saves.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let summary = try Self.read(tmp + "/s.csv").split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        func column(_ name: String) -> Int { Int(summary[1][summary[0].firstIndex(of: name)!])! }
        #expect(rows.filter { $0[3] == "save" }.count == column("saves_completed"))
        #expect(rows.filter { $0[3] == "save-abandoned" }.count == column("saves_abandoned"))
        let lost = rows.filter { $0[3] == "lost-edits" }
        #expect(lost.count == column("data_loss_events") && lost.count > 0)
        #expect(lost.reduce(0) { $0 + Int($1[4].split(separator: " ")[0])! } == column("data_loss_units"))
    }

    @Test("scenario --saves adds the save rows to every shipped scenario; without it each is its golden")
    func scenarioSaves() throws {
        let dir = CLI.root + "/Workloads/scenarios"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".scenario") }.sorted()
        var added = 0
        for f in files {
            let expected = try Self.read(dir + "/" + f.replacingOccurrences(of: ".scenario", with: ".expected.csv"))
            let r = try CLI.run(["scenario", dir + "/" + f, "--saves"])
            #expect(r.status == 0, "\(f): \(r.stderr)")
            #expect(Self.withoutSaveRows(r.stdout) == expected.split(separator: "\n"), "\(f)")
            added += r.stdout.split(separator: "\n").count - expected.split(separator: "\n").count
        }
        #expect(added > 0)
    }
}
