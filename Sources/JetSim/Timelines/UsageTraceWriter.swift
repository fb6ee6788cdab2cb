#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// Writes a `.jtrace` (docs/jtrace.md) from the batches a `UsageStream` reads (with
/// `keepsNameBytes`, so ids and names keep their bytes): the records as they come,
/// then the tables, then the header, which holds the counts and the body's XXH64.
/// Each device keeps the stream's rows (sorted, times from the device's first use for
/// ISO dates) and its app numbering (first use in the file), so a replay of the file
/// is the replay of its CSV. Memory: the tables (ids, names, a device's apps) and a
/// 1 MiB block, not the rows.
public struct UsageTraceWriter {
    let fd: Int32
    /// Where the next body byte goes.
    var offset = UsageTrace.headerBytes
    var hash = XXH64()
    var block = ContiguousArray<UInt8>()
    public private(set) var records = 0
    /// Three words a device (first record, first device app, first id byte), then the end.
    var deviceIndex = ContiguousArray<UInt64>()
    /// Two words an entry: the app, its rows on the device.
    var deviceApps = ContiguousArray<UInt64>()
    var deviceNames = ContiguousArray<UInt8>()
    /// Every app name over the trace, by its bytes (index = app index in the file).
    var apps = ByteNameTable()
    var counts: [UInt64] = []
    /// The first write error (errno), 0 if none.
    public private(set) var error: Int32 = 0

    /// Writes to `fd` (a regular file, written from offset 0 with `pwrite`).
    public init(fd: Int32) {
        self.fd = fd
        block.reserveCapacity(1 << 20)
    }

    public var devices: Int { deviceIndex.count / 3 }

    /// Adds every device of `batch` (read with `keepsNameBytes`, or from a `.jtrace`).
    public mutating func add(_ batch: UsageReplay) throws(InputError) {
        for d in batch.firstDevice..<batch.endDevice {
            let id: [UInt8], names: [[UInt8]]
            if let trace = batch.trace {
                id = Array(trace.deviceNameBytes(d))
                names = trace.appRange(ofDevice: d).map { Array(trace.appNameBytes(trace.deviceApp($0).app)) }
            } else {
                precondition(!batch.idBytes.isEmpty, "the stream keeps the names' bytes (keepsNameBytes)")
                id = batch.idBytes[d - batch.firstDevice]
                names = batch.appNameBytes[d - batch.firstDevice]
            }
            guard devices < Int(UInt32.max) else {
                throw InputError(source: batch.trace?.source ?? "the trace", "more than \(UInt32.max) devices: more than a .jtrace record's device field counts")
            }
            deviceIndex.append(UInt64(records))
            deviceIndex.append(UInt64(deviceApps.count / 2))
            deviceIndex.append(UInt64(deviceNames.count))
            deviceNames.append(contentsOf: id)
            counts.removeAll(keepingCapacity: true)
            counts.append(contentsOf: repeatElement(0, count: names.count))
            let device = UInt32(devices - 1)
            batch.forEachChunk(ofDevice: d) { rows in
                for u in rows {
                    counts[Int(u.app)] += 1
                    append(u.time.microseconds)
                    append(UInt32(bitPattern: u.app))
                    append(device)
                    append(u.duration.microseconds)
                }
                records += rows.count
            }
            for (k, name) in names.enumerated() {
                let a = name.withUnsafeBufferPointer { apps.index(of: $0) }
                deviceApps.append(UInt64(a))
                deviceApps.append(counts[k])
            }
        }
    }

    @inline(__always) mutating func append(_ x: Int64) { append(UInt64(bitPattern: x)) }
    @inline(__always) mutating func append(_ x: UInt64) {
        withUnsafeBytes(of: x.littleEndian) { block.append(contentsOf: $0) }
        if block.count >= 1 << 20 { flush() }
    }
    @inline(__always) mutating func append(_ x: UInt32) {
        withUnsafeBytes(of: x.littleEndian) { block.append(contentsOf: $0) }
    }

    /// Writes the block at `offset`, adding it to the checksum.
    mutating func flush() {
        block.withUnsafeBytes { b in
            hash.update(b)
            write(b, at: offset)
        }
        offset += block.count
        block.removeAll(keepingCapacity: true)
    }

    mutating func write(_ b: UnsafeRawBufferPointer, at start: Int) {
        var done = 0
        while error == 0 && done < b.count {
            let n = pwrite(fd, b.baseAddress! + done, b.count - done, off_t(start + done))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { error = n < 0 ? errno : EIO; return }
            done += n
        }
    }

    /// Writes the tables and the header; returns the first write error (0: none).
    /// `source` names the trace for an error (no rows).
    public mutating func finish(source: String) throws(InputError) -> Int32 {
        guard records > 0 else { throw InputError(source: source, "no rows: nothing to write") }
        deviceIndex.append(UInt64(records))
        deviceIndex.append(UInt64(deviceApps.count / 2))
        deviceIndex.append(UInt64(deviceNames.count))
        for w in deviceIndex { append(w) }
        for w in deviceApps { append(w) }
        for o in apps.offsets { append(UInt64(o)) }
        block.append(contentsOf: deviceNames)
        block.append(contentsOf: apps.bytes)
        flush()
        var header = ContiguousArray<UInt8>()
        header.append(contentsOf: UsageTrace.magic)
        withUnsafeBytes(of: UsageTrace.version.littleEndian) { header.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(UsageTrace.headerBytes).littleEndian) { header.append(contentsOf: $0) }
        for w in [UInt64(offset), UInt64(records), UInt64(devices - 1), UInt64(apps.names.count), UInt64(deviceApps.count / 2), hash.value] {
            withUnsafeBytes(of: w.littleEndian) { header.append(contentsOf: $0) }
        }
        precondition(header.count == UsageTrace.headerBytes)
        header.withUnsafeBytes { write($0, at: 0) }
        return error
    }
}
