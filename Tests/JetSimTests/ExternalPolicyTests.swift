import Foundation
import Testing
import SimKernel
@testable import JetSim

/// External policies without a process: the lines jetsim writes (as
/// docs/external-policies.md documents them), their declaration in a workload, and
/// their names. The process side runs through the binary (`ExternalPolicyCLITests`).
@Suite("External policies: the protocol's lines, the workload keys, the names")
struct ExternalPolicyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test("a batch is the device line, then one line per update and remove, in the documented fields")
    func lines() throws {
        let link = ExternalLink()
        link.reset(appCount: 12, seed: 7, device: 3)
        link.update(4, EvictionCandidate(state: .suspended, mode: .audio, residentKB: 123_456, lastUsed: SimTime(microseconds: 9_000_001),
                                         launchCount: 2, coldLaunchCost: SimTime(microseconds: 1_500_000), residentLaunchCost: SimTime(microseconds: 250_000),
                                         unsavedEdits: 5, preservesUIState: true, leftFront: true, isPrevious: false, band: 0))
        link.update(10, EvictionCandidate(state: .background, residentKB: 0))
        link.remove(4)
        link.remove(4)  // not a candidate any more: nothing
        let text = String(decoding: link.batch, as: UTF8.self)
        #expect(text == """
            device 7 3 12
            update 4 suspended audio 123456 9000001 2 1500000 250000 5 1 1 0 0
            update 10 background none 0 0 1 0 0 0 1 0 0 30
            remove 4

            """)
        #expect(link.count == 1 && link.members == [10])
        // The documented update line names as many fields as jetsim writes.
        let doc = try String(contentsOfFile: Self.root + "/docs/external-policies.md", encoding: .utf8)
        let documented = try #require(doc.split(separator: "\n").first { $0.hasPrefix("| `update APP ") })
        let fields = documented.dropFirst(3).prefix { $0 != "`" }.split(separator: " ")
        let written = text.split(separator: "\n")[1].split(separator: " ")
        #expect(fields.count == written.count)
    }

    @Test("policies.external reads, prints back and validates its keys, naming the key")
    func declaration() throws {
        let yaml = "policies:\n  external:\n    lru:\n      command: [python3, Workloads/policies/lru.py]\n    \"b-2\":\n      command: [\"./my policy\"]\n      timeout_s: 0.5\n"
        let w = try WorkloadDecoder.load(yaml, source: "w.yaml")
        #expect(w.policies.external["lru"] == ExternalPolicySpec(command: ["python3", "Workloads/policies/lru.py"], timeoutS: 10))
        #expect(w.policies.external["b-2"] == ExternalPolicySpec(command: ["./my policy"], timeoutS: 0.5))
        #expect(try WorkloadDecoder.load(WorkloadPrinter.yaml(w), source: "printed") == w)
        // --set declares one.
        let set = try WorkloadDecoder.load("", source: "empty", overrides: ["policies.external.x.command=[a, b]"])
        #expect(set.policies.external["x"]?.command == ["a", "b"])
        // In either order (the overrides are decoded together: issue 46).
        for sets in [["policies.external.x.timeout_s=5", "policies.external.x.command=[a]"],
                     ["policies.external.x.command=[a]", "policies.external.x.timeout_s=5"]] {
            #expect(try WorkloadDecoder.load("", source: "empty", overrides: sets).policies.external["x"] == ExternalPolicySpec(command: ["a"], timeoutS: 5))
        }
        // A name with '.' cannot be declared by --set: the error names the key the user
        // wrote (it named `policies.external.my.command`, which nobody wrote).
        do {
            _ = try WorkloadDecoder.load("", source: "empty", overrides: ["policies.external.my.pol.command=[a]"])
            Issue.record("a dotted name was accepted")
        } catch {
            #expect(error.key == "policies.external.my.pol" && error.message.contains("may not hold '.'"), "\(error.description)")
        }
        for (text, key, words) in [
            ("policies:\n  external:\n    lru:\n      timeout_s: 3\n", "policies.external.lru.command", "missing"),
            ("policies:\n  external:\n    \"a b\":\n      command: [x]\n", "policies.external.a b", "not a policy name"),
            ("policies:\n  external:\n    \"b.2\":\n      command: [x]\n", "policies.external.b.2", "not '.'"),
            ("policies:\n  external:\n    lru:\n      command: [\"a\\0b\"]\n", nil, "NUL"),
            ("policies:\n  external:\n    lru:\n      command: [x]\n      colour: red\n", "policies.external.lru.colour", "unknown key"),
            ("policies:\n  external:\n    lru:\n      command: [x]\n      timeout_s: 0\n", "policies.external.lru.timeout_s", "out of range"),
            ("policies:\n  external:\n    lru:\n      command: []\n", "policies.external.lru.command", "expected the program"),
        ] {
            #expect(throws: InputError.self) { _ = try WorkloadDecoder.load(text, source: "w.yaml") }
            do { _ = try WorkloadDecoder.load(text, source: "w.yaml") } catch {
                #expect(error.key == key && error.message.contains(words), "\(error.description)")
            }
        }
    }

    @Test("external:NAME parses where a policy is named; the bare name and bad names do not")
    func names() {
        #expect(PolicyID(parsing: "external:lru")?.external == "lru")
        #expect(PolicyID(parsing: "external:lru")?.name == "external:lru")
        #expect(PolicyID(parsing: "lru") == PolicyID(LRU.self))
        #expect(PolicyID(parsing: "external:") == nil)
        #expect(PolicyID(parsing: "external:a,b") == nil)
        #expect(PolicyID(parsing: "external:a b") == nil)
        #expect(PolicyID(parsing: "external:a.b") == nil)
        #expect(PolicyID(rawValue: "external:lru") == nil)  // scenarios and registry lookups: built-in only
        #expect(PolicyID(parsing: "external:lru") != PolicyID(LRU.self))
    }
}
