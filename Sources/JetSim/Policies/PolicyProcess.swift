#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SimKernel
import Synchronization

/// One running external policy: a child process whose standard input and output are
/// one end of a socket pair (a socket, not pipes, so that writing to a process that
/// died is an error, `MSG_NOSIGNAL`, not a SIGPIPE that would end jetsim). Its
/// standard error is jetsim's. One per worker thread and external policy; used by
/// that worker alone.
///
/// Every wait (the greeting, a batch and its answer) is bounded by the spec's
/// `timeout_s`. The first failure is kept in `failure`, a message naming the policy
/// and the request; after it the process is killed and nothing more is asked.
///
/// The child gets its socket as standard input and output, jetsim's standard error,
/// and no other descriptor (every one from 3 up is closed in it: it inherited the
/// outputs' temporary files, the trace, the other workers' sockets), a clear signal
/// mask and the default actions, in a process group of its own, which is ended with
/// it (a process it started too). Every live child is in `Children`, which jetsim's
/// signal handler ends (`endAllForExit`) before it exits: no child outlives jetsim.
public final class PolicyProcess {
    /// The newest protocol version (docs/external-policies.md); a policy declares the
    /// one it speaks (`ExternalPolicySpec.protocolVersion`, 1 by default).
    public static let protocolVersion = 3

    let name: String
    let spec: ExternalPolicySpec
    var pid: pid_t = 0
    var fd: Int32 = -1
    /// The first failure: a message naming the policy and the request.
    public private(set) var failure: String?
    /// Requests made so far (the greeting is request 1).
    var requests = 0
    /// Bytes read past the last answer's newline.
    var inbox: [UInt8] = []
    /// Where `recv` reads.
    var chunk = [UInt8](repeating: 0, count: 4096)
    /// The last answer as text, for messages.
    var lastAnswerText = ""

    /// Starts the process and greets it (`jetsim-policy VERSION NAME`, answered `ok`).
    public init(name: String, spec: ExternalPolicySpec) {
        self.name = name
        self.spec = spec
        start()
    }

    deinit { close() }

    /// `external:NAME (command)`: how messages name the policy.
    var label: String { "policy external:\(name) (\(spec.commandLine))" }

    func fail(request: String, _ what: String) {
        guard failure == nil else { return }
        failure = "\(label): request \(requests) (\(request)): \(what)"
        kill()
    }

    func start() {
        requests = 1
        guard !spec.command.isEmpty else { fail(request: "start", "policies.external.\(name).command is empty"); return }
        var pair: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
            fail(request: "start", "cannot make a socket pair: \(String(cString: strerror(errno)))"); return
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
        Self.closeInheritedDescriptors(&actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] = spec.command.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var child: pid_t = 0
        // No signal handler runs on this thread from the spawn to the child's entry in
        // `Children` (a handler on another thread waits for the entry: `endAllForExit`).
        let rc = Children.spawning { posix_spawnp(&child, spec.command[0], &actions, &attributes, argv, environ) } registering: { child }
        Glibc.close(pair[1])
        guard rc == 0 else {
            Glibc.close(pair[0])
            fail(request: "start", "cannot start \(spec.command[0]): \(String(cString: strerror(rc)))"); return
        }
        pid = child
        fd = pair[0]
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var hello: [UInt8] = Array("jetsim-policy \(spec.protocolVersion) \(name)\n".utf8)
        if send(&hello, request: "greeting"), let line = readLine(request: "greeting") {
            if line != Array("ok".utf8) { fail(request: "greeting", "answered '\(lastAnswerText)', expected 'ok'") }
        }
        requests = 1
    }

    /// Sends `batch` (ending in `victim`) and reads the answer: an app index, or nil
    /// (garbage: `lastAnswerText` says what came; or a failure).
    func ask(_ batch: [UInt8], device: UInt64, candidates: Int) -> Int32? {
        requests += 1
        let what = "victim for device \(device), \(candidates) candidates"
        var b = batch
        guard send(&b, request: what), let line = readLine(request: what) else { return nil }
        // An app index: ASCII digits (no sign, no spaces).
        guard !line.isEmpty, line.count <= 9, line.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            fail(request: what, "answered '\(lastAnswerText)', not an app index (a line holding one whole number)")
            return nil
        }
        var v: Int32 = 0
        for c in line { v = v * 10 + Int32(c - 48) }
        return v
    }

    /// Sends part of a batch (changes only: no answer is read); false on a failure.
    func post(_ batch: [UInt8], device: UInt64) -> Bool {
        var b = batch
        return send(&b, request: "changes for device \(device)")
    }

    /// The deadline of a request that starts now.
    func deadline() -> Double { now() + spec.timeoutS }

    func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    var timeoutText: String { "no answer within \(WorkloadPrinter.num(spec.timeoutS)) s (policies.external.\(name).timeout_s)" }

    /// Waits until `fd` is ready for `events` or the deadline passes (false).
    func wait(_ events: Int16, until end: Double) -> Bool {
        while true {
            let left = end - now()
            if left <= 0 { return false }
            var p = pollfd(fd: fd, events: events, revents: 0)
            let r = poll(&p, 1, Int32(min(left * 1000 + 1, 2_000_000_000)))
            if r > 0 { return true }
            if r < 0 && errno != EINTR { return true }  // the next read or write says why
        }
    }

    func send(_ bytes: inout [UInt8], request: String) -> Bool {
        guard failure == nil else { return false }
        let end = deadline()
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { b in
                Glibc.send(fd, b.baseAddress! + sent, b.count - sent, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if n > 0 { sent += n; continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                if !wait(Int16(POLLOUT), until: end) { fail(request: request, timeoutText); return false }
                continue
            }
            fail(request: request, "the process stopped reading (\(exitText()))")
            return false
        }
        return true
    }

    /// One line of answer (without its newline), or nil on a failure.
    func readLine(request: String) -> [UInt8]? {
        guard failure == nil else { return nil }
        let end = deadline()
        while true {
            if let nl = inbox.firstIndex(of: 10) {
                var line = Array(inbox[..<nl])
                inbox.removeSubrange(...nl)
                if line.last == 13 { line.removeLast() }
                lastAnswerText = String(decoding: line.prefix(60), as: UTF8.self) + (line.count > 60 ? "..." : "")
                return line
            }
            if inbox.count > 1 << 16 {
                lastAnswerText = String(decoding: inbox.prefix(60), as: UTF8.self) + "..."
                fail(request: request, "answered '\(lastAnswerText)': more than 64 KiB without a newline")
                return nil
            }
            // Wait first: right after a request the answer is never there yet (a recv
            // would only say EAGAIN).
            if !wait(Int16(POLLIN), until: end) { fail(request: request, timeoutText); return nil }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { inbox.append(contentsOf: chunk[..<n]); continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { continue }
            let partial = inbox.isEmpty ? "" : " after '\(String(decoding: inbox.prefix(60), as: UTF8.self))'"
            fail(request: request, "the process closed its output\(partial) (\(exitText()))")
            return nil
        }
    }

    /// How the process ended, waiting briefly for it (its output closed: it is exiting).
    func exitText() -> String {
        guard pid > 0 else { return "not started" }
        for _ in 0..<100 {
            var status: Int32 = 0
            if exited(), waitpid(pid, &status, WNOHANG) == pid {
                Children.remove(pid)
                pid = 0
                let signal = status & 0x7f
                return signal == 0 ? "it exited with status \((status >> 8) & 0xff)" : "it was killed by signal \(signal)"
            }
            usleep(10_000)
        }
        return "it is still running"
    }

    /// Whether the process has exited (not yet reaped: its group is ended first, while
    /// its pid still names it, so a process it started does not outlive it).
    func exited() -> Bool {
        var info = siginfo_t()
        // Zeroed: with no child to report, Linux leaves it so (si_signo 0).
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info.si_signo == SIGCHLD else { return false }
        _ = Glibc.kill(-pid, SIGKILL)
        return true
    }

    /// Kills the process and its group at once (after a failure).
    func kill() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
        if pid > 0 {
            _ = Glibc.kill(-pid, SIGKILL)
            _ = Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            Children.remove(pid)
            pid = 0
        }
    }

    /// Ends the process: closes its input (end of file: it should exit), waits up to the
    /// timeout, then kills it.
    public func close() {
        if fd >= 0 { Glibc.close(fd); fd = -1 }
        guard pid > 0 else { return }
        let end = deadline()
        var status: Int32 = 0
        while now() < end {
            if exited(), waitpid(pid, &status, WNOHANG) == pid { Children.remove(pid); pid = 0; return }
            usleep(2_000)
        }
        kill()
    }

    /// Closes in the child every descriptor from 3 up (glibc 2.34's
    /// `posix_spawn_file_actions_addclosefrom_np`, looked up at run time; else each
    /// descriptor open now, from /proc/self/fd or up to the limit).
    static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let f = closeFrom { _ = unsafeBitCast(f, to: CloseFrom.self)(&actions, 3); return }
        let limit = min(Int32(sysconf(Int32(_SC_OPEN_MAX))), 65_536)
        for fd in Int32(3)..<max(3, limit) where fcntl(fd, F_GETFD) >= 0 { posix_spawn_file_actions_addclose(&actions, fd) }
    }

    nonisolated(unsafe) static let closeFrom: UnsafeMutableRawPointer? = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np")

    /// Ends every live external policy process (SIGKILL, then reaped): for jetsim's
    /// signal handler and its other exits (async-signal-safe: kill, waitpid and
    /// nanosleep only; no allocation, no lock).
    public static func endAllForExit() { Children.endAll() }

    /// Makes the table `endAllForExit` reads, before a signal handler may call it (a
    /// first use inside a handler would allocate).
    public static func prepareForSignals() { _ = Children.slots; _ = Children.inFlight.load(ordering: .relaxed) }
}

/// The live children's pids, in a fixed table a signal handler can read: a slot is a
/// plain aligned store, taken under a lock by the threads that start and reap children.
enum Children {
    static let capacity = 4_096
    nonisolated(unsafe) static let slots: UnsafeMutablePointer<Int32> = {
        let p = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        p.initialize(repeating: 0, count: capacity)
        return p
    }()
    static let lock = Mutex<Int>(0)
    /// Threads between a spawn and its child's entry here.
    static let inFlight = Atomic<Int>(0)

    /// Runs `spawn` with the cleanup signals blocked on this thread, then enters the
    /// pid `registering` gives (when the spawn succeeded: `spawn` answered 0).
    static func spawning(_ spawn: () -> Int32, registering pid: () -> pid_t) -> Int32 {
        var block = sigset_t(), old = sigset_t()
        sigemptyset(&block)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&block, s) }
        pthread_sigmask(SIG_BLOCK, &block, &old)
        inFlight.add(1, ordering: .sequentiallyConsistent)
        let rc = spawn()
        if rc == 0 { add(pid()) }
        inFlight.subtract(1, ordering: .sequentiallyConsistent)
        pthread_sigmask(SIG_SETMASK, &old, nil)
        return rc
    }

    static func add(_ pid: pid_t) {
        lock.withLock { _ in
            for i in 0..<capacity where slots[i] == 0 { slots[i] = pid; return }
        }
    }

    static func remove(_ pid: pid_t) {
        lock.withLock { _ in
            for i in 0..<capacity where slots[i] == pid { slots[i] = 0; return }
        }
    }

    static func endAll() {
        // A spawn under way on another thread enters its child first (at most 1 s).
        var wait = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        for _ in 0..<1_000 where inFlight.load(ordering: .sequentiallyConsistent) > 0 { nanosleep(&wait, nil) }
        for i in 0..<capacity {
            let pid = slots[i]
            guard pid > 0 else { continue }
            _ = kill(-pid, SIGKILL)
            _ = kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            slots[i] = 0
        }
    }
}
