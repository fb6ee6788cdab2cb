import Foundation
import Testing
import SimKernel
@testable import JetSim

/// The device in parts (issue 28): kill reasons declared once, the memory manager a
/// device runs, every memory kill through the one reclaim loop, and the folders'
/// direction (no manager test outside Memory/).
@Suite("the device in parts: kill reasons, managers, the reclaim loop, layers")
struct DevicePartsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test("each kill reason declares its decider and effects beside its name")
    func killReasons() {
        let android = KillReason.allCases.filter { $0.decider == .android }
        #expect(android == [.lmkdPsiPartial, .lmkdPsiComplete, .lmkdThrashing, .lmkdLowSwap, .lmkdMinfree, .cachedCap, .lmkdPressureAfterKill])
        #expect(KillReason.allCases.filter { $0.decider == .xnu }
                == [.idleExit, .longIdleExit, .highWater, .sustainedPressure, .compressorSpaceShortage])
        // Only the kills the user or the app chose, and a shutdown, keep the user's place.
        #expect(KillReason.allCases.filter { !$0.losesUserPlace } == [.user, .exitsOnSuspend, .powerOff])
        // SIGKILL (Android) and crashes for breaking a rule send no willTerminate.
        #expect(KillReason.allCases.filter(\.noticesRunningApp)
                == [.memoryPressure, .user, .powerOff, .idleExit, .longIdleExit, .sustainedPressure, .compressorSpaceShortage])
        #expect(Set(KillReason.allCases.map(\.name)).count == KillReason.allCases.count)
        // Only a shutdown drops the file cache, so no later launch finds files cached.
        #expect(KillReason.allCases.filter(\.clearsFileCache) == [.powerOff])
    }

    @Test("one default per knob: DeviceParameters() is the workload's default device class")
    func defaultsDeclaredOnce() {
        #expect(DeviceParameters() == DeviceClass().parameters())
        #expect(DeviceParameters.standard.suspendedCompressionRatio == 2 && DeviceParameters.standard.launchJitterSigma == 0.25)
        for ram: Int64 in [1, 2, 3, 6, 8] {
            #expect(DeviceParameters(ramKB: ram * 1_048_576) == DeviceClass().parameters(ramKB: ram * 1_048_576))
        }
        // Each manager's own parameters, turned on, are its class's defaults (no second
        // default beside the type: FleetParameters had one until 2026-11-27).
        var fleet = DeviceParameters().fleet, android = DeviceParameters().android
        fleet.enabled = true; android.enabled = true
        #expect(fleet == FleetParameters(FleetClass()))
        #expect(android == AndroidParameters(AndroidClass(), ramKB: 0))
    }

    /// XNU's keys write `XNUParameters` directly (one default, on the field): the file's
    /// units print as before (the shard states and goldens hold them) and read back to
    /// the same parameters, at the defaults and at other values a file may give.
    @Test("XNU's keys in file units: printed as given, read back exactly")
    func xnuKeysRoundTrip() throws {
        let yaml = WorkloadPrinter.yaml(Workload())
        for line in ["aging_s: 2", "reaper_min_age_s: 300", "decompress_ms_per_mb: 0.5", "resume_touch_share: 0.3",
                     "compression_mb_per_s: 4", "warning_resting_s: 25", "sustained_pressure_window_s: 600",
                     "freezer_idle_delay_s: 10", "refreeze_dirty_share: 0.3", "thaw_ms_per_mb: 1", "thaw_touch_share: 0.2",
                     "freezer_slow_multiplier: 30", "freeze_refreeze_thawed: 3"] {
            #expect(yaml.contains("\n    " + line + "\n"), "\(line)")
        }
        let set = ["device_classes.0.aging_s=0.25", "device_classes.0.decompress_ms_per_mb=0.125", "device_classes.0.resume_touch_share=0.45",
                   "device_classes.0.compression_mb_per_s=2.5", "device_classes.0.thaw_touch_share=0.05", "device_classes.0.freezer_fast_multiplier=7"]
        let w = try WorkloadDecoder.load(WorkloadPrinter.yaml(Workload()), source: "printed", overrides: set)
        let x = w.deviceClasses[0].xnu
        #expect(x.agingTime == .milliseconds(250) && x.decompressPerMB == .microseconds(125) && x.resumeTouchPPM == 450_000)
        #expect(x.compressionKBPerS == 2_560 && x.thawTouchPPM == 50_000 && x.freezerFastMultiplier == 7)
        let back = try WorkloadDecoder.load(WorkloadPrinter.yaml(w), source: "printed")
        #expect(back == w)
        for line in ["aging_s: 0.25", "decompress_ms_per_mb: 0.125", "resume_touch_share: 0.45", "compression_mb_per_s: 2.5", "thaw_touch_share: 0.05"] {
            #expect(WorkloadPrinter.yaml(w).contains("\n    " + line + "\n"), "\(line)")
        }
    }

    @Test("the parameters select one memory manager")
    func managers() {
        var p = DeviceParameters()
        #expect(p.memoryManager == .xnu)
        p.xnu.bands = false
        #expect(p.memoryManager == .plain)
        p.android.enabled = true
        #expect(p.memoryManager == .android)
        p.fleet.enabled = true
        #expect(p.memoryManager == .fleet)
    }

    /// Scenarios that reach the triggers the shipped ones do not: high-water (as
    /// XNUPressureTests), lmkd's PSI kill and ActivityManager's cap (as AndroidTests).
    static let moreTriggers = [
        """
        device ram=1GB reserve=0MB dock=0 freezer=false reaper=false growth=false warning-pct=15 target-pct=10 critical-pct=5 inactive-limit-pct=30
        app X footprint=400MB background-footprint=400MB suspended-footprint=100MB
        app Y footprint=480MB background-footprint=100MB suspended-footprint=100MB
        0s    launch X
        10s   home
        11s   launch Y
        30s   end
        """,
        """
        device ram=2GB reserve=512MB os=android app-limit-pct=60 policy=android-lmk zram-pct=5 swap-low-pct=0
        app P footprint=300MB mode=audio:10m
        app X footprint=300MB
        app Y footprint=300MB
        app Big footprint=1200MB
        0s    launch P
        5s    home
        20s   launch X
        25s   home
        40s   launch Y
        45s   home
        2m    launch Big
        3m    end
        """,
        """
        device os=android policy=android-lmk max-cached=2
        app A
        app B
        app C
        app D
        0s    launch A
        5s    home
        20s   launch B
        25s   home
        40s   launch C
        45s   home
        1m    launch D
        65s   home
        2m    end
        """,
    ]

    @Test("every memory kill of every shipped scenario (and of the other triggers) happens inside the reclaim loop")
    func everyKillInTheLoop() throws {
        let dir = Self.root + "/Workloads/scenarios"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".scenario") }.sorted()
        #expect(files.count > 40)
        var texts = try files.map { (name: $0, text: try String(contentsOfFile: dir + "/" + $0, encoding: .utf8)) }
        texts += Self.moreTriggers.enumerated().map { (name: "inline \($0.offset)", text: $0.element) }
        var memoryKills = 0, reasons = Set<KillReason>()
        for (name, text) in texts {
            let sc = try Scenario.parse(text, source: name)
            let r = ScenarioRunner.run(sc)
            #expect(r.memoryKillsOutsideReclaim == 0, "\(name): \(r.memoryKillsOutsideReclaim) memory kills outside the reclaim loop")
            for rec in r.records {
                if case .terminated(let reason) = rec.event, reason.decider != .lifecycle {
                    memoryKills += 1
                    reasons.insert(reason)
                }
            }
        }
        // The kills reach the loop's triggers: the plain and XNU kill levels, the
        // reaper, high-water, the per-app limit, lmkd and the cached cap.
        #expect(memoryKills >= 28)
        #expect(reasons.isSuperset(of: [.memoryPressure, .idleExit, .longIdleExit, .highWater, .perProcessLimit,
                                        .lmkdPsiPartial, .cachedCap]))
    }

    /// The compiler keeps the rest: a manager's hooks get the core, never the device, so
    /// none can run the reclaim loop or terminate an app; the core holds no manager, so
    /// it calls none. What one module cannot hide is a manager's state from the
    /// lifecycle: this test keeps it behind `MemoryManager`'s hooks.
    @Test("no part outside Memory/ asks which memory manager runs, reads a manager's knobs or reaches into one")
    func noManagerTestsOutsideMemory() throws {
        let fm = FileManager.default
        var offending: [String] = []
        for part in ["Device", "Lifecycle", "Policies", "Run", "Timelines"] {
            let dir = Self.root + "/Sources/JetSim/" + part
            for f in try fm.contentsOfDirectory(atPath: dir) where f.hasSuffix(".swift") {
                let lines = try String(contentsOfFile: dir + "/" + f, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (i, line) in lines.enumerated() {
                    let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                    // XNU's knobs (its switch among them) are read in Memory/ only.
                    if code.contains("android.enabled") || code.contains("xnu.") || code.contains("memoryManager ==")
                        || code.contains("switch memoryManager") || code.contains("memory.xnu") || code.contains("memory.android")
                        || code.contains("memory.plain") || code.contains("memory.kind") {
                        offending.append("\(part)/\(f):\(i + 1)")
                    }
                }
            }
        }
        #expect(offending.isEmpty, "manager tests outside Memory/: \(offending)")
    }

    @Test("inside Memory/, every test of the manager's kind is an exhaustive switch (a new manager is listed by the compiler)")
    func noKindComparisons() throws {
        var offending: [String] = []
        let dir = Self.root + "/Sources/JetSim/Memory"
        let files = try #require(FileManager.default.subpaths(atPath: dir)).filter { $0.hasSuffix(".swift") }
        for f in files {
            let lines = try String(contentsOfFile: dir + "/" + f, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (i, line) in lines.enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                for kind in MemoryManagerKind.allCases where code.contains("== .\(kind)") || code.contains("!= .\(kind)") {
                    offending.append("Memory/\(f):\(i + 1) (\(kind))")
                }
            }
        }
        #expect(files.count > 10)
        #expect(offending.isEmpty, "a comparison a new manager would pass silently: \(offending)")
    }
}
