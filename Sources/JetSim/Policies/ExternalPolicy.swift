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
    /// The protocol version the process speaks: 1 (the default, as before version 2
    /// existed); 2, whose `victim` line gives the current simulated time; or 3, whose
    /// `update` lines end with the candidate's oom_score_adj as well.
    public var protocolVersion = 1

    public init(command: [String] = [], timeoutS: Double = 10, protocolVersion: Int = 1) {
        self.command = command
        self.timeoutS = timeoutS
        self.protocolVersion = protocolVersion
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
            guard stat(word, &st) == 0, st.st_mode & S_IFMT == S_IFREG, let h = FNV1a.hash(fileAt: word) else { continue }
            text += word + "\u{0}" + FNV1a.hex(h) + "\n"
        }
        return FNV1a.hash(text)
    }

    /// The command as one line (for messages).
    public var commandLine: String { command.joined(separator: " ") }

    /// Whether `name` may name an external policy: it appears in CSV cells and state
    /// files, so letters, digits, `-` and `_` only; not `.`, which separates the parts
    /// of a key path (`--set policies.external.NAME.command=...` could not name it).
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { c in
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 45 || c == 95
        }
    }

    /// What a name may hold, for messages.
    public static let nameRule = "letters, digits, '-' and '_' only (not '.', which separates the parts of a key path)"
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

    /// Protocol 2 sends the time with each `victim`: a question at another time is a
    /// new one (the answer may depend on it), so the last answer is not reused.
    public mutating func clock(_ now: SimTime) { link.clock(now) }

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
    /// Lines not yet sent, starting with the device's `device` line; sent when a victim
    /// is asked for, or once it holds `flushBytes` (a device with few kills asked
    /// rarely, and its batch held every change between).
    var batch: [UInt8] = []
    static let flushBytes = 1 << 20
    /// The process failed: nothing more is encoded or sent (the batch grew with every
    /// change to the device's end: 439 MB against lru's 56 MB on one trace).
    var failed = false
    /// The last answer, while no change came after it (a repeated query reuses it).
    var answer: Int32 = -1
    var seed: UInt64 = 0
    var device: UInt64 = 0
    /// The simulated time of the next question (protocol 2 sends it).
    var now = SimTime.zero

    func clock(_ t: SimTime) {
        guard t != now else { return }
        now = t
        if process?.spec.protocolVersion ?? 1 >= 2 { answer = -1 }
    }

    var stateBytes: Int { (members.capacity + place.capacity) * 4 + batch.capacity }

    func reset(appCount: Int, seed: UInt64, device: UInt64) {
        members.removeAll(keepingCapacity: true)
        place.removeAll(keepingCapacity: true)
        place.append(contentsOf: repeatElement(-1, count: appCount))
        batch.removeAll(keepingCapacity: true)
        answer = -1
        failed = process?.failure != nil
        self.seed = seed
        self.device = device
        now = .zero
        var w = LineWriter(scratch)
        w.put("device "); w.put(seed); w.put(" "); w.put(device); w.put(" "); w.put(UInt64(appCount)); w.put("\n")
        append(w)
    }

    func update(_ app: Int32, _ c: EvictionCandidate) {
        if place[Int(app)] < 0 {
            place[Int(app)] = Int32(members.count)
            members.append(app)
        }
        answer = -1
        // One line into the scratch buffer, then one append: digit by digit into the
        // class's array, each write was a dynamic exclusivity check (4 s of the default run).
        var w = LineWriter(scratch)
        w.put("update "); w.put(Int64(app)); w.put(" ")
        // Candidates are background or suspended (`EvictionCandidate.state`).
        w.put(c.state == .suspended ? "suspended" : "background")
        switch c.mode { case .none: w.put(" none "); case .audio: w.put(" audio "); case .location: w.put(" location "); case .voip: w.put(" voip ") }
        w.put(c.residentKB); w.put(" "); w.put(c.lastUsed.microseconds); w.put(" "); w.put(Int64(c.launchCount))
        w.put(" "); w.put(c.coldLaunchCost.microseconds); w.put(" "); w.put(c.residentLaunchCost.microseconds)
        w.put(" "); w.put(Int64(c.unsavedEdits)); w.put(c.preservesUIState ? " 1" : " 0"); w.put(c.leftFront ? " 1" : " 0")
        w.put(c.isPrevious ? " 1 " : " 0 "); w.put(Int64(c.band))
        // Version 3: the adj ActivityManager gives it (the first of its class's values;
        // a cached process's slot follows from LAST_USED_US).
        if process?.spec.protocolVersion ?? 1 >= 3 { w.put(" "); w.put(Int64(c.oomAdj)) }
        w.put("\n")
        append(w)
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
        var w = LineWriter(scratch)
        w.put("remove "); w.put(Int64(app)); w.put("\n")
        append(w)
    }

    /// Asks the process (unless nothing changed since the last answer). After a
    /// failure (the process's `failure`) it answers any candidate without asking, so
    /// the device ends quickly; the worker then stops and the run fails.
    func victim() -> Int32 {
        if answer >= 0 { return answer }
        guard let process else { preconditionFailure("an external policy runs with its process attached (Run/FleetRunner.swift)") }
        guard process.failure == nil else {
            failed = true
            batch.removeAll()
            return members[0]
        }
        var w = LineWriter(scratch)
        if process.spec.protocolVersion >= 2 {
            w.put("victim "); w.put(now.microseconds); w.put("\n")
        } else {
            w.put("victim\n")
        }
        append(w)
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

    /// Room for one line (the longest, an update, is under 200 bytes).
    let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 512)

    deinit { scratch.deallocate() }

    @inline(__always) func append(_ w: LineWriter) {
        if failed { return }
        batch.append(contentsOf: UnsafeBufferPointer(start: scratch, count: w.count))
        if batch.count >= Self.flushBytes { flush() }
    }

    /// Sends the batch without asking (the process reads it as it reads any batch).
    @inline(never) func flush() {
        guard let process else { return }
        if !process.post(batch, device: device) {
            failed = true
            batch.removeAll()
            return
        }
        batch.removeAll(keepingCapacity: true)
    }
}

/// Writes one protocol line into a buffer: words and decimal numbers. Words are
/// `StaticString`s only (with a `String` overload, every literal went through it a
/// character at a time: 8 % of an external run's time).
struct LineWriter {
    let p: UnsafeMutablePointer<UInt8>
    var count = 0

    init(_ p: UnsafeMutablePointer<UInt8>) { self.p = p }

    @inline(__always) mutating func put(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        (p + count).update(from: s.utf8Start, count: n)
        count += n
    }

    @inline(__always) mutating func put(_ x: Int64) {
        if x < 0 { p[count] = 45; count += 1; put(UInt64(0 &- UInt64(bitPattern: x))) } else { put(UInt64(x)) }
    }

    mutating func put(_ x: UInt64) {
        var n = 1, rest = x / 10
        while rest > 0 { rest /= 10; n += 1 }
        var v = x, i = count + n - 1
        while v >= 10 { p[i] = 48 + UInt8(v % 10); v /= 10; i -= 1 }
        p[i] = 48 + UInt8(v)
        count += n
    }
}
