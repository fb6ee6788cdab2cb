import Foundation
import JetSim

/// A progress bar on stderr: devices done, events per second, time left.
final class ProgressBar: @unchecked Sendable {
    let total: Int
    let cells: Int
    let progress: RunProgress
    let started = ContinuousClock.now
    var thread: Thread?
    let done = NSCondition()
    var finished = false

    init(total: Int, cells: Int, progress: RunProgress) {
        self.total = total
        self.cells = cells
        self.progress = progress
    }

    func start() {
        let t = Thread { [self] in
            done.lock()
            while !finished {
                draw()
                _ = done.wait(until: Date().addingTimeInterval(0.2))
            }
            done.unlock()
        }
        thread = t
        t.start()
    }

    func stop() {
        done.lock()
        finished = true
        done.signal()
        done.unlock()
        while thread?.isFinished == false { usleep(1_000) }
        draw()
        printError("")
    }

    func draw() {
        let d = progress.devicesDone.load(ordering: .relaxed)
        let e = progress.eventsDone.load(ordering: .relaxed)
        let el = started.duration(to: .now)
        let s = max(1e-6, Double(el.components.seconds) + Double(el.components.attoseconds) * 1e-18)
        let frac = total > 0 ? Double(d) / Double(total) : 1
        let width = 24
        let filled = Int(frac * Double(width))
        let eta = d > 0 ? s * Double(total - d) / Double(d) : 0
        let line = String(format: "\r[%@%@] %d/%d devices x %d cells | %.1fM events/s | ETA %.0fs  ",
                          String(repeating: "#", count: filled), String(repeating: ".", count: width - filled),
                          d, total, cells, Double(e) / s / 1e6, eta)
        printError(line, newline: false)
    }
}
