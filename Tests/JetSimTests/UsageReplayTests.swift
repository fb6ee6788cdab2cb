import Foundation
import Testing
import SimKernel
import Synchronization
@testable import JetSim

/// The usage trace reader: RFC 4180 CSV read as bytes, the grouping rule, and
/// replays whose LRU and Belady miss counts can be counted by hand.
@Suite("Usage trace streaming and replay")
struct UsageStreamTests {
    /// All records of `text`, as strings.
    static func records(_ text: String, delimiter: Character = ",") throws -> [[String]] {
        var r = DelimitedReader(bytes: Array(text.utf8), delimiter: delimiter.asciiValue!)
        var out: [[String]] = []
        while try r.next() { out.append((0..<r.count).map { r.string($0) }) }
        return out
    }

    @Test("CSV: LF, CRLF and lone CR end records; blank lines are skipped")
    func lineEnds() throws {
        #expect(try UsageStreamTests.records("a,b\nc,d\r\ne,f\rg,h") == [["a", "b"], ["c", "d"], ["e", "f"], ["g", "h"]])
        #expect(try UsageStreamTests.records("a\n\n\r\n  \nb\n") == [["a"], ["b"]])
    }

    @Test("CSV: a UTF-8 byte-order mark is skipped, only at the start")
    func bom() throws {
        #expect(try UsageStreamTests.records("\u{FEFF}device,x\n1,2\n") == [["device", "x"], ["1", "2"]])
        #expect(try UsageStreamTests.records("a\n\u{FEFF}b\n")[1] == ["\u{FEFF}b"])
    }

    @Test("CSV: quoted fields hold commas, doubled quotes and line breaks")
    func quoting() throws {
        #expect(try UsageStreamTests.records("\"a,b\",c\n") == [["a,b", "c"]])
        #expect(try UsageStreamTests.records("\"say \"\"hi\"\"\",x\n") == [["say \"hi\"", "x"]])
        #expect(try UsageStreamTests.records("\"two\nlines\",x\r\ny,z\n") == [["two\nlines", "x"], ["y", "z"]])
        #expect(try UsageStreamTests.records("\"\",x\n") == [["", "x"]])
        #expect(try UsageStreamTests.records("a,\n") == [["a", ""]])
    }

    @Test("CSV: line numbers count the breaks inside quotes")
    func lineNumbers() throws {
        var r = DelimitedReader(bytes: Array("h\n\"a\nb\"\n\nc\n".utf8))
        #expect(try r.next() && r.line == 1)
        #expect(try r.next() && r.line == 2)
        #expect(try r.next() && r.line == 5)
    }

    @Test("CSV: an unclosed quote and text after a closing quote are errors with their line")
    func quoteErrors() throws {
        #expect(throws: DelimitedReader.Failure.unterminatedQuote(line: 2)) { try UsageStreamTests.records("a\n\"b,c\n") }
        #expect(throws: DelimitedReader.Failure.textAfterQuote(line: 1)) { try UsageStreamTests.records("\"a\"b,c\n") }
    }

    @Test("CSV: unquoted fields are trimmed of blanks; tab-separated input keeps its empty fields")
    func trimAndTabs() throws {
        #expect(try UsageStreamTests.records(" a , b \n") == [["a", "b"]])
        #expect(try UsageStreamTests.records("a\t\tb\n", delimiter: "\t") == [["a", "", "b"]])
    }

    @Test("CSV: a file is read in blocks with the same records as from memory")
    func fromFile() throws {
        var text = "device,time_s,app,duration_s\n"
        for i in 0..<100_000 { text += "\"d,\(i / 1000)\",\(i),app\(i % 7),1\r\n" }
        let path = NSTemporaryDirectory() + "jetsim-usage-\(getpid()).csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var s = try UsageStream(path: path)
        var devices = 0, rows = 0
        while let b = try s.nextBatch(rows: 10_000) { devices += b.devices.count; rows += b.rows }
        #expect(devices == 100 && rows == 100_000)
    }

    @Test("CSV: records read in place (the fast path) and across 1 MiB block edges equal those read from memory")
    func fastPathAcrossBlocks() throws {
        // Plain rows (read in place), quoted ones, blanks, CR, CRLF and a `"` inside
        // an unquoted field, over about 3 MiB, so records straddle block edges.
        var text = "device,time_s,app,duration_s\n"
        var i = 0
        while text.utf8.count < 3 << 20 {
            switch i % 7 {
            case 0: text += "dev\(i / 500), \(i) ,app\(i % 13),1\r\n"
            case 1: text += "\"dev\(i / 500)\",\(i),\"a,\(i % 5)\",2\n"
            case 2: text += "  \n"
            case 3: text += "dev\(i / 500),\(i),ap\"p,3\r"
            default: text += "dev\(i / 500),\(i),app\(i % 11),\(i % 4)\n"
            }
            i += 1
        }
        let path = NSTemporaryDirectory() + "jetsim-blocks-\(getpid()).csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var file = DelimitedReader(path: path)!
        var memory = DelimitedReader(bytes: Array(text.utf8))
        var records = 0
        while try memory.next() {
            #expect(try file.next())
            #expect(file.line == memory.line)
            let a = (0..<file.count).map { file.string($0) }, b = (0..<memory.count).map { memory.string($0) }
            if a != b { Issue.record("record \(records) differs: \(a) vs \(b)"); break }
            records += 1
        }
        #expect(try !file.next())
        #expect(records == 1 + i - i / 7 - (i % 7 > 2 ? 1 : 0))
        #expect(try UsageStreamTests.records("a,\"b\"\"c\"\nx,y \" z\ndone") == [["a", "b\"c"], ["x", "y \" z"], ["done"]])
    }

    /// Every device's id, app names and uses (time, app name, duration) of `text`,
    /// and how many rows the one-pass fast path read; or the error.
    static func replayed(_ text: String) -> (String, Int) {
        do {
            var s = try UsageStream(reader: DelimitedReader(bytes: Array(text.utf8)), source: "t.csv")
            var out = ""
            while let b = try s.nextBatch(rows: 7) {
                for d in b.firstDevice..<b.endDevice {
                    out += b.name(ofDevice: d) + ":" + b.uses(ofDevice: d).map {
                        "\($0.time.microseconds) \(b.appNames(ofDevice: d)[Int($0.app)]) \($0.duration.microseconds)"
                    }.joined(separator: ",") + "\n"
                }
            }
            return (out, s.fastRowsRead)
        } catch {
            return ("\(error)", 0)
        }
    }

    @Test("rows read in one pass (the fast path) give the uses and errors the general path gives")
    func fastRows() {
        var g = Xoshiro256StarStar(seed: 15, 4)
        func pick(_ n: Int) -> Int { Int(g.next() % UInt64(n)) }
        var fastTotal = 0
        for round in 0..<40 {
            // Columns in any order, with others beside them; devices and apps of 1-20
            // bytes; whole and decimal seconds; out-of-order times; a CRLF file.
            let header = round % 2 == 0 ? ["device", "time_s", "app", "duration_s"] : ["note", "app", "duration_s", "device", "x", "time_s"]
            let crlf = round % 3 == 0
            var rows: [[String]] = []
            for d in 0..<(1 + pick(4)) {
                let device = "dev" + String(repeating: "d", count: pick(18)) + "\(d)"
                for _ in 0..<(1 + pick(30)) {
                    let seconds = [String(pick(100_000)), "\(pick(1_000)).\(pick(1_000_000))", "\(pick(100))."][pick(3)]
                    let app = "a" + String(repeating: "pp", count: pick(10)) + "\(pick(12))"
                    let values = ["device": device, "time_s": seconds, "app": app, "duration_s": String(pick(300)), "note": "n\(pick(9))", "x": ""]
                    rows.append(header.map { values[$0]! })
                }
            }
            if round == 39 {
                // An error, on the same line both ways.
                while rows.count < 18 { rows.append(rows[rows.count - 1]) }
                rows[17][header.firstIndex(of: "app")!] = ""
            }
            let end = crlf ? "\r\n" : "\n"
            let plain = header.joined(separator: ",") + end + rows.map { $0.joined(separator: ",") + end }.joined()
            // Every field quoted: no row goes the fast way.
            let quoted = header.joined(separator: ",") + end + rows.map { $0.map { "\"\($0)\"" }.joined(separator: ",") + end }.joined()
            let (fast, fastCount) = Self.replayed(plain), (general, generalCount) = Self.replayed(quoted)
            #expect(fast == general, "round \(round)")
            #expect(generalCount == 0)
            if round == 39 {
                #expect(fast == "t.csv:19: app: empty app name", "\(fast)")
            } else {
                // All but each device's first row (read by the general path, which ends the device before).
                let devices = fast.split(separator: "\n").count
                #expect(fastCount == rows.count - devices, "round \(round)")
                fastTotal += fastCount
            }
        }
        #expect(fastTotal > 500)
        // A device whose id extends the one before it, or is its prefix, is another device.
        let prefixes = "device,time_s,app,duration_s\nab,0,x,1\nab,1,x,1\nabc,2,x,1\nabc,3,y,1\nab2,4,x,1\nab2,5,x,1\na,6,x,1\na,7,x,1\n"
        #expect(Self.replayed(prefixes) == ("ab:0 x 1000000,1000000 x 1000000\nabc:2000000 x 1000000,3000000 y 1000000\n"
                                            + "ab2:4000000 x 1000000,5000000 x 1000000\na:6000000 x 1000000,7000000 x 1000000\n", 4))
        // A quoted id with a blank, a delimiter or a newline in it: the unquoted rows after
        // it are read by the general rules (trimmed, split), never matched byte for byte.
        #expect(Self.replayed("device,time_s,app,duration_s\n\" a\",0,x,1\n a,5,y,2\n")
                == (" a:0 x 1000000\na:5000000 y 2000000\n", 0))
        #expect(Self.replayed("device,time_s,app,duration_s\n\"a,b\",0,x,1\na,b,5,y,2\n").0 == "t.csv:3: time_s: expected seconds (a non-negative number below 1e10), got 'b'",
                "\(Self.replayed("device,time_s,app,duration_s\n\"a,b\",0,x,1\na,b,5,y,2\n"))")
        #expect(Self.replayed("device,time_s,app,duration_s\n\"a\nb\",0,x,1\na\nb,1,x,1\n").0 == "t.csv:4: time_s: missing value (the row has 1 fields)",
                "\(Self.replayed("device,time_s,app,duration_s\n\"a\nb\",0,x,1\na\nb,1,x,1\n"))")
    }

    @Test("under the usual header, rows in forms the straight-line reader leaves to fastRow read as the general path reads them")
    func inOrderFallbacks() {
        func quoted(_ text: String) -> String {
            // Every field of every row quoted (the header too): the general path alone.
            text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                line.isEmpty ? "" : line.split(separator: ",", omittingEmptySubsequences: false).map { "\"\($0)\"" }.joined(separator: ",")
            }.joined(separator: "\n")
        }
        // Leading zeros past 10 digits, decimals, a trailing point, the largest whole
        // seconds, then one row of each device to start it (read by the general path).
        let rows = ["d,0000000000090,a,1", "d,91,a,00000000002", "d,92.5,bb,3", "d,93,bb,4.", "d,9999999999,c,1"]
        let plain = "device,time_s,app,duration_s\n" + rows.map { $0 + "\n" }.joined()
        let (fast, fastCount) = Self.replayed(plain)
        #expect(fast == "d:90000000 a 1000000,91000000 a 2000000,92500000 bb 3000000,93000000 bb 4000000,9999999999000000 c 1000000\n")
        #expect(fastCount == rows.count - 1)
        #expect(Self.replayed(quoted(plain)) == (fast, 0))
        // Another column after duration_s: the same uses, every row after the first read in one pass.
        let extra = "device,time_s,app,duration_s,x\nd,1,a,2,z\nd,3,b,4,\nd,5,a,6,w\n"
        #expect(Self.replayed(extra) == ("d:1000000 a 2000000,3000000 b 4000000,5000000 a 6000000\n", 2))
        #expect(Self.replayed(quoted(extra)).0 == Self.replayed(extra).0)
        // A CR alone ends a record (the general rules): the row before it is left to them.
        #expect(Self.replayed("device,time_s,app,duration_s\nd,0,a,1\nd,2,a,1\rd,3,b,1\n")
                == ("d:0 a 1000000,2000000 a 1000000,3000000 b 1000000\n", 1))
        // Eleven digits, an empty duration: the general path's error, on the same line.
        for (row, error) in [("d,12345678901,a,1", "t.csv:3: time_s: expected seconds (a non-negative number below 1e10), got '12345678901'"),
                             ("d,2,a,", "t.csv:3: duration_s: expected seconds (a non-negative number below 1e10), got ''")] {
            let text = "device,time_s,app,duration_s\nd,0,a,1\n" + row + "\n"
            #expect(Self.replayed(text).0 == error, "\(Self.replayed(text))")
        }
    }

    @Test("whole seconds of every length, read 8 bytes at once, equal the general path's; the bytes beside the digits end no number")
    func wholeSecondsEveryLength() {
        func quoted(_ line: String) -> String {
            line.split(separator: ",", omittingEmptySubsequences: false).map { "\"\($0)\"" }.joined(separator: ",")
        }
        let header = "device,time_s,app,duration_s\n"
        // 1 to 10 digits (7 and fewer by one 8-byte load; 8 and more by the byte loop),
        // leading zeros, in time_s and duration_s, on rows after the first (the fast
        // path's), the last one at the very end of the bytes (the load reads past the
        // sentinel into the reader's spare bytes).
        let digits = "9876543210987"
        var rows = ["d,0,a,1"]
        var uses: [(time: Int, app: String, duration: Int)] = [(0, "a", 1)]
        for n in 1...10 {
            let v = String(digits.suffix(n)), r = String(v.reversed())
            rows.append("d,\(v),a\(n),\(r)")
            uses.append((Int(v)!, "a\(n)", Int(r)!))
            rows.append("d,\(String(repeating: "0", count: n - 1))7,b,\(v)")
            uses.append((7, "b", Int(v)!))
        }
        // Sorted by time, ties in file order, as the stream sorts a device's rows.
        let expected = "d:" + uses.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map { "\($0.element.time * 1_000_000) \($0.element.app) \($0.element.duration * 1_000_000)" }.joined(separator: ",") + "\n"
        let plain = header + rows.joined(separator: "\n") + "\n"
        let general = header + rows.map(quoted).joined(separator: "\n") + "\n"
        let (fast, fastCount) = Self.replayed(plain)
        #expect(fast == expected)
        #expect(Self.replayed(general) == (expected, 0))
        #expect(fastCount == rows.count - 1)
        // The same without the final line feed: the last number ends at the bytes' end.
        #expect(Self.replayed(String(plain.dropLast())).0 == expected)
        // A byte next to '0'...'9' ('/', ':', a UTF-8 continuation byte 0xB0-0xB9, a
        // letter) right after the digits: not whole seconds, so the general path reads
        // the row and gives its error, for a number of every length up to 8.
        for n in 1...8 {
            for tail in ["/", ":", "\u{B0}", "\u{439}", "x"] {
                let v = String(digits.suffix(n)) + tail
                let text = header + "d,0,a,1\nd,\(v),a,1\n"
                let got = Self.replayed(text).0
                #expect(got.hasPrefix("t.csv:3: time_s: expected seconds"), "\(v): \(got)")
                let inDuration = Self.replayed(header + "d,0,a,1\nd,5,a,\(v)\n").0
                #expect(inDuration.hasPrefix("t.csv:3: duration_s: expected seconds"), "\(v): \(inDuration)")
            }
        }
    }

    @Test("app names are looked up by their bytes: indices in first-seen order, past the table's first size")
    func nameTable() {
        var t = ByteNameTable()
        func index(_ s: String) -> Int32 { Array(s.utf8).withUnsafeBufferPointer { t.index(of: $0) } }
        for round in 0..<3 {
            for k in 0..<300 { #expect(index("app\(k)") == Int32(k)) }
            #expect(index("") == -1)
            #expect(index("app1") == 1 && index("app10") == 10 && index("app100") == 100)
            #expect(t.names.count == 300 && t.names[299] == "app299")
            if round < 2 { t.removeAll() }
        }
        t.removeAll()
        #expect(index("é") == 0 && index("e") == 1 && t.names == ["é", "e"])
    }

    @Test("the shard state's usage hash streams the file: it equals FNV-1a of its text")
    func fileHash() throws {
        let text = String(repeating: "device,time_s,app,duration_s\nd,0,a,1\n", count: 70_000)  // > 2 MiB
        let path = NSTemporaryDirectory() + "jetsim-hash-\(getpid()).csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FNV1a.hash(fileAt: path) == FNV1a.hash(text))
        #expect(FNV1a.hash(fileAt: path + ".missing") == nil)
        #expect(FNV1a.hash("") == 0xcbf2_9ce4_8422_2325)
    }

    @Test("seconds parse exactly to the microsecond")
    func numbers() {
        func us(_ s: String) -> Int64? { Array(s.utf8).withUnsafeBufferPointer { ByteNumber.microseconds($0) } }
        #expect(us("0") == 0)
        #expect(us("12") == 12_000_000)
        #expect(us("1.5") == 1_500_000)
        #expect(us("0.000001") == 1)
        #expect(us("3.") == 3_000_000)
        #expect(us("1e3") == 1_000_000_000)
        #expect(us("-1") == nil)
        #expect(us("x") == nil)
        #expect(us("inf") == nil)
        #expect(us("0x10") == nil)
        #expect(us("1e10") == nil)
        #expect(us("") == nil)
    }

    @Test("a device whose sessions, run one after another, pass 1e12 s is refused (it trapped in the replay); just under runs")
    func summedDurationsBounded() throws {
        // Sessions of 9.9e9 s (each under a field's 1e10) at time 0 replay back to back:
        // 101 of them, with a second between, stay under 1e12 s; 102 pass it.
        func trace(_ n: Int) -> String {
            "device,time_s,app,duration_s\n" + String(repeating: "d,0,a,9900000000\n", count: n) + "e,0,a,1\n"
        }
        #expect(throws: InputError(source: "t.csv", line: 103, key: "duration_s",
                                   "device 'd': its app sessions, replayed one after another, run past 1e12 s (the rows up to this line)")) {
            try UsageReplay.parse(trace(102), source: "t.csv")
        }
        #expect(try UsageReplay.parse(trace(101), source: "t.csv").rows == 102)
    }

    @Test("a trace must be grouped by device; a device that comes back is an error naming the line")
    func grouping() throws {
        let text = "device,time_s,app,duration_s\na,0,x,1\nb,0,x,1\na,5,y,1\n"
        #expect(throws: InputError(source: "t.csv", line: 4, key: "device",
                                   "device 'a' comes back after other devices (its rows ended at line 2); the trace must be grouped by device: all of a device's rows together (scripts/group-usage.sh FILE > GROUPED.csv groups it, keeping each device's row order)")) {
            try UsageReplay.parse(text, source: "t.csv")
        }
    }

    @Test("rows of a device in any time order are sorted, equal times kept in file order")
    func sorting() throws {
        let u = try UsageReplay.parse("device,time_s,app,duration_s\nd,50,late,1\nd,0,first,1\nd,0,second,1\n", source: "t")
        #expect(u.uses(ofDevice: 0).map(\.time) == [.zero, .zero, .seconds(50)])
        #expect(u.uses(ofDevice: 0).map { u.appNames[0][Int($0.app)] } == ["first", "second", "late"])
    }

    @Test("bad rows name the file, line and column")
    func badRows() {
        #expect(throws: InputError(source: "t", line: 1, key: "duration_s", "missing column; the header must name at least device,time_s,app,duration_s; it has device,time_s,app; --usage-columns duration=NAME names the duration column")) {
            try UsageReplay.parse("device,time_s,app\n", source: "t")
        }
        #expect(throws: InputError(source: "t", line: 3, key: "time_s", "expected seconds (a non-negative number below 1e10), got '-3'")) {
            try UsageReplay.parse("device,time_s,app,duration_s\nd,0,a,1\nd,-3,a,1\n", source: "t")
        }
        #expect(throws: InputError(source: "t", line: 2, key: "app", "missing value (the row has 2 fields)")) {
            try UsageReplay.parse("device,time_s,app,duration_s\nd,0\n", source: "t")
        }
        #expect(throws: InputError(source: "t", "no rows after the header")) {
            try UsageReplay.parse("\u{FEFF}device,time_s,app,duration_s\r\n", source: "t")
        }
    }

    @Test("a device's span is the end of its last use plus the lock gap")
    func span() throws {
        let u = try UsageReplay.parse("device,time_s,app,duration_s\nd,0,a,100\nd,50,b,10\n", source: "t")
        // b waits for a: 100..110, then lock at 111, then the lock gap.
        #expect(u.span(ofDevice: 0, fixed: nil) == .seconds(111 + 60))
        #expect(u.span(ofDevice: 0, fixed: .seconds(5)) == .seconds(5))
        #expect(u.rowsPast(.seconds(100), device: 0) == 1)
    }

    /// Replays device 0 of `csv` on equal apps of which `slots` fit (thresholds at
    /// zero, so the resident apps are a cache of `slots`); returns the cold launches
    /// (first launches included: the misses).
    static func misses(_ csv: String, slots: Int, policy: PolicyID) throws -> Int {
        let usage = try UsageReplay.parse(csv, source: "t")
        var w = try WorkloadDecoder.load(defaultWorkloadText, source: "default")
        w.fleet.duration = .days(1)
        var installed = ContiguousArray<Int32>(), timeline = Timeline()
        usage.build(device: 0, catalog: AppCatalog(w), duration: usage.span(ofDevice: 0, fixed: nil), installed: &installed, timeline: &timeline)
        var sc = Scenario(source: "t")
        sc.policy = policy
        let appKB: Int64 = 1_536 * 1_024 / Int64(slots) - 1_024
        sc.params = DeviceParameters(ramKB: 2 * 1_048_576, osReserveKB: 512 * 1_024, warningAvailablePct: 0,
                                     criticalAvailablePct: 0, killTargetAvailablePct: 0, perAppLimitPct: 100)
        // No inactive limit: apps over it would die to high-water kills first (XNU's
        // order, issue 29), not to the policy's choice.
        sc.params.xnu.inactiveLimitPct = 100
        for name in usage.appNames[0] {
            sc.appNames.append(name)
            sc.profiles.append(AppProfile(activeKB: appKB, backgroundKB: appKB, suspendedKB: appKB, save: .never, unsavedEditsPerMinute: 0))
        }
        sc.actions = Array(timeline.actions)
        sc.endTime = usage.span(ofDevice: 0, fixed: nil)
        let m = ScenarioRunner.run(sc, checkInvariants: false).metrics
        return m[.coldRelaunches] + usage.appNames[0].count
    }

    @Test("the oracle is exactly Belady, ties by position: A B C A B C at t=0 with 2 slots")
    func beladyTies() throws {
        let csv = "device,time_s,app,duration_s\n" + ["A", "B", "C", "A", "B", "C"].map { "d,0,\($0),0" }.joined(separator: "\n")
        #expect(try UsageStreamTests.misses(csv, slots: 2, policy: PolicyID(Oracle.self)) == 4)
    }

    @Test("a hand-countable trace: 1 2 3 4 1 2 5 1 2 3 4 5 with 3 slots, LRU 10 misses, Belady 7")
    func textbook() throws {
        let refs = [1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5]
        let csv = "device,time_s,app,duration_s\n" + refs.enumerated().map { "d,\($0.offset * 30),app\($0.element),10" }.joined(separator: "\n")
        #expect(try UsageStreamTests.misses(csv, slots: 3, policy: PolicyID(LRU.self)) == 10)
        #expect(try UsageStreamTests.misses(csv, slots: 3, policy: PolicyID(Oracle.self)) == 7)
    }

    /// A replay's plain device with apps `a` and `b` (LRU; no XNU bands, growth or
    /// prewarming): nothing schedules a timer but the apps' own.
    static func plainTwoApps() -> Scenario {
        var sc = Scenario(source: "t")
        sc.policy = PolicyID(LRU.self)
        sc.params.xnu.bands = false
        sc.params.memoryGrowth = false
        sc.params.prewarming = false
        sc.appNames = ["a", "b"]
        return sc
    }

    /// Replays: `a` launched at 0, Home at 5 s (its grace, 10 s, ends at 15 s), with
    /// `b` (saving periodically: its timer goes into the queue) launched at 6 s if
    /// `withB`, then `a` launched again at `t`. Nothing else is scheduled (no aging,
    /// growth, background work or handler), so `a`'s suspension timer is held by the
    /// device (`Device.heldApp`), and with `b` put into the queue when `b`'s timer is.
    static func relaunch(at t: SimTime, withB: Bool) -> DeviceMetrics {
        var sc = plainTwoApps()
        sc.profiles = [AppProfile(enterBackgroundHandler: .zero, save: .never, unsavedEditsPerMinute: 0),
                       AppProfile(enterBackgroundHandler: .zero, save: .periodic, unsavedEditsPerMinute: 0)]
        sc.actions = [UserAction(time: .zero, kind: .launch, app: 0), UserAction(time: .seconds(5), kind: .home)]
        if withB { sc.actions.append(UserAction(time: .seconds(6), kind: .launch, app: 1)) }
        sc.actions.append(UserAction(time: t, kind: .launch, app: 0))
        sc.endTime = .seconds(100)
        return ScenarioRunner.run(sc).metrics
    }

    @Test("a suspension timer keeps its place held or queued: a launch at the grace's end finds the app suspended, one just before it does not")
    func suspensionAtGraceEnd() {
        for withB in [false, true] {
            // At 15 s the timer comes first (it was made before the launch's input): a warm relaunch.
            let atEnd = Self.relaunch(at: .seconds(15), withB: withB)
            #expect(atEnd[.relaunches] == 1 && atEnd[.warmRelaunches] == 1 && atEnd[.hotRelaunches] == 0, "withB \(withB)")
            // A microsecond earlier the app is still in the background: hot.
            let before = Self.relaunch(at: .seconds(15) - .microseconds(1), withB: withB)
            #expect(before[.relaunches] == 1 && before[.hotRelaunches] == 1 && before[.warmRelaunches] == 0, "withB \(withB)")
        }
    }

    /// A reference cache of `slots` over `refs` (consecutive repeats merged: the app
    /// is in front, a hit either way), counting misses: LRU, or Belady (evict the
    /// app used again farthest ahead; ties do not arise, each app has one next use).
    static func referenceMisses(_ refs: [Int], slots: Int, belady: Bool) -> Int {
        var cache: [Int] = []  // least recently used first
        var misses = 0
        for (i, r) in refs.enumerated() {
            if let k = cache.firstIndex(of: r) { cache.remove(at: k); cache.append(r); continue }
            misses += 1
            if cache.count == slots {
                if belady {
                    func next(_ a: Int) -> Int { refs[(i + 1)...].firstIndex(of: a) ?? .max }
                    let victim = cache.max { next($0) < next($1) }!
                    cache.removeAll { $0 == victim }
                } else {
                    cache.removeFirst()
                }
            }
            cache.append(r)
        }
        return misses
    }

    @Test("on Workloads/lru-reference.yaml a replay is a cache of 4: its cold launches are LRU's and Belady's misses")
    func lruReference() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let w = try WorkloadDecoder.load(String(contentsOf: dir.appendingPathComponent("Workloads/lru-reference.yaml"), encoding: .utf8),
                                         source: "lru-reference.yaml")
        // 3 devices x 300 rows over 12 apps, skewed (as scripts/bench-replay.sh draws
        // them), uses of 30 s every 90 s, and now and then a pause that locks the device.
        var csv = "device,time_s,app,duration_s\n"
        var refs: [[Int]] = [[], [], []]
        var x: UInt64 = 12_345
        func unit() -> Double { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return Double(x >> 11) / 9_007_199_254_740_992 }
        for d in 0..<3 {
            var t = 0
            for _ in 0..<300 {
                let a = Int(12 * unit() * unit())
                csv += "dev\(d),\(t),app\(a),30\n"
                if refs[d].last != a { refs[d].append(a) }
                t += unit() < 0.1 ? 900 : 90
            }
        }
        for (policy, belady) in [(PolicyID(LRU.self), false), (PolicyID(Oracle.self), true)] {
            var stream = try UsageStream(reader: DelimitedReader(bytes: Array(csv.utf8)), source: "t")
            let plan = RunPlan(workload: w, cells: [Cell(policy: policy, ramKB: 2 * 1_048_576)], threads: 1)
            let a = try UsageRunner.run(plan, stream: &stream, catalog: AppCatalog(w), batchRows: 250).result.accumulators[0]
            let want = refs.map { Self.referenceMisses($0, slots: 4, belady: belady) }.reduce(0, +)
            #expect(a[.launches] - a[.relaunches] + a[.coldRelaunches] == want, "\(policy.name)")
            #expect(a[.memoryWarnings] == 0 && a[.killsPressure] == want - 3 * 4, "\(policy.name): one kill a miss once 4 are in")
        }
    }

    /// The outcome of a replay of `csv` on `w` with every policy, fed to the
    /// simulation `chunkRows` rows at a time (0: the timeline built whole): the
    /// accumulators, the hourly series and the per-device rows.
    static func replayOutcome(_ w: Workload, _ csv: String, chunkRows: Int, spillRows: Int = 0,
                              until: SimTime?) throws -> ([CellAccumulator], [Int], String) {
        var stream = try UsageStream(reader: DelimitedReader(bytes: Array(csv.utf8)), source: "t")
        stream.spillRows = spillRows
        var plan = RunPlan(workload: w, cells: PolicyID.all.map { Cell(policy: $0, ramKB: 2 * 1_048_576) }, threads: 1)
        plan.replayChunkRows = chunkRows
        plan.usageUntil = until
        plan.timeSeries = true
        let rows = Mutex("")
        let sink = PerDeviceSink { r in rows.withLock { $0 += r } }
        let o = try UsageRunner.run(plan, stream: &stream, catalog: AppCatalog(w), perDeviceSink: sink, batchRows: 400)
        return (o.result.accumulators, o.result.series?.values ?? [], rows.withLock { $0 })
    }

    @Test("a replay fed to the simulation a few rows at a time runs as one built whole: every policy (the oracle's next uses, prewarm targets drawn from the past actions), the hourly series, the spans")
    func chunkedReplay() throws {
        // The default workload (system arrivals, prewarms, XNU bands) on 2 GB, so
        // apps are killed and prewarmed; 3 devices of 200 rows over 30 apps, with
        // locking pauses, overlapping uses and uses of no length (actions at one time
        // across rows, where a chunk may start). Sized for a debug build: about 12 s for
        // the 10 policies x 8 replays below on this project's 2-core machine.
        // Prewarms a few times an hour, so that many are drawn from actions of earlier chunks.
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "t",
                                         overrides: ["fleet.duration_days=1"] + (0..<10).map { "catalog.archetypes.\($0).prewarms_per_day=48" })
        var csv = "device,time_s,app,duration_s\n"
        var x: UInt64 = 99
        func unit() -> Double { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return Double(x >> 11) / 9_007_199_254_740_992 }
        for d in 0..<3 {
            var t = 0
            for _ in 0..<200 {
                let a = Int(30 * unit() * unit())
                let length = unit() < 0.2 ? 0 : Int(200 * unit())
                csv += "dev\(d),\(t),app\(a),\(length)\n"
                t += unit() < 0.15 ? 1_800 : (unit() < 0.3 ? 0 : Int(120 * unit()))
            }
        }
        // A device whose rows are out of order near its end (sorted once read whole).
        // (A quoted name now and then: the general reader, after which rows may spill.)
        for i in 0..<120 { csv += "dev3,\(i < 110 ? i * 100 : 20_000 - i * 7),\(i % 40 == 0 ? "\"app\(i % 11)\"" : "app\(i % 11)"),30\n" }
        for until in [nil, SimTime.hours(6)] {
            let whole = try Self.replayOutcome(w, csv, chunkRows: 0, until: until)
            #expect(whole.0.contains { $0[.killsPressure] > 0 } && whole.0.contains { $0[.prewarms] > 20 })
            // Rows spilled to a file past 50 (read back a chunk at a time), or in memory:
            // the smallest chunk, a small and a middle one, and one past the device (the
            // run cut at 6 h: the two that spill).
            let variants = until == nil ? [(1, 50), (7, 0), (64, 50), (1 << 16, 0)] : [(1, 50), (64, 50)]
            for (chunk, spill) in variants {
                let fed = try Self.replayOutcome(w, csv, chunkRows: chunk, spillRows: spill, until: until)
                #expect(fed.0 == whole.0, "chunks of \(chunk) rows, spilled past \(spill), until \(String(describing: until))")
                #expect(fed.1 == whole.1, "hourly series, chunks of \(chunk) rows, spilled past \(spill)")
                #expect(fed.2 == whole.2, "per-device rows, chunks of \(chunk) rows, spilled past \(spill)")
            }
        }
    }

    @Test("a long device's rows spilled to a file as they are read are the rows read into memory: in order, read back in any piece, out of order, walked")
    func spilledRows() throws {
        var csv = "device,time_s,app,duration_s\n"
        for i in 0..<1_000 { csv += "a,\(i * 50),x\(i % 13),\(i % 70)\n" }
        // Out of order at its end, after rows have spilled (a quoted name now and then:
        // the general reader, after which rows may spill).
        for i in 0..<400 { csv += "b,\(i == 399 ? 5 : i * 10),\(i % 30 == 0 ? "\"y\(i % 5)\"" : "y\(i % 5)"),1\n" }
        func read(_ spill: Int) throws -> UsageReplay {
            var stream = try UsageStream(reader: DelimitedReader(bytes: Array(csv.utf8)), source: "t")
            stream.spillRows = spill
            return try stream.nextBatch(rows: .max)!
        }
        let memory = try read(0), spilled = try read(100)
        #expect(!spilled.inMemory(device: 0) && spilled.inMemory(device: 1) && memory.inMemory(device: 0))
        #expect(spilled.rows == memory.rows && spilled.rowCount(ofDevice: 0) == 1_000)
        for d in 0..<2 {
            #expect(spilled.uses(ofDevice: d).map(\.time) == memory.uses(ofDevice: d).map(\.time))
            #expect(spilled.uses(ofDevice: d).map(\.app) == memory.uses(ofDevice: d).map(\.app))
            #expect(spilled.uses(ofDevice: d).map(\.duration) == memory.uses(ofDevice: d).map(\.duration))
            #expect(spilled.span(ofDevice: d, fixed: nil) == memory.span(ofDevice: d, fixed: nil))
            #expect(spilled.rowsPast(.seconds(20_000), device: d) == memory.rowsPast(.seconds(20_000), device: d))
        }
        var piece = ContiguousArray<UsageReplay.Use>()
        spilled.readRows(ofDevice: 0, from: 980, count: 20, into: &piece)  // across the spill's end
        #expect(piece.map(\.time) == Array(memory.uses(ofDevice: 0)[980..<1_000].map(\.time)))
    }

    @Test("workload comments that say how many apps fit say what the device does at the critical level")
    func capacityClaims() throws {
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Workloads")
        var checked = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: dir.path) where file.hasSuffix(".yaml") {
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            let claim = /(\d+) apps of (\d+) MB fit/
            for m in text.matches(of: claim) {
                let w = try WorkloadDecoder.load(text, source: file)
                let n = Int(m.1)!, mb = Int64(m.2)!
                for c in w.deviceClasses {
                    let p = c.parameters()
                    let fit = (p.ramKB - p.osReserveKB - p.criticalKB) / (mb * 1_024)
                    #expect(Int(fit) == n, "\(file): says \(n) apps of \(mb) MB fit; \(fit) do in class \(c.name)")
                }
                checked += 1
            }
        }
        #expect(checked >= 1)
    }

    @Test("spilled rows that cannot be read back end the run through FatalIO (the command: exit 1), naming the file")
    func spillReadFailure() async {
        let result = await #expect(processExitsWith: .exitCode(1), observing: [\.standardErrorContent]) {
            // The command's handler, as Sources/JetSimCLI/main.swift installs it.
            FatalIO.handler = { message in
                FileHandle.standardError.write(Data(("jetsim: " + message + "\n").utf8))
                exit(1)
            }
            // A descriptor that reads nothing: the file's rows cannot come back.
            let spill = RowSpill(fd: -1, count: 4, path: "/tmp/jetsim-rows.TEST01")
            var rows = [UInt8](repeating: 0, count: 4 * RowSpill.rowBytes)
            rows.withUnsafeMutableBytes { spill.read(into: $0, row: 0) }
        }
        let stderrText = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderrText.contains("/tmp/jetsim-rows.TEST01"), "\(stderrText)")
        #expect(stderrText.contains("cannot read them back: Bad file descriptor"), "\(stderrText)")
    }
}
