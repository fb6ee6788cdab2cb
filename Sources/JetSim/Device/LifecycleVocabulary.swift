/// The messages the system sends to an app's delegate, plus the expiration handler of
/// a background task.
public enum LifecycleMessage: UInt8, Sendable, CaseIterable {
    case didFinishLaunching, didBecomeActive, willResignActive, didEnterBackground
    case willEnterForeground, willTerminate, didReceiveMemoryWarning, expirationHandler

    public var name: String {
        switch self {
        case .didFinishLaunching: "didFinishLaunching"
        case .didBecomeActive: "didBecomeActive"
        case .willResignActive: "willResignActive"
        case .didEnterBackground: "didEnterBackground"
        case .willEnterForeground: "willEnterForeground"
        case .willTerminate: "willTerminate"
        case .didReceiveMemoryWarning: "didReceiveMemoryWarning"
        case .expirationHandler: "expirationHandler"
        }
    }
}

/// When an app saves its unsaved work.
public enum SaveStrategy: UInt8, Sendable, CaseIterable {
    case onResignActive, onEnterBackground, onTerminate, periodic, never

    public var name: String {
        switch self {
        case .onResignActive: "on-resign-active"
        case .onEnterBackground: "on-enter-background"
        case .onTerminate: "on-terminate"
        case .periodic: "periodic"
        case .never: "never"
        }
    }

    public init?(name: String) {
        guard let s = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = s
    }
}

/// Strategies an app saves with beside its drawn one (`AppProfile.saveAlso`): a set,
/// one bit per `SaveStrategy` but `never`, so strategies compose as real apps' do.
public struct SaveSet: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The set holding `s` alone (empty for `never`, which saves nothing).
    @inlinable @inline(__always) public init(_ s: SaveStrategy) { self.init(rawValue: s == .never ? 0 : 1 &<< s.rawValue) }

    /// Its strategies, in `SaveStrategy`'s order.
    public var strategies: [SaveStrategy] { SaveStrategy.allCases.filter { $0 != .never && contains(SaveSet($0)) } }
}

/// System events addressed to apps; held and coalesced per kind while an app is
/// suspended (seed 000), delivered at once to a running app.
public enum SystemEventKind: UInt8, Sendable, CaseIterable {
    case orientation, locale, notification, location, significantTimeChange

    /// The number of kinds: the fixed number of coalescing slots per app.
    public static let count = 5

    public var name: String {
        switch self {
        case .orientation: "orientation"
        case .locale: "locale"
        case .notification: "notification"
        case .location: "location"
        case .significantTimeChange: "significant-time-change"
        }
    }

    public init?(name: String) {
        guard let k = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = k
    }
}

/// Why the system launches an app into the background, or wakes it there (issue 14;
/// seed 000: "launched by the system if the app processes events in background or
/// monitors a significant location change"), and iOS 15's prewarming (`prewarm`).
public enum SystemWakeKind: UInt8, Sendable, CaseIterable {
    /// A significant location change (Core Location's significant-change service).
    case location
    /// A PushKit VoIP push (apps with the voip mode only).
    case voipPush
    /// A silent (content-available) remote notification.
    case silentPush
    /// Background app refresh (BGAppRefreshTask).
    case backgroundRefresh
    /// iOS 15 prewarming (Apple, "About the app launch sequence": "In iOS 15 and later,
    /// the system may, depending on device conditions, prewarm your app — launch
    /// nonrunning application processes to reduce the amount of time the user waits
    /// before the app is usable. Prewarming executes an app’s launch sequence up until,
    /// but not including, when main() calls UIApplicationMain(_:_:)."). Not a wake:
    /// the process is created and stops before main (`Device.prewarm`).
    case prewarm

    public var name: String {
        switch self {
        case .location: "location"
        case .voipPush: "voip-push"
        case .silentPush: "silent-push"
        case .backgroundRefresh: "background-refresh"
        case .prewarm: "prewarm"
        }
    }

    public init?(name: String) {
        guard let k = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = k
    }
}

