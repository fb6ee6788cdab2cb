/// Lazy cancellation of scheduled events without searching the event queue.
///
/// Each slot (a timer of some entity, say) has a generation counter. An event
/// scheduled for a slot carries the generation current at scheduling time; cancelling
/// the slot bumps its generation, so every event already in the queue for that slot
/// becomes stale and is skipped when it comes up. Both operations are O(1).
public struct GenerationTable: Sendable {
    @usableFromInline var generations: ContiguousArray<UInt32>

    /// A table of `slots` slots, all at generation zero.
    @inlinable public init(slots: Int) {
        generations = ContiguousArray(repeating: 0, count: slots)
    }

    /// The number of slots.
    @inlinable public var count: Int { generations.count }

    /// The stamp to put into an event scheduled now for `slot`. O(1).
    @inlinable public func current(_ slot: Int) -> UInt32 { generations[slot] }

    /// Makes every event stamped so far for `slot` stale, and returns the new stamp. O(1).
    @inlinable @discardableResult
    public mutating func cancel(_ slot: Int) -> UInt32 {
        generations[slot] &+= 1
        return generations[slot]
    }

    /// Whether an event stamped `stamp` for `slot` is still live. O(1).
    @inlinable public func isCurrent(_ slot: Int, _ stamp: UInt32) -> Bool {
        generations[slot] == stamp
    }

    /// Sets every slot back to generation zero, keeping storage; resizes when
    /// `slots` differs. Allocates only when growing.
    @inlinable public mutating func reset(slots: Int) {
        if generations.count == slots {
            for i in generations.indices { generations[i] = 0 }
        } else {
            generations.removeAll(keepingCapacity: true)
            generations.append(contentsOf: repeatElement(0, count: slots))
        }
    }
}
