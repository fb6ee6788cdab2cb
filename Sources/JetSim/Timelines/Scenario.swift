import Foundation
import SimKernel

/// A scripted scenario: one device, a few named apps and a timeline of user actions,
/// as a user writes it to check the lifecycle against the seeds by reading the trace.
///
/// ```
/// # comment
/// device ram=2GB policy=lru
/// app Mail save=on-enter-background bg-task=20s
/// app Music mode=audio mode-time=5m
/// app Game exits-on-suspend
/// 0s    launch Mail
/// 5s    home
/// 30s   notify Music orientation landscape
/// 60s   end
/// ```
///
/// See `Workloads/scenarios/README.md` for every key and its default.
public struct Scenario: Sendable {
    public var source: String
    public var appNames: [String] = []
    public var profiles: [AppProfile] = []
    public var params = Scenario.baseDeviceClass.parameters()
    public var policy = PolicyID(JetsamBands.self)
    public var actions: [UserAction] = []
    /// Event values by id (id 0 is "no value").
    public var values: [String] = [""]
    /// `notify` lines per app index, to refuse more than an app can hold.
    var notifyLines: [Int: Int] = [:]
    /// Ids a held event's value can take (`HeldEvents` stores it in a UInt8).
    public static let maxNotifyValues = Int(UInt8.max) + 1
    /// Events one app can hold (`HeldEvents` counts them in a UInt32 per kind); a
    /// scenario gives at most this many `notify` lines to one app, so no count saturates.
    public static let maxNotifiesPerApp = Int(UInt32.max)
    /// When the run stops.
    public var endTime: SimTime = .zero

    /// Plenty of RAM, so nothing is killed unless the scenario asks for it.
    public static let defaultRAMKB: Int64 = 8 * 1_048_576
    /// Without `end`, the run goes on this long past the last line, so that
    /// suspensions and expiries show.
    public static let runOn = SimTime.minutes(10)
    /// The latest time a scenario line may have: the longest run the workload accepts.
    public static let latest = SimTime.days(Int64(Schema.durationRangeDays.upperBound))

    /// Every app key with its meaning and default (for the README and `--help`).
    public static let appKeys: [(key: String, meaning: String)] = [
        ("footprint=SIZE", "active footprint (default 200MB)"),
        ("background-footprint=SIZE", "footprint in the background after trimming caches (default half the footprint)"),
        ("suspended-footprint=SIZE", "footprint while suspended (default 30% of the footprint)"),
        ("peak=SIZE", "footprint it grows toward while in front (default: the footprint, no growth)"),
        ("save=STRATEGY", "on-resign-active | on-enter-background | on-terminate | periodic | never (default on-enter-background)"),
        ("save-time=DUR", "how long a save takes (default 200ms)"),
        ("save-interval=DUR", "period of periodic saves while in front (default 60s)"),
        ("edits-per-min=N", "unsaved work created per minute active (default 2)"),
        ("bg-task=DUR", "on entering the background, begin a background task needing DUR of work (default none)"),
        ("mode=audio|location|voip[:DUR]", "background mode; its activity lasts DUR after entering the background (default none; DUR 5m)"),
        ("mode-time=DUR", "how long the mode's activity lasts (default 5m)"),
        ("exits-on-suspend", "UIApplicationExitsOnSuspend: terminated on every trip to the background"),
        ("ends-task-on-expiry", "its expiration handler ends the background task: suspended, not killed, when the allowance runs out (default: killed)"),
        ("bg-handler=DUR", "how long didEnterBackground runs, before any save (default 50ms)"),
        ("cold-launch=DUR", "launch time from no process (default 1.2s); a prewarmed launch saves 20 % of it, and a prewarm holds 10 % of the footprint (the workload's default prewarm_saving_share and prewarm_footprint_share)"),
        ("cached-launch=DUR", "launch time from no process within the device's cache-window of a kill, files still cached (default half of cold-launch)"),
        ("state-restore=DUR", "extra cold-launch time to restore saved UI state (default 300ms)"),
        ("warm-launch=DUR", "resume time from suspended (default 250ms)"),
        ("hot-launch=DUR", "resume time from the background (default 100ms)"),
        ("preserves-state=yes|no", "whether a cold relaunch restores the user's place (default yes)"),
    ]

    /// Every device key with its meaning: `policy`, then the workload's device-class
    /// keys that have a scenario alias (defaults as in a workload, but 8GB of RAM and
    /// no launch jitter).
    public static var deviceKeys: [(key: String, meaning: String)] {
        deviceKeyRows.map { ($0.key, $0.meaning) }
    }

    /// The device keys with their defaults as a scenario writes them.
    static var deviceKeyRows: [(key: String, meaning: String, defaultText: String)] {
        let base = baseDeviceClass
        return [("policy=NAME", "eviction policy", Scenario(source: "").policy.rawValue)]
            + Schema.deviceClass.knobs.compactMap { k in
                guard let a = k.alias else { return nil }
                let syntax = k.unit == "MiB" ? "SIZE" : k.unit == "s" ? "DUR" : k.type == "true or false" ? "true|false" : k.choices?.joined(separator: "|") ?? "N"
                guard case .inline(let text) = k.text(base) else { return ("\(a)=\(syntax)", k.doc, "") }
                let shown = text == "auto" || Double(text) == nil ? text : k.unit == "MiB" ? text + "MB" : k.unit == "s" ? text + "s" : text
                return ("\(a)=\(syntax)", k.doc, shown)
            }
    }

    /// The device-key table of Workloads/scenarios/README.md (a test keeps it current).
    public static func markdownDeviceKeys() -> String {
        var o = "| key | meaning | default |\n|---|---|---|\n"
        for r in deviceKeyRows {
            let cell = { (s: String) in s.replacingOccurrences(of: "|", with: "\\|") }
            o += "| `\(cell(r.key))` | \(cell(r.meaning)) | \(cell(r.defaultText)) |\n"
        }
        return o
    }

    public init(source: String) { self.source = source }

    /// The app's index, or nil.
    public func app(named name: String) -> Int32? {
        appNames.firstIndex(of: name).map { Int32($0) }
    }

    /// Reads a scenario. Every problem is an `InputError` naming the line.
    public static func parse(_ text: String, source: String) throws(InputError) -> Scenario {
        var sc = Scenario(source: source)
        var ui = UIState()
        var lastTime = SimTime.zero
        var sawEnd = false
        var deviceSeen = false
        var sawAction = false
        // The declared apps by name, for the checks and lookups of every line: a
        // search of `appNames` per line made a scenario of n apps cost n^2 (20,000
        // apps: 6e8 string compares). `String` keys compare as `appNames` does.
        var appIndex: [String: Int32] = [:]
        var lineNo = 0
        func fail(_ msg: String, key: String? = nil) -> InputError {
            InputError(source: source, line: lineNo, key: key, msg)
        }
        // LF or CRLF line ends ("\r\n" is one Character to Swift, so not "\n").
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNo += 1
            var line = Substring(raw)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let first = words.first else { continue }
            if sawEnd { throw fail("nothing may follow 'end'") }
            if first == "app" {
                if sawAction { throw fail("'app' lines must come before the timed lines") }
                guard words.count >= 2 else { throw fail("expected 'app NAME key=value...'") }
                let name = words[1]
                if appIndex[name] != nil { throw fail("app '\(name)' is declared twice") }
                if name == "all" { throw fail("'all' is reserved (notify all ...); choose another app name") }
                appIndex[name] = Int32(sc.appNames.count)
                sc.appNames.append(name)
                sc.profiles.append(try parseApp(Array(words.dropFirst(2)), fail: fail))
                continue
            }
            if first == "device" {
                if sawAction || !sc.appNames.isEmpty { throw fail("'device' must come before the 'app' lines") }
                if deviceSeen { throw fail("'device' is given twice") }
                deviceSeen = true
                try parseDevice(Array(words.dropFirst()), into: &sc, fail: fail)
                continue
            }
            // A timed line.
            let time: SimTime
            do { time = try DurationText.parse(first) } catch {
                throw fail("expected 'app', 'device' or a time such as 5s at the start of the line, got '\(first)'")
            }
            // Bounded as a run is (fleet.duration_days), so the run-on after the last
            // line and every duration from it stay far inside SimTime's range
            // (`9223372036854s home` trapped adding the run-on).
            if time > Self.latest {
                throw fail("time \(first) is past the latest a scenario may use, \(Self.latest) (fleet.duration_days' maximum)")
            }
            if time < lastTime {
                throw fail("time \(first) goes backwards (the previous line was at \(lastTime)); times must not decrease")
            }
            lastTime = time
            sawAction = true
            guard words.count >= 2 else { throw fail("expected an action after the time") }
            let action = try parseAction(Array(words.dropFirst()), time: time, scenario: &sc, appIndex: appIndex, fail: fail)
            do { try ui.apply(action) } catch { throw fail(error.description, key: words[1]) }
            if action.kind == .end {
                sawEnd = true
                sc.endTime = time
            }
            sc.actions.append(action)
        }
        if sc.appNames.isEmpty { throw InputError(source: source, "no apps declared: expected at least one 'app NAME' line") }
        if !sawEnd { sc.endTime = lastTime + runOn }
        return sc
    }

    static func parseDuration(_ v: String, key: String, fail: (String, String?) -> InputError) throws(InputError) -> SimTime {
        do { return try DurationText.parse(v) } catch { throw fail(error.description, key) }
    }

    static func parseSize(_ v: String, key: String, fail: (String, String?) -> InputError) throws(InputError) -> Int64 {
        guard let kb = SizeText.parseKB(v) else { throw fail("'\(v)' is not \(SizeText.expected)", key) }
        return kb
    }

    static func parseNumber(_ v: String, key: String, range: ClosedRange<Double>, fail: (String, String?) -> InputError) throws(InputError) -> Double {
        guard let x = Double(v), x.isFinite, range.contains(x) else {
            throw fail("'\(v)' is not a number in \(range.lowerBound)...\(range.upperBound)", key)
        }
        return x
    }

    static func parseApp(_ words: [String], fail: (String, String?) -> InputError) throws(InputError) -> AppProfile {
        var p = AppProfile(save: .onEnterBackground)
        var background: Int64? = nil
        var suspended: Int64? = nil
        var modeTime: SimTime? = nil
        var cached: SimTime? = nil
        for w in words {
            let parts = w.split(separator: "=", maxSplits: 1).map(String.init)
            let key = parts[0]
            let value = parts.count == 2 ? parts[1] : nil
            func need() throws(InputError) -> String {
                guard let value, !value.isEmpty else { throw fail("expected \(key)=VALUE", key) }
                return value
            }
            switch key {
            case "footprint": p.activeKB = try parseSize(try need(), key: key, fail: fail)
            case "background-footprint": background = try parseSize(try need(), key: key, fail: fail)
            case "suspended-footprint": suspended = try parseSize(try need(), key: key, fail: fail)
            case "peak": p.peakKB = try parseSize(try need(), key: key, fail: fail)
            case "save":
                // STRATEGY[+STRATEGY...]: the first is the app's own (its losses count
                // there), the others it saves with besides (`AppProfile.saveAlso`).
                let words = try need().split(separator: "+", omittingEmptySubsequences: false).map(String.init)
                p.saveAlso = []
                for (i, v) in words.enumerated() {
                    guard let s = SaveStrategy(name: v), i == 0 || s != .never else {
                        throw fail("'\(v)' is not a save strategy\(i == 0 ? "" : " to add"): expected on-resign-active, on-enter-background, on-terminate, periodic\(i == 0 ? " or never" : ""), joined by + for several", key)
                    }
                    if i == 0 { p.save = s } else { p.saveAlso.insert(SaveSet(s)) }
                }
            case "save-time": p.saveDuration = try parseDuration(try need(), key: key, fail: fail)
            case "save-interval":
                p.saveInterval = try parseDuration(try need(), key: key, fail: fail)
                if p.saveInterval <= .zero { throw fail("save-interval must be positive", key) }
            case "edits-per-min": p.unsavedEditsPerMinute = try parseNumber(try need(), key: key, range: 0...AppProfile.maxEditsPerMinute, fail: fail)
            case "bg-task":
                p.bgTaskMedian = try parseDuration(try need(), key: key, fail: fail)
                p.bgTaskProbability = 1
                p.bgTaskSigma = 0
            case "mode":
                let v = try need()
                let mp = v.split(separator: ":", maxSplits: 1).map(String.init)
                guard let m = BackgroundMode(name: mp[0]), m != .none else {
                    throw fail("'\(mp[0])' is not a background mode: expected audio, location or voip", key)
                }
                p.mode = m
                if mp.count == 2 { modeTime = try parseDuration(mp[1], key: key, fail: fail) }
            case "mode-time": modeTime = try parseDuration(try need(), key: key, fail: fail)
            case "exits-on-suspend":
                if value != nil { throw fail("exits-on-suspend takes no value", key) }
                p.exitsOnSuspend = true
            case "ends-task-on-expiry":
                if value != nil { throw fail("ends-task-on-expiry takes no value", key) }
                p.endsTaskOnExpiry = true
            case "bg-handler": p.enterBackgroundHandler = try parseDuration(try need(), key: key, fail: fail)
            case "cold-launch": p.coldLaunch = try parseDuration(try need(), key: key, fail: fail)
            case "cached-launch": cached = try parseDuration(try need(), key: key, fail: fail)
            case "state-restore": p.stateRestore = try parseDuration(try need(), key: key, fail: fail)
            case "warm-launch": p.warmLaunch = try parseDuration(try need(), key: key, fail: fail)
            case "hot-launch": p.hotLaunch = try parseDuration(try need(), key: key, fail: fail)
            case "preserves-state":
                let v = try need()
                guard v == "yes" || v == "no" else { throw fail("expected yes or no, got '\(v)'", key) }
                p.preservesUIState = v == "yes"
            default:
                throw fail("unknown app key '\(key)'; expected one of: " + appKeys.map { String($0.key.prefix { $0 != "=" }) }.joined(separator: ", "), key)
            }
        }
        p.backgroundKB = background ?? p.activeKB / 2
        p.suspendedKB = suspended ?? p.activeKB * 3 / 10
        if p.backgroundKB > p.activeKB || p.suspendedKB > p.backgroundKB {
            throw fail("footprints must not grow on the way to the background: footprint >= background-footprint >= suspended-footprint", "footprint")
        }
        if p.mode != .none { p.modeActivityMedian = modeTime ?? .minutes(5) }
        p.cachedLaunch = cached ?? SimTime(microseconds: p.coldLaunch.microseconds / 2)
        p.derivePrewarm(footprintShare: Archetype.defaultPrewarmFootprintShare, savingShare: Archetype.defaultPrewarmSavingShare)
        return p
    }

    /// The device class a scenario starts from: the workload's, with plenty of RAM
    /// and exact latencies.
    static var baseDeviceClass: DeviceClass {
        var c = DeviceClass()
        c.ramKB = defaultRAMKB
        c.launchJitterSigma = 0
        return c
    }

    /// A device key's value as the workload table reads it: SIZE -> MiB, DUR -> seconds.
    static func deviceValue(_ knob: Knob<DeviceClass>, _ v: String, fail: (String, String?) -> InputError) throws(InputError) -> String {
        let key = knob.alias ?? knob.key
        switch knob.unit {
        case "MiB": return WorkloadPrinter.num(Double(try parseSize(v, key: key, fail: fail)) / 1_024)
        case "s": return WorkloadPrinter.num(try parseDuration(v, key: key, fail: fail).seconds)
        default: return v
        }
    }

    /// `device key=value...`: `policy`, and the workload's device-class keys under
    /// their scenario aliases (`Schema.deviceClass`), checked against the same ranges.
    static func parseDevice(_ words: [String], into sc: inout Scenario, fail: (String, String?) -> InputError) throws(InputError) {
        var c = baseDeviceClass
        for w in words {
            let parts = w.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[1].isEmpty else { throw fail("expected key=value, got '\(w)'", parts[0]) }
            let (key, v) = (parts[0], parts[1])
            if key == "policy" {
                guard let p = PolicyID(rawValue: v) else {
                    throw fail("'\(v)' is not a policy: expected one of \(PolicyRegistry.nameList)", "policy")
                }
                sc.policy = p
                continue
            }
            guard let knob = Schema.deviceClass.knobs.first(where: { $0.alias == key }) else {
                throw fail("unknown device key '\(key)'; expected one of: " + deviceKeys.map { String($0.key.prefix { $0 != "=" }) }.joined(separator: ", "), key)
            }
            let entry = ConfigEntry(key: key, value: .scalar(try deviceValue(knob, v, fail: fail), plain: true, SourceLocation(sc.source)),
                                    location: SourceLocation(sc.source))
            do { try knob.read(entry, &c) } catch { throw fail(error.message, key) }
        }
        if let r = c.osReserveKB, r >= c.ramKB { throw fail("reserve must be smaller than ram", "reserve") }
        sc.params = c.parameters()
        if !sc.params.idleDaemonsFit {
            throw fail("idle-daemons and reserve must be smaller than ram", "idle-daemons")
        }
        if sc.params.android.swapFileWithWriteback {
            throw fail("writeback backs zram; with swap-file there is no zram: set one of them", "writeback")
        }
    }

    static func parseAction(_ w: [String], time: SimTime, scenario sc: inout Scenario, appIndex: [String: Int32],
                            fail: (String, String?) -> InputError) throws(InputError) -> UserAction {
        let verb = w[0]
        func appArg(_ i: Int, allowAll: Bool = false) throws(InputError) -> Int32 {
            guard i < w.count else { throw fail("'\(verb)' needs an app name", verb) }
            if allowAll && w[i] == "all" { return UserAction.allApps }
            guard let a = appIndex[w[i]] else {
                throw fail("unknown app '\(w[i])'; declared: \(sc.appNames.joined(separator: ", "))", verb)
            }
            return a
        }
        func noMore(_ n: Int) throws(InputError) {
            if w.count > n { throw fail("unexpected '\(w[n])' after '\(w[..<n].joined(separator: " "))'", verb) }
        }
        let simple: [String: UserAction.Kind] = [
            "home": .home, "switcher": .switcher, "lock": .lock, "unlock": .unlock,
            "power-hold": .powerHold, "power-cancel": .powerCancel, "power-off": .powerOff,
            "call": .call, "sms": .sms, "alert": .alert, "ignore": .ignore, "answer": .answer, "end": .end,
        ]
        if let k = simple[verb] {
            try noMore(1)
            return UserAction(time: time, kind: k)
        }
        switch verb {
        case "launch", "switcher-pick", "switcher-remove":
            let app = try appArg(1)
            try noMore(2)
            let kind: UserAction.Kind = verb == "launch" ? .launch : verb == "switcher-pick" ? .switcherPick : .switcherRemove
            return UserAction(time: time, kind: kind, app: app)
        case "notify":
            let app = try appArg(1, allowAll: true)
            guard w.count >= 3 else { throw fail("expected 'notify APP KIND [VALUE]'", verb) }
            guard let kind = SystemEventKind(name: w[2]) else {
                throw fail("'\(w[2])' is not an event kind: expected \(SystemEventKind.allCases.map(\.name).joined(separator: ", "))", verb)
            }
            try noMore(4)
            var value: Int32 = 0
            if app >= 0 {
                // An app holds its events' count in 32 bits (`HeldEvents`): past that
                // the count would saturate, so a scenario may not reach it.
                sc.notifyLines[Int(app), default: 0] += 1
                if sc.notifyLines[Int(app)]! > Scenario.maxNotifiesPerApp {
                    throw fail("more than \(Scenario.maxNotifiesPerApp) notify lines to one app: a suspended app holds at most that many events", verb)
                }
            }
            if w.count == 4 {
                if let i = sc.values.firstIndex(of: w[3]) { value = Int32(i) } else {
                    // Values are interned ids held in 8 bits; id 0 means no value.
                    guard sc.values.count < Scenario.maxNotifyValues else {
                        throw fail("more than \(Scenario.maxNotifyValues - 1) distinct notify values: a held event stores its value in 8 bits", verb)
                    }
                    sc.values.append(w[3])
                    value = Int32(sc.values.count - 1)
                }
            }
            return UserAction(time: time, kind: .notify, app: app, eventKind: kind, value: value)
        case "wake":
            let app = try appArg(1)
            guard w.count >= 3, let kind = SystemWakeKind(name: w[2]) else {
                throw fail("expected 'wake APP KIND' with KIND one of \(SystemWakeKind.allCases.map(\.name).joined(separator: ", "))", verb)
            }
            try noMore(3)
            var action = UserAction(time: time, kind: .systemWake, app: app)
            action.eventKind = kind.rawValue
            return action
        case "pressure":
            guard w.count >= 2 else { throw fail("expected 'pressure warning' or 'pressure critical [SIZE]'", verb) }
            switch w[1] {
            case "warning":
                try noMore(2)
                return UserAction(time: time, kind: .pressureWarning)
            case "critical":
                try noMore(3)
                var mb: Int32 = 0
                if w.count == 3 {
                    let kb = try parseSize(w[2], key: "pressure", fail: fail)
                    mb = Int32(clamping: kb / 1_024)
                }
                return UserAction(time: time, kind: .pressureCritical, value: mb)
            default:
                throw fail("'\(w[1])' is not a pressure level: expected warning or critical", verb)
            }
        default:
            throw fail("unknown action '\(verb)'; expected one of: launch, home, switcher, switcher-pick, switcher-remove, lock, unlock, power-hold, power-cancel, power-off, call, sms, alert, ignore, answer, notify, wake, pressure, end", verb)
        }
    }
}
