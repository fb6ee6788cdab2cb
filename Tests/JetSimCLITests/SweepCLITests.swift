import Foundation
import Testing

@Suite("jetsim sweep", .endToEnd)
struct SweepCLITests {
    static let options = ["--ram", "2GB,3GB", "--policy", "lru,oracle", "--set", "user.sessions_per_day=20,40",
                          "--set", "catalog.apps=500", "--devices", "4", "--duration", "1d", "--threads", "2"]

    func sweep(_ dir: String, _ extra: [String] = []) throws -> CLI.Output {
        try CLI.run(["sweep", "--out", dir] + Self.options + extra)
    }

    func data(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("a sweep runs each point's cells in one process, one CSV per point equal to jetsim run's, and a combined CSV")
    func crossProduct() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try sweep(dir)
        #expect(r.status == 0, "\(r.stderr)")
        let points = CLI.files(in: dir + "/points")
        // Each point's CSV, and its provenance sidecar.
        #expect(points == ["1-user.sessions_per_day=20.csv", "1-user.sessions_per_day=20.csv.provenance.json",
                           "2-user.sessions_per_day=40.csv", "2-user.sessions_per_day=40.csv.provenance.json"])
        let combined = try String(contentsOfFile: dir + "/combined.csv", encoding: .utf8).split(separator: "\n")
        #expect(combined.count == 1 + 2 * 4)
        // The overrides column, followed by the counters appended after it.
        #expect(combined.dropFirst().filter { $0.contains(",catalog.apps=500;user.sessions_per_day=20,") }.count == 4)
        // Point 2 is exactly what `jetsim run` writes with its --set values.
        let run = try CLI.run(["run", "--ram", "2GB,3GB", "--policy", "lru,oracle", "--set", "catalog.apps=500",
                               "--set", "user.sessions_per_day=40", "--devices", "4", "--duration", "1d", "--quiet",
                               "--out", dir + "/run.csv"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try data(dir + "/run.csv") == data(dir + "/points/2-user.sessions_per_day=40.csv"))
    }

    @Test("a rerun after an interruption runs only the missing points and leaves no temporary file")
    func resume() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try sweep(dir).status == 0)
        let kept = dir + "/points/1-user.sessions_per_day=20.csv", lost = dir + "/points/2-user.sessions_per_day=40.csv"
        let keptDate = try FileManager.default.attributesOfItem(atPath: kept)[.modificationDate] as! Date
        let lostBytes = try data(lost)
        let combinedBytes = try data(dir + "/combined.csv")
        try FileManager.default.removeItem(atPath: lost)
        try FileManager.default.removeItem(atPath: dir + "/combined.csv")
        try "partial".write(toFile: dir + "/points/.2-user.sessions_per_day=40.csv.tmp-99999", atomically: true, encoding: .utf8)
        let again = try sweep(dir)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("2 point(s), 1 already done, 1 to run"))
        #expect(try data(lost) == lostBytes)
        #expect(try data(dir + "/combined.csv") == combinedBytes)
        #expect(try FileManager.default.attributesOfItem(atPath: kept)[.modificationDate] as! Date == keptDate)
        #expect(!CLI.files(in: dir + "/points").contains { $0.contains(".tmp-") })
    }

    @Test("the same directory with a different sweep is refused")
    func differentSweep() throws {
        let dir = try CLI.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try sweep(dir).status == 0)
        let other = try sweep(dir, ["--set", "user.calls_per_day=1"])
        #expect(other.status == 2)
        #expect(other.stderr.contains("holds a different sweep"))
    }

    @Test("with --usage, a point is the run with its values too (duration from the trace's spans)")
    func usagePoint() throws {
        let dir = try CLI.tempDir()
        let usage = CLI.root + "/Tests/Golden/usage.csv"
        let r = try CLI.run(["sweep", "--usage", usage, "--ram", "2GB", "--set", "catalog.apps=500,600", "--quiet", "--out", dir + "/s"])
        #expect(r.status == 0, "\(r.stderr)")
        let run = try CLI.run(["run", "--usage", usage, "--ram", "2GB", "--set", "catalog.apps=600", "--quiet", "--out", dir + "/run.csv"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try data(dir + "/run.csv") == data(dir + "/s/points/2-catalog.apps=600.csv"))
    }

    @Test("bad input (a key, a trace) is refused before the sweep's directory is made")
    func badInputMakesNothing() throws {
        let dir = try CLI.tempDir()
        let badKey = try CLI.run(["sweep", "--set", "user.nope=1,2", "--out", dir + "/a"])
        #expect(badKey.status == 2 && badKey.stderr.contains("user.nope: unknown key"), "\(badKey.stderr)")
        let badTrace = try CLI.run(["sweep", "--usage", dir + "/none.csv", "--set", "catalog.apps=500,600", "--out", dir + "/b"])
        #expect(badTrace.status == 2 && badTrace.stderr.contains("no such file"), "\(badTrace.stderr)")
        #expect(CLI.files(in: dir).isEmpty)
    }

    @Test("--list, --point and --combine: a job array's pieces give the same combined CSV")
    func jobArray() throws {
        let whole = try CLI.tempDir("whole"), parts = try CLI.tempDir("parts")
        defer { for d in [whole, parts] { try? FileManager.default.removeItem(atPath: d) } }
        #expect(try sweep(whole).status == 0)
        let list = try CLI.run(["sweep"] + Self.options + ["--list"])
        #expect(list.status == 0)
        #expect(list.stdout == "1\tuser.sessions_per_day=20\t--set user.sessions_per_day=20\n2\tuser.sessions_per_day=40\t--set user.sessions_per_day=40\n")
        #expect(try sweep(parts, ["--point", "2", "--quiet"]).status == 0)
        let early = try sweep(parts, ["--combine"])
        #expect(early.status == 1)
        #expect(early.stderr.contains("1-user.sessions_per_day=20.csv"))
        #expect(try sweep(parts, ["--point", "1", "--quiet"]).status == 0)
        #expect(try sweep(parts, ["--combine"]).status == 0)
        #expect(try data(parts + "/combined.csv") == data(whole + "/combined.csv"))
        let beyond = try sweep(parts, ["--point", "3"])
        #expect(beyond.status == 2 && beyond.stderr.contains("has 2 point(s)"))
    }
}

@Suite("Outputs that are not regular files", .endToEnd)
struct SpecialOutputTests {
    @Test("writing to a FIFO (or /dev/null) writes into it and never replaces it with a file")
    func fifo() throws {
        let dir = try CLI.tempDir()
        let fifo = dir + "/pipe"
        #expect(mkfifo(fifo, 0o644) == 0)
        // A reader that copies the FIFO into a file.
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Bounded: if jetsim replaced the FIFO instead of writing it, cat would wait forever.
        reader.arguments = ["-c", "timeout 20 cat '\(fifo)' > '\(dir)/got.csv'"]
        try reader.run()
        let r = try CLI.run(["run", "--devices", "3", "--duration", "1d", "--policy", "lru", "--ram", "2GB", "--quiet", "--out", fifo])
        reader.waitUntilExit()
        #expect(r.status == 0, "\(r.stderr)")
        var st = stat()
        #expect(lstat(fifo, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO, "the FIFO was replaced")
        let got = try String(contentsOfFile: dir + "/got.csv", encoding: .utf8)
        #expect(got.hasPrefix("workload,policy,ram_mb,"))
        #expect(!CLI.files(in: dir).contains { $0.contains(".tmp-") })
        // Nor a sidecar beside it: the FIFO is not a file the sidecar describes.
        #expect(CLI.files(in: dir) == ["got.csv", "pipe"])
    }
}
