import SimKernel

// XNU memorystatus: the idle-band daemons, the memory manager's own processes (issue 31).
//
// A JetsamEvent report lists every process the kernel tracks; the one complete report
// the repository holds (docs/evidence-reserve-and-wakes.md, section 1; per-process
// figures in docs/data/jetsam-iphone14-7-rpages.txt) shows 345 daemons in band 0
// (states `daemon, idle`) holding 1,396 MiB, 22.7 % of a 6 GB iPhone 14's RAM. The
// OS reserve (`os_reserve_mb`) covers carve-outs, wired memory and the daemons above
// the idle band; these are left out of it, which amounts to assuming they die before
// any app and stay dead. `idle_daemons_mb` > 0 models them instead: a pool of
// `idle_daemon_count` daemons of `idle_daemons_mb / idle_daemon_count` each, resident
// at the start (counted as used in the ledger: `Device.availableKB` falls by the pool),
// killed one at a time before any app, and relaunched by launchd at
// `idle_daemon_relaunches_per_hour` each.
//
// Kill order. XNU keeps each band as a list and appends a process that enters it at
// the tail (bsd/kern/kern_memorystatus.c:2918-2922, memstat_update_priority_locked);
// the idle, critical and launch kills walk the bands from the lowest up, each from its
// head (memorystatus_kill_top_process, :6393, 6450-6452). Daemons that went idle at
// boot entered band 0 before any app the user suspended, so they are its head: the
// manager kills a resident idle daemon before it asks the policy for a victim, for
// every policy (they are the manager's processes, not apps), on the triggers that
// reclaim available memory from band 0 (`.untilAvailable`, `.belowForeground`,
// `.idleUntilAvailable`: the critical and idle levels, a launch's, wake's or growth
// step's room, a scripted spike). The model's bias, stated: a relaunched daemon in
// reality re-enters band 0 at its tail, after the apps suspended before it, so
// "daemons first" favours apps when relaunches are frequent. Not taken by the pool:
// the reaper (its idle age), sustained-pressure and compressor-shortage kills (their
// measure is the compressor, which the pool's pages are not modelled in) and
// high-water kills (a daemon's limit is not modelled).
//
// Relaunches. launchd starts a daemon again when its service is next asked for; the
// rate is an assumption (nothing published). Each killed daemon comes back at
// `idle_daemon_relaunches_per_hour` (a Poisson stream per dead daemon; their sum is
// drawn as one: by memorylessness the next relaunch after a kill or a relaunch is
// exponential at the rate times the dead daemons). A relaunch needs its memory: the
// manager makes room as for a launch (`reclaimForRoom`: first another resident idle daemon,
// then apps), then the daemon takes its share; if no room can be made it stays dead
// and the stream goes on. A daemon kill is not an app kill: no app counter, no
// policy call, no CSV column, no trace line (the trace's rows are apps'); the pool
// counts its kills and relaunches (`IdleDaemonPool.kills`, `.relaunches`) for tests.
//
// With `idle_daemons_mb` 0 (the default) the pool is empty: nothing is scheduled and
// a reclaim's pick gains one compare. Android's analogue (lmkd killing cached system
// processes) is not modelled; nor is the plain model's.

/// The idle-band daemons' pool: how many are resident, each one's footprint, the next
/// relaunch.
public struct IdleDaemonPool: Sendable {
    /// Daemons resident now.
    public internal(set) var resident: Int32 = 0
    /// Daemon kills and relaunches so far (not in any CSV).
    public internal(set) var kills: UInt32 = 0
    public internal(set) var relaunches: UInt32 = 0
    /// Relaunch draws made (the key of the next one).
    var draws: UInt32 = 0
    /// One daemon's footprint (`idle_daemons_mb / idle_daemon_count`, whole KiB).
    public internal(set) var daemonKB: Int64 = 0
    /// The next relaunch (.never: none due); a timer at another time is stale.
    var relaunchDue: SimTime = .never

    /// What the resident daemons hold.
    @inline(__always) public var residentKB: Int64 { Int64(resident) * daemonKB }
}

extension DeviceParameters {
    /// The idle-band daemons (if XNU runs them) and the reserve leave memory for apps.
    public var idleDaemonsFit: Bool {
        switch memoryManager {
        case .xnu: xnu.idleDaemonsKB <= 0 || core.osReserveKB + xnu.idleDaemonsKB < core.ramKB
        case .plain, .android, .fleet: true
        }
    }
}

extension XNUMemory {
    /// The pool's count within 0 and its size (the invariants).
    var idleDaemonsWithinBound: Bool {
        idleDaemons.resident >= 0 && idleDaemons.resident <= max(0, params.idleDaemonCount)
    }

    /// The pool at the start of a run: every daemon resident, its memory taken from
    /// what is available (when XNU runs; empty with `idle_daemons_mb` 0).
    mutating func resetIdleDaemons(_ core: inout Core, runs: Bool) {
        idleDaemons = IdleDaemonPool()
        let count = params.idleDaemonCount
        guard runs, params.idleDaemonsKB > 0, count > 0 else { return }
        idleDaemons.daemonKB = params.idleDaemonsKB / Int64(count)
        idleDaemons.resident = count
        core.availableKB -= idleDaemons.residentKB
    }

    /// Daemons killed and not relaunched.
    @inline(__always) var deadIdleDaemons: Int32 { params.idleDaemonCount - idleDaemons.resident }

    /// A reclaim's pick on a trigger that frees available memory from band 0 up to
    /// `target`: a resident idle daemon first (the head of band 0), nil when none is
    /// resident or memory is back. One compare when the pool is empty.
    @inline(__always) func idleDaemonFirst(_ core: Core, _ target: Int64) -> ReclaimAction? {
        idleDaemons.resident > 0 && core.availableKB < target ? .killOwnProcess : nil
    }

    /// Kills one resident idle daemon: its memory is available again; its relaunch
    /// stream starts (the next relaunch moves earlier if its draw comes first).
    mutating func killIdleDaemon(_ core: inout Core, _ now: SimTime) {
        idleDaemons.resident -= 1
        idleDaemons.kills &+= 1
        core.availableKB += idleDaemons.daemonKB
        let rate = params.idleDaemonRelaunchesPerHour
        guard rate > 0 else { return }
        let due = now + nextIdleDaemonGap(&core, ratePerHour: rate)
        if due < idleDaemons.relaunchDue {
            idleDaemons.relaunchDue = due
            armTimers.insert(.idleDaemon)
        }
    }

    /// An exponential gap at `ratePerHour` (the device's draws, keyed by the pool's
    /// draw count: every policy sees the same gaps in the same order).
    mutating func nextIdleDaemonGap(_ core: inout Core, ratePerHour: Double) -> SimTime {
        var g = core.deviceDraws(Draw.idleDaemon, UInt64(idleDaemons.draws))
        idleDaemons.draws &+= 1
        return SimTime(seconds: Exponential.standard(&g, table: core.exponentialTable) / ratePerHour * 3_600)
    }

    /// Schedules the relaunch timer at `relaunchDue` (end of an event that moved it).
    @inline(never)
    mutating func armIdleDaemonTimer(_ core: inout Core, _ s: inout Scheduler<DeviceEvent>) {
        guard idleDaemons.relaunchDue < .never && !core.apps.isEmpty else { return }
        if idleDaemons.relaunchDue < s.now { idleDaemons.relaunchDue = s.now }
        core.scheduleTimer(.idleDaemonRelaunch, 0, at: idleDaemons.relaunchDue, &s)
    }

    /// The relaunch timer fired: when it is current, launchd starts one dead daemon
    /// again. Room as for a launch (another resident daemon first, then apps: outer
    /// step 1, the room-making's reclaims, for no app: at a timer no app is
    /// `launching`); without room it stays dead;
    /// with room, a fall of memory (outer step 2, its reclaims). Then the next
    /// relaunch, at the rate times the daemons still dead (outer step 3). One trigger
    /// a question (`ReclaimSequence`).
    mutating func idleDaemonRelaunchReclaim(_ core: inout Core, _ q: inout ReclaimSequence, _ now: SimTime) -> ReclaimTrigger? {
        let need = idleDaemons.daemonKB
        if q.outer == 0 {
            q.outer = 4
            guard now == idleDaemons.relaunchDue else { return nil }
            idleDaemons.relaunchDue = .never
            guard deadIdleDaemons > 0 else { return nil }
            q.outer = 1
            assert(core.launching == -1, "a device timer fired while room was being made for an app")
        }
        if q.outer == 1 {
            if let t = roomReclaim(&core, needKB: need, &q.step, now) { return t }
            q.outer = 3
            q.step = 0
            if core.availableKB >= need {
                idleDaemons.resident += 1
                idleDaemons.relaunches &+= 1
                core.availableKB -= need
                q.outer = 2
            }
        }
        if q.outer == 2 {
            if let t = fallReclaim(&core, &q.step, now) { return t }
            q.outer = 3
        }
        if q.outer == 3 {
            q.outer = 4
            let dead = deadIdleDaemons
            guard dead > 0 else { return nil }
            // A fresh draw for all of them (a kill by the room-making above may have
            // set a time for its own daemon: this one replaces it, by memorylessness).
            idleDaemons.relaunchDue = now + nextIdleDaemonGap(&core, ratePerHour: params.idleDaemonRelaunchesPerHour * Double(dead))
            armTimers.insert(.idleDaemon)
        }
        return nil
    }
}
