import Testing
import SimKernel
@testable import JetSim

/// A cached app's garbage collector on Android (Memory/Android/Zram.swift) and Fleet's
/// memory manager (Memory/Fleet/), pinned on AndroidTests' zram fixture: 2 GB, 512 MB
/// reserve; A (600 MB) keeps 180 MB (184,320 KiB) cached and is the one zram takes when
/// C (1100 MB) launches; A comes back at 1 min.
@Suite("Android's cached-app GC and Fleet's manager")
struct FleetTests {
    static let zramThree = AndroidTests.zramThree

    static func with(_ keys: String, os: String = "android") -> String {
        zramThree.replacingOccurrences(of: "os=android", with: "os=\(os)")
            .replacingOccurrences(of: "policy=android-lmk", with: "policy=android-lmk \(keys)")
    }

    /// The device after C's launch (A in zram), and A's index.
    static func afterReclaim(_ text: String) throws -> (Device<AndroidLMK, NoTrace>, Int32) {
        let sc = try Scenario.parse(text, source: "test")
        var sim = Simulation(model: scenarioDevice(sc, AndroidLMK.self, trace: NoTrace()))
        sim.run(until: .seconds(50))
        return (sim.model, sc.app(named: "A")!)
    }

    @Test("a cached app in zram gets exactly what its GC touches back: 20 % of 184,320 KiB is 36,864 KiB in RAM, the other 147,456 packed")
    func gcTouchedShareBack() throws {
        let (d, a) = try Self.afterReclaim(Self.with("gc-heap-pct=20"))
        #expect(d.apps[Int(a)].memory.contains(.compressed))
        #expect(d.memory.android.zramHeldKB(a) == 36_864)
        // 147,456 / 2.58 = 57,153.5: 57,153 KiB in the pool; resident = that + the heap.
        #expect(d.compressorKB == 57_153)
        #expect(d.apps[Int(a)].residentKB == 57_153 + 36_864)
        // Half the heap touched: half as much back.
        let (half, _) = try Self.afterReclaim(Self.with("gc-heap-pct=20 gc-touch-pct=50"))
        #expect(half.memory.android.zramHeldKB(a) == 18_432)
        // The resume swaps in only what zram had: 57,153 x 2.58 = 147,455 KiB, 71,999.5 us
        // at 0.5 ms/MiB, rounded (the whole app: 90 ms), and the app leaves the pool whole.
        let (_, r) = try run(Self.with("gc-heap-pct=20"))
        #expect(r.metrics[.swapIns] == 1 && r.metrics.totalKills == 0)
        #expect(r.metrics[.swapInLatencySumMicros] == 72_000)
    }

    @Test("with the GC touching nothing (or no heap) the run is the one without a GC: trace and counters")
    func zeroTouchIsNoGC() throws {
        let (sc, plain) = try run(Self.zramThree)
        for keys in ["gc-heap-pct=20 gc-touch-pct=0", "gc-heap-pct=0 gc-touch-pct=100"] {
            let (_, r) = try run(Self.with(keys))
            #expect(r.metrics == plain.metrics, "\(keys)")
            #expect(ScenarioRunner.csv(sc, r.records) == ScenarioRunner.csv(sc, plain.records), "\(keys)")
            let (d, a) = try Self.afterReclaim(Self.with(keys))
            #expect(d.memory.android.state.heldKB.isEmpty && d.memory.android.zramHeldKB(a) == 0, "\(keys)")
        }
    }

    @Test("swap takes only android_swappable_pct of a cached app outside its heap: 50 % of 184,320 KiB stays")
    func swappableShare() throws {
        let (d, a) = try Self.afterReclaim(Self.with("swappable-pct=50"))
        #expect(d.memory.android.zramHeldKB(a) == 92_160)
        #expect(d.compressorKB == 35_721)  // 92,160 / 2.58
    }

    @Test("Fleet's GC touches its background objects only: 14.5 % of a 20 % heap, 5,345 KiB of 184,320 stay in RAM")
    func fleetGC() throws {
        let (d, a) = try Self.afterReclaim(Self.with("gc-heap-pct=20", os: "fleet"))
        #expect(d.memory.kind == .fleet)
        // 184,320 x 0.2 x 0.145 = 5,345.28.
        #expect(d.memory.android.zramHeldKB(a) == 5_345)
    }

    @Test("Fleet's hot launch from zram waits for its launch objects only: 25 % of 180 MiB is 22.5 ms, Android's whole 90 ms")
    func fleetHotLaunch() throws {
        let (sc, r) = try run(Self.with("fleet-launch-swap-in-pct=25", os: "fleet"))
        #expect(r.metrics[.swapIns] == 1 && r.metrics.totalKills == 0)
        #expect(r.metrics[.swapInLatencySumMicros] == 22_500)
        #expect(r.records.contains { $0.app == sc.app(named: "A")! && TraceCSV.detail($0) == "warm 272.5ms" })
        // At 100 % it is Android's resume; everything else is Android's (same trace).
        let (_, all) = try run(Self.with("fleet-launch-swap-in-pct=100", os: "fleet"))
        let (_, android) = try run(Self.zramThree)
        #expect(all.metrics == android.metrics)
        #expect(ScenarioRunner.csv(sc, all.records) == ScenarioRunner.csv(sc, android.records))
    }

    @Test("a swap file (android_swap_file) keeps none of a swapped page in RAM: A's 184,320 KiB all in the file, read back whole on resume, the file empty after")
    func swapFile() throws {
        let (d, a) = try Self.afterReclaim(Self.with("swap-file=true"))
        #expect(d.apps[Int(a)].memory.contains(.compressed))
        #expect(d.apps[Int(a)].residentKB == 0 && d.compressorKB == 0)
        #expect(d.memory.android.state.fileUsedKB == 184_320 && d.memory.android.zramStoredKB == 184_320)
        // With the GC: the touched heap stays in RAM, the rest in the file.
        let (g, _) = try Self.afterReclaim(Self.with("swap-file=true gc-heap-pct=20"))
        #expect(g.apps[Int(a)].residentKB == 36_864 && g.memory.android.state.fileUsedKB == 147_456)
        // The resume reads back all 184,320 KiB (90 ms at 0.5 ms/MiB); nothing is left in
        // the file and nobody was killed.
        let (_, r) = try run(Self.with("swap-file=true"))
        #expect(r.metrics[.swapIns] == 1 && r.metrics.totalKills == 0)
        #expect(r.metrics[.swapInLatencySumMicros] == 90_000)
        var sim = Simulation(model: scenarioDevice(try Scenario.parse(Self.with("swap-file=true"), source: "test"), AndroidLMK.self, trace: NoTrace()))
        sim.run(until: .seconds(90))
        #expect(sim.model.memory.android.state.fileUsedKB == 0 && sim.model.memory.android.state.swappedKB.allSatisfy { $0 == 0 })
        // A file too small for A (zram-pct=5: 102 MB of 2 GB) takes nothing: A stays whole
        // in RAM, and its resume swaps nothing in.
        let (t, _) = try Self.afterReclaim(Self.with("swap-file=true zram-pct=5"))
        #expect(!t.apps[Int(a)].memory.contains(.compressed) && t.apps[Int(a)].residentKB == 184_320 && t.memory.android.state.fileUsedKB == 0)
        let (_, small) = try run(Self.with("swap-file=true zram-pct=5"))
        #expect(small.metrics[.swapIns] == 0)
        // The file swaps with zram off too (the artifact's setup), the same as with it on.
        let (_, on) = try run(Self.with("swap-file=true"))
        let (_, off) = try run(Self.with("swap-file=true zram=false"))
        #expect(off.metrics == on.metrics && off.metrics[.swapIns] == 1)
        // With zram writeback there would be nothing to write back: refused, naming it.
        #expect(throws: InputError.self) { try Scenario.parse(Self.with("swap-file=true writeback=true"), source: "test") }
        do { _ = try Scenario.parse(Self.with("swap-file=true writeback=true"), source: "test") } catch {
            #expect("\(error)".contains("writeback"), "\(error)")
        }
        // In a workload file too, at its line, and only where Android runs.
        let yaml = "device_classes:\n  - name: a\n    os: android\n    android_swap_file: true\n    android_zram_writeback: true\n"
        do { _ = try WorkloadDecoder.load(yaml, source: "w.yaml"); Issue.record("accepted") } catch {
            #expect(error.description.contains("android_zram_writeback") && error.description.contains("w.yaml"), "\(error)")
        }
        #expect((try? WorkloadDecoder.load(yaml.replacingOccurrences(of: "os: android", with: "os: ios"), source: "w.yaml")) != nil)
    }

    @Test("Fleet's manager is selected by os: fleet (scenario os=fleet and the workload key), and only by it")
    func selection() throws {
        #expect(try Scenario.parse(Self.with("", os: "fleet"), source: "test").params.memoryManager == .fleet)
        #expect(try Scenario.parse(Self.zramThree, source: "test").params.memoryManager == .android)
        // fleet_* keys without os: fleet do nothing.
        #expect(try Scenario.parse(Self.with("fleet-gc-touch-pct=50"), source: "test").params.memoryManager == .android)
        var c = DeviceClass()
        c.os = .fleet
        let p = c.parameters()
        #expect(p.memoryManager == .fleet && p.android.enabled && p.fleet.enabled)
        #expect(p.fleet.gcTouchShare == 0.145 && p.fleet.launchSwapInShare == 0.243)
        c.os = .android
        #expect(c.parameters().memoryManager == .android && !c.parameters().fleet.enabled)
        #expect(DeviceClass().parameters().memoryManager == .xnu)
    }

    @Test("bad GC and Fleet keys are rejected naming the key")
    func badKeys() throws {
        for (key, value) in [("fleet-gc-touch-pct", "150"), ("fleet-launch-swap-in-pct", "-1"), ("gc-heap-pct", "101"),
                             ("gc-touch-pct", "x"), ("swappable-pct", "200"), ("os", "fleety"), ("swap-file", "maybe")] {
            do {
                _ = try Scenario.parse(Self.with("\(key)=\(value)"), source: "test")
                Issue.record("\(key)=\(value) accepted")
            } catch {
                #expect("\(error)".contains(key), "\(key)=\(value): \(error)")
            }
        }
    }
}
