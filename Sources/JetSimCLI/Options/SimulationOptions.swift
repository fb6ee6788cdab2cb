import ArgumentParser
import Foundation
import JetSim
import SimKernel

/// Options shared by `run` and `trace`: what to simulate.
struct SimulationOptions: ParsableArguments {
    @Option(name: .long, help: "Workload YAML (default: the built-in default workload, Workloads/default.yaml).")
    var workload: String?

    @Option(name: .long, help: ArgumentHelp("Policies: NAME[,NAME...] or all (every policy but mru, fifo and smartlmk, which run when named; default: the workload's run.policies).", valueName: "names"),
            transform: PolicyList.parse)
    var policy: PolicyList?

    @Option(name: .long, help: ArgumentHelp("RAM sizes: SIZE[,SIZE...], e.g. 2GB,3GB or 1536MB (powers of 1024; default: the workload's run.ram_mb).", valueName: "sizes"),
            transform: SizeList.parse)
    var ram: SizeList?

    @Option(name: .long, parsing: .unconditional, help: "Devices in the fleet (default: the workload's fleet.devices).",
            transform: { try wholeNumber($0, "a whole number from 1 to 100000000 (fleet.devices's range)") })
    var devices: Int?

    @Option(name: .long, help: ArgumentHelp("Simulated time per device, e.g. 1d, 12h, from 0.001d to 36500d like fleet.duration_days (default: that key).", valueName: "dur"),
            transform: DurationArgument.parse)
    var duration: DurationArgument?

    @Option(name: .long, parsing: .unconditional, help: "Seed (default: the workload's seed).",
            transform: { try wholeNumber($0, "a whole number from 0 to \(UInt64.max) (the seed key's range)") })
    var seed: UInt64?

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a workload key, e.g. --set user.sessions_per_day=80 (repeatable).", valueName: "key=value"))
    var overrides: [String] = []

    @Option(name: .long, help: ArgumentHelp("Replay recorded usage (CSV with device,time_s,app,duration_s, grouped by device, or a .jtrace from jetsim import, told apart by its first bytes) instead of the synthetic user. Each device runs for its span unless --duration is given; --devices N replays the first N devices.", valueName: "file"))
    var usage: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("With --usage: replay a deterministic subset of the trace's devices, about FRACTION of them (0 < FRACTION <= 1), chosen by a hash of each device's id: the same devices for every policy, RAM size, seed and shard. Counts are of the sample; nothing is scaled.", valueName: "fraction"),
            transform: { text in
                guard let f = Double(text), DeviceSample(fraction: f) != nil else { throw ArgumentProblem("expected a fraction above 0 and at most 1, got '\(text)'") }
                return f
            })
    var sampleDevices: Double?

    @Option(name: .long, help: ArgumentHelp("With --usage: which archetype each replayed app is (CSV with app,archetype); a mapped app takes the profile of a catalog app of its archetype.", valueName: "file.csv"))
    var appMap: String?

    @OptionGroup var usageFormat: UsageFormatOptions

    func validate() throws {
        if appMap != nil, usage == nil { throw ValidationError("--app-map: only with --usage (it maps the replayed apps)") }
        if usageFormat.given, usage == nil { throw ValidationError("--usage-columns, --usage-time-unit, --usage-duration-unit: only with --usage (they describe its file)") }
        if sampleDevices != nil, usage == nil { throw ValidationError("--sample-devices: only with --usage (it samples the trace's devices)") }
    }

    /// The workload file name as shown in errors and the `workload` column.
    var workloadSource: String { workload ?? "default.yaml (built in)" }

    /// Reads the workload, applies overrides (the `--set` flags unless others are
    /// given) and flags.
    func loadWorkload(overrides: [String]? = nil) throws -> Workload {
        let text = try workload.map(readInput) ?? defaultWorkloadText
        var w: Workload
        do { w = try WorkloadDecoder.load(text, source: workloadSource, overrides: overrides ?? self.overrides) } catch {
            throw BadInput(description: error.description)
        }
        if let devices {
            let r = Schema.devicesRange
            guard r.contains(devices) else {
                throw BadInput(description: "--devices: expected a whole number from \(r.lowerBound) to \(r.upperBound) (fleet.devices's range), got \(devices)")
            }
            w.fleet.devices = devices
        }
        if let duration {
            // fleet.duration_days's range: the longest run every other bound assumes.
            let r = Schema.durationRangeDays, days = duration.time.seconds / 86_400
            guard r.contains(days) else {
                throw BadInput(description: "--duration: expected from \(WorkloadPrinter.num(r.lowerBound))d to \(WorkloadPrinter.num(r.upperBound))d (fleet.duration_days's range), got \(duration.time)")
            }
            w.fleet.duration = duration.time
        }
        if let seed { w.seed = seed }
        // The checks across keys (the action bound: rates over the duration; the devices
        // and the seed take no part) again, as a --set of the key would.
        if let duration {
            do { try WorkloadDecoder.recheck(w, flag: "--duration \(duration.time)") } catch {
                throw BadInput(description: error.description)
            }
        }
        return w
    }

    /// The files these options read, for the check that no output replaces one.
    var inputs: [(option: String, path: String?)] { [("--workload", workload), ("--usage", usage), ("--app-map", appMap)] }

    /// The cells: the policies crossed with the RAM sizes.
    func cells(for w: Workload) throws -> [Cell] {
        let policies: [PolicyID]
        if let policy { policies = policy.policies } else {
            do { policies = try PolicyList.parse(w.run.policies.joined(separator: ",")).policies } catch {
                throw BadInput(description: "run.policies: \(error)")
            }
        }
        let rams: [Int64?] = ram.map { $0.kilobytes.map { $0 } } ?? (w.run.ramKB.isEmpty ? [nil] : w.run.ramKB.map { $0 })
        // Each cell's RAM with each class, as the cell will simulate it (the file's own
        // checks read the classes' ram_mb).
        for r in rams {
            if let why = w.cellProblem(ramKB: r) { throw BadInput(description: (ram != nil ? "--ram: " : r != nil ? "run.ram_mb: " : "") + why) }
        }
        try checkSettingsTakeEffect(w, rams: rams)
        for p in policies { if let name = p.external, w.policies.external[name] == nil {
            let declared = w.policies.external.keys.sorted().map { "external:" + $0 }.joined(separator: ", ")
            throw BadInput(description: "\(p): no policies.external.\(name) in the workload; declare its command (e.g. --set 'policies.external.\(name).command=[python3, Workloads/policies/lru.py]')"
                           + (declared.isEmpty ? "" : "; declared: \(declared)"))
        } }
        return rams.flatMap { r in policies.map { Cell(policy: $0, ramKB: r) } }
    }

    /// Which setting wins, when two say the same thing: a flag beats the workload key
    /// it stands for (`--ram` beats `run.ram_mb`, `--policy` `run.policies`, `--devices`
    /// `fleet.devices`, `--duration` `fleet.duration_days`, `--seed` `seed`), and a
    /// cell's RAM (`--ram`, else `run.ram_mb`) beats a device class's `ram_mb`; a
    /// usage trace replaces the synthetic user (`user.*`). A `--set` of the losing
    /// setting would change nothing, so it is refused (bad input, before any work)
    /// rather than giving a silently unchanged result. A synthetic run that ends before
    /// the user's first waking hour has no sessions: a warning (even with --quiet).
    func checkSettingsTakeEffect(_ w: Workload, rams: [Int64?]) throws {
        let keys = overrides.map { String($0.prefix { $0 != "=" }).trimmingCharacters(in: .whitespaces) }
        func refuse(_ key: String, _ why: String) -> BadInput {
            BadInput(description: "--set \(key): has no effect here: \(why)")
        }
        for key in keys {
            let parts = key.split(separator: ".").map(String.init)
            if key == "run.ram_mb", ram != nil { throw refuse(key, "--ram gives the RAM sizes") }
            if key == "run.policies", policy != nil { throw refuse(key, "--policy gives the policies") }
            if key == "fleet.devices", devices != nil { throw refuse(key, "--devices gives the fleet size") }
            if key == "fleet.duration_days", duration != nil { throw refuse(key, "--duration gives the run length") }
            if key == "seed", seed != nil { throw refuse(key, "--seed gives the seed") }
            if parts.first == "user", usage != nil { throw refuse(key, "--usage replays recorded usage instead of the synthetic user") }
            if parts.count == 3, parts[0] == "device_classes", parts[2] == "ram_mb", !rams.isEmpty, rams.allSatisfy({ $0 != nil }) {
                throw refuse(key, ram != nil
                    ? "--ram runs every device class at the given sizes"
                    : "run.ram_mb lists RAM sizes and every device class runs at each; set run.ram_mb=[] to use the classes' own ram_mb")
            }
        }
        // A class's own ram_mb that run.ram_mb overrides (it lists sizes, and this one
        // is not among them): the file says one thing and the run does another.
        if ram == nil, !w.run.ramKB.isEmpty {
            let sizes = w.run.ramKB.map { SizeText.mebibytes($0) }.joined(separator: ", ")
            for c in w.deviceClasses where !w.run.ramKB.contains(c.ramKB) {
                printError("jetsim: warning: device class \(c.name)'s ram_mb (\(SizeText.mebibytes(c.ramKB))) is not used: run.ram_mb runs every class at \(sizes) MB; set run.ram_mb: [] to use the classes' own ram_mb")
            }
        }
        if usage == nil, w.user.sessionsPerDay > 0, w.fleet.duration.seconds <= w.user.wakeHour * 3_600 {
            printError("jetsim: warning: the run lasts \(w.fleet.duration), which ends before the user's first waking hour (user.wake_hour \(WorkloadPrinter.num(w.user.wakeHour))): no sessions, no app is launched; give a --duration longer than \(WorkloadPrinter.num(w.user.wakeHour))h")
        }
    }

    /// Checks what `--by` needs of the plan: `app` a named app; with variants, the
    /// same groups in each.
    static func checkGroups(_ plan: RunPlan) throws {
        if plan.groupBy == .app, plan.workload.catalog.namedApps.isEmpty {
            throw BadInput(description: "--by app: the workload declares no app by name (catalog.named_apps; Workloads/examples/my-app.yaml declares one)")
        }
        try ResultOptions.checkVariantGroups(plan)
    }

    /// Says (even with --quiet: nothing is changed silently) each named app whose
    /// declared footprint is over a cell's app fit: drawn apps are scaled down to it,
    /// a named app runs as declared. Once per process and message (a sweep's points).
    func warnNamedFit(_ plan: RunPlan) {
        let workloads = plan.variants.isEmpty ? [plan.workload] : plan.variants.map(\.workload)
        for w in workloads where !w.catalog.namedApps.isEmpty {
            let catalog = AppCatalog(w)
            for ram in Set(plan.cells.map(\.ramKB)).sorted(by: { ($0 ?? -1) < ($1 ?? -1) }) {
                for c in w.deviceClasses {
                    let p = c.parameters(ramKB: ram)
                    for x in catalog.namedOverFit(p) {
                        let mb = { (kb: Int64) in SizeText.mebibytes(kb) }
                        var line = "named app \(x.name): its footprint (\(mb(x.topKB)) MB at its peak) exceeds the app fit of device class \(c.name) at \(mb(p.ramKB)) MB (\(mb(x.fitKB)) MB, app_fit_pct \(WorkloadPrinter.num(p.appFitPct))% of the per-app limit); it runs as declared (drawn apps are scaled down to the fit)"
                        if x.overLimit, c.os == .ios { line += ", and over the per-app limit (\(mb(p.perAppLimitKB)) MB): every launch of it is killed for the limit" }
                        if !Self.warned.contains(line) {
                            Self.warned.insert(line)
                            printError("jetsim: warning: " + line)
                        }
                    }
                }
            }
        }
    }

    /// Reads `--app-map` against the workload's archetypes and catalog (nil without one),
    /// once per process for the same archetypes and catalog: a sweep's points share
    /// it (300,000 names took 0.4 s a parse, once per point and again to check each).
    func loadAppMap(_ w: Workload, catalog: AppCatalog) throws -> AppMap? {
        guard let path = appMap else { return nil }
        guard usage != nil else { throw BadInput(description: "--app-map: only with --usage (it maps the replayed apps)") }
        let names = w.catalog.archetypes.map(\.name)
        if let c = Self.appMaps.first(where: { $0.path == path && $0.names == names && $0.archetypes == catalog.archetype }) { return c.map }
        let text = try readInput(path)
        do {
            let map = try AppMap.parse(bytes: Array(text.utf8), source: path, workload: w, catalog: catalog)
            // The last two (a sweep of the catalog's keys changes the catalog each point).
            Self.appMaps = Array(Self.appMaps.suffix(1)) + [(path, names, catalog.archetype, map)]
            return map
        } catch {
            throw BadInput(description: error.description)
        }
    }
    nonisolated(unsafe) static var appMaps: [(path: String, names: [String], archetypes: [Int32], map: AppMap)] = []

    /// What a shard state records of the trace: FNV-1a of its bytes, and with an app
    /// map or a column mapping, of the map's bytes and the mapping too (so shards that
    /// read the trace differently do not merge). Nil without --usage; states with
    /// neither keep the trace's hash alone.
    func usageStateHash() throws -> UInt64? {
        guard let u = usage else { return nil }
        // A piped trace was hashed as it was copied (`InputFiles`).
        let h = try InputFiles.usageHash(u)
        if appMap == nil, !usageFormat.given, sample == nil { return h }
        var text = FNV1a.hex(h)
        if let m = appMap { text += "\napp-map " + FNV1a.hex(FNV1a.hash(try readInput(m))) }
        if usageFormat.given { text += "\nformat " + usageFormat.description }
        if let sample { text += "\nsample-devices " + String(sample.fraction) }
        return FNV1a.hash(text)
    }

    /// Says once per process (a sweep runs the trace at every point) how many replayed
    /// app names got a profile by hash alone; even with --quiet, as no row is dropped
    /// or guessed silently.
    static func warnUnmatched(_ apps: ReplayAppCensus, trace: String, catalogApps: Int) {
        guard let line = apps.warning(trace: trace, catalogApps: catalogApps), !warned.contains(line) else { return }
        warned.insert(line)
        printError("jetsim: warning: " + line)
    }
    nonisolated(unsafe) static var warned: Set<String> = []

    /// The replay's record in provenance: the app map, and how the names were matched.
    func recordReplay(_ apps: ReplayAppCensus?, in p: inout Provenance) {
        guard let path = usage, let apps else { return }
        if usageFormat.given { p.set("usage_format", .string(usageFormat.description)) }
        if let t = InputFiles.traces[path] {
            p.set("usage_file", .object([("format", .string("jtrace")), ("version", .int(Int(UsageTrace.version))),
                                         ("header_fnv1a64", .string(FNV1a.hex(t.headerHash)))]))
        }
        if let sample {
            p.set("sample_devices", .object([("fraction", .double(sample.fraction)), ("rule", .string(DeviceSample.rule)),
                                             ("devices_kept", .int(apps.devices)), ("devices_read", .int(apps.devicesRead))]))
        }
        p.set("app_map", .optional(appMap))
        p.set("usage_apps", .object([
            ("names", .int(apps.names)), ("in_catalog", .int(apps.catalog)), ("mapped", .int(apps.mapped)),
            ("by_hash", .int(apps.hashed)), ("rows", .int(apps.rows)), ("rows_by_hash", .int(apps.hashedRows)),
            ("by_hash_examples", .strings(apps.hashedExamples)), ("rule", .string(AppMap.rule)),
        ]))
    }

    /// With --usage: the simulated time per device if --duration is given (nil: each
    /// device's span).
    var usageUntil: SimTime? { usage != nil ? duration?.time : nil }

    /// Opens the usage trace for streaming and reads its header (a trace that is not a
    /// regular file, such as a pipe, is read once: `InputFiles`).
    func openUsage(_ path: String) throws -> UsageStream {
        let format = try usageFormat.format()
        if let trace = try InputFiles.usageTrace(path) {
            if usageFormat.given {
                throw BadInput(description: "--usage-columns, --usage-time-unit, --usage-duration-unit: \(path) is a .jtrace, whose columns and units were read when it was written (jetsim import); they describe a CSV")
            }
            var stream = UsageStream(trace: trace)
            stream.sample = sample
            return stream
        }
        let reader = try InputFiles.usageReader(path)
        do {
            var stream = try UsageStream(reader: reader, source: path, format: format)
            stream.sample = sample
            return stream
        } catch { throw BadInput(description: error.description) }
    }

    /// `--sample-devices`, checked by the option's transform.
    var sample: DeviceSample? { sampleDevices.flatMap(DeviceSample.init(fraction:)) }

    /// With --usage and --devices N: that the trace has N devices, checked before any
    /// work by reading its first N devices (not after the whole replay).
    func checkUsageDevices() throws {
        guard let path = usage, let devices else { return }
        var stream = try openUsage(path)
        do {
            while stream.devicesRead < devices, try stream.nextBatch(rows: 1 << 16, maxDevices: devices - stream.devicesRead) != nil {}
        } catch let e as InputError { throw BadInput(description: e.description) }
        if stream.devicesRead < devices {
            throw BadInput(description: "--devices \(devices): \(path) has only \(stream.devicesRead) device(s)")
        }
    }

    /// Runs `plan`: the synthetic fleet, or the usage trace streamed from `stream`
    /// (opened by `openUsage` before any output, so a bad trace fails first). With a
    /// trace and no --duration, the summary's duration (and per-device-day figures) is
    /// the devices' mean span. `run` and `sweep` share this one path, so a sweep point
    /// is exactly the run with its --set values. Returns the fleet size a replay had,
    /// and how its app names were matched to profiles.
    func runFleet(_ plan: RunPlan, workload: inout Workload, stream: consuming UsageStream?, catalog: AppCatalog,
                  progress: RunProgress? = nil, perDeviceSink: PerDeviceSink? = nil) throws -> (result: FleetResult, replayedDevices: Int?, apps: ReplayAppCensus?) {
        guard let path = usage, var stream = stream.take() else {
            let result = FleetRunner.run(plan, catalog: catalog, progress: progress, perDeviceSink: perDeviceSink)
            if let f = result.failure { throw RunFailure(description: f) }
            return (result, nil, nil)
        }
        var plan = plan
        plan.usageUntil = usageUntil
        plan.appMap = try loadAppMap(workload, catalog: catalog)
        let o: UsageRunner.Outcome
        do { o = try UsageRunner.run(plan, stream: &stream, catalog: catalog, deviceLimit: devices, progress: progress, perDeviceSink: perDeviceSink) }
        catch let e as InputError { throw BadInput(description: e.description) }
        if let f = o.result.failure { throw RunFailure(description: f) }
        if let devices, o.devices < devices {
            throw BadInput(description: "--devices \(devices): \(path) has only \(o.devices) device(s)")
        }
        if o.rowsPastEnd > 0 {
            // Said even with --quiet: no row is dropped silently.
            printError("jetsim: warning: \(o.rowsPastEnd) row(s) of \(path) start at or after --duration \(workload.fleet.duration) and were not replayed")
        }
        Self.warnUnmatched(o.apps, trace: path, catalogApps: catalog.drawn)
        if duration == nil { workload.fleet.duration = o.meanSpan }
        return (o.result, o.devices, o.apps)
    }
}
