import Foundation
import Testing

@Suite("jetsim sensitivity", .endToEnd)
struct SensitivityCLITests {
    /// Small, so that the 159 points of a run take a few seconds even in a debug build.
    static let options = ["--baseline", "lru", "--policy", "lru,random", "--ram", "2GB", "--devices", "2", "--duration", "1d",
                          "--set", "catalog.apps=300", "--quiet"]

    func sensitivity(_ dir: String, _ extra: [String] = []) throws -> CLI.Output {
        try CLI.run(["sensitivity", "--out", dir] + Self.options + extra)
    }

    func data(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("a point that changes only keys its classes' memory manager does not read is its center's, not run again")
    func unreadKeysAreTheCenter() throws {
        let listed = try CLI.run(["sensitivity"] + Self.options + ["--list"]).stdout.split(separator: "\n")
        let unread = listed.filter { $0.contains("android_gc_heap_pct-high") || $0.contains("fleet_launch_swap_in_pct-") }
        #expect(unread.count == 3)
        for l in unread { #expect(l.hasSuffix("the center)"), "\(l)") }
        #expect(listed.contains { $0.contains("os_reserve_mb-low") && !$0.hasSuffix("the center)") })
        // On Android the Android keys are run, Fleet's are not.
        let android = try CLI.run(["sensitivity", "--workload", "Workloads/android.yaml", "--baseline", "lru", "--list"]).stdout.split(separator: "\n")
        #expect(android.contains { $0.contains("android_gc_heap_pct-high") && !$0.hasSuffix("the center)") })
        #expect(android.contains { $0.contains("fleet_launch_swap_in_pct-high") && $0.hasSuffix("the center)") })
    }

    @Test("one CSV row per key or group and policy, identical whatever the threads, after a resume or from job-array points; each point is jetsim run's CSV")
    func endToEnd() throws {
        let a = try CLI.tempDir(), b = try CLI.tempDir(), c = try CLI.tempDir()
        defer { for d in [a, b, c] { try? FileManager.default.removeItem(atPath: d) } }
        let r = try sensitivity(a, ["--threads", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let csv = try data(a + "/sensitivity.csv")
        let lines = String(decoding: csv, as: UTF8.self).split(separator: "\n")
        let keys = try CLI.run(["validate", "--keys"]).stdout.split(separator: "\n").filter { $0.split(separator: "\t")[4] != "-" }
        // Every key with a plausible range and every group, for each of the 4 metrics,
        // for random (lru is the baseline).
        let listed = try CLI.run(["sensitivity"] + Self.options + ["--list"]).stdout.split(separator: "\n")
        #expect(lines.count == 1 + 4 * (listed.count - 1) / 2)
        #expect(lines.count == 1 + 4 * (keys.count + 3))
        #expect(lines[0].hasPrefix("workload,ram_mb,varied,kind,range,low,high,metric,policy,baseline,value_center,delta_center"))
        for metric in ["cold_ratio", "mean_ms", "p99_ms", "loss_per_device_day"] {
            #expect(lines.contains { $0.hasPrefix("default,2048,system-wakes,group,x0...x4,x0,x4,\(metric),random,lru,") })
        }
        #expect(FileManager.default.fileExists(atPath: a + "/sensitivity.csv.provenance.json"))
        #expect(r.stdout.contains("ranking flips"))
        // A key the iPhone class's manager does not read never moves; the reserve does.
        #expect(lines.filter { $0.hasPrefix("default,2048,device_classes.android_gc_heap_pct,") }.count == 4)
        #expect(lines.filter { $0.hasPrefix("default,2048,device_classes.android_gc_heap_pct,") }.allSatisfy { $0.hasSuffix(",no") })
        #expect(lines.filter { $0.hasPrefix("default,2048,device_classes.os_reserve_mb,") }.count == 4)
        #expect(lines.filter { $0.hasPrefix("default,2048,device_classes.os_reserve_mb,") }.allSatisfy { $0.hasSuffix(",yes") })

        // Threads.
        #expect(try sensitivity(b, ["--threads", "2"]).status == 0)
        #expect(try data(b + "/sensitivity.csv") == csv)

        // Resume: points removed (and a temporary left by a kill) are run again, nothing else.
        for f in CLI.files(in: b + "/points") where f.hasPrefix("5-") || f.hasPrefix("6-") { try FileManager.default.removeItem(atPath: b + "/points/" + f) }
        try "partial".write(toFile: b + "/points/.5-x.csv.tmp-99999", atomically: true, encoding: .utf8)
        let again = try CLI.run(["sensitivity", "--out", b] + Self.options.filter { $0 != "--quiet" })
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("already done") && again.stderr.contains("point 5/") && !again.stderr.contains("point 7/"))
        #expect(try data(b + "/sensitivity.csv") == csv)
        #expect(!CLI.files(in: b + "/points").contains { $0.contains(".tmp-") })

        // Job arrays: a combine before every point is done names the missing ones;
        // points run apart (two here, the rest as other tasks would leave them) give the same CSV.
        #expect(try sensitivity(c, ["--point", "1"]).status == 0)
        #expect(try sensitivity(c, ["--point", "3"]).status == 0)
        let early = try sensitivity(c, ["--combine"])
        #expect(early.status == 1 && early.stderr.contains("not done yet"))
        for f in CLI.files(in: a + "/points") where !f.hasPrefix("1-") && !f.hasPrefix("3-") {
            try FileManager.default.copyItem(atPath: a + "/points/" + f, toPath: c + "/points/" + f)
        }
        #expect(try sensitivity(c, ["--combine"]).status == 0)
        #expect(try data(c + "/sensitivity.csv") == csv)

        // The screening: the corners are listed once the one-at-a-time points are
        // done, and interactions.csv is the same whatever the threads.
        let corners = try CLI.run(["sensitivity", "--out", a, "--list", "--interactions", "2"] + Self.options)
        #expect(corners.stdout.split(separator: "\n").count == listed.count + 4)
        #expect(try sensitivity(a, ["--interactions", "2", "--threads", "1"]).status == 0)
        #expect(try sensitivity(b, ["--interactions", "2", "--threads", "2"]).status == 0)
        let pairs = try data(a + "/interactions.csv")
        #expect(try data(b + "/interactions.csv") == pairs)
        #expect(String(decoding: pairs, as: UTF8.self).split(separator: "\n").count == 1 + 4)
        #expect(try data(a + "/sensitivity.csv") == csv)

        // Point 3 (the OS reserve's high end, 723 MB at 2 GB) is what `jetsim run` writes with its --set.
        let point3 = try #require(CLI.files(in: a + "/points").first { $0.hasPrefix("3-") && $0.hasSuffix(".csv") })
        #expect(point3 == "3-2048-device_classes.os_reserve_mb-high.csv")
        let run = try CLI.run(["run", "--baseline", "lru", "--policy", "lru,random", "--ram", "2GB", "--devices", "2", "--duration", "1d",
                               "--set", "catalog.apps=300", "--set", "device_classes.0.os_reserve_mb=723", "--quiet", "--out", a + "/run.csv"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try data(a + "/run.csv") == data(a + "/points/" + point3))
    }

    @Test("bad input exits 2 before any work: no baseline, a bad --set, a baseline not run")
    func badInput() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let noBaseline = try CLI.run(["sensitivity", "--out", dir + "/x", "--devices", "2"])
        #expect(noBaseline.status == 2 && noBaseline.stderr.contains("--baseline"))
        let badSet = try sensitivity(dir + "/y", ["--set", "user.no_such_key=1"])
        #expect(badSet.status == 2 && badSet.stderr.contains("user.no_such_key"))
        let notRun = try CLI.run(["sensitivity", "--out", dir + "/z", "--baseline", "oracle", "--policy", "lru", "--devices", "2"])
        #expect(notRun.status == 2 && notRun.stderr.contains("oracle"))
        let badMetric = try sensitivity(dir + "/w", ["--metric", "speed"])
        #expect(badMetric.status == 2 && badMetric.stderr.contains("--metric"))
        #expect(CLI.files(in: dir).isEmpty)
    }
}
