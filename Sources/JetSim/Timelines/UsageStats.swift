import Foundation
import SimKernel

/// Usage statistics of a fleet, to calibrate a workload's user against published
/// figures or one's own data (`jetsim usage-stats`). The definitions, the same for
/// every input:
///
/// - An **app session** is one continuous period in which an app is in front and
///   active: the screen on and unlocked, no overlay (switcher, power dialog, a pending
///   call, SMS or alert) over it. It starts when the app becomes active and ends when
///   it resigns active (another app, Home, the switcher, the lock, an interruption) or
///   is terminated. This is Böhmer et al.'s (MobileHCI 2011) app session, from the
///   app's start to the user leaving it or switching the screen off; the lifecycle
///   makes it exact (didBecomeActive to willResignActive). In a usage CSV each row is
///   one app session.
/// - A **device session** is a run of app sessions on one device in which each starts
///   at most `deviceSessionGap` (60 s) after the previous one ended: Falaki et al.'s
///   (MobiSys 2010) interaction, screen on to screen off, which a trace of app use
///   does not record directly. 60 s is the gap after which a replay locks the device
///   (`UsageReplay.lockGap`), so a usage CSV replayed and measured again agrees.
/// - **Foreground minutes a day**: the app sessions' total length over all devices
///   divided by the device-days (Böhmer et al.: 59 min a day).
/// - **Distinct apps a week**: apps with at least one session starting in a complete
///   week [7k, 7k+7) days of a device's span, averaged over device-weeks (Device
///   Analyzer: about 8; Kim et al. 2019, iOS: 14-18). None when no device spans a week.
/// - **Device sessions a day**: per device, its device sessions over its days; the
///   mean, minimum, 10th and 90th percentiles and maximum across devices (Falaki et al.:
///   10-200 a day, an order of magnitude between users).
///
/// A device's span is given (a run's duration) or, from a file, the end of its last
/// app session rounded up to whole days (at least one). Percentiles are nearest-rank
/// on the exact values.
public struct UsageStats: Sendable, Equatable {
    public var devices = 0
    public var meanDays = 0.0
    public var appSessions = 0
    public var sessionMeanS = 0.0
    public var sessionP50S = 0.0, sessionP90S = 0.0, sessionP99S = 0.0
    public var shareUnder30s = 0.0, shareUnder4min = 0.0
    public var foregroundMinPerDay = 0.0
    /// Nil when no device spans a complete week.
    public var distinctAppsPerWeek: Double? = nil
    public var deviceSessionsPerDayMean = 0.0
    public var deviceSessionsPerDayMin = 0.0, deviceSessionsPerDayP10 = 0.0
    public var deviceSessionsPerDayP90 = 0.0, deviceSessionsPerDayMax = 0.0

    /// App sessions further apart than this start a new device session: the gap after
    /// which a replay locks the device (`UsageReplay.lockGap`), declared once there.
    public static let deviceSessionGap = UsageReplay.lockGap.seconds

    /// The published figures each statistic is compared with (docs/cli.md, "Usage statistics"; `--help`).
    public static let published: [(column: String, label: String, figure: String)] = [
        ("session_mean_s", "app session mean (s)", "71.6 (Böhmer et al. 2011)"),
        ("session_p50_s", "app session p50 (s)", "30 (LiveLab)"),
        ("session_p90_s", "app session p90 (s)", "240 (LiveLab)"),
        ("session_p99_s", "app session p99 (s)", ""),
        ("share_under_30s", "share under 30 s", "0.5 (LiveLab)"),
        ("share_under_4min", "share under 4 min", "0.9 (LiveLab)"),
        ("foreground_min_per_day", "foreground min a day", "59 (Böhmer et al. 2011)"),
        ("distinct_apps_per_week", "distinct apps a week", "14-18 (Kim et al. 2019, iOS); 8 (Device Analyzer)"),
        ("device_sessions_per_day_mean", "device sessions a day: mean", ""),
        ("device_sessions_per_day_min", "  min", ""),
        ("device_sessions_per_day_p10", "  p10", ""),
        ("device_sessions_per_day_p90", "  p90", ""),
        ("device_sessions_per_day_max", "  max", "10-200 across users (Falaki et al. 2010)"),
    ]

    /// The values in the order of `published`.
    public var values: [Double?] {
        [sessionMeanS, sessionP50S, sessionP90S, sessionP99S, shareUnder30s, shareUnder4min, foregroundMinPerDay,
         distinctAppsPerWeek, deviceSessionsPerDayMean, deviceSessionsPerDayMin, deviceSessionsPerDayP10,
         deviceSessionsPerDayP90, deviceSessionsPerDayMax]
    }

    static func text(_ v: Double?) -> String {
        guard let v else { return "" }
        return String(format: "%.3f", v)
    }

    /// One header line and one row.
    public var csv: String {
        "devices,days," + "app_sessions," + Self.published.map(\.column).joined(separator: ",") + "\n"
            + "\(devices),\(String(format: "%.3f", meanDays)),\(appSessions)," + values.map(Self.text).joined(separator: ",") + "\n"
    }

    /// A readable table with the published figures beside the values.
    public func table(source: String) -> String {
        var o = "\(source): \(devices) devices x \(String(format: "%.2f", meanDays)) days, \(appSessions) app sessions\n"
        let w = Self.published.map(\.label.count).max() ?? 0
        o += "statistic".padding(toLength: w, withPad: " ", startingAt: 0) + "  " + "value".leftPadded(10) + "  published\n"
        o += String(repeating: "-", count: w) + "  " + String(repeating: "-", count: 10) + "  " + String(repeating: "-", count: 9) + "\n"
        for (i, p) in Self.published.enumerated() {
            let v = values[i].map { String(format: "%.2f", $0) } ?? "-"
            o += p.label.padding(toLength: w, withPad: " ", startingAt: 0) + "  " + v.leftPadded(10) + "  " + p.figure + "\n"
        }
        return o
    }

    /// Collects app sessions device by device.
    public struct Accumulator {
        var lengths: [Double] = []
        var perDeviceRate: [Double] = []
        var totalForeground = 0.0, totalDays = 0.0
        var weekDistinct = 0, weeks = 0
        // The current device.
        var deviceSessions = 0
        var lastEnd = -Double.infinity
        var lastStart = -Double.infinity
        var weekApps: [Int: Set<Int32>] = [:]
        var lastSessionEnd = 0.0

        public init() {}

        /// One app session of the current device; sessions come in order of start.
        public mutating func add(start: Double, app: Int32, length: Double) {
            if start - lastEnd > UsageStats.deviceSessionGap { deviceSessions += 1 }
            lastEnd = max(lastEnd, start + length)
            lastSessionEnd = max(lastSessionEnd, start + length)
            lengths.append(length)
            totalForeground += length
            weekApps[Int(start / (7 * 86_400)), default: []].insert(app)
        }

        /// Ends the current device. `days`: its span (nil: the end of its last
        /// session rounded up to whole days, at least one).
        public mutating func endDevice(days given: Double?) {
            let days = given ?? max(1, (lastSessionEnd / 86_400).rounded(.up))
            totalDays += days
            perDeviceRate.append(days > 0 ? Double(deviceSessions) / days : 0)
            // The weeks with sessions, not every week of the span: a loop over the span's
            // weeks cost 142,857 lookups a device at --days 1e6, however few its rows.
            let complete = Int((days + 1e-9) / 7)
            for (k, apps) in weekApps where k < complete { weekDistinct += apps.count }
            weeks += complete
            deviceSessions = 0
            lastEnd = -.infinity
            lastSessionEnd = 0
            weekApps.removeAll(keepingCapacity: true)
        }

        /// The statistics of the devices ended so far.
        public func result() -> UsageStats {
            var s = UsageStats()
            s.devices = perDeviceRate.count
            s.meanDays = s.devices > 0 ? totalDays / Double(s.devices) : 0
            s.appSessions = lengths.count
            let sorted = lengths.sorted()
            if !sorted.isEmpty {
                s.sessionMeanS = sorted.reduce(0, +) / Double(sorted.count)
                s.sessionP50S = Self.rank(sorted, 0.5)
                s.sessionP90S = Self.rank(sorted, 0.9)
                s.sessionP99S = Self.rank(sorted, 0.99)
                s.shareUnder30s = Double(sorted.prefix { $0 < 30 }.count) / Double(sorted.count)
                s.shareUnder4min = Double(sorted.prefix { $0 < 240 }.count) / Double(sorted.count)
            }
            s.foregroundMinPerDay = totalDays > 0 ? totalForeground / 60 / totalDays : 0
            s.distinctAppsPerWeek = weeks > 0 ? Double(weekDistinct) / Double(weeks) : nil
            let rates = perDeviceRate.sorted()
            if !rates.isEmpty {
                s.deviceSessionsPerDayMean = rates.reduce(0, +) / Double(rates.count)
                s.deviceSessionsPerDayMin = rates[0]
                s.deviceSessionsPerDayP10 = Self.rank(rates, 0.1)
                s.deviceSessionsPerDayP90 = Self.rank(rates, 0.9)
                s.deviceSessionsPerDayMax = rates[rates.count - 1]
            }
            return s
        }

        /// Nearest rank: the smallest value with at least q of the values at or below it.
        static func rank(_ sorted: [Double], _ q: Double) -> Double {
            let i = Int((q * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(i, 0), sorted.count - 1)]
        }
    }

    /// The app sessions of a timeline (the user's actions) up to `until`: the periods
    /// an app is in front and active, by `UIState`, the rules `Device.perform` follows
    /// (an app is active when it is in front and nothing covers it; an action `UIState`
    /// refuses does nothing). Calls `emit(start, app, length)` in order.
    public static func appSessions(of timeline: Timeline, until: SimTime, _ emit: (SimTime, Int32, SimTime) -> Void) {
        var front: Int32 = -1
        var ui = UIState()
        var active: Int32 = -1
        var since = SimTime.zero
        for a in timeline.actions {
            if a.time >= until { break }
            if ui.poweredOff { break }
            if a.kind == .systemWake { continue }  // a system wake is not the user's
            guard let effect = try? ui.apply(a) else { continue }
            switch effect {
            case .none: break
            case .open(let app), .pick(let app): front = app
            case .toBackground, .powerOff: front = -1
            case .remove(let app): if app == front { front = -1 }
            }
            let now: Int32 = (front >= 0 && !ui.covered) ? front : -1
            if now != active {
                if active >= 0 { emit(since, active, a.time - since) }
                active = now
                since = a.time
            }
        }
        if active >= 0 && until > since { emit(since, active, until - since) }
    }

    /// What a file holds.
    public enum FileKind: Sendable { case usage, trace }

    /// Reads a usage CSV (`device,time_s,app,duration_s`, as `--usage` takes it) or a
    /// lifecycle trace (`jetsim trace`: `time_ms,device,app,event,...`), streaming it
    /// device by device. `kind` says which (the caller's explicit choice); nil: told
    /// apart by the header, and a header with both kinds' columns is refused, naming
    /// the options that choose (`choose`), never guessed. `days`: each device's span
    /// (nil: from its last session). Errors name the file and the line.
    public static func read(path: String, days: Double?, format: UsageFormat = UsageFormat(), kind: FileKind? = nil,
                            choose: String = "") throws(InputError) -> (UsageStats, FileKind) {
        let file = path == "-" ? "/dev/stdin" : path
        if UsageTrace.hasMagic(path: file) {
            if format != UsageFormat() {
                throw InputError(source: path, "a .jtrace, whose columns and units were read when it was written; --usage-columns and the unit options describe a CSV")
            }
            var stream = UsageStream(trace: try UsageTrace(path: file))
            return (try read(&stream, days: days), .usage)
        }
        guard var reader = DelimitedReader(path: file) else {
            throw InputError(source: path, "cannot open it: \(String(cString: strerror(errno)))")
        }
        func advance(_ r: inout DelimitedReader) throws(InputError) -> Bool {
            do { return try r.next() } catch {
                switch error {
                case .unterminatedQuote(let line): throw InputError(source: path, line: line, "a quoted field is not closed (a \" is missing)")
                case .textAfterQuote(let line): throw InputError(source: path, line: line, "text after a closing quote (inside quotes, write \" as \"\")")
                case .io(let m): throw InputError(source: path, m)
                }
            }
        }
        guard try advance(&reader) else {
            throw InputError(source: path, "empty: expected a usage CSV (device,time_s,app,duration_s) or a jetsim trace (time_ms,device,app,event,...)")
        }
        let header = (0..<reader.count).map { reader.string($0) }
        var acc = Accumulator()
        let trace = header.contains("time_ms") && header.contains("event")
        let usage = [format.device, format.time, format.app, format.duration].allSatisfy(header.contains)
        if kind == nil, trace, usage {
            throw InputError(source: path, line: 1, "the header has a usage CSV's columns (\([format.device, format.time, format.app, format.duration].joined(separator: ","))) and a lifecycle trace's (time_ms, event): it is not said which it is" + (choose.isEmpty ? "" : "; \(choose)"))
        }
        if kind ?? (trace ? .trace : .usage) == .trace {
            do { try readTrace(&reader, header: header, path: path, days: days, into: &acc, advance: advance) } catch {
                // Taken for a trace by its header: say how to read it as a usage CSV.
                guard kind == nil, !choose.isEmpty else { throw error }
                throw InputError(source: error.source, line: error.line, key: error.key, error.message + " (read as a lifecycle trace, by its header's time_ms and event; \(choose))")
            }
            return (acc.result(), .trace)
        }
        if let first = header.first, first.utf8.starts(with: [0xEF, 0xBF, 0xBD] + Array("JTRACE".utf8)) {
            throw InputError(source: path, "a .jtrace read from a pipe: it is read through a memory map, so give it as a file")
        }
        var stream = try UsageStream(readerAtHeader: reader, source: path, format: format)
        return (try read(&stream, days: days), .usage)
    }

    /// The statistics of the devices a usage stream (a CSV's or a `.jtrace`'s) yields.
    static func read(_ stream: inout UsageStream, days: Double?) throws(InputError) -> UsageStats {
        var acc = Accumulator()
        while let batch = try stream.nextBatch(rows: 1 << 16) {
            for d in batch.firstDevice..<batch.endDevice {
                batch.forEachChunk(ofDevice: d) { rows in
                    for u in rows { acc.add(start: u.time.seconds, app: u.app, length: u.duration.seconds) }
                }
                acc.endDevice(days: days)
            }
            batch.releasePages()
        }
        return acc.result()
    }

    /// A lifecycle trace: an app session from `didBecomeActive` to the same app's
    /// `willResignActive` or termination (or the device's last record). Rows must be
    /// grouped by device and in time order within it, as `jetsim trace` writes them.
    static func readTrace(_ reader: inout DelimitedReader, header: [String], path: String, days: Double?,
                          into acc: inout Accumulator,
                          advance: (inout DelimitedReader) throws(InputError) -> Bool) throws(InputError) {
        func column(_ name: String) throws(InputError) -> Int {
            guard let i = header.firstIndex(of: name) else {
                throw InputError(source: path, line: 1, key: name, "missing column; a trace's header is \(TraceCSV.header)")
            }
            return i
        }
        let cTime = try column("time_ms"), cDevice = try column("device"), cApp = try column("app"), cEvent = try column("event")
        let width = max(cTime, cDevice, cApp, cEvent) + 1
        // Ids and names by their bytes (a `String` compares by Unicode normalisation).
        var device: [UInt8]? = nil
        var seen: Set<[UInt8]> = []
        var apps: [[UInt8]: Int32] = [:]
        var open: (app: Int32, start: Double)? = nil
        var last = 0.0
        func finish(_ acc: inout Accumulator) {
            if let o = open { acc.add(start: o.start, app: o.app, length: last - o.start) }
            open = nil
            acc.endDevice(days: days)
            apps.removeAll(keepingCapacity: true)
        }
        while try advance(&reader) {
            guard reader.count >= width else {
                throw InputError(source: path, line: reader.line, "missing value (the row has \(reader.count) fields; expected \(TraceCSV.header))")
            }
            let d = reader.withField(cDevice) { Array($0) }
            if d != device {
                if device != nil { finish(&acc) }
                guard seen.insert(d).inserted else {
                    throw InputError(source: path, line: reader.line, key: "device", "device '\(String(decoding: d, as: UTF8.self))' comes back after other devices; the trace must be grouped by device (scripts/group-usage.sh FILE > GROUPED.csv groups it)")
                }
                device = d
                last = 0
            }
            guard let ms = Double(reader.string(cTime)), ms >= 0, ms < 1e13 else {
                throw InputError(source: path, line: reader.line, key: "time_ms", "expected milliseconds (a non-negative number), got '\(reader.string(cTime))'")
            }
            let t = ms / 1_000
            if t < last {
                throw InputError(source: path, line: reader.line, key: "time_ms", "goes back in time within device '\(String(decoding: d, as: UTF8.self))'; the trace must be in time order within a device")
            }
            last = t
            let name = reader.withField(cApp) { Array($0) }
            let app: Int32
            if let a = apps[name] { app = a } else { app = Int32(apps.count); apps[name] = app }
            switch reader.string(cEvent) {
            case "didBecomeActive":
                if let o = open { acc.add(start: o.start, app: o.app, length: t - o.start) }
                open = (app, t)
            case "willResignActive", "terminated":
                if let o = open, o.app == app {
                    acc.add(start: o.start, app: o.app, length: t - o.start)
                    open = nil
                }
            default: break
            }
        }
        if device != nil { finish(&acc) }
    }
}

extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}

extension UsageStats {
    /// Seconds, exact to the microsecond, no trailing zeros (`12`, `0.5`).
    public static func seconds(_ t: SimTime) -> String { DurationText.fixed(t.microseconds, scale: 1_000_000, digits: 6) }
}
