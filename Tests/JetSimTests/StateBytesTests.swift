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

    /// 156: 152 before android-lmk's fourth heap (empty processes' slot sequence, issue
    /// 45: 4 bytes an app), 128 before the runtime record grew by 16 bytes (see above),
    /// 144 before it grew by 8 more (the time it entered its band, issue 29).
    @Test("at most 156 bytes of state per installed app, for every policy", arguments: PolicyID.all)
    func atMost156(policy: PolicyID) {
        let bytes = Self.bytesPerApp(policy.type, apps: 10_000)
        #expect(bytes <= 156, "\(policy.rawValue): \(bytes) bytes per app")
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
        // The core (counter slots, latency histogram headers, its knobs and the levels
        // they derive, the policy, the ziggurat tables' references, the held timer) and
        // each manager's state and parameters (XNU's and the plain model's compressors
        // each): fixed, whatever the apps. The bound moves only
        // with a field added on purpose (git log says which; 2,528 before issue 45's
        // minfree levels, then an array reference in Android's parameters, now their six
        // values in place: 2,584, and no array for each cell's parameters to allocate;
        // 2,544 before issue 47's per-group latency histograms, an array reference in
        // the core).
        #expect(small < 2_600)
        print("device-fixed-bytes \(small) event-entry-bytes \(MemoryLayout<EventQueue<DeviceEvent>.Entry>.stride) action-bytes \(MemoryLayout<UserAction>.stride)")
    }
}
