import Foundation
import JetSim
import Testing

/// Golden outputs, one set of files per input and policy under `Tests/Golden/INPUT/`:
/// the summary, the per-device rows and a shard's state of every shipped workload (small
/// fleets), a run with `--set` overrides, a usage replay, and lifecycle traces, byte for
/// byte. A policy runs alone here (`--policy NAME`); every cell sees the same users, so
/// its rows are the ones it has in a run of all policies, and a new policy adds files
/// and changes none. A refactor must keep them identical; a change of behaviour updates
/// them on purpose (`JETSIM_UPDATE_GOLDEN=1 scripts/test-e2e.sh --filter Golden`) and
/// says why in its commit. The scenarios' traces are pinned the same way by
/// `ScenarioCLITests`; `swift test` keeps one small in-process golden
/// (`PolicyPinTests.smallGolden`).
@Suite("Golden outputs: every shipped workload and policy, byte for byte", .endToEnd)
struct GoldenTests {
    static let golden = CLI.root + "/Tests/Golden"
    static let update = ProcessInfo.processInfo.environment["JETSIM_UPDATE_GOLDEN"] == "1"

    static let workloads = ["default", "irm-zipf", "large-ram", "mixed-fleet", "small-ram", "stress", "android"]
    static let policies = PolicyID.all.map(\.name)

    /// Compares `produced` (a file the run wrote) with its golden copy, or records it.
    static func check(_ produced: String, as name: String) throws {
        let got = try Data(contentsOf: URL(fileURLWithPath: produced))
        let path = golden + "/" + name
        if update {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try got.write(to: URL(fileURLWithPath: path))
            return
        }
        let want = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(got == want, "\(name) differs from its golden copy (Tests/Golden/\(name))")
    }

    @Test("summary, per-device rows and a shard's state of each shipped workload, per policy", arguments: workloads, policies)
    func workload(_ name: String, _ policy: String) throws {
        let tmp = try CLI.tempDir("golden-\(name)-\(policy)")
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let args = ["run", "--workload", "Workloads/\(name).yaml", "--devices", "10", "--duration", "2d", "--policy", policy,
                    "--quiet", "--threads", "2"]
        let r = try CLI.run(args + ["--out", tmp + "/summary.csv", "--per-device", tmp + "/per-device.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        try Self.check(tmp + "/summary.csv", as: "\(name)/\(policy).summary.csv")
        try Self.check(tmp + "/per-device.csv", as: "\(name)/\(policy).per-device.csv")
        let s = try CLI.run(args + ["--shard", "2/3", "--out", tmp + "/shard.csv"])
        #expect(s.status == 0, "\(s.stderr)")
        try Self.check(tmp + "/shard.csv.state", as: "\(name)/\(policy).shard-2-of-3.state")
    }

    @Test("overrides and a usage replay, per policy", arguments: policies)
    func otherInputs(_ policy: String) throws {
        let tmp = try CLI.tempDir("golden-other-\(policy)")
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let set = try CLI.run(["run", "--devices", "6", "--duration", "1d", "--ram", "2GB,3GB", "--quiet", "--policy", policy,
                               "--set", "user.sessions_per_day=90", "--set", "catalog.archetypes.game.share=0.4",
                               "--set", "device_classes.iphone-11.os_reserve_mb=900", "--out", tmp + "/set.csv"])
        #expect(set.status == 0, "\(set.stderr)")
        try Self.check(tmp + "/set.csv", as: "overrides/\(policy).summary.csv")
        let usage = try CLI.run(["run", "--usage", "Tests/Golden/usage.csv", "--duration", "1d", "--ram", "1GB,2GB", "--quiet",
                                 "--policy", policy, "--out", tmp + "/usage.csv", "--per-device", tmp + "/usage-per-device.csv"])
        #expect(usage.status == 0, "\(usage.stderr)")
        try Self.check(tmp + "/usage.csv", as: "usage/\(policy).summary.csv")
        try Self.check(tmp + "/usage-per-device.csv", as: "usage/\(policy).per-device.csv")
    }

    @Test("a lifecycle trace", arguments: ["lru", "jetsam-bands", "oracle"])
    func trace(_ policy: String) throws {
        let tmp = try CLI.tempDir("golden-trace-\(policy)")
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let t = try CLI.run(["trace", "--devices", "2", "--duration", "12h", "--policy", policy, "--ram", "2GB",
                             "--out", tmp + "/trace.csv"])
        #expect(t.status == 0, "\(t.stderr)")
        try Self.check(tmp + "/trace.csv", as: "trace/\(policy).csv")
    }

    /// The in-process golden of `swift test` (`PolicyPinTests.smallGolden`) is what the
    /// binary writes for the same run: the library and the command agree.
    @Test("the binary writes the in-process golden's rows (Tests/Golden/small/)", arguments: policies)
    func small(_ policy: String) throws {
        let tmp = try CLI.tempDir("golden-small-\(policy)")
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.run(["run", "--devices", "6", "--duration", "1d", "--ram", "2GB", "--policy", policy, "--quiet",
                             "--threads", "1", "--out", tmp + "/small.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let got = try Data(contentsOf: URL(fileURLWithPath: tmp + "/small.csv"))
        let want = try Data(contentsOf: URL(fileURLWithPath: Self.golden + "/small/\(policy).summary.csv"))
        #expect(got == want, "jetsim run differs from Tests/Golden/small/\(policy).summary.csv")
    }
}
