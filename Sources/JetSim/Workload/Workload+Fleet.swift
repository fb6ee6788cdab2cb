import SimKernel

/// A device class's Fleet keys as the workload file gives them (`os: fleet`; sources
/// on `Schema.fleetKnobs`). The device's parameters are `FleetParameters` (Memory/Fleet/).
public struct FleetClass: Sendable, Equatable {
    public var gcTouchPct = 14.5
    public var launchSwapInPct = 24.3

    public init() {}

    /// Makes `p` (already an Android device) a Fleet one.
    func apply(to p: inout DeviceParameters) {
        p.fleet = FleetParameters(self)
    }
}

extension FleetParameters {
    /// Fleet off; every other field the workload's default (`FleetClass`). Here, not
    /// beside the type: Memory/ does not read the workload.
    public init() {
        self.init(FleetClass())
        enabled = false
    }

    /// The device's parameters from the workload's keys; Fleet on.
    init(_ c: FleetClass) {
        enabled = true
        gcTouchShare = c.gcTouchPct / 100
        launchSwapInShare = c.launchSwapInPct / 100
    }
}

extension Schema {
    /// Fleet's keys (they act only with `os: fleet`, beside the android_* keys).
    static let fleetKnobs: [Knob<DeviceClass>] = [
        .number("fleet_gc_touch_pct", \.fleet.gcTouchPct, 0...100, unit: "%", alias: "fleet-gc-touch-pct",
                source: "Fleet artifact (github.com/jiachengh/Fleet at 32f22f7) evaluation/exp-cache-app/exp-gc-working-set.ipynb cell 2 (Fig. 12a): objects a cached app's GC accesses, Fleet / Android, 143,566 / 1,480,438 (TikTok), 192,895 / 837,001 (Facebook), 43,658 / 304,223 (Twitch), 37,210 / 253,753 (Line): 14.5 % on average",
                "fleet: share of a cached app's Java heap (android_gc_heap_pct) its background GC touches (only background objects), in place of android_gc_touch_pct")
            .omittedAtDefaultValue(),
        .number("fleet_launch_swap_in_pct", \.fleet.launchSwapInPct, 0...100, unit: "%", alias: "fleet-launch-swap-in-pct",
                source: "Fleet artifact evaluation/exp-cache-app/gc-working-set-twitch-with-BGC.log (RegionSpace::Debug after RelocateHotness): 25 launch regions of 103 sorted (24.3 %; 77 cold, 1 working set), Twitch's heap; taking that share for all the swapped memory is an assumption",
                "fleet: share of a cached app's swapped memory a hot launch from zram waits for (its launch objects); the rest comes back after the first frame")
            .plausible(.values("10", "50"), "one app's heap measured (Twitch, 24.3 %); other apps and the memory outside the heap are not")
            .omittedAtDefaultValue(),
    ]
}
