#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel

/// `policies.external.NAME`: a policy run as a separate process, selected as
/// `external:NAME` (docs/external-policies.md).
public struct ExternalPolicySpec: Sendable, Equatable {
    /// The program and its arguments (the program found on PATH when it has no `/`),
    /// run in jetsim's working directory.
    public var command: [String] = []
    /// How long one request (its batch sent and the answer read) may take.
    public var timeoutS: Double = 10

    public init(command: [String] = [], timeoutS: Double = 10) {
        self.command = command
        self.timeoutS = timeoutS
    }

    /// FNV-1a 64 over the words of the command that name a regular file (relative to
    /// the working directory), each as its path and its content's hash: what enters the
    /// inputs hash of a shard state besides the command itself (in the workload).
    /// A script that changes changes the hash, so shards run with different versions
    /// of it do not merge.
    public func filesHash() -> UInt64 {
        var text = ""
        for word in command {
            var st = stat()
            guard stat(word, &st) == 0, st.st_mode & S_IFMT == S_IFREG, let h = ShardState.fnv1a(fileAt: word) else { continue }
            text += word + "\u{0}" + ShardState.hex(h) + "\n"
        }
        return FNV1a.hash(text)
    }

    /// The command as one line (for messages).
    public var commandLine: String { command.joined(separator: " ") }

    /// Whether `name` may name an external policy: it appears in CSV cells and state
    /// files, so letters, digits, `-`, `_` and `.` only.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { c in
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 45 || c == 95 || c == 46
        }
    }
}

/// A policy that asks a process (`PolicyProcess`) for its victims: candidate changes
/// are encoded into a batch as they come, and the batch goes out with each victim
/// request, so the process is woken once per kill, not once per change. The
/// candidates are also kept here, so that `hasCandidates` needs no request and an
/// answer that is not a candidate is caught before the device acts on it.
///
/// Nothing of this runs for a built-in policy: the device loop is compiled per policy
/// type, and this type is used only for `external:NAME` cells.
public struct ExternalPolicy: EvictionPolicy {
    public static let name = "external"
    public static let summary = "a policy run as a separate process (policies.external.NAME; docs/external-policies.md)"
    /// The process is told of the previous-app mark like lmkd (`isPrevious`).
    public static var readsPrevious: Bool { true }

    /// The worker's link to its process (a class: `victim()` is a query, but asking
    /// sends the batch and reads the answer).
    var link = ExternalLink()

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) {
        link.reset(appCount: appCount, seed: context.seed, device: context.device)
    }

    public mutating func update(_ app: Int32, _ c: EvictionCandidate) { link.update(app, c) }

    public mutating func remove(_ app: Int32) { link.remove(app) }

    public var hasCandidates: Bool { link.count > 0 }

    public func victim() -> Int32 { link.victim() }

    public var stateBytes: Int { link.stateBytes }
}

/// The state behind `ExternalPolicy`: the current device's candidates, the batch not
/// yet sent, and the process.
final class ExternalLink {
    /// The process of this worker (nil: none attached; a victim request then fails).
    var process: PolicyProcess?
    /// The candidates, densely (`members`), and each app's place in it (-1: not one).
    var members: [Int32] = []
    var place: [Int32] = []
    var count: Int { members.count }
    /// Lines not yet sent, starting with the device's `device` line.
    var batch: [UInt8] = []
    /// The last answer, while no change came after it (a repeated query reuses it).
    var answer: Int32 = -1
    var seed: UInt64 = 0
    var device: UInt64 = 0

    var stateBytes: Int { (members.capacity + place.capacity) * 4 + batch.capacity }

    func reset(appCount: Int, seed: UInt64, device: UInt64) {
        members.removeAll(keepingCapacity: true)
        place.removeAll(keepingCapacity: true)
        place.append(contentsOf: repeatElement(-1, count: appCount))
        batch.removeAll(keepingCapacity: true)
        answer = -1
        self.seed = seed
        self.device = device
        put("device "); put(seed); put(" "); put(device); put(" "); put(UInt64(appCount)); put("\n")
    }

    func update(_ app: Int32, _ c: EvictionCandidate) {
        if place[Int(app)] < 0 {
            place[Int(app)] = Int32(members.count)
            members.append(app)
        }
        answer = -1
        put("update "); put(Int64(app)); put(" "); put(c.state.name); put(" "); put(c.mode.name)
        put(" "); put(c.residentKB); put(" "); put(c.lastUsed.microseconds); put(" "); put(Int64(c.launchCount))
        put(" "); put(c.coldLaunchCost.microseconds); put(" "); put(c.residentLaunchCost.microseconds)
        put(" "); put(Int64(c.unsavedEdits)); put(c.preservesUIState ? " 1" : " 0"); put(c.leftFront ? " 1" : " 0")
        put(c.isPrevious ? " 1 " : " 0 "); put(Int64(c.band)); put("\n")
    }

    func remove(_ app: Int32) {
        let p = Int(place[Int(app)])
        guard p >= 0 else { return }
        let last = members.removeLast()
        if last != app {
            members[p] = last
            place[Int(last)] = Int32(p)
        }
        place[Int(app)] = -1
        answer = -1
        put("remove "); put(Int64(app)); put("\n")
    }

    /// Asks the process (unless nothing changed since the last answer). After a
    /// failure (the process's `failure`) it answers any candidate without asking, so
    /// the device ends quickly; the worker then stops and the run fails.
    func victim() -> Int32 {
        if answer >= 0 { return answer }
        guard let process, process.failure == nil else { return members[0] }
        put("victim\n")
        guard let a = process.ask(batch, device: device, candidates: members.count),
              a >= 0, Int(a) < place.count, place[Int(a)] >= 0 else {
            if process.failure == nil { process.fail(request: "victim for device \(device), \(members.count) candidates", "answered \(process.lastAnswerText), which is not a current candidate") }
            batch.removeAll(keepingCapacity: true)
            return members[0]
        }
        batch.removeAll(keepingCapacity: true)
        answer = a
        return a
    }

    // MARK: Encoding (ASCII, no allocation once the batch has grown)

    @inline(__always) func put(_ s: StaticString) {
        s.withUTF8Buffer { batch.append(contentsOf: $0) }
    }

    @inline(__always) func put(_ s: String) {
        var s = s
        s.withUTF8 { batch.append(contentsOf: $0) }
    }

    func put(_ x: Int64) {
        if x < 0 { batch.append(45); put(UInt64(0 &- UInt64(bitPattern: x))) } else { put(UInt64(x)) }
    }

    func put(_ x: UInt64) {
        var n = 1, rest = x / 10
        while rest > 0 { rest /= 10; n += 1 }
        let start = batch.count
        batch.append(contentsOf: repeatElement(48, count: n))
        var v = x, i = start + n - 1
        while v >= 10 { batch[i] = 48 + UInt8(v % 10); v /= 10; i -= 1 }
        batch[i] = 48 + UInt8(v)
    }
}
