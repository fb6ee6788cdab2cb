import SimKernel

/// Where a device's timeline (what its user does, action by action) comes from. The
/// three sources jetsim runs sit in this folder behind this one type; a device run
/// sees only the `Timeline` and the installed apps they produce (`DeviceInputs`).
public enum TimelineSource: Sendable {
    /// The workload's synthetic user (`SyntheticUser.swift`): one user per device,
    /// drawn from the run's seed.
    case synthetic(UserModel)
    /// A recorded usage trace (`UsageReplay.swift`): one device per trace device.
    case usage(UsageReplay)
    /// A scripted scenario (`Scenario.swift`): one device, its own apps.
    case scenario(Scenario)

    /// The devices this source defines (nil: as many as the fleet asks for).
    public var deviceCount: Int? {
        switch self {
        case .synthetic: return nil
        case .usage(let u): return u.endDevice
        case .scenario: return 1
        }
    }

    /// A scenario's timeline and installed apps (every app it declares).
    static func scenarioInputs(_ sc: Scenario) -> (installed: ContiguousArray<Int32>, timeline: Timeline) {
        let n = sc.profiles.count
        return (ContiguousArray((0..<n).map { Int32($0) }), Timeline(actions: sc.actions, appCount: n))
    }
}
