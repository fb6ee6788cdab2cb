import SimKernel

// The device's core: one app's record (`AppRuntime`) and the events held for it.
/// One app's state on one device. A plain struct in a contiguous array, indexed by
/// the app's index on the device: 104 bytes, laid out so that with its timer stamps,
/// its installed-app entry and its share of any policy's index it stays under 128
/// bytes (`Device.stateBytes`).
public struct AppRuntime: Sendable, Equatable {
    public var state: AppState = .notRunning
    /// The lifecycle's marks (`LifecycleFlags`).
    @usableFromInline var lifecycle = LifecycleFlags()
    /// What the last kill left for the next launch (`KillReason.mark`); empty when not
    /// killed since its last launch.
    @usableFromInline var lastKill = KillMark()
    /// Its XNU jetsam band (priority) while a candidate (`Device.xnuBand`).
    public internal(set) var band: UInt8 = 0
    /// Held (coalesced) system events: count and latest value per kind.
    @usableFromInline var held = HeldEvents()
    /// Thaws since it was last frozen from scratch (saturating), and the memory
    /// managers' marks (`MemoryFlags`): in the bytes after `held`.
    @usableFromInline var thaws: UInt8 = 0
    @usableFromInline var memory = MemoryFlags()
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
    /// In the padding before `stateClock` (the record stayed 96 bytes).
    @usableFromInline var packedKB: Int32 = 0
    /// The storage of five times, each meaningful in one state only and read and
    /// written only through its own name: `activeSince` (active), `suspendNotBefore`
    /// (background), `compressingSince` (suspended, being compressed: XNU),
    /// `cachedSince` (suspended, cached: Android), `filesCachedSince` (not running, or
    /// prewarmed). One field
    /// because the states never overlap: five would add 32 bytes to every app record
    /// (`StateBytesTests` bounds it).
    @usableFromInline var stateClock: SimTime = .zero
    /// Active time whose edits are not saved yet, in microseconds.
    public var unsavedMicros: Int64 = 0
    /// The unsaved amount the save in flight will clear when it completes.
    @usableFromInline var saveSnapshot: Int64 = 0
    /// When the user last left it.
    public var lastUsed: SimTime = .zero
    /// When the user will next bring it to the front (oracle only).
    @usableFromInline var nextUse: SimTime = .never
    /// When it entered its current band (`band`): XNU's p_memstat_prio_start, set at
    /// every change of priority (bsd/kern/kern_memorystatus.c:2795-2830,
    /// _memstat_record_prio_transition), which the reaper's age reads
    /// (`Device.pickReaper`). Set by `Device.refreshCandidate`; an app that stops
    /// being a candidate (in front, or dead) is given the foreground band, so its next
    /// band is an entry.
    @usableFromInline var bandSince: SimTime = .zero

    @inlinable var isPrewarmed: Bool { lifecycle.contains(.prewarmed) }
    public var isFrozen: Bool { memory.contains(.frozen) }

    /// Being compressed since `t` (`Device.startCompressing`).
    @inlinable mutating func markCompressing(since t: SimTime) {
        compressingSince = t
        memory.insert(.compressing)
    }
    /// Out of the compressor, holding `kb` (`Device.leaveCompressorNow`): one access.
    @inlinable mutating func leaveCompressor(residentKB kb: Int64) {
        memory.remove(.compressed)
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

    /// Resident memory now, KiB.
    public var residentKB: Int64 {
        @inlinable get { Int64(resident) }
        @inlinable set { resident = Int32(newValue) }
    }
    /// When it last became active (meaningful while active).
    @inlinable var activeSince: SimTime {
        get { stateClock }
        set { stateClock = newValue }
    }
    /// Not suspended before this (meaningful while in the background).
    @inlinable var suspendNotBefore: SimTime {
        get { stateClock }
        set { stateClock = newValue }
    }
    /// When XNU's compressor started on it (meaningful while `.compressing`).
    @inlinable var compressingSince: SimTime {
        get { stateClock }
        set { stateClock = newValue }
    }
    /// When it became cached: ActivityManager's lastActivityTime (meaningful while
    /// suspended on Android).
    @inlinable var cachedSince: SimTime {
        get { stateClock }
        set { stateClock = newValue }
    }
    /// When the page cache last took its files as far as a cold launch goes: its kill
    /// (the files outlive the process) or its prewarm (meaningful while not running,
    /// or prewarmed: `Device.filesCached`).
    @inlinable var filesCachedSince: SimTime {
        get { stateClock }
        set { stateClock = newValue }
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
        a.state == b.state && a.lifecycle == b.lifecycle && a.lastKill == b.lastKill && a.band == b.band && a.held == b.held
            && a.resident == b.resident && a.launches == b.launches && a.broadcastMark == b.broadcastMark
            && a.backgroundEntries == b.backgroundEntries && a.generations == b.generations
            && a.thaws == b.thaws && a.memory == b.memory && a.packedKB == b.packedKB
            && a.stateClock == b.stateClock && a.unsavedMicros == b.unsavedMicros && a.saveSnapshot == b.saveSnapshot
            && a.lastUsed == b.lastUsed && a.nextUse == b.nextUse && a.bandSince == b.bandSince
    }
}

/// The lifecycle's marks on an app record (its own; the memory managers' are
/// `MemoryFlags`). A termination resets them.
public struct LifecycleFlags: OptionSet, Sendable, Equatable {
    public let rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A background task is running (beginBackgroundTask).
    @inlinable static var bgTask: Self { Self(rawValue: 1) }
    /// Its background mode's activity is running.
    @inlinable static var modeActive: Self { Self(rawValue: 2) }
    /// A save is in flight (`Device.startSave`).
    @inlinable static var saveInFlight: Self { Self(rawValue: 4) }
    /// A termination is committed (issue 14): an exits-on-suspend exit after its
    /// didEnterBackground, or the watchdog for a didEnterBackground that overran. The
    /// user tapping the app again does not cancel it (`Device.launch`).
    @inlinable static var exitCommitted: Self { Self(rawValue: 8) }
    @inlinable static var watchdogCommitted: Self { Self(rawValue: 16) }
    /// A prewarmed process (iOS 15, `Device.prewarm`): state `suspended`, stopped
    /// before main, no delegate message yet.
    @inlinable static var prewarmed: Self { Self(rawValue: 32) }
    /// The system started this process in the background (a system launch) and the
    /// user has not brought it to the front since: it has shown no UI. A user's launch
    /// clears it. (Android: cached, it is an empty process, `MemoryFlags.emptyProcess`.)
    @inlinable static var systemStarted: Self { Self(rawValue: 64) }
}

/// The memory managers' marks on an app record: the ones every manager shares here
/// (frozen, compressed, compressing), each manager's own declared in its folder
/// (XNU/XNUMemory.swift, Android/AndroidMemory.swift) on the bits above these. A
/// termination resets them but its manager's `marksKeptOnExit`.
public struct MemoryFlags: OptionSet, Sendable, Equatable {
    public let rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// Its memory is on flash (XNU frozen; Android written back).
    @inlinable static var frozen: Self { Self(rawValue: 1) }
    /// Its memory is in the compressor (XNU) or zram (Android).
    @inlinable static var compressed: Self { Self(rawValue: 2) }
    /// Its memory is still being compressed (`Device.compressing`); `resident` then
    /// holds its uncompressed size at suspension and `compressingSince` when it was suspended
    /// (Memory/XNU/Compression.swift).
    @inlinable static var compressing: Self { Self(rawValue: 4) }
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
