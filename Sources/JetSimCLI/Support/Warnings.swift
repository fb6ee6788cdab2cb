import JetSim

/// Warns, one line per cell, about sums that saturated at Int.max: the CSV holds
/// them as lower bounds (issue 11: never a silent wrong answer). Ranges keep every
/// ordinary total below it; only extreme accepted inputs get here.
func warnSaturated(_ result: FleetResult, _ workload: Workload) {
    for (cell, acc) in zip(result.cells, result.accumulators) where !acc.saturated.isEmpty {
        printError("jetsim: warning: \(cell.policy.rawValue) at \(Summary.ramLabel(cell, workload)): \(acc.saturated.joined(separator: ", ")) reached 2^63-1 and stopped there: these sums, and the figures derived from them, are lower bounds")
    }
}
