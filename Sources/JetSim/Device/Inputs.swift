import SimKernel

// The device's core: its inputs besides the user's timeline: the system arrivals
// (alias table, draws) and the random numbers keyed per device and per app.
/// One column of the system arrivals' alias table (`Device.wakeTable`; Walker
/// 1977, "An efficient method for generating discrete random variables with general
/// distributions", ACM TOMS 3(3)): its own (app, kind) pair, kept with probability
/// `cut`, else its alias's pair. `link` chains the work lists while it is built.
struct WakeColumn {
    var cut: Double
    var app: Int32
    var aliasApp: Int32
    var link: Int32 = -1
    var kind: SystemWakeKind
    var aliasKind: SystemWakeKind

    init(cut: Double, app: Int32, kind: SystemWakeKind) {
        self.cut = cut
        self.app = app
        self.aliasApp = app
        self.kind = kind
        self.aliasKind = kind
    }
}

extension DeviceCore {
    /// Draws the next system arrival after `t`: the gap, exponential at the device's
    /// total rate; the (app, kind) pair, in proportion to its rate, from the alias
    /// table in O(1) (Walker 1977; one uniform gives the column and, from its
    /// fraction, the coin, as Walker draws them). Keyed by the arrival's number, so
    /// every policy and RAM size sees the same arrivals.
    mutating func drawNextWake(after t: SimTime) {
        let m = wakeTable.count &- 1
        guard m > 0 else { nextWake = .never; return }
        let total = wakeTable[0].cut
        var g = deviceDraws(Draw.systemWake, wakeCount)
        nextWake = t + SimTime(seconds: Exponential.standard(&g, table: exponentialTable) / total * 86_400)
        let u = g.nextUnit() * Double(m)
        let c = min(Int(u), m &- 1)
        let column = wakeTable[1 &+ c]
        if u - Double(c) < column.cut {
            nextWakeApp = column.app; nextWakeKind = column.kind
        } else {
            nextWakeApp = column.aliasApp; nextWakeKind = column.aliasKind
        }
    }

    /// Builds the alias table of the system arrivals (`wakeTable`) by Vose's method
    /// (Vose 1991, "A linear algorithm for generating random numbers with a given
    /// distribution", IEEE TSE 17(9): the small and large work lists), in O(pairs),
    /// with no allocation: the two lists are stacks linked through the columns'
    /// `link`. Column i keeps its own pair with probability `cut`, else gives its
    /// alias's; pair j comes out with probability (cut_j + sum of (1 - cut_i) over
    /// the columns aliased to it) / m = rate_j / total.
    mutating func buildWakeTable(prewarms: Bool) {
        wakeTable.removeAll(keepingCapacity: true)
        wakeTable.append(WakeColumn(cut: 0, app: -1, kind: .location))
        var total = 0.0
        for a in 0..<installed.count {
            let p = Int(installed[a])
            for k in SystemWakeKind.allCases {
                let r = k == .prewarm && !prewarms ? 0 : profiles[p].wakesPerDay(k)
                if r > 0 {
                    total += r
                    wakeTable.append(WakeColumn(cut: r, app: Int32(a), kind: k))
                }
            }
        }
        let m = wakeTable.count - 1
        guard m > 0 else { return }
        wakeTable.withUnsafeMutableBufferPointer { t in
            t[0].cut = total
            let scale = Double(m) / total
            var small: Int32 = -1, large: Int32 = -1
            for c in 1...m {
                t[c].cut *= scale
                if t[c].cut < 1 { t[c].link = small; small = Int32(c) } else { t[c].link = large; large = Int32(c) }
            }
            while small >= 0 && large >= 0 {
                let s = Int(small), l = Int(large)
                small = t[s].link
                t[s].aliasApp = t[l].app
                t[s].aliasKind = t[l].kind
                t[l].cut = (t[l].cut + t[s].cut) - 1
                if t[l].cut < 1 {
                    large = t[l].link
                    t[l].link = small
                    small = Int32(l)
                }
            }
            // Left on either list: 1 up to rounding; they keep their own pair.
            while small >= 0 { let c = Int(small); t[c].cut = 1; small = t[c].link }
            while large >= 0 { let c = Int(large); t[c].cut = 1; large = t[c].link }
        }
    }

    /// The app a prewarm goes to (-1: none). The device prewarms at the sum of its
    /// apps' `prewarmsPerDay` (the arrivals above). iOS prewarms the app it predicts
    /// the user will open; jetsim predicts from the past only (no oracle): the app of
    /// one of the user's launches so far, drawn uniformly (so in proportion to each
    /// app's launches), prewarmed if it is not running (else nothing: the predicted app
    /// is there already). *Assumption*: Apple does not publish its predictor. O(1): up
    /// to 8 draws for a launch among the past actions; keyed by the arrival's number
    /// like the arrivals.
    /// A replay fed chunk by chunk (`ReplayFeed`) has dropped the actions below
    /// `timeline.base`: their apps are in `timeline.pastUses` (the same draw).
    mutating func prewarmTarget() -> Int32 {
        let past = timeline.base + nextAction
        guard past > 0 else { return -1 }
        var g = deviceDraws(Draw.prewarmTarget, wakeCount)
        for _ in 0..<8 {
            let i = min(past - 1, Int(g.nextUnit() * Double(past)))
            if i < timeline.base {
                let app = timeline.pastUses[i]
                if app >= 0 { return apps[Int(app)].state == .notRunning ? app : -1 }
                continue
            }
            let action = timeline.actions[i - timeline.base]
            if action.kind == .launch || action.kind == .switcherPick {
                return apps[Int(action.app)].state == .notRunning ? action.app : -1
            }
        }
        return -1
    }

    /// The device's random numbers for `purpose` (system arrivals, prewarm targets)
    /// at arrival `n`: a SplitMix64 sequence started at a hash of (device key,
    /// purpose, n), so arrival n's draws depend on nothing else (every policy and RAM
    /// size sees the same arrivals) and no generator is kept between arrivals. Two
    /// mixes to start and one per number; a keyed xoshiro256** cost twelve to start.
    /// Sequences for different keys start at independent points of SplitMix64's
    /// 2^64 cycle (Steele, Lea and Flood 2014), so they do not overlap in practice.
    @inline(__always) func deviceDraws(_ purpose: UInt64, _ n: UInt64) -> SplitMix64 {
        SplitMix64(state: SplitMix64.mix(drawKey ^ purpose) &+ SplitMix64.mix(n))
    }

    /// An app's random numbers for `purpose` (background task, mode activity, launch
    /// jitter) at its `n`-th trip or launch, as `deviceDraws`: three mixes to start.
    @inline(__always) func appDraws(_ app: Int32, _ purpose: UInt64, _ n: UInt64) -> SplitMix64 {
        SplitMix64(state: SplitMix64.mix(drawKey ^ SplitMix64.mix(UInt64(UInt32(bitPattern: app)) << 8 | purpose))
                   &+ SplitMix64.mix(n))
    }


    /// The index of an app's profile in `profiles`. The model reads profile fields in
    /// place (`profiles[pi(app)].activeKB`) rather than copying the 170-byte profile.
    @inline(__always) func pi(_ app: Int32) -> Int { Int(installed[Int(app)]) }

    /// `--by archetype`: counts `c` once more for the app's archetype (nothing when off).
    @inline(__always) mutating func countByArchetype(_ app: Int32, _ c: Counter) {
        if byArchetype.isEmpty { return }
        byArchetype[Int(archetypeOf[pi(app)])][c] += 1
    }

    /// `--by app`: a relaunch's latency counted once more for the app's group (nothing
    /// when off: `byArchetypeLatency` empty).
    @inline(__always) mutating func countRelaunchLatencyByGroup(_ app: Int32, _ latency: SimTime) {
        if byArchetypeLatency.isEmpty { return }
        let g = Int(archetypeOf[pi(app)])
        byArchetype[g][.relaunchLatencySumMicros] = .saturatingSum(byArchetype[g][.relaunchLatencySumMicros], Int(latency.microseconds))
        byArchetypeLatency[g].record(latency)
    }
}
