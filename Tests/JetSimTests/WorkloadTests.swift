import Foundation
import Testing
import SimKernel
@testable import JetSim

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

func loadShipped(_ name: String) throws -> Workload {
    let path = root + "/Workloads/" + name
    return try WorkloadDecoder.load(try String(contentsOfFile: path, encoding: .utf8), source: path)
}

@Suite("Workload files: defaults, round trips and located errors")
struct WorkloadFileTests {
    static let shipped = ["default.yaml", "small-ram.yaml", "large-ram.yaml", "mixed-fleet.yaml", "stress.yaml", "irm-zipf.yaml", "android.yaml", "lru-reference.yaml"]

    @Test("default.yaml is what the binary has compiled in (SwiftPM embeds it through a symlink)")
    func embedded() throws {
        let file = try String(contentsOfFile: root + "/Workloads/default.yaml", encoding: .utf8)
        #expect(file == defaultWorkloadText)
    }

    /// The block of `path` between `<!-- BEGIN MARKER ...` (to the end of that line) and
    /// `<!-- END MARKER -->`, and what it should be. With JETSIM_WRITE_REFERENCE set and
    /// the two different, rewrites the block and returns `generated` for both.
    static func generatedBlock(_ path: String, marker: String, _ generated: String) throws -> (current: String, generated: String) {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let b = try #require(text.range(of: "<!-- BEGIN \(marker)")), e = try #require(text.range(of: "<!-- END \(marker) -->"))
        let afterBegin = try #require(text[b.upperBound...].firstIndex(of: "\n"))
        let current = String(text[text.index(after: afterBegin)..<e.lowerBound])
        if ProcessInfo.processInfo.environment["JETSIM_WRITE_REFERENCE"] != nil, current != generated {
            try String(text[...afterBegin] + generated + text[e.lowerBound...]).write(toFile: path, atomically: true, encoding: .utf8)
            return (generated, generated)
        }
        return (current, generated)
    }

    @Test("Workloads/README.md's key reference is the one the table generates")
    func keyReference() throws {
        let (current, generated) = try Self.generatedBlock(root + "/Workloads/README.md", marker: "KEYS",
                                                             "\n" + Schema.markdownReference())
        #expect(current == generated, "Workloads/README.md is out of date: run JETSIM_WRITE_REFERENCE=1 swift test --filter keyReference")
    }

    @Test("Workloads/scenarios/README.md's device-key table is the one Scenario.deviceKeys generates")
    func scenarioDeviceKeys() throws {
        let (current, generated) = try Self.generatedBlock(root + "/Workloads/scenarios/README.md", marker: "DEVICE KEYS",
                                                             Scenario.markdownDeviceKeys())
        #expect(current == generated, "Workloads/scenarios/README.md is out of date: run JETSIM_WRITE_REFERENCE=1 swift test --filter scenarioDeviceKeys")
        // Every alias is in it, the newer XNU and Android ones too.
        for k in ["ram=SIZE", "policy=NAME", "os=ios\\|android\\|fleet", "zram-algorithm=lzo\\|lz4\\|lz4hc\\|zstd", "reaper=true\\|false", "wake-run=DUR"] {
            #expect(current.contains("| `\(k)` |"), "\(k)")
        }
    }

    @Test("every key of the table is in the printed workload, and default.yaml names it")
    func tableCoversPrinter() throws {
        let printed = WorkloadPrinter.yaml(Workload())
        let file = try String(contentsOfFile: root + "/Workloads/default.yaml", encoding: .utf8)
        for row in Schema.referenceKeys() {
            let leaf = String(row.split(separator: ".").last!)
            // No external policy by default: default.yaml shows one in a comment. A few
            // keys are left out at their default (`Knob.omittedAtDefault`: issue 31's
            // idle-band daemons, issue 32's cached-app GC and Fleet), printed once they
            // differ (below).
            let omitted = Schema.deviceClass.knobs.contains { $0.key == leaf && $0.omittedAtDefault }
                || Schema.archetype.knobs.contains { $0.key == leaf && $0.omittedAtDefault }
            // No named app by default either: default.yaml shows one in a comment.
            #expect(printed.contains(leaf + ":") || row.hasPrefix("policies.external.") || row.hasPrefix("catalog.named_apps.") || omitted, "\(row) is not printed")
            #expect(file.contains(leaf + ":"), "\(row) is not in default.yaml")
        }
        let omitted = Schema.deviceClass.knobs.filter(\.omittedAtDefault).map(\.key)
        #expect(omitted == ["idle_daemons_mb", "idle_daemon_count", "idle_daemon_relaunches_per_hour",
                            "android_gc_heap_pct", "android_gc_touch_pct", "android_swappable_pct",
                            "android_swap_file", "fleet_gc_touch_pct", "fleet_launch_swap_in_pct"])
        var w = Workload()
        w.deviceClasses[0].xnu.idleDaemonsKB = 465 * 1_024
        w.deviceClasses[0].xnu.idleDaemonCount = 100
        w.deviceClasses[0].xnu.idleDaemonRelaunchesPerHour = 6
        w.deviceClasses[0].android.gcHeapPct = 16
        w.deviceClasses[0].android.gcTouchPct = 50
        w.deviceClasses[0].android.swappablePct = 25
        w.deviceClasses[0].android.swapFile = true
        w.deviceClasses[0].fleet.gcTouchPct = 10
        w.deviceClasses[0].fleet.launchSwapInPct = 30
        let set = WorkloadPrinter.yaml(w)
        for k in omitted { #expect(set.contains(k + ":"), "\(k) is not printed at a value other than its default") }
        #expect(try WorkloadDecoder.load(set, source: "printed") == w)
    }

    @Test("default.yaml states exactly the built-in defaults")
    func defaultsAgree() throws {
        #expect(try loadShipped("default.yaml") == Workload())
        #expect(try WorkloadDecoder.load("", source: "empty") == Workload())
    }

    @Test("every shipped workload loads, and prints back to itself", arguments: shipped)
    func roundTrip(name: String) throws {
        let w = try loadShipped(name)
        let printed = WorkloadPrinter.yaml(w)
        #expect(try WorkloadDecoder.load(printed, source: "printed") == w)
    }

    /// (YAML, line, key path, words of the message)
    @Test("bad workloads name the file, line, key path and what was expected", arguments: [
        ("fleet:\n  devices: 10\n  colour: red\n", 3, "fleet.colour", "unknown key"),
        ("fleet:\n  devices: ten\n", 2, "fleet.devices", "expected a whole number"),
        ("fleet:\n  devices: -3\n", 2, "fleet.devices", "out of range"),
        ("user:\n  switcher_share: 1.5\n", 2, "user.switcher_share", "out of range"),
        ("user:\n  dwell_s: {gamma: {k: 2}}\n", 2, "user.dwell_s", "expected one of {constant"),
        ("user:\n  sesions_per_day: 20\n", 2, "user.sesions_per_day", "did you mean sessions_per_day"),
        ("fleet:\n  devics: 20\n", 2, "fleet.devics", "unknown key; expected one of: devices, duration_days"),
        ("user:\n  dwell_s: {lognormal: {median: 30}}\n", 2, "user.dwell_s.lognormal", "expected {median: M, sigma: S}"),
        ("device_classes:\n  - name: a\n    ram_mb: 2048\n    ios: 14\n", 4, "device_classes.a.ios", "not an iOS preset"),
        ("catalog:\n  archetypes:\n    - name: x\n      share: 1\n", 3, "catalog.archetypes.x.active_mb", "missing"),
        ("fleet: [1, 2]\n", 1, "fleet", "expected a mapping"),
        ("run:\n  policies: [lru, lifo]\n", 2, "run.policies", "'lifo' (item 1) is not a policy"),
        ("user:\n  wake_hour: 20\n  sleep_hour: 8\n", 1, "user.sleep_hour", "later than wake_hour"),
        ("fleet:\n  devices: 10\n  devices: 20\n", 2, "devices", "duplicate key"),
        ("device_classes:\n  - name: a\n    ram_mb: 2048\n    critical_available_pct: 20\n", 2, "device_classes.a", "must not exceed kill_target"),
        ("catalog:\n  archetypes:\n    - name: x\n      share: 1\n      active_mb: 100\n      modes: {audio: 0.6, voip: 0.6}\n", 6, "catalog.archetypes.x.modes", "at most 1"),
    ])
    func located(yaml: String, line: Int, key: String, words: String) {
        #expect {
            _ = try WorkloadDecoder.load(yaml, source: "w.yaml")
        } throws: { error in
            guard let e = error as? InputError else { return false }
            return e.source == "w.yaml" && e.line == line && e.key == key && e.message.contains(words)
        }
    }

    @Test("malformed YAML is reported at its line")
    func syntax() {
        #expect {
            _ = try WorkloadDecoder.load("fleet:\n  devices: 10\n bad: [\n", source: "w.yaml")
        } throws: { error in
            guard let e = error as? InputError else { return false }
            return e.line != nil && e.message.contains("not valid YAML")
        }
    }

    @Test("--set overrides any key, including list elements by name or index")
    func overrides() throws {
        let w = try WorkloadDecoder.load("", source: "d", overrides: [
            "user.sessions_per_day=80", "device_classes.iphone-11.ram_mb=3072",
            "catalog.archetypes.game.active_mb={lognormal: {median: 900, sigma: 0.5}}",
            "catalog.archetypes.0.share=0.25", "run.policies=[lru, oracle]",
        ])
        #expect(w.user.sessionsPerDay == 80)
        #expect(w.deviceClasses[0].ramKB == 3 * 1_048_576)
        #expect(w.catalog.archetypes[2].activeMB == .lognormal(median: 900, sigma: 0.5))
        #expect(w.catalog.archetypes[0].share == 0.25)
        #expect(w.run.policies == ["lru", "oracle"])
    }

    @Test("--set applies to the decoded workload: keys the file omits, list elements by name, values inside a distribution")
    func overridesDecoded() throws {
        let file = "device_classes:\n  - name: iphone-11\n    ram_mb: 4096\n"
        let w = try WorkloadDecoder.load(file, source: "w.yaml", overrides: [
            "device_classes.iphone-11.os_reserve_mb=900", "catalog.archetypes.game.share=0.4",
            "user.dwell_s.lognormal.sigma=2", "catalog.archetypes.music.modes.audio=0.5",
            "catalog.archetypes.game.save_strategy={periodic: 1}", "policies.cost_aware.state_loss_penalty_ms=7",
        ])
        #expect(w.deviceClasses[0].osReserveKB == Int64(900 * 1_024))
        #expect(w.catalog.archetypes[2].share == 0.4)
        #expect(w.user.dwellS == .lognormal(median: 38, sigma: 2))
        #expect(w.catalog.archetypes[4].modeAudio == 0.5)
        #expect(w.catalog.archetypes[2].saveStrategy == [.periodic: 1])
        #expect(w.policies[CostAware.self].stateLossPenalty == 7)
        // The same as writing the values in the file.
        var expected = try WorkloadDecoder.load(file, source: "w.yaml")
        expected.deviceClasses[0].osReserveKB = 900 * 1_024
        expected.catalog.archetypes[2].share = 0.4
        expected.user.dwellS = .lognormal(median: 38, sigma: 2)
        expected.catalog.archetypes[4].modeAudio = 0.5
        expected.catalog.archetypes[2].saveStrategy = [.periodic: 1]
        expected.policies[CostAware.self].stateLossPenalty = 7
        #expect(w == expected)
    }

    @Test("bad overrides are located at the --set flag", arguments: [
        ("user.sessions_per_dya=80", "user.sessions_per_dya", "unknown key; did you mean sessions_per_day?"),
        ("user.zzz=1", "user.zzz", "unknown key ("),
        ("user.sessions_per_day=lots", "user.sessions_per_day", "expected a number"),
        ("device_classes.pixel.ram_mb=2048", "device_classes.pixel", "no list element"),
        ("novalue", nil, "expected KEY=VALUE"),
        ("device_classes.iphone-11.critical_available_pct=50", "device_classes.iphone-11", "must not exceed kill_target"),
        ("user.wake_hour=23.5", "user.sleep_hour", "later than wake_hour"),
        ("catalog.archetypes.music.modes.voip=0.5", "catalog.archetypes.music.modes", "at most 1"),
        ("user.sessions_per_day.x=1", "user.sessions_per_day", "is a single value"),
    ] as [(String, String?, String)])
    func badOverride(assignment: String, key: String?, words: String) {
        #expect {
            _ = try WorkloadDecoder.load("", source: "d", overrides: [assignment])
        } throws: { error in
            guard let e = error as? InputError else { return false }
            return e.source == "--set \(assignment)" && e.key == key && e.message.contains(words)
        }
    }
}

@Suite("The synthetic user")
struct UserModelTests {
    static func timeline(_ w: Workload, device: UInt64, apps: Int = 40) -> Timeline {
        var t = Timeline()
        var scratch = ContiguousArray<UserAction>()
        UserModel(w.user, seed: w.seed).generate(device: device, appCount: apps, duration: w.fleet.duration, into: &t, scratch: &scratch)
        return t
    }

    @Test("every generated action makes sense where it stands (UIState accepts all)", arguments: ["default.yaml", "stress.yaml", "irm-zipf.yaml"])
    func valid(name: String) throws {
        var w = try loadShipped(name)
        w.fleet.duration = .days(3)
        for d in UInt64(0)..<20 {
            let t = Self.timeline(w, device: d)
            var ui = UIState()
            var last = SimTime.zero
            for a in t.actions {
                #expect(a.time >= last)
                last = a.time
                try ui.apply(a)
            }
            #expect(t.actions.count > 50)
        }
    }

    @Test("sessions per day match the configured rate")
    func sessionRate() {
        var w = Workload()
        w.fleet.duration = .days(20)
        // One user's Poisson rate: users alike (heterogeneity is tested in UsageStatsTests).
        w.user.sessionsPerDay = 50
        w.user.sessionsPerDaySigma = 0
        var unlocks = 0
        for d in UInt64(0)..<20 { unlocks += Self.timeline(w, device: d).actions.filter { $0.kind == .unlock }.count }
        let perDay = Double(unlocks) / (20 * 20)
        // Poisson(50/day) over 400 device-days: SE 0.35/day; a few sessions per day are
        // lost where one would start after the window closes.
        #expect(perDay > 47 && perDay < 51, "\(perDay) sessions/day")
    }

    @Test("app choice follows the exponential popularity law (chi-square)")
    func appChoice() {
        var w = Workload()
        w.fleet.duration = .days(60)
        w.user.appChoice = .exponential(decay: 6)
        w.user.appChoiceSigma = 0
        w.user.callsPerDay = 0; w.user.smsPerDay = 0; w.user.alertsPerDay = 0
        w.user.resumeFrontShare = 0
        w.user.singleAppSessionShare = 1
        let n = 40
        var counts = [Int](repeating: 0, count: n)
        for d in UInt64(0)..<10 {
            for a in Self.timeline(w, device: d, apps: n).actions where a.kind == .launch { counts[Int(a.app)] += 1 }
        }
        let total = Double(counts.reduce(0, +))
        let weights = (0..<n).map { exp(-Double($0) / 6) }
        let norm = weights.reduce(0, +)
        var chi = 0.0, df = -1
        for r in 0..<n {
            let e = weights[r] / norm * total
            if e >= 20 { chi += pow(Double(counts[r]) - e, 2) / e; df += 1 }
        }
        // Consecutive sessions may pick the app still in front (no new launch), which
        // thins the top ranks slightly: compare over ranks 1... with a loose bound.
        #expect(df > 10)
        #expect(chi / Double(df) < 3, "chi2/df = \(chi / Double(df))")
    }

    @Test("each random process has its own stream: more calls do not move the notifications")
    func independentStreams() {
        var a = Workload(), b = Workload()
        b.user.callsPerDay = 40
        let ta = Self.timeline(a, device: 3), tb = Self.timeline(b, device: 3)
        func notes(_ t: Timeline) -> [SimTime] { t.actions.filter { $0.kind == .notify && $0.eventKind == SystemEventKind.notification.rawValue }.map(\.time) }
        #expect(notes(ta) == notes(tb))
        #expect(ta.actions.filter { $0.kind == .call }.count < tb.actions.filter { $0.kind == .call }.count)
        _ = a
    }

    @Test("the oracle's next-use ranks point at the next launch of the same app")
    func nextUse() {
        let t = Self.timeline(Workload(), device: 1)
        for (i, a) in t.actions.enumerated() where a.kind.isUse {
            let next = t.actions.indices[(i + 1)...].first { t.actions[$0].kind.isUse && t.actions[$0].app == a.app }
            #expect(t.nextUseAfter[i] == (next.map { SimTime(microseconds: Int64($0)) } ?? .never))
        }
    }
}

@Suite("Usage traces")
struct UsageReplayTests {
    @Test("a trace becomes unlocks, launches, Home and locks, per device")
    func replay() throws {
        let csv = "device,time_s,app,duration_s,extra\nphoneA,0,Mail,30,x\nphoneA,40,Music,100,z\nphoneA,500,Mail,10,w\nphoneB,10,Maps,20,y\n"
        let r = try UsageReplay.parse(csv, source: "u.csv")
        #expect(r.devices == ["phoneA", "phoneB"])
        #expect(r.appNames[0] == ["Mail", "Music"])
    }

    @Test("bad traces name the line and column", arguments: [
        ("device,time_s,app\nA,0,Mail\n", 1, "duration_s"),
        ("device,time_s,app,duration_s\nA,soon,Mail,3\n", 2, "time_s"),
        ("device,time_s,app,duration_s\nA,0,,3\n", 2, "app"),
    ])
    func bad(csv: String, line: Int, key: String) {
        #expect {
            _ = try UsageReplay.parse(csv, source: "u.csv")
        } throws: { error in
            guard let e = error as? InputError else { return false }
            return e.line == line && e.key == key
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

@Suite("Unknown keys: the nearest known keys, not the whole list")
struct KeySuggestionTests {
    @Test("edit distance by hand: insertions, deletions, substitutions, transposition as two")
    func distance() {
        #expect(KeySuggestion.distance("", "abc") == 3)
        #expect(KeySuggestion.distance("kitten", "sitting") == 3)
        #expect(KeySuggestion.distance("sessions_per_dya", "sessions_per_day") == 2)
        #expect(KeySuggestion.distance("ram_mb", "ram_mb") == 0)
    }

    @Test("at most three suggestions, closest first; few keys are listed whole; none near says how to list them")
    func message() {
        let keys = (0..<20).map { "key_\($0)" }
        #expect(KeySuggestion.nearest("key_1x", among: keys) == ["key_1", "key_10", "key_11"])
        #expect(KeySuggestion.unknownKey("b", among: ["c", "a"]) == "unknown key; expected one of: a, c")
        #expect(KeySuggestion.unknownKey("zzzzzzzz", among: keys) == "unknown key (20 keys here: `jetsim validate --keys` lists them)")
    }
}

@Suite("Sizes in powers of 1024")
struct SizeTextTests {
    @Test("units with and without B or iB, any case; malformed sizes are nil")
    func parse() {
        #expect(SizeText.parseKB("8G") == Int64(8 * 1_048_576))
        #expect(SizeText.parseKB("8GB") == SizeText.parseKB("8g"))
        #expect(SizeText.parseKB("1.5GiB") == 1_572_864)
        #expect(SizeText.parseKB("512M") == 524_288)
        #expect(SizeText.parseKB("2048MiB") == 2_097_152)
        #expect(SizeText.parseKB("4K") == 4)
        #expect(SizeText.parseKB("1T") == 1_073_741_824)
        for bad in ["8", "G", "8GBB", "8X", "-1G", "1e3G", "8 G B"] { #expect(SizeText.parseKB(bad) == nil, "\(bad)") }
    }
}
