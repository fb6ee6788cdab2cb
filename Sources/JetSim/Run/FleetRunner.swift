import Foundation
import SimKernel
import Synchronization

/// Runs a fleet: devices are independent, so workers take chunks of devices; each
/// device's inputs (class, installed apps, timeline) are built once and run in every
/// cell. Per-device results go into per-worker, per-cell integer accumulators that
/// are merged at the end: the outcome is the same for any thread count.
public enum FleetRunner {
    public static let chunkSize = 8

    /// Devices per chunk: replayed devices can be long (a whole trace's rows for
    /// one device) and a batch holds few of them, so they go one by one, or two
    /// workers would wait on the last chunk of 8.
    static func chunkSize(_ plan: RunPlan) -> Int { plan.usage != nil ? 1 : chunkSize }

    public static func run(_ plan: RunPlan, catalog: AppCatalog, progress: RunProgress? = nil,
                           perDeviceSink: PerDeviceSink? = nil) -> FleetResult {
        let devices = plan.runDevices
        let chunkSize = Self.chunkSize(plan)
        let chunks = (devices.count + chunkSize - 1) / chunkSize
        let threads = max(1, min(plan.threads, max(1, chunks)))
        let next = Atomic<Int>(0)
        let results = Mutex<[(accumulators: [CellAccumulator], seconds: [Double], groups: [CellAccumulator], series: HourlySeries?, spanSum: SimTime)]>([])
        let shared = Shared(plan: plan, catalog: catalog)
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            var worker = DeviceWorker(shared: shared)
            defer { worker.endProcesses() }
            while !shared.failed.load(ordering: .relaxed) {
                let c = next.add(1, ordering: .relaxed).oldValue
                if c >= chunks { break }
                var rows = perDeviceSink == nil ? nil : String()
                var events = 0
                for i in (c * chunkSize)..<min(devices.count, (c + 1) * chunkSize) where !shared.failed.load(ordering: .relaxed) {
                    events += worker.runDevice(devices[i], rows: &rows)
                }
                if let sink = perDeviceSink, let rows { sink.deliver(chunk: c, rows: rows) }
                progress?.devicesDone.add(min(devices.count, (c + 1) * chunkSize) - c * chunkSize, ordering: .relaxed)
                progress?.eventsDone.add(events, ordering: .relaxed)
            }
            worker.finishGroups()
            let acc = worker.accumulators, secs = worker.seconds, groups = worker.groups, series = worker.series
            let spans = worker.spanSum
            results.withLock { $0.append((acc, secs, groups, series, spans)) }
        }
        var total = [CellAccumulator](repeating: CellAccumulator(), count: plan.cells.count)
        var seconds = [Double](repeating: 0, count: plan.cells.count)
        let names = plan.groupNames
        var series: HourlySeries? = nil
        var spanSum = SimTime.zero
        var groups = [CellAccumulator](repeating: CellAccumulator(), count: plan.groupBy == nil ? 0 : plan.cells.count * names.count)
        results.withLock { all in
            for r in all {
                spanSum = spanSum + r.spanSum
                for i in groups.indices { groups[i].merge(r.groups[i]) }
                if let s = r.series {
                    if series == nil { series = HourlySeries(cells: s.cells, hours: s.hours) }
                    series!.merge(s)
                }
                for i in total.indices {
                    total[i].merge(r.accumulators[i])
                    seconds[i] += r.seconds[i]
                }
            }
        }
        return FleetResult(cells: plan.cells, accumulators: total, cellSeconds: seconds, baseline: plan.baseline,
                           groupBy: plan.groupBy, groupNames: names, groups: plan.groupBy == nil ? nil : groups, series: series,
                           spanSum: spanSum, failure: shared.failure.withLock { $0 }, variants: plan.variants)
    }

    /// Read-only inputs shared by the workers.
    public final class Shared: Sendable {
        let plan: RunPlan
        let catalog: AppCatalog
        /// Each variant's catalog (`plan.variants`; without variants, `catalog` alone).
        let catalogs: [AppCatalog]
        /// The inputs each variant's devices are built from: the index of the first
        /// variant whose workload builds the same inputs (`Workload.buildsSameInputs`), so
        /// variants that change no input share one build per device.
        let inputOf: [Int]
        /// Each cell's device parameters by class of the cell's variant, flat (one array
        /// for the run, not one per cell): cell c's class k is at `paramsStart[c] + k`.
        let params: [DeviceParameters]
        let paramsStart: [Int]
        /// The catalog's profiles as they are on each class's device in each cell
        /// (`AppCatalog.profiles(fittedTo:)`), indexed as `params`: one array per
        /// distinct fit, shared.
        let profiles: [ContiguousArray<AppProfile>]
        /// Each variant's policy context (a variant may change a policy's `policies.*`).
        let contexts: [PolicyContext]
        var context: PolicyContext { contexts[0] }
        /// `--by archetype` or `app`: each variant's profiles' groups (lent to every device).
        let groupOf: [ContiguousArray<Int32>]
        /// The external policies of the cells, by NAME: each worker starts a process
        /// of each.
        let external: [(name: String, spec: ExternalPolicySpec)]
        /// The first failure of an external policy's process; `failed` stops every worker.
        let failure = Mutex<String?>(nil)
        let failed = Atomic<Bool>(false)

        func fail(_ message: String) {
            failure.withLock { if $0 == nil { $0 = message } }
            failed.store(true, ordering: .relaxed)
        }

        public init(plan: RunPlan, catalog: AppCatalog) {
            self.plan = plan
            self.catalog = catalog
            let workloads = plan.variants.isEmpty ? [plan.workload] : plan.variants.map(\.workload)
            catalogs = plan.variants.isEmpty ? [catalog] : workloads.map { AppCatalog($0) }
            inputOf = workloads.indices.map { v in workloads.firstIndex { $0.buildsSameInputs(as: workloads[v]) }! }
            groupOf = catalogs.map { plan.groupBy?.groupOf($0) ?? [] }
            let w = plan.workload
            var params: [DeviceParameters] = [], starts: [Int] = [], profiles: [ContiguousArray<AppProfile>] = []
            // The fits made so far (a scan: a handful of cells and classes).
            var fits: [(variant: Int, fitKB: Int64, at: Int)] = []
            for cell in plan.cells {
                starts.append(params.count)
                for c in workloads[cell.variant].deviceClasses {
                    let p = c.parameters(ramKB: cell.ramKB)
                    if let f = fits.first(where: { $0.variant == cell.variant && $0.fitKB == p.appFitKB }) {
                        profiles.append(profiles[f.at])
                    } else {
                        fits.append((cell.variant, p.appFitKB, profiles.count))
                        profiles.append(catalogs[cell.variant].profiles(fittedTo: p))
                    }
                    params.append(p)
                }
            }
            self.params = params
            paramsStart = starts
            self.profiles = profiles
            // A variant may change a policy's parameters (`policies.*`): each its own.
            contexts = workloads.map { PolicyContext(seed: $0.seed, policies: $0.policies) }
            var names: [String] = []
            for c in plan.cells { if let n = c.policy.external, !names.contains(n) { names.append(n) } }
            external = names.map { n in (n, w.policies.external[n] ?? ExternalPolicySpec()) }
        }
    }

}

/// A worker's reusable simulation of one policy, called once per device and cell.
/// Built by `PolicyRunners.Entry` where the policy type is concrete, so the closure
/// runs a device loop compiled for that policy and for a concrete observer.
struct CellRunner {
    /// Runs the device `io` describes, adding its relaunch latencies to the histograms
    /// of `acc` (its other fields are left to the caller), and averaging pending events
    /// into `pending` when one is given.
    let run: (_ io: DeviceWorker.CellInputs, _ acc: inout CellAccumulator, _ pending: inout PendingAverage?) -> (DeviceMetrics, Int)

    init<P: EvictionPolicy>(_: P.Type, apps: Int, actions: Int, events: Int) {
        self.init(PolicyRunner<P>(), apps: apps, actions: actions, events: events)
    }

    /// An external policy's runner, asking `process`.
    init(external process: PolicyProcess, apps: Int, actions: Int, events: Int) {
        let runner = PolicyRunner<ExternalPolicy>()
        runner.sim.model.policy.link.process = process
        // A failure of the process stops its device at the next hour, not at its end.
        runner.stop = { process.failure != nil }
        self.init(runner, apps: apps, actions: actions, events: events)
    }

    init<P: EvictionPolicy>(_ runner: PolicyRunner<P>, apps: Int, actions: Int, events: Int) {
        runner.reserve(apps: apps, actions: actions, events: events)
        run = { io, acc, pending in
            guard var observer = pending else {
                var none = NoRunObserver()
                return runner.run(io, &acc, &none)
            }
            defer { pending = observer }
            return runner.run(io, &acc, &observer)
        }
    }
}

/// The simulation of `Device<P, NoTrace>` a `CellRunner` reuses device after device.
final class PolicyRunner<P: EvictionPolicy> {
    var sim = Simulation(model: Device<P, NoTrace>(trace: NoTrace()))
    /// Asked between hours of simulated time, when set (an external policy's runner:
    /// true once its process failed); nil: the device runs in one go.
    var stop: (() -> Bool)? = nil

    func reserve(apps: Int, actions: Int, events: Int) {
        // One access to the stored simulation (its model and queue are disjoint parts).
        func reserve(_ sim: inout Simulation<Device<P, NoTrace>>) {
            sim.model.reserve(apps: apps, actions: actions, events: events, queue: &sim.scheduler.queue)
        }
        reserve(&sim)
    }

    func run<O: RunObserver>(_ io: DeviceWorker.CellInputs, _ acc: inout CellAccumulator, _ observer: inout O) -> (DeviceMetrics, Int) {
        DeviceWorker.simulate(&sim, io, &acc.kindLatency, &observer, stop: stop)
    }
}

extension Device {
    /// Drops the device's references to its lent inputs (timeline, installed apps).
    public mutating func releaseInputs() {
        core.installed = []
        core.timeline = Timeline()
    }
}
