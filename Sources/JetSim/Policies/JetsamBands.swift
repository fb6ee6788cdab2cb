import SimKernel

/// `jetsam-bands`: XNU memorystatus order. Candidates sit in priority bands; victims
/// come from the lowest non-empty band, and within a band the app that entered it
/// first goes first (XNU appends a process to its band's list on entry and kills from
/// the head). The foreground band, ordered by footprint in XNU, is the device's last
/// resort and never reaches a policy.
///
/// Bands used (apple-oss-distributions/xnu, bsd/sys/kern_memorystatus.h):
/// | band | priority | who |
/// |---|---|---|
/// | idle | 0 | suspended apps |
/// | background | 30 | executing in the background (task, or within the grace) |
/// | phone | 50 | an active voip mode |
/// | audio-and-accessory | 120 | an active audio or location mode |
///
/// XNU also parks newly idle apps in an aging band (10) for about 2 s; since a band
/// is first-in first-out and aging apps are the newest idle ones, that changes no
/// kill order here, so it is not modelled.
///
/// Index: one FIFO list per band. O(1) per update and kill.
public struct JetsamBands: EvictionPolicy {
    public static let name = "jetsam-bands"
    public static let summary = "XNU memorystatus: the lowest priority band first, first in first out within it"

    /// Band priorities, lowest first; the list index is the position here.
    public static let bandPriorities: [Int] = [0, 30, 50, 120]
    static let idle = 0, background = 1, phone = 2, audioAndAccessory = 3

    var bands = MultiList(lists: 4)

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) { bands.reset(appCount: appCount) }

    /// The band a candidate belongs in.
    static func band(of c: EvictionCandidate) -> Int {
        if c.state == .suspended { return idle }
        switch c.mode {
        case .voip: return phone
        case .audio, .location: return audioAndAccessory
        case .none: return background
        }
    }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        let b = Self.band(of: c)
        // Entering a band (or re-entering it) appends; staying in it keeps the place.
        if bands.list(of: app) != b { bands.append(app, to: b) }
    }

    public mutating func remove(_ app: Int32) { bands.remove(app) }

    public var stateBytes: Int { bands.stateBytes }

    public var hasCandidates: Bool {
        for b in 0..<4 where bands.head(b) >= 0 { return true }
        return false
    }

    public func victim() -> Int32 {
        for b in 0..<4 where bands.head(b) >= 0 { return bands.head(b) }
        return -1
    }
}
