#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// The exact state of one shard of a run, written next to its CSV as `OUT.state`,
/// so that `jetsim merge` can combine shards into the CSV one unsharded run would
/// have written, byte for byte.
///
/// Format (text, one item per line; `#` starts a comment line):
///
///     jetsim-state: 1 | 2
///     inputs: <16 hex digits>      FNV-1a 64 of the resolved workload, cells and usage
///     shard: I/N
///     fleet_devices: D
///     shard_devices: K T           only with --sample-devices: the sample's devices in
///                                  this shard, and in all shards
///     usage: none | <path> <16 hex digits: FNV-1a 64 of its bytes (with --app-map, of
///            that hash's hex and the map's hash: SimulationOptions.usageStateHash)>
///     external: <NAME> <16 hex digits>           one per external policy of the cells:
///                                                FNV-1a 64 of its command's files (`ExternalPolicySpec.filesHash`)
///     overrides: K
///     set: <key=value>                           K times
///     baseline: <policy>                         only with --baseline
///     compare: <key=value>                       only with --compare-set: one per variant, in order
///     by: class | archetype                      only with --by
///     timeseries: <hours>                        only with --timeseries
///     counter_names: <names>                     version 2 only
///     cells: C
///     cell: <policy> <ram MiB | class> [<variant>]   C times (the variant's index
///                                                only with --compare-set), each followed by:
///     counters: <integers, in counter_names order>
///     latency: <count> <sum us> <min us> <max us>
///     buckets: <index>:<count> ...               non-empty histogram buckets
///     kind: <kind> <count> <sum> <min> <max> <index>:<count> ...
///                                                the same per relaunch kind, six lines in
///                                                `RelaunchKind` order (absent in states
///                                                written before them)
///     paired: <44 integers>                      only with --baseline: `PairedSums.values`
///     variant_paired: <44 integers>              only with --compare-set: `PairedSums.values`
///                                                against the reference variant's cell
///     group: <integers, as counters>             only with --by: one per group, in group order
///     group_paired: <44 integers>                after each group line with --by and --baseline:
///                                                the group's `PairedSums.values` (absent in
///                                                states written before breakdowns had deltas)
///     group_variant_paired: <44 integers>        after each group line with --by and --compare-set
///     group_app: <6 integers>                    after each group line with --by app: `AppSums.values`
///     group_latency: <count> <sum> <min> <max> <index>:<count> ...
///                                                then the group's relaunch latencies (--by app)
///     series: <hours x fields integers>          only with --timeseries: `HourlySeries`, hour by hour
///     workload:                                  then the resolved workload YAML,
///       <yaml, indented two spaces>              every line indented by two spaces
///     checksum: <16 hex digits>                  FNV-1a 64 of every byte before this line
///
/// The checksum protects the results: a changed number (or any other byte) is
/// refused by `merge`, as is a file without it. Lines may end in CRLF.
///
/// Version 1 has no `counter_names` line: its counters are the 36 of `v1CounterNames`
/// (devices, events, the first 30 `Counter`s, the 4 sums of squares). A jetsim whose
/// counters are exactly those writes version 1; once counters were added it writes
/// version 2, which names them (every state today is version 2).
/// Either version is read by name: a counter the file lacks (written before it
/// existed) reads as 0; a name this jetsim does not know is an error. The `kind:`
/// lines are optional in either version; `merge` refuses to mix states with and
/// without them (the per-kind columns would count only some shards).
public struct ShardState: Sendable {
    public var workload: Workload
    public var cells: [Cell]
    public var accumulators: [CellAccumulator]
    public var shardIndex: Int   // 1-based
    public var shardCount: Int
    public var fleetDevices: Int
    /// With `--sample-devices`: the devices this shard replayed, and the sample's in all
    /// shards (merge checks that the shards' add up; nil: every device runs).
    public var sampleDevices: (shard: Int, total: Int)? = nil
    public var usage: String     // "none" or "<path> <hash>"
    /// Each external policy of the cells: "NAME <hash of its command's files>", by name.
    public var external: [String] = []
    /// The --set overrides, in order (for the summary's `overrides` column).
    public var overrides: [String]
    public var inputs: String
    public var workloadYAML: String
    /// The `--baseline` policy (each cell then has its `PairedSums`).
    public var baseline: PolicyID? = nil
    /// The `--by` grouping and its accumulators (`FleetResult.groups`).
    public var groupBy: GroupBy? = nil
    public var groups: [CellAccumulator]? = nil
    /// Whether the state has per-kind latency histograms (`kind:` lines): false for
    /// a state written before them.
    public var hasKindLatency = true
    /// `--timeseries`: the hourly sums (`FleetResult.series`).
    public var series: HourlySeries? = nil
    /// `--compare-set`: each variant's text (its workload: `workload` with it applied).
    public var compare: [String] = []

    /// The counter names of a version 1 state.
    public static let v1CounterNames: [String] = {
        let all = CellAccumulator.counterNames, n = Counter.allCases.count, v1Counters = 30
        return Array(all.prefix(2 + v1Counters)) + Array(all.suffix(all.count - 2 - n))
    }()

    /// The version this jetsim writes: 1 while its counters are those of version 1.
    public static var version: Int { CellAccumulator.counterNames == v1CounterNames ? 1 : 2 }
    static let newestVersion = 2

    /// `fleetDevices`: the run's whole fleet, when the plan does not know it (a streamed
    /// replay learns it only at the end of the trace); else the plan's.
    public init(workload: Workload, overrides: [String], usage: String?,
                plan: RunPlan, result: FleetResult, usageHash: UInt64? = nil, fleetDevices: Int? = nil,
                externalHashes: [String: UInt64] = [:]) {
        self.workload = workload
        cells = result.cells
        accumulators = result.accumulators
        shardIndex = plan.shardIndex + 1
        shardCount = plan.shardCount
        self.fleetDevices = fleetDevices ?? plan.fleetSize
        self.usage = usage.map { "\($0) \(FNV1a.hex(usageHash ?? FNV1a.hash($0)))" } ?? "none"
        self.overrides = overrides
        workloadYAML = WorkloadPrinter.yaml(workload)
        baseline = result.baseline
        groupBy = result.groupBy
        groups = result.groups
        series = result.series
        compare = result.variants.map(\.label)
        external = externalHashes.keys.sorted().map { "\($0) \(FNV1a.hex(externalHashes[$0]!))" }
        inputs = Self.inputsHash(yaml: workloadYAML, cells: cells, usage: self.usage, fleetDevices: self.fleetDevices, overrides: overrides,
                                 baseline: baseline, groupBy: groupBy, hours: series?.hours, external: external, compare: compare)
    }

    /// What differs between two states' inputs, in the terms of the run that wrote
    /// them (`a` first, then `b`): each part of the inputs hash that differs, and for
    /// the workload its first differing line.
    static func difference(_ a: ShardState, _ b: ShardState) -> String {
        func cellText(_ s: ShardState) -> String {
            s.cells.map { "\($0.policy.rawValue)@\($0.ramKB.map { SizeText.mebibytes(Int64($0)) + "MB" } ?? "class")" }.joined(separator: ",")
        }
        var parts: [String] = []
        if a.workloadYAML != b.workloadYAML {
            let la = lines(a.workloadYAML), lb = lines(b.workloadYAML)
            let i = (0..<min(la.count, lb.count)).first { la[$0] != lb[$0] } ?? min(la.count, lb.count)
            let show = { (l: [String]) in i < l.count ? "'\(l[i].trimmingCharacters())'" : "(the end)" }
            parts.append("the resolved workload (line \(i + 1): \(show(la)) here, \(show(lb)) there)")
        }
        if a.overrides != b.overrides { parts.append("the --set values ([\(a.overrides.joined(separator: " "))] here, [\(b.overrides.joined(separator: " "))] there)") }
        if a.fleetDevices != b.fleetDevices { parts.append("the fleet's devices (\(a.fleetDevices) here, \(b.fleetDevices) there)") }
        if a.cells != b.cells { parts.append("the cells, policies x RAM (\(cellText(a)) here, \(cellText(b)) there)") }
        if a.usage != b.usage { parts.append("the usage file or its --app-map (\(a.usage) here, \(b.usage) there)") }
        if a.external != b.external {
            parts.append("the external policies' files ([\(a.external.joined(separator: ", "))] here, [\(b.external.joined(separator: ", "))] there: a policy's script changed between the shards)")
        }
        if a.baseline != b.baseline { parts.append("--baseline (\(a.baseline?.rawValue ?? "none") here, \(b.baseline?.rawValue ?? "none") there)") }
        if a.compare != b.compare { parts.append("--compare-set ([\(a.compare.joined(separator: " "))] here, [\(b.compare.joined(separator: " "))] there)") }
        if a.groupBy != b.groupBy { parts.append("--by (\(a.groupBy?.rawValue ?? "none") here, \(b.groupBy?.rawValue ?? "none") there)") }
        if a.series?.hours != b.series?.hours {
            parts.append("--timeseries (\(a.series.map { "\($0.hours) h" } ?? "none") here, \(b.series.map { "\($0.hours) h" } ?? "none") there)")
        }
        return parts.isEmpty ? "a different workload, seed, option or usage file" : "they differ in " + parts.joined(separator: "; ")
    }

    /// Identifies what a run computes (not which shard it is).
    static func inputsHash(yaml: String, cells: [Cell], usage: String, fleetDevices: Int, overrides: [String], baseline: PolicyID? = nil,
                           groupBy: GroupBy? = nil, hours: Int? = nil, external: [String] = [], compare: [String] = []) -> String {
        let cellText = cells.map { "\($0.policy.rawValue)@\($0.ramKB.map(String.init) ?? "class")" + ($0.variant > 0 ? "#\($0.variant)" : "") }.joined(separator: ",")
        // A baseline adds to the text only when given, so states without one keep their hash.
        return FNV1a.hex(FNV1a.hash(yaml + "\n" + cellText + "\n" + usage + "\n" + String(fleetDevices) + "\n" + overrides.joined(separator: "\u{1F}")
                         + (baseline.map { "\nbaseline=" + $0.rawValue } ?? "") + (groupBy.map { "\nby=" + $0.rawValue } ?? "")
                         + (hours.map { "\ntimeseries=" + String($0) } ?? "") + external.map { "\nexternal=" + $0 }.joined()
                         + compare.map { "\ncompare=" + $0 }.joined()))
    }

    /// The state file's text.
    public var text: String {
        var o = "# jetsim shard state: exact accumulators of one shard (see docs/cli.md, \"Shards and merge\")\n"
        o += "jetsim-state: \(Self.version)\n"
        o += "inputs: \(inputs)\n"
        o += "shard: \(shardIndex)/\(shardCount)\n"
        o += "fleet_devices: \(fleetDevices)\n"
        if let s = sampleDevices { o += "shard_devices: \(s.shard) \(s.total)\n" }
        o += "usage: \(usage)\n"
        for x in external { o += "external: \(x)\n" }
        o += "overrides: \(overrides.count)\n"
        for x in overrides { o += "set: \(x)\n" }
        if let baseline { o += "baseline: \(baseline.rawValue)\n" }
        for c in compare { o += "compare: \(c)\n" }
        if let groupBy { o += "by: \(groupBy.rawValue)\n" }
        if let series { o += "timeseries: \(series.hours)\n" }
        if Self.version >= 2 { o += "counter_names: " + CellAccumulator.counterNames.joined(separator: " ") + "\n" }
        o += "cells: \(cells.count)\n"
        let perCell = groupBy == nil ? 0 : (groups?.count ?? 0) / max(1, cells.count)
        for (ci, (cell, a)) in zip(cells, accumulators).enumerated() {
            o += "cell: \(cell.policy.rawValue) \(cell.ramKB.map { SizeText.mebibytes($0) } ?? "class")" + (compare.isEmpty ? "" : " \(cell.variant)") + "\n"
            o += "counters: " + a.counters.map(String.init).joined(separator: " ") + "\n"
            let latency = a.latency  // the kinds merged: once
            o += "latency: \(latency.count) \(latency.sum) \(latency.min) \(latency.max)\n"
            o += "buckets:" + latency.nonEmptyBuckets.map { " \($0.index):\($0.count)" }.joined() + "\n"
            if hasKindLatency {
                for k in RelaunchKind.allCases {
                    let h = a.kindLatency[k]
                    o += "kind: \(k.name) \(h.count) \(h.sum) \(h.min) \(h.max)" + h.nonEmptyBuckets.map { " \($0.index):\($0.count)" }.joined() + "\n"
                }
            }
            if baseline != nil { o += "paired: " + (a.paired ?? PairedSums()).values.map { String($0) }.joined(separator: " ") + "\n" }
            if !compare.isEmpty { o += "variant_paired: " + (a.variantPaired ?? PairedSums()).values.map { String($0) }.joined(separator: " ") + "\n" }
            for g in 0..<perCell {
                let group = groups![ci * perCell + g]
                o += "group: " + group.counters.map(String.init).joined(separator: " ") + "\n"
                if baseline != nil, let p = group.paired { o += "group_paired: " + p.values.map { String($0) }.joined(separator: " ") + "\n" }
                if !compare.isEmpty, let p = group.variantPaired { o += "group_variant_paired: " + p.values.map { String($0) }.joined(separator: " ") + "\n" }
                if groupBy == .app {
                    o += "group_app: " + (group.app ?? AppSums()).values.map { String($0) }.joined(separator: " ") + "\n"
                    let h = group.latencyWithoutKind
                    o += "group_latency: \(h.count) \(h.sum) \(h.min) \(h.max)" + h.nonEmptyBuckets.map { " \($0.index):\($0.count)" }.joined() + "\n"
                }
            }
            if let series {
                let n = series.hours * HourlySeries.fields.count
                o += "series: " + series.values[(ci * n)..<((ci + 1) * n)].map(String.init).joined(separator: " ") + "\n"
            }
        }
        o += "workload:\n"
        for line in workloadYAML.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            o += "  " + line + "\n"
        }
        return o + "checksum: \(FNV1a.hex(FNV1a.hash(o)))\n"
    }

    /// `text` with its checksum line (if any) replaced by the checksum of the rest:
    /// for tools and tests that edit a state on purpose.
    public static func resealed(_ text: String) -> String {
        var lines = Self.lines(text)
        while let l = lines.last, l.isEmpty || l.hasPrefix("checksum:") { lines.removeLast() }
        let body = lines.map { $0 + "\n" }.joined()
        return body + "checksum: \(FNV1a.hex(FNV1a.hash(body)))\n"
    }

    /// Lines split at LF or CRLF.
    static func lines(_ text: String) -> [String] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init)
    }

    /// Reads a state file; every problem names the file and line.
    public static func parse(_ text: String, source: String) throws(InputError) -> ShardState {
        var lines = Self.lines(text)
        // The last line that is not empty is the checksum of everything before it
        // (with LF line ends, whatever the file uses).
        while let l = lines.last, l.isEmpty { lines.removeLast() }
        guard let last = lines.last, last.hasPrefix("checksum:") else {
            // Which: a state before checksums ended with its workload, indented; one cut
            // short ends before `workload:`; anything else is not a state file.
            let head = lines.first { !$0.isEmpty && !$0.hasPrefix("#") } ?? ""
            let why = !head.hasPrefix("jetsim-state:") ? "this is not a jetsim state file (it does not start with 'jetsim-state:' and has no 'checksum:' line at the end)"
                : lines.contains("workload:") && (lines.last ?? "").hasPrefix("  ")
                ? "this state file was written by an older jetsim, before state files carried a checksum (no 'checksum:' line at the end); re-run the shard with this jetsim"
                : "this state file is cut short: it ends before its 'workload:' and 'checksum:' lines; re-run the shard"
            throw InputError(source: source, line: lines.count, why)
        }
        lines.removeLast()
        let body = lines.map { $0 + "\n" }.joined()
        let given = String(last.dropFirst("checksum:".count)).trimmingCharacters()
        guard given == FNV1a.hex(FNV1a.hash(body)) else {
            throw InputError(source: source, line: lines.count + 1, "the checksum does not match the content: the file was edited or damaged (run the shard again)")
        }
        var i = 0
        func fail(_ m: String) -> InputError { InputError(source: source, line: i + 1, m) }
        func next(_ key: String) throws(InputError) -> String {
            while i < lines.count && (lines[i].hasPrefix("#") || lines[i].isEmpty) { i += 1 }
            guard i < lines.count else { throw InputError(source: source, line: i, "ends early: expected '\(key):'") }
            guard lines[i].hasPrefix(key + ":") else { throw fail("expected '\(key):', got '\(lines[i].prefix(40))'") }
            let v = String(lines[i].dropFirst(key.count + 1)).trimmingCharacters()
            i += 1
            return v
        }
        /// Whether the next line (past comments) starts with `key:`.
        func peek(_ key: String) -> Bool {
            var j = i
            while j < lines.count && (lines[j].hasPrefix("#") || lines[j].isEmpty) { j += 1 }
            return j < lines.count && lines[j].hasPrefix(key + ":")
        }
        func int(_ s: String, _ what: String) throws(InputError) -> Int {
            guard let x = Int(s) else { i -= 1; throw fail("\(what): expected a whole number, got '\(s)'") }
            return x
        }
        func pairedLine(_ key: String) throws(InputError) -> PairedSums {
            let v = try next(key).split(separator: " ").map { Int128(String($0)) }
            guard v.count == PairedSums.valueCount, !v.contains(nil) else { i -= 1; throw fail("\(key): expected \(PairedSums.valueCount) whole numbers") }
            var p = PairedSums()
            p.values = v.map { $0! }
            return p
        }
        func histogramLine(_ key: String) throws(InputError) -> LatencyHistogram {
            let f = try next(key).split(separator: " ")
            guard f.count >= 4, let n = UInt64(f[0]), let sum = UInt64(f[1]), let lo = UInt64(f[2]), let hi = UInt64(f[3]) else {
                i -= 1; throw fail("\(key): expected '<count> <sum> <min> <max> <index>:<count> ...'")
            }
            var pairs: [(index: Int, count: UInt64)] = []
            for b in f.dropFirst(4) {
                let kv = b.split(separator: ":")
                guard kv.count == 2, let x = Int(kv[0]), let v = UInt64(kv[1]) else { i -= 1; throw fail("\(key): bad bucket '\(b)'") }
                pairs.append((x, v))
            }
            guard let h = LatencyHistogram(buckets: pairs, sum: sum, min: lo, max: hi), h.count == n else {
                i -= 1; throw fail("\(key): the buckets do not add up to the count, or an index is out of range")
            }
            return h
        }
        guard let version = Int(try next("jetsim-state")), (1...newestVersion).contains(version) else {
            i -= 1; throw fail("unsupported state version (this jetsim reads versions 1 to \(newestVersion))")
        }
        let inputs = try next("inputs")
        let shard = try next("shard").split(separator: "/")
        guard shard.count == 2, let si = Int(shard[0]), let sn = Int(shard[1]), si >= 1, si <= sn else { i -= 1; throw fail("shard: expected I/N") }
        let fleet = try int(try next("fleet_devices"), "fleet_devices")
        guard Schema.devicesRange.contains(fleet) else { i -= 1; throw fail("fleet_devices: expected \(Schema.devicesRange.lowerBound) to \(Schema.devicesRange.upperBound), got \(fleet)") }
        var sampled: (shard: Int, total: Int)? = nil
        if peek("shard_devices") {
            let parts = try next("shard_devices").split(separator: " ")
            guard parts.count == 2, let k = Int(parts[0]), let t = Int(parts[1]), k >= 0, k <= t, t <= fleet else {
                i -= 1; throw fail("shard_devices: expected 'K T', this shard's sampled devices and all shards', at most fleet_devices")
            }
            sampled = (k, t)
        }
        let usage = try next("usage")
        var external: [String] = []
        while peek("external") {
            let x = try next("external")
            let parts = x.split(separator: " ")
            guard parts.count == 2, PolicyID(parsing: "external:" + parts[0]) != nil, parts[1].count == 16, UInt64(parts[1], radix: 16) != nil else {
                i -= 1; throw fail("external: expected '<NAME> <16 hex digits>'")
            }
            external.append(x)
        }
        let overrideCount = try int(try next("overrides"), "overrides")
        guard (0...lines.count).contains(overrideCount) else { i -= 1; throw fail("overrides: expected a count of the 'set:' lines that follow, got \(overrideCount)") }
        var overrides: [String] = []
        for _ in 0..<overrideCount { overrides.append(try next("set")) }
        var baseline: PolicyID? = nil
        if peek("baseline") {
            let name = try next("baseline")
            guard let b = PolicyID(parsing: name) else { i -= 1; throw fail("baseline: '\(name)' is not a policy") }
            baseline = b
        }
        var compare: [String] = []
        while peek("compare") { compare.append(try next("compare")) }
        var groupBy: GroupBy? = nil
        if peek("by") {
            let name = try next("by")
            guard let g = GroupBy(rawValue: name) else { i -= 1; throw fail("by: '\(name)' is not a grouping (expected \(GroupBy.allCases.map(\.rawValue).joined(separator: ", ")))") }
            groupBy = g
        }
        var hours: Int? = nil
        if peek("timeseries") {
            let h = try int(try next("timeseries"), "timeseries")
            guard (1...Int(Schema.durationRangeDays.upperBound) * 24).contains(h) else { i -= 1; throw fail("timeseries: expected a number of hours, got \(h)") }
            hours = h
        }
        var seriesValues: [Int] = []
        var groups: [CellAccumulator] = []
        var groupsPerCell: Int? = nil
        // Where each of the file's counters goes in `CellAccumulator.counters`.
        let names = version == 1 ? v1CounterNames : try next("counter_names").split(separator: " ").map(String.init)
        var slots: [Int] = []
        for name in names {
            guard let k = CellAccumulator.counterNames.firstIndex(of: name) else {
                if version >= 2 { i -= 1 }
                throw fail("counter_names: unknown counter '\(name)' (written by a newer jetsim?)")
            }
            guard !slots.contains(k) else { i -= 1; throw fail("counter_names: '\(name)' is given twice") }
            slots.append(k)
        }
        let count = try int(try next("cells"), "cells")
        guard (0...lines.count).contains(count) else { i -= 1; throw fail("cells: expected a count of the 'cell:' blocks that follow, got \(count)") }
        var cells: [Cell] = []
        var accs: [CellAccumulator] = []
        var hasKind = true
        for _ in 0..<count {
            let parts = try next("cell").split(separator: " ").map(String.init)
            guard parts.count == (compare.isEmpty ? 2 : 3), let policy = PolicyID(parsing: parts[0]) else {
                i -= 1; throw fail("cell: expected '<policy> <ram MiB | class>'" + (compare.isEmpty ? "" : " <variant>"))
            }
            var variant = 0
            if !compare.isEmpty {
                guard let v = Int(parts[2]), (0..<compare.count).contains(v) else { i -= 1; throw fail("cell: variant '\(parts[2])' is not one of the \(compare.count) compare lines") }
                variant = v
            }
            var ram: Int64? = nil
            if parts[1] != "class" {
                guard let mb = Double(parts[1]), Schema.ramRangeMB.contains(mb) else { i -= 1; throw fail("cell: bad RAM '\(parts[1])'") }
                ram = Int64((mb * 1_024).rounded())
            }
            cells.append(Cell(policy: policy, ramKB: ram, variant: variant))
            var a = CellAccumulator()
            let counters = try next("counters").split(separator: " ").map(String.init)
            guard counters.count == slots.count else {
                i -= 1; throw fail("counters: expected \(slots.count) numbers, got \(counters.count)")
            }
            var values = [Int](repeating: 0, count: CellAccumulator.counterNames.count)
            for (k, c) in zip(slots, counters) { values[k] = try int(c, "counters") }
            a.counters = values
            let lat = try next("latency").split(separator: " ").compactMap { UInt64($0) }
            guard lat.count == 4 else { i -= 1; throw fail("latency: expected count sum min max") }
            var pairs: [(index: Int, count: UInt64)] = []
            for b in try next("buckets").split(separator: " ") {
                let kv = b.split(separator: ":")
                guard kv.count == 2, let k = Int(kv[0]), let v = UInt64(kv[1]) else { i -= 1; throw fail("buckets: bad entry '\(b)'") }
                pairs.append((k, v))
            }
            guard let h = LatencyHistogram(buckets: pairs, sum: lat[1], min: lat[2], max: lat[3]), h.count == lat[0] else {
                i -= 1; throw fail("buckets: inconsistent with 'latency' (counts do not add up or an index is out of range)")
            }
            // Per relaunch kind: all six lines, or none (a state written before them).
            if !accs.isEmpty && hasKind != peek("kind") { throw fail("kind: every cell must have the per-kind latency lines, or none") }
            hasKind = peek("kind")
            if hasKind {
                for k in RelaunchKind.allCases {
                    let f = try next("kind").split(separator: " ")
                    guard f.count >= 5, f[0] == k.name, let n = UInt64(f[1]), let sum = UInt64(f[2]), let lo = UInt64(f[3]), let hi = UInt64(f[4]) else {
                        i -= 1; throw fail("kind: expected '\(k.name) <count> <sum> <min> <max> <index>:<count> ...'")
                    }
                    var pairs: [(index: Int, count: UInt64)] = []
                    for b in f.dropFirst(5) {
                        let kv = b.split(separator: ":")
                        guard kv.count == 2, let x = Int(kv[0]), let v = UInt64(kv[1]) else { i -= 1; throw fail("kind: bad bucket '\(b)'") }
                        pairs.append((x, v))
                    }
                    guard let kh = LatencyHistogram(buckets: pairs, sum: sum, min: lo, max: hi), kh.count == n else {
                        i -= 1; throw fail("kind: \(k.name)'s buckets do not add up to its count, or an index is out of range")
                    }
                    a.kindLatency[k] = kh
                }
                // The total is kept from the kinds (a device records each relaunch
                // under its kind only); the state's total line must be them merged,
                // as every jetsim that wrote kind lines wrote it.
                guard a.kindLatency.total == h else {
                    i -= 1; throw fail("kind: the six kinds' latencies merged are not the 'latency' and 'buckets' lines")
                }
            } else {
                // A state written before the per-kind lines: its total, of no kind.
                a.latencyWithoutKind = h
            }
            if baseline != nil {
                let v = try next("paired").split(separator: " ").map { Int128(String($0)) }
                guard v.count == PairedSums.valueCount, !v.contains(nil) else {
                    i -= 1; throw fail("paired: expected \(PairedSums.valueCount) whole numbers")
                }
                var p = PairedSums()
                p.values = v.map { $0! }
                a.paired = p
            }
            if !compare.isEmpty { a.variantPaired = try pairedLine("variant_paired") }
            if groupBy != nil {
                var n = 0
                while peek("group") {
                    let values = try next("group").split(separator: " ").map(String.init)
                    guard values.count == slots.count else { i -= 1; throw fail("group: expected \(slots.count) numbers, got \(values.count)") }
                    var full = [Int](repeating: 0, count: CellAccumulator.counterNames.count)
                    for (k, c) in zip(slots, values) { full[k] = try int(c, "group") }
                    var g = CellAccumulator()
                    g.counters = full
                    if baseline != nil, peek("group_paired") {
                        let v = try next("group_paired").split(separator: " ").map { Int128(String($0)) }
                        guard v.count == PairedSums.valueCount, !v.contains(nil) else {
                            i -= 1; throw fail("group_paired: expected \(PairedSums.valueCount) whole numbers")
                        }
                        var p = PairedSums()
                        p.values = v.map { $0! }
                        g.paired = p
                    }
                    if !compare.isEmpty, peek("group_variant_paired") { g.variantPaired = try pairedLine("group_variant_paired") }
                    if groupBy == .app {
                        let v = try next("group_app").split(separator: " ").map { Int128(String($0)) }
                        guard v.count == AppSums.valueCount, !v.contains(nil) else { i -= 1; throw fail("group_app: expected \(AppSums.valueCount) whole numbers") }
                        var sums = AppSums()
                        sums.values = v.map { $0! }
                        g.app = sums
                        g.latencyWithoutKind = try histogramLine("group_latency")
                    }
                    groups.append(g)
                    n += 1
                }
                guard groupsPerCell == nil || groupsPerCell == n else { throw fail("group: every cell must have the same number of groups") }
                groupsPerCell = n
            }
            if let hours {
                let n = hours * HourlySeries.fields.count
                let values = try next("series").split(separator: " ").map(String.init)
                guard values.count == n else { i -= 1; throw fail("series: expected \(n) numbers (\(hours) hours x \(HourlySeries.fields.count) fields), got \(values.count)") }
                for v in values { seriesValues.append(try int(v, "series")) }
            }
            accs.append(a)
        }
        _ = try next("workload")
        var yaml = ""
        while i < lines.count {
            let l = lines[i]
            if !l.isEmpty {
                guard l.hasPrefix("  ") else { throw fail("workload lines must be indented by two spaces") }
                yaml += l.dropFirst(2) + "\n"
            }
            i += 1
        }
        let w = try WorkloadDecoder.load(yaml, source: source + " (workload section)")
        if let baseline, !RunPlan.covers(cells, baseline: baseline) {
            throw InputError(source: source, "baseline: \(baseline.rawValue) has no cell at some RAM of the state")
        }
        var s = ShardState(workload: w, cells: cells, accumulators: accs, shardIndex: si, shardCount: sn,
                           fleetDevices: fleet, usage: usage, overrides: overrides, inputs: inputs, workloadYAML: yaml)
        s.baseline = baseline
        s.external = external
        s.compare = compare
        s.sampleDevices = sampled
        s.hasKindLatency = hasKind
        if let hours {
            let series = HourlySeries(cells: cells.count, hours: hours)
            series.values = seriesValues
            s.series = series
        }
        if let groupBy {
            let names = groupBy.groups(w, usage: usage != "none")
            guard (groupsPerCell ?? names.count) == names.count else {
                throw InputError(source: source, "group: \(groupsPerCell ?? 0) groups per cell, but the workload has \(names.count)")
            }
            s.groupBy = groupBy
            s.groups = groups
        }
        let expected = inputsHash(yaml: yaml, cells: cells, usage: usage, fleetDevices: fleet, overrides: overrides, baseline: baseline,
                                  groupBy: groupBy, hours: hours, external: external, compare: compare)
        if expected != inputs { throw InputError(source: source, "the inputs hash does not match the content: the file was edited or damaged") }
        s.workloadYAML = yaml
        return s
    }

    init(workload: Workload, cells: [Cell], accumulators: [CellAccumulator], shardIndex: Int, shardCount: Int,
         fleetDevices: Int, usage: String, overrides: [String], inputs: String, workloadYAML: String) {
        self.overrides = overrides
        self.workload = workload
        self.cells = cells
        self.accumulators = accumulators
        self.shardIndex = shardIndex
        self.shardCount = shardCount
        self.fleetDevices = fleetDevices
        self.usage = usage
        self.inputs = inputs
        self.workloadYAML = workloadYAML
    }

    /// Merges the states of every shard of one run. A missing, duplicated or
    /// mismatched shard is an error naming it.
    public static func merge(_ states: [(source: String, state: ShardState)]) throws(InputError) -> (Workload, FleetResult, [String]) {
        guard let first = states.first else { throw InputError(source: "merge", "no state files given") }
        let n = first.state.shardCount
        // By shard index (a dictionary: N may be far larger than the files given).
        var bySlot: [Int: String] = [:]
        for (source, s) in states {
            if s.inputs != first.state.inputs {
                throw InputError(source: source, "its inputs (\(s.inputs)) differ from \(first.source)'s (\(first.state.inputs)): "
                                 + difference(s, first.state))
            }
            if s.shardCount != n {
                throw InputError(source: source, "it is shard \(s.shardIndex)/\(s.shardCount), but \(first.source) is one of \(n)")
            }
            if let other = bySlot[s.shardIndex] {
                throw InputError(source: source, "shard \(s.shardIndex)/\(n) is given twice (also \(other))")
            }
            bySlot[s.shardIndex] = source
            if s.hasKindLatency != first.state.hasKindLatency {
                let old = s.hasKindLatency ? first.source : source
                throw InputError(source: old, "it has no per-kind latency lines ('kind:'): it was written by an older jetsim than the other shards; re-run it with this jetsim")
            }
        }
        if bySlot.count < n, let missing = (1...n).first(where: { bySlot[$0] == nil }) {
            throw InputError(source: "merge", "shard \(missing)/\(n) is missing (have \(states.map { "\($0.state.shardIndex)" }.joined(separator: ", ")))")
        }
        var total = [CellAccumulator](repeating: CellAccumulator(), count: first.state.cells.count)
        var groups = first.state.groups.map { [CellAccumulator](repeating: CellAccumulator(), count: $0.count) }
        let fleet = first.state.fleetDevices
        // The inputs hash names the hours, so every state has a series or none.
        let series = first.state.series.map { HourlySeries(cells: $0.cells, hours: $0.hours) }
        for (source, s) in states {
            if let series, let ss = s.series { series.merge(ss) }
            // Shard I of N runs devices I-1, I-1+N, ...: its device count is known (with a
            // sample, the state says it; the shards' must add up to the sample's, below).
            let i = s.shardIndex - 1
            let expected = s.sampleDevices?.shard ?? (i < fleet ? (fleet - i - 1) / n + 1 : 0)
            for c in total.indices {
                if s.accumulators[c].devices != expected {
                    throw InputError(source: source, "cell \(c + 1) counts \(s.accumulators[c].devices) devices; shard \(s.shardIndex)/\(n) of \(fleet) devices has \(expected)")
                }
                total[c].merge(s.accumulators[c])
            }
            if let sg = s.groups, groups != nil { for g in sg.indices { groups![g].merge(sg[g]) } }
        }
        if let total = first.state.sampleDevices?.total {
            let sum = states.reduce(0) { $0 + ($1.state.sampleDevices?.shard ?? 0) }
            if sum != total || states.contains(where: { $0.state.sampleDevices?.total != total }) {
                throw InputError(source: "merge", "the shards replayed \(sum) devices of a sample of \(total) (--sample-devices): a shard's state is not of this run")
            }
        }
        // A state written before breakdowns had paired sums: the merged groups get none
        // (no delta columns), rather than the sums of some shards only.
        if states.contains(where: { $0.state.groups?.contains { $0.paired == nil } ?? false }) {
            for g in (groups ?? []).indices { groups![g].paired = nil }
        }
        // The variants' workloads: the state's with each --compare-set applied, as the run did.
        var variants: [RunPlan.Variant] = []
        for c in first.state.compare {
            variants.append(RunPlan.Variant(label: c, workload: try WorkloadDecoder.applying([c], to: first.state.workload)))
        }
        return (first.state.workload, FleetResult(cells: first.state.cells, accumulators: total,
                                                  cellSeconds: [Double](repeating: 0, count: total.count), baseline: first.state.baseline,
                                                  groupBy: first.state.groupBy,
                                                  groupNames: first.state.groupBy?.groups(first.state.workload, usage: first.state.usage != "none") ?? [],
                                                  groups: groups, series: series, variants: variants),
                first.state.overrides)
    }
}
