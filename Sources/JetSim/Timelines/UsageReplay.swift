import SimKernel

/// Recorded app usage replayed instead of the synthetic user, as cache simulators
/// replay request traces. A CSV (RFC 4180; CRLF and a UTF-8 byte-order mark are
/// fine) with a header and at least the columns `device,time_s,app,duration_s`
/// (others are ignored): device ids are any text, times are seconds from the start,
/// and each row is one use of an app.
///
/// The trace is streamed (`UsageStream`): memory grows with the devices and apps, not
/// the rows. It must be grouped by device: all of a device's rows together (in any
/// time order within the device; they are sorted, ties kept in file order). A device
/// that comes back after another one is an error naming the file and line. Devices
/// are numbered in file order. A `UsageReplay` holds a batch of consecutive devices.
///
/// A row becomes: unlock (if locked), Home and a launch (if another app was in
/// front), the use; and if the device's next row starts more than `lockGap` after
/// this one ends, Home and lock. A use that starts while the previous one has not
/// ended starts when it ends. Apps named as in the catalog (`social-0042`) use
/// that app's profile; any other name borrows the profile of catalog app
/// FNV-1a(name) mod N, so a trace needs no catalog of its own; an app map
/// (`AppMap`) says which archetype a name is instead.
///
/// A device runs until its span ends: the end of its last use plus `lockGap`, unless
/// a run length is given (`--duration`); then rows starting at or after it are not
/// replayed, and counted (`rowsPastEnd`) so the CLI can say so.
public struct UsageReplay: Sendable {
    public struct Use: Sendable {
        var time: SimTime
        var app: Int32
        var duration: SimTime
    }

    /// The trace's device ids, in file order.
    public var devices: [String] = []
    /// Each device's rows: those spilled to a file (`spills`, the first rows of a long
    /// device), then these.
    var uses: [ContiguousArray<Use>] = []
    /// Each device's first rows, spilled to a temporary file as it was read (nil:
    /// none): a long device's rows are read back chunk by chunk (`readRows`), so a
    /// device of any length holds a bounded part of them in memory.
    var spills: [RowSpill?] = []
    /// Each device's app names (index = app index on the device).
    public var appNames: [[String]] = []
    /// The run index of `devices[0]` (a batch of a streamed trace starts after the
    /// devices of the batches before it).
    public var firstDevice = 0
    /// Rows of this batch's devices in the trace.
    public var rows = 0
    /// A batch of a `.jtrace` (`UsageTrace`): its devices' rows, ids and app names are
    /// read from the map (`devices`, `uses`, `spills` and `appNames` stay empty), and
    /// its device `d` is the trace's device `d`.
    var trace: UsageTrace? = nil
    var mappedDevices = 0
    /// With `--sample-devices` (`UsageStream.sample`): whether each device of the batch
    /// is replayed (empty: every one). The others are read, not run.
    public var runs: [Bool] = []
    /// With `UsageStream.keepsNameBytes` (`jetsim import`): each device's id and app
    /// names as the file's bytes (a `String` repairs bytes that are not UTF-8, which
    /// could make two ids one).
    var idBytes: [[UInt8]] = []
    var appNameBytes: [[[UInt8]]] = []
    /// A pause longer than this between uses locks the device.
    public static let lockGap = SimTime.seconds(60)
    /// Rows a run feeds a replayed device at a time (`ReplayFeed`, `RunPlan.replayChunkRows`):
    /// about 3 MB of timeline (two or three actions a row, 24 bytes each).
    public static let chunkRows = 1 << 16

    public init() {}

    /// Reads a whole usage trace from text (tests and small traces; runs stream).
    /// Errors name the source, the line and the column.
    public static func parse(_ text: String, source: String) throws(InputError) -> UsageReplay {
        var stream = try UsageStream(reader: DelimitedReader(bytes: Array(text.utf8)), source: source)
        return try stream.nextBatch(rows: .max) ?? UsageReplay()
    }

    /// The devices of this batch.
    public var deviceCount: Int { trace != nil ? mappedDevices : devices.count }

    /// The run index of the last device of this batch, plus one.
    public var endDevice: Int { firstDevice + deviceCount }

    /// A `.jtrace` batch: returns its records' pages (and those a fault mapped beside
    /// them) once it has run (`UsageTrace.dropPages(around:)`). Nothing else does.
    public func releasePages() {
        guard let trace, deviceCount > 0 else { return }
        trace.dropPages(around: trace.recordRange(ofDevice: firstDevice).lowerBound..<trace.recordRange(ofDevice: endDevice - 1).upperBound)
    }

    /// Whether device `d` is replayed (`runs`).
    public func runs(device d: Int) -> Bool { runs.isEmpty || runs[d - firstDevice] }

    /// The most apps a device of the batch has.
    public var maxAppCount: Int {
        if let trace { return (firstDevice..<endDevice).map { trace.appCount(ofDevice: $0) }.max() ?? 0 }
        return appNames.map(\.count).max() ?? 0
    }

    /// Device `d`'s (run index) uses, whole (a spilled device's read back, a mapped one's copied).
    func uses(ofDevice d: Int) -> ContiguousArray<Use> {
        if trace != nil {
            var all = ContiguousArray<Use>()
            readRows(ofDevice: d, from: 0, count: rowCount(ofDevice: d), into: &all)
            return all
        }
        guard let spill = spills[d - firstDevice] else { return uses[d - firstDevice] }
        var all = ContiguousArray<Use>()
        readRows(ofDevice: d, from: 0, count: spill.count + uses[d - firstDevice].count, into: &all)
        return all
    }

    /// The number of device `d`'s rows.
    func rowCount(ofDevice d: Int) -> Int {
        if let trace { return trace.recordRange(ofDevice: d).count }
        return (spills[d - firstDevice]?.count ?? 0) + uses[d - firstDevice].count
    }

    /// Whether device `d`'s rows are all in memory (`uses`).
    func inMemory(device d: Int) -> Bool { trace == nil && spills[d - firstDevice] == nil }

    /// Replaces `buffer` with device `d`'s rows `from..<from + count` (within its rows).
    func readRows(ofDevice d: Int, from: Int, count: Int, into buffer: inout ContiguousArray<Use>) {
        buffer.removeAll(keepingCapacity: true)
        if let trace { return trace.copyRows(ofDevice: d, from: from, count: count, into: &buffer) }
        let spilled = spills[d - firstDevice]?.count ?? 0
        if from < spilled {
            let n = min(count, spilled - from)
            buffer.append(contentsOf: repeatElement(Use(time: .zero, app: 0, duration: .zero), count: n))
            buffer.withUnsafeMutableBufferPointer { spills[d - firstDevice]!.read(into: UnsafeMutableRawBufferPointer($0), row: from) }
        }
        let tail = uses[d - firstDevice]
        let start = max(0, from - spilled), end = from + count - spilled
        if end > start { buffer.append(contentsOf: tail[start..<end]) }
    }

    /// Calls `body` with device `d`'s rows in order, a chunk at a time.
    func forEachChunk(ofDevice d: Int, _ body: (UnsafeBufferPointer<Use>) -> Void) {
        if let trace { return trace.forEachChunk(ofDevice: d, chunk: Self.chunkRows, body) }
        guard !inMemory(device: d) else { uses[d - firstDevice].withUnsafeBufferPointer(body); return }
        var buffer = ContiguousArray<Use>()
        let n = rowCount(ofDevice: d)
        var from = 0
        while from < n {
            readRows(ofDevice: d, from: from, count: min(Self.chunkRows, n - from), into: &buffer)
            buffer.withUnsafeBufferPointer(body)
            from += buffer.count
        }
    }

    /// Calls `body(start, app, duration)` for each of device `d`'s rows, in order (the
    /// app an index into `appNames(ofDevice:)`).
    public func forEachRow(ofDevice d: Int, _ body: (_ time: SimTime, _ app: Int32, _ duration: SimTime) -> Void) {
        forEachChunk(ofDevice: d) { rows in for u in rows { body(u.time, u.app, u.duration) } }
    }

    /// Device `d`'s app names.
    public func appNames(ofDevice d: Int) -> [String] { trace?.appNames(ofDevice: d) ?? appNames[d - firstDevice] }

    /// Device `d`'s id in the trace.
    public func name(ofDevice d: Int) -> String { trace?.deviceName(d) ?? devices[d - firstDevice] }

    /// Where device `d`'s replay ends: `fixed` if given, else the end of its last
    /// use (after the shifts of overlapping uses) plus `lockGap`.
    public func span(ofDevice d: Int, fixed: SimTime?) -> SimTime {
        if let fixed { return fixed }
        return walkRows(ofDevice: d) { _, _ in } + Self.lockGap
    }

    /// Rows of device `d` that start at or after `until` (not replayed).
    public func rowsPast(_ until: SimTime, device d: Int) -> Int {
        var n = 0
        _ = walkRows(ofDevice: d) { start, _ in if start >= until { n += 1 } }
        return n
    }

    /// `walk` over all of device `d`'s rows, a chunk at a time (a spilled device is
    /// read back chunk by chunk): `body(start, end)` for each; returns when the device
    /// is free after the last.
    func walkRows(ofDevice d: Int, _ body: (_ start: SimTime, _ end: SimTime) -> Void) -> SimTime {
        var c = ReplayCursor(duration: .never)
        var previous: Use? = nil
        forEachChunk(ofDevice: d) { rows in
            // Each row is walked once the next one's time is known (whether it locks).
            for u in rows {
                if let p = previous { c.step(p, next: u.time, body) }
                previous = u
            }
        }
        if let p = previous { c.step(p, next: .never, body) }
        return c.busyUntil
    }

    /// The lock-gap walk, the one definition of when each use happens (for the span,
    /// the rows past the end and the timeline): a use starts at its time or when the
    /// device is free, whichever is later, and ends its duration after; the device
    /// locks after it if no use follows within `lockGap` of its end, and is then free
    /// one second after that end (the lock). Calls `body(row, start, end, locks)` for
    /// each row in order until it returns false; returns when the device is free after
    /// the last row it visited in full.
    @inline(__always)
    static func walk(_ rows: UnsafeBufferPointer<Use>,
                     _ body: (_ row: Int, _ start: SimTime, _ end: SimTime, _ locks: Bool) -> Bool) -> SimTime {
        var busyUntil = SimTime.zero
        for i in 0..<rows.count {
            let u = rows[i]
            let start = max(u.time, busyUntil)
            let end = start + u.duration
            let next = i + 1 < rows.count ? rows[i + 1].time : SimTime.never
            let locks = next == .never || next - end > lockGap
            if !body(i, start, end, locks) { break }
            busyUntil = locks ? end + .seconds(1) : end
        }
        return busyUntil
    }

    /// Device `d`'s installed apps: catalog indices, by `AppMap.profile`.
    func installedApps(device d: Int, catalog: AppCatalog, map: AppMap?, into installed: inout ContiguousArray<Int32>) {
        installed.removeAll(keepingCapacity: true)
        for name in appNames(ofDevice: d) {
            installed.append(Int32(AppMap.profile(of: name, catalog: catalog, map: map).index))
        }
    }

    /// Fills a device's installed apps (catalog indices, by `AppMap.profile`) and timeline, with the
    /// actions before `duration`, and its next uses if `nextUses` (else none: every
    /// app's next use is then `.never`, which only the oracle reads). Returns when the device is free after the last row
    /// replayed: with `duration` `.never`, its span less `lockGap` (no action of the
    /// device is at or after its span, so the timeline is the same as with the span).
    /// The actions are `ReplayCursor`'s, as a run fed chunk by chunk (`ReplayFeed`) has them.
    @discardableResult
    func build(device d: Int, catalog: AppCatalog, map: AppMap? = nil, duration: SimTime,
               installed: inout ContiguousArray<Int32>, timeline: inout Timeline, nextUses: Bool = true) -> SimTime {
        installedApps(device: d, catalog: catalog, map: map, into: &installed)
        let rows = uses(ofDevice: d)
        // At most 5 actions a row (unlock, home, launch, home, lock) and the first lock:
        // written in place into the timeline's own storage (an output span over room
        // for that bound; no append with its uniqueness check per action, and no copy:
        // through a scratch buffer, the copy into the timeline cost a copy a row:
        // docs/performance.md, "Costs behind the code's shapes").
        let bound = 5 * rows.count + 1
        var cursor = ReplayCursor(duration: duration)
        timeline.removeAll()
        timeline.actions.append(addingCapacity: bound) { out in
            rows.withUnsafeBufferPointer { rows in
                out.append(ReplayCursor.firstAction)  // the device starts locked
                cursor.walk(rows, to: rows.count) { kind, t, app in out.append(UserAction(time: t, kind: kind, app: app)) }
            }
        }
        if nextUses {
            timeline.computeNextUses(appCount: installed.count)
        } else {
            timeline.nextUseAfter.removeAll(keepingCapacity: true)
            timeline.firstUse.removeAll(keepingCapacity: true)
        }
        return cursor.busyUntil
    }
}
