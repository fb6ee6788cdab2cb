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
        let sc = try Scenario.parse(try XNUTests.file("45-thaw-on-demand.scenario"), source: "test")
        var sim = Simulation(model: scenarioDevice(sc, LRU.self, trace: NoTrace()))
        sim.model.checksInvariants = true
        sim.run(until: .seconds(20))
        #expect(!sim.model.appsHeld)
        var copy = sim  // shares the records' buffer
        let before = Array(copy.model.apps)
        sim.run(until: sc.endTime)
        #expect(!sim.model.appsHeld)
        #expect(Array(sim.model.apps) != before)  // the original moved on
        #expect(Array(copy.model.apps) == before)  // the copy did not
        copy.run(until: sc.endTime)
        #expect(Array(copy.model.apps) == Array(sim.model.apps))
        #expect(copy.eventsHandled == sim.eventsHandled)
    }
}
