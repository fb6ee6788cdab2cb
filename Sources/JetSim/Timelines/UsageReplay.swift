import SimKernel

/// Recorded app usage replayed instead of the synthetic user, as cache simulators
/// replay request traces. A CSV with a header and at least the columns
/// `device,time_s,app,duration_s` (others are ignored): device ids are any text
/// (devices are numbered in order of first appearance), times are seconds from the
/// start, and each row is one use of an app.
///
/// A row becomes: unlock (if locked), Home and a launch (if another app was in
/// front), the use; and if the device's next row starts more than `lockGap` after
/// this one ends, Home and lock. Apps named as in the catalog (`social-0042`) use
/// that app's profile; any other name borrows the profile of catalog app
/// FNV-1a(name) mod N, so a trace needs no catalog of its own.
public struct UsageReplay: Sendable {
    public struct Use: Sendable {
        var time: SimTime
        var app: Int32
        var duration: SimTime
    }

    public var devices: [String] = []
    var uses: [[Use]] = []
    /// Each device's app names (index = app index on the device).
    public var appNames: [[String]] = []
    /// A pause longer than this between uses locks the device.
    public static let lockGap = SimTime.seconds(60)

    public init() {}

    /// Reads a usage trace. Errors name the file, the line and the column.
    public static func parse(_ text: String, source: String) throws(InputError) -> UsageReplay {
        var r = UsageReplay()
        var deviceIndex: [String: Int] = [:]
        var appIndex: [[String: Int32]] = []
        var columns: [String: Int] = [:]
        var lineNo = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNo += 1
            let line = String(raw.hasSuffix("\r") ? raw.dropLast() : raw)
            if line.trimmingCharacters().isEmpty { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingCharacters() }
            if columns.isEmpty {
                for (i, f) in fields.enumerated() { columns[f] = i }
                for needed in ["device", "time_s", "app", "duration_s"] where columns[needed] == nil {
                    throw InputError(source: source, line: lineNo, key: needed,
                                     "missing column; the header must name at least device,time_s,app,duration_s")
                }
                continue
            }
            func field(_ name: String) throws(InputError) -> String {
                let i = columns[name]!
                guard i < fields.count else { throw InputError(source: source, line: lineNo, key: name, "missing value (the row has \(fields.count) fields)") }
                return fields[i]
            }
            func seconds(_ name: String) throws(InputError) -> SimTime {
                let s = try field(name)
                guard let x = Double(s), x.isFinite, x >= 0, x < 1e10 else {
                    throw InputError(source: source, line: lineNo, key: name, "expected seconds (a non-negative number), got '\(s)'")
                }
                return SimTime(seconds: x)
            }
            let device = try field("device")
            let app = try field("app")
            if device.isEmpty { throw InputError(source: source, line: lineNo, key: "device", "empty device id") }
            if app.isEmpty { throw InputError(source: source, line: lineNo, key: "app", "empty app name") }
            let time = try seconds("time_s")
            let duration = try seconds("duration_s")
            let d: Int
            if let known = deviceIndex[device] { d = known } else {
                d = r.devices.count
                deviceIndex[device] = d
                r.devices.append(device)
                r.uses.append([])
                r.appNames.append([])
                appIndex.append([:])
            }
            let a: Int32
            if let known = appIndex[d][app] { a = known } else {
                a = Int32(r.appNames[d].count)
                appIndex[d][app] = a
                r.appNames[d].append(app)
            }
            r.uses[d].append(Use(time: time, app: a, duration: duration))
        }
        if columns.isEmpty { throw InputError(source: source, "empty: expected a header device,time_s,app,duration_s and rows") }
        if r.devices.isEmpty { throw InputError(source: source, "no rows after the header") }
        for d in r.uses.indices {
            // Stable sort by time (rows of one device may be interleaved with others).
            r.uses[d] = r.uses[d].enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        }
        return r
    }

    /// FNV-1a of a name: the catalog app whose profile an unknown name borrows.
    static func fnv1a(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    /// Fills a device's installed apps (catalog indices) and timeline.
    func build(device d: Int, catalog: AppCatalog, duration: SimTime,
               installed: inout ContiguousArray<Int32>, timeline: inout Timeline) {
        installed.removeAll(keepingCapacity: true)
        for name in appNames[d] {
            let index = catalog.index(named: name) ?? Int(Self.fnv1a(name) % UInt64(catalog.profiles.count))
            installed.append(Int32(index))
        }
        timeline.removeAll()
        timeline.actions.append(UserAction(time: .zero, kind: .lock))  // the device starts locked
        var front: Int32 = -1
        var locked = true
        var busyUntil = SimTime.zero
        let rows = uses[d]
        func add(_ kind: UserAction.Kind, _ t: SimTime, _ app: Int32 = -1) {
            if t < duration { timeline.actions.append(UserAction(time: t, kind: kind, app: app)) }
        }
        for (i, u) in rows.enumerated() {
            let t = max(u.time, busyUntil)
            if t >= duration { break }
            if locked { add(.unlock, t); locked = false }
            if front != u.app {
                if front >= 0 { add(.home, t) }
                add(.launch, t, u.app)
                front = u.app
            }
            let end = t + u.duration
            busyUntil = end
            let next = i + 1 < rows.count ? rows[i + 1].time : SimTime.never
            if next == .never || next - end > Self.lockGap {
                add(.home, end)
                add(.lock, end + .seconds(1))
                front = -1
                locked = true
                busyUntil = end + .seconds(1)
            }
        }
        timeline.computeNextUses(appCount: installed.count)
    }
}
