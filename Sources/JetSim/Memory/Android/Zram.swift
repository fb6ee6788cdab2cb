import SimKernel

// Android: cached apps' memory, zram reclaim and writeback, and swap-in at resume.
extension AndroidMemory {
    /// An app became cached (suspended): its memory stays uncompressed until reclaim
    /// needs it; it joins reclaim's order.
    mutating func androidCached(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        let a = Int(app)
        core.setResident(app, min(core.apps[a].residentKB, core.profiles[core.pi(app)].suspendedKB))
        state.uncompressed.append(app, to: 0)
        // Cached since now: ActivityManager's lastActivityTime for the empty-process
        // trim (`processTrimDue`).
        core.apps[a].cachedSince = now
        if core.apps[a].lifecycle.contains(.systemStarted) { androidEmptyCached(&core, app) }
    }

    /// The app leaves the cached set (resumed or killed): out of reclaim's order; if
    /// its memory was in zram, a swap-in (resume) or a free (kill) follows.
    @inline(__always) mutating func androidForget(_ core: inout Core, _ app: Int32) {
        state.uncompressed.remove(app)
        if core.apps[Int(app)].memory.contains(.emptyProcess) { androidEmptyForgotten(&core, app) }
    }

    /// A cached app resumes (a user's launch, or a system wake): out of reclaim's
    /// order (it runs now), its pages back from zram (`compressed`) or flash
    /// (`frozen`; the flash read is the time when both). Returns the swap-in time.
    @discardableResult
    mutating func androidResume(_ core: inout Core, _ app: Int32, compressed: Bool, frozen: Bool, _ now: SimTime) -> SimTime {
        androidForget(&core, app)
        var swapIn = SimTime.zero
        if compressed { swapIn = androidSwapIn(&core, app, now) }
        if frozen { swapIn = androidSwapIn(&core, app, fromFlash: true, now) }
        swapFileRelease(app)
        return swapIn
    }

    /// With a swap file: the app's pages leave it (read back, or the app died).
    @inline(__always) mutating func swapFileRelease(_ app: Int32) {
        guard !state.swappedKB.isEmpty else { return }
        state.fileUsedKB -= Int64(state.swappedKB[Int(app)])
        state.swappedKB[Int(app)] = 0
    }

    /// A resume of a cached app from zram: its pages come back (a swap-in), which
    /// stalls, and counts as refaults for lmkd's thrashing measure only when asked
    /// (`thrashingCountsSwapIns`: lmkd counts file refaults). Returns the time.
    mutating func androidSwapIn(_ core: inout Core, _ app: Int32, fromFlash: Bool = false, _ now: SimTime) -> SimTime {
        // From flash: the cached footprint, read back at `flashSwapInPerMB`.
        // From zram: what is packed there (its resident less what its GC holds).
        let plain = fromFlash ? core.profiles[core.pi(app)].suspendedKB
            : params.swapFile ? Int64(state.swappedKB[Int(app)])
            : Int64((Double(core.apps[Int(app)].residentKB - zramHeldKB(app)) * params.zramRatio).rounded())
        let perMB = fromFlash ? params.flashSwapInPerMB : params.swapInPerMB
        psiWindow(now)
        stall(plain, perMB: perMB)
        if params.measuresThrashing {
            thrashingWindow(now)
            state.refaultKB = .saturatingSum(state.refaultKB, plain)
        }
        // What the resume waits for: all of it, or on Fleet its launch objects (zram).
        let waitKB = fromFlash ? plain : launchSwapInKB(plainKB: plain)
        let t = SimTime(saturatingMicroseconds: Double(perMB.microseconds) * Double(waitKB) / 1_024)
        core.metrics[.swapIns] += 1
        core.metrics[.swapInLatencySumMicros] = .saturatingSum(core.metrics[.swapInLatencySumMicros], Int(t.microseconds))
        return t
    }

    /// Reclaim (kswapd, then direct reclaim) for a request of `needKB`: compresses
    /// the oldest cached apps into zram until the request fits above the high
    /// watermark, while zram has room. Each MiB compressed is stall.
    mutating func zramReclaim(_ core: inout Core, untilAvailable target: Int64, _ now: SimTime) {
        guard params.swapFile || (params.zram && params.zramRatio > 1) else { return }
        var app = state.uncompressed.head(0)
        while core.availableKB < target && app >= 0 {
            let next = state.uncompressed.next(app)
            // The app being launched is on its way to the front: not reclaimed.
            if app == core.launching { app = next; continue }
            let a = Int(app)
            let plain = core.apps[a].residentKB
            // What swap cannot take stays, and what its GC touches comes back from
            // zram and stays (`zramHeldKB`); the rest is swapped. By default, all of it.
            let held = zramHeldKB(plain: plain)
            let swapped = plain - held
            if zramStoredKB + swapped > params.swapKB {
                // zram full: write back to flash if today's limit allows, else stop.
                guard params.writeback else { break }
                let day = Int32(truncatingIfNeeded: now.microseconds / 86_400_000_000)
                if day != flashDay { flashDay = day; flashTodayKB = 0 }
                guard flashTodayKB + plain <= params.writebackDailyKB else { break }
                flashTodayKB += plain
                core.metrics[.flashWrittenKB] = .saturatingSum(core.metrics[.flashWrittenKB], Int(plain))
                state.uncompressed.remove(app)
                core.setResident(app, 0)
                core.apps[a].memory.insert(.frozen)
                frozenCount += 1
                stall(plain, perMB: params.flashSwapInPerMB)
                core.policy.update(app, candidate(core, app))
                app = next
                continue
            }
            // A swap file keeps nothing of it in RAM; zram, a compressed copy.
            let packed = params.swapFile ? 0 : Int64((Double(swapped) / params.zramRatio).rounded())
            if params.swapFile {
                let kb = Int32(clamping: swapped)  // what the release takes back, exactly
                state.swappedKB[a] = kb
                state.fileUsedKB += Int64(kb)
            }
            state.uncompressed.remove(app)
            core.setResident(app, packed + held)
            core.apps[a].memory.insert(.compressed)
            pool.committedKB += packed  // leaveCompressor takes it back
            pool.change(packed, &core.metrics, now)
            stall(plain, perMB: params.compressPerMB)
            if held > 0 {
                state.heldKB[a] = Int32(clamping: held)
                // The GC's swap-in: the heap pages it touched, decompressed again.
                let touched = gcTouchedKB(plain: plain)
                if touched > 0 { stall(touched, perMB: params.swapInPerMB) }
            }
            core.policy.update(app, candidate(core, app))
            app = next
        }
    }
}

// A cached app's garbage collector (issue 32). ART collects a cached app's heap too:
// a full concurrent-copying collection 5 s after it leaves the front
// (kCollectorTransitionWait, heap.h:186; heap.cc:1053-1054, 1460-1465 of the Fleet
// artifact's ART), then a background collection every ~22 s while it allocates
// (gc-working-set-twitch-without-BGC.log: 13 between 221.5 and 481.2 s). Each traces
// the live heap, so the heap pages zram took come back, and take RAM again. Modelled
// as immediate: when reclaim swaps a cached app out, the share its GC touches
// (`gcTouchedKB`) comes back at once, a swap-in on reclaim's stall, and stays in RAM
// (`AndroidState.heldKB`) until the app resumes or dies. Reclaim then goes on to
// the next app, as the kernel does when the pages come back. Not modelled: the GC's
// CPU time, its pause, the heap it frees; a GC of an app written back to flash.
// With it, `android_swappable_pct`: the share of the rest of a cached app that swap
// takes at all (only anonymous pages swap).
extension AndroidMemory {
    /// KiB of `plain` that stay in RAM when zram takes a cached app: what swap cannot
    /// take and what its GC touches (`zramHeldShare`). 0 by default.
    @inline(__always) func zramHeldKB(plain: Int64) -> Int64 {
        let share = zramHeldShare
        return share > 0 ? Int64((Double(plain) * share).rounded()) : 0
    }

    /// KiB of `plain` a cached app's GC touches in its heap (and so swaps back in):
    /// Android's whole heap, Fleet's background objects (`gcTouchShare`).
    @inline(__always) func gcTouchedKB(plain: Int64) -> Int64 {
        Int64((Double(plain) * params.gcHeapShare * gcTouchShare).rounded())
    }

    /// What app `app` keeps in RAM while it is in zram (0 when nothing is held).
    @inline(__always) func zramHeldKB(_ app: Int32) -> Int64 {
        state.heldKB.isEmpty ? 0 : Int64(state.heldKB[Int(app)])
    }

    /// The app leaves zram (resumed or killed): what it held, now forgotten.
    /// Called from `leaveCompressorNow` before the pool shrinks by the packed rest.
    @inline(__always) mutating func zramTakeHeld(_ app: Int32) -> Int64 {
        guard !state.heldKB.isEmpty else { return 0 }
        let held = Int64(state.heldKB[Int(app)])
        state.heldKB[Int(app)] = 0
        return held
    }
}
