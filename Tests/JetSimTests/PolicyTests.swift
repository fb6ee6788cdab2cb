import Testing
import SimKernel
import JetSim

/// A candidate with the given attributes (the rest neutral).
func cand(_ state: AppState = .suspended, kb: Int64 = 100 * 1024, lastUsed: Int64 = 0, mode: BackgroundMode = .none,
          launches: Int = 1, cold: Int64 = 1_000, resident: Int64 = 200, unsaved: Int = 0, preserves: Bool = true,
          nextUse: SimTime = .never, leftFront: Bool = false, previous: Bool = false) -> EvictionCandidate {
    EvictionCandidate(state: state, mode: mode, residentKB: kb, lastUsed: .seconds(lastUsed), launchCount: launches,
                      coldLaunchCost: .milliseconds(cold), residentLaunchCost: .milliseconds(resident),
                      unsavedEdits: unsaved, preservesUIState: preserves, nextUse: nextUse, leftFront: leftFront,
                      isPrevious: previous)
}

/// Kills victims one by one as the device does (victim, willEvict, remove) and
/// returns the order.
func killOrder<P: EvictionPolicy>(_ p: inout P) -> [Int32] {
    var order: [Int32] = []
    while p.hasCandidates {
        let v = p.victim()
        order.append(v)
        p.willEvict(v)
        p.remove(v)
    }
    return order
}

@Suite("Each policy picks the victim its definition says")
struct PolicyChoiceTests {
    @Test("largest-first kills the largest footprint first, and follows footprint changes")
    func largestFirst() {
        var p = LargestFirst()
        p.reset(appCount: 5, context: .init())
        p.update(0, cand(kb: 300))
        p.update(1, cand(kb: 900))
        p.update(2, cand(kb: 500))
        p.update(3, cand(kb: 700))
        #expect(p.victim() == 1)
        p.update(1, cand(kb: 100))  // a memory warning shrank it
        #expect(killOrder(&p) == [3, 2, 0, 1])
    }

    @Test("lru kills the app left longest ago; background state changes do not reorder")
    func lru() {
        var p = LRU()
        p.reset(appCount: 4, context: .init())
        for a: Int32 in [2, 0, 3, 1] { p.update(a, cand(.background, leftFront: true)) }
        p.update(2, cand(.suspended))  // suspended later: still least recently used
        p.remove(3)                     // the user came back to 3
        p.update(3, cand(.background, leftFront: true))
        #expect(killOrder(&p) == [2, 0, 1, 3])
    }

    @Test("lru orders by the user's last use: never used is oldest (in arrival order), a system launch is not a use")
    func lruUserRecency() {
        var p = LRU()
        p.reset(appCount: 6, context: .init())
        p.update(0, cand(.background, lastUsed: 50, leftFront: true))   // the user left it at 50 s
        p.update(1, cand(.background, lastUsed: 90, leftFront: true))   // at 90 s
        p.update(2, cand(.background, lastUsed: 0))                     // the system launched it: never used
        p.update(3, cand(.background, lastUsed: 10))                    // relaunched by the system; the user left it at 10 s
        p.update(4, cand(.background, lastUsed: 0))                     // never used, arrived after 2
        p.update(3, cand(.suspended, lastUsed: 10))                     // suspended: no reorder
        #expect(killOrder(&p) == [2, 4, 3, 0, 1])
    }

    @Test("mru kills the app the user left last; never-used apps go last, in arrival order")
    func mru() {
        var p = MRU()
        p.reset(appCount: 5, context: .init())
        p.update(0, cand(.background, lastUsed: 50, leftFront: true))
        p.update(1, cand(.background, lastUsed: 0))
        p.update(2, cand(.background, lastUsed: 90, leftFront: true))
        p.update(3, cand(.background, lastUsed: 0))
        p.update(4, cand(.background, lastUsed: 10))
        #expect(killOrder(&p) == [2, 0, 4, 1, 3])
    }

    @Test("fifo kills in process start order; a use (leaving the front again) does not reorder, a restart does")
    func fifo() {
        var p = FIFO()
        p.reset(appCount: 4, context: .init())
        for a: Int32 in [2, 0, 3, 1] { p.processStarted(a) }
        p.update(1, cand(.background, lastUsed: 5, leftFront: true))
        p.update(0, cand(.background, lastUsed: 6, leftFront: true))
        p.remove(0)                                                      // the user came back to 0 ...
        p.update(0, cand(.background, lastUsed: 9, leftFront: true))    // ... and left: still started second
        p.update(2, cand(.suspended))
        p.remove(3)
        p.processStarted(3)                                              // killed and started again: now last
        p.update(3, cand(.background))
        #expect(killOrder(&p) == [2, 0, 1, 3])
    }

    @Test("mru, fifo and smartlmk are outside `all`, and after every policy `all` selects (whose places stay)")
    func baselinesOutsideAll() {
        #expect(PolicyID.allSelected.map(\.name) == ["largest-first", "lru", "jetsam-bands", "android-lmk", "cost-aware", "random", "oracle"])
        #expect(PolicyID.all.map(\.name).suffix(3) == ["mru", "fifo", "smartlmk"])
        #expect(!MRU.inAll && !FIFO.inAll && !SmartLMK.inAll && LRU.inAll)
    }

    @Test("jetsam-bands: idle, then background, then phone, then audio; first in, first out within a band")
    func jetsamBands() {
        var p = JetsamBands()
        p.reset(appCount: 6, context: .init())
        p.update(0, cand(.background, mode: .audio, leftFront: true))    // band 120
        p.update(1, cand(.background, leftFront: true))                  // band 30
        p.update(2, cand(.suspended))                                    // band 0
        p.update(3, cand(.background, mode: .voip, leftFront: true))     // band 50
        p.update(4, cand(.suspended))                                    // band 0, after 2
        p.update(5, cand(.background, leftFront: true))                  // band 30, after 1
        p.update(1, cand(.suspended))                                    // 1 drops to idle: now last there
        p.update(2, cand(.suspended, kb: 5))                             // same band: keeps its place
        #expect(killOrder(&p) == [2, 4, 1, 5, 3, 0])
        #expect(JetsamBands.bandPriorities == [0, 20, 30, 50, 75, 120])
    }

    @Test("jetsam-bands' lists 0 and 1 are the idle and frozen bands in entry order: the device reads them as its idle order")
    func jetsamBandsIdleLists() {
        #expect(JetsamBands.ordersIdleBands && !LRU.ordersIdleBands && !AndroidLMK.ordersIdleBands)
        var p = JetsamBands()
        p.reset(appCount: 12, context: .init())
        // The reference: each band's apps in the order they entered it.
        var idle: [Int32] = [], frozen: [Int32] = [], band = [UInt8?](repeating: nil, count: 12)
        var g = Xoshiro256StarStar(seed: 4)
        let bands: [UInt8] = [0, 20, 30, 50, 75, 120]
        func walk(_ l: Int) -> [Int32] {
            var out: [Int32] = [], app = p.idleLists.head(l)
            while app >= 0 { out.append(app); app = p.idleLists.next(app) }
            return out
        }
        var mismatches = 0
        for _ in 0..<5_000 {
            let app = Int32(g.nextIndex(12))
            let b: UInt8? = g.nextUnit() < 0.2 ? nil : bands[g.nextIndex(6)]
            if let b { p.update(app, EvictionCandidate(state: .suspended, residentKB: 1, band: b)) } else { p.remove(app) }
            if band[Int(app)] != b {
                idle.removeAll { $0 == app }
                frozen.removeAll { $0 == app }
                if b == XNUBand.idle { idle.append(app) } else if b == XNUBand.frozen { frozen.append(app) }
                band[Int(app)] = b
            }
            if walk(0) != idle || walk(1) != frozen { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(!idle.isEmpty && !frozen.isEmpty)
    }

    @Test("jetsam-bands: aging 20, dock 30 and frozen 75 sit where the device's band puts them")
    func jetsamBandsXNU() {
        var p = JetsamBands()
        p.reset(appCount: 5, context: .init())
        p.update(0, EvictionCandidate(state: .suspended, residentKB: 0, band: XNUBand.frozen))
        p.update(1, EvictionCandidate(state: .suspended, residentKB: 1, band: XNUBand.background))  // the dock
        p.update(2, EvictionCandidate(state: .background, residentKB: 1, band: XNUBand.aging))
        p.update(3, EvictionCandidate(state: .suspended, residentKB: 1, band: XNUBand.idle))
        p.update(4, EvictionCandidate(state: .background, mode: .audio, residentKB: 1, band: XNUBand.audioAndAccessory))
        p.update(2, EvictionCandidate(state: .background, residentKB: 1, band: XNUBand.idle))     // aging over: idle, after 3
        #expect(killOrder(&p) == [3, 2, 1, 0, 4])
    }

    @Test("android-lmk: cached by recency, then previous, then services, then perceptible by size")
    func androidLMK() {
        var p = AndroidLMK()
        p.reset(appCount: 7, context: .init())
        p.update(0, cand(.background, kb: 300, lastUsed: 1, mode: .audio, leftFront: true))  // perceptible
        p.update(1, cand(.background, kb: 900, lastUsed: 2, mode: .location, leftFront: true)) // perceptible, larger
        p.update(2, cand(.background, lastUsed: 3, leftFront: true))   // service
        p.update(3, cand(.background, lastUsed: 4, leftFront: true))   // service, adjusted later
        p.update(4, cand(.background, lastUsed: 5, leftFront: true))
        p.update(4, cand(.suspended, lastUsed: 5))                      // cached
        p.update(5, cand(.background, lastUsed: 6, leftFront: true))
        p.update(5, cand(.suspended, lastUsed: 6))                      // cached, newer
        p.update(6, cand(.background, lastUsed: 7, leftFront: true))
        p.update(6, cand(.suspended, lastUsed: 7, previous: true))      // the previous app: 700
        #expect(killOrder(&p) == [4, 5, 6, 2, 3, 1, 0])
    }

    @Test("android-lmk: a new previous app demotes the old one to cached")
    func androidPrevious() {
        var p = AndroidLMK()
        p.reset(appCount: 3, context: .init())
        p.update(0, cand(.background, lastUsed: 1, leftFront: true))
        p.update(0, cand(.suspended, lastUsed: 1, previous: true))   // previous: 700
        p.update(2, cand(.suspended, lastUsed: 3))                   // cached, though newer
        #expect(p.victim() == 2)
        // 1 enters the background: the device demotes 0 (`enterBackground`), then 1
        // suspends as the previous app.
        p.update(1, cand(.background, lastUsed: 2, leftFront: true))
        p.update(0, cand(.suspended, lastUsed: 1))                   // now cached
        p.update(1, cand(.suspended, lastUsed: 2, previous: true))   // now previous
        #expect(p.victim() == 0)
        #expect(killOrder(&p) == [0, 2, 1])
    }

    @Test("cost-aware kills the lowest relaunch penalty per MB first")
    func costAware() {
        var p = CostAware()
        var settings = PolicySettings()
        settings[CostAware.self] = .init(unsavedEditPenaltyMs: 10_000, stateLossPenaltyMs: 5_000)
        p.reset(appCount: 4, context: .init(policies: settings))
        // penalty / MB: (cold - resident) ms, plus losses.
        p.update(0, cand(kb: 100 * 1024, cold: 1_200, resident: 200))                // 1000 ms / 100 MB = 10
        p.update(1, cand(kb: 100 * 1024, cold: 3_200, resident: 200))                // 30
        p.update(2, cand(kb: 100 * 1024, cold: 1_200, resident: 200, unsaved: 1))     // 110
        p.update(3, cand(kb: 50 * 1024, launches: 4, cold: 1_200, resident: 200))     // 4 * 1000 / 50 = 80
        #expect(killOrder(&p) == [0, 1, 3, 2])
    }

    @Test("cost-aware ages: after an eviction, a newly used app starts from the inflated value")
    func costAwareAging() {
        var p = CostAware()
        p.reset(appCount: 3, context: .init())
        p.update(0, cand(kb: 100 * 1024, cold: 1_200, resident: 200))   // H = 10
        p.update(1, cand(kb: 100 * 1024, cold: 2_200, resident: 200))   // H = 20
        #expect(p.victim() == 0)
        p.willEvict(0)                                                    // L becomes 10
        p.remove(0)
        p.update(2, cand(kb: 100 * 1024, cold: 1_700, resident: 200, leftFront: true))  // H = 10 + 15 = 25
        #expect(killOrder(&p) == [1, 2])
    }

    @Test("oracle kills the app used furthest in the future; apps never used again first, largest first")
    func oracle() {
        var p = Oracle()
        p.reset(appCount: 5, context: .init())
        p.update(0, cand(nextUse: .seconds(100)))
        p.update(1, cand(nextUse: .seconds(500)))
        p.update(2, cand(kb: 10, nextUse: .never))
        p.update(3, cand(kb: 99_999, nextUse: .never))
        p.update(4, cand(nextUse: .seconds(50)))
        #expect(killOrder(&p) == [3, 2, 1, 0, 4])
    }

    @Test("random picks uniformly among candidates, only candidates, repeatably per seed")
    func random() {
        func draws(seed: UInt64) -> [Int] {
            var counts = [Int](repeating: 0, count: 10)
            var p = RandomEviction()
            p.reset(appCount: 10, context: .init(seed: seed, device: 3))
            for a: Int32 in 0..<10 { p.update(a, cand()) }
            p.remove(7)
            // Each kill takes the draw from the stream (the app stays, to keep the count).
            for _ in 0..<70_000 {
                let v = p.victim()
                counts[Int(v)] += 1
                p.willEvict(v)
            }
            return counts
        }
        let c = draws(seed: 5)
        #expect(c[7] == 0)
        let chi = c.enumerated().filter { $0.offset != 7 }.reduce(0.0) { $0 + pow(Double($1.element) - 7_777.8, 2) / 7_777.8 }
        #expect(chi < 27.9)  // chi-square 0.999 quantile, 8 df
        #expect(draws(seed: 5) == c)
        #expect(draws(seed: 6) != c)
    }

    @Test("every policy has no candidate when empty, and forgets removed ones", arguments: PolicyID.all)
    func emptyAndRemoved(policy: PolicyID) {
        func check<P: EvictionPolicy>(_ type: P.Type) {
            var p = P()
            p.reset(appCount: 3, context: .init())
            #expect(!p.hasCandidates, "\(P.name)")
            p.update(1, cand(.background, leftFront: true))
            #expect(p.hasCandidates && p.victim() == 1, "\(P.name)")
            p.update(1, cand(.suspended))
            p.remove(1)
            p.remove(1)  // twice is harmless
            #expect(!p.hasCandidates, "\(P.name)")
            // A reset forgets everything.
            p.update(2, cand(.suspended, leftFront: true))
            p.reset(appCount: 3, context: .init())
            #expect(!p.hasCandidates, "\(P.name)")
        }
        check(policy.type)
    }

    @Test("victim() is a pure query: asking again before each kill changes no kill order", arguments: PolicyID.all)
    func victimIsPure(policy: PolicyID) {
        func orders<P: EvictionPolicy>(_: P.Type) -> (plain: [Int32], asked: [Int32]) {
            func filled() -> P {
                var p = P()
                p.reset(appCount: 40, context: .init(seed: 3, device: 1))
                var g = Xoshiro256StarStar(seed: 11, 2)
                for a: Int32 in 0..<40 {
                    let m = g.nextIndex(6)
                    p.update(a, cand(m == 0 ? .background : .suspended, kb: Int64(1 + g.nextIndex(900)) * 1024,
                                     lastUsed: Int64(a), mode: m == 1 ? .audio : .none, launches: 1 + g.nextIndex(5),
                                     cold: Int64(500 + g.nextIndex(3_000)), unsaved: g.nextIndex(3),
                                     nextUse: .seconds(Int64(g.nextIndex(10_000))), leftFront: true))
                }
                return p
            }
            var plain = filled(), asked = filled()
            var askedOrder: [Int32] = []
            while asked.hasCandidates {
                let v = asked.victim()
                #expect(asked.victim() == v && asked.victim() == v, "\(P.name)")
                askedOrder.append(v)
                asked.willEvict(v)
                asked.remove(v)
                // Interleave a new candidate, so the index keeps changing.
                if askedOrder.count == 10 { asked.update(v, cand(kb: 1024, lastUsed: 99, nextUse: .seconds(5), leftFront: true)) }
            }
            var plainOrder: [Int32] = []
            while plain.hasCandidates {
                let v = plain.victim()
                plainOrder.append(v)
                plain.willEvict(v)
                plain.remove(v)
                if plainOrder.count == 10 { plain.update(v, cand(kb: 1024, lastUsed: 99, nextUse: .seconds(5), leftFront: true)) }
            }
            return (plainOrder, askedOrder)
        }
        let (plain, asked) = orders(policy.type)
        #expect(plain == asked, "\(policy)")
        #expect(plain.count == 41, "\(policy)")
    }
}

#if canImport(Glibc)
import Glibc
#endif
