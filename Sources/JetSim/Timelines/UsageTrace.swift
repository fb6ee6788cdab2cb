#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// A binary usage trace (`.jtrace`, docs/jtrace.md), read through a memory map: the
/// rows a usage CSV gives once parsed (`UsageStream`), stored as fixed-width records
/// grouped by device, with an index of where each device's records, apps and name
/// are. Nothing is parsed per row, and a device is found without a scan (a shard
/// touches only its devices' records).
///
/// Everything is checked when the file is opened, before any work: the header (magic,
/// version, sizes), the body's XXH64, and every offset, index and value a replay
/// reads (each record's device and app, its times in range and in order, the busy
/// bound a CSV's device gets), so a hostile file is bad input naming the file and
/// what is wrong, never a read outside the map. The pages read are dropped behind
/// (`madvise`), so memory does not grow with the file.
///
/// Changing a file while jetsim reads it is not supported, as with any mapped file:
/// the rows copied out of the map are checked again against their device's apps (no
/// read outside a device's app table), and a file cut short under the map ends the
/// run (SIGBUS; the CLI exits 1 naming it).
public final class UsageTrace: @unchecked Sendable {
    /// `89 4A 54 52 41 43 45 0A`: a byte no text starts with, "JTRACE", a line feed
    /// (a file copied as text is caught, as PNG's magic does).
    public static let magic: [UInt8] = [0x89, 0x4A, 0x54, 0x52, 0x41, 0x43, 0x45, 0x0A]
    public static let version: UInt32 = 1
    static let headerBytes = 64
    static let recordBytes = 24
    static let deviceEntryBytes = 24
    static let deviceAppBytes = 16
    static let appEntryBytes = 8
    /// Times and durations are below 1e10 s, as a CSV's (`ByteNumber.microseconds`).
    static let timeLimitMicros: Int64 = 10_000_000_000_000_000

    public let source: String
    let base: UnsafeRawPointer
    let size: Int
    public let records: Int
    public let devices: Int
    public let apps: Int
    let deviceApps: Int
    /// Where each section starts (docs/jtrace.md).
    let deviceIndexAt: Int, deviceAppsAt: Int, appIndexAt: Int, deviceNamesAt: Int, appNamesAt: Int
    /// FNV-1a 64 of the 64-byte header, which holds the body's XXH64 (checked on
    /// open): what a shard state and a sweep plan record of the file.
    public let headerHash: UInt64
    let pageSize: Int

    /// Whether `UsageReplay.Use` is laid out as a record: the start at 0, the app at 8,
    /// the duration at 16, 24 bytes a record (the device field in its padding).
    static let layoutMatches = MemoryLayout<UsageReplay.Use>.offset(of: \UsageReplay.Use.time) == 0
        && MemoryLayout<UsageReplay.Use>.offset(of: \UsageReplay.Use.app) == 8
        && MemoryLayout<UsageReplay.Use>.offset(of: \UsageReplay.Use.duration) == 16
        && MemoryLayout<UsageReplay.Use>.stride == recordBytes

    /// Whether the file open as `fd` starts with the magic (read with `pread`: the
    /// descriptor's offset is left as it was).
    public static func hasMagic(fd: Int32) -> Bool {
        var b = [UInt8](repeating: 0, count: magic.count)
        let n = b.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return n == magic.count && b == magic
    }

    /// Whether the file at `path` starts with the magic.
    public static func hasMagic(path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return hasMagic(fd: fd)
    }

    /// Maps the file at `path` and checks it.
    public convenience init(path: String) throws(InputError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(source: path, "cannot open it: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try self.init(descriptor: fd, source: path)
    }

    /// Maps the regular file open as `fd` (left open: the map does not need it) and
    /// checks it; errors name `source`.
    public init(descriptor fd: Int32, source: String) throws(InputError) {
        self.source = source
        pageSize = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw InputError(source: source, "cannot read it: \(String(cString: strerror(errno)))") }
        size = Int(st.st_size)
        // The records are read in place as `UsageReplay.Use`s: little-endian, and its layout.
        precondition(1.littleEndian == 1 && Self.layoutMatches, "a .jtrace record is read in place: this build's UsageReplay.Use does not match it")
        guard size >= Self.headerBytes else {
            throw InputError(source: source, "truncated: \(size) bytes, shorter than a .jtrace header (\(Self.headerBytes) bytes)")
        }
        guard let m = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), m != MAP_FAILED else {
            throw InputError(source: source, "cannot map it: \(String(cString: strerror(errno)))")
        }
        base = UnsafeRawPointer(m)
        var ok = false
        let mapped = size
        defer { if !ok { munmap(m, mapped) } }
        let b = base
        func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        func u32(_ at: Int) -> UInt32 { UInt32(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
        let head = (0..<Self.magic.count).map { b.load(fromByteOffset: $0, as: UInt8.self) }
        guard head == Self.magic else {
            throw InputError(source: source, "not a .jtrace file: its first 8 bytes are \(Self.hex(head)), the magic is \(Self.hex(Self.magic))")
        }
        let version = u32(8)
        guard version == Self.version else {
            throw InputError(source: source, "version \(version) of the .jtrace format; this jetsim reads version \(Self.version) (docs/jtrace.md): write it again with this jetsim's import")
        }
        guard u32(12) == UInt32(Self.headerBytes) else {
            throw InputError(source: source, "the header says it is \(u32(12)) bytes; a version-1 header is \(Self.headerBytes)")
        }
        let declared = u64(16)
        guard declared == UInt64(size) else {
            throw InputError(source: source, declared > UInt64(size)
                ? "truncated: the header says the file is \(declared) bytes, it has \(size)"
                : "\(size) bytes, more than the \(declared) its header says (bytes appended after it was written)")
        }
        // The counts, and the sections they size, within the file (no overflow).
        let limit = UInt64(size)
        let (r, d, a, e) = (u64(24), u64(32), u64(40), u64(48))
        guard r <= limit / UInt64(Self.recordBytes), d < limit / UInt64(Self.deviceEntryBytes),
              e <= limit / UInt64(Self.deviceAppBytes), a < limit / UInt64(Self.appEntryBytes) else {
            throw InputError(source: source, "the header claims \(r) records, \(d) devices, \(a) apps and \(e) device apps: more than a file of \(size) bytes holds")
        }
        records = Int(r); devices = Int(d); apps = Int(a); deviceApps = Int(e)
        deviceIndexAt = Self.headerBytes + records * Self.recordBytes
        deviceAppsAt = deviceIndexAt + (devices + 1) * Self.deviceEntryBytes
        appIndexAt = deviceAppsAt + deviceApps * Self.deviceAppBytes
        deviceNamesAt = appIndexAt + (apps + 1) * Self.appEntryBytes
        guard deviceNamesAt <= size else {
            throw InputError(source: source, "the header claims \(records) records, \(devices) devices, \(apps) apps and \(deviceApps) device apps, which need \(deviceNamesAt) bytes before the names; the file has \(size)")
        }
        let deviceNameTotal = u64(deviceAppsAt - 8), appNameTotal = u64(deviceNamesAt - 8)
        guard deviceNameTotal <= UInt64(size - deviceNamesAt), appNameTotal <= UInt64(size - deviceNamesAt) - deviceNameTotal,
              UInt64(deviceNamesAt) + deviceNameTotal + appNameTotal == limit else {
            let (sum, over) = deviceNameTotal.addingReportingOverflow(appNameTotal)
            let need = over ? "more than 2^64" : String(UInt64(deviceNamesAt).addingReportingOverflow(sum).partialValue)
            throw InputError(source: source, "the header claims \(records) records, \(devices) devices, \(apps) apps and \(deviceApps) device apps, and its tables \(deviceNameTotal) bytes of device ids and \(appNameTotal) of app names: \(need) bytes in all; the file has \(size)")
        }
        appNamesAt = deviceNamesAt + Int(deviceNameTotal)
        guard records >= 1, devices >= 1, apps >= 1, deviceApps >= 1 else {
            throw InputError(source: source, "no rows: \(records) records, \(devices) devices, \(apps) apps")
        }
        guard devices <= Int(UInt32.max) else { throw InputError(source: source, "\(devices) devices: more than a record's 32-bit device field counts") }
        headerHash = FNV1a.hash(UnsafeRawBufferPointer(start: b, count: Self.headerBytes))
        try check(checksum: u64(56))
        ok = true
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), size) }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { b in let s = String(b, radix: 16, uppercase: true); return s.count < 2 ? "0" + s : s }.joined(separator: " ")
    }

    // MARK: - Reading (after the checks)

    @inline(__always) func u64(_ at: Int) -> Int { Int(truncatingIfNeeded: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))) }

    /// Device `d`'s records: `[first, end)`.
    @inline(__always) public func recordRange(ofDevice d: Int) -> Range<Int> {
        let at = deviceIndexAt + d * Self.deviceEntryBytes
        return u64(at)..<u64(at + Self.deviceEntryBytes)
    }

    /// Device `d`'s entries in the device-app table: `[first, end)`.
    @inline(__always) func appRange(ofDevice d: Int) -> Range<Int> {
        let at = deviceIndexAt + d * Self.deviceEntryBytes + 8
        return u64(at)..<u64(at + Self.deviceEntryBytes)
    }

    /// The number of device `d`'s apps.
    public func appCount(ofDevice d: Int) -> Int { appRange(ofDevice: d).count }

    /// Entry `k` of the device-app table: the app (an index into the apps) and its rows on the device.
    @inline(__always) func deviceApp(_ k: Int) -> (app: Int, rows: Int) {
        let at = deviceAppsAt + k * Self.deviceAppBytes
        return (u64(at), u64(at + 8))
    }

    /// Device `d`'s id, as bytes.
    func deviceNameBytes(_ d: Int) -> UnsafeRawBufferPointer {
        let at = deviceIndexAt + d * Self.deviceEntryBytes + 16
        let s = u64(at), e = u64(at + Self.deviceEntryBytes)
        return UnsafeRawBufferPointer(start: base + deviceNamesAt + s, count: e - s)
    }

    /// App `a`'s name, as bytes.
    func appNameBytes(_ a: Int) -> UnsafeRawBufferPointer {
        let at = appIndexAt + a * Self.appEntryBytes
        let s = u64(at), e = u64(at + Self.appEntryBytes)
        return UnsafeRawBufferPointer(start: base + appNamesAt + s, count: e - s)
    }

    /// Device `d`'s id (invalid UTF-8 repaired, as a CSV's).
    public func deviceName(_ d: Int) -> String { String(decoding: deviceNameBytes(d), as: UTF8.self) }

    /// App `a`'s name.
    public func appName(_ a: Int) -> String { String(decoding: appNameBytes(a), as: UTF8.self) }

    /// Device `d`'s app names, in its app index order (the order of first use in the CSV).
    public func appNames(ofDevice d: Int) -> [String] { appRange(ofDevice: d).map { appName(deviceApp($0).app) } }

    /// Device `d`'s rows of each of its apps, in its app index order.
    func appRows(ofDevice d: Int) -> [Int] { appRange(ofDevice: d).map { deviceApp($0).rows } }

    /// Records `range` as uses (the record's layout is `UsageReplay.Use`'s, the device
    /// field in its padding: `UsageTraceTests` checks it). Valid while the trace lives.
    @inline(__always) func uses(_ range: Range<Int>) -> UnsafeBufferPointer<UsageReplay.Use> {
        let p = (base + Self.headerBytes + range.lowerBound * Self.recordBytes).assumingMemoryBound(to: UsageReplay.Use.self)
        return UnsafeBufferPointer(start: p, count: range.count)
    }

    /// Copies device `d`'s rows `from..<from + count` (within its rows) into `buffer`,
    /// checking each app index against the device's apps again (see the type's
    /// comment), then drops the pages read.
    func copyRows(ofDevice d: Int, from: Int, count: Int, into buffer: inout ContiguousArray<UsageReplay.Use>) {
        let r = recordRange(ofDevice: d)
        let range = (r.lowerBound + from)..<(r.lowerBound + from + count)
        precondition(from >= 0 && range.upperBound <= r.upperBound, "rows \(from)..<\(from + count) of a device of \(r.count)")
        let rows = uses(range)
        let n = UInt32(appCount(ofDevice: d))
        var bad = false
        for u in rows where UInt32(bitPattern: u.app) >= n { bad = true }
        if bad { FatalIO.fail("\(source): changed while it was read (a record names an app its device does not have): run again once it is written") }
        buffer.append(contentsOf: rows)
        dropPages(range)
    }

    /// Calls `body` with device `d`'s rows straight from the map, `chunk` at a time,
    /// dropping each chunk's pages after it.
    func forEachChunk(ofDevice d: Int, chunk: Int, _ body: (UnsafeBufferPointer<UsageReplay.Use>) -> Void) {
        let r = recordRange(ofDevice: d)
        var from = r.lowerBound
        while from < r.upperBound {
            let range = from..<min(r.upperBound, from + chunk)
            body(uses(range))
            dropPages(range)
            from = range.upperBound
        }
    }

    /// Drops the whole pages of records `range` from the process's memory (they stay in
    /// the page cache; read again, they fault back in). A mapped file's pages count in
    /// its resident size, so without this a replay of a 240 MB file would hold 240 MB.
    /// Only the pages inside the range: a page shared with rows another worker reads is
    /// left to `dropPages(around:)` at the batch's end.
    func dropPages(_ range: Range<Int>) {
        let start = Self.headerBytes + range.lowerBound * Self.recordBytes
        let end = Self.headerBytes + range.upperBound * Self.recordBytes
        let first = (start + pageSize - 1) / pageSize * pageSize, last = end / pageSize * pageSize
        if last > first { _ = madvise(UnsafeMutableRawPointer(mutating: base + first), last - first, Int32(MADV_DONTNEED)) }
    }

    /// Drops every page of records `range` and of the `behind` bytes before it, once
    /// nothing reads them (a batch run to its end). A fault maps the pages beside it
    /// (Linux maps a whole cached folio, 64 KiB to a few MiB), so reading a device
    /// maps its neighbours' pages too, behind it and ahead: those of devices a sample
    /// leaves out are never read, and would stay without this.
    func dropPages(around range: Range<Int>, behind: Int = 4 << 20) {
        let start = Self.headerBytes + range.lowerBound * Self.recordBytes - behind
        let end = Self.headerBytes + range.upperBound * Self.recordBytes
        let first = max(0, start) / pageSize * pageSize, last = min(size, (end + pageSize - 1) / pageSize * pageSize)
        if last > first { _ = madvise(UnsafeMutableRawPointer(mutating: base + first), last - first, Int32(MADV_DONTNEED)) }
    }

    // MARK: - The checks

    /// The body's XXH64 and every table and record, in one pass over the records
    /// (their pages dropped behind it). A damaged file reports the checksum; a file
    /// whose checksum holds reports the first thing wrong in its tables or records.
    func check(checksum expected: UInt64) throws(InputError) {
        var problem: String? = nil
        do { try checkTables() } catch { problem = error.message }
        var hash = XXH64()
        // The records, device by device, in windows of 2^17 records (3 MB).
        var d = 0
        var state = DeviceCheck()
        if problem == nil { state.start(self, device: 0) }
        let window = 1 << 17
        var i = 0
        while i < records {
            let n = min(window, records - i)
            hash.update(UnsafeRawBufferPointer(start: base + Self.headerBytes + i * Self.recordBytes, count: n * Self.recordBytes))
            var k = i
            while problem == nil && k < i + n {
                if k == state.end {
                    problem = state.finish(self, device: d)
                    d += 1
                    if problem == nil { state.start(self, device: d) }
                    continue
                }
                let stop = min(i + n, state.end)
                problem = state.rows(base + Self.headerBytes, k..<stop, device: d)
                k = stop
            }
            dropPages(i..<(i + n))
            i += n
        }
        if problem == nil, d < devices { problem = state.finish(self, device: d) }
        dropPages(around: 0..<records, behind: 0)  // and what faults mapped beside the windows
        hash.update(UnsafeRawBufferPointer(start: base + deviceIndexAt, count: size - deviceIndexAt))
        let actual = hash.value
        if actual != expected {
            throw InputError(source: source, "checksum mismatch: the body's XXH64 is \(FNV1a.hex(actual)), the header records \(FNV1a.hex(expected)) (the file was damaged or changed after it was written)")
        }
        if let problem { throw InputError(source: source, problem) }
    }

    /// The device index, the device-app table and the app index: offsets in order and
    /// in range, every app a device names one of the apps, each once; names non-empty
    /// and distinct.
    func checkTables() throws(InputError) {
        func fail(_ m: String) -> InputError { InputError(source: source, m) }
        let deviceNameTotal = u64(deviceAppsAt - 8), appNameTotal = u64(deviceNamesAt - 8)
        guard u64(deviceIndexAt) == 0, u64(deviceIndexAt + 8) == 0, u64(deviceIndexAt + 16) == 0 else {
            throw fail("device index entry 0 does not start at record 0, device app 0 and name byte 0")
        }
        // Read as words, not ranges: a range of offsets out of order would trap.
        let last = deviceIndexAt + devices * Self.deviceEntryBytes
        guard u64(last) == records, u64(last + 8) == deviceApps else {
            throw fail("the device index's last entry is not \(records) records and \(deviceApps) device apps (the header's counts)")
        }
        // The app index first: a message below may name an app.
        guard u64(appIndexAt) == 0 else { throw fail("app index entry 0 is not name byte 0") }
        for a in 0..<apps {
            let s = u64(appIndexAt + a * Self.appEntryBytes), e = u64(appIndexAt + (a + 1) * Self.appEntryBytes)
            guard UInt(bitPattern: s) < UInt(bitPattern: e), UInt(bitPattern: e) <= UInt(appNameTotal) else {
                throw fail("app \(a): its name's bytes [\(UInt(bitPattern: s)), \(UInt(bitPattern: e))) are empty, out of order or past the \(appNameTotal) name bytes")
            }
        }
        var stamp = [Int](repeating: -1, count: apps)
        for d in 0..<devices {
            let at = deviceIndexAt + d * Self.deviceEntryBytes
            let (r0, a0, n0) = (u64(at), u64(at + 8), u64(at + 16))
            let (r1, a1, n1) = (u64(at + 24), u64(at + 32), u64(at + 40))
            // Unsigned compares: an offset past Int.max reads as negative.
            guard UInt(bitPattern: r0) < UInt(bitPattern: r1), UInt(bitPattern: r1) <= UInt(records) else {
                throw fail("device \(d): its records [\(UInt(bitPattern: r0)), \(UInt(bitPattern: r1))) are empty, out of order or past the \(records) records")
            }
            guard UInt(bitPattern: a0) < UInt(bitPattern: a1), UInt(bitPattern: a1) <= UInt(deviceApps), a1 - a0 <= r1 - r0 else {
                throw fail("device \(d): its apps [\(UInt(bitPattern: a0)), \(UInt(bitPattern: a1))) are empty, out of order, past the \(deviceApps) device apps or more than its rows")
            }
            guard UInt(bitPattern: n0) < UInt(bitPattern: n1), UInt(bitPattern: n1) <= UInt(deviceNameTotal) else {
                throw fail("device \(d): its id's bytes [\(UInt(bitPattern: n0)), \(UInt(bitPattern: n1))) are empty, out of order or past the \(deviceNameTotal) name bytes")
            }
            var rows = 0
            for k in a0..<a1 {
                let (app, n) = deviceApp(k)
                guard UInt(bitPattern: app) < UInt(apps) else { throw fail("device \(d): device app \(k) names app \(UInt(bitPattern: app)) of \(apps)") }
                guard stamp[app] != d else { throw fail("device \(d): app \(app) ('\(appName(app))') is listed twice among its apps") }
                stamp[app] = d
                guard n >= 1, n <= r1 - r0 - rows else { throw fail("device \(d): device app \(k) says \(UInt(bitPattern: n)) rows; the device has \(r1 - r0) in all") }
                rows += n
            }
            guard rows == r1 - r0 else { throw fail("device \(d): its apps' rows add up to \(rows), it has \(r1 - r0) records") }
        }
        var names = ByteNameTable()
        for a in 0..<apps {
            let bytes = appNameBytes(a).assumingMemoryBound(to: UInt8.self)
            if Int(names.index(of: bytes)) != a { throw fail("app \(a): its name '\(appName(a))' is also app \(names.index(of: bytes))'s") }
        }
        names.removeAll()
        for d in 0..<devices {
            let bytes = deviceNameBytes(d).assumingMemoryBound(to: UInt8.self)
            if Int(names.index(of: bytes)) != d { throw fail("device \(d): its id '\(deviceName(d))' is also device \(names.index(of: bytes))'s (a device's rows are all together)") }
        }
    }

    /// The checks of one device's records as they are passed: each names the device
    /// and one of its apps, its times are in range and in order, the rows of each app
    /// are as many as the device-app table says, and its sessions replayed one after
    /// another end before 1e12 s (`UsageStream.busyLimitMicros`).
    struct DeviceCheck {
        var end = 0
        var apps = 0
        var firstApp = 0
        var counts: [Int] = []
        var last: Int64 = 0
        var busy: Int64 = 0

        mutating func start(_ t: UsageTrace, device d: Int) {
            let r = t.recordRange(ofDevice: d), a = t.appRange(ofDevice: d)
            end = r.upperBound
            apps = a.count
            firstApp = a.lowerBound
            counts.removeAll(keepingCapacity: true)
            counts.append(contentsOf: repeatElement(0, count: apps))
            last = 0
            busy = 0
        }

        /// Records `range` (at `records`), all of the device being checked: nil, or
        /// what is wrong with the first bad one. Read field by field (a copy of a `Use`
        /// need not keep the padding the device field is in), in a loop of plain
        /// compares: the message is made only for a bad record.
        mutating func rows(_ records: UnsafeRawPointer, _ range: Range<Int>, device d: Int) -> String? {
            let device = UInt32(truncatingIfNeeded: d), n = UInt32(apps)
            let limit = UsageTrace.timeLimitMicros, busyLimit = UsageStream.busyLimitMicros
            var last = last, busy = busy
            defer { self.last = last; self.busy = busy }
            return counts.withUnsafeMutableBufferPointer { counts in
                var p = records + range.lowerBound * UsageTrace.recordBytes
                for _ in range {
                    let time = Int64(littleEndian: p.loadUnaligned(fromByteOffset: 0, as: Int64.self))
                    let app = UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
                    let recorded = UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
                    let duration = Int64(littleEndian: p.loadUnaligned(fromByteOffset: 16, as: Int64.self))
                    // Unsigned compares: a negative time or duration is out of range too.
                    if recorded != device || app >= n || UInt64(bitPattern: time) >= UInt64(limit)
                        || UInt64(bitPattern: duration) >= UInt64(limit) || time < last {
                        if recorded != device { return "device \(d): a record names device \(recorded)" }
                        if app >= n { return "device \(d): a record names app \(app) of its \(n)" }
                        if time < 0 || time >= limit || duration < 0 || duration >= limit {
                            return "device \(d): a record's start (\(time) us) or duration (\(duration) us) is outside 0 to 1e10 s"
                        }
                        return "device \(d): its records are not in time order (\(time) us after \(last) us)"
                    }
                    last = time
                    counts[Int(app)] &+= 1
                    if busy < busyLimit { busy = max(busy, time) &+ duration &+ 1_000_000 }
                    p += UsageTrace.recordBytes
                }
                return nil
            }
        }

        func finish(_ t: UsageTrace, device d: Int) -> String? {
            if busy >= UsageStream.busyLimitMicros {
                return "device \(d) ('\(t.deviceName(d))'): its app sessions, replayed one after another, run past 1e12 s"
            }
            for k in 0..<apps where counts[k] != t.deviceApp(firstApp + k).rows {
                return "device \(d): app \(k) has \(counts[k]) records, the device-app table says \(t.deviceApp(firstApp + k).rows)"
            }
            return nil
        }
    }
}
