import SimKernel

// The device's core: its own invariants (the kept input time, the candidates' lists, the
// app records' memory), checked after every event in tests with the memory manager's
// accounting (Memory/Invariants.swift).
extension DeviceCore {
    /// The apps' worth of checking an event pays for: the whole-device check runs
    /// after every event on a device of at most this many apps (every scenario and
    /// test device), else after every ceil(apps / 64) events, so checking costs O(64)
    /// app visits an event however many apps the device has (checking every app
    /// after every event made a 20,000-app scenario quadratic: docs/performance.md). A run
    /// that checks also checks once at its end (`TraceRun`).
    static var invariantAppsPerEvent: Int { 64 }

    /// Whether the events since the last whole-device check have paid for its O(apps)
    /// walk (`Device.checkInvariantsAmortised`).
    @inline(__always) mutating func invariantCheckDue() -> Bool {
        eventsSinceInvariantCheck &+= 1
        guard Int(eventsSinceInvariantCheck) &* Self.invariantAppsPerEvent >= apps.count || eventsSinceInvariantCheck == .max
        else { return false }
        eventsSinceInvariantCheck = 0
        return true
    }

    /// The kept input time is current; each candidate sits in its stored band's list
    /// (`refreshCandidateIfBandMoved`); no app holds negative memory, and a terminated
    /// one holds none and is neither frozen nor compressed.
    func checkCoreInvariant() {
        precondition(inputTime == computedInputTime, "the cached next input time \(inputTime) is stale: \(computedInputTime)")
        for i in apps.indices {
            let a = apps[i]
            if a.state == .background || a.state == .suspended, let wrong = policy.misfiled(Int32(i), band: a.band) {
                preconditionFailure(wrong)
            }
            precondition(a.residentKB >= 0, "negative resident memory")
            precondition(a.state.isResident || a.residentKB == 0, "a terminated app holds memory")
            precondition(a.state.isResident || a.memory.isDisjoint(with: [.frozen, .compressed]), "a terminated app is frozen or compressed")
        }
    }

    /// The ledger: available + what the apps hold now (`residentKB`: the manager's
    /// figures) + what the manager holds outside them + the OS reserve == RAM, and
    /// nothing available below zero.
    func checkLedger(residentKB: Int64, outsideAppsKB: Int64) {
        precondition(availableKB + residentKB + outsideAppsKB + params.osReserveKB == params.ramKB,
                     "memory not conserved: available \(availableKB) + resident \(residentKB) + outside the apps \(outsideAppsKB) + reserve \(params.osReserveKB) != RAM \(params.ramKB)")
        precondition(availableKB >= 0, "available memory is negative: \(availableKB) KiB")
    }
}
