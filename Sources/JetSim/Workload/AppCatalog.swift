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

    /// Apps drawn from the archetypes (indices 0..<drawn); the named apps follow
    /// (`catalog.named_apps`, index drawn + j), outside the popularity draw.
    public var drawn = 0
    /// Each named app's install share and place in the users' rankings (by j).
    public var namedInstallShare: [Double] = []
    public var namedUserRank: [Int] = []
    /// The named apps' names, in declaration order.
    public var namedNames: ArraySlice<String> { names[drawn...] }

    static let catalogStream: UInt64 = 0xCA7A_10C0
    static let expiryStream: UInt64 = 0xE591_0E17
    /// A named app's profile draws (seed, stream, j) and its install draw (seed,
    /// device, stream, j): streams of their own, so the drawn apps and the devices'
    /// other draws are those of the catalog without named apps.
    static let namedStream: UInt64 = 0x4E41_4D45

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
        drawn = n
        for (j, x) in w.catalog.namedApps.enumerated() {
            profiles.append(Self.namedProfile(w, j))
            archetype.append(Int32(archetypes.firstIndex { $0.name == x.archetype } ?? 0))
            names.append(x.name)
            namedInstallShare.append(x.installShare)
            namedUserRank.append(x.userRank)
        }
    }

    /// Named app `j`'s profile, drawn from its own stream (seed, named stream, j).
    public static func namedProfile(_ w: Workload, _ j: Int) -> AppProfile {
        let x = w.catalog.namedApps[j]
        var g = Xoshiro256StarStar(seed: w.seed, Self.namedStream, UInt64(j))
        var p = Self.draw(x.profile, &g)
        p.endsTaskOnExpiry = g.nextUnit() < x.profile.bgTaskEndsOnExpiryProbability
        return p
    }

    /// Whether `name` has the form of a drawn app's (`ARCHETYPE-NUMBER`).
    public static func looksDrawn(_ name: String) -> Bool {
        guard let dash = name.utf8.lastIndex(of: UInt8(ascii: "-")) else { return false }
        let digits = name.utf8[name.utf8.index(after: dash)...]
        return !digits.isEmpty && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// The named apps whose declared footprint a device with `params` would scale
    /// (`profiles(fittedTo:)` scales drawn apps only): each name, its peak (or
    /// active) footprint and the fit, in KiB; and whether it is over the per-app
    /// limit too (then every launch of it fails on iOS: killed for the limit).
    public func namedOverFit(_ params: DeviceParameters) -> [(name: String, topKB: Int64, fitKB: Int64, overLimit: Bool)] {
        (drawn..<profiles.count).compactMap { i in
            let top = max(profiles[i].activeKB, profiles[i].peakKB)
            guard top > params.appFitKB else { return nil }
            return (names[i], top, params.appFitKB, profiles[i].activeKB > params.perAppLimitKB)
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
        p.saveAlso = a.saveAlso
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
        guard profiles[..<drawn].contains(where: { max($0.activeKB, $0.peakKB) > fit }) else { return profiles }
        var out = profiles
        // Named apps (past `drawn`) keep their declared footprints (`namedOverFit`).
        for i in 0..<drawn {
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
        if drawn < names.count, let j = names[drawn...].firstIndex(where: { $0.utf8.elementsEqual(name.utf8) }) { return j }
        // Names are "<archetype>-<number>"; the number is the index + 1. Found by bytes
        // (a Character search's cost: docs/performance.md, "Costs behind the code's shapes").
        guard let dash = name.utf8.lastIndex(of: UInt8(ascii: "-")), let k = Int(name[name.utf8.index(after: dash)...]),
              k >= 1, k <= drawn, names[k - 1].utf8.elementsEqual(name.utf8) else { return nil }
        return k - 1
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
