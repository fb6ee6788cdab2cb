import Foundation
import SimKernel
import Synchronization

/// Builds one device's inputs (class, installed apps, timeline) into reusable buffers,
/// from the synthetic user or a usage trace. Shared by the batch runner and `jetsim trace`.
public struct DeviceInputs {
    let plan: RunPlan
    let catalog: AppCatalog
    let classChoice: AliasTable
    /// Where the timelines come from (a scenario runs through `ScenarioRunner`).
    public let source: TimelineSource
    public internal(set) var timeline = Timeline()
    var scratch = ContiguousArray<UserAction>()
    public internal(set) var installed = ContiguousArray<Int32>()
    /// How long the current device runs: the workload's duration, or a replayed
    /// device's span (`UsageReplay.span`).
    public internal(set) var until = SimTime.zero
    /// Apps drawn for the current device: those with `seen[a] == epoch`.
    var seen = ContiguousArray<UInt32>()
    var epoch: UInt32 = 0
    /// The fallback for steep popularity, built the first time a device needs it.
    var tree: PopularityTree?
    /// Whether a policy of the run reads next uses (`EvictionPolicy.readsNextUse`):
    /// a replay computes them only then.
    let nextUses: Bool
    /// With `chunked`, a replayed device's timeline is fed to its runs chunk by chunk
    /// (`ReplayFeed`), not built here: `feeding` says the current device is, and its
    /// `until` is known once it has run (`ReplayFeed.until`).
    let feed: ReplayFeed?
    public internal(set) var feeding = false

    /// `chunked`: replayed devices are fed chunk by chunk (fleet runs); else their
    /// timelines are built whole (`jetsim trace`, `usage-stats`).
    public init(plan: RunPlan, catalog: AppCatalog, chunked: Bool = false) {
        self.plan = plan
        self.catalog = catalog
        classChoice = AliasTable(weights: plan.workload.deviceClasses.map(\.share))
        source = TimelineSource(plan)
        nextUses = plan.cells.contains { $0.policy.type.readsNextUse }
        feed = chunked && plan.usage != nil && plan.replayChunkRows > 0 ? ReplayFeed(chunkRows: plan.replayChunkRows) : nil
    }

    /// A generous bound on the apps a device installs (the 99.99th percentile of
    /// the installed-apps distribution, drawn), and on its timeline's length.
    var likelyMaxApps: Int {
        if let usage = plan.usage { return max(1, usage.maxAppCount) }
        var g = Xoshiro256StarStar(seed: plan.workload.seed, 0xB0D)
        var draws = (0..<10_000).map { _ in plan.workload.catalog.installedPerDevice.sample(&g) }
        draws.sort()
        // Saturating: an accepted distribution can draw past Int.max (fuzz: lognormal
        // median 1e12, sigma 20); the catalog's size bounds the result anyway.
        let n = Int(saturating: draws[9_998].rounded(.up))
        return min(catalog.drawn, max(1, n == .max ? n : n + 1)) + (catalog.profiles.count - catalog.drawn)
    }

    /// Twice the expected actions, for the tail; the reservation stops at
    /// `maxReservedActions` (a longer timeline grows as it needs), so a century of a
    /// very active user does not reserve gigabytes up front.
    var likelyMaxActions: Int {
        // A replayed row gives at most unlock, home, launch, home, lock.
        if let usage = plan.usage {
            let rows = (usage.firstDevice..<usage.endDevice).map { usage.rowCount(ofDevice: $0) }.max() ?? 0
            return min(Self.maxReservedActions, 5 * (feed == nil ? rows : min(rows, feed!.chunkRows)) + 16)
        }
        return min(Self.maxReservedActions, Int(saturating: 2 * plan.workload.expectedActionsPerDevice) + 256)
    }

    /// 2^20 actions: far above a default device-year, far below memory.
    static let maxReservedActions = 1 << 20

    /// Reserves room for a device of `apps` apps and `actions` timeline actions.
    mutating func reserve(apps: Int, actions: Int) {
        if let feed {
            feed.buffer.actions.reserveCapacity(actions)
            if nextUses {
                feed.buffer.nextUseAfter.reserveCapacity(actions)
                feed.buffer.firstUse.reserveCapacity(apps)
            }
        } else {
            timeline.actions.reserveCapacity(actions)
            timeline.nextUseAfter.reserveCapacity(actions)
            timeline.firstUse.reserveCapacity(apps)
        }
        scratch.reserveCapacity(actions / 2)
        installed.reserveCapacity(apps)
    }

    /// Fills the buffers for device `d`; returns its device class index.
    public mutating func build(device d: Int) -> Int {
        let device = UInt64(d)
        switch source {
        case .usage(let usage):
            feeding = feed != nil && ReplayFeed.fits(rows: usage.rowCount(ofDevice: d))
            if feeding, let feed {
                // Fed to each run chunk by chunk; its span is known at its end.
                usage.installedApps(device: d, catalog: catalog, map: plan.appMap, into: &installed)
                timeline.removeAll()
                feed.prepare(usage, device: d, appCount: installed.count, duration: plan.usageUntil ?? .never, nextUses: nextUses)
                until = plan.usageUntil ?? .zero
            } else if let fixed = plan.usageUntil {
                until = fixed
                usage.build(device: d, catalog: catalog, map: plan.appMap, duration: fixed, installed: &installed, timeline: &timeline,
                            nextUses: nextUses)
            } else {
                // One walk for the timeline and the span (`UsageReplay.span`).
                until = usage.build(device: d, catalog: catalog, map: plan.appMap, duration: .never, installed: &installed,
                                    timeline: &timeline, nextUses: nextUses) + UsageReplay.lockGap
            }
            return replayClass(usage.name(ofDevice: d))
        case .scenario(let sc):
            until = plan.workload.fleet.duration
            (installed, timeline) = TimelineSource.scenarioInputs(sc)
            return 0
        case .synthetic(let user):
            until = plan.workload.fleet.duration
            var g = Xoshiro256StarStar(seed: plan.workload.seed, device, 1)
            let classIndex = classChoice.sample(&g)
            chooseInstalled(device: device)
            user.generate(device: device, appCount: installed.count, duration: plan.workload.fleet.duration,
                          into: &timeline, scratch: &scratch)
            return classIndex
        }
    }

    /// A replayed device's class: drawn by the classes' shares from its id alone
    /// (`replayClassRule`), so the same device runs on the same class whatever the
    /// trace's order, the shard, the seed or the policy; one class: that one.
    func replayClass(_ id: String) -> Int {
        let classes = plan.workload.deviceClasses
        guard classes.count > 1 else { return 0 }
        let u = Double(SplitMix64.mix(FNV1a.hash(id.utf8) ^ Self.replayClassSalt) >> 11) * 0x1p-53
        let total = classes.reduce(0) { $0 + $1.share }
        var acc = 0.0
        for (i, c) in classes.enumerated() {
            acc += c.share / total
            if u < acc { return i }
        }
        // Rounding left u past the last share's end: the last class with a share.
        return classes.lastIndex { $0.share > 0 } ?? 0
    }

    /// Keeps the class draw apart from `--sample-devices`' hash of the same id.
    static let replayClassSalt: UInt64 = 0xC1A5_5E5D_0000_0001
    /// The rule as provenance and docs/cli.md give it.
    public static let replayClassRule = "a replayed device's class: the first whose cumulative share (shares normalised) exceeds u = SplitMix64.mix(FNV-1a 64 of its id's bytes XOR 0xC1A55E5D00000001) / 2^64 (53 bits)"

    /// Installs the device's apps: a popularity-weighted draw without replacement
    /// from the catalog; the draw order is the user's personal ranking.
    mutating func chooseInstalled(device: UInt64) {
        let w = plan.workload
        defer { if catalog.drawn < catalog.profiles.count { installNamed(device: device) } }
        let m = catalog.drawn
        var g = Xoshiro256StarStar(seed: w.seed, device, 2)
        let k = min(m, max(1, Int(saturating: w.catalog.installedPerDevice.sample(&g).rounded())))
        installed.removeAll(keepingCapacity: true)
        epoch &+= 1
        if seen.count != m || epoch == 0 {
            seen = ContiguousArray(repeating: 0, count: m)
            epoch = 1
        }
        if k * 2 <= m {
            // Rejection: a draw that repeats an app is drawn again, O(1) a draw while
            // the apps not yet drawn hold most of the weight. With steep popularity
            // (zipf exponent 5) they may hold almost none and this would loop for
            // ever, so the draws are bounded; past the bound the device goes on from
            // the apps it has by the sum tree (exact, O(log m) a draw, no loop that
            // waits on chance). The default workloads never reach it (golden tests).
            var budget = Self.rejectionBudget(k)
            while installed.count < k && budget > 0 {
                budget -= 1
                let a = catalog.popularity.sample(&g)
                if seen[a] != epoch {
                    seen[a] = epoch
                    installed.append(Int32(a))
                }
            }
            if installed.count < k { drawRestByTree(k, &g) }
            return
        }
        do {
            // Dense: Efraimidis-Spirakis keys u^(1/w), largest first, compared as
            // their logarithms log(u) / w (u^(1/w) underflows to 0 for the tail of a
            // steep popularity, which would rank it by index instead of by draw).
            var keyed: [(Double, Int32)] = []
            keyed.reserveCapacity(m)
            for a in 0..<m {
                let inverseWeight = pow(Double(a + 1), w.catalog.popularityZipfExponent)
                keyed.append((log(g.nextOpenUnit()) * inverseWeight, Int32(a)))
            }
            keyed.sort { $0.0 > $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
            for i in 0..<k { installed.append(keyed[i].1) }
        }
    }

    /// Draws the remaining installed apps (up to `k`) in proportion to popularity
    /// among those not drawn yet: the same law as rejection, continued exactly (a
    /// draw without replacement goes on from any prefix). The tree is put back as it
    /// was afterwards, node for node.
    mutating func drawRestByTree(_ k: Int, _ g: inout Xoshiro256StarStar) {
        let w = plan.workload
        if tree == nil { tree = PopularityTree(apps: catalog.drawn, exponent: w.catalog.popularityZipfExponent) }
        let e = epoch
        for a in installed { tree!.update(Int(a), seen, e) }
        while installed.count < k {
            guard let a = tree!.sample(g.nextUnit(), seen, e) else { break }
            seen[a] = e
            installed.append(Int32(a))
            tree!.update(a, seen, e)
        }
        for a in installed { tree!.update(Int(a), seen, nil) }
    }

    /// The named apps this device installs (each by its own draw, `installShare`),
    /// put into the user's ranking at their `userRank` (past the end: last; equal
    /// ranks in declaration order), the drawn apps keeping their order around them.
    mutating func installNamed(device: UInt64) {
        let c = catalog
        var order: [(rank: Int, j: Int)] = []
        for j in c.namedInstallShare.indices {
            var g = Xoshiro256StarStar(seed: plan.workload.seed, device, AppCatalog.namedStream, UInt64(j))
            if g.nextUnit() < c.namedInstallShare[j] { order.append((c.namedUserRank[j], j)) }
        }
        order.sort { $0.rank < $1.rank || ($0.rank == $1.rank && $0.j < $1.j) }
        var last = -1
        for (rank, j) in order {
            var at = min(rank - 1, installed.count)
            if at <= last { at = last + 1 }
            installed.insert(Int32(c.drawn + j), at: at)
            last = at
        }
    }

    /// Draws the rejection method may make for `k` apps before giving up on it.
    static func rejectionBudget(_ k: Int) -> Int { 64 * k + 1_024 }
}

extension TimelineSource {
    /// The source of a run plan: its usage trace if it has one, else its synthetic user.
    public init(_ plan: RunPlan) {
        if let usage = plan.usage { self = .usage(usage) } else { self = .synthetic(UserModel(plan.workload.user, seed: plan.workload.seed)) }
    }
}
