import SimKernel

extension Schema {
    /// The compressor's decompression on a resume (XNU's and the plain model's; Android
    /// resumes from zram), among the shared compression keys in the key order.
    static let xnuDecompressionKnobs: [Knob<DeviceClass>] = [
        .milliseconds("decompress_ms_per_mb", \.xnu.decompressPerMB, 0...1_000, unit: "ms/MiB", source: "assumption (WKdm decompresses at about 2 GB/s)", "decompression cost on a warm launch")
            .plausible(.factors(0.5, 2), "WKdm decompresses at 1-4 GB/s across devices and loads"),
        .share("resume_touch_share", \.xnu.resumeTouchPPM, alias: "resume-touch-share",
                source: "assumption (no published figure: the pages a resumed app touches before its first frame)",
                "share of a compressed app's memory decompressed before its first frame on a resume; the rest on demand, outside the latency")
            .plausible(.factors(0.5, 2), "the pages a resumed app touches before its first frame are not published"),
    ]

    /// The XNU keys of a device class (they act with `os: ios`; Android turns XNU's
    /// mechanisms off). Between the shared keys of the device class, where the key
    /// order (docs, sensitivity points) has them.
    static let xnuKnobs: [Knob<DeviceClass>] = [
        .flag("xnu_bands", \.xnu.bands, alias: "xnu-bands", source: "xnu bsd/kern/kern_memorystatus.c, bsd/sys/kern_memorystatus.h",
              "bands as XNU assigns them (aging, dock, assertions, frozen) and its kill triggers (idle band below the idle level, up through the bands below critical, checked whenever memory falls); false: all idle apps in band 0, kills only at launches down to the target"),
        .seconds("aging_s", \.xnu.agingTime, 0...86_400, alias: "aging", source: "xnu bsd/kern/kern_memorystatus.c: 10 s idle deferral / 5 (AGING_BAND2)",
                "time in the aging band (20) after leaving the front, before the idle band (0)"),
        .integer("dock_size", \.xnu.dockSize, 0...1_000, alias: "dock", source: "assumption (xnu doc/vm/freezer.md names the dock band, not its size)",
                 "the device's most-launched apps kept in band 30 when idle (0: no dock)")
            .plausible(.factors(0, 2), "0-8 apps (issue 30 measured 0, 4, 8): XNU names the band, not its size"),
        .flag("reaper", \.xnu.reaper, alias: "reaper", source: "xnu bsd/kern/kern_memorystatus.c (memorystatus_reaper, xnu-11417)",
              "kill idle-band apps idle >= reaper_min_age_s while available memory is below the reaper level"),
        .autoNumber("reaper_available_pct", \.xnu.reaperAvailablePct, 0...100, unit: "%", alias: "reaper-pct",
                    source: "xnu bsd/kern/kern_memorystatus.c fallback: 20 / 18 / 16 %", "the reaper's level; auto = 20% (<=3 GB), 18% (<=6 GB), 16%"),
        .seconds("reaper_min_age_s", \.xnu.reaperMinAge, 0...86_400, alias: "reaper-age", source: "xnu bsd/kern/kern_memorystatus.c: 300 s", "idle time before the reaper may kill an app"),
        .seconds("reaper_interval_s", \.xnu.reaperInterval, 0...86_400, alias: "reaper-interval", source: "xnu bsd/kern/kern_memorystatus.c: 300 s", "at most one reaper sweep per this"),
        .number("compressor_pool_pct", \.xnu.compressorPoolPct, 0...100, unit: "%", alias: "compressor-pool-pct",
                source: "xnu osfmk/vm/vm_compressor.c:851 (embedded: compressor_pool_size = max_mem)",
                "the compressor pool's bound, physical share of RAM; a suspended app that does not fit stays uncompressed"),
        .mebibytesPerSecond("compression_mb_per_s", \.xnu.compressionKBPerS, 0...1_048_576, alias: "compression-mb-per-s",
                source: "assumption (XNU has no rate: pages are compressed as vm_pageout_scan steals them from the inactive queue, xnu osfmk/vm/vm_pageout.c:221,4177-4247)",
                "compression over time: uncompressed MiB of each suspended app compressed per second, credited at whole seconds (0: all at suspension)")
            .plausible(.factors(0.25, 4), "XNU has no rate: a lazy to an eager pageout (1-16 MiB/s)"),
        .flag("compressor_shortage_kills", \.xnu.compressorShortageKills, alias: "compressor-shortage-kills",
              source: "xnu doc/vm/memorystatus_kills.md (JETSAM_REASON_MEMORY_VMCOMPRESSOR_SPACE_SHORTAGE)",
              "kill in the policy's order while the compressor holds more than its shortage level (kills_compressor)"),
        .autoNumber("compressor_pages_limit_pct", \.xnu.compressorPagesLimitPct, 0...10_000, unit: "%", alias: "compressor-pages-limit-pct",
                    source: "xnu osfmk/vm/vm_compressor.c:851,856-860,902 (pool max_mem x compressor_pool_multiplier, 2 at <= 2 GB on iOS)",
                    "the compressor's compressed-pages limit, uncompressed share of RAM; auto = 200% (<= 2 GB), 100%"),
        .number("compressor_shortage_pct", \.xnu.compressorShortagePct, 0...100, unit: "%", alias: "compressor-shortage-pct",
                source: "xnu osfmk/vm/vm_compressor.c:914 (c_segment_pages_compressed_nearing_limit = limit x 98 / 100)",
                "share of the compressed-pages limit above which the compressor is short of space"),
        .flag("pressure_levels", \.xnu.pressureLevels, alias: "pressure-levels",
              source: "xnu doc/vm/memorystatus_notify.md, bsd/kern/kern_memorystatus_notify.c",
              "pressure levels from compressor occupancy send the memory warnings (one app at a time, bands >= 20, never suspended or frozen); false: warnings when a launch takes available memory below warning_available_pct"),
        .number("pressure_warning_pct", \.xnu.pressureWarningPct, 0...100, unit: "%", alias: "pressure-warning-pct",
                source: "xnu doc/vm/memorystatus_notify.md; osfmk/vm/vm_compressor.c:1059 (embedded compact threshold 10/20 of AVAILABLE_MEMORY)",
                "warning level: below this share of pageable memory (RAM - reserve) left uncompressed"),
        .number("pressure_warning_clear_pct", \.xnu.pressureWarningClearPct, 0...100, unit: "%", alias: "pressure-warning-clear-pct",
                source: "xnu doc/vm/memorystatus_notify.md (falling threshold 1.2 x 50%)", "back to normal above this share left uncompressed"),
        .number("pressure_critical_pct", \.xnu.pressureCriticalPct, 0...100, unit: "%", alias: "pressure-critical-pct",
                source: "xnu doc/vm/memorystatus_notify.md (1.2 x swap-unthrottle threshold); osfmk/vm/vm_compressor.c:1061 (10/40)",
                "critical level: below this share of pageable memory left uncompressed"),
        .number("pressure_critical_clear_pct", \.xnu.pressureCriticalClearPct, 0...100, unit: "%", alias: "pressure-critical-clear-pct",
                source: "xnu doc/vm/memorystatus_notify.md (falling threshold 1.4 x 25%)", "back to warning above this share left uncompressed"),
        .mebibytes("warning_min_resident_mb", \.xnu.warningMinKB, 0...1_048_576, alias: "warning-min-mb",
                   source: "xnu bsd/kern/kern_memorystatus_notify.c:142 (VM_PRESSURE_MINIMUM_RSIZE 6 MB, embedded)",
                   "apps with a smaller footprint get no pressure warning"),
        .seconds("warning_resting_s", \.xnu.warningResting, 0...86_400, alias: "warning-resting",
                source: "xnu bsd/kern/kern_memorystatus_notify.c:121 (WARNING_NOTIFICATION_RESTING_PERIOD 25 s)",
                "after a round of warnings, none again at that level for this long"),
        .flag("sustained_pressure_kills", \.xnu.sustainedPressureKills, alias: "sustained-pressure-kills",
              source: "xnu bsd/kern/kern_memorystatus_notify.c:427 (memorystatus_should_kill_on_sustained_pressure = 1)",
              "idle-band kills when pressure stays above normal for sustained_pressure_window_s (kills_sustained)"),
        .seconds("sustained_pressure_window_s", \.xnu.sustainedWindow, 0...86_400, alias: "sustained-window",
                source: "xnu bsd/kern/kern_memorystatus_notify.c:430 (memorystatus_kill_on_sustained_pressure_window_s = 600)",
                "time above normal pressure before sustained-pressure kills"),
        .number("inactive_limit_pct", \.xnu.inactiveLimitPct, 1...100, unit: "%", alias: "inactive-limit-pct",
                source: "assumption (xnu has per-process inactive limits, doc/vm/memorystatus_kills.md; app values are not published)",
                "per-app inactive (soft) limit, share of RAM: over it out of front, killed below the warning level (kills_highwater); 100 = off")
            .plausible(.factors(0.6, 1.5), "18-45% of RAM: app inactive limits are not published"),
        .flag("freezer", \.xnu.freezer, alias: "freezer", source: "xnu doc/vm/freezer.md (CONFIG_FREEZE, on on iOS)",
              "freeze the oldest idle suspended app to flash (band 75) below the freeze level"),
        .seconds("freezer_idle_delay_s", \.xnu.freezerIdleDelay, 0...86_400, alias: "freezer-idle-delay",
                source: "xnu bsd/kern/kern_memorystatus.c:409, 2001 (memorystatus_apps_idle_delay_time: memstat_idle_deferral_time_s 10); kern_memorystatus_freeze.c:2954",
                "after each run the freezer thread waits this long times its multiplier before it may run again (0: no throttle; the delay is kept in whole microseconds, so under 0.5 us is 0)"),
        .integer("freezer_fast_multiplier", \.xnu.freezerFastMultiplier, 0...10_000, alias: "freezer-fast-multiplier",
                 source: "xnu bsd/kern/kern_memorystatus_freeze.c:119, 121 (FREEZE_APPS_IDLE_DELAY_MULTIPLIER_FAST 1, the default)",
                 "the freezer's delay multiplier (always, or with freezer_dynamic_delay after a run that froze something or with none frozen)"),
        .integer("freezer_slow_multiplier", \.xnu.freezerSlowMultiplier, 0...10_000, alias: "freezer-slow-multiplier",
                 source: "xnu bsd/kern/kern_memorystatus_freeze.c:120 (FREEZE_APPS_IDLE_DELAY_MULTIPLIER_SLOW 30), 2947-2952",
                 "with freezer_dynamic_delay: the multiplier after a run that froze nothing while apps are frozen"),
        .flag("freezer_dynamic_delay", \.xnu.freezerDynamicDelay, alias: "freezer-dynamic-delay",
              source: "xnu bsd/kern/kern_memorystatus_freeze.c:111-116 (memorystatus_freeze_dynamic_thread_delay_enabled: watchOS only)",
              "choose the freezer's multiplier after each run (fast or slow); off: always the fast one"),
        .number("freeze_available_pct", \.xnu.freezeAvailablePct, 0...100, unit: "%", alias: "freeze-pct",
                source: "xnu bsd/kern/kern_memorystatus_freeze.c: freeze_threshold_percentage 50", "freeze only below this share of RAM available"),
        .integer("freeze_suspended_threshold", \.xnu.freezeSuspendedThreshold, 0...10_000, alias: "freeze-suspended",
                 source: "xnu bsd/sys/kern_memorystatus_freeze.h: FREEZE_SUSPENDED_THRESHOLD_DEFAULT 4", "freeze only with more unfrozen suspended apps than this"),
        .integer("freeze_max_processes", \.xnu.freezeMaxProcesses, 0...10_000, alias: "freeze-max",
                 source: "xnu bsd/sys/kern_memorystatus_freeze.h: FREEZE_PROCESSES_MAX 20", "at most this many frozen apps"),
        .mebibytes("freeze_min_mb", \.xnu.freezeMinKB, 0...1_048_576,
                   source: "xnu bsd/sys/kern_memorystatus_freeze.h: FREEZE_PAGES_MIN 8 MB", "smaller apps are not frozen"),
        .mebibytes("freeze_daily_mb", \.xnu.freezeDailyKB, 0...16_777_216, alias: "freeze-daily",
                   source: "xnu bsd/sys/kern_memorystatus_freeze.h:88 (xnu-11417.101.15): FREEZE_DAILY_MB_MAX_DEFAULT 2048 (1024 in older versions), XNU's fallback when the storage layer supplies no budget (bsd/kern/kern_memorystatus_freeze.c:101, 2512-2518)", "flash the freezer may write per day; what a day leaves unused carries to the next"),
        .share("refreeze_dirty_share", \.xnu.refreezeDirtyPPM, alias: "refreeze-dirty-share",
                source: "assumption (xnu bsd/kern/kern_memorystatus_freeze.c refreezes write only dirty pages; their share is not published)",
                "share of a thawed app's memory a refreeze writes to flash (and charges to the budget)")
            .plausible(.factors(0.5, 2), "the share of pages dirtied after a thaw is not published"),
        .integer("freeze_demotions_max", \.xnu.freezeDemotionsMax, 0...10_000, alias: "freeze-demotions",
                 source: "xnu bsd/sys/kern_memorystatus_freeze.h:92 (MAX_FROZEN_PROCESS_DEMOTIONS_DEFAULT 2)",
                 "frozen apps demoted to the idle band per freezer day"),
        .integer("freeze_demotion_thaws", \.xnu.freezeDemotionThaws, 0...255, alias: "freeze-demotion-thaws",
                 source: "xnu bsd/sys/kern_memorystatus_freeze.h:94 (MIN_THAW_DEMOTION_THRESHOLD_DEFAULT 5)",
                 "a frozen app thawed at least this often is not demoted"),
        .integer("freeze_refreeze_thawed", \.xnu.freezeRefreezeThawed, 0...10_000, alias: "freeze-refreeze-thawed",
                 source: "xnu bsd/sys/kern_memorystatus_freeze.h:99 (MIN_THAW_REFREEZE_THRESHOLD_DEFAULT 3); kern_memorystatus_freeze.c:2923-2925",
                 "with freeze_max_processes apps frozen, the freezer still refreezes while at least this many are thawed"),
        .milliseconds("thaw_ms_per_mb", \.xnu.thawPerMB, 0...1_000, unit: "ms/MiB", alias: "thaw-ms-per-mb",
                source: "assumption (no published iOS thaw latency; flash reads of about 1 GB/s)",
                "time to bring a frozen app's MiB back from flash on a thaw (only the touched share, thaw_touch_share)")
            .plausible(.factors(0.5, 2), "flash reads at 0.5-2 GB/s"),
        .share("thaw_touch_share", \.xnu.thawTouchPPM, alias: "thaw-touch-share",
                source: "assumption after xnu doc/vm/freezer.md:62-64 (a thaw loads nothing proactively; its example touches 20 of 100 MB, the other 80 stay on NAND)",
                "share of a frozen app's memory a thaw brings back from flash (its latency; resident at its next suspension); the rest stays on flash")
            .plausible(.factors(0.5, 2), "freezer.md's 20 of 100 MB is one example"),
        .mebibytes("idle_daemons_mb", \.xnu.idleDaemonsKB, 0...1_048_576, alias: "idle-daemons",
                   source: "the one complete JetsamEvent report (iPhone 14, 6 GB, iOS 18.5: 345 daemons in band 0, `daemon, idle`, 1,396 MiB = 22.7 % of RAM; docs/evidence-reserve-and-wakes.md, section 1, docs/data/jetsam-iphone14-7-rpages.txt); default 0: assumption",
                   "XNU's idle-band daemons, the memory manager's own processes, when all are resident: used memory at the start, killed one at a time before any app (the head of band 0) on the idle, critical and launch kills; 0 = none (the reserve leaves them out, as if they died first and stayed dead). 0 is the default because with no relaunches (their rate is unknown) a pool only delays the first kill, after which the model equals today's; the sensitivity run bounds it")
            .plausible(.values("0", "465"), "0 to the report's 22.7 % of RAM (465 MB at 2 GB); one report, one device")
            .omittedAtDefaultValue(),
        .integer("idle_daemon_count", \.xnu.idleDaemonCount, 1...1_000_000, alias: "idle-daemon-count",
                 source: "the one complete JetsamEvent report: 345 daemons in band 0 (median 205 pages of 16 KiB; docs/evidence-reserve-and-wakes.md, section 1)",
                 "how many idle-band daemons share idle_daemons_mb: each kill frees idle_daemons_mb / idle_daemon_count")
            .omittedAtDefaultValue(),
        .number("idle_daemon_relaunches_per_hour", \.xnu.idleDaemonRelaunchesPerHour, 0...3_600, unit: "/h", alias: "idle-daemon-relaunches",
                source: "assumption (launchd relaunches a daemon when its service is next asked for; no rate is published)",
                "rate at which each killed idle-band daemon is relaunched, taking its memory again (room made as for a launch: another idle daemon first, then apps); 0 = killed daemons stay dead")
            .plausible(.values("0", "6"), "no published rate: from never to each killed daemon back within 10 minutes on average")
            .omittedAtDefaultValue(),
    ]
}
