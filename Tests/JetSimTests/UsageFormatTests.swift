import Testing
import SimKernel
@testable import JetSim

/// Usage traces with other column names and time units (`--usage-columns`,
/// `--usage-time-unit`, `--usage-duration-unit`).
@Suite("Usage trace formats: column names and time units")
struct UsageFormatTests {
    static func micros(_ s: String, _ unit: UsageFormat.TimeUnit) -> Int64? {
        Array(s.utf8).withUnsafeBufferPointer { UsageFormat.microseconds($0, unit) }
    }

    static func format(columns: String? = nil, time: UsageFormat.TimeUnit = .s, duration: UsageFormat.TimeUnit? = nil) throws -> UsageFormat {
        var f = UsageFormat()
        if let columns { try f.setColumns(columns) }
        f.timeUnit = time
        f.durationUnit = duration ?? (time == .iso ? .s : time)
        return f
    }

    static func replay(_ text: String, _ f: UsageFormat) throws(InputError) -> UsageReplay {
        var stream = try UsageStream(reader: DelimitedReader(bytes: Array(text.utf8)), source: "t.csv", format: f)
        return try stream.nextBatch(rows: .max) ?? UsageReplay()
    }

    @Test("milliseconds and microseconds: plain decimals, to the microsecond, below 1e10 s")
    func numbers() {
        #expect(Self.micros("1500", .ms) == 1_500_000)
        #expect(Self.micros("1500.25", .ms) == 1_500_250)
        #expect(Self.micros("0.0009", .ms) == 0)
        #expect(Self.micros("1700000000000", .ms) == 1_700_000_000_000_000)
        #expect(Self.micros("10000000000000", .ms) == nil)
        #expect(Self.micros("42", .us) == 42)
        #expect(Self.micros("42.9", .us) == 42)
        #expect(Self.micros("9999999999999999", .us) == 9_999_999_999_999_999)
        #expect(Self.micros("10000000000000000", .us) == nil)
        for bad in ["", "-1", "1e3", "1.", ".5", "1.2.3", "12a", " 1"] { #expect(Self.micros(bad, .ms) == nil, "\(bad)") }
    }

    @Test("ISO 8601 dates and times: Z, offsets, decimals; anything else refused")
    func iso() {
        #expect(Self.micros("1970-01-01T00:00:00Z", .iso) == 0)
        #expect(Self.micros("1970-01-01 00:00:01", .iso) == 1_000_000)
        let t: Int64 = 1_709_625_720 * 1_000_000  // 2024-03-05T08:02:00Z
        #expect(Self.micros("2024-03-05T08:02:00.5+01:00", .iso) == t - 3_600_000_000 + 500_000)
        #expect(Self.micros("2024-03-05T08:02:00-0130", .iso) == t + 5_400_000_000)
        #expect(Self.micros("2024-03-05T08:02:00.1234567Z", .iso) == t + 123_456)
        #expect(Self.micros("1969-12-31T23:59:59Z", .iso) == -1_000_000)
        #expect(Self.micros("2024-02-29T00:00:00Z", .iso) != nil)
        for bad in ["2023-02-29T00:00:00", "2024-02-30T00:00:00", "2024-04-31T00:00:00", "2024-03-05", "2024-13-01T00:00:00", "2024-03-05T24:00:00", "2024-03-05T08:02:00.", "2024-03-05T08:02:00+1",
                    "2024-03-05T08:02:00Zx", "0000-01-01T00:00:00", "1700000000"] {
            #expect(Self.micros(bad, .iso) == nil, "\(bad)")
        }
    }

    @Test("--usage-columns: keys device, time, app, duration; errors name the option and the key")
    func columns() throws {
        let f = try Self.format(columns: "device=user_id, time=ts")
        #expect(f.columns == ["user_id", "ts", "app", "duration_s"])
        func message(_ text: String) -> String {
            var f = UsageFormat()
            do { try f.setColumns(text); return "no error" } catch { return error.description }
        }
        #expect(message("user=x") == "--usage-columns: user: unknown key; expected one of: device, time, app, duration")
        #expect(message("device") == "--usage-columns: device: expected KEY=NAME (keys: device, time, app, duration), got 'device'")
        #expect(message("device=a,device=b") == "--usage-columns: device: given twice")
        #expect(message("device=a,=b") == "--usage-columns: expected KEY=NAME (keys: device, time, app, duration), got '=b'")
        #expect(message("device=app") == "--usage-columns: two keys name the same column (device=app, time=time_s, app=app, duration=duration_s)")
    }

    @Test("the same trace in seconds, in milliseconds under other names and in microseconds replays the same")
    func unitsAgree() throws {
        let s = try Self.replay("device,time_s,app,duration_s\na,0,x,1.5\na,90,y,2\nb,3,x,4\n", UsageFormat())
        let ms = try Self.replay("start,who,what,len\n0,a,x,1500\n90000,a,y,2000\n3000,b,x,4000\n",
                                 Self.format(columns: "device=who,time=start,app=what,duration=len", time: .ms))
        let us = try Self.replay("device,time_s,app,duration_s\na,0,x,1500000\na,90000000,y,2000000\nb,3000000,x,4000000\n", Self.format(time: .us))
        let mixed = try Self.replay("device,time_s,app,duration_s\na,0,x,1.5\na,90000,y,2\nb,3000,x,4\n", Self.format(time: .ms, duration: .s))
        for r in [ms, us, mixed] {
            #expect(r.devices == s.devices)
            for d in 0..<2 {
                #expect(r.uses(ofDevice: d).map(\.time) == s.uses(ofDevice: d).map(\.time))
                #expect(r.uses(ofDevice: d).map(\.duration) == s.uses(ofDevice: d).map(\.duration))
            }
        }
    }

    @Test("ISO times count from each device's first use, in any row order")
    func isoRelative() throws {
        let r = try Self.replay("device,time_s,app,duration_s\na,2024-03-05T08:02:00Z,x,10\na,2024-03-05T08:00:00Z,y,5\nb,2030-01-01T00:00:00+02:00,x,1\n",
                                Self.format(time: .iso))
        #expect(r.uses(ofDevice: 0).map(\.time) == [.zero, .seconds(120)])
        #expect(r.uses(ofDevice: 0).map(\.duration) == [.seconds(5), .seconds(10)])
        #expect(r.uses(ofDevice: 1).map(\.time) == [.zero])
    }

    @Test("errors name the file, the line and the file's own column name, with the unit expected")
    func errors() throws {
        func message(_ text: String, _ f: UsageFormat) -> String {
            do { _ = try Self.replay(text, f); return "no error" } catch { return error.description }
        }
        let f = try Self.format(columns: "device=who,time=start,app=what,duration=len", time: .ms)
        #expect(message("who,start,what\n", f) == "t.csv:1: len: missing column; the header must name at least who,start,what,len (--usage-columns); it has who,start,what; --usage-columns duration=NAME names the duration column")
        #expect(message("who,start,what,len\na,1.5s,x,1\n", f) == "t.csv:2: start: expected milliseconds (a non-negative decimal number below 1e13), got '1.5s'")
        #expect(message("who,start,what,len\na,1,x\n", f) == "t.csv:2: len: missing value (the row has 3 fields)")
        #expect(message("who,start,what,len\n,1,x,1\n", f) == "t.csv:2: who: empty device id")
        let iso = try Self.format(time: .iso)
        #expect(message("device,time_s,app,duration_s\na,2024-03-05 08:00,x,1\n", iso).hasPrefix("t.csv:2: time_s: expected an ISO 8601 date and time"))
        #expect(message("device,time_s,app,duration_s\na,0001-01-01T00:00:00Z,x,1\na,9999-01-01T00:00:00Z,x,1\n", iso)
                == "t.csv:3: time_s: device 'a': its dates span 1e10 s or more (the rows up to this line)")
    }
}
