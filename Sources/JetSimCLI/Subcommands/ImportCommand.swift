import ArgumentParser
import Foundation
import JetSim

/// `jetsim import`: a published usage dataset, or a usage trace, to jetsim's usage CSV
/// or to a `.jtrace` (docs/jtrace.md), by the suffix of `--out`.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Convert a published app-usage dataset (LSApp, Android UsageStats) or a usage trace to a usage CSV or a .jtrace for --usage.",
        discussion: """
            lsapp: tab-separated user_id, session_id, timestamp (YYYY-MM-DD hh:mm:ss), app_name, \
            event_type (Opened, Closed, User Interaction, Broken). android-usagestats: CSV with \
            package, event_type (MOVE_TO_FOREGROUND/MOVE_TO_BACKGROUND or ACTIVITY_RESUMED/ACTIVITY_PAUSED), \
            timestamp (ms), and optionally device. Odd rows are counted on stderr, never dropped silently. \
            usage: a usage CSV as --usage reads it (with --usage-columns and the unit options) or a .jtrace. \
            An --out ending in .jtrace gets the binary trace (read through a memory map: docs/jtrace.md); \
            any other gets a usage CSV.
            """
    )

    @Option(name: .long, help: "lsapp, android-usagestats or usage.") var format: String
    @Argument(help: "The dataset or trace file.") var input: String
    @Option(name: .long, help: "Write here (- for stdout): a .jtrace if the name ends in .jtrace, else a usage CSV.") var out: String = "-"
    @OptionGroup var usageFormat: UsageFormatOptions

    enum Format: String, CaseIterable { case lsapp, androidUsagestats = "android-usagestats", usage }

    func validate() throws {
        if usageFormat.given, format != Format.usage.rawValue {
            throw ValidationError("--usage-columns, --usage-time-unit, --usage-duration-unit: only with --format usage (they describe a usage CSV)")
        }
    }

    /// Whether `--out` asks for a `.jtrace`.
    var writesTrace: Bool { out.hasSuffix(".jtrace") }

    func run() throws {
        guard let f = Format(rawValue: format) else {
            throw BadInput(description: "--format: expected lsapp, android-usagestats or usage, got '\(format)'")
        }
        try OutputFile.checkNotInputs([("--out", out)], inputs: [("the dataset", input)])
        if writesTrace, AtomicOutput.target(out) != .regular {
            throw BadInput(description: "--out \(out): a .jtrace is written to a regular file (its header, with the counts and checksum, is written last)")
        }
        if writesTrace { try AtomicOutput.check(out) }
        var stream: UsageStream
        if f == .usage {
            stream = try openTrace()
        } else {
            let r: UsageImporter.Output
            do { r = try UsageImporter.convert(try readInput(input), format: UsageImporter.Format(rawValue: f.rawValue)!, source: input) } catch let e as InputError {
                throw BadInput(description: e.description)
            }
            for n in r.notes { printError("jetsim import: \(input): \(n)") }
            // A header alone is not a usage trace (--usage refuses it): say why nothing is kept.
            if r.rows == 0 {
                throw BadInput(description: "\(input): no app session is kept" + (r.notes.isEmpty ? "" : " (the rows skipped are counted above)") + ": a usage trace needs at least one, so \(out == "-" ? "nothing is" : out + " is not") written")
            }
            if !writesTrace {
                let output = try OutputFile.open(out)
                output.write(r.csv)
                return try output.commit()
            }
            do { stream = try UsageStream(reader: DelimitedReader(bytes: Array(r.csv.utf8)), source: input) } catch {
                throw BadInput(description: error.description)
            }
        }
        stream.keepsNameBytes = writesTrace
        let output = try OutputFile.open(out)
        do {
            if writesTrace {
                var writer = UsageTraceWriter(fd: output.fd)
                while let batch = try stream.nextBatch(rows: 1 << 18) { try writer.add(batch); batch.releasePages() }
                let e = try writer.finish(source: input)
                if e != 0 { throw RunFailure(description: "cannot write \(out): \(AtomicOutput.errnoText(e))") }
            } else {
                output.write("device,time_s,app,duration_s\n")
                while let batch = try stream.nextBatch(rows: 1 << 18) { output.write(Self.csv(batch)); batch.releasePages() }
            }
        } catch let e as InputError { throw BadInput(description: e.description) }
        try output.commit()
    }

    /// The usage trace to convert: a `.jtrace` (by its magic) or a CSV read with the
    /// format options.
    func openTrace() throws -> UsageStream {
        if let trace = try InputFiles.usageTrace(input) {
            if usageFormat.given {
                throw BadInput(description: "--usage-columns, --usage-time-unit, --usage-duration-unit: \(input) is a .jtrace; they describe a CSV")
            }
            return UsageStream(trace: trace)
        }
        let format = try usageFormat.format()
        let reader = try InputFiles.usageReader(input)
        do { return try UsageStream(reader: reader, source: input, format: format) } catch { throw BadInput(description: error.description) }
    }

    /// A batch's rows as usage CSV lines: each device's rows in time order (as the
    /// replay has them), times in seconds exact to the microsecond.
    static func csv(_ batch: UsageReplay) -> String {
        var text = ""
        for d in batch.firstDevice..<batch.endDevice {
            let id = CSV.escape(batch.name(ofDevice: d))
            let names = batch.appNames(ofDevice: d).map(CSV.escape)
            batch.forEachRow(ofDevice: d) { time, app, duration in
                text += "\(id),\(UsageStats.seconds(time)),\(names[Int(app)]),\(UsageStats.seconds(duration))\n"
            }
        }
        return text
    }
}
