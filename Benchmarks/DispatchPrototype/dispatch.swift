// Issue 28's prototype: the device's hooks into its memory manager dispatched by an enum
// tag and a switch per hook (what Sources/JetSim/Memory/MemoryManager.swift does) against
// a device generic over its manager (one specialisation per manager). Not part of the
// package: built and measured by hand (docs/performance.md, "Dispatch: switch or generic").
//   swiftc -O -wmo dispatch.swift -o /tmp/dispatch
//   valgrind --tool=callgrind /tmp/dispatch switch 2000000   (and generic, parts; and 1 event, to subtract)
// Each event: a timer pop from a small binary heap (as the engine's), then three hooks
// (time passed, an app's memory changed, memory fell), whose bodies are the XNU-like
// manager's (a level check, a compressor tick, a trigger check) or two others'.

struct Ledger { var available: Int64 = 1 << 30; var compressor: Int64 = 0; var level: Int = 0; var kills = 0; var tick: Int64 = 0 }

// MARK: the switch
enum ManagerKind: UInt8 { case plain, xnu, android }
struct SwitchDevice {
    var kind: ManagerKind
    var l = Ledger()
    @inline(__always) mutating func timePassed(_ now: Int64) {
        switch kind {
        case .plain: break
        case .xnu: if now / 1_000_000 != l.tick { l.tick = now / 1_000_000; l.compressor &+= 7 }
        case .android: if now & 1023 == 0 { l.compressor &-= 1 }
        }
    }
    @inline(__always) mutating func memoryChanged(_ delta: Int64) {
        l.available &+= delta
        switch kind {
        case .plain: if l.available < 1 << 20 { l.kills += 1; l.available += 1 << 22 }
        case .xnu:
            let lvl = l.available < 1 << 24 ? 2 : (l.available < 1 << 26 ? 1 : 0)
            if lvl != l.level { l.level = lvl }
            if l.available < 1 << 22 { l.kills += 1; l.available += 1 << 23 }
        case .android: if l.available &- l.compressor < 1 << 21 { l.kills += 1; l.available += 1 << 22 }
        }
    }
    @inline(__always) mutating func memoryFell(_ now: Int64) {
        switch kind {
        case .plain: break
        case .xnu: if l.level == 2 && now & 15 == 0 { l.kills += 1 }
        case .android: if l.compressor > 1 << 30 { l.kills += 1 }
        }
    }
}

// MARK: the generic parameter
protocol Manager { static func timePassed(_ l: inout Ledger, _ now: Int64); static func memoryChanged(_ l: inout Ledger); static func memoryFell(_ l: inout Ledger, _ now: Int64) }
enum XNU: Manager {
    @inline(__always) static func timePassed(_ l: inout Ledger, _ now: Int64) { if now / 1_000_000 != l.tick { l.tick = now / 1_000_000; l.compressor &+= 7 } }
    @inline(__always) static func memoryChanged(_ l: inout Ledger) {
        let lvl = l.available < 1 << 24 ? 2 : (l.available < 1 << 26 ? 1 : 0)
        if lvl != l.level { l.level = lvl }
        if l.available < 1 << 22 { l.kills += 1; l.available += 1 << 23 }
    }
    @inline(__always) static func memoryFell(_ l: inout Ledger, _ now: Int64) { if l.level == 2 && now & 15 == 0 { l.kills += 1 } }
}
enum Android: Manager {
    @inline(__always) static func timePassed(_ l: inout Ledger, _ now: Int64) { if now & 1023 == 0 { l.compressor &-= 1 } }
    @inline(__always) static func memoryChanged(_ l: inout Ledger) { if l.available &- l.compressor < 1 << 21 { l.kills += 1; l.available += 1 << 22 } }
    @inline(__always) static func memoryFell(_ l: inout Ledger, _ now: Int64) { if l.compressor > 1 << 30 { l.kills += 1 } }
}
struct GenericDevice<M: Manager> {
    var l = Ledger()
    @inline(__always) mutating func timePassed(_ now: Int64) { M.timePassed(&l, now) }
    @inline(__always) mutating func memoryChanged(_ delta: Int64) { l.available &+= delta; M.memoryChanged(&l) }
    @inline(__always) mutating func memoryFell(_ now: Int64) { M.memoryFell(&l, now) }
}

// MARK: parts: the manager a struct of its own beside the core, its hooks given the core
// `inout` (issue 28's plan for the device in parts: `Device { var core; var xnu; ... }`,
// a hook `xnu.memoryChanged(&core)`; core and manager are separate stored properties, so
// the two accesses do not overlap). Still a tag and a switch: which manager's state to use.
struct XNUPart { var level = 0; var tick: Int64 = 0
    @inline(__always) mutating func timePassed(_ c: inout Ledger, _ now: Int64) { if now / 1_000_000 != tick { tick = now / 1_000_000; c.compressor &+= 7 } }
    @inline(__always) mutating func memoryChanged(_ c: inout Ledger) {
        let lvl = c.available < 1 << 24 ? 2 : (c.available < 1 << 26 ? 1 : 0)
        if lvl != level { level = lvl }
        if c.available < 1 << 22 { c.kills += 1; c.available += 1 << 23 }
    }
    @inline(__always) func memoryFell(_ c: inout Ledger, _ now: Int64) { if level == 2 && now & 15 == 0 { c.kills += 1 } }
}
struct AndroidPart {
    @inline(__always) func timePassed(_ c: inout Ledger, _ now: Int64) { if now & 1023 == 0 { c.compressor &-= 1 } }
    @inline(__always) func memoryChanged(_ c: inout Ledger) { if c.available &- c.compressor < 1 << 21 { c.kills += 1; c.available += 1 << 22 } }
    @inline(__always) func memoryFell(_ c: inout Ledger, _ now: Int64) { if c.compressor > 1 << 30 { c.kills += 1 } }
}
struct PartsDevice {
    var kind: ManagerKind
    var core = Ledger()
    var xnu = XNUPart()
    var android = AndroidPart()
    @inline(__always) mutating func timePassed(_ now: Int64) {
        switch kind {
        case .plain: break
        case .xnu: xnu.timePassed(&core, now)
        case .android: android.timePassed(&core, now)
        }
    }
    @inline(__always) mutating func memoryChanged(_ delta: Int64) {
        core.available &+= delta
        switch kind {
        case .plain: if core.available < 1 << 20 { core.kills += 1; core.available += 1 << 22 }
        case .xnu: xnu.memoryChanged(&core)
        case .android: android.memoryChanged(&core)
        }
    }
    @inline(__always) mutating func memoryFell(_ now: Int64) {
        switch kind {
        case .plain: break
        case .xnu: xnu.memoryFell(&core, now)
        case .android: android.memoryFell(&core, now)
        }
    }
}

// MARK: the loop (a heap of 1,000 pending timers; each pop pushes one later)
protocol Hooks { mutating func timePassed(_ now: Int64); mutating func memoryChanged(_ delta: Int64); mutating func memoryFell(_ now: Int64); var kills: Int { get } }
extension SwitchDevice: Hooks { var kills: Int { l.kills } }
extension GenericDevice: Hooks { var kills: Int { l.kills } }
extension PartsDevice: Hooks { var kills: Int { core.kills } }

@inline(never) func run<D: Hooks>(_ d: inout D, events: Int) -> Int {
    var heap = [Int64](); heap.reserveCapacity(1_024)
    var x: UInt64 = 88172645463325252
    @inline(__always) func next() -> UInt64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
    func push(_ v: Int64) { heap.append(v); var i = heap.count - 1; while i > 0 { let p = (i - 1) / 2; if heap[p] <= heap[i] { break }; heap.swapAt(p, i); i = p } }
    func pop() -> Int64 { let top = heap[0]; let last = heap.removeLast(); if !heap.isEmpty { heap[0] = last; var i = 0; while true { let a = 2 * i + 1, b = a + 1; var m = i; if a < heap.count && heap[a] < heap[m] { m = a }; if b < heap.count && heap[b] < heap[m] { m = b }; if m == i { break }; heap.swapAt(m, i); i = m } }; return top }
    for _ in 0..<1_000 { push(Int64(next() % 1_000_000)) }
    for _ in 0..<events {
        let now = pop()
        d.timePassed(now)
        let delta = Int64(next() % 4_096) - 2_100
        d.memoryChanged(delta << 10)
        if delta < 0 { d.memoryFell(now) }
        push(now + Int64(next() % 2_000_000))
    }
    return d.kills
}

let args = CommandLine.arguments
let events = args.count > 2 ? Int(args[2])! : 2_000_000
let which = args.count > 1 ? args[1] : "switch"
// The manager comes from input, as a workload's os key does.
let os = args.count > 3 ? args[3] : "ios"
var kills = 0
if which == "switch" {
    var d = SwitchDevice(kind: os == "android" ? .android : .xnu)
    kills = run(&d, events: events)
} else if which == "parts" {
    var d = PartsDevice(kind: os == "android" ? .android : .xnu)
    kills = run(&d, events: events)
} else if os == "android" {
    var d = GenericDevice<Android>(); kills = run(&d, events: events)
} else {
    var d = GenericDevice<XNU>(); kills = run(&d, events: events)
}
print(which, os, events, "events,", kills, "kills")
