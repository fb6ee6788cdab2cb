import Foundation
import Testing
import SimKernel
import Synchronization
@testable import JetSim

/// Issue 46's classes at the level of the library: each check that makes a class of
/// hostile input impossible, on small inputs (the commands' ends are in
/// Tests/JetSimCLITests/HostileRound4CLITests.swift).
@Suite("Hostile inputs, round 4: the checks under the commands")
struct HostileRound4Tests {
    static func load(_ sets: [String], file: String = "") throws(InputError) -> Workload {
        try WorkloadDecoder.load(file, source: "w.yaml", overrides: sets)
    }

    // MARK: --set in any order

    @Test("the same --set options are accepted or refused whatever their order: every check sees the final values", arguments: [
        // (options, accepted): each pair refused in one order before (a check after each option)
        (["device_classes.a.critical_available_pct=20", "device_classes.a.kill_target_available_pct=25"], true),
        (["device_classes.a.critical_available_pct=30", "device_classes.a.kill_target_available_pct=25"], false),
        (["catalog.archetypes.maps.modes.location=0", "catalog.archetypes.maps.modes.audio=0.9"], true),
        (["user.dwell_s.uniform.1=10", "user.dwell_s.uniform.0=5"], true),
        (["user.sessions_per_day=50000", "fleet.duration_days=1"], true),
        (["policies.external.x.timeout_s=5", "policies.external.x.command=[a]"], true),
        (["device_classes.a.share=0", "device_classes.b.share=1"], true),
    ] as [([String], Bool)])
    func anyOrder(sets: [String], accepted: Bool) throws {
        // Two classes, a uniform dwell: what the options above start from.
        let file = "device_classes:\n  - name: a\n    share: 1\n  - name: b\n    share: 0\nuser:\n  dwell_s: {uniform: [1, 2]}\n"
        var outcomes: [String] = []
        // Every order of the options (at most 3: 6 orders).
        func orders(_ a: [String]) -> [[String]] {
            a.count <= 1 ? [a] : a.indices.flatMap { i in orders(Array(a[..<i] + a[(i + 1)...])).map { [a[i]] + $0 } }
        }
        for o in orders(sets) {
            do { outcomes.append(WorkloadPrinter.yaml(try Self.load(o, file: file))) } catch { outcomes.append("refused") }
        }
        #expect(Set(outcomes).count == 1, "the orders of \(sets) disagree")
        #expect((outcomes[0] != "refused") == accepted, "\(sets)")
    }

    @Test("a refused combination names the options that made it, at the flags")
    func refusalNamesOptions() {
        do {
            _ = try Self.load(["user.sessions_per_day=20", "device_classes.iphone-11.critical_available_pct=30",
                               "device_classes.iphone-11.kill_target_available_pct=25"])
            Issue.record("accepted")
        } catch {
            #expect(error.source == "--set device_classes.iphone-11.critical_available_pct=30, --set device_classes.iphone-11.kill_target_available_pct=25")
            #expect(error.key == "device_classes.iphone-11" && error.message.contains("must not exceed kill_target"))
        }
    }

    @Test("--set gives the workload a file would give with the same values (the file's keys as written, the rest as decoded)")
    func setEqualsFile() throws {
        let file = "device_classes:\n  - name: a\n    ram_mb: 3000.3\n    share: 2\n  - name: b\n    share: 1\nfleet:\n  duration_days: 0.3\n"
        let set = try Self.load(["device_classes.b.os_reserve_mb=700", "user.dwell_s.lognormal.sigma=1.5"], file: file)
        var expected = try Self.load([], file: file)
        expected.deviceClasses[1].osReserveKB = 700 * 1_024
        expected.user.dwellS = .lognormal(median: 38, sigma: 1.5)
        #expect(set == expected)
    }

    @Test("a NUL character is refused in any value or key, in a file and in a --set value")
    func nul() {
        for (text, sets) in [("name: \"a\\0b\"\n", [String]()), ("", ["name=\"a\\0b\""]), ("\"a\\0\": 1\n", [])] {
            do { _ = try Self.load(sets, file: text); Issue.record("accepted \(text) \(sets)") } catch {
                #expect(error.message.contains("NUL"), "\(error.description)")
            }
        }
    }

    // MARK: values the model would not honour

    @Test("more idle-band daemons than the pool has KiB is refused (each held 0 KiB); one per KiB runs")
    func daemonsPerKiB() throws {
        let base = ["device_classes.iphone-11.idle_daemons_mb=465"]
        #expect(throws: InputError.self) { _ = try Self.load(base + ["device_classes.iphone-11.idle_daemon_count=476161"]) }
        let w = try Self.load(base + ["device_classes.iphone-11.idle_daemon_count=476160"])
        #expect(w.deviceClasses[0].parameters().xnu.idleDaemonsKB / Int64(w.deviceClasses[0].parameters().xnu.idleDaemonCount) == 1)
        // On a class whose manager does not run the pool, the keys are not read.
        _ = try Self.load(base + ["device_classes.iphone-11.idle_daemon_count=1000000", "device_classes.iphone-11.os=android"])
    }

    @Test("the reserve and the daemons are checked at each cell's RAM, not the class's own")
    func cellRAM() throws {
        let w = try Self.load(["device_classes.iphone-11.idle_daemons_mb=800"])  // 4 GB class: fits
        #expect(w.cellProblem(ramKB: nil) == nil)
        #expect(w.cellProblem(ramKB: 4 * 1_048_576) == nil)
        let why = try #require(w.cellProblem(ramKB: 1 * 1_048_576))  // 320 MB reserve + 800 MB > 1 GB
        #expect(why.contains("idle-band daemons") && why.contains("1024MB"))
        let r = try Self.load(["device_classes.iphone-11.os_reserve_mb=1500"])
        #expect(r.cellProblem(ramKB: 1_500 * 1_024)?.contains("not more than the OS reserve") == true)
        #expect(r.cellProblem(ramKB: 1_501 * 1_024) == nil)
        // An explicit critical level under the class's auto target (9% at 4 GB) but over
        // the target at 8 GB (8%).
        let c = try Self.load(["device_classes.iphone-11.critical_available_pct=8.5"])
        #expect(c.cellProblem(ramKB: nil) == nil)
        #expect(c.cellProblem(ramKB: 8 * 1_048_576)?.contains("exceeds its kill_target_available_pct") == true)
    }

    @Test("the daemons' relaunch rate times their count over the run is bounded with the actions; the shipped rates pass")
    func relaunchBound() throws {
        let pool = ["device_classes.iphone-11.idle_daemons_mb=465", "device_classes.iphone-11.idle_daemon_relaunches_per_hour=6"]
        _ = try Self.load(pool)  // 6/h x 345 x 168 h = 348k
        do {
            _ = try Self.load(pool + ["device_classes.iphone-11.idle_daemon_count=400000", "fleet.duration_days=30"])
            Issue.record("6/h x 400,000 daemons x 720 h was accepted")
        } catch {
            #expect(error.key == "device_classes.iphone-11.idle_daemon_relaunches_per_hour" && error.message.contains("1728 million"), "\(error.description)")
        }
        #expect(try Self.load(pool).deviceClasses[0].mostIdleDaemonRelaunches(over: .days(7)) == 6 * 345 * 168)
    }

    // MARK: sensitivity: names, missing ends

    @Test("a summary whose workload name holds a line break reads back: RFC 4180 records, not lines")
    func recordsWithLineBreak() throws {
        var w = try Self.load(["fleet.devices=2", "fleet.duration_days=0.2"])
        w.name = "two\nlines, \"quoted\""
        let plan = RunPlan(workload: w, cells: [Cell(policy: PolicyID(LRU.self), ramKB: 2 * 1_048_576), Cell(policy: PolicyID(FIFO.self), ramKB: 2 * 1_048_576)], threads: 1)
        var p = plan
        p.baseline = PolicyID(LRU.self)
        let result = FleetRunner.run(p, catalog: AppCatalog(w))
        let csv = Summary.csv(workload: w, result: result, overrides: [])
        #expect(csv.split(separator: "\n").count > 3)  // the name's break splits its lines
        let o = try #require(Sensitivity.outcomes(summaryCSV: csv))
        #expect(o.map(\.policy) == ["lru", "fifo"])
        #expect(Sensitivity.records("a,\"b\r\nc\",\"d\"\"e\"\r\n\r\nx,,\n") == [["a", "b\r\nc", "d\"e"], ["x", "", ""]])
        #expect(Sensitivity.outcomes(summaryCSV: "policy,relaunch_cold_ratio\nlru\n") == nil)
    }

    static func outcome(_ p: String, _ d: Double) -> Sensitivity.Outcome { .init(policy: p, value: d, delta: d, ci95: 0.001) }
    static func variation(_ n: String) -> Sensitivity.Variation { .init(name: n, isGroup: false, range: "x0.5...x2", why: "", low: ["\(n)=1"], high: ["\(n)=2"]) }

    @Test("a key with an end that gave no delta (nan) is never ranked on its other end: no effect, listed last, not screened")
    func missingEnd() {
        let center = [Self.outcome("lru", 0), Self.outcome("fifo", 0.01)]
        let rows = Sensitivity.rows(ramLabel: "2048", baseline: "lru", center: center, ends: [
            (Self.variation("a"), low: [Self.outcome("lru", 0), Self.outcome("fifo", .nan)], high: [Self.outcome("lru", 0), Self.outcome("fifo", 0.5)]),
            (Self.variation("b"), low: [Self.outcome("lru", 0), Self.outcome("fifo", 0.02)], high: [Self.outcome("lru", 0), Self.outcome("fifo", 0.03)]),
        ])
        #expect(!rows[0].complete && rows[0].effect.isNaN)  // it was 0.49: the high end's move alone
        #expect(rows[1].complete && abs(rows[1].effect - 0.02) < 1e-12)
        #expect(Sensitivity.strongest(rows, metric: .coldRatio, count: 5).map(\.name) == ["b"])
        let table = Sensitivity.table(workload: "w", devices: 2, days: 1, baseline: "lru", rows: rows)
        let lines = table.split(separator: "\n")
        let a = lines.firstIndex { $0.hasPrefix("a ") }!, b = lines.firstIndex { $0.hasPrefix("b ") }!
        #expect(b < a && lines[a].contains("no value") && table.contains("1 of them not ranked"))
        #expect(Sensitivity.csv(workload: "w", rows: rows).contains(",nan,"))
    }

    // MARK: app names by bytes

    @Test("app-map names are compared by their bytes: NFC and NFD are two names; U+FFFD is refused")
    func mapBytes() throws {
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "default")
        let c = AppCatalog(w)
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        #expect(nfc == nfd)  // Swift's String equality: canonical equivalence
        let m = try AppMap.parse(bytes: Array("app,archetype\n\(nfc),game\n\(nfd),mail\n".utf8), source: "m.csv", workload: w, catalog: c)
        #expect(m.count == 2)  // a map of both: it refused them as one name mapped twice
        func arch(_ n: String) -> String { w.catalog.archetypes[Int(c.archetype[AppMap.profile(of: n, catalog: c, map: m).index])].name }
        #expect(arch(nfc) == "game" && arch(nfd) == "mail")
        #expect(throws: InputError.self) { _ = try AppMap.parse(bytes: Array("app,archetype\nx\u{FFFD},game\n".utf8), source: "m.csv", workload: w, catalog: c) }
        // A catalog name matches by bytes only.
        let name = c.names[3]
        #expect(c.index(named: name) == 3)
        // The census counts the two spellings as two names.
        var stream = try UsageStream(reader: DelimitedReader(bytes: Array("device,time_s,app,duration_s\nd,0,\(nfc),1\nd,5,\(nfd),1\n".utf8)), source: "t")
        var census = ReplayAppCensus()
        census.add(try #require(try stream.nextBatch(rows: 100)), catalog: c, map: nil)
        #expect(census.names == 2)
    }

    // MARK: formats, spills, bounds

    @Test("usage-stats: an explicit kind wins over the header; a header with both kinds' columns is refused, saying how to choose")
    func fileKind() throws {
        let dir = FileManager.default.temporaryDirectory.path + "/jetsim-kind-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/both.csv"
        try "device,time_s,app,duration_s,time_ms,event\nd,0,mail,60,0,x\nd,100,maps,30,0,x\n".write(toFile: path, atomically: true, encoding: .utf8)
        do { _ = try UsageStats.read(path: path, days: nil, choose: "give --as"); Issue.record("guessed") } catch {
            #expect(error.message.contains("give --as") && error.line == 1, "\(error.description)")
        }
        let (s, kind) = try UsageStats.read(path: path, days: nil, kind: .usage)
        #expect(kind == .usage && s.devices == 1 && s.appSessions == 2)
        let (_, k2) = try UsageStats.read(path: path, days: nil, kind: .trace)
        #expect(k2 == .trace)
    }

    @Test("ISO-dated rows spill to disk like any (they stayed in memory): the same uses as read whole, in order or not")
    func isoSpill() throws {
        var csv = "device,time_s,app,duration_s\n"
        let start = 1_700_000_000
        func iso(_ t: Int) -> String {
            var tm = tm(); var s = time_t(t); gmtime_r(&s, &tm)
            return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec)
        }
        for i in 0..<600 { csv += "a,\(iso(start + i * 60)),x\(i % 7),\(i % 50)\n" }
        // Out of order after the spill: an earlier date at its end.
        for i in 0..<300 { csv += "b,\(iso(start + (i == 299 ? -3_600 : i * 30))),y\(i % 3),1\n" }
        var format = UsageFormat()
        format.timeUnit = .iso
        format.durationUnit = .s
        func read(_ spill: Int) throws -> UsageReplay {
            var stream = try UsageStream(reader: DelimitedReader(bytes: Array(csv.utf8)), source: "t", format: format)
            stream.spillRows = spill
            return try #require(try stream.nextBatch(rows: .max))
        }
        let memory = try read(0), spilled = try read(100)
        #expect(!spilled.inMemory(device: 0) && memory.inMemory(device: 0))  // device a spilled
        for d in 0..<2 {
            #expect(spilled.uses(ofDevice: d).map(\.time) == memory.uses(ofDevice: d).map(\.time), "device \(d)")
            #expect(spilled.uses(ofDevice: d).map(\.app) == memory.uses(ofDevice: d).map(\.app))
            #expect(spilled.span(ofDevice: d, fixed: nil) == memory.span(ofDevice: d, fixed: nil))
        }
        #expect(memory.uses(ofDevice: 0).first?.time == .zero && memory.uses(ofDevice: 1).first?.time == .zero)
    }

    @Test("a replayed device naming more apps than the bound is refused while system arrivals are on, never when they are off")
    func replayApps() throws {
        let n = UsageRunner.maxAppsWithSystemArrivals + 1
        var csv = "device,time_s,app,duration_s\n"
        for i in 0..<n { csv += "d,\(i),a\(i),1\n" }
        let on = try WorkloadDecoder.load(defaultWorkloadText, source: "t")
        let off = try WorkloadDecoder.load(try String(contentsOfFile: root + "/Workloads/lru-reference.yaml", encoding: .utf8), source: "t")
        let plan = { (w: Workload) in RunPlan(workload: w, cells: [Cell(policy: PolicyID(LRU.self), ramKB: 2 * 1_048_576)], threads: 1) }
        #expect(UsageRunner.replayHasSystemArrivals(plan(on), catalog: AppCatalog(on)))
        #expect(!UsageRunner.replayHasSystemArrivals(plan(off), catalog: AppCatalog(off)))
        // Prewarms alone: on where the class prewarms, not on Android (which never does).
        let prewarms = try Self.load((0..<10).flatMap { a in
            ["location_wakes_per_day", "voip_pushes_per_day", "silent_pushes_per_day", "background_refreshes_per_day"].map { "catalog.archetypes.\(a).\($0)=0" } })
        #expect(UsageRunner.replayHasSystemArrivals(plan(prewarms), catalog: AppCatalog(prewarms)))
        let android = try Self.load((0..<10).flatMap { a in
            ["location_wakes_per_day", "voip_pushes_per_day", "silent_pushes_per_day", "background_refreshes_per_day"].map { "catalog.archetypes.\(a).\($0)=0" } }
            + ["device_classes.iphone-11.os=android"])
        #expect(!UsageRunner.replayHasSystemArrivals(plan(android), catalog: AppCatalog(android)))
        // Refused before the device runs (no accumulator holds a device).
        var stream = try UsageStream(reader: DelimitedReader(bytes: Array(csv.utf8)), source: "t.csv")
        do {
            _ = try UsageRunner.run(plan(on), stream: &stream, catalog: AppCatalog(on))
            Issue.record("a device of \(n) apps ran with the arrivals on")
        } catch {
            #expect(error.message.contains("names \(n) distinct apps") && error.source == "t.csv", "\(error.description)")
        }
        var off2 = try UsageStream(reader: DelimitedReader(bytes: Array(csv.utf8)), source: "t.csv")
        let batch = try #require(try off2.nextBatch(rows: .max))
        try UsageRunner.checkApps(batch, arrivals: false, source: "t.csv")
        #expect(throws: InputError.self) { try UsageRunner.checkApps(batch, arrivals: true, source: "t.csv") }
    }

    // MARK: external policies

    @Test("after the process fails, nothing more is encoded; before, the batch is sent once it holds 1 MiB")
    func batchBound() throws {
        let link = ExternalLink()
        let process = PolicyProcess(name: "t", spec: ExternalPolicySpec(command: ["/bin/sh", "-c", "echo ok; cat > /dev/null"], timeoutS: 5))
        defer { process.close() }
        #expect(process.failure == nil)
        link.process = process
        link.reset(appCount: 4, seed: 1, device: 0)
        let c = EvictionCandidate(state: .background, residentKB: 1_024)
        for i in 0..<30_000 { link.update(Int32(i % 4), c) }  // about 2 MiB of lines
        #expect(link.batch.count < ExternalLink.flushBytes && process.failure == nil)
        process.fail(request: "test", "failed")
        link.failed = true
        let before = link.batch.count
        for _ in 0..<1_000 { link.update(1, c) }
        #expect(link.batch.count == before)
    }

    @Test("a failing process stops its device at the next hour, not at the device's end")
    func failureStops() throws {
        let w = try Self.load(["fleet.devices=1", "fleet.duration_days=7"])
        // Greets, answers one victim, then exits: the run fails at the second request.
        let script = "read a; echo ok; n=0; while read l; do case $l in victim) n=$((n+1)); [ $n -gt 1 ] && exit 0; echo 0;; esac; done"
        var x = w
        x.policies.external["quit"] = ExternalPolicySpec(command: ["/bin/sh", "-c", script], timeoutS: 5)
        let cells = [Cell(policy: PolicyID(external: "quit"), ramKB: 1_048_576)]
        let failed = FleetRunner.run(RunPlan(workload: x, cells: cells, threads: 1), catalog: AppCatalog(x))
        let full = FleetRunner.run(RunPlan(workload: x, cells: [Cell(policy: PolicyID(LRU.self), ramKB: 1_048_576)], threads: 1), catalog: AppCatalog(x))
        #expect(failed.failure != nil)
        #expect(failed.accumulators[0].events * 10 < full.accumulators[0].events,
                "\(failed.accumulators[0].events) events after the failure against \(full.accumulators[0].events) for the whole device")
    }

    @Test("a process the policy started ends with it: its group is ended on close and on a kill")
    func groupEnds() throws {
        let dir = FileManager.default.temporaryDirectory.path + "/jetsim-group-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for killed in [false, true] {
            let f = dir + "/bg\(killed)"
            let p = PolicyProcess(name: "t", spec: ExternalPolicySpec(command: ["/bin/sh", "-c", "sleep 60 & echo $! > \(f); read a; echo ok; cat > /dev/null"], timeoutS: 5))
            #expect(p.failure == nil)
            var bg: pid_t = 0
            for _ in 0..<200 where bg == 0 { usleep(10_000); bg = pid_t((try? String(contentsOfFile: f, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0 }
            #expect(bg > 0 && Glibc.kill(bg, 0) == 0)
            if killed { p.fail(request: "test", "failed") } else { p.close() }
            var gone = false
            // Gone, or a zombie (ended; its new parent reaps it when it gets to it).
            func ended() -> Bool {
                Glibc.kill(bg, 0) != 0 || ((try? String(contentsOfFile: "/proc/\(bg)/stat", encoding: .utf8))?.split(separator: ")").last?.hasPrefix(" Z") ?? true)
            }
            for _ in 0..<200 where !gone { gone = ended(); if !gone { usleep(10_000) } }
            #expect(gone, "the policy's own child \(bg) outlived it (\(killed ? "killed" : "closed"))")
        }
    }

    @Test("a child gets standard input, output and error only: every other descriptor is closed in it; its pid is in the table until reaped")
    func childDescriptors() throws {
        let fd = open("/dev/null", O_RDONLY)  // no O_CLOEXEC: a child inherited it
        defer { close(fd) }
        let dir = FileManager.default.temporaryDirectory.path + "/jetsim-fds-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/fds"
        let p = PolicyProcess(name: "t", spec: ExternalPolicySpec(command: ["/bin/sh", "-c", "ls /proc/$$/fd > \(out); echo ok; cat > /dev/null"], timeoutS: 5))
        #expect(p.failure == nil)
        let pid = p.pid
        #expect((0..<Children.capacity).contains { Children.slots[$0] == pid })
        p.close()
        #expect(!(0..<Children.capacity).contains { Children.slots[$0] == pid })
        let fds = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }.sorted()
        // 0, 1, 2, and the descriptor ls opens to list the directory.
        #expect(fds.filter { $0 > 2 }.count <= 1 && !fds.contains(Int(fd)), "\(fds)")
    }
}
