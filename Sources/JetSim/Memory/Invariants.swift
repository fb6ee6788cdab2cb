import SimKernel

// The memory invariant: the core's ledger and its memory manager's accounting (the
// compressor, the freezer, zram, the idle daemons, the candidates' bands), checked
// after every event in tests (the lifecycle's dispatch calls it).
extension Device {
    /// The apps' worth of checking an event pays for: the whole-device check runs
    /// after every event on a device of at most this many apps (every scenario and
    /// test device), else after every ceil(apps / 64) events, so checking costs O(64)
    /// app visits an event however many apps the device has (checking every app
    /// after every event made a 20,000-app scenario quadratic: docs/performance.md). A run
    /// that checks also checks once at its end (`TraceRun`).
    static var invariantAppsPerEvent: Int { 64 }

    /// After an event, with `checksInvariants`: `checkMemoryInvariant` when the
    /// events since it last ran have paid for its O(apps) walk.
    @inline(never)
    mutating func checkInvariantsAmortised() {
        core.eventsSinceInvariantCheck &+= 1
        if Int(core.eventsSinceInvariantCheck) &* Self.invariantAppsPerEvent >= core.apps.count || core.eventsSinceInvariantCheck == .max {
            core.eventsSinceInvariantCheck = 0
            checkMemoryInvariant()
        }
    }

    /// Checks `available + Σ resident + reserve == RAM` and that nothing is negative;
    /// the compressor pool is exactly what compressed apps keep resident, within its
    /// bound; frozen apps are suspended and keep in RAM only what a partial freeze
    /// left in the compressor.
    public func checkMemoryInvariant() {
        var resident: Int64 = 0
        var pool: Int64 = 0
        var committed: Int64 = 0
        var frozen = 0, flashCopies = 0, eligible = 0
        var inProgress = 0
        var flagged = 0
        precondition(core.inputTime == core.computedInputTime, "the cached next input time \(core.inputTime) is stale: \(core.computedInputTime)")
        for i in core.apps.indices {
            let a = core.apps[i]
            if a.state == .background || a.state == .suspended, let wrong = core.policy.misfiled(Int32(i), band: a.band) {
                // A candidate sits in its stored band's list (`refreshCandidateIfBandMoved`).
                preconditionFailure(wrong)
            }
            if a.memory.contains(.hasFlashCopy) { flashCopies += 1 }
            if a.memory.contains(.overSoftLimit) { flagged += 1 }
            if a.memory.contains(.refreezeEligible) {
                precondition(a.memory.contains(.hasFlashCopy) && !a.memory.contains(.frozen),
                             "app \(i) is refreeze-eligible without its state on flash, or frozen")
                eligible += 1
            }
            // On-demand thaw: what a thawed app did not touch stays on flash; suspended,
            // it holds at most what it touched, packed to its own size; any other app
            // packs to its profile's.
            let thawed = thawedWithFlashCopy(Int32(i))
            let p = core.pi(Int32(i))
            precondition(a.packedKB == Int32(clamping: thawed ? core.packedKB(plainKB: thawTouchedKB(p)) : core.suspendedResidentKB(p)),
                         "app \(i) packs to \(a.packedKB) KiB, not its \(thawed ? "touched share's" : "profile's")")
            if thawed && a.state == .suspended && !a.memory.contains(.frozen) {
                precondition(a.residentKB <= thawTouchedKB(p), "thawed app \(i) holds \(a.residentKB) KiB suspended, more than the \(thawTouchedKB(p)) it touched")
            }
            precondition(a.residentKB >= 0, "negative resident memory")
            precondition(a.state.isResident || a.residentKB == 0, "a terminated app holds memory")
            precondition(a.state.isResident || a.memory.isDisjoint(with: [.frozen, .compressed]), "a terminated app is frozen or compressed")
            if a.memory.contains(.compressing) {
                // Part compressed: what the device credited it so far, never past its end.
                let c = compressionProgress(Int32(i))
                precondition(a.memory.contains(.compressed) && a.state == .suspended, "a compressing app is not suspended in the compressor")
                precondition(c.ticks >= 0 && c.ticks <= c.total, "app \(i) compressed \(c.ticks) of its \(c.total) seconds")
                pool += c.packedKB; committed += c.finalKB; inProgress += 1
                resident += c.residentKB
                continue
            }
            if a.memory.contains(.compressed) {
                precondition(a.state == .suspended, "a core.running app is compressed")
                // Less what an Android cached app keeps uncompressed (Memory/Android/Zram.swift).
                let held = zramHeldKB(Int32(i))
                precondition(held >= 0 && held <= a.residentKB, "app \(i) keeps \(held) KiB of its \(a.residentKB)")
                pool += a.residentKB - held; committed += a.residentKB - held
            }
            // A partial freeze leaves what did not fit compressed in RAM; nothing else.
            if a.memory.contains(.frozen) { precondition(a.state == .suspended && (a.residentKB == 0 || a.memory.contains(.compressed)), "a frozen app holds RAM outside the compressor"); frozen += 1 }
            resident += a.residentKB
        }
        // The soft-limit list is the flagged apps, each once, in index order.
        precondition(flagged == softLimitApps.count && zip(softLimitApps, softLimitApps.dropFirst()).allSatisfy { $0 < $1 }
                     && softLimitApps.allSatisfy { core.apps[Int($0)].memory.contains(.overSoftLimit) },
                     "soft-limit list \(softLimitApps) is not the \(flagged) flagged core.apps in index order")
        precondition(inProgress == compressing.count, "\(compressing.count) core.apps listed as compressing, \(inProgress) are")
        // The list holds each compressing app once (with the count above: exactly the
        // compressing apps), and each one's done second, stored when it started, is
        // still what its figures give (`CompressingApp`): nothing changes them while it
        // is compressed. One pass over the list, not a search of it per app.
        var listed = Set<Int32>(minimumCapacity: compressing.count)
        for entry in compressing {
            let i = Int(entry.app)
            precondition(listed.insert(entry.app).inserted, "app \(i) is listed twice as compressing")
            precondition(core.apps[i].memory.contains(.compressing), "app \(i) is listed as compressing and is not")
            let due = core.apps[i].compressingSince.microseconds / 1_000_000 + compressionProgress(entry.app).total
            precondition(entry.doneTick == due, "app \(i) is listed as done at second \(entry.doneTick), its figures say \(due)")
        }
        precondition(pool == compressorKB, "compressor pool \(compressorKB) KiB != compressed core.apps' \(pool) KiB")
        precondition(committed == compressorCommittedKB,
                     "compressor commitments \(compressorCommittedKB) KiB != compressed core.apps' final \(committed) KiB")
        // zram's bound is in uncompressed KiB; the pool rounds each app to whole KiB.
        precondition(memoryPoolWithinBound, "compressor pool over its bound")
        precondition(frozen == Int(frozenCount), "frozen count \(frozenCount) != \(frozen)")
        precondition(flashCopies == Int(flashCopyCount) && eligible == Int(refreezeEligibleCount),
                     "freezer counts \(flashCopyCount)/\(refreezeEligibleCount) != \(flashCopies)/\(eligible)")
        precondition(core.availableKB + resident + idleDaemons.residentKB + core.params.osReserveKB == core.params.ramKB,
                     "memory not conserved: available \(core.availableKB) + resident \(resident) + idle daemons \(idleDaemons.residentKB) + reserve \(core.params.osReserveKB) != RAM \(core.params.ramKB)")
        precondition(idleDaemonsWithinBound, "idle daemons resident \(idleDaemons.resident) out of their pool")
        precondition(core.availableKB >= 0, "available memory is negative: \(core.availableKB) KiB")
    }
}
