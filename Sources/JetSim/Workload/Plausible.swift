import Foundation
import SimKernel

/// Where a value nobody has measured plausibly lies: the range `jetsim sensitivity`
/// tries, declared on the key's knob in the schema table beside its valid range
/// (`Knob.plausible`), with a one-line reason. The valid range says what the model can
/// run; the plausible range says what a reader should believe the device does.
public struct Plausible: Sendable, Equatable {
    public enum Ends: Sendable, Equatable {
        /// Both ends as a workload file writes them, the same for every element of a
        /// list (device classes, archetypes).
        case values(String, String)
        /// Each element's own value times these factors, clamped to the valid range;
        /// a distribution scales its location (median, mean, bounds) and keeps its
        /// shape (a lognormal's sigma, a normal's sd). Where archetypes or device
        /// classes differ, the range is relative to each one's value.
        case factors(Double, Double)
    }

    public var ends: Ends
    public var why: String

    /// `400...700` or `x0.5...x2`.
    public var text: String {
        switch ends {
        case .values(let a, let b): return "\(a)...\(b)"
        case .factors(let a, let b): return "x\(WorkloadPrinter.num(a))...x\(WorkloadPrinter.num(b))"
        }
    }

    /// A scaled value to 6 significant digits, so `x1.5` of 0.1 prints 0.15, not
    /// 0.15000000000000002.
    static func round(_ x: Double) -> Double { Double(String(format: "%.6g", x)) ?? x }
}

/// Keys that vary together, all at the same factor (their relative ranges are
/// replaced by the group's): all system-wake rates, say. Declared once, in
/// `Schema.plausibleGroups`; `jetsim sensitivity` varies a group as one more row.
public struct PlausibleGroup: Sendable {
    public var name: String
    /// Reference keys (`catalog.archetypes.location_wakes_per_day`): each must be a
    /// key of the table (a test checks).
    public var keys: [String]
    public var low: Double
    public var high: Double
    public var why: String

    public var text: String { "x\(WorkloadPrinter.num(low))...x\(WorkloadPrinter.num(high))" }
}

extension Knob {
    /// The same knob with a plausible range: `.number(...).plausible(.factors(0.5, 2), "why")`.
    func plausible(_ ends: Plausible.Ends, _ why: String) -> Knob {
        var k = self
        k.plausible = Plausible(ends: ends, why: why)
        return k
    }
}

extension RealDistribution {
    /// The distribution of `factor` times a draw, except a normal, whose mean moves and
    /// sd stays: the location scaled, the shape kept. Constant, uniform and empirical
    /// values are clamped to `within` when given.
    func scaledLocation(by f: Double, within: ClosedRange<Double>?) -> RealDistribution {
        func c(_ x: Double) -> Double {
            let y = Plausible.round(x * f)
            guard let within else { return y }
            return Swift.min(Swift.max(y, within.lowerBound), within.upperBound)
        }
        switch self {
        case .constant(let v): return .constant(c(v))
        case .uniform(let lo, let hi): return .uniform(low: c(lo), high: c(hi))
        case .exponential(let m): return .exponential(mean: Plausible.round(m * f))
        case .normal(let m, let sd): return .normal(mean: Plausible.round(m * f), sd: sd)
        case .lognormal(let m, let s): return .lognormal(median: Plausible.round(m * f), sigma: s)
        case .empirical(let v): return .empirical(v.map(c))
        }
    }
}

/// A knob with a plausible range, or a member of a group, bound to where it lives in
/// a workload: for each element (one for a section, each class or archetype for a
/// list), its `--set` path and the text of its value at an end.
public struct PlausibleKey: Sendable {
    /// The reference key (`device_classes.os_reserve_mb`).
    public let key: String
    public let plausible: Plausible?
    /// "path=text" for every element, at `ends`' low or high end (or times a group's
    /// factor); nil where a value cannot be scaled (`auto`, a switch).
    let settings: @Sendable (_ w: Workload, _ ramKB: Int64?, _ ends: Plausible.Ends, _ high: Bool) -> [String]?
}

extension Schema {
    /// Every knob with a plausible range, and every knob a group names, in the
    /// reference's order.
    public static func plausibleKeys() -> [PlausibleKey] {
        var out: [PlausibleKey] = []
        func add<Root>(_ s: Section<Root>, path: String, elements: @escaping @Sendable (Workload, Int64?) -> [(set: String, root: Root)]) {
            for k in s.knobs where k.nested == nil {
                let key = join(path, k.key)
                out.append(PlausibleKey(key: key, plausible: k.plausible) { w, ram, ends, high in
                    var sets: [String] = []
                    for (setPath, root) in elements(w, ram) {
                        let here = join(setPath, k.key)
                        switch ends {
                        case .values(let a, let b): sets.append(here + "=" + (high ? b : a))
                        case .factors(let a, let b):
                            guard let scale = k.scale else { return nil }
                            var r = root
                            guard scale(&r, high ? b : a) else { return nil }
                            guard case .inline(let t) = k.text(r) else { return nil }
                            sets.append(here + "=" + t)
                        }
                    }
                    return sets
                })
            }
        }
        add(Section(knobs: workload.knobs.filter { $0.nested == nil && $0.key != "policies" }, template: Workload()), path: "") { w, _ in [("", w)] }
        add(fleet, path: "fleet") { w, _ in [("fleet", w.fleet)] }
        add(run, path: "run") { w, _ in [("run", w.run)] }
        add(deviceClass, path: "device_classes") { w, ram in
            w.deviceClasses.enumerated().map { ("device_classes.\($0.offset)", $0.element.resolvingAuto(ramKB: ram)) }
        }
        add(Section(knobs: catalog.knobs.filter { $0.nested == nil }, template: Catalog()), path: "catalog") { w, _ in [("catalog", w.catalog)] }
        add(archetype, path: "catalog.archetypes") { w, _ in
            w.catalog.archetypes.enumerated().map { ("catalog.archetypes.\($0.offset)", $0.element) }
        }
        add(modes, path: "catalog.archetypes.modes") { w, _ in
            w.catalog.archetypes.enumerated().map { ("catalog.archetypes.\($0.offset).modes", $0.element) }
        }
        add(user, path: "user") { w, _ in [("user", w.user)] }
        return out.filter { k in k.plausible != nil || plausibleGroups.contains { $0.keys.contains(k.key) } }
    }

    /// Whether a key's source marks it an assumption (the keys that need a plausible range).
    static func isAssumption(_ source: String) -> Bool { source.lowercased().contains("assumption") }

    /// The keys that vary together (`jetsim sensitivity` varies each group as a row of
    /// its own, beside its keys one at a time).
    public static let plausibleGroups: [PlausibleGroup] = [
        PlausibleGroup(name: "system-wakes",
                       keys: ["catalog.archetypes.location_wakes_per_day", "catalog.archetypes.voip_pushes_per_day",
                              "catalog.archetypes.silent_pushes_per_day", "catalog.archetypes.background_refreshes_per_day"],
                       low: 0, high: 4,
                       why: "every system launch and wake into the background; no published rate for any of them (issue 30 measured x0 and x4)"),
        PlausibleGroup(name: "interruptions",
                       keys: ["user.calls_per_day", "user.sms_per_day", "user.alerts_per_day"],
                       low: 0.5, high: 2,
                       why: "a busier or calmer user is interrupted more or less by every channel at once"),
        PlausibleGroup(name: "memory-io-costs",
                       keys: ["device_classes.decompress_ms_per_mb", "device_classes.thaw_ms_per_mb",
                              "device_classes.android_swap_in_ms_per_mb", "device_classes.android_flash_swap_in_ms_per_mb",
                              "device_classes.android_zram_compress_ms_per_mb"],
                       low: 0.5, high: 2,
                       why: "compressor and flash speeds move together with the device's generation"),
    ]
}

extension DeviceClass {
    /// The class with its `auto` values resolved at `ramKB` (nil: its own RAM), so that
    /// a relative plausible range scales what the model runs with.
    func resolvingAuto(ramKB: Int64?) -> DeviceClass {
        let p = parameters(ramKB: ramKB)
        var c = self
        c.osReserveKB = c.osReserveKB ?? p.osReserveKB
        return c
    }
}
