import Foundation
import SimKernel

/// Writes a workload as YAML with every key spelled out, in the order of the table in
/// `Schema` (defaults resolved where they depend on nothing else; `auto` kept where
/// they depend on RAM), but for the few keys left out at their default
/// (`Knob.omittedAtDefault`). Reading the output back gives the same workload.
public enum WorkloadPrinter {
    public static func yaml(_ w: Workload) -> String {
        Schema.workload.lines(w).joined(separator: "\n") + "\n"
    }

    /// A number in its shortest exact form (`60`, `0.35`, `1e-05`).
    public static func num(_ x: Double) -> String {
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return String(x)
    }

    static func dist(_ d: RealDistribution) -> String {
        switch d {
        case .constant(let v): return num(v)
        case .uniform(let lo, let hi): return "{uniform: [\(num(lo)), \(num(hi))]}"
        case .exponential(let m): return "{exponential: {mean: \(num(m))}}"
        case .normal(let m, let s): return "{normal: {mean: \(num(m)), sd: \(num(s))}}"
        case .lognormal(let m, let s): return "{lognormal: {median: \(num(m)), sigma: \(num(s))}}"
        case .empirical(let v): return "{empirical: [\(v.map(num).joined(separator: ", "))]}"
        }
    }

    static func quote(_ s: String) -> String {
        let safe = s.allSatisfy { $0.isLetter || $0.isNumber || "-_.+".contains($0) } && !s.isEmpty
            && Double(s) == nil && !["auto", "null", "true", "false", "yes", "no", "~"].contains(s.lowercased())
        if safe { return s }
        // YAML folds a raw line break inside double quotes into a space (issue 11: a
        // name with a newline merged into a different CSV): escape every control character.
        var o = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\\": o += "\\\\"
            case "\"": o += "\\\""
            case "\n": o += "\\n"
            case "\r": o += "\\r"
            case "\t": o += "\\t"
            case _ where u.value < 0x20 || u.value == 0x7F: o += "\\x" + (u.value < 0x10 ? "0" : "") + String(u.value, radix: 16)
            default: o.unicodeScalars.append(u)
            }
        }
        return o + "\""
    }
}
