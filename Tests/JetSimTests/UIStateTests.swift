import Testing
import SimKernel
@testable import JetSim

/// `UIState` is the one source of truth for what covers the screen: the scenario
/// parser refuses what it refuses, the device performs only what it accepts, usage
/// statistics follow it. These tests throw random action sequences, most of them
/// nonsense, at all three and check that they agree.
@Suite("One UI state: parser, device and usage statistics agree")
struct UIStateTests {
    static let names = ["A", "B", "C"]
    static let kinds: [UserAction.Kind] = [
        .launch, .launch, .home, .home, .switcher, .switcher, .switcherPick, .switcherRemove,
        .lock, .unlock, .unlock, .powerHold, .powerCancel, .powerOff,
        .call, .sms, .alert, .ignore, .answer, .answer, .notify, .pressureWarning,
    ]

    /// The scenario line for `a`.
    static func line(_ a: UserAction) -> String {
        let t = "\(a.time.microseconds / 1_000)ms"
        switch a.kind {
        case .launch, .switcherPick, .switcherRemove: return "\(t) \(a.kind.keyword) \(names[Int(a.app)])"
        case .notify: return "\(t) notify \(names[Int(a.app)]) orientation"
        default: return "\(t) \(a.kind.keyword)"
        }
    }

    /// Random actions, in time order (some at the same time), most of which make no
    /// sense where they land.
    static func randomActions(seed: UInt64, count: Int) -> [UserAction] {
        var g = Xoshiro256StarStar(seed: seed, 0x5EED)
        var t = SimTime.zero
        var out: [UserAction] = []
        for i in 0..<count {
            if g.nextUnit() < 0.8 { t = t + SimTime(microseconds: Int64(1 + g.nextIndex(15_000)) * 1_000) }
            // Power-off ends everything: only in the last tenth, so sequences run long.
            var kind = kinds[g.nextIndex(kinds.count)]
            if kind == .powerOff && i < count * 9 / 10 { kind = .powerCancel }
            var a = UserAction(time: t, kind: kind)
            if kind.takesApp { a.app = Int32(g.nextIndex(names.count)) }
            out.append(a)
        }
        return out
    }

    /// The device's run of `actions`: its trace, the actions it refused, its final UI.
    static func device(_ sc: Scenario, actions: [UserAction]) -> (records: [TraceRecord], refused: Int, ui: UIState) {
        var s = sc
        s.actions = actions
        var sim = Simulation(model: scenarioDevice(s, JetsamBands.self, trace: TraceRecorder()))
        sim.run(until: s.endTime)
        return (sim.model.trace.records, sim.model.refusedActions, sim.model.ui)
    }

    @Test("the parser accepts exactly what the device accepts, in any order", arguments: 0..<25)
    func parserEqualsDevice(seed: UInt64) throws {
        // A small device and a growing app, so memory kills the app in front now and
        // then: acceptance must not depend on it.
        let header = "device ram=1GB\napp A footprint=300MB\napp B footprint=500MB peak=700MB\napp C exits-on-suspend\n"
        let actions = Self.randomActions(seed: seed, count: 120)
        var text = header
        var accepted: [UserAction] = []
        var parserUI = UIState()
        for a in actions {
            let candidate = text + Self.line(a) + "\n"
            if (try? Scenario.parse(candidate, source: "random")) != nil {
                text = candidate
                accepted.append(a)
                try parserUI.apply(a)
            }
        }
        let sc = try Scenario.parse(text + "\(actions.last!.time.microseconds / 1_000 + 600_000)ms end\n", source: "random")
        #expect(Array(sc.actions.dropLast()) == accepted)
        let refusedByParser = actions.count - accepted.count
        #expect(refusedByParser > 10, "the sequence should contain nonsense")
        #expect(accepted.count > 20, "seed \(seed): too few accepted actions")

        // The device, given every action, refuses the same ones: the same count, the
        // same final UI, and the same trace as when it is given only the accepted ones.
        let all = Self.device(sc, actions: actions + [sc.actions.last!])
        let only = Self.device(sc, actions: sc.actions)
        #expect(all.refused == refusedByParser, "seed \(seed)")
        #expect(only.refused == 0, "seed \(seed): the device refused an action the parser accepted")
        #expect(all.ui == parserUI && only.ui == parserUI, "seed \(seed)")
        #expect(all.records == only.records, "seed \(seed): a refused action changed the trace")

        // Usage statistics read the same sessions from both timelines.
        func sessions(_ list: [UserAction]) -> [String] {
            var out: [String] = []
            UsageStats.appSessions(of: Timeline(actions: list, appCount: 3), until: sc.endTime) { out.append("\($0) \($1) \($2)") }
            return out
        }
        #expect(sessions(actions) == sessions(sc.actions))
    }

    @Test("the app in front is active exactly when nothing covers it")
    func activeWhenUncovered() throws {
        // Every accepted sequence of the random walks: after each action, the app in
        // front (by the trace) is active iff the UI state covers nothing.
        for seed in UInt64(0)..<10 {
            var text = "app A\napp B\n"
            var ui = UIState()
            for a in Self.randomActions(seed: seed, count: 80) where a.kind != .powerOff {
                if (try? Scenario.parse(text + Self.line(a) + "\n", source: "r")) != nil {
                    text += Self.line(a) + "\n"
                    try ui.apply(a)
                }
            }
            let sc = try Scenario.parse(text, source: "r")
            let r = ScenarioRunner.run(sc)
            var state = [AppState](repeating: .notRunning, count: 2)
            for rec in r.records { state[Int(rec.app)] = rec.state }
            let active = state.filter { $0 == .active }.count
            #expect(active <= 1)
            if ui.covered { #expect(active == 0, "seed \(seed): an app is active under a cover") }
        }
    }

    @Test("each of the five combinations the seeds allow is accepted; the rest of the overlays still refuse")
    func combinations() throws {
        func accepts(_ lines: String) -> Bool { (try? Scenario.parse("app X\n" + lines, source: "c")) != nil }
        #expect(accepts("0s launch X\n1s switcher\n2s call\n3s answer\n"))
        #expect(accepts("0s launch X\n1s power-hold\n2s home\n3s launch X\n"))
        #expect(accepts("0s launch X\n1s call\n2s home\n3s ignore\n"))
        #expect(accepts("0s launch X\n1s lock\n2s call\n3s answer\n4s unlock\n5s launch X\n"))
        #expect(accepts("0s launch X\n1s switcher\n2s power-hold\n3s power-cancel\n4s switcher-pick X\n"))
        // Answering on the lock screen does not unlock: launching needs 'unlock'.
        #expect(!accepts("0s launch X\n1s lock\n2s call\n3s answer\n4s launch X\n"))
        // The switcher cannot be used under the power dialog or a pending call.
        #expect(!accepts("0s launch X\n1s switcher\n2s power-hold\n3s switcher-pick X\n"))
        #expect(!accepts("0s launch X\n1s switcher\n2s call\n3s switcher-pick X\n"))
        // A call does not come over the power dialog; Home does not work locked.
        #expect(!accepts("0s launch X\n1s power-hold\n2s call\n"))
        #expect(!accepts("0s launch X\n1s lock\n2s home\n"))
        // A call still pending after Home blocks a launch until it is answered or ignored.
        #expect(!accepts("0s launch X\n1s call\n2s home\n3s launch X\n"))
    }
}
