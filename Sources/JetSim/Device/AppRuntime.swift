import SimKernel

// The device's core: one app's record (`AppRuntime`) and the events held for it.
/// One app's state on one device. A plain struct in a contiguous array, indexed by
/// the app's index on the device: 80 bytes, laid out so that with its timer stamps,
/// its installed-app entry and its share of any policy's index it stays under 128
/// bytes (`Device.stateBytes`).
public struct AppRuntime: Sendable, Equatable {
    public var state: AppState = .notRunning
    @usableFromInline var flags: UInt8 = 0
    /// The reason of the last kill (raw value), or `noKill`; cleared by a launch.
    @usableFromInline var lastKill: UInt8 = AppRuntime.noKill
    /// Its XNU jetsam band (priority) while a candidate (`Device.xnuBand`).
    public internal(set) var band: UInt8 = 0
    /// Held (coalesced) system events: count and latest value per kind.
    @usableFromInline var held = HeldEvents()
    /// Thaws since it was last frozen from scratch (saturating), and the freezer's
    /// marks (`hasFlashCopy`, `demoted`): in the bytes after `held`.
    @usableFromInline var thaws: UInt8 = 0
    @usableFromInline var freezerMarks: UInt8 = 0
    /// Resident memory now, KiB (32 bits: up to 2 TiB).
    @usableFromInline var resident: Int32 = 0
    /// Launches on this device so far.
    public var launches: UInt32 = 0
    /// The number of broadcast events when it was suspended: it has missed the ones
    /// after (see `Device.broadcast`).
    @usableFromInline var broadcastMark: UInt32 = 0
    /// Trips to the background so far, modulo 2^16 (keys its per-trip random draws).
    @usableFromInline var backgroundEntries: UInt16 = 0
    /// Timer generations (lazy cancellation, as the engine's `GenerationTable` does,
    /// kept here so a timer costs no separate array): background work, save, periodic.
    @usableFromInline var generations: (UInt16, UInt16, UInt16) = (0, 0, 0)
    /// Its suspended footprint after compression (`Device.suspendedResidentKB`, clamped
    /// to 32 bits as `resident` is), set at reset and kept across kills: compression
    /// reads it per event, and recomputing it cost a division and a libm `round`.
    /// In the padding before `stateTime` (the record stays 96 bytes).
    @usableFromInline var packedKB: Int32 = 0
    /// When the current state's clock started: when it became active (unsaved work
    /// accrues while active), or, in the background, the time before which it is not
    /// suspended (didEnterBackground + the grace); while not running, when it was
    /// killed (`Device.filesCached`). One field: the three never overlap.
    @usableFromInline var stateTime: SimTime = .zero
    /// Active time whose edits are not saved yet, in microseconds.
    public var unsavedMicros: Int64 = 0
    /// The unsaved amount the save in flight will clear when it completes.
    @usableFromInline var saveSnapshot: Int64 = 0
    /// When the user last left it.
    public var lastUsed: SimTime = .zero
    /// When the user will next bring it to the front (oracle only).
    @usableFromInline var nextUse: SimTime = .never

    static let noKill: UInt8 = 0xFF
    @usableFromInline static let bgTask: UInt8 = 1, modeActive: UInt8 = 2, saveInFlight: UInt8 = 4
    /// Frozen (its memory on flash), in the dock, its memory in the compressor.
    @usableFromInline static let frozen: UInt8 = 8, inDock: UInt8 = 16, compressed: UInt8 = 32
    /// Notified in the current pressure-warning round; over its inactive (soft) limit.
    @usableFromInline static let pressureNotified: UInt8 = 64, overSoftLimit: UInt8 = 128
    /// Freezer marks: frozen once, its state still on flash (XNU's P_MEMSTAT_FROZEN,
    /// kept through thaws until it exits; a refreeze writes only what it dirtied);
    /// demoted from the frozen band to the idle band.
    @usableFromInline static let hasFlashCopy: UInt8 = 1, demoted: UInt8 = 2
    /// A termination is committed (issue 14): an exits-on-suspend exit after its
    /// didEnterBackground, or the watchdog for a didEnterBackground that overran. The
    /// user tapping the app again does not cancel it (`Device.launch`).
    /// In `freezerMarks` (the flags byte is full); a termination resets the record.
    @usableFromInline static let exitCommitted: UInt8 = 4, watchdogCommitted: UInt8 = 8
    /// In `freezerMarks`: its memory is still being compressed (`Device.compressing`);
    /// `resident` then holds its uncompressed size at suspension and `stateTime` when
    /// it was suspended (Memory/XNU/Compression.swift).
    @usableFromInline static let compressing: UInt8 = 16
    /// In `freezerMarks`: a prewarmed process (iOS 15, `Device.prewarm`): state
    /// `suspended`, stopped before main, no delegate message yet.
    @usableFromInline static let prewarmed: UInt8 = 32
    @inlinable var isPrewarmed: Bool { freezerMarks & Self.prewarmed != 0 }
    /// In `freezerMarks`: resumed since it was frozen, its state still on flash:
    /// XNU's P_MEMSTAT_REFREEZE_ELIGIBLE (bsd/kern/kern_memorystatus.c:3793-3796).
    @usableFromInline static let refreezeEligible: UInt8 = 64
    public var isFrozen: Bool { has(Self.frozen) }

    /// Being compressed since `t` (`Device.startCompressing`). The two writes in one
    /// method: one access to the record, one uniqueness check of the device's array.
    @inlinable mutating func markCompressing(since t: SimTime) {
        stateTime = t
        freezerMarks |= Self.compressing
    }
    /// Out of the compressor, holding `kb` (`Device.leaveCompressorNow`): one access.
    @inlinable mutating func leaveCompressor(residentKB kb: Int64) {
        clear(Self.compressed)
        residentKB = kb
    }
    /// Holds `kb` from now; returns what that frees (`Device.setResident` adds it to
    /// available memory).
    @inlinable @inline(__always) mutating func replaceResident(_ kb: Int64) -> Int64 {
        let freed = residentKB - kb
        residentKB = kb
        return freed
    }
    /// Adds the active time since `activeSince` to the unsaved work
    /// (`Device.accrueUnsaved`, for an active app).
    @inlinable @inline(__always) mutating func accrueActive(until now: SimTime) {
        unsavedMicros += (now - activeSince).microseconds
        activeSince = now
    }

    @inlinable func has(_ f: UInt8) -> Bool { flags & f != 0 }
    @inlinable mutating func set(_ f: UInt8) { flags |= f }
    @inlinable mutating func clear(_ f: UInt8) { flags &= ~f }

    /// Resident memory now, KiB.
    public var residentKB: Int64 {
        @inlinable get { Int64(resident) }
        @inlinable set { resident = Int32(newValue) }
    }
    /// When it last became active (meaningful while active).
    @inlinable var activeSince: SimTime {
        get { stateTime }
        set { stateTime = newValue }
    }
    /// Not suspended before this (meaningful while in the background).
    @inlinable var suspendNotBefore: SimTime {
        get { stateTime }
        set { stateTime = newValue }
    }

    public init() {}

    /// The current generation of a timer family (0 background, 1 save, 2 periodic).
    @inlinable func generation(_ family: Int) -> UInt16 {
        family == 0 ? generations.0 : family == 1 ? generations.1 : generations.2
    }

    /// Makes every pending timer of a family stale.
    @inlinable mutating func cancel(_ family: Int) {
        switch family {
        case 0: generations.0 &+= 1
        case 1: generations.1 &+= 1
        default: generations.2 &+= 1
        }
    }

    public static func == (a: AppRuntime, b: AppRuntime) -> Bool {
        a.state == b.state && a.flags == b.flags && a.lastKill == b.lastKill && a.band == b.band && a.held == b.held
            && a.resident == b.resident && a.launches == b.launches && a.broadcastMark == b.broadcastMark
            && a.backgroundEntries == b.backgroundEntries && a.generations == b.generations
            && a.thaws == b.thaws && a.freezerMarks == b.freezerMarks && a.packedKB == b.packedKB
            && a.stateTime == b.stateTime && a.unsavedMicros == b.unsavedMicros && a.saveSnapshot == b.saveSnapshot
            && a.lastUsed == b.lastUsed && a.nextUse == b.nextUse
    }
}

/// System events held for a suspended app: per kind, how many arrived and the latest
/// value. Fixed size (15 bytes): nothing allocated per event.
public struct HeldEvents: Sendable, Equatable {
    /// 32 bits per kind: exact for every run the schema accepts (a synthetic device
    /// makes at most `Workload.maxActionsPerDevice`, 50 million, actions; a scenario
    /// at most `Scenario.maxNotifiesPerApp` notifies to one app). Issue 11: 16 bits
    /// saturated silently past 65,535 held events.
    @usableFromInline var counts: (UInt32, UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0, 0)
    /// Last, so the record's next fields fill the 3 bytes after them (25 bytes, not 28).
    @usableFromInline var values: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)

    public init() {}

    @inlinable public func count(_ k: SystemEventKind) -> Int {
        switch k.rawValue {
        case 0: Int(counts.0)
        case 1: Int(counts.1)
        case 2: Int(counts.2)
        case 3: Int(counts.3)
        default: Int(counts.4)
        }
    }

    @inlinable public func value(_ k: SystemEventKind) -> Int32 {
        switch k.rawValue {
        case 0: Int32(values.0)
        case 1: Int32(values.1)
        case 2: Int32(values.2)
        case 3: Int32(values.3)
        default: Int32(values.4)
        }
    }

    /// Holds one more event of kind `k` with `value` (the latest value wins; values
    /// are interned ids below 256).
    @inlinable public mutating func hold(_ k: SystemEventKind, value: Int32) {
        let v = UInt8(clamping: value)
        switch k.rawValue {
        case 0: counts.0 &+= counts.0 < .max ? 1 : 0; values.0 = v
        case 1: counts.1 &+= counts.1 < .max ? 1 : 0; values.1 = v
        case 2: counts.2 &+= counts.2 < .max ? 1 : 0; values.2 = v
        case 3: counts.3 &+= counts.3 < .max ? 1 : 0; values.3 = v
        default: counts.4 &+= counts.4 < .max ? 1 : 0; values.4 = v
        }
    }

    /// Every held event, all kinds.
    @inlinable public var total: Int {
        Int(counts.0) + Int(counts.1) + Int(counts.2) + Int(counts.3) + Int(counts.4)
    }

    @inlinable public static func == (a: HeldEvents, b: HeldEvents) -> Bool {
        a.counts == b.counts && a.values == b.values
    }
}
