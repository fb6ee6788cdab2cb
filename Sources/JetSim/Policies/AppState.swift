// The app's lifecycle state and background mode, as every part of the model reads them.
// Declared here, with the candidate that carries them to a policy, so that Policies
// uses nothing of the device's folders (they use Policies: docs/layout.md).

/// The five states of an app (seed 004, Table 18.1).
///
/// | state | visible | receives events | executes code |
/// |---|---|---|---|
/// | not running | no | no | no |
/// | active | yes | yes | yes |
/// | inactive | mostly | no | yes |
/// | background | no | no | yes |
/// | suspended | no | no | no |
public enum AppState: UInt8, Sendable, CaseIterable {
    case notRunning, inactive, active, background, suspended

    /// The name used in traces and files.
    public var name: String {
        switch self {
        case .notRunning: "not-running"
        case .inactive: "inactive"
        case .active: "active"
        case .background: "background"
        case .suspended: "suspended"
        }
    }

    /// Whether the app executes code in this state (active, inactive, background).
    /// By a switch: written with `==` it stayed a call at every kill.
    @inlinable @inline(__always) public var executesCode: Bool {
        switch self {
        case .active, .inactive, .background: true
        case .suspended, .notRunning: false
        }
    }

    /// Whether the app's process exists and holds memory.
    @inlinable public var isResident: Bool { self != .notRunning }
}

/// Background modes that keep an app executing in the background while their
/// activity lasts (seed 003).
public enum BackgroundMode: UInt8, Sendable, CaseIterable {
    case none, audio, location, voip

    public var name: String {
        switch self {
        case .none: "none"
        case .audio: "audio"
        case .location: "location"
        case .voip: "voip"
        }
    }

    public init?(name: String) {
        guard let m = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = m
    }
}
