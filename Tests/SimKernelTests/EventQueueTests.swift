import Testing
import SimKernel

@Suite("The future event set pops in (time, sequence) order")
struct EventQueueTests {
    struct Tagged: Equatable { var id: Int; var slot: Int; var stamp: UInt32 }

    @Test("random push, pop and cancel sequences match a sorted reference", arguments: 0..<40)
    func matchesReference(seed: Int) {
        var g = Xoshiro256StarStar(seed: UInt64(seed), 1)
        var queue = EventQueue<Tagged>()
        var generations = GenerationTable(slots: 16)
        // Reference: a plain list, popped by scanning for the smallest (time, seq).
        var reference: [(time: Int64, seq: Int, tag: Tagged)] = []
        var seq = 0
        var nextID = 0
        var now: Int64 = 0
        for _ in 0..<3_000 {
            let r = g.nextUnit()
            if r < 0.5 {
                // Push at now + small delay: plenty of equal times.
                let time = now + Int64(g.nextIndex(20))
                let slot = g.nextIndex(16)
                let tag = Tagged(id: nextID, slot: slot, stamp: generations.current(slot))
                nextID += 1
                queue.push(tag, at: SimTime(microseconds: time))
                reference.append((time, seq, tag))
                seq += 1
            } else if r < 0.6 {
                generations.cancel(g.nextIndex(16))
            } else {
                // Pop the next live event from both.
                var popped: Tagged? = nil
                while let e = queue.popMin() {
                    if generations.isCurrent(e.event.slot, e.event.stamp) {
                        popped = e.event
                        now = e.time.microseconds
                        break
                    }
                }
                var expected: Tagged? = nil
                while let i = reference.indices.min(by: {
                    (reference[$0].time, reference[$0].seq) < (reference[$1].time, reference[$1].seq)
                }) {
                    let e = reference.remove(at: i)
                    if generations.isCurrent(e.tag.slot, e.tag.stamp) {
                        expected = e.tag
                        break
                    }
                }
                #expect(popped == expected)
            }
            #expect(queue.isValidHeap())
        }
        // Drain: the rest comes out sorted too.
        let rest = reference.sorted { ($0.time, $0.seq) < ($1.time, $1.seq) }.map(\.tag)
        var drained: [Tagged] = []
        while let e = queue.popMin() { drained.append(e.event) }
        #expect(drained == rest)
    }

    @Test("events at equal times pop in the order they were pushed")
    func fifoAmongEqualTimes() {
        var queue = EventQueue<Int>()
        for i in 0..<1_000 { queue.push(i, at: .seconds(Int64(i % 3))) }
        var out: [Int] = []
        while let e = queue.popMin() { out.append(e.event) }
        let expected = (0..<3).flatMap { r in (0..<1_000).filter { $0 % 3 == r } }
        #expect(out == expected)
    }

    @Test("a warmed queue with reserved capacity does not grow")
    func reservedCapacityHolds() {
        var queue = EventQueue<Int>(capacity: 1_024)
        let capacity = queue.capacity
        var g = Xoshiro256StarStar(seed: 7)
        for i in 0..<1_024 { queue.push(i, at: SimTime(microseconds: Int64(g.nextIndex(1_000)))) }
        for _ in 0..<100_000 {
            let e = queue.popMin()!
            queue.push(e.event, at: e.time + SimTime(microseconds: Int64(g.nextIndex(1_000))))
        }
        #expect(queue.capacity == capacity)
        #expect(queue.count == 1_024)
    }

    @Test("interleaved pops and pushes (the root hole) keep the order and the count")
    func holeBookkeeping() {
        var q = EventQueue<Int>()
        for i in 0..<5 { q.push(i, at: .seconds(Int64(10 - i))) }
        #expect(q.popMin()?.event == 4)
        #expect(q.count == 4)
        #expect(q.isValidHeap())
        q.push(99, at: .seconds(1))  // drops into the hole
        #expect(q.count == 5)
        #expect(q.nextTime() == .seconds(1))
        #expect(q.popMin()?.event == 99)
        #expect(q.popMin()?.event == 3)  // pop after pop settles the hole first
        #expect(q.popMin(notAfter: .seconds(7)) == nil)
        #expect(q.popMin(notAfter: .seconds(8))?.event == 2)
        #expect(q.count == 2)
        var rest: [Int] = []
        while let e = q.popMin() { rest.append(e.event) }
        #expect(rest == [1, 0] && q.isEmpty && q.popMin() == nil)
    }

    @Test("a pop of the last entry leaves its slot spare; the next push reuses it, in order")
    func spareSlotsReused() {
        var q = EventQueue<Int>(capacity: 4)
        let capacity = q.capacity
        for i in 0..<1_000 {
            // One pending at most, then two: the sizes a device's timers go through.
            q.push(i, at: .seconds(Int64(i)))
            if i % 2 == 0 { q.push(-i, at: .seconds(Int64(i))) }
            #expect(q.popMin()?.event == i)
            if i % 2 == 0 { #expect(q.popMin()?.event == -i) }
            #expect(q.isEmpty && q.popMin() == nil && q.isValidHeap())
        }
        #expect(q.capacity == capacity && q.pushedCount == 1_500)
    }

    @Test("a copy of the queue is independent of the original (copy-on-write)")
    func copiesAreIndependent() {
        var q = EventQueue<Int>()
        q.push(1, at: .seconds(1))
        q.push(2, at: .seconds(2))
        #expect(q.popMin()?.event == 1)  // the root is now a hole
        var c = q
        c.push(3, at: .zero)
        #expect(q.popMin()?.event == 2 && q.isEmpty)
        #expect(c.popMin()?.event == 3 && c.popMin()?.event == 2 && c.isEmpty)
    }

    @Test("events that hold references are released when popped (no spare slot keeps them)")
    func referencesReleased() {
        final class Box {}
        weak var first: Box?
        weak var second: Box?
        var q = EventQueue<Box>()
        do {
            let a = Box(), b = Box()
            first = a
            second = b
            q.push(a, at: .seconds(1))
            q.push(b, at: .seconds(2))
        }
        _ = q.popMin()
        _ = q.popMin()  // settles the hole, then empties the queue
        #expect(first == nil && second == nil && q.isEmpty)
    }

    @Test("removeAll restarts sequence numbers so a reused queue behaves like a new one")
    func removeAllRestarts() {
        var a = EventQueue<Int>()
        for i in 0..<10 { a.push(i, at: .zero) }
        a.removeAll()
        #expect(a.isEmpty && a.pushedCount == 0)
        a.push(1, at: .seconds(1))
        #expect(a.min()?.sequence == 0)
    }
}

@Suite("The driver runs a model's events in order and can be resumed")
struct SimulationTests {
    /// A model that records the order it handled events in and reschedules some.
    struct Recorder: EventHandler {
        struct Event { var id: Int; var slot: Int; var stamp: UInt32 }
        var log: [(SimTime, Int)] = []
        var generations = GenerationTable(slots: 4)

        func isCancelled(_ e: Event) -> Bool { !generations.isCurrent(e.slot, e.stamp) }

        mutating func handle(_ e: Event, scheduler: inout Scheduler<Event>) {
            log.append((scheduler.now, e.id))
            if e.id < 100 {
                scheduler.schedule(Event(id: e.id + 100, slot: 0, stamp: generations.current(0)), after: .seconds(1))
            }
        }
    }

    func seeded() -> Simulation<Recorder> {
        var sim = Simulation(model: Recorder())
        for i in 0..<5 {
            sim.schedule(.init(id: i, slot: 0, stamp: 0), at: .seconds(Int64(i * 2)))
        }
        return sim
    }

    @Test("run(until:) handles events up to and including the end, then sets the clock")
    func runUntil() {
        var sim = seeded()
        sim.run(until: .seconds(3))
        #expect(sim.model.log.map(\.1) == [0, 100, 1, 101])
        #expect(sim.now == .seconds(3))
    }

    @Test("running to T1 then to T2 equals one run to T2")
    func resumable() {
        var a = seeded()
        a.run(until: .seconds(3))
        a.run(until: .seconds(7))
        var b = seeded()
        b.run(until: .seconds(7))
        #expect(a.model.log.map(\.1) == b.model.log.map(\.1))
        #expect(a.model.log.map(\.0) == b.model.log.map(\.0))
        #expect(a.now == b.now && a.eventsHandled == b.eventsHandled)
    }

    @Test("cancelled events are skipped without moving the clock")
    func cancellation() {
        var sim = Simulation(model: Recorder())
        sim.schedule(.init(id: 500, slot: 1, stamp: 0), at: .seconds(1))
        sim.schedule(.init(id: 501, slot: 2, stamp: 0), at: .seconds(5))
        sim.model.generations.cancel(2)
        sim.runToCompletion()
        #expect(sim.model.log.map(\.1) == [500])
        #expect(sim.eventsSkipped == 1)
        #expect(sim.now == .seconds(1))
    }

    @Test("step returns false when nothing is left")
    func stepEnds() {
        var sim = Simulation(model: Recorder())
        #expect(sim.step() == false)
        sim.schedule(.init(id: 200, slot: 0, stamp: 0), at: .seconds(2))
        #expect(sim.step() == true)
        #expect(sim.step() == false)
        #expect(sim.now == .seconds(2))
    }
}

@Suite("Model inputs interleave with queued events exactly as if each had been queued")
struct InputStreamTests {
    /// Events are (time, id); handling an event with id < 1000 schedules a timer at
    /// `time + delay` (often equal to a later input's time, to force ties).
    struct Model: EventHandler {
        struct Event { var id: Int }
        var inputs: [(SimTime, Int)]
        var viaInputs: Bool
        var nextInput = 0
        var log: [Int] = []
        let delays: [Int64]
        /// Every third input schedules no timer (so the queue empties), and inputs are
        /// handled several to a call while it is empty (`handleInputs`).
        var quiet = false
        var batches = false
        /// The clock at each input, and the calls that handled more than one.
        var times: [SimTime] = []
        var batchedCalls = 0

        var nextInputTime: SimTime? { viaInputs && nextInput < inputs.count ? inputs[nextInput].0 : nil }

        mutating func handleInput(scheduler: inout Scheduler<Event>) {
            let id = inputs[nextInput].1
            nextInput += 1
            times.append(scheduler.now)
            react(id, &scheduler)
        }

        mutating func handleInputs(notAfter end: SimTime, limit: Int, scheduler s: inout Scheduler<Event>) -> Int {
            guard batches else { handleInput(scheduler: &s); return 1 }
            var k = 0
            while true {
                handleInput(scheduler: &s)
                k += 1
                guard k < limit, s.queue.isEmpty, let t = nextInputTime, t <= end else { break }
                s.advance(toInput: t)
            }
            if k > 1 { batchedCalls += 1 }
            return k
        }

        mutating func handle(_ e: Event, scheduler: inout Scheduler<Event>) {
            if !viaInputs && e.id < 1_000 {
                // The queued version of the stream: the next input is pushed right after
                // this one is handled.
                react(e.id, &scheduler)
                nextInput += 1
                if nextInput < inputs.count { scheduler.schedule(Event(id: inputs[nextInput].1), at: inputs[nextInput].0) }
                return
            }
            react(e.id, &scheduler)
        }

        mutating func react(_ id: Int, _ s: inout Scheduler<Event>) {
            log.append(id)
            if id < 1_000 && !(quiet && id % 3 == 0) {
                s.schedule(Event(id: 1_000 + id), after: .seconds(delays[id % delays.count]))
            }
        }
    }

    /// 300 inputs at times that step by 0..<maxGap seconds (so many are equal), then
    /// `delayKinds` timer delays of 0..<maxDelay seconds, from one seeded stream.
    static func randomInputs(seed: UInt64, stream: UInt64, maxGap: Int, delayKinds: Int, maxDelay: Int)
        -> (inputs: [(SimTime, Int)], delays: [Int64]) {
        var g = Xoshiro256StarStar(seed: seed, stream)
        var t: Int64 = 0
        var inputs: [(SimTime, Int)] = []
        for i in 0..<300 {
            t += Int64(g.nextIndex(maxGap))
            inputs.append((.seconds(t), i))
        }
        let delays = (0..<delayKinds).map { _ in Int64(g.nextIndex(maxDelay)) }
        return (inputs, delays)
    }

    @Test("the same order as pushing each input after the previous one, ties included", arguments: 0..<20)
    func sameOrder(seed: UInt64) {
        let (inputs, delays) = Self.randomInputs(seed: seed, stream: 9, maxGap: 3, delayKinds: 7, maxDelay: 4)  // many equal times
        var a = Simulation(model: Model(inputs: inputs, viaInputs: true, delays: delays))
        a.run(until: .seconds(10_000))
        var b = Simulation(model: Model(inputs: inputs, viaInputs: false, delays: delays))
        b.schedule(.init(id: inputs[0].1), at: inputs[0].0)
        b.run(until: .seconds(10_000))
        #expect(a.model.log == b.model.log)
        #expect(a.eventsHandled == b.eventsHandled)
        #expect(a.model.log.count == 600)
    }

    @Test("inputs handled several to a call while no event is pending give the same events, times, counts and pending figures", arguments: 0..<10)
    func batchedInputs(seed: UInt64) {
        let (inputs, delays) = Self.randomInputs(seed: seed, stream: 11, maxGap: 4, delayKinds: 5, maxDelay: 6)  // equal times too
        for stops: [Int64] in [[10_000], [3, 40, 41, 200, 201, 10_000]] {
            var runs: [Simulation<Model>] = []
            var observers: [PendingAverage] = []
            for batches in [false, true] {
                var sim = Simulation(model: Model(inputs: inputs, viaInputs: true, delays: delays, quiet: true, batches: batches))
                var observer = PendingAverage()
                for stop in stops { sim.run(until: .seconds(stop), observer: &observer) }
                runs.append(sim)
                observers.append(observer)
            }
            let (a, b) = (runs[0], runs[1])
            #expect(a.model.log == b.model.log && a.model.times == b.model.times)
            #expect(a.eventsHandled == b.eventsHandled && a.now == b.now)
            #expect(observers[0].events == observers[1].events && observers[0].pendingSum == observers[1].pendingSum)
            #expect(a.model.batchedCalls == 0 && b.model.batchedCalls > 0)
            #expect(b.model.log.count == 300 + 200)  // 100 quiet inputs schedule no timer
        }
        // `step` handles one input at a time, batching or not.
        var c = Simulation(model: Model(inputs: inputs, viaInputs: true, delays: delays, quiet: true, batches: true))
        var steps = 0
        while c.step() { steps += 1 }
        #expect(steps == c.eventsHandled && steps == 500 && c.model.batchedCalls == 0)
    }
}
