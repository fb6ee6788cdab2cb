import SimKernel

/// The lock-gap walk (`UsageReplay.walk`) as a cursor that can stop after any row and
/// go on later: the one definition of the actions a replayed row becomes, for a
/// timeline built whole (`UsageReplay.build`) and one fed chunk by chunk
/// (`ReplayFeed`).
struct ReplayCursor {
    /// The next row to walk.
    var row = 0
    /// When the device is free after the rows walked (`UsageReplay.walk`).
    var busyUntil = SimTime.zero
    var front: Int32 = -1
    var locked = true
    /// No action is left: every row walked, or the next one starts at or after `duration`.
    var done = false
    /// Actions at or after this are not replayed (`.never`: none).
    let duration: SimTime

    init(duration: SimTime) { self.duration = duration }

    /// The first action of the device: it starts locked.
    static var firstAction: UserAction { UserAction(time: .zero, kind: .lock) }

    /// Walks rows `row..<end` (stopping at the first that starts at or after
    /// `duration`), calling `emit` for each action in order: unlock (if locked), Home
    /// and a launch (if another app was in front), and Home and lock if the device
    /// locks after the use; actions at or after `duration` are left out.
    @inline(__always)
    mutating func walk(_ rows: UnsafeBufferPointer<UsageReplay.Use>, to end: Int,
                       _ emit: (_ kind: UserAction.Kind, _ time: SimTime, _ app: Int32) -> Void) {
        var i = row
        while i < end {
            let u = rows[i]
            let t = max(u.time, busyUntil)
            if t >= duration { done = true; break }
            let e = t + u.duration
            let next = i + 1 < rows.count ? rows[i + 1].time : SimTime.never
            let locks = next == .never || next - e > UsageReplay.lockGap
            if locked { emit(.unlock, t, -1); locked = false }
            if front != u.app {
                if front >= 0 { emit(.home, t, -1) }
                emit(.launch, t, u.app)
                front = u.app
            }
            if locks {
                if e < duration { emit(.home, e, -1) }
                if e + .seconds(1) < duration { emit(.lock, e + .seconds(1), -1) }
                front = -1
                locked = true
            }
            busyUntil = locks ? e + .seconds(1) : e
            i += 1
        }
        row = i
        if i >= rows.count || max(rows[i].time, busyUntil) >= duration { done = true }
    }

    /// `walk`'s timing of one row whose next row starts at `next` (`.never`: none),
    /// without its actions: `body(start, end)`.
    @inline(__always)
    mutating func step(_ u: UsageReplay.Use, next: SimTime, _ body: (_ start: SimTime, _ end: SimTime) -> Void) {
        let t = max(u.time, busyUntil)
        let e = t + u.duration
        body(t, e)
        let locks = next == .never || next - e > UsageReplay.lockGap
        busyUntil = locks ? e + .seconds(1) : e
    }

    /// A lower bound of the time of the next action (not `done`): the next row's start.
    func nextStart(_ rows: UnsafeBufferPointer<UsageReplay.Use>) -> SimTime { max(rows[row].time, busyUntil) }
}

/// One replayed device's timeline, fed to its simulation chunk by chunk, so that a
/// device of any length holds a bounded timeline (docs/performance.md, "Replay of one
/// long device"): the first `chunkRows` rows' actions, then, each time the run reaches
/// the next row's start, the actions not yet performed and the next rows' (the
/// simulation is run up to just before that start: `Simulation.run(until:)` in
/// pieces handles the same events as one run). The device's span is known at its
/// last chunk (`until`). Only the oracle needs the future: with `nextUses`, each
/// launch's next use is found by one walk before the run and kept as a 32-bit
/// position a launch. One per worker, reused device after device.
final class ReplayFeed {
    let chunkRows: Int
    /// The device's rows: `window` holds rows `windowStart..<windowStart + window.count`
    /// (all of them for a device read into memory, shared with the batch; a chunk and
    /// the next row for a spilled one, read back as the walk goes: `RowSpill`).
    private(set) var replay = UsageReplay()
    private(set) var device = 0
    private(set) var rowCount = 0
    var window = ContiguousArray<UsageReplay.Use>()
    var windowStart = 0
    private(set) var duration = SimTime.never
    /// With the oracle: for each launch of the device, in order, the position (action
    /// index) of the same app's next launch, `UInt32.max` for none; each app's first
    /// use as `Timeline.firstUse` holds it. Empty otherwise.
    private(set) var withNextUses = false
    var nextLaunch = ContiguousArray<UInt32>()
    var firstUse = ContiguousArray<SimTime>()
    /// Scratch of the walk that finds the next uses: each app's last launch.
    var lastLaunch = ContiguousArray<Int32>()
    /// The walk of the run in progress (its `row` within `window`), and the launches it has fed.
    var cursor = ReplayCursor(duration: .never)
    var launchesFed = 0
    /// The chunk's storage between runs (lent to the device during one).
    var buffer = Timeline()

    init(chunkRows: Int) {
        precondition(chunkRows > 0, "a replay chunk holds at least one row")
        self.chunkRows = chunkRows
    }

    /// Whether a device of `rows` rows can be fed: its action positions fit in 32 bits.
    static func fits(rows: Int) -> Bool { rows < (Int(UInt32.max) - 2) / 5 }

    /// Takes device `d`'s rows (`appCount` apps), replayed before `duration`; finds
    /// each launch's next use if `nextUses`.
    func prepare(_ replay: UsageReplay, device d: Int, appCount: Int, duration: SimTime, nextUses: Bool) {
        self.replay = replay
        device = d
        rowCount = replay.rowCount(ofDevice: d)
        precondition(Self.fits(rows: rowCount))
        self.duration = duration
        withNextUses = nextUses
        nextLaunch.removeAll(keepingCapacity: true)
        firstUse.removeAll(keepingCapacity: true)
        if replay.inMemory(device: d) {
            window = replay.uses[d - replay.firstDevice]
            windowStart = 0
        } else {
            loadWindow(from: 0)
        }
        guard nextUses else { return }
        firstUse.append(contentsOf: repeatElement(.never, count: appCount))
        lastLaunch.removeAll(keepingCapacity: true)
        lastLaunch.append(contentsOf: repeatElement(-1, count: appCount))
        var c = ReplayCursor(duration: duration)
        var position: UInt32 = 1  // after the first lock
        while !c.done {
            advanceWindow(&c)
            let end = walkEnd(c)
            window.withUnsafeBufferPointer { r in
                c.walk(r, to: end) { kind, _, app in
                    if kind == .launch {
                        precondition(app >= 0 && Int(app) < appCount, "a launch names app \(app) of \(appCount)")
                        let last = lastLaunch[Int(app)]
                        if last >= 0 { nextLaunch[Int(last)] = position } else { firstUse[Int(app)] = SimTime(microseconds: Int64(position)) }
                        lastLaunch[Int(app)] = Int32(nextLaunch.count)
                        nextLaunch.append(.max)
                    }
                    position &+= 1
                }
            }
        }
    }

    /// A spilled device: the window moved on to the cursor's row (a chunk's rows and
    /// the next one, which says whether the chunk's last use locks).
    func advanceWindow(_ c: inout ReplayCursor) {
        if c.row > 0 && !replay.inMemory(device: device) {
            loadWindow(from: windowStart + c.row)
            c.row = 0
        }
    }

    /// A spilled device's window from row `from`.
    func loadWindow(from: Int) {
        replay.readRows(ofDevice: device, from: from, count: min(chunkRows + 1, rowCount - from), into: &window)
        windowStart = from
    }

    /// Where the cursor's next walk ends within `window`: a chunk on, short of the
    /// window's look-ahead row unless that is the device's last.
    func walkEnd(_ c: ReplayCursor) -> Int {
        min(c.row + chunkRows, rowCount - windowStart, window.count)
    }

    /// Starts a run: `timeline` emptied, with the first chunk.
    func begin(_ timeline: inout Timeline) {
        cursor = ReplayCursor(duration: duration)
        if !replay.inMemory(device: device) && windowStart != 0 { loadWindow(from: 0) }
        launchesFed = 0
        timeline.removeAll()
        timeline.firstUse.append(contentsOf: firstUse)
        timeline.actions.append(ReplayCursor.firstAction)
        if withNextUses { timeline.nextUseAfter.append(.never) }
        if rowCount == 0 { cursor.done = true; return }
        fill(&timeline)
    }

    /// Whether rows are left to feed.
    var more: Bool { !cursor.done }

    /// Where the next chunk's actions start at the earliest (`more` only).
    var nextStart: SimTime { window.withUnsafeBufferPointer { cursor.nextStart($0) } }

    /// Where the device's replay ends (once `more` is false): `duration` if given,
    /// else the end of its last use plus `lockGap` (`UsageReplay.span`).
    var until: SimTime { duration != .never ? duration : cursor.busyUntil + UsageReplay.lockGap }

    /// Appends the next chunk's actions (and their next uses) to `timeline`.
    func fill(_ timeline: inout Timeline) {
        var c = cursor
        advanceWindow(&c)
        let end = walkEnd(c)
        let first = timeline.actions.count
        // At most 5 actions a row, written in place (`UsageReplay.build`).
        let bound = 5 * (end - c.row)
        window.withUnsafeBufferPointer { r in
            timeline.actions.append(addingCapacity: bound) { out in
                c.walk(r, to: end) { kind, t, app in out.append(UserAction(time: t, kind: kind, app: app)) }
            }
        }
        cursor = c
        guard withNextUses else { return }
        var k = launchesFed
        for j in first..<timeline.actions.count {
            if timeline.actions[j].kind == .launch {
                let p = nextLaunch[k]
                k += 1
                timeline.nextUseAfter.append(p == .max ? .never : SimTime(microseconds: Int64(p)))
            } else {
                timeline.nextUseAfter.append(.never)
            }
        }
        launchesFed = k
    }

    /// Runs `sim` up to `end` (nil: to the device's end, `until`), feeding it the
    /// chunks whose actions start by then: before each, the run stops just before
    /// the chunk's first action can be, so the device has every action it may
    /// perform in time. The same events as a run over the whole timeline.
    static func run<P: EvictionPolicy, O: RunObserver>(_ sim: inout Simulation<Device<P, NoTrace>>, _ feed: ReplayFeed,
                                                      to end: SimTime?, observer: inout O) {
        while feed.more {
            let start = feed.nextStart
            if let end, start > end { break }
            sim.run(until: start - .microseconds(1), observer: &observer)
            sim.model.continueTimeline(feed)
        }
        let target = end.map { feed.more ? $0 : min($0, feed.until) } ?? feed.until
        sim.run(until: target, observer: &observer)
    }
}

extension Device {
    /// Drops the actions performed and appends the next chunk (`ReplayFeed`). The
    /// apps of the dropped uses are kept only if the device prewarms (its prewarm
    /// target's draw reads them).
    mutating func continueTimeline(_ feed: ReplayFeed) {
        let record = memory.prewarms(core.params) && core.wakeTable.contains { $0.app >= 0 && $0.kind == .prewarm }
        core.timeline.dropFirst(core.nextAction, recordUses: record)
        core.nextAction = 0
        feed.fill(&core.timeline)
        core.refreshInputTime()
    }
}
