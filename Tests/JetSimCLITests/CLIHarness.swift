import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Runs the built `jetsim` binary (it sits beside the test bundle) and captures what
/// it printed and its exit status.
enum CLI {
    static let binary: String = Bundle.main.bundlePath + "/jetsim"
    /// The package root, from this file's location.
    static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    @discardableResult
    static func run(_ args: [String], cwd: String? = nil, stdin: String? = nil, runner: String? = nil) throws -> Output {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: runner ?? binary)
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: cwd ?? root)
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        // Standard input is written once the child runs, from another thread: written
        // before, an input over the pipe's buffer (64 KiB) blocked the test forever.
        final class Feed: @unchecked Sendable {
            let pipe = Pipe()
            let data: Data
            init(_ text: String) { data = Data(text.utf8) }
        }
        let feed = stdin.map(Feed.init)
        if let feed { p.standardInput = feed.pipe }
        try p.run()
        let fed = DispatchGroup()
        if let feed {
            fed.enter()
            DispatchQueue.global().async {
                // A child that exits without reading it all: EPIPE, not a signal.
                signal(SIGPIPE, SIG_IGN)
                try? feed.pipe.fileHandleForWriting.write(contentsOf: feed.data)
                try? feed.pipe.fileHandleForWriting.close()
                fed.leave()
            }
        }
        // Read both pipes before waiting so a large output cannot block the child.
        final class Box: @unchecked Sendable { var data = Data() }
        let outBox = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { outBox.data = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        fed.wait()
        let outData = outBox.data
        p.waitUntilExit()
        return Output(status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// One folder per test process for every test's files, removed when the process
    /// exits, so `swift test` leaves nothing in the temporary directory.
    static let scratch: String = {
        let dir = NSTemporaryDirectory() + "jetsim-test-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: CLI.scratch) }
        return dir
    }()

    /// A fresh empty directory for a test's files (inside `scratch`).
    static func tempDir(_ name: String = #function) throws -> String {
        let dir = scratch + "/\(name.filter { $0.isLetter || $0.isNumber })-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The names of the files in a directory.
    static func files(in dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }
}
