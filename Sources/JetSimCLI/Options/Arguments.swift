import ArgumentParser
import JetSim
import SimKernel

// Typed command-line values. Each parses itself once, here; an option declares its
// type and gets the value checked before `run()` starts. A malformed value is a usage
// error (exit 2) whose message names the option and says what was expected.

/// Text split at top-level commas: `a,b` is two values, `{uniform: [1, 2]},3` too (commas
/// inside brackets or braces do not split).
func splitTopLevel(_ text: String) -> [String] {
    var out: [String] = [], cur = "", depth = 0
    for c in text {
        switch c {
        case "[", "{": depth += 1; cur.append(c)
        case "]", "}": depth -= 1; cur.append(c)
        case "," where depth == 0: out.append(cur); cur = ""
        default: cur.append(c)
        }
    }
    out.append(cur)
    return out.map { $0.trimmingCharacters(in: .whitespaces) }
}

/// A typed command-line value: `parse` says what is wrong with a bad one (use it as
/// the option's `transform:` to get that message); `init?(argument:)` follows from it.
protocol ParsedArgument: ExpressibleByArgument, Sendable {
    static func parse(_ text: String) throws -> Self
}

extension ParsedArgument {
    init?(argument: String) {
        guard let value = try? Self.parse(argument) else { return nil }
        self = value
    }
}

/// Errors of typed arguments: ArgumentParser shows the description after the value.
struct ArgumentProblem: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// `--policy NAME[,NAME...]` or `all`: registered policies (and external ones,
/// `external:NAME`), in the order given, without repeats.
struct PolicyList: ParsedArgument {
    var policies: [PolicyID]

    static func parse(_ text: String) throws -> PolicyList {
        var out: [PolicyID] = []
        for name in splitTopLevel(text) {
            if name == "all" {
                for p in PolicyID.allSelected where !out.contains(p) { out.append(p) }
            } else if let p = PolicyID(parsing: name) {
                if !out.contains(p) { out.append(p) }
            } else {
                throw ArgumentProblem("'\(name)' is not a policy; expected all, one of \(PolicyRegistry.nameList) (see jetsim policies) or external:NAME")
            }
        }
        return PolicyList(policies: out)
    }

    init(policies: [PolicyID]) { self.policies = policies }
}

/// `--ram SIZE[,SIZE...]`: RAM sizes in KiB, without repeats, each at least 64 MiB.
struct SizeList: ParsedArgument {
    var kilobytes: [Int64]

    static func parse(_ text: String) throws -> SizeList {
        var out: [Int64] = []
        for item in splitTopLevel(text) {
            let range = Schema.ramRangeMB
            guard let kb = SizeText.parseKB(item) else {
                throw ArgumentProblem("'\(item)' is not \(SizeText.expected), from 64MB to 1TB")
            }
            guard Double(kb) >= range.lowerBound * 1_024, Double(kb) <= range.upperBound * 1_024 else {
                throw ArgumentProblem("'\(item)' is out of range: a RAM size is from 64MB to 1TB (run.ram_mb's range)")
            }
            if !out.contains(kb) { out.append(kb) }
        }
        return SizeList(kilobytes: out)
    }

    init(kilobytes: [Int64]) { self.kilobytes = kilobytes }
}

/// `--duration 7d`: a simulated duration longer than zero.
struct DurationArgument: ParsedArgument {
    var time: SimTime

    static func parse(_ text: String) throws -> DurationArgument {
        let t: SimTime
        do { t = try DurationText.parse(text) } catch { throw ArgumentProblem(error.description) }
        guard t > .zero else { throw ArgumentProblem("must be longer than 0") }
        return DurationArgument(time: t)
    }

    init(time: SimTime) { self.time = time }
}

/// `--shard I/N` (1 <= I <= N): shard I of N.
struct ShardSpec: ParsedArgument {
    var index: Int
    var count: Int

    static func parse(_ text: String) throws -> ShardSpec {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 1, i <= n else {
            throw ArgumentProblem("expected I/N with 1 <= I <= N (e.g. 2/8), got '\(text)'")
        }
        return ShardSpec(index: i, count: n)
    }

    init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }
}

/// `--set KEY=VALUE`: one workload override (a sweep also takes `KEY=V1,V2,...`).
struct Override: ParsedArgument {
    var key: String
    var value: String
    var text: String { key + "=" + value }

    static func parse(_ text: String) throws -> Override {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw ArgumentProblem("expected KEY=VALUE (e.g. user.sessions_per_day=80), got '\(text)'")
        }
        return Override(key: String(text[..<eq]).trimmingCharacters(in: .whitespaces),
                        value: String(text[text.index(after: eq)...]))
    }

    init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// A whole number option's value. Options that take numbers parse their next argument
/// unconditionally (`parsing: .unconditional`), so `--seed -1` is a bad value that
/// says so, not "Missing value" (ArgumentParser otherwise reads `-1` as a flag).
func wholeNumber<T: FixedWidthInteger>(_ text: String, _ what: String) throws -> T {
    guard let v = T(text) else { throw ArgumentProblem("expected \(what)") }
    return v
}
