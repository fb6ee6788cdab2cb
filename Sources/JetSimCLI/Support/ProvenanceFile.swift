import Foundation
import JetSim
import SimKernel

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

    /// `p` for `output`, with the output's own hash (nil: not known, e.g. a per-device
    /// file streamed while the run goes on), written to its temporary file: moved into
    /// place with the output by `OutputFile.commitAll` (nil for standard output, a
    /// device, a FIFO: no sidecar).
    static func stage(_ p: Provenance, beside output: OutputFile, outputText: String?) throws -> OutputFile? {
        guard !output.isStdout else { return nil }
        return try stage(p, beside: output.path, outputText: outputText)
    }

    static func stage(_ p: Provenance, beside output: String, outputText: String?) throws -> OutputFile? {
        guard !AtomicOutput.isSpecial(output) else { return nil }
        var p = p
        p.set("output", .string(output))
        p.set("output_fnv1a64", .optional(outputText.map(Provenance.hash)))
        p.set("written_utc", .string(ISO8601DateFormatter().string(from: Date())))
        let file = try OutputFile.open(path(for: output))
        file.write(p.json)
        return file
    }

    /// The external policies of `cells`, by NAME: the hash of the files their command's
    /// words name (`ExternalPolicySpec.filesHash`), read before they run.
    static func externalHashes(_ w: Workload, cells: [Cell]) -> [String: UInt64] {
        var out: [String: UInt64] = [:]
        for c in cells { if let n = c.policy.external, out[n] == nil, let spec = w.policies.external[n] { out[n] = spec.filesHash() } }
        return out
    }

    /// Records each external policy's command and files' hash (nothing without one):
    /// in every output a run of one writes (run, a sweep's or a sensitivity run's points).
    static func record(external hashes: [String: UInt64], workload w: Workload, in p: inout Provenance) {
        guard !hashes.isEmpty else { return }
        p.set("external_policies", .object(hashes.keys.sorted().map { n in
            (n, .object([("command", .strings(w.policies.external[n]?.command ?? [])), ("files_fnv1a", .string(FNV1a.hex(hashes[n]!)))]))
        }))
    }

    /// The commit this binary was built from (`SHA`, `SHA-dirty` with uncommitted
    /// changes to tracked files, `unknown` outside a git checkout): recorded at build
    /// time by Plugins/BuildCommit, so an installed copy keeps it.
    static let commit: String = buildCommit
}
