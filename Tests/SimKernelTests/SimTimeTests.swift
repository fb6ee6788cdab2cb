import Testing
import SimKernel

@Suite("Durations are read and printed exactly")
struct SimTimeTests {
    @Test("fixed-point text: whole values bare, no trailing zeros, the sign kept, Int64.min exact")
    func fixed() {
        #expect(DurationText.fixed(12_000_000, scale: 1_000_000, digits: 6) == "12")
        #expect(DurationText.fixed(500_000, scale: 1_000_000, digits: 6) == "0.5")
        #expect(DurationText.fixed(1_250, scale: 1_000, digits: 3) == "1.25")
        #expect(DurationText.fixed(1_005, scale: 1_000, digits: 3) == "1.005")
        #expect(DurationText.fixed(-500, scale: 1_000, digits: 3) == "-0.5")
        #expect(DurationText.fixed(.min, scale: 1_000_000, digits: 6) == "-9223372036854.775808")
    }

    @Test("real microseconds round as libm's round does: ties away from zero, the largest values exact")
    func roundsLikeRound() {
        var cases: [Double] = [0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
                               0.5000000000000001, 4503599627370495.5, -4503599627370495.5, 0x1p52, 0x1p52 + 1,
                               0x1p53 + 2, -0x1p53 - 2, 0x1p59 + 0x1p7, 1e17 + 0.5, 123456.5000001, -7.499999]
        var g = Xoshiro256StarStar(seed: 7)
        for _ in 0..<100_000 {
            // Any sign and size up to 2^59, and halves.
            let scale = Double(1 << (g.next() % 60))
            let x = (g.nextUnit() * 2 - 1) * scale
            cases.append(x)
            cases.append(x.rounded(.down) + 0.5)
        }
        for x in cases {
            #expect(SimTime(saturatingMicroseconds: x).microseconds == Int64(x.rounded()), "\(x)")
        }
        #expect(SimTime(saturatingMicroseconds: .nan) == .zero)
        #expect(SimTime(saturatingMicroseconds: 0x1p61) == .horizon)
        #expect(SimTime(saturatingMicroseconds: -.infinity).microseconds == -SimTime.horizon.microseconds)
    }

    @Test("each unit is read to the right number of microseconds", arguments: [
        ("250ms", 250_000), ("10s", 10_000_000), ("3m", 180_000_000), ("2h", 7_200_000_000),
        ("1d", 86_400_000_000), ("1.5s", 1_500_000), ("0.25ms", 250), ("7us", 7),
        ("0s", 0), (" 12s ", 12_000_000), (".5s", 500_000), ("2.000001s", 2_000_001),
    ] as [(String, Int64)])
    func parses(text: String, micros: Int64) throws {
        #expect(try DurationText.parse(text).microseconds == micros)
    }

    @Test("malformed text is an error that says what was expected", arguments: [
        "", "10", "s", "-5s", "1.2.3s", "5 parsecs", "5x", "1e3s", "abc", "99999999999999999999d",
    ])
    func rejects(text: String) {
        #expect {
            _ = try DurationText.parse(text)
        } throws: { error in
            let message = String(describing: error)
            return message.contains("'\(text)'") && message.contains("e.g. 250ms")
        }
    }

    @Test("printing uses the largest exact unit and reads back to the same value", arguments: [
        (Int64(250_000), "250ms"), (10_000_000, "10s"), (180_000_000, "3m"), (7_200_000_000, "2h"),
        (86_400_000_000, "1d"), (1_500_000, "1.5s"), (250, "250us"), (1_500, "1.5ms"), (0, "0s"), (90_000_000, "90s"),
        (1_000_001, "1.000001s"), (7, "7us"),
    ])
    func prints(micros: Int64, text: String) throws {
        let t = SimTime(microseconds: micros)
        #expect(t.description == text)
        #expect(try DurationText.parse(t.description) == t)
    }
}
