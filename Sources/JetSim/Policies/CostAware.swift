import SimKernel

/// Weights of the `cost-aware` policy: what a lost edit and a lost place cost the
/// user, in milliseconds of their time. No published figures; chosen as the time to
/// redo one edit and to navigate back to where one was.
public struct CostAwareWeights: PolicyParameters, Equatable {
    /// Penalty per unsaved edit a kill would lose.
    public var unsavedEditPenalty: Double
    /// Penalty when a cold relaunch would lose the user's place.
    public var stateLossPenalty: Double

    public init(unsavedEditPenaltyMs: Double = 10_000, stateLossPenaltyMs: Double = 5_000) {
        self.unsavedEditPenalty = unsavedEditPenaltyMs
        self.stateLossPenalty = stateLossPenaltyMs
    }

    public init() { self.init(unsavedEditPenaltyMs: 10_000) }

    /// `policies.cost_aware`: `unsaved_edit_penalty_ms`, `state_loss_penalty_ms`.
    public static var keys: [PolicyKey<CostAwareWeights>] {
        [PolicyKey("unsaved_edit_penalty_ms", 0...1e9, \.unsavedEditPenalty),
         PolicyKey("state_loss_penalty_ms", 0...1e9, \.stateLossPenalty)]
    }
}

/// `cost-aware`: keep the apps whose relaunch would cost the user most. In the
/// spirit of GreedyDual-Size-Frequency (Cao and Irani 1997; Cherkasova 1998), each
/// candidate gets
///
///     H = L + launches × penalty / size
///
/// where `penalty` is what killing it adds to its next launch (cold launch with state
/// restoration minus a warm or hot resume) plus the unsaved edits it would lose and
/// the place it would lose (weighted by `CostAwareWeights`), `size` is the memory a
/// kill frees (MiB), and `launches` is its launch count on this device so far (the
/// frequency learned online). The victim has the lowest H, and L rises to that H:
/// apps not used for a while age out, because every later H starts from a higher L.
///
/// Index: a heap keyed by H. O(log n) per update and kill.
public struct CostAware: EvictionPolicy {
    public static let name = "cost-aware"
    public static let summary = "the lowest expected cost to the user per MiB freed (GreedyDual-Size-Frequency)"
    public static let sectionKey = "cost_aware"
    public typealias Parameters = CostAwareWeights

    var heap = IndexedHeap()
    /// The inflation value: the H of the last victim.
    var inflation = 0.0
    /// L when each app was last used (its H is recomputed from it when attributes
    /// change). Single precision: 4 bytes an app, ample for ordering.
    var base: ContiguousArray<Float> = []
    var weights = CostAwareWeights()

    public init() {}

    public mutating func reset(appCount: Int, context: PolicyContext) {
        heap.reset(appCount: appCount)
        inflation = 0
        weights = context.policies[CostAware.self]
        base.removeAll(keepingCapacity: true)
        base.append(contentsOf: repeatElement(0, count: appCount))
    }

    /// The expected cost of killing it, in ms per MiB freed, times its frequency.
    func priority(_ c: EvictionCandidate) -> Double {
        let launchPenalty = max(0, Double((c.coldLaunchCost - c.residentLaunchCost).microseconds) / 1_000)
        let lossPenalty = Double(c.unsavedEdits) * weights.unsavedEditPenalty
            + (c.preservesUIState ? 0 : weights.stateLossPenalty)
        let sizeMB = max(Double(c.residentKB) / 1_024, 1.0 / 1_024)
        return Double(max(c.launchCount, 1)) * (launchPenalty + lossPenalty) / sizeMB
    }

    @inline(__always)
    public mutating func update(_ app: Int32, _ c: EvictionCandidate) {
        if c.leftFront || !heap.contains(app) { base[Int(app)] = Float(inflation) }
        let h = Double(base[Int(app)]) + priority(c)
        // Non-negative doubles order like their bit patterns.
        heap.set(app, .init(Int64(bitPattern: h.bitPattern), c.lastUsed.microseconds))
    }

    public mutating func remove(_ app: Int32) { heap.remove(app) }

    public var stateBytes: Int { heap.stateBytes + base.capacity * 4 }

    public var hasCandidates: Bool { !heap.isEmpty }

    public func victim() -> Int32 { heap.min! }

    /// L rises to the victim's H.
    public mutating func willEvict(_ app: Int32) {
        inflation = Double(bitPattern: UInt64(bitPattern: heap.key(of: app).primary))
    }
}
