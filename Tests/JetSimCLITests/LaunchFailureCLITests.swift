import Foundation
import JetSim
import Testing

/// Shipping apps fit the devices they run on (issue 29): a failed launch is rare on
/// every shipped workload at each of its RAM sizes, and still counted.
@Suite("Failed launches are rare on every shipped workload", .endToEnd)
struct LaunchFailureCLITests {
    static let workloads = ["default", "android", "irm-zipf", "large-ram", "lru-reference", "mixed-fleet", "small-ram", "stress"]

    @Test("under 0.5 % of launches fail, at each RAM size the workload runs", arguments: workloads)
    func rare(workload: String) throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["run", "--workload", CLI.root + "/Workloads/\(workload).yaml", "--devices", "40", "--duration", "2d",
                             "--quiet", "--out", tmp + "/w.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        var byRAM: [String: (failed: Int, launches: Int)] = [:]
        for row in rows(try String(contentsOfFile: tmp + "/w.csv", encoding: .utf8)) {
            let k = row["ram_mb"]!
            byRAM[k, default: (0, 0)].failed += Int(row["launch_failures"]!)!
            byRAM[k, default: (0, 0)].launches += Int(row["launches"]!)!
        }
        #expect(!byRAM.isEmpty)
        for (ram, n) in byRAM {
            #expect(n.launches > 0 && Double(n.failed) < 0.005 * Double(n.launches), "\(workload) at \(ram) MB: \(n.failed) of \(n.launches)")
        }
    }

    @Test("a failure is still counted: apps allowed past the limit fail their launches at 2 GB")
    func counted() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["run", "--devices", "40", "--duration", "2d", "--ram", "2GB", "--policy", "lru", "--quiet",
                             "--set", "device_classes.iphone-11.app_fit_pct=1000", "--out", tmp + "/w.csv"])
        #expect(r.status == 0, "\(r.stderr)")
        let row = rows(try String(contentsOfFile: tmp + "/w.csv", encoding: .utf8))[0]
        #expect(Int(row["launch_failures"]!)! > Int(row["launches"]!)! / 100)
    }
}
