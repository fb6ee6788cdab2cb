#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// Streams a usage trace (see `UsageReplay`) device by device: it holds one block of
/// the file, the device being read, and the ids of the devices already read (to
/// check that the trace is grouped by device). Errors name the file and the line.
public struct UsageStream: ~Copyable {
    var reader: DelimitedReader
    public let source: String
    var column = (device: 0, time: 0, app: 0, duration: 0)
    var fieldsNeeded = 0
    /// Devices already read, with the line their rows ended on.
    var finished: [String: Int] = [:]
    /// Whether the reader holds the first row of the next device.
    var pending = false
    /// Devices and rows read so far.
    public private(set) var devicesRead = 0
    public private(set) var rowsRead = 0
    var appIndex: [String: Int32] = [:]
    var deviceBytes: [UInt8] = []

    public static let requiredColumns = ["device", "time_s", "app", "duration_s"]

    /// Opens the trace at `path` and reads its header.
    public init(path: String) throws(InputError) {
        guard let r = DelimitedReader(path: path) else { throw InputError(source: path, "cannot open it: \(String(cString: strerror(errno)))") }
        try self.init(reader: r, source: path)
    }

    public init(reader: consuming DelimitedReader, source: String) throws(InputError) {
        self.reader = reader
        self.source = source
        guard try advance() else { throw InputError(source: source, "empty: expected a header device,time_s,app,duration_s and rows") }
        try readHeader()
    }

    /// Takes a reader that already holds the header record (`UsageStats` reads it
    /// first to tell a usage CSV from a lifecycle trace).
    init(readerAtHeader reader: consuming DelimitedReader, source: String) throws(InputError) {
        self.reader = reader
        self.source = source
        try readHeader()
    }

    mutating func readHeader() throws(InputError) {
        var found: [String: Int] = [:]
        for i in 0..<self.reader.count where found[self.reader.string(i)] == nil { found[self.reader.string(i)] = i }
        for needed in Self.requiredColumns where found[needed] == nil {
            throw InputError(source: source, line: self.reader.line, key: needed,
                             "missing column; the header must name at least device,time_s,app,duration_s")
        }
        column = (found["device"]!, found["time_s"]!, found["app"]!, found["duration_s"]!)
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

    func seconds(_ column: Int, _ name: String) throws(InputError) -> SimTime {
        guard let us = reader.withField(column, ByteNumber.microseconds) else {
            throw InputError(source: source, line: reader.line, key: name,
                             "expected seconds (a non-negative number below 1e10), got '\(reader.string(column))'")
        }
        return SimTime(microseconds: us)
    }

    func checkWidth() throws(InputError) {
        guard reader.count < fieldsNeeded else { return }
        let indices = [column.device, column.time, column.app, column.duration]
        let key = Self.requiredColumns[indices.firstIndex { $0 >= reader.count } ?? 0]
        throw InputError(source: source, line: reader.line, key: key, "missing value (the row has \(reader.count) fields)")
    }

    /// Appends the next device to `batch`; false at the end of the trace.
    public mutating func nextDevice(into batch: inout UsageReplay) throws(InputError) -> Bool {
        guard pending else { return false }
        let source = source
        try checkWidth()
        deviceBytes.removeAll(keepingCapacity: true)
        reader.withField(column.device) { deviceBytes.append(contentsOf: $0) }
        if deviceBytes.isEmpty { throw InputError(source: source, line: reader.line, key: "device", "empty device id") }
        let name = String(decoding: deviceBytes, as: UTF8.self)
        if let ended = finished[name] {
            throw InputError(source: source, line: reader.line, key: "device",
                             "device '\(name)' comes back after other devices (its rows ended at line \(ended)); the trace must be grouped by device: all of a device's rows together")
        }
        appIndex.removeAll(keepingCapacity: true)
        var names: [String] = []
        var uses = ContiguousArray<UsageReplay.Use>()
        var sorted = true
        var lastLine = reader.line
        while true {
            try checkWidth()
            let same = reader.withField(column.device) { f in f.elementsEqual(deviceBytes) }
            if !same { break }
            let time = try seconds(column.time, "time_s")
            let duration = try seconds(column.duration, "duration_s")
            let app = reader.string(column.app)
            if app.isEmpty { throw InputError(source: source, line: reader.line, key: "app", "empty app name") }
            let a: Int32
            if let known = appIndex[app] { a = known } else {
                a = Int32(names.count)
                appIndex[app] = a
                names.append(app)
            }
            if let last = uses.last, last.time > time { sorted = false }
            uses.append(.init(time: time, app: a, duration: duration))
            lastLine = reader.line
            rowsRead += 1
            guard try advance() else { pending = false; break }
        }
        if !sorted {
            // Stable: equal times keep their file order.
            uses = ContiguousArray(uses.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element))
        }
        finished[name] = lastLine
        batch.devices.append(name)
        batch.appNames.append(names)
        batch.uses.append(uses)
        batch.rows += uses.count
        devicesRead += 1
        return true
    }

    /// The next devices, whole, until the batch holds at least `rows` rows or
    /// `maxDevices` devices; nil at the end of the trace.
    public mutating func nextBatch(rows: Int, maxDevices: Int = .max) throws(InputError) -> UsageReplay? {
        var batch = UsageReplay()
        batch.firstDevice = devicesRead
        while batch.rows < rows, batch.devices.count < maxDevices, try nextDevice(into: &batch) {}
        return batch.devices.isEmpty ? nil : batch
    }

    /// Whether rows remain.
    public var hasMore: Bool { pending }
}
