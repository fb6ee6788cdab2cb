import ArgumentParser
import Foundation
import JetSim

/// `jetsim scenario FILE`: one device through a scripted scenario; the trace as CSV.
struct ScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scenario",
        abstract: "Run one device through a scripted scenario and write its lifecycle trace as CSV.",
        discussion: """
            Trace columns: time_ms,device,app,event,detail,state. `event` is a delegate \
            message, `suspended`, `terminated` (detail: the reason) or `deliver` (detail: \
            KIND/N, N raw events coalesced into one); `state` is the app's state after it. \
            The file format and every key are in Workloads/scenarios/README.md.
            """
    )

    @Argument(help: "The scenario file.")
    var file: String

    @Option(name: .long, help: "Write the trace here instead of stdout.")
    var out: String = "-"

    @Flag(name: .long, help: "Also write a row for each completed save (save), each save cut off (save-abandoned) and each loss of unsaved edits (lost-edits, the edits in the detail).")
    var saves = false

    func run() throws {
        try OutputFile.checkNotInputs([("--out", out)], inputs: [("the scenario", file)])
        let output = try OutputFile.open(out)
        let text = try readInput(file)
        let scenario: Scenario
        do { scenario = try Scenario.parse(text, source: file) } catch { throw BadInput(description: error.description) }
        let result = ScenarioRunner.run(scenario, recordsSaves: saves)
        output.write(ScenarioRunner.csv(scenario, result.records))
        try output.commit()
    }
}
