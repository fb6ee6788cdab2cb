import Testing
import SimKernel
import JetSim

@Suite("IndexedHeaps: several keyed heaps over the same apps")
struct IndexedHeapsTests {
    /// Random sets (moves between heaps, key changes) and removes, checked after each
    /// against a plain table: each heap's count, its minimum by (key, app), and the heap
    /// each app is in. A copy taken half way keeps its own contents (copy-on-write).
    @Test("min, count and heap(of:) match a plain table after random sets and removes", arguments: [1, 2, 3] as [UInt64])
    func againstTable(seed: UInt64) {
        let apps = 60, heapCount = 3
        var heaps = IndexedHeaps(count: heapCount)
        heaps.reset(appCount: apps)
        var table = [(heap: Int, key: Int64)](repeating: (-1, 0), count: apps)
        var g = SplitMix64(state: seed)
        var copy: IndexedHeaps?
        var copyTable = table
        for step in 0..<2_000 {
            let app = Int32(g.next() % UInt64(apps))
            if g.next() % 4 == 0 {
                heaps.remove(app)
                table[Int(app)] = (-1, 0)
            } else {
                // Few distinct keys, so ties (broken by the smaller app) are frequent.
                let key = Int64(g.next() % 8) - 4, h = Int(g.next() % UInt64(heapCount))
                heaps.set(app, key, in: h)
                table[Int(app)] = (h, key)
            }
            if step == 1_000 { copy = heaps; copyTable = table }
            Self.check(heaps, table, heapCount)
        }
        Self.check(copy!, copyTable, heapCount)
        // A reset empties every heap.
        heaps.reset(appCount: apps)
        for h in 0..<heapCount { #expect(heaps.count(h) == 0 && heaps.min(h) == nil) }
    }

    static func check(_ heaps: IndexedHeaps, _ table: [(heap: Int, key: Int64)], _ heapCount: Int) {
        for h in 0..<heapCount {
            let members = table.indices.filter { table[$0].heap == h }
            let expected = members.min { (table[$0].key, $0) < (table[$1].key, $1) }.map { Int32($0) }
            #expect(heaps.count(h) == members.count)
            #expect(heaps.min(h) == expected)
        }
        for a in table.indices { #expect(heaps.heap(of: Int32(a)) == table[a].heap) }
    }
}
