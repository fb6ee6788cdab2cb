import SimKernel

// The memory invariant: the core's ledger with its memory manager's accounting (the
// compressor, the freezer, zram, the idle daemons), checked after every event in tests
// (the lifecycle's dispatch calls it).
extension MemoryManager {
    /// Checks the core's records and ledger with what the running manager says each
    /// app holds now, then the manager's own accounting.
    func checkMemoryInvariant(_ core: Core) {
        core.checkCoreInvariant()
        var resident: Int64 = 0
        for i in core.apps.indices { resident += residentNowKB(core, Int32(i)) }
        core.checkLedger(residentKB: resident, outsideAppsKB: residentOutsideAppsKB)
        checkInvariant(core)
    }
}

extension Compressing {
    /// The compressor pool is exactly what compressed apps keep resident, within its
    /// bound; the apps being compressed are suspended, credited no further than their
    /// end, and listed once each with the done second their figures give; frozen apps
    /// (`frozenCount` of them) are suspended and keep in RAM only what a partial freeze
    /// left in the compressor.
    func checkCompressorInvariant(_ core: Core, frozenCount: Int32) {
        var pool: Int64 = 0, committed: Int64 = 0, inProgress = 0, frozen = 0
        for i in core.apps.indices {
            let a = core.apps[i]
            // What it packs to: its suspended footprint's (a thawed app's touched share).
            precondition(a.packedKB == Int32(clamping: core.packedKB(plainKB: suspendedPlainKB(core, Int32(i)))),
                         "app \(i) packs to \(a.packedKB) KiB, not its suspended footprint's")
            if a.memory.contains(.compressing) {
                // Part compressed: what the device credited it so far, never past its end.
                let c = compressionProgress(core, Int32(i))
                precondition(a.memory.contains(.compressed) && a.state == .suspended, "a compressing app is not suspended in the compressor")
                precondition(c.ticks >= 0 && c.ticks <= c.total, "app \(i) compressed \(c.ticks) of its \(c.total) seconds")
                pool += c.packedKB; committed += c.finalKB; inProgress += 1
                continue
            }
            if a.memory.contains(.compressed) {
                precondition(a.state == .suspended, "a running app is compressed")
                pool += a.residentKB; committed += a.residentKB
            }
            // A partial freeze leaves what did not fit compressed in RAM; nothing else.
            if a.memory.contains(.frozen) {
                precondition(a.state == .suspended && (a.residentKB == 0 || a.memory.contains(.compressed)), "a frozen app holds RAM outside the compressor")
                frozen += 1
            }
        }
        precondition(inProgress == compressor.compressing.count, "\(compressor.compressing.count) apps listed as compressing, \(inProgress) are")
        // The list holds each compressing app once (with the count above: exactly the
        // compressing apps), and each one's done second, stored when it started, is
        // still what its figures give (`CompressingApp`): nothing changes them while it
        // is compressed. One pass over the list, not a search of it per app.
        var listed = Set<Int32>(minimumCapacity: compressor.compressing.count)
        for entry in compressor.compressing {
            let i = Int(entry.app)
            precondition(listed.insert(entry.app).inserted, "app \(i) is listed twice as compressing")
            precondition(core.apps[i].memory.contains(.compressing), "app \(i) is listed as compressing and is not")
            let due = core.apps[i].compressingSince.microseconds / 1_000_000 + compressionProgress(core, entry.app).total
            precondition(entry.doneTick == due, "app \(i) is listed as done at second \(entry.doneTick), its figures say \(due)")
        }
        precondition(pool == compressor.pool.kb, "compressor pool \(compressor.pool.kb) KiB != compressed apps' \(pool) KiB")
        precondition(committed == compressor.pool.committedKB,
                     "compressor commitments \(compressor.pool.committedKB) KiB != compressed apps' final \(committed) KiB")
        precondition(compressor.pool.kb <= compressor.pool.committedKB && compressor.pool.committedKB <= max(compressor.poolBoundKB, 0),
                     "compressor pool over its bound")
        precondition(frozen == Int(frozenCount), "frozen count \(frozenCount) != \(frozen)")
    }
}
