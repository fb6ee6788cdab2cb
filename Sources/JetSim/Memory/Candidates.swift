import SimKernel

// The memory manager's boundary with the policy: the policy's view of the candidates
// (resident apps out of front), kept in step with every change, each with the band, the
// resident size and the launch costs its manager gives (`memoryBand`, `residentNowKB`,
// `thawLatency`, `warmLatency`), and the idle- and frozen-band order. The lifecycle and
// the managers call it; the policy only reads what it is given (`EvictionCandidate`).
extension Device {
    /// Tells the policy about a candidate (new, or an attribute changed), with its band;
    /// keeps the idle-band order.
    mutating func refreshCandidate(_ app: Int32, _ now: SimTime, leftFront: Bool = false) {
        if app == core.launching { return }
        let b = memoryBand(app, now)
        if core.apps[Int(app)].band != b {
            // An entry into band b (XNU's p_memstat_prio_start: `AppRuntime.bandSince`).
            core.apps[Int(app)].band = b
            core.apps[Int(app)].bandSince = now
        }
        if !keepsIdleOrder || Policy.ordersIdleBands {
            // Nothing reads the order (no XNU bands, not Android), or the policy's
            // update below keeps it (`idleOrder`).
        } else if b == XNUBand.idle {
            if core.ownIdleOrder.list(of: app) != 0 { core.ownIdleOrder.append(app, to: 0) }
        } else if b == XNUBand.frozen {
            if core.ownIdleOrder.list(of: app) != 1 { core.ownIdleOrder.append(app, to: 1) }
        } else {
            core.ownIdleOrder.remove(app)
        }
        core.policy.update(app, candidate(app, leftFront: leftFront))
    }

    /// `refreshCandidate` for a background or suspended app whose band may not have
    /// moved (a suspension, a finished compression): a policy that reads the band
    /// alone and keeps the idle order itself (jetsam-bands) hears nothing new unless
    /// the band moved. Such an app is a candidate in its stored band's list since it
    /// left the front or was launched in the background (every band change since went
    /// through `refreshCandidate`; `checkMemoryInvariant` asserts it after every
    /// event), so `refreshCandidate` would find the same band and leave it in place.
    @inline(__always)
    mutating func refreshCandidateIfBandMoved(_ app: Int32, _ now: SimTime) {
        if Policy.readsBandOnly && Policy.ordersIdleBands && memoryBand(app, now) == core.apps[Int(app)].band { return }
        refreshCandidate(app, now)
    }

    /// No longer a candidate (in front, or terminated): it holds the foreground band
    /// (or none), so its next band as a candidate is an entry (`bandSince`).
    mutating func removeCandidate(_ app: Int32) {
        core.apps[Int(app)].band = XNUBand.foreground
        core.policy.remove(app)
        if keepsIdleOrder && !Policy.ordersIdleBands { core.ownIdleOrder.remove(app) }
        clearSoftLimit(app)
    }

    /// The idle-band (list 0) and frozen-band (list 1) order (`ownIdleOrder`): the
    /// policy's own lists when they are that order (`EvictionPolicy.ordersIdleBands`),
    /// so a candidate update moves an app in one list instead of two.
    var idleOrder: MultiList {
        _read {
            if Policy.ordersIdleBands { yield core.policy.idleLists } else { yield core.ownIdleOrder }
        }
    }

    /// The policy's view of a candidate.

    @inline(__always) func candidate(_ app: Int32, leftFront: Bool = false) -> EvictionCandidate {
        // Fields are read in place: copying the whole app record here showed up as
        // memcpy in profiles.
        let a = Int(app)
        if Policy.readsBandOnly {
            // The band alone (`EvictionPolicy.readsBandOnly`): no profile, no resident size.
            return EvictionCandidate(state: core.apps[a].state, residentKB: 0, launchCount: 0, preservesUIState: false,
                                     leftFront: leftFront, runsTask: false, band: core.apps[a].band)
        }
        let p = core.pi(app)
        let state = core.apps[a].state
        guard Policy.readsCosts else {
            // The policy reads none of the costs: the cheap fields only (the same
            // choices, without computing launch costs and unsaved edits per update).
            return EvictionCandidate(
                state: state, mode: core.apps[a].lifecycle.contains(.modeActive) ? core.profiles[p].mode : .none,
                residentKB: residentNowKB(app), lastUsed: core.apps[a].lastUsed, launchCount: 0,
                preservesUIState: false, nextUse: core.apps[a].nextUse, leftFront: leftFront, isPrevious: app == core.previousApp,
                runsTask: state == .background && core.apps[a].lifecycle.contains(.bgTask), band: core.apps[a].band)
        }
        return EvictionCandidate(
            state: state, mode: core.apps[a].lifecycle.contains(.modeActive) ? core.profiles[p].mode : .none,
            residentKB: residentNowKB(app),
            lastUsed: core.apps[a].lastUsed, launchCount: Int(core.apps[a].launches),
            coldLaunchCost: core.coldLatency(p),
            residentLaunchCost: state == .suspended ? (core.apps[a].isPrewarmed ? core.prewarmedLatency(p) : core.apps[a].memory.contains(.frozen) ? thawLatency(p) : warmLatency(p, compressedKB: suspendedPlainKB(app))) : core.profiles[p].hotLaunch,
            unsavedEdits: core.unsavedEdits(app), preservesUIState: core.profiles[p].preservesUIState,
            nextUse: core.apps[a].nextUse, leftFront: leftFront, isPrevious: app == core.previousApp,
            runsTask: state == .background && core.apps[a].lifecycle.contains(.bgTask), band: core.apps[a].band)
    }
}
