import SimKernel

/// The operating system a device class runs: its memory manager.
public enum DeviceOS: String, Sendable, CaseIterable {
    /// XNU memorystatus (bands, compressor, freezer, reaper).
    case ios
    /// Android: lmkd, zram and ActivityManager (Memory/Android/).
    case android
    /// Fleet (ASPLOS 2024): Android's, with its GC, swap and hot launch changed
    /// (Memory/Fleet/; the android_* keys and the fleet_* keys).
    case fleet
}

/// A device class's Android keys as the workload file gives them (sources on
/// `Schema.androidKnobs` and in docs/sources.md).
public struct AndroidClass: Sendable, Equatable {
    public var zram = true
    /// zram disksize (uncompressed capacity), % of RAM: Pixel 4 ships 2 GiB on 6 GB.
    public var zramSizePct = 33.0
    public var zramAlgorithm = "lz4"
    public var zramCompressMsPerMB = 2.0
    public var swapInMsPerMB = 0.5
    public var gcHeapPct = 0.0
    public var gcTouchPct = 100.0
    public var swappablePct = 100.0
    public var zramWriteback = false
    public var swapFile = false
    public var writebackDailyKB: Int64 = 400 * 1_024
    public var flashSwapInMsPerMB = 4.0
    public var lmkdPsi = true
    public var psiPartialStallMs = 70.0
    public var psiCompleteStallMs = 700.0
    public var stallLimitCriticalPct = 100.0
    public var psiFullStallShare = 0.25
    public var oomStallMs = 1_000.0
    public var thrashingCountsSwapIns = false
    public var thrashingLimitPct = 100
    public var thrashingDecayPct = 10
    public var thrashingCriticalPct = 300
    public var pageCachePct = 10.0
    public var swapFreeLowPct = 10.0
    public var highWatermarkKB: Int64 = 100 * 1_024
    public var maxCachedProcesses = 32
    public var maxEmptyTimeMin = 30.0
    public var killHeaviestTask = false
    public var maxPreviousTimeS = 60.0
    public var topToFgsGraceS = 15.0
    public var displayPixels = 2_462_400
    public var abi64Bit = true
    public var vitalsColdS = 5.0
    public var vitalsWarmS = 2.0
    public var vitalsHotS = 1.5

    public init() {}

    /// zram compression ratios by algorithm (Linux Reviews, 1.1 GB sample).
    public static let ratios: [(name: String, ratio: Double)] = [("lzo", 2.69), ("lz4", 2.58), ("lz4hc", 2.87), ("zstd", 3.96)]

    public var ratio: Double { Self.ratios.first { $0.name == zramAlgorithm }?.ratio ?? 2.58 }

    /// Makes `p` an Android device: lmkd and zram on, XNU's mechanisms off.
    func apply(to p: inout DeviceParameters) {
        p.android = AndroidParameters(self, ramKB: p.ramKB)
        p.xnu.bands = false
        p.xnu.freezer = false
        p.xnu.reaper = false
        p.suspendedCompressionRatio = 1
    }
}

extension AndroidParameters {
    /// Android off; every other field is the workload's default (`AndroidClass`), on no
    /// RAM. Here, not beside the type: Memory/ does not read the workload.
    public init() {
        self.init(AndroidClass(), ramKB: 0)
        enabled = false
    }

    /// The device's parameters from the workload's keys, on `ramKB` of RAM (zram and
    /// the page cache are shares of it); Android on.
    init(_ c: AndroidClass, ramKB: Int64) {
        enabled = true
        zram = c.zram
        swapKB = Int64(Double(ramKB) * c.zramSizePct / 100)
        zramRatio = c.ratio
        compressPerMB = SimTime(seconds: c.zramCompressMsPerMB / 1_000)
        swapInPerMB = SimTime(seconds: c.swapInMsPerMB / 1_000)
        flashSwapInPerMB = SimTime(seconds: c.flashSwapInMsPerMB / 1_000)
        gcHeapShare = c.gcHeapPct / 100
        gcTouchShare = c.gcTouchPct / 100
        swappableShare = c.swappablePct / 100
        writeback = c.zramWriteback
        swapFile = c.swapFile
        writebackDailyKB = c.writebackDailyKB
        psi = c.lmkdPsi
        partialStall = SimTime(seconds: c.psiPartialStallMs / 1_000)
        completeStall = SimTime(seconds: c.psiCompleteStallMs / 1_000)
        stallLimitCriticalPct = c.stallLimitCriticalPct
        fullStallShare = c.psiFullStallShare
        oomStall = SimTime(seconds: c.oomStallMs / 1_000)
        thrashingCountsSwapIns = c.thrashingCountsSwapIns
        thrashingLimitPct = Int64(c.thrashingLimitPct)
        thrashingDecayPct = Int64(c.thrashingDecayPct)
        thrashingCriticalPct = Int64(c.thrashingCriticalPct)
        pageCacheKB = Int64(Double(ramKB) * c.pageCachePct / 100)
        swapFreeLowPct = c.swapFreeLowPct
        highWatermarkKB = c.highWatermarkKB
        maxCachedProcesses = c.maxCachedProcesses
        maxEmptyTime = SimTime(seconds: c.maxEmptyTimeMin * 60)
        killHeaviestTask = c.killHeaviestTask
        maxPreviousTime = SimTime(seconds: c.maxPreviousTimeS)
        topToFgsGrace = SimTime(seconds: c.topToFgsGraceS)
        minfreeKB = Self.oomMinFree(ramMB: ramKB / 1_024, displayPixels: Int64(c.displayPixels), is64Bit: c.abi64Bit)
        vitalsCold = SimTime(seconds: c.vitalsColdS)
        vitalsWarm = SimTime(seconds: c.vitalsWarmS)
        vitalsHot = SimTime(seconds: c.vitalsHotS)
    }
}

extension Schema {
    /// The Android keys of a device class (they act only with `os: android`).
    static let androidKnobs: [Knob<DeviceClass>] = [
        .choice("os", \.os, DeviceOS.allCases.map { ($0.rawValue, $0) }, what: "an OS", alias: "os", source: "",
                "the memory manager: ios = XNU memorystatus; android = lmkd, zram and ActivityManager (the android_* keys and XNU's keys off); fleet = Android's with Fleet's GC, swap and hot launch (ASPLOS 2024; the android_* and fleet_* keys)"),
        .flag("android_zram", \.android.zram, alias: "zram", source: "AOSP: zram on by default (Pixel 4: 2 GiB zram)",
              "android: cached apps' memory is compressed into zram under pressure"),
        .number("android_zram_size_pct", \.android.zramSizePct, 0...400, unit: "%", alias: "zram-pct",
                source: "Pixel 4: 2 GiB zram on 6 GB RAM (33 %)", "android: zram capacity (uncompressed, its disksize), share of RAM"),
        .choice("android_zram_algorithm", \.android.zramAlgorithm, AndroidClass.ratios.map { ($0.name, $0.name) }, what: "a zram algorithm",
                alias: "zram-algorithm", source: "Linux Reviews zram benchmark: lzo 2.69, lz4 2.58, lz4hc 2.87, zstd 3.96",
                "android: zram's compressor, which sets the ratio"),
        .number("android_zram_compress_ms_per_mb", \.android.zramCompressMsPerMB, 0...1_000, unit: "ms/MiB", alias: "zram-compress-ms-per-mb",
                source: "assumption (lz4 compresses at about 500 MB/s on a phone core)", "android: reclaim time (stall) per MiB compressed into zram")
            .plausible(.factors(0.5, 2), "lz4 at 250 MB/s to 1 GB/s across phone cores"),
        .number("android_swap_in_ms_per_mb", \.android.swapInMsPerMB, 0...1_000, unit: "ms/MiB", alias: "swap-in-ms-per-mb",
                source: "assumption (lz4 decompresses at about 2 GB/s on a phone core)", "android: time per MiB swapped back in from zram on a resume (latency and stall)")
            .plausible(.factors(0.5, 2), "lz4 decompression at 1-4 GB/s across phone cores"),
        .number("android_gc_heap_pct", \.android.gcHeapPct, 0...100, unit: "%", alias: "gc-heap-pct",
                source: "0: no GC modelled (the model before issue 32). Fleet artifact (github.com/jiachengh/Fleet at 32f22f7), evaluation/exp-hot-launch/exp-hot-launch.ipynb cell 25 X_heap_size (from check-heap.sh's dumpsys meminfo): Java heap 7.1-25.9 % of the app, mean 15.9 % over 12 apps",
                "android: share of a cached app's memory that is its Java heap, which its background GC traces; when zram takes the app, the pages the GC touches (android_gc_touch_pct of it) come back (a swap-in) and stay in RAM (0: no GC)")
            .plausible(.values("0", "26"), "default 0 is an assumption (no GC, the model before issue 32); the artifact's 12 apps have Java heaps of 7.1-25.9 % of the app")
            .omittedAtDefaultValue(),
        .number("android_gc_touch_pct", \.android.gcTouchPct, 0...100, unit: "%", alias: "gc-touch-pct",
                source: "stock ART's concurrent copying GC traces every live object of the heap (Fleet artifact src/Fleet-AOSP/art/runtime/gc/heap.cc:1053-1054, 1460-1465: a full CC collection kCollectorTransitionWait = 5 s after the app leaves the front, heap.h:186; then background GCs every ~22 s, evaluation/exp-cache-app/gc-working-set-twitch-without-BGC.log)",
                "android: share of the Java heap (android_gc_heap_pct) a cached app's GC touches and so brings back from zram (os: fleet replaces it with fleet_gc_touch_pct)")
            .omittedAtDefaultValue(),
        .number("android_swappable_pct", \.android.swappablePct, 0...100, unit: "%", alias: "swappable-pct",
                source: "assumption (100: all of it, the model before issue 32); only anonymous pages go to swap, and the artifact publishes no split of an app's memory (Fleet's reproduction fits it: docs/reproductions.md)",
                "android: share of a cached app's memory outside its Java heap (android_gc_heap_pct) that zram reclaim takes; the rest (graphics buffers, pages swap does not reach) stays in RAM")
            .plausible(.values("20", "100"), "no published split of a cached app's memory into swappable and not: from a fifth (Fleet Fig. 11c's stock Android) to all of it")
            .omittedAtDefaultValue(),
        .flag("android_swap_file", \.android.swapFile, alias: "swap-file",
              source: "false: zram, as Android ships (Pixel 4: 2 GiB of zram). The Fleet artifact's runs use a 2 GiB swap file on flash with zram off (github.com/jiachengh/Fleet at 32f22f7, configure-flash-swap.sh)",
              "android: swap is a file on flash in place of zram (it swaps whatever android_zram says; not with android_zram_writeback): a swapped page keeps no RAM, android_zram_size_pct sizes the file, a resume reads the pages back at android_swap_in_ms_per_mb")
            .omittedAtDefaultValue(),
        .flag("android_zram_writeback", \.android.zramWriteback, alias: "writeback", source: "Pixel 4: 512 MB writeback file (zram writeback, Linux Documentation/admin-guide/blockdev/zram.rst)",
              "android: when zram is full, reclaim writes cached apps' pages to flash (counted in flash_written_kb)"),
        .mebibytes("android_writeback_daily_mb", \.android.writebackDailyKB, 0...16_777_216, alias: "writeback-daily",
                source: "zram writeback_limit: the kernel doc's example, 400 MB/day", "android: flash zram may write back per day"),
        .number("android_flash_swap_in_ms_per_mb", \.android.flashSwapInMsPerMB, 0...1_000, unit: "ms/MiB", alias: "flash-swap-in-ms-per-mb",
                source: "assumption (random 4 KiB reads from UFS flash at about 250 MB/s)", "android: time per MiB read back from flash on a resume (latency and stall)")
            .plausible(.factors(0.5, 2), "random UFS reads at 125-500 MB/s"),
        .flag("android_lmkd_psi", \.android.lmkdPsi, alias: "psi", source: "AOSP lmkd.cpp:3909-3910 (use_minfree_levels false: PSI mode)",
              "android: lmkd's PSI mode; false = the legacy minfree levels (ProcessList mOomMinFreeHigh)"),
        .number("android_psi_partial_stall_ms", \.android.psiPartialStallMs, 0...1_000, unit: "ms", alias: "psi-partial-ms",
                source: "AOSP lmkd.cpp:157-158 DEF_PARTIAL_STALL 70 (200 low-RAM)", "android: some-stall per 1 s window that wakes lmkd"),
        .number("android_psi_complete_stall_ms", \.android.psiCompleteStallMs, 0...1_000, unit: "ms", alias: "psi-complete-ms",
                source: "AOSP lmkd.cpp:160 DEF_COMPLETE_STALL 700", "android: full-stall per 1 s window at which the device is not responding (one kill at any adj)"),
        .number("android_stall_limit_critical_pct", \.android.stallLimitCriticalPct, 0...100, unit: "%", alias: "stall-critical-pct",
                source: "AOSP lmkd.cpp:3928 stall_limit_critical 100 (read at 2889-2891, applied at 3000-3002)",
                "android: PSI full-stall 10 s average (avg10) above which lmkd kills down to adj 0 for any reason (100: never)"),
        .number("android_psi_full_stall_share", \.android.psiFullStallShare, 0...1, alias: "psi-full-share",
                source: "assumption (no published split of some and full stall)", "android: share of reclaim work during which every task stalls (PSI full)")
            .plausible(.factors(0.4, 2), "10-50%: no published split of some and full stall"),
        .number("android_oom_stall_ms", \.android.oomStallMs, 0...86_400_000, unit: "ms", alias: "oom-stall-ms",
                source: "assumption (a request reclaim cannot meet stalls a whole window)", "android: full stall when reclaim cannot meet a request")
            .plausible(.factors(0.5, 2), "half to two PSI windows"),
        .flag("android_thrashing_counts_swap_ins", \.android.thrashingCountsSwapIns, alias: "thrashing-swap-ins",
              source: "off: lmkd counts refaults of the file page cache (workingset_refault_file over the file LRU, AOSP lmkd.cpp:2768-2769, 2836-2837, 2855), which jetsim does not model; zram swap-ins are anonymous pages that counter leaves out",
              "android: lmkd's thrashing measure counts zram swap-ins as refaults (a stand-in for file refaults); false: no thrashing is measured"),
        .integer("android_thrashing_limit_pct", \.android.thrashingLimitPct, 0...100_000, alias: "thrashing-pct",
                 source: "AOSP lmkd.cpp:151-152 DEF_THRASHING 100 (30 low-RAM); whole percent, as lmkd's int",
                 "android: refaults per window (swap-ins here) as % of the page cache above which lmkd sees thrashing"),
        .integer("android_thrashing_decay_pct", \.android.thrashingDecayPct, 0...100, alias: "thrashing-decay-pct",
                 source: "AOSP lmkd.cpp:153-155 DEF_THRASHING_DECAY 10 (50 low-RAM), applied at 3009-3015",
                 "android: each thrashing kill cuts the window's thrashing limit by this % of itself (the limit returns each 1 s window)"),
        .integer("android_thrashing_critical_pct", \.android.thrashingCriticalPct, 0...300_000, alias: "thrashing-critical-pct",
                 source: "AOSP lmkd.cpp:3924-3925 thrashing_limit_critical, default 3 x thrashing_limit (set both)",
                 "android: thrashing at or above it lets lmkd kill perceptible apps (adj 200) too"),
        .number("android_page_cache_pct", \.android.pageCachePct, 0...100, unit: "%", alias: "page-cache-pct",
                source: "assumption", "android: the file page cache thrashing is measured against, share of RAM (0: no thrashing trigger; read only with android_thrashing_counts_swap_ins)")
            .plausible(.factors(0.5, 2), "5-20% of RAM: the file cache's size under pressure is not published"),
        .number("android_swap_free_low_pct", \.android.swapFreeLowPct, 0...100, unit: "%", alias: "swap-low-pct",
                source: "AOSP lmkd.cpp:149 DEF_LOW_SWAP 10", "android: swap (zram) is low below this share free"),
        .mebibytes("android_high_watermark_mb", \.android.highWatermarkKB, 0...1_048_576, alias: "watermark",
                   source: "assumption (Linux zone high watermarks are tens to hundreds of MB on phones)", "android: free memory reclaim and lmkd keep above a request")
            .plausible(.factors(0.5, 2), "zone high watermarks are tens to hundreds of MB on phones"),
        .flag("android_kill_heaviest_task", \.android.killHeaviestTask, alias: "kill-heaviest",
              source: "AOSP lmkd.cpp:3902-3903 ro.lmk.kill_heaviest_task, default false; find_and_kill_process, lmkd.cpp:2480-2500",
              "android: lmkd kills the heaviest app of the victim's adj level, not the policy's victim (always so at adj <= 200, as lmkd does)"),
        .integer("android_max_cached_processes", \.android.maxCachedProcesses, 0...1_000_000, alias: "max-cached",
                 source: "ActivityManagerConstants DEFAULT_MAX_CACHED_PROCESSES 32 (Android 10-13; 1024 later)",
                 "android: ActivityManager's MAX_CACHED_PROCESSES: at most max - max/2 cached apps with activities and max/2 empty ones (started by the system, no UI shown); the oldest beyond die (0: no limit)"),
        .number("android_max_empty_time_min", \.android.maxEmptyTimeMin, 0...5_256_000, unit: "min", alias: "max-empty-time",
                source: "ProcessList.MAX_EMPTY_TIME 30 min (Android 10-12), ActivityManagerConstants max_empty_time_millis default 30 min (Android 13)",
                "android: an empty process unused this long dies once more than max/4 + 1 newer empty ones are kept (0: never)"),
        .number("android_max_previous_time_s", \.android.maxPreviousTimeS, 0...86_400, unit: "s", alias: "max-previous-time",
                source: "ActivityManagerConstants DEFAULT_MAX_PREVIOUS_TIME 60 s; OomAdjuster.computeOomAdjLSP \"previous-expired\" (frameworks/base at 02978520d9e8)",
                "android: the previous app keeps adj 700 this long after it left the front, then 900"),
        .number("android_top_to_fgs_grace_s", \.android.topToFgsGraceS, 0...86_400, unit: "s", alias: "top-to-fgs-grace",
                source: "ActivityManagerConstants DEFAULT_TOP_TO_FGS_GRACE_DURATION 15 s; OomAdjuster.computeOomAdjLSP \"fg-service-act\"",
                "android: an app with an active background mode (a foreground service) is adj 50 for this long after it left the front, then 200"),
        .integer("android_display_px", \.android.displayPixels, 0...100_000_000, alias: "display-px",
                 source: "Pixel 4: 1080 x 2280 (Google Store tech specs); ProcessList.updateOomLevels scales the minfree levels by it",
                 "android: display pixels (width x height), which with RAM scale the legacy minfree levels (pixels)"),
        .flag("android_64bit", \.android.abi64Bit, alias: "abi-64bit",
              source: "Pixel 4: 64-bit (arm64-v8a); ProcessList.updateOomLevels raises the 900 and 950 levels by 3/2 and 7/4 on 64-bit",
              "android: a 64-bit device (Build.SUPPORTED_64_BIT_ABIS not empty), whose cached minfree levels are higher"),
        .number("android_vitals_cold_s", \.android.vitalsColdS, 0...86_400, unit: "s", alias: "vitals-cold",
                source: "Android vitals: cold >= 5 s excessive", "android: a cold launch this slow counts in cold_over_vitals"),
        .number("android_vitals_warm_s", \.android.vitalsWarmS, 0...86_400, unit: "s", alias: "vitals-warm",
                source: "Android vitals: warm >= 2 s excessive", "android: a warm launch this slow counts in warm_over_vitals"),
        .number("android_vitals_hot_s", \.android.vitalsHotS, 0...86_400, unit: "s", alias: "vitals-hot",
                source: "Android vitals: hot >= 1.5 s excessive", "android: a hot launch this slow counts in hot_over_vitals"),
    ]
}
