import Foundation
import Testing
import SimKernel
@testable import JetSim

/// Issue 11: drawing installed apps never waits on chance without a bound. Past the
/// rejection budget a device goes on by `PopularityTree`: exact, O(log m) a draw.
@Suite("installed apps: the bounded draw and its sum-tree fallback")
struct InstalledDrawTests {
    @Test("removing apps and putting them back restores every node bit for bit")
    func treeRestores() {
        let fresh = PopularityTree(apps: 1_000, exponent: 1.3)
        var t = fresh
        var seen = ContiguousArray<UInt32>(repeating: 0, count: 1_000)
        for a in [0, 1, 7, 999, 512, 513] { seen[a] = 3; t.update(a, seen, 3) }
        #expect(t.node != fresh.node)
        for a in [0, 1, 7, 999, 512, 513] { t.update(a, seen, nil) }
        #expect(t.node == fresh.node)
    }

    @Test("two draws without replacement follow the sequential law exactly (m 4, zipf 1)")
    func sequentialLaw() {
        let t0 = PopularityTree(apps: 4, exponent: 1)
        let w = (1...4).map { 1 / Double($0) }, total = w.reduce(0, +)
        var counts = [[Int]](repeating: [Int](repeating: 0, count: 4), count: 4)
        var g = Xoshiro256StarStar(seed: 11, 1)
        let n = 200_000
        for _ in 0..<n {
            var t = t0
            var seen = ContiguousArray<UInt32>(repeating: 0, count: 4)
            let a = t.sample(g.nextUnit(), seen, 1)!
            seen[a] = 1; t.update(a, seen, 1)
            let b = t.sample(g.nextUnit(), seen, 1)!
            #expect(a != b)
            counts[a][b] += 1
        }
        for i in 0..<4 { for j in 0..<4 where i != j {
            let p = w[i] / total * w[j] / (total - w[i])
            let sd = (Double(n) * p * (1 - p)).squareRoot()
            #expect(abs(Double(counts[i][j]) - Double(n) * p) < 5 * sd, "P(\(i),\(j)): \(counts[i][j]) vs \(Double(n) * p)")
        } }
    }

    @Test("steep popularity (zipf 10) installs k distinct apps, the same whatever came before")
    func steepFinishes() throws {
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "x",
                                         overrides: ["catalog.popularity_zipf_exponent=10", "catalog.installed_per_device=60"])
        let plan = RunPlan(workload: w, cells: [Cell(policy: PolicyID(rawValue: "lru")!, ramKB: nil)], threads: 1)
        let catalog = AppCatalog(w)
        var a = DeviceInputs(plan: plan, catalog: catalog)
        var b = DeviceInputs(plan: plan, catalog: catalog)
        a.chooseInstalled(device: 5)
        #expect(a.tree != nil)  // rejection gave up: zipf 10 leaves almost no weight past the head
        #expect(a.installed.count == 60)
        #expect(Set(a.installed).count == 60)
        #expect(a.installed.first == 0)  // app 0 holds 99.9 % of the weight
        let five = a.installed
        a.chooseInstalled(device: 6)
        a.chooseInstalled(device: 5)
        #expect(a.installed == five)
        b.chooseInstalled(device: 5)
        #expect(b.installed == five)
    }
}
