import Foundation
import SimKernel

/// A key path that may be kept in a table shared across threads.
typealias KP<Root, Value> = WritableKeyPath<Root, Value> & Sendable

/// What a knob prints after `key:`: one value on the key's line, lines below it, or
/// nothing (an unset optional weight).
enum KnobText {
    case inline(String)
    case block([String])
    case omitted
}

/// One workload key, declared once: where it lives in the model, its unit, type,
/// valid range, source and meaning. The decoder, the printer, `--set`, the key
/// reference in `Workloads/README.md` and the scenario device keys all read this
/// declaration. The default is the model's own (`Workload()`, `DeviceClass()`, the
/// archetype template), read through the knob, never written twice.
struct Knob<Root: Sendable>: Sendable {
    var key: String
    var unit = ""
    /// The kind of value, for the key reference: "number", "distribution", ...
    var type: String
    /// The valid range, in the knob's unit (as written in the file).
    var range: ClosedRange<Double>? = nil
    /// The source of the default (`docs/sources.md`), or "assumption".
    var source = ""
    var doc: String
    /// The key on a scenario `device` line that sets the same thing.
    var alias: String? = nil
    /// An element of a list must give it.
    var required = false
    /// The words a `choice` knob takes (nil: not a choice).
    var choices: [String]? = nil
    var read: @Sendable (ConfigEntry, inout Root) throws(InputError) -> Void
    var text: @Sendable (Root) -> KnobText
    /// Copies this knob's value from another root (to start a section over).
    var copy: @Sendable (inout Root, Root) -> Void
    /// Marks a section or list in the key reference (its keys get a table of their own).
    var nested: (@Sendable () -> [ReferenceRow])? = nil
    /// Where the value plausibly lies (`Plausible`), for `jetsim sensitivity`; every
    /// key whose source says "assumption" has one (a test checks).
    var plausible: Plausible? = nil
    /// Multiplies the value by a factor (clamped to the range; a distribution's
    /// location): false when it cannot (`auto`). Set by the numeric kinds.
    var scale: (@Sendable (inout Root, Double) -> Bool)? = nil
    /// The printed workload leaves the key out while it has the section's default
    /// (`Section.lines`; reading it back gives the default): for keys added after the
    /// shard states and golden outputs were recorded whose default changes nothing
    /// (issue 31's idle-band daemons), so those stay byte for byte.
    var omittedAtDefault = false

    /// `omittedAtDefault` set.
    func omittedAtDefaultValue() -> Knob {
        var k = self
        k.omittedAtDefault = true
        return k
    }
}

/// A mapping of knobs: a section of the workload, a list element, or a flow mapping
/// such as `modes`.
struct Section<Root: Sendable>: Sendable {
    var knobs: [Knob<Root>]
    /// The values a section takes when it is read whole (from a file, or by a `--set`
    /// of the whole section): keys left out mean these.
    var template: Root
    /// Checks across keys, after a read or a `--set`: the key (relative to the
    /// section, "" for the section itself) and what is wrong.
    var check: @Sendable (Root) -> (key: String, message: String)? = { _ in nil }
    /// Extra lines after the keys (comments; device classes print what `auto` resolved to).
    var trailer: @Sendable (Root) -> [String] = { _ in [] }

    /// Reads the keys of `node` into `r` (keys left out keep what `r` holds).
    func read(_ f: inout WorkloadDecoder.Fields, into r: inout Root, checkAt: SourceLocation) throws(InputError) {
        for k in knobs where !f.read.contains(k.key) {
            if let e = f.take(k.key) { try k.read(e, &r) }
        }
        try f.finish()
        try validate(r, at: checkAt, path: f.path)
    }

    func validate(_ r: Root, at loc: SourceLocation, path: String) throws(InputError) {
        if let c = check(r) { throw InputError(at: loc, key: Schema.join(path, c.key), c.message) }
    }

    /// The section's YAML lines, without indentation of its own.
    func lines(_ r: Root) -> [String] {
        var out: [String] = []
        for k in knobs {
            let text = k.text(r)
            if k.omittedAtDefault, case .inline(let s) = text, case .inline(let d) = k.text(template), s == d { continue }
            switch text {
            case .inline(let s): out.append("\(k.key): \(s)")
            case .block(let l): out.append("\(k.key):"); out += l.map { "  " + $0 }
            case .omitted: break
            }
        }
        return out + trailer(r)
    }

    /// `{key: value, ...}` on one line.
    func flow(_ r: Root) -> String {
        var pairs: [String] = []
        for k in knobs { if case .inline(let s) = k.text(r) { pairs.append("\(k.key): \(s)") } }
        return "{" + pairs.joined(separator: ", ") + "}"
    }
}

/// A row of the key reference.
struct ReferenceRow {
    var key: String
    var defaultText: String
    var type: String
    var doc: String
    var source: String
    /// The knob's own kind and valid range, for `Schema.keyTable()`.
    var kind = ""
    var range: ClosedRange<Double>? = nil
    var plausible: Plausible? = nil
}

/// One line of `jetsim validate --keys`: a key as `--set` takes it (list keys for
/// element 0), its kind and the ends of its range exactly as a file writes them.
public struct KeyRange: Sendable {
    public var key: String
    public var type: String
    public var min: String?
    public var max: String?
    /// The plausible range (`Plausible.text`) and the groups the key varies with.
    public var plausible: String? = nil
    public var groups: [String] = []
}

// MARK: Knob kinds

extension Knob {
    /// This knob on a part of another root (a named app's archetype keys): no plausible
    /// range (`jetsim sensitivity` varies archetypes, not named apps).
    func lifted<Outer: Sendable>(_ part: KP<Outer, Root>) -> Knob<Outer> {
        let k = self
        return Knob<Outer>(key: key, unit: unit, type: type, range: range, source: source, doc: doc, alias: nil, required: false, choices: choices,
                           read: { e, r throws(InputError) in try k.read(e, &r[keyPath: part]) },
                           text: { k.text($0[keyPath: part]) },
                           copy: { r, from in k.copy(&r[keyPath: part], from[keyPath: part]) })
    }
}

/// A scaled value (`Knob.scale`), rounded to 6 digits and kept in the valid range
/// (MiB keys are rounded to whole MiB first).
func clamp(_ x: Double, _ r: ClosedRange<Double>) -> Double { min(max(Plausible.round(x), r.lowerBound), r.upperBound) }

extension Knob {
    static func number(_ key: String, _ kp: KP<Root, Double>, _ range: ClosedRange<Double>, unit: String = "",
                       alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        Knob(key: key, unit: unit, type: "number", range: range, source: source, doc: doc, alias: alias,
             read: { e, r throws(InputError) in r[keyPath: kp] = try WorkloadDecoder.number(e, range) },
             text: { .inline(WorkloadPrinter.num($0[keyPath: kp])) },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] },
             scale: { r, f in r[keyPath: kp] = clamp(r[keyPath: kp] * f, range); return true })
    }

    /// Seconds in the file, whole microseconds (`SimTime`) in the model: the key writes
    /// the parameter itself. A value reads back as the microseconds it became.
    static func seconds(_ key: String, _ kp: KP<Root, SimTime>, _ range: ClosedRange<Double>, unit: String = "s",
                        alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        Knob(key: key, unit: unit, type: "number", range: range, source: source, doc: doc, alias: alias,
             read: { e, r throws(InputError) in r[keyPath: kp] = SimTime(seconds: try WorkloadDecoder.number(e, range)) },
             text: { .inline(WorkloadPrinter.num($0[keyPath: kp].seconds)) },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] },
             scale: { r, f in r[keyPath: kp] = SimTime(seconds: clamp(r[keyPath: kp].seconds * f, range)); return true })
    }

    /// Milliseconds in the file (a cost per MiB, `ms/MiB`), whole microseconds in the model.
    static func milliseconds(_ key: String, _ kp: KP<Root, SimTime>, _ range: ClosedRange<Double>, unit: String,
                             alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        Knob(key: key, unit: unit, type: "number", range: range, source: source, doc: doc, alias: alias,
             read: { e, r throws(InputError) in r[keyPath: kp] = SimTime(seconds: try WorkloadDecoder.number(e, range) / 1_000) },
             text: { .inline(WorkloadPrinter.num($0[keyPath: kp].milliseconds)) },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] },
             scale: { r, f in r[keyPath: kp] = SimTime(seconds: clamp(r[keyPath: kp].milliseconds * f, range) / 1_000); return true })
    }

    /// A share (0...1) in the file, parts per million in the model (`DeviceClass.ppm`).
    static func share(_ key: String, _ kp: KP<Root, Int32>, alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        let range = 0.0...1.0
        return Knob(key: key, type: "number", range: range, source: source, doc: doc, alias: alias,
                    read: { e, r throws(InputError) in r[keyPath: kp] = DeviceClass.ppm(try WorkloadDecoder.number(e, range)) },
                    text: { .inline(WorkloadPrinter.num(Double($0[keyPath: kp]) / 1_000_000)) },
                    copy: { $0[keyPath: kp] = $1[keyPath: kp] },
                    scale: { r, f in r[keyPath: kp] = DeviceClass.ppm(clamp(Double(r[keyPath: kp]) / 1_000_000 * f, range)); return true })
    }

    /// MiB per second in the file, whole KiB per second in the model (rounded up:
    /// `DeviceClass.kibibytesPerSecond`).
    static func mebibytesPerSecond(_ key: String, _ kp: KP<Root, Int64>, _ range: ClosedRange<Double>,
                                   alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        Knob(key: key, unit: "MiB/s", type: "number", range: range, source: source, doc: doc, alias: alias,
             read: { e, r throws(InputError) in r[keyPath: kp] = DeviceClass.kibibytesPerSecond(try WorkloadDecoder.number(e, range)) },
             text: { .inline(WorkloadPrinter.num(Double($0[keyPath: kp]) / 1_024)) },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] },
             scale: { r, f in r[keyPath: kp] = DeviceClass.kibibytesPerSecond(clamp(Double(r[keyPath: kp]) / 1_024 * f, range)); return true })
    }

    /// A number or `auto` (nil: the model's rule decides).
    static func autoNumber(_ key: String, _ kp: KP<Root, Double?>, _ range: ClosedRange<Double>, unit: String = "",
                           alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        Knob(key: key, unit: unit, type: "number or auto", range: range, source: source, doc: doc, alias: alias,
             read: { e, r throws(InputError) in
                 r[keyPath: kp] = try WorkloadDecoder.auto(e) { n throws(InputError) in try WorkloadDecoder.number(n, range) }
             },
             text: { .inline($0[keyPath: kp].map(WorkloadPrinter.num) ?? "auto") },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] },
             scale: { r, f in
                 guard let v = r[keyPath: kp] else { return false }
                 r[keyPath: kp] = clamp(v * f, range)
                 return true
             })
    }

    /// MiB in the file, KiB in the model.
    static func mebibytes(_ key: String, _ kp: KP<Root, Int64>, _ range: ClosedRange<Double>,
                          alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        Knob(key: key, unit: "MiB", type: "number", range: range, source: source, doc: doc, alias: alias,
             read: { e, r throws(InputError) in r[keyPath: kp] = Int64(try WorkloadDecoder.number(e, range) * 1_024) },
             text: { .inline(WorkloadPrinter.num(Double($0[keyPath: kp]) / 1_024)) },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] },
             scale: { r, f in r[keyPath: kp] = Int64(clamp((Double(r[keyPath: kp]) / 1_024 * f).rounded(), range) * 1_024); return true })
    }

    /// MiB or `auto` in the file, KiB (or nil) in the model.
    static func autoMebibytes(_ key: String, _ kp: KP<Root, Int64?>, _ range: ClosedRange<Double>,
                              alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        Knob(key: key, unit: "MiB", type: "number or auto", range: range, source: source, doc: doc, alias: alias,
             read: { e, r throws(InputError) in
                 r[keyPath: kp] = try WorkloadDecoder.auto(e) { n throws(InputError) in Int64(try WorkloadDecoder.number(n, range) * 1_024) }
             },
             text: { .inline($0[keyPath: kp].map { WorkloadPrinter.num(Double($0) / 1_024) } ?? "auto") },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] },
             scale: { r, f in
                 guard let v = r[keyPath: kp] else { return false }
                 r[keyPath: kp] = Int64(clamp((Double(v) / 1_024 * f).rounded(), range) * 1_024)
                 return true
             })
    }

    /// A whole number kept in 32 bits by the model (its range fits).
    static func integer(_ key: String, _ kp: KP<Root, Int32>, _ range: ClosedRange<Int>, alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        precondition(range.lowerBound >= Int(Int32.min) && range.upperBound <= Int(Int32.max))
        return Knob(key: key, type: "whole number", range: Double(range.lowerBound)...Double(range.upperBound), source: source, doc: doc, alias: alias,
                    read: { e, r throws(InputError) in r[keyPath: kp] = Int32(try WorkloadDecoder.integer(e, range)) },
                    text: { .inline(String($0[keyPath: kp])) },
                    copy: { $0[keyPath: kp] = $1[keyPath: kp] },
                    scale: { r, f in
                        r[keyPath: kp] = Int32(clamp((Double(r[keyPath: kp]) * f).rounded(), Double(range.lowerBound)...Double(range.upperBound)))
                        return true
                    })
    }

    static func integer(_ key: String, _ kp: KP<Root, Int>, _ range: ClosedRange<Int>, alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        Knob(key: key, type: "whole number", range: Double(range.lowerBound)...Double(range.upperBound), source: source, doc: doc, alias: alias,
             read: { e, r throws(InputError) in r[keyPath: kp] = try WorkloadDecoder.integer(e, range) },
             text: { .inline(String($0[keyPath: kp])) },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] },
             scale: { r, f in
                 r[keyPath: kp] = Int(clamp((Double(r[keyPath: kp]) * f).rounded(), Double(range.lowerBound)...Double(range.upperBound)))
                 return true
             })
    }

    /// A distribution; `within` bounds every value it can take (else non-negative).
    static func distribution(_ key: String, _ kp: KP<Root, RealDistribution>, unit: String = "", within: ClosedRange<Double>? = nil,
                             required: Bool = false, source: String = "assumption", _ doc: String) -> Knob {
        Knob(key: key, unit: unit, type: "distribution", range: within ?? 0...1e12, source: source, doc: doc, required: required,
             read: { e, r throws(InputError) in
                 if let within {
                     r[keyPath: kp] = try WorkloadDecoder.distribution(e, within: within)
                 } else {
                     r[keyPath: kp] = try WorkloadDecoder.distribution(e, nonNegative: true)
                 }
             },
             text: { .inline(WorkloadPrinter.dist($0[keyPath: kp])) },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] },
             scale: { r, f in r[keyPath: kp] = r[keyPath: kp].scaledLocation(by: f, within: within); return true })
    }

    /// One word of a few (`options`, in the order the reference lists them); `what`
    /// names the kind in the error ("an OS").
    static func choice<V: Sendable & Equatable>(_ key: String, _ kp: KP<Root, V>, _ options: [(word: String, value: V)], what: String,
                                                alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        let words = options.map(\.word)
        let list = words.dropLast().joined(separator: ", ") + (words.count > 1 ? " or " : "") + (words.last ?? "")
        return Knob(key: key, type: list, source: source, doc: doc, alias: alias, choices: words,
                    read: { e, r throws(InputError) in
                        let w = try WorkloadDecoder.string(e)
                        guard let o = options.first(where: { $0.word == w }) else { throw WorkloadDecoder.error(e, "'\(w)' is not \(what): expected \(list)") }
                        r[keyPath: kp] = o.value
                    },
                    text: { r in .inline(options.first { $0.value == r[keyPath: kp] }?.word ?? "") },
                    copy: { $0[keyPath: kp] = $1[keyPath: kp] })
    }

    /// `true` or `false` (a mechanism switched on or off).
    static func flag(_ key: String, _ kp: KP<Root, Bool>, alias: String? = nil, source: String = "assumption", _ doc: String) -> Knob {
        Knob(key: key, type: "true or false", source: source, doc: doc, alias: alias,
             read: { e, r throws(InputError) in
                 let w = try WorkloadDecoder.string(e)
                 guard w == "true" || w == "false" else { throw WorkloadDecoder.error(e, "'\(w)' is not true or false") }
                 r[keyPath: kp] = w == "true"
             },
             text: { .inline($0[keyPath: kp] ? "true" : "false") },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] })
    }

    static func word(_ key: String, _ kp: KP<Root, String>, required: Bool = false, _ doc: String) -> Knob {
        Knob(key: key, type: "word", source: "", doc: doc, required: required,
             read: { e, r throws(InputError) in r[keyPath: kp] = try WorkloadDecoder.string(e) },
             text: { .inline(WorkloadPrinter.quote($0[keyPath: kp])) },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] })
    }

    /// A section of its own (a mapping of keys).
    static func section<Child: Sendable>(_ key: String, _ kp: KP<Root, Child>, _ s: @escaping @Sendable () -> Section<Child>) -> Knob {
        Knob(key: key, type: "section", doc: "",
             read: { e, r throws(InputError) in
                 let s = s()
                 var child = s.template
                 var f = try WorkloadDecoder.Fields(e.value, path: e.key)
                 try s.read(&f, into: &child, checkAt: e.location)
                 r[keyPath: kp] = child
             },
             text: { .block(s().lines($0[keyPath: kp])) },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] },
             nested: { Schema.rows(s(), path: key) })
    }

    /// A flow mapping of keys of the same model (`modes: {audio: 0, ...}`); read
    /// whole, it starts from the section's template.
    static func group(_ key: String, _ s: @escaping @Sendable () -> Section<Root>, type: String, source: String = "assumption", _ doc: String) -> Knob {
        Knob(key: key, type: type, source: source, doc: doc,
             read: { e, r throws(InputError) in
                 let s = s()
                 for k in s.knobs { k.copy(&r, s.template) }
                 var f = try WorkloadDecoder.Fields(e.value, path: e.key)
                 try s.read(&f, into: &r, checkAt: WorkloadDecoder.valueOrKey(e))
             },
             text: { .inline(s().flow($0)) },
             copy: { r, from in for k in s().knobs { k.copy(&r, from) } })
    }

    /// A list of named elements: `--set LIST.NAME.KEY` or `LIST.INDEX.KEY`.
    static func list<Element: Sendable>(_ key: String, _ kp: KP<Root, [Element]>, _ list: @escaping @Sendable () -> NamedList<Element>) -> Knob {
        Knob(key: key, type: "list", doc: "",
             read: { e, r throws(InputError) in r[keyPath: kp] = try list().read(e) },
             text: { .block(list().lines($0[keyPath: kp])) },
             copy: { $0[keyPath: kp] = $1[keyPath: kp] },
             nested: { Schema.rows(list().element, path: key, required: true) })
    }
}

/// A list whose elements are sections with a `name` (device classes, archetypes).
struct NamedList<Element: Sendable>: Sendable {
    var element: Section<Element>
    var name: KP<Element, String>
    /// "a device class", "an archetype": for messages.
    var what: String
    /// Checks over the whole list (at the list's key).
    var check: @Sendable ([Element]) -> String?

    func readElement(_ node: ConfigNode, path: String) throws(InputError) -> Element {
        var f = try WorkloadDecoder.Fields(node, path: path)
        guard let nameEntry = f.take("name") else { throw InputError(at: node.location, key: path, "\(what) needs a name") }
        var x = element.template
        x[keyPath: name] = try WorkloadDecoder.string(nameEntry)
        f.path = path + "." + x[keyPath: name]
        for k in element.knobs where k.required && k.key != "name" {
            guard let e = f.take(k.key) else { throw InputError(at: node.location, key: f.path + "." + k.key, "missing: \(what) needs \(k.key)") }
            try k.read(e, &x)
        }
        try element.read(&f, into: &x, checkAt: node.location)
        return x
    }

    func read(_ e: ConfigEntry) throws(InputError) -> [Element] {
        let items = try WorkloadDecoder.list(e) { n throws(InputError) in try readElement(n.value, path: e.key) }
        if let message = check(items) { throw WorkloadDecoder.error(e, message) }
        return items
    }

    func lines(_ items: [Element]) -> [String] {
        var out: [String] = []
        for x in items {
            for (i, l) in element.lines(x).enumerated() { out.append((i == 0 ? "- " : "  ") + l) }
        }
        return out
    }
}

// MARK: The table

/// The workload schema: every key of a workload file, declared once.
public enum Schema {
    /// RAM in MiB. How ranges are derived: a range is valid only if the model can
    /// represent every value in it for the longest run (`fleet.duration_days` 36,500).
    /// Per-app resident memory is an Int32 of KiB (2 TiB), so RAM stops at 1 TiB and
    /// a footprint is clamped at 2 TiB (`AppProfile.maxFootprintKB`: an app that large
    /// cannot run on any RAM allowed). Times are Int64 microseconds: every duration a
    /// key or a draw gives (a lognormal with sigma 20 reaches 1e69) saturates at
    /// `SimTime.horizon` (2^60 us, 1,000 longest runs), so adding a few stays in
    /// range. Counters and sums saturate at Int.max (`Int.saturatingSum`); ranges keep
    /// the loss totals below it (`AppProfile.maxEditsPerMinute`), and a total that
    /// still reaches it (latency sums of launches drawn near the horizon, sums of
    /// squares over 10^8 devices) is reported (`CellAccumulator.saturated`). Rates are
    /// bounded by `Workload.maxActionsPerDevice` (checked across keys, see
    /// `Workload.check`), which bounds every buffer a device reserves.
    /// Devices in a fleet: a run's device indices, shard strides and counters stay
    /// far inside Int; 10^8 devices take hours on a machine, the practical limit.
    public static let devicesRange = 1...100_000_000

    public static let ramRangeMB: ClosedRange<Double> = 64...1_048_576

    /// `fleet.duration_days` (and `--duration`), in days: a century is the longest
    /// run; its hours, actions and times stay far inside Int64 (see above).
    public static let durationRangeDays: ClosedRange<Double> = 0.001...36_500

    static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : key.isEmpty ? path : path + "." + key
    }

    static let workload = Section<Workload>(knobs: [
        .word("name", \.name, "the `workload` column of the summary"),
        Knob(key: "seed", type: "whole number", range: 0...Double(UInt64.max), source: "",
             doc: "the seed: same seed and inputs give byte-identical CSV",
             read: { e, w throws(InputError) in
                 // The whole of UInt64, as `--seed` takes it (a state file repeats it).
                 let s = try WorkloadDecoder.scalar(e, expected: "a whole number")
                 guard case .scalar(_, true, _) = e.value, let x = UInt64(s.replacingUnderscores()) else {
                     throw WorkloadDecoder.error(e, "expected a whole number in 0...\(UInt64.max), got '\(s)'")
                 }
                 w.seed = x
             },
             text: { .inline("\($0.seed)") }, copy: { $0.seed = $1.seed }),
        .section("fleet", \.fleet) { Schema.fleet },
        .section("run", \.run) { Schema.run },
        .list("device_classes", \.deviceClasses) { Schema.deviceClasses },
        .section("catalog", \.catalog) { Schema.catalog },
        .section("user", \.user) { Schema.user },
        Knob(key: "policies", type: "section", doc: "each policy's own parameters (see the policies)",
             read: { e, w throws(InputError) in w.policies = try PolicySettings.decode(e) },
             text: { .block($0.policies.yamlLines) }, copy: { $0.policies = $1.policies }),
    ], template: Workload(), check: { w in
        let n = w.expectedActionsPerDevice, wakes = w.expectedSystemWakesPerDevice
        // The idle-band daemons' relaunches, at most the rate times the daemons over the
        // run (every daemon dead and relaunched at its rate): each is an event.
        for (i, c) in w.deviceClasses.enumerated() {
            let relaunches = c.mostIdleDaemonRelaunches(over: w.fleet.duration)
            guard n + wakes + relaunches > Workload.maxActionsPerDevice, relaunches > 0 else { continue }
            return ("device_classes.\(w.deviceClasses[i].name).idle_daemon_relaunches_per_hour",
                    "idle_daemon_relaunches_per_hour x idle_daemon_count over fleet.duration_days allows up to \(WorkloadPrinter.num((relaunches / 1e6).rounded())) million daemon relaunches per device (each an event); with the user's actions and the system wakes at most \(WorkloadPrinter.num(Workload.maxActionsPerDevice / 1e6)) million in all are accepted: lower the rate or the count, or shorten the run")
        }
        guard n + wakes > Workload.maxActionsPerDevice else { return nil }
        if wakes > n {
            return ("catalog.archetypes", "the system wakes (location_wakes_per_day, voip_pushes_per_day, silent_pushes_per_day, background_refreshes_per_day, prewarms_per_day) over the installed apps and fleet.duration_days make about \(WorkloadPrinter.num((wakes / 1e6).rounded())) million per device; with the user's actions at most \(WorkloadPrinter.num(Workload.maxActionsPerDevice / 1e6)) million are accepted: lower the rates or shorten the run")
        }
        let withWakes = wakes >= 0.5e6 ? ", and the system wakes about \(WorkloadPrinter.num((wakes / 1e6).rounded())) million more" : ""
        return ("user", "these rates over fleet.duration_days make about \(WorkloadPrinter.num((n / 1e6).rounded())) million actions per device\(withWakes); at most \(WorkloadPrinter.num(Workload.maxActionsPerDevice / 1e6)) million in all are accepted: lower the rates or shorten the run")
    })

    /// `policies.external.NAME`: a policy run as a separate process
    /// (docs/external-policies.md), selected as `--policy external:NAME`.
    static let externalPolicy = Section<ExternalPolicySpec>(knobs: [
        Knob(key: "command", type: "list of words", source: "",
             doc: "the program and its arguments, run in jetsim's working directory (the program looked up on PATH); the content of each argument that names a file enters the inputs hash",
             required: true,
             read: { e, r throws(InputError) in
                 let words = try WorkloadDecoder.list(e) { n throws(InputError) in try WorkloadDecoder.string(n) }
                 guard !words.isEmpty else { throw WorkloadDecoder.error(e, "expected the program and its arguments, e.g. [python3, Workloads/policies/lru.py]") }
                 r.command = words
             },
             text: { .inline("[" + $0.command.map(WorkloadPrinter.quote).joined(separator: ", ") + "]") },
             copy: { $0.command = $1.command }),
        Knob(key: "timeout_s", unit: "s", type: "number", range: 0.001...86_400, source: "",
             doc: "how long one request (a batch of changes and the victim's answer) may take before the run fails",
             read: { e, r throws(InputError) in r.timeoutS = try WorkloadDecoder.number(e, 0.001...86_400) },
             text: { .inline(WorkloadPrinter.num($0.timeoutS)) }, copy: { $0.timeoutS = $1.timeoutS }),
        Knob<ExternalPolicySpec>.integer("protocol", \.protocolVersion, 1...PolicyProcess.protocolVersion, source: "",
                                         "the protocol version the process speaks: 1; 2 (each victim request gives the simulated time: `victim NOW_US`); or 3 (each update ends with the candidate's oom_score_adj as well); docs/external-policies.md")
            .omittedAtDefaultValue(),
    ], template: ExternalPolicySpec())

    static let fleet = Section<Workload.Fleet>(knobs: [
        .integer("devices", \.devices, Schema.devicesRange, source: "", "devices simulated (about 1 s for all 21 cells on 2 cores)"),
        Knob(key: "duration_days", unit: "days", type: "number", range: Schema.durationRangeDays, source: "", doc: "simulated time per device",
             read: { e, f throws(InputError) in f.duration = SimTime(seconds: try WorkloadDecoder.number(e, Schema.durationRangeDays) * 86_400) },
             text: { .inline(WorkloadPrinter.num($0.duration.seconds / 86_400)) }, copy: { $0.duration = $1.duration }),
    ], template: Workload.Fleet())

    static let run = Section<Workload.RunDefaults>(knobs: [
        Knob(key: "policies", type: "list of policy names, or [all]", source: "", doc: "the policies `jetsim run` runs when --policy does not say",
             read: { e, r throws(InputError) in
                 let names = try WorkloadDecoder.list(e) { n throws(InputError) in try WorkloadDecoder.string(n) }
                 for (i, name) in names.enumerated() where name != "all" && PolicyID(parsing: name) == nil {
                     throw WorkloadDecoder.error(e, "'\(name)' (item \(i)) is not a policy: expected all, one of \(PolicyRegistry.nameList) or external:NAME")
                 }
                 r.policies = names
             },
             text: { .inline("[\($0.policies.joined(separator: ", "))]") }, copy: { $0.policies = $1.policies }),
        Knob(key: "ram_mb", unit: "MiB", type: "list of numbers", range: Schema.ramRangeMB, source: "",
             doc: "RAM sizes to compare when --ram does not say; [] = each class's own RAM",
             read: { e, r throws(InputError) in
                 r.ramKB = try WorkloadDecoder.list(e) { n throws(InputError) in Int64(try WorkloadDecoder.number(n, Schema.ramRangeMB) * 1_024) }
             },
             text: { .inline("[\($0.ramKB.map { WorkloadPrinter.num(Double($0) / 1_024) }.joined(separator: ", "))]") },
             copy: { $0.ramKB = $1.ramKB }),
    ], template: Workload.RunDefaults())

    static let deviceClasses = NamedList(element: deviceClass, name: \.name, what: "a device class") { classes in
        if classes.isEmpty { return "expected at least one device class" }
        if classes.reduce(0, { $0 + $1.share }) <= 0 { return "the shares of the device classes must add up to more than 0" }
        var names = Set<String>()
        for c in classes where !names.insert(c.name).inserted { return "device class '\(c.name)' appears twice" }
        return nil
    }

    static let deviceClass = Section<DeviceClass>(knobs: [
        .word("name", \.name, required: true, "the class's name (used by `--set device_classes.NAME.KEY`)"),
        .number("share", \.share, 0...1e9, source: "", "share of the fleet (normalised over the classes)"),
        .mebibytes("ram_mb", \.ramKB, Schema.ramRangeMB, alias: "ram", source: "iPhone 11: 3844 MB total (StackOverflow q 5887248), rounded",
                   "total RAM"),
        .autoMebibytes("os_reserve_mb", \.osReserveKB, 0...Schema.ramRangeMB.upperBound, alias: "reserve",
                       source: "10 public JetsamEvent reports (carve-out + wired, fitted) plus resident daemons above the idle band, capped by one-app footprints (docs/evidence-reserve-and-wakes.md; scripts/fit-reserve.py)",
                       "memory the OS keeps; auto = 640 / 1024 / 1792 / 2624 at 2 / 3 / 4 / 6 GB, linear between, 31.25% of RAM below 2 GB, 2624 above 6 GB")
            .plausible(.factors(0.625, 1.13), "the reports' ranges: 460-652 MB at 2 GB, 867-1032 at 3 GB, 1120-2028 at 4 GB (x0.625 to x1.13 spans them at 2-4 GB)"),
        .autoNumber("warning_available_pct", \.warningAvailablePct, 0...100, unit: "%", alias: "warning-pct", source: "XNU soft-limit fallback",
                    "memory warnings below this share of RAM available; auto = 15% (<=6 GB), 12% (>6 GB)"),
        .autoNumber("critical_available_pct", \.criticalAvailablePct, 0...100, unit: "%", alias: "critical-pct", source: "XNU critical fallback",
                    "the kill loop runs below this share of RAM available; auto = 5% (<=3 GB), 4% (>3 GB)"),
        .autoNumber("kill_target_available_pct", \.killTargetAvailablePct, 0...100, unit: "%", alias: "target-pct", source: "XNU idle-kill fallback",
                    "XNU's idle level, share of RAM available: below it idle-band apps die (with xnu_bands; without, the kill loop's target); auto = 10% / 9% / 8% (<=3 / <=6 / >6 GB)"),
        .number("per_app_limit_pct", \.perAppLimitPct, 1...100, unit: "%", alias: "app-limit-pct",
                source: "iPhone 11 crash footprint 2068 of 3844 MB (StackOverflow q 5887248); phones 50-68%", "per-app memory limit, share of RAM: an app over it is killed (per-process-limit) on iOS (XNU) and the plain model; Android and Fleet have none (lmkd.cpp:2475-2511) and use it only to size apps (app_fit_pct)"),
        .number("app_fit_pct", \.appFitPct, 1...1_000, unit: "%", alias: "app-fit-pct",
                source: "assumption: apps fit the devices they support (Apple, Reducing your app's memory use)",
                "an app's peak footprint on a device is at most this share of its per-app limit; larger apps scale every footprint down to it (above 100: apps may exceed the limit)")
            .plausible(.values("75", "100"), "how far under the limit apps stay is not published: 75-100% of it"),
        .number("memory_warning_free_share", \.memoryWarningFreeShare, 0...1, alias: "warning-free-share",
                "share of what it can free that an app frees on a warning")
            .plausible(.factors(0.4, 1.6), "apps free from a fifth to most of what they can on a warning; nothing published"),
        .number("suspended_compression_ratio", \.suspendedCompressionRatio, 1...100, alias: "compression",
                source: "WKdm about 2:1 (Apple, OS X Mavericks Core Technology Overview)",
                "suspended memory compression ratio: 1 = no compressor; 2 models iOS's compressor"),
    ] + Schema.xnuDecompressionKnobs + [
        .number("launch_jitter_sigma", \.launchJitterSigma, 0...5, alias: "launch-jitter",
                "launch-to-launch latency variation, lognormal sigma (0: exact latencies)")
            .plausible(.factors(0.5, 2), "launch-to-launch spread is not published: a quiet to a noisy device"),
        .number("background_grace_s", \.backgroundGraceS, 0...86_400, unit: "s", alias: "grace", source: "\"about ten seconds\" (seed 004)",
                "time in the background before suspension without background work"),
        .number("enter_background_limit_s", \.enterBackgroundLimitS, 0...86_400, unit: "s", alias: "enter-bg-limit", source: "~5 s (Apple)",
                "didEnterBackground must return within this, or the watchdog kills the app"),
        .number("will_terminate_limit_s", \.willTerminateLimitS, 0...86_400, unit: "s", alias: "will-terminate-limit",
                source: "\"limited (albeit undocumented)\" (seed 000; assumption 5 s)", "willTerminate's time; longer saves do not complete")
            .plausible(.factors(0.5, 2), "undocumented: a few seconds"),
        .choice("ios", \.ios, BackgroundTimePreset.allCases.map { (String($0.rawValue.dropFirst(3)), $0) }, what: "an iOS preset", alias: "ios",
                source: "Apple: 600 s, 180 s, 30 s", "background-task allowance preset: 4-6 = 600 s, 7-12 = 180 s, 13+ = 30 s"),
        .autoNumber("bg_task_allowance_s", \.bgTaskAllowanceS, 0...86_400, unit: "s", alias: "bg-allowance", source: "",
                    "background-task allowance, overriding the preset; auto = the preset's"),
    ] + Schema.xnuKnobs + [
        .flag("memory_growth", \.memoryGrowth, alias: "growth", source: "assumption (no published curve)",
              "the app in front grows from its launch footprint toward its peak (archetype peak_share), so limit and pressure kills happen mid-session")
            .plausible(.values("false", "true"), "no published growth curve: without growth and with it"),
        .number("growth_time_s", \.growthTimeS, 0.001...86_400, unit: "s", alias: "growth-time", source: "assumption (no published curve)", "time in front to reach the peak (linear)")
            .plausible(.factors(0.5, 2), "no published curve: 1-4 min to the peak"),
        .number("growth_step_s", \.growthStepS, 0.001...86_400, unit: "s", alias: "growth-step", source: "assumption", "one growth step (an event) per this while in front")
            .plausible(.factors(0.5, 2), "a modelling step: a finer or coarser one should not change the answer"),
        .number("page_cache_window_s", \.pageCacheWindowS, 0...3_153_600_000, unit: "s", alias: "cache-window",
                source: "Apple WWDC16 406 (a warm launch finds the app in the kernel's disk cache); 600 s: assumption",
                "a cold launch less than this after a kill is `cached` (files still in the page cache: faster, cached_launch_share); 0 = off; a power-off empties the cache")
            .plausible(.factors(0.5, 3), "how long a killed app's files stay cached under pressure is not published: 5-30 min"),
        .number("system_wake_run_s", \.systemWakeRunS, 0...86_400, unit: "s", alias: "wake-run",
                source: "Apple, application(_:didReceiveRemoteNotification:fetchCompletionHandler:): up to 30 s",
                "how long an app the system launched or woke into the background runs before it is suspended"),
        .flag("prewarming", \.prewarming, alias: "prewarming",
              source: "Apple, About the app launch sequence (iOS 15 and later)",
              "iOS 15 and later prewarm apps (archetype prewarms_per_day); false: an earlier iOS, or the ablation; never on os: android"),
    ] + Schema.androidKnobs + Schema.fleetKnobs, template: DeviceClass(), check: { c in
        let d = c.parameters()
        // `parameters()` clamps the reserve below the RAM: check what was written.
        if let r = c.osReserveKB, r >= c.ramKB {
            return ("os_reserve_mb", "the OS reserve (\(SizeText.mebibytes(r)) MiB) must be smaller than the RAM (\(SizeText.mebibytes(c.ramKB)) MiB): every launch would fail")
        }
        if let why = c.idleDaemonShareProblem { return ("idle_daemon_count", why) }
        if !d.idleDaemonsFit {
            return ("idle_daemons_mb", "the idle-band daemons (\(SizeText.mebibytes(d.xnu.idleDaemonsKB)) MiB) and the OS reserve (\(SizeText.mebibytes(d.osReserveKB)) MiB) must be smaller than the RAM (\(SizeText.mebibytes(d.ramKB)) MiB)")
        }
        if d.android.swapFileWithWriteback {
            return ("android_zram_writeback", "zram writeback writes zram's pages to flash; with android_swap_file there is no zram: set one of them")
        }
        if d.criticalAvailablePct > d.killTargetAvailablePct {
            return ("", "critical_available_pct must not exceed kill_target_available_pct (the loop kills until the target)")
        }
        return nil
    }, trailer: { c in
        let p = c.parameters()
        let num = WorkloadPrinter.num
        return ["# resolved: reserve \(num(Double(p.osReserveKB) / 1_024)) MB, warning \(num(p.warningAvailablePct))%, critical \(num(p.criticalAvailablePct))%, target \(num(p.killTargetAvailablePct))%, allowance \(p.bgTaskAllowance)"]
    })

    static let catalog = Section<Catalog>(knobs: [
        .integer("apps", \.apps, 1...10_000_000, source: "", "apps in the catalog"),
        .number("popularity_zipf_exponent", \.popularityZipfExponent, 0...10, "global popularity, Zipf over catalog rank")
            .plausible(.values("0.7", "1.1"), "popularity is Zipf-like with an exponent near 1; nothing pins it for apps"),
        .distribution("installed_per_device", \.installedPerDevice, source: "Falaki et al.: 10-90 apps used per user",
                      "apps each device installs (clamped to 1...apps)"),
        .list("archetypes", \.archetypes) { Schema.archetypes },
        // After `archetypes` (read first): a named app starts from its archetype's keys.
        Knob(key: "named_apps", type: "list", source: "", doc: "apps declared by name (none by default)",
             read: { e, c throws(InputError) in c.namedApps = try Schema.readNamedApps(e, archetypes: c.archetypes) },
             text: { $0.namedApps.isEmpty ? .omitted : .block(Schema.namedAppList.lines($0.namedApps)) },
             copy: { $0.namedApps = $1.namedApps },
             nested: { Schema.rows(Section(knobs: Schema.namedApp.knobs.filter { Schema.namedAppOwnKeys.contains($0.key) }, template: NamedApp()),
                                   path: "catalog.named_apps", required: true) }),
    ], template: Catalog())

    /// The keys a named app has of its own; the others are an archetype's (but `share`).
    static let namedAppOwnKeys: Set<String> = ["name", "archetype", "install_share", "user_rank"]

    /// `catalog.named_apps`: each element's `archetype` is read first, then its other
    /// keys over that archetype's values.
    static let namedApp = Section<NamedApp>(knobs: [
        .word("name", \.name, required: true, "the app's name: its `--by app` row, and a replayed app of this name takes its profile"),
        .word("archetype", \.archetype, required: true, "the archetype whose keys it starts from (keys left out take that archetype's values) and under which `--by archetype` counts it"),
        .number("install_share", \.installShare, 0...1, source: "", "share of devices that install it (each device draws from its own stream)"),
        .integer("user_rank", \.userRank, 1...1_000_000, source: "",
                 "its place in the ranking of installed apps of every user who installs it (1: the app the user opens most; past the device's apps: last); the user's app_choice gives each place its share of use"),
    ] + archetype.knobs.filter { $0.key != "name" && $0.key != "share" }.map { $0.lifted(\NamedApp.profile) },
    template: NamedApp())

    static let namedAppList = NamedList(element: namedApp, name: \.name, what: "a named app") { _ in nil }

    /// Reads `catalog.named_apps` against the archetypes just read.
    static func readNamedApps(_ e: ConfigEntry, archetypes: [Archetype]) throws(InputError) -> [NamedApp] {
        let apps = try WorkloadDecoder.list(e) { n throws(InputError) -> NamedApp in
            var f = try WorkloadDecoder.Fields(n.value, path: e.key)
            guard let nameEntry = f.take("name") else { throw InputError(at: n.value.location, key: e.key, "a named app needs a name") }
            var x = NamedApp()
            x.name = try WorkloadDecoder.string(nameEntry)
            f.path = e.key + "." + x.name
            guard let kind = f.take("archetype") else {
                throw InputError(at: n.value.location, key: f.path + ".archetype", "missing: a named app needs archetype (the archetype whose keys it starts from: \(archetypes.map(\.name).joined(separator: ", ")))")
            }
            x.archetype = try WorkloadDecoder.string(kind)
            guard let a = archetypes.first(where: { $0.name == x.archetype }) else {
                let near = KeySuggestion.nearest(x.archetype, among: archetypes.map(\.name))
                throw WorkloadDecoder.error(kind, "unknown archetype '\(x.archetype)'" + (near.isEmpty ? "" : " (did you mean \(near.joined(separator: " or "))?)")
                                            + "; the workload's archetypes: \(archetypes.map(\.name).joined(separator: ", "))")
            }
            x.profile = a
            try namedApp.read(&f, into: &x, checkAt: n.value.location)
            return x
        }
        var names = Set<String>()
        for x in apps {
            if !names.insert(x.name).inserted { throw WorkloadDecoder.error(e, "named app '\(x.name)' appears twice") }
            if x.name == NamedApp.restGroup { throw WorkloadDecoder.error(e, "'\(NamedApp.restGroup)' names the drawn apps' row of --by app: give the app another name") }
            if AppCatalog.looksDrawn(x.name) {
                throw WorkloadDecoder.error(e, "'\(x.name)' has the form of a drawn app's name (ARCHETYPE-NUMBER): give the app another name")
            }
        }
        return apps
    }

    static let archetypes = NamedList(element: archetype, name: \.name, what: "an archetype") { list in
        if list.isEmpty { return "expected at least one archetype" }
        if list.reduce(0, { $0 + $1.share }) <= 0 { return "the archetype shares must add up to more than 0" }
        return nil
    }

    /// What an archetype's keys mean when left out.
    static let archetypeTemplate = Archetype(name: "", share: 0, activeMB: .constant(0))

    static let archetype = Section<Archetype>(knobs: [
        .word("name", \.name, required: true, "the archetype's name; apps are named `NAME-NNNN`"),
        Knob(key: "share", type: "number", range: 0...1e9, source: "", doc: "share of the catalog", required: true,
             read: { e, a throws(InputError) in a.share = try WorkloadDecoder.number(e, 0...1e9) },
             text: { .inline(WorkloadPrinter.num($0.share)) }, copy: { $0.share = $1.share }),
        .distribution("active_mb", \.activeMB, unit: "MiB", required: true,
                      source: "assumption: no per-app figures are published; sized against the per-app crash limits",
                      "active footprint, reached during launch")
            .plausible(.factors(0.75, 1.33), "no per-app figures: every app a quarter lighter to a third heavier"),
        .distribution("background_share", \.backgroundShare, within: 0...1, "background footprint as a share of the active one, caches trimmed")
            .plausible(.factors(0.6, 1.5), "how much an app trims in the background is not published"),
        .distribution("peak_share", \.peakShare, within: 1...100, "the footprint it grows toward in a session, as a multiple of active_mb")
            .plausible(.values("1", "{uniform: [1, 2]}"), "no published curve: from no growth to doubling in a session"),
        .distribution("suspended_share", \.suspendedShare, within: 0...1, source: "seed 004; share an assumption",
                      "suspended footprint as a share of the active one: \"resources it does not need while suspended are destroyed\"")
            .plausible(.factors(0.5, 2), "seed 004 says resources are destroyed, not how many"),
        .distribution("cold_launch_ms", \.coldLaunchMs, unit: "ms", source: "Apple's first-frame target 400 ms, WWDC19 423; Android vitals: cold >= 5 s is excessive",
                      "launch from no process, before state restoration"),
        .number("cached_launch_share", \.cachedLaunchShare, 0...1,
                source: "Apple WWDC16 406 (warm launch); 0.5: assumption (Android vitals' excessive warm 2 s / cold 5 s = 0.4)",
                "launch from no process with its files still in the page cache (kind `cached`, see page_cache_window_s), as a share of cold_launch_ms")
            .plausible(.factors(0.6, 1.4), "0.3-0.7: Android vitals' 2 s / 5 s = 0.4 is one device's ratio"),
        .distribution("state_restore_ms", \.stateRestoreMs, unit: "ms", "extra cold-launch time to restore saved UI state")
            .plausible(.factors(0.5, 2), "restoring UI state is not timed anywhere published"),
        .distribution("warm_launch_ms", \.warmLaunchMs, unit: "ms", source: "Android vitals: warm >= 2 s is excessive", "resume from suspended"),
        .distribution("hot_launch_ms", \.hotLaunchMs, unit: "ms", source: "Android vitals: hot >= 1.5 s is excessive", "resume while still running in the background"),
        .distribution("enter_background_handler_ms", \.enterBackgroundHandlerMs, unit: "ms",
                      "how long didEnterBackground runs (a save there adds to it; over 5 s the watchdog kills)")
            .plausible(.factors(0.5, 2), "handler times are not published"),
        .number("bg_task_probability", \.bgTaskProbability, 0...1, "probability that a trip to the background begins a background task")
            .plausible(.factors(0.5, 2), "how often apps begin background tasks is not published"),
        .number("bg_task_median_s", \.bgTaskMedianS, 0...86_400, unit: "s",
                "the task's work, lognormal median; past the allowance the expiration handler runs and the app is killed")
            .plausible(.factors(0.5, 2), "background-task lengths are not published"),
        .number("bg_task_sigma", \.bgTaskSigma, 0...10, "the task's work, lognormal sigma")
            .plausible(.factors(0.5, 1.5), "background-task lengths are not published"),
        .group("modes", { Schema.modes }, type: "{audio: P, location: P, voip: P}", source: "seed 003",
               "probability that an app has each background mode (at most 1 in total)"),
        .number("mode_activity_median_s", \.modeActivityMedianS, 0...1e7, unit: "s", "how long the mode's activity lasts after entering the background (median)")
            .plausible(.factors(0.5, 2), "how long audio, location and VoIP activity lasts is not published"),
        .number("mode_activity_sigma", \.modeActivitySigma, 0...10, "how long the mode's activity lasts (lognormal sigma)")
            .plausible(.factors(0.5, 1.5), "how long mode activity lasts is not published"),
        .number("exits_on_suspend_probability", \.exitsOnSuspendProbability, 0...1, source: "seeds 002, 003", "UIApplicationExitsOnSuspend"),
        .number("location_wakes_per_day", \.locationWakesPerDay, 0...10_000, unit: "per day", source: "seed 000 (significant location change); rate: assumption within Apple's bounds: a significant change needs >= 500 m and >= 5 min (<= 288 a day), and the Energy Guide says at least one per 15 min (96 a day)",
                "per app: the system launches or wakes it into the background for a significant location change")
            .plausible(.factors(0, 12), "no published rate; the bound sets the range (issue 31): Apple's Energy Guide, at least one wake per 15 min while monitoring (96 a day: x12 of maps' 8), and none without a location mode (docs/evidence-reserve-and-wakes.md)"),
        .number("voip_pushes_per_day", \.voipPushesPerDay, 0...10_000, unit: "per day", source: "assumption within PushKit's rule: every VoIP push is reported to CallKit as an incoming call, so at most the user's calls",
                "per app with the voip mode: PushKit VoIP pushes that launch or wake it")
            .plausible(.factors(0, 4), "no published rate"),
        .number("silent_pushes_per_day", \.silentPushesPerDay, 0...10_000, unit: "per day", source: "assumption within Apple's bound: \"don't try to send more than two or three per hour\" (<= 72 a day), and the system may throttle",
                "per app: silent (content-available) pushes that launch or wake it into the background")
            .plausible(.factors(0, 4), "no published rate; the system throttles them"),
        .number("background_refreshes_per_day", \.backgroundRefreshesPerDay, 0...10_000, unit: "per day", source: "assumption: iOS schedules refreshes from use and publishes no rate (Android's job quota: 1 a day rare, 12 working set)",
                "per app: background app refreshes that launch or wake it into the background")
            .plausible(.factors(0, 4), "no published rate; the system schedules them by use"),
        .number("prewarms_per_day", \.prewarmsPerDay, 0...10_000, unit: "per day",
                source: "Apple, About the app launch sequence (iOS 15 prewarming); rate: assumption",
                "per app: prewarms arrive at the sum of the device's apps' rates; each goes to the app of a random past launch of the user's if it is not running (process created, stopped before main, no delegate message; none below the warning level); the rates only set how often the device prewarms, not which app; 0 on every archetype (or prewarming: false) = off")
            .plausible(.factors(0, 4), "Apple gives no prewarm rate"),
        .number("prewarm_footprint_share", \.prewarmFootprintShare, 0...1, source: "assumption (no published figure)",
                "what a prewarmed process holds, as a share of active_mb (its pre-main footprint)")
            .plausible(.factors(0.5, 2), "a prewarmed process's footprint is not published"),
        .number("prewarm_saving_share", \.prewarmSavingShare, 0...1,
                source: "assumption: 74 ms pre-main (useyourloaf.com, WWDC16 406) of Apple's 400 ms target (WWDC19 423)",
                "share of cold_launch_ms a launch of a prewarmed app saves (the pre-main part it already did)")
            .plausible(.factors(0.5, 2), "74 ms of a 400 ms target is one measurement"),
        .number("bg_task_ends_on_expiry_probability", \.bgTaskEndsOnExpiryProbability, 0...1,
                source: "behaviour: Apple, UIApplication.beginBackgroundTask(expirationHandler:); share 0.8: assumption",
                "share of apps whose expiration handler ends the background task: suspended when the allowance runs out; the others are killed (bg-task-expired)")
            .plausible(.factors(0.75, 1.25), "0.6-1: how many apps end their task on expiry is not published"),
        .group("save_strategy", { Schema.saveStrategy }, type: "{STRATEGY: WEIGHT, ...}", source: "assumption; seed 003 recommends didEnterBackground",
               "weights of each save strategy: \(SaveStrategy.allCases.map(\.name).joined(separator: ", "))")
            .plausible(.values("{on-resign-active: 0.25, on-enter-background: 0.6, on-terminate: 0.05, periodic: 0.1}", "{on-resign-active: 0.05, on-enter-background: 0.5, on-terminate: 0.15, periodic: 0.05, never: 0.25}"), "careful apps (none never save) to careless ones (a quarter never save); no survey published"),
        Knob(key: "save_also", type: "list of save strategies", source: "",
             doc: "strategies every app of this kind saves with besides its drawn save_strategy (\(SaveStrategy.allCases.filter { $0 != .never }.map(\.name).joined(separator: ", "))); [] = the drawn one alone. Its lost edits still count under the drawn strategy",
             read: { e, a throws(InputError) in
                 var set: SaveSet = []
                 for (i, w) in try WorkloadDecoder.list(e, { n throws(InputError) in try WorkloadDecoder.string(n) }).enumerated() {
                     guard let st = SaveStrategy(name: w), st != .never else {
                         throw WorkloadDecoder.error(e, "'\(w)' (item \(i)) is not a save strategy to add: expected \(SaveStrategy.allCases.filter { $0 != .never }.map(\.name).joined(separator: ", "))")
                     }
                     set.insert(SaveSet(st))
                 }
                 a.saveAlso = set
             },
             text: { .inline("[\($0.saveAlso.strategies.map(\.name).joined(separator: ", "))]") },
             copy: { $0.saveAlso = $1.saveAlso })
            .omittedAtDefaultValue(),
        .distribution("save_ms", \.saveMs, unit: "ms", "how long a save takes; lost if the app is suspended or killed first")
            .plausible(.factors(0.5, 2), "save times are not published"),
        .number("save_interval_s", \.saveIntervalS, 0.001...1e7, unit: "s", "period of `periodic` saves while in front")
            .plausible(.factors(0.5, 2), "autosave periods differ by app; none published"),
        .distribution("unsaved_edits_per_min", \.unsavedEditsPerMin, unit: "per min", within: 0...AppProfile.maxEditsPerMinute,
                      "unsaved work created per active minute: the unit of data loss; a draw above 1,000 is clamped there (so no loss total saturates)")
            .plausible(.factors(0.5, 2), "the unit of data loss; nothing measures it"),
        .number("preserves_ui_state_probability", \.preservesUIStateProbability, 0...1,
                "probability that a cold relaunch restores the user's place (else a state loss after a system kill)")
            .plausible(.factors(0.7, 1.3), "how many apps restore state is not published"),
    ], template: archetypeTemplate)

    static let modes = Section<Archetype>(knobs: [
        .number("audio", \.modeAudio, 0...1, "probability of the audio background mode")
            .plausible(.factors(0.5, 1.5), "seed 003 names the modes, not how many apps use them"),
        .number("location", \.modeLocation, 0...1, "probability of the location background mode")
            .plausible(.factors(0.5, 1.5), "seed 003 names the modes, not how many apps use them"),
        .number("voip", \.modeVoip, 0...1, "probability of the voip background mode")
            .plausible(.factors(0.5, 1.5), "seed 003 names the modes, not how many apps use them"),
    ], template: archetypeTemplate, check: { a in
        a.modeAudio + a.modeLocation + a.modeVoip > 1 + 1e-9 ? ("", "the mode probabilities must add up to at most 1") : nil
    })

    static let saveStrategy: Section<Archetype> = {
        var template = archetypeTemplate
        template.saveStrategy = [:]
        return Section(knobs: SaveStrategy.allCases.map { s in
            Knob(key: s.name, type: "number", range: 0...1e9, source: "", doc: "weight of \(s.name)",
                 read: { e, a throws(InputError) in a.saveStrategy[s] = try WorkloadDecoder.number(e, 0...1e9) },
                 text: { a in a.saveStrategy[s].map { .inline(WorkloadPrinter.num($0)) } ?? .omitted },
                 copy: { $0.saveStrategy[s] = $1.saveStrategy[s] })
        }, template: template, check: { a in
            a.saveStrategy.values.reduce(0, +) <= 0 ? ("", "the save strategy weights must add up to more than 0") : nil
        })
    }()

    static let user = Section<UserBehaviour>(knobs: [
        .number("sessions_per_day", \.sessionsPerDay, 0...100_000, unit: "per day",
                source: "calibrated: Böhmer: 59 min/day (jetsim usage-stats)", "session attempts per day of the median user"),
        .number("wake_hour", \.wakeHour, 0...24, unit: "hour", "sessions arrive in [wake_hour, sleep_hour)")
            .plausible(.values("6", "8"), "an hour either way of a typical day"),
        .number("sleep_hour", \.sleepHour, 0...24, unit: "hour", "end of the waking window")
            .plausible(.values("22", "24"), "an hour either way of a typical day"),
        .number("single_app_session_share", \.singleAppSessionShare, 0...1, source: "Falaki: ~90% of interactions touch one app",
                "share of sessions that touch one app only"),
        .number("extra_apps_mean", \.extraAppsMean, 0...1_000, "extra apps in a multi-app session, geometric mean")
            .plausible(.factors(0.6, 1.5), "Falaki gives the single-app share, not the length of the others"),
        .distribution("dwell_s", \.dwellS, unit: "s", source: "calibrated: LiveLab: half of engagements < 30 s, 90% < 4 min; Böhmer: mean 71.6 s", "time in one app (the median user's; see dwell_sigma)"),
        Knob(key: "app_choice", type: "{exponential: {decay: D}} or {zipf: {exponent: S}}", source: "Falaki: per-user app popularity fits an exponential; decay calibrated: Kim et al.: 14-18 apps a week",
             doc: "how the user picks the next app by personal rank: P(r) ~ exp(-r/D) or 1/r^S",
             read: { v, u throws(InputError) in
                 let (kind, params) = try WorkloadDecoder.tagged(v, kinds: ["exponential", "zipf"])
                 var p = try WorkloadDecoder.Fields(params, path: "user.app_choice.\(kind)")
                 if kind == "exponential" {
                     guard let d = p.take("decay") else { throw InputError(at: params.location, key: "user.app_choice.exponential.decay", "missing") }
                     u.appChoice = .exponential(decay: try WorkloadDecoder.number(d, 0.001...1e9))
                 } else {
                     guard let e = p.take("exponent") else { throw InputError(at: params.location, key: "user.app_choice.zipf.exponent", "missing") }
                     u.appChoice = .zipf(exponent: try WorkloadDecoder.number(e, 0...100))
                 }
                 try p.finish()
             },
             text: { u in
                 switch u.appChoice {
                 case .exponential(let d): .inline("{exponential: {decay: \(WorkloadPrinter.num(d))}}")
                 case .zipf(let s): .inline("{zipf: {exponent: \(WorkloadPrinter.num(s))}}")
                 }
             },
             copy: { $0.appChoice = $1.appChoice }),
        .number("switcher_share", \.switcherShare, 0...1, "switches made through the app switcher")
            .plausible(.factors(0.5, 2), "how often users switch through the switcher is not published"),
        .number("resume_front_share", \.resumeFrontShare, 0...1, "unlocks that go on with the app left in front")
            .plausible(.factors(0.6, 1.4), "how often an unlock goes on with the same app is not published"),
        .number("home_before_lock_share", \.homeBeforeLockShare, 0...1, "sessions ending with Home before the lock")
            .plausible(.factors(0.6, 1.4), "how sessions end is not published"),
        .number("calls_per_day", \.callsPerDay, 0...100_000, unit: "per day", "calls over the waking window")
            .plausible(.factors(0.5, 2), "interruption rates differ by user; none measured here"),
        .number("sms_per_day", \.smsPerDay, 0...100_000, unit: "per day", "SMS over the waking window")
            .plausible(.factors(0.5, 2), "interruption rates differ by user; none measured here"),
        .number("alerts_per_day", \.alertsPerDay, 0...100_000, unit: "per day", "calendar and other alerts over the waking window")
            .plausible(.factors(0.5, 2), "interruption rates differ by user; none measured here"),
        .number("answer_call_share", \.answerCallShare, 0...1, "share of calls answered")
            .plausible(.factors(0.6, 1.4), "answer rates are not published"),
        .number("answer_sms_share", \.answerSmsShare, 0...1, "share of SMS the user taps")
            .plausible(.factors(0.6, 1.4), "answer rates are not published"),
        .number("answer_alert_share", \.answerAlertShare, 0...1, "share of alerts the user taps")
            .plausible(.factors(0.5, 2), "answer rates are not published"),
        .distribution("response_delay_s", \.responseDelayS, unit: "s", "time until the user ignores or answers an interruption")
            .plausible(.factors(0.5, 2), "response times are not published"),
        .distribution("call_duration_s", \.callDurationS, unit: "s", "an answered call")
            .plausible(.factors(0.5, 2), "call lengths differ by user"),
        .distribution("sms_reply_s", \.smsReplyS, unit: "s", "replying to a tapped SMS")
            .plausible(.factors(0.5, 2), "reply times are not published"),
        .distribution("alert_handling_s", \.alertHandlingS, unit: "s", "dealing with a tapped alert")
            .plausible(.factors(0.5, 2), "handling times are not published"),
        .number("return_after_interruption_share", \.returnAfterInterruptionShare, 0...1,
                "share of answered interruptions after which the user goes back to the same app")
            .plausible(.factors(0.75, 1.25), "0.6-1: how often users go back is not published"),
        .number("switcher_removals_per_day", \.switcherRemovalsPerDay, 0...100_000, unit: "per day", "apps swiped away in the switcher")
            .plausible(.factors(0, 3), "some users never swipe apps away, some do it out of habit"),
        .number("orientation_changes_per_hour_of_use", \.orientationChangesPerHourOfUse, 0...100_000, unit: "per hour of use",
                source: "seed 000", "broadcast to every app; coalesced while suspended"),
        .number("locale_changes_per_day", \.localeChangesPerDay, 0...100_000, unit: "per day", "locale changes, broadcast to every app")
            .plausible(.factors(0, 10), "rare: never to a few times a month"),
        .number("notifications_per_day", \.notificationsPerDay, 0...100_000, unit: "per day", "to apps by the user's preference")
            .plausible(.factors(0.5, 2), "notification counts differ by user and study"),
        .number("location_changes_per_day", \.locationChangesPerDay, 0...100_000, unit: "per day", "significant location changes, broadcast")
            .plausible(.factors(0.5, 2), "how much users travel differs"),
        .number("sessions_per_day_sigma", \.sessionsPerDaySigma, 0...3,
                source: "Falaki: 10-200 interactions/day across users as p10-p90: ln(20)/2.563",
                "spread of sessions a day across users: each user's rate is sessions_per_day x a lognormal factor (median 1, this sigma); 0: all alike"),
        .number("dwell_sigma", \.dwellSigma, 0...3, source: "assumption; Falaki: mean interaction 10-250 s across users",
                "spread of the typical app-session length across users: each user scales dwell_s by a lognormal factor (median 1, this sigma)")
            .plausible(.factors(0.5, 1.5), "the share of Falaki's spread that is between users is not published"),
        .number("app_choice_sigma", \.appChoiceSigma, 0...3, source: "Falaki: 10-90 apps used per user, ln(9)/3.29",
                "spread of app concentration across users: each user scales app_choice's decay (divides its zipf exponent) by a lognormal factor"),
        .number("interruptions_sigma", \.interruptionsSigma, 0...3, source: "assumption",
                "spread across users of calls, SMS and alerts a day: a lognormal factor (median 1, this sigma) on all three")
            .plausible(.factors(0.5, 1.5), "the spread of interruptions across users is not published"),
        .number("user_spread_clamp_sigmas", \.userSpreadClampSigmas, 0...6, source: "assumption",
                "each user's factors are drawn within this many sigmas of the median (bounds the busiest user)")
            .plausible(.values("2", "4"), "a bound on the busiest user, not a measurement"),
    ], template: UserBehaviour(), check: { u in
        u.sleepHour <= u.wakeHour
            ? ("sleep_hour", "must be later than wake_hour (\(u.wakeHour)); the waking window is [wake_hour, sleep_hour)") : nil
    })

    // MARK: The key reference

    static func rows<Root: Sendable>(_ s: Section<Root>, path: String, required: Bool = false) -> [ReferenceRow] {
        var out: [ReferenceRow] = []
        for k in s.knobs {
            let key = join(path, k.key)
            if let nested = k.nested { out += nested(); continue }
            var type = k.type
            if let r = k.range, type != "word" {
                type += " in \(WorkloadDecoder.format(r.lowerBound))...\(WorkloadDecoder.format(r.upperBound))"
            }
            if !k.unit.isEmpty { type += " (\(k.unit))" }
            let def: String
            if required && k.required { def = "(required)" } else {
                switch k.text(s.template) {
                case .inline(let t): def = "`\(t)`"
                case .block(let l): def = "`" + l.joined(separator: " ") + "`"
                case .omitted: def = ""
                }
            }
            out.append(ReferenceRow(key: key, defaultText: def, type: type, doc: k.doc, source: k.source,
                                    kind: k.type, range: k.type == "word" ? nil : k.range, plausible: k.plausible))
        }
        return out
    }

    /// The key reference's tables: title, introduction, rows.
    static func referenceTables() -> [(title: String, intro: String, rows: [ReferenceRow])] {
        let top = workload.knobs.filter { $0.nested == nil && $0.key != "policies" }
        let classes = rows(deviceClass, path: "device_classes", required: true).map { r in
            var r = r
            if let a = deviceClass.knobs.first(where: { "device_classes." + $0.key == r.key })?.alias { r.doc += " (scenario `device` key: `\(a)`)" }
            return r
        }
        return [
            ("Top level", "", rows(Section(knobs: top, template: Workload()), path: "")),
            ("fleet", "", rows(fleet, path: "fleet")),
            ("run", "The cells `jetsim run` runs when the command line does not say.", rows(run, path: "run")),
            ("device_classes", "A list; each device of the fleet draws its class by `share`. With `--ram`, every class runs at that RAM (thresholds that are `auto` follow it). A scenario's `device` line sets the keys that name a scenario key, in its units (SIZE, DUR).",
             classes),
            ("catalog", "", rows(Section(knobs: catalog.knobs.filter { $0.nested == nil }, template: Catalog()), path: "catalog")),
            ("catalog.archetypes", "A list of archetypes. `name`, `share` and `active_mb` are required; other keys take the template values listed here (in full under `social` in `default.yaml`).",
             rows(archetype, path: "catalog.archetypes", required: true)),
            ("catalog.archetypes.modes", "", rows(modes, path: "catalog.archetypes.modes")),
            ("catalog.named_apps", "A list of apps declared by name (none by default; `Workloads/examples/my-app.yaml` has one). `name` and `archetype` are required; every archetype key but `share` may follow, its value the app's own (left out: the archetype's). A distribution is drawn once for the app (a number: the app as declared). Each named app is installed in addition to the device's drawn apps; its footprints are never scaled to the device (`app_fit_pct`: a run says where one exceeds the fit).",
             rows(Section(knobs: namedApp.knobs.filter { namedAppOwnKeys.contains($0.key) }, template: NamedApp()), path: "catalog.named_apps", required: true)),
            ("user", "", rows(user, path: "user")),
            ("policies.external", "Policies run as separate processes, each under a NAME of its own (letters, digits, `-`, `_`), selected as `--policy external:NAME` ([docs/external-policies.md](../docs/external-policies.md)). None by default.",
             rows(externalPolicy, path: "policies.external.NAME", required: true)),
        ]
    }

    /// Every key path of the reference (list elements without their name).
    public static func referenceKeys() -> [String] {
        referenceTables().flatMap { $0.rows.map(\.key) }
    }

    /// Every key of the table with its kind and range (`jetsim validate --keys`, the
    /// fuzz harness, the extremes test). The key is the `--set` path: a list's keys
    /// are given for its first element (`device_classes.0.ram_mb`).
    public static func keyTable() -> [KeyRange] {
        referenceTables().flatMap(\.rows).map { r in
            var key = r.key
            for list in ["device_classes.", "catalog.archetypes.", "catalog.named_apps.", "policies.external."] where key.hasPrefix(list) {
                if list == "policies.external." { key = list + "example." + key.dropFirst(list.count + "NAME.".count); break }
                key = list + "0." + key.dropFirst(list.count)
            }
            func text(_ x: Double) -> String {
                // Whole-number keys print exactly (the seed's top is UInt64.max, which
                // a Double rounds up to 2^64).
                if r.kind == "whole number" { return x >= 0x1p64 ? String(UInt64.max) : String(Int64(x)) }
                return WorkloadDecoder.format(x)
            }
            return KeyRange(key: key, type: r.kind, min: r.range.map { text($0.lowerBound) }, max: r.range.map { text($0.upperBound) },
                            plausible: r.plausible?.text, groups: plausibleGroups.filter { $0.keys.contains(r.key) }.map(\.name))
        }
    }

    /// The key reference of `Workloads/README.md`, generated from the table.
    public static func markdownReference() -> String {
        var o = ""
        for (title, intro, rows) in referenceTables() {
            o += "### \(title)\n\n"
            if !intro.isEmpty { o += intro + "\n\n" }
            o += "| key | default | type, range (unit) | meaning | source |\n|---|---|---|---|---|\n"
            for r in rows {
                o += "| `\(r.key)` | \(r.defaultText) | \(r.type) | \(r.doc.replacingOccurrences(of: "|", with: "\\|")) | \(r.source) |\n"
            }
            o += "\n"
        }
        return o + plausibleReference()
    }

    /// The plausible ranges and groups (`jetsim sensitivity`), generated from the table.
    static func plausibleReference() -> String {
        var o = "### Plausible ranges\n\n"
        o += "Where a value nobody has measured plausibly lies: the low and high ends `jetsim sensitivity` runs, "
        o += "declared on each key beside its valid range. `xA...xB` is relative: each device class's or archetype's own value "
        o += "(an `auto` one as resolved at the RAM run) times A and B, kept within the valid range; a distribution scales its "
        o += "location (median, mean, bounds) and keeps its shape (sigma, sd). `A...B` gives both ends as a file writes them, the "
        o += "same for every class or archetype. Every key whose source says *assumption* has one (a test checks).\n\n"
        o += "| key | default | plausible | why | groups |\n|---|---|---|---|---|\n"
        for (_, _, rows) in referenceTables() {
            for r in rows {
                guard let p = r.plausible else { continue }
                let groups = plausibleGroups.filter { $0.keys.contains(r.key) }.map { "`\($0.name)`" }.joined(separator: ", ")
                o += "| `\(r.key)` | \(r.defaultText) | `\(p.text.replacingOccurrences(of: "|", with: "\\|"))` | \(p.why) | \(groups) |\n"
            }
        }
        o += "\n### Plausible groups\n\nKeys that vary together, all at the group's factor (each element's own value times it).\n\n"
        o += "| group | keys | plausible | why |\n|---|---|---|---|\n"
        for g in plausibleGroups {
            o += "| `\(g.name)` | \(g.keys.map { "`\($0)`" }.joined(separator: ", ")) | `\(g.text)` | \(g.why) |\n"
        }
        return o + "\n"
    }
}
