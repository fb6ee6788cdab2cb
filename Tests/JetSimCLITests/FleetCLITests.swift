import Foundation
import Testing

/// Fleet's and the cached-app GC's keys from the command line: bad values are bad input.
@Suite("Fleet keys (CLI)")
struct FleetCLITests {
    @Test("a bad fleet_* or android_gc_* value, or an unknown os, exits 2 naming the key")
    func badKeys() throws {
        for (key, value) in [("fleet_gc_touch_pct", "150"), ("fleet_launch_swap_in_pct", "-3"),
                             ("android_gc_heap_pct", "101"), ("android_swappable_pct", "x"), ("os", "fleetx")] {
            let r = try CLI.run(["run", "--devices", "1", "--duration", "1d", "--quiet", "--out", CLI.scratch + "/fleet-bad.csv",
                                 "--set", "device_classes.iphone-11.\(key)=\(value)"])
            #expect(r.status == 2, "\(key)=\(value): exit \(r.status)")
            #expect(r.stderr.contains("device_classes.iphone-11.\(key)"), "\(key): \(r.stderr)")
        }
        let dir = try CLI.tempDir()
        let path = dir + "/bad.scenario"
        try "device os=fleet fleet-gc-touch-pct=150\napp A\n0s launch A\n1m end\n".write(toFile: path, atomically: true, encoding: .utf8)
        let s = try CLI.run(["scenario", path])
        #expect(s.status == 2 && s.stderr.contains("fleet-gc-touch-pct"), "\(s.stderr)")
    }
}
