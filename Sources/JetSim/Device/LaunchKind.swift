// How a launch found the app: a fact the core records (relaunch latencies by kind,
// the trace), the lifecycle decides and a memory manager's resume reads.
/// How a launch found the app. jetsim's names, and Apple's and Android's terms for
/// each, are in docs/model.md ("Relaunch kinds"): Apple calls jetsim's `cached` a warm launch
/// and its `warm`, `hot` and `thaw` resumes.
public enum LaunchKind: UInt8, Sendable, CaseIterable {
    /// No process: created from scratch (didFinishLaunching).
    case cold
    /// Suspended in memory: thawed (and decompressed).
    case warm
    /// Still executing in the background.
    case hot
    /// Frozen: a resume whose pages come back from flash (XNU freezer, doc/vm/freezer.md).
    case thaw
    /// No process, but killed less than `page_cache_window_s` ago: created from
    /// scratch with its files still in the page cache, faster than cold (Apple's
    /// "warm launch", WWDC16 session 406: "launched and quit previously, and it's still
    /// sitting in the disk cache in the kernel").
    case cached

    public var name: String {
        switch self {
        case .cold: "cold"
        case .warm: "warm"
        case .hot: "hot"
        case .thaw: "thaw"
        case .cached: "cached"
        }
    }

    /// Whether the launch creates the process (didFinishLaunching). By a switch:
    /// written with `==` it stayed a call at every launch.
    @inlinable @inline(__always) public var createsProcess: Bool {
        switch self {
        case .cold, .cached: true
        case .warm, .thaw, .hot: false
        }
    }
}
