import Testing
import SimKernel
@testable import JetSim

/// Ports of lmkd's kill choice (system/memory/lmkd, lmkd.cpp as mirrored in
/// yaap/system_memory_lmkd at c62ac7e) and of ProcessList.updateOomLevels
/// (frameworks/base at 02978520d9e8), the minfree levels lmkd is given. lmkd's own
/// tests (tests/lmkd_test.cpp check_for_oom, tests/lmkd_tests.cpp TargetReaping) run
/// on a device and read the kernel log: docs/fidelity.md lists why they have no port.
@Suite("Conformance (Android): lmkd's choice and the minfree levels")
struct LmkdConformanceTests {
    // lmkd.cpp:3902-3903: kill_heaviest_task = GET_LMK_PROPERTY(bool,
    // "kill_heaviest_task", false).
    @Test("lmkd.cpp:3902-3903: ro.lmk.kill_heaviest_task defaults to false")
    func killHeaviestDefault() {
        #expect(AndroidParameters().killHeaviestTask == false)
        #expect(AndroidClass().killHeaviestTask == false)
    }

    // lmkd.cpp:2475-2510, find_and_kill_process: levels from OOM_SCORE_ADJ_MAX down;
    // at i <= PERCEPTIBLE_APP_ADJ the heaviest of the level (proc_get_heaviest,
    // lmkd.cpp:2172-2193). With OomAdjuster's PERCEPTIBLE_RECENT_FOREGROUND_APP_ADJ
    // (50) for a foreground service top less than 15 s ago, the 200 level dies first:
    // its heaviest, not the heavier recent app at 50.
    @Test("find_and_kill_process: the 200 level before the 50 one, the heaviest within it")
    func perceptibleLevels() throws {
        let text = """
            device ram=4GB os=android app-limit-pct=60 policy=android-lmk
            app B mode=audio:10m footprint=200MB
            app C mode=audio:10m footprint=400MB
            app A mode=audio:10m footprint=600MB
            app F
            0s    launch B
            1s    launch C
            2s    launch A
            30s   launch F
            5m    end
            """
        let sc = try Scenario.parse(text, source: "conformance")
        var sim = Simulation(model: scenarioDevice(sc, AndroidLMK.self, trace: NoTrace()))
        sim.run(until: .seconds(35))
        let d = sim.model
        let (a, b, c) = (sc.app(named: "A")!, sc.app(named: "B")!, sc.app(named: "C")!)
        let am = d.memory.android
        #expect([a, b, c].map { am.oomScoreAdj(d.core, $0, .seconds(35)) } == [50, 200, 200])
        // android-lmk's perceptible heap is by size: A. lmkd takes the 200 level's heaviest.
        #expect(d.policy.victim() == a)
        #expect(am.lmkdPick(d.core, a, adj: 50, .seconds(35)) == c)
        // After the grace all three are 200: the heaviest, A.
        #expect(am.lmkdPick(d.core, a, adj: am.oomScoreAdj(d.core, a, .seconds(46)), .seconds(46)) == a)
    }

    // ProcessList.updateOomLevels (02978520d9e8): scale = max((RAM MiB - 350) / 350,
    // (pixels - 384000) / 640000) in 0...1; 64-bit: mOomMinFreeHigh[4] * 3 / 2 and
    // [5] * 7 / 4; level = (int)(low + (high - low) * scale) in Java float, sent in
    // 4 KiB pages. Expected values computed with float32 arithmetic (numpy).
    @Test("updateOomLevels: the minfree levels for RAM, display and ABI")
    func minfreeLevels() {
        #expect(AndroidParameters.oomMinFree(ramMB: 6_144, displayPixels: 2_462_400, is64Bit: true).array
                == [73_728, 92_160, 110_592, 129_024, 221_184, 322_560])
        #expect(AndroidParameters.oomMinFree(ramMB: 6_144, displayPixels: 2_462_400, is64Bit: false).array
                == [73_728, 92_160, 110_592, 129_024, 147_456, 184_320])
        // 512 MiB and no display (ProcessList's constructor: updateOomLevels(0, 0)):
        // scale = 162 / 350.
        #expect(AndroidParameters.oomMinFree(ramMB: 512, displayPixels: 0, is64Bit: false).array
                == [40_724, 52_556, 64_388, 79_520, 91_352, 111_712])
        #expect(AndroidParameters.oomMinFree(ramMB: 512, displayPixels: 0, is64Bit: true).array
                == [40_724, 52_556, 64_388, 79_520, 125_476, 175_700])
        // A device's levels: the 64-bit high table at any phone RAM or display.
        #expect(AndroidParameters(AndroidClass(), ramKB: 2_048 * 1_024).minfreeKB.array
                == [73_728, 92_160, 110_592, 129_024, 221_184, 322_560])
        #expect(AndroidParameters.minfreeAdj == [0, 100, 200, 250, 900, 950])
    }
}
