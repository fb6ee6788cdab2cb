import SimKernel

// Every kill reason and counter: the core's (Device/KillReason.swift,
// Device/DeviceMetrics.swift), those of the memory that every manager shares (here),
// and each manager's (its folder's `…Vocabulary`). A new manager adds its vocabulary's
// two lists below: that is its one registration here.

// Counted by the memory every manager shares (the compressor pool, flash writes,
// memory warnings).
extension Counter {
    public static var memoryWarnings: Counter { Counter(23) }
    public static var flashWrittenKB: Counter { Counter(35) }
    public static var compressorPeakKB: Counter { Counter(37) }
    public static var compressorKBSeconds: Counter { Counter(38) }


    static let sharedMemory: [Declaration] = [
        .init(.memoryWarnings, "memory_warnings", perDevice: true, "didReceiveMemoryWarning messages sent"),
        .init(.flashWrittenKB, "flash_written_kb", "KiB the freezer wrote to flash"),
        .init(.compressorPeakKB, "compressor_peak_kb", "each device's peak compressor pool (physical KiB), summed over devices"),
        .init(.compressorKBSeconds, "compressor_kb_s", "compressor pool occupancy integrated over time, KiB x s (mean = this / (devices x duration))"),
    ]
}

extension KillReason {
    /// Every reason with its name: the core's, then each manager's.
    static let named: [(KillReason, String)] = core + XNUVocabulary.killReasons + AndroidVocabulary.killReasons
    /// Every reason.
    public static let allCases: [KillReason] = named.map(\.0)
    /// Its name in traces and counters.
    public var name: String { KillReason.nameOfSlot[counter.rawValue] ?? "?" }
    private static let nameOfSlot: [String?] = {
        var r = [String?](repeating: nil, count: Counter.count)
        for (k, n) in named { r[k.counter.rawValue] = n }
        return r
    }()
}

extension KillReason: CustomStringConvertible {
    public var description: String { name }
}

extension Counter {
    /// Every counter's declaration, in slot order (the CSV's and the shard state's).
    static let declarations: [Declaration] = {
        let all = core + sharedMemory + XNUVocabulary.counters + AndroidVocabulary.counters
        let sorted = all.sorted { $0.counter.rawValue < $1.counter.rawValue }
        precondition(sorted.enumerated().allSatisfy { $0.offset == $0.element.counter.rawValue },
                     "counter slots must run 0..<count, each once")
        return sorted
    }()

    /// Every counter, in slot order.
    public static let allCases: [Counter] = declarations.map(\.counter)

    /// How many counters there are.
    public static var count: Int { declarations.count }

    /// Its declaration.
    public var declaration: Declaration { Counter.declarations[rawValue] }

    /// The kill reason it counts, if it counts one.
    public var killReason: KillReason? { Counter.reasonOfSlot[rawValue] }
    private static let reasonOfSlot: [KillReason?] = {
        var r = [KillReason?](repeating: nil, count: count)
        for k in KillReason.allCases {
            precondition(r[k.counter.rawValue] == nil, "two kill reasons share the counter \(k.counter)")
            r[k.counter.rawValue] = k
        }
        return r
    }()

    /// The counters of kill reasons, in slot order: `totalKills` adds them.
    public static let kills: [Counter] = allCases.filter { $0.killReason != nil }

    /// State names, in order.
    public static let names: [String] = allCases.map(\.declaration.name)
}

extension DeviceMetrics {
    /// Every kill, whatever the reason.
    public var totalKills: Int {
        var n = 0
        for c in Counter.kills { n += self[c] }
        return n
    }

    /// Every counter, in slot order: how shard states store metrics.
    public var counters: [Int] {
        get { Counter.allCases.map { self[$0] } }
        set {
            precondition(newValue.count == Counter.count)
            for (c, v) in zip(Counter.allCases, newValue) { self[c] = v }
        }
    }
}
