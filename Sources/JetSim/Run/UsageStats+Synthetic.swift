import SimKernel

extension UsageStats {
    /// The statistics of a workload's synthetic users: every device of the fleet over
    /// `fleet.duration`, from the user's actions (no simulation: the same for every
    /// policy and RAM size). Equal to `jetsim trace --format usage` read back, when
    /// the duration is whole days.
    public static func synthetic(_ w: Workload) -> UsageStats {
        let plan = RunPlan(workload: w, cells: [], threads: 1)
        var inputs = DeviceInputs(plan: plan, catalog: AppCatalog(w))
        var acc = Accumulator()
        let days = w.fleet.duration.seconds / 86_400
        for d in 0..<w.fleet.devices {
            _ = inputs.build(device: d)
            appSessions(of: inputs.timeline, until: inputs.until) { start, app, length in
                acc.add(start: start.seconds, app: app, length: length.seconds)
            }
            acc.endDevice(days: days)
        }
        return acc.result()
    }
}
