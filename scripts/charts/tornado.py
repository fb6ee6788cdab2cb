"""The sensitivity tornado from `jetsim sensitivity`'s sensitivity.csv: for each policy,
its paired difference from the baseline as shipped and at each end of every key's (or
group's) plausible range, the keys that move it most on top."""

from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from . import style
from .tables import CSVError, number, ram_label, sort_values

# metric -> (scale, what the axis says), as the CSV writes it (docs/sensitivity.md).
METRICS = {
    "cold_ratio": (100, "Δ cold relaunches (% points)"),
    "mean_ms": (1, "Δ mean relaunch latency (ms)"),
    "p99_ms": (1, "Δ p99 relaunch latency (ms)"),
    "loss_per_device_day": (1, "Δ lost edits / device-day"),
}


def short(text, n=22):
    return text if len(text) <= n else text[: n - 1] + "…"


def tornado(t, metric, top, out, formats):
    rows = [r for r in t.rows if r["metric"] == metric]
    if not rows:
        have = ", ".join(dict.fromkeys(r["metric"] for r in t.rows))
        raise CSVError(f"{t.path}: no rows of metric {metric} (it has {have})")
    scale, xlabel = METRICS.get(metric, (1, f"Δ {metric}"))
    # A key that did not move the workload (`moved` no: another OS's key, a factor on a
    # value of 0) has no bar to draw; a CSV from before the column has every key.
    rows = [r for r in rows if r.get("moved", "yes") != "no"] or rows
    rams = sort_values({r["ram_mb"] for r in rows})
    policies = style.order({r["policy"] for r in rows})
    baseline = " / ".join(dict.fromkeys(r["baseline"] for r in rows))
    shown = min(top, len({r["varied"] for r in rows}))
    fig, axes = style.figure(len(rams), len(policies), 3.3, 0.22 * shown + 0.7, legend_w=1.9,
                             sharey="row", sharex=True)
    for i, ram in enumerate(rams):
        here = [r for r in rows if r["ram_mb"] == ram]
        # The same keys, in the same order, in every panel of a RAM: those whose move of
        # any policy's difference is largest (effect), the largest on top.
        effect = {}
        for r in here:
            effect[r["varied"]] = max(effect.get(r["varied"], 0.0), number(t.path, r, "effect"))
        keys = sorted(effect, key=lambda k: -effect[k])[:top]
        ypos = {k: -j for j, k in enumerate(keys)}
        for j, p in enumerate(policies):
            ax = axes[i, j]
            mine = {r["varied"]: r for r in here if r["policy"] == p}
            c = style.colour(p)
            center = None
            for k in keys:
                r = mine.get(k)
                if r is None:
                    continue
                center = number(t.path, r, "delta_center") * scale
                lo, hi = number(t.path, r, "delta_low") * scale, number(t.path, r, "delta_high") * scale
                y = ypos[k]
                ax.barh(y + 0.19, lo - center, left=center, height=0.38, color=c, alpha=0.35,
                        hatch="////", edgecolor=c, linewidth=0)
                ax.barh(y - 0.19, hi - center, left=center, height=0.38, color=c, linewidth=0,
                        gid=f"policy:{p}:tornado-{metric}:{i}.{j}.{-y}")
                ax.errorbar([lo, hi], [y + 0.19, y - 0.19],
                            xerr=[number(t.path, r, "delta_low_ci95") * scale, number(t.path, r, "delta_high_ci95") * scale],
                            fmt="none", ecolor="#444444", elinewidth=0.7, capsize=1.5)
                if r["sign_flip"] == "yes":
                    ax.annotate("sign flips", (max(lo, hi), y), xytext=(4, 0), textcoords="offset points",
                                fontsize=6.5, va="center", color="#B00000")
            if center is not None:
                ax.axvline(center, color=c, linewidth=1.2)
            ax.axvline(0, color="#555555", linewidth=0.8, linestyle="--")
            ax.grid(axis="y", visible=False)
            if i == 0:
                ax.set_title(f"{p} − {baseline}", color=c, fontweight="bold")
        labels = [f"{k}  ({short(next(r['range'] for r in here if r['varied'] == k))})" for k in keys]
        axes[i, 0].set_yticks(list(ypos.values()), labels, fontsize=7)
        if len(rams) > 1 or ram != "mixed":
            axes[i, 0].set_ylabel(f"RAM {ram_label(ram)}", fontweight="bold")
    handles = [Patch(facecolor="#777777", alpha=0.35, hatch="////", edgecolor="#777777", linewidth=0),
               Patch(facecolor="#777777"),
               Line2D([], [], color="#777777", linewidth=1.2),
               Line2D([], [], color="#555555", linewidth=0.8, linestyle="--")]
    labels = ["low end of the range", "high end of the range", "as shipped", f"no difference from {baseline}"]
    for ax in axes[-1]:
        ax.set_xlabel(xlabel, fontsize=8)
    style.finish(fig, f"Sensitivity of each policy's difference from {baseline}\nto the plausible ranges "
                      f"(the {shown} keys that move it most)",
                 f"{t.caption()}. Bars run from the difference as shipped to its value with one key (or group) "
                 "at the low or high end of its plausible range, the rest as shipped; whiskers: 95% CI. "
                 "'sign flips': at that end the difference has the other sign, both intervals excluding 0 (docs/sensitivity.md)"
                 + ("; p99's intervals are not paired" if metric == "p99_ms" else ""),
                 handles, labels)
    return style.save(fig, out, f"tornado-{metric}", formats)
