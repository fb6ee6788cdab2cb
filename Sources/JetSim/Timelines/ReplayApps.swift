import SimKernel

/// Which catalog profile each app name of a usage trace gets, and a count of how the
/// names were matched (for the warning and the provenance record).
///
/// The rule, in this order: a name in the app map (`--app-map FILE.csv`, columns
/// `app,archetype`) takes the profile of catalog app FNV-1a(name) mod K among the K
/// catalog apps of its archetype; a catalog name (`social-0042`) takes that app's
/// profile; any other name takes the profile of catalog app FNV-1a(name) mod N (N the
/// catalog's apps), whatever its archetype. Without a map the rule is the last two
/// steps, as before maps existed, so results without one are unchanged.
public struct AppMap: Sendable {
    /// The file the map came from.
    public let source: String
    /// Each mapped name's archetype (an index into the workload's archetypes), by
    /// the name's bytes.
    let archetypeOf: [ByteName: Int]
    /// The catalog apps of each archetype, in catalog order.
    let appsOf: [[Int32]]
    /// The names mapped.
    public var count: Int { archetypeOf.count }

    /// The rule as provenance records it.
    public static let rule = "a name in --app-map: the profile of catalog app FNV-1a(name) mod K among the K catalog apps of its archetype; else a catalog name (ARCHETYPE-NNN): that app's profile; else the profile of catalog app FNV-1a(name) mod catalog.apps, whatever its archetype"

    /// Reads a map (RFC 4180 CSV with a header naming at least `app` and `archetype`;
    /// other columns ignored). Errors name the file, the line and the column: an
    /// archetype the workload does not have, or has no app of in its catalog; an
    /// empty name; a name mapped twice to different archetypes; a name holding U+FFFD
    /// (what a trace's bytes that are not UTF-8 read as: it would match them all).
    /// Names are compared by their bytes, as the usage reader compares them.
    public static func parse(bytes: [UInt8], source: String, workload: Workload, catalog: AppCatalog) throws(InputError) -> AppMap {
        var r = DelimitedReader(bytes: bytes)
        func next() throws(InputError) -> Bool {
            do { return try r.next() } catch {
                switch error {
                case .unterminatedQuote(let line): throw InputError(source: source, line: line, "a quoted field is not closed (a \" is missing)")
                case .textAfterQuote(let line): throw InputError(source: source, line: line, "text after a closing quote (inside quotes, write \" as \"\")")
                case .io(let m): throw InputError(source: source, m)
                }
            }
        }
        guard try next() else { throw InputError(source: source, "empty: expected a header app,archetype and rows") }
        var header: [String: Int] = [:]
        for i in 0..<r.count where header[r.string(i)] == nil { header[r.string(i)] = i }
        for needed in ["app", "archetype"] where header[needed] == nil {
            throw InputError(source: source, line: r.line, key: needed, "missing column; the header must name at least app,archetype")
        }
        let appColumn = header["app"]!, archetypeColumn = header["archetype"]!
        let names = workload.catalog.archetypes.map(\.name)
        var appsOf = [[Int32]](repeating: [], count: names.count)
        // Drawn apps only: a named app is taken by its name alone.
        for (i, k) in catalog.archetype.enumerated() where i < catalog.drawn { appsOf[Int(k)].append(Int32(i)) }
        var archetypeOf: [ByteName: Int] = [:]
        var lineOf: [ByteName: Int] = [:]
        while try next() {
            for (key, c) in [("app", appColumn), ("archetype", archetypeColumn)] where c >= r.count {
                throw InputError(source: source, line: r.line, key: key, "missing value (the row has \(r.count) fields)")
            }
            let app = r.string(appColumn), archetype = r.string(archetypeColumn)
            if app.isEmpty { throw InputError(source: source, line: r.line, key: "app", "empty app name") }
            if app.unicodeScalars.contains("\u{FFFD}") {
                throw InputError(source: source, line: r.line, key: "app", "'\(app)' holds U+FFFD, the replacement character, which a trace's bytes that are not UTF-8 are read as: it would map every such name; write the name as the trace has it")
            }
            guard let k = names.firstIndex(of: archetype) else {
                let near = KeySuggestion.nearest(archetype, among: names)
                throw InputError(source: source, line: r.line, key: "archetype",
                                 "unknown archetype '\(archetype)'" + (near.isEmpty ? "" : " (did you mean \(near.joined(separator: " or "))?)")
                                 + "; the workload's archetypes: \(names.joined(separator: ", "))")
            }
            if appsOf[k].isEmpty {
                throw InputError(source: source, line: r.line, key: "archetype",
                                 "the catalog has no app of archetype '\(archetype)' (its \(catalog.drawn) apps were drawn by the archetypes' shares); raise catalog.apps or that archetype's share")
            }
            let key = ByteName(app)
            if let earlier = archetypeOf[key], earlier != k {
                throw InputError(source: source, line: r.line, key: "app",
                                 "'\(app)' is mapped to \(archetype) here and to \(names[earlier]) at line \(lineOf[key]!)")
            }
            archetypeOf[key] = k
            if lineOf[key] == nil { lineOf[key] = r.line }
        }
        return AppMap(source: source, archetypeOf: archetypeOf, appsOf: appsOf)
    }

    /// The catalog index whose profile `name` takes, and how it was matched.
    @inline(__always)
    static func profile(of name: String, catalog: AppCatalog, map: AppMap?) -> (index: Int, match: Match) {
        if let map, let k = map.archetypeOf[ByteName(name)] {
            let apps = map.appsOf[k]
            return (Int(apps[Int(FNV1a.hash(name) % UInt64(apps.count))]), .mapped)
        }
        if let i = catalog.index(named: name) { return (i, .catalog) }
        return (Int(FNV1a.hash(name) % UInt64(catalog.drawn)), .hashed)
    }

    public enum Match: Sendable { case mapped, catalog, hashed }
}

/// A name compared and hashed by its UTF-8 bytes. `String`'s own equality is Unicode
/// canonical equivalence: it merged `café` (U+00E9) with `cafe` and a combining accent,
/// two apps to the usage reader, which compares bytes.
struct ByteName: Hashable, Sendable {
    let text: String
    init(_ text: String) { self.text = text }
    static func == (a: ByteName, b: ByteName) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }
    func hash(into h: inout Hasher) {
        var t = text
        t.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// How a trace's app names were matched to profiles (`AppMap.profile`): distinct names
/// over the whole trace (every device read, whichever shard runs it), and the rows of
/// the names that got a profile by hash alone.
public struct ReplayAppCensus: Sendable {
    public private(set) var names = 0
    public private(set) var mapped = 0
    public private(set) var catalog = 0
    public private(set) var hashed = 0
    public private(set) var rows = 0
    public private(set) var hashedRows = 0
    /// Devices counted (replayed: with `--sample-devices`, those of the sample), and
    /// devices read.
    public private(set) var devices = 0
    public private(set) var devicesRead = 0
    /// The first names matched by hash alone, in trace order.
    public private(set) var hashedExamples: [String] = []
    static let examples = 5
    var seen: [ByteName: AppMap.Match] = [:]

    public init() {}

    /// Counts the names and rows of every device of `batch` that is replayed (all of
    /// them but those `--sample-devices` leaves out). A `.jtrace` gives each app's rows
    /// on the device: its rows are not read.
    public mutating func add(_ batch: UsageReplay, catalog c: AppCatalog, map: AppMap?) {
        var hashedApp: [Bool] = []
        devicesRead += batch.deviceCount
        for device in batch.firstDevice..<batch.endDevice where batch.runs(device: device) {
            devices += 1
            let names = batch.appNames(ofDevice: device)
            hashedApp.removeAll(keepingCapacity: true)
            for name in names {
                let match: AppMap.Match
                if let m = seen[ByteName(name)] { match = m } else {
                    match = AppMap.profile(of: name, catalog: c, map: map).match
                    seen[ByteName(name)] = match
                    self.names += 1
                    switch match {
                    case .mapped: mapped += 1
                    case .catalog: catalog += 1
                    case .hashed:
                        hashed += 1
                        if hashedExamples.count < Self.examples { hashedExamples.append(name) }
                    }
                }
                hashedApp.append(match == .hashed)
            }
            rows += batch.rowCount(ofDevice: device)
            if let trace = batch.trace {
                for (k, n) in trace.appRows(ofDevice: device).enumerated() where hashedApp[k] { hashedRows += n }
            } else if hashedApp.contains(true) {
                batch.forEachChunk(ofDevice: device) { uses in for u in uses where hashedApp[Int(u.app)] { hashedRows += 1 } }
            }
        }
    }

    /// The warning for names matched by hash alone (nil: none), naming the trace.
    public func warning(trace: String, catalogApps: Int) -> String? {
        guard hashed > 0 else { return nil }
        let more = hashed > hashedExamples.count ? ", ..." : ""
        return "\(hashed) of the \(names) app names of \(trace) (\(hashedRows) of \(rows) rows) are not in the catalog"
            + (mapped > 0 ? " nor in --app-map" : "")
            + " (e.g. \(hashedExamples.joined(separator: ", "))\(more)): each takes the profile of catalog app FNV-1a(name) mod \(catalogApps), whatever its archetype; --app-map FILE.csv (columns app,archetype) says which archetype each is"
    }
}
