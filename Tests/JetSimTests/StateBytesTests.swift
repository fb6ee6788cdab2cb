import Testing
import SimKernel
import JetSim

@Suite("Simulator state per installed app")
struct StateBytesTests {
    static func bytesPerApp<P: EvictionPolicy>(_: P.Type, apps n: Int) -> Double {
        var d = Device<P, NoTrace>(trace: NoTrace())
        d.reset(profiles: [AppProfile()], installed: ContiguousArray(repeating: 0, count: n),
                params: DeviceParameters(), timeline: Timeline(actions: [], appCount: n), context: PolicyContext())
        return Double(d.stateBytes.perApp) / Double(n)
    }

    /// 104 bytes: 80 until held-event counts became 32-bit (exact past 65,535 held
    /// events) and the record gained its XNU band; 96 until it gained the time it
    /// entered that band (issue 29: the reaper's age is the time in the band, XNU's
    /// p_memstat_prio_start).
    @Test("an app's runtime record is 104 bytes")
    func runtimeSize() {
        #expect(MemoryLayout<AppRuntime>.stride == 104)
    }

    /// 152: 128 before the runtime record grew by 16 bytes (see above), 144 before it
    /// grew by 8 more (the time it entered its band, issue 29).
    @Test("at most 152 bytes of state per installed app, for every policy", arguments: PolicyID.all)
    func atMost152(policy: PolicyID) {
        let bytes = Self.bytesPerApp(policy.type, apps: 10_000)
        #expect(bytes <= 152, "\(policy.rawValue): \(bytes) bytes per app")
        print("state-bytes \(policy.rawValue) \(bytes)")
    }
}

@Suite("Fixed per-device overhead")
struct FixedOverheadTests {
    @Test("the device value itself is small and does not grow with apps")
    func fixed() {
        var d = Device<LRU, NoTrace>(trace: NoTrace())
        let small = d.stateBytes.fixed
        d.reset(profiles: [AppProfile()], installed: ContiguousArray(repeating: 0, count: 5_000),
                params: DeviceParameters(), timeline: Timeline(actions: [], appCount: 5_000), context: PolicyContext())
        #expect(d.stateBytes.fixed == small)
        // 1,224 bytes with Android (issue 13): 16 more counter slots (128 bytes), its
        // parameters and its state; under 1,024 before. 1,424 with issue 14's system
        // launches (their stream state and the cumulative-rate array's header) and
        // XNU's pressure state. 1,688 with the per-kind latency histograms (six headers
        // of 40 bytes; their buckets are the runner's, lent per run) and the
        // `--by archetype` tally's two array references (16 bytes). About 1,904 with
        // the KiB thresholds the parameters derive kept beside them
        // (`DeviceThresholds` with `XNUThresholds`, 14 x 8 bytes: the triggers read them after every memory
        // change; issue 12's event rate), and 128 more with issue 14's prewarming (the
        // counter storage raised from 64 to 80 slots). Plus the
        // freezer's counts of apps with state on flash and of thawed ones, and the
        // refreeze threshold (issue 12, the freezer as XNU runs it), the freezer
        // thread's next run (8 bytes), and a held suspension timer (issue 15: its app
        // in the padding after an Int32, its time 8 bytes). 2,104 with the ziggurat
        // tables its draws read kept beside them (2 x 24 bytes: no call into SimKernel
        // a draw; issue 12) and the run-hold flag of its two `MultiList`s (2 x 8 bytes).
        // 2,112 with the apps flagged over their inactive limit kept as a list (8 bytes
        // for a 4-byte count: the high-water kills visit them, not every app; issue 34).
        // 2,120 with the reaper's cached oldest-reapable answer (its expiry and whether
        // it was none, issue 29; the flag that arms the sustained-pressure timer sits
        // in padding); 2,128 with the freezer's budget left (8 bytes: it carries what a
        // day leaves, issue 29); 16 more with `lru` ordering by the user's last use
        // (issue 29): a heap (three array references) and an arrival count where a list
        // was; 8 for the parameters' app fit (issue 29); and 32 with issue 29's Android
        // state and knobs: PSI's full avg10 (8 bytes), the empty-process count and the
        // oldest one (2 x 4), the critical-stall limit and the maximum empty time
        // (2 x 8) and the thrashing switch (in padding).
        // 2,256 with issue 31's idle-band daemons: the pool (its counts, one daemon's
        // size, the next relaunch: 32 bytes) and their three knobs in the parameters
        // (24 bytes with a 4-byte pad).
        // 2,312 with issue 32's cached-app GC and Fleet: the held KiB per app in zram
        // (an array reference, 8 bytes; empty unless held), Android's three GC and swap
        // shares (24) and Fleet's parameters (its switch and two shares, 24 with the pad).
        // 2,328 with the swap file (issue 32): the KiB per app in the file (an array
        // reference, 8 bytes; empty unless the swap is a file), the file's use (8) and
        // its switch (in a pad: 0).
        #expect(small < 2_336)
        print("device-fixed-bytes \(small) event-entry-bytes \(MemoryLayout<EventQueue<DeviceEvent>.Entry>.stride) action-bytes \(MemoryLayout<UserAction>.stride)")
    }
}
