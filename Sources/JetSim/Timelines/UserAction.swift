import SimKernel

/// One thing the user (or the outside world) does to a device, at an absolute time.
///
/// The timeline of actions is fixed before a device is simulated and does not
/// depend on the eviction policy or on RAM: every policy sees the same user (common
/// random numbers), and the oracle can look ahead in it.
public struct UserAction: Sendable, Equatable {
    public enum Kind: UInt8, Sendable, CaseIterable {
        case launch, home, switcher, switcherPick, switcherRemove
        case lock, unlock, powerHold, powerCancel, powerOff
        case call, sms, alert, ignore, answer
        case notify, pressureWarning, pressureCritical, end
        /// A scenario's system launch or wake (`wake APP KIND`; `eventKind` is the
        /// `SystemWakeKind`): not a user action, but scripted like one.
        case systemWake

        /// The scenario-file keyword.
        public var keyword: String {
            switch self {
            case .launch: "launch"
            case .home: "home"
            case .switcher: "switcher"
            case .switcherPick: "switcher-pick"
            case .switcherRemove: "switcher-remove"
            case .lock: "lock"
            case .unlock: "unlock"
            case .powerHold: "power-hold"
            case .powerCancel: "power-cancel"
            case .powerOff: "power-off"
            case .call: "call"
            case .sms: "sms"
            case .alert: "alert"
            case .ignore: "ignore"
            case .answer: "answer"
            case .notify: "notify"
            case .pressureWarning: "pressure warning"
            case .pressureCritical: "pressure critical"
            case .end: "end"
            case .systemWake: "wake"
            }
        }

        /// Whether the action names an app.
        public var takesApp: Bool {
            self == .launch || self == .switcherPick || self == .switcherRemove || self == .notify || self == .systemWake
        }

        /// Whether the action brings an app to the front (a use, for the oracle).
        public var isUse: Bool { self == .launch || self == .switcherPick }
    }

    /// The app addressed to every app at once (for `notify`).
    public static let allApps: Int32 = -2
    /// No app.
    public static let noApp: Int32 = -1

    public var time: SimTime
    public var kind: Kind
    /// The app index on the device, `noApp`, or `allApps` (notify only).
    public var app: Int32
    /// For `notify`: the event kind (raw value of `SystemEventKind`).
    public var eventKind: UInt8
    /// For `notify`: the event's value, as an interned id (latest wins when coalesced).
    public var value: Int32

    @inlinable
    public init(time: SimTime, kind: Kind, app: Int32 = UserAction.noApp,
                eventKind: SystemEventKind = .orientation, value: Int32 = 0) {
        self.time = time
        self.kind = kind
        self.app = app
        self.eventKind = eventKind.rawValue
        self.value = value
    }
}

/// What the user can see of a device: which app is in front, whether the screen is
/// locked, and which overlay is up. It changes only through user actions, never
/// through memory or policy, so it is the same for every policy.
///
/// `apply` checks that an action makes sense where it stands; scenario files and the
/// synthetic user are both held to it.
public struct UIState: Sendable, Equatable {
    public enum Interruption: UInt8, Sendable { case none, call, sms, alert }

    /// The app the user last brought to the front (-1: home screen).
    public var front: Int32 = UserAction.noApp
    public var locked = false
    public var switcherOpen = false
    public var powerDialog = false
    public var interruption: Interruption = .none
    public var poweredOff = false

    public init() {}

    /// Applies `action`, or says why it makes no sense here (and changes nothing).
    public mutating func apply(_ action: UserAction) throws(UIError) {
        if poweredOff && action.kind != .end {
            throw UIError("the device is powered off; only 'end' may follow 'power-off'")
        }
        switch action.kind {
        case .launch:
            try requireIdle("launch")
            if action.app == front { throw UIError("the app is already in front") }
            front = action.app
        case .home:
            guard !locked else { throw UIError("'home' while locked: expected 'unlock' first") }
            guard !powerDialog else { throw UIError("'home' while the power dialog is up: expected 'power-cancel' or 'power-off'") }
            guard interruption == .none else { throw UIError("'home' during an interruption: expected 'ignore' or 'answer'") }
            switcherOpen = false
            front = UserAction.noApp
        case .switcher:
            try requireIdle("switcher")
            switcherOpen = true
        case .switcherPick:
            guard switcherOpen else { throw UIError("'switcher-pick' needs the switcher open: expected 'switcher' first") }
            switcherOpen = false
            front = action.app
        case .switcherRemove:
            guard switcherOpen else { throw UIError("'switcher-remove' needs the switcher open: expected 'switcher' first") }
            if action.app == front { front = UserAction.noApp }
        case .lock:
            guard !locked else { throw UIError("'lock' when already locked") }
            guard !powerDialog else { throw UIError("'lock' while the power dialog is up: expected 'power-cancel' or 'power-off'") }
            locked = true
            switcherOpen = false
        case .unlock:
            guard locked else { throw UIError("'unlock' when not locked") }
            locked = false
        case .powerHold:
            guard !powerDialog else { throw UIError("'power-hold' when the power dialog is already up") }
            guard interruption == .none, !switcherOpen else {
                throw UIError("'power-hold' while another overlay is up")
            }
            powerDialog = true
        case .powerCancel:
            guard powerDialog else { throw UIError("'power-cancel' without 'power-hold' first") }
            powerDialog = false
        case .powerOff:
            guard powerDialog else { throw UIError("'power-off' without 'power-hold' first") }
            powerDialog = false
            poweredOff = true
            front = UserAction.noApp
        case .call, .sms, .alert:
            guard interruption == .none else { throw UIError("an interruption is already pending: expected 'ignore' or 'answer'") }
            guard !switcherOpen, !powerDialog else { throw UIError("an interruption while the switcher or power dialog is up") }
            interruption = action.kind == .call ? .call : action.kind == .sms ? .sms : .alert
        case .ignore:
            guard interruption != .none else { throw UIError("'ignore' with no call, sms or alert pending") }
            interruption = .none
        case .answer:
            guard interruption != .none else { throw UIError("'answer' with no call, sms or alert pending") }
            interruption = .none
            front = UserAction.noApp
            locked = false
        case .notify, .pressureWarning, .pressureCritical, .end, .systemWake:
            break
        }
    }

    private func requireIdle(_ what: String) throws(UIError) {
        if locked { throw UIError("'\(what)' while locked: expected 'unlock' first") }
        if switcherOpen { throw UIError("'\(what)' while the switcher is open: expected 'switcher-pick' or 'home'") }
        if powerDialog { throw UIError("'\(what)' while the power dialog is up: expected 'power-cancel' or 'power-off'") }
        if interruption != .none { throw UIError("'\(what)' during an interruption: expected 'ignore' or 'answer'") }
    }
}

/// An action that makes no sense in the current UI state.
public struct UIError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
