import Foundation
import Testing
import SimKernel
@testable import JetSim

/// Compression over time (Memory/XNU/Compression.swift): a suspended app's
/// memory goes into the compressor at `compression_mb_per_s`, credited at whole
/// seconds, so an app suspended a few seconds ago is still mostly uncompressed.
/// Exact figures on Workloads/scenarios/42-gradual-compression (its trace is pinned
/// beside it): apps keep 60 MiB suspended, ratio 2, 4 MiB/s (4,096 KiB in, 2,048 KiB
/// out per second).
@Suite("XNU compressor: compression over time")
struct XNUCompressionTests {
    static let mib: Int64 = 1_024

    /// Runs the scenario, stopping after every instant with events, and returns per
    /// instant (seconds) the pool, available memory and each app's resident memory
    /// now (the device's credited figures), checking the invariant after every event.
    static func states(_ text: String) throws -> (Scenario, [Int64: (pool: Int64, available: Int64, resident: [Int64])], DeviceMetrics) {
        let sc = try Scenario.parse(text, source: "test")
        var sim = Simulation(model: scenarioDevice(sc, LRU.self, trace: NoTrace()))
        var out: [Int64: (pool: Int64, available: Int64, resident: [Int64])] = [:]
        while true {
            let q = sim.scheduler.queue.min()?.time
            let input = sim.model.nextInputTime
            guard let t = [q, input].compactMap({ $0 }).min(), t <= sc.endTime else { break }
            sim.run(until: t)
            let m = sim.model
            out[t.microseconds / 1_000_000] = (m.compressorKB, m.availableKB, m.apps.indices.map { m.memory.residentNowKB(m.core, Int32($0)) })
        }
        return (sc, out, sim.model.metrics)
    }

    @Test("an app suspended 5 s ago has 20 of its 60 MiB compressed; done after 15 s; the device's figures agree")
    func partlyCompressed() throws {
        let text = try XNUTests.file("42-gradual-compression.scenario")
        let (sc, s, metrics) = try Self.states(text)
        #expect(sc.params.xnu.compressionKBPerS == 4 * Self.mib && sc.params.compressionChunkPackedKB == 2 * Self.mib)
        let (a, b) = (0, 1)
        // 15 s: A suspended, nothing compressed yet: 60 MiB resident.
        #expect(s[15]!.pool == 0 && s[15]!.resident[a] == 60 * Self.mib)
        // 20 s: seconds 16-20 credited: 20 MiB in, 10 MiB in the pool, 50 MiB resident.
        #expect(s[20]!.pool == 10 * Self.mib && s[20]!.resident[a] == 50 * Self.mib)
        // 25 s: 40 MiB in, 20 MiB in the pool, 40 MiB resident; B went to the background
        // (200 -> 100 MiB), so available rose by 10 MiB (A) + 100 MiB (B).
        #expect(s[25]!.pool == 20 * Self.mib && s[25]!.resident[a] == 40 * Self.mib)
        #expect(s[25]!.available - s[20]!.available == 110 * Self.mib)
        // 35 s: A done at 30 s (30 MiB, as the instant model), B just suspended.
        #expect(s[35]!.pool == 30 * Self.mib && s[35]!.resident[a] == 30 * Self.mib && s[35]!.resident[b] == 60 * Self.mib)
        // 38 s: B had seconds 36-38 (6 MiB in the pool) and is resumed: it leaves the
        // pool holding 60 - 12 + 6 = 54 MiB, then grows to its 200 MiB in front.
        #expect(s[38]!.pool == 30 * Self.mib && s[38]!.resident[b] == 200 * Self.mib)
        #expect(metrics[.compressorPeakKB] == 36 * Self.mib)
        // Decompressed: B's 12 MiB compressed so far, A's whole 60 MiB.
        #expect(metrics[.decompressedRelaunches] == 2 && metrics[.decompressedKB] == Int(72 * Self.mib))
        let (_, r) = try run(text)
        let warm = r.records.compactMap { rec -> String? in
            if case .message(.didBecomeActive) = rec.event, TraceCSV.detail(rec).hasPrefix("warm") { return "\(sc.appNames[Int(rec.app)]) \(TraceCSV.detail(rec))" }
            return nil
        }
        // 0.3 x 12 MiB = 3,686 KiB (whole KiB) x 0.5 ms/MiB = 1.799 ms; 0.3 x 60 MiB: 9 ms.
        #expect(warm == ["B warm 251.799ms", "A warm 259ms"])
    }

    @Test("at rate 0 the whole app is compressed at suspension (the model before)")
    func instant() throws {
        let text = try XNUTests.file("42-gradual-compression.scenario").replacingOccurrences(of: "device dock=0", with: "device dock=0 compression-mb-per-s=0")
        let (_, s, metrics) = try Self.states(text)
        #expect(s[15]!.pool == 30 * Self.mib && s[15]!.resident[0] == 30 * Self.mib)
        #expect(metrics[.compressorPeakKB] == 60 * Self.mib)
        #expect(metrics[.decompressedKB] == Int(120 * Self.mib))
    }

    @Test("the freezer compresses what is left before writing an app out")
    func freezeMidCompression() throws {
        // Freezing at any level with one suspended app: A is frozen as it is suspended
        // (15 s, nothing compressed yet) and writes its final 30 MiB, as the instant
        // model does; nothing stays in RAM or in the pool.
        let text = "device dock=0 freeze-pct=100 freeze-suspended=0 freezer-idle-delay=0s\napp A\n0s launch A\n5s home\n30s end\n"
        let (_, s, metrics) = try Self.states(text)
        #expect(metrics[.freezes] == 1 && metrics[.flashWrittenKB] == Int(30 * Self.mib))
        #expect(s[15]!.pool == 0 && s[15]!.resident[0] == 0)
    }
}

/// XNU's demotion order (kern_memorystatus_freeze.c:2339-2387): the frozen band is
/// walked from its first entry, the app frozen longest ago, not the least recently
/// used.
@Suite("XNU freezer: demotion order")
struct XNUDemotionTests {
    /// Runs a scenario to its end and returns the device.
    static func device(_ text: String) throws -> (Scenario, Device<LRU, NoTrace>) {
        let sc = try Scenario.parse(text, source: "test")
        var sim = Simulation(model: scenarioDevice(sc, LRU.self, trace: NoTrace()))
        sim.run(until: sc.endTime)
        return (sc, sim.model)
    }

    @Test("a new freezer day demotes the app that entered the frozen band first, though another was used less recently")
    func bandOrder() throws {
        // X leaves the front first (5 s) but runs a 20 s background task, so it is
        // suspended and frozen (25 s) after Y (left at 8 s, frozen at 18 s). On day 1
        // (Z's launch at 24 h) one demotion is allowed: XNU's walk takes Y, the first
        // entry of band 75; least-recently-used order would take X.
        let text = """
            device dock=0 freeze-pct=100 freeze-suspended=0 freeze-demotions=1
            app X bg-task=20s
            app Y
            app Z
            0s    launch X
            5s    home
            6s    launch Y
            8s    home
            24h   launch Z
            24h   home
            24h   end
            """
        let (sc, d) = try Self.device(text)
        let (x, y) = (Int(sc.app(named: "X")!), Int(sc.app(named: "Y")!))
        #expect(d.metrics[.freezes] == 2 && d.metrics[.freezerDemotions] == 1)
        #expect(d.apps[y].isFrozen && d.apps[y].band == XNUBand.idle)
        #expect(d.apps[x].isFrozen && d.apps[x].band == XNUBand.frozen)
        #expect(d.apps[x].lastUsed < d.apps[y].lastUsed)
        // Two demotions allowed: both, Y first, each at the idle band's tail.
        let (_, both) = try Self.device(text.replacingOccurrences(of: "freeze-demotions=1", with: "freeze-demotions=2"))
        #expect(both.metrics[.freezerDemotions] == 2 && both.core.idleOrder.head(0) == Int32(y) && both.core.idleOrder.next(Int32(y)) == Int32(x))
    }
}

extension XNUCompressionTests {
    /// The pool's time integral in integers (`Device.kbSeconds`) is the Double figure it
    /// replaced, on every size class up to and past the 2^52 switch, and saturates.
    @Test("the pool's KiB x s in integers equal the Double figure")
    func kbSecondsEqualsDouble() {
        func reference(_ kb: Int64, _ ms: Int64) -> Int { Int(saturating: Double(kb) * Double(ms) / 1_000) }
        var g = Xoshiro256StarStar(seed: 52)
        var checked = 0, integerPath = 0
        for _ in 0..<200_000 {
            // Log-uniform sizes: a KiB to 2^40 KiB held a millisecond to 2^40 ms.
            let kb = Int64(exp2(g.nextUnit() * 40).rounded(.down))
            let ms = Int64(exp2(g.nextUnit() * 40).rounded(.down))
            #expect(CompressorPool.kbSeconds(kb, ms: ms) == reference(kb, ms))
            let (p, o) = kb.multipliedReportingOverflow(by: ms)
            if !o && p < 1 << 52 { integerPath += 1 }
            checked += 1
        }
        // Both paths ran, and the edges: just below and at the switch, 999 ms thousandths.
        #expect(integerPath > 50_000 && integerPath < checked)
        for (kb, ms) in [(Int64(1) << 26, Int64(1) << 26 - 1), (Int64(1) << 26, Int64(1) << 26),
                         ((Int64(1) << 52 - 1) / 999, 999), (1, 999), (Int64.max, 2)] {
            #expect(CompressorPool.kbSeconds(kb, ms: ms) == reference(kb, ms))
        }
    }
}

extension XNUCompressionTests {
    /// The pool size above which the compressor is short (`XNUThresholds.
    /// compressorShortPoolKB`) splits the pools exactly where the Double test it
    /// replaced does: at and below it the uncompressed size is within the level,
    /// one KiB more is over it; on RAM sizes, ratios and shares across their ranges.
    @Test("the shortage threshold in pool KiB is the Double test's boundary")
    func shortPoolIsTheBoundary() {
        var g = Xoshiro256StarStar(seed: 98)
        for i in 0..<2_000 {
            var p = DeviceParameters(ramKB: Int64(exp2(10 + g.nextUnit() * 30).rounded(.down)))
            p.suspendedCompressionRatio = i % 7 == 0 ? Double(1 + i % 5) : 1 + g.nextUnit() * 99
            p.xnu.compressorShortagePct = i % 11 == 0 ? 0 : g.nextUnit() * 100
            if i % 3 == 0 { p.xnu.compressorPagesLimitPct = g.nextUnit() * 10_000 }
            let level = p.compressorShortageKB, ratio = p.suspendedCompressionRatio
            let t = XNUThresholds(p).compressorShortPoolKB
            #expect(t >= 0 && t < .max)
            #expect(XNUThresholds.compressorInputKB(t, ratio: ratio) <= level)
            #expect(XNUThresholds.compressorInputKB(t + 1, ratio: ratio) > level, "ram \(p.ramKB) ratio \(ratio) level \(level): \(t)")
        }
        // No pool is short when the level is past any pool's uncompressed size.
        var huge = DeviceParameters(ramKB: 1 << 60)
        huge.xnu.compressorPagesLimitPct = 10_000
        #expect(XNUThresholds(huge).compressorShortPoolKB == .max)
    }
}
