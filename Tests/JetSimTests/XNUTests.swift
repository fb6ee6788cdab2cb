import Foundation
import Testing
import SimKernel
import JetSim

/// XNU's memorystatus around the policy (Memory/XNU/): exact counts on small
/// hand-built devices. The traces are pinned in Workloads/scenarios/25-30.
@Suite("XNU memorystatus: bands, kill triggers, reaper, compressor, freezer")
struct XNUTests {
    static func file(_ name: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        return try String(contentsOfFile: root + "/Workloads/scenarios/" + name, encoding: .utf8)
    }

    @Test("band order: idle (oldest first), aging, dock then task (by entry), frozen, audio")
    func bandOrder() throws {
        let (sc, r) = try run(try Self.file("25-xnu-band-order.scenario"))
        let killed = r.records.filter { if case .terminated = $0.event { return true } else { return false } }
        #expect(killed.map { sc.appNames[Int($0.app)] } == ["I1", "I2", "Ag", "Dk", "T", "Fz", "Au"])
        // lru ignores the bands: last use alone.
        let (sc2, r2) = try run(try Self.file("26-xnu-band-order-lru.scenario"))
        let killed2 = r2.records.filter { if case .terminated = $0.event { return true } else { return false } }
        #expect(killed2.map { sc2.appNames[Int($0.app)] } == ["Dk", "Fz", "I1", "I2", "T", "Au", "Ag"])
    }

    @Test("the freezer freezes the oldest idle app per wake-up; a relaunch is a thaw from flash")
    func freezeThaw() throws {
        let (sc, r) = try run(try Self.file("27-freeze-oldest-idle-then-thaw.scenario"))
        #expect(r.records.filter { $0.event == .frozen }.map { sc.appNames[Int($0.app)] } == ["A", "B"])
        #expect(r.metrics[.freezes] == 2)
        // 200 MB apps keep 60 MB suspended, compressed 2:1: 30 MiB each to flash.
        #expect(r.metrics[.flashWrittenKB] == 2 * 30 * 1_024)
        #expect(r.metrics[.thawedRelaunches] == 1 && r.metrics[.warmRelaunches] == 1 && r.metrics[.decompressedRelaunches] == 0)
        // The thaw reads back only what A touches: 20 % of its 60 MiB, 12 ms at 1 ms/MiB.
        #expect(r.records.contains { TraceCSV.detail($0) == "thaw 262ms" })
        // Switched off, nothing is frozen and A resumes from the compressor.
        let (_, off) = try run(try Self.file("27-freeze-oldest-idle-then-thaw.scenario").replacingOccurrences(of: "device dock=0", with: "device dock=0 freezer=false"))
        #expect(off.metrics[.freezes] == 0 && off.metrics[.thawedRelaunches] == 0 && off.metrics[.decompressedRelaunches] == 1)
    }

    @Test("the daily flash budget and the frozen maximum bound the freezer")
    func freezerLimits() throws {
        let text = try Self.file("27-freeze-oldest-idle-then-thaw.scenario")
        // 30 MiB per freeze: a 40 MB budget holds one whole and 10 MiB of the next (a
        // partial freeze: XNU hands task_freeze the budget left as its page limit,
        // bsd/kern/kern_memorystatus_freeze.c:1838).
        let (_, budget) = try run(text.replacingOccurrences(of: "device dock=0", with: "device dock=0 freeze-daily=40MB"))
        #expect(budget.metrics[.freezes] == 2 && budget.metrics[.flashWrittenKB] == 40 * 1_024)
        // One frozen app at most: A's thaw does not free its slot (its state stays on
        // flash; XNU does not decrement memorystatus_frozen_count on a resume,
        // bsd/kern/kern_memorystatus.c:3780-3792), so B is never frozen.
        let (sc, most) = try run(text.replacingOccurrences(of: "device dock=0", with: "device dock=0 freeze-max=1"))
        #expect(most.records.filter { $0.event == .frozen }.map { "\(sc.appNames[Int($0.app)]) \($0.time.microseconds / 1_000_000)" } == ["A 35"])
    }

    @Test("the compressor holds suspended memory at ratio 2 within its bound; a resume decompresses it")
    func compressor() throws {
        // Compressed at suspension (rate 0); over time: XNUCompressionTests.
        let text = "device dock=0 freezer=false compression-mb-per-s=0\napp A\napp B\napp C\n0s launch A\n5s home\n20s launch B\n25s home\n40s launch C\n45s home\n1m launch A\n2m end\n"
        let (_, r) = try run(text)
        #expect(r.metrics[.compressorPeakKB] == 3 * 30 * 1_024)
        #expect(r.metrics[.decompressedRelaunches] == 1 && r.metrics[.decompressedKB] == 60 * 1_024)
        // A 1%-of-8-GB pool (81.9 MiB) holds two apps; the third stays uncompressed.
        let (_, small) = try run(text.replacingOccurrences(of: "freezer=false", with: "freezer=false compressor-pool-pct=1"))
        #expect(small.metrics[.compressorPeakKB] == 2 * 30 * 1_024)
        // Off (ratio 1): nothing compressed, a plain resume.
        let (_, off) = try run(text.replacingOccurrences(of: "freezer=false", with: "freezer=false compression=1"))
        #expect(off.metrics[.compressorPeakKB] == 0 && off.metrics[.decompressedRelaunches] == 0)
    }

    @Test("idle kills stay in the idle band and stop at the idle level; only critical reaches band 30")
    func triggers() throws {
        let (_, idle) = try run(try Self.file("29-idle-kills-stop-at-idle-level.scenario"))
        #expect(idle.metrics[.killsIdle] == 1 && idle.metrics[.killsPressure] == 0)
        let (sc, crit) = try run(try Self.file("30-critical-kill-reaches-dock.scenario"))
        #expect(crit.metrics[.killsIdle] == 1 && crit.metrics[.killsPressure] == 1)
        #expect(crit.records.filter { $0.event == .terminated(.memoryPressure) }.map { sc.appNames[Int($0.app)] } == ["Dk"])
        // Without XNU's bands the dock is an ordinary idle app and the old loop kills to the target.
        let (_, old) = try run(try Self.file("30-critical-kill-reaches-dock.scenario").replacingOccurrences(of: "dock=1", with: "dock=1 xnu-bands=false"))
        #expect(old.metrics[.killsIdle] == 0 && old.metrics[.killsPressure] == 2)
    }

    @Test("the reaper kills apps idle >= 300 s below its level, one sweep per 300 s")
    func reaper() throws {
        let (sc, r) = try run(try Self.file("28-reaper.scenario"))
        #expect(r.records.filter { $0.event == .terminated(.longIdleExit) }.map { sc.appNames[Int($0.app)] } == ["Old"])
        #expect(r.metrics[.killsReaper] == 1)
        let (_, off) = try run(try Self.file("28-reaper.scenario").replacingOccurrences(of: "reaper-pct=100", with: "reaper-pct=100 reaper=false"))
        #expect(off.metrics[.killsReaper] == 0)
    }

    @Test("memory that grows: pressure kills and the per-app limit kill happen mid-session")
    func growth() throws {
        let (sc, r) = try run(try Self.file("31-growth-past-limit.scenario"))
        let killed = r.records.filter { if case .terminated = $0.event { return true } else { return false } }
        #expect(killed.map { "\(sc.appNames[Int($0.app)]) \($0.time.microseconds / 1_000_000) \(TraceCSV.detail($0))" }
                == ["S 120 idle-exit", "G 150 per-process-limit"])
        #expect(r.metrics[.killsLimit] == 1 && r.metrics[.killsIdle] == 1)
        // Switched off, G stays at its launch footprint and nothing dies.
        let (_, off) = try run(try Self.file("31-growth-past-limit.scenario").replacingOccurrences(of: "reaper=false", with: "reaper=false growth=false"))
        #expect(off.metrics.totalKills == 0)
    }

    @Test("growth at the schema's extremes: a 100 GB app stepping 20 h at a time on 1 TB grows without overflow")
    func growthExtremes() throws {
        // (300 GB - 100 GB) x 20 h in microseconds passes Int64: it trapped before the
        // step was taken in 128 bits. One step of 200 GB x 20/24 reaches 266.7 GB.
        let (_, r) = try run("""
            device ram=1TB reserve=1GB dock=0 freezer=false reaper=false app-limit-pct=100 growth-step=20h growth-time=1d
            app G footprint=100GB peak=300GB
            0s    launch G
            3d    end
            """)
        #expect(r.metrics.totalKills == 0)
        #expect(r.metrics[.launches] == 1)
    }
}
