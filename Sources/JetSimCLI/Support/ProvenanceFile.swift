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

    /// The commit this binary was built from (`SHA`, `SHA-dirty` with uncommitted
    /// changes to tracked files, `unknown` outside a git checkout): recorded at build
    /// time by Plugins/BuildCommit, so an installed copy keeps it.
    static let commit: String = buildCommit
}
