import Foundation
import JetSim

/// Writes outputs all-or-nothing: text goes to a temporary file beside the target,
/// which is renamed into place only when complete. If the run is interrupted
/// (SIGINT, SIGTERM, SIGHUP, SIGPIPE) or fails, the temporary files are removed, so
/// no partial output is ever left. Paths are handled as plain strings here (no
/// NSString/URL path handling: one-character relative paths such as `a` are ordinary).
enum AtomicOutput {
    /// Temporary paths not yet renamed, as C strings the signal handler can unlink: a
    /// fixed table, since the handler must not read a Swift array that `append` may be
    /// moving. A name is entered before its file is created, so a signal between the
    /// two finds it (unlinking a name not yet made is harmless); a free slot is nil.
    static let pendingCapacity = 4_096
    nonisolated(unsafe) static let pendingSlots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: pendingCapacity)
        p.initialize(repeating: nil, count: pendingCapacity)
        return p
    }()
    /// One past the highest slot used: the handler reads no further.
    nonisolated(unsafe) static var pendingEnd = 0

    /// Enters `path`; false when the table is full.
    static func register(_ path: String) -> Bool {
        for i in 0..<pendingCapacity where pendingSlots[i] == nil {
            pendingSlots[i] = strdup(path)
            if i >= pendingEnd { pendingEnd = i + 1 }
            return true
        }
        return false
    }

    /// Whether `path` is entered.
    static func isPending(_ path: String) -> Bool {
        (0..<pendingEnd).contains { i in pendingSlots[i].map { String(cString: $0) == path } ?? false }
    }

    /// Unlinks every entered name (async-signal-safe: reads the table, calls unlink).
    static func unlinkPending() {
        var i = 0
        while i < pendingEnd { if let p = pendingSlots[i] { unlink(p) }; i += 1 }
    }
    nonisolated(unsafe) static var installed = false

    /// What a signal that ends jetsim prints to stderr. A command whose finished outputs
    /// survive an interruption (a sweep's points) says so with `setInterruptNote`.
    nonisolated(unsafe) static var interruptNote: UnsafeMutablePointer<CChar>? =
        strdup("\njetsim: interrupted; nothing was written (no output is left half-written)\n")

    static func setInterruptNote(_ text: String) {
        let old = interruptNote
        interruptNote = strdup("\njetsim: interrupted; " + text + "\n")
        free(old)
    }

    /// Signals that end jetsim after removing its temporary files, with 128 + n.
    static let cleanupSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGPIPE]

    /// Installs the signal handlers once.
    static func installSignalHandlers() {
        guard !installed else { return }
        installed = true
        // What the handler reads, made before it can run (a first use there would
        // initialise it inside the handler).
        PolicyProcess.prepareForSignals()
        _ = (pendingSlots, pendingEnd, committing, deferredSignal, interruptNote, busNote)
        for sig in cleanupSignals {
            signal(sig) { s in
                // While a run's outputs move into place (`OutputFile.commitAll`), the
                // signal waits for the last rename: all of them move, or none.
                if AtomicOutput.committing != 0 { AtomicOutput.deferredSignal = s; return }
                // No child outlives jetsim: the external policies' processes first.
                PolicyProcess.endAllForExit()
                AtomicOutput.unlinkPending()
                // Say why we stop (not for SIGPIPE: the reader has gone). write(2) is
                // async-signal-safe; the note was made before any signal could come.
                if s != SIGPIPE, let note = AtomicOutput.interruptNote { _ = Glibc.write(STDERR_FILENO, note, strlen(note)) }
                _exit(128 + s)
            }
        }
        // A .jtrace is read through a memory map: one cut short while jetsim reads it
        // faults (SIGBUS). An I/O failure: said, temporary files removed, exit 1.
        signal(SIGBUS) { _ in
            PolicyProcess.endAllForExit()
            AtomicOutput.unlinkPending()
            if let note = AtomicOutput.busNote { _ = Glibc.write(STDERR_FILENO, note, strlen(note)) }
            _exit(1)
        }
    }

    /// Set while `OutputFile.commitAll` renames: a cleanup signal then only records
    /// itself in `deferredSignal`, and is acted on once every rename is done.
    nonisolated(unsafe) static var committing: Int32 = 0
    nonisolated(unsafe) static var deferredSignal: Int32 = 0
    nonisolated(unsafe) static var busNote: UnsafeMutablePointer<CChar>? =
        strdup("jetsim: a mapped input file (a .jtrace) was cut short while it was read (SIGBUS); nothing was written\n")

    /// Removes every temporary file not yet renamed (on a failed run, before exit).
    static func removePending() {
        for i in 0..<pendingEnd { if let p = pendingSlots[i] { pendingSlots[i] = nil; unlink(p); free(p) } }
        pendingEnd = 0
    }

    /// Writes `text` to `path` atomically. `path == "-"` writes to stdout.
    static func write(_ text: String, to path: String) throws {
        let file = try OutputFile.open(path)
        file.write(text)
        try file.commit()
    }

    /// The directory part of a path ("" for a bare name) and its last component.
    static func split(_ path: String) -> (dir: String, base: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        let dir = String(path[..<slash])
        return (dir.isEmpty ? "/" : dir, String(path[path.index(after: slash)...]))
    }

    static func errnoText(_ e: Int32 = errno) -> String { String(cString: strerror(e)) }

    /// Where an output's bytes go. A regular file (or a name not there yet) is written
    /// to a temporary file beside it and renamed into place. Anything else cannot be
    /// renamed into without replacing it, so it is written directly and gets no
    /// provenance sidecar: a descriptor link (`/dev/stdout`, `/dev/fd/N`,
    /// `/proc/self/fd/N`, a process substitution `>(...)`) is the descriptor jetsim was
    /// given, as `-` is descriptor 1; a device (`/dev/null`) or a FIFO is opened.
    enum Target: Equatable { case regular, descriptor(Int32), special }

    static func target(_ path: String) -> Target {
        if path == "-" { return .descriptor(STDOUT_FILENO) }
        if let fd = descriptorLink(path) { return .descriptor(fd) }
        var st = stat()
        guard stat(path, &st) == 0 else { return .regular }
        let kind = st.st_mode & S_IFMT
        return kind == S_IFREG || kind == S_IFDIR ? .regular : .special
    }

    /// Whether `path` names something other than a regular file (see `Target`).
    static func isSpecial(_ path: String) -> Bool { target(path) != .regular }

    /// The descriptor a path names when it leads, through symbolic links, to
    /// `/proc/PID/fd/N` of this process (`/dev/stdout`, `/dev/fd/3`, `/proc/self/fd/1`):
    /// such a link re-opens whatever the descriptor is (a file redirected to, a pipe),
    /// and renaming over it would replace `/dev/stdout` itself.
    static func descriptorLink(_ path: String) -> Int32? {
        var p = path
        let me = String(getpid())
        for _ in 0..<40 {
            let (dir, base) = split(p)
            guard !base.isEmpty, let r = realpath(dir.isEmpty ? "." : dir, nil) else { return nil }
            let parent = String(cString: r)
            free(r)
            let full = (parent == "/" ? "" : parent) + "/" + base
            let parts = full.split(separator: "/")
            if parts.count >= 4, parts[0] == "proc", parts[1] == me || parts[1] == "self" || parts[1] == "thread-self",
               parts[parts.count - 2] == "fd", let n = Int32(parts[parts.count - 1]) {
                return n
            }
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(full, &buf, buf.count - 1)
            guard n > 0 else { return nil }
            buf[n] = 0
            let link = String(cString: buf)
            p = link.hasPrefix("/") ? link : (parent == "/" ? "" : parent) + "/" + link
        }
        return nil
    }

    /// The longest name one directory entry may have, in bytes (NAME_MAX).
    static let nameMax = 255

    /// Checks that `path` can be written (before any work): not a directory, its
    /// directory exists and is one, every component within NAME_MAX bytes and the
    /// whole within PATH_MAX. A problem the user can fix is `BadInput` (exit 2).
    static func check(_ path: String) throws {
        switch target(path) {
        case .descriptor(let fd):
            let flags = fcntl(fd, F_GETFL)
            guard flags >= 0, flags & O_ACCMODE != O_RDONLY else {
                throw BadInput(description: "cannot write \(path): descriptor \(fd) is not open for writing")
            }
            return
        case .special:
            guard access(path, W_OK) == 0 else { throw BadInput(description: "cannot write \(path): \(errnoText())") }
            return
        case .regular: break
        }
        var st = stat()
        if stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR {
            throw BadInput(description: "cannot write \(path): it is a directory")
        }
        let (dir, base) = split(path)
        if base.isEmpty || base == "." || base == ".." {
            throw BadInput(description: "cannot write \(path): not a file name")
        }
        try checkName(path)
        if !dir.isEmpty {
            guard stat(dir, &st) == 0 else {
                throw BadInput(description: "cannot write \(path): the directory \(dir) does not exist")
            }
            guard st.st_mode & S_IFMT == S_IFDIR else {
                throw BadInput(description: "cannot write \(path): \(dir) is not a directory")
            }
        }
    }

    /// Refuses a path with a component over NAME_MAX bytes or a length over PATH_MAX
    /// (the file system would refuse it only when it is written, after the work).
    static func checkName(_ path: String) throws {
        for c in path.utf8.split(separator: UInt8(ascii: "/")) where c.count > nameMax {
            throw BadInput(description: "cannot write \(path): the name '\(String(decoding: c.prefix(40), as: UTF8.self))...' is \(c.count) bytes; a file name may have at most \(nameMax)")
        }
        if path.utf8.count >= Int(PATH_MAX) {
            throw BadInput(description: "cannot write \(path.prefix(60))...: the path is \(path.utf8.count) bytes; at most \(Int(PATH_MAX) - 1)")
        }
    }

    /// Numbers this process's temporary files (with the pid, unique on this machine).
    nonisolated(unsafe) static var sequence = 0

    /// The temporary name for `base`: `.BASE.tmp-PID-N`, BASE cut (at a character
    /// boundary) so that the whole stays within NAME_MAX bytes.
    static func temporaryName(_ base: String) -> String {
        sequence += 1
        let suffix = ".tmp-\(getpid())-\(sequence)"
        var scalars = Array(base.unicodeScalars)
        var bytes = base.utf8.count
        while 1 + bytes + suffix.utf8.count > nameMax, let last = scalars.popLast() { bytes -= String(last).utf8.count }
        var cut = String.UnicodeScalarView()
        cut.append(contentsOf: scalars)
        return "." + String(cut) + suffix
    }

    /// Removes the temporary files in `dir` that no live process is writing: a writer
    /// holds a lock (flock) on its temporary file until it is renamed, so a lock that
    /// can be taken belongs to a process that died (SIGKILL, a lost node). Another
    /// jetsim writing in the same directory keeps its files.
    static func removeStaleTemporaries(in dir: String) {
        for f in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where f.hasPrefix(".") && f.contains(".tmp-") {
            let path = dir + "/" + f
            let fd = Foundation.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { unlink(path) }
            close(fd)
        }
    }

    /// Creates a temporary file beside `path` (see `temporaryName`), locked for as long
    /// as this process holds it open; returns its name and descriptor.
    static func createTemporary(for path: String) throws -> (temp: String, fd: Int32) {
        installSignalHandlers()
        let (dir, base) = split(path)
        let prefix = dir.isEmpty ? "" : dir == "/" ? "/" : dir + "/"
        for _ in 0..<100 {
            let temp = prefix + temporaryName(base)
            // Entered first: a signal right after the open finds the file.
            guard register(temp) else {
                throw RunFailure(description: "cannot write \(path): more than \(pendingCapacity) outputs open at once")
            }
            let fd = Foundation.open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 {
                let e = errno
                forget(temp)
                if e == EEXIST { continue }
                throw RunFailure(description: "cannot write \(path): \(errnoText(e))")
            }
            // Locked, and still the file at that name (a cleaner may have removed it
            // between the open and the lock): else another name.
            var a = stat(), b = stat()
            if flock(fd, LOCK_EX) == 0, fstat(fd, &a) == 0, stat(temp, &b) == 0, a.st_ino == b.st_ino, a.st_dev == b.st_dev {
                return (temp, fd)
            }
            close(fd)
            forget(temp)
        }
        throw RunFailure(description: "cannot write \(path): no temporary name could be made beside it")
    }

    /// Removes a temporary file that will not be committed.
    static func abandon(_ temp: String) {
        guard isPending(temp) else { return }
        unlink(temp)
        forget(temp)
    }

    static func forget(_ temp: String) {
        for i in 0..<pendingEnd {
            guard let p = pendingSlots[i], String(cString: p) == temp else { continue }
            pendingSlots[i] = nil
            free(p)
            while pendingEnd > 0 && pendingSlots[pendingEnd - 1] == nil { pendingEnd -= 1 }
            return
        }
    }
}

/// One output option's target: `-` is standard output; a regular file is written to a
/// temporary file beside it and renamed into place by `commit()`, so a reader never
/// sees half a file and an interrupted or failed run leaves nothing behind; anything
/// else (a device, a FIFO, a descriptor link such as /dev/stdout: `AtomicOutput.Target`)
/// is written directly. Writes are plain write(2) calls: an error (a full disk, a closed
/// stdout) is remembered and reported by `commit()` as an I/O failure naming the file
/// (exit 1).
struct OutputFile {
    let path: String
    /// Where the bytes go until `commit()`; nil when written directly.
    let temp: String?
    let fd: Int32
    /// The first write error (errno), shared by copies of this value.
    final class Status: @unchecked Sendable { var error: Int32 = 0; var closed = false }
    let status = Status()

    /// Standard output (`-`).
    var isStdout: Bool { path == "-" }

    /// Opens `path` for writing (checks it now, before any work).
    static func open(_ path: String) throws -> OutputFile {
        AtomicOutput.installSignalHandlers()
        if path == "-" { return OutputFile(path: path, temp: nil, fd: STDOUT_FILENO) }
        try AtomicOutput.check(path)
        switch AtomicOutput.target(path) {
        case .descriptor(let n):
            // A copy of the descriptor: writes go where it goes (its offset, its append
            // mode), as a shell's `>&N` would.
            let fd = dup(n)
            guard fd >= 0 else { throw RunFailure(description: "cannot write \(path): \(AtomicOutput.errnoText())") }
            return OutputFile(path: path, temp: nil, fd: fd)
        case .special:
            // Plain open(2): a device or FIFO is written into, never replaced.
            let fd = Foundation.open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw RunFailure(description: "cannot write \(path): \(AtomicOutput.errnoText())") }
            return OutputFile(path: path, temp: nil, fd: fd)
        case .regular:
            let (temp, fd) = try AtomicOutput.createTemporary(for: path)
            return OutputFile(path: path, temp: temp, fd: fd)
        }
    }

    /// The name for messages.
    var name: String { isStdout ? "standard output" : path }

    func write(_ text: String) {
        guard status.error == 0 else { return }
        var text = text
        text.withUTF8 { buf in
            var p = buf.baseAddress
            var left = buf.count
            while left > 0, let q = p {
                let n = Foundation.write(fd, q, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    status.error = errno
                    return
                }
                left -= n
                p = q + n
            }
        }
    }

    /// Closes the file and renames it into place; a write that failed is an I/O
    /// failure (exit 1), and the temporary file is removed. A run with several outputs
    /// moves them with `commitAll`.
    func commit() throws { try Self.commitAll([self]) }

    /// Moves every file of one run into place together, or none: first every file is
    /// closed and its writes checked (a full disk, a closed stdout: an I/O failure
    /// naming the file, every temporary file removed and no output replaced), then each
    /// is renamed over its target; a rename that fails puts back the targets already
    /// replaced (kept as hard links until all are in place) and removes the others'
    /// temporary files. A cleanup signal waits until the renames end. Files written
    /// directly (standard output, a device) were written as they went; their errors are
    /// reported the same way. Pass a run's outputs and their sidecars (nil entries are
    /// skipped): a failed run used to replace `--out` and keep the `--per-device` of
    /// the run before, and a full disk left the old CSV beside the new run's sidecar.
    static func commitAll(_ files: [OutputFile?]) throws {
        let files = files.compactMap { $0 }.filter { !$0.status.closed }
        var failure: RunFailure? = nil
        for f in files {
            let ok = f.closeChecked()
            if !ok, failure == nil { failure = RunFailure(description: f.isStdout ? "cannot write to standard output: \(AtomicOutput.errnoText(f.status.error))" : "cannot write \(f.path): \(AtomicOutput.errnoText(f.status.error))") }
        }
        if let failure {
            for f in files { if let t = f.temp { AtomicOutput.abandon(t) } }
            throw failure
        }
        AtomicOutput.committing = 1
        defer {
            AtomicOutput.committing = 0
            if AtomicOutput.deferredSignal != 0 { raise(AtomicOutput.deferredSignal) }
        }
        var done: [(path: String, backup: String?)] = []
        for f in files {
            guard let temp = f.temp else { continue }
            // The target as it was, to put back if a later rename fails.
            var backup: String? = nil
            var st = stat()
            if lstat(f.path, &st) == 0, st.st_mode & S_IFMT == S_IFREG {
                let (dir, base) = AtomicOutput.split(f.path)
                let b = (dir.isEmpty ? "" : dir == "/" ? "/" : dir + "/") + AtomicOutput.temporaryName(base)
                // Entered before it is made, as a temporary file is.
                if AtomicOutput.register(b) {
                    if link(f.path, b) == 0 { backup = b } else { AtomicOutput.forget(b) }
                }
            }
            if rename(temp, f.path) != 0 {
                let err = AtomicOutput.errnoText()
                for (path, b) in done.reversed() {
                    if let b { rename(b, path); AtomicOutput.forget(b) } else { unlink(path) }
                }
                if let backup { AtomicOutput.abandon(backup) }
                for g in files { if let t = g.temp { AtomicOutput.abandon(t) } }
                throw RunFailure(description: "cannot write \(f.path): \(err); none of this run's outputs was replaced")
            }
            AtomicOutput.forget(temp)
            done.append((f.path, backup))
        }
        for case let (_, b?) in done { AtomicOutput.abandon(b) }
    }

    /// Closes the file (once) and says whether every write and the close succeeded.
    func closeChecked() -> Bool {
        if isStdout { return status.error == 0 }
        guard !status.closed else { return status.error == 0 }
        status.closed = true
        if close(fd) != 0 && status.error == 0 && errno != EINTR { status.error = errno }
        return status.error == 0
    }

    /// Rejects two outputs that name the same file (one would overwrite the other) or
    /// that both go to stdout (their lines would interleave).
    static func checkDistinct(_ named: [(option: String, path: String?)]) throws {
        var seen: [String: String] = [:]
        for (option, path) in named {
            guard let path else { continue }
            // Resolved: `./a.csv`, `a.csv` and a symbolic link to it are one file;
            // `-`, /dev/stdout and /dev/fd/1 are one descriptor. A character device
            // (/dev/null) takes any number of writers.
            let key: String
            switch AtomicOutput.target(path) {
            case .descriptor(let fd): key = "fd \(fd)"
            case .special:
                var st = stat()
                if stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFCHR { continue }
                key = resolved(path)
            case .regular: key = resolved(path)
            }
            if let other = seen[key] {
                let what = path == "-" ? "standard output (-)" : AtomicOutput.target(path) == .descriptor(STDOUT_FILENO) ? "standard output (\(path))" : path
                throw BadInput(description: "\(other) and \(option) both write to \(what); give each its own path")
            }
            seen[key] = option
        }
    }

    /// Rejects an output that names one of the command's inputs, however spelled
    /// (`./w.yaml`, a symbolic link): it would be replaced by what the command writes
    /// (`run --workload w.yaml --out w.yaml` replaced the workload with the CSV).
    /// Standard input and output, and outputs that are not regular files (a device, a
    /// FIFO: written into, never replaced), are not compared.
    static func checkNotInputs(_ outputs: [(option: String, path: String?)], inputs: [(option: String, path: String?)]) throws {
        var read: [String: (option: String, path: String)] = [:]
        for case let (option, path?) in inputs where path != "-" { read[resolved(path)] = (option, path) }
        for case let (option, path?) in outputs where path != "-" && !AtomicOutput.isSpecial(path) {
            if let input = read[resolved(path)] {
                throw BadInput(description: "\(option) \(path) is the input \(input.option) \(input.path): writing it would replace it; give another path")
            }
        }
    }

    /// The file a path names: `realpath` (symbolic links resolved) when it exists,
    /// else `normalized`. Two paths that name one existing file resolve the same.
    static func resolved(_ path: String) -> String {
        guard let r = realpath(path, nil) else { return normalized(path) }
        defer { free(r) }
        return String(cString: r)
    }

    /// An absolute path without `.`, `..` or repeated slashes (symbolic links kept).
    static func normalized(_ path: String) -> String {
        var full = path
        if !path.hasPrefix("/") {
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let cwd = getcwd(&buf, buf.count).map { _ in String(cString: buf) } ?? "."
            full = cwd + "/" + path
        }
        var parts: [Substring] = []
        for p in full.split(separator: "/") {
            if p == "." { continue }
            if p == ".." { _ = parts.popLast(); continue }
            parts.append(p)
        }
        return "/" + parts.joined(separator: "/")
    }
}

/// Writes a line to stderr without trapping when stderr is closed.
func printError(_ line: String, newline: Bool = true) {
    var s = line.hasSuffix("\n") || !newline ? line : line + "\n"
    s.withUTF8 { buf in _ = Foundation.write(STDERR_FILENO, buf.baseAddress, buf.count) }
}
