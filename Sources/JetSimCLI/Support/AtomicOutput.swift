import Foundation

/// Writes outputs all-or-nothing: text goes to a temporary file beside the target,
/// which is renamed into place only when complete. If the run is interrupted
/// (SIGINT, SIGTERM, SIGHUP, SIGPIPE) or fails, the temporary files are removed, so
/// no partial output is ever left. Paths are handled as plain strings here (no
/// NSString/URL path handling: one-character relative paths such as `a` are ordinary).
enum AtomicOutput {
    /// Temporary paths not yet renamed, as C strings the signal handler can unlink.
    nonisolated(unsafe) static var pending: [UnsafeMutablePointer<CChar>] = []
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
        for sig in cleanupSignals {
            signal(sig) { s in
                for p in AtomicOutput.pending { unlink(p) }
                // Say why we stop (not for SIGPIPE: the reader has gone). write(2) is
                // async-signal-safe; the note was made before any signal could come.
                if s != SIGPIPE, let note = AtomicOutput.interruptNote { _ = Glibc.write(STDERR_FILENO, note, strlen(note)) }
                _exit(128 + s)
            }
        }
    }

    /// Removes every temporary file not yet renamed (on a failed run, before exit).
    static func removePending() {
        for p in pending { unlink(p); free(p) }
        pending.removeAll()
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

    /// Whether `path` names something other than a regular file (a device such as
    /// /dev/null, a FIFO, a pipe from process substitution): written directly, since
    /// renaming a temporary file over it would replace the device with a file.
    static func isSpecial(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        let kind = st.st_mode & S_IFMT
        return kind != S_IFREG && kind != S_IFDIR
    }

    /// Checks that `path` can be written (before any work): not a directory, its
    /// directory exists and is one. A problem the user can fix is `BadInput` (exit 2).
    static func check(_ path: String) throws {
        var st = stat()
        if stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR {
            throw BadInput(description: "cannot write \(path): it is a directory")
        }
        let (dir, base) = split(path)
        if base.isEmpty || base == "." || base == ".." {
            throw BadInput(description: "cannot write \(path): not a file name")
        }
        if !dir.isEmpty {
            guard stat(dir, &st) == 0 else {
                throw BadInput(description: "cannot write \(path): the directory \(dir) does not exist")
            }
            guard st.st_mode & S_IFMT == S_IFDIR else {
                throw BadInput(description: "cannot write \(path): \(dir) is not a directory")
            }
        }
    }

    /// Starts an output: returns the path to write to, a temporary file beside the
    /// target (or the target itself when it is not a regular file, see `isSpecial`).
    static func begin(_ path: String) throws -> String {
        installSignalHandlers()
        try check(path)
        if isSpecial(path) { return path }
        let (dir, base) = split(path)
        let temp = (dir.isEmpty ? "" : dir == "/" ? "/" : dir + "/") + ".\(base).tmp-\(getpid())"
        pending.append(strdup(temp))
        return temp
    }

    /// Renames a finished temporary file into place.
    static func commit(_ temp: String, to path: String) throws {
        if temp == path { return }  // written directly (not a regular file)
        guard rename(temp, path) == 0 else {
            let err = errnoText()
            abandon(temp)
            throw RunFailure(description: "cannot write \(path): \(err)")
        }
        forget(temp)
    }

    /// Removes a temporary file that will not be committed.
    static func abandon(_ temp: String) {
        guard pending.contains(where: { String(cString: $0) == temp }) else { return }
        unlink(temp)
        forget(temp)
    }

    static func forget(_ temp: String) {
        if let i = pending.firstIndex(where: { String(cString: $0) == temp }) {
            free(pending[i])
            pending.remove(at: i)
        }
    }
}

/// One output option's target: `-` is standard output; any other path is written to a
/// temporary file beside it and renamed into place by `commit()`, so a reader never
/// sees half a file and an interrupted or failed run leaves nothing behind. Writes
/// are plain write(2) calls: an error (a full disk, a closed stdout) is remembered
/// and reported by `commit()` as an I/O failure naming the file (exit 1).
struct OutputFile {
    let path: String
    /// Where the bytes go until `commit()`; nil for standard output.
    let temp: String?
    let fd: Int32
    /// The first write error (errno), shared by copies of this value.
    final class Status: @unchecked Sendable { var error: Int32 = 0; var closed = false }
    let status = Status()

    var isStdout: Bool { temp == nil }

    /// Opens `path` for writing (checks it now, before any work).
    static func open(_ path: String) throws -> OutputFile {
        AtomicOutput.installSignalHandlers()
        if path == "-" { return OutputFile(path: path, temp: nil, fd: STDOUT_FILENO) }
        let temp = try AtomicOutput.begin(path)
        // Plain open(2), not FileManager.createFile: that one renames a temporary
        // file into place, which would replace a device such as /dev/null.
        let fd = Foundation.open(temp, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            let reason = AtomicOutput.errnoText()
            AtomicOutput.forget(temp)
            throw RunFailure(description: "cannot write \(path): \(reason)")
        }
        return OutputFile(path: path, temp: temp, fd: fd)
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
    /// failure (exit 1), and the temporary file is removed.
    func commit() throws {
        if let temp, !status.closed {
            status.closed = true
            if close(fd) != 0 && status.error == 0 { status.error = errno }
            if status.error != 0 {
                AtomicOutput.abandon(temp)
                throw RunFailure(description: "cannot write \(path): \(AtomicOutput.errnoText(status.error))")
            }
            try AtomicOutput.commit(temp, to: path)
        } else if isStdout {
            if status.error != 0 { throw RunFailure(description: "cannot write to standard output: \(AtomicOutput.errnoText(status.error))") }
        }
    }

    /// Rejects two outputs that name the same file (one would overwrite the other) or
    /// that both go to stdout (their lines would interleave).
    static func checkDistinct(_ named: [(option: String, path: String?)]) throws {
        var seen: [String: String] = [:]
        for (option, path) in named {
            guard let path else { continue }
            // Resolved: `./a.csv`, `a.csv` and a symbolic link to it are one file.
            let key = path == "-" ? "-" : resolved(path)
            if let other = seen[key] {
                let what = path == "-" ? "standard output (-)" : path
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
