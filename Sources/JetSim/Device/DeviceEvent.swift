import SimKernel

// The device's core: its timer events.
/// A device timer event: a small plain struct with a generation stamp, so that
/// cancelled ones are skipped. (User actions are not events: the engine takes the
/// timeline as the device's input stream.)
public struct DeviceEvent: Sendable {
    public enum Kind: UInt8, Sendable {
        /// The background grace ended: suspend if no work is left.
        case suspendDue
        /// The background task finished its work.
        case bgTaskDone
        /// The background task's allowance ran out with work unfinished.
        case bgTaskExpired
        /// The background mode's activity ended.
        case modeEnded
        /// didEnterBackground overran its limit.
        case watchdogKill
        /// An exits-on-suspend app's didEnterBackground returned.
        case exitOnSuspend
        /// A save completed.
        case saveDone
        /// Time for a periodic save.
        case periodicSave
        /// The app's time in the aging band is over: to the idle (or dock) band.
        case agingEnded
        /// The app in front grows one step toward its peak.
        case grow
        /// XNU: pressure has been above normal for the sustained window (a device
        /// timer, not an app's: `app` is 0 and the stamp unused; a stale one is told by
        /// its time, `Device.sustainedDue`).
        case sustainedPressure
        /// XNU: launchd relaunches an idle-band daemon (a device timer like
        /// `sustainedPressure`; a stale one is told by its time,
        /// `IdleDaemonPool.relaunchDue`).
        case idleDaemonRelaunch

        /// A timer of the device, not of an app (the last kinds).
        @inlinable var isDeviceTimer: Bool { rawValue >= Kind.sustainedPressure.rawValue }
    }

    public var kind: Kind
    public var app: Int32
    public var stamp: UInt32

    @inlinable init(_ kind: Kind, app: Int32, stamp: UInt32 = 0) {
        self.kind = kind
        self.app = app
        self.stamp = stamp
    }

    /// The timer slot family of an app timer: background work, save, periodic save.
    @inlinable var slotFamily: Int {
        switch kind {
        case .saveDone: 1
        case .periodicSave, .grow: 2
        default: 0
        }
    }
}

/// The device timers to schedule at the end of an event (`Device.armTimers`).
struct DeviceTimerArm: OptionSet {
    let rawValue: UInt8
    static let sustained = DeviceTimerArm(rawValue: 1)
    static let idleDaemon = DeviceTimerArm(rawValue: 2)
}
