import SimKernel

// The compressor: the pool of compressed memory (`CompressorPool`, which Android's zram
// uses too) and compression over time (`Compressor`), run by the managers that
// compress suspended apps (`Compressing`: the plain model and XNU's). Its knobs are the
// device class's XNU compressor keys (`compressor_pool_pct`, `compression_mb_per_s`,
// `resume_touch_share`, `decompress_ms_per_mb`), which the plain model reads too.

/// The pool: what compressed apps keep resident (physical KiB), when it last changed
/// (for its time integral; its peak is a counter), and what the apps in it will hold
/// once their compression is done.
struct CompressorPool {
    var kb: Int64 = 0
    var since: SimTime = .zero
    var committedKB: Int64 = 0

    /// The pool grows or shrinks by `delta` KiB at `now`: its time integral and peak
    /// follow (`compressor_kb_s`, `compressor_peak_kb`).
    @inline(__always) mutating func change(_ delta: Int64, _ metrics: inout DeviceMetrics, _ now: SimTime) {
        flush(&metrics, now)
        kb += delta
        if kb > Int64(metrics[.compressorPeakKB]) { metrics[.compressorPeakKB] = Int(kb) }
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
    mutating func flush(_ metrics: inout DeviceMetrics, _ now: SimTime) {
        let ms = (now - since).microseconds / 1_000
        if ms > 0 && kb > 0 {
            let add = Self.kbSeconds(kb, ms: ms)
            metrics[.compressorKBSeconds] = .saturatingSum(metrics[.compressorKBSeconds], add)
        }
        since = now
    }
}

/// An app whose memory is being compressed (`Device.compressing`), and the whole
/// second at which it is done: its suspension's second plus the seconds its memory
/// needs (`Device.compressionSeconds`). Stored when it starts, so finding the apps
/// that are done costs no division per app. The figures it follows from cannot change
/// while it is compressed: its uncompressed size (`resident`) and suspension time
/// (`compressingSince`) are written only where it enters or leaves the compressor (every
/// other writer acts on a running app, or on a suspended one after
/// `leaveCompressor`), its `packedKB` only where it is frozen or thawed (after
/// `finishCompressionNow`, or not compressed), and the rate and chunk are the
/// run's; `checkInvariants` asserts it after every event.
struct CompressingApp {
    var app: Int32
    var doneTick: Int64
}

/// The compressor of a manager that compresses suspended apps: the pool, the apps
/// being compressed now (`compressing`), the last whole second credited to them and
/// the first second at which one may be done (a lower bound: `.max` when none), and
/// its knobs (set by its manager from the device's parameters).
struct Compressor {
    var pool = CompressorPool()
    var compressing = ContiguousArray<CompressingApp>()
    var tick: Int64 = 0
    var nextDone: Int64 = .max
    /// The pool's bound (physical KiB); uncompressed KiB compressed per second (0: all
    /// at suspension) and what a second's worth packs to.
    var poolBoundKB: Int64 = 0
    var kbPerS: Int64 = 0
    var chunkPackedKB: Int64 = 0
    /// What a resume decompresses before its first frame (parts per million) and at
    /// what cost.
    var resumeTouchPPM: Int32 = 0
    var decompressPerMB: SimTime = .zero

    /// Its knobs from the device's parameters (`compressor_pool_pct`,
    /// `compression_mb_per_s`, `resume_touch_share`, `decompress_ms_per_mb`).
    mutating func configure(_ p: DeviceParameters) {
        poolBoundKB = p.compressorPoolKB
        kbPerS = p.xnu.compressionKBPerS
        chunkPackedKB = p.compressionChunkPackedKB
        resumeTouchPPM = p.xnu.resumeTouchPPM
        decompressPerMB = p.xnu.decompressPerMB
    }

    /// Empty, for a run.
    mutating func reset() {
        pool = CompressorPool()
        compressing.removeAll(keepingCapacity: true)
        tick = 0
        nextDone = .max
    }
}

/// A memory manager that compresses suspended apps (the plain model, XNU): the
/// compressor's functions, and what they ask of their manager.
protocol Compressing: MemoryManaging {
    var compressor: Compressor { get set }
    /// The pool changed (XNU: its shortage and pressure level follow).
    mutating func compressorChanged(_ core: inout Core, _ now: SimTime)
    /// An app's compression finished: the policy hears of its new size, and XNU
    /// clears its high-water flag if it is under its inactive limit now.
    mutating func compressionFinished(_ core: inout Core, _ app: Int32, _ now: SimTime)
    /// The suspended footprint an app can hold in RAM, uncompressed (XNU: a thawed
    /// app's touched share).
    func suspendedPlainKB(_ core: Core, _ app: Int32) -> Int64
}

extension Compressing {
    // MARK: The pool

    /// The pool grows or shrinks by `delta` KiB at `now`; the manager hears of it.
    mutating func compressorChange(_ core: inout Core, _ delta: Int64, _ now: SimTime) {
        compressor.pool.change(delta, &core.metrics, now)
        compressorChanged(&core, now)
    }

    /// A suspended app's memory: compressed into the pool when there is room (resident
    /// = suspended footprint / ratio), else left uncompressed. With a compression rate
    /// the app enters the pool uncompressed and is compressed over the seconds that
    /// follow ("Compression over time" below); the pool's bound is checked against
    /// its size once compressed.
    mutating func compressOnSuspend(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        let a = Int(app)
        let plain = min(core.apps[a].residentKB, suspendedPlainKB(core, app))
        // The compressor off: the suspended footprint, nothing else to compute.
        guard core.params.compresses else {
            core.setResident(app, plain)
            return
        }
        let packed = min(core.apps[a].residentKB, Int64(core.apps[a].packedKB))
        if compressor.pool.committedKB + packed <= compressor.poolBoundKB {
            core.apps[a].memory.insert(.compressed)
            compressor.pool.committedKB += packed
            let seconds = compressor.kbPerS > 0 ? compressionSeconds(plainKB: plain, finalKB: packed) : 0
            if seconds > 0 {
                core.setResident(app, plain)
                startCompressing(&core, app, seconds: seconds, now)
            } else {
                core.setResident(app, packed)
                compressorChange(&core, packed, now)
            }
        } else {
            core.setResident(app, plain)
        }
    }

    /// A warm resume: the resume, plus decompressing what it touches when suspended
    /// apps' memory is compressed (`compressedKB`: what is compressed; nil: its whole
    /// compressed share).
    @inline(__always) func warmLatency(_ core: Core, _ p: Int, compressedKB: Int64? = nil) -> SimTime {
        guard core.params.suspendedCompressionRatio > 1 else { return core.profiles[p].warmLaunch }
        return core.profiles[p].warmLaunch + resumeDecompression(core, p, compressedKB: compressedKB)
    }

    /// What a resume waits for: decompressing the share of the compressed memory
    /// (`compressedKB`: the suspended footprint, or what a part-compressed app had
    /// compressed) the app touches before its first frame (`resumeTouchShare`); the
    /// rest comes back on demand while it runs, outside the launch latency. Exact in
    /// integers (the share in parts per million).
    @inline(__always) func resumeDecompression(_ core: Core, _ p: Int, compressedKB: Int64? = nil) -> SimTime {
        let touched = (compressedKB ?? core.profiles[p].suspendedKB) * Int64(compressor.resumeTouchPPM) / 1_000_000
        return SimTime(microseconds: compressor.decompressPerMB.microseconds * touched / 1_024)
    }

    /// The app's memory leaves the compressor (resume, freeze or kill). Returns the
    /// uncompressed KiB a part-compressed app had compressed (0 otherwise): its
    /// resident memory becomes what it holds now, uncompressed part and compressed
    /// part together.
    /// Inline up to the check (every resume and kill passes here, and with the
    /// compressor off no app is in it): the rest out of line.
    @discardableResult @inline(__always)
    mutating func leaveCompressor(_ core: inout Core, _ app: Int32, _ now: SimTime) -> Int64 {
        guard core.apps[Int(app)].memory.contains(.compressed) else { return 0 }
        return leaveCompressorNow(&core, app, now)
    }

    /// `leaveCompressor` for an app in the compressor.
    @inline(never)
    mutating func leaveCompressorNow(_ core: inout Core, _ app: Int32, _ now: SimTime) -> Int64 {
        let a = Int(app)
        if !compressor.compressing.isEmpty { advanceCompression(&core, now) }
        if core.apps[a].memory.contains(.compressing) {
            let c = compressionProgress(core, app)
            stopCompressing(&core, app)
            core.apps[a].leaveCompressor(residentKB: c.residentKB)  // available memory counts it already
            compressor.pool.committedKB -= c.finalKB
            compressorChange(&core, -c.packedKB, now)
            return c.inputKB
        }
        core.apps[a].memory.remove(.compressed)
        let packed = core.apps[a].residentKB
        compressor.pool.committedKB -= packed
        compressorChange(&core, -packed, now)
        return 0
    }

    // MARK: Compression over time

    // XNU compresses no app at suspension: its pages age through the active and
    // inactive queues and are compressed when vm_pageout_scan steals them (the
    // inactive target is half the pageable memory, osfmk/vm/vm_pageout.c:221
    // VM_PAGE_INACTIVE_TARGET; the compressor threads take them in batches,
    // vm_pageout.c:4177-4247), so an app suspended a few seconds ago is still mostly
    // uncompressed. XNU has no rate constant; `compression_mb_per_s` is an
    // *assumption*.
    //
    // The model: every app being compressed turns `compressionKBPerS` uncompressed KiB
    // into `compressionChunkPackedKB` at each whole second of the device clock after
    // its suspension, until the seconds its memory needs (`compressionSeconds`); then
    // it holds exactly what the instant model gives it. The device credits all of
    // them at once, lazily, at its next event (count x seconds x chunk: O(1), no scan),
    // and finishes the apps that are done at the second they are done (a scan of the
    // few apps being compressed, only then). Available memory, the pool, the pressure
    // level and every kill trigger read the same credited figures; an app's own
    // figures follow from its uncompressed size at suspension (kept in `resident`),
    // its suspension time (`compressingSince`) and the credited second (`compressionProgress`).

    /// Whole seconds an app of `plainKB` needs to reach `finalKB`: full chunks only,
    /// never past its memory, its final size or what it frees (the rest at the end).
    @inline(__always) func compressionSeconds(plainKB: Int64, finalKB: Int64) -> Int64 {
        let c = compressor.kbPerS
        guard c > 0 else { return 0 }
        let pk = compressor.chunkPackedKB
        var n = plainKB / c
        if c - pk > 0 { n = min(n, (plainKB - finalKB) / (c - pk)) }
        if pk > 0 { n = min(n, finalKB / pk) }
        return max(0, n)
    }

    /// An app being compressed, as of the last credited second: seconds credited and
    /// needed; KiB in the pool, resident (uncompressed + compressed part), once done,
    /// and compressed so far (uncompressed).
    @inline(__always)
    func compressionProgress(_ core: Core, _ app: Int32) -> (ticks: Int64, total: Int64, packedKB: Int64, residentKB: Int64, finalKB: Int64, inputKB: Int64) {
        let a = Int(app)
        let plain = core.apps[a].residentKB
        let final = min(plain, Int64(core.apps[a].packedKB))
        let c = compressor.kbPerS, pk = compressor.chunkPackedKB
        let ticks = compressor.tick - core.apps[a].compressingSince.microseconds / 1_000_000
        return (ticks, compressionSeconds(plainKB: plain, finalKB: final), ticks * pk, plain - ticks * (c - pk), final, ticks * c)
    }

    /// An app's resident memory now (with the seconds credited so far).
    @inline(__always) func residentNowKB(_ core: Core, _ app: Int32) -> Int64 {
        core.apps[Int(app)].memory.contains(.compressing) ? compressionProgress(core, app).residentKB : core.apps[Int(app)].residentKB
    }

    /// An app's resident memory once its compression is done.
    @inline(__always) func residentSettledKB(_ core: Core, _ app: Int32) -> Int64 {
        core.apps[Int(app)].memory.contains(.compressing) ? compressionProgress(core, app).finalKB : core.apps[Int(app)].residentKB
    }

    /// Puts a just-suspended app (resident = its uncompressed size) on the list.
    mutating func startCompressing(_ core: inout Core, _ app: Int32, seconds: Int64, _ now: SimTime) {
        let tick = now.microseconds / 1_000_000
        if !compressor.compressing.isEmpty { advanceCompression(&core, now) }
        // Nothing being compressed (or the others just finished): start the count now.
        if compressor.compressing.isEmpty { compressor.tick = tick }
        core.apps[Int(app)].markCompressing(since: now)
        // Done at the seconds `compressionProgress` counts (from the resident size now).
        compressor.compressing.append(CompressingApp(app: app, doneTick: tick + compressionProgress(core, app).total))
        compressor.nextDone = min(compressor.nextDone, tick + seconds)
    }

    /// Takes an app off the list (its figures are settled by the caller).
    mutating func stopCompressing(_ core: inout Core, _ app: Int32) {
        if let i = compressor.compressing.firstIndex(where: { $0.app == app }) { stopCompressing(&core, at: i) }
    }

    /// Takes the app at position `i` of the list off it (the last one takes its place).
    mutating func stopCompressing(_ core: inout Core, at i: Int) {
        core.apps[Int(compressor.compressing[i].app)].memory.remove(.compressing)
        let last = compressor.compressing.count - 1
        // The last one (the only one, mostly) needs no move: a write less.
        if i != last { compressor.compressing[i] = compressor.compressing[last] }
        compressor.compressing.removeLast()
        if compressor.compressing.isEmpty { compressor.nextDone = .max }
    }

    /// Credits every app being compressed with the whole seconds up to `now`, and
    /// finishes each at the second it is done. O(1) per call, plus a scan of the list
    /// at each second some app may be done.
    mutating func advanceCompression(_ core: inout Core, _ now: SimTime) {
        let tick = now.microseconds / 1_000_000
        while !compressor.compressing.isEmpty && compressor.tick < tick {
            let upTo = min(tick, compressor.nextDone)
            let steps = upTo - compressor.tick
            compressor.tick = upTo
            let at = SimTime(microseconds: upTo * 1_000_000)
            if steps > 0 {
                let n = Int64(compressor.compressing.count) * steps
                core.availableKB += n * (compressor.kbPerS - compressor.chunkPackedKB)
                compressorChange(&core, n * compressor.chunkPackedKB, at)
            }
            if upTo == compressor.nextDone { finishCompressions(&core, at, now) }
        }
    }

    /// Finishes the apps whose seconds are all credited, and finds the next second
    /// one may be done.
    mutating func finishCompressions(_ core: inout Core, _ at: SimTime, _ now: SimTime) {
        var i = 0
        var next = Int64.max
        while i < compressor.compressing.count {
            // Its done second was stored when it started (`CompressingApp`): a compare
            // per app, its figures computed only when it is done.
            let entry = compressor.compressing[i]
            if compressor.tick >= entry.doneTick {
                let c = compressionProgress(core, entry.app)
                stopCompressing(&core, at: i)
                finishCompression(&core, entry.app, c, at, now)
            } else {
                next = min(next, entry.doneTick)
                i += 1
            }
        }
        compressor.nextDone = compressor.compressing.isEmpty ? .max : next
    }

    /// The rest of an app's memory goes in at once: it holds its final size, as in
    /// the instant model. The pool changes at `at` (the credited second); the policy
    /// hears of its new size at `now`.
    mutating func finishCompression(_ core: inout Core, _ app: Int32, _ c: (ticks: Int64, total: Int64, packedKB: Int64, residentKB: Int64, finalKB: Int64, inputKB: Int64),
                                    _ at: SimTime, _ now: SimTime) {
        let a = Int(app)
        core.availableKB += c.residentKB - c.finalKB
        core.apps[a].residentKB = c.finalKB
        compressorChange(&core, c.finalKB - c.packedKB, at)
        compressionFinished(&core, app, now)
    }

    /// Finishes one app's compression now (the freezer compresses what is left
    /// itself before writing it out).
    mutating func finishCompressionNow(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        advanceCompression(&core, now)
        guard core.apps[Int(app)].memory.contains(.compressing) else { return }
        let c = compressionProgress(core, app)
        stopCompressing(&core, app)
        finishCompression(&core, app, c, now, now)
    }
}
