import Testing
import SimKernel
@testable import JetSim

/// Save strategies that compose (issue 47): an app saves with its drawn strategy and
/// with each of `saveAlso`; a lost edit counts once, under the drawn strategy.
@Suite("Save strategies as a set")
struct SaveSetTests {
    // Edits accrue at 2 a minute while active (the scenario default). Killed from the
    // switcher at 70 s while in front: 70 s unsaved is 2 edits (2.33, whole edits lost).
    static let killedInFront = "0s launch X\n70s switcher\n70s switcher-remove X\n70s home\n3m end\n"
    // Home at 70 s, killed from the switcher in the background at 80 s.
    static let killedInBackground = "0s launch X\n70s home\n80s switcher\n80s switcher-remove X\n80s home\n3m end\n"

    @Test("on-enter-background alone loses what a kill in front finds; with periodic added, only what followed the last periodic save")
    func periodicAdded() throws {
        let (_, alone) = try run("app X save=on-enter-background\n" + Self.killedInFront)
        #expect(alone.metrics[.savesCompleted] == 0 && alone.metrics[.dataLossUnits] == 2)
        // Saves at 40 s (done at 41 s): 30 s unsaved at the kill, 1 edit.
        let (_, both) = try run("app X save=on-enter-background+periodic save-interval=40s save-time=1s\n" + Self.killedInFront)
        #expect(both.metrics[.savesCompleted] == 1 && both.metrics[.dataLossUnits] == 1)
        // Counted once, under the drawn strategy.
        #expect(both.metrics[.lossOnEnterBackground] == 1 && both.metrics[.lossPeriodic] == 0)
        #expect(both.metrics[.dataLossEvents] == 1)
    }

    @Test("periodic alone loses the work since its last save when killed in the background; with on-enter-background added, nothing")
    func backgroundAdded() throws {
        let (_, alone) = try run("app X save=periodic save-interval=40s save-time=1s\n" + Self.killedInBackground)
        #expect(alone.metrics[.savesCompleted] == 1 && alone.metrics[.dataLossUnits] == 1)
        #expect(alone.metrics[.lossPeriodic] == 1)
        let (_, both) = try run("app X save=periodic+on-enter-background save-interval=40s save-time=1s\n" + Self.killedInBackground)
        #expect(both.metrics[.savesCompleted] == 2 && both.metrics[.dataLossUnits] == 0)
    }

    @Test("a scenario's save list: the first is the app's own, never only first, unknown words refused")
    func scenarioSyntax() throws {
        let sc = try Scenario.parse("app X save=on-terminate+periodic+on-resign-active\n0s launch X\n1m end\n", source: "test")
        let p = sc.profiles[Int(sc.app(named: "X")!)]
        #expect(p.save == .onTerminate && p.saveAlso == [SaveSet(.periodic), SaveSet(.onResignActive)])
        #expect(p.saves(.periodic) && p.saves(.onTerminate) && !p.saves(.onEnterBackground))
        for bad in ["save=periodic+never", "save=periodic+", "save=sometimes"] {
            #expect(throws: InputError.self) { try Scenario.parse("app X \(bad)\n0s launch X\n1m end\n", source: "test") }
        }
    }

    @Test("save_also: every app of the archetype saves with it, every draw as without it; omitted from the printed workload when empty")
    func workloadKey() throws {
        let plain = Workload()
        #expect(!WorkloadPrinter.yaml(plain).contains("save_also"))
        let w = try WorkloadDecoder.load(WorkloadPrinter.yaml(plain), source: "printed",
                                         overrides: ["catalog.archetypes.productivity.save_also=[periodic, on-enter-background]"])
        let k = w.catalog.archetypes.firstIndex { $0.name == "productivity" }!
        #expect(w.catalog.archetypes[k].saveAlso == [SaveSet(.periodic), SaveSet(.onEnterBackground)])
        #expect(WorkloadPrinter.yaml(w).contains("save_also: [on-enter-background, periodic]"))
        #expect(try WorkloadDecoder.load(WorkloadPrinter.yaml(w), source: "printed") == w)
        let a = AppCatalog(plain), b = AppCatalog(w)
        #expect(a.profiles.count == b.profiles.count)
        var withSet = 0
        for i in a.profiles.indices {
            var q = b.profiles[i]
            if Int(a.archetype[i]) == k {
                #expect(q.saveAlso == [SaveSet(.periodic), SaveSet(.onEnterBackground)])
                withSet += 1
            } else {
                #expect(q.saveAlso.isEmpty)
            }
            q.saveAlso = []
            #expect(q == a.profiles[i])
        }
        #expect(withSet > 0)
        do {
            _ = try WorkloadDecoder.load(WorkloadPrinter.yaml(plain), source: "printed", overrides: ["catalog.archetypes.productivity.save_also=[never]"])
            Issue.record("never was accepted")
        } catch {
            #expect("\(error)".contains("save_also") && "\(error)".contains("'never'"), "\(error)")
        }
    }
}
