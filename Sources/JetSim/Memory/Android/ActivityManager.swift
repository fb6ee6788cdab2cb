import SimKernel

// Android ActivityManager: oom_score_adj, the cached-process cap, launch Vitals.
// Sources: frameworks/base at 02978520d9e8, services/core/java/com/android/server/am/
// OomAdjuster.java (computeOomAdjLSP, assignCachedAdjIfNecessary,
// updateAndTrimProcessLSP), ProcessList.java, ActivityManagerConstants.java; the ported
// cases are in Tests/JetSimTests/Conformance/Android/ and docs/fidelity.md.
extension DeviceCore {
    /// The oom_score_adj computeOomAdjLSP gives a resident app from its lifecycle facts,
    /// before assignCachedAdjIfNecessary and the timers (`AndroidMemory.oomScoreAdj`
    /// adds both): the front (top) 0; an active background mode, a foreground service,
    /// 200 ("fg-service"); background work 500 (a started service, "started-services");
    /// the previous app with activities 700 ("previous"); otherwise cached: the first
    /// slot of its sequence, 905 for an empty process (PROCESS_STATE_CACHED_EMPTY: no
    /// activity) and 900 for one with activities (PROCESS_STATE_CACHED_ACTIVITY). An
    /// app in the background grace with no work has a stopped activity, so it is the
    /// previous or a cached one, as when suspended. The policy's view
    /// (`EvictionCandidate.oomAdj`).
    @inline(__always) func baseOomAdj(_ app: Int32) -> Int16 {
        let a = Int(app)
        if app == front { return Int16(OomAdj.foreground) }
        switch apps[a].state {
        case .active, .inactive: return Int16(OomAdj.foreground)
        case .background:
            if apps[a].lifecycle.contains(.modeActive) { return Int16(OomAdj.perceptible) }
            if apps[a].lifecycle.contains(.bgTask) { return Int16(OomAdj.service) }
        case .suspended: break
        case .notRunning: return Int16(OomAdj.cachedMax + 1)
        }
        if app == previousApp { return Int16(OomAdj.previous) }
        return apps[a].memory.contains(.emptyProcess) ? Int16(OomAdj.cachedEmptyMin) : Int16(OomAdj.cachedMin)
    }
}

extension AndroidMemory {
    /// The oom_score_adj ActivityManager gives a resident app at `now`: `baseOomAdj`
    /// with computeOomAdjLSP's timers and the cached slots.
    /// - a foreground service of an app top less than TOP_TO_FGS_GRACE_DURATION ago:
    ///   PERCEPTIBLE_RECENT_FOREGROUND_APP_ADJ 50 ("fg-service-act");
    /// - the previous app after MAX_PREVIOUS_TIME in that state: CACHED_APP_MIN_ADJ 900
    ///   ("previous-expired"), a value computeOomAdjLSP sets, so no slot is assigned;
    /// - a cached app: its slot in its sequence by recency (`OomAdj.cachedSlot`), its
    ///   rank counted over the resident apps of that sequence (by last use, the LRU
    ///   list's order; of equal uses the higher index is the more recent, as
    ///   android-lmk's heaps break ties). O(n) for a cached app: only the minfree
    ///   levels and `kill_heaviest_task` ask (`pickMinfree`, `lmkdPick`); the rest
    ///   reads the class (`oomScoreAdjClass`).
    /// Both times start when the app left the front (`lastUsed`: its lastTopTime, and
    /// the lastStateTime of its PROCESS_STATE_LAST_ACTIVITY).
    @inline(__always) func oomScoreAdj(_ core: Core, _ app: Int32, _ now: SimTime) -> Int {
        let base = Int(core.baseOomAdj(app))
        if base == OomAdj.cachedMin || base == OomAdj.cachedEmptyMin { return cachedSlotAdj(core, app, base) }
        return timedOomAdj(core, app, base, now)
    }

    /// `oomScoreAdj` without the cached slots: a cached app's is its sequence's first
    /// (900 or 905). Enough where only the class is asked (lmkd's PSI triggers compare
    /// with 0, 201 and 701; the heaviest scan at adj <= 200). O(1).
    @inline(__always) func oomScoreAdjClass(_ core: Core, _ app: Int32, _ now: SimTime) -> Int {
        timedOomAdj(core, app, Int(core.baseOomAdj(app)), now)
    }

    /// computeOomAdjLSP's two timers on `base`.
    @inline(__always) func timedOomAdj(_ core: Core, _ app: Int32, _ base: Int, _ now: SimTime) -> Int {
        let used = core.apps[Int(app)].lastUsed
        if base == OomAdj.perceptible { return used + params.topToFgsGrace > now ? OomAdj.perceptibleRecentForeground : base }
        if base == OomAdj.previous { return used + params.maxPreviousTime < now ? OomAdj.cachedMin : base }
        return base
    }

    /// A cached app's slot: its rank among the resident apps of its sequence (`first`:
    /// 900 or 905) by last use, most recent first.
    func cachedSlotAdj(_ core: Core, _ app: Int32, _ first: Int) -> Int {
        let mine = core.apps[Int(app)].lastUsed
        var count = 0, rank = 0
        for i in 0..<core.apps.count where core.apps[i].state.isResident {
            let other = Int32(i)
            guard Int(core.baseOomAdj(other)) == first else { continue }
            count += 1
            let used = core.apps[i].lastUsed
            if used > mine || (used == mine && other > app) { rank += 1 }
        }
        return OomAdj.cachedSlot(rank: rank, count: count, first: first)
    }

    // ActivityManager's trim of cached processes (frameworks/base at 02978520,
    // services/core/java/com/android/server/am/OomAdjuster.java,
    // updateAndTrimProcessLSP): walking the LRU list from the most recent process, it
    // kills a cached process with activities (PROCESS_STATE_CACHED_ACTIVITY) beyond
    // CUR_MAX_CACHED_PROCESSES - CUR_MAX_EMPTY_PROCESSES ("too many cached"), an empty
    // one (PROCESS_STATE_CACHED_EMPTY) beyond CUR_MAX_EMPTY_PROCESSES ("too many
    // empty"), and an empty one whose lastActivityTime is older than the maximum empty
    // time once more than CUR_TRIM_EMPTY_PROCESSES were kept before it ("empty for too
    // long"). The previous app is PROCESS_STATE_LAST_ACTIVITY, not cached. Here a
    // cached app is a suspended one, ordered by when it was cached (`idleOrder`'s list
    // 0), and the trim runs when the set changes (a suspension, a band change:
    // `memoryChanged`), as OomAdjuster runs on process-state changes; an app in the
    // background grace, cached in Android's adj, is counted from its suspension.
    // Walking from the oldest instead, the kills are the same: the empty ones unused
    // too long beyond the newest trim + 1, then the oldest beyond each limit.

    /// Cached apps with activities now (the previous app is not cached).
    @inline(__always) func cachedWithActivities(_ core: Core) -> Int {
        core.suspendedCount - Int(state.emptyCount)
            - (core.previousApp >= 0 && core.apps[Int(core.previousApp)].state == .suspended ? 1 : 0)
    }

    /// Whether the oldest empty process was cached longer ago than the maximum empty
    /// time (AOSP: lastActivityTime < now - max).
    @inline(__always) func emptyTooLong(_ core: Core, _ app: Int32, _ now: SimTime) -> Bool {
        let max = params.maxEmptyTime
        return max > .zero && core.apps[Int(app)].cachedSince < now - max
    }

    /// Whether ActivityManager's trim would kill now. O(1).
    @inline(__always) func processTrimDue(_ core: Core, _ now: SimTime) -> Bool {
        let ap = params
        guard ap.maxCachedProcesses > 0 else { return false }
        let empty = Int(state.emptyCount)
        return empty > ap.emptyProcessLimit || cachedWithActivities(core) > ap.cachedProcessLimit
            || (empty > ap.trimEmptyProcesses + 1 && emptyTooLong(core, state.oldestEmpty, now))
    }

    /// `.cachedCap`'s next kill: the oldest empty process while it is unused too long
    /// beyond the trim count or more than their limit are cached; then the oldest
    /// cached app with activities (not the previous one) while more than theirs are.
    /// Each kill removes the app from the set, so the next pick starts afresh.
    func pickCachedCap(_ core: Core, _ now: SimTime) -> ReclaimAction {
        let ap = params
        let empty = Int(state.emptyCount)
        if empty > ap.emptyProcessLimit || (empty > ap.trimEmptyProcesses + 1 && emptyTooLong(core, state.oldestEmpty, now)) {
            return .kill(app: state.oldestEmpty, victim: -1, reason: .cachedCap)
        }
        guard cachedWithActivities(core) > ap.cachedProcessLimit else { return .none }
        var app = core.idleOrder.head(0)
        while app >= 0 && (app == core.previousApp || core.apps[Int(app)].memory.contains(.emptyProcess)) {
            app = core.idleOrder.next(app)
        }
        return app >= 0 ? .kill(app: app, victim: -1, reason: .cachedCap) : .none
    }

    /// An empty process was cached (`androidCached`): counted, and the oldest if none was.
    mutating func androidEmptyCached(_ core: inout Core, _ app: Int32) {
        core.apps[Int(app)].memory.insert(.emptyProcess)
        state.emptyCount += 1
        if state.oldestEmpty < 0 { state.oldestEmpty = app }
    }

    /// An empty process left the cached set (resumed or killed; already out of
    /// `idleOrder`): uncounted; if it was the oldest, the next oldest is the first
    /// empty one in the cached order.
    mutating func androidEmptyForgotten(_ core: inout Core, _ app: Int32) {
        core.apps[Int(app)].memory.remove(.emptyProcess)
        state.emptyCount -= 1
        guard app == state.oldestEmpty else { return }
        var next = state.emptyCount > 0 ? core.idleOrder.head(0) : -1
        while next >= 0 && !core.apps[Int(next)].memory.contains(.emptyProcess) { next = core.idleOrder.next(next) }
        state.oldestEmpty = next
    }

    /// Counts a launch by Android's kind and against the Vitals thresholds.
    mutating func androidVitals(_ core: inout Core, _ kind: LaunchKind, savedState: Bool, latency: SimTime) {
        let ap = params
        switch kind {
        // A process created with its files still in the page cache is still a cold or
        // warm launch in Android's terms (Vitals names by process and saved state).
        case .cold where savedState, .cached where savedState:
            core.metrics[.androidWarmLaunches] += 1
            if latency >= ap.vitalsWarm { core.metrics[.warmOverVitals] += 1 }
        case .cold, .cached:
            core.metrics[.androidColdLaunches] += 1
            if latency >= ap.vitalsCold { core.metrics[.coldOverVitals] += 1 }
        case .warm, .hot, .thaw:
            core.metrics[.androidHotLaunches] += 1
            if latency >= ap.vitalsHot { core.metrics[.hotOverVitals] += 1 }
        }
    }
}
