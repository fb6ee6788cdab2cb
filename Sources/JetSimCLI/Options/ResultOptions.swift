import ArgumentParser
import JetSim

/// `--baseline POLICY`: one policy (registered, or `external:NAME`).
struct BaselinePolicy: ParsedArgument {
    var policy: PolicyID

    static func parse(_ text: String) throws -> BaselinePolicy {
        guard let p = PolicyID(parsing: text) else {
            throw ArgumentProblem("'\(text)' is not a policy; expected one of \(PolicyRegistry.nameList) (see jetsim policies)")
        }
        return BaselinePolicy(policy: p)
    }
}

/// `--by class`.
struct GroupByArgument: ParsedArgument {
    var grouping: GroupBy

    static func parse(_ text: String) throws -> GroupByArgument {
        guard let g = GroupBy(rawValue: text) else {
            throw ArgumentProblem("'\(text)' is not a grouping; expected \(GroupBy.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return GroupByArgument(grouping: g)
    }
}

/// Options that add results to a run's summary (run and sweep).
struct ResultOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Also give every cell's difference from POLICY at the same RAM (cold ratio, mean and p99 relaunch latency, data loss per device-day), with 95% intervals over devices, paired except p99's: appended columns, and a second table with --format table. POLICY must be one of the policies run.", valueName: "policy"),
            transform: BaselinePolicy.parse)
    var baseline: BaselinePolicy?

    /// Sets the plan's baseline; a baseline that is not run at every RAM is bad input.
    func apply(to plan: inout RunPlan) throws {
        guard let b = baseline?.policy else { return }
        guard RunPlan.covers(plan.cells, baseline: b) else {
            let run = Array(Set(plan.cells.map(\.policy.rawValue))).sorted().joined(separator: ",")
            throw BadInput(description: "--baseline \(b.rawValue): not among the policies run (\(run)); add it to --policy")
        }
        plan.baseline = b
    }
}

/// Options that add outputs of their own to `run`: breakdowns and time series.
struct RunResultOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Also split every cell by the devices' class (class) or by the apps' archetype (archetype): one row per cell and group in --by-out (launches, cold ratio, kills by reason, data loss).", valueName: "grouping"))
    var by: GroupByArgument?

    @Option(name: .long, help: ArgumentHelp("Where --by writes its rows (a CSV of its own; - for stdout).", valueName: "path"))
    var byOut: String?

    @Option(name: .long, help: ArgumentHelp("Write per cell and simulated hour, over devices: available memory (mean, min), resident, compressed and frozen MB at the end of the hour, launches, cold relaunches and kills by reason during it (a CSV of its own; - for stdout). With --shard: this shard's devices, and the sums go into the state for `jetsim merge --timeseries`. Not with --usage.", valueName: "path"))
    var timeseries: String?

    func validate() throws {
        if by != nil, byOut == nil { throw ValidationError("--by: needs --by-out PATH (the breakdown is a CSV of its own)") }
        if byOut != nil, by == nil { throw ValidationError("--by-out: give --by class or --by archetype too") }
    }

    func apply(to plan: inout RunPlan) {
        plan.groupBy = by?.grouping
        plan.timeSeries = timeseries != nil
    }
}
