import SimKernel

// XNU: the compressor pool.
extension Device {
    // MARK: Compressor

    /// The pool grows or shrinks by `delta` KiB at `now` (its time integral and peak
    /// follow).
    mutating func compressorChange(_ delta: Int64, _ now: SimTime) {
        flushCompressor(now)
        compressorKB += delta
        compressorShort = compressorKB > 0 && compressorKB > core.kb.xnu.compressorShortPoolKB
        if compressorKB > Int64(core.metrics[.compressorPeakKB]) { core.metrics[.compressorPeakKB] = Int(compressorKB) }
        updatePressureLevel(now)
    }

    /// `kb` KiB held for `ms` milliseconds, in KiB x s: the Double figure
    /// `Int(saturating: Double(kb) * Double(ms) / 1_000)`, in integers where that is
    /// exact. Below 2^52 the product is exact as a Double, and the quotient (below
    /// 2^42.1) rounds to within 2^-11 of itself, while a fraction in thousandths is at
    /// least 0.001 from the next integer: truncating it is the integer division.
    /// Non-negative arguments.
    @inline(__always) static func kbSeconds(_ kb: Int64, ms: Int64) -> Int {
        let (product, overflow) = kb.multipliedReportingOverflow(by: ms)
        if !overflow && product < 1 << 52 { return Int(product / 1_000) }
        // A terabyte pool held for months passes Int64 as a product: saturate.
        return Int(saturating: Double(kb) * Double(ms) / 1_000)
    }

    /// Adds the pool's occupancy since the last change to its time integral (KiB x s).
    mutating func flushCompressor(_ now: SimTime) {
        let ms = (now - compressorSince).microseconds / 1_000
        if ms > 0 && compressorKB > 0 {
            let add = Self.kbSeconds(compressorKB, ms: ms)
            core.metrics[.compressorKBSeconds] = .saturatingSum(core.metrics[.compressorKBSeconds], add)
        }
        compressorSince = now
    }

    /// A suspended app's memory: compressed into the pool when there is room (resident
    /// = suspended footprint / ratio), else left uncompressed. With a compression rate
    /// the app enters the pool uncompressed and is compressed over the seconds that
    /// follow ("Compression over time" below); the pool's bound is checked against
    /// its size once compressed.
    mutating func compressOnSuspend(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        let plain = min(core.apps[a].residentKB, suspendedPlainKB(app))
        // The compressor off: the suspended footprint, nothing else to compute.
        guard core.params.compresses else {
            core.setResident(app, plain)
            if overSoftLimitCount > 0 && physFootprintKB(app) <= core.kb.xnu.inactiveLimitKB { clearSoftLimit(app) }
            return
        }
        let packed = min(core.apps[a].residentKB, Int64(core.apps[a].packedKB))
        if compressorCommittedKB + packed <= core.kb.xnu.compressorPoolKB {
            core.apps[a].memory.insert(.compressed)
            compressorCommittedKB += packed
            let seconds = core.params.xnu.compressionKBPerS > 0 ? compressionSeconds(plainKB: plain, finalKB: packed) : 0
            if seconds > 0 {
                core.setResident(app, plain)
                startCompressing(app, seconds: seconds, now)
            } else {
                core.setResident(app, packed)
                compressorChange(packed, now)
            }
        } else {
            core.setResident(app, plain)
        }
        // Under its limit only if its suspended footprint is: compression does not
        // count (phys_footprint holds compressed pages uncompressed, `physFootprintKB`).
        if overSoftLimitCount > 0 && physFootprintKB(app) <= core.kb.xnu.inactiveLimitKB { clearSoftLimit(app) }
    }

    /// What a resume waits for: decompressing the share of the compressed memory
    /// (`compressedKB`: the suspended footprint, or what a part-compressed app had
    /// compressed) the app touches before its first frame (`resumeTouchShare`); the
    /// rest comes back on demand while it runs, outside the launch latency. Exact in
    /// integers (the share in parts per million).
    @inline(__always) func resumeDecompression(_ p: Int, compressedKB: Int64? = nil) -> SimTime {
        let touched = (compressedKB ?? core.profiles[p].suspendedKB) * Int64(core.params.xnu.resumeTouchPPM) / 1_000_000
        return SimTime(microseconds: core.params.xnu.decompressPerMB.microseconds * touched / 1_024)
    }

    /// The app's memory leaves the compressor (resume, freeze or kill). Returns the
    /// uncompressed KiB a part-compressed app had compressed (0 otherwise): its
    /// resident memory becomes what it holds now, uncompressed part and compressed
    /// part together.
    /// Inline up to the check (every resume and kill passes here, and with the
    /// compressor off no app is in it): the rest out of line.
    @discardableResult @inline(__always)
    mutating func leaveCompressor(_ app: Int32, _ now: SimTime) -> Int64 {
        clearSoftLimit(app)  // terminate clears the flags after this, before removeCandidate
        guard core.apps[Int(app)].memory.contains(.compressed) else { return 0 }
        return leaveCompressorNow(app, now)
    }

    /// `leaveCompressor` for an app in the compressor.
    @inline(never)
    mutating func leaveCompressorNow(_ app: Int32, _ now: SimTime) -> Int64 {
        let a = Int(app)
        if !compressing.isEmpty { advanceCompression(now) }
        if core.apps[a].memory.contains(.compressing) {
            let c = compressionProgress(app)
            stopCompressing(app)
            core.apps[a].leaveCompressor(residentKB: c.residentKB)  // available memory counts it already
            compressorCommittedKB -= c.finalKB
            compressorChange(-c.packedKB, now)
            return c.inputKB
        }
        core.apps[a].memory.remove(.compressed)
        // Android's zram: a cached app's GC may keep part of it uncompressed
        // (Memory/Android/Zram.swift); only the rest is in the pool.
        let packed = core.apps[a].residentKB - zramTakeHeld(app)
        compressorCommittedKB -= packed
        compressorChange(-packed, now)
        return 0
    }
}
