import SimKernel

/// Reads a workload from its located tree. Every key is known or an error; every
/// value is checked for type and range; each error names the file, the line, the
/// key path and what was expected. Keys left out keep their defaults (`Workload()`,
/// which equals `Workloads/default.yaml`).
public enum WorkloadDecoder {
    /// Reads workload text, applies `--set` overrides, and decodes.
    public static func load(_ text: String, source: String, overrides: [String] = []) throws(InputError) -> Workload {
        let tree = try ConfigTree.parse(text, source: source)
        let w = try decode(tree)
        if overrides.isEmpty { return w }
        // Overrides apply to the fully resolved workload, so any key can be set, even
        // one the file leaves to its default (say, an element of a list it omits).
        var full = ConfigTree.relocate(try ConfigTree.parse(WorkloadPrinter.yaml(w), source: source), to: SourceLocation(source))
        for o in overrides { try ConfigTree.applyOverride(o, to: &full) }
        return try decode(full)
    }

    public static func decode(_ root: ConfigNode) throws(InputError) -> Workload {
        var w = Workload()
        var top = try Fields(root, path: "")
        if let v = top.take("name") { w.name = try string(v) }
        if let v = top.take("seed") { w.seed = UInt64(try integer(v, 0...Int.max)) }
        if let v = top.take("fleet") {
            var f = try Fields(v.value, path: "fleet")
            if let d = f.take("devices") { w.fleet.devices = try integer(d, 1...100_000_000) }
            if let d = f.take("duration_days") { w.fleet.duration = SimTime(seconds: try number(d, 0.001...36_500) * 86_400) }
            try f.finish()
        }
        if let v = top.take("run") {
            var f = try Fields(v.value, path: "run")
            if let p = f.take("policies") {
                w.run.policies = try list(p) { n throws(InputError) in try string(n) }
                for (i, name) in w.run.policies.enumerated() where name != "all" && PolicyID(rawValue: name) == nil {
                    throw error(p, "'\(name)' (item \(i)) is not a policy: expected all or one of \(PolicyRegistry.nameList)")
                }
            }
            if let r = f.take("ram_mb") {
                w.run.ramKB = try list(r) { n throws(InputError) in Int64(try number(n, 64...16_777_216) * 1_024) }
            }
            try f.finish()
        }
        if let v = top.take("device_classes") {
            w.deviceClasses = try list(v) { n throws(InputError) in try deviceClass(n.value, path: "device_classes") }
            if w.deviceClasses.isEmpty { throw error(v, "expected at least one device class") }
            if w.deviceClasses.reduce(0, { $0 + $1.share }) <= 0 { throw error(v, "the shares of the device classes must add up to more than 0") }
            var names = Set<String>()
            for c in w.deviceClasses where !names.insert(c.name).inserted {
                throw error(v, "device class '\(c.name)' appears twice")
            }
        }
        if let v = top.take("catalog") { w.catalog = try catalog(v) }
        if let v = top.take("user") { w.user = try user(v) }
        if let v = top.take("policies") { w.policies = try PolicySettings.decode(v) }
        try top.finish()
        return w
    }

    // MARK: Sections

    static func deviceClass(_ node: ConfigNode, path: String) throws(InputError) -> DeviceClass {
        var c = DeviceClass()
        var f = try Fields(node, path: path)
        if let v = f.take("name") { c.name = try string(v) } else { throw InputError(at: node.location, key: path, "a device class needs a name") }
        f.path = path + "." + c.name
        if let v = f.take("share") { c.share = try number(v, 0...1e9) }
        if let v = f.take("ram_mb") { c.ramKB = Int64(try number(v, 64...16_777_216) * 1_024) }
        if let v = f.take("os_reserve_mb") { c.osReserveKB = try auto(v) { n throws(InputError) in Int64(try number(n, 0...16_777_216) * 1_024) } }
        if let v = f.take("warning_available_pct") { c.warningAvailablePct = try auto(v) { n throws(InputError) in try number(n, 0...100) } }
        if let v = f.take("critical_available_pct") { c.criticalAvailablePct = try auto(v) { n throws(InputError) in try number(n, 0...100) } }
        if let v = f.take("kill_target_available_pct") { c.killTargetAvailablePct = try auto(v) { n throws(InputError) in try number(n, 0...100) } }
        if let v = f.take("per_app_limit_pct") { c.perAppLimitPct = try number(v, 1...100) }
        if let v = f.take("memory_warning_free_share") { c.memoryWarningFreeShare = try number(v, 0...1) }
        if let v = f.take("suspended_compression_ratio") { c.suspendedCompressionRatio = try number(v, 1...100) }
        if let v = f.take("decompress_ms_per_mb") { c.decompressMsPerMB = try number(v, 0...1_000) }
        if let v = f.take("launch_jitter_sigma") { c.launchJitterSigma = try number(v, 0...5) }
        if let v = f.take("background_grace_s") { c.backgroundGraceS = try number(v, 0...86_400) }
        if let v = f.take("enter_background_limit_s") { c.enterBackgroundLimitS = try number(v, 0...86_400) }
        if let v = f.take("will_terminate_limit_s") { c.willTerminateLimitS = try number(v, 0...86_400) }
        if let v = f.take("ios") {
            let s = try string(v)
            guard let p = BackgroundTimePreset(rawValue: "ios" + s) else { throw error(v, "'\(s)' is not an iOS preset: expected 4-6, 7-12 or 13+") }
            c.ios = p
        }
        if let v = f.take("bg_task_allowance_s") { c.bgTaskAllowanceS = try auto(v) { n throws(InputError) in try number(n, 0...86_400) } }
        try f.finish()
        let d = c.parameters()
        if d.osReserveKB >= d.ramKB { throw InputError(at: node.location, key: path + "." + c.name + ".os_reserve_mb", "the OS reserve must be smaller than the RAM") }
        if d.criticalAvailablePct > d.killTargetAvailablePct {
            throw InputError(at: node.location, key: path + "." + c.name, "critical_available_pct must not exceed kill_target_available_pct (the loop kills until the target)")
        }
        return c
    }

    static func catalog(_ node: ConfigEntry) throws(InputError) -> Catalog {
        var c = Catalog()
        var f = try Fields(node.value, path: "catalog")
        if let v = f.take("apps") { c.apps = try integer(v, 1...10_000_000) }
        if let v = f.take("popularity_zipf_exponent") { c.popularityZipfExponent = try number(v, 0...10) }
        if let v = f.take("installed_per_device") { c.installedPerDevice = try distribution(v, nonNegative: true) }
        if let v = f.take("archetypes") {
            c.archetypes = try list(v) { n throws(InputError) in try archetype(n.value) }
            if c.archetypes.isEmpty { throw error(v, "expected at least one archetype") }
            if c.archetypes.reduce(0, { $0 + $1.share }) <= 0 { throw error(v, "the archetype shares must add up to more than 0") }
        }
        try f.finish()
        return c
    }

    static func archetype(_ node: ConfigNode) throws(InputError) -> Archetype {
        var f = try Fields(node, path: "catalog.archetypes")
        guard let nameEntry = f.take("name") else { throw InputError(at: node.location, key: "catalog.archetypes", "an archetype needs a name") }
        let name = try string(nameEntry)
        f.path = "catalog.archetypes." + name
        guard let shareEntry = f.take("share") else { throw InputError(at: node.location, key: f.path + ".share", "missing: an archetype needs a share") }
        guard let activeEntry = f.take("active_mb") else { throw InputError(at: node.location, key: f.path + ".active_mb", "missing: an archetype needs active_mb") }
        var a = Archetype(name: name, share: try number(shareEntry, 0...1e9), activeMB: try distribution(activeEntry, nonNegative: true))
        if let v = f.take("background_share") { a.backgroundShare = try distribution(v, within: 0...1) }
        if let v = f.take("suspended_share") { a.suspendedShare = try distribution(v, within: 0...1) }
        if let v = f.take("cold_launch_ms") { a.coldLaunchMs = try distribution(v, nonNegative: true) }
        if let v = f.take("state_restore_ms") { a.stateRestoreMs = try distribution(v, nonNegative: true) }
        if let v = f.take("warm_launch_ms") { a.warmLaunchMs = try distribution(v, nonNegative: true) }
        if let v = f.take("hot_launch_ms") { a.hotLaunchMs = try distribution(v, nonNegative: true) }
        if let v = f.take("enter_background_handler_ms") { a.enterBackgroundHandlerMs = try distribution(v, nonNegative: true) }
        if let v = f.take("bg_task_probability") { a.bgTaskProbability = try number(v, 0...1) }
        if let v = f.take("bg_task_median_s") { a.bgTaskMedianS = try number(v, 0...86_400) }
        if let v = f.take("bg_task_sigma") { a.bgTaskSigma = try number(v, 0...10) }
        if let v = f.take("modes") {
            var m = try Fields(v.value, path: f.path + ".modes")
            if let x = m.take("audio") { a.modeAudio = try number(x, 0...1) }
            if let x = m.take("location") { a.modeLocation = try number(x, 0...1) }
            if let x = m.take("voip") { a.modeVoip = try number(x, 0...1) }
            try m.finish()
            if a.modeAudio + a.modeLocation + a.modeVoip > 1 + 1e-9 { throw error(v, "the mode probabilities must add up to at most 1") }
        }
        if let v = f.take("mode_activity_median_s") { a.modeActivityMedianS = try number(v, 0...1e7) }
        if let v = f.take("mode_activity_sigma") { a.modeActivitySigma = try number(v, 0...10) }
        if let v = f.take("exits_on_suspend_probability") { a.exitsOnSuspendProbability = try number(v, 0...1) }
        if let v = f.take("save_strategy") {
            var m = try Fields(v.value, path: f.path + ".save_strategy")
            var weights: [SaveStrategy: Double] = [:]
            for s in SaveStrategy.allCases {
                if let x = m.take(s.name) { weights[s] = try number(x, 0...1e9) }
            }
            try m.finish()
            if weights.values.reduce(0, +) <= 0 { throw error(v, "the save strategy weights must add up to more than 0") }
            a.saveStrategy = weights
        }
        if let v = f.take("save_ms") { a.saveMs = try distribution(v, nonNegative: true) }
        if let v = f.take("save_interval_s") { a.saveIntervalS = try number(v, 0.001...1e7) }
        if let v = f.take("unsaved_edits_per_min") { a.unsavedEditsPerMin = try distribution(v, nonNegative: true) }
        if let v = f.take("preserves_ui_state_probability") { a.preservesUIStateProbability = try number(v, 0...1) }
        try f.finish()
        return a
    }

    static func user(_ node: ConfigEntry) throws(InputError) -> UserBehaviour {
        var u = UserBehaviour()
        var f = try Fields(node.value, path: "user")
        if let v = f.take("sessions_per_day") { u.sessionsPerDay = try number(v, 0...100_000) }
        if let v = f.take("wake_hour") { u.wakeHour = try number(v, 0...24) }
        if let v = f.take("sleep_hour") { u.sleepHour = try number(v, 0...24) }
        if let v = f.take("single_app_session_share") { u.singleAppSessionShare = try number(v, 0...1) }
        if let v = f.take("extra_apps_mean") { u.extraAppsMean = try number(v, 0...1_000) }
        if let v = f.take("dwell_s") { u.dwellS = try distribution(v, nonNegative: true) }
        if let v = f.take("app_choice") {
            let (kind, params) = try tagged(v, kinds: ["exponential", "zipf"])
            var p = try Fields(params, path: "user.app_choice.\(kind)")
            if kind == "exponential" {
                guard let d = p.take("decay") else { throw InputError(at: params.location, key: "user.app_choice.exponential.decay", "missing") }
                u.appChoice = .exponential(decay: try number(d, 0.001...1e9))
            } else {
                guard let e = p.take("exponent") else { throw InputError(at: params.location, key: "user.app_choice.zipf.exponent", "missing") }
                u.appChoice = .zipf(exponent: try number(e, 0...100))
            }
            try p.finish()
        }
        if let v = f.take("switcher_share") { u.switcherShare = try number(v, 0...1) }
        if let v = f.take("resume_front_share") { u.resumeFrontShare = try number(v, 0...1) }
        if let v = f.take("home_before_lock_share") { u.homeBeforeLockShare = try number(v, 0...1) }
        if let v = f.take("calls_per_day") { u.callsPerDay = try number(v, 0...100_000) }
        if let v = f.take("sms_per_day") { u.smsPerDay = try number(v, 0...100_000) }
        if let v = f.take("alerts_per_day") { u.alertsPerDay = try number(v, 0...100_000) }
        if let v = f.take("answer_call_share") { u.answerCallShare = try number(v, 0...1) }
        if let v = f.take("answer_sms_share") { u.answerSmsShare = try number(v, 0...1) }
        if let v = f.take("answer_alert_share") { u.answerAlertShare = try number(v, 0...1) }
        if let v = f.take("response_delay_s") { u.responseDelayS = try distribution(v, nonNegative: true) }
        if let v = f.take("call_duration_s") { u.callDurationS = try distribution(v, nonNegative: true) }
        if let v = f.take("sms_reply_s") { u.smsReplyS = try distribution(v, nonNegative: true) }
        if let v = f.take("alert_handling_s") { u.alertHandlingS = try distribution(v, nonNegative: true) }
        if let v = f.take("return_after_interruption_share") { u.returnAfterInterruptionShare = try number(v, 0...1) }
        if let v = f.take("switcher_removals_per_day") { u.switcherRemovalsPerDay = try number(v, 0...100_000) }
        if let v = f.take("orientation_changes_per_hour_of_use") { u.orientationChangesPerHourOfUse = try number(v, 0...100_000) }
        if let v = f.take("locale_changes_per_day") { u.localeChangesPerDay = try number(v, 0...100_000) }
        if let v = f.take("notifications_per_day") { u.notificationsPerDay = try number(v, 0...100_000) }
        if let v = f.take("location_changes_per_day") { u.locationChangesPerDay = try number(v, 0...100_000) }
        try f.finish()
        if u.sleepHour <= u.wakeHour {
            throw InputError(at: node.location, key: "user.sleep_hour", "must be later than wake_hour (\(u.wakeHour)); the waking window is [wake_hour, sleep_hour)")
        }
        return u
    }

    // MARK: Values

    /// The keys of one mapping, read one by one; `finish` rejects any left unread.
    struct Fields {
        var entries: [ConfigEntry]
        var path: String
        var location: SourceLocation
        var read: Set<String> = []

        init(_ node: ConfigNode, path: String) throws(InputError) {
            self.path = path
            location = node.location
            switch node {
            case .mapping(let e, _): entries = e
            case .null: entries = []
            default: throw InputError(at: node.location, key: path.isEmpty ? nil : path, "expected a mapping of keys, got \(node.kindName)")
            }
        }

        mutating func take(_ key: String) -> ConfigEntry? {
            read.insert(key)
            guard var e = entries.first(where: { $0.key == key }) else { return nil }
            e.key = path.isEmpty ? key : path + "." + key
            return e
        }

        func finish() throws(InputError) {
            if let unknown = entries.first(where: { !read.contains($0.key) }) {
                let full = path.isEmpty ? unknown.key : path + "." + unknown.key
                let known = read.sorted().joined(separator: ", ")
                throw InputError(at: unknown.location, key: full, "unknown key; expected one of: \(known)")
            }
        }
    }

    static func error(_ e: ConfigEntry, _ message: String) -> InputError {
        // Where the value came from (a --set flag, or its line), else where its key is.
        let v = e.value.location, k = e.location
        return InputError(at: v.line == nil && k.line != nil && v.source == k.source ? k : v, key: e.key, message)
    }

    static func scalar(_ e: ConfigEntry, expected: String) throws(InputError) -> String {
        switch e.value {
        case .scalar(let s, _, _): return s
        default: throw error(e, "expected \(expected), got \(e.value.kindName)")
        }
    }

    static func string(_ e: ConfigEntry) throws(InputError) -> String {
        let s = try scalar(e, expected: "a word")
        if s.isEmpty { throw error(e, "expected a non-empty word") }
        return s
    }

    static func number(_ e: ConfigEntry, _ range: ClosedRange<Double>) throws(InputError) -> Double {
        let s = try scalar(e, expected: "a number in \(format(range.lowerBound))...\(format(range.upperBound))")
        guard case .scalar(_, true, _) = e.value, let x = Double(s.replacingUnderscores()), x.isFinite else {
            throw error(e, "expected a number in \(format(range.lowerBound))...\(format(range.upperBound)), got '\(s)'")
        }
        guard range.contains(x) else {
            throw error(e, "\(s) is out of range: expected a number in \(format(range.lowerBound))...\(format(range.upperBound))")
        }
        return x
    }

    static func integer(_ e: ConfigEntry, _ range: ClosedRange<Int>) throws(InputError) -> Int {
        let s = try scalar(e, expected: "a whole number")
        guard case .scalar(_, true, _) = e.value, let x = Int(s.replacingUnderscores()) else {
            throw error(e, "expected a whole number in \(range.lowerBound)...\(range.upperBound), got '\(s)'")
        }
        guard range.contains(x) else { throw error(e, "\(x) is out of range: expected \(range.lowerBound)...\(range.upperBound)") }
        return x
    }

    /// `auto` (nil: the default rule) or a value.
    static func auto<T>(_ e: ConfigEntry, _ read: (ConfigEntry) throws(InputError) -> T) throws(InputError) -> T? {
        if case .scalar("auto", _, _) = e.value { return nil }
        if case .null = e.value { return nil }
        do { return try read(e) } catch {
            throw InputError(source: error.source, line: error.line, key: error.key, error.message + " (or auto)")
        }
    }

    static func list<T>(_ e: ConfigEntry, _ read: (ConfigEntry) throws(InputError) -> T) throws(InputError) -> [T] {
        guard case .sequence(let items, _) = e.value else {
            if case .null = e.value { return [] }
            throw error(e, "expected a list, got \(e.value.kindName)")
        }
        var out: [T] = []
        for (i, item) in items.enumerated() {
            out.append(try read(ConfigEntry(key: "\(e.key).\(i)", value: item, location: item.location)))
        }
        return out
    }

    /// A mapping with exactly one key, one of `kinds`: `{lognormal: {...}}`.
    static func tagged(_ e: ConfigEntry, kinds: [String]) throws(InputError) -> (String, ConfigNode) {
        guard case .mapping(let entries, _) = e.value, entries.count == 1, kinds.contains(entries[0].key) else {
            throw error(e, "expected one of \(kinds.map { "{\($0): ...}" }.joined(separator: ", "))")
        }
        return (entries[0].key, entries[0].value)
    }

    static let distributionKinds = ["constant", "uniform", "exponential", "normal", "lognormal", "empirical"]

    /// A number (constant), or `{lognormal: {median: M, sigma: S}}`, `{uniform: [LOW, HIGH]}`,
    /// `{exponential: {mean: M}}`, `{normal: {mean: M, sd: S}}`, `{empirical: [V, ...]}`.
    static func distribution(_ e: ConfigEntry, nonNegative: Bool = false, within: ClosedRange<Double>? = nil) throws(InputError) -> RealDistribution {
        let bounds = within ?? (nonNegative ? 0...1e12 : -1e12...1e12)
        if case .scalar = e.value { return .constant(try number(e, bounds)) }
        let (kind, params) = try tagged(e, kinds: distributionKinds)
        let key = e.key + "." + kind
        let sub = ConfigEntry(key: key, value: params, location: params.location)
        switch kind {
        case "constant":
            return .constant(try number(sub, bounds))
        case "uniform":
            let v = try list(sub) { n throws(InputError) in try number(n, bounds) }
            guard v.count == 2, v[0] <= v[1] else { throw error(sub, "expected [LOW, HIGH] with LOW <= HIGH") }
            return .uniform(low: v[0], high: v[1])
        case "empirical":
            let v = try list(sub) { n throws(InputError) in try number(n, bounds) }
            guard !v.isEmpty else { throw error(sub, "expected a non-empty list of values") }
            return .empirical(v)
        default:
            var f = try Fields(params, path: key)
            var d: RealDistribution
            switch kind {
            case "exponential":
                guard let m = f.take("mean") else { throw InputError(at: params.location, key: key + ".mean", "missing") }
                d = .exponential(mean: try number(m, 0...1e12))
            case "normal":
                guard let m = f.take("mean"), let s = f.take("sd") else { throw InputError(at: params.location, key: key, "expected {mean: M, sd: S}") }
                d = .normal(mean: try number(m, -1e12...1e12), sd: try number(s, 0...1e12))
                if nonNegative || within != nil {
                    throw InputError(at: params.location, key: key, "a normal distribution can go out of range here; use lognormal, uniform or empirical")
                }
            default:  // lognormal
                guard let m = f.take("median"), let s = f.take("sigma") else { throw InputError(at: params.location, key: key, "expected {median: M, sigma: S}") }
                d = .lognormal(median: try number(m, 0...1e12), sigma: try number(s, 0...20))
                if let within, within.upperBound <= 1 {
                    throw InputError(at: params.location, key: key, "a lognormal can exceed \(format(within.upperBound)) here; use uniform, constant or empirical")
                }
            }
            try f.finish()
            return d
        }
    }

    static func format(_ x: Double) -> String {
        if x == x.rounded() && abs(x) < 1e15 { return String(Int64(x)) }
        return String(x)
    }
}

extension InputError {
    init(at loc: SourceLocation, key: String?, _ message: String) {
        self.init(source: loc.source, line: loc.line, key: key, message)
    }
}

extension String {
    func replacingUnderscores() -> String { String(filter { $0 != "_" }) }
}
