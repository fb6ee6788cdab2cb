import SimKernel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The synthetic user: writes one device's timeline of actions from the workload's
/// behaviour, with independent random streams per process (sessions, interruptions,
/// notifications, orientation, removals, broadcasts), all keyed by (seed, device).
/// It never looks at memory or policy, so every policy and RAM size sees the same
/// user; and changing one rate does not reshuffle the others.
///
/// Users differ (`Person`): each device's user scales sessions a day, dwell, app
/// concentration and interruptions by its own factors (Falaki et al. 2010: users
/// differ by an order of magnitude).
///
/// A day: sessions arrive as a Poisson process over the waking window. A session
/// unlocks the device, uses one app (90%) or a few, each for a lognormal dwell, with
/// interruptions (calls, SMS, alerts) landing while an app is in use, orientation
/// changes during use, the odd removal from the switcher, and ends with Home and lock
/// (or lock alone, leaving the app inactive in front). Notifications and other
/// system events arrive all day.
public struct UserModel: Sendable {
    public let behaviour: UserBehaviour
    public let seed: UInt64

    /// Event values shown in traces (index = value id).
    public static let valueNames = ["", "portrait", "landscape", "en_US", "fr_FR", "home", "work"]

    static let sessionStream: UInt64 = 3, interruptionStream: UInt64 = 4, notificationStream: UInt64 = 5
    static let orientationStream: UInt64 = 6, removalStream: UInt64 = 7, broadcastStream: UInt64 = 8
    static let personStream: UInt64 = 9

    /// One device's user: the population's behaviour scaled by this user's own
    /// lognormal factors (median 1), drawn once from the device's keyed stream
    /// `(seed, device, 9)` in a fixed order, so a device's user does not depend on
    /// the thread, the shard or the other devices, and a sigma of 0 leaves the
    /// population's value (and every other stream) untouched.
    public struct Person: Sendable, Equatable {
        public var sessions = 1.0, dwell = 1.0, appChoice = 1.0, interruptions = 1.0

        public init() {}

        public init(_ b: UserBehaviour, seed: UInt64, device: UInt64) {
            var g = Xoshiro256StarStar(seed: seed, device, UserModel.personStream)
            let c = b.userSpreadClampSigmas
            func factor(_ sigma: Double) -> Double {
                let z = min(c, max(-c, StandardNormal.sample(&g)))
                return sigma > 0 ? exp(sigma * z) : 1
            }
            sessions = factor(b.sessionsPerDaySigma)
            dwell = factor(b.dwellSigma)
            appChoice = factor(b.appChoiceSigma)
            interruptions = factor(b.interruptionsSigma)
        }

        /// The population's behaviour as this user lives it.
        public func apply(to b: UserBehaviour) -> UserBehaviour {
            var u = b
            u.sessionsPerDay *= sessions
            u.callsPerDay *= interruptions
            u.smsPerDay *= interruptions
            u.alertsPerDay *= interruptions
            switch b.appChoice {
            // Kept within the keys' ranges (user.app_choice).
            case .exponential(let d): u.appChoice = .exponential(decay: min(1e9, max(0.001, d * appChoice)))
            case .zipf(let s): u.appChoice = .zipf(exponent: min(100, s / appChoice))
            }
            return u
        }
    }

    public init(_ behaviour: UserBehaviour, seed: UInt64) {
        self.behaviour = behaviour
        self.seed = seed
    }

    /// Chooses apps by personal rank among `appCount` installed ones.
    struct Chooser {
        let n: Int
        let choice: UserBehaviour.AppChoice
        let zipf: Zipf
        let truncation: Double

        init(n: Int, choice: UserBehaviour.AppChoice) {
            self.n = n
            self.choice = choice
            switch choice {
            case .zipf(let s): zipf = Zipf(n: n, exponent: s); truncation = 0
            case .exponential(let decay): zipf = Zipf(n: 1, exponent: 0); truncation = 1 - exp(-Double(n) / decay)
            }
        }

        /// A rank in 0..<n. O(1): Zipf by rejection-inversion; the truncated
        /// exponential by inversion.
        func sample(_ g: inout Xoshiro256StarStar) -> Int32 {
            switch choice {
            case .zipf: return Int32(zipf.sample(&g) - 1)
            case .exponential(let decay):
                let r = Int(-decay * log(1 - g.nextUnit() * truncation))
                return Int32(min(r, n - 1))
            }
        }
    }

    /// Writes the timeline of `device` with `appCount` apps (ranked by the user's
    /// preference, 0 first) over `duration` into `timeline`, reusing its storage, and
    /// `scratch` for the all-day events.
    public func generate(device: UInt64, appCount: Int, duration: SimTime, into timeline: inout Timeline,
                         scratch: inout ContiguousArray<UserAction>) {
        timeline.removeAll()
        scratch.removeAll(keepingCapacity: true)
        guard appCount > 0 else { timeline.computeNextUses(appCount: 0); return }
        let person = Person(behaviour, seed: seed, device: device)
        let b = person.apply(to: behaviour)
        var w = Writer(b: b, dwellScale: person.dwell, duration: duration, chooser: Chooser(n: appCount, choice: b.appChoice),
                       sessions: Xoshiro256StarStar(seed: seed, device, Self.sessionStream),
                       interruptions: Xoshiro256StarStar(seed: seed, device, Self.interruptionStream),
                       orientation: Xoshiro256StarStar(seed: seed, device, Self.orientationStream),
                       removals: Xoshiro256StarStar(seed: seed, device, Self.removalStream))
        // The device starts with its screen locked; each session unlocks it.
        timeline.actions.append(UserAction(time: .zero, kind: .lock))
        w.days(into: &timeline.actions)
        allDayEvents(device: device, appCount: appCount, duration: duration, into: &scratch, chooser: w.chooser)
        merge(&timeline.actions, scratch)
        timeline.computeNextUses(appCount: appCount)
    }

    /// Notifications to apps by preference; locale and location changes to all. Three
    /// Poisson processes, each on its own stream, merged in time order as they are
    /// drawn (no sorting, no allocation).
    func allDayEvents(device: UInt64, appCount: Int, duration: SimTime, into out: inout ContiguousArray<UserAction>, chooser: Chooser) {
        let day = 86_400.0
        var notes = Xoshiro256StarStar(seed: seed, device, Self.notificationStream)
        var locale = Xoshiro256StarStar(seed: seed, device, Self.broadcastStream, 1)
        var place = Xoshiro256StarStar(seed: seed, device, Self.broadcastStream, 2)
        // The exponential's table, read once (not at each draw).
        let zig = ZigguratTable.exponential
        func next(_ rate: Double, _ from: Double, _ g: inout Xoshiro256StarStar) -> Double {
            rate > 0 ? from + Exponential.sample(mean: day / rate, &g, table: zig) : .infinity
        }
        var tNote = next(behaviour.notificationsPerDay, 0, &notes)
        var tLocale = next(behaviour.localeChangesPerDay, 0, &locale)
        var tPlace = next(behaviour.locationChangesPerDay, 0, &place)
        var localeFlip = false, placeFlip = false
        let end = duration.seconds
        while true {
            let t = min(tNote, tLocale, tPlace)
            if t >= end { break }
            let time = SimTime(seconds: t)
            if t == tNote {
                out.append(UserAction(time: time, kind: .notify, app: chooser.sample(&notes), eventKind: .notification))
                tNote = next(behaviour.notificationsPerDay, tNote, &notes)
            } else if t == tLocale {
                localeFlip.toggle()
                out.append(UserAction(time: time, kind: .notify, app: UserAction.allApps, eventKind: .locale, value: localeFlip ? 3 : 4))
                tLocale = next(behaviour.localeChangesPerDay, tLocale, &locale)
            } else {
                placeFlip.toggle()
                out.append(UserAction(time: time, kind: .notify, app: UserAction.allApps, eventKind: .location, value: placeFlip ? 5 : 6))
                tPlace = next(behaviour.locationChangesPerDay, tPlace, &place)
            }
        }
    }

    /// Merges the sorted all-day events into the sorted session actions (session
    /// actions first on equal times).
    func merge(_ actions: inout ContiguousArray<UserAction>, _ other: ContiguousArray<UserAction>) {
        guard !other.isEmpty else { return }
        let sessionCount = actions.count
        actions.append(contentsOf: other)
        // Merge in place from the back, through the buffers: one uniqueness check for
        // the whole merge, not one per move (indices stay in range: k > i, k >= j).
        actions.withUnsafeMutableBufferPointer { out in
            other.withUnsafeBufferPointer { add in
                var i = sessionCount - 1, j = add.count - 1, k = out.count - 1
                while j >= 0 {
                    if i >= 0 && out[i].time > add[j].time {
                        out[k] = out[i]; i -= 1
                    } else {
                        out[k] = add[j]; j -= 1
                    }
                    k -= 1
                }
            }
        }
    }

    /// The session process: walks day by day.
    struct Writer {
        let b: UserBehaviour
        /// This user's factor on every dwell.
        let dwellScale: Double
        let duration: SimTime
        let chooser: Chooser
        var sessions: Xoshiro256StarStar
        var interruptions: Xoshiro256StarStar
        var orientation: Xoshiro256StarStar
        var removals: Xoshiro256StarStar
        var t = SimTime.zero
        var front: Int32 = -1
        var recent: (Int32, Int32, Int32) = (-1, -1, -1)
        var orientationValue: Int32 = 1
        /// The exponential's table, read once for the writer's draws.
        let zig = ZigguratTable.exponential

        static let tap = SimTime.seconds(1)

        mutating func emit(_ out: inout ContiguousArray<UserAction>, _ kind: UserAction.Kind, at time: SimTime, app: Int32 = -1,
                           eventKind: SystemEventKind = .orientation, value: Int32 = 0) {
            guard time < duration else { return }
            out.append(UserAction(time: time, kind: kind, app: app, eventKind: eventKind, value: value))
        }

        mutating func days(into out: inout ContiguousArray<UserAction>) {
            guard b.sessionsPerDay > 0 else { return }
            let dayCount = Int((duration.seconds / 86_400).rounded(.up))
            let window = (b.sleepHour - b.wakeHour) * 3_600
            let meanGap = window / b.sessionsPerDay
            for day in 0..<dayCount {
                let wake = Double(day) * 86_400 + b.wakeHour * 3_600
                let sleep = wake + window
                var arrival = wake + Exponential.sample(mean: meanGap, &sessions, table: zig)
                while arrival < sleep {
                    let start = max(SimTime(seconds: arrival), t + Self.tap)
                    if start >= SimTime(seconds: sleep) || start >= duration { break }
                    session(at: start, into: &out)
                    arrival += Exponential.sample(mean: meanGap, &sessions, table: zig)
                }
                if t >= duration { return }
            }
        }

        mutating func session(at start: SimTime, into out: inout ContiguousArray<UserAction>) {
            t = start
            emit(&out, .unlock, at: t)
            var apps = 1
            if sessions.nextUnit() >= b.singleAppSessionShare && b.extraAppsMean > 0 {
                // Geometric number of extra apps (at least one) with the given mean.
                let p = 1 / max(1, b.extraAppsMean)
                apps += 1 + Int(log(1 - sessions.nextUnit()) / log(1 - min(p, 0.999_999)))
            }
            if front >= 0 {
                if sessions.nextUnit() < b.resumeFrontShare {
                    use(front, into: &out)
                    apps -= 1
                } else {
                    t = t + Self.tap
                    emit(&out, .home, at: t)
                    front = -1
                }
            }
            for _ in 0..<max(0, apps) {
                let app = chooser.sample(&sessions)
                switchTo(app, into: &out)
                use(app, into: &out)
            }
            // The odd removal from the switcher.
            if b.sessionsPerDay > 0 && removals.nextUnit() < b.switcherRemovalsPerDay / b.sessionsPerDay {
                // One of the (up to three) apps used last.
                let known = recent.2 >= 0 ? 3 : recent.1 >= 0 ? 2 : recent.0 >= 0 ? 1 : 0
                if known > 0 {
                    let pick = removals.nextIndex(known)
                    let victim = pick == 0 ? recent.0 : pick == 1 ? recent.1 : recent.2
                    t = t + Self.tap
                    emit(&out, .switcher, at: t)
                    t = t + Self.tap
                    emit(&out, .switcherRemove, at: t, app: victim)
                    if victim == front { front = -1 }
                    t = t + Self.tap
                    emit(&out, .home, at: t)
                    front = -1
                }
            }
            if front >= 0 && sessions.nextUnit() < b.homeBeforeLockShare {
                t = t + Self.tap
                emit(&out, .home, at: t)
                front = -1
            }
            t = t + Self.tap
            emit(&out, .lock, at: t)
        }

        /// Brings `app` to the front: already there, through the switcher, or Home
        /// then a tap on its icon.
        mutating func switchTo(_ app: Int32, into out: inout ContiguousArray<UserAction>) {
            if app == front { return }
            if front >= 0 && sessions.nextUnit() < b.switcherShare {
                emit(&out, .switcher, at: t)
                t = t + Self.tap
                emit(&out, .switcherPick, at: t, app: app)
            } else {
                if front >= 0 {
                    emit(&out, .home, at: t)
                    t = t + Self.tap
                }
                emit(&out, .launch, at: t, app: app)
            }
            front = app
            if recent.0 != app {
                if recent.1 == app { recent.1 = recent.0 } else { recent.2 = recent.1; recent.1 = recent.0 }
                recent.0 = app
            }
        }

        /// Uses the app in front for one dwell, with interruptions and orientation
        /// changes landing while it is in use.
        mutating func use(_ app: Int32, into out: inout ContiguousArray<UserAction>) {
            var end = t + SimTime(seconds: max(1, dwellScale * b.dwellS.sample(&sessions)))
            let windowHours = (b.sleepHour - b.wakeHour)
            let interruptRate = (b.callsPerDay + b.smsPerDay + b.alertsPerDay) / (windowHours * 3_600)  // per second
            var current = app
            while true {
                let next = interruptRate > 0 ? t + SimTime(seconds: Exponential.sample(mean: 1 / interruptRate, &interruptions, table: zig)) : SimTime.never
                let segmentEnd = min(next, end)
                orientationChanges(until: segmentEnd, into: &out)
                if next >= end { break }
                // An interruption at `next`.
                let u = interruptions.nextUnit() * (b.callsPerDay + b.smsPerDay + b.alertsPerDay)
                let (kind, share, handling): (UserAction.Kind, Double, RealDistribution) =
                    u < b.callsPerDay ? (.call, b.answerCallShare, b.callDurationS)
                    : u < b.callsPerDay + b.smsPerDay ? (.sms, b.answerSmsShare, b.smsReplyS)
                    : (.alert, b.answerAlertShare, b.alertHandlingS)
                t = next
                emit(&out, kind, at: t)
                t = t + SimTime(seconds: max(0.1, b.responseDelayS.sample(&interruptions)))
                if interruptions.nextUnit() < share {
                    emit(&out, .answer, at: t)
                    front = -1
                    let remaining = end - next
                    t = t + SimTime(seconds: max(1, handling.sample(&interruptions)))
                    guard interruptions.nextUnit() < b.returnAfterInterruptionShare else { return }
                    emit(&out, .launch, at: t, app: current)
                    front = current
                    end = t + remaining
                } else {
                    emit(&out, .ignore, at: t)
                    if t > end { end = t }
                }
                current = front
            }
            t = end
        }

        /// Orientation changes (to every app) from now until `until`, while in use.
        mutating func orientationChanges(until: SimTime, into out: inout ContiguousArray<UserAction>) {
            guard b.orientationChangesPerHourOfUse > 0 else { return }
            var s = t
            while true {
                s = s + SimTime(seconds: Exponential.sample(mean: 3_600 / b.orientationChangesPerHourOfUse, &orientation, table: zig))
                if s >= until { break }
                orientationValue = orientationValue == 1 ? 2 : 1
                emit(&out, .notify, at: s, app: UserAction.allApps, eventKind: .orientation, value: orientationValue)
            }
        }
    }
}
