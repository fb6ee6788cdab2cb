import SimKernel

// Android memory as lmkd and ActivityManager manage it (issue 13). A device class
// with `os: android` runs this instead of XNU's memorystatus: no bands, no freezer,
// no reaper, no memory warnings. Sources (docs/sources.md):
// - lmkd: AOSP system/memory/lmkd, lmkd.cpp as mirrored in github yaap/system_memory_lmkd
//   at c62ac7e (2023-12); line numbers below are of that file.
// - oom_score_adj: AOSP frameworks/base services/core/java/com/android/server/am/
//   ProcessList.java (the constants named below).
// - cached-process cap: ActivityManagerConstants.DEFAULT_MAX_CACHED_PROCESSES.
// - zram ratios: Linux Reviews (1.1 GB sample); Pixel 4 zram size: 2 GiB.

/// Android's memory parameters of a device class (`os: android`); sources on the
/// schema keys (`Schema.androidKnobs`).
public struct AndroidParameters: Sendable, Equatable {
    /// `os: android`: lmkd and ActivityManager instead of XNU.
    public var enabled = false
    /// zram: cached apps' memory compressed into a bounded RAM pool under pressure.
    public var zram: Bool
    /// The swap device's capacity in uncompressed KiB: zram's disksize, or the swap
    /// file's size (`swapFile`; `android_zram_size_pct` sizes both).
    public var swapKB: Int64
    /// zram compression ratio (by algorithm: lz4 2.58, zstd 3.96).
    public var zramRatio: Double
    /// Reclaim cost: time to compress one MiB into zram, and to swap one MiB back in.
    public var compressPerMB: SimTime
    public var swapInPerMB: SimTime
    /// Time to read one MiB back from flash (zram writeback) on a resume.
    public var flashSwapInPerMB: SimTime
    /// A cached app's garbage collector (ART's background GC, issue 32): the share of
    /// a cached app's memory that is its Java heap (0 by default: no GC, the model
    /// before it), and the share of that heap the GC touches (stock ART's concurrent
    /// copying traces every live object). When zram reclaim swaps a cached app out,
    /// the touched pages come back (a swap-in) and stay in RAM: the GC runs every
    /// 20-odd seconds in a cached app, more often than the apps are relaunched, so it
    /// is taken as immediate (`Device.zramReclaim`).
    public var gcHeapShare: Double
    public var gcTouchShare: Double
    /// The share of a cached app's memory outside its Java heap that zram reclaim
    /// takes (1 by default: all of it, the model before issue 32); the rest stays in RAM.
    public var swappableShare: Double
    /// The share of a cached app's memory that stays in RAM when zram takes it, for a
    /// GC that touches `touch` of the heap: what swap cannot take outside the heap,
    /// and what the GC brings back of it. 0 with the defaults (exactly).
    @inline(__always) func heldShare(touch: Double) -> Double {
        1 - ((1 - gcHeapShare) * swappableShare + gcHeapShare * (1 - touch))
    }
    /// Swap is a file on flash in place of zram (the Fleet artifact's runs: a 2 GiB
    /// swap file, zram off): it swaps whether `zram` is on or not, a swapped page keeps
    /// no RAM, `swapKB` is the file's size, and a resume reads back what was swapped
    /// at `swapInPerMB`. False by default (zram). Not with `writeback`, which backs
    /// zram (`swapFileWithWriteback`).
    public var swapFile = false

    /// The swap file set with zram writeback, which the decoders refuse (nothing to
    /// write back: there is no zram), each naming its own key.
    public var swapFileWithWriteback: Bool { enabled && swapFile && writeback }
    /// zram writeback: when zram is full, reclaim writes a cached app's pages to the
    /// backing file on flash instead, within a daily limit (writeback_limit).
    public var writeback: Bool
    public var writebackDailyKB: Int64
    /// lmkd's PSI mode (false: the legacy minfree levels).
    public var psi: Bool
    /// PSI "some" stall per 1 s window that wakes lmkd (psi_partial_stall_ms) and
    /// "full" stall that means the device is not responding (psi_complete_stall_ms).
    public var partialStall: SimTime
    public var completeStall: SimTime
    /// stall_limit_critical: PSI's full-stall 10 s average (avg10, % of the time) above
    /// which lmkd may kill down to adj 0 for any reason (critical_stall, lmkd.cpp:2889-2891,
    /// 3000-3002; default 100, lmkd.cpp:3928, which an average of at most 100 % never
    /// exceeds).
    public var stallLimitCriticalPct: Double
    /// Share of reclaim work during which every task is stalled (PSI full).
    public var fullStallShare: Double
    /// Full stall an allocation that reclaim cannot satisfy causes.
    public var oomStall: SimTime
    /// Whether lmkd's thrashing measure counts zram swap-ins as refaults. lmkd counts
    /// refaults of the file page cache (workingset_refault_file over the file LRU,
    /// lmkd.cpp:2768-2769, 2836-2837, 2855), which jetsim does not model; a swap-in
    /// brings back anonymous pages, which that counter leaves out. Off: no thrashing
    /// is measured (`measuresThrashing`), so lmkd's thrashing reasons never fire.
    public var thrashingCountsSwapIns: Bool
    /// thrashing_limit_pct: refaults (swap-ins) per window as % of the page cache.
    public var thrashingLimitPct: Int64
    /// thrashing_limit_decay_pct: each thrashing kill cuts the window's limit by this
    /// share of itself (lmkd.cpp:3009-3015).
    public var thrashingDecayPct: Int64
    /// thrashing_critical_pct: thrashing at or above it lets lmkd kill perceptible
    /// apps (lmkd.cpp:2920, 2931, 2951; default 3 x the limit, 3924-3925).
    public var thrashingCriticalPct: Int64
    public var pageCacheKB: Int64
    /// Whether lmkd's thrashing is measured: swap-ins counted, against a page cache.
    @inline(__always) var measuresThrashing: Bool { thrashingCountsSwapIns && pageCacheKB > 0 }
    /// swap_free_low_percentage: swap is low below this share of zram free.
    public var swapFreeLowPct: Double
    /// The high watermark: reclaim and lmkd keep this much free above a request.
    public var highWatermarkKB: Int64
    /// ActivityManager's MAX_CACHED_PROCESSES (0: no limit, no trim).
    public var maxCachedProcesses: Int
    /// How long an empty process may stay unused before it is trimmed, beyond the
    /// newest CUR_TRIM_EMPTY_PROCESSES + 1 (0: never).
    public var maxEmptyTime: SimTime
    /// ActivityManagerConstants: CUR_MAX_EMPTY_PROCESSES = computeEmptyProcessLimit(max)
    /// = max / 2; the cached processes with activities get the rest,
    /// CUR_MAX_CACHED_PROCESSES - CUR_MAX_EMPTY_PROCESSES; CUR_TRIM_EMPTY_PROCESSES =
    /// computeEmptyProcessLimit(max) / 2 (updateMaxCachedProcesses).
    @inline(__always) var emptyProcessLimit: Int { maxCachedProcesses / 2 }
    @inline(__always) var cachedProcessLimit: Int { maxCachedProcesses - maxCachedProcesses / 2 }
    @inline(__always) var trimEmptyProcesses: Int { maxCachedProcesses / 2 / 2 }
    /// ro.lmk.kill_heaviest_task: the heaviest app of the victim's adj level dies.
    public var killHeaviestTask: Bool
    /// ActivityManagerConstants MAX_PREVIOUS_TIME: the previous app keeps
    /// PREVIOUS_APP_ADJ this long after it left the front, then CACHED_APP_MIN_ADJ
    /// ("previous-expired", OomAdjuster.computeOomAdjLSP).
    public var maxPreviousTime: SimTime
    /// ActivityManagerConstants TOP_TO_FGS_GRACE_DURATION: a foreground service (an
    /// active background mode here) of an app top less than this ago is adj 50, not 200.
    public var topToFgsGrace: SimTime
    /// The minfree levels (KiB) ProcessList.updateOomLevels computes for this device,
    /// for `minfreeAdj` (`oomMinFree`).
    public var minfreeKB: MinFreeLevels
    /// Vitals thresholds: launches at or over these are excessive.
    public var vitalsCold: SimTime
    public var vitalsWarm: SimTime
    public var vitalsHot: SimTime

    /// ProcessList.mOomAdj: FOREGROUND, VISIBLE, PERCEPTIBLE, PERCEPTIBLE_LOW,
    /// CACHED_APP_MIN, CACHED_APP_LMK_FIRST (950): the adj of each minfree level.
    public static let minfreeAdj: [Int] = [0, 100, 200, 250, 900, 950]
    /// ProcessList.mOomMinFreeLow and mOomMinFreeHigh (KiB).
    static let minfreeLowKB: [Int32] = [12_288, 18_432, 24_576, 36_864, 43_008, 49_152]
    static let minfreeHighKB: [Int32] = [73_728, 92_160, 110_592, 129_024, 147_456, 184_320]

    /// ProcessList.updateOomLevels (frameworks/base at 02978520d9e8): scale = the
    /// larger of (RAM MiB - 350) / 350 and (display pixels - 384000) / 640000, clamped
    /// to 0...1, in Java's float; on 64-bit the high levels of 900 and 950 grow by 3/2
    /// and 7/4; each level = (int)(low + (high - low) * scale), then sent to lmkd in
    /// 4 KiB pages (LMK_TARGET). config_lowMemoryKillerMinFreeKbytesAbsolute (-1) and
    /// ...Adjust (0) are at their framework defaults.
    public static func oomMinFree(ramMB: Int64, displayPixels: Int64, is64Bit: Bool) -> MinFreeLevels {
        let scaleMem = Float(ramMB - 350) / Float(700 - 350)
        let scaleDisp = (Float(displayPixels) - 384_000) / Float(1_024_000 - 384_000)
        var scale = scaleMem > scaleDisp ? scaleMem : scaleDisp
        if scale < 0 { scale = 0 } else if scale > 1 { scale = 1 }
        var levels = MinFreeLevels()
        for i in 0..<MinFreeLevels.count {
            let low = minfreeLowKB[i]
            var high = minfreeHighKB[i]
            if is64Bit {
                if i == 4 { high = high * 3 / 2 } else if i == 5 { high = high * 7 / 4 }
            }
            let kb = Int64(Int32(Float(low) + Float(high - low) * scale))
            levels[i] = kb * 1_024 / 4_096 * 4
        }
        return levels
    }
}

/// The six minfree levels (KiB), in `AndroidParameters.minfreeAdj`'s order: a value
/// of fixed size, so a cell's parameters hold no array (built once per class and cell).
public struct MinFreeLevels: Sendable, Equatable {
    /// ProcessList's six levels (mOomAdj).
    public static let count = 6
    private var l0: Int64 = 0, l1: Int64 = 0, l2: Int64 = 0, l3: Int64 = 0, l4: Int64 = 0, l5: Int64 = 0

    public init() {}

    /// Level `i` (0..<6).
    public subscript(_ i: Int) -> Int64 {
        get {
            precondition(i >= 0 && i < Self.count, "a minfree level is 0..<6")
            return switch i {
            case 0: l0
            case 1: l1
            case 2: l2
            case 3: l3
            case 4: l4
            default: l5
            }
        }
        set {
            precondition(i >= 0 && i < Self.count, "a minfree level is 0..<6")
            switch i {
            case 0: l0 = newValue
            case 1: l1 = newValue
            case 2: l2 = newValue
            case 3: l3 = newValue
            case 4: l4 = newValue
            default: l5 = newValue
            }
        }
    }

    /// The levels as a list (for tests and messages).
    public var array: [Int64] { (0..<Self.count).map { self[$0] } }
}

/// A device's Android state: the cached apps not yet in zram (oldest first: reclaim's
/// order), the PSI window's stall, and lmkd's thrashing measure. (The previous app,
/// which ActivityManager holds at adj 700, is the lifecycle's: `Device.previousApp`.)
public struct AndroidState: Sendable {
    var uncompressed = MultiList(lists: 1)
    /// KiB of each app in zram that stays in RAM, uncompressed: what its garbage
    /// collector touches and what swap cannot take (part of its resident memory;
    /// `Device.zramReclaim`). Empty unless some is held (`Device.zramHeldShare > 0`),
    /// so no other run reads or sizes it.
    var heldKB: [Int32] = []
    /// With a swap file (`AndroidParameters.swapFile`): KiB of each app in the file,
    /// and the file's use. Empty and 0 otherwise.
    var swappedKB: [Int32] = []
    var fileUsedKB: Int64 = 0
    /// The current 1 s PSI window (whole seconds since the start) and its totals.
    var window: Int64 = -1
    var someStallUs: Int64 = 0
    var fullStallUs: Int64 = 0
    /// lmkd's thrashing measure (mp_event_psi, lmkd.cpp:2713-2858): refaults (swap-ins
    /// here) since `thrashResetUs`, the previous windows' decayed thrashing and this
    /// window's limit, which thrashing kills cut.
    var refaultKB: Int64 = 0
    var thrashResetUs: Int64 = 0
    var prevThrashPct: Int64 = 0
    var thrashingLimit: Int64 = 0
    /// The window in which lmkd last acted on a complete stall (PSI reports an event
    /// at most once per window).
    var notRespondingWindow: Int64 = -1
    /// Android's empty processes now (cached, no activity: `MemoryFlags.emptyProcess`)
    /// and the one cached longest ago (-1: none); the other cached apps have
    /// activities (suspended apps less these).
    var emptyCount: Int32 = 0
    var oldestEmpty: Int32 = -1
    /// PSI's full-stall average over 10 s (avg10), % of the time: lmkd's critical_stall
    /// reads it (`psiAverage`).
    var fullAvg10: Double = 0

    init() {}

    mutating func reset(appCount: Int, thrashingLimit limit: Int64, holds: Bool, swapFile: Bool) {
        uncompressed.reset(appCount: appCount)
        heldKB.removeAll(keepingCapacity: true)
        if holds { heldKB.append(contentsOf: repeatElement(0, count: appCount)) }
        swappedKB.removeAll(keepingCapacity: true)
        if swapFile { swappedKB.append(contentsOf: repeatElement(0, count: appCount)) }
        fileUsedKB = 0
        window = -1
        someStallUs = 0; fullStallUs = 0
        refaultKB = 0; thrashResetUs = 0; prevThrashPct = 0; thrashingLimit = limit
        notRespondingWindow = -1
        fullAvg10 = 0
        emptyCount = 0; oldestEmpty = -1
    }
}
