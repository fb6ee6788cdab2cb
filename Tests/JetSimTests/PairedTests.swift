import JetSim
import SimKernel
import Testing

@Suite("Paired comparisons (--baseline): exact sums, delta-method intervals")
struct PairedTests {
    /// A device's four paired figures.
    static func metrics(cold: Int, relaunches: Int, latencyUs: Int, loss: Int) -> DeviceMetrics {
        var m = DeviceMetrics()
        m[.coldRelaunches] = cold
        m[.relaunches] = relaunches
        m[.relaunchLatencySumMicros] = latencyUs
        m[.dataLossUnits] = loss
        return m
    }

    /// Three devices under A and under the baseline B.
    static let a = [metrics(cold: 3, relaunches: 10, latencyUs: 4_000_000, loss: 7),
                    metrics(cold: 5, relaunches: 12, latencyUs: 6_000_000, loss: 2),
                    metrics(cold: 1, relaunches: 8, latencyUs: 2_000_000, loss: 0)]
    static let b = [metrics(cold: 4, relaunches: 10, latencyUs: 5_000_000, loss: 9),
                    metrics(cold: 7, relaunches: 12, latencyUs: 8_000_000, loss: 2),
                    metrics(cold: 2, relaunches: 8, latencyUs: 2_500_000, loss: 1)]

    static func sums(_ x: [DeviceMetrics], _ y: [DeviceMetrics]) -> PairedSums {
        var p = PairedSums()
        for (u, v) in zip(x, y) { p.add(u, v) }
        return p
    }

    @Test("loss per device-day: the mean and t-interval of the per-device differences, computed directly")
    func lossMatchesDirect() {
        let p = Self.sums(Self.a, Self.b)
        let days = 2.0
        let d = zip(Self.a, Self.b).map { Double($0[.dataLossUnits] - $1[.dataLossUnits]) / days }  // -1, 0, -0.5
        let mean = d.reduce(0, +) / 3
        let sd = (d.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 2).squareRoot()
        let got = Paired.lossPerDeviceDay(p, devices: 3, days: days)
        #expect(got.value == -0.5)
        #expect(abs(got.ci95 - 4.303 * sd / 3.0.squareRoot()) < 1e-12)
        // Pinned: 4.303 * 0.5 / sqrt(3).
        #expect(abs(got.ci95 - 1.2421691042) < 1e-9)
    }

    @Test("cold ratio: the delta method's linearised per-device residuals, computed directly")
    func coldMatchesLinearisation() {
        let p = Self.sums(Self.a, Self.b)
        let cA = 9.0, nA = 30.0, cB = 13.0, nB = 30.0
        let rA = cA / nA, rB = cB / nB, nbar = 10.0
        let z = zip(Self.a, Self.b).map { u, v in
            (Double(u[.coldRelaunches]) - rA * Double(u[.relaunches])) / nbar
                - (Double(v[.coldRelaunches]) - rB * Double(v[.relaunches])) / nbar
        }
        let se = (z.map { $0 * $0 }.reduce(0, +) / (3 * 2)).squareRoot()
        let got = Paired.coldRatio(p, devices: 3)
        #expect(abs(got.value - (rA - rB)) < 1e-15)
        #expect(abs(got.ci95 - 4.303 * se) < 1e-12)
        // The mean latency delta, ms: (12e6/30 - 15.5e6/30) / 1000.
        #expect(abs(Paired.meanLatencyMillis(p, devices: 3).value - (-3_500_000.0 / 30 / 1_000)) < 1e-9)
    }

    @Test("unpaired (cross block dropped) is sqrt(ci_A² + ci_B²) of the summary's own intervals")
    func unpairedMatchesSummary() {
        let p = Self.sums(Self.a, Self.b)
        var accA = CellAccumulator(), accB = CellAccumulator()
        for m in Self.a { accA.add(m, events: 0) }
        for m in Self.b { accB.add(m, events: 0) }
        let cold = Paired.coldRatio(p, devices: 3, paired: false).ci95
        let want = (pow2(Summary.ratioCI95(accA)) + pow2(Summary.ratioCI95(accB))).squareRoot()
        #expect(abs(cold - want) < 1e-12)
        let loss = Paired.lossPerDeviceDay(p, devices: 3, days: 1, paired: false).ci95
        #expect(abs(loss - (pow2(Summary.lossCI95(accA, days: 1)) + pow2(Summary.lossCI95(accB, days: 1))).squareRoot()) < 1e-12)
    }

    func pow2(_ x: Double) -> Double { x * x }

    @Test("sums are the same in any order and split (exact integers)")
    func orderIndependent() {
        var whole = Self.sums(Self.a, Self.b)
        var split = Self.sums([Self.a[2]], [Self.b[2]])
        split.merge(Self.sums(Array(Self.a[0..<2]), Array(Self.b[0..<2])))
        #expect(whole == split)
        whole.add(Self.a[0], Self.b[0])
        #expect(whole != split)
    }

    /// The default workload, 60 devices x 1 day, every policy at 2 GB, baseline lru.
    static func defaultRun() -> (Workload, FleetResult) {
        var w = try! WorkloadDecoder.load(defaultWorkloadText, source: "default")
        w.fleet.devices = 60
        w.fleet.duration = .days(1)
        var plan = RunPlan(workload: w, cells: PolicyID.all.map { Cell(policy: $0, ramKB: 2 * 1_048_576) }, threads: 2)
        plan.baseline = PolicyID(rawValue: "lru")!
        return (w, FleetRunner.run(plan, catalog: AppCatalog(w)))
    }

    @Test("default workload: the baseline's own deltas are exactly 0 with interval 0; paired intervals are narrower than unpaired")
    func defaultWorkload() throws {
        let (w, r) = Self.defaultRun()
        let deltas = try #require(Summary.pairedDeltas(workload: w, result: r))
        let base = try #require(r.cells.firstIndex { $0.policy.rawValue == "lru" })
        let d0 = deltas[base]
        for x in [d0.cold, d0.mean, d0.p99, d0.loss] {
            #expect(x.value == 0)
            #expect(x.ci95 == 0)
        }
        let days = 1.0
        var narrower = 0, compared = 0
        for (i, d) in deltas.enumerated() where i != base {
            let a = r.accumulators[i], b = r.accumulators[base]
            let p = try #require(a.paired)
            let unpairedCold = (pow2(Summary.ratioCI95(a)) + pow2(Summary.ratioCI95(b))).squareRoot()
            let unpairedLoss = (pow2(Summary.lossCI95(a, days: days)) + pow2(Summary.lossCI95(b, days: days))).squareRoot()
            let unpairedMean = Paired.meanLatencyMillis(p, devices: a.devices, paired: false).ci95
            #expect(d.cold.ci95 > 0)
            #expect(d.cold.ci95 < unpairedCold, "\(r.cells[i].policy) cold: paired \(d.cold.ci95), unpaired \(unpairedCold)")
            #expect(d.mean.ci95 < unpairedMean, "\(r.cells[i].policy) mean: paired \(d.mean.ci95), unpaired \(unpairedMean)")
            compared += 1
            if d.loss.ci95 < unpairedLoss { narrower += 1 }
            // The point estimates are the differences of the summary's own figures.
            #expect(abs(d.cold.value - (Summary.coldRatio(a) - Summary.coldRatio(b))) < 1e-12)
            #expect(abs(d.loss.value - (Summary.lossPerDeviceDay(a, days: days) - Summary.lossPerDeviceDay(b, days: days))) < 1e-12)
        }
        // Data loss is rarer and noisier; most policies still gain from pairing.
        #expect(narrower * 2 > compared, "loss paired narrower for \(narrower) of \(compared)")
    }

    @Test("without --baseline nothing is paired and the CSV has no delta columns")
    func noBaseline() {
        var w = try! WorkloadDecoder.load(defaultWorkloadText, source: "default")
        w.fleet.devices = 4
        w.fleet.duration = .days(1)
        let plan = RunPlan(workload: w, cells: [Cell(policy: PolicyID(rawValue: "lru")!, ramKB: 2 * 1_048_576)], threads: 1)
        let r = FleetRunner.run(plan, catalog: AppCatalog(w))
        #expect(r.accumulators[0].paired == nil)
        #expect(!Summary.csv(workload: w, result: r).contains("delta_"))
    }
}
