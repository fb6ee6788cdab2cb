import SimKernel

// Android ActivityManager: oom_score_adj, the cached-process cap, launch Vitals.
extension Device {
    /// The oom_score_adj ActivityManager gives a resident app now (ProcessList):
    /// foreground 0, perceptible 200 (an active background mode), service 500
    /// (executing in the background), previous 700, cached 900 and up (the policy
    /// orders cached apps by recency, as lmkd's adj slots do).
    @inline(__always) public func oomScoreAdj(_ app: Int32) -> Int {
        let a = Int(app)
        if app == front { return OomAdj.foreground }
        switch apps[a].state {
        case .active, .inactive: return OomAdj.foreground
        case .background:
            return apps[a].lifecycle.contains(.modeActive) ? OomAdj.perceptible : OomAdj.service
        case .suspended:
            return app == android.previous ? OomAdj.previous : OomAdj.cachedMin
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
        c.budget = suspendedCount - (android.previous >= 0 && apps[Int(android.previous)].state == .suspended ? 1 : 0)
        c.app = idleOrder.head(0)
    }

    /// `.cachedCap`'s next kill: the oldest cached app while more than the cap are cached.
    func pickCachedCap(_ c: inout ReclaimCursor) -> ReclaimAction {
        while c.budget > params.android.maxCachedProcesses && c.app >= 0 {
            let app = c.app
            c.app = idleOrder.next(app)
            if app != android.previous && apps[Int(app)].state == .suspended {
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
