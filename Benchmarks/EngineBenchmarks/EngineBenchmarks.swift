import Benchmark
import EngineHold
import Foundation
import SimKernel

/// Holds done per benchmark iteration. Throughput is reported per hold (scaled by
/// `holdScale`), and the allocation count per iteration must stay zero: a single
/// allocation per hold would show up as 1,000 here.
let holdsPerIteration = 1_000

/// The pending-event counts of the hold model: 1e3 ... 1e6.
let pendingSizes = [1_000, 10_000, 100_000, 1_000_000]

/// Boxes a hold model so the setup hook can build it outside the measured region.
final class HoldState: @unchecked Sendable {
    var model: HoldModel? = nil
}

/// CI's allocation gate sets `JETSIM_BENCH_GATE=1` (.ci/run): malloc counts are exact,
/// so a few iterations decide them; the 3-second limit is for timing runs.
let gateOnly = ProcessInfo.processInfo.environment["JETSIM_BENCH_GATE"] == "1"

let benchmarks: @Sendable () -> Void = {
    for pending in pendingSizes {
        let state = HoldState()
        Benchmark(
            "Hold_N=\(pending)",
            configuration: .init(
                metrics: [.wallClock, .throughput, .mallocCountTotal],
                scalingFactor: .kilo,
                maxDuration: gateOnly ? .milliseconds(300) : .seconds(3),
                maxIterations: gateOnly ? 10 : 100_000,
                thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0, .p100: 0])]
            ),
            closure: { benchmark in
                // Move the model into a local so the loop works on a unique value.
                var model = state.model.unsafelyUnwrapped
                state.model = nil
                var checksum: UInt64 = 0
                for _ in benchmark.scaledIterations {
                    checksum &+= model.hold(1)
                }
                blackHole(checksum)
                state.model = model
            },
            setup: {
                var model = HoldModel(pending: pending, seed: 42)
                // Warm: every slot of the heap touched, so caches and pages are hot.
                _ = model.hold(pending)
                state.model = model
            },
            teardown: { state.model = nil }
        )
    }
}
