import SimKernel

/// `jetsim trace --format perfetto`: the Chrome trace-event JSON that Perfetto's UI
/// (ui.perfetto.dev) and chrome://tracing open (format: "Trace Event Format",
/// Google, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
///
/// A device is a process (pid = device + 1); each app is a thread (tid = app + 1)
/// whose lifecycle states are slices (`B`/`E` pairs, `not-running` left empty);
/// lifecycle messages, deliveries and kills are instant events (`i`, thread scope) on
/// the app's track; the device's available and compressed memory are counter tracks
/// (`C`). Times are microseconds of simulated time.
public enum PerfettoTrace {
    /// One device's traced run.
    public struct Device {
        public var index: Int
        public var label: String
        public var appNames: [String]
        public var records: [TraceRecord]
        public var memory: [TraceRun.MemorySample]
        public var until: SimTime

        public init(index: Int, label: String, appNames: [String], records: [TraceRecord], memory: [TraceRun.MemorySample], until: SimTime) {
            self.index = index
            self.label = label
            self.appNames = appNames
            self.records = records
            self.memory = memory
            self.until = until
        }
    }

    /// The JSON text: one event per line.
    public static func json(_ devices: [Device], valueName: (Int32) -> String? = { _ in nil }) -> String {
        var events: [String] = []
        func e(_ fields: [(String, String)]) {
            events.append("{" + fields.map { Provenance.escape($0.0) + ":" + $0.1 }.joined(separator: ",") + "}")
        }
        func s(_ x: String) -> String { Provenance.escape(x) }
        for d in devices {
            let pid = String(d.index + 1)
            e([("ph", s("M")), ("name", s("process_name")), ("pid", pid), ("tid", "0"), ("args", "{\"name\":" + s(d.label) + "}")])
            for (a, name) in d.appNames.enumerated() {
                e([("ph", s("M")), ("name", s("thread_name")), ("pid", pid), ("tid", String(a + 1)), ("args", "{\"name\":" + s(name) + "}")])
            }
            var state = [AppState](repeating: .notRunning, count: d.appNames.count)
            // Records and memory samples merged in time order (memory after the records
            // of its instant), so every track's times only grow.
            var m = 0
            func counters(upTo t: SimTime?) {
                while m < d.memory.count, t.map({ d.memory[m].time < $0 }) ?? true {
                    let x = d.memory[m]
                    let ts = String(x.time.microseconds)
                    e([("ph", s("C")), ("name", s("available MB")), ("pid", pid), ("tid", "0"), ("ts", ts),
                       ("args", "{\"MB\":" + Summary.fixed(Double(x.availableKB) / 1_024, 3) + "}")])
                    e([("ph", s("C")), ("name", s("compressed MB")), ("pid", pid), ("tid", "0"), ("ts", ts),
                       ("args", "{\"MB\":" + Summary.fixed(Double(x.compressedKB) / 1_024, 3) + "}")])
                    m += 1
                }
            }
            for r in d.records {
                counters(upTo: r.time)
                let tid = String(r.app + 1), ts = String(r.time.microseconds)
                let a = Int(r.app)
                let detail = TraceCSV.detail(r, valueName: valueName)
                let args = detail.isEmpty ? "{}" : "{\"detail\":" + s(detail) + "}"
                switch r.event {
                case .terminated(let reason):
                    e([("ph", s("i")), ("s", s("t")), ("cat", s("kill")), ("name", s("killed: " + reason.name)), ("pid", pid), ("tid", tid), ("ts", ts), ("args", args)])
                default:
                    e([("ph", s("i")), ("s", s("t")), ("cat", s("lifecycle")), ("name", s(r.event.name)), ("pid", pid), ("tid", tid), ("ts", ts), ("args", args)])
                }
                if r.state != state[a] {
                    if state[a] != .notRunning { e([("ph", s("E")), ("pid", pid), ("tid", tid), ("ts", ts)]) }
                    if r.state != .notRunning {
                        e([("ph", s("B")), ("cat", s("state")), ("name", s(r.state.name)), ("pid", pid), ("tid", tid), ("ts", ts)])
                    }
                    state[a] = r.state
                }
            }
            counters(upTo: nil)
            let end = String(d.until.microseconds)
            for a in state.indices where state[a] != .notRunning {
                e([("ph", s("E")), ("pid", pid), ("tid", String(a + 1)), ("ts", end)])
            }
        }
        return "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n" + events.joined(separator: ",\n") + "\n]}\n"
    }
}
