import Foundation
import SimKernel

/// Writes a workload as YAML with every key spelled out (defaults resolved where
/// they depend on nothing else; `auto` kept where they depend on RAM). Reading the
/// output back gives the same workload.
public enum WorkloadPrinter {
    public static func yaml(_ w: Workload) -> String {
        var o = ""
        func line(_ indent: Int, _ text: String) { o += String(repeating: " ", count: indent) + text + "\n" }
        line(0, "name: \(quote(w.name))")
        line(0, "seed: \(w.seed)")
        line(0, "fleet:")
        line(2, "devices: \(w.fleet.devices)")
        line(2, "duration_days: \(num(w.fleet.duration.seconds / 86_400))")
        line(0, "run:")
        line(2, "policies: [\(w.run.policies.joined(separator: ", "))]")
        line(2, "ram_mb: [\(w.run.ramKB.map { num(Double($0) / 1_024) }.joined(separator: ", "))]")
        line(0, "device_classes:")
        for c in w.deviceClasses {
            line(2, "- name: \(quote(c.name))")
            line(4, "share: \(num(c.share))")
            line(4, "ram_mb: \(num(Double(c.ramKB) / 1_024))")
            line(4, "os_reserve_mb: \(c.osReserveKB.map { num(Double($0) / 1_024) } ?? "auto")")
            line(4, "warning_available_pct: \(c.warningAvailablePct.map(num) ?? "auto")")
            line(4, "critical_available_pct: \(c.criticalAvailablePct.map(num) ?? "auto")")
            line(4, "kill_target_available_pct: \(c.killTargetAvailablePct.map(num) ?? "auto")")
            line(4, "per_app_limit_pct: \(num(c.perAppLimitPct))")
            line(4, "memory_warning_free_share: \(num(c.memoryWarningFreeShare))")
            line(4, "suspended_compression_ratio: \(num(c.suspendedCompressionRatio))")
            line(4, "decompress_ms_per_mb: \(num(c.decompressMsPerMB))")
            line(4, "launch_jitter_sigma: \(num(c.launchJitterSigma))")
            line(4, "background_grace_s: \(num(c.backgroundGraceS))")
            line(4, "enter_background_limit_s: \(num(c.enterBackgroundLimitS))")
            line(4, "will_terminate_limit_s: \(num(c.willTerminateLimitS))")
            line(4, "ios: \(c.ios.rawValue.dropFirst(3))")
            line(4, "bg_task_allowance_s: \(c.bgTaskAllowanceS.map(num) ?? "auto")")
            let p = c.parameters()
            line(4, "# resolved: reserve \(num(Double(p.osReserveKB) / 1_024)) MB, warning \(num(p.warningAvailablePct))%, critical \(num(p.criticalAvailablePct))%, target \(num(p.killTargetAvailablePct))%, allowance \(p.bgTaskAllowance)")
        }
        line(0, "catalog:")
        line(2, "apps: \(w.catalog.apps)")
        line(2, "popularity_zipf_exponent: \(num(w.catalog.popularityZipfExponent))")
        line(2, "installed_per_device: \(dist(w.catalog.installedPerDevice))")
        line(2, "archetypes:")
        for a in w.catalog.archetypes {
            line(4, "- name: \(quote(a.name))")
            line(6, "share: \(num(a.share))")
            line(6, "active_mb: \(dist(a.activeMB))")
            line(6, "background_share: \(dist(a.backgroundShare))")
            line(6, "suspended_share: \(dist(a.suspendedShare))")
            line(6, "cold_launch_ms: \(dist(a.coldLaunchMs))")
            line(6, "state_restore_ms: \(dist(a.stateRestoreMs))")
            line(6, "warm_launch_ms: \(dist(a.warmLaunchMs))")
            line(6, "hot_launch_ms: \(dist(a.hotLaunchMs))")
            line(6, "enter_background_handler_ms: \(dist(a.enterBackgroundHandlerMs))")
            line(6, "bg_task_probability: \(num(a.bgTaskProbability))")
            line(6, "bg_task_median_s: \(num(a.bgTaskMedianS))")
            line(6, "bg_task_sigma: \(num(a.bgTaskSigma))")
            line(6, "modes: {audio: \(num(a.modeAudio)), location: \(num(a.modeLocation)), voip: \(num(a.modeVoip))}")
            line(6, "mode_activity_median_s: \(num(a.modeActivityMedianS))")
            line(6, "mode_activity_sigma: \(num(a.modeActivitySigma))")
            line(6, "exits_on_suspend_probability: \(num(a.exitsOnSuspendProbability))")
            let weights = SaveStrategy.allCases.compactMap { s in a.saveStrategy[s].map { "\(s.name): \(num($0))" } }
            line(6, "save_strategy: {\(weights.joined(separator: ", "))}")
            line(6, "save_ms: \(dist(a.saveMs))")
            line(6, "save_interval_s: \(num(a.saveIntervalS))")
            line(6, "unsaved_edits_per_min: \(dist(a.unsavedEditsPerMin))")
            line(6, "preserves_ui_state_probability: \(num(a.preservesUIStateProbability))")
        }
        let u = w.user
        line(0, "user:")
        line(2, "sessions_per_day: \(num(u.sessionsPerDay))")
        line(2, "wake_hour: \(num(u.wakeHour))")
        line(2, "sleep_hour: \(num(u.sleepHour))")
        line(2, "single_app_session_share: \(num(u.singleAppSessionShare))")
        line(2, "extra_apps_mean: \(num(u.extraAppsMean))")
        line(2, "dwell_s: \(dist(u.dwellS))")
        switch u.appChoice {
        case .exponential(let d): line(2, "app_choice: {exponential: {decay: \(num(d))}}")
        case .zipf(let s): line(2, "app_choice: {zipf: {exponent: \(num(s))}}")
        }
        line(2, "switcher_share: \(num(u.switcherShare))")
        line(2, "resume_front_share: \(num(u.resumeFrontShare))")
        line(2, "home_before_lock_share: \(num(u.homeBeforeLockShare))")
        line(2, "calls_per_day: \(num(u.callsPerDay))")
        line(2, "sms_per_day: \(num(u.smsPerDay))")
        line(2, "alerts_per_day: \(num(u.alertsPerDay))")
        line(2, "answer_call_share: \(num(u.answerCallShare))")
        line(2, "answer_sms_share: \(num(u.answerSmsShare))")
        line(2, "answer_alert_share: \(num(u.answerAlertShare))")
        line(2, "response_delay_s: \(dist(u.responseDelayS))")
        line(2, "call_duration_s: \(dist(u.callDurationS))")
        line(2, "sms_reply_s: \(dist(u.smsReplyS))")
        line(2, "alert_handling_s: \(dist(u.alertHandlingS))")
        line(2, "return_after_interruption_share: \(num(u.returnAfterInterruptionShare))")
        line(2, "switcher_removals_per_day: \(num(u.switcherRemovalsPerDay))")
        line(2, "orientation_changes_per_hour_of_use: \(num(u.orientationChangesPerHourOfUse))")
        line(2, "locale_changes_per_day: \(num(u.localeChangesPerDay))")
        line(2, "notifications_per_day: \(num(u.notificationsPerDay))")
        line(2, "location_changes_per_day: \(num(u.locationChangesPerDay))")
        line(0, "policies:")
        for l in w.policies.yamlLines { line(2, l) }
        return o
    }

    /// A number in its shortest exact form (`60`, `0.35`, `1e-05`).
    public static func num(_ x: Double) -> String {
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return String(x)
    }

    static func dist(_ d: RealDistribution) -> String {
        switch d {
        case .constant(let v): return num(v)
        case .uniform(let lo, let hi): return "{uniform: [\(num(lo)), \(num(hi))]}"
        case .exponential(let m): return "{exponential: {mean: \(num(m))}}"
        case .normal(let m, let s): return "{normal: {mean: \(num(m)), sd: \(num(s))}}"
        case .lognormal(let m, let s): return "{lognormal: {median: \(num(m)), sigma: \(num(s))}}"
        case .empirical(let v): return "{empirical: [\(v.map(num).joined(separator: ", "))]}"
        }
    }

    static func quote(_ s: String) -> String {
        let safe = s.allSatisfy { $0.isLetter || $0.isNumber || "-_.+".contains($0) } && !s.isEmpty
            && Double(s) == nil && !["auto", "null", "true", "false", "yes", "no", "~"].contains(s.lowercased())
        if safe { return s }
        return "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
