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

/// What covers the screen of a device: the lock, the app switcher, the power dialog, a
/// pending call, SMS or alert, and whether it is off. The one source of truth for what
/// the user can do next and for what each action does to the app in front: the
/// scenario parser refuses what `apply` refuses (`Scenario.parse`), the device
/// performs only what `apply` accepts and does what its `FrontEffect` says
/// (`Device.perform`), and usage statistics follow it (`UsageStats.appSessions`), so
/// none of them can disagree, whatever order interruptions, locks and answers come in.
///
/// It changes only through user actions, never through memory or policy, and it does
/// not hold the app in front (a kill can take that away; acceptance never depends on
/// it). The app in front is active exactly when nothing covers it (`covered`): seeds
/// 001 and 004, "an overlay will appear on top of your application... This state is
/// known as the inactive state". Each transition cites its seed (seed 003 is the table
/// of delegate messages per user action, seed 000 the interruptions).
public struct UIState: Sendable, Equatable {
    public enum Interruption: UInt8, Sendable { case none, call, sms, alert }

    public var locked = false
    public var switcherOpen = false
    public var powerDialog = false
    public var interruption: Interruption = .none
    public var poweredOff = false

    public init() {}

    /// Whether something is over the app in front (it is inactive, not active).
    @inlinable public var covered: Bool {
        locked || switcherOpen || powerDialog || interruption != .none
    }

    /// What an accepted action does to the app in front, besides covering or uncovering
    /// it (willResignActive when it becomes covered, didBecomeActive when it no longer
    /// is: `Device.perform`).
    public enum FrontEffect: Equatable, Sendable {
        /// Nothing beyond covering or uncovering.
        case none
        /// `launch APP`: the app in front (another) goes to the background, APP opens.
        case open(Int32)
        /// Home or an answered interruption: the app in front goes to the background.
        case toBackground
        /// `switcher-pick APP`: APP comes to the front (the one in front, or another).
        case pick(Int32)
        /// `switcher-remove APP`: APP is killed.
        case remove(Int32)
        /// Shutdown accepted: every app is terminated.
        case powerOff
    }

    /// Why `kind` cannot happen now, or nil if it can.
    /// Inlined into `apply`: every action of every device passes here, and the call
    /// returned its optional error (a `String` inside) through memory.
    @inline(__always)
    public func refusal(_ kind: UserAction.Kind) -> UIError? {
        if poweredOff && kind != .end {
            return UIError("the device is powered off; only 'end' may follow 'power-off'")
        }
        switch kind {
        case .launch, .switcher:
            return idleRefusal(kind)
        case .home:
            // Home is refused only on the lock screen; it closes the switcher and the
            // power dialog, and a pending interruption stays pending (seed 000: the app
            // goes to the background "when the user accepts the notification or
            // interruption, or clicks the Home button").
            if locked { return UIError("'home' while locked: expected 'unlock' first") }
        case .switcherPick, .switcherRemove:
            if !switcherOpen { return UIError("'\(kind.keyword)' needs the switcher open: expected 'switcher' first") }
            if powerDialog { return UIError("'\(kind.keyword)' while the power dialog is over the switcher: expected 'power-cancel' or 'power-off'") }
            if interruption != .none { return UIError("'\(kind.keyword)' during an interruption: expected 'ignore' or 'answer'") }
        case .lock:
            if locked { return UIError("'lock' when already locked") }
            if powerDialog { return UIError("'lock' while the power dialog is up: expected 'power-cancel' or 'power-off'") }
        case .unlock:
            if !locked { return UIError("'unlock' when not locked") }
        case .powerHold:
            // Over the switcher too (seed 003: the device offers to shut down).
            if powerDialog { return UIError("'power-hold' when the power dialog is already up") }
            if interruption != .none { return UIError("'power-hold' during an interruption: expected 'ignore' or 'answer'") }
        case .powerCancel:
            if !powerDialog { return UIError("'power-cancel' without 'power-hold' first") }
        case .powerOff:
            if !powerDialog { return UIError("'power-off' without 'power-hold' first") }
        case .call, .sms, .alert:
            // Over the switcher and the lock screen too; not over the power dialog.
            if interruption != .none { return UIError("an interruption is already pending: expected 'ignore' or 'answer'") }
            if powerDialog { return UIError("an interruption while the power dialog is up: expected 'power-cancel' or 'power-off'") }
        case .ignore:
            if interruption == .none { return UIError("'ignore' with no call, sms or alert pending") }
        case .answer:
            if interruption == .none { return UIError("'answer' with no call, sms or alert pending") }
        case .notify, .pressureWarning, .pressureCritical, .end, .systemWake:
            break
        }
        return nil
    }

    /// Applies `action` and says what it does to the app in front, or says why it
    /// cannot happen now (and changes nothing).
    @discardableResult
    public mutating func apply(_ action: UserAction) throws(UIError) -> FrontEffect {
        if let e = refusal(action.kind) { throw e }
        switch action.kind {
        case .launch:
            return .open(action.app)
        case .home:
            // Seed 003, "The user clicks the Home button": willResignActive,
            // didEnterBackground (from the power dialog or under a pending call the app
            // is inactive already: didEnterBackground alone).
            switcherOpen = false
            powerDialog = false
            return .toBackground
        case .switcher:
            switcherOpen = true
        case .switcherPick:
            switcherOpen = false
            return .pick(action.app)
        case .switcherRemove:
            return .remove(action.app)
        case .lock:
            locked = true
            switcherOpen = false
        case .unlock:
            locked = false
        case .powerHold:
            powerDialog = true
        case .powerCancel:
            powerDialog = false
        case .powerOff:
            self = UIState()
            poweredOff = true
            return .powerOff
        case .call, .sms, .alert:
            interruption = action.kind == .call ? .call : action.kind == .sms ? .sms : .alert
        case .ignore:
            interruption = .none
        case .answer:
            // Seed 000: the user taps the alert to deal with it, the app "moves into its
            // background state"; the call's app takes the front, closing the switcher.
            // Answering on the lock screen does not unlock the device: 'unlock' follows.
            interruption = .none
            switcherOpen = false
            return .toBackground
        case .notify, .pressureWarning, .pressureCritical, .end, .systemWake:
            break
        }
        return .none
    }

    /// Why a launch or the switcher cannot happen now. Takes the kind, not its
    /// keyword: the keyword (a `String`) is made only for a refusal, not for every
    /// launch a replay or the synthetic user performs.
    private func idleRefusal(_ kind: UserAction.Kind) -> UIError? {
        guard covered else { return nil }
        let what = kind.keyword
        if locked { return UIError("'\(what)' while locked: expected 'unlock' first") }
        if switcherOpen { return UIError("'\(what)' while the switcher is open: expected 'switcher-pick' or 'home'") }
        if powerDialog { return UIError("'\(what)' while the power dialog is up: expected 'power-cancel' or 'power-off'") }
        if interruption != .none { return UIError("'\(what)' during an interruption: expected 'ignore' or 'answer'") }
        return nil
    }
}

/// An action that makes no sense in the current UI state.
public struct UIError: Error, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
