import Foundation
import Testing

/// Issue 16: on a terminal, the progress line and the table fit its width. Runs the
/// binary under a pseudo-terminal (`script`, util-linux, in every Debian install) with
/// COLUMNS set, and measures every line it drew.
@Suite("terminal output fits the terminal's width", .endToEnd)
struct TerminalCLITests {
    /// What `jetsim ARGS` drew on a terminal `columns` wide, split into the lines the
    /// terminal shows (a carriage return starts the line again), escapes removed.
    static func onTerminal(_ args: [String], columns: Int) throws -> [String] {
        let dir = try CLI.tempDir()
        let command = ([CLI.binary] + args).map { "'\($0)'" }.joined(separator: " ")
        let r = try CLI.run(["-qec", "COLUMNS=\(columns) \(command)", dir + "/typescript"], runner: "/usr/bin/script")
        #expect(r.status == 0, "\(r.stderr)")
        let text = r.stdout.replacingOccurrences(of: "\u{1B}[K", with: "")
        // By scalars: "\r\n" is one Character, and a lone "\r" redraws the line.
        return text.unicodeScalars.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { String(String.UnicodeScalarView($0)) }
    }

    @Test("at 80 and 60 columns no line is wider than the terminal, and the table says what it left out",
          arguments: [80, 60])
    func fits(_ columns: Int) throws {
        let lines = try Self.onTerminal(["run", "--devices", "4", "--duration", "1d", "--threads", "1"], columns: columns)
        let table = lines.drop { !$0.hasPrefix("policy") }
        #expect(table.count >= 2 + 21, "\(lines)")
        // The progress bar, the table, the note and the run's statistics on stderr.
        for line in lines { #expect(line.count <= columns, "\(line.count) > \(columns): \(line)") }
        #expect(lines.contains { $0.hasPrefix("[") && $0.contains("/4") }, "no progress line: \(lines)")
        #expect(lines.contains { $0.contains("not shown at this width") })
        // Whole columns only: every row keeps its policy and its RAM.
        #expect(table.dropFirst(2).prefix(21).allSatisfy { $0.split(separator: " ").count >= 2 })
    }

    @Test("with --baseline the second table (paired differences) is fitted on its own columns")
    func baseline() throws {
        let lines = try Self.onTerminal(["run", "--devices", "4", "--duration", "1d", "--threads", "1", "--ram", "2GB",
                                         "--baseline", "lru"], columns: 60)
        for line in lines { #expect(line.count <= 60, "\(line.count) > 60: \(line)") }
        // Both tables keep their policy column and say what they left out.
        #expect(lines.filter { $0.hasPrefix("policy") }.count == 2, "\(lines)")
        #expect(lines.filter { $0.contains("not shown at this width") }.count == 2, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("minus lru") }, "\(lines)")
    }

    @Test("a wide terminal shows the whole table")
    func wide() throws {
        let lines = try Self.onTerminal(["run", "--devices", "4", "--duration", "1d", "--threads", "1"], columns: 200)
        #expect(!lines.contains { $0.contains("not shown at this width") })
        #expect(lines.contains { $0.hasPrefix("policy") && $0.hasSuffix("state lost") }, "\(lines)")
    }
}
