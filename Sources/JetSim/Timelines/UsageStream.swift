#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// Streams a usage trace (see `UsageReplay`) device by device: it holds one block of
/// the file, the device being read, and the ids of the devices already read (to
/// check that the trace is grouped by device). Errors name the file and the line.
/// A `.jtrace` (`UsageTrace`, checked whole when opened) is streamed the same way, by
/// batches whose rows stay in its map: nothing is read per row.
public struct UsageStream: ~Copyable {
    var reader: DelimitedReader
    public let source: String
    /// The columns' names and the times' units (`--usage-columns`, `--usage-*-unit`).
    public let format: UsageFormat
    var column = (device: 0, time: 0, app: 0, duration: 0)
    var fieldsNeeded = 0
    /// Devices already read, by the bytes of their id (not `String`, whose equality
    /// merges ids that differ only in Unicode normalisation, as the rows do not), with
    /// the line their rows ended on.
    var finished: [[UInt8]: Int] = [:]
    /// Whether the reader holds the first row of the next device.
    var pending = false
    /// Devices and rows read so far.
    public private(set) var devicesRead = 0
    public private(set) var rowsRead = 0
    /// Of them, rows read by the one-pass fast path (`fastRow`).
    var fastRowsRead = 0
    /// The current device's app names, looked up by their bytes.
    var appTable = ByteNameTable()
    var deviceBytes: [UInt8] = []
    /// Rows of the last device read: the next one's first reservation.
    var usesHint = 16
    /// A device's rows beyond this many, read in time order, are spilled to a
    /// temporary file as it is read (`RowSpill`): about 6 MB of rows at most in memory
    /// however long the device (0: never).
    public var spillRows = 1 << 18
    /// The `.jtrace` being streamed (nil: a CSV, read by `reader`).
    public let trace: UsageTrace?
    /// `--sample-devices`: the devices replayed (nil: all). The others are read (and
    /// checked) but marked not to run (`UsageReplay.runs`).
    public var sample: DeviceSample? = nil
    /// Whether batches keep each device's id and app names as the file's bytes
    /// (`UsageReplay.idBytes`: `jetsim import` writes them as they were).
    public var keepsNameBytes = false

    /// How far a device's replayed sessions may run: 1e12 s (a hundred fields' worth),
    /// which leaves SimTime room for every offset the model adds (days at most).
    static let busyLimitMicros: Int64 = 1_000_000_000_000 * 1_000_000

    /// Opens the trace at `path` and reads its header.
    public init(path: String, format: UsageFormat = UsageFormat()) throws(InputError) {
        guard let r = DelimitedReader(path: path) else { throw InputError(source: path, "cannot open it: \(String(cString: strerror(errno)))") }
        try self.init(reader: r, source: path, format: format)
    }

    public init(reader: consuming DelimitedReader, source: String, format: UsageFormat = UsageFormat()) throws(InputError) {
        self.reader = reader
        self.source = source
        self.format = format
        trace = nil
        guard try advance() else { throw InputError(source: source, "empty: expected a header \(format.columns.joined(separator: ",")) and rows") }
        try readHeader()
    }

    /// Takes a reader that already holds the header record (`UsageStats` reads it
    /// first to tell a usage CSV from a lifecycle trace).
    init(readerAtHeader reader: consuming DelimitedReader, source: String, format: UsageFormat = UsageFormat()) throws(InputError) {
        self.reader = reader
        self.source = source
        self.format = format
        trace = nil
        try readHeader()
    }

    /// Streams the devices of a `.jtrace`.
    public init(trace: UsageTrace) {
        reader = DelimitedReader(bytes: [UInt8]())
        source = trace.source
        format = UsageFormat()
        self.trace = trace
        pending = trace.devices > 0
    }

    mutating func readHeader() throws(InputError) {
        var found: [String: Int] = [:]
        for i in 0..<self.reader.count where found[self.reader.string(i)] == nil { found[self.reader.string(i)] = i }
        let names = format.columns
        for (needed, key) in zip(names, UsageFormat.columnKeys) where found[needed] == nil {
            let header = (0..<self.reader.count).map { self.reader.string($0) }.joined(separator: ",")
            throw InputError(source: source, line: self.reader.line, key: needed,
                             "missing column; the header must name at least \(names.joined(separator: ","))"
                             + (format.columns == UsageFormat().columns ? "" : " (--usage-columns)")
                             + "; it has \(header); --usage-columns \(key)=NAME names the \(key) column")
        }
        column = (found[names[0]]!, found[names[1]]!, found[names[2]]!, found[names[3]]!)
        fieldsNeeded = max(column.device, column.time, column.app, column.duration) + 1
        pending = try advance()
        if !pending { throw InputError(source: source, "no rows after the header") }
    }

    mutating func advance() throws(InputError) -> Bool {
        do { return try reader.next() } catch {
            switch error {
            case .unterminatedQuote(let line): throw InputError(source: source, line: line, "a quoted field is not closed (a \" is missing)")
            case .textAfterQuote(let line): throw InputError(source: source, line: line, "text after a closing quote (inside quotes, write \" as \"\")")
            case .io(let m): throw InputError(source: source, m)
            }
        }
    }

    @inline(__always) func seconds(_ column: Int, _ name: String, _ unit: UsageFormat.TimeUnit) throws(InputError) -> SimTime {
        let us = unit == .s ? reader.withField(column, ByteNumber.microseconds) : reader.withField(column) { UsageFormat.microseconds($0, unit) }
        guard let us else {
            throw InputError(source: source, line: reader.line, key: name,
                             "expected \(unit.expected), got '\(reader.string(column))'")
        }
        return SimTime(microseconds: us)
    }

    @inline(__always) func checkWidth() throws(InputError) {
        guard reader.count < fieldsNeeded else { return }
        let indices = [column.device, column.time, column.app, column.duration]
        let key = format.columns[indices.firstIndex { $0 >= reader.count } ?? 0]
        throw InputError(source: source, line: reader.line, key: key, "missing value (the row has \(reader.count) fields)")
    }

    /// Appends the next device to `batch`; false at the end of the trace.
    public mutating func nextDevice(into batch: inout UsageReplay) throws(InputError) -> Bool {
        guard pending else { return false }
        if let trace { return nextMapped(trace, into: &batch) }
        let source = source
        try checkWidth()
        deviceBytes.removeAll(keepingCapacity: true)
        reader.withField(column.device) { deviceBytes.append(contentsOf: $0) }
        if deviceBytes.isEmpty { throw InputError(source: source, line: reader.line, key: format.device, "empty device id") }
        let name = String(decoding: deviceBytes, as: UTF8.self)
        if let ended = finished[deviceBytes] {
            throw InputError(source: source, line: reader.line, key: format.device,
                             "device '\(name)' comes back after other devices (its rows ended at line \(ended)); the trace must be grouped by device: all of a device's rows together (scripts/group-usage.sh FILE > GROUPED.csv groups it, keeping each device's row order)")
        }
        appTable.removeAll()
        var uses = ContiguousArray<UsageReplay.Use>()
        uses.reserveCapacity(usesHint)
        // Rows spilled to `spillFD` so far, and their busy time (`busyLimitMicros`).
        var spillFD: Int32 = -1
        var spillPath = ""
        var spilled = 0
        // With ISO dates: what the spilled rows' times were moved back by (the device's
        // first date, the earliest while the rows are in order).
        var isoOrigin: Int64 = 0
        var busy: Int64 = 0
        defer { if spillFD >= 0 { close(spillFD) } }
        var sorted = true
        var lastLine = reader.line
        let deviceColumn = column.device
        // The fast path compares the id's bytes in place, as an unquoted field would
        // hold them: only for an id with no byte the general rules treat specially (a
        // quoted id may hold a blank, a delimiter or a newline; `" a"` then ` a` are two
        // devices, the second trimmed to `a`).
        // The fast paths read seconds only.
        let plainDevice = format.seconds && deviceBytes.allSatisfy { reader.classes[Int($0)] == 0 }
        // The usual header: exactly the four columns in their documented order.
        let inOrder = column == (0, 1, 2, 3) && fieldsNeeded == 4
        while true {
            if reader.count < fieldsNeeded { try checkWidth() }
            let same = reader.withField(deviceColumn) { f in
                deviceBytes.withUnsafeBufferPointer { d in f.count == d.count && Self.equal(f.baseAddress!, d.baseAddress!, f.count) }
            }
            if !same { break }
            let time = try seconds(column.time, format.time, format.timeUnit)
            let duration = try seconds(column.duration, format.duration, format.durationUnit)
            let a = reader.withField(column.app) { appTable.index(of: $0) }
            if a < 0 { throw InputError(source: source, line: reader.line, key: format.app, "empty app name") }
            if let last = uses.last, last.time > time { sorted = false }
            uses.append(.init(time: time, app: a, duration: duration))
            rowsRead += 1
            // Each record: the straight-line reader first (many records a call), then `fastRow`.
            while plainDevice {
                let k = inOrder ? fastRowsInOrder(into: &uses, sorted: &sorted) : 0
                if k > 0 { rowsRead += k; fastRowsRead += k; continue }
                if !fastRow(into: &uses, sorted: &sorted) { break }
                rowsRead += 1; fastRowsRead += 1
            }
            lastLine = reader.line
            if spillRows > 0 && uses.count > spillRows && sorted {
                // All rows but the last (which the next row's order is checked against).
                // No temporary file (or a write fails): the rows stay in memory, as before.
                if spillFD < 0, let f = RowSpill.open() { (spillFD, spillPath) = f }
                if spillFD < 0 { spillRows = 0 } else {
                    let n = uses.count - 1
                    if format.timeUnit == .iso {
                        // Dates count from the device's first (as below, for the rows kept):
                        // in order so far, the first row's is the earliest.
                        if spilled == 0 { isoOrigin = uses[0].time.microseconds }
                        for i in 0..<n {
                            uses[i].time = SimTime(microseconds: uses[i].time.microseconds - isoOrigin)
                            if uses[i].time.microseconds >= 10_000_000_000_000_000 {
                                throw InputError(source: source, line: lastLine, key: format.time,
                                                 "device '\(name)': its dates span 1e10 s or more (the rows up to this line)")
                            }
                        }
                    }
                    let ok = uses.withUnsafeBufferPointer { b in RowSpill.write(spillFD, UnsafeBufferPointer(rebasing: b[0..<n]), at: spilled) }
                    if ok {
                        for u in uses[0..<n] where busy < Self.busyLimitMicros {
                            busy = max(busy, u.time.microseconds) + u.duration.microseconds + 1_000_000
                        }
                        spilled += n
                        uses.removeSubrange(0..<n)
                    } else {
                        spillRows = 0
                    }
                }
            }
            guard try advance() else { pending = false; break }
        }
        if spilled > 0 && !sorted {
            // Out of order after all: the rows are sorted whole, in memory.
            var all = ContiguousArray<UsageReplay.Use>(repeating: .init(time: .zero, app: 0, duration: .zero), count: spilled)
            all.withUnsafeMutableBufferPointer { RowSpill(fd: spillFD, count: spilled, path: spillPath).read(into: UnsafeMutableRawBufferPointer($0), row: 0) }
            // The rows kept counted from the spilled rows' origin too (the earliest date
            // is then taken over all of them, below).
            for i in uses.indices where isoOrigin != 0 { uses[i].time = SimTime(microseconds: uses[i].time.microseconds - isoOrigin) }
            isoOrigin = 0
            all.append(contentsOf: uses)
            uses = all
            spillFD = -1  // closed by the RowSpill above
            spilled = 0
            busy = 0
        }
        let spill = spilled > 0 ? RowSpill(fd: spillFD, count: spilled, path: spillPath) : nil
        if spill != nil { spillFD = -1 }  // the RowSpill closes it
        if format.timeUnit == .iso, let first = spilled > 0 ? SimTime(microseconds: isoOrigin) : uses.lazy.map(\.time).min() {
            // Dates: times from the device's first use (as `jetsim import` writes them),
            // below 1e10 s like any time. Rows spilled were moved as they were spilled
            // (they are in order, so the first is the earliest: the same origin).
            for i in uses.indices {
                uses[i].time = SimTime(microseconds: uses[i].time.microseconds - first.microseconds)
                if uses[i].time.microseconds >= 10_000_000_000_000_000 {
                    throw InputError(source: source, line: lastLine, key: format.time,
                                     "device '\(name)': its dates span 1e10 s or more (the rows up to this line)")
                }
            }
        }
        if !sorted {
            // Stable: equal times keep their file order.
            uses = ContiguousArray(uses.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element))
        }
        // The replay runs overlapping sessions one after another (`UsageReplay.walk`,
        // a second between them when the device locks): its busy time can reach the
        // last start plus every duration. Bounded here, so SimTime cannot overflow in
        // the replay (a device of many long sessions trapped there).
        // (The spilled rows' busy time was added up as they were spilled.)
        for u in uses where busy < Self.busyLimitMicros {
            busy = max(busy, u.time.microseconds) + u.duration.microseconds + 1_000_000
        }
        do {
            if busy >= Self.busyLimitMicros {
                throw InputError(source: source, line: lastLine, key: format.duration,
                                 "device '\(name)': its app sessions, replayed one after another, run past 1e12 s (the rows up to this line)")
            }
        }
        finished[deviceBytes] = lastLine
        usesHint = max(16, uses.count)
        batch.devices.append(name)
        batch.appNames.append(appTable.names)
        batch.uses.append(uses)
        batch.spills.append(spill)
        batch.rows += spilled + uses.count
        if let sample { batch.runs.append(sample.keeps(id: deviceBytes)) }
        if keepsNameBytes {
            batch.idBytes.append(deviceBytes)
            batch.appNameBytes.append((0..<appTable.names.count).map { Array(appTable.bytes[appTable.offsets[$0]..<appTable.offsets[$0 + 1]]) })
        }
        devicesRead += 1
        return true
    }

    /// `nextDevice` for a `.jtrace`: the device's place in the map (its rows are read
    /// when it runs). A device the sample leaves out counts in the batch's rows as a
    /// CSV's does: a batch spans a bounded part of the file (`releasePages`).
    mutating func nextMapped(_ trace: UsageTrace, into batch: inout UsageReplay) -> Bool {
        let d = devicesRead
        if batch.trace == nil {
            precondition(batch.devices.isEmpty, "a batch is of one file")
            batch.trace = trace
        }
        let runs = sample?.keeps(id: trace.deviceNameBytes(d)) ?? true
        if sample != nil { batch.runs.append(runs) }
        batch.rows += trace.recordRange(ofDevice: d).count
        batch.mappedDevices += 1
        devicesRead += 1
        rowsRead += trace.recordRange(ofDevice: d).count
        pending = devicesRead < trace.devices
        return true
    }

    /// The common row in one pass: the next record of the reader's block, if it lies
    /// whole in the block, belongs to the device being read (`deviceBytes`), has no
    /// byte the general rules treat specially (a quote, a blank, a CR but before its
    /// LF), at least the needed fields, numbers `ByteNumber.microseconds` reads and a
    /// non-empty app, is scanned once (the fields' ends, the whole seconds and the app
    /// name's FNV-1a together), appended to `uses` and consumed. Anything else returns
    /// false with nothing consumed, and the general path (`advance`, the checks in
    /// `nextDevice`) reads the record: the same use, or the same error. (The general
    /// path scans for the field ends, then reads each field again: docs/performance.md,
    /// "Costs behind the code's shapes".)
    @inline(__always)
    mutating func fastRow(into uses: inout ContiguousArray<UsageReplay.Use>, sorted: inout Bool) -> Bool {
        let base = UnsafePointer(reader.block.baseAddress!)
        let cls = UnsafePointer(reader.classes)
        let e = reader.end
        let needed = fieldsNeeded
        let (cDevice, cTime, cApp, cDuration) = column
        let zero = UInt8(ascii: "0")
        var p = reader.pos
        var time: Int64 = 0, duration: Int64 = 0
        var appStart = 0, appEnd = 0, appHash: UInt64 = 0
        var f = 0
        while true {
            let s = p
            if f == cTime || f == cDuration {
                var v: Int64 = 0
                var d = base[p] &- zero
                while d < 10 { v = v &* 10 &+ Int64(d); p &+= 1; d = base[p] &- zero }
                var n = p - s
                if cls[Int(base[p])] == 0 {
                    // Not whole seconds (`1.5`): the field's end, then the number's own rules.
                    while cls[Int(base[p])] == 0 { p &+= 1 }
                    n = 0
                }
                if p >= e { return false }
                if n > 0 && n <= 10 {
                    v &*= 1_000_000
                } else {
                    guard let us = ByteNumber.microseconds(UnsafeBufferPointer(start: base + s, count: p - s)) else { return false }
                    v = us
                }
                if f == cTime { time = v } else { duration = v }
            } else if f == cApp {
                var h = FNV1a.offsetBasis
                var b = base[p]
                while cls[Int(b)] == 0 { h = (h ^ UInt64(b)) &* FNV1a.prime; p &+= 1; b = base[p] }
                if p == s { return false }
                appStart = s
                appEnd = p
                appHash = h
            } else if f == cDevice {
                // The device's id, compared in place (8 bytes at a time) and then
                // followed by the field's end: no scan of its bytes first.
                let n = deviceBytes.count
                if s &+ n >= e { return false }
                let same = deviceBytes.withUnsafeBufferPointer { d in Self.equal(base + s, d.baseAddress!, n) }
                if !same { return false }
                p = s &+ n
                let c = cls[Int(base[p])]
                if c == 0 { return false }
            } else {
                while cls[Int(base[p])] == 0 { p &+= 1 }
            }
            if p >= e { return false }
            var c = cls[Int(base[p])]
            if c == 3, base[p] == UInt8(ascii: "\r"), p + 1 < e, base[p + 1] == UInt8(ascii: "\n") { p += 1; c = 2 }
            p += 1
            f += 1
            if c == 1 { continue }
            if c != 2 || f < needed { return false }
            break
        }
        let a = appTable.index(of: UnsafeBufferPointer(start: base + appStart, count: appEnd - appStart), hash: appHash)
        if let last = uses.last, last.time > SimTime(microseconds: time) { sorted = false }
        uses.append(.init(time: SimTime(microseconds: time), app: a, duration: SimTime(microseconds: duration)))
        reader.consumed(upTo: p)
        return true
    }

    /// `fastRow` for the usual header (`device,time_s,app,duration_s`, no other
    /// column) and whole seconds: the same checks in straight-line code, field after
    /// field, with no per-field dispatch on the column (`fastRow`'s cost:
    /// docs/performance.md), over consecutive records: it reads on until a record it
    /// does not take (another number form, more fields, a CR alone, the block's end,
    /// another device), which is left to `fastRow` with nothing of it consumed, and
    /// returns the number of records read. Many records a call: the reader's state is
    /// loaded and stored once, not once a row (docs/performance.md).
    @inline(__always)
    mutating func fastRowsInOrder(into uses: inout ContiguousArray<UsageReplay.Use>, sorted: inout Bool) -> Int {
        let base = UnsafePointer(reader.block.baseAddress!)
        let cls = UnsafePointer(reader.classes)
        let e = reader.end
        let n = deviceBytes.count
        var p = reader.pos
        var taken = 0
        var lastTime = uses.last?.time ?? SimTime(microseconds: .min)
        while true {
            var q = p
            // The device's id, compared in place, then its delimiter (class 1; the
            // sentinel LF at `e` is class 2, so a class-1 byte lies before `e`).
            if q &+ n >= e { break }
            let same = deviceBytes.withUnsafeBufferPointer { d in Self.equal(base + q, d.baseAddress!, n) }
            if !same { break }
            q &+= n
            if cls[Int(base[q])] != 1 { break }
            q &+= 1
            guard let time = Self.wholeSeconds(base, cls, &q), cls[Int(base[q])] == 1 else { break }
            q &+= 1
            // The app: its bytes' FNV-1a, a non-empty name, then its delimiter.
            let appStart = q
            var h = FNV1a.offsetBasis
            var b = base[q]
            while cls[Int(b)] == 0 { h = (h ^ UInt64(b)) &* FNV1a.prime; q &+= 1; b = base[q] }
            if q == appStart || cls[Int(b)] != 1 { break }
            let appEnd = q
            q &+= 1
            guard let duration = Self.wholeSeconds(base, cls, &q) else { break }
            // The record's end: LF, or CR LF, inside the block.
            if q >= e { break }
            if base[q] == UInt8(ascii: "\r"), q &+ 1 < e, base[q &+ 1] == UInt8(ascii: "\n") { q &+= 1 }
            if base[q] != UInt8(ascii: "\n") { break }
            q &+= 1
            let a = appTable.index(of: UnsafeBufferPointer(start: base + appStart, count: appEnd - appStart), hash: h)
            if lastTime > time { sorted = false }
            lastTime = time
            uses.append(.init(time: time, app: a, duration: duration))
            taken &+= 1
            p = q
        }
        if taken > 0 { reader.consumed(records: taken, upTo: p) }
        return taken
    }

    /// Whole seconds at `p` (1 to 10 digits, then a byte that ends the field) as a
    /// time, `p` left on that byte; nil for any other text (`fastRow` then reads it
    /// by `ByteNumber.microseconds`'s rules). Up to 7 digits (every time below 116
    /// days) are read 8 bytes at once (SWAR: Lemire, "Faster integer parsing", 2018,
    /// the three multiplies of `parse_eight_digits_unrolled`), not a byte at a time
    /// (docs/performance.md); the reader keeps 8 readable bytes past its sentinel
    /// (`DelimitedReader.block`), so the load never leaves the buffer. Eight or more
    /// digits take the byte loop.
    @inline(__always)
    static func wholeSeconds(_ base: UnsafePointer<UInt8>, _ cls: UnsafePointer<UInt8>, _ p: inout Int) -> SimTime? {
        let s = p
        let w = UInt64(littleEndian: UnsafeRawPointer(base + s).loadUnaligned(as: UInt64.self))
        // A byte is an ASCII digit exactly when its high nibble is 3 and its low
        // nibble plus 6 stays below 16 (nibble sums: no carry between bytes).
        let high = w & 0xF0F0_F0F0_F0F0_F0F0
        let over = ((w & 0x0F0F_0F0F_0F0F_0F0F) &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0
        let notDigit = (high ^ 0x3030_3030_3030_3030) | over
        if notDigit == 0 { return wholeSecondsByByte(base, cls, &p) }
        // The digits are the bytes below the first non-digit (the first byte is the lowest).
        let n = notDigit.trailingZeroBitCount &>> 3
        p = s &+ n
        if n == 0 || cls[Int(base[p])] == 0 { return nil }
        // The n digits moved to the top bytes (the bytes below them: leading zeros),
        // then combined pairwise: 2 digits a lane, 4, then 8.
        var v = (w &<< UInt64(64 &- 8 &* n)) & 0x0F0F_0F0F_0F0F_0F0F
        v = (v &* 2561) &>> 8
        v = ((v & 0x00FF_00FF_00FF_00FF) &* 6_553_601) &>> 16
        v = ((v & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) &>> 32
        return SimTime(microseconds: Int64(v) &* 1_000_000)
    }

    /// `wholeSeconds` a byte at a time (eight digits or more).
    @inline(never)
    static func wholeSecondsByByte(_ base: UnsafePointer<UInt8>, _ cls: UnsafePointer<UInt8>, _ p: inout Int) -> SimTime? {
        let zero = UInt8(ascii: "0")
        let s = p
        var v: Int64 = 0
        var d = base[p] &- zero
        while d < 10 { v = v &* 10 &+ Int64(d); p &+= 1; d = base[p] &- zero }
        let n = p &- s
        if n == 0 || n > 10 || cls[Int(base[p])] == 0 { return nil }
        return SimTime(microseconds: v &* 1_000_000)
    }

    /// Whether the `n` bytes at `a` and `b` are equal: inline, 8 bytes at a time (a
    /// `memcmp` call per row cost more than the compare of a short device id).
    @inline(__always) static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var i = 0
        while i + 8 <= n {
            if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
            i += 8
        }
        if i + 4 <= n {
            // Four at once (a short name, `app07`: one compare and a byte, not five).
            if ra.loadUnaligned(fromByteOffset: i, as: UInt32.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt32.self) { return false }
            i += 4
        }
        while i < n {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }

    /// The next devices, whole, until the batch holds at least `rows` rows or
    /// `maxDevices` devices; nil at the end of the trace.
    public mutating func nextBatch(rows: Int, maxDevices: Int = .max) throws(InputError) -> UsageReplay? {
        var batch = UsageReplay()
        batch.firstDevice = devicesRead
        while batch.rows < rows, batch.deviceCount < maxDevices, try nextDevice(into: &batch) {}
        return batch.deviceCount == 0 ? nil : batch
    }

    /// Whether rows remain.
    public var hasMore: Bool { pending }
}

/// App names by their bytes: an open-addressing table (linear probing, FNV-1a) built
/// per device, so a row costs a hash and a compare, and a `String` is made only for a
/// name not seen before on the device (a dictionary keyed by `String` cost a String
/// and a SipHash per row).
struct ByteNameTable {
    /// Names in the order first seen (index = app index on the device).
    private(set) var names: [String] = []
    /// Each name's bytes, one after another: name i is `bytes[offsets[i]..<offsets[i+1]]`.
    var bytes = ContiguousArray<UInt8>()
    var offsets = ContiguousArray<Int>([0])
    var hashes = ContiguousArray<UInt64>()
    /// The name index in each slot, -1 if empty; the count is a power of two, at
    /// least twice the names.
    var slots = ContiguousArray<Int32>(repeating: -1, count: 64)

    mutating func removeAll() {
        names.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        hashes.removeAll(keepingCapacity: true)
        slots.withUnsafeMutableBufferPointer { $0.update(repeating: -1) }
    }

    /// The index of the name `f`, added if new; -1 if `f` is empty.
    @inline(__always) mutating func index(of f: UnsafeBufferPointer<UInt8>) -> Int32 {
        if f.isEmpty { return -1 }
        return index(of: f, hash: FNV1a.hash(f))
    }

    /// The index of the non-empty name `f` whose FNV-1a is `h`, added if new.
    @inline(__always) mutating func index(of f: UnsafeBufferPointer<UInt8>, hash h: UInt64) -> Int32 {
        let found = find(f, hash: h)
        if found >= 0 { return found }
        return add(f, hash: h, slot: Int(~found))
    }

    /// The index of the name `f` whose FNV-1a is `h`, or `~slot` of the empty slot
    /// where it goes. Reads the table through buffer pointers: a lookup per row
    /// paid a bounds check per array read.
    @inline(__always) func find(_ f: UnsafeBufferPointer<UInt8>, hash h: UInt64) -> Int32 {
        slots.withUnsafeBufferPointer { sl in
            hashes.withUnsafeBufferPointer { hs in
                offsets.withUnsafeBufferPointer { off in
                    bytes.withUnsafeBufferPointer { by in
                        let mask = sl.count &- 1
                        var i = Int(truncatingIfNeeded: h ^ (h >> 29)) & mask
                        while true {
                            let a = sl[i]
                            if a < 0 { return ~Int32(i) }
                            let k = Int(a)
                            if hs[k] == h {
                                let s = off[k], n = off[k &+ 1] &- s
                                if n == f.count && UsageStream.equal(by.baseAddress! + s, f.baseAddress!, n) { return a }
                            }
                            i = (i &+ 1) & mask
                        }
                    }
                }
            }
        }
    }

    /// Adds the name `f` (FNV-1a `h`) in the empty slot `i`; returns its index.
    @inline(never) mutating func add(_ f: UnsafeBufferPointer<UInt8>, hash h: UInt64, slot i: Int) -> Int32 {
        let a = Int32(names.count)
        names.append(String(decoding: f, as: UTF8.self))
        bytes.append(contentsOf: f)
        offsets.append(bytes.count)
        hashes.append(h)
        slots[i] = a
        if 2 * names.count > slots.count { rehash(2 * slots.count) }
        return a
    }

    mutating func rehash(_ count: Int) {
        slots = ContiguousArray(repeating: -1, count: count)
        let mask = count - 1
        for k in hashes.indices {
            let h = hashes[k]
            var i = Int(truncatingIfNeeded: h ^ (h >> 29)) & mask
            while slots[i] >= 0 { i = (i + 1) & mask }
            slots[i] = Int32(k)
        }
    }
}

/// What jetsim does when a file it wrote itself cannot be read back in the middle of a
/// run (the spilled rows of a long replayed device, `RowSpill`): nothing can go on, and
/// no error can travel back through the device loop. The command installs a handler
/// that removes its temporary outputs, prints the message and exits 1 (an I/O failure);
/// without one (the library, tests) it traps with the same message.
public enum FatalIO {
    nonisolated(unsafe) public static var handler: ((String) -> Never)? = nil

    public static func fail(_ message: String) -> Never {
        if let handler { handler(message) }
        preconditionFailure(message)
    }
}

/// The first rows of a long device, written to an unlinked temporary file as the
/// device is read (`UsageStream.spillRows`) and read back chunk by chunk
/// (`UsageReplay.readRows`): the rows in memory stay bounded however long the device.
/// Rows are written as they lie in memory (this process alone reads them).
final class RowSpill: Sendable {
    let fd: Int32
    let count: Int
    /// The file's name when it was made (unlinked since), for a message.
    let path: String

    init(fd: Int32, count: Int, path: String) {
        self.fd = fd
        self.count = count
        self.path = path
    }

    deinit { close(fd) }

    static let rowBytes = MemoryLayout<UsageReplay.Use>.stride

    /// A new unlinked file in TMPDIR (else /tmp) and the name it had; nil if none can
    /// be made.
    static func open() -> (fd: Int32, path: String)? {
        let dir = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((dir + "/jetsim-rows.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return (fd, path)
    }

    /// Appends `rows` to the file `fd` at row `at`; false on a write error.
    static func write(_ fd: Int32, _ rows: UnsafeBufferPointer<UsageReplay.Use>, at row: Int) -> Bool {
        let raw = UnsafeRawBufferPointer(rows)
        var done = 0
        while done < raw.count {
            let k = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t((row * rowBytes) + done))
            if k < 0 && errno == EINTR { continue }
            if k <= 0 { return false }
            done += k
        }
        return true
    }

    /// Fills `buffer` with the rows from `row` on (as many as it holds). A read that
    /// fails ends the run (`FatalIO`: exit 1, naming the file).
    func read(into buffer: UnsafeMutableRawBufferPointer, row: Int) {
        var done = 0
        while done < buffer.count {
            let k = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t((row * Self.rowBytes) + done))
            if k < 0 && errno == EINTR { continue }
            if k <= 0 {
                let why = k < 0 ? String(cString: strerror(errno)) : "the file ended early"
                FatalIO.fail("\(path) (a replayed device's rows, spilled to a temporary file and unlinked): cannot read them back: \(why)")
            }
            done += k
        }
    }
}
