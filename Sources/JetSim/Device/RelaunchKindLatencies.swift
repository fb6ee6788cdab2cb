import SimKernel

/// The relaunch kinds the per-kind latency columns split (issue 12; docs/model.md,
/// "Relaunch kinds"). They partition relaunches: each relaunch is of
/// exactly one kind, so their histograms merged give every relaunch's (`total`).
public enum RelaunchKind: Int, Sendable, CaseIterable {
    /// Process created, files not in the page cache (`cold_relaunches` minus `cached_relaunches`).
    case cold
    /// Process created within `page_cache_window_s` of a kill (`cached_relaunches`).
    case cached
    /// Resumed from memory, nothing compressed (`warm_relaunches` minus decompressed and thawed).
    case resume
    /// Resumed after decompression (`decompressed_relaunches`).
    case decompressed
    /// Thawed from flash (`thawed_relaunches`).
    case thaw
    /// Still running (`hot_relaunches`).
    case hot

    /// Its name in CSV columns (`relaunch_<name>_p50_ms`) and in the shard state.
    public var name: String {
        switch self {
        case .cold: "cold"
        case .cached: "cached"
        case .resume: "resume"
        case .decompressed: "decompressed"
        case .thaw: "thaw"
        case .hot: "hot"
        }
    }
}

/// One latency histogram per relaunch kind. Fixed storage (six preallocated
/// histograms, no array of them), so recording never allocates and the runner can
/// swap a cell's set in and out of a device.
public struct RelaunchKindLatencies: Sendable, Equatable {
    public var cold = LatencyHistogram(), cached = LatencyHistogram(), resume = LatencyHistogram()
    public var decompressed = LatencyHistogram(), thaw = LatencyHistogram(), hot = LatencyHistogram()

    public init() {}

    /// The histogram of one kind.
    public subscript(_ k: RelaunchKind) -> LatencyHistogram {
        get {
            switch k {
            case .cold: cold
            case .cached: cached
            case .resume: resume
            case .decompressed: decompressed
            case .thaw: thaw
            case .hot: hot
            }
        }
        set {
            switch k {
            case .cold: cold = newValue
            case .cached: cached = newValue
            case .resume: resume = newValue
            case .decompressed: decompressed = newValue
            case .thaw: thaw = newValue
            case .hot: hot = newValue
            }
        }
    }

    /// Records one relaunch's latency under its kind. O(1), never allocates.
    @inlinable
    public mutating func record(_ latency: SimTime, _ k: RelaunchKind) {
        switch k {
        case .cold: cold.record(latency)
        case .cached: cached.record(latency)
        case .resume: resume.record(latency)
        case .decompressed: decompressed.record(latency)
        case .thaw: thaw.record(latency)
        case .hot: hot.record(latency)
        }
    }

    /// Every relaunch's latency: the six merged (exact, the same buckets: a relaunch
    /// is recorded under its kind only, not again in a histogram of all).
    public var total: LatencyHistogram {
        var h = cold
        h.merge(cached); h.merge(resume); h.merge(decompressed); h.merge(thaw); h.merge(hot)
        return h
    }

    /// Adds every value of `other`, kind by kind (exact).
    public mutating func merge(_ other: RelaunchKindLatencies) {
        cold.merge(other.cold); cached.merge(other.cached); resume.merge(other.resume)
        decompressed.merge(other.decompressed); thaw.merge(other.thaw); hot.merge(other.hot)
    }
}
