import SimKernel

// Fleet (Huang et al., ASPLOS 2024, "More Apps, Faster Hot-Launch on Mobile Devices
// via Fore/Background-aware GC-Swap Co-design"; artifact github.com/jiachengh/Fleet at
// 32f22f7): Android's memory manager (lmkd, zram, ActivityManager: Memory/Android/)
// with ART and the kernel changed. Sources on the schema keys (`Schema.fleetKnobs`).

/// Fleet's parameters of a device class (`os: fleet`); Android's are `params.android`.
/// No defaults here: each knob's one default is the workload's (`FleetClass`), and
/// `init()` (Workload+Fleet.swift) is built from it.
public struct FleetParameters: Sendable, Equatable {
    /// `os: fleet`: Android's manager with Fleet's changes (`MemoryManagerKind.fleet`).
    public var enabled: Bool
    /// The share of a cached app's Java heap its background GC touches: only the
    /// background objects (Fig. 12a: 14.5 % of what stock Android's GC touches).
    public var gcTouchShare: Double
    /// The share of a cached app's swapped memory a hot launch waits for: its launch
    /// objects (the rest comes back on demand after the first frame).
    public var launchSwapInShare: Double
}
