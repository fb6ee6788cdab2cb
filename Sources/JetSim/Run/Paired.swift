import SimKernel

/// The exact sums a paired comparison of a cell with its baseline needs.
///
/// Every policy sees the same devices (same users, same timelines: common random
/// numbers), so per-device differences between two cells vary far less than either
/// cell's figures. For each device i, with A the cell and B the baseline cell at the
/// same RAM, the vector
///
///     x_i = (cold_A, relaunches_A, latency_sum_us_A, loss_units_A,
///            cold_B, relaunches_B, latency_sum_us_B, loss_units_B)
///
/// is added to `sums` (Σx) and its outer product to `products` (Σx xᵀ, upper
/// triangle). Integers only (Int128, so a device's latency sum squared fits), so
/// adding devices in any order, thread count or shard gives the same state. The
/// deltas and their intervals (`PairedDelta`) are functions of these sums.
public struct PairedSums: Sendable, Equatable {
    /// Components of x: 4 per cell.
    public static let width = 8
    static let cold = 0, relaunches = 1, latency = 2, loss = 3
    /// Σx.
    public var sums = InlineArray<8, Int128>(repeating: 0)
    /// Σ x_j x_k for j <= k, row by row (36 entries).
    public var products = InlineArray<36, Int128>(repeating: 0)

    public init() {}

    /// Where Σ x_j x_k is in `products` (j <= k).
    @inline(__always) static func slot(_ j: Int, _ k: Int) -> Int {
        let (a, b) = j <= k ? (j, k) : (k, j)
        return a * width - a * (a - 1) / 2 + (b - a)
    }

    /// Σ x_j x_k for any j, k.
    public func product(_ j: Int, _ k: Int) -> Int128 { products[Self.slot(j, k)] }

    @inline(__always) static func add(_ a: Int128, _ b: Int128) -> Int128 {
        let (s, o) = a.addingReportingOverflow(b)
        return o ? (b > 0 ? .max : .min) : s
    }

    /// Adds one device: `a` is the cell's metrics, `b` the baseline's.
    public mutating func add(_ a: DeviceMetrics, _ b: DeviceMetrics) {
        var x = InlineArray<8, Int128>(repeating: 0)
        x[0] = Int128(a[.coldRelaunches]); x[1] = Int128(a[.relaunches])
        x[2] = Int128(a[.relaunchLatencySumMicros]); x[3] = Int128(a[.dataLossUnits])
        x[4] = Int128(b[.coldRelaunches]); x[5] = Int128(b[.relaunches])
        x[6] = Int128(b[.relaunchLatencySumMicros]); x[7] = Int128(b[.dataLossUnits])
        var s = 0
        for j in 0..<Self.width {
            sums[j] = Self.add(sums[j], x[j])
            for k in j..<Self.width {
                // Counters are Int (< 2^63), so one product is < 2^126: no overflow.
                products[s] = Self.add(products[s], x[j] * x[k])
                s += 1
            }
        }
    }

    /// Adds another device set's sums (exact).
    public mutating func merge(_ o: PairedSums) {
        for j in 0..<Self.width { sums[j] = Self.add(sums[j], o.sums[j]) }
        for s in 0..<36 { products[s] = Self.add(products[s], o.products[s]) }
    }

    /// The 44 integers in state order (Σx, then Σx xᵀ), for the shard state.
    public var values: [Int128] {
        get { (0..<Self.width).map { sums[$0] } + (0..<36).map { products[$0] } }
        set {
            precondition(newValue.count == Self.valueCount)
            for j in 0..<Self.width { sums[j] = newValue[j] }
            for s in 0..<36 { products[s] = newValue[Self.width + s] }
        }
    }
    public static let valueCount = 44

    public static func == (a: PairedSums, b: PairedSums) -> Bool { a.values == b.values }
}

/// A paired difference (cell minus baseline) and the half-width of its 95 % interval.
public struct PairedDelta: Sendable, Equatable {
    public var value: Double
    public var ci95: Double
}

/// The four paired comparisons of `--baseline` (docs/cli.md, "Paired comparisons"; the columns and intervals: docs/columns.md).
///
/// Each delta is a smooth function f of the per-device means x̄ (ratios of sums, or a
/// difference of means), so its standard error is the delta method's, with devices as
/// the independent units (as `Summary.ratioCI95` for one cell):
///
///     SE² = gᵀ C g / (m (m − 1)),   C_jk = Σ x_j x_k − Σx_j Σx_k / m,   g = ∇f(x̄)
///
/// and the half-width is t(0.975, m − 1) · SE. Because g has a block for A and one for
/// B, the cross block of C (the covariance between a device's results under the two
/// policies) enters: that is the pairing. Dropping it (`paired: false`) gives the
/// unpaired interval, sqrt(ci_A² + ci_B²). A cell compared with itself has x_A ≡ x_B
/// and g_B = −g_A, and the quadratic form is evaluated so that it is then exactly 0.
public enum Paired {
    /// The gradient blocks for cell A and baseline B and the value, from the sums.
    typealias Gradient = (a: InlineArray<4, Double>, b: InlineArray<4, Double>)

    /// cold ratio A − cold ratio B (pooled ratios Σcold / Σrelaunches).
    public static func coldRatio(_ p: PairedSums, devices m: Int, paired: Bool = true) -> PairedDelta {
        ratio(p, devices: m, numerator: PairedSums.cold, scale: 1, paired: paired)
    }

    /// mean relaunch latency A − B, milliseconds (Σlatency / Σrelaunches).
    public static func meanLatencyMillis(_ p: PairedSums, devices m: Int, paired: Bool = true) -> PairedDelta {
        ratio(p, devices: m, numerator: PairedSums.latency, scale: 1e-3, paired: paired)
    }

    /// data loss per device-day A − B.
    public static func lossPerDeviceDay(_ p: PairedSums, devices m: Int, days: Double, paired: Bool = true) -> PairedDelta {
        guard m >= 1, days > 0 else { return PairedDelta(value: .nan, ci95: .nan) }
        let l = PairedSums.loss
        let diff = PairedSums.add(p.sums[l], -p.sums[4 + l])
        let value = Double(diff) / (Double(m) * days)
        var ga = InlineArray<4, Double>(repeating: 0), gb = InlineArray<4, Double>(repeating: 0)
        ga[l] = 1 / days
        gb[l] = -1 / days
        return PairedDelta(value: value, ci95: halfWidth(p, devices: m, (ga, gb), paired: paired))
    }

    /// A difference of two ratio estimators Σx_num / Σrelaunches, times `scale`.
    static func ratio(_ p: PairedSums, devices m: Int, numerator: Int, scale: Double, paired: Bool) -> PairedDelta {
        let n = PairedSums.relaunches
        guard m >= 1, p.sums[n] > 0, p.sums[4 + n] > 0 else { return PairedDelta(value: .nan, ci95: .nan) }
        let md = Double(m)
        var ga = InlineArray<4, Double>(repeating: 0), gb = InlineArray<4, Double>(repeating: 0)
        // f = mean(num)/mean(n): ∂f/∂num = 1/n̄, ∂f/∂n = −R/n̄.
        let nA = Double(p.sums[n]) / md, rA = Double(p.sums[numerator]) / Double(p.sums[n])
        let nB = Double(p.sums[4 + n]) / md, rB = Double(p.sums[4 + numerator]) / Double(p.sums[4 + n])
        ga[numerator] = scale / nA
        ga[n] = -scale * rA / nA
        gb[numerator] = -(scale / nB)
        gb[n] = -(-scale * rB / nB)
        return PairedDelta(value: scale * rA - scale * rB, ci95: halfWidth(p, devices: m, (ga, gb), paired: paired))
    }

    /// t(0.975, m − 1) · sqrt(gᵀ C g / (m (m − 1))).
    static func halfWidth(_ p: PairedSums, devices m: Int, _ g: Gradient, paired: Bool) -> Double {
        guard m >= 2 else { return .nan }
        let md = Double(m)
        // m · C_jk = m Σx_j x_k − Σx_j Σx_k, exactly (saturating on absurd inputs).
        func mc(_ j: Int, _ k: Int) -> Double {
            let (a, o1) = Int128(m).multipliedReportingOverflow(by: p.product(j, k))
            let (b, o2) = p.sums[j].multipliedReportingOverflow(by: p.sums[k])
            if o1 || o2 { return .nan }
            return Double(PairedSums.add(a, -b))
        }
        var q = 0.0
        for j in 0..<4 {
            for k in 0..<4 {
                let aa = (g.a[j] * g.a[k]) * mc(j, k)
                let bb = (g.b[j] * g.b[k]) * mc(4 + j, 4 + k)
                let ab = paired ? (g.a[j] * g.b[k]) * mc(j, 4 + k) : 0
                let ba = paired ? (g.b[j] * g.a[k]) * mc(4 + j, k) : 0
                // Summed in pairs: with identical blocks and g_B = −g_A, (aa + bb) and
                // (ab + ba) are exact negatives, so a cell against itself gives 0.
                q += (aa + bb) + (ab + ba)
            }
        }
        let se = (max(0, q) / md / (md * (md - 1))).squareRoot()
        return Student.t975(df: m - 1) * se
    }

    /// p99 of A − p99 of B in milliseconds, with an interval that is NOT paired: a
    /// per-device p99 is not defined (a device has a few dozen relaunches), and a paired
    /// bootstrap needs every latency kept. Each cell's p99 gets the distribution-free
    /// order-statistic interval of its pooled histogram (ranks N p ± 1.96 sqrt(N p (1−p))),
    /// whose half-widths are combined as sqrt(h_A² + h_B²): conservative about the
    /// pairing, and it treats relaunches as independent (devices are clusters, which
    /// widens the true interval). Two cells whose per-device results and histograms are
    /// identical (a cell against itself) differ by exactly 0, with interval 0.
    public static func p99Millis(_ a: CellAccumulator, _ b: CellAccumulator, _ p: PairedSums) -> PairedDelta {
        let la = a.latency, lb = b.latency  // each the kinds merged: once
        guard la.count > 0, lb.count > 0 else { return PairedDelta(value: .nan, ci95: .nan) }
        let value = (Double(la.percentile(99)) - Double(lb.percentile(99))) / 1_000
        if la == lb, identicalDevices(p) { return PairedDelta(value: value, ci95: 0) }
        func h(_ x: LatencyHistogram) -> Double {
            let n = Double(x.count), q = 0.99
            let spread = Student.z975 * (n * q * (1 - q)).squareRoot()
            let lo = max(0, (n * q - spread).rounded(.down)) / n * 100
            let hi = min(n, (n * q + spread).rounded(.up) + 1) / n * 100
            let mid = Double(x.percentile(99))
            return max(mid - Double(x.percentile(max(lo, 1e-9))), Double(x.percentile(hi)) - mid) / 1_000
        }
        let ha = h(la), hb = h(lb)
        return PairedDelta(value: value, ci95: (ha * ha + hb * hb).squareRoot())
    }

    /// Whether every device had the same four figures in both cells: Σ(x_A − x_B)² = 0
    /// for each component (exact integers).
    static func identicalDevices(_ p: PairedSums) -> Bool {
        (0..<4).allSatisfy { j in
            PairedSums.add(PairedSums.add(p.product(j, j), p.product(4 + j, 4 + j)), PairedSums.add(-p.product(j, 4 + j), -p.product(j, 4 + j))) == 0
        }
    }
}
