import ArgumentParser
import Foundation

// Exit codes (documented in the README):
//   0  success
//   1  the run failed (an I/O error, an internal error)
//   2  bad input: a bad flag, option value, workload or scenario file
// swift-argument-parser's own usage errors (64 by default) are mapped to 2, so that a
// script can tell bad input from a failed run.
// A parent may have started us with SIGINT/SIGTERM blocked (a blocked mask survives
// exec); unblock them before any thread starts, so Ctrl-C always cleans up outputs.
var unblock = sigset_t()
sigemptyset(&unblock)
sigaddset(&unblock, SIGINT)
sigaddset(&unblock, SIGTERM)
sigprocmask(SIG_UNBLOCK, &unblock, nil)

do {
    var command = try JetSimCommand.parseAsRoot()
    try command.run()
} catch let error as BadInput {
    FileHandle.standardError.write(Data("jetsim: \(error.description)\n".utf8))
    exit(2)
} catch let error as RunFailure {
    FileHandle.standardError.write(Data("jetsim: \(error.description)\n".utf8))
    exit(1)
} catch {
    let code = JetSimCommand.exitCode(for: error)
    if code == .success {
        JetSimCommand.exit(withError: error)  // --help, --version
    }
    let message = JetSimCommand.fullMessage(for: error)
    FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
    exit(code == .validationFailure ? 2 : 1)
}
