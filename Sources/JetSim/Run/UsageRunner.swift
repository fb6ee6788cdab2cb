import Dispatch
import SimKernel
import Synchronization

/// Runs a usage trace streamed from disk: reads whole devices until a batch holds
/// `batchRows` rows, runs the batch on every worker (`FleetRunner`), and goes on
/// with the next. Reading overlaps the simulation: while the workers run batch k,
/// this thread reads batch k+1 (so parsing takes no extra wall time when the
/// simulation is the slower part, and both cores are busy). Memory: two batches of
/// rows and the ids of the devices read, not the trace. The outcome is the same for
/// any batch size or thread count (devices keep their run index; accumulators add
/// integers; per-device rows are written batch after batch, in device order).
public enum UsageRunner {
    /// Rows per batch: 2^18 rows are about 6 MB of uses (a longer device is a batch of
    /// its own, its rows past 2^18 spilled to a file as they are read: `RowSpill`);
    /// each worker's timeline holds a chunk of its device's rows at a time
    /// (`ReplayFeed`: about 3 MB), not the device's.
    public static let defaultBatchRows = 1 << 18

    public struct Outcome: Sendable {
        public var result: FleetResult
        /// Devices and rows read (all shards).
        public var devices = 0
        public var rows = 0
        /// Rows that start at or after their device's end (`--duration`): not replayed.
        public var rowsPastEnd = 0
        /// How the trace's app names were matched to profiles (all its devices read).
        public var apps = ReplayAppCensus()
        /// The sum of the spans of the devices this shard ran.
        public var spanSum = SimTime.zero
        /// The mean span of this shard's devices (zero if none).
        public var meanSpan: SimTime {
            let n = result.accumulators.first?.devices ?? 0
            return n > 0 ? SimTime(microseconds: spanSum.microseconds / Int64(n)) : .zero
        }
    }

    /// The most distinct apps a replayed device may name while the system arrivals are
    /// on (the archetypes' `*_per_day` rates, prewarms): every app the device names has
    /// its own arrivals, so a cache-style trace of 300,000 names made 300,000 apps'
    /// pushes and refreshes. *Assumption*: a phone installs a few hundred apps (Falaki
    /// et al. 2010: 10-90 used); a trace naming more is a cache trace, which runs with
    /// the arrivals off (`Workloads/lru-reference.yaml`). A device past it is refused
    /// when it is read, before it runs.
    public static let maxAppsWithSystemArrivals = 10_000

    /// Whether a replayed device of `plan` gets system arrivals: a catalog profile
    /// with a rate above 0 (prewarms only where the device class prewarms).
    public static func replayHasSystemArrivals(_ plan: RunPlan, catalog: AppCatalog) -> Bool {
        // A replayed device runs on any class of the workload (by its id's hash).
        let prewarms = plan.workload.deviceClasses.contains { c in
            plan.cells.contains { cell in c.parameters(ramKB: cell.ramKB).prewarms }
        }
        return catalog.profiles.contains { p in
            SystemWakeKind.allCases.contains { k in p.wakesPerDay(k) > 0 && (k != .prewarm || prewarms) }
        }
    }

    /// Refuses a device of `batch` that names more than `maxAppsWithSystemArrivals`
    /// apps while `arrivals` are on (an error naming the trace and the device).
    public static func checkApps(_ batch: UsageReplay, arrivals: Bool, source: String) throws(InputError) {
        guard arrivals else { return }
        for (i, names) in batch.appNames.enumerated() where names.count > maxAppsWithSystemArrivals {
            throw InputError(source: source, "device '\(batch.devices[i])' names \(names.count) distinct apps; with system arrivals on (the archetypes' location_wakes_per_day, voip_pushes_per_day, silent_pushes_per_day, background_refreshes_per_day and prewarms_per_day, each app's own) a replayed device may name at most \(maxAppsWithSystemArrivals): set those rates to 0 (as Workloads/lru-reference.yaml does) to replay it as a cache trace")
        }
    }

    /// The result of a batch run on another thread.
    final class Pending: Sendable {
        let result = Mutex<FleetResult?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    /// Runs `plan` (its `usage` is replaced batch by batch) over the devices `stream`
    /// yields, at most `deviceLimit` of them.
    public static func run(_ plan: RunPlan, stream: inout UsageStream, catalog: AppCatalog, deviceLimit: Int? = nil,
                           progress: RunProgress? = nil, perDeviceSink: PerDeviceSink? = nil,
                           batchRows: Int = defaultBatchRows) throws(InputError) -> Outcome {
        var accumulators = [CellAccumulator](repeating: CellAccumulator(), count: plan.cells.count)
        var seconds = [Double](repeating: 0, count: plan.cells.count)
        // A replay's groups: its devices' classes (one, "usage", on a one-class
        // workload) or the apps' archetypes.
        var groups: [CellAccumulator]? = plan.groupBy == nil ? nil : [CellAccumulator](repeating: CellAccumulator(), count: plan.cells.count * plan.groupNames.count)
        var outcome = Outcome(result: FleetResult(cells: plan.cells, accumulators: [], cellSeconds: []))
        let limit = deviceLimit ?? .max
        let arrivals = replayHasSystemArrivals(plan, catalog: catalog)
        var next = try stream.nextBatch(rows: batchRows, maxDevices: limit)
        while let batch = next {
            try checkApps(batch, arrivals: arrivals, source: stream.source)
            var p = plan
            p.usage = batch
            let sink = perDeviceSink.map { outer in PerDeviceSink(write: outer.write) }
            let pending = Pending()
            let batchPlan = p
            DispatchQueue.global().async {
                let r = FleetRunner.run(batchPlan, catalog: catalog, progress: progress, perDeviceSink: sink)
                pending.result.withLock { $0 = r }
                pending.done.signal()
            }
            outcome.apps.add(batch, catalog: catalog, map: plan.appMap)
            // Read the next batch while this one runs; a bad row is reported once the
            // batch in flight has finished (nothing runs after it).
            var readError: InputError? = nil
            do { next = stream.devicesRead < limit ? try stream.nextBatch(rows: batchRows, maxDevices: limit - stream.devicesRead) : nil }
            catch { readError = error; next = nil }
            pending.done.wait()
            batch.releasePages()
            if let readError { throw readError }
            let r = pending.result.withLock { $0! }
            if let f = r.failure {
                // An external policy's process failed: nothing after this batch runs.
                outcome.result.failure = f
                return outcome
            }
            if let rg = r.groups {
                for i in rg.indices { groups![i].merge(rg[i]) }
            }
            for i in accumulators.indices {
                accumulators[i].merge(r.accumulators[i])
                seconds[i] += r.cellSeconds[i]
            }
            // Each device's span, added by the worker that built its timeline (no
            // second walk of its rows here); the rows past a fixed end, counted here.
            outcome.spanSum = outcome.spanSum + r.spanSum
            if let until = plan.usageUntil {
                for d in p.runDevices { outcome.rowsPastEnd += batch.rowsPast(until, device: d) }
            }
            outcome.rows += batch.rows
        }
        outcome.devices = stream.devicesRead
        outcome.result = FleetResult(cells: plan.cells, accumulators: accumulators, cellSeconds: seconds, baseline: plan.baseline,
                                     groupBy: plan.groupBy, groupNames: plan.groupNames, groups: groups)
        return outcome
    }
}
