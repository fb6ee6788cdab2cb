import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Runs the `jetsim` binary and captures what it printed and its exit status.
///
/// These suites are end-to-end tests: `scripts/test-e2e.sh` builds the release binary
/// once and runs them against it (`JETSIM_BIN`). A plain `swift test` skips them, since
/// the debug binary is ten to thirty times slower and ran for most of the suite's time.
/// `JETSIM_BIN=.build/debug/jetsim swift test --filter JetSimCLITests` runs them
/// against a debug build.
enum CLI {
    /// The binary under test: `JETSIM_BIN`, else the one beside the test bundle.
    static let binary: String = ProcessInfo.processInfo.environment["JETSIM_BIN"] ?? Bundle.main.bundlePath + "/jetsim"
    /// Whether the end-to-end suites run: a binary was named.
    static let endToEnd = ProcessInfo.processInfo.environment["JETSIM_BIN"].map { !$0.isEmpty } ?? false
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

extension Trait where Self == ConditionTrait {
    /// Runs the suite only against a named binary (`scripts/test-e2e.sh`).
    static var endToEnd: Self {
        .enabled(if: CLI.endToEnd, "end to end: scripts/test-e2e.sh runs it against the release binary")
    }
}
