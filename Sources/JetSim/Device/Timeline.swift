import SimKernel

/// A device's user timeline: the actions in time order, plus what the oracle needs
/// to look ahead (the time of each app's next use).
///
/// Built before the device runs (by the synthetic user, a scenario file or a usage
/// trace) and shared read-only by every policy and RAM size that runs it.
public struct Timeline: Sendable {
    public var actions: ContiguousArray<UserAction> = []
    /// For a use (launch, switcher-pick) at index i: when the same app is next used,
    /// as a rank that orders uses as the timeline does (its position in `actions`,
    /// held in a `SimTime`), or `SimTime.never`. Positions, not times: uses at the
    /// same time are ordered as the user makes them, so the oracle is exactly Belady
    /// (it only compares these; a position is in time order, as `actions` is).
    public var nextUseAfter: ContiguousArray<SimTime> = []
    /// Each app's first use (as a rank, like `nextUseAfter`), or `SimTime.never`.
    public var firstUse: ContiguousArray<SimTime> = []
    /// The device's index of `actions[0]`: 0 for a timeline built whole; a replay fed
    /// chunk by chunk (`ReplayFeed`) drops the actions performed and counts them here.
    public internal(set) var base = 0
    /// For a chunked replay whose device prewarms: the app of each dropped action
    /// below `base` that is a use, else -1 (4 bytes an action, what the prewarm
    /// target's draw over past actions reads: `Device.prewarmTarget`). Empty otherwise.
    var pastUses = ContiguousArray<Int32>()

    public init() {}

    public init(actions: [UserAction], appCount: Int) {
        self.actions = ContiguousArray(actions)
        computeNextUses(appCount: appCount)
    }

    /// Empties the timeline, keeping storage.
    public mutating func removeAll() {
        actions.removeAll(keepingCapacity: true)
        nextUseAfter.removeAll(keepingCapacity: true)
        firstUse.removeAll(keepingCapacity: true)
        pastUses.removeAll(keepingCapacity: true)
        base = 0
    }

    /// Drops the first `k` actions (performed), keeping storage: `base` counts them,
    /// and, if `recordUses`, `pastUses` keeps their apps (uses) or -1.
    mutating func dropFirst(_ k: Int, recordUses: Bool) {
        guard k > 0 else { return }
        if recordUses {
            precondition(pastUses.count == base, "the past uses of a chunked timeline start at its first action")
            for i in 0..<k {
                let a = actions[i]
                pastUses.append(a.kind.isUse && a.app >= 0 ? a.app : -1)
            }
        }
        actions.removeSubrange(0..<k)
        if !nextUseAfter.isEmpty { nextUseAfter.removeSubrange(0..<min(k, nextUseAfter.count)) }
        base += k
    }

    /// Fills `nextUseAfter` and `firstUse` by one backward pass. O(actions + apps).
    public mutating func computeNextUses(appCount: Int) {
        firstUse.removeAll(keepingCapacity: true)
        firstUse.append(contentsOf: repeatElement(.never, count: appCount))
        nextUseAfter.removeAll(keepingCapacity: true)
        nextUseAfter.append(contentsOf: repeatElement(.never, count: actions.count))
        // Through buffer pointers: one pass with no uniqueness or bounds check per action.
        actions.withUnsafeBufferPointer { actions in
            nextUseAfter.withUnsafeMutableBufferPointer { next in
                firstUse.withUnsafeMutableBufferPointer { first in
                    var i = actions.count - 1
                    while i >= 0 {
                        let a = actions[i]
                        if a.kind.isUse && a.app >= 0 {
                            precondition(Int(a.app) < first.count, "action \(i) names app \(a.app) of \(first.count)")
                            next[i] = first[Int(a.app)]
                            first[Int(a.app)] = SimTime(microseconds: Int64(i))
                        }
                        i -= 1
                    }
                }
            }
        }
    }

    /// The number of actions.
    public var count: Int { actions.count }
}
