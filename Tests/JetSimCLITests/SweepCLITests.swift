import Foundation
import Testing

@Suite("scripts/sweep.sh and interrupted runs")
struct SweepCLITests {
    func sweep(_ dir: String, _ extra: [String] = []) throws -> CLI.Output {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [CLI.root + "/scripts/sweep.sh", "--out", dir, "--jetsim", CLI.binary, "--jobs", "2",
                       "--ram", "2GB,3GB", "--policy", "lru,oracle", "--set", "user.sessions_per_day=20,40"] + extra
            + ["--", "--devices", "4", "--duration", "1d"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return CLI.Output(status: p.terminationStatus, stdout: "", stderr: String(decoding: e, as: UTF8.self))
    }

    @Test("a sweep runs the cross product, one CSV per cell and a combined CSV; a rerun repeats nothing")
    func crossProductAndResume() throws {
        let dir = try CLI.tempDir()
        let first = try sweep(dir)
        #expect(first.status == 0, "\(first.stderr)")
        let cells = CLI.files(in: dir + "/cells").filter { $0.hasSuffix(".csv") }
        #expect(cells.count == 8)
        let combined = try String(contentsOfFile: dir + "/combined.csv", encoding: .utf8).split(separator: "\n")
        #expect(combined.count == 1 + 8)
        #expect(combined.dropFirst().filter { $0.hasSuffix(",user.sessions_per_day=20") }.count == 4)

        // An interrupted cell: its CSV never appeared, a temporary file was left behind.
        let victim = dir + "/cells/ram=3GB_policy=oracle_user.sessions_per_day=40.csv"
        let kept = dir + "/cells/ram=2GB_policy=lru_user.sessions_per_day=20.csv"
        let keptDate = try FileManager.default.attributesOfItem(atPath: kept)[.modificationDate] as! Date
        let victimBytes = try Data(contentsOf: URL(fileURLWithPath: victim))
        try FileManager.default.removeItem(atPath: victim)
        try "partial".write(toFile: dir + "/cells/.ram=3GB_policy=oracle_user.sessions_per_day=40.csv.tmp-99999", atomically: true, encoding: .utf8)
        let second = try sweep(dir)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("8 cells, 7 already done, 1 to run"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == victimBytes)
        #expect(try FileManager.default.attributesOfItem(atPath: kept)[.modificationDate] as! Date == keptDate)
        #expect(!CLI.files(in: dir + "/cells").contains { $0.contains(".tmp-") })
    }

    @Test("the same directory with different arguments is refused")
    func differentSweep() throws {
        let dir = try CLI.tempDir()
        _ = try sweep(dir)
        let other = try sweep(dir, ["--set", "user.calls_per_day=1"])
        #expect(other.status == 2)
        #expect(other.stderr.contains("holds a different sweep"))
    }

    @Test("Ctrl-C during a run leaves no output and no temporary file behind")
    func interruptedRun() throws {
        let dir = try CLI.tempDir()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["run", "--devices", "100000", "--out", dir + "/s.csv", "--per-device", dir + "/d.csv", "--quiet"]
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Wait until the outputs' temporary files exist, then interrupt.
        var started = false
        for _ in 0..<200 where !started {
            usleep(20_000)
            started = CLI.files(in: dir).contains { $0.contains(".tmp-") }
        }
        #expect(started)
        p.interrupt()
        // It must stop promptly; never let a stuck child hang the suite.
        var waited = 0
        while p.isRunning && waited < 500 { usleep(20_000); waited += 1 }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        #expect(waited < 500, "jetsim ignored SIGINT")
        p.waitUntilExit()
        #expect(p.terminationStatus != 0)
        #expect(CLI.files(in: dir).isEmpty, "left behind: \(CLI.files(in: dir))")
    }
}

@Suite("Outputs that are not regular files")
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
    }
}
