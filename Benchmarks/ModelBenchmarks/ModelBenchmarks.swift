import Benchmark
import Foundation
import JetSim
import EngineHold
import SimKernel

// The model's benchmarks. Every benchmark measures between explicit start/stop
// marks, so setup never counts and allocation counts are exact. Custom metrics are
// reported after the stop mark. Names carry no spaces (the thresholds reader and
// writer disagree on them).

/// Holds benchmark state built in setup.
final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// CI's allocation gate sets `JETSIM_BENCH_GATE=1` (.ci/run): malloc counts are exact,
/// the same in every iteration once warm, so a few iterations decide the gated p90;
/// the longer limits below are for timing runs (scripts/bench.sh), which leave it unset.
let gateOnly = ProcessInfo.processInfo.environment["JETSIM_BENCH_GATE"] == "1"
/// A benchmark's time and iteration limits: as given, or capped under the gate.
func limits(_ duration: Duration, _ iterations: Int) -> (maxDuration: Duration, maxIterations: Int) {
    gateOnly ? (min(duration, .milliseconds(300)), min(iterations, 10)) : (duration, iterations)
}

extension BenchmarkMetric {
    static let eventsPerSecond = BenchmarkMetric.custom("events/s", polarity: .prefersLarger, useScalingFactor: false)
    static let devicesPerSecond = BenchmarkMetric.custom("devices/s", polarity: .prefersLarger, useScalingFactor: false)
    static let nsPerEvent = BenchmarkMetric.custom("ns/event", useScalingFactor: false)
    static let nsPerEventSimOnly = BenchmarkMetric.custom("ns/event, simulation only", useScalingFactor: false)
    static let simOverHoldPct = BenchmarkMetric.custom("simulation rate / hold rate (%)", polarity: .prefersLarger, useScalingFactor: false)
    static let nsPerKill = BenchmarkMetric.custom("ns/kill (in the kill loop)", useScalingFactor: false)
    static let nsPerKillWall = BenchmarkMetric.custom("wall ns per kill (all work / kills)", useScalingFactor: false)
    static let kills = BenchmarkMetric.custom("kills", useScalingFactor: false)
    static let nsPerHold = BenchmarkMetric.custom("ns/hold at same N", useScalingFactor: false)
    static let pending = BenchmarkMetric.custom("mean pending events", useScalingFactor: false)
    static let modelOverHoldPct = BenchmarkMetric.custom("model rate / hold rate (%)", polarity: .prefersLarger, useScalingFactor: false)
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }

/// A plan over the built-in default workload.
func defaultPlan(devices: Int, days: Int64, cells: [Cell], threads: Int = 1) -> RunPlan {
    var w = try! WorkloadDecoder.load(defaultWorkloadText, source: "default")
    w.fleet.devices = devices
    w.fleet.duration = .days(days)
    return RunPlan(workload: w, cells: cells, threads: threads)
}

/// One device of Workloads/android.yaml for `days` days under android-lmk.
func androidPlan(days: Int64) -> RunPlan {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/Workloads/android.yaml"
    let text = try! String(contentsOfFile: path, encoding: .utf8)
    var w = try! WorkloadDecoder.load(text, source: path)
    w.fleet.devices = 1
    w.fleet.duration = .days(days)
    return RunPlan(workload: w, cells: [Cell(policy: PolicyID(AndroidLMK.self), ramKB: nil)], threads: 1)
}

/// The stress device with about `resident` apps resident under constant pressure.
/// The same device (24,000 apps installed) at every size, only its RAM changes: the
/// per-app arrays are as large in both, so a growth in time per kill is the policy's
/// and the kill loop's, not the memory hierarchy's.
func stressPlan(resident: Int, policy: PolicyID, days: Int = 1) -> RunPlan {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/Workloads/stress.yaml"
    let text = try! String(contentsOfFile: path, encoding: .utf8)
    // ~16 MB per suspended app beside the 1.5 GB reserve.
    let ramMB = 1_536 + resident * 16
    let apps = 24_000
    let w = try! WorkloadDecoder.load(text, source: path, overrides: [
        "catalog.apps=\(apps)", "catalog.installed_per_device=\(apps)",
        "device_classes.0.ram_mb=\(ramMB)", "run.ram_mb=[\(ramMB)]",
        "fleet.duration_days=\(days)", "user.wake_hour=0", "user.sleep_hour=24",
    ])
    return RunPlan(workload: w, cells: [Cell(policy: policy, ramKB: nil)], threads: 1)
}

let benchmarks: @Sendable () -> Void = {
    let gated = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(2), maxIterations: 50,
                                        thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])])

    // One device for one and for four simulated days: the default workload under
    // jetsam-bands at its own RAM, and device 0 of Workloads/android.yaml under
    // android-lmk at its class's RAM (issue 13: lmkd's PSI mode, zram, the cached cap).
    // Gate: zero allocations once warm, so four days allocate no more than one:
    // nothing per event.
    let devicePlans: [(name: String, plan: @Sendable (Int64) -> RunPlan)] = [
        ("default", { defaultPlan(devices: 1, days: $0, cells: [Cell(policy: PolicyID(JetsamBands.self), ramKB: nil)]) }),
        ("android", { androidPlan(days: $0) }),
    ]
    for (name, makePlan) in devicePlans {
        for days: Int64 in [1, 4] {
            let box = Box<DeviceWorker?>(nil)
            Benchmark("Device_\(days)d_\(name)", configuration: .init(
                metrics: gated.metrics + [.eventsPerSecond, .nsPerEvent],
                maxDuration: limits(.seconds(2), 200).maxDuration, maxIterations: limits(.seconds(2), 200).maxIterations,
                thresholds: gated.thresholds
            ), closure: { benchmark in
                benchmark.startMeasurement()
                let start = ContinuousClock.now
                let events = box.value!.runDevice(0)
                let elapsed = seconds(start.duration(to: .now))
                benchmark.stopMeasurement()
                benchmark.measurement(.eventsPerSecond, Int(Double(events) / elapsed))
                benchmark.measurement(.nsPerEvent, Int(elapsed * 1e9 / Double(events)))
            }, setup: {
                let plan = makePlan(days)
                var worker = DeviceWorker(shared: FleetRunner.Shared(plan: plan, catalog: AppCatalog(plan.workload)))
                _ = worker.runDevice(0)  // warm: every buffer at its size
                box.value = worker
            })
        }
    }

    // A fleet: 100 and 1,000 devices, one simulated day, every policy at 3 GB,
    // on two threads. Gate: the two allocate the same fixed amount (per-run setup,
    // threads, buffers growing to size), not more per device.
    let catalogBox = Box<AppCatalog?>(nil)
    for devices in [100, 1_000] {
        Benchmark("Fleet_\(devices)_devices_1d_allpolicies", configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, .devicesPerSecond, .eventsPerSecond],
            maxDuration: limits(.seconds(5), 20).maxDuration, maxIterations: limits(.seconds(5), 20).maxIterations,
            thresholds: [.mallocCountTotal: .init(absolute: [.p90: 50])]
        ), closure: { benchmark in
            let plan = defaultPlan(devices: devices, days: 1, cells: PolicyID.all.map { Cell(policy: $0, ramKB: 3 * 1_048_576) }, threads: 2)
            benchmark.startMeasurement()
            let start = ContinuousClock.now
            let result = FleetRunner.run(plan, catalog: catalogBox.value!)
            let elapsed = seconds(start.duration(to: .now))
            benchmark.stopMeasurement()
            let events = result.accumulators.reduce(0) { $0 + $1.events }
            benchmark.measurement(.devicesPerSecond, Int(Double(devices) / elapsed))
            benchmark.measurement(.eventsPerSecond, Int(Double(events) / elapsed))
        }, setup: {
            if catalogBox.value == nil { catalogBox.value = AppCatalog(defaultPlan(devices: 1, days: 1, cells: []).workload) }
        })
    }

    // Peak resident memory of a 1,000-device fleet run (every policy at 2, 3, 4 GB, 1 day).
    Benchmark("Fleet_1000_devices_peak_memory", configuration: .init(
        metrics: [.wallClock, .peakMemoryResident], maxDuration: .seconds(5), maxIterations: 3
    )) { benchmark in
        let plan = defaultPlan(devices: 1_000, days: 1, cells: [2, 3, 4].flatMap { gb in
            PolicyID.all.map { Cell(policy: $0, ramKB: Int64(gb) * 1_048_576) } }, threads: 2)
        let catalog = AppCatalog(plan.workload)
        benchmark.startMeasurement()
        blackHole(FleetRunner.run(plan, catalog: catalog))
        benchmark.stopMeasurement()
    }

    // Kill-heavy stress devices with about 1,000 and 10,000 resident apps, every
    // policy: time per kill must not grow with the number of resident apps. Setup
    // builds the device (24,000 apps installed) and runs it until its memory is full;
    // each iteration then simulates one more hour of constant pressure. Time per kill
    // is the time spent in kill loops over the kills (and, for context, the hour's
    // whole wall time over its kills).
    for resident in [1_000, 10_000] {
        for p in PolicyRegistry.all { registerStress(p, resident) }
    }

    // The policies alone: N candidates; each iteration kills the victim and brings a
    // new candidate in (N stays constant). Pure index cost per kill.
    for n in [1_000, 10_000] {
        for p in PolicyRegistry.all { registerPolicyKill(p, n) }
    }

    // The scenario runner on every shipped scenario (parse and run).
    let scenarios = Box<[(String, String)]>([])
    Benchmark("Scenarios_all_shipped", configuration: .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(1)), closure: { benchmark in
        for (name, text) in scenarios.value {
            blackHole(ScenarioRunner.run(try! Scenario.parse(text, source: name), checkInvariants: false))
        }
    }, setup: {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path + "/Workloads/scenarios"
        scenarios.value = try! FileManager.default.contentsOfDirectory(atPath: dir).sorted().filter { $0.hasSuffix(".scenario") }
            .map { ($0, try! String(contentsOfFile: dir + "/" + $0, encoding: .utf8)) }
    })

    // The full model against the engine's hold model at the same number of pending
    // events, measured in the same iteration: the model's event rate must be at
    // least half the hold rate. Reported two ways: the whole device (building its
    // user timeline included) and the simulation alone (the timeline is built once
    // per device and shared by all its cells, so in a 21-cell run it is ~1/21 of it).
    let vs = Box<DeviceWorker?>(nil)
    Benchmark("Model_vs_hold_same_pending", configuration: .init(
        metrics: [.nsPerEvent, .nsPerEventSimOnly, .nsPerHold, .pending, .modelOverHoldPct, .simOverHoldPct],
        maxDuration: .seconds(3), maxIterations: 30
    ), closure: { benchmark in
        var worker = vs.value!
        vs.value = nil
        let (events, pending) = worker.measurePending(0)
        var start = ContinuousClock.now
        let again = worker.runDevice(0)
        let modelSeconds = seconds(start.duration(to: .now))
        start = ContinuousClock.now
        _ = worker.runDevice(0, reusingInputs: true)
        let simSeconds = seconds(start.duration(to: .now))
        vs.value = worker
        var hold = HoldModel(pending: max(1, Int(pending.rounded())), seed: 3)
        _ = hold.hold(10_000)
        let holdStart = ContinuousClock.now
        blackHole(hold.hold(again))
        let holdSeconds = seconds(holdStart.duration(to: .now))
        precondition(events == again)
        benchmark.measurement(.nsPerEvent, Int(modelSeconds * 1e9 / Double(again)))
        benchmark.measurement(.nsPerEventSimOnly, Int(simSeconds * 1e9 / Double(again)))
        benchmark.measurement(.nsPerHold, Int(holdSeconds * 1e9 / Double(again)))
        benchmark.measurement(.pending, Int(pending.rounded()))
        benchmark.measurement(.modelOverHoldPct, Int(100 * holdSeconds / modelSeconds))
        benchmark.measurement(.simOverHoldPct, Int(100 * holdSeconds / simSeconds))
    }, setup: {
        let plan = defaultPlan(devices: 1, days: 7, cells: [Cell(policy: PolicyID(JetsamBands.self), ramKB: 3 * 1_048_576)])
        var worker = DeviceWorker(shared: FleetRunner.Shared(plan: plan, catalog: AppCatalog(plan.workload)))
        _ = worker.runDevice(0)
        vs.value = worker
    })
}

/// A policy with N candidates, killing and replacing one per step.
struct PolicyKillLoop<P: EvictionPolicy> {
    var policy = P()
    var rng = Xoshiro256StarStar(seed: 5, 1)
    var clock: Int64 = 0

    init(candidates n: Int) {
        policy.reset(appCount: n, context: PolicyContext(seed: 1, device: 0))
        for a in 0..<Int32(n) { policy.update(a, candidate()) }
    }

    /// A new candidate leaving the front, with varied attributes (a quarter still
    /// running in the background, some with modes).
    mutating func candidate() -> EvictionCandidate {
        clock += 1
        let state: AppState = rng.nextIndex(4) == 0 ? .background : .suspended
        let m = rng.nextIndex(8)
        let mode: BackgroundMode = m == 5 ? .audio : m == 6 ? .voip : m == 7 ? .location : .none
        return EvictionCandidate(
            state: state, mode: mode, residentKB: Int64(10_000 + rng.nextIndex(500_000)),
            lastUsed: .microseconds(clock), launchCount: 1 + rng.nextIndex(20),
            coldLaunchCost: .milliseconds(Int64(500 + rng.nextIndex(3_000))), residentLaunchCost: .milliseconds(200),
            unsavedEdits: rng.nextIndex(5), preservesUIState: rng.nextIndex(2) == 0,
            nextUse: .microseconds(clock + Int64(rng.nextIndex(1_000_000_000))), leftFront: true)
    }

    mutating func killOne() {
        let v = policy.victim()
        policy.willEvict(v)
        policy.remove(v)
        let c = candidate()
        policy.update(v, c)
    }
}

/// Registers "Policy_kill_N_<name>": ns per kill (victim, remove, insert a new one).
func registerPolicyKill<P: EvictionPolicy>(_: P.Type, _ n: Int) {
    let box = Box<PolicyKillLoop<P>?>(nil)
    Benchmark("Policy_kill_\(n)_\(P.name)", configuration: .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo,
        maxDuration: limits(.seconds(1), 100_000).maxDuration, maxIterations: limits(.seconds(1), 100_000).maxIterations
    ), closure: { benchmark in
        var loop = box.value!
        box.value = nil
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { loop.killOne() }
        benchmark.stopMeasurement()
        box.value = loop
    }, setup: {
        box.value = PolicyKillLoop<P>(candidates: n)
    })
}

/// A trace sink that only times the kill loop.
struct KillLoopTimer: TraceSink {
    var started = ContinuousClock.now
    var total = Duration.zero
    mutating func record(time: SimTime, app: Int32, event: TraceEvent, detail: TraceDetail, state: AppState) {}
    mutating func killLoop(began: Bool) {
        if began { started = .now } else { total += started.duration(to: .now) }
    }
}

/// A stress device run by hand, hour by hour.
struct StressDevice<P: EvictionPolicy> {
    var sim: Simulation<Device<P, KillLoopTimer>>
}

/// Registers "Stress_<resident>_resident_<policy>": ns per kill in steady state.
func registerStress<P: EvictionPolicy>(_: P.Type, _ resident: Int) {
    let box = Box<StressDevice<P>?>(nil)
    let warmup = SimTime.hours(24)
    Benchmark("Stress_\(resident)_resident_\(P.name)", configuration: .init(
        metrics: [.wallClock, .nsPerKill, .nsPerKillWall, .kills, .eventsPerSecond], maxDuration: .seconds(2), maxIterations: 12
    ), closure: { benchmark in
        var d = box.value!
        box.value = nil
        let kills0 = d.sim.model.metrics.totalKills
        let events0 = d.sim.eventsHandled
        let inLoops0 = d.sim.model.trace.total
        let end = d.sim.now + .hours(1)
        benchmark.startMeasurement()
        let start = ContinuousClock.now
        d.sim.run(until: end)
        let elapsed = seconds(start.duration(to: .now))
        benchmark.stopMeasurement()
        let kills = d.sim.model.metrics.totalKills - kills0
        let events = d.sim.eventsHandled - events0
        let inLoops = seconds(d.sim.model.trace.total - inLoops0)
        box.value = d
        benchmark.measurement(.kills, kills)
        benchmark.measurement(.nsPerKill, Int(inLoops * 1e9 / Double(max(1, d.sim.model.metrics[.killsPressure] > 0 ? kills : 1))))
        benchmark.measurement(.nsPerKillWall, Int(elapsed * 1e9 / Double(max(1, kills))))
        benchmark.measurement(.eventsPerSecond, Int(Double(events) / elapsed))
    }, setup: {
        // Long enough for the warm-up and every measured hour.
        let plan = stressPlan(resident: resident, policy: PolicyID(LRU.self), days: Int((warmup.seconds / 86_400).rounded(.up)) + 1)
        let catalog = AppCatalog(plan.workload)
        var inputs = DeviceInputs(plan: plan, catalog: catalog)
        _ = inputs.build(device: 0)
        var device = Device<P, KillLoopTimer>(trace: KillLoopTimer())
        device.reset(profiles: catalog.profiles, installed: inputs.installed, params: plan.workload.deviceClasses[0].parameters(),
                     timeline: inputs.timeline, context: PolicyContext(seed: plan.workload.seed, device: 0))
        var sim = Simulation(model: device)
        sim.run(until: warmup)
        box.value = StressDevice(sim: sim)
    })
}
