import SimKernel

/// The priority scale of `EvictionCandidate.band`: XNU's jetsam bands
/// (apple-oss-distributions/xnu, bsd/sys/kern_memorystatus.h), which the memory manager
/// assigns (`Device.memoryBand`: XNU's rules in Memory/XNU/Bands.swift; the plain and
/// Android managers give the band of the lifecycle state alone). Declared here, with the
/// candidate that carries it, so policies read no memory manager's files.
public enum XNUBand {
    /// JETSAM_PRIORITY_IDLE.
    public static let idle: UInt8 = 0
    /// JETSAM_PRIORITY_AGING_BAND2 (apps leaving the front age here).
    public static let aging: UInt8 = 20
    /// JETSAM_PRIORITY_BACKGROUND: a background-task assertion, and the dock.
    public static let background: UInt8 = 30
    /// JETSAM_PRIORITY_PHONE: an active voip mode.
    public static let phone: UInt8 = 50
    /// JETSAM_PRIORITY_FREEZER (memorystatus_freeze_jetsam_band).
    public static let frozen: UInt8 = 75
    /// JETSAM_PRIORITY_FOREGROUND: the app in front (never a policy's candidate; the
    /// critical kills reach it after band 75 and before band 120, `xnuFallReclaim`).
    public static let foreground: UInt8 = 100
    /// JETSAM_PRIORITY_AUDIO_AND_ACCESSORY: audio or location playing, above foreground (100).
    public static let audioAndAccessory: UInt8 = 120
}

/// What the device tells a policy about a candidate: a resident app that is not in
/// front. Policies keep their own index from these updates; they never scan apps.
public struct EvictionCandidate: Sendable {
    /// `background` (still executing) or `suspended`.
    public var state: AppState
    /// The background mode whose activity is still going on (`none` otherwise).
    public var mode: BackgroundMode
    /// Memory the kill would free.
    public var residentKB: Int64
    /// When the user last left it (it was in use until then).
    public var lastUsed: SimTime
    /// Launches of this app on this device so far.
    public var launchCount: Int
    /// What the next launch costs if it is killed (cold, with state restoration)
    /// and if it is not (warm or hot).
    public var coldLaunchCost: SimTime
    public var residentLaunchCost: SimTime
    /// Unsaved edits a kill now would lose.
    public var unsavedEdits: Int
    /// Whether a cold relaunch restores the user's place.
    public var preservesUIState: Bool
    /// When the user will next bring it to the front (`SimTime.never` if not within
    /// the run). Only the oracle may look at this.
    public var nextUse: SimTime
    /// Whether this update is the app leaving the front.
    public var leftFront: Bool
    /// Whether it is the app the user was in before the current one (Android's
    /// PREVIOUS_APP_ADJ). The device keeps it (`AndroidState.previous`), the one owner.
    public var isPrevious: Bool
    /// Whether it executes background work in the background (a background task, or
    /// the run after a system launch or wake): Android's SERVICE_ADJ. An app in the
    /// background grace with no work and no mode is not one (Android gives it the
    /// previous or a cached adj).
    public var runsTask: Bool
    /// Its XNU jetsam band (`XNUBand`), as the device assigns it.
    public var band: UInt8
    /// The oom_score_adj ActivityManager's computeOomAdjLSP gives it before the cached
    /// slots and the timers (`DeviceCore.baseOomAdj`): perceptible 200, service 500,
    /// previous 700, and the first slot of its cached sequence, 900 with activities or
    /// 905 empty (`OomAdj.cachedEmptyMin`). `android-lmk` orders by it.
    public var oomAdj: Int16

    public init(state: AppState, mode: BackgroundMode = .none,
                residentKB: Int64, lastUsed: SimTime = .zero, launchCount: Int = 1,
                coldLaunchCost: SimTime = .zero, residentLaunchCost: SimTime = .zero, unsavedEdits: Int = 0,
                preservesUIState: Bool = true, nextUse: SimTime = .never, leftFront: Bool = false, isPrevious: Bool = false,
                runsTask: Bool? = nil, band: UInt8? = nil, oomAdj: Int16? = nil) {
        self.state = state
        self.mode = mode
        self.residentKB = residentKB
        self.lastUsed = lastUsed
        self.launchCount = launchCount
        self.coldLaunchCost = coldLaunchCost
        self.residentLaunchCost = residentLaunchCost
        self.unsavedEdits = unsavedEdits
        self.preservesUIState = preservesUIState
        self.nextUse = nextUse
        self.leftFront = leftFront
        self.isPrevious = isPrevious
        self.runsTask = runsTask ?? (state == .background && mode == .none)
        self.band = band ?? (state == .suspended ? XNUBand.idle : mode == .voip ? XNUBand.phone
            : mode == .none ? XNUBand.background : XNUBand.audioAndAccessory)
        self.oomAdj = oomAdj ?? (mode != .none ? Int16(OomAdj.perceptible) : self.runsTask ? Int16(OomAdj.service)
            : isPrevious ? Int16(OomAdj.previous) : Int16(OomAdj.cachedMin))
    }
}

/// Per-device inputs a policy may need besides the updates.
public struct PolicyContext: Sendable {
    /// The run's seed and the device index: the `random` policy's stream.
    public var seed: UInt64
    public var device: UInt64
    /// The workload's `policies:` section: each policy's own parameters
    /// (`context.policies[CostAware.self]`).
    public var policies: PolicySettings

    public init(seed: UInt64 = 1, device: UInt64 = 0, policies: PolicySettings = .init()) {
        self.seed = seed
        self.device = device
        self.policies = policies
    }
}

/// Choosing which app to kill, and only that: the device owns the kill loop (when to
/// kill, how much, and the foreground app as the last resort), as XNU separates
/// memorystatus policy from mechanism and libCacheSim separates eviction from the
/// cache.
///
/// A policy sees candidates only: resident apps that are not in front. The device
/// calls `update` when a candidate appears or one of its attributes changes, `remove`
/// when it stops being a candidate (it came to the front or was terminated). When it
/// needs memory it asks `hasCandidates`, then `victim()` (a pure query), then calls
/// `willEvict` with that app and terminates it (which removes it). Every operation
/// must be O(log n) or amortised O(1) in the number of candidates: no scans.
///
/// Adding a policy: one file with a type conforming to this protocol, and its line in
/// `PolicyRegistry.table`.
public protocol EvictionPolicy: SendableMetatype {
    /// The policy's own parameters, read from `policies.<sectionKey>` of the workload
    /// (`NoParameters`: none, and no section).
    associatedtype Parameters: PolicyParameters = NoParameters

    /// The name the CLI prints and accepts.
    static var name: String { get }
    /// One line saying what it kills first (`jetsim policies`).
    static var summary: String { get }
    /// The key of its parameters under `policies:` (default: the name with `_` for `-`).
    static var sectionKey: String { get }

    init()

    /// Forgets every candidate, ready for a device with `appCount` apps (indices
    /// 0..<appCount); the policy's parameters are `context.policies[Self.self]`.
    /// Keeps storage, so a reused policy allocates only to grow.
    mutating func reset(appCount: Int, context: PolicyContext)

    /// Adds `app` as a candidate, or records a change in its attributes.
    mutating func update(_ app: Int32, _ candidate: EvictionCandidate)

    /// Removes `app` from the candidates (no-op if it is not one).
    mutating func remove(_ app: Int32)

    /// Whether any candidate is left.
    var hasCandidates: Bool { get }

    /// The candidate to kill next; only when `hasCandidates`. A pure query: asking
    /// twice gives the same app and changes nothing.
    func victim() -> Int32

    /// The simulated time of the victims asked next (each reclaim loop says it before
    /// its first question). Default: nothing (no built-in policy reads the time; an
    /// external one of protocol 2 sends it).
    mutating func clock(_ now: SimTime)

    /// `app`'s process started (a launch from no process, a system launch, a
    /// prewarm): the cache's insertion, for policies that order by it (`fifo`).
    /// Before the app's first `update` as a candidate of that process. Default: nothing.
    mutating func processStarted(_ app: Int32)

    /// Whether `all` (on the command line, in `run.policies`) includes it. Baselines
    /// for reference (`mru`, `fifo`) say false: run only when named, so adding them
    /// changes no default output. Default true.
    static var inAll: Bool { get }

    /// The device is about to kill `app`, the one `victim()` named (it then removes
    /// it). For policies whose state follows their kills (cost-aware's inflation,
    /// random's stream); a no-op by default.
    mutating func willEvict(_ app: Int32)

    /// Bytes of per-app storage the policy's index holds (capacities).
    var stateBytes: Int { get }

    /// Whether `update` reads a candidate's costs: `launchCount`, `coldLaunchCost`,
    /// `residentLaunchCost`, `unsavedEdits`, `preservesUIState`. When false the device
    /// leaves them at zero instead of computing them on every update (a profile,
    /// a few loads, floating-point math per update: docs/performance.md, "Costs behind
    /// the code's shapes"). Default true; a policy that reads none of them says
    /// false.
    static var readsCosts: Bool { get }

    /// Whether `update` reads `isPrevious`. When true the device also updates the
    /// former previous app when the previous app changes (its adj drops from 700 to
    /// cached); other policies get no such update. Default false.
    static var readsPrevious: Bool { get }

    /// Whether `update` reads nothing of a candidate but its `band` (and whether it
    /// is one at all). When true the device passes the band alone (the other fields
    /// zero or default) and skips every other figure per update (its resident size
    /// with the compression credited, its mode, its previous-app mark). Default false.
    static var readsBandOnly: Bool { get }

    /// Whether the policy's index is the device's idle and frozen order
    /// (`Device.idleOrder`): `idleLists`' list 0 holds exactly the candidates in band
    /// 0 and list 1 those in band 75, each in the order it entered the band (appended
    /// on entry, kept while it stays, removed on leaving or `remove`), kept by
    /// `update` and `remove` alone. The device then reads that order from the policy
    /// instead of keeping a copy of its own. Default false.
    static var ordersIdleBands: Bool { get }

    /// The lists of `ordersIdleBands`; read only when that is true.
    var idleLists: MultiList { get }
    /// A run starts (`Device.beginRun`): a policy may make its storage unique once
    /// for the run's updates (`MultiList.beginRun`). Nothing copies the policy until
    /// `endRun`. Default: nothing.
    mutating func beginRun()
    /// The run that `beginRun` announced ended. Default: nothing.
    mutating func endRun()
    /// Whether `update` reads a candidate's `nextUse` (the oracle). When no policy of
    /// a run reads it, a replay does not compute the timeline's next uses (a pass
    /// over every action and an array as long). Default false.
    static var readsNextUse: Bool { get }
    /// For the device's invariant check (tests): whether the policy files candidate
    /// `app` where a candidate of `band` belongs (nil: it keeps no per-band lists, or
    /// it does). Default nil.
    func misfiled(_ app: Int32, band: UInt8) -> String?
}

extension EvictionPolicy {
    public static var sectionKey: String { String(name.map { $0 == "-" ? "_" : $0 }) }
    @inline(__always) public mutating func willEvict(_ app: Int32) {}
    @inline(__always) public mutating func processStarted(_ app: Int32) {}
    @inline(__always) public mutating func clock(_ now: SimTime) {}
    public static var inAll: Bool { true }
    @inline(__always) public static var readsCosts: Bool { true }
    @inline(__always) public static var readsPrevious: Bool { false }
    @inline(__always) public static var readsBandOnly: Bool { false }
    @inline(__always) public static var ordersIdleBands: Bool { false }
    public var idleLists: MultiList { preconditionFailure("\(Self.name) does not keep the idle order") }
    @inline(__always) public mutating func beginRun() {}
    @inline(__always) public mutating func endRun() {}
    @inline(__always) public static var readsNextUse: Bool { false }
    public func misfiled(_ app: Int32, band: UInt8) -> String? { nil }
}
