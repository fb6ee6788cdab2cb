import SimKernel

// Android ActivityManager: oom_score_adj, the cached-process cap, launch Vitals.
extension AndroidMemory {
    /// The oom_score_adj ActivityManager gives a resident app now (ProcessList):
    /// foreground 0, perceptible 200 (an active background mode), service 500
    /// (background work: a task, or the run after a system wake), previous 700,
    /// cached 900 and up (the policy orders cached apps by recency, as lmkd's adj slots
    /// do). An app in the background grace with no work is not a service: its
    /// activity is stopped, so OomAdjuster.computeOomAdjLSP gives it PREVIOUS_APP_ADJ
    /// if it is the previous process with activities (adj type "previous") and a
    /// cached adj otherwise, as when suspended (frameworks/base at 02978520,
    /// services/core/java/com/android/server/am/OomAdjuster.java).
    @inline(__always) func oomScoreAdj(_ core: Core, _ app: Int32) -> Int {
        let a = Int(app)
        if app == core.front { return OomAdj.foreground }
        switch core.apps[a].state {
        case .active, .inactive: return OomAdj.foreground
        case .background:
            if core.apps[a].lifecycle.contains(.modeActive) { return OomAdj.perceptible }
            if core.apps[a].lifecycle.contains(.bgTask) { return OomAdj.service }
            return app == core.previousApp ? OomAdj.previous : OomAdj.cachedMin
        case .suspended:
            return app == core.previousApp ? OomAdj.previous : OomAdj.cachedMin
        case .notRunning: return OomAdj.cachedMax + 1
        }
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
