import SimKernel

/// Renders trace records as CSV: `time_ms,device,app,event,detail,state`.
public enum TraceCSV {
    public static let header = "time_ms,device,app,event,detail,state"

    /// The `detail` column's text. A delivery is `KIND/N`, followed by the latest
    /// value when the event carried one (`orientation/2 landscape`).
    public static func detail(_ record: TraceRecord, valueName: (Int32) -> String? = { _ in nil }) -> String {
        switch record.detail {
        case .none:
            switch record.event {
            case .systemLaunch(let k), .systemWake(let k): return k.name
            default: return ""
            }
        case .launch(let kind, let latency):
            return "\(kind.name) \(formatMillis(latency))ms"
        case .reason(let r):
            return r.name
        case .delivery(let kind, let n, let value):
            if value != 0, let v = valueName(value) { return "\(kind.name)/\(n) \(v)" }
            return "\(kind.name)/\(n)"
        case .freed(let kb):
            return "freed \(kb / 1024)MB"
        }
    }

    /// Milliseconds with up to three decimals, no trailing zeros (`1200`, `0.5`).
    public static func formatMillis(_ t: SimTime) -> String { DurationText.fixed(t.microseconds, scale: 1_000, digits: 3) }

    /// One CSV line (no newline). `appName` maps an app index to its name and
    /// `valueName` an event value id to its text.
    public static func line(_ r: TraceRecord, device: Int, appName: (Int32) -> String,
                            valueName: (Int32) -> String? = { _ in nil }) -> String {
        [formatMillis(r.time), String(device), CSV.escape(appName(r.app)), r.event.name,
         CSV.escape(detail(r, valueName: valueName)), r.state.name].joined(separator: ",")
    }
}
