import Foundation
import Testing
import SimKernel
@testable import JetSim

/// Issue 47: an app declared by name (`catalog.named_apps`), its row in `--by app`,
/// paired workload variants (`RunPlan.variants`, `--compare-set`), replays on the
/// fleet's classes and the external protocol's version key.
@Suite("Named apps: install, rank, footprint, --by app, variants, replay classes")
struct NamedAppTests {
    /// The photo editor of Workloads/examples/my-app.yaml.
    static let photo = """
        catalog:
          named_apps:
            - name: photo
              archetype: camera
              install_share: 1
              user_rank: 1
              active_mb: 450
              background_share: 0.333
              peak_share: 1
              cold_launch_ms: 2500
              save_strategy: {on-enter-background: 1}
              unsaved_edits_per_min: 3

        """

    static func workload(_ overrides: [String] = [], yaml: String = photo) throws -> Workload {
        try WorkloadDecoder.load(yaml, source: "my-app.yaml", overrides: ["fleet.devices=3", "fleet.duration_days=1"] + overrides)
    }

    static let cells = ["jetsam-bands", "lru"].map { Cell(policy: PolicyID(rawValue: $0)!, ramKB: 2 * 1_048_576) }

    static func installed(_ w: Workload, devices: Range<Int>) -> [[Int32]] {
        let plan = RunPlan(workload: w, cells: cells, threads: 1)
        var inputs = DeviceInputs(plan: plan, catalog: AppCatalog(w))
        return devices.map { d in inputs.chooseInstalled(device: UInt64(d)); return Array(inputs.installed) }
    }

    @Test("the profile is the declared one over its archetype's keys; the drawn catalog is unchanged")
    func profile() throws {
        let w = try Self.workload()
        let plain = try Self.workload(yaml: "")
        let c = AppCatalog(w), p = AppCatalog(plain)
        #expect(c.drawn == 2_000 && c.profiles.count == 2_001 && Array(c.namedNames) == ["photo"])
        #expect(Array(c.profiles[..<c.drawn]) == Array(p.profiles))
        #expect(c.names[..<c.drawn] == p.names[...])
        let x = c.profiles[c.drawn]
        #expect(x.activeKB == 450 * 1_024)
        #expect(x.unsavedEditsPerMinute == 3)
        #expect(c.archetype[c.drawn] == Int32(w.catalog.archetypes.firstIndex { $0.name == "camera" }!))
        #expect(c.index(named: "photo") == c.drawn)
        #expect(c.index(named: "camera-0001") == p.index(named: "camera-0001"))
        // The same profile whatever else is declared after it (its own stream).
        let two = try Self.workload(yaml: Self.photo + "    - {name: notes, archetype: productivity, install_share: 0.5, user_rank: 3}\n")
        #expect(AppCatalog(two).profiles[2_000] == x)
        #expect(AppCatalog(two).namedUserRank == [1, 3])
    }

    @Test("installed on a device by its share, at its rank in the user's order; the drawn apps as without it")
    func installs() throws {
        let w = try Self.workload()
        let plain = Self.installed(try Self.workload(yaml: ""), devices: 0..<50)
        let mine = Self.installed(w, devices: 0..<50)
        for d in 0..<50 {
            #expect(mine[d].first == 2_000)
            #expect(Array(mine[d].dropFirst()) == plain[d])
        }
        let ranked = Self.installed(try Self.workload(["catalog.named_apps.photo.user_rank=3"]), devices: 0..<20)
        for d in 0..<20 { #expect(ranked[d][2] == 2_000 && ranked[d].filter { $0 != 2_000 } == plain[d]) }
        // Past the device's apps: last.
        let last = Self.installed(try Self.workload(["catalog.named_apps.photo.user_rank=1000000"]), devices: 0..<5)
        for d in 0..<5 { #expect(last[d].last == 2_000 && last[d].count == plain[d].count + 1) }
        // Half the devices install it (binomial: 200 x 0.5 gives 100 ± 21 at 3 sd).
        let half = Self.installed(try Self.workload(["catalog.named_apps.photo.install_share=0.5"]), devices: 0..<200)
        let n = half.filter { $0.contains(2_000) }.count
        #expect(abs(n - 100) <= 21, "\(n)")
        #expect(Self.installed(try Self.workload(["catalog.named_apps.photo.install_share=0"]), devices: 0..<20) == Array(plain[..<20]))
    }

    @Test("a declared footprint is not scaled to the device; one over the fit is reported")
    func footprint() throws {
        let w = try Self.workload(["catalog.named_apps.photo.active_mb=1500"])
        let c = AppCatalog(w)
        let params = w.deviceClasses[0].parameters(ramKB: 2 * 1_048_576)
        #expect(1_500 * 1_024 > params.appFitKB)
        let fitted = c.profiles(fittedTo: params)
        #expect(fitted[c.drawn].activeKB == 1_500 * 1_024)
        #expect(fitted[..<c.drawn].allSatisfy { max($0.activeKB, $0.peakKB) <= params.appFitKB })
        let over = c.namedOverFit(params)
        #expect(over.count == 1 && over[0].name == "photo" && over[0].topKB == 1_500 * 1_024 && over[0].fitKB == params.appFitKB)
        #expect(AppCatalog(try Self.workload()).namedOverFit(params).isEmpty)
    }

    @Test("bad declarations are refused, naming the key")
    func refused() throws {
        func message(_ yaml: String) -> String {
            do { _ = try Self.workload(yaml: yaml); return "" } catch { return "\(error)" }
        }
        #expect(message("catalog:\n  named_apps:\n    - {name: x}\n").contains("archetype"))
        #expect(message("catalog:\n  named_apps:\n    - {name: x, archetype: camra}\n").contains("did you mean camera"))
        #expect(message("catalog:\n  named_apps:\n    - {name: camera-0001, archetype: camera}\n").contains("form of a drawn app's name"))
        #expect(message("catalog:\n  named_apps:\n    - {name: rest, archetype: camera}\n").contains("'rest'"))
        #expect(message("catalog:\n  named_apps:\n    - {name: a, archetype: camera}\n    - {name: a, archetype: game}\n").contains("twice"))
        #expect(message("catalog:\n  named_apps:\n    - {name: a, archetype: camera, install_share: 2}\n").contains("install_share"))
        #expect(message("catalog:\n  named_apps:\n    - {name: a, archetype: camera, share: 0.1}\n").contains("share"))
        // Printed back, the workload reads the same.
        let w = try Self.workload()
        #expect(try WorkloadDecoder.load(WorkloadPrinter.yaml(w), source: "printed") == w)
    }

    static func run(_ w: Workload, by: GroupBy? = .app, variants: [String] = [], shard: (Int, Int) = (0, 1)) throws -> (RunPlan, FleetResult) {
        var plan = RunPlan(workload: w, cells: cells, threads: 2)
        plan.groupBy = by
        (plan.shardIndex, plan.shardCount) = shard
        if !variants.isEmpty {
            plan.variants = try variants.map { RunPlan.Variant(label: $0, workload: try WorkloadDecoder.applying([$0], to: w)) }
            plan.cells = plan.variants.indices.flatMap { v in cells.map { Cell(policy: $0.policy, ramKB: $0.ramKB, variant: v) } }
        }
        return (plan, FleetRunner.run(plan, catalog: AppCatalog(w)))
    }

    @Test("--by app: a row per named app and the rest, adding up to the cell; the cell as without --by")
    func byApp() throws {
        let w = try Self.workload()
        let (_, r) = try Self.run(w)
        let (_, plain) = try Self.run(w, by: nil)
        #expect(r.groupNames == ["photo", "rest"])
        let groups = try #require(r.groups)
        for (ci, a) in r.accumulators.enumerated() {
            #expect(a == plain.accumulators[ci])
            let mine = groups[(ci * 2)..<(ci * 2 + 2)]
            for c in ArchetypeBreakdownTests.summed + [.relaunchLatencySumMicros] {
                #expect(mine.reduce(0) { $0 + $1[c] } == a[c], "\(c)")
            }
            #expect(mine.reduce(0) { $0 + $1.latency.count } == a.latency.count)
            let photo = groups[ci * 2]
            #expect(photo.app?.installed == 3 && photo.app?.used == 3)
            // Rank 1 of every user: over a tenth of the launches (19 of 167), not noise.
            #expect(photo[.launches] * 10 > a[.launches], "\(photo[.launches]) of \(a[.launches])")
        }
        let text = try #require(Breakdown.csv(workload: w, result: r))
        let lines = text.split(separator: "\n")
        #expect(lines.count == 1 + 2 * 2)
        #expect(lines[0].hasSuffix(",lost_work_s_per_using_device_day,lost_work_s_per_using_device_day_ci95"))
        // The rest has no edit rate of its own: its seconds of work are nan.
        #expect(lines[2].contains(",rest,") && lines[2].hasSuffix(",nan,nan,nan,nan,nan"))
        #expect(lines[1].contains(",photo,") && lines[1].contains(",3.000000,"))
    }

    @Test("--by app's per-session and per-device loss, and their intervals, from the sums")
    func perSession() throws {
        var acc = CellAccumulator()
        var sums = AppSums()
        // Three devices: (launches, lost edits) = (2, 1), (4, 0), (0, 0); the last did
        // not use the app but installed it.
        for (l, u) in [(2, 1), (4, 0), (0, 0)] {
            var m = DeviceMetrics()
            m[.launches] = l
            m[.dataLossUnits] = u
            acc.add(m, events: 0)
            sums.add(m, installed: true)
        }
        acc.app = sums
        #expect(sums.installed == 3 && sums.used == 2 && sums.sumLaunchesSquared == 20 && sums.sumLossTimesLaunches == 2)
        var w = Workload()
        w.fleet.duration = SimTime(seconds: 86_400)
        var row = Breakdown.Row(workload: w, cell: Self.cells[0], by: .app, group: "photo", acc: acc)
        row.editsPerMinute = 3
        let s = Breakdown.perSession(row)
        #expect(s.value == 1.0 / 6)
        // Ratio of sums, devices as clusters: Σ(u - R l)² = (1 - 2/6)² + (0 - 4/6)² = 8/9;
        // SE² = (8/9) / (3 · 2 · 2²); t(2) = 4.302653.
        #expect(abs(s.ci95 - Student.t975(df: 2) * ((8.0 / 9) / 24).squareRoot()) < 1e-12)
        let used = Breakdown.perDeviceDay(row, devices: 2)
        #expect(used.value == 0.5)
        let work = Breakdown.seconds(row, used)
        #expect(work.value == 10)  // half an edit at 3 a minute: 10 s of work
    }

    @Test("--by app merges from shards into the unsharded breakdown, byte for byte")
    func shards() throws {
        let w = try Self.workload(["fleet.devices=5"])
        let (_, whole) = try Self.run(w)
        var states: [(source: String, state: ShardState)] = []
        for i in 0..<2 {
            let (plan, r) = try Self.run(w, shard: (i, 2))
            let text = ShardState(workload: w, overrides: [], usage: nil, plan: plan, result: r).text
            #expect(text.contains("\nby: app\n") && text.contains("\ngroup_app: ") && text.contains("\ngroup_latency: "))
            states.append(("s\(i)", try ShardState.parse(text, source: "s\(i)")))
        }
        let (mw, merged, _) = try ShardState.merge(states)
        #expect(Breakdown.csv(workload: mw, result: merged) == Breakdown.csv(workload: w, result: whole))
        #expect(Summary.csv(workload: mw, result: merged) == Summary.csv(workload: w, result: whole))
    }

    static let saves = ["catalog.named_apps.photo.save_strategy={on-enter-background: 1}", "catalog.named_apps.photo.save_strategy={never: 1}"]

    @Test("--compare-set: variants on the same devices and draws, paired with the reference")
    func variants() throws {
        let w = try Self.workload(["fleet.devices=6"])
        let (plan, r) = try Self.run(w, by: .app, variants: Self.saves)
        #expect(r.cells.count == 4 && r.variants.count == 2)
        #expect(plan.variants[1].workload.buildsSameInputs(as: plan.variants[0].workload))
        // The reference variant is the run without variants, cell for cell.
        let (_, alone) = try Self.run(w, by: nil)
        #expect(Array(r.accumulators[..<2]).map(\.counters) == alone.accumulators.map(\.counters))
        let d = try #require(Summary.variantDeltas(workload: w, result: r))
        for ci in 0..<4 {
            let ref = ci % 2
            // The users are the same: the same launches in both.
            #expect(r.accumulators[ci][.launches] == r.accumulators[ref][.launches])
            if ci < 2 { #expect(d[ci].loss.value == 0 && d[ci].cold.value == 0) }
        }
        // Never saving loses at least what saving on entering the background lost.
        #expect(d[2].loss.value > 0)
        let groups = try #require(r.groups)
        #expect(groups[2 * 2][.dataLossUnits] > groups[0][.dataLossUnits])
        #expect(groups[2 * 2 + 1][.dataLossUnits] == groups[1][.dataLossUnits])  // the rest's loss unchanged
        let text = Summary.csv(workload: w, result: r)
        #expect(text.split(separator: "\n")[0].hasSuffix(",variant,variant_reference," + Summary.deltaColumns.dropFirst().map { "variant_" + $0 }.joined(separator: ",")))
        #expect(text.contains(",catalog.named_apps.photo.save_strategy={never: 1},catalog.named_apps.photo.save_strategy={on-enter-background: 1},"))
        // A variant that changes the users builds its own inputs.
        let users = try WorkloadDecoder.applying(["user.sessions_per_day=5"], to: w)
        #expect(!users.buildsSameInputs(as: w))
    }

    @Test("--compare-set merges from shards byte for byte")
    func variantShards() throws {
        let w = try Self.workload(["fleet.devices=5"])
        let (_, whole) = try Self.run(w, variants: Self.saves)
        var states: [(source: String, state: ShardState)] = []
        for i in 0..<2 {
            let (plan, r) = try Self.run(w, variants: Self.saves, shard: (i, 2))
            let text = ShardState(workload: w, overrides: [], usage: nil, plan: plan, result: r).text
            #expect(text.contains("\ncompare: " + Self.saves[1] + "\n"))
            states.append(("s\(i)", try ShardState.parse(text, source: "s\(i)")))
        }
        let (mw, merged, _) = try ShardState.merge(states)
        #expect(Summary.csv(workload: mw, result: merged) == Summary.csv(workload: w, result: whole))
        #expect(Breakdown.csv(workload: mw, result: merged) == Breakdown.csv(workload: w, result: whole))
    }

    @Test("a replayed device's class: by the classes' shares, from its id alone")
    func replayClass() throws {
        let text = try String(contentsOfFile: ExternalPolicyTests.root + "/Workloads/android.yaml", encoding: .utf8)
        let w = try WorkloadDecoder.load(text, source: "android.yaml")
        #expect(w.deviceClasses.count > 1)
        let plan = RunPlan(workload: w, cells: [Cell(policy: PolicyID(rawValue: "lru")!, ramKB: nil)], threads: 1)
        let inputs = DeviceInputs(plan: plan, catalog: AppCatalog(w))
        var counts = [Int](repeating: 0, count: w.deviceClasses.count)
        let n = 4_000
        for d in 0..<n {
            let k = inputs.replayClass("dev\(d)")
            #expect(inputs.replayClass("dev\(d)") == k)
            counts[k] += 1
        }
        let total = w.deviceClasses.reduce(0) { $0 + $1.share }
        for (i, c) in w.deviceClasses.enumerated() {
            let p = c.share / total, sd = (Double(n) * p * (1 - p)).squareRoot()
            #expect(abs(Double(counts[i]) - Double(n) * p) <= 4 * sd + 1, "\(c.name): \(counts[i]) of \(n), share \(p)")
        }
        // One class: always it.
        let one = DeviceInputs(plan: RunPlan(workload: Workload(), cells: plan.cells, threads: 1), catalog: AppCatalog(Workload()))
        #expect((0..<50).allSatisfy { one.replayClass("dev\($0)") == 0 })
    }

    @Test("policies.external.NAME.protocol: 1 by default, 2 and 3 accepted, others refused")
    func protocolVersion() throws {
        let w = try WorkloadDecoder.load("", source: "e", overrides: ["policies.external.x.command=[a]", "policies.external.y.command=[b]",
                                                                       "policies.external.y.protocol=2", "policies.external.z.command=[c]",
                                                                       "policies.external.z.protocol=3"])
        #expect(w.policies.external["x"]?.protocolVersion == 1 && w.policies.external["y"]?.protocolVersion == 2)
        #expect(w.policies.external["z"]?.protocolVersion == 3)
        #expect(!WorkloadPrinter.yaml(w).contains("protocol: 1"))
        #expect(try WorkloadDecoder.load(WorkloadPrinter.yaml(w), source: "printed") == w)
        #expect(throws: InputError.self) { try WorkloadDecoder.load("", source: "e", overrides: ["policies.external.x.command=[a]", "policies.external.x.protocol=4"]) }
        #expect(throws: InputError.self) { try WorkloadDecoder.load("", source: "e", overrides: ["policies.external.x.command=[a]", "policies.external.x.protocol=0"]) }
    }
}
