import Testing
import SimKernel
@testable import JetSim

/// `MultiList` against a plain model (one array per list), inside and outside a run's
/// hold (`beginRun`: the nodes made unique once, then written without a check per
/// update), and its copies: a copy taken outside a run keeps its lists while the
/// original changes (debug builds also assert uniqueness at every write).
@Suite("MultiList: intrusive FIFO lists")
struct MultiListTests {
    /// The apps of each list, head to tail, walked through `head` and `next`; and
    /// each app's `list(of:)` checked against where the walk found it.
    static func lists(_ m: MultiList, lists: Int, apps: Int) -> [[Int32]] {
        var out: [[Int32]] = []
        var seen = [Int](repeating: -1, count: apps)
        for l in 0..<lists {
            var row: [Int32] = []
            var a = m.head(l)
            while a >= 0 {
                row.append(a)
                seen[Int(a)] = l
                a = m.next(a)
                if row.count > apps { break }  // a cycle: the comparison below fails
            }
            out.append(row)
        }
        for a in 0..<apps { #expect(m.list(of: Int32(a)) == seen[a], "app \(a)") }
        return out
    }

    /// `steps` random appends and removals, checked against the model after each.
    static func exercise(_ m: inout MultiList, _ model: inout [[Int32]], lists: Int, apps: Int,
                         steps: Int, _ g: inout Xoshiro256StarStar) -> Int {
        var mismatches = 0
        for _ in 0..<steps {
            let app = Int32(g.next() % UInt64(apps))
            for l in 0..<lists { model[l].removeAll { $0 == app } }
            if g.next() % 4 == 0 {
                m.remove(app)
            } else {
                let l = Int(g.next() % UInt64(lists))
                m.append(app, to: l)
                model[l].append(app)
            }
            if Self.lists(m, lists: lists, apps: apps) != model { mismatches += 1 }
        }
        return mismatches
    }

    @Test("random appends and removals give the plain model's lists, held by a run or not")
    func againstModel() {
        let lists = 6, apps = 40
        var g = Xoshiro256StarStar(seed: 12, 1)
        var m = MultiList(lists: lists)
        m.reset(appCount: apps)
        var model = [[Int32]](repeating: [], count: lists)
        #expect(Self.exercise(&m, &model, lists: lists, apps: apps, steps: 2_000, &g) == 0)
        m.beginRun()
        #expect(m.held)
        #expect(Self.exercise(&m, &model, lists: lists, apps: apps, steps: 2_000, &g) == 0)
        m.endRun()
        #expect(!m.held)
        #expect(Self.exercise(&m, &model, lists: lists, apps: apps, steps: 500, &g) == 0)
        #expect(model.map(\.count).reduce(0, +) > 0)
    }

    @Test("a copy taken outside a run keeps its lists while the original changes, before and after a run")
    func copies() {
        let lists = 3, apps = 10
        var m = MultiList(lists: lists)
        m.reset(appCount: apps)
        for a in 0..<Int32(apps) { m.append(a, to: Int(a) % lists) }
        let copy = m
        let before = Self.lists(copy, lists: lists, apps: apps)
        m.append(0, to: 2)
        m.remove(4)
        #expect(Self.lists(copy, lists: lists, apps: apps) == before)
        #expect(Self.lists(m, lists: lists, apps: apps) != before)
        // A run's hold makes the shared nodes unique first.
        var second = copy
        second.beginRun()
        second.append(1, to: 0)
        second.endRun()
        #expect(Self.lists(copy, lists: lists, apps: apps) == before)
        #expect(Self.lists(second, lists: lists, apps: apps)[0] == [0, 3, 6, 9, 1])
    }

    @Test("a device's run holds its policy's lists: a copy taken between runs keeps them, then runs to the same lists")
    func deviceRunHoldsPolicyLists() throws {
        _ = try RunHoldTests.copyBetweenRuns(JetsamBands.self, held: { $0.policy.bands.held },
                                             state: { Self.lists($0.policy.bands, lists: 6, apps: $0.apps.count) })
    }
}
