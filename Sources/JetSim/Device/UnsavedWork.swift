import SimKernel

// The device's core: the unsaved work (what a kill would lose; the lifecycle's
// messages decide when it is saved).
extension DeviceCore {
    /// The edits an app would lose now (its unsaved active time times its edit rate).

    @inline(__always) func unsavedEdits(_ app: Int32) -> Int {
        let micros = apps[Int(app)].unsavedMicros
        guard micros > 0 else { return 0 }
        // An app that makes no edits loses none (the product below is 0): without the
        // conversion, at every kill of an app that was ever in front.
        let rate = profiles[pi(app)].unsavedEditsPerMinute
        guard rate != 0 else { return 0 }
        return Int(saturating: Double(micros) * rate / 60_000_000)
    }

    /// Adds the active time since `activeSince` to the unsaved work.
    @inline(__always)
    mutating func accrueUnsaved(_ app: Int32, _ now: SimTime) {
        let a = Int(app)
        guard apps[a].state == .active else { return }
        apps[a].accrueActive(until: now)
    }
}
