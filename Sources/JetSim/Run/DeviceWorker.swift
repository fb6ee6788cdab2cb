import Foundation
import SimKernel
import Synchronization

/// One worker's reusable state: nothing is allocated per event, and after the
/// first devices nothing per device either.
public struct DeviceWorker {
    let shared: FleetRunner.Shared
    var inputs: DeviceInputs
    /// With `--compare-set`: the inputs of each variant whose devices are built apart
    /// (`shared.inputOf`: index k > 0 is `variantInputs[k - 1]`).
    var variantInputs: [DeviceInputs] = []
    /// One reusable simulation per registered policy, by registry index.
    var runners: [CellRunner] = []
    /// One per external policy of the cells (`shared.external`'s order), and its process.
    var externalRunners: [CellRunner] = []
    var processes: [PolicyProcess] = []
    /// Per-cell results so far.
    public internal(set) var accumulators: [CellAccumulator]
    var seconds: [Double]
    /// The device class of the inputs built last (-1: none yet), and each variant's
    /// inputs' (`variantInputs`).
    var lastClass = -1
    var variantClass: [Int] = []
    /// With `--by class` and a baseline or variants: the current device's class in each cell.
    var cellClass: [Int] = []
    /// With a baseline: each cell's baseline cell; with variants: each cell's cell in
    /// the reference variant; and the current device's metrics per cell.
    let baselineCells: [Int]?
    let referenceCells: [Int]?
    var deviceMetrics: [DeviceMetrics]
    /// With `--by`: per cell and group (`cell * groupCount + group`).
    public internal(set) var groups: [CellAccumulator]
    let groupCount: Int
    /// With `--timeseries`: this worker's hourly sums.
    public let series: HourlySeries?
    /// With `--by archetype` or `app`: the current device's counts per group.
    let tally: ArchetypeTally?
    /// With `--by archetype` or `app` and a baseline or variants: the current device's
    /// counts per cell and group (`cell * groupCount + group`), for the groups' paired sums.
    var tallies: [DeviceMetrics] = []
    /// With `--by app`: whether the current device installed each group's app, by inputs
    /// (`shared.inputOf`'s index; the drawn apps' group: always).
    var installedGroups: [[Bool]] = []
    /// The sum of the run lengths of the devices built (`DeviceInputs.until`).
    public internal(set) var spanSum = SimTime.zero

    public init(shared: FleetRunner.Shared) {
        self.shared = shared
        inputs = DeviceInputs(plan: shared.plan, catalog: shared.catalog, chunked: true)
        let cells = shared.plan.cells.count
        for v in shared.inputOf.indices where v > 0 && shared.inputOf[v] == v {
            var p = shared.plan
            p.workload = shared.plan.variants[v].workload
            variantInputs.append(DeviceInputs(plan: p, catalog: shared.catalogs[v], chunked: true))
        }
        variantClass = [Int](repeating: -1, count: variantInputs.count)
        accumulators = [CellAccumulator](repeating: CellAccumulator(), count: cells)
        seconds = [Double](repeating: 0, count: cells)
        baselineCells = shared.plan.baselineCells
        referenceCells = shared.plan.variantReferenceCells
        deviceMetrics = [DeviceMetrics](repeating: DeviceMetrics(), count: baselineCells == nil && referenceCells == nil ? 0 : cells)
        if baselineCells != nil { for i in accumulators.indices { accumulators[i].paired = PairedSums() } }
        if referenceCells != nil { for i in accumulators.indices { accumulators[i].variantPaired = PairedSums() } }
        groupCount = shared.plan.groupBy == nil ? 0 : shared.plan.groupNames.count
        groups = [CellAccumulator](repeating: CellAccumulator(), count: cells * groupCount)
        let byApp = shared.plan.groupBy == .app
        tally = shared.plan.groupBy == .archetype || byApp ? ArchetypeTally(archetypes: groupCount, latencyCells: byApp ? cells : 0) : nil
        if byApp { for i in groups.indices { groups[i].app = AppSums() } }
        if groupCount > 0 {
            // Each group compared with the baseline cell's same group, device by device,
            // and with the reference variant's.
            if baselineCells != nil { for i in groups.indices { groups[i].paired = PairedSums() } }
            if referenceCells != nil { for i in groups.indices { groups[i].variantPaired = PairedSums() } }
            if tally != nil, baselineCells != nil || referenceCells != nil { tallies = [DeviceMetrics](repeating: DeviceMetrics(), count: groups.count) }
            if tally == nil, baselineCells != nil || referenceCells != nil { cellClass = [Int](repeating: 0, count: cells) }
        }
        series = shared.plan.timeSeries ? HourlySeries(cells: cells, hours: HourlySeries.hours(shared.plan.workload.fleet.duration)) : nil
        reserve()
    }

    /// Moves the groups' relaunch latencies (`--by app`, kept in the tally while devices
    /// run) into `groups` (as latencies of no relaunch kind: the groups keep none per
    /// kind). Once, when the worker is done.
    public mutating func finishGroups() {
        guard let tally, !tally.latency.isEmpty else { return }
        for ci in tally.latency.indices {
            for g in 0..<groupCount {
                groups[ci * groupCount + g].latencyWithoutKind.merge(tally.latency[ci][g])
                tally.latency[ci][g].reset()
            }
        }
    }

    /// Runs device `d` in every cell; returns the events handled. With
    /// `reusingInputs`, the inputs built by the previous call (for the same device) are
    /// run again without being rebuilt: for benchmarks that time the simulation alone.
    public mutating func runDevice(_ d: Int, reusingInputs: Bool = false) -> Int {
        var none: String? = nil
        return runDevice(d, rows: &none, reusingInputs: reusingInputs)
    }

    mutating func runDevice(_ d: Int, rows: inout String?, reusingInputs: Bool = false) -> Int {
        let plan = shared.plan
        let built = !reusingInputs || lastClass < 0
        if built {
            lastClass = inputs.build(device: d)
            for i in variantInputs.indices { variantClass[i] = variantInputs[i].build(device: d) }
            if tally != nil, !tally!.latency.isEmpty { noteInstalledGroups() }
        }
        var events = 0
        let clock = ContinuousClock()
        for (ci, cell) in plan.cells.enumerated() {
            let k = shared.inputOf[cell.variant]
            let classIndex = k == 0 ? lastClass : variantClass[variantSlot(k)]
            if !cellClass.isEmpty { cellClass[ci] = classIndex }
            let at = shared.paramsStart[ci] + classIndex
            let params = shared.params[at]
            var context = shared.contexts[cell.variant]
            context.device = UInt64(d)
            let start = clock.now
            let (metrics, e) = runCell(cell.policy, params: params, profiles: shared.profiles[at], context: context, cell: ci, inputs: k)
            let elapsed = start.duration(to: clock.now)
            // A device fed chunk by chunk knows its span once it has run.
            if inputs.feeding { inputs.until = inputs.feed!.until }
            seconds[ci] += Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            accumulators[ci].add(metrics, events: e)
            if !deviceMetrics.isEmpty { deviceMetrics[ci] = metrics }
            if let tally {
                for g in 0..<groupCount {
                    groups[ci * groupCount + g].add(tally.values[g], events: 0)
                    if !tally.latency.isEmpty { groups[ci * groupCount + g].app!.add(tally.values[g], installed: installedGroups[cell.variant][g]) }
                }
                if !tallies.isEmpty { for g in 0..<groupCount { tallies[ci * groupCount + g] = tally.values[g] } }
            } else if groupCount > 0 {
                groups[ci * groupCount + classIndex].add(metrics, events: e)
            }
            events += e
            if rows != nil {
                let w = plan.workload(of: cell)
                let named = k == 0 ? inputs : variantInputs[variantSlot(k)]
                let className = plan.usage == nil || w.deviceClasses.count > 1 ? w.deviceClasses[classIndex].name : "usage"
                rows! += PerDeviceRow.line(device: d, deviceClass: className,
                                           cell: cell, ramKB: params.ramKB, apps: named.installed.count,
                                           duration: inputs.until, metrics: metrics, events: e,
                                           deviceName: plan.usage?.name(ofDevice: d) ?? "",
                                           variant: plan.variants.isEmpty ? nil : plan.variants[cell.variant].label)
            }
        }
        if built { spanSum = spanSum + inputs.until }
        if let baselineCells { pair(baselineCells, \.paired) }
        if let referenceCells { pair(referenceCells, \.variantPaired) }
        return events
    }

    /// The slot in `variantInputs` of inputs index `k` (> 0).
    @inline(__always) func variantSlot(_ k: Int) -> Int {
        var slot = 0
        for v in 1..<k where shared.inputOf[v] == v { slot += 1 }
        return slot
    }

    /// Adds the current device to each cell's paired sums with cell `to[ci]` (the
    /// baseline's, or the reference variant's), and each group's.
    mutating func pair(_ to: [Int], _ sums: WritableKeyPath<CellAccumulator, PairedSums?>) {
        for ci in to.indices { accumulators[ci][keyPath: sums]!.add(deviceMetrics[ci], deviceMetrics[to[ci]]) }
        if !tallies.isEmpty {
            for ci in to.indices {
                for g in 0..<groupCount {
                    groups[ci * groupCount + g][keyPath: sums]!.add(tallies[ci * groupCount + g], tallies[to[ci] * groupCount + g])
                }
            }
        } else if groupCount > 0 {
            // One group a device (its class in the cell's variant).
            for ci in to.indices {
                groups[ci * groupCount + cellClass[ci]][keyPath: sums]!.add(deviceMetrics[ci], deviceMetrics[to[ci]])
            }
        }
    }

    /// `--by app`: which groups' apps the current device installed, for each inputs.
    mutating func noteInstalledGroups() {
        let all = [inputs] + variantInputs
        installedGroups = shared.inputOf.indices.map { v in
            let k = shared.inputOf[v]
            let installed = k == 0 ? all[0].installed : all[1 + variantSlot(k)].installed
            let c = shared.catalogs[v]
            return (0..<groupCount).map { g in
                g == groupCount - 1 || installed.contains(Int32(c.drawn + g))
            }
        }
    }

    /// Sizes every buffer for the largest device the workload is likely to produce, so
    /// that a fleet run allocates a fixed amount, not more as the fleet grows (a rarer,
    /// larger device still works: its buffers grow once).
    mutating func reserve() {
        let apps = inputs.likelyMaxApps
        let actions = inputs.likelyMaxActions
        inputs.reserve(apps: apps, actions: actions)
        let events = 64 + apps
        runners = PolicyRunners.all.map { $0.makeCellRunner(apps, actions, events) }
        for (name, spec) in shared.external {
            let process = PolicyProcess(name: name, spec: spec)
            if let f = process.failure { shared.fail(f) }
            processes.append(process)
            externalRunners.append(CellRunner(external: process, apps: apps, actions: actions, events: events))
        }
    }

    /// Ends this worker's policy processes (closing their input; killed if they do not
    /// exit within their timeout).
    public mutating func endProcesses() {
        for p in processes { p.close() }
    }

    /// Reports the first failure of this worker's processes to every worker.
    func checkProcesses() {
        for p in processes { if let f = p.failure { shared.fail(f) } }
    }

    /// Runs device `d` in the first cell only, averaging the number of pending events
    /// over the run (for comparing the model with the engine's hold rate at the same
    /// queue size). Returns the events handled and that mean.
    public mutating func measurePending(_ d: Int) -> (events: Int, meanPending: Double) {
        let classIndex = inputs.build(device: d)
        var context = shared.context
        context.device = UInt64(d)
        var observer: PendingAverage? = PendingAverage()
        let (_, e) = runCell(shared.plan.cells[0].policy, params: shared.params[classIndex], profiles: shared.profiles[classIndex],
                             context: context, cell: 0, inputs: 0, pending: &observer)
        return (e, observer!.mean)
    }

    /// Runs the current device in one cell, with the policy's own specialised loop.
    mutating func runCell(_ policy: PolicyID, params: DeviceParameters, profiles: ContiguousArray<AppProfile>,
                          context: PolicyContext, cell: Int, inputs k: Int) -> (DeviceMetrics, Int) {
        var none: PendingAverage? = nil
        return runCell(policy, params: params, profiles: profiles, context: context, cell: cell, inputs: k, pending: &none)
    }

    mutating func runCell(_ policy: PolicyID, params: DeviceParameters, profiles: ContiguousArray<AppProfile>, context: PolicyContext,
                          cell: Int, inputs k: Int, pending: inout PendingAverage?) -> (DeviceMetrics, Int) {
        let from = k == 0 ? inputs : variantInputs[variantSlot(k)]
        let v = shared.plan.cells[cell].variant
        let io = CellInputs(shared: shared, installed: from.installed, timeline: from.timeline, params: params,
                            profiles: profiles, context: context,
                            until: from.until, feed: from.feeding ? from.feed : nil, cell: cell, series: series, tally: tally,
                            groupOf: tally == nil ? [] : shared.groupOf[v])
        guard let name = policy.external else { return runners[policy.index].run(io, &accumulators[cell], &pending) }
        let r = externalRunners[shared.external.firstIndex { $0.name == name }!].run(io, &accumulators[cell], &pending)
        checkProcesses()
        return r
    }

    struct CellInputs {
        let shared: FleetRunner.Shared
        let installed: ContiguousArray<Int32>
        let timeline: Timeline
        let params: DeviceParameters
        /// The catalog's profiles fitted to this device (`FleetRunner.Shared.classProfiles`).
        let profiles: ContiguousArray<AppProfile>
        let context: PolicyContext
        /// How long the device runs (a device fed chunk by chunk: `feed.until`, known at its end).
        let until: SimTime
        /// A replayed device fed chunk by chunk (nil: `timeline` is whole).
        let feed: ReplayFeed?
        /// The cell, and the hourly series to add to (nil: none).
        let cell: Int
        let series: HourlySeries?
        /// With `--by archetype` or `app`: where the device counts per group (zeroed
        /// here), and each profile's group.
        let tally: ArchetypeTally?
        let groupOf: ContiguousArray<Int32>
    }

    static func simulate<P: EvictionPolicy, O: RunObserver>(_ sim: inout Simulation<Device<P, NoTrace>>, _ io: CellInputs,
                                                            _ kindLatency: inout RelaunchKindLatencies,
                                                            _ observer: inout O, stop: (() -> Bool)? = nil) -> (DeviceMetrics, Int) {
        sim.reset()
        // Lend the device this worker's buffers for the run, and take them back
        // after, so that they stay uniquely owned (no copy-on-write next device).
        if let feed = io.feed {
            // The feed's chunk storage, held by the device alone (each chunk is
            // appended in place).
            var first = Timeline()
            swap(&first, &feed.buffer)
            feed.begin(&first)
            sim.model.reset(profiles: io.profiles, installed: io.installed, params: io.params, timeline: first, context: io.context)
        } else {
            sim.model.reset(profiles: io.profiles, installed: io.installed, params: io.params,
                            timeline: io.timeline, context: io.context)
        }
        swap(&sim.model.relaunchLatencyByKind, &kindLatency)
        if let tally = io.tally {
            for g in tally.values.indices { tally.values[g] = DeviceMetrics() }
            sim.model.archetypeOf = io.groupOf
            swap(&sim.model.byArchetype, &tally.values)
            if !tally.latency.isEmpty { swap(&sim.model.core.byArchetypeLatency, &tally.latency[io.cell]) }
        }
        if let series = io.series {
            // Hour by hour: the same events as one run (events at or before each end).
            var previous = DeviceMetrics()
            for h in 0..<series.hours where stop?() != true {
                if let feed = io.feed {
                    ReplayFeed.run(&sim, feed, to: SimTime.hours(Int64(h + 1)), observer: &observer)
                } else {
                    sim.run(until: min(SimTime.hours(Int64(h + 1)), io.until), observer: &observer)
                }
                series.sample(sim.model, cell: io.cell, hour: h, previous: &previous)
            }
        }
        if let stop {
            // Hour by hour (the same events as one run), until the device's end or
            // `stop` says so: an external policy whose process failed answers without
            // asking, and its device need not run on.
            var h: Int64 = 1
            while !stop() {
                let t = SimTime.hours(h)
                if let feed = io.feed {
                    if !feed.more && t >= feed.until { ReplayFeed.run(&sim, feed, to: nil, observer: &observer); break }
                    ReplayFeed.run(&sim, feed, to: t, observer: &observer)
                } else {
                    sim.run(until: min(t, io.until), observer: &observer)
                    if t >= io.until { break }
                }
                h += 1
            }
            if let feed = io.feed { swap(&feed.buffer, &sim.model.core.timeline) }
        } else if let feed = io.feed {
            ReplayFeed.run(&sim, feed, to: nil, observer: &observer)
            swap(&feed.buffer, &sim.model.core.timeline)
        } else {
            sim.run(until: io.until, observer: &observer)
        }
        swap(&sim.model.relaunchLatencyByKind, &kindLatency)
        if let tally = io.tally {
            swap(&sim.model.byArchetype, &tally.values)
            if !tally.latency.isEmpty { swap(&sim.model.core.byArchetypeLatency, &tally.latency[io.cell]) }
        }
        sim.model.releaseInputs()
        return (sim.model.metrics, sim.eventsHandled)
    }
}
