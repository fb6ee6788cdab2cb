import ArgumentParser
import JetSim

/// How a usage CSV names its columns and writes its times, for `--usage` (run, sweep,
/// trace) and `usage-stats`: docs/cli.md, "Replay".
struct UsageFormatOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The usage CSV's column names, when not device,time_s,app,duration_s: KEY=NAME[,KEY=NAME...], keys device, time, app, duration (e.g. device=user_id,time=timestamp).", valueName: "key=name,..."))
    var usageColumns: String?

    @Option(name: .long, help: ArgumentHelp("The usage CSV's time column: s (default), ms, us, or iso (ISO 8601 date and time; each device's times then count from its first use).", valueName: "unit"))
    var usageTimeUnit: UsageFormat.TimeUnit?

    @Option(name: .long, help: ArgumentHelp("The usage CSV's duration column: s, ms or us (default: the time column's unit; s with iso).", valueName: "unit"))
    var usageDurationUnit: UsageFormat.TimeUnit?

    /// Whether any of these options is given.
    var given: Bool { usageColumns != nil || usageTimeUnit != nil || usageDurationUnit != nil }

    /// The format these options describe (bad input naming the option otherwise).
    func format() throws -> UsageFormat {
        var f = UsageFormat()
        if let usageColumns {
            do { try f.setColumns(usageColumns) } catch { throw BadInput(description: error.description) }
        }
        f.timeUnit = usageTimeUnit ?? .s
        if usageDurationUnit == .iso {
            throw BadInput(description: "--usage-duration-unit: iso is for times; a duration is s, ms or us")
        }
        f.durationUnit = usageDurationUnit ?? (f.timeUnit == .iso ? .s : f.timeUnit)
        return f
    }

    /// The options as given, for the shard state and provenance ("" when none).
    var description: String {
        guard given else { return "" }
        let f = (try? format()) ?? UsageFormat()
        return "columns=\(f.columns.joined(separator: ",")) time=\(f.timeUnit.rawValue) duration=\(f.durationUnit.rawValue)"
    }
}

extension UsageFormat.TimeUnit: ExpressibleByArgument {}
