"""The charts of a summary CSV (`jetsim run --out`, a sweep's combined.csv): the cold
ratio and the p99 against X, the latency CDF, data loss by save strategy, and the paired
differences `--baseline` adds. Rows that differ in anything but X and the policy (RAM,
other swept keys) go to separate panels: one panel per value, a grid for two keys."""

import itertools
import math

from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from . import style
from .tables import (CSVError, DELTAS, STRATEGIES, dim_label, number, numeric, percentile_columns,
                     ram_label, require)


def layout(s, keys, max_cols=3):
    """The panels for the dimensions `keys`: a list of (title, {key: value}), rows, cols.
    One key: a row of panels (wrapped at max_cols); two: a grid (first key down, second
    across); more: every combination, wrapped."""
    values = [s.values(k) for k in keys]
    present = {tuple(r["_dims"][k] for k in keys) for r in s.rows}
    if len(keys) == 2:
        cells = [(a, b) for a in values[0] for b in values[1]]
        rows, cols = len(values[0]), len(values[1])
    else:
        cells = [c for c in itertools.product(*values) if c in present]
        cols = min(len(cells), max_cols)
        rows = math.ceil(len(cells) / cols)
    panels = [(" | ".join(dim_label(k, v) for k, v in zip(keys, c)), dict(zip(keys, c))) for c in cells]
    return panels, rows, cols


def select(s, sel, policy=None):
    return [r for r in s.rows
            if all(r["_dims"][k] == v for k, v in sel.items()) and (policy is None or r["policy"] == policy)]


def x_axis(s, x):
    """Positions and tick labels of X's values, and the axis label."""
    values = s.values(x)
    if x == "ram_mb" and numeric(values):
        pos = {v: float(v) / 1024 for v in values}
        return pos, [f"{float(v) / 1024:g}" for v in values], "device RAM (GB)"
    if numeric(values):
        return {v: float(v) for v in values}, values, x
    return {v: float(i) for i, v in enumerate(values)}, values, x


def legend_handles(policies, line=True):
    handles = [Line2D([], [], color=style.colour(p), marker=style.marker(p), markersize=5,
                      linewidth=1.4 if line else 0) for p in policies]
    return handles, policies


def versus(s, x, column, ci_column, scale, ylabel, title, note, out, name, formats):
    """One line per policy of COLUMN (x SCALE) against X, with CI_COLUMN as error bars;
    one panel per combination of the other varying dimensions."""
    need = [column] + ([ci_column] if ci_column else [])
    require(s.path, s.header, need, f"the chart {name}")
    pos, ticks, xlabel = x_axis(s, x)
    panels, nr, nc = layout(s, [k for k in s.varying if k != x])
    policies = style.order(s.policies())
    xs = sorted(set(pos.values()))
    gap = min((b - a for a, b in zip(xs, xs[1:])), default=1.0)
    dodge = 0.35 * gap / max(len(policies), 1) if ci_column else 0  # side by side: bars do not overlap
    fig, axes = style.figure(nr, nc, 3.3, 2.6, sharex=True, sharey=True)
    for n, (ax, (label, sel)) in enumerate(zip(axes.flat, panels)):
        for i, p in enumerate(policies):
            pts = sorted((pos[r["_dims"][x]], number(s.path, r, column) * scale,
                          number(s.path, r, ci_column) * scale if ci_column else 0.0)
                         for r in select(s, sel, p))
            if not pts:
                continue
            off = (i - (len(policies) - 1) / 2) * dodge
            px, py, pe = zip(*pts)
            bars = ax.errorbar([v + off for v in px], py, yerr=pe if ci_column else None,
                               color=style.colour(p), marker=style.marker(p), markersize=4,
                               linewidth=1.3, elinewidth=0.9, capsize=2.5)
            bars.lines[0].set_gid(f"policy:{p}:{name}:{n}")
        if label:
            ax.set_title(label)
        ax.set_xticks(xs, [t for _, t in sorted(zip(pos.values(), ticks))])
        # From 0, with or without bars: an axis from the smallest value makes small
        # differences look large (the p99 chart started at 3,600 ms).
        ax.set_ylim(bottom=0)
    style.label_x(axes, len(panels), xlabel)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    style.hide_unused(axes, len(panels))
    style.finish(fig, title, f"{s.caption()}. {note}", *legend_handles(policies))
    return style.save(fig, out, name, formats)


def cold_ratio(s, x, tag, out, formats):
    return versus(s, x, "relaunch_cold_ratio", "relaunch_cold_ratio_ci95", 100, "cold relaunches (% of relaunches)",
                  "Relaunches that had to cold-start",
                  "Bars: 95% CI across devices; points side by side so bars do not overlap",
                  out, f"cold-ratio-vs-{tag}", formats)


def p99(s, x, tag, out, formats):
    return versus(s, x, "relaunch_p99_ms", None, 1, "p99 relaunch latency (ms)",
                  "p99 relaunch latency",
                  "No bars: the summary has no sound interval for a p99 across devices (a device has too few "
                  "relaunches for its own p99); its difference from a baseline is in paired-differences (--baseline). "
                  "The axis starts at 0", out, f"p99-vs-{tag}", formats)


def cells(s, x, at):
    """The panels for the charts drawn per cell (CDF, data loss): every varying dimension,
    or only X = AT when --at is given."""
    if at is not None:
        match = [v for v in s.values(x) if v == at or (numeric([v, at]) and float(v) == float(at))]
        if not match:
            raise CSVError(f"{s.path}: --at {at} is not a value of {x} in it (it has {', '.join(s.values(x))})")
        s.rows = select(s, {x: match[0]})
        s.varying = [k for k in s.varying if k != x]
        s.fixed[x] = match[0]
    return layout(s, s.varying)


def latency_cdf(s, x, at, out, formats):
    pct = percentile_columns(s.header)
    if len(pct) < 3:
        raise CSVError(f"{s.path}: {len(pct)} relaunch_pNN_ms columns, and the latency CDF needs at least 3 "
                       "(jetsim writes 15: relaunch_p1_ms ... relaunch_p99_9_ms)")
    panels, nr, nc = cells(s, x, at)
    policies = style.order(s.policies())
    fig, axes = style.figure(nr, nc, 3.3, 2.6, sharex=True, sharey=True)
    for n, (ax, (label, sel)) in enumerate(zip(axes.flat, panels)):
        for p in policies:
            for r in select(s, sel, p):
                pts = [(number(s.path, r, c), f * 100) for c, f in pct]
                pts = [(ms, f) for ms, f in pts if ms > 0 and math.isfinite(ms)]
                if pts:
                    line, = ax.plot(*zip(*pts), color=style.colour(p), marker=style.marker(p),
                                    markersize=3, linewidth=1.2)
                    line.set_gid(f"policy:{p}:latency-cdf:{n}")
        if label:
            ax.set_title(label)
        ax.set_xscale("log")
        ax.set_ylim(0, 100)
    style.label_x(axes, len(panels), "relaunch latency (ms, log scale)")
    for ax in axes[:, 0]:
        ax.set_ylabel("relaunches at or below (%)")
    style.hide_unused(axes, len(panels))
    style.finish(fig, "Relaunch latency CDF (cold, warm and hot relaunches together)",
                 f"{s.caption()}. Points: the CSV's {len(pct)} percentile columns "
                 f"(p{pct[0][1] * 100:g} to p{pct[-1][1] * 100:g})", *legend_handles(policies))
    return style.save(fig, out, "latency-cdf", formats)


def data_loss(s, x, at, out, formats):
    require(s.path, s.header, [f"data_loss_units_{k}" for k in STRATEGIES], "the data-loss chart")
    panels, nr, nc = cells(s, x, at)
    policies = style.order(s.policies())
    width = 0.8 / len(policies)
    fig, axes = style.figure(nr, nc, 4.2, 2.6, sharey=True)
    for n, (ax, (label, sel)) in enumerate(zip(axes.flat, panels)):
        for i, p in enumerate(policies):
            for r in select(s, sel, p):
                device_days = number(s.path, r, "devices") * number(s.path, r, "duration_h") / 24
                ys = [number(s.path, r, f"data_loss_units_{k}") / device_days if device_days else 0 for k in STRATEGIES]
                bars = ax.bar([j + (i - (len(policies) - 1) / 2) * width for j in range(len(STRATEGIES))], ys,
                              width, color=style.colour(p), linewidth=0)
                for k, bar in enumerate(bars):
                    bar.set_gid(f"policy:{p}:data-loss-by-strategy:{n}.{k}")
        if label:
            ax.set_title(label)
        ax.set_xticks(range(len(STRATEGIES)), ["on resign\nactive", "on enter\nbackground", "on\nterminate",
                                               "periodic", "never"])
        ax.grid(axis="x", visible=False)
    style.label_x(axes, len(panels), "save strategy of the app that lost the edits")
    for ax in axes[:, 0]:
        ax.set_ylabel("lost edits per device-day")
    style.hide_unused(axes, len(panels))
    style.finish(fig, "Unsaved edits lost, by the losing app's save strategy",
                 f"{s.caption()}. Each app saves its edits at one moment (its save strategy); "
                 "bars: data_loss_units_STRATEGY / (devices x days)",
                 [Patch(color=style.colour(p)) for p in policies], policies)
    return style.save(fig, out, "data-loss-by-strategy", formats)


# (column suffix, scale, title, unit) of each paired difference, as --baseline writes them.
DELTA_AXES = [("relaunch_cold_ratio", 100, "Δ cold relaunches", "percentage points"),
              ("relaunch_mean_ms", 1, "Δ mean relaunch latency", "ms"),
              ("relaunch_p99_ms", 1, "Δ p99 relaunch latency\n(interval not paired)", "ms"),
              ("data_loss_per_device_day", 1, "Δ lost edits", "per device-day")]


def paired(s, out, formats):
    require(s.path, s.header, ["baseline"] + [f"delta_{d}{e}" for d in DELTAS for e in ("", "_ci95")],
            "the paired-differences chart", "jetsim run or sweep with --baseline POLICY writes them")
    baselines = list(dict.fromkeys(r["baseline"] for r in s.rows))
    policies = [p for p in style.order(s.policies()) if p not in baselines]
    if not policies:
        raise CSVError(f"{s.path}: only the baseline's rows are left; its differences are 0")
    panels, _, _ = layout(s, s.varying)
    # Each row tall enough for its strip label, one line per panel key (two keys gave
    # labels longer than the row, overlapping the next one): about 0.085 in a character.
    label_in = max((0.085 * max(len(t) for t in (lab or "").split(" | ")) + 0.2 for lab, _ in panels), default=0)
    fig, axes = style.figure(len(panels), len(DELTA_AXES), 2.7, max(0.3 * len(policies) + 0.5, label_in),
                             legend_w=1.5, sharey=True, sharex="col")
    ys = {p: -i for i, p in enumerate(policies)}
    for row, (label, sel) in enumerate(panels):
        for col, (d, scale, title, unit) in enumerate(DELTA_AXES):
            ax = axes[row, col]
            ax.axvline(0, color="#555555", linewidth=0.8, linestyle="--")
            for p in policies:
                for r in select(s, sel, p):
                    bar = ax.errorbar(number(s.path, r, f"delta_{d}") * scale, ys[p],
                                      xerr=number(s.path, r, f"delta_{d}_ci95") * scale,
                                      color=style.colour(p), marker=style.marker(p), markersize=4,
                                      elinewidth=1.2, capsize=2.5)
                    bar.lines[0].set_gid(f"policy:{p}:paired-differences:{row}.{col}")
            ax.grid(axis="y", visible=False)
            if row == 0:
                ax.set_title(title)
            if row == len(panels) - 1:
                ax.set_xlabel(unit)
        axes[row, 0].set_yticks(list(ys.values()), policies)
        # The row's cell, on its right as a strip label (the policies take the left).
        strip = axes[row, -1].yaxis
        strip.set_label_position("right")
        axes[row, -1].set_ylabel((label or "").replace(" | ", "\n"), rotation=-90, va="bottom", fontweight="bold")
    base = " / ".join(baselines)
    style.finish(fig, f"Paired differences from {base}: each policy minus {base} on the same users",
                 f"{s.caption()}. Bars: 95% CI across devices, paired (p99's is not: docs/columns.md); "
                 f"left of the dashed line is better than {base}", *legend_handles(policies, line=False))
    return style.save(fig, out, "paired-differences", formats)
