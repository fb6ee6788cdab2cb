import Foundation
import Testing

/// Golden outputs: the summary, per-device and shard-state files of every shipped
/// workload (small fleets), a usage replay and a trace, byte for byte as recorded in
/// `Tests/Golden/`. A refactor must keep them identical; a change of behaviour updates
/// them on purpose (`JETSIM_UPDATE_GOLDEN=1 swift test --filter Golden`) and says why
/// in its commit. The scenarios' traces are pinned the same way by `ScenarioCLITests`.
@Suite("Golden outputs: every shipped workload, byte for byte", .endToEnd)
struct GoldenTests {
    static let golden = CLI.root + "/Tests/Golden"
    static let update = ProcessInfo.processInfo.environment["JETSIM_UPDATE_GOLDEN"] == "1"

    static let workloads = ["default", "irm-zipf", "large-ram", "mixed-fleet", "small-ram", "stress", "android"]

    /// Compares `produced` (a file the run wrote) with its golden copy, or records it.
    static func check(_ produced: String, as name: String) throws {
        let got = try Data(contentsOf: URL(fileURLWithPath: produced))
        let path = golden + "/" + name
        if update {
            try got.write(to: URL(fileURLWithPath: path))
            return
        }
        let want = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(got == want, "\(name) differs from its golden copy (Tests/Golden/\(name))")
    }

    @Test("summary, per-device rows and a shard's state of each shipped workload", arguments: workloads)
    func workload(_ name: String) throws {
        let tmp = try CLI.tempDir("golden-\(name)")
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let args = ["run", "--workload", "Workloads/\(name).yaml", "--devices", "10", "--duration", "2d", "--policy", "all",
                    "--quiet", "--threads", "2"]
        let r = try CLI.run(args + ["--out", tmp + "/summary.csv", "--per-device", tmp + "/per-device.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        try Self.check(tmp + "/summary.csv", as: "\(name).summary.csv")
        try Self.check(tmp + "/per-device.csv", as: "\(name).per-device.csv")
        let s = try CLI.run(args + ["--shard", "2/3", "--out", tmp + "/shard.csv"])
        #expect(s.status == 0, "\(s.stderr)")
        try Self.check(tmp + "/shard.csv.state", as: "\(name).shard-2-of-3.state")
    }

    @Test("overrides, a usage replay and a lifecycle trace")
    func otherInputs() throws {
        let tmp = try CLI.tempDir("golden-other")
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let set = try CLI.run(["run", "--devices", "6", "--duration", "1d", "--ram", "2GB,3GB", "--quiet",
                               "--set", "user.sessions_per_day=90", "--set", "catalog.archetypes.game.share=0.4",
                               "--set", "device_classes.iphone-11.os_reserve_mb=900", "--out", tmp + "/set.csv"])
        #expect(set.status == 0, "\(set.stderr)")
        try Self.check(tmp + "/set.csv", as: "overrides.summary.csv")
        let usage = try CLI.run(["run", "--usage", "Tests/Golden/usage.csv", "--duration", "1d", "--ram", "1GB,2GB", "--quiet",
                                 "--out", tmp + "/usage.csv", "--per-device", tmp + "/usage-per-device.csv"])
        #expect(usage.status == 0, "\(usage.stderr)")
        try Self.check(tmp + "/usage.csv", as: "usage.summary.csv")
        try Self.check(tmp + "/usage-per-device.csv", as: "usage.per-device.csv")
        for policy in ["lru", "jetsam-bands", "oracle"] {
            let t = try CLI.run(["trace", "--devices", "2", "--duration", "12h", "--policy", policy, "--ram", "2GB",
                                 "--out", tmp + "/trace.csv"])
            #expect(t.status == 0, "\(t.stderr)")
            try Self.check(tmp + "/trace.csv", as: "trace-\(policy).csv")
        }
    }
}
