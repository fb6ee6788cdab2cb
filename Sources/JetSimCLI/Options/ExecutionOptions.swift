import ArgumentParser
import Foundation

/// Options shared by the commands that run fleets (`run`, `sweep`): how, not what.
struct ExecutionOptions: ParsableArguments {
    @Option(name: .long, parsing: .unconditional, help: "Worker threads (default: all cores). Results do not depend on it.",
            transform: { try wholeNumber($0, "a whole number >= 1") })
    var threads: Int?

    @Flag(name: .long, help: "No progress bar or timing lines on stderr.")
    var quiet = false

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads: expected a whole number >= 1, got \(threads)") }
    }

    /// The worker threads to use.
    var threadCount: Int { threads ?? ProcessInfo.processInfo.activeProcessorCount }
}
