import Testing
import SimKernel
import JetSim
#if canImport(Glibc)
import Glibc
#endif

/// The textbook case: equal footprints, no background work, apps chosen independently
/// from a Zipf popularity (the independent reference model). With thresholds at zero
/// the device kills only when an app does not fit, so its resident set is exactly a
/// cache of K apps and cache theory applies.
@Suite("Policies under the independent reference model")
struct IRMTests {
    static let apps = 30
    static let slots = 7              // (2 GB - 512 MB) / 200 MB = 7.68
    static let requests = 40_000
    static let exponent = 1.0

    static func scenario(policy: PolicyID, seed: UInt64 = 9) -> Scenario {
        var sc = Scenario(source: "irm")
        sc.policy = policy
        sc.params = DeviceParameters(ramKB: 2 * 1_048_576, osReserveKB: 512 * 1_024, warningAvailablePct: 0,
                                     criticalAvailablePct: 0, killTargetAvailablePct: 0, perAppLimitPct: 100,
                                     suspendedCompressionRatio: 1)
        // The textbook cache: every app holds its whole size (no compression, which the
        // model's default, 2, would add), no aging, dock, reaper or freezer (XNU's
        // mechanisms off).
        sc.params.xnu.bands = false
        for i in 0..<apps {
            sc.appNames.append("app\(i)")
            sc.profiles.append(AppProfile(activeKB: 200 * 1_024, backgroundKB: 200 * 1_024, suspendedKB: 200 * 1_024,
                                          save: .never, unsavedEditsPerMinute: 0))
        }
        var g = Xoshiro256StarStar(seed: seed, 1)
        let zipf = Zipf(n: apps, exponent: exponent)
        for r in 0..<requests {
            let t = SimTime.minutes(Int64(r))
            sc.actions.append(UserAction(time: t, kind: .launch, app: Int32(zipf.sample(&g) - 1)))
            sc.actions.append(UserAction(time: t + .seconds(30), kind: .home))
        }
        sc.endTime = .minutes(Int64(requests) + 1)
        return sc
    }

    /// lru's run, with its trace (read per app by `ordering`); each policy runs once.
    static let lruRun = ScenarioRunner.run(scenario(policy: PolicyID(LRU.self)), checkInvariants: false)
    static let randomCold = coldRatio(ScenarioRunner.run(scenario(policy: PolicyID(RandomEviction.self)),
                                                         checkInvariants: false, recordsTrace: false).metrics)
    static let oracleCold = coldRatio(ScenarioRunner.run(scenario(policy: PolicyID(Oracle.self)),
                                                         checkInvariants: false, recordsTrace: false).metrics)
    static var lruCold: Double { coldRatio(lruRun.metrics) }

    static func coldRatio(_ m: DeviceMetrics) -> Double {
        Double(m[.coldRelaunches]) / Double(m[.relaunches])
    }

    static var probabilities: [Double] {
        let z = Zipf(n: apps, exponent: exponent)
        return (1...apps).map { z.probability(ofRank: $0) }
    }

    /// Solves Σ f(p_i, T) = C for T by bisection.
    static func characteristicTime(_ f: (Double, Double) -> Double) -> Double {
        var lo = 0.0, hi = 1e9
        for _ in 0..<200 {
            let mid = (lo + hi) / 2
            if probabilities.reduce(0, { $0 + f($1, mid) }) < Double(slots) { lo = mid } else { hi = mid }
        }
        return (lo + hi) / 2
    }

    @Test("lru's miss ratio matches Che's approximation")
    func lruMatchesChe() {
        let t = Self.characteristicTime { p, t in 1 - exp(-p * t) }
        let hit = Self.probabilities.reduce(0) { $0 + $1 * (1 - exp(-$1 * t)) }
        let measured = Self.lruCold
        #expect(abs(measured - (1 - hit)) < 0.02, "lru miss \(measured) vs Che \(1 - hit)")
    }

    @Test("random's miss ratio matches the product-form (FIFO/random) approximation")
    func randomMatchesTheory() {
        let t = Self.characteristicTime { p, t in p * t / (1 + p * t) }
        let hit = Self.probabilities.reduce(0) { $0 + $1 * ($1 * t / (1 + $1 * t)) }
        let measured = Self.randomCold
        #expect(abs(measured - (1 - hit)) < 0.02, "random miss \(measured) vs theory \(1 - hit)")
    }

    @Test("oracle <= lru <= random, and lru keeps the most popular apps resident")
    func ordering() {
        let oracle = Self.oracleCold, lru = Self.lruCold, random = Self.randomCold
        #expect(oracle <= lru, "oracle \(oracle) vs lru \(lru)")
        #expect(lru <= random, "lru \(lru) vs random \(random)")

        // Per app, under lru: the most popular app almost always resumes warm or hot,
        // the least popular ones almost always start cold.
        let r = Self.lruRun
        var cold = [Int](repeating: 0, count: Self.apps), launches = [Int](repeating: 0, count: Self.apps)
        for rec in r.records {
            if case .launch(let kind, _) = rec.detail {
                launches[Int(rec.app)] += 1
                if kind.createsProcess { cold[Int(rec.app)] += 1 }  // cold or cached: a miss
            }
        }
        // Che's approximation per app: miss_i = exp(-p_i T).
        let t = Self.characteristicTime { p, t in 1 - exp(-p * t) }
        let theory = Self.probabilities.map { exp(-$0 * t) }
        for i in [0, 1, 2, 3, 4] {
            let measured = Double(cold[i]) / Double(launches[i])
            #expect(abs(measured - theory[i]) < 0.03, "app \(i): cold \(measured) vs Che \(theory[i])")
        }
        // The most popular app stays resident: more than 90% of its launches are warm or hot.
        #expect(Double(cold[0]) / Double(launches[0]) < 0.1)
        let tailCold = Double(cold[25...].reduce(0, +)) / Double(launches[25...].reduce(0, +))
        #expect(tailCold > 0.85, "tail apps cold \(tailCold)")
    }
}
