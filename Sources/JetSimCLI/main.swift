import ArgumentParser
import Foundation
import JetSim

// Exit codes (documented in docs/cli.md, "Exit codes"):
//   0  success
//   1  the run failed (an I/O error, an internal error)
//   2  bad input: a bad flag, option value, workload or scenario file
//   128+n  ended by signal n (130 SIGINT, 143 SIGTERM, 129 SIGHUP, 141 SIGPIPE), after
//          removing every temporary file
// swift-argument-parser's own usage errors (64 by default) are mapped to 2, so that a
// script can tell bad input from a failed run.
// A parent may have started us with SIGINT/SIGTERM blocked (a blocked mask survives
// exec); unblock them before any thread starts, so Ctrl-C always cleans up outputs.
var unblock = sigset_t()
sigemptyset(&unblock)
sigaddset(&unblock, SIGINT)
sigaddset(&unblock, SIGTERM)
sigaddset(&unblock, SIGHUP)
sigaddset(&unblock, SIGPIPE)
sigprocmask(SIG_UNBLOCK, &unblock, nil)
// Installed before any work, so that a signal at any time removes temporary files
// and exits with 128 + n (SIGPIPE too: a reader that goes away ends the run).
AtomicOutput.installSignalHandlers()
// A file jetsim wrote itself that cannot be read back mid-run (FatalIO): an I/O
// failure, exit 1 naming the file, with no output left half-written.
FatalIO.handler = { message in
    PolicyProcess.endAllForExit()
    AtomicOutput.removePending()
    printError("jetsim: " + message)
    exit(1)
}

// Every argument must be UTF-8: Swift's strings would replace a byte that is not
// with U+FFFD, and --out would write a file of another name.
for i in 1..<Int(CommandLine.argc) {
    guard let p = CommandLine.unsafeArgv[i] else { continue }
    let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
    if String(validating: bytes, as: UTF8.self) == nil {
        printError("jetsim: argument \(i) ('\(String(decoding: bytes, as: UTF8.self))') is not UTF-8 text; jetsim takes file names and values as UTF-8: rename the file, or give a path to it that is")
        exit(2)
    }
}
// Enough file descriptors for the outputs, the worker threads and the git that
// provenance runs: checked before any output is opened (with too few, libdispatch and
// Foundation trap in the middle of a run, leaving its temporary files behind).
Resources.checkDescriptors()

do {
    var command = try JetSimCommand.parseAsRoot()
    try command.run()
} catch {
    // One mapping from errors to exit codes; nothing half-written stays behind, and no
    // child process (each run ends its own; this is for any other path).
    PolicyProcess.endAllForExit()
    AtomicOutput.removePending()
    let code: Int32
    let message: String
    switch error {
    case let e as BadInput: (code, message) = (2, "jetsim: \(e.description)")
    case let e as InputError: (code, message) = (2, "jetsim: \(e.description)")
    case let e as RunFailure: (code, message) = (1, "jetsim: \(e.description)")
    case let e as CocoaError:
        // A Foundation I/O error: one line naming the file and the reason, not a dump.
        let file = e.filePath ?? e.url?.path ?? "a file"
        let reason = (e.underlying as? POSIXError).map { String(cString: strerror($0.code.rawValue)) } ?? e.localizedDescription
        (code, message) = (1, "jetsim: \(file): \(reason)")
    default:
        let parserCode = JetSimCommand.exitCode(for: error)
        if parserCode == .success { JetSimCommand.exit(withError: error) }  // --help, --version
        (code, message) = (parserCode == .validationFailure ? 2 : 1, JetSimCommand.fullMessage(for: error))
    }
    printError(message)
    exit(code)
}
