/// What a model supplies to run on the engine: the type of its events and how it
/// handles one. The driver is generic over the model, so calls are specialised by
/// the compiler: no existential, closure or class instance per event.
public protocol EventHandler {
    /// A small plain struct (or enum) describing one event.
    associatedtype Event

    /// Whether `event` was cancelled after it was scheduled (for example, its
    /// generation stamp is stale). Cancelled events are skipped without advancing
    /// the clock. The default says no event is ever cancelled.
    func isCancelled(_ event: Event) -> Bool

    /// Handles `event` at the scheduler's current time; may schedule further events.
    mutating func handle(_ event: Event, scheduler: inout Scheduler<Event>)

    /// The time of the model's next *input*, or nil when it has none left. Inputs are
    /// events the model feeds from its own time-ordered stream (a precomputed
    /// timeline, say) instead of pushing each one through the queue: they cost no heap
    /// operation. Ordering is exactly as if each input had been scheduled at the moment
    /// the previous input was handled (or at the start, for the first): by time, and
    /// at equal times by that moment against the events' sequence numbers. The default
    /// is nil: no inputs.
    var nextInputTime: SimTime? { get }

    /// Handles the next input at the scheduler's current time (its `nextInputTime`),
    /// and advances the input stream.
    mutating func handleInput(scheduler: inout Scheduler<Event>)

    /// Handles the next input, as `handleInput`, then, while the queue stays empty, the
    /// inputs after it with times ≤ `end`, each at its time (`Scheduler.advance(toInput:)`),
    /// at most `limit` in all; returns how many it handled (at least 1). With the queue
    /// empty the next input is the next event whatever its time (`Simulation.next`), so
    /// these are exactly the inputs, in the order and at the times, that one engine step
    /// each would handle; the engine counts each one, and tells its observer 0 pending
    /// after each but the last (the queue was empty then). What it saves is the engine's
    /// step per input: its queue check, clock, counters and the call. The default
    /// handles one.
    mutating func handleInputs(notAfter end: SimTime, limit: Int, scheduler: inout Scheduler<Event>) -> Int

    /// A run starts (`Simulation.run(until:)`): every `handle` and `handleInput` until
    /// `endRun()` comes from that run's loop, with nothing else holding the model. A
    /// model with copy-on-write storage can make it unique here, once, and skip the
    /// check at each event (as the event queue does, `EventQueue.holdForRun`). The
    /// default does nothing.
    mutating func beginRun()

    /// The run that `beginRun()` announced ended. The default does nothing.
    mutating func endRun()
}

extension EventHandler {
    @inlinable public func isCancelled(_ event: Event) -> Bool { false }
    @inlinable public var nextInputTime: SimTime? { nil }
    @inlinable public mutating func handleInput(scheduler: inout Scheduler<Event>) {}
    @inlinable public mutating func handleInputs(notAfter end: SimTime, limit: Int, scheduler: inout Scheduler<Event>) -> Int {
        handleInput(scheduler: &scheduler)
        return 1
    }
    @inlinable public mutating func beginRun() {}
    @inlinable public mutating func endRun() {}
}

/// The clock and the future event set, as a model sees them while handling an event.
public struct Scheduler<Event> {
    @usableFromInline var _now: SimTime
    /// The current simulated time.
    @inlinable public var now: SimTime { _now }
    /// The pending events.
    public var queue: EventQueue<Event>

    @inlinable public init(capacity: Int = 0) {
        _now = .zero
        queue = EventQueue(capacity: capacity)
    }

    /// Schedules `event` at absolute time `time`, which must not be in the past.
    @inlinable public mutating func schedule(_ event: Event, at time: SimTime) {
        precondition(time >= _now, "an event cannot be scheduled in the past")
        queue.push(event, at: time)
    }

    /// Schedules `event` after `delay` (non-negative) from now.
    @inlinable public mutating func schedule(_ event: Event, after delay: SimTime) {
        precondition(delay.microseconds >= 0, "an event cannot be scheduled in the past")
        queue.push(event, at: _now + delay)
    }

    /// Moves the clock to the next input's time `time`, for a model handling several
    /// inputs in one call (`EventHandler.handleInputs`): only while no event is
    /// pending, and never back.
    @inlinable @inline(__always) public mutating func advance(toInput time: SimTime) {
        precondition(time >= _now && queue.isEmpty, "an input can be handled early only when no event is pending")
        _now = time
    }

    /// Empties the queue and sets the clock to zero, keeping storage.
    @inlinable public mutating func reset() {
        _now = .zero
        queue.removeAll()
    }
}

/// The driver: pops events in `(time, sequence)` order and hands them to the model.
///
/// `run(until:)` is resumable: running to T1 and then to T2 processes exactly the
/// events that one run to T2 would, in the same order.
public struct Simulation<Model: EventHandler> {
    public var model: Model
    public var scheduler: Scheduler<Model.Event>
    @usableFromInline var _eventsHandled: Int = 0
    @usableFromInline var _eventsSkipped: Int = 0
    /// The sequence number the model's next input counts as scheduled with.
    @usableFromInline var inputSequence: UInt64 = 0
    /// Events handed to the model so far.
    @inlinable public var eventsHandled: Int { _eventsHandled }
    /// Cancelled events skipped so far.
    @inlinable public var eventsSkipped: Int { _eventsSkipped }

    @inlinable public init(model: Model, capacity: Int = 0) {
        self.model = model
        self.scheduler = Scheduler(capacity: capacity)
    }

    /// The current simulated time.
    @inlinable public var now: SimTime { scheduler.now }

    /// Empties the queue, sets the clock and the counters to zero, and keeps every
    /// buffer, so a simulation can be reused without allocating. The model is left
    /// as it is (reset it yourself).
    @inlinable public mutating func reset() {
        scheduler.reset()
        _eventsHandled = 0
        _eventsSkipped = 0
        inputSequence = 0
    }

    /// Schedules an event from outside the model (initial events, say).
    @inlinable public mutating func schedule(_ event: Model.Event, at time: SimTime) {
        scheduler.schedule(event, at: time)
    }

    /// Handles the next live event (or input), skipping cancelled events. Returns
    /// `false` when nothing was left.
    @inlinable @discardableResult
    public mutating func step() -> Bool {
        var none = NoRunObserver()
        return next(notAfter: .never, inputs: 1, observer: &none)
    }

    /// Handles one event or input with time ≤ `end` (or, when an input is next, up to
    /// `inputs` inputs while no event is pending: `EventHandler.handleInputs`); false
    /// if there was none. The next input comes first when it is earlier than the
    /// queue's next event, or at the same time and "scheduled" (when the previous input
    /// was handled) no later than that event. The queue's top is read in place
    /// (`minAddress` settles it), and taken without a second look (`removeSettledMin`).
    @inlinable @inline(__always)
    mutating func next<O: RunObserver>(notAfter end: SimTime, inputs: Int, observer: inout O) -> Bool {
        while true {
            // The top's address, not a copy: its fields are read as they are needed
            // (the event only once it is taken), with no optional entry to build.
            let top = scheduler.queue.minAddress()
            if let input = model.nextInputTime, input <= end {
                let first: Bool
                if let top {
                    let time = top.pointee.time
                    first = input < time || (input == time && inputSequence <= top.pointee.sequence)
                } else {
                    first = true
                }
                if first {
                    scheduler._now = input
                    let k = model.handleInputs(notAfter: end, limit: inputs, scheduler: &scheduler)
                    _eventsHandled &+= k
                    inputSequence = scheduler.queue.pushedCount
                    // Each input but the last left the queue empty (`handleInputs`).
                    var i = 1
                    while i < k { observer.handled(pending: 0); i &+= 1 }
                    observer.handled(pending: scheduler.queue.count)
                    return true
                }
            }
            guard let top else { return false }
            let time = top.pointee.time
            guard time <= end else { return false }
            // Read before `removeSettledMin`, which may move the entry out (non-trivial events).
            let event = top.pointee.event
            scheduler.queue.removeSettledMin()
            if model.isCancelled(event) {
                _eventsSkipped &+= 1
                continue
            }
            scheduler._now = time
            _eventsHandled &+= 1
            model.handle(event, scheduler: &scheduler)
            observer.handled(pending: scheduler.queue.count)
            return true
        }
    }

    /// Handles every event with time ≤ `end`, then sets the clock to `end` (if it is
    /// later than now). Events after `end` stay pending for a later call.
    @inlinable
    public mutating func run(until end: SimTime) {
        var none = NoRunObserver()
        run(until: end, observer: &none)
    }

    /// `run(until:)`, telling `observer` how many events were pending after each one
    /// handled (for measurements; with `NoRunObserver` it compiles away).
    @inlinable
    public mutating func run<O: RunObserver>(until end: SimTime, observer: inout O) {
        // The queue's writes check no uniqueness until the run ends (`holdForRun`).
        // Nor do the model's, if it holds its storage likewise (`EventHandler.beginRun`).
        scheduler.queue.holdForRun()
        model.beginRun()
        while next(notAfter: end, inputs: .max, observer: &observer) {}
        model.endRun()
        scheduler.queue.release()
        if end > scheduler._now { scheduler._now = end }
    }

    /// Handles events until none is left.
    @inlinable public mutating func runToCompletion() {
        while step() {}
    }
}

/// Watches a run event by event (see `Simulation.run(until:observer:)`).
public protocol RunObserver {
    mutating func handled(pending: Int)
}

/// The observer that does nothing.
public struct NoRunObserver: RunObserver {
    @inlinable public init() {}
    @inlinable @inline(__always) public mutating func handled(pending: Int) {}
}

/// Averages the number of pending events over a run.
public struct PendingAverage: RunObserver {
    /// Events handled, and the sum of the pending counts after each.
    public var events = 0
    public var pendingSum = 0
    public init() {}
    @inlinable public mutating func handled(pending: Int) {
        events &+= 1
        pendingSum &+= pending
    }
    /// The mean number of pending events after each event handled.
    public var mean: Double { events == 0 ? 0 : Double(pendingSum) / Double(events) }
}
