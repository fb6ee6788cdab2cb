import Testing
import SimKernel
@testable import JetSim

/// Random but valid action sequences on small devices with varied apps, checked
/// against the rules the seeds state.
@Suite("Lifecycle properties over random action sequences")
struct LifecyclePropertyTests {
    /// A random scenario: 5 apps of assorted kinds, 300 actions that `UIState` accepts.
    static func randomScenario(seed: UInt64) -> Scenario {
        var g = Xoshiro256StarStar(seed: seed, 77)
        var sc = Scenario(source: "random-\(seed)")
        sc.params = DeviceParameters(ramKB: Int64(1 + g.nextIndex(3)) * 1_048_576)
        sc.policy = PolicyID.all[g.nextIndex(PolicyID.all.count)]
        for i in 0..<5 {
            var p = AppProfile()
            p.activeKB = Int64(100 + g.nextIndex(500)) * 1_024
            p.backgroundKB = p.activeKB / 2
            p.suspendedKB = p.activeKB / 4
            p.save = SaveStrategy.allCases[g.nextIndex(SaveStrategy.allCases.count)]
            p.saveDuration = .milliseconds(Int64(50 + g.nextIndex(3_000)))
            p.saveInterval = .seconds(Int64(5 + g.nextIndex(60)))
            if g.nextUnit() < 0.4 { p.bgTaskProbability = 1; p.bgTaskMedian = .seconds(Int64(1 + g.nextIndex(60))) }
            if g.nextUnit() < 0.2 { p.mode = [.audio, .location, .voip][g.nextIndex(3)]; p.modeActivityMedian = .seconds(Int64(5 + g.nextIndex(120))) }
            if g.nextUnit() < 0.1 { p.exitsOnSuspend = true }
            if g.nextUnit() < 0.1 { p.enterBackgroundHandler = .seconds(6) }
            p.preservesUIState = g.nextUnit() < 0.5
            p.endsTaskOnExpiry = g.nextUnit() < 0.5
            sc.appNames.append("A\(i)")
            sc.profiles.append(p)
        }
        var ui = UIState()
        var t = SimTime.zero
        let kinds: [UserAction.Kind] = [.launch, .launch, .launch, .home, .home, .switcher, .switcherPick,
                                        .switcherRemove, .lock, .unlock, .unlock, .powerHold, .powerCancel,
                                        .call, .sms, .alert, .ignore, .answer, .notify, .notify,
                                        .pressureWarning, .pressureCritical, .systemWake, .systemWake]
        while sc.actions.count < 300 {
            t = t + SimTime(microseconds: Int64(g.nextIndex(20_000_000)))
            let kind = kinds[g.nextIndex(kinds.count)]
            var action = UserAction(time: t, kind: kind)
            if kind.takesApp { action.app = Int32(g.nextIndex(5)) }
            if kind == .notify {
                if g.nextUnit() < 0.2 { action.app = UserAction.allApps }
                action.eventKind = UInt8(g.nextIndex(SystemEventKind.count))
                action.value = Int32(g.nextIndex(3))
            }
            if kind == .pressureCritical { action.value = Int32(g.nextIndex(800)) }
            if kind == .systemWake { action.eventKind = UInt8(g.nextIndex(SystemWakeKind.allCases.count)) }
            do { try ui.apply(action); sc.actions.append(action) } catch {}
        }
        sc.endTime = t + .minutes(10)
        return sc
    }

    /// The states a message may be sent in (before it), and the state after. A
    /// prewarmed process (iOS 15: created and stopped before main, traced as
    /// suspended) has had no message: its first is didFinishLaunching, from the user's
    /// launch, or a system launch; otherwise it is as a suspended app.
    static func legal(_ e: TraceEvent, from s: AppState, prewarmed: Bool = false) -> Bool {
        if prewarmed {
            switch e {
            case .message(.didFinishLaunching), .systemLaunch, .terminated: return true
            default: return false
            }
        }
        switch e {
        case .message(.didFinishLaunching): return s == .notRunning
        case .message(.didBecomeActive): return s == .inactive
        case .message(.willResignActive): return s == .active
        case .message(.didEnterBackground): return s == .inactive
        case .message(.willEnterForeground): return s == .background || s == .suspended
        case .message(.willTerminate), .message(.didReceiveMemoryWarning): return s.executesCode
        case .message(.expirationHandler): return s == .background
        case .suspended: return s == .background
        case .frozen: return s == .suspended
        case .terminated: return s.isResident
        case .deliver: return s.executesCode
        case .systemLaunch: return s == .notRunning
        case .systemWake: return s.isResident
        // The save rows (`--saves` only): a save completes while the app runs code; an
        // abandoned save and lost edits come as it stops running or ends.
        case .saved: return s.executesCode
        case .saveAbandoned, .lostEdits: return s.isResident
        }
    }

    @Test("every message is legal where it is sent; suspended apps receive nothing", arguments: 0..<60)
    func messagesLegal(seed: UInt64) {
        let sc = Self.randomScenario(seed: seed)
        let result = ScenarioRunner.run(sc)  // memory invariant checked after every event
        var state = [AppState](repeating: .notRunning, count: sc.appNames.count)
        var resuming = [Bool](repeating: false, count: sc.appNames.count)
        var deliveredKinds = [Set<SystemEventKind>](repeating: [], count: sc.appNames.count)
        // A system wake of a suspended app delivers its held events, coalesced, as a resume does.
        // (at the wake's time: later deliveries to the running app are immediate).
        var waking = [Bool](repeating: false, count: sc.appNames.count)
        var wokeAt = [SimTime](repeating: .zero, count: sc.appNames.count)
        var prewarmed = [Bool](repeating: false, count: sc.appNames.count)
        var lastTime = SimTime.zero
        for r in result.records {
            let a = Int(r.app)
            #expect(r.time >= lastTime, "trace out of time order")
            lastTime = r.time
            #expect(Self.legal(r.event, from: state[a], prewarmed: prewarmed[a]), "seed \(seed): \(r.event.name) to \(sc.appNames[a]) in state \(state[a].name) at \(r.time)")
            if case .systemLaunch(.prewarm) = r.event { prewarmed[a] = true } else { prewarmed[a] = false }
            if case .message(.willTerminate) = r.event { #expect(state[a] != .suspended) }
            if case .deliver = r.event, r.time == wokeAt[a] {} else { waking[a] = false }
            switch r.event {
            case .systemWake where state[a] == .suspended:
                waking[a] = true
                wokeAt[a] = r.time
                deliveredKinds[a] = []
            case .message(.willEnterForeground):
                resuming[a] = true
                deliveredKinds[a] = []
            case .message(.didBecomeActive), .terminated:
                resuming[a] = false
            case .deliver(let kind, let n):
                if resuming[a] || waking[a] {
                    // Coalesced: once per kind between willEnterForeground and didBecomeActive.
                    #expect(!deliveredKinds[a].contains(kind), "seed \(seed): \(kind.name) delivered twice in one resume")
                    deliveredKinds[a].insert(kind)
                    #expect(n >= 1)
                } else {
                    #expect(n == 1, "an event for a running app is delivered at once, alone")
                }
            default: break
            }
            state[a] = r.state
        }
    }

    @Test("held events add up: received = coalesced into deliveries + dropped + still held", arguments: 0..<30)
    func coalescingAccounts(seed: UInt64) {
        let sc = Self.randomScenario(seed: seed)
        let result = ScenarioRunner.run(sc)
        var raw = 0, deliveries = 0, immediate = 0
        var resuming = Set<Int32>(), waking = Set<Int32>()
        var wokeAt = [SimTime](repeating: .zero, count: sc.appNames.count)
        var state = [AppState](repeating: .notRunning, count: sc.appNames.count)
        for r in result.records {
            if case .deliver = r.event, r.time == wokeAt[Int(r.app)] {} else { waking.remove(r.app) }
            defer { state[Int(r.app)] = r.state }
            switch r.event {
            case .systemWake where state[Int(r.app)] == .suspended:
                waking.insert(r.app)
                wokeAt[Int(r.app)] = r.time
            case .message(.willEnterForeground): resuming.insert(r.app)
            case .message(.didBecomeActive), .terminated: resuming.remove(r.app)
            case .deliver(_, let n):
                if resuming.contains(r.app) || waking.contains(r.app) { raw += n; deliveries += 1 } else { immediate += 1 }
            default: break
            }
        }
        let m = result.metrics
        #expect(m[.coalescedReceived] == raw + m[.coalescedDropped] + result.heldAtEnd)
        #expect(m[.coalescedDelivered] == deliveries)
        #expect(m[.immediateDeliveries] == immediate)
    }
}
