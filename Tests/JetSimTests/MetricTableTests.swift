import Foundation
import Testing
import SimKernel
@testable import JetSim

/// The counter table (`Counter`) drives the device's storage, the accumulator, both
/// CSVs and the shard state: these tests check each of them covers every counter.
@Suite("The counter table")
struct MetricTableTests {
    /// Metrics with a distinct value in every counter (base + 7 × index).
    static func distinct(_ base: Int) -> DeviceMetrics {
        var m = DeviceMetrics()
        for c in Counter.allCases { m[c] = base + 7 * c.rawValue }
        return m
    }

    static func accumulator(_ base: Int) -> CellAccumulator {
        var a = CellAccumulator()
        a.add(distinct(base), events: base * 3 + 1)
        a.add(distinct(base + 1_000), events: base + 5)
        a.kindLatency.cold.record(UInt64(base * 1_000 + 123))
        return a
    }

    @Test("one storage slot per counter; state names and CSV columns are unique")
    func storageAndNames() {
        #expect(DeviceMetrics.Storage.count >= Counter.count)
        // The slots run 0..<count, each declared once (the CSV's and the shard state's order).
        #expect(Counter.allCases.map(\.rawValue) == Array(0..<Counter.count))
        #expect(Counter.count == 68)
        #expect(Set(Counter.names).count == Counter.allCases.count)
        #expect(Set(Counter.allCases.map(\.declaration.column)).count == Counter.allCases.count)
        #expect(Set(CellAccumulator.counterNames).count == CellAccumulator.counterNames.count)
        #expect(Set(Summary.columns).count == Summary.columns.count)
        #expect(Set(PerDeviceRow.columns).count == PerDeviceRow.columns.count)
    }

    @Test("every counter is in the summary: its own column holds its total, or a derived column changes with it")
    func everyCounterInSummary() {
        let w = Workload(), cell = Cell(policy: PolicyID(LRU.self), ramKB: nil)
        let base = Self.accumulator(10)
        let row = Summary.values(workload: w, cell: cell, acc: base)
        for c in Counter.allCases {
            let shownBy = Summary.layout.indices.filter { Summary.layout[$0].shows.contains(c) }
            #expect(shownBy.count == 1, "\(c): shown by \(shownBy.count) summary columns")
            if let k = Summary.columns.firstIndex(of: c.declaration.column) {
                #expect(row[k] == String(base[c]), "\(c)")
            }
            var changed = base
            changed.totals[c] += 1_000
            let other = Summary.values(workload: w, cell: cell, acc: changed)
            for k in shownBy { #expect(other[k] != row[k], "\(c): column \(Summary.columns[k]) does not change with it") }
        }
    }

    @Test("the summary's first columns are today's, and unlisted counters would follow `overrides`")
    func summaryOrder() {
        #expect(Summary.columns.prefix(31).joined(separator: ",") == "workload,policy,ram_mb,devices,duration_h,seed,launches,relaunches,cold_relaunches,relaunch_cold_ratio,relaunch_cold_ratio_ci95,relaunch_p50_ms,relaunch_p90_ms,relaunch_p99_ms,relaunch_mean_ms,kills,kills_pressure,kills_bg_expired,kills_watchdog,kills_user,kills_limit,data_loss_events,data_loss_units,data_loss_per_device_day,data_loss_per_device_day_ci95,state_loss_events,memory_warnings,coalesced_received,coalesced_delivered,coalesced_dropped,events")
        let listed = Array(Summary.layout.prefix(2))
        let appended = CSVColumn.layout(listed, appending: { $0 == .killsUser || $0 == .launches })
        #expect(appended.map(\.name) == ["workload", "policy", "launches", "kills_user"])
    }

    @Test("every per-device counter is in the per-device CSV with its value")
    func perDevice() {
        let m = Self.distinct(5)
        let line = PerDeviceRow.line(device: 3, deviceClass: "c", cell: Cell(policy: PolicyID(LRU.self), ramKB: nil), ramKB: 1_048_576,
                                     apps: 9, duration: .hours(1), metrics: m, events: 42)
        let fields = line.dropLast().split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(fields.count == PerDeviceRow.columns.count)
        for c in Counter.allCases where c.declaration.perDevice {
            let k = PerDeviceRow.columns.firstIndex(of: c.declaration.column)
            #expect(k != nil, "\(c) is declared per-device but has no column")
            if let k { #expect(fields[k] == String(m[c])) }
        }
        #expect(fields[PerDeviceRow.columns.firstIndex(of: "kills")!] == String(m.totalKills))
    }

    @Test("kill reasons and save strategies each map to one counter, which countKill and countLoss increment")
    func killAndLossMapping() {
        // No two reasons share a counter, and every reason's counter is declared.
        #expect(Set(KillReason.allCases.map(\.counter)).count == KillReason.allCases.count)
        for r in KillReason.allCases {
            #expect(Counter.allCases.filter { $0.killReason == r }.count == 1)
            var m = DeviceMetrics()
            m.countKill(r)
            #expect(m[r.counter] == 1 && m.counters.reduce(0, +) == 1)
            #expect(r.counter.killReason == r)
            #expect(m.totalKills == 1)
        }
        for s in SaveStrategy.allCases {
            #expect(Counter.allCases.filter { $0.declaration.loss == s } == [Counter.ofLoss(s)])
            var m = DeviceMetrics()
            m.countLoss(4, strategy: s)
            #expect(m[Counter.ofLoss(s)] == 4 && m[.dataLossUnits] == 4 && m[.dataLossEvents] == 1)
        }
        let m = Self.distinct(1)
        #expect(m.totalKills == Counter.allCases.filter { $0.killReason != nil }.reduce(0) { $0 + m[$1] })
        #expect(Counter.kills.count == KillReason.allCases.count)
    }

    @Test("adding metrics and merging accumulators is the sum of every integer")
    func mergeIsSum() {
        var a = Self.distinct(1)
        let b = Self.distinct(500)
        let before = a.counters
        a.add(b)
        #expect(a.counters == zip(before, b.counters).map { $0 + $1 })

        let x = Self.accumulator(3), y = Self.accumulator(40)
        var merged = x
        merged.merge(y)
        #expect(merged.counters == zip(x.counters, y.counters).map { $0 + $1 })
        #expect(merged.counters.count == CellAccumulator.counterNames.count)
        #expect(merged.latency.count == 2)
        for c in Counter.allCases { #expect(merged[c] == x[c] + y[c]) }
    }

    static func state(_ accs: [CellAccumulator]) -> ShardState {
        let w = Workload()
        let cells = accs.indices.map { Cell(policy: PolicyID.all[$0], ramKB: 2_097_152) }
        let yaml = WorkloadPrinter.yaml(w)
        let inputs = ShardState.inputsHash(yaml: yaml, cells: cells, usage: "none", fleetDevices: 10, overrides: [])
        return ShardState(workload: w, cells: cells, accumulators: accs, shardIndex: 1, shardCount: 2, fleetDevices: 10,
                          usage: "none", overrides: [], inputs: inputs, workloadYAML: yaml)
    }

    @Test("every counter survives the state file's round trip")
    func stateRoundTrip() throws {
        let accs = [Self.accumulator(7), Self.accumulator(90)]
        let text = Self.state(accs).text
        #expect(text.contains("jetsim-state: \(ShardState.version)\n"))
        let back = try ShardState.parse(text, source: "s.state")
        #expect(back.accumulators == accs)
        #expect(back.text == text)
    }

    @Test("a state naming its counters is read by name; a missing one reads as 0, an unknown one is an error")
    func namedCounters() throws {
        let acc = Self.accumulator(11)
        let v1 = Self.state([acc]).text   // version 2 once counters are added
        let names = CellAccumulator.counterNames
        // Version 2: reversed order, without `kills_user`.
        let kept = names.indices.reversed().filter { names[$0] != "kills_user" }
        var lines = v1.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { !$0.hasPrefix("counter_names:") }
        let k = lines.firstIndex { $0.hasPrefix("cells:") }!
        lines.insert("counter_names: " + kept.map { names[$0] }.joined(separator: " "), at: k)
        let c = lines.firstIndex { $0.hasPrefix("counters:") }!
        lines[c] = "counters: " + kept.map { String(acc.counters[$0]) }.joined(separator: " ")
        lines[lines.firstIndex { $0.hasPrefix("jetsim-state:") }!] = "jetsim-state: 2"
        let v2 = ShardState.resealed(lines.joined(separator: "\n"))
        let back = try ShardState.parse(v2, source: "v2.state").accumulators[0]
        var expected = acc
        expected.totals[.killsUser] = 0
        #expect(back == expected)

        let unknown = v2.replacingOccurrences(of: "counter_names: ", with: "counter_names: kills_by_martians ")
            .replacingOccurrences(of: "\ncounters: ", with: "\ncounters: 5 ")
        #expect(throws: InputError.self) { try ShardState.parse(ShardState.resealed(unknown), source: "v2.state") }
        // Without resealing, any changed byte is refused by the checksum.
        #expect(throws: InputError.self) { try ShardState.parse(v2.replacingOccurrences(of: "counters: ", with: "counters: 1"), source: "v2.state") }
    }

    @Test("a state without a checksum says why: written by an older jetsim, cut short, or not a state file")
    func missingChecksumSaysWhy() {
        let text = Self.state([Self.accumulator(3)]).text
        var lines = text.split(separator: "\n").map(String.init)
        lines.removeLast()  // the checksum line: what a jetsim before checksums wrote
        func message(_ t: String) -> String {
            do { _ = try ShardState.parse(t, source: "old.state"); return "" } catch { return error.description }
        }
        let older = message(lines.joined(separator: "\n") + "\n")
        #expect(older.hasPrefix("old.state:"))
        #expect(older.contains("written by an older jetsim, before state files carried a checksum"))
        #expect(older.contains("re-run the shard"))
        let cut = message(lines.prefix(while: { $0 != "workload:" }).joined(separator: "\n"))
        #expect(cut.contains("cut short") && cut.contains("re-run the shard"))
        #expect(message("a,b,c\n1,2,3\n").contains("not a jetsim state file"))
    }

    @Test("docs/columns.md explains every summary column and lists the per-device columns")
    func columnReference() throws {
        // The whole file is the column reference: the summary table, the columns
        // `--baseline` appends and the per-device rows.
        let text = try String(contentsOfFile: root + "/docs/columns.md", encoding: .utf8)
        #expect(text.hasPrefix("# CSV columns\n"))
        var explained = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = String(line.split(separator: "|")[0])
            let tokens = cell.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            guard let first = tokens.first else { continue }
            explained.insert(first)
            for t in tokens.dropFirst() {
                if !t.hasPrefix("_") { explained.insert(t); continue }
                // `relaunch_p50_ms`, `_p90_ms`: the first token's prefix with this suffix;
                // `a` ... `_never`: every column from `a` to the one ending so.
                if cell.contains("` ... `"), let from = Summary.columns.firstIndex(of: first),
                   let to = Summary.columns[from...].firstIndex(where: { $0.hasSuffix(t) }) {
                    explained.formUnion(Summary.columns[from...to])
                } else if let c = Summary.columns.first(where: { $0.hasSuffix(t) && first.hasPrefix($0.dropLast(t.count)) }) {
                    explained.insert(c)
                }
            }
        }
        for c in Summary.columns { #expect(explained.contains(c), "docs/columns.md does not explain summary column \(c)") }
        let flat = text.replacingOccurrences(of: "\n", with: "")
        #expect(flat.contains("`" + PerDeviceRow.columns.joined(separator: ",") + "`"))
    }
}
