import SimKernel

/// The apps of a workload, drawn once per run from the archetypes (stream: seed,
/// catalog, app index), with their global popularity. Shared read-only by every
/// device and thread.
public struct AppCatalog: Sendable {
    public var profiles: ContiguousArray<AppProfile> = []
    public var names: [String] = []
    /// The archetype of each app (an index into the workload's archetypes).
    public var archetype: [Int32] = []
    /// Popularity: Zipf over catalog rank (app 0 is the most popular).
    public var popularity: AliasTable

    static let catalogStream: UInt64 = 0xCA7A_10C0
    static let expiryStream: UInt64 = 0xE591_0E17

    public init(_ w: Workload) {
        let n = w.catalog.apps
        popularity = AliasTable(weights: (1...n).map { 1 / pow(Double($0), w.catalog.popularityZipfExponent) })
        let archetypes = w.catalog.archetypes
        let choice = AliasTable(weights: archetypes.map(\.share))
        profiles.reserveCapacity(n)
        let width = String(n).count
        for i in 0..<n {
            var g = Xoshiro256StarStar(seed: w.seed, Self.catalogStream, UInt64(i))
            let k = choice.sample(&g)
            let a = archetypes[k]
            profiles.append(Self.draw(a, &g))
            // Its own stream, so the draws above are those of catalogs before this key.
            var e = Xoshiro256StarStar(seed: w.seed, Self.expiryStream, UInt64(i))
            profiles[profiles.count - 1].endsTaskOnExpiry = e.nextUnit() < a.bgTaskEndsOnExpiryProbability
            archetype.append(Int32(k))
            let number = String(i + 1)
            names.append(a.name + "-" + String(repeating: "0", count: max(0, width - number.count)) + number)
        }
    }

    /// One app of archetype `a`.
    static func draw(_ a: Archetype, _ g: inout Xoshiro256StarStar) -> AppProfile {
        func ms(_ d: RealDistribution) -> SimTime { SimTime(seconds: max(0, d.sample(&g)) / 1_000) }
        func unit(_ d: RealDistribution) -> Double { min(1, max(0, d.sample(&g))) }
        var p = AppProfile()
        let activeMB = max(1, a.activeMB.sample(&g))
        // An app's resident memory is an Int32 of KiB (`AppState.resident`): a
        // footprint is at most 2 TiB, twice the largest RAM (`ram_mb` <= 1 TiB), so an
        // app drawn larger cannot run either way and the clamp changes no result.
        p.activeKB = min(AppProfile.maxFootprintKB, Int64(saturating: (activeMB * 1_024).rounded()))
        p.backgroundKB = Int64((Double(p.activeKB) * unit(a.backgroundShare)).rounded())
        p.suspendedKB = min(p.backgroundKB, Int64((Double(p.activeKB) * unit(a.suspendedShare)).rounded()))
        p.coldLaunch = ms(a.coldLaunchMs)
        p.cachedLaunch = SimTime(saturatingMicroseconds: Double(p.coldLaunch.microseconds) * a.cachedLaunchShare)
        p.stateRestore = ms(a.stateRestoreMs)
        p.warmLaunch = ms(a.warmLaunchMs)
        p.hotLaunch = ms(a.hotLaunchMs)
        p.enterBackgroundHandler = ms(a.enterBackgroundHandlerMs)
        p.bgTaskProbability = a.bgTaskProbability
        p.bgTaskMedian = SimTime(seconds: a.bgTaskMedianS)
        p.bgTaskSigma = a.bgTaskSigma
        let u = g.nextUnit()
        if u < a.modeAudio { p.mode = .audio }
        else if u < a.modeAudio + a.modeLocation { p.mode = .location }
        else if u < a.modeAudio + a.modeLocation + a.modeVoip { p.mode = .voip }
        p.modeActivityMedian = SimTime(seconds: a.modeActivityMedianS)
        p.modeActivitySigma = a.modeActivitySigma
        p.exitsOnSuspend = g.nextUnit() < a.exitsOnSuspendProbability
        let strategies = SaveStrategy.allCases.filter { (a.saveStrategy[$0] ?? 0) > 0 }
        let s = AliasTable(weights: strategies.map { a.saveStrategy[$0]! })
        p.save = strategies[s.sample(&g)]
        p.saveDuration = ms(a.saveMs)
        p.saveInterval = SimTime(seconds: a.saveIntervalS)
        p.unsavedEditsPerMinute = min(AppProfile.maxEditsPerMinute, max(0, a.unsavedEditsPerMin.sample(&g)))
        p.preservesUIState = g.nextUnit() < a.preservesUIStateProbability
        p.locationWakesPerDay = a.locationWakesPerDay
        p.voipPushesPerDay = p.mode == .voip ? a.voipPushesPerDay : 0
        p.silentPushesPerDay = a.silentPushesPerDay
        p.backgroundRefreshesPerDay = a.backgroundRefreshesPerDay
        p.prewarmsPerDay = a.prewarmsPerDay
        p.derivePrewarm(footprintShare: a.prewarmFootprintShare, savingShare: a.prewarmSavingShare)
        p.peakKB = min(AppProfile.maxFootprintKB, Int64(saturating: (Double(p.activeKB) * max(1, a.peakShare.sample(&g))).rounded()))
        return p
    }

    /// The profiles as they are on a device with `params`: apps fit the devices they
    /// run on (`DeviceParameters.appFitPct`), so an app whose peak (or active)
    /// footprint passes `appFitKB` has every footprint scaled down by the same factor
    /// (active, background, suspended, peak, prewarm), as an app that picks its
    /// assets by device would; the rest are as drawn. Issue 29: drawn without regard
    /// to the limit, 8.6 % of the default workload's launches failed at 2 GB.
    /// Shared storage when no app needs scaling.
    public func profiles(fittedTo params: DeviceParameters) -> ContiguousArray<AppProfile> {
        let fit = params.appFitKB
        guard profiles.contains(where: { max($0.activeKB, $0.peakKB) > fit }) else { return profiles }
        var out = profiles
        for i in out.indices {
            let top = max(out[i].activeKB, out[i].peakKB)
            guard top > fit else { continue }
            let s = Double(fit) / Double(top)
            func scaled(_ kb: Int64) -> Int64 { Int64((Double(kb) * s).rounded(.down)) }
            out[i].activeKB = scaled(out[i].activeKB)
            out[i].backgroundKB = scaled(out[i].backgroundKB)
            out[i].suspendedKB = scaled(out[i].suspendedKB)
            out[i].peakKB = scaled(out[i].peakKB)
            out[i].prewarmKB = scaled(out[i].prewarmKB)
        }
        return out
    }

    /// The catalog index of an app name, or nil.
    public func index(named name: String) -> Int? {
        // Names are "<archetype>-<number>"; the number is the index + 1. Found by bytes
        // (a Character search's cost: docs/performance.md, "Costs behind the code's shapes").
        guard let dash = name.utf8.lastIndex(of: UInt8(ascii: "-")), let k = Int(name[name.utf8.index(after: dash)...]),
              k >= 1, k <= names.count, names[k - 1].utf8.elementsEqual(name.utf8) else { return nil }
        return k - 1
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
