import Foundation
import Testing
import SimKernel
import Synchronization
@testable import JetSim

/// The binary usage trace (`.jtrace`, docs/jtrace.md): its checksum, its layout, the
/// replay it gives (the CSV's, exactly), hostile files, and `--sample-devices`.
@Suite("Binary usage traces (.jtrace)")
struct UsageTraceTests {
    /// A directory for this process's files.
    static let dir: String = {
        let d = NSTemporaryDirectory() + "jetsim-jtrace-\(getpid())"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()

    static func path(_ name: String) -> String { dir + "/\(name)-\(UInt32.random(in: 0...UInt32.max)).jtrace" }

    /// The `.jtrace` bytes of `csv`, as `jetsim import` writes them.
    static func jtrace(_ csv: String, format: UsageFormat = UsageFormat()) throws -> [UInt8] {
        var stream = try UsageStream(reader: DelimitedReader(bytes: Array(csv.utf8)), source: "t.csv", format: format)
        stream.keepsNameBytes = true
        stream.spillRows = 50  // long devices spilled as they are read: the writer reads them back
        let p = path("w")
        let fd = Glibc.open(p, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd); unlink(p) }
        var w = UsageTraceWriter(fd: fd)
        while let b = try stream.nextBatch(rows: 100) { try w.add(b) }
        #expect(try w.finish(source: "t.csv") == 0)
        return try Array(Data(contentsOf: URL(fileURLWithPath: p)))
    }

    /// `bytes` opened as a trace (from a file, as jetsim opens one).
    static func openTrace(_ bytes: [UInt8]) throws(InputError) -> UsageTrace {
        let p = path("o")
        _ = FileManager.default.createFile(atPath: p, contents: Data(bytes))
        defer { unlink(p) }
        return try UsageTrace(path: p)
    }

    /// The message `bytes` are refused with (nil: accepted).
    static func refusal(_ bytes: [UInt8]) -> String? {
        do { _ = try openTrace(bytes); return nil } catch { return error.message }
    }

    /// Stores the body's XXH64 in the header, as a writer that meant the bytes would.
    static func resum(_ b: inout [UInt8]) {
        let h = b.withUnsafeBytes { XXH64.hash(UnsafeRawBufferPointer(rebasing: $0[64...])) }
        set64(&b, 56, h)
    }

    static func set64(_ b: inout [UInt8], _ at: Int, _ v: UInt64) { for i in 0..<8 { b[at + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(i))) } }
    static func set32(_ b: inout [UInt8], _ at: Int, _ v: UInt32) { for i in 0..<4 { b[at + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(i))) } }
    static func get64(_ b: [UInt8], _ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }

    /// Three devices: one out of time order (its apps numbered in file order), quoted
    /// fields, an id of three bytes, equal times.
    static let small = "device,time_s,app,duration_s\n"
        + "d1,100,mail,5\nd1,40,chat,3\nd1,40,mail,0\nd1,\"700.5\",\"a,b\",2\n"
        + "\u{FFFD},10,chat,1\n"
        + "d2,0,chat,60\nd2,30,game,1.25\n"

    @Test("XXH64 is xxHash's (the values `xxhsum -H1` prints), in one call or streamed in pieces")
    func xxh64() {
        func h(_ b: [UInt8]) -> UInt64 { b.withUnsafeBytes { XXH64.hash($0) } }
        #expect(h([]) == 0xEF46_DB37_51D8_E999)
        #expect(h(Array("a".utf8)) == 0xD24E_C4F1_A98C_6E5B)
        #expect(h(Array("abc".utf8)) == 0x44BC_2CF5_AD77_0999)
        #expect(h(Array("abcdefgh".utf8)) == 0x3AD3_5177_5B46_34B7)
        #expect(h([UInt8](repeating: 0, count: 1_000)) == 0x0E2B_1EF2_7944_075A)
        let x = (0..<1_037).map { UInt8(65 + $0 % 26) }
        #expect(h(x) == 0x0FF7_95E9_B38F_3D2F)
        for cuts in [[0, 5, 100], [31, 32, 33], [1, 2, 3, 64, 1_036]] {
            var s = XXH64()
            var from = 0
            x.withUnsafeBytes { b in
                for c in cuts + [x.count] { s.update(UnsafeRawBufferPointer(rebasing: b[from..<c])); from = c }
            }
            #expect(s.value == h(x), "cut at \(cuts)")
        }
    }

    @Test("a record is a replay row as it lies in memory: start at 0, app at 8, the device in the padding at 12, duration at 16")
    func layout() {
        #expect(UsageTrace.layoutMatches)
        #expect(MemoryLayout<UsageReplay.Use>.size == 24)
    }

    @Test("the file holds the CSV's devices, ids as bytes, apps in first-use order, rows sorted; the header's counts and sizes")
    func roundTrip() throws {
        let bytes = try Self.jtrace(Self.small)
        #expect(Array(bytes[0..<8]) == UsageTrace.magic)
        // 64 + 24 x 7 records + 24 x 4 index + 16 x 6 device apps + 8 x 5 app index + ids + names.
        let names = "d1".utf8.count + 3 + "d2".utf8.count, apps = "mailchata,bgame".utf8.count
        #expect(bytes.count == 64 + 24 * 7 + 24 * 4 + 16 * 6 + 8 * 5 + names + apps)
        #expect(Self.get64(bytes, 16) == UInt64(bytes.count) && Self.get64(bytes, 24) == 7 && Self.get64(bytes, 32) == 3)
        #expect(Self.get64(bytes, 40) == 4 && Self.get64(bytes, 48) == 6)
        let t = try Self.openTrace(bytes)
        var csv = try UsageStream(reader: DelimitedReader(bytes: Array(Self.small.utf8)), source: "t")
        let a = try csv.nextBatch(rows: .max)!
        var mapped = UsageStream(trace: t)
        let b = try mapped.nextBatch(rows: .max)!
        #expect(b.endDevice == 3 && b.rows == 7)
        for d in 0..<3 {
            #expect(b.name(ofDevice: d) == a.name(ofDevice: d) && b.appNames(ofDevice: d) == a.appNames(ofDevice: d))
            #expect(b.uses(ofDevice: d).map(\.time) == a.uses(ofDevice: d).map(\.time))
            #expect(b.uses(ofDevice: d).map(\.app) == a.uses(ofDevice: d).map(\.app))
            #expect(b.uses(ofDevice: d).map(\.duration) == a.uses(ofDevice: d).map(\.duration))
        }
        #expect(b.appNames(ofDevice: 0) == ["mail", "chat", "a,b"])
        #expect(b.uses(ofDevice: 0).map(\.time.microseconds) == [40_000_000, 40_000_000, 100_000_000, 700_500_000])
        #expect(b.uses(ofDevice: 0).map(\.app) == [1, 0, 0, 2])  // equal times keep the file's order
        #expect(t.appRows(ofDevice: 0) == [2, 1, 1])
        #expect(b.uses(ofDevice: 2).map(\.duration.microseconds) == [60_000_000, 1_250_000])
    }

    @Test("ids and names keep their bytes: two ids that differ only in bytes that are not UTF-8 stay two devices")
    func nameBytes() throws {
        var bytes = Array("device,time_s,app,duration_s\n".utf8)
        bytes += [0xFF] + Array(",0,x,1\n".utf8) + [0xFE] + Array(",0,x,1\n".utf8)
        var stream = try UsageStream(reader: DelimitedReader(bytes: bytes), source: "t")
        stream.keepsNameBytes = true
        let batch = try stream.nextBatch(rows: .max)!
        let p = Self.path("n")
        let fd = Glibc.open(p, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd); unlink(p) }
        var w = UsageTraceWriter(fd: fd)
        try w.add(batch)
        #expect(try w.finish(source: "t") == 0)
        let t = try UsageTrace(path: p)
        #expect(t.devices == 2 && t.deviceName(0) == "\u{FFFD}" && t.deviceName(1) == "\u{FFFD}")
        #expect(Array(t.deviceNameBytes(0)) == [0xFF] && Array(t.deviceNameBytes(1)) == [0xFE])
    }

    /// The outcome of a replay with every policy: the accumulators, the per-device rows
    /// and the census, on `threads` threads as shard `shard` of `shards`.
    static func outcome(_ w: Workload, _ stream: inout UsageStream, policies: [PolicyID] = PolicyID.all, threads: Int = 1, shard: Int = 0, shards: Int = 1,
                        until: SimTime? = nil) throws -> ([CellAccumulator], String, ReplayAppCensus) {
        var plan = RunPlan(workload: w, cells: policies.map { Cell(policy: $0, ramKB: 2 * 1_048_576) }, threads: threads)
        plan.usageUntil = until
        plan.shardIndex = shard
        plan.shardCount = shards
        let rows = Mutex("")
        let sink = PerDeviceSink { r in rows.withLock { $0 += r } }
        let o = try UsageRunner.run(plan, stream: &stream, catalog: AppCatalog(w), perDeviceSink: sink, batchRows: 300)
        return (o.result.accumulators, rows.withLock { $0 }, o.apps)
    }

    static let two = [PolicyID(LRU.self), PolicyID(JetsamBands.self)]

    /// A trace of `devices` devices with locking pauses, overlapping uses, uses of no
    /// length, a long device (spilled when read as a CSV) and one out of time order.
    static func generated(devices: Int = 4) -> String {
        var csv = "device,time_s,app,duration_s\n"
        var x: UInt64 = 7
        func unit() -> Double { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return Double(x >> 11) / 9_007_199_254_740_992 }
        for d in 0..<devices {
            var t = 0
            for _ in 0..<(d == 1 ? 400 : 120) {
                let a = Int(30 * unit() * unit())
                let length = unit() < 0.2 ? 0 : Int(200 * unit())
                csv += "dev\(d),\(t),\(d == 2 && a == 3 ? "\"app 3, quoted\"" : "app\(a)"),\(length)\n"
                t += unit() < 0.15 ? 1_800 : (unit() < 0.3 ? 0 : Int(120 * unit()))
            }
        }
        for i in 0..<120 { csv += "late,\(i < 110 ? i * 100 : 50_000 - i * 7),app\(i % 11),30\n" }
        return csv
    }

    @Test("a replay of the .jtrace is the CSV's: every policy, the per-device rows, the census; chunked, on 1 and 2 threads, sharded")
    func sameReplay() throws {
        // The default workload: system arrivals, prewarms, XNU bands, kills at 2 GB.
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "t", overrides: ["fleet.duration_days=1"])
        let csv = Self.generated()
        let t = try Self.openTrace(try Self.jtrace(csv))
        for (threads, shard, shards, until) in [(2, 0, 1, nil), (2, 1, 2, SimTime.hours(6)), (1, 0, 3, SimTime.hours(6))] {
            var a = try UsageStream(reader: DelimitedReader(bytes: Array(csv.utf8)), source: "t")
            a.spillRows = 100
            var b = UsageStream(trace: t)
            let x = try Self.outcome(w, &a, threads: threads, shard: shard, shards: shards, until: until)
            let y = try Self.outcome(w, &b, threads: threads, shard: shard, shards: shards, until: until)
            #expect(x.0 == y.0, "\(threads) threads, shard \(shard + 1)/\(shards)")
            #expect(x.1 == y.1 && !x.1.isEmpty, "per-device rows, \(threads) threads, shard \(shard + 1)/\(shards)")
            #expect(x.2.names == y.2.names && x.2.rows == y.2.rows && x.2.hashedRows == y.2.hashedRows && x.2.hashedExamples == y.2.hashedExamples)
        }
        #expect(t.records == csv.split(separator: "\n").count - 1)
    }

    @Test("usage-stats of the .jtrace are the CSV's")
    func sameStats() throws {
        let csv = Self.generated()
        let p = Self.path("s")
        _ = FileManager.default.createFile(atPath: p, contents: Data(try Self.jtrace(csv)))
        let c = Self.path("s") + ".csv"
        try csv.write(toFile: c, atomically: true, encoding: .utf8)
        defer { unlink(p); unlink(c) }
        let (a, _) = try UsageStats.read(path: c, days: nil)
        let (b, _) = try UsageStats.read(path: p, days: nil)
        #expect(a == b && a.appSessions == b.appSessions && a.devices == 5)
    }

    @Test("hostile headers: short, wrong magic, version, header size, file size, counts past the file; named, never read outside the map")
    func hostileHeaders() throws {
        let good = try Self.jtrace(Self.small)
        #expect(Self.refusal(good) == nil)
        // Every prefix: refused, saying it is truncated or short.
        for n in [0, 7, 8, 63, 64, 65, 100, good.count - 1] {
            let m = Self.refusal(Array(good[0..<n]))
            #expect(m?.contains("truncated") == true, "\(n) bytes: \(m ?? "accepted")")
        }
        var b = good; b[1] = UInt8(ascii: "X")
        #expect(Self.refusal(b)?.hasPrefix("not a .jtrace file: its first 8 bytes are 89 58 54") == true)
        b = good; Self.set32(&b, 8, 2)
        #expect(Self.refusal(b)?.hasPrefix("version 2 of the .jtrace format; this jetsim reads version 1") == true)
        b = good; Self.set32(&b, 12, 128)
        #expect(Self.refusal(b)?.contains("header says it is 128 bytes") == true)
        b = good + [0]
        #expect(Self.refusal(b)?.contains("more than the \(good.count) its header says") == true)
        // A header that claims more records (or devices, apps) than the file holds.
        for (at, v) in [(24, UInt64(8)), (24, UInt64.max), (32, UInt64(1) << 40), (40, 5), (48, 7), (48, UInt64.max / 2)] {
            b = good; Self.set64(&b, at, v)
            let m = Self.refusal(b)
            #expect(m?.hasPrefix("the header claims") == true, "field \(at) = \(v): \(m ?? "accepted")")
        }
        b = good; Self.set64(&b, 24, 8); Self.resum(&b)
        #expect(Self.refusal(b)?.hasPrefix("the header claims 8 records, 3 devices, 4 apps and 6 device apps") == true, "\(Self.refusal(b) ?? "")")
    }

    @Test("a damaged body fails the checksum, naming both values")
    func checksum() throws {
        var b = try Self.jtrace(Self.small)
        b[70] ^= 1
        #expect(Self.refusal(b)?.hasPrefix("checksum mismatch: the body's XXH64 is") == true)
        b = try Self.jtrace(Self.small)
        b[b.count - 1] ^= 0x20  // in the app names
        #expect(Self.refusal(b)?.hasPrefix("checksum mismatch") == true)
    }

    @Test("a file whose checksum holds but whose tables or records break a rule is refused naming the rule")
    func hostileTables() throws {
        let good = try Self.jtrace(Self.small)
        let index = 64 + 24 * 7, apps = index + 24 * 4, appIndex = apps + 16 * 6
        func refused(_ change: (inout [UInt8]) -> Void, _ expected: String) {
            var b = good
            change(&b)
            Self.resum(&b)
            let m = Self.refusal(b)
            #expect(m?.contains(expected) == true, "expected '\(expected)', got \(m ?? "accepted")")
        }
        refused({ Self.set32(&$0, 64 + 12, 1) }, "device 0: a record names device 1")
        refused({ Self.set32(&$0, 64 + 8, 3) }, "device 0: a record names app 3 of its 3")
        refused({ Self.set64(&$0, 64, UInt64(bitPattern: -1)) }, "outside 0 to 1e10 s")
        refused({ Self.set64(&$0, 64 + 16, 10_000_000_000_000_000) }, "outside 0 to 1e10 s")
        refused({ Self.set64(&$0, 64 + 24, 1) }, "not in time order")
        refused({ Self.set64(&$0, index, 1) }, "device index entry 0 does not start at record 0")
        refused({ Self.set64(&$0, index + 24, 9) }, "device 0: its records [0, 9) are empty, out of order or past the 7 records")
        refused({ Self.set64(&$0, index + 24, UInt64.max) }, "are empty, out of order or past the 7 records")
        refused({ Self.set64(&$0, index + 24 + 8, 99) }, "device 0: its apps [0, 99)")
        refused({ Self.set64(&$0, index + 24 + 16, 99) }, "device 0: its id's bytes [0, 99)")
        refused({ Self.set64(&$0, apps, 9) }, "device 0: device app 0 names app 9 of 4")
        refused({ Self.set64(&$0, apps + 16, 0) }, "device 0: app 0 ('mail') is listed twice among its apps")
        refused({ Self.set64(&$0, apps + 8, 3); Self.set64(&$0, apps + 24, 0) }, "device 0: device app 1 says 0 rows")
        refused({ Self.set64(&$0, apps + 8, 1); Self.set64(&$0, apps + 24, 2) }, "device 0: app 0 has 2 records, the device-app table says 1")
        refused({ Self.set64(&$0, apps + 8, 1) }, "device 0: its apps' rows add up to 3, it has 4 records")
        refused({ Self.set64(&$0, appIndex + 8, 0) }, "app 0: its name's bytes [0, 0) are empty")
        // Two apps of one name ("mail" twice: the second name's bytes made the first's).
        refused({ b in let names = b.count - "mailchata,bgame".utf8.count
            for (i, c) in "mailmail".utf8.enumerated() { b[names + i] = c } }, "app 1: its name 'mail' is also app 0's")
        refused({ b in let ids = b.count - "mailchata,bgame".utf8.count - 7; b[ids + 5] = UInt8(ascii: "d"); b[ids + 6] = UInt8(ascii: "1") }, "device 2: its id 'd1' is also device 0's")
        // A device's sessions, replayed one after another, past 1e12 s: 102 rows of
        // 9.9e9 s each (a CSV of them is refused as it is read; here the records say so).
        var long = "device,time_s,app,duration_s\n"
        for i in 0..<102 { long += "d,\(i),a,1\n" }
        var b = try Self.jtrace(long)
        for i in 0..<102 { Self.set64(&b, 64 + 24 * i + 16, 9_900_000_000_000_000) }
        Self.resum(&b)
        #expect(Self.refusal(b) == "device 0 ('d'): its app sessions, replayed one after another, run past 1e12 s")
        b = try Self.jtrace(long)
        for i in 0..<100 { Self.set64(&b, 64 + 24 * i + 16, 9_900_000_000_000_000) }
        Self.resum(&b)
        #expect(Self.refusal(b) == nil, "just under the bound")
    }

    @Test("random damage (anywhere, or in the tables) with the checksum made right: refused or read whole, never a trap or a read outside the map")
    func randomDamage() throws {
        let good = try Self.jtrace(Self.generated(devices: 3))
        var x: UInt64 = 3
        func next() -> Int { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return Int(x >> 33) }
        var refused = 0, accepted = 0
        for _ in 0..<400 {
            var b = good
            for _ in 0..<(1 + next() % 3) {
                // Anywhere in the body, or in the tables after the records (half the time).
                let tables = 64 + 24 * Int(Self.get64(good, 24))
                let at = next() % 2 == 0 ? 64 + next() % (b.count - 64) : tables + next() % (b.count - tables)
                b[at] = next() % 2 == 0 ? UInt8(truncatingIfNeeded: next()) : b[at] ^ UInt8(1 << (next() % 8))
            }
            Self.resum(&b)
            guard let t = try? Self.openTrace(b) else { refused += 1; continue }
            accepted += 1
            // Accepted: every device reads whole, its apps in range.
            var s = UsageStream(trace: t)
            let batch = try s.nextBatch(rows: .max)!
            for d in 0..<t.devices {
                let n = batch.appNames(ofDevice: d).count
                #expect(!batch.name(ofDevice: d).isEmpty && n == t.appRows(ofDevice: d).count)
                #expect(batch.uses(ofDevice: d).allSatisfy { $0.app >= 0 && Int($0.app) < n })
            }
        }
        #expect(refused > 0 && accepted > 0, "\(refused) refused, \(accepted) accepted")
    }

    @Test("--sample-devices: the same devices whatever the order, nested fractions, all at 1; their rows are the full run's rows")
    func sample() throws {
        let half = DeviceSample(fraction: 0.5)!, tenth = DeviceSample(fraction: 0.1)!, all = DeviceSample(fraction: 1)!
        #expect(DeviceSample(fraction: 0) == nil && DeviceSample(fraction: 1.5) == nil && DeviceSample(fraction: .nan) == nil)
        let ids = (0..<10_000).map { Array("dev\($0)".utf8) }
        let kept = ids.filter { half.keeps(id: $0) }.count, few = ids.filter { tenth.keeps(id: $0) }.count
        #expect(abs(kept - 5_000) < 200 && abs(few - 1_000) < 100, "\(kept), \(few)")
        #expect(ids.allSatisfy { !tenth.keeps(id: $0) || half.keeps(id: $0) } && ids.allSatisfy { all.keeps(id: $0) })
        // A sampled replay runs the sample's devices as the full replay runs them.
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "t", overrides: ["fleet.duration_days=1"])
        var csv = "device,time_s,app,duration_s\n"
        for d in 0..<24 { for i in 0..<30 { csv += "dev\(d),\(i * 200),app\((i * 7 + d) % 9),40\n" } }
        let t = try Self.openTrace(try Self.jtrace(csv))
        var full = UsageStream(trace: t)
        let whole = try Self.outcome(w, &full, policies: Self.two).1.split(separator: "\n")
        for sampled in [true, false] {
            var s: UsageStream
            if sampled { s = UsageStream(trace: t) } else { s = try UsageStream(reader: DelimitedReader(bytes: Array(csv.utf8)), source: "t") }
            s.sample = half
            let o = try Self.outcome(w, &s, policies: Self.two)
            let rows = o.1.split(separator: "\n")
            let expected = (0..<24).filter { half.keeps(id: Array("dev\($0)".utf8)) }.count
            #expect(o.0[0].devices == expected && o.2.devices == expected && o.2.devicesRead == 24 && expected > 5 && expected < 20)
            #expect(rows.count == expected * Self.two.count && Set(rows).isSubset(of: Set(whole)), sampled ? "jtrace" : "csv")
        }
    }
}
