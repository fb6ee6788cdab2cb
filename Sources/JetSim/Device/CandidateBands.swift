import SimKernel

// The device's core: the candidates (resident apps out of front) as the policy sees them,
// with the band their memory manager gives each (the manager computes it and the
// candidate: Memory/Candidates.swift), and the idle- and frozen-band order.
extension DeviceCore {
    /// A candidate is in band `b` now: an entry into a new band is its start
    /// (XNU's p_memstat_prio_start: `AppRuntime.bandSince`), and the idle-band order
    /// follows when its manager keeps it (`keepsIdleOrder`) and the policy's own lists
    /// are not that order (`EvictionPolicy.ordersIdleBands`). The policy hears of it
    /// next (`policy.update`, with the candidate the manager builds from this band).
    @inline(__always)
    mutating func enterBand(_ app: Int32, _ b: UInt8, _ now: SimTime, keepsIdleOrder: Bool) {
        if apps[Int(app)].band != b {
            apps[Int(app)].band = b
            apps[Int(app)].bandSince = now
        }
        if !keepsIdleOrder || Policy.ordersIdleBands {
            // Nothing reads the order, or the policy's update keeps it (`idleOrder`).
        } else if b == XNUBand.idle {
            if ownIdleOrder.list(of: app) != 0 { ownIdleOrder.append(app, to: 0) }
        } else if b == XNUBand.frozen {
            if ownIdleOrder.list(of: app) != 1 { ownIdleOrder.append(app, to: 1) }
        } else if b == XNUBand.aging {
            if ownIdleOrder.list(of: app) != 2 { ownIdleOrder.append(app, to: 2) }
        } else {
            ownIdleOrder.remove(app)
        }
    }

    /// No longer a candidate (in front, or terminated): it holds the foreground band
    /// (or none), so its next band as a candidate is an entry (`bandSince`).
    mutating func removeCandidate(_ app: Int32, keepsIdleOrder: Bool) {
        apps[Int(app)].band = XNUBand.foreground
        policy.remove(app)
        if keepsIdleOrder && !Policy.ordersIdleBands { ownIdleOrder.remove(app) }
    }

    /// The idle-band (list 0), frozen-band (list 1) and aging-band (list 2) order
    /// (`ownIdleOrder`): the
    /// policy's own lists when they are that order (`EvictionPolicy.ordersIdleBands`),
    /// so a candidate update moves an app in one list instead of two.
    var idleOrder: MultiList {
        _read {
            if Policy.ordersIdleBands { yield policy.idleLists } else { yield ownIdleOrder }
        }
    }

    /// The band of an app whose active background mode holds an assertion: voip in
    /// band 50, audio and location in 120 (nil: no mode active).
    @inline(__always) func assertionBand(_ app: Int32) -> UInt8? {
        guard apps[Int(app)].lifecycle.contains(.modeActive) else { return nil }
        switch profiles[pi(app)].mode {
        case .voip: return XNUBand.phone
        case .audio, .location: return XNUBand.audioAndAccessory
        case .none: return nil
        }
    }

    /// The band of the lifecycle state alone (the plain model, Android): an app's
    /// mode's band while it is active, band 30 for anything else executing in the
    /// background, else the idle band.
    @inline(__always) func plainBand(_ app: Int32) -> UInt8 {
        let a = Int(app)
        guard apps[a].state == .background, !apps[a].isPrewarmed else { return XNUBand.idle }
        return assertionBand(app) ?? XNUBand.background
    }
}
