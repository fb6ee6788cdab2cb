#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads delimited text (CSV by RFC 4180, or tab-separated) record by record, from a
/// file in 1 MiB blocks or from bytes in memory, working on bytes (no `Character`,
/// no `String` per field). Memory: one block plus the longest record.
///
/// Rules: a UTF-8 byte-order mark at the start is skipped; a record ends at LF, CRLF
/// or a lone CR; a field that starts with `"` is quoted: it may hold the delimiter,
/// line breaks and doubled quotes (`""` is one `"`), and after its closing quote only
/// the delimiter or the end of the record may follow. Unquoted fields are trimmed of
/// spaces and tabs at both ends (quoted ones are kept as written). Records that are
/// empty (a blank line) are skipped.
public struct DelimitedReader: ~Copyable {
    public enum Failure: Error, Equatable {
        case unterminatedQuote(line: Int)
        case textAfterQuote(line: Int)
        case io(String)
    }

    let delimiter: UInt8
    let file: UnsafeMutablePointer<FILE>?
    /// The bytes read: `[pos, end)` not yet consumed. One byte more is allocated than
    /// is ever read, and `block[end]` is always a line feed (a sentinel), so the fast
    /// path scans a field without checking the end at every byte. Past the block,
    /// `overread` more bytes (zeros) are allocated: a fast path may load 8 bytes
    /// from any position up to the sentinel (`UsageStream.wholeSeconds`).
    var block: UnsafeMutableBufferPointer<UInt8>
    /// Readable bytes allocated after `block`'s last.
    static let overread = 7
    /// 1 for the bytes that end an unquoted field (the delimiter, LF, CR), else 0: one
    /// table load a byte instead of three compares.
    let stops: UnsafeMutablePointer<UInt8>
    /// For callers that parse a record in one pass over the block (`UsageStream`'s
    /// fast rows): 0 for a byte of an unquoted field's text, 1 for the delimiter, 2 for
    /// LF, 3 for a byte the general rules treat specially (CR, `"`, space, tab).
    let classes: UnsafeMutablePointer<UInt8>
    var pos = 0
    var end = 0
    var eof = false
    /// The line the next record starts on (1-based).
    public private(set) var nextLine = 1
    /// The line the current record started on.
    public private(set) var line = 0
    /// A record read by the general path (`readRecord`): its fields, unescaped, one
    /// after another in `bytes`, field i being `bytes[starts[i]..<starts[i+1]]`.
    var bytes = ContiguousArray<UInt8>()
    var starts = ContiguousArray<Int>()
    /// The current record's fields: field i is `[ranges[2i], ranges[2i+1])`, in the
    /// block (`inBlock`: the fast path, no copy) or in `bytes`.
    var ranges: UnsafeMutablePointer<Int>
    var rangeCapacity = 16
    var fieldCount = 0
    var inBlock = false

    static let blockSize = 1 << 20

    /// Reads the file at `path`; nil if it cannot be opened.
    public init?(path: String, delimiter: UInt8 = UInt8(ascii: ",")) {
        guard let f = fopen(path, "rb") else { return nil }
        self.init(file: f, delimiter: delimiter)
    }

    /// Reads from the open descriptor `fd` (the reader closes it); nil if it cannot be used.
    public init?(descriptor fd: Int32, delimiter: UInt8 = UInt8(ascii: ",")) {
        guard let f = fdopen(fd, "rb") else { close(fd); return nil }
        self.init(file: f, delimiter: delimiter)
    }

    init(file f: UnsafeMutablePointer<FILE>, delimiter: UInt8) {
        file = f
        self.delimiter = delimiter
        block = Self.allocateBlock(Self.blockSize + 1)
        block[0] = UInt8(ascii: "\n")
        stops = Self.stopTable(delimiter)
        classes = Self.classTable(delimiter)
        ranges = .allocate(capacity: 2 * rangeCapacity)
        bytes.reserveCapacity(256)
        starts.reserveCapacity(16)
        skipBOM()
    }

    /// Reads bytes held in memory.
    public init(bytes source: some Collection<UInt8>, delimiter: UInt8 = UInt8(ascii: ",")) {
        file = nil
        self.delimiter = delimiter
        block = Self.allocateBlock(source.count + 1)
        stops = Self.stopTable(delimiter)
        classes = Self.classTable(delimiter)
        ranges = .allocate(capacity: 2 * rangeCapacity)
        _ = block.initialize(from: source)
        end = source.count
        block[end] = UInt8(ascii: "\n")
        eof = true
        skipBOM()
    }

    deinit {
        block.deallocate()
        stops.deallocate()
        classes.deallocate()
        ranges.deallocate()
        if let file { fclose(file) }
    }

    /// A block of `count` bytes followed by `overread` zeros.
    static func allocateBlock(_ count: Int) -> UnsafeMutableBufferPointer<UInt8> {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: count + overread)
        (p + count).initialize(repeating: 0, count: overread)
        return UnsafeMutableBufferPointer(start: p, count: count)
    }

    static func stopTable(_ delimiter: UInt8) -> UnsafeMutablePointer<UInt8> {
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        t.initialize(repeating: 0, count: 256)
        t[Int(delimiter)] = 1
        t[Int(UInt8(ascii: "\n"))] = 1
        t[Int(UInt8(ascii: "\r"))] = 1
        return t
    }

    static func classTable(_ delimiter: UInt8) -> UnsafeMutablePointer<UInt8> {
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        t.initialize(repeating: 0, count: 256)
        for b: Unicode.Scalar in ["\r", "\"", " ", "\t"] { t[Int(UInt8(ascii: b))] = 3 }
        t[Int(UInt8(ascii: "\n"))] = 2
        t[Int(delimiter)] = 1
        return t
    }

    /// A record parsed by the caller straight from the block (`UsageStream`'s fast
    /// rows) ends just before `p`: the reader goes on after it, as `next()` would
    /// have. The record's fields are not kept (`count` is 0 until the next record).
    @inline(__always) mutating func consumed(upTo p: Int) {
        line = nextLine
        nextLine += 1
        pos = p
        fieldCount = 0
    }

    /// `consumed(upTo:)` for `k` (at least 1) records one after another, ending just
    /// before `p`: as `k` calls would leave it.
    @inline(__always) mutating func consumed(records k: Int, upTo p: Int) {
        line = nextLine + k - 1
        nextLine += k
        pos = p
        fieldCount = 0
    }

    mutating func skipBOM() {
        _ = fill(3)
        if end - pos >= 3 && block[pos] == 0xEF && block[pos + 1] == 0xBB && block[pos + 2] == 0xBF { pos += 3 }
    }

    /// Makes at least `n` bytes available if the input has them; false at the end.
    @inline(__always) mutating func fill(_ n: Int = 1) -> Bool {
        if end - pos >= n { return true }
        return refill(n)
    }

    @inline(never) mutating func refill(_ n: Int) -> Bool {
        guard let file, !eof else { return end - pos >= n }
        let left = end - pos
        if left > 0, pos > 0 { memmove(block.baseAddress!, block.baseAddress! + pos, left) }
        pos = 0
        end = left
        while end < n || end == left {
            let got = fread(block.baseAddress! + end, 1, block.count - 1 - end, file)
            if got == 0 { eof = true; break }
            end += got
            if end >= n { break }
        }
        block[end] = UInt8(ascii: "\n")  // the sentinel
        return end - pos >= n
    }

    /// The number of fields in the current record.
    public var count: Int { fieldCount }

    /// Calls `body` with field `i`'s bytes (valid until the next record is read).
    @inline(__always) public func withField<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        precondition(i >= 0 && i < fieldCount, "no such field")
        let s = ranges[2 * i], e = ranges[2 * i + 1]
        if inBlock { return try body(UnsafeBufferPointer(start: block.baseAddress! + s, count: e - s)) }
        return try bytes.withUnsafeBufferPointer { b in try body(UnsafeBufferPointer(rebasing: b[s..<e])) }
    }

    /// Room for `n` fields' ranges.
    @inline(never) mutating func growRanges(_ n: Int) {
        let bigger = UnsafeMutablePointer<Int>.allocate(capacity: 2 * n)
        bigger.update(from: ranges, count: 2 * rangeCapacity)
        ranges.deallocate()
        ranges = bigger
        rangeCapacity = n
    }

    /// Field `i` as a String (UTF-8, invalid bytes repaired).
    public func string(_ i: Int) -> String { withField(i) { String(decoding: $0, as: UTF8.self) } }

    /// Reads the next non-empty record; false at the end of the input.
    public mutating func next() throws(Failure) -> Bool {
        while true {
            guard fill() else {
                if let file, ferror(file) != 0 { throw .io("read error") }
                return false
            }
            line = nextLine
            if fastRecord() { return true }
            bytes.removeAll(keepingCapacity: true)
            starts.removeAll(keepingCapacity: true)
            let blank = try readRecord()
            if !blank {
                let n = starts.count - 1
                if n > rangeCapacity { growRanges(n) }
                for i in 0..<n { ranges[2 * i] = starts[i]; ranges[2 * i + 1] = starts[i + 1] }
                fieldCount = n
                inBlock = false
                return true
            }
        }
    }

    /// The fast path: a record that lies whole in the block, with no quoted field and
    /// not blank, is read in place (its fields are ranges of the block: no copy).
    /// Anything else returns false with nothing consumed, for `readRecord`. Same rules
    /// as `readRecord` (blanks trimmed; a `"` inside an unquoted field is text).
    @inline(__always) mutating func fastRecord() -> Bool {
        let base = UnsafePointer(block.baseAddress!)
        let stops = UnsafePointer(self.stops)
        let d = delimiter
        let quote = UInt8(ascii: "\""), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        let e = end
        var p = pos
        var n = 0
        var sawContent = false
        while true {
            // `base[e]` is the sentinel LF: the scans below stop there at the latest.
            var c = base[p]
            while (c == space || c == tab) && c != d { p += 1; c = base[p] }
            if p >= e || c == quote { return false }
            let s = p
            while stops[Int(base[p])] == 0 { p += 1 }
            if p >= e { return false }
            let b = base[p]
            var last = p  // after the last byte that is not a blank (the field holds no delimiter)
            while last > s, base[last - 1] == space || base[last - 1] == tab { last -= 1 }
            if n == rangeCapacity { growRanges(2 * n) }
            ranges[2 * n] = s
            ranges[2 * n + 1] = last
            n += 1
            if last > s { sawContent = true }
            p += 1
            if b == d { sawContent = true; continue }
            if b == cr {
                if p < e { if base[p] == lf { p += 1 } } else if !eof { return false }
            }
            if !sawContent && n == 1 { return false }  // blank: `readRecord` skips it
            pos = p
            nextLine += 1
            fieldCount = n
            inBlock = true
            return true
        }
    }

    /// Reads one record (the input has at least one byte). Returns whether it was blank.
    mutating func readRecord() throws(Failure) -> Bool {
        let d = delimiter
        let quote = UInt8(ascii: "\""), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        var sawContent = false
        while true {
            // One field. Skip leading blanks (unless they are the delimiter).
            starts.append(bytes.count)
            while fill(), block[pos] == space || block[pos] == tab, block[pos] != d { pos += 1 }
            if fill(), block[pos] == quote {
                sawContent = true
                pos += 1
                while true {
                    guard fill() else { throw .unterminatedQuote(line: line) }
                    let b = block[pos]
                    pos += 1
                    if b == quote {
                        if fill(), block[pos] == quote { bytes.append(quote); pos += 1; continue }
                        break
                    }
                    if b == lf { nextLine += 1 } else if b == cr, !(fill() && block[pos] == lf) { nextLine += 1 }
                    bytes.append(b)
                }
                while fill(), block[pos] == space || block[pos] == tab, block[pos] != d { pos += 1 }
                guard fill() else { starts.append(bytes.count); nextLine += 1; return false }
                let b = block[pos]
                if b == d { pos += 1; continue }
                if b == lf || b == cr { endLine(); starts.append(bytes.count); return false }
                throw .textAfterQuote(line: line)
            }
            // Unquoted: up to the delimiter or the end of the line.
            // Scans the bytes at hand and copies each run at once (not byte by byte:
            // one append per byte cost a uniqueness check and a bounds check each).
            var fieldEnd = bytes.count  // after the last non-blank byte
            while fill() {
                let start = pos
                var lastContent = -1
                while pos < end {
                    let b = block[pos]
                    if b == d || b == lf || b == cr { break }
                    if b != space && b != tab { lastContent = pos }
                    pos += 1
                }
                if pos > start {
                    let base = bytes.count
                    bytes.append(contentsOf: UnsafeBufferPointer(start: block.baseAddress! + start, count: pos - start))
                    if lastContent >= 0 { fieldEnd = base + (lastContent - start) + 1; sawContent = true }
                }
                if pos < end { break }
            }
            if fieldEnd < bytes.count { bytes.removeSubrange(fieldEnd..<bytes.count) }
            guard fill() else { starts.append(bytes.count); nextLine += 1; return !sawContent && starts.count == 2 }
            let b = block[pos]
            if b == d { pos += 1; sawContent = true; continue }
            endLine()
            starts.append(bytes.count)
            return !sawContent && starts.count == 2
        }
    }

    /// Consumes LF, CRLF or CR.
    @inline(__always) mutating func endLine() {
        if block[pos] == UInt8(ascii: "\r") {
            pos += 1
            if fill(), block[pos] == UInt8(ascii: "\n") { pos += 1 }
        } else {
            pos += 1
        }
        nextLine += 1
    }
}

/// Numbers from bytes.
public enum ByteNumber {
    /// Non-negative seconds as whole microseconds: `123`, `1.5`, `0.000001` exactly
    /// (up to 6 decimals), anything else `strtod` accepts (`1e3`, more decimals:
    /// rounded to the microsecond). Nil if the field is not such a number, is negative,
    /// not finite, or 1e10 s or more.
    @inline(__always) public static func microseconds(_ f: UnsafeBufferPointer<UInt8>) -> Int64? {
        let n = f.count
        if n == 0 { return nil }
        let zero = UInt8(ascii: "0")
        // The common forms (`123`, `1.5`) inline; anything else out of line.
        var i = 0
        var whole: Int64 = 0
        let digits = min(n, 10)
        while i < digits {
            let v = f[i] &- zero
            if v >= 10 { break }
            whole = whole &* 10 &+ Int64(v)
            i += 1
        }
        if i == n && i > 0 && i < 11 { return whole &* 1_000_000 }
        return microsecondsRest(f, whole: whole, digits: i)
    }

    /// `microseconds` past its leading digits (`digits` of them, worth `whole`).
    @inline(never) static func microsecondsRest(_ f: UnsafeBufferPointer<UInt8>, whole: Int64, digits i: Int) -> Int64? {
        let n = f.count
        let zero = UInt8(ascii: "0")
        if i > 0 && i < 11 && i < n {
            if f[i] == UInt8(ascii: ".") {
                var j = i + 1
                var frac: Int64 = 0
                var scale: Int64 = 1_000_000
                while j < n, f[j] &- zero < 10, scale > 1 { scale /= 10; frac += Int64(f[j] &- zero) * scale; j += 1 }
                if j == n && (j > i + 1 || i > 0) { return whole * 1_000_000 + frac }
            }
        }
        // Slow path: strtod on a NUL-terminated copy.
        guard n < 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: n + 1) { buf -> Int64? in
            for k in 0..<n { buf[k] = CChar(bitPattern: f[k]) }
            buf[n] = 0
            var endp: UnsafeMutablePointer<CChar>? = nil
            let x = strtod(buf.baseAddress!, &endp)
            guard let endp, endp == buf.baseAddress! + n, x.isFinite, x >= 0, x < 1e10 else { return nil }
            // strtod accepts leading blanks, hex and inf/nan; allow only decimal forms.
            for k in 0..<n where !(f[k] &- zero < 10 || f[k] == UInt8(ascii: ".") || f[k] == UInt8(ascii: "e")
                                   || f[k] == UInt8(ascii: "E") || f[k] == UInt8(ascii: "+") || f[k] == UInt8(ascii: "-")) { return nil }
            return Int64((x * 1e6).rounded())
        }
    }
}
