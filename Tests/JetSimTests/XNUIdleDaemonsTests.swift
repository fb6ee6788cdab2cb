import Foundation
import Testing
import SimKernel
@testable import JetSim

/// Issue 31: XNU's idle-band daemons as the memory manager's own processes
/// (Memory/XNU/IdleDaemons.swift), on a small fixed device: 2 GB, 512 MB reserve, the
/// idle level 10 % (204.8 MB), no dock, freezer, reaper or growth.
@Suite("XNU's idle-band daemons (issue 31)")
struct XNUIdleDaemonsTests {
    static let device = "device ram=2GB reserve=512MB app-limit-pct=60 dock=0 freezer=false reaper=false growth=false"

    /// A (300 MB) at 0 s, B (300 MB) at 10 s, F (`f` MB) at 20 s, until `end`.
    static func scenario(_ keys: String, f: Int, end: String = "60s") -> String {
        """
        \(device) \(keys)
        app A footprint=300MB background-footprint=300MB suspended-footprint=300MB
        app B footprint=300MB background-footprint=300MB suspended-footprint=300MB
        app F footprint=\(f)MB
        0s    launch A
        10s   launch B
        20s   launch F
        \(end)   end
        """
    }

    static func killed(_ sc: Scenario, _ r: ScenarioRunner.Result) -> [String] { XNUSourceTests.killed(sc, r) }

    @Test("pressure kills the daemons before any app, each freeing the pool's size / count")
    func daemonsFirst() throws {
        // 400 MB in 40 daemons of 10 MB: 1,136 MB free at the start, 536 after A and B.
        // F (700 MB) needs 700 + 204.8: 368.8 MB more, 37 daemons; no app dies. Without
        // the pool, 936 MB are free and F fits above the idle level: no kill either.
        let (sc, r) = try run(Self.scenario("idle-daemons=400MB idle-daemon-count=40", f: 700))
        #expect(Self.killed(sc, r).isEmpty)
        #expect(r.idleDaemons.kills == 37 && r.idleDaemons.resident == 3 && r.idleDaemons.relaunches == 0)
        #expect(r.metrics.totalKills == 0)
        // 20 daemons of 20 MB: 19 of them (380 MB).
        let (_, r2) = try run(Self.scenario("idle-daemons=400MB idle-daemon-count=20", f: 700))
        #expect(r2.idleDaemons.kills == 19)
        // F (1,000 MB) needs more than the pool: all 40 daemons die, then A (the oldest
        // idle app), and nothing else.
        let (sc3, r3) = try run(Self.scenario("idle-daemons=400MB idle-daemon-count=40", f: 1_000))
        #expect(r3.idleDaemons.kills == 40 && r3.idleDaemons.resident == 0)
        #expect(Self.killed(sc3, r3) == ["A 20000 idle-exit"])
    }

    @Test("the pool's kill frees exactly one daemon's memory, and no app counter moves")
    func oneDaemonAKill() {
        var p = DeviceParameters(ramKB: 2 * 1_048_576, osReserveKB: 512 * 1_024)
        p.xnu.idleDaemonsKB = 100 * 1_024
        p.xnu.idleDaemonCount = 10
        var d = Device<LRU, NoTrace>(trace: NoTrace())
        d.reset(profiles: [AppProfile()], installed: [0, 0], params: p, timeline: Timeline(actions: [], appCount: 2), context: PolicyContext())
        let start = d.availableKB
        #expect(start == (2_048 - 512 - 100) * 1_024)
        d.reclaim(.xnu(.idleUntilAvailable(start + 25 * 1_024)), .zero)
        #expect(d.availableKB == start + 30 * 1_024 && d.idleDaemons.kills == 3)
        #expect(d.metrics.totalKills == 0)
        // With a relaunch rate the kill draws the next relaunch and asks for its timer.
        d.params.xnu.idleDaemonRelaunchesPerHour = 6
        d.reclaim(.xnu(.belowForeground(d.availableKB + 1)), .zero)
        #expect(d.idleDaemons.kills == 4 && d.idleDaemons.relaunchDue < .never && d.memory.xnu.armTimers.contains(.idleDaemon))
    }

    @Test("with no relaunches the daemons stay dead, and the app kills after the pool is gone match a run without it")
    func deadStayDead() throws {
        // 100 MB in 10 daemons, F 1,000 MB: all 10 die, then A, at 20 s; B is left for
        // the rest of an hour. Without the pool: A at 20 s too, nothing else. The kills
        // are the same; only the free memory before A's kill differs (100 MB less).
        let end = "3600s"
        let (sc, with) = try run(Self.scenario("idle-daemons=100MB idle-daemon-count=10", f: 1_000, end: end))
        let (sc0, without) = try run(Self.scenario("", f: 1_000, end: end))
        #expect(with.idleDaemons.kills == 10 && with.idleDaemons.resident == 0 && with.idleDaemons.relaunches == 0)
        #expect(Self.killed(sc, with) == ["A 20000 idle-exit"])
        #expect(Self.killed(sc, with) == Self.killed(sc0, without))
        #expect(with.metrics.totalKills == without.metrics.totalKills)
    }

    @Test("relaunched daemons take their memory again, and with no idle daemon left a relaunch kills an app")
    func relaunchesKill() throws {
        // One daemon of 100 MB: F's launch kills it and A. With 3,600 relaunches an hour
        // it comes back within seconds; once B (suspended, 300 MB) is in the idle band,
        // a relaunch that leaves memory below the idle level finds no other daemon
        // and kills B.
        let keys = "idle-daemons=100MB idle-daemon-count=1"
        let (sc, r) = try run(Self.scenario(keys + " idle-daemon-relaunches=3600", f: 1_000))
        #expect(r.idleDaemons.relaunches > 0)
        let kills = Self.killed(sc, r)
        #expect(kills.first == "A 20000 idle-exit")
        #expect(kills.count == 2 && kills.last?.hasPrefix("B ") == true && kills.last?.hasSuffix(" idle-exit") == true)
        // No relaunches: B lives.
        let (sc0, r0) = try run(Self.scenario(keys, f: 1_000))
        #expect(Self.killed(sc0, r0) == ["A 20000 idle-exit"] && r0.idleDaemons.relaunches == 0)
    }

    @Test("with idle_daemons_mb 0 nothing is scheduled and nothing changes, whatever the relaunch rate")
    func emptyPoolSchedulesNothing() throws {
        let (sc, r) = try run(Self.scenario("idle-daemon-relaunches=3600 idle-daemon-count=7", f: 1_000))
        let (_, plain) = try run(Self.scenario("", f: 1_000))
        #expect(ScenarioRunner.csv(sc, r.records) == ScenarioRunner.csv(sc, plain.records))
        #expect(r.idleDaemons.kills == 0 && r.idleDaemons.draws == 0 && r.idleDaemons.relaunchDue == .never)
        // The device directly: a reclaim with no pool arms no timer.
        var p = DeviceParameters(ramKB: 2 * 1_048_576, osReserveKB: 512 * 1_024)
        p.xnu.idleDaemonRelaunchesPerHour = 60
        var d = Device<LRU, NoTrace>(trace: NoTrace())
        d.reset(profiles: [AppProfile()], installed: [0], params: p, timeline: Timeline(actions: [], appCount: 1), context: PolicyContext())
        #expect(d.availableKB == (2_048 - 512) * 1_024)
        d.reclaim(.untilAvailable(d.availableKB + 1), .zero)
        #expect(d.memory.xnu.armTimers.isEmpty && d.idleDaemons.resident == 0 && d.idleDaemons.kills == 0)
        // The default workload's class has no pool.
        #expect(DeviceClass().xnu.idleDaemonsKB == 0 && XNUParameters().idleDaemonsKB == 0)
    }

    @Test("a bad idle-daemon key is reported by its name", arguments: [
        ("idle_daemons_mb: -5", "idle_daemons_mb"),
        ("idle_daemons_mb: 1800", "idle_daemons_mb"),
        ("idle_daemon_count: 0", "idle_daemon_count"),
        ("idle_daemon_relaunches_per_hour: -1", "idle_daemon_relaunches_per_hour"),
        ("idle_daemon_relaunches_per_hour: often", "idle_daemon_relaunches_per_hour"),
    ])
    func badKey(line: String, key: String) {
        let yaml = "device_classes:\n  - name: a\n    ram_mb: 2048\n    os_reserve_mb: 512\n    \(line)\n"
        #expect {
            _ = try WorkloadDecoder.load(yaml, source: "w.yaml")
        } throws: { error in
            guard let e = error as? InputError else { return false }
            return (e.key ?? "").hasSuffix(key) || e.message.contains(key)
        }
        // The scenario's alias likewise.
        #expect {
            _ = try Scenario.parse("device ram=2GB reserve=512MB idle-daemons=1600MB\napp A\n0s launch A\n1s end\n", source: "s")
        } throws: { error in
            guard let e = error as? InputError else { return false }
            return e.key == "idle-daemons"
        }
    }
}
