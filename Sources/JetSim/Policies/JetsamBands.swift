import SimKernel

/// `jetsam-bands`: XNU memorystatus order. Candidates sit in the priority bands the
/// device assigns (`XNUBand`, `EvictionCandidate.band`); victims come from the lowest
/// non-empty band, and within a band the app that entered it first goes first (XNU
/// appends a process to its band's list on entry and kills from the head). The
/// foreground band (100), ordered by footprint in XNU, is the device's last resort
/// and never reaches a policy.
///
/// Bands (apple-oss-distributions/xnu, bsd/sys/kern_memorystatus.h):
/// | band | priority | who |
/// |---|---|---|
/// | idle | 0 | suspended or idle in the background, not in the dock |
/// | aging (AGING_BAND2) | 20 | the first 2 s after leaving the front |
/// | background | 30 | a background-task assertion; the dock's idle apps |
/// | phone | 50 | an active voip mode |
/// | freezer | 75 | frozen apps |
/// | audio-and-accessory | 120 | an active audio or location mode |
///
/// Index: one FIFO list per band. O(1) per update and kill.
public struct JetsamBands: EvictionPolicy {
    public static let name = "jetsam-bands"
    /// Reads no costs from a candidate (`EvictionPolicy.readsCosts`).
    public static var readsCosts: Bool { false }
    /// Reads only the band (`EvictionPolicy.readsBandOnly`).
    public static var readsBandOnly: Bool { true }
    public static let summary = "XNU memorystatus: the lowest priority band first, first in first out within it"

    /// Band priorities, lowest first.
    public static let bandPriorities: [Int] = [0, 20, 30, 50, 75, 120]
    static let count = 6
    /// Its lists are the device's idle order (`EvictionPolicy.ordersIdleBands`): band
    /// 0 is list 0, band 75 list 1 and band 20 list 2 (`list(of:)`), so `Device.idleOrder`
    /// reads them.
    public static var ordersIdleBands: Bool { true }
    /// Yielded in place: the freezer, reaper and demotion loops walk it, and a copy
    /// cost a retain and a release per read.
    public var idleLists: MultiList { _read { yield bands } }

    /// One list per band; `list(of:)` maps a band to its list, `list(rank:)` the
    /// bands from the lowest priority up to theirs.
    var bands = MultiList(lists: 6)

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) { bands.reset(appCount: appCount) }

    /// A run holds the lists (`MultiList.beginRun`).
    public mutating func beginRun() { bands.beginRun() }
    public mutating func endRun() { bands.endRun() }

    /// The list of a band priority (a priority between two listed ones goes with the
    /// lower): 0 -> 0, 20 -> 2, 30 -> 3, 50 -> 4, 75 -> 1, 120 -> 5 (band 75 second,
    /// for `idleLists`).
    @inline(__always)
    /// A candidate sits in its stored band's list (the device's invariant check).
    public func misfiled(_ app: Int32, band: UInt8) -> String? {
        let have = bands.list(of: app), want = Self.list(of: band)
        return have == want ? nil : "app \(app) is in band list \(have), its band \(band) is list \(want)"
    }

    static func list(of band: UInt8) -> Int {
        switch band {
        case ..<20: 0
        case ..<30: 2
        case ..<50: 3
        case ..<75: 4
        case ..<120: 1
        default: 5
        }
    }

    /// The list of the band with the `r`-th lowest priority (`bandPriorities[r]`).
    @inline(__always)
    static func list(rank r: Int) -> Int { r == 0 ? 0 : r <= 3 ? r + 1 : r == 4 ? 1 : 5 }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        let b = Self.list(of: c.band)
        // Entering a band (or re-entering it) appends; staying in it keeps the place.
        if bands.list(of: app) != b { bands.append(app, to: b) }
    }

    @inline(__always) public mutating func remove(_ app: Int32) { bands.remove(app) }

    public var stateBytes: Int { bands.stateBytes }

    public var hasCandidates: Bool {
        for b in 0..<Self.count where bands.head(b) >= 0 { return true }
        return false
    }

    public func victim() -> Int32 {
        for r in 0..<Self.count where bands.head(Self.list(rank: r)) >= 0 { return bands.head(Self.list(rank: r)) }
        return -1
    }
}
