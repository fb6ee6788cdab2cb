import SimKernel

// Android: cached apps' memory, zram reclaim and writeback, and swap-in at resume.
extension Device {
    /// An app became cached (suspended): its memory stays uncompressed until reclaim
    /// needs it; it joins reclaim's order.
    mutating func androidCached(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        setResident(app, min(apps[a].residentKB, profiles[pi(app)].suspendedKB))
        android.uncompressed.append(app, to: 0)
        // Cached since now: ActivityManager's lastActivityTime for the empty-process
        // trim (`processTrimDue`).
        apps[a].cachedSince = now
        if apps[a].lifecycle.contains(.systemStarted) { androidEmptyCached(app) }
    }

    /// The app leaves the cached set (resumed or killed): out of reclaim's order; if
    /// its memory was in zram, a swap-in (resume) or a free (kill) follows.
    @inline(__always) mutating func androidForget(_ app: Int32) {
        android.uncompressed.remove(app)
        if apps[Int(app)].memory.contains(.emptyProcess) { androidEmptyForgotten(app) }
    }

    /// A cached app resumes (a user's launch, or a system wake): out of reclaim's
    /// order (it runs now), its pages back from zram (`compressed`) or flash
    /// (`frozen`; the flash read is the time when both). Returns the swap-in time.
    @discardableResult
    mutating func androidResume(_ app: Int32, compressed: Bool, frozen: Bool, _ now: SimTime) -> SimTime {
        androidForget(app)
        var swapIn = SimTime.zero
        if compressed { swapIn = androidSwapIn(app, now) }
        if frozen { swapIn = androidSwapIn(app, fromFlash: true, now) }
        return swapIn
    }

    /// A resume of a cached app from zram: its pages come back (a swap-in), which
    /// stalls, and counts as refaults for lmkd's thrashing measure only when asked
    /// (`thrashingCountsSwapIns`: lmkd counts file refaults). Returns the time.
    mutating func androidSwapIn(_ app: Int32, fromFlash: Bool = false, _ now: SimTime) -> SimTime {
        // From flash: the cached footprint, read back at `flashSwapInPerMB`.
        let plain = fromFlash ? profiles[pi(app)].suspendedKB
            : Int64((Double(apps[Int(app)].residentKB) * params.android.zramRatio).rounded())
        let perMB = fromFlash ? params.android.flashSwapInPerMB : params.android.swapInPerMB
        psiWindow(now)
        stall(plain, perMB: perMB)
        if params.android.measuresThrashing {
            thrashingWindow(now)
            android.refaultKB = .saturatingSum(android.refaultKB, plain)
        }
        let t = SimTime(saturatingMicroseconds: Double(perMB.microseconds) * Double(plain) / 1_024)
        metrics[.swapIns] += 1
        metrics[.swapInLatencySumMicros] = .saturatingSum(metrics[.swapInLatencySumMicros], Int(t.microseconds))
        return t
    }

    /// Reclaim (kswapd, then direct reclaim) for a request of `needKB`: compresses
    /// the oldest cached apps into zram until the request fits above the high
    /// watermark, while zram has room. Each MiB compressed is stall.
    mutating func zramReclaim(untilAvailable target: Int64, _ now: SimTime) {
        guard params.android.zram, params.android.zramRatio > 1 else { return }
        var app = android.uncompressed.head(0)
        while availableKB < target && app >= 0 {
            let next = android.uncompressed.next(app)
            // The app being launched is on its way to the front: not reclaimed.
            if app == launching { app = next; continue }
            let a = Int(app)
            let plain = apps[a].residentKB
            if zramStoredKB + plain > params.android.zramKB {
                // zram full: write back to flash if today's limit allows, else stop.
                guard params.android.writeback else { break }
                let day = Int32(truncatingIfNeeded: now.microseconds / 86_400_000_000)
                if day != flashDay { flashDay = day; flashTodayKB = 0 }
                guard flashTodayKB + plain <= params.android.writebackDailyKB else { break }
                flashTodayKB += plain
                metrics[.flashWrittenKB] = .saturatingSum(metrics[.flashWrittenKB], Int(plain))
                android.uncompressed.remove(app)
                setResident(app, 0)
                apps[a].memory.insert(.frozen)
                frozenCount += 1
                stall(plain, perMB: params.android.flashSwapInPerMB)
                policy.update(app, candidate(app))
                app = next
                continue
            }
            let packed = Int64((Double(plain) / params.android.zramRatio).rounded())
            android.uncompressed.remove(app)
            setResident(app, packed)
            apps[a].memory.insert(.compressed)
            compressorCommittedKB += packed  // leaveCompressor takes it back
            compressorChange(packed, now)
            stall(plain, perMB: params.android.compressPerMB)
            policy.update(app, candidate(app))
            app = next
        }
    }
}
