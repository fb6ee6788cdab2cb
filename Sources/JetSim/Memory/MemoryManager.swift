import SimKernel

// The one boundary between the lifecycle and a memory manager.
//
// A device runs one memory manager, chosen by its parameters (`MemoryManagerKind`): the
// plain model (no bands; kills only when a launch needs room: Plain/), XNU's
// memorystatus (bands, triggers, pressure, compressor, freezer: XNU/), Android's lmkd,
// zram and ActivityManager (Android/), or Fleet, which is Android's with its GC, swap
// and hot launch changed (Fleet/). Each is a value that owns its state and parameters
// (`PlainMemory`, `XNUMemory`, `AndroidMemory`) and answers the hooks of
// `MemoryManaging`; each hook takes what it needs of the core (`DeviceCore`), never
// the device, so a manager cannot kill: the hooks that may kill answer which reclaim
// is next (`ReclaimTrigger`), and the lifecycle runs it (Lifecycle/ReclaimLoop.swift).
// The core never calls a manager: where it needs a manager's answer (a candidate's
// band, a relaunch's cost) the caller passes it in.
//
// Dispatch is a switch on a tag (`MemoryManager`, below), one per hook, every arm
// explicit, not a protocol the device is generic over: the device is already
// specialised per policy and trace sink, and a third generic parameter would multiply
// the specialisations the build compiles (2 cores). Adding a manager: its folder with a
// type conforming to `MemoryManaging`, a case in `MemoryManagerKind` and in
// `DeviceParameters.memoryManager`, a stored property of `MemoryManager`, and the arm
// each switch below asks for (docs/extending.md).

/// The memory manager a device runs.
public enum MemoryManagerKind: UInt8, Sendable, CaseIterable {
    /// No bands: every idle app in one band, kills only when a launch needs room, down
    /// to the target (the model before XNU's; `xnu_bands: false`). Compression as
    /// configured.
    case plain
    /// XNU memorystatus (`os: ios`, the default).
    case xnu
    /// Android: lmkd, zram and ActivityManager (`os: android`).
    case android
    /// Fleet (ASPLOS 2024): Android's, with its fore/background-aware GC,
    /// runtime-guided swap and hot launch (`os: fleet`; Memory/Fleet/).
    case fleet
}

extension DeviceParameters {
    /// The memory manager these parameters select.
    @inlinable public var memoryManager: MemoryManagerKind {
        android.enabled ? (fleet.enabled ? .fleet : .android) : xnu.bands ? .xnu : .plain
    }

    /// Whether the OS prewarms apps: iOS 15 and later (`prewarming`) on XNU and the
    /// plain model; never Android. (Each manager's `prewarms` says the same.)
    public var prewarms: Bool {
        switch memoryManager {
        case .xnu, .plain: core.prewarming
        case .android, .fleet: false
        }
    }

    /// Whether the device runs XNU's idle-band daemons (a pool of `idle_daemons_mb`).
    public var runsIdleDaemons: Bool {
        switch memoryManager {
        case .xnu: xnu.idleDaemonsKB > 0
        case .plain, .android, .fleet: false
        }
    }

    /// The footprint an app may reach before its manager kills it for its size
    /// (`Device.appLimitKB`, which says why): the per-app limit on XNU and the plain
    /// model, none on Android and Fleet.
    public var appLimitKB: Int64 {
        switch memoryManager {
        case .xnu, .plain: core.perAppLimitKB
        case .android, .fleet: .max
        }
    }
}

/// What a reclaim is for: the triggers every manager may answer, and each manager's own.
enum ReclaimTrigger {
    /// Kill the policy's victims, any band, until available memory reaches the target
    /// (the plain model, XNU's critical level, a scripted spike).
    case untilAvailable(Int64)
    /// One app, for a reason: the app in front that does not fit (growth, a launch that
    /// finds no room, a spike with nothing else left) or is over a limit.
    case app(Int32, KillReason)
    /// XNU memorystatus's own (Memory/XNU/XNUMemory.swift).
    case xnu(XNUTrigger)
    /// Android's lmkd and ActivityManager's own (Memory/Android/AndroidMemory.swift).
    case android(AndroidTrigger)
}

/// Where a manager's sequence of reclaims is between the lifecycle's questions
/// (`reclaimAfterFall`, `reclaimForRoom`, ...): the hook's step (0 at the start), and
/// an outer step for a sequence made of others (the idle daemons' relaunch: room, then
/// a fall of memory).
struct ReclaimSequence {
    var step: UInt8 = 0
    var outer: UInt8 = 0
}

/// What a memory manager answers: the hooks the lifecycle calls (through
/// `MemoryManager`'s switch), each from one place. A hook is O(1) unless its manager
/// acts. No defaults: a new manager answers every hook, so none gets another's
/// behaviour without a word from the compiler.
protocol MemoryManaging {
    /// The device's policy and trace sink: a manager is generic over them as the device
    /// is, so its functions are specialised and inlined as the device's own.
    associatedtype Policy: EvictionPolicy
    associatedtype Trace: TraceSink
    typealias Core = DeviceCore<Policy, Trace>

    /// Whether the idle- and frozen-band order is kept (`DeviceCore.idleOrder`): only
    /// managers that read it (XNU's reaper, freezer and sustained-pressure kills;
    /// Android's cached-process cap) pay for it per event.
    static var keepsIdleOrder: Bool { get }

    // MARK: Setup
    /// Takes its parameters from the device's (when they are set).
    mutating func configure(_ p: DeviceParameters)
    /// Its state for a run of the core's apps; `runs`: whether it is the manager the
    /// device runs (the others only empty their state).
    mutating func reset(_ core: inout Core, runs: Bool)
    /// Sizes its buffers for `n` apps, so that resets up to that size never allocate.
    mutating func reserve(apps n: Int)
    /// Bytes of per-app state it holds (array capacities): part of `Device.stateBytes`.
    var stateBytes: Int { get }

    // MARK: Time
    /// Simulated time reached `now` at the top of an event, before it acts.
    mutating func timePassed(_ core: inout Core, _ now: SimTime)
    /// The end of an event: the manager's own timers it asked for, scheduled now that
    /// the scheduler is at hand.
    mutating func eventEnded(_ core: inout Core, _ s: inout Scheduler<DeviceEvent>)
    /// One of its own timers fired (`DeviceEvent.Kind.isDeviceTimer`): its reclaims, one
    /// question at a time; a stale timer asks for none.
    mutating func reclaimOnTimer(_ core: inout Core, _ kind: DeviceEvent.Kind, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger?

    // MARK: The lifecycle's changes
    /// An app is being launched by its user, before room is made. Returns an app whose
    /// band may have changed (XNU: the one the dock let go), or -1.
    mutating func appLaunching(_ core: inout Core, _ app: Int32, _ now: SimTime) -> Int32
    /// An app entered the background.
    mutating func appEnteredBackground(_ core: inout Core, _ app: Int32, _ now: SimTime,
                                             _ s: inout Scheduler<DeviceEvent>)
    /// An app just left the front and is a candidate: one reclaim at most.
    mutating func reclaimAfterLeavingFront(_ core: inout Core, _ app: Int32, _ now: SimTime) -> ReclaimTrigger?
    /// An app was suspended.
    mutating func appSuspended(_ core: inout Core, _ app: Int32, _ now: SimTime)
    /// A suspended app resumes (a user's launch or a system wake): the swap-in it waits
    /// for, and what a part-compressed app had compressed (0 otherwise).
    mutating func appResuming(_ core: inout Core, _ app: Int32, compressed: Bool, frozen: Bool,
                                    _ now: SimTime) -> (swapIn: SimTime, compressedKB: Int64)
    /// An app exits (any termination), before its record is reset.
    mutating func appExited(_ core: inout Core, _ app: Int32, _ now: SimTime)
    /// A user's launch completed with `latency`.
    mutating func appLaunched(_ core: inout Core, _ app: Int32, _ kind: LaunchKind, relaunch: Bool,
                                    latency: SimTime)
    /// The app's marks that outlive its process (XNU: the dock's).
    var marksKeptOnExit: MemoryFlags { get }

    // MARK: The reclaims it asks for
    //
    // A manager never kills: each question below is asked again until it answers nil,
    // the reclaim loop running each trigger it answers; `ReclaimSequence` is where the
    // manager's sequence is between questions. Each trigger's condition is read when
    // it is asked, after the reclaims before it: the kills and their order are those of
    // the sequence written as calls.
    /// Available memory fell (a launch, a wake, a prewarm, growth).
    mutating func reclaimAfterFall(_ core: inout Core, _ q: inout ReclaimSequence, _ now: SimTime) -> ReclaimTrigger?
    /// Memory or a band changed (a suspension, a band change).
    mutating func reclaimAfterChange(_ core: inout Core, _ q: inout ReclaimSequence, _ now: SimTime) -> ReclaimTrigger?
    /// A launch, wake or growth step needs `needKB` more (the app is `core.launching`).
    mutating func reclaimForRoom(_ core: inout Core, needKB: Int64, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger?

    // MARK: The reclaim loop's picks
    /// A reclaim starts: the trigger's loop state (a walk's start, a budget).
    mutating func startReclaim(_ core: inout Core, _ trigger: ReclaimTrigger) -> ReclaimCursor
    /// The next action of a reclaim for `trigger`.
    mutating func pickReclaimAction(_ core: inout Core, _ trigger: ReclaimTrigger, _ c: inout ReclaimCursor,
                                          _ now: SimTime) -> ReclaimAction
    /// Before a kill of a reclaim.
    mutating func reclaimWillKill(_ core: inout Core, _ trigger: ReclaimTrigger, _ now: SimTime)
    /// A reclaim's `.spare`.
    mutating func reclaimSpare(_ core: inout Core, _ app: Int32)
    /// A reclaim's `.killOwnProcess`.
    mutating func reclaimOwnProcess(_ core: inout Core, _ now: SimTime)
    /// After a kill of a reclaim.
    mutating func reclaimKilled(_ core: inout Core, _ trigger: ReclaimTrigger, _ reason: KillReason, _ now: SimTime)

    // MARK: What the lifecycle and the policy read
    /// The band a candidate has now, as the policy sees it.
    func band(_ core: Core, _ app: Int32, _ now: SimTime) -> UInt8
    /// What an app holds resident now.
    func residentNowKB(_ core: Core, _ app: Int32) -> Int64
    /// What of its suspended footprint an app leaves on flash (XNU's on-demand thaw).
    func onFlashKB(_ core: Core, _ app: Int32) -> Int64
    /// The suspended footprint an app can hold in RAM, uncompressed.
    func suspendedPlainKB(_ core: Core, _ app: Int32) -> Int64
    /// What a user's resume of a suspended app (`warm`, or `thaw` from flash) waits for.
    func resumeLatency(_ core: Core, _ app: Int32, _ kind: LaunchKind, compressed: Bool, compressedKB: Int64?,
                             swapIn: SimTime) -> SimTime
    /// What a suspended candidate's relaunch would cost if it is not killed (not a
    /// prewarmed one's: `candidate` reads that from the core).
    func suspendedLaunchCost(_ core: Core, _ app: Int32) -> SimTime
    /// No longer a candidate (in front, or terminated).
    mutating func removeCandidate(_ core: inout Core, _ app: Int32)
    /// Whether the OS prewarms apps (iOS 15 and later, `prewarming`; never Android).
    func prewarms(_ p: CoreParameters) -> Bool
    /// Memory it holds outside the apps (XNU's idle-band daemons), for the ledger.
    var residentOutsideAppsKB: Int64 { get }
    /// Checks its accounting against the app records (tests, scenarios, traces).
    func checkInvariant(_ core: Core)
}

/// The device's memory manager: the tag of the one it runs, and each manager's value.
/// Every hook is a switch on the tag with one arm per manager (Fleet is Android's value
/// with Fleet's parameters).
struct MemoryManager<Policy: EvictionPolicy, Trace: TraceSink> {
    typealias Core = DeviceCore<Policy, Trace>
    var kind = MemoryManagerKind.xnu
    var plain = PlainMemory<Policy, Trace>()
    var xnu = XNUMemory<Policy, Trace>()
    var android = AndroidMemory<Policy, Trace>()

    init() { configure(DeviceParameters()) }

    mutating func configure(_ p: DeviceParameters) {
        kind = p.memoryManager
        plain.configure(p)
        xnu.configure(p)
        android.configure(p)
    }

    /// Every manager's state for a run of the core's apps (only the one that runs sizes its lists).
    mutating func reset(_ core: inout Core) {
        let runs: (plain: Bool, xnu: Bool, android: Bool) = switch kind {
        case .plain: (true, false, false)
        case .xnu: (false, true, false)
        case .android, .fleet: (false, false, true)
        }
        plain.reset(&core, runs: runs.plain)
        xnu.reset(&core, runs: runs.xnu)
        android.reset(&core, runs: runs.android)
    }

    /// The device's parameters: the core's knobs with each manager's own.
    func parameters(_ core: CoreParameters) -> DeviceParameters {
        DeviceParameters(core: core, xnu: xnu.params, android: android.params, fleet: android.fleet)
    }

    /// XNU's idle-band daemons (the other managers run none: an empty pool).
    var idleDaemons: IdleDaemonPool { xnu.idleDaemons }

    /// A run starts (and ends): Android's reclaim order is made unique once for all
    /// its events, as the core's lists are (`MultiList.beginRun`).
    @inline(__always) mutating func beginRun() { android.state.uncompressed.beginRun() }
    @inline(__always) mutating func endRun() { android.state.uncompressed.endRun() }

    /// What compressed apps keep resident now, on the manager that runs.
    var compressorKB: Int64 {
        switch kind {
        case .plain: plain.compressor.pool.kb
        case .xnu: xnu.compressor.pool.kb
        case .android, .fleet: android.pool.kb
        }
    }

    /// Sizes every manager's buffers for `n` apps (a device may run each in turn).
    mutating func reserve(apps n: Int) {
        plain.reserve(apps: n)
        xnu.reserve(apps: n)
        android.reserve(apps: n)
    }

    /// The running manager's per-app state (array capacities).
    var stateBytes: Int {
        switch kind {
        case .plain: plain.stateBytes
        case .xnu: xnu.stateBytes
        case .android, .fleet: android.stateBytes
        }
    }

    @inline(__always) mutating func timePassed(_ core: inout Core, _ now: SimTime) {
        switch kind {
        case .plain: plain.timePassed(&core, now)
        case .xnu: xnu.timePassed(&core, now)
        case .android, .fleet: android.timePassed(&core, now)
        }
    }

    @inline(__always) mutating func eventEnded(_ core: inout Core, _ s: inout Scheduler<DeviceEvent>) {
        switch kind {
        case .plain: plain.eventEnded(&core, &s)
        case .xnu: xnu.eventEnded(&core, &s)
        case .android, .fleet: android.eventEnded(&core, &s)
        }
    }

    @inline(__always) mutating func reclaimOnTimer(_ core: inout Core, _ k: DeviceEvent.Kind, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger? {
        switch kind {
        case .plain: plain.reclaimOnTimer(&core, k, &q, now)
        case .xnu: xnu.reclaimOnTimer(&core, k, &q, now)
        case .android, .fleet: android.reclaimOnTimer(&core, k, &q, now)
        }
    }

    @inline(__always) mutating func appLaunching(_ core: inout Core, _ app: Int32, _ now: SimTime) -> Int32 {
        switch kind {
        case .plain: plain.appLaunching(&core, app, now)
        case .xnu: xnu.appLaunching(&core, app, now)
        case .android, .fleet: android.appLaunching(&core, app, now)
        }
    }

    @inline(__always) mutating func appEnteredBackground(_ core: inout Core, _ app: Int32, _ now: SimTime,
                                                               _ s: inout Scheduler<DeviceEvent>) {
        switch kind {
        case .plain: plain.appEnteredBackground(&core, app, now, &s)
        case .xnu: xnu.appEnteredBackground(&core, app, now, &s)
        case .android, .fleet: android.appEnteredBackground(&core, app, now, &s)
        }
    }

    @inline(__always) mutating func reclaimAfterLeavingFront(_ core: inout Core, _ app: Int32,
                                                                   _ now: SimTime) -> ReclaimTrigger? {
        switch kind {
        case .plain: plain.reclaimAfterLeavingFront(&core, app, now)
        case .xnu: xnu.reclaimAfterLeavingFront(&core, app, now)
        case .android, .fleet: android.reclaimAfterLeavingFront(&core, app, now)
        }
    }

    @inline(__always) mutating func appSuspended(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        switch kind {
        case .plain: plain.appSuspended(&core, app, now)
        case .xnu: xnu.appSuspended(&core, app, now)
        case .android, .fleet: android.appSuspended(&core, app, now)
        }
    }

    @inline(__always) mutating func appResuming(_ core: inout Core, _ app: Int32, compressed: Bool, frozen: Bool,
                                                      _ now: SimTime) -> (swapIn: SimTime, compressedKB: Int64) {
        switch kind {
        case .plain: plain.appResuming(&core, app, compressed: compressed, frozen: frozen, now)
        case .xnu: xnu.appResuming(&core, app, compressed: compressed, frozen: frozen, now)
        case .android, .fleet: android.appResuming(&core, app, compressed: compressed, frozen: frozen, now)
        }
    }

    @inline(__always) mutating func appExited(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        switch kind {
        case .plain: plain.appExited(&core, app, now)
        case .xnu: xnu.appExited(&core, app, now)
        case .android, .fleet: android.appExited(&core, app, now)
        }
    }

    @inline(__always) mutating func appLaunched(_ core: inout Core, _ app: Int32, _ k: LaunchKind, relaunch: Bool,
                                                      latency: SimTime) {
        switch kind {
        case .plain: plain.appLaunched(&core, app, k, relaunch: relaunch, latency: latency)
        case .xnu: xnu.appLaunched(&core, app, k, relaunch: relaunch, latency: latency)
        case .android, .fleet: android.appLaunched(&core, app, k, relaunch: relaunch, latency: latency)
        }
    }

    @inline(__always) var marksKeptOnExit: MemoryFlags {
        switch kind {
        case .plain: plain.marksKeptOnExit
        case .xnu: xnu.marksKeptOnExit
        case .android, .fleet: android.marksKeptOnExit
        }
    }

    @inline(__always) mutating func reclaimAfterFall(_ core: inout Core, _ q: inout ReclaimSequence,
                                                           _ now: SimTime) -> ReclaimTrigger? {
        switch kind {
        case .plain: plain.reclaimAfterFall(&core, &q, now)
        case .xnu: xnu.reclaimAfterFall(&core, &q, now)
        case .android, .fleet: android.reclaimAfterFall(&core, &q, now)
        }
    }

    @inline(__always) mutating func reclaimAfterChange(_ core: inout Core, _ q: inout ReclaimSequence,
                                                             _ now: SimTime) -> ReclaimTrigger? {
        switch kind {
        case .plain: plain.reclaimAfterChange(&core, &q, now)
        case .xnu: xnu.reclaimAfterChange(&core, &q, now)
        case .android, .fleet: android.reclaimAfterChange(&core, &q, now)
        }
    }

    @inline(__always) mutating func reclaimForRoom(_ core: inout Core, needKB: Int64, _ q: inout ReclaimSequence,
                                       _ now: SimTime) -> ReclaimTrigger? {
        switch kind {
        case .plain: plain.reclaimForRoom(&core, needKB: needKB, &q, now)
        case .xnu: xnu.reclaimForRoom(&core, needKB: needKB, &q, now)
        case .android, .fleet: android.reclaimForRoom(&core, needKB: needKB, &q, now)
        }
    }

    @inline(__always) mutating func startReclaim(_ core: inout Core, _ trigger: ReclaimTrigger) -> ReclaimCursor {
        switch kind {
        case .plain: plain.startReclaim(&core, trigger)
        case .xnu: xnu.startReclaim(&core, trigger)
        case .android, .fleet: android.startReclaim(&core, trigger)
        }
    }

    @inline(__always) mutating func pickReclaimAction(_ core: inout Core, _ trigger: ReclaimTrigger,
                                                            _ c: inout ReclaimCursor, _ now: SimTime) -> ReclaimAction {
        switch kind {
        case .plain: plain.pickReclaimAction(&core, trigger, &c, now)
        case .xnu: xnu.pickReclaimAction(&core, trigger, &c, now)
        case .android, .fleet: android.pickReclaimAction(&core, trigger, &c, now)
        }
    }

    @inline(__always) mutating func reclaimWillKill(_ core: inout Core, _ trigger: ReclaimTrigger, _ now: SimTime) {
        switch kind {
        case .plain: plain.reclaimWillKill(&core, trigger, now)
        case .xnu: xnu.reclaimWillKill(&core, trigger, now)
        case .android, .fleet: android.reclaimWillKill(&core, trigger, now)
        }
    }

    @inline(__always) mutating func reclaimSpare(_ core: inout Core, _ app: Int32) {
        switch kind {
        case .plain: plain.reclaimSpare(&core, app)
        case .xnu: xnu.reclaimSpare(&core, app)
        case .android, .fleet: android.reclaimSpare(&core, app)
        }
    }

    @inline(__always) mutating func reclaimOwnProcess(_ core: inout Core, _ now: SimTime) {
        switch kind {
        case .plain: plain.reclaimOwnProcess(&core, now)
        case .xnu: xnu.reclaimOwnProcess(&core, now)
        case .android, .fleet: android.reclaimOwnProcess(&core, now)
        }
    }

    @inline(__always) mutating func reclaimKilled(_ core: inout Core, _ trigger: ReclaimTrigger, _ reason: KillReason,
                                                        _ now: SimTime) {
        switch kind {
        case .plain: plain.reclaimKilled(&core, trigger, reason, now)
        case .xnu: xnu.reclaimKilled(&core, trigger, reason, now)
        case .android, .fleet: android.reclaimKilled(&core, trigger, reason, now)
        }
    }

    @inline(__always) func band(_ core: Core, _ app: Int32, _ now: SimTime) -> UInt8 {
        switch kind {
        case .plain: plain.band(core, app, now)
        case .xnu: xnu.band(core, app, now)
        case .android, .fleet: android.band(core, app, now)
        }
    }

    @inline(__always) func residentNowKB(_ core: Core, _ app: Int32) -> Int64 {
        switch kind {
        case .plain: plain.residentNowKB(core, app)
        case .xnu: xnu.residentNowKB(core, app)
        case .android, .fleet: android.residentNowKB(core, app)
        }
    }

    @inline(__always) func onFlashKB(_ core: Core, _ app: Int32) -> Int64 {
        switch kind {
        case .plain: plain.onFlashKB(core, app)
        case .xnu: xnu.onFlashKB(core, app)
        case .android, .fleet: android.onFlashKB(core, app)
        }
    }

    @inline(__always) func suspendedPlainKB(_ core: Core, _ app: Int32) -> Int64 {
        switch kind {
        case .plain: plain.suspendedPlainKB(core, app)
        case .xnu: xnu.suspendedPlainKB(core, app)
        case .android, .fleet: android.suspendedPlainKB(core, app)
        }
    }

    @inline(__always) func resumeLatency(_ core: Core, _ app: Int32, _ k: LaunchKind, compressed: Bool,
                                               compressedKB: Int64?, swapIn: SimTime) -> SimTime {
        switch kind {
        case .plain: plain.resumeLatency(core, app, k, compressed: compressed, compressedKB: compressedKB, swapIn: swapIn)
        case .xnu: xnu.resumeLatency(core, app, k, compressed: compressed, compressedKB: compressedKB, swapIn: swapIn)
        case .android, .fleet: android.resumeLatency(core, app, k, compressed: compressed, compressedKB: compressedKB, swapIn: swapIn)
        }
    }

    @inline(__always) mutating func removeCandidate(_ core: inout Core, _ app: Int32) {
        switch kind {
        case .plain: plain.removeCandidate(&core, app)
        case .xnu: xnu.removeCandidate(&core, app)
        case .android, .fleet: android.removeCandidate(&core, app)
        }
    }

    @inline(__always) func prewarms(_ p: CoreParameters) -> Bool {
        switch kind {
        case .plain: plain.prewarms(p)
        case .xnu: xnu.prewarms(p)
        case .android, .fleet: android.prewarms(p)
        }
    }

    var residentOutsideAppsKB: Int64 {
        switch kind {
        case .plain: plain.residentOutsideAppsKB
        case .xnu: xnu.residentOutsideAppsKB
        case .android, .fleet: android.residentOutsideAppsKB
        }
    }

    func checkInvariant(_ core: Core) {
        switch kind {
        case .plain: plain.checkInvariant(core)
        case .xnu: xnu.checkInvariant(core)
        case .android, .fleet: android.checkInvariant(core)
        }
    }

    // The shared functions of Candidates.swift and MemoryWarnings.swift, on the
    // manager that runs (they read its bands and costs).

    /// Out of line (one function per policy and trace, each manager's body inlined in
    /// its arm), so its callers stay small.
    mutating func refreshCandidate(_ core: inout Core, _ app: Int32, _ now: SimTime, leftFront: Bool = false) {
        switch kind {
        case .plain: plain.refreshCandidate(&core, app, now, leftFront: leftFront)
        case .xnu: xnu.refreshCandidate(&core, app, now, leftFront: leftFront)
        case .android, .fleet: android.refreshCandidate(&core, app, now, leftFront: leftFront)
        }
    }

    /// `MemoryManaging.refreshCandidateIfBandMoved` on the manager that runs: the
    /// band's test inline, the refresh out of line.
    @inline(__always) mutating func refreshCandidateIfBandMoved(_ core: inout Core, _ app: Int32, _ now: SimTime) {
        if Policy.readsBandOnly && Policy.ordersIdleBands && band(core, app, now) == core.apps[Int(app)].band { return }
        refreshCandidate(&core, app, now)
    }

    func candidate(_ core: Core, _ app: Int32) -> EvictionCandidate {
        switch kind {
        case .plain: plain.candidate(core, app)
        case .xnu: xnu.candidate(core, app)
        case .android, .fleet: android.candidate(core, app)
        }
    }

    mutating func sendMemoryWarnings(_ core: inout Core, _ now: SimTime) {
        switch kind {
        case .plain: plain.sendMemoryWarnings(&core, now)
        case .xnu: xnu.sendMemoryWarnings(&core, now)
        case .android, .fleet: android.sendMemoryWarnings(&core, now)
        }
    }
}
