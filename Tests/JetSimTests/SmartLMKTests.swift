import Testing
import SimKernel
import JetSim

/// `smartlmk` (SmartLMK, ACM TECS 2016): Android's classes, and within the cached
/// class the least value of keeping first (decayed use count x launch penalty per MiB).
@Suite("smartlmk: the value of keeping a cached app, learned online, within Android's classes")
struct SmartLMKTests {
    /// A policy with `halfLife` hours.
    static func policy(apps: Int, halfLife: Double = 24) -> SmartLMK {
        var p = SmartLMK()
        var settings = PolicySettings()
        settings[SmartLMK.self] = .init(reuseHalfLifeHours: halfLife)
        p.reset(appCount: apps, context: .init(policies: settings))
        return p
    }

    /// `app` used at each of `times` (seconds): it leaves the front, then suspends.
    static func use(_ p: inout SmartLMK, _ app: Int32, at times: [Int64], kb: Int64 = 100 * 1024,
                    cold: Int64 = 1_200, resident: Int64 = 200) {
        for t in times {
            p.update(app, cand(.background, kb: kb, lastUsed: t, cold: cold, resident: resident, leftFront: true))
            p.update(app, cand(.suspended, kb: kb, lastUsed: t, cold: cold, resident: resident))
        }
    }

    @Test("a frequently used big app against a rarely used small one: reuse per MiB decides, not recency")
    func frequencyAgainstSize() {
        var p = Self.policy(apps: 3)
        // 0: 400 MB, used 20 times: 20 / 400 = 0.05 per MB (the same penalty for all).
        Self.use(&p, 0, at: Array(1...20), kb: 400 * 1024)
        // 1: 50 MB, used once, last: 1 / 50 = 0.02. LRU would kill 0 first.
        Self.use(&p, 1, at: [30], kb: 50 * 1024)
        // 2: 800 MB, used twice: 2 / 800 = 0.0025.
        Self.use(&p, 2, at: [21, 22], kb: 800 * 1024)
        #expect(killOrder(&p) == [2, 1, 0])
        // The same apps under android-lmk: the least recently used first.
        var lmk = AndroidLMK()
        lmk.reset(appCount: 3, context: .init())
        lmk.update(0, cand(.suspended, kb: 400 * 1024, lastUsed: 20))
        lmk.update(1, cand(.suspended, kb: 50 * 1024, lastUsed: 30))
        lmk.update(2, cand(.suspended, kb: 800 * 1024, lastUsed: 22))
        #expect(killOrder(&lmk) == [0, 2, 1])
    }

    @Test("the penalty counts: a costlier relaunch per MiB is kept longer")
    func penalty() {
        var p = Self.policy(apps: 2)
        Self.use(&p, 0, at: [1], cold: 3_200, resident: 200)   // 3000 ms
        Self.use(&p, 1, at: [2], cold: 1_200, resident: 200)   // 1000 ms, more recent
        #expect(killOrder(&p) == [1, 0])
    }

    @Test("uses decay: many uses long ago lose to a few recent ones (half-life 24 h), not with a long half-life")
    func decay() {
        let day: Int64 = 86_400
        func order(halfLife: Double) -> [Int32] {
            var p = Self.policy(apps: 2, halfLife: halfLife)
            Self.use(&p, 0, at: [10, 20, 30, 40, 50, 60])             // 6 uses on day 0
            Self.use(&p, 1, at: [3 * day, 3 * day + 10])              // 2 uses on day 3
            return killOrder(&p)
        }
        // 24 h: 6 x 2^-3 = 0.75 against 2.
        #expect(order(halfLife: 24) == [0, 1])
        // 1000 h: 6 x 2^-0.072 = 5.7 against 2: the older app is kept.
        #expect(order(halfLife: 1_000) == [1, 0])
        // Equal counts: the one used long ago goes first.
        var p = Self.policy(apps: 2)
        Self.use(&p, 1, at: [5 * day, 5 * day + 1])
        Self.use(&p, 0, at: [0, 1])
        #expect(killOrder(&p) == [0, 1])
    }

    @Test("no use by the user, or no penalty, is the lowest value; ties by last use")
    func lowest() {
        var p = Self.policy(apps: 4)
        Self.use(&p, 0, at: Array(1...10), cold: 200, resident: 200)   // penalty 0, much used
        Self.use(&p, 1, at: [50])                                      // used once
        p.update(2, cand(.suspended, lastUsed: 0))                    // never used by the user (a system launch)
        Self.use(&p, 3, at: [5], cold: 100, resident: 200)            // resident dearer than cold: penalty 0
        // 0, 2, 3 all lowest: by last use (2 at 0, 3 at 5, 0 at 10); then 1.
        #expect(killOrder(&p) == [2, 3, 0, 1])
    }

    @Test("classes: a cached app goes before the previous app, services and perceptible apps, whatever their value")
    func classes() {
        var p = Self.policy(apps: 6)
        // A cached app of the highest value.
        Self.use(&p, 0, at: Array(1...30), kb: 10 * 1024, cold: 5_000)
        // A perceptible app and a service, never valued (no use, or penalty 0).
        p.update(1, cand(.background, kb: 900 * 1024, lastUsed: 2, mode: .audio))
        p.update(2, cand(.background, kb: 900 * 1024, lastUsed: 3, cold: 200, resident: 200))   // runs a task: service
        p.update(3, cand(.background, kb: 800 * 1024, lastUsed: 4, mode: .location))
        // The previous app: held at 700.
        p.update(4, cand(.background, lastUsed: 40, leftFront: true))
        p.update(4, cand(.suspended, lastUsed: 40, previous: true))
        // A cached app, lower value than 0.
        Self.use(&p, 5, at: [41])
        #expect(p.victim() == 5)
        #expect(killOrder(&p) == [5, 0, 4, 2, 1, 3])
    }

    @Test("a use changes the order at once; a new previous app demotes the old one to cached")
    func updates() {
        var p = Self.policy(apps: 3)
        Self.use(&p, 0, at: [1])
        Self.use(&p, 1, at: [2, 3])
        #expect(p.victim() == 0)
        Self.use(&p, 0, at: [4, 5, 6])
        #expect(p.victim() == 1)
        // 2 suspends as the previous app, then 1 takes its place.
        p.update(2, cand(.background, lastUsed: 7, leftFront: true))
        p.update(2, cand(.suspended, lastUsed: 7, previous: true))
        p.update(1, cand(.background, lastUsed: 8, leftFront: true))
        p.update(2, cand(.suspended, lastUsed: 7))
        p.update(1, cand(.suspended, lastUsed: 8, previous: true))
        // Cached: 2 (one use) and 0 (four uses); then 1 held.
        #expect(killOrder(&p) == [2, 0, 1])
    }

    @Test("the Double-to-key map keeps the order, negatives and infinities included")
    func orderKey() {
        let xs: [Double] = [-.infinity, -1e300, -745.1, -2.5, -1, -1e-300, -.leastNonzeroMagnitude, 0,
                            .leastNonzeroMagnitude, 1e-300, 1, 2.5, 745.1, 1e300, .infinity]
        let keys = xs.map(SmartLMK.orderKey)
        for i in keys.indices.dropFirst() { #expect(keys[i - 1] < keys[i], "\(xs[i - 1]) \(xs[i])") }
        #expect(SmartLMK.orderKey(-0.0) <= SmartLMK.orderKey(0.0))
        var g = Xoshiro256StarStar(seed: 7, 1)
        for _ in 0..<10_000 {
            let a = (Double(g.nextIndex(2_000_001)) - 1_000_000) / 997, b = (Double(g.nextIndex(2_000_001)) - 1_000_000) / 991
            #expect((a < b) == (SmartLMK.orderKey(a) < SmartLMK.orderKey(b)), "\(a) \(b)")
        }
    }

    @Test("policies.smartlmk.reuse_half_life_h: read, printed only when not the default, errors at their line",
          arguments: [
              ("policies:\n  smartlmk:\n    reuse_half_life_h: 0\n", 3, "policies.smartlmk.reuse_half_life_h", "out of range"),
              ("policies:\n  smartlmk:\n    reuse_half_life_h: soon\n", 3, "policies.smartlmk.reuse_half_life_h", "expected a number"),
              ("policies:\n  smartlmk:\n    reuse_half_life: 12\n", 3, "policies.smartlmk.reuse_half_life", "reuse_half_life_h"),
          ])
    func parameters(yaml: String, line: Int, key: String, words: String) throws {
        #expect {
            _ = try WorkloadDecoder.load(yaml, source: "w.yaml")
        } throws: { error in
            guard let e = error as? InputError else { return false }
            return e.source == "w.yaml" && e.line == line && e.key == key && e.message.contains(words)
        }
        let w = try WorkloadDecoder.load("policies:\n  smartlmk:\n    reuse_half_life_h: 12\n", source: "w.yaml")
        #expect(w.policies[SmartLMK.self].reuseHalfLifeHours == 12)
        let printed = WorkloadPrinter.yaml(w)
        #expect(printed.contains("smartlmk:\n") && printed.contains("reuse_half_life_h: 12"))
        #expect(try WorkloadDecoder.load(printed, source: "printed") == w)
        // At the default: no section (printed workloads stay as before the policy).
        #expect(!WorkloadPrinter.yaml(Workload()).contains("smartlmk"))
        #expect(Workload().policies[SmartLMK.self].reuseHalfLifeHours == 24)
    }

    @Test("outside `all`, registered last")
    func registry() {
        #expect(!SmartLMK.inAll)
        #expect(PolicyID.all.last?.name == "smartlmk")
        #expect(!PolicyID.allSelected.map(\.name).contains("smartlmk"))
    }
}
