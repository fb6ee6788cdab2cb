import Foundation
import Testing

/// Inputs whose cost grew faster than their size (issue 34), through the binary with a
/// bound on the time: each took minutes before its fix and takes about a second after,
/// so the bound (60 s, `timeout`) holds on a loaded machine and fails on a regression.
@Suite("Costs that grow with the input, bounded", .endToEnd)
struct GrowthCLITests {
    /// `jetsim ARGS` under `timeout 60`: exit 124 when the bound is passed.
    static func bounded(_ args: [String]) throws -> CLI.Output {
        try CLI.run(["60", CLI.binary] + args, runner: "/usr/bin/timeout")
    }

    @Test("a scenario of 40,000 apps: no search of the apps per line, no whole-device check per event")
    func scenarioOfManyApps() throws {
        let dir = try CLI.tempDir()
        let n = 40_000
        var text = "device ram=4GB\n"
        for i in 0..<n { text += "app A\(i)\n" }
        for i in 0..<n { text += "\(i)s launch A\(i)\n" }
        text += "\(n + 100)s end\n"
        try text.write(toFile: dir + "/many.scenario", atomically: true, encoding: .utf8)
        let r = try Self.bounded(["scenario", dir + "/many.scenario", "--out", dir + "/many.csv"])
        #expect(r.status == 0, "exit \(r.status): \(r.stderr)")
        let trace = try String(contentsOfFile: dir + "/many.csv", encoding: .utf8)
        #expect(trace.contains(",A39999,didFinishLaunching"))
    }

    @Test("usage-stats --days 1e6 on 20,000 one-row devices: the weeks with sessions, not every week of the span")
    func usageStatsLongSpan() throws {
        let dir = try CLI.tempDir()
        var text = "device,time_s,app,duration_s\n"
        for d in 0..<20_000 { text += "d\(d),\(d % 1_000),app\(d % 7),30\n" }
        try text.write(toFile: dir + "/u.csv", atomically: true, encoding: .utf8)
        let r = try Self.bounded(["usage-stats", dir + "/u.csv", "--days", "1e6"])
        #expect(r.status == 0, "exit \(r.status): \(r.stderr)")
        let row = r.stdout.split(separator: "\n")[1].split(separator: ",", omittingEmptySubsequences: false)
        // One app a device in its first week, over 142,857 complete weeks a device.
        #expect(row[0] == "20000" && row[1] == "1000000.000")
        #expect(Double(row[10]) == 0.0)
    }
}
