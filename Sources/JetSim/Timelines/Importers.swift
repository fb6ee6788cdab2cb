import Foundation

/// Converts published app-usage datasets into jetsim's usage CSV
/// (`device,time_s,app,duration_s`, grouped by device, times from the device's first
/// event). Odd rows are never dropped silently: each kind is counted in `notes`.
public enum UsageImporter {
    public enum Format: String, CaseIterable, Sendable { case lsapp, androidUsagestats = "android-usagestats" }

    public struct Output: Sendable {
        public var csv = "device,time_s,app,duration_s\n"
        public var rows = 0
        /// What was odd and what was done with it, e.g. "3 Opened without Closed: ended at the next event".
        public var notes: [String] = []
    }

    /// `app`: the name's bytes (compared as bytes, never as `String`s, whose equality
    /// merges names that differ only in Unicode normalisation; `--usage` tells them apart).
    struct Event { var time: Double; var app: [UInt8]; var opens: Bool; var closes: Bool; var line: Int }

    /// Reads `text` (from `source`, for errors) in `format`.
    public static func convert(_ text: String, format: Format, source: String) throws(InputError) -> Output {
        var r = DelimitedReader(bytes: Array(text.utf8), delimiter: format == .lsapp ? UInt8(ascii: "\t") : UInt8(ascii: ","))
        var byDevice: [[UInt8]: [Event]] = [:], order: [[UInt8]] = []
        var header: [String: Int] = [:]
        var counts: [String: Int] = [:]
        let needed = format == .lsapp ? ["user_id", "timestamp", "app_name", "event_type"] : ["package", "event_type", "timestamp"]
        func next() throws(InputError) -> Bool {
            do { return try r.next() } catch { throw InputError(source: source, line: r.line, "\(error)") }
        }
        while try next() {
            if header.isEmpty {
                for i in 0..<r.count { header[r.string(i)] = i }
                for n in needed where header[n] == nil { throw InputError(source: source, line: r.line, key: n, "missing column; expected \(needed.joined(separator: ", "))") }
                continue
            }
            func field(_ n: String) throws(InputError) -> String {
                let i = header[n]!
                guard i < r.count else { throw InputError(source: source, line: r.line, key: n, "missing value (the row has \(r.count) fields)") }
                return r.string(i)
            }
            func bytes(_ n: String) throws(InputError) -> [UInt8] {
                _ = try field(n)
                return r.withField(header[n]!) { Array($0) }
            }
            let device = format == .lsapp ? try bytes("user_id") : (header["device"].map { $0 < r.count ? r.withField($0) { Array($0) } : [] } ?? Array("device".utf8))
            let app = try bytes(format == .lsapp ? "app_name" : "package")
            let kind = try field("event_type")
            let stamp = try field("timestamp")
            let time: Double
            if format == .lsapp {
                guard let t = lsappTime(stamp) else { throw InputError(source: source, line: r.line, key: "timestamp", "expected YYYY-MM-DD hh:mm:ss (years 1 to 9999), got '\(stamp)'") }
                time = t
            } else {
                guard let ms = Int64(stamp), ms >= 0 else { throw InputError(source: source, line: r.line, key: "timestamp", "expected milliseconds (a whole number), got '\(stamp)'") }
                time = Double(ms) / 1000
            }
            let opens: Bool, closes: Bool
            switch kind {
            case "Opened", "MOVE_TO_FOREGROUND", "ACTIVITY_RESUMED", "1": (opens, closes) = (true, false)
            case "Closed", "MOVE_TO_BACKGROUND", "ACTIVITY_PAUSED", "2": (opens, closes) = (false, true)
            case "User Interaction": (opens, closes) = (false, false)
            case "Broken": (opens, closes) = (false, true); counts["Broken events: ended the app's open use there", default: 0] += 1
            default: counts["rows of other event types: skipped", default: 0] += 1; continue
            }
            // What --usage refuses is not written: an empty id or name.
            if device.isEmpty { counts["rows with an empty device id: skipped", default: 0] += 1; continue }
            if app.isEmpty { counts["rows with an empty app name: skipped", default: 0] += 1; continue }
            if byDevice[device] == nil { order.append(device) }
            byDevice[device, default: []].append(Event(time: time, app: app, opens: opens, closes: closes, line: r.line))
        }
        if header.isEmpty { throw InputError(source: source, "empty: expected a header naming \(needed.joined(separator: ", "))") }
        var out = Output()
        for device in order {
            var events = byDevice[device]!
            var sorted = true
            for i in events.indices.dropFirst() where events[i].time < events[i - 1].time { sorted = false }
            if !sorted {
                counts["devices with out-of-order timestamps: sorted", default: 0] += 1
                events = events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
            }
            let start = events[0].time
            let id = CSV.escape(String(decoding: device, as: UTF8.self))
            var open: (app: [UInt8], time: Double)? = nil
            var busy = 0.0  // as UsageStream bounds a device's replay
            func emit(_ app: [UInt8], _ from: Double, _ to: Double) {
                let at = fmt(from - start), length = fmt(max(0, to - from))
                // What --usage refuses is not written: times from 1e10 s, or a device
                // whose sessions replayed one after another pass 1e12 s.
                guard let a = Double(at), let l = Double(length), a < 1e10, l < 1e10, max(busy, a) + l + 1 < 1e12 else {
                    counts["uses past what --usage replays (times from 1e10 s, or a device past 1e12 s of sessions): skipped", default: 0] += 1
                    return
                }
                busy = max(busy, a) + l + 1
                out.csv += "\(id),\(at),\(CSV.escape(String(decoding: app, as: UTF8.self))),\(length)\n"
                out.rows += 1
            }
            for e in events {
                if e.opens {
                    if let o = open {
                        if o.app == e.app { continue }  // opened again: the same use goes on
                        counts["opens of another app while one was open: the open one ended there", default: 0] += 1
                        emit(o.app, o.time, e.time)
                    }
                    open = (e.app, e.time)
                } else if e.closes {
                    if let o = open, o.app == e.app { emit(o.app, o.time, e.time); open = nil }
                    else { counts["closes without a matching open: skipped", default: 0] += 1 }
                }
            }
            if let o = open {
                counts["opens never closed: a use of zero length", default: 0] += 1
                emit(o.app, o.time, o.time)
            }
        }
        out.notes = counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        return out
    }

    static func fmt(_ s: Double) -> String { s == s.rounded() ? String(Int64(s)) : String(format: "%.3f", s) }

    /// `YYYY-MM-DD hh:mm:ss` as seconds since 1970 (UTC).
    static func lsappTime(_ s: String) -> Double? {
        let p = s.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" }).compactMap { Int($0) }
        // Years of the common era's four digits: a year far in the future overflowed
        // the day arithmetic below (it trapped).
        guard p.count == 6, (1...9999).contains(p[0]), (1...12).contains(p[1]), (1...31).contains(p[2]), p[3] < 24, p[4] < 60, p[5] < 61 else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm).
        let y = p[1] <= 2 ? p[0] - 1 : p[0]
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (p[1] + (p[1] > 2 ? -3 : 9)) + 2) / 5 + p[2] - 1
        let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        return Double(days * 86_400 + p[3] * 3_600 + p[4] * 60 + p[5])
    }
}
