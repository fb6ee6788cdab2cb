import SimKernel

// Android ActivityManager: oom_score_adj, the cached-process cap, launch Vitals.
extension Device {
    /// The oom_score_adj ActivityManager gives a resident app now (ProcessList):
    /// foreground 0, perceptible 200 (an active background mode), service 500
    /// (background work: a task, or the run after a system wake), previous 700,
    /// cached 900 and up (the policy orders cached apps by recency, as lmkd's adj slots
    /// do). An app in the background grace with no work is not a service: its
    /// activity is stopped, so OomAdjuster.computeOomAdjLSP gives it PREVIOUS_APP_ADJ
    /// if it is the previous process with activities (adj type "previous") and a
    /// cached adj otherwise, as when suspended (frameworks/base at 02978520,
    /// services/core/java/com/android/server/am/OomAdjuster.java).
    @inline(__always) public func oomScoreAdj(_ app: Int32) -> Int {
        let a = Int(app)
        if app == front { return OomAdj.foreground }
        switch apps[a].state {
        case .active, .inactive: return OomAdj.foreground
        case .background:
            if apps[a].lifecycle.contains(.modeActive) { return OomAdj.perceptible }
            if apps[a].lifecycle.contains(.bgTask) { return OomAdj.service }
            return app == previousApp ? OomAdj.previous : OomAdj.cachedMin
        case .suspended:
            return app == previousApp ? OomAdj.previous : OomAdj.cachedMin
        case .notRunning: return OomAdj.cachedMax + 1
        }
    }

    /// ActivityManager's cap on cached processes (ActivityManagerConstants
    /// DEFAULT_MAX_CACHED_PROCESSES; OomAdjuster trims the oldest beyond it):
    /// whatever memory says, the oldest cached apps beyond the cap are killed.
    mutating func cachedCap(_ now: SimTime) {
        guard params.android.maxCachedProcesses > 0 else { return }
        reclaim(.cachedCap, now)
    }

    /// `.cachedCap`'s start: the cached apps now (the previous app is not one), and the
    /// walk from the oldest.
    func startCachedCap(_ c: inout ReclaimCursor) {
        c.budget = suspendedCount - (previousApp >= 0 && apps[Int(previousApp)].state == .suspended ? 1 : 0)
        c.app = idleOrder.head(0)
    }

    /// `.cachedCap`'s next kill: the oldest cached app while more than the cap are cached.
    func pickCachedCap(_ c: inout ReclaimCursor) -> ReclaimAction {
        while c.budget > params.android.maxCachedProcesses && c.app >= 0 {
            let app = c.app
            c.app = idleOrder.next(app)
            if app != previousApp && apps[Int(app)].state == .suspended {
                c.budget -= 1
                return .kill(app: app, victim: -1, reason: .cachedCap)
            }
        }
        return .none
    }

    /// Counts a launch by Android's kind and against the Vitals thresholds.
    mutating func androidVitals(_ kind: LaunchKind, savedState: Bool, latency: SimTime) {
        let ap = params.android
        switch kind {
        // A process created with its files still in the page cache is still a cold or
        // warm launch in Android's terms (Vitals names by process and saved state).
        case .cold where savedState, .cached where savedState:
            metrics[.androidWarmLaunches] += 1
            if latency >= ap.vitalsWarm { metrics[.warmOverVitals] += 1 }
        case .cold, .cached:
            metrics[.androidColdLaunches] += 1
            if latency >= ap.vitalsCold { metrics[.coldOverVitals] += 1 }
        case .warm, .hot, .thaw:
            metrics[.androidHotLaunches] += 1
            if latency >= ap.vitalsHot { metrics[.hotOverVitals] += 1 }
        }
    }
}
