import Testing
import SimKernel
@testable import JetSim

/// A run holds the device's app records (`Device.beginRun`): made unique once when the
/// run starts, then written without a uniqueness check per event. A copy of the
/// simulation taken between runs shares the records; the next run must copy them
/// before its first write (debug builds assert it at every write), and the copy must
/// run on to the same end.
@Suite("Device: the records a run holds")
struct RunHoldTests {
    @Test("a copy taken between runs keeps its records while the original runs on, and then runs to the same state")
    func copyBetweenRuns() throws {
        let (sim, copy) = try Self.copyBetweenRuns(LRU.self, held: { $0.core.appsHeld }, state: { Array($0.apps) })
        #expect(copy.eventsHandled == sim.eventsHandled)
    }

    /// Scenario 45 with policy `P`, run to 20 s and copied (the copy shares what a run
    /// holds); the original runs to the end, the copy keeps `state` as it was, then
    /// runs to the same end and the same `state`. Neither holds anything between runs.
    static func copyBetweenRuns<P: EvictionPolicy, S: Equatable>(
        _ policy: P.Type, held: (Device<P, NoTrace>) -> Bool, state: (Device<P, NoTrace>) -> S
    ) throws -> (original: Simulation<Device<P, NoTrace>>, copy: Simulation<Device<P, NoTrace>>) {
        let sc = try Scenario.parse(try XNUTests.file("45-thaw-on-demand.scenario"), source: "test")
        var sim = Simulation(model: scenarioDevice(sc, P.self, trace: NoTrace()))
        sim.model.checksInvariants = true
        sim.run(until: .seconds(20))
        #expect(!held(sim.model))
        var copy = sim  // shares what the run held
        let before = state(copy.model)
        sim.run(until: sc.endTime)
        #expect(!held(sim.model))
        #expect(state(sim.model) != before)  // the original moved on
        #expect(state(copy.model) == before)  // the copy did not
        copy.run(until: sc.endTime)
        #expect(state(copy.model) == state(sim.model))
        return (sim, copy)
    }
}
