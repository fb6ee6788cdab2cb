import Foundation
import Testing
import SimKernel
@testable import JetSim

/// `jetsim usage-stats`: exact statistics on hand-made files, the app sessions of a
/// timeline, and the default workload's users against the published figures.
@Suite("Usage statistics")
struct UsageStatsTests {
    static func write(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "usage-stats-\(UUID().uuidString).csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Two devices. a: sessions 10, 20, 40 s within 60 s of each other (one device
    /// session; the gap 100 - 40 = 60 s is not more than 60), 300 s at 1000 s (a second),
    /// 50 s on day 8 (a third); its span is 691,250 s rounded up: 9 days, one complete
    /// week holding mail and news. b: 5 s and 1 s 95 s apart (two device sessions) on
    /// day 1; span 2 days. Lengths sorted: 1 5 10 20 40 50 300.
    static let usage = """
        device,time_s,app,duration_s
        a,0,mail,10
        a,20,mail,20
        a,100,news,40
        a,1000,mail,300
        a,691200,chat,50
        b,86400,game,5
        b,86500,game,1
        """

    @Test("a hand-made usage CSV: every statistic by hand")
    func usageByHand() throws {
        let path = try Self.write(Self.usage)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (s, kind) = try UsageStats.read(path: path, days: nil)
        #expect(kind == .usage)
        #expect(s.devices == 2)
        #expect(s.appSessions == 7)
        #expect(s.meanDays == 5.5)
        #expect(abs(s.sessionMeanS - 426.0 / 7) < 1e-12)
        #expect(s.sessionP50S == 20)   // rank ceil(3.5) = 4
        #expect(s.sessionP90S == 300)  // rank ceil(6.3) = 7
        #expect(s.sessionP99S == 300)
        #expect(s.shareUnder30s == 4.0 / 7)
        #expect(s.shareUnder4min == 6.0 / 7)
        #expect(abs(s.foregroundMinPerDay - 426.0 / 60 / 11) < 1e-12)
        #expect(s.distinctAppsPerWeek == 2)
        #expect(abs(s.deviceSessionsPerDayMean - (3.0 / 9 + 1) / 2) < 1e-12)
        #expect(s.deviceSessionsPerDayMin == 3.0 / 9)
        #expect(s.deviceSessionsPerDayP10 == 3.0 / 9)
        #expect(s.deviceSessionsPerDayP90 == 1)
        #expect(s.deviceSessionsPerDayMax == 1)
        #expect(s.csv == """
            devices,days,app_sessions,session_mean_s,session_p50_s,session_p90_s,session_p99_s,share_under_30s,share_under_4min,foreground_min_per_day,distinct_apps_per_week,device_sessions_per_day_mean,device_sessions_per_day_min,device_sessions_per_day_p10,device_sessions_per_day_p90,device_sessions_per_day_max
            2,5.500,7,60.857,20.000,300.000,300.000,0.571,0.857,0.645,2.000,0.667,0.333,0.333,1.000,1.000

            """)
    }

    @Test("--days fixes every span: two complete weeks each")
    func fixedDays() throws {
        let path = try Self.write(Self.usage)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (s, _) = try UsageStats.read(path: path, days: 14)
        // Weeks: a {mail, news}, {chat}; b {game}, {}: 4 apps over 4 device-weeks.
        #expect(s.distinctAppsPerWeek == 1)
        #expect(abs(s.foregroundMinPerDay - 426.0 / 60 / 28) < 1e-12)
        #expect(s.deviceSessionsPerDayMin == 2.0 / 14)
        #expect(s.deviceSessionsPerDayMax == 3.0 / 14)
    }

    @Test("less than a week: no distinct apps a week")
    func shortSpan() throws {
        let path = try Self.write("device,time_s,app,duration_s\nx,0,a,10\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (s, _) = try UsageStats.read(path: path, days: nil)
        #expect(s.distinctAppsPerWeek == nil)
        #expect(s.deviceSessionsPerDayMean == 1)
    }

    /// A lifecycle trace: an app session runs from didBecomeActive to the same app's
    /// willResignActive or termination; an app still active at a device's last record
    /// ends there.
    @Test("a hand-made lifecycle trace")
    func traceByHand() throws {
        let path = try Self.write("""
            time_ms,device,app,event,detail,state
            0,0,mail,didFinishLaunching,,inactive
            500,0,mail,didBecomeActive,cold 500ms,active
            10500,0,mail,willResignActive,,inactive
            10500,0,mail,didEnterBackground,,background
            11000,0,news,didBecomeActive,cold 500ms,active
            41000,0,news,terminated,memory-pressure,not-running
            200000,0,mail,didBecomeActive,warm 50ms,active
            202000,0,mail,willResignActive,,inactive
            1000,1,game,didBecomeActive,cold 900ms,active
            4000,1,other,didReceiveMemoryWarning,freed 1MB,suspended
            7000,1,game,suspended,,suspended
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (s, kind) = try UsageStats.read(path: path, days: 1)
        #expect(kind == .trace)
        // Sessions: 10, 30, 2 (device 0; 0.5 s and 158.5 s gaps: two device sessions), 6 (device 1).
        #expect(s.appSessions == 4)
        #expect(s.sessionMeanS == 12)
        #expect(s.deviceSessionsPerDayMin == 1)
        #expect(s.deviceSessionsPerDayMax == 2)
        #expect(s.shareUnder30s == 0.75)
    }

    @Test("a trace that goes back in time is refused naming the line")
    func traceOutOfOrder() throws {
        let path = try Self.write("time_ms,device,app,event,detail,state\n500,0,a,didBecomeActive,,active\n100,0,a,willResignActive,,inactive\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: InputError.self) { _ = try UsageStats.read(path: path, days: nil) }
        do { _ = try UsageStats.read(path: path, days: nil) } catch {
            #expect(error.description.contains(":3:"))
            #expect(error.description.contains("time_ms"))
        }
    }

    /// The app sessions of a timeline follow `Device.perform`: an ignored alert
    /// splits a session, a lock ends it and an unlock starts the next with the same
    /// app, the switcher ends it, an answered call ends it.
    @Test("app sessions of a hand-made timeline")
    func timelineSessions() {
        var t = Timeline()
        func at(_ s: Double, _ k: UserAction.Kind, _ app: Int32 = -1) { t.actions.append(UserAction(time: SimTime(seconds: s), kind: k, app: app)) }
        at(0, .lock); at(10, .unlock); at(11, .launch, 0); at(20, .alert); at(24, .ignore); at(50, .lock)
        at(100, .unlock); at(130, .switcher); at(131, .switcherPick, 1); at(140, .call); at(145, .answer)
        at(300, .launch, 2); at(310, .home); at(320, .launch, 1)
        var got: [String] = []
        UsageStats.appSessions(of: t, until: .seconds(400)) { s, a, l in got.append("\(UsageStats.seconds(s)) \(a) \(UsageStats.seconds(l))") }
        #expect(got == ["11 0 9", "24 0 26", "100 0 30", "131 1 9", "300 2 10", "320 1 80"])
    }

    /// Synthetic statistics equal the usage CSV that `jetsim trace --format usage`
    /// writes, read back (same sessions, same spans for a whole-day run).
    @Test("synthetic statistics equal the usage CSV read back")
    func syntheticRoundTrip() throws {
        var w = try WorkloadDecoder.load(defaultWorkloadText, source: "default")
        w.fleet.devices = 5
        w.fleet.duration = .days(7)
        let direct = UsageStats.synthetic(w)
        let plan = RunPlan(workload: w, cells: [], threads: 1)
        var inputs = DeviceInputs(plan: plan, catalog: AppCatalog(w))
        var text = "device,time_s,app,duration_s\n"
        for d in 0..<5 {
            _ = inputs.build(device: d)
            UsageStats.appSessions(of: inputs.timeline, until: inputs.until) { s, a, l in
                text += "\(d),\(UsageStats.seconds(s)),app\(a),\(UsageStats.seconds(l))\n"
            }
        }
        let path = try Self.write(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (read, _) = try UsageStats.read(path: path, days: nil)
        #expect(read.csv == direct.csv)
    }

    /// Issue 14: the default workload's users (1,000 devices x 7 days, every device
    /// of the fleet; the user's actions only, so a few seconds) meet the published
    /// figures within 10 %. Users who were all alike (every sigma 0) do not spread:
    /// the spread test can fail. 1,000 devices, not the 200: the mean over
    /// users of a lognormal factor with sigma 1.17 is noisy, and on 200 devices the
    /// mean app session moved 64-80 s between seeds 1-5 (foreground 48-63 min a day),
    /// so one fixed sample could fall outside 10 % with no change in the model (seed 1
    /// did when the variates became the ziggurat's); 1,000 devices shrink that √5 times.
    @Test("the default workload meets the published usage figures within 10 %")
    func defaultMeetsPublished() throws {
        var w = try WorkloadDecoder.load(defaultWorkloadText, source: "default")
        w.fleet.devices = 1_000
        w.fleet.duration = .days(7)
        let s = UsageStats.synthetic(w)
        func within(_ value: Double, _ target: Double) -> Bool { abs(value - target) <= 0.1 * target }
        #expect(within(s.sessionMeanS, 71.6), "mean app session \(s.sessionMeanS) s (Böhmer et al.: 71.6)")
        #expect(within(s.shareUnder30s, 0.5), "share under 30 s \(s.shareUnder30s) (LiveLab: 0.5)")
        #expect(within(s.shareUnder4min, 0.9), "share under 4 min \(s.shareUnder4min) (LiveLab: 0.9)")
        #expect(within(s.foregroundMinPerDay, 59), "foreground \(s.foregroundMinPerDay) min a day (Böhmer et al.: 59)")
        let apps = try #require(s.distinctAppsPerWeek)
        #expect(apps >= 14 && apps <= 18, "distinct apps a week \(apps) (Kim et al.: 14-18)")
        // Falaki et al.: 10-200 interactions a day across users, an order of magnitude
        // between the 10th and 90th percentile users (issue 14). Theory: a lognormal
        // factor of sigma 1.17 puts p90/p10 at exp(2 x 1.2816 x 1.17) = 20; sessions
        // arriving during one merge into it, so the measured spread is smaller, but
        // not below 10 (sigma 0.91 measured 7.6).
        #expect(s.deviceSessionsPerDayMax >= 10 * s.deviceSessionsPerDayMin)
        #expect(s.deviceSessionsPerDayP90 >= 10 * s.deviceSessionsPerDayP10,
                "sessions a day p90/p10 \(s.deviceSessionsPerDayP90 / s.deviceSessionsPerDayP10) (Falaki et al.: 10-200)")
        #expect(s.deviceSessionsPerDayP90 <= 20 * s.deviceSessionsPerDayP10, "no wider than the lognormal itself")

        w = try WorkloadDecoder.load(defaultWorkloadText, source: "default",
                                     overrides: ["user.sessions_per_day_sigma=0", "user.dwell_sigma=0", "user.app_choice_sigma=0", "user.interruptions_sigma=0"])
        w.fleet.devices = 200
        w.fleet.duration = .days(7)
        let alike = UsageStats.synthetic(w)
        #expect(alike.deviceSessionsPerDayMax < 2 * alike.deviceSessionsPerDayMin)
    }

    /// A user's factors come from the device's own stream: the same device gets the
    /// same user whatever the fleet size, and a sigma of 0 gives exactly 1.
    @Test("per-device users are keyed by device, and sigma 0 is the population's value")
    func personKeyed() throws {
        let b = UserBehaviour()
        let p = UserModel.Person(b, seed: 1, device: 7)
        #expect(p == UserModel.Person(b, seed: 1, device: 7))
        #expect(p != UserModel.Person(b, seed: 1, device: 8))
        var zero = b
        zero.sessionsPerDaySigma = 0; zero.dwellSigma = 0; zero.appChoiceSigma = 0; zero.interruptionsSigma = 0
        #expect(UserModel.Person(zero, seed: 1, device: 7) == UserModel.Person())
        // Clamped at user_spread_clamp_sigmas.
        var wide = b
        wide.sessionsPerDaySigma = 3
        wide.userSpreadClampSigmas = 1
        for d in 0..<200 as Range<UInt64> {
            let f = UserModel.Person(wide, seed: 1, device: d).sessions
            #expect(f >= exp(-3.0) * (1 - 1e-12) && f <= exp(3.0) * (1 + 1e-12))
        }
    }
}

