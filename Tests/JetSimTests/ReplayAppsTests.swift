import Testing
import SimKernel
@testable import JetSim

/// Which profile a replayed app name gets (`AppMap.profile`), the map file's checks,
/// and the count of names matched by hash alone.
@Suite("Replayed app names: the app map and the census")
struct ReplayAppsTests {
    static let workload = try! WorkloadDecoder.load(defaultWorkloadText, source: "default")
    static let catalog = AppCatalog(workload)

    static func map(_ text: String) throws(InputError) -> AppMap {
        try AppMap.parse(bytes: Array(text.utf8), source: "map.csv", workload: workload, catalog: catalog)
    }

    static func archetype(_ name: String) -> String {
        let i = AppMap.profile(of: name, catalog: catalog, map: try? map("app,archetype\nchat,messaging\nwhatsapp,messaging\ncandy,game\n")).index
        return workload.catalog.archetypes[Int(catalog.archetype[i])].name
    }

    @Test("without a map, a catalog name takes its app and any other name catalog app FNV-1a(name) mod N (the rule before maps)")
    func noMap() {
        let c = Self.catalog
        #expect(AppMap.profile(of: c.names[41], catalog: c, map: nil) == (41, .catalog))
        let r = AppMap.profile(of: "com.example.chat", catalog: c, map: nil)
        #expect(r.index == Int(FNV1a.hash("com.example.chat") % UInt64(c.profiles.count)) && r.match == .hashed)
    }

    @Test("a mapped name takes a catalog app of its archetype, the same one every time; the map beats a catalog name")
    func mapped() throws {
        #expect(Self.archetype("chat") == "messaging")
        #expect(Self.archetype("whatsapp") == "messaging")
        #expect(Self.archetype("candy") == "game")
        let m = try Self.map("app,archetype\n\(Self.catalog.names[0]),video\n")
        let r = AppMap.profile(of: Self.catalog.names[0], catalog: Self.catalog, map: m)
        #expect(r.match == .mapped && Self.workload.catalog.archetypes[Int(Self.catalog.archetype[r.index])].name == "video")
        #expect(AppMap.profile(of: "chat", catalog: Self.catalog, map: m) == AppMap.profile(of: "chat", catalog: Self.catalog, map: nil))
    }

    @Test("the map's errors name the file, the line and the column")
    func errors() {
        func message(_ text: String) -> String {
            do { _ = try Self.map(text); return "no error" } catch { return error.description }
        }
        #expect(message("") == "map.csv: empty: expected a header app,archetype and rows")
        #expect(message("app,kind\n") == "map.csv:1: archetype: missing column; the header must name at least app,archetype")
        #expect(message("app,archetype\nchat,mesaging\n").hasPrefix("map.csv:2: archetype: unknown archetype 'mesaging' (did you mean messaging?); the workload's archetypes: social, messaging,"))
        #expect(message("app,archetype\nchat\n") == "map.csv:2: archetype: missing value (the row has 1 fields)")
        #expect(message("app,archetype\n\"\",game\n") == "map.csv:2: app: empty app name")
        #expect(message("app,archetype\nchat,game\nx,video\nchat,messaging\n") == "map.csv:4: app: 'chat' is mapped to messaging here and to game at line 2")
        // The same mapping twice is fine, and other columns are ignored.
        #expect(message("note,archetype,app\nx,game,chat\ny,game,chat\n") == "no error")
    }

    @Test("an archetype the catalog has no app of is refused at its line")
    func emptyArchetype() {
        var w = Self.workload
        w.catalog.apps = 1
        let c = AppCatalog(w)
        let other = w.catalog.archetypes.indices.first { $0 != Int(c.archetype[0]) }!
        #expect(throws: InputError.self) {
            try AppMap.parse(bytes: Array("app,archetype\nchat,\(w.catalog.archetypes[other].name)\n".utf8), source: "m", workload: w, catalog: c)
        }
    }

    @Test("the census counts distinct names over devices, and the rows of names matched by hash alone")
    func census() throws {
        let c = Self.catalog
        let trace = "device,time_s,app,duration_s\na,0,chat,1\na,5,\(c.names[3]),1\na,9,chat,1\nb,0,chat,1\nb,2,zzz,1\nb,4,candy,1\n"
        let replay = try UsageReplay.parse(trace, source: "t.csv")
        var plain = ReplayAppCensus()
        plain.add(replay, catalog: c, map: nil)
        #expect((plain.names, plain.catalog, plain.mapped, plain.hashed, plain.rows, plain.hashedRows) == (4, 1, 0, 3, 6, 5))
        #expect(plain.hashedExamples == ["chat", "zzz", "candy"])
        let w = try #require(plain.warning(trace: "t.csv", catalogApps: c.profiles.count))
        #expect(w.hasPrefix("3 of the 4 app names of t.csv (5 of 6 rows) are not in the catalog (e.g. chat, zzz, candy): each takes the profile of catalog app FNV-1a(name) mod \(c.profiles.count)"))
        var mapped = ReplayAppCensus()
        mapped.add(replay, catalog: c, map: try Self.map("app,archetype\nchat,messaging\ncandy,game\n"))
        #expect((mapped.names, mapped.catalog, mapped.mapped, mapped.hashed, mapped.hashedRows) == (4, 1, 2, 1, 1))
        #expect(mapped.warning(trace: "t.csv", catalogApps: 1)!.contains("not in the catalog nor in --app-map (e.g. zzz)"))
        var all = ReplayAppCensus()
        all.add(replay, catalog: c, map: try Self.map("app,archetype\nchat,messaging\ncandy,game\nzzz,video\n"))
        #expect(all.warning(trace: "t.csv", catalogApps: 1) == nil)
    }
}
