import SimKernel

// Memory warnings: the memory manager's notifications to apps (XNU's are memorystatus's,
// bsd/kern/kern_memorystatus_notify.c; the plain model's and XNU's without pressure
// levels below, `lowMemoryWarnings`), each a didReceiveMemoryWarning, and what an app
// frees on it. Called by the managers (Plain/, XNU/Triggers.swift, XNU/Pressure.swift)
// and by the lifecycle for a simulated warning (a user action).
extension MemoryManaging {
    /// didReceiveMemoryWarning to every app that executes code (not suspended); each
    /// frees its share of what it can: down to its background footprint when in
    /// front, to its suspended footprint when in the background. Goes through the
    /// running list, so its cost does not grow with the apps installed.
    mutating func sendMemoryWarnings(_ core: inout Core, except skip: Int32 = -1, _ now: SimTime) {
        for app in core.running where app != skip { warn(&core, app, now) }
    }

    /// didReceiveMemoryWarning to one app that executes code: it frees its share of
    /// what it can, down to its background footprint when in front, to its suspended
    /// footprint when in the background.
    mutating func warn(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        let a = Int(app)
        let p = core.pi(app)
        let floor = core.apps[a].state == .background ? core.suspendedResidentKB(p) : core.profiles[p].backgroundKB
        let freed = Int64(Double(max(0, core.apps[a].residentKB - floor)) * core.params.memoryWarningFreeShare)
        core.setResident(app, core.apps[a].residentKB - freed)
        core.metrics[.memoryWarnings] += 1
        core.send(.didReceiveMemoryWarning, to: app, now, detail: .freed(kb: freed))
        if core.apps[a].state == .background { refreshCandidate(&core, app, now) }
    }

    /// didReceiveMemoryWarning to the running apps but `launching` when a launch of
    /// `needKB` would take available memory below the warning level, once until memory
    /// recovers above it (`warned`, the manager's; the new value is returned). XNU with
    /// pressure levels warns from the compressor's level instead (XNU/Pressure.swift).
    mutating func lowMemoryWarnings(_ core: inout Core, needKB: Int64, warned: Bool, _ now: SimTime) -> Bool {
        guard core.availableKB - needKB < core.kb.warningKB else { return false }
        if !warned { sendMemoryWarnings(&core, except: core.launching, now) }
        return true
    }
}
