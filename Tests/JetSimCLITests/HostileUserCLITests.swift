import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Issue 34: pipes, special files, sweeps edited between runs, text by bytes, names at
/// their limits, what jetsim writes it must read, merge's refusals, descriptor limits
/// and late checks, each tried as a hostile user would, through the binary.
@Suite("hostile user: pipes, sweeps, bytes, names, limits", .endToEnd)
struct HostileUserCLITests {
    static let tiny = ["--devices", "2", "--duration", "8h", "--policy", "lru", "--ram", "2GB", "--quiet"]
    static let usage = CLI.root + "/Workloads/examples/usage.csv"

    /// Runs a bash script with the binary as $J; its stdout, stderr and status.
    static func sh(_ script: String, cwd: String) throws -> CLI.Output {
        try CLI.run(["-c", "J=\"$0\"; " + script, CLI.binary], cwd: cwd, runner: "/bin/bash")
    }

    static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<missing>" }
    static func noTemporaries(_ dir: String) -> Bool {
        let e = FileManager.default.enumerator(atPath: dir)
        while let f = e?.nextObject() as? String { if f.contains(".tmp-") { return false } }
        return true
    }

    // MARK: pipes and special files

    @Test("a piped usage trace with --shard replays it all: the same summary and trace hash as the file")
    func pipedShard() throws {
        let dir = try CLI.tempDir()
        let common = "--duration 1d --shard 1/2 --policy lru --ram 2GB --quiet"
        let r = try Self.sh("$J run --usage '\(Self.usage)' \(common) --out f.csv && cat '\(Self.usage)' | $J run --usage /dev/stdin \(common) --out p.csv", cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.read(dir + "/f.csv") == Self.read(dir + "/p.csv"))
        let hash = { (s: String) in s.split(separator: "\n").first { $0.hasPrefix("usage:") }?.split(separator: " ").last }
        #expect(hash(Self.read(dir + "/f.csv.state")) == hash(Self.read(dir + "/p.csv.state")))
    }

    @Test("sweep, trace --devices and merge read piped inputs; a workload from a process substitution")
    func pipedInputs() throws {
        let dir = try CLI.tempDir()
        let w = CLI.root + "/Workloads/small-ram.yaml"
        let r = try Self.sh("""
            set -e
            cat '\(Self.usage)' | $J sweep --usage /dev/stdin --duration 1d --policy lru --ram 2GB,3GB --out sw --quiet
            cat '\(Self.usage)' | $J trace --usage /dev/stdin --devices 1 --policy lru --ram 2GB > piped.csv
            $J trace --usage '\(Self.usage)' --devices 1 --policy lru --ram 2GB > file.csv
            $J run --workload <(cat '\(w)') --devices 2 --duration 1d --policy lru --ram 2GB --quiet > sub.csv
            $J run --workload '\(w)' --devices 2 --duration 1d --policy lru --ram 2GB --quiet > plain.csv
            $J run --devices 4 --duration 1d --policy lru --ram 2GB --quiet --shard 1/2 --out a.csv
            $J run --devices 4 --duration 1d --policy lru --ram 2GB --quiet --shard 2/2 --out b.csv
            cat b.csv.state | $J merge a.csv.state /dev/stdin --out m.csv
            """, cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.read(dir + "/sw/combined.csv").split(separator: "\n").count >= 3)
        #expect(Self.read(dir + "/piped.csv") == Self.read(dir + "/file.csv"))
        #expect(Self.read(dir + "/piped.csv").split(separator: "\n").count > 10)
        #expect(Self.read(dir + "/sub.csv") == Self.read(dir + "/plain.csv"))
        #expect(Self.read(dir + "/m.csv").hasPrefix("workload,"))
    }

    @Test("a descriptor link (/dev/fd/1, a link to /proc/self/fd/1, >(...)) is written through, never replaced, with no sidecar")
    func descriptorOutputs() throws {
        let dir = try CLI.tempDir()
        let run = "$J run \(Self.tiny.joined(separator: " "))"
        let r = try Self.sh("""
            set -e
            ln -s /proc/self/fd/1 link
            \(run) --out link > via-link.csv
            \(run) --out /dev/fd/1 > via-fd.csv
            echo first > appended.csv
            \(run) --out /dev/stdout >> appended.csv
            \(run) --out >(cat > via-subst.csv)
            sleep 0.5
            """, cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        var st = stat()
        #expect(lstat(dir + "/link", &st) == 0 && st.st_mode & S_IFMT == S_IFLNK, "the link was replaced")
        #expect(lstat("/dev/stdout", &st) == 0 && st.st_mode & S_IFMT == S_IFLNK, "/dev/stdout was replaced")
        for f in ["via-link.csv", "via-fd.csv", "via-subst.csv"] {
            #expect(Self.read(dir + "/" + f).hasPrefix("workload,policy,"), "\(f)")
        }
        #expect(Self.read(dir + "/appended.csv").hasPrefix("first\nworkload,policy,"))
        #expect(CLI.files(in: dir) == ["appended.csv", "link", "via-fd.csv", "via-link.csv", "via-subst.csv"])
    }

    @Test("descriptor outputs are checked before the work: one not open for writing, or two writers of stdout, exit 2")
    func descriptorChecks() throws {
        let dir = try CLI.tempDir()
        let closed = try Self.sh("$J run \(Self.tiny.joined(separator: " ")) --out /dev/fd/7 --perf p.csv", cwd: dir)
        #expect(closed.status == 2 && closed.stderr.contains("descriptor 7 is not open for writing"), "\(closed.stderr)")
        let twice = try Self.sh("$J run \(Self.tiny.joined(separator: " ")) --out - --per-device /dev/stdout", cwd: dir)
        #expect(twice.status == 2 && twice.stderr.contains("both write to standard output"), "\(twice.stderr)")
        #expect(CLI.files(in: dir).isEmpty)
    }

    // MARK: sweeps that trust what they find

    static let sweep = ["sweep", "--devices", "2", "--duration", "8h", "--policy", "lru", "--ram", "2GB", "--quiet",
                        "--set", "user.sessions_per_day=10,20"]

    @Test("a sweep resumed after its workload changed is refused naming the change; combined.csv is untouched")
    func changedWorkload() throws {
        let dir = try CLI.tempDir()
        let w = dir + "/w.yaml"
        try Self.read(CLI.root + "/Workloads/small-ram.yaml").write(toFile: w, atomically: true, encoding: .utf8)
        let first = try CLI.run(Self.sweep + ["--workload", w, "--out", dir + "/sw"])
        #expect(first.status == 0, "\(first.stderr)")
        let combined = Self.read(dir + "/sw/combined.csv")
        try (Self.read(w) + "# an edit\n").write(toFile: w, atomically: true, encoding: .utf8)
        let again = try CLI.run(Self.sweep + ["--workload", w, "--out", dir + "/sw"])
        #expect(again.status == 2 && again.stderr.contains("workload_fnv1a64") && again.stderr.contains("changed"), "\(again.stderr)")
        #expect(Self.read(dir + "/sw/combined.csv") == combined)
    }

    @Test("a point cut short, or copied from another sweep, is refused by --combine and by a resume")
    func untrustedPoints() throws {
        let dir = try CLI.tempDir()
        #expect(try CLI.run(Self.sweep + ["--out", dir + "/a"]).status == 0)
        #expect(try CLI.run(Self.sweep + ["--out", dir + "/b", "--seed", "7"]).status == 0)
        let point = "/points/1-user.sessions_per_day=10.csv"
        let text = Self.read(dir + "/a" + point)
        try String(text.dropLast(20)).write(toFile: dir + "/a" + point, atomically: true, encoding: .utf8)
        for extra in [["--combine"], []] {
            let r = try CLI.run(Self.sweep + ["--out", dir + "/a"] + extra)
            #expect(r.status == 2 && r.stderr.contains("cut short or edited"), "\(extra): \(r.stderr)")
        }
        // A point and its sidecar from the other sweep (another seed).
        for f in ["", ".provenance.json"] {
            try FileManager.default.removeItem(atPath: dir + "/a" + point + f)
            try FileManager.default.copyItem(atPath: dir + "/b" + point + f, toPath: dir + "/a" + point + f)
        }
        let foreign = try CLI.run(Self.sweep + ["--out", dir + "/a", "--combine"])
        #expect(foreign.status == 2 && foreign.stderr.contains("belongs to another sweep"), "\(foreign.stderr)")
    }

    @Test("a sensitivity point cut short, or copied from another run, is refused by --combine and by a resume (issue 34)")
    func untrustedSensitivityPoints() throws {
        let dir = try CLI.tempDir()
        let sens = ["sensitivity", "--baseline", "lru", "--policy", "lru,random", "--ram", "2GB", "--devices", "2", "--duration", "12h",
                    "--set", "catalog.apps=300", "--quiet"]
        #expect(try CLI.run(sens + ["--out", dir + "/a"]).status == 0)
        #expect(try CLI.run(sens + ["--out", dir + "/b", "--seed", "7"]).status == 0)
        let point = try #require(CLI.files(in: dir + "/a/points").first { $0.hasPrefix("2-") && $0.hasSuffix(".csv") })
        let path = dir + "/a/points/" + point
        let text = Self.read(path)
        try String(text.dropLast(20)).write(toFile: path, atomically: true, encoding: .utf8)
        for extra in [["--combine"], []] {
            let r = try CLI.run(sens + ["--out", dir + "/a"] + extra)
            #expect(r.status == 2 && r.stderr.contains("cut short or edited"), "\(extra): \(r.stderr)")
        }
        // A point and its sidecar from the other run (another seed), and one renamed from another point.
        for f in ["", ".provenance.json"] {
            try FileManager.default.removeItem(atPath: path + f)
            try FileManager.default.copyItem(atPath: dir + "/b/points/" + point + f, toPath: path + f)
        }
        let foreign = try CLI.run(sens + ["--out", dir + "/a", "--combine"])
        #expect(foreign.status == 2 && foreign.stderr.contains("belongs to another sensitivity run"), "\(foreign.stderr)")
        let other = try #require(CLI.files(in: dir + "/a/points").first { $0.hasPrefix("3-") && $0.hasSuffix(".csv") })
        for f in ["", ".provenance.json"] {
            try FileManager.default.removeItem(atPath: path + f)
            try FileManager.default.copyItem(atPath: dir + "/a/points/" + other + f, toPath: path + f)
        }
        let renamed = try CLI.run(sens + ["--out", dir + "/a", "--combine"])
        #expect(renamed.status == 2 && renamed.stderr.contains("another point (3)"), "\(renamed.stderr)")
    }

    @Test("two identical sweeps in one directory both finish; a dead writer's temporary file goes, a live one's stays")
    func concurrentSweeps() throws {
        let dir = try CLI.tempDir()
        let args = (["sweep", "--devices", "20", "--duration", "1d", "--policy", "lru", "--ram", "2GB", "--quiet",
                     "--set", "user.sessions_per_day=10,20,30", "--out", "sw"]).joined(separator: " ")
        let r = try Self.sh("$J \(args) & $J \(args); a=$?; wait $!; b=$?; echo $a $b", cwd: dir)
        #expect(r.stdout == "0 0\n", "\(r.stderr)")
        #expect(Self.noTemporaries(dir))
        let expected = Self.read(dir + "/sw/combined.csv")
        #expect(expected.split(separator: "\n").count == 4)
        // A temporary file no process holds is removed; one held (flock) is kept.
        let held = try Self.sh("""
            touch sw/points/.2-x.csv.tmp-1-1 sw/points/.3-y.csv.tmp-2-1
            flock sw/points/.3-y.csv.tmp-2-1 sleep 5 &
            sleep 0.3
            $J \(args) --point 1
            ls -a sw/points | grep tmp
            """, cwd: dir)
        #expect(held.stdout == ".3-y.csv.tmp-2-1\n", "\(held.stdout) \(held.stderr)")
    }

    @Test("a sweep's bad --out or axes are refused before any work, in words",
          arguments: [
              (["--set", "user.sessions_per_day=30,40", "--out", "sw"], "is already given"),
              (["--out", "afile"], "it is a file, not a directory"),
              (["--out", "afile/sub"], "a part of the path is a file"),
          ])
    func sweepRefusals(extra: [String], words: String) throws {
        let dir = try CLI.tempDir()
        try "x".write(toFile: dir + "/afile", atomically: true, encoding: .utf8)
        let r = try CLI.run(Self.sweep + extra, cwd: dir)
        #expect(r.status == 2 && r.stderr.contains(words), "\(r.stderr)")
        #expect(!r.stderr.contains("NSCocoaErrorDomain") && !r.stderr.contains("Error Domain"))
        #expect(CLI.files(in: dir) == ["afile"])
    }

    @Test("a sweep whose directory holds its own input is refused: the input is untouched")
    func sweepOutputIsInput() throws {
        let dir = try CLI.tempDir()
        try FileManager.default.createDirectory(atPath: dir + "/sw", withIntermediateDirectories: true)
        let content = Self.read(Self.usage)
        try content.write(toFile: dir + "/sw/combined.csv", atomically: true, encoding: .utf8)
        let r = try CLI.run(["sweep", "--usage", "sw/combined.csv", "--policy", "lru", "--ram", "2GB", "--quiet",
                             "--set", "seed=1,2", "--out", "sw"], cwd: dir)
        #expect(r.status == 2 && r.stderr.contains("would replace it"), "\(r.stderr)")
        #expect(Self.read(dir + "/sw/combined.csv") == content)
    }

    // MARK: text by bytes

    @Test("a field holding CRLF is quoted (per-device rows, trace --format usage, import) and reads back")
    func crlfQuoted() throws {
        let dir = try CLI.tempDir()
        try "device,time_s,app,duration_s\n\"d\r\n1\",0,\"a\r\nb\",5\n\"d\r\n1\",60,c,5\n".write(toFile: dir + "/u.csv", atomically: true, encoding: .utf8)
        try "package,event_type,timestamp\n\"a\r\nb\",MOVE_TO_FOREGROUND,0\n\"a\r\nb\",MOVE_TO_BACKGROUND,5000\n".write(toFile: dir + "/ev.csv", atomically: true, encoding: .utf8)
        let r = try Self.sh("""
            set -e
            $J run --usage u.csv --policy lru --ram 2GB --quiet --out s.csv --per-device pd.csv
            $J trace --usage u.csv --format usage --policy lru --ram 2GB --out tu.csv
            $J import --format android-usagestats ev.csv --out im.csv 2>/dev/null
            $J run --usage tu.csv --policy lru --ram 2GB --quiet --out /dev/null
            $J run --usage im.csv --policy lru --ram 2GB --quiet --out /dev/null
            """, cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.read(dir + "/pd.csv").contains("\"d\r\n1\""))
        #expect(Self.read(dir + "/tu.csv").contains("\"d\r\n1\",0,\"a\r\nb\","))
        #expect(Self.read(dir + "/im.csv").contains("device,0,\"a\r\nb\",5"))
    }

    @Test("ids that differ only in Unicode normalisation are two devices, in replay and import alike")
    func normalisation() throws {
        let dir = try CLI.tempDir()
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        try "device,time_s,app,duration_s\n\(nfc),0,a,5\n\(nfd),0,a,5\n".write(toFile: dir + "/u.csv", atomically: true, encoding: .utf8)
        try "package,event_type,timestamp,device\na,1,0,\(nfc)\na,2,5000,\(nfc)\na,1,0,\(nfd)\na,2,5000,\(nfd)\n".write(toFile: dir + "/ev.csv", atomically: true, encoding: .utf8)
        let r = try Self.sh("$J run --usage u.csv --policy lru --ram 2GB --quiet --out s.csv --per-device pd.csv && $J import --format android-usagestats ev.csv --out im.csv", cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.read(dir + "/pd.csv").split(separator: "\n").count == 3)
        #expect(Self.read(dir + "/im.csv").utf8.split(separator: 0x0A).count == 3)
    }

    @Test("an argument that is not UTF-8 is refused: no file of another name is written")
    func nonUTF8Name() throws {
        let dir = try CLI.tempDir()
        let r = try Self.sh("$J run \(Self.tiny.joined(separator: " ")) --out $'x\\xff.csv'", cwd: dir)
        #expect(r.status == 2 && r.stderr.contains("not UTF-8"), "\(r.stderr)")
        #expect(CLI.files(in: dir).isEmpty)
    }

    // MARK: names at the limits

    @Test("an output name whose sidecar passes NAME_MAX is refused before any work; the longest that fits is written")
    func longNames() throws {
        let dir = try CLI.tempDir()
        let long = String(repeating: "a", count: 246) + ".csv"  // 250 bytes: its sidecar 266
        let r = try CLI.run(["run"] + Self.tiny + ["--out", long], cwd: dir)
        #expect(r.status == 2 && r.stderr.contains("a file name may have at most 255"), "\(r.stderr)")
        #expect(CLI.files(in: dir).isEmpty)
        let fits = String(repeating: "b", count: 235) + ".csv"  // 239 bytes: its sidecar 255
        let ok = try CLI.run(["run"] + Self.tiny + ["--out", fits], cwd: dir)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(CLI.files(in: dir) == [fits, fits + ".provenance.json"])
    }

    @Test("a sweep label is at most 120 bytes, whatever its letters")
    func sweepLabelBytes() throws {
        let value = String(repeating: "\u{E9}", count: 100)
        let r = try CLI.run(["sweep", "--list", "--set", "run.policies=[\(value)],[lru]"])
        #expect(r.status == 0, "\(r.stderr)")
        for line in r.stdout.split(separator: "\n") {
            let label = line.split(separator: "\t")[1]
            #expect(label.utf8.count <= 120, "\(label.utf8.count)")
        }
    }

    // MARK: what jetsim writes it must read

    @Test("with --shard, a line break in a --set value or the --usage path is refused before any work")
    func lineBreaksInState() throws {
        let dir = try CLI.tempDir()
        let r = try CLI.run(["run"] + Self.tiny + ["--set", "user.sessions_per_day=20\n", "--shard", "1/2", "--out", "s.csv"], cwd: dir)
        #expect(r.status == 2 && r.stderr.contains("line break"), "\(r.stderr)")
        #expect(CLI.files(in: dir).isEmpty)
    }

    @Test("import skips (and counts) rows --usage would refuse: empty ids and names")
    func importWritesWhatReplayReads() throws {
        let dir = try CLI.tempDir()
        try "package,event_type,timestamp,device\n,1,0,d\n,2,5000,d\na,1,0,\na,2,5000,\na,1,0,d\na,2,5000,d\n".write(toFile: dir + "/ev.csv", atomically: true, encoding: .utf8)
        let r = try Self.sh("$J import --format android-usagestats ev.csv --out im.csv && $J run --usage im.csv --policy lru --ram 2GB --quiet --out /dev/null", cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("empty app name: skipped") && r.stderr.contains("empty device id: skipped"), "\(r.stderr)")
        #expect(Self.read(dir + "/im.csv") == "device,time_s,app,duration_s\nd,0,a,5\n")
    }

    // MARK: provenance and merge

    @Test("a refused merge leaves the other outputs' sidecars alone; --by-out X.provenance.json is refused")
    func mergeRefusals() throws {
        let dir = try CLI.tempDir()
        for i in 1...2 {
            #expect(try CLI.run(["run"] + Self.tiny + ["--shard", "\(i)/2", "--out", "s\(i).csv"], cwd: dir).status == 0)
        }
        try "kept\n".write(toFile: dir + "/m.csv.provenance.json", atomically: true, encoding: .utf8)
        let noBy = try CLI.run(["merge", "s1.csv.state", "s2.csv.state", "--out", "m.csv", "--by-out", "by.csv"], cwd: dir)
        #expect(noBy.status == 2 && noBy.stderr.contains("no breakdown"), "\(noBy.stderr)")
        #expect(Self.read(dir + "/m.csv.provenance.json") == "kept\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/m.csv"))
        let side = try CLI.run(["merge", "s1.csv.state", "s2.csv.state", "--out", "m.csv", "--by-out", "m.csv.provenance.json"], cwd: dir)
        #expect(side.status == 2 && side.stderr.contains("both write to"), "\(side.stderr)")
        #expect(Self.read(dir + "/m.csv.provenance.json") == "kept\n")
    }

    // MARK: resources and late checks

    @Test("with ulimit -n 8 and five outputs: exit 1 naming the limit, nothing left")
    func fewDescriptors() throws {
        let dir = try CLI.tempDir()
        let r = try Self.sh("ulimit -n 8; $J run \(Self.tiny.joined(separator: " ")) --out a.csv --per-device b.csv --perf c.csv --by class --by-out d.csv --timeseries e.csv", cwd: dir)
        #expect(r.status == 1 && r.stderr.contains("too few file descriptors") && r.stderr.contains("ulimit -n"), "\(r.stderr)")
        #expect(CLI.files(in: dir).isEmpty && Self.noTemporaries(dir))
    }

    @Test("--devices past a trace's devices is refused before the replay, piped or not")
    func devicesBeyondTrace() throws {
        let dir = try CLI.tempDir()
        let r = try Self.sh("cat '\(Self.usage)' | $J run --usage /dev/stdin --devices 301 --policy lru --ram 2GB --quiet --out o.csv --per-device pd.csv", cwd: dir)
        #expect(r.status == 2 && r.stderr.contains("--devices 301: /dev/stdin has only 3 device(s)"), "\(r.stderr)")
        #expect(CLI.files(in: dir).isEmpty)
    }
}
