import Foundation

/// A sum tree over the catalog's Zipf popularity weights, for drawing installed apps
/// without replacement in O(log m) per draw with no loop that waits on chance: the
/// fallback of `DeviceInputs.chooseInstalled` when rejection runs out of draws
/// (steep popularity, `catalog.popularity_zipf_exponent` 5: the apps not yet drawn
/// hold almost no weight). Issue 11 asks every loop that waits for a random draw to
/// have a bound and a fast alternative; this is the alternative.
///
/// Internal nodes `node[1..<p]` hold the sum of their two children; leaf `a` (node
/// `p + a`) is computed, not stored: `1 / pow(a + 1, s)` as `AppCatalog.popularity`
/// weighs it, or 0 while removed. Every node is recomputed from its children, never
/// by subtracting, so removing apps and putting them back restores every node bit
/// for bit: results do not depend on which devices a worker drew before (threads,
/// shards). Memory: one Double per app rounded up to a power of two, built once per
/// worker, only when a device needs it.
struct PopularityTree {
    let m: Int
    let p: Int
    let exponent: Double
    var node: ContiguousArray<Double>

    init(apps m: Int, exponent: Double) {
        self.m = m
        self.exponent = exponent
        var p = 1
        while p < m { p <<= 1 }
        self.p = p
        node = ContiguousArray(repeating: 0, count: max(2, p))
        let none = ContiguousArray<UInt32>()
        for v in stride(from: p - 1, through: 1, by: -1) { node[v] = value(2 * v, none, nil) + value(2 * v + 1, none, nil) }
    }

    /// App `a`'s weight, as `AppCatalog.popularity` gives it.
    @inline(__always) func weight(_ a: Int) -> Double { a < m ? 1 / pow(Double(a + 1), exponent) : 0 }

    /// Node `v`'s sum; a leaf is removed while `seen[a] == epoch` (nil: none is).
    @inline(__always) func value(_ v: Int, _ seen: ContiguousArray<UInt32>, _ epoch: UInt32?) -> Double {
        guard v >= p else { return node[v] }
        let a = v - p
        return a < m && (epoch == nil || seen[a] != epoch!) ? weight(a) : 0
    }

    /// Recomputes the ancestors of app `a` bottom-up.
    mutating func update(_ a: Int, _ seen: ContiguousArray<UInt32>, _ epoch: UInt32?) {
        var v = (a + p) >> 1
        while v >= 1 {
            node[v] = value(2 * v, seen, epoch) + value(2 * v + 1, seen, epoch)
            v >>= 1
        }
    }

    /// An app drawn in proportion to the weights of those not removed: one uniform,
    /// one descent. nil when nothing is left (every weight removed).
    func sample(_ u: Double, _ seen: ContiguousArray<UInt32>, _ epoch: UInt32) -> Int? {
        if m == 1 { return seen[0] == epoch ? nil : 0 }
        guard node[1] > 0 else { return nil }
        var x = u * node[1]
        var v = 1
        while v < p {
            let l = value(2 * v, seen, epoch), r = value(2 * v + 1, seen, epoch)
            // A rounding remainder past the left sum goes right only if there is weight.
            if x < l || r == 0 { v = 2 * v } else { x -= l; v = 2 * v + 1 }
        }
        return v - p
    }
}
