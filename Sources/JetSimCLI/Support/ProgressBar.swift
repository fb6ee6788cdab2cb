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
        let eta = d > 0 ? s * Double(total - d) / Double(d) : 0
        printError("\r" + Self.line(fraction: frac, done: d, total: total, cells: cells,
                                     eventsPerSecond: Double(e) / s, eta: eta, width: Terminal.width(STDERR_FILENO) ?? 80)
                   + "\u{1B}[K", newline: false)
    }

    /// The progress line, at most `width - 1` columns (a full-width line would wrap on
    /// terminals that wrap at the last column): the bar shrinks first, then the parts on
    /// the right are dropped, least useful first.
    static func line(fraction: Double, done: Int, total: Int, cells: Int, eventsPerSecond: Double, eta: Double,
                     width: Int) -> String {
        let room = max(1, width - 1)
        let count = "\(done)/\(total) devices x \(cells) cells"
        let rate = String(format: "%.1fM events/s", eventsPerSecond / 1e6)
        let left = String(format: "ETA %.0fs", eta)
        for parts in [[count, rate, left], [count, left], ["\(done)/\(total)", left], ["\(done)/\(total)"]] {
            let text = parts.joined(separator: " | ")
            let barWidth = min(24, room - text.count - 3)
            if barWidth >= 8 {
                let filled = min(barWidth, Int(fraction * Double(barWidth)))
                return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "] " + text
            }
        }
        return String("\(done)/\(total)".prefix(room))
    }
}
