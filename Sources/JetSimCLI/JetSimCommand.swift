import ArgumentParser
import SimKernel

/// The version printed by `jetsim --version`.
let jetsimVersion = "0.1.0"

struct JetSimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jetsim",
        abstract: "A discrete-event simulator of mobile apps under memory pressure.",
        discussion: """
            jetsim simulates apps moving through the iOS lifecycle on fleets of devices \
            and compares eviction (jetsam) policies on relaunch latency and data loss.
            """,
        version: jetsimVersion,
        subcommands: [RunCommand.self, SweepCommand.self, SensitivityCommand.self, ScenarioCommand.self, TraceCommand.self, MergeCommand.self, PoliciesCommand.self, ValidateCommand.self, HoldCommand.self, ImportCommand.self, UsageStatsCommand.self]
    )
}
