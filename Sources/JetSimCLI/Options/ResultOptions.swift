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

    @Option(name: .customLong("compare-set"), help: ArgumentHelp("A variant of the workload: KEY=VALUE as --set takes it (repeatable, at least two; the first is the reference). Every cell runs in each variant on the same devices and draws, and gets its paired difference from the same policy and RAM in the reference (cold ratio, mean and p99 relaunch latency, data loss per device-day, with 95% intervals): appended columns, and a second table with --format table.", valueName: "key=value"))
    var compareSets: [String] = []

    /// The keys a variant may not change: what makes the cells and the devices (they
    /// must be the same in every variant) and what runs outside the device.
    static let fixedKeys = ["seed", "name", "fleet", "run", "policies.external"]

    /// Sets the plan's variants (`--compare-set`: every cell once per variant) and
    /// baseline; a baseline that is not run at every RAM is bad input.
    func apply(to plan: inout RunPlan) throws {
        try applyVariants(to: &plan)
        guard let b = baseline?.policy else { return }
        guard RunPlan.covers(plan.cells, baseline: b) else {
            let run = Array(Set(plan.cells.map(\.policy.rawValue))).sorted().joined(separator: ",")
            throw BadInput(description: "--baseline \(b.rawValue): not among the policies run (\(run)); add it to --policy")
        }
        plan.baseline = b
    }

    func applyVariants(to plan: inout RunPlan) throws {
        guard !compareSets.isEmpty else { return }
        guard compareSets.count >= 2 else {
            throw BadInput(description: "--compare-set \(compareSets[0]): give at least two, one per variant (the first is the reference), e.g. --compare-set KEY=OLD --compare-set KEY=NEW")
        }
        var variants: [RunPlan.Variant] = []
        for text in compareSets {
            let o: Override
            do { o = try Override.parse(text) } catch { throw BadInput(description: "--compare-set \(text): \(error)") }
            if let k = Self.fixedKeys.first(where: { o.key == $0 || o.key.hasPrefix($0 + ".") }) {
                throw BadInput(description: "--compare-set \(text): \(k) cannot differ between variants (the variants share the cells and the devices); give it with --set, --seed, --devices, --duration, --policy or --ram")
            }
            if variants.contains(where: { $0.label == text }) { throw BadInput(description: "--compare-set \(text): given twice") }
            let w: Workload
            do { w = try WorkloadDecoder.applying([text], to: plan.workload) } catch {
                throw BadInput(description: "--compare-set: " + error.description)
            }
            let rams = Array(Set(plan.cells.map(\.ramKB))).sorted { ($0 ?? -1) < ($1 ?? -1) }
            for r in rams { if let why = w.cellProblem(ramKB: r) { throw BadInput(description: "--compare-set \(text): " + why) } }
            let parts = o.key.split(separator: ".")
            if parts.count == 3, parts[0] == "device_classes", parts[2] == "ram_mb", rams.allSatisfy({ $0 != nil }) {
                throw BadInput(description: "--compare-set \(text): has no effect here: every device class runs at the cells' RAM (--ram or run.ram_mb); set run.ram_mb=[] to use the classes' own ram_mb")
            }
            variants.append(RunPlan.Variant(label: text, workload: w))
        }
        plan.variants = variants
        let cells = plan.cells
        plan.cells = variants.indices.flatMap { v in cells.map { Cell(policy: $0.policy, ramKB: $0.ramKB, variant: v) } }
    }

    /// With variants and `--by`: every variant must have the same groups (a variant
    /// that adds a named app, an archetype or a class has rows the others lack).
    static func checkVariantGroups(_ plan: RunPlan) throws {
        guard let by = plan.groupBy, !plan.variants.isEmpty else { return }
        let names = by.groups(plan.variants[0].workload, usage: plan.usage != nil)
        for v in plan.variants where by.groups(v.workload, usage: plan.usage != nil) != names {
            throw BadInput(description: "--compare-set \(v.label): with --by \(by.rawValue), every variant must have the same groups (\(names.joined(separator: ", ")) in the first; \(by.groups(v.workload, usage: plan.usage != nil).joined(separator: ", ")) here)")
        }
    }
}

/// Options that add outputs of their own to `run`: breakdowns and time series.
struct RunResultOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Also split every cell by the devices' class (class), by the apps' archetype (archetype) or by named app (app: each of catalog.named_apps, and the drawn apps as 'rest'): one row per cell and group in --by-out (launches, cold ratio, kills by reason, data loss; with app also latency and loss per session and per device that installed or used it, each with its 95% interval).", valueName: "grouping"))
    var by: GroupByArgument?

    @Option(name: .long, help: ArgumentHelp("Where --by writes its rows (a CSV of its own; - for stdout).", valueName: "path"))
    var byOut: String?

    @Option(name: .long, help: ArgumentHelp("Write per cell and simulated hour, over devices: available memory (mean, min), resident, compressed and frozen MB at the end of the hour, launches, cold relaunches and kills by reason during it (a CSV of its own; - for stdout). With --shard: this shard's devices, and the sums go into the state for `jetsim merge --timeseries`. Not with --usage.", valueName: "path"))
    var timeseries: String?

    func validate() throws {
        if by != nil, byOut == nil { throw ValidationError("--by: needs --by-out PATH (the breakdown is a CSV of its own)") }
        if byOut != nil, by == nil { throw ValidationError("--by-out: give --by class, --by archetype or --by app too") }
    }

    func apply(to plan: inout RunPlan) {
        plan.groupBy = by?.grouping
        plan.timeSeries = timeseries != nil
    }
}
