"""Charts of jetsim's CSVs, as PNG and SVG. Run it through scripts/charts.sh, which
makes the virtual environment with matplotlib (python -m charts, from scripts/).

A summary CSV (jetsim run --out, a sweep's combined.csv) gives:
  cold-ratio-vs-X        cold relaunches (%) against X, one line per policy, 95% CI bars
  p99-vs-X               p99 relaunch latency against X
  latency-cdf            the relaunch-latency CDF, from the relaunch_pNN_ms columns
  data-loss-by-strategy  lost edits per device-day by the losing app's save strategy
  paired-differences     each policy minus the baseline with paired 95% CIs (needs the
                         columns jetsim run --baseline POLICY adds)
A sensitivity CSV (jetsim sensitivity's DIR/sensitivity.csv) gives:
  tornado-METRIC         each policy's difference from the baseline at the ends of the
                         plausible ranges, one chart per metric

X is RAM unless --x names another key: a key swept with --set KEY=V1,V2,... (read from
the overrides column) or any column. Everything else that varies across rows (RAM, the
other swept keys) makes separate panels. Each policy has one colour in every chart."""

import argparse
import os
import sys

from . import style, summary, tornado
from .tables import CSVError, Sensitivity, Summary, read, require

SUMMARY_CHARTS = ["cold", "p99", "cdf", "loss", "deltas"]


def arguments(argv):
    ap = argparse.ArgumentParser(prog="scripts/charts.sh", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="a summary CSV or a sensitivity CSV")
    ap.add_argument("--out", help="directory for the charts (default: the CSV's directory)")
    ap.add_argument("--charts", help="which charts, comma-separated: cold, p99, cdf, loss, deltas "
                    "(summary) or tornado (sensitivity); default: all the CSV has data for")
    ap.add_argument("--x", help="the horizontal axis of cold and p99: ram_mb, a swept key or a column "
                    "(default: ram_mb, or the one swept key when RAM is fixed)")
    ap.add_argument("--at", help="draw the CDF and data-loss charts only at this value of X "
                    "(default: a panel for every value)")
    ap.add_argument("--policy", help="only these policies, comma-separated")
    ap.add_argument("--format", default="png,svg", help="png, svg or png,svg (default)")
    ap.add_argument("--dpi", type=int, default=150, help="PNG resolution, dots per inch (default 150)")
    ap.add_argument("--metric", help="tornado: cold_ratio, mean_ms, p99_ms or loss_per_device_day "
                    "(default: one chart each)")
    ap.add_argument("--top", type=int, default=15, help="tornado: the keys shown per panel (default 15)")
    a = ap.parse_args(argv)
    a.format = [f.strip() for f in a.format.split(",") if f.strip()]
    bad = [f for f in a.format if f not in ("png", "svg")]
    if bad or not a.format:
        ap.error(f"--format {','.join(bad) or a.format}: png, svg or png,svg")
    if not 50 <= a.dpi <= 1200:
        ap.error("--dpi must be between 50 and 1200")
    style.plt.rcParams["savefig.dpi"] = a.dpi
    if a.top < 1:
        ap.error("--top must be at least 1")
    a.charts = [c.strip() for c in a.charts.split(",")] if a.charts else None
    a.policy = [p.strip() for p in a.policy.split(",") if p.strip()] if a.policy else None
    return a


def main(argv):
    a = arguments(argv)
    out = a.out or os.path.dirname(os.path.abspath(a.csv))
    header, _ = read(a.csv)
    written = []
    if "varied" in header and "effect" in header:
        wrong = [c for c in a.charts or [] if c != "tornado"]
        if wrong:
            raise CSVError(f"{a.csv}: a sensitivity CSV: its chart is tornado, not {', '.join(wrong)}")
        t = Sensitivity(a.csv)
        if a.policy:
            t.keep_policies(a.policy)
        metrics = [a.metric] if a.metric else list(dict.fromkeys(r["metric"] for r in t.rows))
        os.makedirs(out, exist_ok=True)
        for m in metrics:
            written += tornado.tornado(t, m, a.top, out, a.format)
    else:
        if a.charts and "tornado" in a.charts:
            require(a.csv, header, ["varied", "effect"], "the tornado chart",
                    "it is drawn from jetsim sensitivity's sensitivity.csv")
        unknown = [c for c in a.charts or [] if c not in SUMMARY_CHARTS + ["tornado"]]
        if unknown:
            print(f"charts: unknown chart {', '.join(unknown)} (the charts: {', '.join(SUMMARY_CHARTS)}, tornado)",
                  file=sys.stderr)
            return 2
        s = Summary(a.csv)
        if a.policy:
            s.keep_policies(a.policy)
        x = a.x or ("ram_mb" if "ram_mb" in s.varying or len(s.varying) != 1 else s.varying[0])
        if x not in s.keys:
            if x not in s.header:
                raise CSVError(f"{a.csv}: --x {x} is neither a column nor a swept key "
                               f"(swept: {', '.join(s.varying) or 'none'})")
            for r in s.rows:  # a column as X: a dimension like the swept keys
                r["_dims"][x] = r[x]
            s.keys.append(x)
            s.varying = [k for k in s.keys if len({r["_dims"][k] for r in s.rows}) > 1]
            if x not in s.varying:
                s.varying.append(x)
        tag = "ram" if x == "ram_mb" else x
        charts = a.charts or SUMMARY_CHARTS
        has_deltas = "delta_relaunch_cold_ratio" in s.header
        if not a.charts and not has_deltas:
            charts = [c for c in charts if c != "deltas"]
            print(f"charts: {a.csv} has no delta_* columns, so no paired-differences chart "
                  "(jetsim run or sweep with --baseline POLICY adds them)", file=sys.stderr)
        os.makedirs(out, exist_ok=True)
        # The per-value charts restrict the rows with --at; the rest come first.
        if "cold" in charts:
            written += summary.cold_ratio(s, x, tag, out, a.format)
        if "p99" in charts:
            written += summary.p99(s, x, tag, out, a.format)
        if "deltas" in charts:
            written += summary.paired(s, out, a.format)
        rows, varying, fixed = s.rows, s.varying, dict(s.fixed)
        for chart, draw in (("cdf", summary.latency_cdf), ("loss", summary.data_loss)):
            if chart in charts:
                s.rows, s.varying, s.fixed = rows, list(varying), dict(fixed)
                written += draw(s, x, a.at, out, a.format)
    for path in written:
        print(f"charts: wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except CSVError as e:
        print(f"charts: {e}", file=sys.stderr)
        sys.exit(2)
