import SimKernel

// XNU: compression over time (an app's memory goes into the pool over the seconds
// after its suspension).
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

extension Device {
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
        let c = core.params.xnu.compressionKBPerS
        guard c > 0 else { return 0 }
        let pk = core.kb.xnu.compressionChunkPackedKB
        var n = plainKB / c
        if c - pk > 0 { n = min(n, (plainKB - finalKB) / (c - pk)) }
        if pk > 0 { n = min(n, finalKB / pk) }
        return max(0, n)
    }

    /// An app being compressed, as of the last credited second: seconds credited and
    /// needed; KiB in the pool, resident (uncompressed + compressed part), once done,
    /// and compressed so far (uncompressed).
    @inline(__always)
    func compressionProgress(_ app: Int32) -> (ticks: Int64, total: Int64, packedKB: Int64, residentKB: Int64, finalKB: Int64, inputKB: Int64) {
        let a = Int(app)
        let plain = core.apps[a].residentKB
        let final = min(plain, Int64(core.apps[a].packedKB))
        let c = core.params.xnu.compressionKBPerS, pk = core.kb.xnu.compressionChunkPackedKB
        let ticks = compressTick - core.apps[a].compressingSince.microseconds / 1_000_000
        return (ticks, compressionSeconds(plainKB: plain, finalKB: final), ticks * pk, plain - ticks * (c - pk), final, ticks * c)
    }

    /// An app's resident memory now (with the seconds credited so far).
    @inline(__always) func residentNowKB(_ app: Int32) -> Int64 {
        core.apps[Int(app)].memory.contains(.compressing) ? compressionProgress(app).residentKB : core.apps[Int(app)].residentKB
    }

    /// An app's resident memory once its compression is done.
    @inline(__always) func residentSettledKB(_ app: Int32) -> Int64 {
        core.apps[Int(app)].memory.contains(.compressing) ? compressionProgress(app).finalKB : core.apps[Int(app)].residentKB
    }

    /// Puts a just-suspended app (resident = its uncompressed size) on the list.
    mutating func startCompressing(_ app: Int32, seconds: Int64, _ now: SimTime) {
        let tick = now.microseconds / 1_000_000
        if !compressing.isEmpty { advanceCompression(now) }
        // Nothing being compressed (or the others just finished): start the count now.
        if compressing.isEmpty { compressTick = tick }
        core.apps[Int(app)].markCompressing(since: now)
        // Done at the seconds `compressionProgress` counts (from the resident size now).
        compressing.append(CompressingApp(app: app, doneTick: tick + compressionProgress(app).total))
        compressNextDone = min(compressNextDone, tick + seconds)
    }

    /// Takes an app off the list (its figures are settled by the caller).
    mutating func stopCompressing(_ app: Int32) {
        if let i = compressing.firstIndex(where: { $0.app == app }) { stopCompressing(at: i) }
    }

    /// Takes the app at position `i` of the list off it (the last one takes its place).
    mutating func stopCompressing(at i: Int) {
        core.apps[Int(compressing[i].app)].memory.remove(.compressing)
        let last = compressing.count - 1
        // The last one (the only one, mostly) needs no move: a write less.
        if i != last { compressing[i] = compressing[last] }
        compressing.removeLast()
        if compressing.isEmpty { compressNextDone = .max }
    }

    /// Credits every app being compressed with the whole seconds up to `now`, and
    /// finishes each at the second it is done. O(1) per call, plus a scan of the list
    /// at each second some app may be done.
    mutating func advanceCompression(_ now: SimTime) {
        let tick = now.microseconds / 1_000_000
        while !compressing.isEmpty && compressTick < tick {
            let upTo = min(tick, compressNextDone)
            let steps = upTo - compressTick
            compressTick = upTo
            let at = SimTime(microseconds: upTo * 1_000_000)
            if steps > 0 {
                let n = Int64(compressing.count) * steps
                core.availableKB += n * (core.params.xnu.compressionKBPerS - core.kb.xnu.compressionChunkPackedKB)
                compressorChange(n * core.kb.xnu.compressionChunkPackedKB, at)
            }
            if upTo == compressNextDone { finishCompressions(at, now) }
        }
    }

    /// Finishes the apps whose seconds are all credited, and finds the next second
    /// one may be done.
    mutating func finishCompressions(_ at: SimTime, _ now: SimTime) {
        var i = 0
        var next = Int64.max
        while i < compressing.count {
            // Its done second was stored when it started (`CompressingApp`): a compare
            // per app, its figures computed only when it is done.
            let entry = compressing[i]
            if compressTick >= entry.doneTick {
                let c = compressionProgress(entry.app)
                stopCompressing(at: i)
                finishCompression(entry.app, c, at, now)
            } else {
                next = min(next, entry.doneTick)
                i += 1
            }
        }
        compressNextDone = compressing.isEmpty ? .max : next
    }

    /// The rest of an app's memory goes in at once: it holds its final size, as in
    /// the instant model. The pool changes at `at` (the credited second); the policy
    /// hears of its new size at `now`.
    mutating func finishCompression(_ app: Int32, _ c: (ticks: Int64, total: Int64, packedKB: Int64, residentKB: Int64, finalKB: Int64, inputKB: Int64),
                                    _ at: SimTime, _ now: SimTime) {
        let a = Int(app)
        core.availableKB += c.residentKB - c.finalKB
        core.apps[a].residentKB = c.finalKB
        compressorChange(c.finalKB - c.packedKB, at)
        if core.apps[a].residentKB <= core.kb.xnu.inactiveLimitKB { clearSoftLimit(app) }
        refreshCandidateIfBandMoved(app, now)
    }

    /// Finishes one app's compression now (the freezer compresses what is left
    /// itself before writing it out).
    mutating func finishCompressionNow(_ app: Int32, _ now: SimTime) {
        advanceCompression(now)
        guard core.apps[Int(app)].memory.contains(.compressing) else { return }
        let c = compressionProgress(app)
        stopCompressing(app)
        finishCompression(app, c, now, now)
    }
}
