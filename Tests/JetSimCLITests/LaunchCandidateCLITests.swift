import Foundation
import Testing

/// A launch takes its app out of the candidates until it is in front (`Device.launching`).
/// The room it makes can re-evaluate XNU's triggers (the dock moves another app's band,
/// memory warnings follow), and a warning used to make the launching app a candidate
/// again: in front, `oracle` could then name it (its next use is far off), which the
/// reclaim loop's contract check stopped with a trap. Found by `jetsim sensitivity
/// --interactions 6` on the default workload (the suspended share at its high end, the
/// thaw's touched share at its low end): device 158 of 200 over 7 days.
@Suite("A launching app is never a candidate", .endToEnd)
struct LaunchCandidateCLITests {
    @Test("the device that trapped runs to its end, with every policy")
    func launchingNeverCandidate() throws {
        let tmp = try CLI.tempDir()
        var args = ["run", "--devices", "159", "--shard", "159/159", "--duration", "7d", "--ram", "2GB",
                    "--policy", "all", "--threads", "1", "--quiet", "--out", tmp + "/w.csv"]
        for i in 0..<10 { args += ["--set", "catalog.archetypes.\(i).suspended_share={uniform: [0.4, 0.7]}"] }
        args += ["--set", "device_classes.0.thaw_touch_share=0.1"]
        let r = try CLI.run(args)
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOfFile: tmp + "/w.csv", encoding: .utf8)
        #expect(text.contains("oracle"))
    }
}
