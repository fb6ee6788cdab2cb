import Foundation
import JetSim
import SimKernel

/// Reads each input once. A workload, scenario, dataset or state is read whole (with
/// read(2), so a pipe, `/dev/stdin` or a process substitution `<(...)` works as a file
/// does) and kept, so a command that needs it again (a sweep's points) gets the same
/// text. A usage trace is streamed; one that is not a regular file (a pipe) can be
/// read only once, so it is copied, as it is first read, into a temporary file that no
/// directory names (removed when jetsim exits, however it exits), and every later
/// read (a shard's hash, a sweep's points, trace's device count) reads that copy.
enum InputFiles {
    nonisolated(unsafe) static var texts: [String: String] = [:]
    /// Usage traces that are not regular files: their copy's descriptor and hash.
    nonisolated(unsafe) static var copies: [String: (fd: Int32, hash: UInt64)] = [:]

    static func isRegular(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }

    /// Opens `path` for reading; a missing or unreadable file, or a directory, is bad input.
    static func openForReading(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw BadInput(description: "\(path): " + (errno == ENOENT ? "no such file" : "cannot read it: \(AtomicOutput.errnoText())"))
        }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw BadInput(description: "\(path): cannot read it (it is a directory)")
        }
        return fd
    }

    /// Reads from `fd` to its end, calling `body` with each block; an error is an I/O
    /// failure naming `path` (exit 1).
    static func readAll(_ fd: Int32, path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 8)
        defer { block.deallocate() }
        while true {
            let n = read(fd, block.baseAddress, block.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw RunFailure(description: "\(path): cannot read it: \(AtomicOutput.errnoText())")
            }
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: block[0..<n]))
        }
    }

    /// The whole input at `path` as UTF-8 text, read once.
    static func text(_ path: String) throws -> String {
        if let t = texts[path] { return t }
        let fd = try openForReading(path)
        defer { close(fd) }
        var bytes: [UInt8] = []
        try readAll(fd, path: path) { bytes.append(contentsOf: $0) }
        guard let t = String(validating: bytes, as: UTF8.self) else { throw BadInput(description: "\(path): not UTF-8 text") }
        texts[path] = t
        return t
    }

    /// A reader of the usage trace at `path` from its first byte; the first call for a
    /// trace that is not a regular file copies it (see the type's comment).
    static func usageReader(_ path: String) throws -> DelimitedReader {
        if let c = try copy(path) {
            // A descriptor of its own (its own offset): two readers may be open at once.
            #if os(Linux)
            let fd = open("/proc/self/fd/\(c.fd)", O_RDONLY | O_CLOEXEC)
            #else
            let fd = dup(c.fd)
            if fd >= 0 { lseek(fd, 0, SEEK_SET) }
            #endif
            guard fd >= 0, let r = DelimitedReader(descriptor: fd) else {
                throw RunFailure(description: "\(path): cannot read its copy: \(AtomicOutput.errnoText())")
            }
            return r
        }
        close(try openForReading(path))  // the errors of a missing file, a directory
        guard let r = DelimitedReader(path: path) else { throw BadInput(description: "\(path): cannot open it: \(AtomicOutput.errnoText())") }
        return r
    }

    /// Usage traces that are `.jtrace` files, mapped and checked once (a sweep's points
    /// and its plan read the same map).
    nonisolated(unsafe) static var traces: [String: UsageTrace] = [:]

    /// The `.jtrace` at `path` (or the copy of a piped one), mapped and checked (bad
    /// input naming the file and what is wrong); nil if the file is not one (it does
    /// not start with the magic: a CSV).
    static func usageTrace(_ path: String) throws -> UsageTrace? {
        if let t = traces[path] { return t }
        let fd: Int32
        if let c = try copy(path) { fd = c.fd } else { fd = try openForReading(path) }
        defer { if fd != copies[path]?.fd { close(fd) } }
        // By its magic, not its name; but a file named .jtrace, or one that starts as a
        // .jtrace does (0x89 'J'), is checked as one: its error then says what is wrong
        // with it (the magic), not that its header has no device column.
        var first: (UInt8, UInt8) = (0, 0)
        let n = withUnsafeMutableBytes(of: &first) { pread(fd, $0.baseAddress, 2, 0) }
        guard UsageTrace.hasMagic(fd: fd) || path.hasSuffix(".jtrace") || (n == 2 && first == (0x89, 0x4A)) else { return nil }
        do {
            let t = try UsageTrace(descriptor: fd, source: path)
            traces[path] = t
            return t
        } catch { throw BadInput(description: error.description) }
    }

    /// What a shard state and a sweep plan record of the trace: FNV-1a 64 of its bytes
    /// (as `FNV1a.hash(fileAt:)`); for a `.jtrace`, of its header, which holds the
    /// XXH64 of every other byte (checked when it is opened).
    static func usageHash(_ path: String) throws -> UInt64 {
        if let t = try usageTrace(path) { return t.headerHash }
        if let c = try copy(path) { return c.hash }
        guard let h = FNV1a.hash(fileAt: path) else { throw BadInput(description: "\(path): cannot read it") }
        return h
    }

    /// The copy of a trace that is not a regular file (nil for a regular file).
    static func copy(_ path: String) throws -> (fd: Int32, hash: UInt64)? {
        if let c = copies[path] { return c }
        if isRegular(path) { return nil }
        let source = try openForReading(path)
        defer { close(source) }
        let dir = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((dir + "/.jetsim-input-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw RunFailure(description: "\(path): cannot copy it to \(dir) (it is read more than once): \(AtomicOutput.errnoText())") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        unlink(String(cString: template))
        var hash = FNV1a.offsetBasis
        try readAll(source, path: path) { buf in
            hash = FNV1a.hash(buf.bindMemory(to: UInt8.self), from: hash)
            var p = buf.baseAddress!, left = buf.count
            while left > 0 {
                let n = write(fd, p, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw RunFailure(description: "\(path): cannot copy it to \(dir): \(AtomicOutput.errnoText())")
                }
                p += n; left -= n
            }
        }
        copies[path] = (fd, hash)
        return (fd, hash)
    }
}

/// Reads an input file as UTF-8 (once: see `InputFiles`); a missing or unreadable
/// file is bad input.
func readInput(_ path: String) throws -> String { try InputFiles.text(path) }
