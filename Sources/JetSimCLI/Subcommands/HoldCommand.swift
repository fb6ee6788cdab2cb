import ArgumentParser
import Foundation
import EngineHold
import SimKernel

/// `jetsim hold`: the engine's hold model, for comparing against other simulators
/// (see scripts/bench-vs-simpy.sh). Performance figures go to stdout here because
/// measuring them is the command's whole purpose; no simulated result depends on them.
struct HoldCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hold",
        abstract: "Time the engine's hold model (pop the earliest event, push one at now + Exp(1 s)).",
        discussion: "Prints: pending,holds,seconds,holds_per_s,ns_per_hold"
    )

    @Option(name: .long, parsing: .unconditional, help: "Pending events (N).")
    var pending: Int = 1_000

    @Option(name: .long, parsing: .unconditional, help: "Holds to time, after as many warm-up holds as there are pending events.")
    var holds: Int = 1_000_000

    @Option(name: .long, parsing: .unconditional, help: "Random seed.")
    var seed: UInt64 = 1

    @Flag(name: .long, help: "Omit the CSV header.")
    var noHeader = false

    func validate() throws {
        guard pending >= 1 else { throw ValidationError("--pending must be at least 1") }
        // Issue 11: a queue the engine cannot hold is refused here, not trapped on
        // (pending + 1 overflowing, or an allocation larger than the machine).
        guard pending <= Self.maxPending else {
            throw ValidationError("--pending \(pending) is more than the engine can hold here: at most \(Self.maxPending) (event ids are 32 bits; the queue, \(Self.entryBytes) bytes per event, must fit in half of this machine's \(ProcessInfo.processInfo.physicalMemory >> 20) MiB)")
        }
        guard holds >= 1 else { throw ValidationError("--holds must be at least 1") }
        // Issue 11: a count near Int.max would run for centuries. The bound is a
        // documented maximum (docs/cli.md), far past any measurement's need.
        guard holds <= Self.maxHolds else {
            throw ValidationError("--holds \(holds) is more than jetsim times: at most \(Self.maxHolds) (10^10, about 15 minutes at 100 ns a hold)")
        }
    }

    /// The most holds one run times: 10^10, minutes at the engine's 30-100 ns a hold.
    static let maxHolds = 10_000_000_000

    /// Bytes per pending event in the engine's queue.
    static let entryBytes = MemoryLayout<EventQueue<UInt32>.Entry>.stride
    /// The most pending events: ids are UInt32, and the queue must fit in half the RAM.
    static var maxPending: Int {
        min(Int(UInt32.max), Int(ProcessInfo.processInfo.physicalMemory / 2) / entryBytes)
    }

    func run() throws {
        var model = HoldModel(pending: pending, seed: seed)
        _ = model.hold(pending)  // warm-up
        let clock = ContinuousClock()
        var checksum: UInt64 = 0
        let elapsed = clock.measure { checksum = model.hold(holds) }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if !noHeader { print("pending,holds,seconds,holds_per_s,ns_per_hold") }
        print(String(format: "%d,%d,%.6f,%.0f,%.1f", pending, holds, seconds,
                     Double(holds) / seconds, seconds * 1e9 / Double(holds)))
        if checksum == 42 { FileHandle.standardError.write(Data()) }  // keep the work observable
    }
}
