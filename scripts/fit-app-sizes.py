#!/usr/bin/env python3
# Fits the per-app sizes of the Fleet Fig. 11c reproduction (issue 32; docs/reproductions.md,
# "Fleet"). The artifact publishes no per-app footprint, and with 18 apps alike jetsim's
# curve is a flat ceiling that cannot follow the paper's dips (TikTok, Spotify, Twitch).
# So each app gets ONE factor s, scaling its three footprints together around the shared
# baseline: footprint=400*s, background-footprint=250*s, suspended-footprint=210*s MB
# (rounded to whole MB), s on the grid 0.50, 0.55, ..., 2.00.
#
# What it fits to: the paper's Android WITHOUT swap column only
# (Workloads/repro/fleet-fig11c-paper.csv, android_noswap), on
# Workloads/repro/fleet-fig11c-android-noswap.scenario with its app lines replaced. The swap
# and Fleet curves are not fitted: they test the calibration. (--columns
# android_noswap,android_swap fits both Android columns jointly, for comparison only: it
# runs the swap scenario too and sums the two scores.)
#
# The count is scripts/repro.sh's counts(), ported: the apps with a process right after
# each launch, the one in front included.
#
# Objective, compared in this order: the most launch steps within 1 app of the paper; then
# the smallest sum of |jetsim - paper|; then the smallest sum of |log s| (uniform preferred).
# Search: coordinate descent over the apps in the scenario's order, each app's factor set
# to the best on the grid with the others held, passes repeated until one changes nothing;
# started from every app at 1.00, at 1.30 (--starts) and at the best uniform factor, the
# best result kept (ties: the first). A factor common to all apps scales the shared
# baseline, so the scan for the best uniform factor searches the baseline too (the best is
# 1.00: 210 MB cached, the value fitted before). Deterministic: no randomness, and
# jetsim's scenarios have none; the result does not depend on --workers.
#
# What it found (2026-11-27, on 02ea890): 35 of 36 no-swap steps within 1 app (uniform apps:
# 28), the most jetsim can give, since with apps that do not grow its count after an app's
# round-2 launch equals that after its round-1 launch at steps 13-18 (40 random factor
# sets: 240 of 240 equal) and the paper has 11 at step 15, 14 at step 33. But the factors
# are not identified (starts 1.30, 1.40, 1.50 and seeded random ones reach 35 with TikTok
# 1.25-1.85, Twitter 1.00-1.90, GoogleMaps 0.50-1.00; the start 1.00 stops at 33) and do
# not carry over: the swap curve falls from 30 to 27 of 36 steps (19 with swappable-pct
# refitted, 25 %), Fleet's from 26 to 22 (31 at 25 %: its level, not its shape); fitted
# to round 1 alone they score 10 of round 2's 18 steps (uniform apps: 13). So the
# scenarios keep their uniform apps.
#
#   scripts/fit-app-sizes.py [--jetsim PATH] [--columns C[,C]] [--starts S[,S]] [--write FILE...]
# prints the factors, the app lines and the fitted curve; --write replaces the app lines
# of the given scenarios with the fitted ones (nothing else in them). JETSIM=path works too.
import argparse
import math
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPRO = os.path.join(ROOT, "Workloads", "repro")
PAPER = os.path.join(REPRO, "fleet-fig11c-paper.csv")
SCENARIO = {
    "android_noswap": os.path.join(REPRO, "fleet-fig11c-android-noswap.scenario"),
    "android_swap": os.path.join(REPRO, "fleet-fig11c-android-swap.scenario"),
    "fleet": os.path.join(REPRO, "fleet-fig11c-fleet.scenario"),
}
BASE_MB = (400, 250, 210)          # footprint, background-footprint, suspended-footprint
GRID = list(range(10, 41))         # s = k / 20: 0.50 .. 2.00 by 0.05
UNIT = 20


def app_line(name, k):
    s = k / UNIT
    fg, bg, su = (int(math.floor(b * s + 0.5)) for b in BASE_MB)
    return f"app {name} footprint={fg}MB background-footprint={bg}MB suspended-footprint={su}MB"


def read_scenario(path):
    with open(path) as f:
        lines = f.read().split("\n")
    apps = [l.split()[1] for l in lines if l.startswith("app ")]
    return lines, apps


def with_apps(lines, factors):
    return "\n".join(app_line(l.split()[1], factors[l.split()[1]]) if l.startswith("app ") else l
                     for l in lines)


def counts(jetsim, text):
    """scripts/repro.sh's counts(): apps with a process after each launch."""
    with tempfile.NamedTemporaryFile("w", suffix=".scenario", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        out = subprocess.run([jetsim, "scenario", path], check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    alive, got, pending, t = set(), [], False, 0.0
    for row in out.split("\n")[1:]:
        if not row:
            continue
        c = row.split(",")
        c += [""] * (6 - len(c))
        if pending and float(c[0]) > t:
            got.append(len(alive))
            pending = False
        if c[3] == "didFinishLaunching":
            alive.add(c[2])
        if c[3] == "terminated":
            alive.discard(c[2])
        if c[3] == "didBecomeActive" and c[4].split(" ")[0] in ("cold", "cached", "warm", "hot", "thaw") \
                and " " in c[4]:
            t, pending = float(c[0]), True
    if pending:
        got.append(len(alive))
    return got


def read_paper(columns):
    with open(PAPER) as f:
        rows = [l.rstrip("\n").split(",") for l in f if l.strip()]
    head = rows[0]
    return {c: [int(r[head.index(c)]) for r in rows[1:]] for c in columns}


class Fit:
    def __init__(self, jetsim, columns, workers):
        self.jetsim, self.columns = jetsim, columns
        self.paper = read_paper(columns)
        self.lines = {c: read_scenario(SCENARIO[c])[0] for c in columns}
        self.apps = read_scenario(SCENARIO[columns[0]])[1]
        self.memo = {}
        self.pool = ThreadPoolExecutor(max_workers=workers)

    def curves(self, factors):
        key = tuple(factors[a] for a in self.apps)
        if key not in self.memo:
            self.memo[key] = {c: counts(self.jetsim, with_apps(self.lines[c], factors)) for c in self.columns}
        return self.memo[key]

    def score(self, factors):
        within, dev = 0, 0
        for c, got in self.curves(factors).items():
            if len(got) != len(self.paper[c]):
                sys.exit(f"fit-app-sizes.py: {c}: {len(got)} launch steps, expected {len(self.paper[c])}")
            for j, p in zip(got, self.paper[c]):
                within += abs(j - p) <= 1
                dev += abs(j - p)
        spread = sum(abs(math.log(factors[a] / UNIT)) for a in self.apps)
        return (-within, dev, round(spread, 9))

    def best_of(self, candidates):
        # evaluate in parallel, choose in order (the first of equal scores wins)
        scores = list(self.pool.map(self.score, candidates))
        i = min(range(len(candidates)), key=lambda i: (scores[i], i))
        return candidates[i], scores[i]

    def descend(self, start):
        f, s = dict(start), self.score(start)
        passes = 0
        while True:
            passes += 1
            changed = False
            for a in self.apps:
                cands = [dict(f, **{a: k}) for k in GRID]
                g, sg = self.best_of(cands)
                if sg < s:
                    f, s, changed = g, sg, True
            if not changed:
                return f, s, passes


def main():
    ap = argparse.ArgumentParser(description="Fit one size factor per app of Fleet's Fig. 11c to the paper's curve(s).")
    ap.add_argument("--jetsim", default=os.environ.get("JETSIM", os.path.join(ROOT, ".build", "release", "jetsim")))
    ap.add_argument("--columns", default="android_noswap", help="paper columns fitted, comma-separated (default android_noswap)")
    ap.add_argument("--starts", default="1.00,1.30", help="uniform starting factors, comma-separated (default 1.00,1.30)")
    ap.add_argument("--workers", type=int, default=2, help="jetsim runs at once (results do not depend on it)")
    ap.add_argument("--write", nargs="*", default=[], metavar="FILE", help="scenarios whose app lines get the fitted ones")
    args = ap.parse_args()
    columns = args.columns.split(",")
    for c in columns:
        if c not in SCENARIO:
            sys.exit(f"fit-app-sizes.py: unknown column {c}; expected one of {', '.join(SCENARIO)}")
    fit = Fit(args.jetsim, columns, args.workers)

    # Starting points: every app at each of --starts, then at the best uniform factor.
    starts = []
    for x in args.starts.split(","):
        k = round(float(x) * UNIT)
        if k not in GRID:
            sys.exit(f"fit-app-sizes.py: start {x} is not on the grid 0.50..2.00 by 0.05")
        starts.append(k)
    uniform, _ = fit.best_of([{a: k for a in fit.apps} for k in GRID])
    if uniform[fit.apps[0]] not in starts:
        starts.append(uniform[fit.apps[0]])
    best = None
    for k in starts:
        label = f"{k / UNIT:.2f}" + (" (the best uniform)" if k == uniform[fit.apps[0]] else "")
        f, s, passes = fit.descend({a: k for a in fit.apps})
        print(f"# start {label}: {-s[0]} steps within 1, sum |d| {s[1]}, sum |log s| {s[2]:.3f} ({passes} passes)")
        if best is None or s < best[1]:
            best = (f, s)
    f, s = best
    print(f"# fitted to {','.join(columns)}: {-s[0]} steps within 1, sum |d| {s[1]}, sum |log s| {s[2]:.3f};"
          f" {len(fit.memo)} runs of jetsim")
    print("# factors: " + " ".join(f"{a}={f[a] / UNIT:.2f}" for a in fit.apps))
    for c, got in fit.curves(f).items():
        print(f"# {c}: paper  " + " ".join(f"{p:2d}" for p in fit.paper[c]))
        print(f"# {c}: jetsim " + " ".join(f"{j:2d}" for j in got))
    for a in fit.apps:
        print(app_line(a, f[a]))
    for path in args.write:
        with open(path) as fh:
            text = fh.read()
        out = "\n".join(app_line(l.split()[1], f[l.split()[1]]) if l.startswith("app ") else l
                        for l in text.split("\n"))
        with open(path, "w") as fh:
            fh.write(out)
        print(f"# wrote the app lines of {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
