import Foundation
import Testing
import SimKernel
import JetSim

/// Issue 11: a range is valid only if the model can run every value in it. Each key
/// of the schema table, at the minimum and at the maximum of its range, is decoded and
/// run on a tiny fleet through the library: no trap, and a summary with no NaN, no
/// infinity and no negative figure. A value refused by a check across keys (an OS
/// reserve as large as the RAM, a waking window that ends before it starts) must be
/// refused with an error that names the key.
@Suite("every workload key at the ends of its range")
struct SchemaExtremesTests {
    /// Keys without a numeric range (words, presets, tagged values, groups): the test
    /// fails if a key with no range appears that is not listed here, so a new numeric
    /// knob cannot escape the extremes run by forgetting its range.
    static let unranged: Set<String> = [
        "name", "run.policies", "device_classes.0.name", "device_classes.0.ios",
        "device_classes.0.os", "device_classes.0.android_zram_algorithm",
        "catalog.archetypes.0.name", "catalog.archetypes.0.modes", "catalog.archetypes.0.save_strategy", "catalog.archetypes.0.save_also",
        "user.app_choice",
        // An external policy's program and arguments (its timeout alone is refused: no command).
        "policies.external.example.command",
        // A named app's name and archetype (words; its other keys are cases, on a declared app).
        "catalog.named_apps.0.name", "catalog.named_apps.0.archetype",
        // Switches: both values are cases (below), not a range.
        "device_classes.0.xnu_bands", "device_classes.0.reaper", "device_classes.0.prewarming", "device_classes.0.freezer", "device_classes.0.freezer_dynamic_delay", "device_classes.0.memory_growth",
        "device_classes.0.pressure_levels", "device_classes.0.sustained_pressure_kills", "device_classes.0.compressor_shortage_kills",
        "device_classes.0.android_zram", "device_classes.0.android_lmkd_psi", "device_classes.0.android_zram_writeback",
        "device_classes.0.android_kill_heaviest_task", "device_classes.0.android_64bit", "device_classes.0.android_thrashing_counts_swap_ins",
        "device_classes.0.android_swap_file",
    ]

    struct Case: CustomTestStringConvertible, Sendable {
        var key: String
        var value: String
        var testDescription: String { "\(key)=\(value)" }
    }

    static let cases: [Case] = Schema.keyTable().flatMap { k -> [Case] in
        if k.type == "true or false" { return [Case(key: k.key, value: "true"), Case(key: k.key, value: "false")] }
        guard let lo = k.min, let hi = k.max else { return [] }
        let wrap: (String) -> String = k.type.hasPrefix("list") ? { "[\($0)]" } : { $0 }
        return [Case(key: k.key, value: wrap(lo)), Case(key: k.key, value: wrap(hi))]
    }

    @Test("the key table lists every key of the reference, and every key without a range is a known non-number")
    func tableIsComplete() {
        let table = Schema.keyTable()
        #expect(table.count == Schema.referenceKeys().count)
        let noRange = Set(table.filter { $0.min == nil }.map(\.key))
        #expect(noRange == Self.unranged)
        // The seed's top is exact (a Double would print 2^64, which the decoder refuses).
        #expect(table.first { $0.key == "seed" }?.max == "18446744073709551615")
        #expect(Self.cases.count == 2 * (table.count - Self.unranged.count + table.filter { $0.type == "true or false" }.count))
    }

    /// The workload every case starts from, decoded once: the default on a tiny fleet
    /// with a small catalog (a 2,000-app catalog for each of 300 cases took most of
    /// this suite's time; the catalog's size has its own cases).
    static let base: Workload = try! WorkloadDecoder.load(defaultWorkloadText, source: "extremes",
                                                          overrides: ["fleet.devices=2", "fleet.duration_days=0.05", "catalog.apps=100"])

    /// Every rate that makes events, the users' and each archetype's system wakes:
    /// zeroed for the longest run so it stays tiny (decoded, it is still the range's end).
    static let rates: [String] = {
        let table = Schema.keyTable().map(\.key)
        let user = table.filter { $0.hasPrefix("user.") && ($0.hasSuffix("_per_day") || $0.hasSuffix("_per_hour_of_use")) }
        let archetype = table.filter { $0.hasPrefix("catalog.archetypes.0.") && $0.hasSuffix("_per_day") }
        return user.map { "\($0)=0" } + base.catalog.archetypes.indices.flatMap { i in
            archetype.map { "catalog.archetypes.\(i)." + $0.dropFirst("catalog.archetypes.0.".count) + "=0" }
        }
    }()

    /// Cases too large for a debug build, run through the release binary instead
    /// (`RobustnessCLITests`, "the catalog's largest size runs").
    static let releaseOnly: Set<String> = ["catalog.apps=10000000"]

    @Test("decoded and run on a tiny fleet: no trap, sane summary; or refused naming the key",
          arguments: cases.filter { !releaseOnly.contains($0.testDescription) })
    func extreme(_ c: Case) throws {
        var overrides: [String] = []
        if c.key == "fleet.duration_days" { overrides += Self.rates }
        // Android's keys act only on an Android device: run them on one.
        if c.key.hasPrefix("device_classes.0.android_") { overrides.append("device_classes.0.os=android") }
        // An external policy's keys need its command (the policy is declared, not run).
        if c.key.hasPrefix("policies.external.example.") { overrides.append("policies.external.example.command=[true]") }
        // A named app's keys need one declared (none by default).
        if c.key.hasPrefix("catalog.named_apps.0.") { overrides.append("catalog.named_apps=[{name: mine, archetype: social}]") }
        overrides.append("\(c.key)=\(c.value)")
        var w = Self.base
        do {
            for o in overrides { try WorkloadDecoder.apply(o, to: &w) }
        } catch {
            // Refused by a check across keys: the message names a key of the section.
            let leaf = c.key.split(separator: ".").last.map(String.init) ?? c.key
            let section = c.key.split(separator: ".").first.map(String.init) ?? c.key
            #expect(error.description.contains(leaf) || error.description.contains(section),
                    "refused without naming \(c.key): \(error.description)")
            #expect(Self.refusedOnPurpose.contains(c.testDescription), "unexpectedly refused: \(error.description)")
            return
        }
        if c.testDescription == "fleet.duration_days=36500" {
            // The longest run, made tiny only because nothing makes events.
            #expect(w.fleet.duration == .days(36_500))
        }
        var plan = RunPlan(workload: w, cells: [Cell(policy: PolicyID(rawValue: "lru")!, ramKB: nil),
                                                Cell(policy: PolicyID(rawValue: "jetsam-bands")!, ramKB: nil)], threads: 1)
        // The largest fleet is decoded whole and run as one shard of two devices.
        if w.fleet.devices > 2 { plan.shardCount = w.fleet.devices / 2 }
        let r = FleetRunner.run(plan, catalog: AppCatalog(w))
        #expect(r.accumulators.count == 2)
        for a in r.accumulators {
            for counter in Counter.allCases { #expect(a[counter] >= 0, "\(counter) is \(a[counter])") }
        }
        let csv = Summary.csv(workload: w, result: r)
        let lines = csv.split(separator: "\n")
        #expect(lines.count == 3)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false)
        for (line, a) in zip(lines.dropFirst(), r.accumulators) {
            for (name, field) in zip(header, line.split(separator: ",", omittingEmptySubsequences: false)) {
                guard let x = Double(field) else { continue }
                // Relaunch figures are nan, as documented, only when there was no relaunch.
                if x.isNaN && name.hasPrefix("relaunch_") && a[.relaunches] == 0 { continue }
                // A relaunch kind's percentiles are nan, as documented, when it had none.
                if x.isNaN, let k = RelaunchKind.allCases.first(where: { name.hasPrefix("relaunch_\($0.name)_p") }), a.kindLatency[k].count == 0 { continue }
                // A 95% interval from one device is undefined (nan), never a number.
                if x.isNaN && name.hasSuffix("_ci95") && w.fleet.devices < 2 { continue }
                #expect(x.isFinite && x >= 0, "summary \(name)=\(field) in \(line)")
            }
        }
    }

    @Test("held-event counts are exact for every accepted run: a device's actions fit the 32-bit counter")
    func heldCountsFit() {
        #expect(Workload.maxActionsPerDevice < Double(UInt32.max))
        var h = HeldEvents()
        for _ in 0..<70_000 { h.hold(.orientation, value: 3) }
        #expect(h.count(.orientation) == 70_000)
        #expect(h.value(.orientation) == 3)
        #expect(h.total == 70_000)
    }

    @Test("lost edits cannot saturate: the highest edit rate, the longest run and the largest fleet stay under Int.max")
    func lossTotalsFit() throws {
        let minutes = 36_500.0 * 1_440
        let device = AppProfile.maxEditsPerMinute * minutes
        #expect(device * Double(Schema.devicesRange.upperBound) < Double(Int.max))
        // A rate above it is refused; a lognormal that draws far above it is clamped.
        #expect(throws: InputError.self) {
            try WorkloadDecoder.load(defaultWorkloadText, source: "x", overrides: ["catalog.archetypes.0.unsaved_edits_per_min=1e12"])
        }
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "x",
                                         overrides: ["catalog.archetypes.0.unsaved_edits_per_min={lognormal: {median: 1000, sigma: 20}}"])
        let catalog = AppCatalog(w)
        var drawn = 0
        for (i, p) in catalog.profiles.enumerated() where catalog.archetype[i] == 0 {
            #expect(p.unsavedEditsPerMinute <= AppProfile.maxEditsPerMinute)
            drawn += p.unsavedEditsPerMinute == AppProfile.maxEditsPerMinute ? 1 : 0
        }
        #expect(drawn > 0)  // half the draws of median 1000 are above it
    }

    @Test("a sum that saturates is named, so the CLI can say its figures are lower bounds")
    func saturatedIsNamed() {
        var a = CellAccumulator()
        var m = DeviceMetrics()
        m[.relaunchLatencySumMicros] = Int.max - 1
        a.add(m, events: 1)
        #expect(a.saturated.isEmpty)
        m[.relaunchLatencySumMicros] = 5
        a.add(m, events: 1)
        #expect(a.saturated == ["relaunch_latency_sum_us"])
        // Sums of squares too: 4e9 relaunches squared pass Int.max.
        var b = CellAccumulator()
        var r = DeviceMetrics()
        r[.relaunches] = 4_000_000_000
        b.add(r, events: 1)
        #expect(b.saturated == ["sum_relaunches_sq"])
    }

    /// Extremes refused by a check across keys, each for a reason the message gives.
    static let refusedOnPurpose: Set<String> = [
        "device_classes.0.os_reserve_mb=1048576",   // at or above the RAM: every launch would fail
        "device_classes.0.idle_daemons_mb=1048576", // with the reserve, at or above the RAM (issue 31's idle-band daemons)
        "device_classes.0.critical_available_pct=100",  // above the kill target
        "device_classes.0.kill_target_available_pct=0",  // below the critical level
        "user.wake_hour=24", "user.sleep_hour=0",   // the waking window would be empty
        "catalog.archetypes.0.share=0",             // shares must add up to more than 0 (when it is the only one weighted)
        "device_classes.0.share=0",
    ]
}
