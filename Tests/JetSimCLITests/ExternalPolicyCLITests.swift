import Foundation
import Testing

/// Policies run as separate processes (docs/external-policies.md), through the binary:
/// the Python examples against the built-in policies they copy, determinism across
/// threads and shards, the script in the inputs hash, and every way a process can fail.
@Suite("External policies: a process speaking the line protocol", .endToEnd)
struct ExternalPolicyCLITests {
    static let lru = ["--set", "policies.external.lru.command=[python3, Workloads/policies/lru.py]"]

    /// The rows of `csv` for `name` (in order), with the policy's name replaced by `as`:
    /// the policy column is the only one holding `,NAME,` (it is never the first).
    static func rows(_ csv: String, _ name: String, as other: String) -> [String] {
        csv.split(separator: "\n").map(String.init).filter { $0.contains("," + name + ",") }
            .map { $0.replacingOccurrences(of: "," + name + ",", with: "," + other + ",") }
    }

    static func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    /// (workload, devices, extra arguments): every shipped workload; lru-reference is
    /// made for a replay, and the default runs a replay too.
    static let workloads: [(String, String, [String])] = [
        ("default.yaml", "12", ["--threads", "2"]), ("small-ram.yaml", "6", []), ("large-ram.yaml", "6", []),
        ("mixed-fleet.yaml", "8", []), ("stress.yaml", "1", []), ("android.yaml", "6", []), ("irm-zipf.yaml", "6", []),
        ("lru-reference.yaml", "3", ["--usage", "Workloads/examples/usage.csv"]),
        ("default.yaml", "3", ["--usage", "Workloads/examples/usage.csv", "--ram", "2GB"]),
    ]

    @Test("Workloads/policies/lru.py gives the built-in lru's summary and per-device rows byte for byte (but the name)",
          arguments: workloads.indices)
    func pythonLRUEqualsBuiltIn(_ i: Int) throws {
        let (workload, devices, extra) = Self.workloads[i]
        let tmp = try CLI.tempDir("lru\(i)")
        let r = try CLI.run(["run", "--workload", "Workloads/" + workload, "--policy", "lru,external:lru", "--devices", devices,
                             "--duration", "1d", "--quiet", "--out", tmp + "/s.csv", "--per-device", tmp + "/d.csv"] + Self.lru + extra)
        #expect(r.status == 0, "\(r.stderr)")
        for file in ["/s.csv", "/d.csv"] {
            let csv = try Self.read(tmp + file)
            let builtIn = Self.rows(csv, "lru", as: "lru"), external = Self.rows(csv, "external:lru", as: "lru")
            #expect(!builtIn.isEmpty)
            #expect(external == builtIn, "\(workload) \(file)")
        }
    }

    @Test("Workloads/policies/largest_first.py gives the built-in largest-first's rows (but the name)")
    func pythonLargestFirstEqualsBuiltIn() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["run", "--policy", "largest-first,external:big", "--devices", "10", "--duration", "1d", "--ram", "2GB,3GB",
                             "--set", "policies.external.big.command=[python3, Workloads/policies/largest_first.py]",
                             "--quiet", "--out", tmp + "/s.csv", "--per-device", tmp + "/d.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        for file in ["/s.csv", "/d.csv"] {
            let csv = try Self.read(tmp + file)
            #expect(Self.rows(csv, "external:big", as: "largest-first") == Self.rows(csv, "largest-first", as: "largest-first"))
        }
    }

    /// Protocol 3 carries each candidate's oom_score_adj (docs/fidelity.md's claim): a
    /// script that orders by it alone, as lmkd does, makes the built-in android-lmk's
    /// choices on Android (and Fleet) devices, every kill of every cell.
    @Test("protocol 3: Workloads/policies/android_lmk.py gives the built-in android-lmk's rows byte for byte (but the name)",
          arguments: [("android.yaml", "8", ["--ram", "2GB,4GB"]), ("mixed-fleet.yaml", "8", []), ("android.yaml", "4", ["--set", "device_classes.pixel-4.os=fleet", "--ram", "3GB"])])
    func pythonAndroidLMKEqualsBuiltIn(_ workload: String, _ devices: String, _ extra: [String]) throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["run", "--workload", "Workloads/" + workload, "--policy", "android-lmk,external:lmk", "--devices", devices, "--duration", "2d",
                             "--set", "policies.external.lmk.command=[python3, Workloads/policies/android_lmk.py]", "--set", "policies.external.lmk.protocol=3",
                             "--quiet", "--out", tmp + "/s.csv", "--per-device", tmp + "/d.csv"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        for file in ["/s.csv", "/d.csv"] {
            let csv = try Self.read(tmp + file)
            let builtIn = Self.rows(csv, "android-lmk", as: "android-lmk")
            #expect(!builtIn.isEmpty)
            #expect(Self.rows(csv, "external:lmk", as: "android-lmk") == builtIn, "\(workload) \(file)")
        }
        // It kills: the comparison is over real choices.
        let summary = try Self.read(tmp + "/s.csv").split(separator: "\n")
        let kills = summary[0].split(separator: ",").firstIndex(of: "kills")!
        #expect(summary.dropFirst().allSatisfy { (Int($0.split(separator: ",", omittingEmptySubsequences: false)[kills]) ?? 0) > 0 })
        // Version 2 greets it with 2: the script refuses (it needs the adj).
        let old = try CLI.run(["run", "--workload", "Workloads/android.yaml", "--policy", "external:lmk", "--devices", "2", "--duration", "1d",
                               "--set", "policies.external.lmk.command=[python3, Workloads/policies/android_lmk.py]", "--set", "policies.external.lmk.protocol=2",
                               "--quiet", "--out", tmp + "/old.csv"])
        #expect(old.status == 1 && old.stderr.contains("jetsim-policy 3"), "\(old.stderr)")
    }

    static let args = ["run", "--policy", "external:lru,oracle", "--devices", "21", "--duration", "1d", "--ram", "2GB", "--quiet"]

    @Test("the same CSV whatever --threads, and shards merge into it byte for byte")
    func deterministicAndShardable() throws {
        let tmp = try CLI.tempDir()
        for t in ["1", "3"] {
            let r = try CLI.run(Self.args + Self.lru + ["--threads", t, "--out", tmp + "/t\(t).csv"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(try Self.read(tmp + "/t1.csv") == Self.read(tmp + "/t3.csv"))
        for i in 1...2 {
            let r = try CLI.run(Self.args + Self.lru + ["--shard", "\(i)/2", "--threads", "2", "--out", tmp + "/s\(i).csv"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let state = try Self.read(tmp + "/s1.csv.state")
        #expect(state.contains("\nexternal: lru "))
        let merged = try CLI.run(["merge", tmp + "/s1.csv.state", tmp + "/s2.csv.state", "--out", tmp + "/merged.csv"])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(try Self.read(tmp + "/merged.csv") == Self.read(tmp + "/t1.csv"))
        let provenance = try Self.read(tmp + "/t1.csv.provenance.json")
        #expect(provenance.contains("\"external_policies\""))
    }

    @Test("the script's content enters the inputs hash: shards run with different scripts do not merge")
    func scriptInInputsHash() throws {
        let tmp = try CLI.tempDir()
        let script = tmp + "/mine.py"
        try FileManager.default.copyItem(atPath: CLI.root + "/Workloads/policies/lru.py", toPath: script)
        let set = ["--set", "policies.external.lru.command=[python3, \(script)]"]
        let one = try CLI.run(Self.args + set + ["--shard", "1/2", "--out", tmp + "/s1.csv"])
        #expect(one.status == 0, "\(one.stderr)")
        try (Self.read(script) + "# changed\n").write(toFile: script, atomically: true, encoding: .utf8)
        let two = try CLI.run(Self.args + set + ["--shard", "2/2", "--out", tmp + "/s2.csv"])
        #expect(two.status == 0, "\(two.stderr)")
        let merged = try CLI.run(["merge", tmp + "/s1.csv.state", tmp + "/s2.csv.state", "--out", tmp + "/m.csv"])
        #expect(merged.status == 2)
        #expect(merged.stderr.contains("external policies' files"), "\(merged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tmp + "/m.csv"))
    }

    /// Python that greets, then does `onVictim` at each victim request.
    static func script(_ onVictim: String) -> String {
        """
        import sys, time
        sys.stdin.readline()
        print("ok", flush=True)
        for line in sys.stdin:
            if line.startswith("victim"):
                \(onVictim)

        """
    }

    /// (case, the script's action at a victim request (nil: no script), words of the error)
    static let failureCases: [(String, String?, String)] = [
        ("dies", "sys.exit(3)", "exited with status 3"),
        ("hangs", "time.sleep(60)", "no answer within 1 s (policies.external.x.timeout_s)"),
        ("garbage", "print('two apps', flush=True)", "answered 'two apps', not an app index"),
        ("not a candidate", "print(99999, flush=True)", "answered 99999, which is not a current candidate"),
        ("no greeting", nil, "expected 'ok'"),
        ("cannot start", nil, "cannot start ./no-such-program"),
    ]

    @Test("a process that dies, hangs, answers nonsense or cannot start: exit 1 naming the policy and the request, nothing written",
          arguments: failureCases.indices)
    func failing(_ i: Int) throws {
        let (name, action, words) = Self.failureCases[i]
        let tmp = try CLI.tempDir("fail\(i)")
        var command = "[./no-such-program]"
        if let action {
            try Self.script(action).write(toFile: tmp + "/p.py", atomically: true, encoding: .utf8)
            command = "[python3, \(tmp)/p.py]"
        } else if name == "no greeting" {
            try "print('hello')\n".write(toFile: tmp + "/p.py", atomically: true, encoding: .utf8)
            command = "[python3, \(tmp)/p.py]"
        }
        let out = tmp + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let started = Date()
        let r = try CLI.run(["run", "--policy", "lru,external:x", "--devices", "12", "--duration", "1d", "--ram", "2GB", "--threads", "2",
                             "--set", "policies.external.x.command=\(command)", "--set", "policies.external.x.timeout_s=1",
                             "--out", out + "/s.csv", "--per-device", out + "/d.csv", "--perf", out + "/p.csv"])
        #expect(r.status == 1, "\(name): \(r.stderr)")
        #expect(r.stderr.contains("policy external:x ("), "\(name): \(r.stderr)")
        #expect(r.stderr.contains("request "), "\(name): \(r.stderr)")
        #expect(r.stderr.contains(words), "\(name): \(r.stderr)")
        #expect(CLI.files(in: out).isEmpty, "\(name): \(CLI.files(in: out))")
        #expect(Date().timeIntervalSince(started) < 30, "\(name)")
    }

    @Test("an external policy the workload does not declare, or a bad declaration, is bad input (exit 2)")
    func undeclared() throws {
        let r = try CLI.run(["run", "--policy", "external:nope", "--devices", "2", "--duration", "1d"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("no policies.external.nope in the workload"), "\(r.stderr)")
        let bad = try CLI.run(["run", "--policy", "external:x", "--devices", "2", "--duration", "1d", "--set", "policies.external.x.timeout_s=5"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("policies.external.x.command: missing"), "\(bad.stderr)")
        let trace = try CLI.run(["trace", "--policy", "external:lru", "--ram", "2GB", "--duration", "1d"] + Self.lru)
        #expect(trace.status == 2)
        #expect(trace.stderr.contains("external policies run in run and sweep only"), "\(trace.stderr)")
    }
}
