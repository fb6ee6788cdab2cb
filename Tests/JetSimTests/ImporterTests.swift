import Testing
@testable import JetSim

/// The dataset importers, each on a small fixture in its format with its odd rows.
@Suite("Usage importers")
struct ImporterTests {
    @Test("LSApp: sessions become uses; Broken ends a use; unmatched open and close; out-of-order rows")
    func lsapp() throws {
        let tsv = """
            user_id\tsession_id\ttimestamp\tapp_name\tevent_type
            1\t10\t2018-01-16 06:01:05\tGmail\tOpened
            1\t10\t2018-01-16 06:01:10\tGmail\tUser Interaction
            1\t10\t2018-01-16 06:01:35\tGmail\tClosed
            1\t11\t2018-01-16 06:03:00\tChrome\tOpened
            1\t11\t2018-01-16 06:02:00\tMaps\tClosed
            1\t11\t2018-01-16 06:03:20\tChrome\tBroken
            2\t20\t2018-01-17 23:59:50\t"Facebook, Inc"\tOpened

            """
        let r = try UsageImporter.convert(tsv, format: .lsapp, source: "ls.tsv")
        #expect(r.csv == "device,time_s,app,duration_s\n1,0,Gmail,30\n1,115,Chrome,20\n2,0,\"Facebook, Inc\",0\n")
        #expect(r.notes == ["1 Broken events: ended the app's open use there", "1 closes without a matching open: skipped",
                            "1 devices with out-of-order timestamps: sorted", "1 opens never closed: a use of zero length"])
    }

    @Test("LSApp: a year outside 1...9999 is refused at its row (a far-future year trapped in the date arithmetic)")
    func lsappYears() throws {
        #expect(UsageImporter.lsappTime("9999-12-31 23:59:59") != nil)
        #expect(UsageImporter.lsappTime("0001-01-01 00:00:00") != nil)
        #expect(UsageImporter.lsappTime("1970-01-02 00:00:00") == 86_400)
        #expect(UsageImporter.lsappTime("99999999999999999-01-01 00:00:00") == nil)
        #expect(UsageImporter.lsappTime("0000-01-01 00:00:00") == nil)
        let tsv = "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\n1\t1\t922337203685477-01-01 00:00:00\tGmail\tOpened\n"
        #expect(throws: InputError(source: "ls.tsv", line: 2, key: "timestamp",
                                   "expected YYYY-MM-DD hh:mm:ss (years 1 to 9999), got '922337203685477-01-01 00:00:00'")) {
            try UsageImporter.convert(tsv, format: .lsapp, source: "ls.tsv")
        }
    }

    @Test("Android UsageStats: foreground/background and resumed/paused pairs, ms timestamps")
    func usagestats() throws {
        let csv = """
            package,event_type,timestamp
            com.a,MOVE_TO_FOREGROUND,1000
            com.a,MOVE_TO_BACKGROUND,61000
            com.b,ACTIVITY_RESUMED,62500
            com.c,ACTIVITY_RESUMED,70000
            com.c,ACTIVITY_PAUSED,71000
            com.b,ACTIVITY_PAUSED,80000
            com.d,SCREEN_INTERACTIVE,90000

            """
        let r = try UsageImporter.convert(csv, format: .androidUsagestats, source: "us.csv")
        #expect(r.csv == "device,time_s,app,duration_s\ndevice,0,com.a,60\ndevice,61.500,com.b,7.500\ndevice,69,com.c,1\n")
        #expect(r.notes == ["1 closes without a matching open: skipped", "1 opens of another app while one was open: the open one ended there",
                            "1 rows of other event types: skipped"])
        #expect(throws: InputError(source: "us.csv", line: 2, key: "timestamp", "expected milliseconds (a whole number), got 'soon'")) {
            try UsageImporter.convert("package,event_type,timestamp\ncom.a,MOVE_TO_FOREGROUND,soon\n", format: .androidUsagestats, source: "us.csv")
        }
    }

    @Test("the converted CSV reads back as a usage trace")
    func roundTrip() throws {
        let r = try UsageImporter.convert("package,event_type,timestamp\ncom.a,MOVE_TO_FOREGROUND,0\ncom.a,MOVE_TO_BACKGROUND,5000\n",
                                          format: .androidUsagestats, source: "us.csv")
        let u = try UsageReplay.parse(r.csv, source: "out")
        #expect(u.devices == ["device"] && u.rows == 1)
    }
}
