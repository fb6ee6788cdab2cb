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
            return apps[a].has(AppRuntime.modeActive) ? OomAdj.perceptible : OomAdj.service
        case .suspended:
            return app == android.previous ? OomAdj.previous : OomAdj.cachedMin
        case .notRunning: return OomAdj.cachedMax + 1
        }
    }

    /// ActivityManager's cap on cached processes (ActivityManagerConstants
    /// DEFAULT_MAX_CACHED_PROCESSES; OomAdjuster trims the oldest beyond it):
    /// whatever memory says, the oldest cached apps beyond the cap are killed.
    mutating func cachedCap(_ now: SimTime) {
        let cap = params.android.maxCachedProcesses
        guard cap > 0 else { return }
        var cached = suspendedCount - (android.previous >= 0 && apps[Int(android.previous)].state == .suspended ? 1 : 0)
        var app = idleOrder.head(0)
        while cached > cap && app >= 0 {
            let next = idleOrder.next(app)
            if app != android.previous && apps[Int(app)].state == .suspended {
                terminate(app, .cachedCap, now)
                cached -= 1
            }
            app = next
        }
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
