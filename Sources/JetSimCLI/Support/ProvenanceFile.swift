import Foundation
import JetSim

/// The provenance sidecar of an output: `PATH.provenance.json`, written atomically
/// before the output itself is renamed into place (so an output on disk has its
/// sidecar). Standard output gets none, nor does an output that is not a regular file
/// (a device such as /dev/null, a FIFO): its sidecar would land beside the device.
enum ProvenanceFile {
    static func path(for output: String) -> String { output + ".provenance.json" }

    /// The sidecar path of an output, or nil for one written directly (standard
    /// output, a device, a FIFO, a descriptor link: `AtomicOutput.Target`).
    static func sidecar(of output: String?) -> String? {
        guard let output, !AtomicOutput.isSpecial(output) else { return nil }
        return path(for: output)
    }

    /// What every sidecar starts with: the tool, its build's commit, the command line.
    static func base() -> Provenance {
        var p = Provenance()
        p.set("format", .string("jetsim-provenance 1"))
        p.set("jetsim_version", .string(jetsimVersion))
        p.set("commit", .string(commit))
        p.set("command_line", .strings(CommandLine.arguments))
        p.set("working_directory", .string(FileManager.default.currentDirectoryPath))
        return p
    }

    /// Writes `p` beside `output` with the output's own hash (nil: not known, e.g. a
    /// per-device file streamed while the run goes on).
    static func write(_ p: Provenance, beside output: String, outputText: String?) throws {
        guard !AtomicOutput.isSpecial(output) else { return }
        var p = p
        p.set("output", .string(output))
        p.set("output_fnv1a64", .optional(outputText.map(Provenance.hash)))
        p.set("written_utc", .string(ISO8601DateFormatter().string(from: Date())))
        try AtomicOutput.write(p.json, to: path(for: output))
    }

    /// The commit of the checkout this binary was built in, read when asked: the
    /// binary sits in PKG/.build/...; when PKG has Package.swift and .git, `git
    /// rev-parse HEAD` there (with `-dirty` when tracked files differ from it).
    /// Anything else (an installed copy, no git) gives "unknown". A generated source
    /// file could go stale; this cannot, but it reports the checkout's commit now,
    /// which differs from the build's if someone committed after building.
    static let commit: String = {
        guard let exe = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return "unknown" }
        var dir = exe.deletingLastPathComponent()
        while dir.path != "/" && dir.lastPathComponent != ".build" { dir = dir.deletingLastPathComponent() }
        guard dir.lastPathComponent == ".build" else { return "unknown" }
        let pkg = dir.deletingLastPathComponent().path
        let fm = FileManager.default
        guard fm.fileExists(atPath: pkg + "/Package.swift"), fm.fileExists(atPath: pkg + "/.git") else { return "unknown" }
        guard let head = git(["-C", pkg, "rev-parse", "HEAD"]), head.count == 40 || head.count == 64 else { return "unknown" }
        let status = git(["-C", pkg, "status", "--porcelain", "--untracked-files=no"])
        return head + (status.map { $0.isEmpty ? "" : "-dirty" } ?? "")
    }()

    /// Runs git; its trimmed stdout, or nil when it fails or is missing.
    static func git(_ args: [String]) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["git"] + args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
