import SimKernel

// The lifecycle: the app in front grows toward its peak footprint.
extension Device {
    // MARK: Memory that grows

    /// One growth step of the app in front: toward its peak by (peak - launch
    /// footprint) x step / growth time. Room is made as for a launch (idle kills, then
    /// critical); past the per-app limit it is killed (per-process-limit); if nothing
    /// is left to kill and it still does not fit, it dies as a foreground kill.
    mutating func grow(_ app: Int32, _ s: inout Scheduler<DeviceEvent>) {
        let now = s.now
        let a = Int(app)
        let p = core.pi(app)
        guard core.front == app, core.apps[a].state == .active || core.apps[a].state == .inactive else { return }
        let peak = core.profiles[p].peakKB
        // (peak - launch) x step / time, exactly, in 128 bits: the product passes Int64
        // for footprints and steps the schema accepts (terabytes x a day in
        // microseconds); a quotient past Int64 saturates (it reaches the peak anyway).
        let distance = max(0, peak - core.profiles[p].activeKB)
        let span = max(1, core.params.growthTime.microseconds)
        let stepMicros = max(0, core.params.growthStep.microseconds)
        let step: Int64
        let small = distance.multipliedReportingOverflow(by: stepMicros)
        if !small.overflow {
            // The usual case: the product fits in 64 bits (the same quotient as the
            // 128-bit division below, without its cost at every growth step).
            step = max(1, small.partialValue / span)
        } else {
            let product = distance.multipliedFullWidth(by: stepMicros)
            let fits = 2 * product.high + Int64(product.low >> 63) < span
            step = max(1, fits ? span.dividingFullWidth(product).quotient : .max)
        }
        let target = step >= peak - core.apps[a].residentKB ? peak : core.apps[a].residentKB + step
        guard target > core.apps[a].residentKB else { return }
        let limit = core.kb.appLimitKB
        let reach = min(target, max(limit, core.apps[a].residentKB))
        let need = reach - core.apps[a].residentKB
        if need > 0 {
            makeRoom(needKB: need, for: app, now)
            if core.availableKB < need {
                core.metrics[.foregroundKills] += 1
                reclaim(.app(app, .memoryPressure), now)
                return
            }
            core.setResident(app, core.apps[a].residentKB + need)
        }
        if target > limit {
            reclaim(.app(app, .perProcessLimit), now)
            return
        }
        memoryFell(now)
        if target < peak { core.scheduleTimer(.grow, app, at: now + core.params.growthStep, &s) }
    }
}
