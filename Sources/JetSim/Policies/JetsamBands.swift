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

    /// Band priorities, lowest first; the list index is the position here.
    public static let bandPriorities: [Int] = [0, 20, 30, 50, 75, 120]
    static let count = 6

    var bands = MultiList(lists: 6)

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) { bands.reset(appCount: appCount) }

    /// The list of a band priority (a priority between two listed ones goes with the lower).
    @inline(__always)
    static func list(of band: UInt8) -> Int {
        switch band {
        case ..<20: 0
        case ..<30: 1
        case ..<50: 2
        case ..<75: 3
        case ..<120: 4
        default: 5
        }
    }

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
        for b in 0..<Self.count where bands.head(b) >= 0 { return bands.head(b) }
        return -1
    }
}
