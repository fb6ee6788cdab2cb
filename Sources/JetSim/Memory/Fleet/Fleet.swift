import SimKernel

// Fleet's changes to Android's memory management, as jetsim models them (issue 32).
// Everything else is Android's, called as it is (Memory/Android/): lmkd, zram reclaim,
// ActivityManager's limits and oom_score_adj, the Vitals counts.
//
// - Fore/background-aware GC (the artifact's ART: jiacheng_global.h ENABLE_BGC; Fig.
//   12a): a cached app's GC traces only its background objects, 14.5 % of what stock
//   ART's touches (mean of TikTok, Facebook, Twitch and Line), so the foreground
//   objects zram took stay there (`fleetHeldShare`, with Android's heap share).
// - Runtime-guided swap (heap.cc:1049-1050 RequestRelocateHotness 10 s after the app
//   leaves the front, WINDOW_SIZE_BACKGROUND_WS; region_space.cc RegionSpace::Madvise:
//   cold regions paged out, MADV_RUNTIME_COLD): a cached app keeps in RAM only what
//   its runtime will touch. Here: what swap cannot take and the background objects
//   its GC touches; the rest of its heap goes to zram with the rest of the app.
// - Hot launch (BackToFore, WINDOW_SIZE_HOT_LAUNCH 5 s; launch regions kept hot,
//   MADV_RUNTIME_HOT): a resume from zram waits for its launch objects only
//   (`launchSwapInShare` of what was swapped); the rest comes back after the first
//   frame, outside the launch latency (the pages still come back: reclaim's stall
//   and the memory are Android's).
//
// Not modelled: the GC's CPU time and pauses; object grouping into regions (the
// shares stand for it); the proactive timing of the swap-out (10 s after the app
// leaves the front: here reclaim takes cached apps when memory is needed, oldest
// first, as Android's does); the flash swap file (zram stands in, as for Android).
extension AndroidMemory {
    /// The share of a cached app's memory that stays in RAM when zram takes it on
    /// Fleet: what swap cannot take, and the background objects its GC touches.
    @inline(__always) var fleetHeldShare: Double {
        params.heldShare(touch: fleet.gcTouchShare)
    }

    /// What a Fleet hot launch waits for of `plainKB` swapped back in: its launch
    /// objects' share.
    @inline(__always) func fleetLaunchSwapInKB(plainKB: Int64) -> Int64 {
        Int64((Double(plainKB) * fleet.launchSwapInShare).rounded())
    }
}
