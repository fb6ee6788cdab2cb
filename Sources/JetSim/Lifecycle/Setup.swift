import SimKernel

// The device's top: its setup for a run (its core, its memory manager, its inputs),
// its buffers sized ahead, and the bytes it holds.
extension Device {
    /// Prepares the device for a run, reusing every buffer: `installed` apps (indices
    /// into `profiles`), parameters, the timeline, and the policy's context.
    public mutating func reset(profiles: ContiguousArray<AppProfile>, installed: ContiguousArray<Int32>,
                               params: DeviceParameters, timeline: Timeline, context: PolicyContext) {
        self.profiles = profiles
        self.installed = installed
        self.params = params
        self.timeline = timeline
        drawKey = SplitMix64.mix(context.seed ^ SplitMix64.mix(context.device &+ 0xD1CE))
        let n = installed.count
        apps.removeAll()
        apps.append(repeating: AppRuntime(), count: n)
        for a in 0..<min(n, timeline.firstUse.count) { apps[a].nextUse = timeline.firstUse[a] }
        policy.reset(appCount: n, context: context)
        metrics = DeviceMetrics()
        availableKB = params.ramKB - params.osReserveKB
        running.removeAll(keepingCapacity: true)
        suspendedCount = 0
        for k in 0..<SystemEventKind.count { broadcastLatest[k] = 0 }
        broadcastHistory.removeAll(keepingCapacity: true)
        broadcastHistory.append(contentsOf: repeatElement(0, count: SystemEventKind.count))
        front = -1
        previousApp = -1
        ui = UIState()
        refusedActions = 0
        warned = false
        nextAction = 0
        // Unused when the policy's lists are the order (`idleOrder`).
        if !Policy.ordersIdleBands { ownIdleOrder.reset(appCount: n) }
        heldApp = -1
        inInput = false
        resetMemoryManager(appCount: n)
        buildWakeTable()
        wakeCount = 0
        drawNextWake(after: .zero)
        refreshInputTime()
    }
}

extension Device {
    /// Sizes the device's buffers for `apps` apps, so that resets up to that size never
    /// allocate (the policy's index included), and the event queue for `events` pending.
    public mutating func reserve(apps n: Int, actions: Int, events: Int, queue: inout EventQueue<DeviceEvent>) {
        apps.reserveCapacity(n)
        policy.reset(appCount: n, context: PolicyContext())
        running.reserveCapacity(64)
        if !Policy.ordersIdleBands { ownIdleOrder.reset(appCount: n) }
        dock.reserveCapacity(64)
        compressing.reserveCapacity(n)
        wakeTable.reserveCapacity(1 + n * SystemWakeKind.allCases.count)
        broadcastHistory.reserveCapacity(SystemEventKind.count * max(64, actions / 8))
        queue.reserveCapacity(events)
    }

    /// Bytes of simulator state the device holds (array capacities, not counts),
    /// including its policy's index: for the 128-bytes-per-installed-app target.
    /// The event queue and the lent inputs (timeline) are per-device overhead.
    public var stateBytes: (perApp: Int, fixed: Int) {
        let apps = self.apps.capacity * MemoryLayout<AppRuntime>.stride
            + installed.capacity * MemoryLayout<Int32>.stride
            + policy.stateBytes + memoryStateBytes
        let fixed = MemoryLayout<Self>.size
        return (apps, fixed)
    }
}
