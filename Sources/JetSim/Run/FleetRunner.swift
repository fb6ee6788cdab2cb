import Foundation
import SimKernel
import Synchronization

/// What to run: a workload, its cells, and how to split the work.
public struct RunPlan: Sendable {
    public var workload: Workload
    public var cells: [Cell]
    /// Worker threads (results do not depend on it).
    public var threads: Int
    /// This shard (0-based) of `shardCount`: devices d with d % shardCount == shardIndex.
    public var shardIndex = 0
    public var shardCount = 1
    /// Replayed usage instead of the synthetic user.
    public var usage: UsageReplay? = nil

    public init(workload: Workload, cells: [Cell], threads: Int) {
        self.workload = workload
        self.cells = cells
        self.threads = threads
    }

    /// The devices of the fleet (or of the usage trace).
    public var fleetSize: Int { usage?.devices.count ?? workload.fleet.devices }

    /// The devices this shard runs, in order.
    public var shardDevices: StrideTo<Int> { stride(from: shardIndex, to: fleetSize, by: shardCount) }
}

/// Live counters a progress display can read while a run goes on.
public final class RunProgress: Sendable {
    public let devicesDone = Atomic<Int>(0)
    public let eventsDone = Atomic<Int>(0)
    public init() {}
}

/// What a run produced. `cellSeconds` (thread-seconds per cell) is performance, kept
/// out of every simulated result.
public struct FleetResult: Sendable {
    public var cells: [Cell]
    public var accumulators: [CellAccumulator]
    public var cellSeconds: [Double]
}

/// Runs a fleet: devices are independent, so workers take chunks of devices; each
/// device's inputs (class, installed apps, timeline) are built once and run in every
/// cell. Per-device results go into per-worker, per-cell integer accumulators that
/// are merged at the end: the outcome is the same for any thread count.
public enum FleetRunner {
    public static let chunkSize = 8

    public static func run(_ plan: RunPlan, catalog: AppCatalog, progress: RunProgress? = nil,
                           perDeviceSink: PerDeviceSink? = nil) -> FleetResult {
        let devices = Array(plan.shardDevices)
        let chunks = (devices.count + chunkSize - 1) / chunkSize
        let threads = max(1, min(plan.threads, max(1, chunks)))
        let next = Atomic<Int>(0)
        let results = Mutex<[(accumulators: [CellAccumulator], seconds: [Double])]>([])
        let shared = Shared(plan: plan, catalog: catalog)
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            var worker = DeviceWorker(shared: shared)
            while true {
                let c = next.add(1, ordering: .relaxed).oldValue
                if c >= chunks { break }
                var rows = perDeviceSink == nil ? nil : String()
                var events = 0
                for i in (c * chunkSize)..<min(devices.count, (c + 1) * chunkSize) {
                    events += worker.runDevice(devices[i], rows: &rows)
                }
                if let sink = perDeviceSink, let rows { sink.deliver(chunk: c, rows: rows) }
                progress?.devicesDone.add(min(devices.count, (c + 1) * chunkSize) - c * chunkSize, ordering: .relaxed)
                progress?.eventsDone.add(events, ordering: .relaxed)
            }
            let acc = worker.accumulators, secs = worker.seconds
            results.withLock { $0.append((acc, secs)) }
        }
        var total = [CellAccumulator](repeating: CellAccumulator(), count: plan.cells.count)
        var seconds = [Double](repeating: 0, count: plan.cells.count)
        results.withLock { all in
            for r in all {
                for i in total.indices {
                    total[i].merge(r.accumulators[i])
                    seconds[i] += r.seconds[i]
                }
            }
        }
        return FleetResult(cells: plan.cells, accumulators: total, cellSeconds: seconds)
    }

    /// Read-only inputs shared by the workers.
    public final class Shared: Sendable {
        let plan: RunPlan
        let catalog: AppCatalog
        let classParams: [[DeviceParameters]]  // [class][cell]
        let context: PolicyContext

        public init(plan: RunPlan, catalog: AppCatalog) {
            self.plan = plan
            self.catalog = catalog
            let w = plan.workload
            classParams = w.deviceClasses.map { c in plan.cells.map { c.parameters(ramKB: $0.ramKB) } }
            context = PolicyContext(seed: w.seed, policies: w.policies)
        }
    }

}

/// A worker's reusable simulation of one policy, called once per device and cell.
/// Built by `PolicyRegistry.Entry` where the policy type is concrete, so the closure
/// runs a device loop compiled for that policy and for a concrete observer.
struct CellRunner {
    /// Runs the device `io` describes, adding its relaunch latencies to `latency`, and
    /// averaging pending events into `pending` when one is given.
    let run: (_ io: DeviceWorker.CellInputs, _ latency: inout LatencyHistogram, _ pending: inout PendingAverage?) -> (DeviceMetrics, Int)

    init<P: EvictionPolicy>(_: P.Type, apps: Int, actions: Int, events: Int) {
        let runner = PolicyRunner<P>()
        runner.reserve(apps: apps, actions: actions, events: events)
        run = { io, latency, pending in
            guard var observer = pending else {
                var none = NoRunObserver()
                return runner.run(io, &latency, &none)
            }
            defer { pending = observer }
            return runner.run(io, &latency, &observer)
        }
    }
}

/// The simulation of `Device<P, NoTrace>` a `CellRunner` reuses device after device.
final class PolicyRunner<P: EvictionPolicy> {
    var sim = Simulation(model: Device<P, NoTrace>(trace: NoTrace()))

    func reserve(apps: Int, actions: Int, events: Int) {
        // One access to the stored simulation (its model and queue are disjoint parts).
        func reserve(_ sim: inout Simulation<Device<P, NoTrace>>) {
            sim.model.reserve(apps: apps, actions: actions, events: events, queue: &sim.scheduler.queue)
        }
        reserve(&sim)
    }

    func run<O: RunObserver>(_ io: DeviceWorker.CellInputs, _ latency: inout LatencyHistogram, _ observer: inout O) -> (DeviceMetrics, Int) {
        DeviceWorker.simulate(&sim, io, &latency, &observer)
    }
}

/// Receives per-device rows chunk by chunk (from any thread) and writes them in
/// device order.
public final class PerDeviceSink: Sendable {
    let state: Mutex<(next: Int, pending: [Int: String])>
    let write: @Sendable (String) -> Void

    public init(write: @escaping @Sendable (String) -> Void) {
        state = Mutex((0, [:]))
        self.write = write
    }

    func deliver(chunk: Int, rows: String) {
        state.withLock { s in
            s.pending[chunk] = rows
            while let r = s.pending.removeValue(forKey: s.next) {
                write(r)
                s.next += 1
            }
        }
    }
}

extension Device {
    /// Drops the device's references to its lent inputs (timeline, installed apps).
    public mutating func releaseInputs() {
        installed = []
        timeline = Timeline()
    }
}

/// Builds one device's inputs (class, installed apps, timeline) into reusable buffers,
/// from the synthetic user or a usage trace. Shared by the batch runner and `jetsim trace`.
public struct DeviceInputs {
    let plan: RunPlan
    let catalog: AppCatalog
    let classChoice: AliasTable
    let user: UserModel
    public internal(set) var timeline = Timeline()
    var scratch = ContiguousArray<UserAction>()
    public internal(set) var installed = ContiguousArray<Int32>()
    /// Apps drawn for the current device: those with `seen[a] == epoch`.
    var seen = ContiguousArray<UInt32>()
    var epoch: UInt32 = 0

    public init(plan: RunPlan, catalog: AppCatalog) {
        self.plan = plan
        self.catalog = catalog
        classChoice = AliasTable(weights: plan.workload.deviceClasses.map(\.share))
        user = UserModel(plan.workload.user, seed: plan.workload.seed)
    }

    /// A generous bound on the apps a device installs (the 99.99th percentile of
    /// the installed-apps distribution, drawn), and on its timeline's length.
    var likelyMaxApps: Int {
        if let usage = plan.usage { return usage.appNames.map(\.count).max() ?? 1 }
        var g = Xoshiro256StarStar(seed: plan.workload.seed, 0xB0D)
        var draws = (0..<10_000).map { _ in plan.workload.catalog.installedPerDevice.sample(&g) }
        draws.sort()
        return min(catalog.profiles.count, max(1, Int(draws[9_998].rounded(.up)) + 1))
    }

    var likelyMaxActions: Int {
        let u = plan.workload.user
        let days = plan.workload.fleet.duration.seconds / 86_400
        // Per session at most a handful of actions per app, plus interruptions; and the
        // all-day events. Doubled for the tail.
        let perDay = u.sessionsPerDay * (6 + 4 * u.extraAppsMean) + u.callsPerDay + u.smsPerDay + u.alertsPerDay
            + u.notificationsPerDay + u.localeChangesPerDay + u.locationChangesPerDay + 24 * u.orientationChangesPerHourOfUse
        return Int(2 * perDay * max(days, 1)) + 256
    }

    /// Reserves room for a device of `apps` apps and `actions` timeline actions.
    mutating func reserve(apps: Int, actions: Int) {
        timeline.actions.reserveCapacity(actions)
        timeline.nextUseAfter.reserveCapacity(actions)
        timeline.firstUse.reserveCapacity(apps)
        scratch.reserveCapacity(actions / 2)
        installed.reserveCapacity(apps)
    }

    /// Fills the buffers for device `d`; returns its device class index.
    public mutating func build(device d: Int) -> Int {
        let device = UInt64(d)
        if let usage = plan.usage {
            usage.build(device: d, catalog: catalog, duration: plan.workload.fleet.duration,
                        installed: &installed, timeline: &timeline)
            return 0
        }
        var g = Xoshiro256StarStar(seed: plan.workload.seed, device, 1)
        let classIndex = classChoice.sample(&g)
        chooseInstalled(device: device)
        user.generate(device: device, appCount: installed.count, duration: plan.workload.fleet.duration,
                      into: &timeline, scratch: &scratch)
        return classIndex
    }

    /// Installs the device's apps: a popularity-weighted draw without replacement
    /// from the catalog; the draw order is the user's personal ranking.
    mutating func chooseInstalled(device: UInt64) {
        let w = plan.workload
        let m = catalog.profiles.count
        var g = Xoshiro256StarStar(seed: w.seed, device, 2)
        let k = min(m, max(1, Int(w.catalog.installedPerDevice.sample(&g).rounded())))
        installed.removeAll(keepingCapacity: true)
        epoch &+= 1
        if seen.count != m || epoch == 0 {
            seen = ContiguousArray(repeating: 0, count: m)
            epoch = 1
        }
        if k * 2 <= m {
            while installed.count < k {
                let a = catalog.popularity.sample(&g)
                if seen[a] != epoch {
                    seen[a] = epoch
                    installed.append(Int32(a))
                }
            }
        } else {
            // Dense: Efraimidis-Spirakis keys u^(1/w), largest first.
            var keyed: [(Double, Int32)] = []
            keyed.reserveCapacity(m)
            for a in 0..<m {
                let weight = 1 / pow(Double(a + 1), w.catalog.popularityZipfExponent)
                keyed.append((pow(g.nextOpenUnit(), 1 / weight), Int32(a)))
            }
            keyed.sort { $0.0 > $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
            for i in 0..<k { installed.append(keyed[i].1) }
        }
    }
}

/// One worker's reusable state: nothing is allocated per event, and after the
/// first devices nothing per device either.
public struct DeviceWorker {
    let shared: FleetRunner.Shared
    var inputs: DeviceInputs
    /// One reusable simulation per registered policy, by registry index.
    var runners: [CellRunner] = []
    /// Per-cell results so far.
    public internal(set) var accumulators: [CellAccumulator]
    var seconds: [Double]
    /// The device class of the inputs built last (-1: none yet).
    var lastClass = -1

    public init(shared: FleetRunner.Shared) {
        self.shared = shared
        inputs = DeviceInputs(plan: shared.plan, catalog: shared.catalog)
        accumulators = [CellAccumulator](repeating: CellAccumulator(), count: shared.plan.cells.count)
        seconds = [Double](repeating: 0, count: shared.plan.cells.count)
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
        if !reusingInputs || lastClass < 0 { lastClass = inputs.build(device: d) }
        let classIndex = lastClass
        var context = shared.context
        context.device = UInt64(d)
        var events = 0
        let clock = ContinuousClock()
        for (ci, cell) in plan.cells.enumerated() {
            let params = shared.classParams[classIndex][ci]
            let start = clock.now
            let (metrics, e) = runCell(cell.policy, params: params, context: context, cell: ci)
            let elapsed = start.duration(to: clock.now)
            seconds[ci] += Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            accumulators[ci].add(metrics, events: e)
            events += e
            if rows != nil {
                rows! += PerDeviceRow.line(device: d, deviceClass: plan.usage == nil ? plan.workload.deviceClasses[classIndex].name : "usage",
                                           cell: cell, ramKB: params.ramKB, apps: inputs.installed.count,
                                           duration: plan.workload.fleet.duration, metrics: metrics, events: e)
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
        runners = PolicyRegistry.all.map { $0.makeCellRunner(apps, actions, events) }
    }

    /// Runs device `d` in the first cell only, averaging the number of pending events
    /// over the run (for comparing the model with the engine's hold rate at the same
    /// queue size). Returns the events handled and that mean.
    public mutating func measurePending(_ d: Int) -> (events: Int, meanPending: Double) {
        let classIndex = inputs.build(device: d)
        var context = shared.context
        context.device = UInt64(d)
        var observer: PendingAverage? = PendingAverage()
        let (_, e) = runCell(shared.plan.cells[0].policy, params: shared.classParams[classIndex][0],
                             context: context, cell: 0, pending: &observer)
        return (e, observer!.mean)
    }

    /// Runs the current device in one cell, with the policy's own specialised loop.
    mutating func runCell(_ policy: PolicyID, params: DeviceParameters, context: PolicyContext, cell: Int) -> (DeviceMetrics, Int) {
        var none: PendingAverage? = nil
        return runCell(policy, params: params, context: context, cell: cell, pending: &none)
    }

    mutating func runCell(_ policy: PolicyID, params: DeviceParameters, context: PolicyContext,
                          cell: Int, pending: inout PendingAverage?) -> (DeviceMetrics, Int) {
        let io = CellInputs(shared: shared, installed: inputs.installed, timeline: inputs.timeline, params: params, context: context)
        return runners[policy.index].run(io, &accumulators[cell].latency, &pending)
    }

    struct CellInputs {
        let shared: FleetRunner.Shared
        let installed: ContiguousArray<Int32>
        let timeline: Timeline
        let params: DeviceParameters
        let context: PolicyContext
    }

    static func simulate<P: EvictionPolicy, O: RunObserver>(_ sim: inout Simulation<Device<P, NoTrace>>, _ io: CellInputs,
                                                            _ latency: inout LatencyHistogram, _ observer: inout O) -> (DeviceMetrics, Int) {
        sim.reset()
        // Lend the device this worker's buffers for the run, and take them back
        // after, so that they stay uniquely owned (no copy-on-write next device).
        sim.model.reset(profiles: io.shared.catalog.profiles, installed: io.installed, params: io.params,
                        timeline: io.timeline, context: io.context)
        swap(&sim.model.relaunchLatency, &latency)
        sim.run(until: io.shared.plan.workload.fleet.duration, observer: &observer)
        swap(&sim.model.relaunchLatency, &latency)
        sim.model.releaseInputs()
        return (sim.model.metrics, sim.eventsHandled)
    }
}
