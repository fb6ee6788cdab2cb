#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

// Android lmkd: PSI windows, stall and the thrashing measure.
extension AndroidMemory {
    /// Uncompressed memory in zram now (the pool's physical KiB times the ratio), or in
    /// the swap file (`AndroidParameters.swapFile`).
    @inline(__always) var zramStoredKB: Int64 {
        params.swapFile ? state.fileUsedKB : Int64((Double(pool.kb) * params.zramRatio).rounded())
    }

    /// Moves lmkd's 1 s PSI window to the one holding `now` (PSI_WINDOW_SIZE_MS
    /// 1000, lmkd.cpp:137): stall starts again from zero.
    mutating func psiWindow(_ now: SimTime) {
        let w = now.microseconds / 1_000_000
        guard w != state.window else { return }
        if params.stallLimitCriticalPct < 100 { psiAverage(movingTo: w) }
        state.window = w
        state.someStallUs = 0
        state.fullStallUs = 0
    }

    /// PSI's full-stall avg10 as the window moves to `w`: the kernel averages every
    /// 2 s, avg = avg x e + sample x (1 - e) with e = exp(-2 s / 10 s)
    /// (kernel/sched/psi.c, calc_avgs; EXP_10s); here every 1 s window is a sample
    /// (e = exp(-1/10)), the finished window's full stall its value (at most 100 %), and
    /// each window with no event since decays the average. Only kept when lmkd reads it
    /// (`stallLimitCriticalPct` under 100; at 100 it can never exceed the limit).
    mutating func psiAverage(movingTo w: Int64) {
        guard state.window >= 0 else { return }
        let e = 0.904_837_418_035_959_6  // exp(-0.1)
        let sample = min(100, Double(state.fullStallUs) / 10_000)
        var avg = state.fullAvg10 * e + sample * (1 - e)
        let quiet = w - state.window - 1
        if quiet > 0 { avg = quiet > 400 ? 0 : avg * pow(e, Double(quiet)) }
        state.fullAvg10 = avg
    }

    /// lmkd's thrashing window on a wake-up at `now` (mp_event_psi, lmkd.cpp:2832-2856):
    /// when more than THRASHING_RESET_INTERVAL_MS (1 s, lmkd.cpp:110) has passed since
    /// the last reset, the finished window's thrashing becomes the carried amount, halved
    /// for each window passed unless exactly one passed and it was over the limit (no
    /// victim was found: lmkd keeps it to retry), and the count, the reset time and the
    /// limit start again. While memory is under pressure lmkd polls every 10 ms
    /// (PSI_POLL_PERIOD_SHORT_MS, lmkd.cpp:139), so a burst of refaults is measured by the
    /// polls it spans; a swap-in is one instant here, so the window is moved before its
    /// refaults are counted, as the burst's first poll would.
    mutating func thrashingWindow(_ now: SimTime) {
        let ap = params
        guard ap.measuresThrashing else { return }
        let since = now.microseconds - state.thrashResetUs
        guard since > 1_000_000 else { return }
        var prev = refaultPct
        let windows = since / 1_000_000
        if windows > 1 || prev < state.thrashingLimit { prev = windows >= 63 ? 0 : prev >> windows }
        state.prevThrashPct = prev
        state.refaultKB = 0
        state.thrashResetUs = now.microseconds
        state.thrashingLimit = ap.thrashingLimitPct
    }

    /// Refaults since the last reset, % of the page cache. lmkd counts 4 KiB pages and
    /// divides by the file LRU + 1 page (lmkd.cpp:2836-2837, 2855); jetsim counts KiB and
    /// adds 4 KiB.
    @inline(__always) var refaultPct: Int64 {
        Int64(saturating: Double(state.refaultKB) * 100 / Double(params.pageCacheKB + 4))
    }

    /// lmkd's thrashing on a wake-up at `now`, % of the page cache: this window's
    /// refaults plus the carried amount (lmkd.cpp:2853-2858).
    mutating func thrashingPct(_ now: SimTime) -> Int64 {
        guard params.measuresThrashing else { return 0 }
        // A wake-up that moves the window counts only the carried amount (2853-2855):
        // the move zeroes the count.
        thrashingWindow(now)
        return .saturatingSum(refaultPct, state.prevThrashPct)
    }

    /// After a kill lmkd starts its thrashing measure again (lmkd.cpp:2776-2785), and a
    /// kill for thrashing cuts this window's limit by `thrashingDecayPct` of itself
    /// (cut_thrashing_limit, lmkd.cpp:3009-3015), so that it keeps killing while the
    /// system still thrashes.
    mutating func thrashingAfterKill(_ reason: KillReason, _ now: SimTime) {
        if reason == .lmkdThrashing {
            state.thrashingLimit = state.thrashingLimit * (100 - params.thrashingDecayPct) / 100
        }
        state.refaultKB = 0
        state.prevThrashPct = 0
        state.thrashResetUs = now.microseconds
    }

    /// Reclaim work of `kb` KiB at `perMB` per MiB: PSI "some" stall for all of it,
    /// "full" stall for `fullStallShare` of it (assumption: no published split).
    mutating func stall(_ kb: Int64, perMB: SimTime) {
        let us = Int64(saturating: Double(perMB.microseconds) * Double(kb) / 1_024)
        state.someStallUs = .saturatingSum(state.someStallUs, us)
        state.fullStallUs = .saturatingSum(state.fullStallUs, Int64(saturating: Double(us) * params.fullStallShare))
    }
}
