import Foundation
import SimKernel

/// What produced a result: written as a JSON sidecar `OUT.provenance.json` beside
/// each CSV (docs/cli.md, "Provenance"), so that the CSVs stay plain tables. Keys keep the
/// order they are set in; values are strings, numbers, lists or null.
public struct Provenance: Sendable {
    public indirect enum Value: Sendable {
        case string(String), int(Int), double(Double), null
        case array([Value])
        case object([(String, Value)])

        public static func strings(_ s: [String]) -> Value { .array(s.map { .string($0) }) }
        public static func optional(_ s: String?) -> Value { s.map { .string($0) } ?? .null }
    }

    public private(set) var entries: [(String, Value)] = []

    public init() {}

    /// Sets `key` (replacing an earlier value, in its place).
    public mutating func set(_ key: String, _ value: Value) {
        if let i = entries.firstIndex(where: { $0.0 == key }) { entries[i].1 = value } else { entries.append((key, value)) }
    }

    /// The JSON text, one key per line, ending in a newline.
    public var json: String { Self.render(.object(entries), indent: "") + "\n" }

    static func render(_ v: Value, indent: String) -> String {
        switch v {
        case .string(let s): return escape(s)
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .null: return "null"
        case .array(let a):
            return a.isEmpty ? "[]" : "[" + a.map { render($0, indent: indent) }.joined(separator: ", ") + "]"
        case .object(let o):
            if o.isEmpty { return "{}" }
            let inner = indent + "  "
            return "{\n" + o.map { inner + escape($0.0) + ": " + render($0.1, indent: inner) }.joined(separator: ",\n") + "\n" + indent + "}"
        }
    }

    /// A JSON string literal (RFC 8259: quote, backslash and control characters escaped).
    public static func escape(_ s: String) -> String {
        var o = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": o += "\\\""
            case "\\": o += "\\\\"
            case "\n": o += "\\n"
            case "\r": o += "\\r"
            case "\t": o += "\\t"
            case _ where u.value < 0x20:
                let h = String(u.value, radix: 16)
                o += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: o.unicodeScalars.append(u)
            }
        }
        return o + "\""
    }

    /// FNV-1a 64 of the text's UTF-8 bytes, 16 hex digits (as the shard state's hashes:
    /// an identity check, not a cryptographic one).
    public static func hash(_ text: String) -> String { FNV1a.hex(FNV1a.hash(text)) }

    /// The hash of the resolved workload: of `WorkloadPrinter.yaml(w)`, the text
    /// `jetsim validate` prints after its first line (every key, defaults filled in).
    public static func workloadHash(_ w: Workload) -> String { hash(WorkloadPrinter.yaml(w)) }

    /// The fields every run-like result shares: the resolved workload and how it ran.
    public mutating func describe(workload w: Workload, source: String, cells: [Cell], overrides: [String]) {
        set("workload", .string(source))
        set("workload_name", .string(w.name))
        set("workload_fnv1a64", .string(Self.workloadHash(w)))
        set("seed", .string(String(w.seed)))
        set("devices", .int(w.fleet.devices))
        set("duration_s", .double(w.fleet.duration.seconds))
        var policies: [String] = []
        for c in cells where !policies.contains(c.policy.rawValue) { policies.append(c.policy.rawValue) }
        set("policies", .strings(policies))
        var rams: [String] = []
        for c in cells {
            let r = Summary.ramLabel(c, w)
            if !rams.contains(r) { rams.append(r) }
        }
        set("ram_mb", .strings(rams))
        set("overrides", .strings(overrides))
    }
}
