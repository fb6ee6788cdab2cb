import ArgumentParser
import Foundation
import JetSim

/// `jetsim import`: a published usage dataset to jetsim's usage CSV.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Convert a published app-usage dataset (LSApp, Android UsageStats) to a usage CSV for --usage.",
        discussion: """
            lsapp: tab-separated user_id, session_id, timestamp (YYYY-MM-DD hh:mm:ss), app_name, \
            event_type (Opened, Closed, User Interaction, Broken). android-usagestats: CSV with \
            package, event_type (MOVE_TO_FOREGROUND/MOVE_TO_BACKGROUND or ACTIVITY_RESUMED/ACTIVITY_PAUSED), \
            timestamp (ms), and optionally device. Odd rows are counted on stderr, never dropped silently.
            """
    )

    @Option(name: .long, help: "lsapp or android-usagestats.") var format: String
    @Argument(help: "The dataset file.") var input: String
    @Option(name: .long, help: "Write the usage CSV here (- for stdout).") var out: String = "-"

    func run() throws {
        guard let f = UsageImporter.Format(rawValue: format) else {
            throw BadInput(description: "--format: expected lsapp or android-usagestats, got '\(format)'")
        }
        try OutputFile.checkNotInputs([("--out", out)], inputs: [("the dataset", input)])
        let output = try OutputFile.open(out)
        let r: UsageImporter.Output
        do { r = try UsageImporter.convert(try readInput(input), format: f, source: input) } catch let e as InputError {
            throw BadInput(description: e.description)
        }
        for n in r.notes { printError("jetsim import: \(input): \(n)") }
        // A header alone is not a usage CSV (--usage refuses it): say why nothing is kept.
        if r.rows == 0 {
            throw BadInput(description: "\(input): no app session is kept" + (r.notes.isEmpty ? "" : " (the rows skipped are counted above)") + ": a usage CSV needs at least one, so \(out == "-" ? "nothing is" : out + " is not") written")
        }
        output.write(r.csv)
        try output.commit()
    }
}
