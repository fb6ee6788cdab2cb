import Foundation
import Testing

/// `jetsim usage-stats`, `jetsim trace --format usage`, and settings that another
/// setting overrides (issue 14).
@Suite("usage-stats, trace --format usage, and overridden settings", .endToEnd)
struct UsageStatsCLITests {
    @Test("trace --format usage piped into usage-stats: CSV, the same from a file, and a table on request")
    func pipe() throws {
        let dir = try CLI.tempDir()
        let t = try CLI.run(["trace", "--format", "usage", "--devices", "3", "--duration", "7d", "--out", dir + "/u.csv"])
        #expect(t.status == 0, "\(t.stderr)")
        let text = try String(contentsOfFile: dir + "/u.csv", encoding: .utf8)
        #expect(text.hasPrefix("device,time_s,app,duration_s\n0,"))
        let csv = try CLI.run(["usage-stats", dir + "/u.csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let lines = csv.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("devices,days,app_sessions,session_mean_s"))
        #expect(lines[1].hasPrefix("3,7.000,"))
        let stdin = try CLI.run(["usage-stats", "-"], stdin: text)
        #expect(stdin.stdout == csv.stdout)
        let table = try CLI.run(["usage-stats", dir + "/u.csv", "--format", "table"])
        #expect(table.stdout.contains("app session mean (s)") && table.stdout.contains("71.6 (Böhmer et al. 2011)"))
        // The replay of that usage, traced, measured again: the same app sessions.
        let lifecycle = try CLI.run(["trace", "--usage", dir + "/u.csv", "--duration", "7d", "--policy", "lru", "--ram", "8GB", "--out", dir + "/t.csv"])
        #expect(lifecycle.status == 0, "\(lifecycle.stderr)")
        let fromTrace = try CLI.run(["usage-stats", dir + "/t.csv", "--days", "7"])
        #expect(fromTrace.status == 0, "\(fromTrace.stderr)")
        let a = csv.stdout.split(separator: "\n")[1].split(separator: ",", omittingEmptySubsequences: false)
        let b = fromTrace.stdout.split(separator: "\n")[1].split(separator: ",", omittingEmptySubsequences: false)
        // Same devices and days. A replay keeps an app in front across uses of it
        // under 60 s apart (no Home, no lock between them), so the replay's trace has
        // fewer, never more, app sessions (about 10 % fewer here).
        #expect(a[0] == b[0] && a[1] == b[1])
        let na = Double(a[2])!, nb = Double(b[2])!
        #expect(nb <= na && nb >= 0.8 * na, "\(na) vs \(nb)")
    }

    @Test("bad input: a missing file, a header that is neither format")
    func badInput() throws {
        let dir = try CLI.tempDir()
        let missing = try CLI.run(["usage-stats", dir + "/none.csv"])
        #expect(missing.status == 2 && missing.stderr.contains(dir + "/none.csv"))
        try "a,b\n1,2\n".write(toFile: dir + "/x.csv", atomically: true, encoding: .utf8)
        let wrong = try CLI.run(["usage-stats", dir + "/x.csv"])
        #expect(wrong.status == 2 && wrong.stderr.contains("missing column"), "\(wrong.stderr)")
    }

    /// The setting that wins: a flag over its key, a cell's RAM over a class's ram_mb,
    /// a usage trace over user.*. The losing --set is refused, before any work.
    @Test("a --set that another setting overrides is refused, naming the winner", arguments: [
        (["--set", "device_classes.iphone-11.ram_mb=3072"], "run.ram_mb lists RAM sizes"),
        (["--ram", "2GB", "--set", "device_classes.0.ram_mb=3072"], "--ram runs every device class"),
        (["--ram", "2GB", "--set", "run.ram_mb=[3072]"], "--ram gives the RAM sizes"),
        (["--devices", "2", "--set", "fleet.devices=3"], "--devices gives the fleet size"),
        (["--policy", "lru", "--set", "run.policies=[oracle]"], "--policy gives the policies"),
    ] as [([String], String)])
    func overridden(flags: [String], message: String) throws {
        let dir = try CLI.tempDir()
        let r = try CLI.run(["run", "--devices", "2", "--duration", "1d", "--quiet", "--out", dir + "/o.csv"] + flags)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("has no effect here") && r.stderr.contains(message), "\(r.stderr)")
        #expect(CLI.files(in: dir).isEmpty)
        // With run.ram_mb emptied, the class's ram_mb is the cell's RAM.
    }

    @Test("run.ram_mb=[] lets a device class's ram_mb count")
    func classRAM() throws {
        let r = try CLI.run(["run", "--devices", "2", "--duration", "1d", "--quiet", "--policy", "lru",
                             "--set", "run.ram_mb=[]", "--set", "device_classes.iphone-11.ram_mb=3072"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n")[1].split(separator: ",")[2] == "3072")
    }

    @Test("a workload file's class ram_mb that run.ram_mb overrides is warned about; with run.ram_mb: [] it counts")
    func fileClassRAM() throws {
        let dir = try CLI.tempDir()
        let file = "device_classes:\n  - name: big\n    ram_mb: 6144\n"
        try file.write(toFile: dir + "/w.yaml", atomically: true, encoding: .utf8)
        try ("run:\n  ram_mb: []\n" + file).write(toFile: dir + "/own.yaml", atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", "--workload", dir + "/w.yaml", "--devices", "2", "--duration", "1d", "--quiet", "--policy", "lru"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("warning: device class big's ram_mb (6144) is not used: run.ram_mb runs every class at 2048, 3072, 4096 MB"),
                "\(r.stderr)")
        let own = try CLI.run(["run", "--workload", dir + "/own.yaml", "--devices", "2", "--duration", "1d", "--quiet", "--policy", "lru"])
        #expect(own.status == 0 && !own.stderr.contains("warning"), "\(own.stderr)")
        #expect(own.stdout.split(separator: "\n")[1].split(separator: ",")[2] == "6144")
        // --ram says the sizes on purpose: no warning.
        let flag = try CLI.run(["run", "--workload", dir + "/w.yaml", "--devices", "2", "--duration", "1d", "--quiet", "--policy", "lru", "--ram", "8G"])
        #expect(flag.status == 0 && !flag.stderr.contains("warning"), "\(flag.stderr)")
        #expect(flag.stdout.split(separator: "\n")[1].split(separator: ",")[2] == "8192")
    }

    @Test("a run that ends before the user wakes warns that it has no sessions")
    func shortRun() throws {
        let r = try CLI.run(["run", "--devices", "2", "--duration", "6h", "--policy", "lru", "--ram", "2GB", "--quiet"])
        #expect(r.status == 0)
        #expect(r.stderr.contains("warning: the run lasts 6h, which ends before the user's first waking hour (user.wake_hour 7)"), "\(r.stderr)")
        let long = try CLI.run(["run", "--devices", "2", "--duration", "8h", "--policy", "lru", "--ram", "2GB", "--quiet"])
        #expect(!long.stderr.contains("warning"))
    }
}
