import Foundation
import Testing
import SimKernel
@testable import JetSim

/// The on-demand thaw (Memory/XNU/Thaw.swift; xnu doc/vm/freezer.md:
/// 62-64): a thaw reads back only the share of the frozen app it touches, the rest
/// stays on flash; suspended again, the app holds only that share, and a refreeze
/// writes the dirty share of it. Exact figures on Workloads/scenarios/45-thaw-on-demand
/// (its trace is pinned beside it): T keeps 400 MiB suspended, ratio 2, touch share
/// 0.25, refreeze dirty share 0.3, a 215 MiB budget.
@Suite("XNU freezer: the on-demand thaw")
struct XNUThawTests {
    static let mib: Int64 = 1_024

    struct Instant { var resident: Int64; var packed: Int32; var flashWritten: Int; var refreezes: Int; var demotions: Int }

    /// T's figures after every instant with events (seconds); the memory invariant,
    /// extended to the thaw, is checked after every event.
    static func states(_ text: String) throws -> (Scenario, [Int64: Instant]) {
        let sc = try Scenario.parse(text, source: "test")
        let t = sc.app(named: "T")!
        var sim = Simulation(model: scenarioDevice(sc, LRU.self, trace: NoTrace()))
        sim.model.checksInvariants = true
        var out: [Int64: Instant] = [:]
        while true {
            let q = sim.scheduler.queue.min()?.time
            let input = sim.model.nextInputTime
            guard let time = [q, input].compactMap({ $0 }).min(), time <= sc.endTime else { break }
            sim.run(until: time)
            let m = sim.model
            out[time.microseconds / 1_000_000] = Instant(resident: m.memory.residentNowKB(m.core, t), packed: m.apps[Int(t)].packedKB,
                                                         flashWritten: m.metrics[.flashWrittenKB], refreezes: m.metrics[.refreezes],
                                                         demotions: m.metrics[.freezerDemotions])
        }
        return (sc, out)
    }

    @Test("a thaw reads back and holds only the touched share; a refreeze writes the dirty share of it; an exit restores the profile's size")
    func onDemand() throws {
        let text = try XNUTests.file("45-thaw-on-demand.scenario")
        let (sc, s) = try Self.states(text)
        #expect(sc.params.xnu.thawTouchPPM == 250_000)
        // 15 s: frozen from scratch: its whole 200 MiB (400 compressed 2:1) written.
        #expect(s[15]!.resident == 0 && s[15]!.flashWritten == Int(200 * Self.mib) && s[15]!.packed == Int32(200 * Self.mib))
        // 20 s: thawed, in front with its 400 MiB less the 300 it did not touch; its own
        // suspended size is now 100 MiB, 50 compressed.
        #expect(s[20]!.resident == 100 * Self.mib && s[20]!.packed == Int32(50 * Self.mib))
        // 35 s: suspended with 50 MiB and refrozen at once: 30 % of 50 MiB = 15 MiB.
        #expect(s[35]!.resident == 0 && s[35]!.refreezes == 1 && s[35]!.flashWritten == Int(215 * Self.mib))
        // 55 s: thawed (100 MiB again) and suspended: 50 MiB resident; the budget is
        // spent, so it is demoted, not refrozen.
        #expect(s[55]!.resident == 50 * Self.mib && s[55]!.refreezes == 1 && s[55]!.demotions == 1)
        // 61 s: removed: the next process packs to the profile's 200 MiB again.
        #expect(s[61]!.resident == 0 && s[61]!.packed == Int32(200 * Self.mib))
        #expect(s[85]!.resident == 200 * Self.mib && s[85]!.flashWritten == Int(215 * Self.mib))
        let (_, r) = try run(text)
        let thaws = r.records.compactMap { rec -> String? in
            if case .message(.didBecomeActive) = rec.event, TraceCSV.detail(rec).hasPrefix("thaw") { return TraceCSV.detail(rec) }
            return nil
        }
        // 250 ms + 25 % of 400 MiB x 1 ms/MiB.
        #expect(thaws == ["thaw 350ms", "thaw 350ms"])
        #expect(r.metrics[.thawedRelaunches] == 2)
    }

    @Test("a thaw that touches everything (the whole-app thaw before) holds 200 MiB and is refrozen only in part within the budget")
    func wholeThaw() throws {
        let text = try XNUTests.file("45-thaw-on-demand.scenario").replacingOccurrences(of: "thaw-touch-share=0.25", with: "thaw-touch-share=1")
        let (_, s) = try Self.states(text)
        #expect(s[20]!.resident == 400 * Self.mib && s[20]!.packed == Int32(200 * Self.mib))
        // 30 % of 200 MiB = 60 MiB would pass the 215 MiB budget (200 written): the
        // refreeze writes the 15 MiB left (XNU hands task_freeze the budget left as its
        // page limit, kern_memorystatus_freeze.c:1838), a quarter of what it would
        // have, so a quarter of the 200 MiB leaves RAM: 150 MiB stay compressed.
        #expect(s[35]!.resident == 150 * Self.mib && s[35]!.refreezes == 1 && s[35]!.flashWritten == Int(215 * Self.mib))
        let (_, r) = try run(text)
        #expect(r.records.contains { TraceCSV.detail($0) == "thaw 650ms" })
    }

    @Test("a kill of a thawed app restores its packed size to the profile's, so its next process is frozen whole")
    func killRestores() throws {
        // T frozen at 15 s, thawed at 20 s, suspended at 35 s with 50 MiB (not refrozen:
        // the freezer is not full and freezes new apps first); Big's launch at 40 s
        // kills it. Relaunched at 60 s, a new process: frozen at 75 s with the
        // profile's 200 MiB (a thawed T would have written 50).
        let text = """
            device ram=1GB reserve=400MB dock=0 freeze-pct=100 freeze-suspended=0 freezer-idle-delay=0s thaw-touch-share=0.25 compression-mb-per-s=0 reaper=false
            app S footprint=4MB background-footprint=4MB suspended-footprint=4MB
            app T footprint=400MB background-footprint=400MB suspended-footprint=400MB
            app Big footprint=550MB
            0s    launch S
            1s    launch T
            5s    home
            20s   launch T
            25s   home
            40s   launch Big
            45s   home
            60s   launch T
            65s   home
            90s   end
            """
        let (sc, s) = try Self.states(text)
        let (_, r) = try run(text)
        let t = sc.app(named: "T")!
        #expect(r.records.contains { $0.app == t && $0.time == .seconds(40) && $0.event == .terminated(.memoryPressure) })
        #expect(s[35]!.resident == 50 * Self.mib && s[35]!.packed == Int32(50 * Self.mib))
        #expect(s[40]!.resident == 0 && s[40]!.packed == Int32(200 * Self.mib))
        #expect(s[75]!.resident == 0 && s[75]!.flashWritten - s[55]!.flashWritten == Int(200 * Self.mib))
    }

    @Test("a system wake of a frozen app reserves its background footprint less what stays on flash")
    func systemWakeOfFrozen() throws {
        // T (400 MB in every state, 200 compressed) is frozen at 15 s. A location wake
        // at 20 s brings it into the background: it touches 20 % of its 400 MB (80 MiB)
        // and the other 320 MiB stay on flash, so it holds 400 - 320 = 80 MiB, not
        // 400. Suspended again at 50 s it keeps what it touched, 40 MiB compressed.
        let text = """
            device ram=2GB reserve=512MB dock=0 freeze-pct=100 freeze-suspended=0 freezer-idle-delay=0s compression-mb-per-s=0 reaper=false
            app S footprint=4MB background-footprint=4MB suspended-footprint=4MB
            app T footprint=400MB background-footprint=400MB suspended-footprint=400MB
            0s    launch S
            1s    launch T
            5s    home
            20s   wake T location
            60s   end
            """
        let (_, s) = try Self.states(text)
        #expect(s[15]!.resident == 0 && s[15]!.flashWritten == Int(200 * Self.mib))
        #expect(s[20]!.resident == 80 * Self.mib)
        #expect(s[50]!.resident == 40 * Self.mib && s[50]!.packed == Int32(40 * Self.mib))
    }
}
