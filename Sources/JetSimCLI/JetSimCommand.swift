import ArgumentParser
import SimKernel

/// The version of jetsim (provenance's `jetsim_version`).
let jetsimVersion = "0.1.0"

/// What `jetsim --version` prints: the version and the commit it was built from
/// (`buildCommit`, written at build time by Plugins/BuildCommit).
let versionLine: String = {
    if buildCommit == "unknown" { return "\(jetsimVersion) (commit unknown: built outside a git checkout)" }
    if buildCommit.hasSuffix("-dirty") { return "\(jetsimVersion) (commit \(buildCommit.dropLast(6)), dirty: built with uncommitted changes)" }
    return "\(jetsimVersion) (commit \(buildCommit))"
}()

struct JetSimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jetsim",
        abstract: "A discrete-event simulator of mobile apps under memory pressure.",
        discussion: """
            jetsim simulates apps moving through the iOS lifecycle on fleets of devices \
            and compares eviction (jetsam) policies on relaunch latency and data loss.
            """,
        version: versionLine,
        subcommands: [RunCommand.self, SweepCommand.self, SensitivityCommand.self, ScenarioCommand.self, TraceCommand.self, MergeCommand.self, PoliciesCommand.self, ValidateCommand.self, HoldCommand.self, ImportCommand.self, UsageStatsCommand.self]
    )
}
