import Foundation

/// What a run needs from the system, checked at its start.
enum Resources {
    /// Descriptors jetsim needs free: up to six outputs held open at once, a sidecar
    /// being written, the inputs, libdispatch's worker threads and the pipes of the git
    /// process that provenance runs (measured: five outputs trapped with 12 free).
    static let descriptorsNeeded = 32

    #if os(Linux)
    static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    static let resource = RLIMIT_NOFILE
    #endif

    /// Exits 1 (before any work, so nothing is written) when fewer than
    /// `descriptorsNeeded` descriptors are free under the soft limit, after raising it
    /// towards the hard limit when that allows.
    static func checkDescriptors() {
        var lim = rlimit()
        guard getrlimit(resource, &lim) == 0 else { return }
        func free() -> Int {
            let top = Int(min(lim.rlim_cur, 4096))
            var open = 0
            for fd in 0..<Int32(top) where fcntl(fd, F_GETFD) != -1 { open += 1 }
            return Int(lim.rlim_cur) - open
        }
        var available = free()
        if available < descriptorsNeeded, lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = min(lim.rlim_max, lim.rlim_cur + rlim_t(2 * descriptorsNeeded))
            if setrlimit(resource, &lim) == 0 { available = free() }
            else { _ = getrlimit(resource, &lim) }
        }
        guard available < descriptorsNeeded else { return }
        printError("jetsim: too few file descriptors: \(max(0, available)) free under the limit of \(lim.rlim_cur) (ulimit -n); jetsim needs \(descriptorsNeeded) (its outputs, threads and the git run for provenance); raise it, e.g. ulimit -n 256")
        exit(1)
    }
}
