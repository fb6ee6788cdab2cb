import SimKernel

// The device's top: its setup for a run (its core, its memory manager, its inputs),
// its buffers sized ahead, and the bytes it holds.
extension Device {
    /// Prepares the device for a run, reusing every buffer: `installed` apps (indices
    /// into `profiles`), parameters, the timeline, and the policy's context.
    public mutating func reset(profiles: ContiguousArray<AppProfile>, installed: ContiguousArray<Int32>,
                               params: DeviceParameters, timeline: Timeline, context: PolicyContext) {
        core.profiles = profiles
        core.installed = installed
        self.params = params
        core.timeline = timeline
        core.drawKey = SplitMix64.mix(context.seed ^ SplitMix64.mix(context.device &+ 0xD1CE))
        let n = installed.count
        core.apps.removeAll()
        core.apps.append(repeating: AppRuntime(), count: n)
        for a in 0..<min(n, timeline.firstUse.count) { core.apps[a].nextUse = timeline.firstUse[a] }
        core.policy.reset(appCount: n, context: context)
        core.metrics = DeviceMetrics()
        core.availableKB = params.ramKB - params.osReserveKB
        core.running.removeAll(keepingCapacity: true)
        core.suspendedCount = 0
        for k in 0..<SystemEventKind.count { core.broadcastLatest[k] = 0 }
        core.broadcastHistory.removeAll(keepingCapacity: true)
        core.broadcastHistory.append(contentsOf: repeatElement(0, count: SystemEventKind.count))
        core.front = -1
        core.previousApp = -1
        core.ui = UIState()
        core.refusedActions = 0
        core.nextAction = 0
        // Unused when the policy's lists are the order (`idleOrder`).
        if !Policy.ordersIdleBands { core.ownIdleOrder.reset(appCount: n) }
        core.heldApp = -1
        core.inInput = false
        for a in 0..<n { core.apps[a].packedKB = Int32(clamping: core.suspendedResidentKB(Int(installed[a]))) }
        memory.reset(&core)
        core.buildWakeTable(prewarms: memory.prewarms(core.params))
        core.wakeCount = 0
        core.drawNextWake(after: .zero)
        core.refreshInputTime()
    }
}

extension Device {
    /// Sizes the device's buffers for `apps` apps, so that resets up to that size never
    /// allocate (the policy's index included), and the event queue for `events` pending.
    public mutating func reserve(apps n: Int, actions: Int, events: Int, queue: inout EventQueue<DeviceEvent>) {
        core.apps.reserveCapacity(n)
        core.policy.reset(appCount: n, context: PolicyContext())
        core.running.reserveCapacity(64)
        if !Policy.ordersIdleBands { core.ownIdleOrder.reset(appCount: n) }
        memory.reserve(apps: n)
        core.wakeTable.reserveCapacity(1 + n * SystemWakeKind.allCases.count)
        core.broadcastHistory.reserveCapacity(SystemEventKind.count * max(64, actions / 8))
        queue.reserveCapacity(events)
    }

    /// Bytes of simulator state the device holds (array capacities, not counts),
    /// including its policy's index: for the 128-bytes-per-installed-app target.
    /// The event queue and the lent inputs (timeline) are per-device overhead.
    public var stateBytes: (perApp: Int, fixed: Int) {
        let apps = core.apps.capacity * MemoryLayout<AppRuntime>.stride
            + core.installed.capacity * MemoryLayout<Int32>.stride
            + core.policy.stateBytes + core.ownIdleOrder.stateBytes + memory.stateBytes
        let fixed = MemoryLayout<Self>.size
        return (apps, fixed)
    }
}
