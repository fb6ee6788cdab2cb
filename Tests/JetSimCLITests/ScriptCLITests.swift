import Foundation
import Testing

/// The scripts under scripts/ that users run on their own files.
@Suite("scripts", .endToEnd)
struct ScriptCLITests {
    /// Runs a script of the repository with bash.
    static func script(_ name: String, _ args: [String], cwd: String? = nil) throws -> CLI.Output {
        try CLI.run([CLI.root + "/scripts/" + name] + args, cwd: cwd, runner: "/bin/bash")
    }

    @Test("group-usage.sh groups by the id jetsim reads: a quoted id keeps its blanks and commas, rows are written as they were")
    func groupUsageKeepsQuotedIds() throws {
        let dir = try CLI.tempDir()
        // Devices: "a" (unquoted, blanks trimmed), " a" (quoted: not "a"), "a,b" and
        // "a b"; interleaved, with a CRLF, a blank line and a quoted field over two lines.
        let rows = [
            "device,time_s,app,duration_s\n",
            " a ,100,chat,60\n",
            "\" a\",100,chat,60\n",
            "\"a,b\",100,maps,60\r\n",
            "\n",
            "a,200,maps,60\n",
            "a b,100,game,60\n",
            "\" a\",200,maps,60\n",
            "\"a,b\",200,\"mail\",60\n",
            "a b,200,chat,60",
        ]
        try rows.joined().write(toFile: dir + "/in.csv", atomically: true, encoding: .utf8)
        let r = try Self.script("group-usage.sh", ["in.csv"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        let grouped = [rows[0], rows[2], rows[7], rows[1], rows[5], rows[6], rows[9] + "\n", rows[3], rows[8]].joined()
        #expect(r.stdout == grouped)
        // jetsim refuses the file as it was (" a" and "a" come back) and takes the
        // grouped one: four devices.
        try r.stdout.write(toFile: dir + "/out.csv", atomically: true, encoding: .utf8)
        let run = ["run", "--policy", "lru", "--ram", "2GB", "--duration", "1d", "--quiet", "--usage"]
        let before = try CLI.run(run + [dir + "/in.csv"])
        #expect(before.status == 2, "\(before.stderr)")
        let after = try CLI.run(run + [dir + "/out.csv"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stdout.split(separator: "\n").count == 2)
    }

    @Test("group-usage.sh on a trace without quotes (its fast path): ids trimmed, any line end, the byte-order mark dropped, rows as written")
    func groupUsageWithoutQuotes() throws {
        let dir = try CLI.tempDir()
        // The device column second; " b " and "b" are one device, as jetsim trims
        // unquoted fields; CRLF, CR and LF line ends; a blank and an all-blank line
        // (no records); no line end after the last row.
        let rows = [
            "time_s,device,app,duration_s\r\n",
            "100, b ,chat,60\r\n",
            "100,a,maps,60\n",
            "\n",
            "200,b,game,60\r",
            " \t\n",
            "200, a,chat,60",
        ]
        try ("\u{FEFF}" + rows.joined()).write(toFile: dir + "/in.csv", atomically: true, encoding: .utf8)
        let r = try Self.script("group-usage.sh", ["in.csv"], cwd: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == [rows[0], rows[2], rows[6] + "\n", rows[1], rows[4]].joined())
        try r.stdout.write(toFile: dir + "/out.csv", atomically: true, encoding: .utf8)
        let run = ["run", "--policy", "lru", "--ram", "2GB", "--duration", "1d", "--quiet", "--usage"]
        let before = try CLI.run(run + [dir + "/in.csv"])
        #expect(before.status == 2, "\(before.stderr)")
        #expect(before.stderr.contains("in.csv"), "\(before.stderr)")
        let after = try CLI.run(run + [dir + "/out.csv", "--out", dir + "/o.csv", "--per-device", dir + "/d.csv"])
        #expect(after.status == 0, "\(after.stderr)")
        // Two devices, named as the trace names them (trimmed): the last column.
        let devices = try String(contentsOfFile: dir + "/d.csv", encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).last! }
        #expect(devices == ["a", "b"])
    }

    @Test("the scripts read relative path arguments from the caller's directory, not the repository's")
    func relativePathsAreTheCallers() throws {
        let dir = try CLI.tempDir()
        // test-readme.sh with a relative --jetsim and a relative file, from elsewhere:
        // a Markdown file with one example.
        try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/bin/jetsim", withDestinationPath: CLI.binary)
        try "# x\n\n```\n$ jetsim --version | wc -l\n1\n```\n".write(toFile: dir + "/x.md", atomically: true, encoding: .utf8)
        let r = try Self.script("test-readme.sh", ["--jetsim", "bin/jetsim", "x.md"], cwd: dir)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("test-readme: 1 examples from \(dir)/x.md, 0 failed"), "\(r.stderr)")
    }
}
