import SimKernel

// The memory manager's boundary with the policy: the policy's view of the candidates
// (resident apps out of front), kept in step with every change, each with the band, the
// resident size and the launch costs its manager gives (`band`, `residentNowKB`,
// `suspendedLaunchCost`). The lifecycle and the managers call it; the policy only reads
// what it is given (`EvictionCandidate`); the core keeps the bands and the idle order
// (Device/Candidates.swift).
extension MemoryManaging {
    /// Tells the policy about a candidate (new, or an attribute changed), with its band;
    /// keeps the idle-band order. Never the app room is being made for.
    @inline(__always)
    mutating func refreshCandidate(_ core: inout Core, _ app: Int32, _ now: SimTime, leftFront: Bool = false) {
        if app == core.launching { return }
        core.enterBand(app, band(core, app, now), now, keepsIdleOrder: Self.keepsIdleOrder)
        let c = candidate(core, app, leftFront: leftFront)
        core.policy.update(app, c)
    }

    /// `refreshCandidate` for a background or suspended app whose band may not have
    /// moved (a suspension, a finished compression): a policy that reads the band
    /// alone and keeps the idle order itself (jetsam-bands) hears nothing new unless
    /// the band moved. Such an app is a candidate in its stored band's list since it
    /// left the front or was launched in the background (every band change since went
    /// through `refreshCandidate`; `checkMemoryInvariant` asserts it after every
    /// event), so `refreshCandidate` would find the same band and leave it in place.
    @inline(__always)
    mutating func refreshCandidateIfBandMoved(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        if Policy.readsBandOnly && Policy.ordersIdleBands && band(core, app, now) == core.apps[Int(app)].band { return }
        refreshCandidate(&core, app, now)
    }

    /// The policy's view of a candidate. Fields are read in place: copying the whole
    /// app record here showed up as memcpy in profiles.
    @inline(__always) func candidate(_ core: Core, _ app: Int32, leftFront: Bool = false) -> EvictionCandidate {
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
                residentKB: residentNowKB(core, app), lastUsed: core.apps[a].lastUsed, launchCount: 0,
                preservesUIState: false, nextUse: core.apps[a].nextUse, leftFront: leftFront, isPrevious: app == core.previousApp,
                runsTask: state == .background && core.apps[a].lifecycle.contains(.bgTask), band: core.apps[a].band,
                oomAdj: core.baseOomAdj(app))
        }
        let residentCost = state != .suspended ? core.profiles[p].hotLaunch
            : core.apps[a].isPrewarmed ? core.prewarmedLatency(p) : suspendedLaunchCost(core, app)
        return EvictionCandidate(
            state: state, mode: core.apps[a].lifecycle.contains(.modeActive) ? core.profiles[p].mode : .none,
            residentKB: residentNowKB(core, app),
            lastUsed: core.apps[a].lastUsed, launchCount: Int(core.apps[a].launches),
            coldLaunchCost: core.coldLatency(p), residentLaunchCost: residentCost,
            unsavedEdits: core.unsavedEdits(app), preservesUIState: core.profiles[p].preservesUIState,
            nextUse: core.apps[a].nextUse, leftFront: leftFront, isPrevious: app == core.previousApp,
            runsTask: state == .background && core.apps[a].lifecycle.contains(.bgTask), band: core.apps[a].band,
            oomAdj: core.baseOomAdj(app))
    }
}
