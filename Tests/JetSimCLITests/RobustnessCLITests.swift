import Foundation
import Testing

/// Issue 11: no input crashes or hangs jetsim, and nothing is left behind. One test
/// per class of hostile input the issue lists, each on the built binary.
@Suite("hostile input: a clear error or the right answer, never a trap", .endToEnd)
struct RobustnessCLITests {
    /// 8 h: past the user's wake hour (7), so the devices have sessions (a run that
    /// ends before it has none, and says so on stderr).
    static let tiny = ["run", "--devices", "2", "--duration", "8h", "--policy", "lru", "--ram", "2GB", "--quiet"]

    /// Exit codes a hostile input may give: never a trap (132, 134, 139) or 64.
    static func clean(_ r: CLI.Output) -> Bool { [0, 1, 2].contains(r.status) }

    @Test("an installed-apps distribution that draws past Int.max runs (found by the fuzz harness: it trapped)")
    func hugeInstalledDraw() throws {
        let r = try CLI.run(Self.tiny + ["--set", "catalog.installed_per_device={lognormal: {median: 1e12, sigma: 20}}"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").count == 2)
    }

    /// The catalog's largest size, the one extreme of `SchemaExtremesTests` too large
    /// for a debug build (2.8 GB and about 24 s in release): it runs, and its summary
    /// has no NaN, infinity or negative figure.
    @Test("the catalog's largest size runs: a sane summary")
    func largestCatalog() throws {
        let r = try CLI.run(["run", "--devices", "2", "--duration", "0.05d", "--policy", "lru,jetsam-bands", "--ram", "2GB",
                             "--quiet", "--set", "catalog.apps=10000000"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        let header = lines.first.map { $0.split(separator: ",", omittingEmptySubsequences: false) } ?? []
        for line in lines.dropFirst() {
            for (name, field) in zip(header, line.split(separator: ",", omittingEmptySubsequences: false)) {
                guard let x = Double(field) else { continue }
                // Documented NaNs: no relaunch (or none of a kind), or an interval from fewer than 2.
                if x.isNaN && (name.hasPrefix("relaunch_") || name.hasSuffix("_ci95")) { continue }
                #expect(x.isFinite && x >= 0, "summary \(name)=\(field)")
            }
        }
    }

    @Test("system wakes count toward the bound on a device's events: huge wake rates are refused, the shipped workloads pass")
    func wakeRatesBounded() throws {
        // 10,000 silent pushes a day for every archetype x about 65 installed apps x 100
        // days: about 65 million wakes a device, past the 50 million bound (the user's
        // actions alone are well under it). The --set that crosses it is named.
        var pushes: [String] = []
        for i in 0..<10 { pushes += ["--set", "catalog.archetypes.\(i).silent_pushes_per_day=10000"] }
        let r = try CLI.run(["validate", "--set", "fleet.duration_days=100"] + pushes)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("--set catalog.archetypes."), "\(r.stderr)")
        #expect(r.stderr.contains("silent_pushes_per_day"), "\(r.stderr)")
        #expect(r.stderr.contains("million per device"), "\(r.stderr)")
        // A tenth of the run fits.
        let fits = try CLI.run(["validate", "--set", "fleet.duration_days=10"] + pushes)
        #expect(fits.status == 0, "\(fits.stderr)")
        let shipped = try FileManager.default.contentsOfDirectory(atPath: CLI.root + "/Workloads").filter { $0.hasSuffix(".yaml") }
        #expect(shipped.count >= 8)
        for file in shipped {
            let v = try CLI.run(["validate", "Workloads/" + file])
            #expect(v.status == 0, "\(file): \(v.stderr)")
        }
    }

    @Test("a YAML alias bomb is refused at its first anchor, located")
    func aliasBomb() throws {
        let dir = try CLI.tempDir()
        var yaml = "name: bomb\nuser:\n  a0: &a0 [x, x, x, x, x, x, x, x, x]\n"
        for i in 1...9 { yaml += "  a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 9).joined(separator: ", ") + "]\n" }
        try yaml.write(toFile: dir + "/bomb.yaml", atomically: true, encoding: .utf8)
        let r = try CLI.run(["validate", dir + "/bomb.yaml"])
        #expect(r.status == 2)
        #expect(r.stderr.contains(dir + "/bomb.yaml:3"), "\(r.stderr)")
        #expect(r.stderr.contains("anchors and aliases"), "\(r.stderr)")
        let run = try CLI.run(Self.tiny + ["--workload", dir + "/bomb.yaml", "--out", dir + "/o.csv"])
        #expect(run.status == 2)
        #expect(CLI.files(in: dir) == ["bomb.yaml"])
    }

    @Test("an OS reserve at or above the RAM is refused: in the file and by --set")
    func reserveAboveRAM() throws {
        let dir = try CLI.tempDir()
        let atRAM = try CLI.run(Self.tiny + ["--set", "device_classes.0.os_reserve_mb=4096", "--set", "device_classes.0.ram_mb=4096", "--out", dir + "/a.csv"])
        #expect(atRAM.status == 2)
        #expect(atRAM.stderr.contains("os_reserve_mb"), "\(atRAM.stderr)")
        #expect(atRAM.stderr.contains("must be smaller than the RAM"), "\(atRAM.stderr)")
        // A --ram that the class's reserve fills: refused too (the reserve was clamped
        // below the RAM and the run went on with nothing for the apps).
        let belowReserve = try CLI.run(Self.tiny + ["--ram", "1GB", "--set", "device_classes.0.os_reserve_mb=1500", "--out", dir + "/b.csv"])
        #expect(belowReserve.status == 2)
        #expect(belowReserve.stderr.contains("is not more than the OS reserve (1500MB) of device class"), "\(belowReserve.stderr)")
        #expect(CLI.files(in: dir).isEmpty)
    }

    @Test("a scenario with more than 255 distinct notify values is refused at the line that passes it")
    func tooManyNotifyValues() throws {
        let dir = try CLI.tempDir()
        var text = "app X\n0s launch X\n1s home\n"
        for i in 0..<256 { text += "\(20 + i)s notify X orientation v\(i)\n" }
        try text.write(toFile: dir + "/s.scenario", atomically: true, encoding: .utf8)
        let r = try CLI.run(["scenario", dir + "/s.scenario", "--out", dir + "/t.csv"])
        #expect(r.status == 2)
        #expect(r.stderr.contains(dir + "/s.scenario:\(3 + 256):"), "\(r.stderr)")
        #expect(r.stderr.contains("more than 255 distinct notify values"), "\(r.stderr)")
        #expect(CLI.files(in: dir) == ["s.scenario"])
    }

    @Test("70,000 events held by one suspended app are delivered with their exact count and latest value")
    func manyHeldEvents() throws {
        let dir = try CLI.tempDir()
        var text = "app X\n0s launch X\n1s home\n"
        let n = 70_000
        for i in 0..<n { text += "\(20_000 + i)ms notify X orientation v\(i % 7)\n" }
        text += "100s launch X\n101s end\n"
        try text.write(toFile: dir + "/s.scenario", atomically: true, encoding: .utf8)
        let r = try CLI.run(["scenario", dir + "/s.scenario"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("100000,0,X,deliver,orientation/\(n) v\((n - 1) % 7),inactive"), "\(r.stdout.suffix(400))")
    }

    @Test("CRLF scenario and state files give the same result as LF")
    func crlf() throws {
        let dir = try CLI.tempDir()
        let scenario = try String(contentsOfFile: CLI.root + "/Workloads/scenarios/18-coalesced-events.scenario", encoding: .utf8)
        try scenario.replacingOccurrences(of: "\n", with: "\r\n").write(toFile: dir + "/crlf.scenario", atomically: true, encoding: .utf8)
        let lf = try CLI.run(["scenario", CLI.root + "/Workloads/scenarios/18-coalesced-events.scenario"])
        let cr = try CLI.run(["scenario", dir + "/crlf.scenario"])
        #expect(lf.status == 0 && cr.status == 0, "\(cr.stderr)")
        #expect(cr.stdout == lf.stdout)

        for i in 1...2 {
            let s = try CLI.run(Self.tiny + ["--devices", "5", "--shard", "\(i)/2", "--out", dir + "/s\(i).csv"])
            #expect(s.status == 0, "\(s.stderr)")
        }
        let state = try String(contentsOfFile: dir + "/s1.csv.state", encoding: .utf8)
        try state.replacingOccurrences(of: "\n", with: "\r\n").write(toFile: dir + "/s1crlf.state", atomically: true, encoding: .utf8)
        let a = try CLI.run(["merge", dir + "/s1.csv.state", dir + "/s2.csv.state"])
        let b = try CLI.run(["merge", dir + "/s1crlf.state", dir + "/s2.csv.state"])
        #expect(a.status == 0 && b.status == 0, "\(b.stderr)")
        #expect(a.stdout == b.stdout && !a.stdout.isEmpty)
    }

    @Test("an output that cannot be written is refused before any work, in one line, leaving nothing", arguments: [
        ("dir", "it is a directory"),
        ("missing/o.csv", "does not exist"),
        // Read-only even for root (a chmod 555 directory is not, and tests may run as root).
        ("/proc/jetsim-o.csv", "cannot write /proc/jetsim-o.csv"),
    ])
    func badOutput(out: String, words: String) throws {
        let dir = try CLI.tempDir()
        try FileManager.default.createDirectory(atPath: dir + "/dir", withIntermediateDirectories: false)
        // A run of a million devices: refused only after the work, it would time out
        // the suite; the check comes before the first device.
        let r = try CLI.run(["run", "--devices", "1000000", "--quiet", "--out", out.hasPrefix("/") ? out : dir + "/" + out])
        #expect(r.status == 2 || r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains(words), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!r.stderr.contains("NSError") && !r.stderr.contains("Error Domain"))
        #expect(CLI.files(in: dir) == ["dir"])
        #expect(CLI.files(in: dir + "/dir").isEmpty)
    }

    @Test("an output that is one of the command's inputs, however spelled, is refused before any work; the input is untouched",
          arguments: [
              (["run", "--workload", "IN", "--devices", "2", "--duration", "1d", "--out", "./IN"], "--out ./IN is the input --workload IN"),
              (["run", "--workload", "IN", "--devices", "2", "--duration", "1d", "--out", "o.csv", "--per-device", "LINK"],
               "--per-device LINK is the input --workload IN"),
              (["run", "--usage", "IN", "--out", "o.csv", "--perf", "IN"], "--perf IN is the input --usage IN"),
              (["trace", "--workload", "IN", "--out", "IN"], "--out IN is the input --workload IN"),
              (["scenario", "IN", "--out", "IN"], "--out IN is the input the scenario IN"),
              (["import", "--format", "lsapp", "IN", "--out", "LINK"], "--out LINK is the input the dataset IN"),
              (["usage-stats", "IN", "--out", "IN"], "--out IN is the input the usage file IN"),
          ])
    func outputIsInput(args: [String], words: String) throws {
        let dir = try CLI.tempDir()
        // Any content: the check comes before the input is read.
        let content = "device,time_s,app,duration_s\nd,0,a,5\n"
        try content.write(toFile: dir + "/IN", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/LINK", withDestinationPath: dir + "/IN")
        let r = try CLI.run(args, cwd: dir)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains(words) && r.stderr.contains("would replace it"), "\(r.stderr)")
        #expect(try String(contentsOfFile: dir + "/IN", encoding: .utf8) == content)
        #expect(CLI.files(in: dir) == ["IN", "LINK"])
    }

    @Test("a full disk exits 1 naming the file and its reason")
    func fullDisk() throws {
        let r = try CLI.run(Self.tiny + ["--out", "/dev/full"])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("/dev/full") && r.stderr.contains("No space left on device"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        // A device gets no provenance sidecar (it was left as /dev/full.provenance.json).
        #expect(!FileManager.default.fileExists(atPath: "/dev/full.provenance.json"))
    }

    @Test("a closed stdout exits 1; a reader that goes away (SIGPIPE) leaves no temporary file")
    func closedStdout() throws {
        func sh(_ script: String, cwd: String? = nil) throws -> String {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/bash")
            p.arguments = ["-c", script, CLI.binary]
            if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return text
        }
        // stdout closed before the start (`>&-`).
        let closed = try sh("\"$0\" run --devices 2 --duration 2h --policy lru --ram 2GB --quiet >&- 2>/dev/null; echo rc=$?")
        #expect(closed == "rc=1\n")
        // A reader that reads one byte of a large per-device CSV and goes away.
        let dir = try CLI.tempDir()
        let piped = try sh("\"$0\" run --devices 300 --duration 1d --quiet --out o.csv --per-device - 2>/dev/null | head -c 1 >/dev/null; echo rc=${PIPESTATUS[0]}", cwd: dir)
        let rc = Int(piped.dropFirst(3).dropLast()) ?? -1
        #expect([0, 1, 141].contains(rc), "\(piped)")
        #expect(!CLI.files(in: dir).contains { $0.contains(".tmp-") }, "\(CLI.files(in: dir))")
        if rc != 0 { #expect(CLI.files(in: dir).isEmpty, "\(CLI.files(in: dir))") }
    }

    @Test("Ctrl-C, SIGTERM, SIGHUP or SIGPIPE during a run leaves no output and no temporary file", arguments: [SIGINT, SIGHUP, SIGPIPE, SIGTERM])
    func signals(_ signal: Int32) throws {
        let dir = try CLI.tempDir()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["run", "--devices", "100000", "--out", dir + "/s.csv", "--per-device", dir + "/d.csv", "--quiet"]
        let err = Pipe()
        p.standardError = err
        try p.run()
        var started = false
        for _ in 0..<250 where !started {
            usleep(20_000)
            started = CLI.files(in: dir).contains { $0.contains(".tmp-") }
        }
        #expect(started)
        kill(p.processIdentifier, signal)
        var waited = 0
        while p.isRunning && waited < 500 { usleep(20_000); waited += 1 }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        #expect(waited < 500, "jetsim ignored signal \(signal)")
        p.waitUntilExit()
        #expect(p.terminationStatus == 128 + signal)
        #expect(CLI.files(in: dir).isEmpty, "left behind: \(CLI.files(in: dir))")
        // It says why it stopped, except when the reader went away (SIGPIPE).
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        if signal == SIGPIPE { #expect(said.isEmpty, "\(said)") } else {
            #expect(said.contains("jetsim: interrupted; nothing was written"), "\(said)")
        }
    }

    /// Runs shards 1...n of `args` into `dir`, returning the state paths.
    static func shards(_ args: [String], _ n: Int, in dir: String, tag: String) throws -> [String] {
        try (1...n).map { i in
            let r = try CLI.run(args + ["--shard", "\(i)/\(n)", "--out", dir + "/\(tag)\(i).csv"])
            #expect(r.status == 0, "\(r.stderr)")
            return dir + "/\(tag)\(i).csv.state"
        }
    }

    @Test("a state with a changed result number is refused; shards whose device counts differ are refused")
    func tamperedState() throws {
        let dir = try CLI.tempDir()
        let states = try Self.shards(Self.tiny + ["--devices", "6"], 2, in: dir, tag: "s")
        var text = try String(contentsOfFile: states[0], encoding: .utf8)
        // Change one digit of the counters line (a result number).
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let i = try #require(lines.firstIndex { $0.hasPrefix("counters: ") })
        var line = Array(lines[i])
        let d = try #require(line.lastIndex { $0.isNumber })
        line[d] = line[d] == "1" ? "2" : "1"
        var changed = lines
        changed[i] = String(line)
        text = changed.joined(separator: "\n")
        try text.write(toFile: dir + "/t.state", atomically: true, encoding: .utf8)
        let r = try CLI.run(["merge", dir + "/t.state", states[1]])
        #expect(r.status == 2)
        #expect(r.stderr.contains(dir + "/t.state"), "\(r.stderr)")
        #expect(r.stderr.contains("checksum"), "\(r.stderr)")
        // A shard of a 7-device run with a shard of a 6-device run.
        let other = try Self.shards(Self.tiny + ["--devices", "7"], 2, in: dir, tag: "o")
        let mixed = try CLI.run(["merge", states[0], other[1]])
        #expect(mixed.status == 2, "\(mixed.stdout)")
        #expect(!mixed.stderr.isEmpty)
    }

    @Test("merge equals the unsharded run byte for byte: seed 2^64-1, a duration under a day, a name with a newline")
    func mergeEdgeCases() throws {
        let dir = try CLI.tempDir()
        let args = Self.tiny + ["--devices", "5", "--duration", "3h", "--seed", "18446744073709551615",
                                "--set", "name=\"two\\nlines, and a quote \\\"\""]
        let whole = try CLI.run(args + ["--out", dir + "/all.csv"])
        #expect(whole.status == 0, "\(whole.stderr)")
        let states = try Self.shards(args, 3, in: dir, tag: "s")
        let merged = try CLI.run(["merge"] + states + ["--out", dir + "/m.csv"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/all.csv"))
        let b = try Data(contentsOf: URL(fileURLWithPath: dir + "/m.csv"))
        #expect(a == b)
        #expect(String(decoding: a, as: UTF8.self).contains("\"two\nlines, and a quote \"\"\""))
    }

    @Test("hold --pending past what the engine can hold is a clear error, not a trap")
    func holdPending() throws {
        for n in ["9223372036854775807", "9223372036854775806", "4294967296"] {
            let r = try CLI.run(["hold", "--pending", n, "--holds", "1"])
            #expect(r.status == 2, "\(n): \(r.stderr)")
            #expect(r.stderr.contains("more than the engine can hold"), "\(r.stderr)")
        }
    }

    @Test("hold --holds past its documented maximum (10^10) exits 2 before any work")
    func holdHolds() throws {
        for n in ["9223372036854775807", "10000000001"] {
            let r = try CLI.run(["hold", "--pending", "10", "--holds", n])
            #expect(r.status == 2, "\(n): \(r.stderr)")
            #expect(r.stderr.contains("at most 10000000000"), "\(r.stderr)")
        }
        let ok = try CLI.run(["hold", "--pending", "10", "--holds", "1000", "--no-header"])
        #expect(ok.status == 0)
        #expect(ok.stdout.hasPrefix("10,1000,"))
    }
}
