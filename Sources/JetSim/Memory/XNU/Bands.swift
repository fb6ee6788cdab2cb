import SimKernel

// XNU memorystatus: the bands (priorities) XNU gives apps, and the dock. The scale,
// `XNUBand`, is declared with the candidate that carries it (Policies/EvictionPolicy.swift).
//
// Sources (apple-oss-distributions/xnu): bands bsd/sys/kern_memorystatus.h; aging,
// idle and critical kills and the reaper bsd/kern/kern_memorystatus.c and
// doc/vm/memorystatus_kills.md; freezer limits bsd/sys/kern_memorystatus_freeze.h,
// its policy bsd/kern/kern_memorystatus_freeze.c and doc/vm/freezer.md.
extension Device {
    /// The band XNU gives a candidate now.
    @inline(__always) func xnuBand(_ app: Int32, _ now: SimTime) -> UInt8 {
        let a = Int(app)
        // An app frozen once keeps its state on flash, and with it the elevated
        // inactive band, through its thaws until it is demoted or exits: any band up to
        // 75 it would have becomes 75 (bsd/kern/kern_memorystatus.c:2868-2879,
        // memstat_update_priority_locked; P_MEMSTAT_FROZEN is kept on resume,
        // kern_memorystatus.c:3780-3796; the elevated band is set at freeze,
        // kern_memorystatus_freeze.c:1912-1918, and cleared by a demotion, :2308).
        let elevated = core.apps[a].memory.intersection([.hasFlashCopy, .demoted]) == .hasFlashCopy
        if core.apps[a].memory.contains(.frozen) && !elevated { return XNUBand.idle }
        let band = naturalBand(app, now)
        return elevated && band <= XNUBand.frozen ? XNUBand.frozen : band
    }

    /// The band without the freezer's elevation.
    @inline(__always) func naturalBand(_ app: Int32, _ now: SimTime) -> UInt8 {
        let a = Int(app)
        // A prewarmed process sits where an idle process sits (`Device.prewarm`).
        if core.apps[a].isPrewarmed { return XNUBand.idle }
        if core.apps[a].state == .background {
            if let band = assertionBand(app) { return band }
            if core.apps[a].lifecycle.contains(.bgTask) { return XNUBand.background }
        }
        if now < core.apps[a].lastUsed + core.params.xnu.agingTime { return XNUBand.aging }
        if core.apps[a].memory.contains(.inDock) { return XNUBand.background }
        return XNUBand.idle
    }

    /// The band of an app whose active background mode holds an assertion: voip in
    /// band 50, audio and location in 120 (nil: no mode active).
    @inline(__always) func assertionBand(_ app: Int32) -> UInt8? {
        guard core.apps[Int(app)].lifecycle.contains(.modeActive) else { return nil }
        switch core.profiles[core.pi(app)].mode {
        case .voip: return XNUBand.phone
        case .audio, .location: return XNUBand.audioAndAccessory
        case .none: return nil
        }
    }

    /// The band on a device without XNU's bands (the plain model, Android): an app's
    /// mode's band while it is active, band 30 for anything else executing in the
    /// background, else the idle band.
    @inline(__always) func plainBand(_ app: Int32) -> UInt8 {
        let a = Int(app)
        guard core.apps[a].state == .background, !core.apps[a].isPrewarmed else { return XNUBand.idle }
        return assertionBand(app) ?? XNUBand.background
    }

    /// Counts a launch toward the dock: the device's `dockSize` most-launched apps
    /// (ties keep the incumbent). O(dock size).
    /// Inline up to its first check (no XNU bands, no dock, in the dock already).
    /// Returns the app the dock let go (its band may have changed), or -1.
    @inline(__always)
    mutating func updateDock(_ app: Int32, _ now: SimTime) -> Int32 {
        guard core.params.xnu.dockSize > 0, !core.apps[Int(app)].memory.contains(.inDock) else { return -1 }
        return updateDockNow(app, now)
    }

    /// `updateDock` for an app not in the dock.
    mutating func updateDockNow(_ app: Int32, _ now: SimTime) -> Int32 {
        if dock.count < core.params.xnu.dockSize {
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
