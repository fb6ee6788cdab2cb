import SimKernel

// What each kind of launch costs (from the app's profile): the lifecycle's launches
// take it, and a candidate carries the cost of its relaunch (`Candidates.swift`).
extension DeviceCore {
    /// Whether a launch of a not-running app finds its files still in the page cache:
    /// it was killed once (not by a power-off, which empties the cache), and its files
    /// were last read less than `pageCacheWindow` ago (`filesCachedSince`: its kill,
    /// `terminate`, or its prewarm, `prewarm`).
    @inline(__always) func filesCached(_ app: Int32, _ now: SimTime) -> Bool {
        let a = Int(app)
        let k = apps[a].lastKill
        return params.pageCacheWindow > .zero && k.contains(.killed) && !k.contains(.clearsFileCache)
            && now - apps[a].filesCachedSince < params.pageCacheWindow
    }

    /// A launch of a prewarmed app: cold, less the pre-main part the prewarm did.
    @inline(__always) func prewarmedLatency(_ p: Int) -> SimTime {
        max(.zero, profiles[p].coldLaunch - profiles[p].prewarmSaving) + uiRestore(p)
    }

    @inline(__always) func coldLatency(_ p: Int) -> SimTime { profiles[p].coldLaunch + uiRestore(p) }

    /// A launch from no process whose files are still in the page cache.
    @inline(__always) func cachedLatency(_ p: Int) -> SimTime { profiles[p].cachedLaunch + uiRestore(p) }

    /// What every launch from no process adds: the state restore, if the app restores.
    @inline(__always) func uiRestore(_ p: Int) -> SimTime { profiles[p].preservesUIState ? profiles[p].stateRestore : .zero }
}
