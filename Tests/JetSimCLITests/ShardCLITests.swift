import Foundation
import Testing

@Suite("Shards and merge: byte-identical to one unsharded run", .endToEnd)
struct ShardCLITests {
    static let args = ["run", "--devices", "23", "--duration", "1d", "--policy", "lru,oracle,random", "--ram", "2GB,3GB", "--quiet",
                       "--set", "user.sessions_per_day=30", "--set", "catalog.archetypes.game.share=0.3"]

    @Test("merging every shard's state gives the unsharded CSV, byte for byte", arguments: [1, 3, 4])
    func mergeEqualsUnsharded(shards: Int) throws {
        let tmp = try CLI.tempDir("merge\(shards)")
        let whole = try CLI.run(Self.args + ["--out", tmp + "/all.csv"])
        #expect(whole.status == 0, "\(whole.stderr)")
        var states: [String] = []
        for i in 1...shards {
            let r = try CLI.run(Self.args + ["--shard", "\(i)/\(shards)", "--out", tmp + "/s\(i).csv", "--threads", String(1 + i % 2)])
            #expect(r.status == 0, "\(r.stderr)")
            states.append(tmp + "/s\(i).csv.state")
        }
        let merged = try CLI.run(["merge"] + states.reversed() + ["--out", tmp + "/merged.csv"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let a = try Data(contentsOf: URL(fileURLWithPath: tmp + "/all.csv"))
        let b = try Data(contentsOf: URL(fileURLWithPath: tmp + "/merged.csv"))
        #expect(a == b)
        // The overrides column, followed by the counters appended after it.
        #expect(String(decoding: b, as: UTF8.self).contains(",user.sessions_per_day=30;catalog.archetypes.game.share=0.3,"))
    }

    @Test("a missing, duplicated or mismatched shard is an error naming it")
    func badShards() throws {
        let tmp = try CLI.tempDir()
        for i in 1...3 {
            _ = try CLI.run(Self.args + ["--shard", "\(i)/3", "--out", tmp + "/s\(i).csv"])
        }
        _ = try CLI.run(Self.args + ["--shard", "2/3", "--seed", "9", "--out", tmp + "/other.csv"])
        let missing = try CLI.run(["merge", tmp + "/s1.csv.state", tmp + "/s3.csv.state"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("shard 2/3 is missing"))
        let duplicated = try CLI.run(["merge", tmp + "/s1.csv.state", tmp + "/s2.csv.state", tmp + "/s2.csv.state", tmp + "/s3.csv.state"])
        #expect(duplicated.status == 2)
        #expect(duplicated.stderr.contains("s2.csv.state: shard 2/3 is given twice"))
        let mismatched = try CLI.run(["merge", tmp + "/s1.csv.state", tmp + "/other.csv.state", tmp + "/s3.csv.state"])
        #expect(mismatched.status == 2)
        #expect(mismatched.stderr.contains("other.csv.state: its inputs"))
        // ... and says what differs: here the seed, a line of the resolved workload.
        #expect(mismatched.stderr.contains("they differ in the resolved workload (line "), "\(mismatched.stderr)")
        #expect(mismatched.stderr.contains("'seed: 9' here, 'seed: 1' there"), "\(mismatched.stderr)")
        _ = try CLI.run(Self.args.map { $0 == "lru,oracle,random" ? "lru" : $0 } + ["--shard", "2/3", "--out", tmp + "/lru.csv"])
        let cells = try CLI.run(["merge", tmp + "/s1.csv.state", tmp + "/lru.csv.state", tmp + "/s3.csv.state"])
        #expect(cells.status == 2 && cells.stderr.contains("the cells, policies x RAM (lru@"), "\(cells.stderr)")
        // A damaged state file is located.
        var text = try String(contentsOfFile: tmp + "/s1.csv.state", encoding: .utf8)
        text = text.replacingOccurrences(of: "counters: ", with: "counters: x")
        try text.write(toFile: tmp + "/bad.state", atomically: true, encoding: .utf8)
        let damaged = try CLI.run(["merge", tmp + "/bad.state", tmp + "/s2.csv.state", tmp + "/s3.csv.state"])
        #expect(damaged.status == 2)
        #expect(damaged.stderr.contains("bad.state:"))
    }

    @Test("--shard needs --out")
    func shardNeedsOut() throws {
        let r = try CLI.run(["run", "--devices", "2", "--duration", "1h", "--shard", "1/2"])
        #expect(r.status == 2 && r.stderr.contains("--shard: needs --out"))
    }
}
