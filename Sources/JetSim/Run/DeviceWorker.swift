import Foundation
import SimKernel
import Synchronization

/// One worker's reusable state: nothing is allocated per event, and after the
/// first devices nothing per device either.
public struct DeviceWorker {
    let shared: FleetRunner.Shared
    var inputs: DeviceInputs
    /// One reusable simulation per registered policy, by registry index.
    var runners: [CellRunner] = []
    /// One per external policy of the cells (`shared.external`'s order), and its process.
    var externalRunners: [CellRunner] = []
    var processes: [PolicyProcess] = []
    /// Per-cell results so far.
    public internal(set) var accumulators: [CellAccumulator]
    var seconds: [Double]
    /// The device class of the inputs built last (-1: none yet).
    var lastClass = -1
    /// With a baseline: each cell's baseline cell, and the current device's metrics per cell.
    let baselineCells: [Int]?
    var deviceMetrics: [DeviceMetrics]
    /// With `--by`: per cell and group (`cell * groupCount + group`).
    public internal(set) var groups: [CellAccumulator]
    let groupCount: Int
    /// With `--timeseries`: this worker's hourly sums.
    public let series: HourlySeries?
    /// With `--by archetype`: the current device's counts per archetype.
    let tally: ArchetypeTally?
    /// With `--by archetype` and a baseline: the current device's counts per cell and
    /// archetype (`cell * groupCount + group`), for the groups' paired sums.
    var tallies: [DeviceMetrics] = []
    /// The sum of the run lengths of the devices built (`DeviceInputs.until`).
    public internal(set) var spanSum = SimTime.zero

    public init(shared: FleetRunner.Shared) {
        self.shared = shared
        inputs = DeviceInputs(plan: shared.plan, catalog: shared.catalog, chunked: true)
        accumulators = [CellAccumulator](repeating: CellAccumulator(), count: shared.plan.cells.count)
        seconds = [Double](repeating: 0, count: shared.plan.cells.count)
        baselineCells = shared.plan.baselineCells
        deviceMetrics = [DeviceMetrics](repeating: DeviceMetrics(), count: baselineCells == nil ? 0 : shared.plan.cells.count)
        if baselineCells != nil { for i in accumulators.indices { accumulators[i].paired = PairedSums() } }
        groupCount = shared.plan.groupBy == nil ? 0 : shared.plan.groupNames.count
        groups = [CellAccumulator](repeating: CellAccumulator(), count: shared.plan.cells.count * groupCount)
        tally = shared.plan.groupBy == .archetype ? ArchetypeTally(archetypes: groupCount) : nil
        if baselineCells != nil, groupCount > 0 {
            // Each group compared with the baseline cell's same group, device by device.
            for i in groups.indices { groups[i].paired = PairedSums() }
            if tally != nil { tallies = [DeviceMetrics](repeating: DeviceMetrics(), count: groups.count) }
        }
        series = shared.plan.timeSeries ? HourlySeries(cells: shared.plan.cells.count, hours: HourlySeries.hours(shared.plan.workload.fleet.duration)) : nil
        reserve()
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
        if built { lastClass = inputs.build(device: d) }
        let classIndex = lastClass
        var context = shared.context
        context.device = UInt64(d)
        var events = 0
        let clock = ContinuousClock()
        for (ci, cell) in plan.cells.enumerated() {
            let params = shared.classParams[classIndex][ci]
            let start = clock.now
            let (metrics, e) = runCell(cell.policy, params: params, profiles: shared.classProfiles[classIndex][ci], context: context, cell: ci)
            let elapsed = start.duration(to: clock.now)
            // A device fed chunk by chunk knows its span once it has run.
            if inputs.feeding { inputs.until = inputs.feed!.until }
            seconds[ci] += Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            accumulators[ci].add(metrics, events: e)
            if baselineCells != nil { deviceMetrics[ci] = metrics }
            if let tally {
                for g in 0..<groupCount { groups[ci * groupCount + g].add(tally.values[g], events: 0) }
                if !tallies.isEmpty { for g in 0..<groupCount { tallies[ci * groupCount + g] = tally.values[g] } }
            } else if groupCount > 0 {
                groups[ci * groupCount + (plan.usage == nil ? classIndex : 0)].add(metrics, events: e)
            }
            events += e
            if rows != nil {
                rows! += PerDeviceRow.line(device: d, deviceClass: plan.usage == nil ? plan.workload.deviceClasses[classIndex].name : "usage",
                                           cell: cell, ramKB: params.ramKB, apps: inputs.installed.count,
                                           duration: inputs.until, metrics: metrics, events: e,
                                           deviceName: plan.usage?.name(ofDevice: d) ?? "")
            }
        }
        if built { spanSum = spanSum + inputs.until }
        if let baselineCells {
            for ci in baselineCells.indices { accumulators[ci].paired!.add(deviceMetrics[ci], deviceMetrics[baselineCells[ci]]) }
            if !tallies.isEmpty {
                for ci in baselineCells.indices {
                    for g in 0..<groupCount {
                        groups[ci * groupCount + g].paired!.add(tallies[ci * groupCount + g], tallies[baselineCells[ci] * groupCount + g])
                    }
                }
            } else if groupCount > 0 {
                // One group a device (its class; a replay's one group).
                let g = plan.usage == nil ? classIndex : 0
                for ci in baselineCells.indices {
                    groups[ci * groupCount + g].paired!.add(deviceMetrics[ci], deviceMetrics[baselineCells[ci]])
                }
            }
        }
        return events
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
        let (_, e) = runCell(shared.plan.cells[0].policy, params: shared.classParams[classIndex][0], profiles: shared.classProfiles[classIndex][0],
                             context: context, cell: 0, pending: &observer)
        return (e, observer!.mean)
    }

    /// Runs the current device in one cell, with the policy's own specialised loop.
    mutating func runCell(_ policy: PolicyID, params: DeviceParameters, profiles: ContiguousArray<AppProfile>,
                          context: PolicyContext, cell: Int) -> (DeviceMetrics, Int) {
        var none: PendingAverage? = nil
        return runCell(policy, params: params, profiles: profiles, context: context, cell: cell, pending: &none)
    }

    mutating func runCell(_ policy: PolicyID, params: DeviceParameters, profiles: ContiguousArray<AppProfile>, context: PolicyContext,
                          cell: Int, pending: inout PendingAverage?) -> (DeviceMetrics, Int) {
        let io = CellInputs(shared: shared, installed: inputs.installed, timeline: inputs.timeline, params: params,
                            profiles: profiles, context: context,
                            until: inputs.until, feed: inputs.feeding ? inputs.feed : nil, cell: cell, series: series, tally: tally)
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
        /// With `--by archetype`: where the device counts per archetype (zeroed here).
        let tally: ArchetypeTally?
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
            sim.model.archetypeOf = io.shared.archetypeOf
            swap(&sim.model.byArchetype, &tally.values)
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
        if let tally = io.tally { swap(&sim.model.byArchetype, &tally.values) }
        sim.model.releaseInputs()
        return (sim.model.metrics, sim.eventsHandled)
    }
}
