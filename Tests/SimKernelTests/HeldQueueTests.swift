import Testing
import SimKernel

/// A queue held by a run (`holdForRun`) takes the inlined push into an empty queue's
/// spare slot (`EventQueue.push`) most of the time; it must pop exactly what the
/// general path, and a plain sorted list, would.
@Suite("A held queue's empty-queue push keeps the (time, sequence) order")
struct HeldQueueTests {
    @Test("random pushes and pops on a held queue, often emptied, match a sorted reference", arguments: 0..<20)
    func heldMatchesReference(seed: Int) {
        var g = Xoshiro256StarStar(seed: UInt64(seed), 7)
        var queue = EventQueue<Int>()
        var plain = EventQueue<Int>()  // never held: every push takes the general path
        queue.holdForRun()
        var reference: [(time: Int64, seq: Int, id: Int)] = []
        var seq = 0
        var now: Int64 = 0
        var emptyPushes = 0
        for id in 0..<4_000 {
            // Mostly none to two pending, as a device's timers: pops a little more
            // often than pushes, so the queue keeps coming back to empty.
            if g.nextUnit() < 0.4 || reference.isEmpty {
                let time = now + Int64(g.nextIndex(5))
                if queue.isEmpty { emptyPushes += 1 }
                queue.push(id, at: SimTime(microseconds: time))
                plain.push(id, at: SimTime(microseconds: time))
                reference.append((time, seq, id))
                seq += 1
            } else {
                let e = queue.popMin()
                let p = plain.popMin()
                let i = reference.indices.min { (reference[$0].time, reference[$0].seq) < (reference[$1].time, reference[$1].seq) }!
                let r = reference.remove(at: i)
                #expect(e?.event == r.id && e?.time.microseconds == r.time && e?.sequence == UInt64(r.seq))
                #expect(p?.event == r.id && p?.sequence == e?.sequence)
                now = r.time
            }
            #expect(queue.count == reference.count && queue.pushedCount == UInt64(seq))
            #expect(queue.isValidHeap())
        }
        queue.release()
        // The fast path was taken often (an empty queue with a spare slot).
        #expect(emptyPushes > 500, "only \(emptyPushes) pushes into an empty queue")
        let rest = reference.sorted { ($0.time, $0.seq) < ($1.time, $1.seq) }.map(\.id)
        var drained: [Int] = []
        while let e = queue.popMin() { drained.append(e.event) }
        #expect(drained == rest)
    }
}
