import Foundation

/// Writes outputs all-or-nothing: text goes to a temporary file beside the target,
/// which is renamed into place only when complete. If the run is interrupted
/// (SIGINT, SIGTERM) the temporary files are removed, so no partial output is left.
enum AtomicOutput {
    /// Temporary paths not yet renamed, as C strings the signal handler can unlink.
    nonisolated(unsafe) static var pending: [UnsafeMutablePointer<CChar>] = []
    nonisolated(unsafe) static var installed = false

    /// Installs the SIGINT/SIGTERM handlers once.
    static func installSignalHandlers() {
        guard !installed else { return }
        installed = true
        for sig in [SIGINT, SIGTERM] {
            signal(sig) { s in
                for p in AtomicOutput.pending { unlink(p) }
                _exit(128 + s)
            }
        }
    }

    /// Writes `text` to `path` atomically. `path == "-"` writes to stdout.
    static func write(_ text: String, to path: String) throws {
        if path == "-" {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        let temp = try begin(path)
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: temp))
            try commit(temp, to: path)
        } catch {
            abandon(temp)
            throw error
        }
    }

    /// Whether `path` names something other than a regular file (a device such as
    /// /dev/null, a FIFO, a pipe from process substitution): written directly, since
    /// renaming a temporary file over it would replace the device with a file.
    static func isSpecial(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        return (st.st_mode & S_IFMT) != S_IFREG
    }

    /// Starts an output: returns the path to write to, a temporary file beside the
    /// target (or the target itself when it is not a regular file, see `isSpecial`).
    static func begin(_ path: String) throws -> String {
        installSignalHandlers()
        if isSpecial(path) { return path }
        let dir = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        let temp = (dir.isEmpty ? "" : dir + "/") + ".\(base).tmp-\(getpid())"
        if !dir.isEmpty {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw BadInput(description: "\(path): the directory \(dir) does not exist")
            }
        }
        pending.append(strdup(temp))
        return temp
    }

    /// Renames a finished temporary file into place.
    static func commit(_ temp: String, to path: String) throws {
        if temp == path { return }  // written directly (not a regular file)
        guard rename(temp, path) == 0 else {
            let err = String(cString: strerror(errno))
            abandon(temp)
            throw RunFailure(description: "cannot write \(path): \(err)")
        }
        forget(temp)
    }

    /// Removes a temporary file that will not be committed.
    static func abandon(_ temp: String) {
        if isSpecial(temp) { return }
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
/// sees half a file and an interrupted run leaves nothing behind.
struct OutputFile {
    let path: String
    /// Where the bytes go until `commit()`; nil for standard output.
    let temp: String?
    let handle: FileHandle

    var isStdout: Bool { temp == nil }

    /// Opens `path` for writing (checks its directory now, before any work).
    static func open(_ path: String) throws -> OutputFile {
        if path == "-" { return OutputFile(path: path, temp: nil, handle: .standardOutput) }
        let temp = try AtomicOutput.begin(path)
        // Plain open(2), not FileManager.createFile: that one renames a temporary
        // file into place, which would replace a device such as /dev/null.
        let fd = Foundation.open(temp, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            AtomicOutput.forget(temp)
            throw RunFailure(description: "cannot write \(path): \(reason)")
        }
        return OutputFile(path: path, temp: temp, handle: FileHandle(fileDescriptor: fd, closeOnDealloc: true))
    }

    func write(_ text: String) {
        handle.write(Data(text.utf8))
    }

    /// Closes the file and renames it into place (nothing to do for stdout).
    func commit() throws {
        guard let temp else { return }
        try? handle.close()
        try AtomicOutput.commit(temp, to: path)
    }

    /// Rejects two outputs that name the same file (one would overwrite the other) or
    /// that both go to stdout (their lines would interleave).
    static func checkDistinct(_ named: [(option: String, path: String?)]) throws {
        var seen: [String: String] = [:]
        for (option, path) in named {
            guard let path else { continue }
            let key = path == "-" ? "-" : URL(fileURLWithPath: path).standardizedFileURL.path
            if let other = seen[key] {
                let what = path == "-" ? "standard output (-)" : path
                throw BadInput(description: "\(other) and \(option) both write to \(what); give each its own path")
            }
            seen[key] = option
        }
    }
}
