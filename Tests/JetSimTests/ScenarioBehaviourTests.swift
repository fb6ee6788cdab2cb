import Testing
import SimKernel
@testable import JetSim

/// Runs scenario text in process.
func run(_ text: String) throws -> (Scenario, ScenarioRunner.Result) {
    let sc = try Scenario.parse(text, source: "test")
    return (sc, ScenarioRunner.run(sc))
}

/// A device set up from a scenario as `jetsim scenario` sets one up (seed 1, device 0),
/// checking the memory invariant after every event, not yet run.
func scenarioDevice<P: EvictionPolicy, T: TraceSink>(_ sc: Scenario, _ policy: P.Type = P.self, trace: T) -> Device<P, T> {
    let (installed, timeline) = TimelineSource.scenarioInputs(sc)
    var d = Device<P, T>(trace: trace)
    d.reset(profiles: ContiguousArray(sc.profiles), installed: installed, params: sc.params, timeline: timeline,
            context: PolicyContext(seed: 1, device: 0))
    d.checksInvariants = true
    return d
}

/// The trace of one app as "event detail" strings.
func events(_ r: ScenarioRunner.Result, _ sc: Scenario, app: String) -> [String] {
    let a = sc.app(named: app)!
    return r.records.filter { $0.app == a }.map { rec in
        let d = TraceCSV.detail(rec)
        return d.isEmpty ? rec.event.name : "\(rec.event.name) \(d)"
    }
}

@Suite("Background time, the watchdog and modes")
struct BackgroundTimeTests {
    @Test("without background work an app is suspended after the 10 s grace")
    func grace() throws {
        let (sc, r) = try run("app X\n0s launch X\n5s home\n1m end\n")
        let suspended = r.records.first { $0.event == .suspended }
        #expect(suspended?.time == .seconds(15))
        #expect(events(r, sc, app: "X").last == "suspended")
    }

    @Test("the grace is configurable")
    func graceConfigurable() throws {
        let (_, r) = try run("device grace=3s\napp X\n0s launch X\n5s home\n1m end\n")
        #expect(r.records.first { $0.event == .suspended }?.time == .seconds(8))
    }

    @Test("allowance presets: 30 s (13+), 180 s (7-12), 600 s (4-6)", arguments: [
        ("13+", SimTime.seconds(30)), ("7-12", .seconds(180)), ("4-6", .seconds(600)),
    ])
    func presets(preset: String, allowance: SimTime) throws {
        // A task needing 20 minutes always outlives the allowance.
        let (sc, r) = try run("device ios=\(preset)\napp X bg-task=20m\n0s launch X\n5s home\n1h end\n")
        let expiry = r.records.first { $0.event == .message(.expirationHandler) }
        #expect(expiry?.time == .seconds(5) + allowance)
        #expect(events(r, sc, app: "X").suffix(2) == ["expirationHandler", "terminated bg-task-expired"])
        #expect(r.metrics[.killsBgExpired] == 1)
    }

    @Test("a task that finishes within its allowance ends in suspension, not a kill")
    func taskCompletes() throws {
        let (sc, r) = try run("app X bg-task=25s\n0s launch X\n5s home\n2m end\n")
        #expect(events(r, sc, app: "X").last == "suspended")
        #expect(r.records.last?.time == .seconds(30))
        #expect(r.metrics.totalKills == 0)
    }

    @Test("didEnterBackground over its 5 s limit is killed by the watchdog at the limit")
    func watchdog() throws {
        let (sc, r) = try run("app X bg-handler=5100ms\n0s launch X\n5s home\n1m end\n")
        #expect(events(r, sc, app: "X").suffix(2) == ["didEnterBackground", "terminated watchdog"])
        #expect(r.records.last?.time == .seconds(10))
        #expect(r.metrics[.killsWatchdog] == 1)
    }

    @Test("a save inside didEnterBackground counts toward the watchdog limit")
    func saveCountsTowardWatchdog() throws {
        let (_, r) = try run("app X bg-handler=3s save=on-enter-background save-time=2500ms\n0s launch X\n5s home\n1m end\n")
        #expect(r.metrics[.killsWatchdog] == 1)
    }

    @Test("a background mode keeps the app running while its activity lasts, then it is suspended")
    func mode() throws {
        let (sc, r) = try run("app M mode=location:3m\n0s launch M\n5s home\n10m end\n")
        #expect(events(r, sc, app: "M").last == "suspended")
        #expect(r.records.last?.time == .seconds(185))
    }

    @Test("a mode shorter than the grace still leaves the app the full grace")
    func shortMode() throws {
        let (_, r) = try run("app M mode=audio:2s\n0s launch M\n5s home\n10m end\n")
        #expect(r.records.last { $0.event == .suspended }?.time == .seconds(15))
    }

    @Test("exits-on-suspend: willResignActive, didEnterBackground, willTerminate, terminated")
    func exitsOnSuspend() throws {
        let (sc, r) = try run("app G exits-on-suspend bg-handler=0s\n0s launch G\n5s home\n1m end\n")
        #expect(events(r, sc, app: "G").dropFirst(2) == ["willResignActive", "didEnterBackground", "willTerminate", "terminated exits-on-suspend"])
        #expect(r.metrics[.killsExitsOnSuspend] == 1)
    }

    @Test("an app whose footprint exceeds the per-app limit is killed when it reaches it")
    func perProcessLimit() throws {
        let (sc, r) = try run("device ram=2GB app-limit-pct=50\napp Big footprint=1100MB\n0s launch Big\n1m end\n")
        #expect(events(r, sc, app: "Big") == ["didFinishLaunching", "terminated per-process-limit"])
        #expect(r.metrics[.killsLimit] == 1 && r.metrics[.launchFailures] == 1)
    }

    @Test("Android has no per-process limit: the same app is launched, and one that does not fit fails for room, not its size")
    func noPerProcessLimitOnAndroid() throws {
        // lmkd kills by oom_score_adj, never for a process's own size
        // (system/memory/lmkd/lmkd.cpp:2475-2511, find_and_kill_process, mirror
        // yaap/system_memory_lmkd at c62ac7e): the app XNU kills above (per-process-limit)
        // runs on Android and Fleet; one larger than the RAM fails for room there.
        for os in ["android", "fleet"] {
            let (sc, r) = try run("device os=\(os) ram=2GB reserve=0MB app-limit-pct=50\napp Big footprint=1100MB\n0s launch Big\n1m end\n")
            #expect(events(r, sc, app: "Big") == ["didFinishLaunching", "didBecomeActive cold 1500ms"], "\(os)")
            #expect(r.metrics[.killsLimit] == 0 && r.metrics[.launchFailures] == 0, "\(os)")
            // More than the RAM: no room, whatever the limit.
            let (sc2, r2) = try run("device os=\(os) ram=2GB reserve=0MB\napp Huge footprint=2500MB\n0s launch Huge\n1m end\n")
            #expect(events(r2, sc2, app: "Huge") == ["terminated memory-pressure"], "\(os)")
            #expect(r2.metrics[.killsLimit] == 0 && r2.metrics[.launchFailures] == 1, "\(os)")
        }
    }
}

@Suite("Saves and data loss on constructed cases")
struct DataLossTests {
    // Active from 0 s to 60 s at 2 edits/min: 2 edits of unsaved work when it leaves.
    static let use = "0s launch X\n60s home\n"

    @Test("an app that saves only on willTerminate loses its work when purged while suspended")
    func onTerminatePurged() throws {
        let (_, r) = try run("device ram=2GB reserve=512MB\napp X footprint=600MB save=on-terminate\napp Y footprint=300MB\n\(Self.use)90s launch Y\n100s pressure critical 1GB\n3m end\n")
        #expect(r.metrics[.killsPressure] == 1)
        #expect(r.metrics[.dataLossEvents] == 1)
        #expect(r.metrics[.dataLossUnits] == 2)
    }

    @Test("the same app killed while still running saves in willTerminate and loses nothing")
    func onTerminateRunning() throws {
        let (sc, r) = try run("device ram=2GB reserve=512MB ios=7-12\napp X footprint=600MB save=on-terminate bg-task=2m\napp Y footprint=300MB\n\(Self.use)90s launch Y\n100s pressure critical 1GB\n3m end\n")
        #expect(events(r, sc, app: "X").suffix(2) == ["willTerminate", "terminated memory-pressure"])
        #expect(r.metrics[.dataLossEvents] == 0)
    }

    @Test("an app that saves on didEnterBackground loses nothing when purged later")
    func onEnterBackgroundSafe() throws {
        let (_, r) = try run("device ram=2GB reserve=512MB\napp X footprint=600MB save=on-enter-background\napp Y footprint=300MB\n\(Self.use)90s launch Y\n100s pressure critical 1GB\n3m end\n")
        #expect(r.metrics[.killsPressure] == 1)
        #expect(r.metrics[.dataLossEvents] == 0)
        #expect(r.metrics[.savesCompleted] == 1)
    }

    @Test("...unless it is killed before its save completes")
    func onEnterBackgroundKilledMidSave() throws {
        // The save takes 4 s; the user removes the app 1 s after Home.
        let (_, r) = try run("app X save=on-enter-background save-time=4s\n\(Self.use)60s switcher\n61s switcher-remove X\n62s home\n3m end\n")
        #expect(r.metrics[.dataLossEvents] == 1 && r.metrics[.dataLossUnits] == 2)
        #expect(r.metrics[.savesAbandoned] == 1)
    }

    @Test("a save still running when the app is suspended is lost")
    func saveLostToSuspension() throws {
        // An on-resign-active save of 12 s: the grace (10 s after Home) ends first.
        let (_, r) = try run("device ram=2GB reserve=512MB\napp X footprint=600MB save=on-resign-active save-time=12s\napp Y footprint=300MB\n\(Self.use)90s launch Y\n100s pressure critical 1GB\n3m end\n")
        #expect(r.metrics[.savesAbandoned] == 1)
        #expect(r.metrics[.dataLossUnits] == 2)
    }

    @Test("on-resign-active saves when the user locks the screen")
    func onResignActive() throws {
        let (_, r) = try run("app X save=on-resign-active\n0s launch X\n60s lock\n2m unlock\n2m switcher\n121s switcher-remove X\n3m end\n")
        #expect(r.metrics[.savesCompleted] == 1)
        #expect(r.metrics[.dataLossEvents] == 0)
    }

    @Test("a periodic saver loses only what it did since its last save")
    func periodic() throws {
        // Saves every 40 s while in front: at 40 s it saves 80 s... of edits: 40 s of
        // work (1.33 edits). Killed at 70 s: 30 s unsaved = 1 edit.
        let (_, r) = try run("app X save=periodic save-interval=40s save-time=1s\n0s launch X\n70s switcher\n70s switcher-remove X\n70s home\n3m end\n")
        #expect(r.metrics[.savesCompleted] == 1)
        #expect(r.metrics[.dataLossUnits] == 1)
    }

    @Test("an app that never saves loses everything on any kill")
    func never() throws {
        let (_, r) = try run("app X save=never edits-per-min=6\n0s launch X\n5m home\n6m switcher\n6m switcher-remove X\n6m home\n7m end\n")
        #expect(r.metrics[.dataLossUnits] == 30)
    }

    @Test("state loss: a cold relaunch after a system kill loses the place unless UI state is preserved", arguments: [
        ("no", 1), ("yes", 0),
    ])
    func stateLoss(preserves: String, expected: Int) throws {
        let (_, r) = try run("device ram=2GB reserve=512MB\napp X footprint=600MB preserves-state=\(preserves)\napp Y footprint=300MB\n0s launch X\n5s home\n30s launch Y\n40s pressure critical 1GB\n50s launch X\n1m end\n")
        #expect(r.metrics[.coldRelaunches] == 1)
        #expect(r.metrics[.stateLossEvents] == expected)
    }

    @Test("a relaunch after the user removed the app is not a state loss")
    func userKillNoStateLoss() throws {
        let (_, r) = try run("app X preserves-state=no\n0s launch X\n5s switcher\n6s switcher-remove X\n7s home\n10s launch X\n1m end\n")
        #expect(r.metrics[.coldRelaunches] == 1 && r.metrics[.stateLossEvents] == 0)
    }
}

@Suite("Launch kinds and latency")
struct LaunchLatencyTests {
    @Test("cold, warm and hot relaunches get their own latencies")
    func kinds() throws {
        // The page cache off: the relaunch 9 s after the kill is cold, not cached.
        let (_, r) = try run("device cache-window=0s compression=1\napp X cold-launch=2s state-restore=500ms warm-launch=300ms hot-launch=80ms\n0s launch X\n5s home\n8s launch X\n10s home\n40s launch X\n50s switcher\n51s switcher-remove X\n52s home\n60s launch X\n2m end\n")
        let m = r.metrics
        #expect(m[.launches] == 4 && m[.relaunches] == 3)
        #expect(m[.hotRelaunches] == 1 && m[.warmRelaunches] == 1 && m[.coldRelaunches] == 1)
        #expect(m[.relaunchLatencySumMicros] == 80_000 + 300_000 + 2_500_000)
        #expect(m[.cachedRelaunches] == 0)
        #expect(r.latencies.count == 3)
    }

    @Test("a cold relaunch within the cache window is cached: cached-launch plus the state restore")
    func cachedKind() throws {
        // No compressor (a warm resume is exactly warm-launch).
        let script = "app X cold-launch=2s cached-launch=700ms state-restore=500ms warm-launch=300ms hot-launch=80ms\n0s launch X\n5s home\n8s launch X\n10s home\n40s launch X\n50s switcher\n51s switcher-remove X\n52s home\n60s launch X\n2m end\n"
        let (_, r) = try run("device compression=1\n" + script)
        let m = r.metrics
        #expect(m[.coldRelaunches] == 1 && m[.cachedRelaunches] == 1)
        #expect(m[.relaunchLatencySumMicros] == 80_000 + 300_000 + 700_000 + 500_000)
        // Past the window (9 s after the kill, window 5 s) it is cold again.
        let (_, late) = try run("device cache-window=5s compression=1\n" + script)
        #expect(late.metrics[.cachedRelaunches] == 0)
        #expect(late.metrics[.relaunchLatencySumMicros] == 80_000 + 300_000 + 2_500_000)
    }

    @Test("compressed suspended memory adds decompression time to a warm launch")
    func decompression() throws {
        // 200 MB footprint, suspended 60 MB, compression 2: 30 MB resident; the 30 %
        // touched before the first frame (resume_touch_share), 18 MB, decompressed at
        // 0.5 ms per MB = 9 ms; all 60 MB with a share of 1 = 30 ms.
        let (sc, r) = try run("device compression=2\napp X warm-launch=250ms\n0s launch X\n5s home\n30s launch X\n1m end\n")
        #expect(events(r, sc, app: "X").last == "didBecomeActive warm 259ms")
        let (sc2, all) = try run("device compression=2 resume-touch-share=1\napp X warm-launch=250ms\n0s launch X\n5s home\n30s launch X\n1m end\n")
        #expect(events(all, sc2, app: "X").last == "didBecomeActive warm 280ms")
    }
}
