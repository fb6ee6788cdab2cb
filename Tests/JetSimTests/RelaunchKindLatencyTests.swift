import Foundation
import Testing
import SimKernel
@testable import JetSim

/// Issue 12's per-kind relaunch latencies and issue 16's CDF percentiles: the
/// histograms partition the relaunches, the columns read them, and shards merge to
/// the unsharded run byte for byte.
@Suite("relaunch latency by kind, and the CDF percentile columns")
struct RelaunchKindLatencyTests {
    static let cells = ["jetsam-bands", "lru"].map { Cell(policy: PolicyID(rawValue: $0)!, ramKB: 2 * 1_048_576) }

    static func workload(devices: Int) throws -> Workload {
        try WorkloadDecoder.load(defaultWorkloadText, source: "t", overrides: ["fleet.devices=\(devices)", "fleet.duration_days=1"])
    }

    @Test("the six kinds partition the relaunches: counts match the counters, merged they hold every relaunch")
    func partition() throws {
        let w = try Self.workload(devices: 8)
        let r = FleetRunner.run(RunPlan(workload: w, cells: Self.cells, threads: 2), catalog: AppCatalog(w))
        for a in r.accumulators {
            let k = a.kindLatency
            #expect(k.cold.count == UInt64(a[.coldRelaunches] - a[.cachedRelaunches]))
            #expect(k.cached.count == UInt64(a[.cachedRelaunches]))
            #expect(k.resume.count == UInt64(a[.warmRelaunches] - a[.decompressedRelaunches] - a[.thawedRelaunches]))
            #expect(k.decompressed.count == UInt64(a[.decompressedRelaunches]))
            #expect(k.thaw.count == UInt64(a[.thawedRelaunches]))
            #expect(k.hot.count == UInt64(a[.hotRelaunches]))
            // Each relaunch is recorded once, under its kind; merged, the kinds hold
            // every relaunch and its latency (the counters are kept apart).
            #expect(a.latency.count == UInt64(a[.relaunches]) && a.latency.count > 0)
            #expect(a.latency.sum == UInt64(a[.relaunchLatencySumMicros]))
            // On the default workload (XNU's compressor on) a suspended app is compressed,
            // so no resume is plain (8 devices x 1 day at 2 GB: cold 48, cached 4,
            // resume 0, decompressed 103, thaw 3, hot 11 under jetsam-bands); the
            // medians order the kinds as the model's latencies do.
            let seen = RelaunchKind.allCases.map { "\($0.name) \(k[$0].count) p50 \(k[$0].percentile(50))" }
            #expect(k.cold.count > 0 && k.cached.count > 0 && k.decompressed.count > 0 && k.hot.count > 0, "\(seen)")
            #expect(k.hot.percentile(50) < k.decompressed.percentile(50) && k.decompressed.percentile(50) < k.cached.percentile(50)
                    && k.cached.percentile(50) < k.cold.percentile(50), "\(seen)")
        }
    }

    @Test("the columns: names in order, exact values of a hand-built cell, nan for an empty kind")
    func columns() throws {
        let names = Summary.columns
        let cdf = ["p1", "p10", "p20", "p25", "p30", "p40", "p60", "p70", "p75", "p80", "p95", "p99_9"].map { "relaunch_\($0)_ms" }
        let kinds = ["cold", "cached", "resume", "decompressed", "thaw", "hot"].flatMap { ["relaunch_\($0)_p50_ms", "relaunch_\($0)_p99_ms"] }
        // Appended right after system_wakes, so counters appended later follow them.
        let at = try #require(names.firstIndex(of: "system_wakes"))
        #expect(Array(names[(at + 1)...].prefix(24)) == cdf + kinds)

        var a = CellAccumulator()
        a.devices = 1
        // Cold: 1 s and 3 s; resume: 200 ms four times; nothing else.
        for ms in [1_000, 3_000] as [Int64] { a.kindLatency.record(.milliseconds(ms), .cold) }
        for _ in 0..<4 { a.kindLatency.record(.milliseconds(200), .resume) }
        let row = Dictionary(uniqueKeysWithValues: zip(names, Summary.values(workload: Workload(), cell: Self.cells[0], acc: a)))
        // Nearest rank: p50 of two values is the first, p99 the second, each reported
        // as its bucket's middle (within 0.4%), clamped to the exact maximum.
        func near(_ column: String, _ ms: Double) {
            let got = Double(row[column] ?? "") ?? .nan
            #expect(abs(got - ms) <= 0.004 * ms, "\(column): \(row[column] ?? "none"), expected \(ms) ms within 0.4%")
        }
        near("relaunch_cold_p50_ms", 1_000)
        #expect(row["relaunch_cold_p99_ms"] == "3000.000")
        near("relaunch_resume_p50_ms", 200); near("relaunch_resume_p99_ms", 200)
        for k in ["cached", "decompressed", "thaw", "hot"] { #expect(row["relaunch_\(k)_p50_ms"] == "nan" && row["relaunch_\(k)_p99_ms"] == "nan") }
        // All six values: ranks 1-4 are 200 ms, 5 is 1 s, 6 is 3 s.
        for p in ["p1", "p10", "p20", "p25", "p30", "p40", "p60"] { near("relaunch_\(p)_ms", 200) }
        for p in ["p70", "p75", "p80"] { near("relaunch_\(p)_ms", 1_000) }
        #expect(row["relaunch_p95_ms"] == "3000.000" && row["relaunch_p99_9_ms"] == "3000.000")
        // Pinned: the buckets' middles (1,000,000 us is in [999,424, 1,003,520)).
        #expect(row["relaunch_cold_p50_ms"] == "1001.471" && row["relaunch_p70_ms"] == "1001.471")
    }

    @Test("three shards' states merge to the unsharded accumulators and CSV, byte for byte; old and new states do not mix")
    func shardsMerge() throws {
        let w = try Self.workload(devices: 7)
        let catalog = AppCatalog(w)
        let whole = FleetRunner.run(RunPlan(workload: w, cells: Self.cells, threads: 2), catalog: catalog)
        var states: [(source: String, state: ShardState)] = []
        var texts: [String] = []
        for i in 0..<3 {
            var plan = RunPlan(workload: w, cells: Self.cells, threads: 1 + i % 2)
            plan.shardIndex = i
            plan.shardCount = 3
            let text = ShardState(workload: w, overrides: [], usage: nil, plan: plan, result: FleetRunner.run(plan, catalog: catalog)).text
            #expect(text.contains("\nkind: thaw "))
            texts.append(text)
            states.append(("s\(i + 1).state", try ShardState.parse(text, source: "s\(i + 1).state")))
        }
        let (mw, merged, _) = try ShardState.merge(states.reversed())
        for (a, b) in zip(merged.accumulators, whole.accumulators) {
            #expect(a.kindLatency == b.kindLatency)
            #expect(a.latency == b.latency)
        }
        #expect(Summary.csv(workload: mw, result: merged) == Summary.csv(workload: w, result: whole))

        // A state written before the kind lines, next to new ones: refused, naming it.
        let old = ShardState.resealed(texts[1].split(separator: "\n").filter { !$0.hasPrefix("kind:") }.joined(separator: "\n"))
        let oldState = try ShardState.parse(old, source: "old.state")
        #expect(!oldState.hasKindLatency)
        #expect(oldState.accumulators.allSatisfy { $0.kindLatency == RelaunchKindLatencies() })
        // Its total is kept (of no kind): the overall percentiles are the new state's.
        #expect(oldState.accumulators.map(\.latency) == states[1].state.accumulators.map(\.latency))
        #expect(oldState.accumulators.allSatisfy { $0.latency.count > 0 })
        do {
            _ = try ShardState.merge([states[0], ("old.state", oldState), states[2]])
            Issue.record("mixed states were merged")
        } catch {
            #expect(error.description.hasPrefix("old.state:") && error.description.contains("older jetsim"))
        }
        // A kind line that does not add up is refused.
        let bad = ShardState.resealed(texts[0].replacingOccurrences(of: "\nkind: cold ", with: "\nkind: cold 1"))
        #expect(throws: InputError.self) { try ShardState.parse(bad, source: "bad.state") }
        // The total is the kinds merged: a state whose total line says otherwise is refused.
        let total = try #require(texts[0].split(separator: "\n").first { $0.hasPrefix("latency: ") })
        let f = total.split(separator: " ")
        let wrong = ShardState.resealed(texts[0].replacingOccurrences(of: String(total), with: "latency: \(f[1]) \(UInt64(f[2])! + 1) \(f[3]) \(f[4])"))
        do {
            _ = try ShardState.parse(wrong, source: "wrong.state")
            Issue.record("a total that is not the kinds merged was read")
        } catch {
            #expect(error.description.contains("kinds' latencies merged"), "\(error)")
        }
    }
}
