import Testing
@testable import JetSim

/// Apps fit the devices they run on (issue 29): `AppCatalog.profiles(fittedTo:)` and
/// the per-app limit each class cites.
@Suite("Apps fit the device: footprints scaled to the per-app limit")
struct AppFitTests {
    static func catalog(_ profiles: [AppProfile]) -> AppCatalog {
        var w = Workload()
        w.catalog.apps = profiles.count
        var c = AppCatalog(w)
        c.profiles = ContiguousArray(profiles)
        return c
    }

    @Test("an app whose peak passes the fit is scaled down as a whole, exactly; a smaller app is untouched")
    func exactScaling() {
        var big = AppProfile(activeKB: 1_000 * 1_024, backgroundKB: 500 * 1_024, suspendedKB: 300 * 1_024)
        big.peakKB = 1_500 * 1_024
        big.prewarmKB = 100 * 1_024
        let small = AppProfile(activeKB: 300 * 1_024, backgroundKB: 150 * 1_024, suspendedKB: 90 * 1_024)
        let params = DeviceParameters(ramKB: 2_048 * 1_024)   // per-app limit 54 %, fit 90 % of it
        #expect(params.perAppLimitKB == 1_132_462 && params.appFitKB == 1_019_215)
        let fitted = Self.catalog([big, small]).profiles(fittedTo: params)
        // Scale 1_019_215 / 1_536_000, rounded down.
        #expect(fitted[0].activeKB == 679_476 && fitted[0].backgroundKB == 339_738 && fitted[0].suspendedKB == 203_843)
        #expect(fitted[0].peakKB == 1_019_215 && fitted[0].prewarmKB == 67_947)
        #expect(fitted[1] == small)
        // At 4 GB both fit as drawn: the catalog's own storage comes back.
        let roomy = Self.catalog([big, small]).profiles(fittedTo: DeviceParameters(ramKB: 4_096 * 1_024))
        #expect(Array(roomy) == [big, small])
    }

    @Test("on the default catalog every fitted app's peak and active footprint fit, at each shipped RAM size")
    func defaultCatalogFits() throws {
        let w = try WorkloadDecoder.load(defaultWorkloadText, source: "default")
        let catalog = AppCatalog(w)
        for ram: Int64 in [2_048, 3_072, 4_096] {
            let p = w.deviceClasses[0].parameters(ramKB: ram * 1_024)
            let fitted = catalog.profiles(fittedTo: p)
            #expect(fitted.allSatisfy { max($0.activeKB, $0.peakKB) <= p.appFitKB && $0.activeKB <= p.perAppLimitKB })
            // Scaled apps keep their shape: background / active as drawn (to rounding).
            for (a, b) in zip(catalog.profiles, fitted) where a.activeKB != b.activeKB {
                #expect(abs(Double(b.backgroundKB) / Double(b.activeKB) - Double(a.backgroundKB) / Double(a.activeKB)) < 1e-4)
            }
            if ram == 2_048 { #expect(zip(catalog.profiles, fitted).contains { $0.activeKB != $1.activeKB }, "some game is scaled at 2 GB") }
        }
    }

    @Test("the fit is what keeps launches from failing: without it, games over the limit fail at 2 GB")
    func fitRemovesFailures() throws {
        func failures(_ sets: [String]) throws -> (Int, Int) {
            var w = try WorkloadDecoder.load(defaultWorkloadText, source: "default", overrides: sets)
            w.fleet.devices = 8
            w.fleet.duration = .days(1)
            let plan = RunPlan(workload: w, cells: [Cell(policy: PolicyID(LRU.self), ramKB: 2 * 1_048_576)], threads: 1)
            let a = FleetRunner.run(plan, catalog: AppCatalog(w)).accumulators[0]
            return (a[.launchFailures], a[.launches])
        }
        let (fitted, launches) = try failures([])
        #expect(fitted == 0 && launches > 300)
        let (unfitted, _) = try failures(["device_classes.iphone-11.app_fit_pct=1000"])
        #expect(Double(unfitted) > 0.01 * Double(launches), "\(unfitted) of \(launches)")
    }

    @Test("the default per-app limit is the iPhone 11's measured 2068 of 3844 MB")
    func iphone11Limit() {
        #expect(DeviceParameters.standard.perAppLimitPct == 54)
        #expect(abs(2_068.0 / 3_844.0 * 100 - 54) < 0.5)
    }
}
