import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Issue 46's classes through the binary: resumable work checks the content of every
/// input, all of a run's outputs move together or not at all, no child outlives jetsim,
/// values the model would not honour are refused before any work, explicit options win
/// over guesses, and what one command writes another reads.
@Suite("Hostile inputs, round 4: through the binary", .endToEnd)
struct HostileRound4CLITests {
    static func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
    static func write(_ text: String, _ path: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }

    // MARK: resumable work trusts content, not paths

    @Test("a sweep resumed after its app map changed is refused, naming the map; unchanged, it resumes")
    func sweepAppMap() throws {
        let dir = try CLI.tempDir()
        try Self.write("app,archetype\nchat,messaging\nmaps,maps\n", dir + "/map.csv")
        let args = ["sweep", "--usage", "Workloads/examples/usage.csv", "--app-map", dir + "/map.csv", "--policy", "lru", "--ram", "2GB",
                    "--duration", "1d", "--quiet", "--set", "device_classes.iphone-11.launch_jitter_sigma=0,0.5", "--out", dir + "/s"]
        let first = try CLI.run(args)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Self.read(dir + "/s/plan.txt").contains("app_map_fnv1a64: "))
        #expect(try CLI.run(args).status == 0)  // unchanged: every point done, combined again
        try Self.write("app,archetype\nchat,game\nmaps,maps\n", dir + "/map.csv")
        let r = try CLI.run(args)
        #expect(r.status == 2 && r.stderr.contains("the app map changed"), "\(r.stderr)")
    }

    static let script = "Workloads/policies/lru.py"

    @Test("a sweep resumed after its external policy's script changed is refused; each point's sidecar records the policy")
    func sweepExternalScript() throws {
        let dir = try CLI.tempDir()
        try FileManager.default.copyItem(atPath: CLI.root + "/" + Self.script, toPath: dir + "/lru.py")
        let args = ["sweep", "--policy", "external:p", "--ram", "2GB", "--devices", "2", "--duration", "4h", "--quiet",
                    "--set", "policies.external.p.command=[python3, \(dir)/lru.py]", "--set", "user.sessions_per_day=10,20", "--out", dir + "/s"]
        let first = try CLI.run(args)
        #expect(first.status == 0, "\(first.stderr)")
        let plan = try Self.read(dir + "/s/plan.txt")
        #expect(plan.hasPrefix("# jetsim sweep plan, format 2:") && plan.contains("external p: command \"python3\" \"\(dir)/lru.py\" files_fnv1a64 "), "\(plan)")
        let points = CLI.files(in: dir + "/s/points").filter { $0.hasSuffix(".provenance.json") }
        #expect(points.count == 2)
        for p in points {
            let side = try Self.read(dir + "/s/points/" + p)
            #expect(side.contains("\"external_policies\"") && side.contains("lru.py"), "\(side)")
        }
        let combined = try Self.read(dir + "/s/combined.csv")
        try Self.write(try Self.read(dir + "/lru.py") + "\n# edited\n", dir + "/lru.py")
        let r = try CLI.run(args)
        #expect(r.status == 2 && r.stderr.contains("an external policy's command, or a file it names, changed"), "\(r.stderr)")
        #expect(try Self.read(dir + "/s/combined.csv") == combined)
    }

    @Test("a sweep or sensitivity directory made before plans recorded every file is refused on resume, saying so")
    func oldPlan() throws {
        let dir = try CLI.tempDir()
        try FileManager.default.createDirectory(atPath: dir + "/s/points", withIntermediateDirectories: true)
        try Self.write("# jetsim sweep plan: the inputs every point shares, then one line per point\nworkload: default.yaml (built in)\n", dir + "/s/plan.txt")
        let r = try CLI.run(["sweep", "--policy", "lru", "--ram", "2GB", "--devices", "2", "--duration", "2h", "--quiet",
                             "--set", "user.sessions_per_day=10,20", "--out", dir + "/s"])
        #expect(r.status == 2 && r.stderr.contains("was made by an earlier jetsim"), "\(r.stderr)")
    }

    // MARK: outputs move together

    @Test("a run that fails writing one output replaces none: the old summary and its sidecar stay as they were")
    func outputsTogether() throws {
        let dir = try CLI.tempDir()
        let base = ["run", "--policy", "lru", "--ram", "2GB", "--devices", "2", "--duration", "2h", "--quiet", "--out", dir + "/s.csv"]
        #expect(try CLI.run(base + ["--seed", "1"]).status == 0)
        let summary = try Self.read(dir + "/s.csv"), side = try Self.read(dir + "/s.csv.provenance.json")
        // --per-device to a full disk (written directly: the error comes as it writes).
        let r = try CLI.run(base + ["--seed", "2", "--per-device", "/dev/full", "--perf", dir + "/p.csv"])
        #expect(r.status == 1 && r.stderr.contains("/dev/full"), "\(r.stderr)")
        #expect(try Self.read(dir + "/s.csv") == summary)
        #expect(try Self.read(dir + "/s.csv.provenance.json") == side)
        #expect(CLI.files(in: dir) == ["s.csv", "s.csv.provenance.json"], "\(CLI.files(in: dir))")
    }

    // MARK: processes

    @Test("SIGTERM ends jetsim and its external policies' processes (they kept running)")
    func sigtermEndsChildren() throws {
        let dir = try CLI.tempDir()
        // Greets, writes its pid, then never answers (jetsim waits up to timeout_s).
        try Self.write("import os, sys\nsys.stdin.readline()\nprint('ok', flush=True)\nopen(sys.argv[1], 'w').write(str(os.getpid()))\nimport time\ntime.sleep(600)\n", dir + "/hang.py")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.arguments = ["run", "--policy", "external:h", "--ram", "1GB", "--devices", "2", "--threads", "1", "--duration", "2d", "--quiet",
                       "--set", "policies.external.h.command=[python3, hang.py, pid]", "--set", "policies.external.h.timeout_s=600", "--out", "s.csv"]
        p.standardError = FileHandle.nullDevice
        try p.run()
        var pid: pid_t = 0
        for _ in 0..<500 where pid == 0 { usleep(20_000); pid = pid_t((try? Self.read(dir + "/pid")) ?? "") ?? 0 }
        #expect(pid > 0)
        usleep(100_000)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(p.terminationStatus == 143)
        var gone = false
        for _ in 0..<100 where !gone { gone = kill(pid, 0) != 0 && errno == ESRCH; if !gone { usleep(20_000) } }
        if !gone { kill(pid, SIGKILL) }
        #expect(gone, "the policy's process \(pid) outlived jetsim")
    }

    @Test("a NUL byte in a command word is refused before any work (it ran a shorter command than recorded)")
    func nulWord() throws {
        let r = try CLI.run(["run", "--policy", "external:x", "--ram", "2GB", "--devices", "1", "--duration", "1h", "--quiet", "--out", "/dev/null",
                             "--set", "policies.external.x.command=[python3, \"Workloads/policies/lru.py\\0 --evil\"]"])
        #expect(r.status == 2 && r.stderr.contains("NUL"), "\(r.stderr)")
    }

    // MARK: values the model would not honour

    @Test("idle-band daemons and reserve that fill a cell's --ram are refused by run and trace (trace trapped), before any work", arguments: ["run", "trace"])
    func daemonsAtCellRAM(_ command: String) throws {
        let r = try CLI.run([command, "--policy", "lru", "--ram", "1GB", "--duration", "1h", "--set", "device_classes.iphone-11.idle_daemons_mb=800",
                             "--out", "/dev/null"])
        #expect(r.status == 2 && r.stderr.contains("idle-band daemons") && r.stderr.contains("1024MB"), "\(r.stderr)")
    }

    @Test("a sensitivity end a run would refuse is refused before any point runs, naming the point")
    func sensitivityEnd() throws {
        let dir = try CLI.tempDir()
        // 950 MB of reserve on 1 GB runs; its high end (x1.13) would not.
        let args = ["--policy", "lru,fifo", "--ram", "1GB", "--devices", "2", "--duration", "2h", "--quiet",
                    "--set", "device_classes.iphone-11.os_reserve_mb=950"]
        #expect(try CLI.run(["run"] + args + ["--out", dir + "/r.csv"]).status == 0)
        let r = try CLI.run(["sensitivity", "--baseline", "lru", "--out", dir + "/sens"] + args)
        #expect(r.status == 2 && r.stderr.contains("os_reserve_mb-high") && r.stderr.contains("a run would refuse this end"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/sens"))
    }

    @Test("a workload name with a line break: sensitivity writes its CSV (it trapped after every point ran)")
    func sensitivityLineBreakName() throws {
        let dir = try CLI.tempDir()
        try Self.write("name: \"two\\nlines\"\nfleet:\n  devices: 2\n  duration_days: 0.05\n", dir + "/w.yaml")
        let r = try CLI.run(["sensitivity", "--workload", dir + "/w.yaml", "--baseline", "lru", "--policy", "lru,fifo", "--ram", "2GB",
                             "--quiet", "--threads", "2", "--out", dir + "/sens"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.read(dir + "/sens/sensitivity.csv").hasPrefix("workload,"))
    }

    // MARK: formats: explicit options win, what one command writes another reads

    @Test("usage-stats: a usage CSV whose header also has time_ms and event is refused unless told; --usage-* or --as usage reads it as usage")
    func usageStatsKind() throws {
        let dir = try CLI.tempDir()
        try Self.write("user,start,app,length,time_ms,event\nd,0,mail,60,0,x\nd,100,maps,30,0,x\n", dir + "/u.csv")
        // Taken for a trace by its header (it has no usage column of the default names):
        // refused, saying how to read it as usage.
        let plain = try CLI.run(["usage-stats", dir + "/u.csv", "--format", "csv"])
        #expect(plain.status == 2 && plain.stderr.contains("--as usage or --as trace"), "\(plain.stderr)")
        // A --usage-* option says it is a usage CSV (it was read as a trace, 0 sessions, exit 0).
        let told = try CLI.run(["usage-stats", dir + "/u.csv", "--format", "csv", "--usage-columns", "device=user,time=start,duration=length"])
        #expect(told.status == 0 && told.stdout.split(separator: "\n").last?.hasPrefix("1,1.000,2,") == true, "\(told.stdout) \(told.stderr)")
        let bad = try CLI.run(["usage-stats", dir + "/u.csv", "--as", "trace", "--usage-time-unit", "ms"])
        #expect(bad.status == 2)
        // Both kinds' columns: refused unless told.
        try Self.write("device,time_s,app,duration_s,time_ms,event\nd,0,mail,60,0,x\n", dir + "/v.csv")
        let both = try CLI.run(["usage-stats", dir + "/v.csv", "--format", "csv"])
        #expect(both.status == 2 && both.stderr.contains("a usage CSV's columns") && both.stderr.contains("--as usage or --as trace"), "\(both.stderr)")
        let asUsage = try CLI.run(["usage-stats", dir + "/v.csv", "--format", "csv", "--as", "usage"])
        #expect(asUsage.status == 0 && asUsage.stdout.split(separator: "\n").last?.hasPrefix("1,1.000,1,") == true, "\(asUsage.stdout) \(asUsage.stderr)")
    }

    @Test("import that keeps no row says why and exits 2, writing nothing (it wrote a header --usage refused)")
    func importNoRows() throws {
        let dir = try CLI.tempDir()
        try Self.write("package,event_type,timestamp\ncom.a,SCREEN_INTERACTIVE,1000\ncom.b,KEYGUARD_HIDDEN,2000\n", dir + "/e.csv")
        let r = try CLI.run(["import", "--format", "android-usagestats", dir + "/e.csv", "--out", dir + "/u.csv"])
        #expect(r.status == 2 && r.stderr.contains("no app session is kept"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/u.csv"))
    }

    @Test("a replayed device naming more apps than the bound: refused with the system arrivals on, replayed with them off")
    func replayManyApps() throws {
        let dir = try CLI.tempDir()
        var csv = "device,time_s,app,duration_s\n"
        for i in 0...10_000 { csv += "d,\(i * 10),a\(i),5\n" }
        try Self.write(csv, dir + "/u.csv")
        let on = try CLI.run(["run", "--usage", dir + "/u.csv", "--policy", "lru", "--ram", "2GB", "--quiet", "--out", dir + "/on.csv"])
        #expect(on.status == 2 && on.stderr.contains("names 10001 distinct apps") && on.stderr.contains("at most 10000"), "\(on.stderr)")
        let off = try CLI.run(["run", "--workload", "Workloads/lru-reference.yaml", "--usage", dir + "/u.csv", "--policy", "lru", "--quiet",
                               "--out", dir + "/off.csv"])
        #expect(off.status == 0, "\(off.stderr)")
    }

    // MARK: scripts

    @Test("repro.sh counts a nan result as outside its tolerance (mawk compared nan as equal to anything)")
    func reproNaN() throws {
        let dir = try CLI.tempDir()
        // The real binary for the scenarios; every `run` writes nan for the figures.
        let stub = """
            #!/usr/bin/env bash
            if [ "$1" = run ]; then
              while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
              { echo "workload,policy,ram_mb,relaunch_mean_ms,relaunch_cold_ratio,delta_relaunch_mean_ms,delta_relaunch_mean_ms_ci95"
                echo "android,android-lmk,mixed,nan,nan,0.000,0.000"; echo "android,smartlmk,mixed,nan,nan,nan,nan"; } > "$out"
              exit 0
            fi
            exec "\(CLI.binary)" "$@"
            """
        try Self.write(stub, dir + "/jetsim")
        chmod(dir + "/jetsim", 0o755)
        let r = try CLI.run(["-c", "JETSIM=\(dir)/jetsim scripts/repro.sh"], runner: "/bin/bash")
        #expect(r.status == 0, "\(r.stderr)")
        let smart = r.stdout.split(separator: "\n").filter { $0.hasPrefix("SmartLMK") && $0.contains("-13.2") }
        #expect(smart.count == 2 && smart.allSatisfy { $0.hasSuffix("| no") }, "\(smart)")
    }
}
