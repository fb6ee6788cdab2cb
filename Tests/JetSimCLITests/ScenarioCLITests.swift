import Foundation
import Testing

@Suite("jetsim scenario, end to end through the binary", .endToEnd)
struct ScenarioCLITests {
    static let dir = CLI.root + "/Workloads/scenarios"
    static let scenarios: [String] = CLI.files(in: dir).filter { $0.hasSuffix(".scenario") }

    @Test("there is a shipped scenario for every row of the lifecycle table")
    func shipped() {
        #expect(Self.scenarios.count >= 15)
    }

    @Test("each shipped scenario prints exactly its expected trace", arguments: scenarios)
    func matchesExpected(name: String) throws {
        let expected = try String(contentsOfFile: Self.dir + "/" + name.replacingOccurrences(of: ".scenario", with: ".expected.csv"), encoding: .utf8)
        let r = try CLI.run(["scenario", Self.dir + "/" + name])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == expected)
    }

    @Test("--out writes the same trace to a file")
    func outFile() throws {
        let tmp = try CLI.tempDir()
        let r = try CLI.run(["scenario", Self.dir + "/02-home.scenario", "--out", tmp + "/t.csv"])
        #expect(r.status == 0)
        #expect(r.stdout.isEmpty)
        let expected = try String(contentsOfFile: Self.dir + "/02-home.expected.csv", encoding: .utf8)
        #expect(try String(contentsOfFile: tmp + "/t.csv", encoding: .utf8) == expected)
        #expect(CLI.files(in: tmp) == ["t.csv"])
    }

    /// A scenario that makes no sense stops with exit 2, names the line and what was
    /// expected, and writes nothing.
    @Test("bad scenarios exit 2 with a located message and no output", arguments: [
        ("app X\n0s launch X\n5s unlock\n", ":3:", "'unlock' when not locked"),
        ("app X\n0s launch Y\n", ":2:", "unknown app 'Y'"),
        ("app X\n5s launch X\n2s home\n", ":3:", "goes backwards"),
        ("app X colour=red\n0s launch X\n", ":1:", "unknown app key 'colour'"),
        ("app X\n0s launch X\n1s switcher-pick X\n", ":3:", "needs the switcher open"),
        ("app X\n0s launch X\n1s ignore\n", ":3:", "no call, sms or alert pending"),
        ("app X save=sometimes\n", ":1:", "not a save strategy"),
        ("app X\n0s dance X\n", ":2:", "unknown action 'dance'"),
        ("app X\nsoon launch X\n", ":2:", "a time such as 5s"),
        ("app X\n0s launch X\n1s notify X weather\n", ":3:", "not an event kind"),
        ("device ram=lots\napp X\n", ":1:", "is not a size"),
        ("app X\n0s launch X\n1s end\n2s home\n", ":4:", "nothing may follow 'end'"),
        ("app X footprint=100MB suspended-footprint=200MB\n", ":1:", "must not grow"),
        // It trapped (exit 132) adding the run-on after the last line.
        ("app X\n9223372036854s home\n", ":2:", "past the latest a scenario may use, 36500d"),
        ("app X\n0s launch X\n36501d home\n", ":3:", "past the latest"),
    ])
    func badInput(text: String, location: String, message: String) throws {
        let tmp = try CLI.tempDir()
        let file = tmp + "/bad.scenario"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try CLI.run(["scenario", file, "--out", tmp + "/trace.csv"])
        #expect(r.status == 2)
        #expect(r.stderr.contains(file + location), "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(CLI.files(in: tmp) == ["bad.scenario"])
    }

    @Test("a missing scenario file exits 2 and names it")
    func missingFile() throws {
        let r = try CLI.run(["scenario", "/nonexistent/x.scenario"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("/nonexistent/x.scenario: no such file"))
    }
}

@Suite("jetsim basics", .endToEnd)
struct BasicCLITests {
    @Test("--version prints the version and the commit it was built from, and exits 0")
    func version() throws {
        let r = try CLI.run(["--version"])
        #expect(r.status == 0)
        let line = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let words = line.split(separator: " ")
        #expect(words.first?.split(separator: ".").count == 3, "\(line)")
        // `0.1.0 (commit SHA)`, `... (commit SHA, dirty: ...)` or `... (commit unknown: ...)`.
        #expect(words.count >= 3 && words[1] == "(commit", "\(line)")
        let sha = words.count >= 3 ? words[2].trimmingCharacters(in: CharacterSet(charactersIn: "),:")) : ""
        #expect(sha == "unknown" || (sha.count == 40 && sha.allSatisfy(\.isHexDigit)), "\(line)")
    }

    @Test("an unknown flag exits 2, not argument-parser's 64")
    func badFlag() throws {
        let r = try CLI.run(["scenario", "x.scenario", "--frobnicate"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("--frobnicate"))
    }
}
