import SimKernel

// XNU memorystatus: the bands (priorities) XNU gives apps, and the dock. The scale,
// `XNUBand`, is declared with the candidate that carries it (Policies/EvictionPolicy.swift).
//
// (bsd/sys/kern_memorystatus.h).
extension XNUMemory {
    /// The band XNU gives a candidate now.
    @inline(__always) func xnuBand(_ core: Core, _ app: Int32, _ now: SimTime) -> UInt8 {
        let a = Int(app)
        // An app frozen once keeps its state on flash, and with it the elevated
        // inactive band, through its thaws until it is demoted or exits: any band up to
        // 75 it would have becomes 75 (bsd/kern/kern_memorystatus.c:2868-2879,
        // memstat_update_priority_locked; P_MEMSTAT_FROZEN is kept on resume,
        // kern_memorystatus.c:3780-3796; the elevated band is set at freeze,
        // kern_memorystatus_freeze.c:1912-1918, and cleared by a demotion, :2308).
        let elevated = core.apps[a].memory.intersection([.hasFlashCopy, .demoted]) == .hasFlashCopy
        if core.apps[a].memory.contains(.frozen) && !elevated { return XNUBand.idle }
        let band = naturalBand(core, app, now)
        return elevated && band <= XNUBand.frozen ? XNUBand.frozen : band
    }

    /// The band without the freezer's elevation.
    @inline(__always) func naturalBand(_ core: Core, _ app: Int32, _ now: SimTime) -> UInt8 {
        let a = Int(app)
        // A prewarmed process sits where an idle process sits (`Device.prewarm`).
        if core.apps[a].isPrewarmed { return XNUBand.idle }
        if core.apps[a].state == .background {
            if let band = core.assertionBand(app) { return band }
            if core.apps[a].lifecycle.contains(.bgTask) { return XNUBand.background }
        }
        if now < core.apps[a].lastUsed + params.agingTime { return XNUBand.aging }
        if core.apps[a].memory.contains(.inDock) { return XNUBand.background }
        return XNUBand.idle
    }

    /// Counts a launch toward the dock: the device's `dockSize` most-launched apps
    /// (ties keep the incumbent). O(dock size).
    /// Inline up to its first check (no XNU bands, no dock, in the dock already).
    /// Returns the app the dock let go (its band may have changed), or -1.
    @inline(__always)
    mutating func updateDock(_ core: inout Core, _ app: Int32, _ now: SimTime) -> Int32 {
        guard params.dockSize > 0, !core.apps[Int(app)].memory.contains(.inDock) else { return -1 }
        return updateDockNow(&core, app, now)
    }

    /// `updateDock` for an app not in the dock.
    mutating func updateDockNow(_ core: inout Core, _ app: Int32, _ now: SimTime) -> Int32 {
        if dock.count < params.dockSize {
            dock.append(app)
            core.apps[Int(app)].memory.insert(.inDock)
            return -1
        }
        var mi = 0
        for i in 1..<dock.count where core.apps[Int(dock[i])].launches < core.apps[Int(dock[mi])].launches { mi = i }
        let out = dock[mi]
        guard core.apps[Int(out)].launches < core.apps[Int(app)].launches else { return -1 }
        core.apps[Int(out)].memory.remove(.inDock)
        dock[mi] = app
        core.apps[Int(app)].memory.insert(.inDock)
        return out
    }
}
