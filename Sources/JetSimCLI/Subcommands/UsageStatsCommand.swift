import ArgumentParser
import Foundation
import JetSim

/// `jetsim usage-stats`: the usage statistics of a usage CSV or a lifecycle trace,
/// beside the published figures, to calibrate a workload's user.
struct UsageStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage-stats",
        abstract: "Usage statistics of a usage CSV, a .jtrace or a jetsim trace: app session lengths, foreground time, distinct apps, device sessions.",
        discussion: """
            FILE is a usage CSV (device,time_s,app,duration_s, as --usage takes it; each row is \
            one app session), a .jtrace (from jetsim import, told apart by its first bytes) or a lifecycle trace \
            from `jetsim trace` (time_ms,device,app,event,...); - reads stdin. --as says which of the CSVs; else a \
            --usage-* option says a usage CSV, and without either the header tells them apart (a header with both \
            kinds' columns is refused). The synthetic user's usage: \
            `jetsim trace --format usage --devices 200 --duration 7d | jetsim usage-stats -`.

            An app session is one continuous period an app is in front and active (screen on \
            and unlocked, nothing over it): didBecomeActive to willResignActive or its \
            termination (Böhmer et al., MobileHCI 2011: 71.6 s mean; LiveLab: half under 30 s, \
            90% under 4 min). A device session is a run of app sessions each starting at most \
            60 s after the previous one ended (Falaki et al., MobiSys 2010: 10-200 a day across \
            users). Foreground minutes a day: total app-session time over device-days (Böhmer: \
            59). Distinct apps a week: apps used in each complete week of a device's span, \
            averaged over device-weeks (Kim et al. 2019, iOS: 14-18; Device Analyzer: 8). A \
            device's span is --days, else the end of its last app session rounded up to whole \
            days. Percentiles are nearest-rank.
            """
    )

    @Argument(help: "A usage CSV, a .jtrace or a jetsim trace (- for stdin; a .jtrace must be a file).")
    var file: String

    @Option(name: .long, parsing: .unconditional, help: "Every device's span in days (default: its last app session's end, rounded up to whole days).")
    var days: Double?

    @Option(name: .long, help: "Write here (- for stdout).")
    var out: String?

    @Option(name: .long, help: "csv or table (default: table on a terminal, else csv).")
    var format: RunCommand.OutputFormat?

    @OptionGroup var usageFormat: UsageFormatOptions

    @Option(name: .customLong("as"), help: ArgumentHelp("Read FILE as a usage CSV (usage) or a lifecycle trace (trace), whatever its header (default: usage with a --usage-* option, else by the header).", valueName: "kind"))
    var kind: FileKindArgument?

    enum FileKindArgument: String, ExpressibleByArgument, CaseIterable { case usage, trace }

    func validate() throws {
        if kind == .trace, usageFormat.given {
            throw ValidationError("--as trace: the --usage-* options describe a usage CSV; give one or the other")
        }
        if let days, !(days > 0 && days <= 1e6) { throw ValidationError("--days: expected a number of days above 0 and at most 1e6, got \(days)") }
    }

    func run() throws {
        if let out, out != "-" { try AtomicOutput.check(out) }
        try OutputFile.checkNotInputs([("--out", out)], inputs: [("the usage file", file)])
        // An explicit choice wins: --as, else a --usage-* option (the file is a usage CSV).
        let chosen: UsageStats.FileKind? = kind.map { $0 == .trace ? .trace : .usage } ?? (usageFormat.given ? .usage : nil)
        let (stats, _) = try UsageStats.read(path: file, days: days, format: usageFormat.format(), kind: chosen,
                                             choose: "give --as usage or --as trace")
        if stats.devices == 0 { throw BadInput(description: "\(file): no devices") }
        let toTerminal = (out == nil || out == "-") && isatty(STDOUT_FILENO) == 1
        let fmt = format ?? (toTerminal ? .table : .csv)
        let output = try OutputFile.open(out ?? "-")
        output.write(fmt == .csv ? stats.csv : stats.table(source: file == "-" ? "stdin" : file))
        try output.commit()
        if stats.distinctAppsPerWeek == nil {
            printError("jetsim usage-stats: no device spans a complete week; distinct apps a week is not given")
        }
    }
}
