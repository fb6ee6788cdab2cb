#!/usr/bin/env bash
# Renders every chart of scripts/charts.sh from the fixtures in Tests/Fixtures/charts/
# (a sweep's combined.csv, a run with --baseline, a sensitivity CSV) and checks:
#   - each PNG and SVG exists, is non-empty and is what it says (PNG signature, SVG XML);
#   - each SVG names every policy it should, and --policy leaves the others out;
#   - one colour per policy: every mark of a policy has the same colour in every chart,
#     and no two policies share one;
#   - a CSV without the needed columns is exit 2 with a message naming the file;
#   - with --jetsim, the policy order the colours follow is `jetsim policies`' order, and
#     every chart renders from CSVs that binary writes now (a small sweep; a sensitivity
#     run when it has the command), so fixtures that fall behind its columns are caught.
# The first run makes ~/.cache/jetsim/charts-venv (scripts/charts.sh says where and what it installs). CI runs it.
#
# Usage: scripts/test-charts.sh [--jetsim PATH] [--keep DIR]
set -euo pipefail
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
jetsim='' keep=''
while [ $# -gt 0 ]; do
  case "$1" in
    --jetsim) jetsim=$(abs "${2:?--jetsim needs a path}"); shift 2 ;;
    --keep) keep=$(abs "${2:?--keep needs a directory}"); shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test-charts: unknown option '$1'" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
fx=Tests/Fixtures/charts
if [ -n "$keep" ]; then out=$keep; rm -rf "$out"; mkdir -p "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
failures=0
fail() { echo "test-charts: $*" >&2; failures=$((failures + 1)); }
all="largest-first,lru,jetsam-bands,android-lmk,cost-aware,random,oracle"

# The environment first, so what it installs (the first time) shows in the log.
scripts/charts.sh --help >/dev/null

render() {  # dir, then the arguments of charts.sh
  local dir=$1; shift
  scripts/charts.sh "$@" --out "$out/$dir" 2>"$out/$dir.log" || { fail "charts.sh $* failed:"; cat "$out/$dir.log" >&2; }
}
# Every summary chart from the sweep (RAM across, the swept key as facets), against the
# swept key, and from the run with --baseline; the tornado of every metric.
render sweep $fx/sweep-combined.csv
render sweep-x $fx/sweep-combined.csv --x user.sessions_per_day --charts cold,p99
render sweep-at $fx/sweep-combined.csv --at 3072 --charts cdf,loss
render run $fx/run-baseline.csv
render filtered $fx/run-baseline.csv --policy lru,cost-aware,oracle
render sens $fx/sensitivity.csv --top 10
render sens-filtered $fx/sensitivity.csv --policy cost-aware --metric cold_ratio --format svg

# A key that did not move the workload (sensitivity.csv's `moved` no: another OS's key)
# gets no bar: the fixture with one of its ten strongest keys marked so, against the
# fixture as written before the column (every key drawn, that one too).
python3 - "$fx/sensitivity.csv" "$out/sens-moved.csv" <<'PY'
import csv, sys
src, dst = sys.argv[1:]
with open(src, newline="") as f:
    rows = list(csv.DictReader(f))
with open(dst, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]) + ["moved"], lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(dict(r, moved="no" if r["varied"] == "device_classes.app_fit_pct" else "yes"))
PY
render sens-moved "$out/sens-moved.csv" --top 10 --metric cold_ratio --format svg
svg_text() { python3 -c 'import sys, xml.etree.ElementTree as ET; print(" ".join(ET.parse(sys.argv[1]).getroot().itertext()))' "$1"; }
grep -q "app_fi" <<<"$(svg_text "$out/sens/tornado-cold_ratio.svg")" || fail "sens: the tornado does not draw device_classes.app_fit_pct, one of the fixture's ten strongest keys"
if grep -q "app_fi" <<<"$(svg_text "$out/sens-moved/tornado-cold_ratio.svg")"; then fail "sens-moved: the tornado draws a key whose moved is no"; fi
# A sidecar whose duration is not a number: the caption says it is unknown (it raised).
mkdir -p "$out/sens-sidecar-in"; cp $fx/sensitivity.csv "$out/sens-sidecar-in/"
printf '{"devices": 5, "duration_s": "", "seed": "1"}\n' > "$out/sens-sidecar-in/sensitivity.csv.provenance.json"
render sens-sidecar "$out/sens-sidecar-in/sensitivity.csv" --metric cold_ratio --format svg
grep -q "unknown" <<<"$(svg_text "$out/sens-sidecar/tornado-cold_ratio.svg" 2>/dev/null)" || fail "sens-sidecar: the caption does not say the duration is unknown"

# Each chart: exists in both formats, non-empty, well formed, naming its policies.
check() {  # dir, policies the SVG must name (comma-separated), those it must not, charts...
  local dir=$1 want=$2 not=$3; shift 3
  for name in "$@"; do
    for fmt in png svg; do
      [ "$dir" = sens-filtered ] && [ "$fmt" = png ] && continue
      local f="$out/$dir/$name.$fmt"
      [ -s "$f" ] || { fail "$dir: no $name.$fmt (or it is empty)"; continue; }
    done
    python3 - "$out/$dir/$name" "$want" "$not" "$dir" <<'PY' || failures=$((failures + 1))
import sys, xml.etree.ElementTree as ET, os
base, want, not_, dir = sys.argv[1:]
ok = True
def bad(msg):
    global ok
    print(f"test-charts: {dir}/{os.path.basename(base)}: {msg}", file=sys.stderr); ok = False
if os.path.exists(base + ".png"):
    with open(base + ".png", "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            bad("the .png is not a PNG")
try:
    root = ET.parse(base + ".svg").getroot()
except (ET.ParseError, OSError) as e:
    bad(f"the .svg is not XML ({e})"); sys.exit(1)
text = " ".join(t for t in root.itertext())
for p in filter(None, want.split(",")):
    if p not in text.split() and f"{p} −" not in text:
        bad(f"the SVG does not name {p}")
for p in filter(None, not_.split(",")):
    if p in text.split():
        bad(f"the SVG names {p}, which --policy left out")
sys.exit(0 if ok else 1)
PY
  done
}
summary="cold-ratio-vs-ram p99-vs-ram paired-differences latency-cdf data-loss-by-strategy"
tornado="tornado-cold_ratio tornado-mean_ms tornado-p99_ms tornado-loss_per_device_day"
check sweep "$all" '' $summary
check sweep-x "$all" '' cold-ratio-vs-user.sessions_per_day p99-vs-user.sessions_per_day
check sweep-at "$all" '' latency-cdf data-loss-by-strategy
check run "$all" '' $summary
check filtered lru,cost-aware,oracle largest-first,jetsam-bands,android-lmk,random $summary
check sens jetsam-bands,cost-aware '' $tornado
check sens-filtered cost-aware jetsam-bands tornado-cold_ratio

# One colour per policy: the marks of a policy (SVG groups id="policy:NAME:...") have
# one colour across every chart, and different policies have different colours.
python3 - "$out" <<'PY' || failures=$((failures + 1))
import sys, re, glob, collections
seen = collections.defaultdict(set)   # policy -> colours
where = collections.defaultdict(set)
for path in glob.glob(f"{sys.argv[1]}/*/*.svg"):
    s = open(path, encoding="utf-8").read()
    for m in re.finditer(r'<g id="policy:([^:"]+):[^"]*">\s*<path[^>]*style="([^"]*)"', s):
        colours = [c for c in re.findall(r'(?:stroke|fill): (#[0-9a-fA-F]{6})', m.group(2))]
        if colours:
            seen[m.group(1)].add(colours[0].lower()); where[m.group(1)].add(path.split("/")[-2] + "/" + path.split("/")[-1])
ok = True
if len(seen) < 7:
    print(f"test-charts: marks found for {len(seen)} policies only ({', '.join(seen)})", file=sys.stderr); ok = False
for p, cs in seen.items():
    if len(cs) != 1:
        print(f"test-charts: {p} has {len(cs)} colours across the charts: {', '.join(sorted(cs))}", file=sys.stderr); ok = False
owners = collections.defaultdict(list)
for p, cs in seen.items():
    for c in cs:
        owners[c].append(p)
for c, ps in owners.items():
    if len(ps) > 1:
        print(f"test-charts: {', '.join(ps)} share the colour {c}", file=sys.stderr); ok = False
if ok:
    print(f"test-charts: {len(seen)} policies, one colour each, across {len({w for ws in where.values() for w in ws})} SVGs")
sys.exit(0 if ok else 1)
PY

# Clear errors: exit 2, naming the file and what it lacks.
expect_error() {  # what the message must contain, then the arguments
  local want=$1; shift
  local rc=0
  scripts/charts.sh "$@" --out "$out/errors" >/dev/null 2>"$out/err" || rc=$?
  if [ $rc -ne 2 ]; then fail "charts.sh $* exited $rc, not 2"; fi
  grep -qF -- "$want" "$out/err" || fail "charts.sh $*: the message does not say '$want': $(cat "$out/err")"
}
printf 'workload,policy,ram_mb\ndefault,lru,2048\n' > "$out/no-columns.csv"
expect_error "$out/no-columns.csv: every chart of a summary CSV needs the columns devices, duration_h, seed" "$out/no-columns.csv"
expect_error "run-baseline.csv: the tornado chart needs" $fx/run-baseline.csv --charts tornado
python3 -c 'import csv, sys   # the run without the columns --baseline appends
rows = list(csv.reader(open(sys.argv[1])))
n = rows[0].index("baseline")
csv.writer(open(sys.argv[2], "w", newline=""), lineterminator="\n").writerows(r[:n] for r in rows)' \
  $fx/run-baseline.csv "$out/no-deltas.csv"
expect_error "no-deltas.csv: the paired-differences chart needs the columns baseline, delta_relaunch_cold_ratio" \
  "$out/no-deltas.csv" --charts deltas
expect_error "sensitivity.csv: a sensitivity CSV: its chart is tornado" $fx/sensitivity.csv --charts cold
expect_error "no rows for policy nosuch" $fx/run-baseline.csv --policy lru,nosuch
expect_error "$out/missing.csv: cannot read it" "$out/missing.csv"
# A duration the caption cannot say (empty, nan) is exit 2 naming the line, not a traceback.
for bad in '' nan; do
  python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
n = rows[0].index("duration_h"); rows[1][n] = sys.argv[3]
csv.writer(open(sys.argv[2], "w", newline=""), lineterminator="\n").writerows(rows)' \
    $fx/run-baseline.csv "$out/bad-duration.csv" "$bad"
  expect_error "bad-duration.csv:2: column duration_h is '$bad'" "$out/bad-duration.csv" --charts cold
done
[ ! -e "$out/errors" ] || [ -z "$(ls -A "$out/errors")" ] || fail "a refused CSV left charts in $out/errors"

# The colours follow `jetsim policies`' order: the list in style.py must be it.
if [ -n "$jetsim" ]; then
  listed=$("$jetsim" policies | awk '{print $1}' | paste -sd, -)
  ours=$(python3 -c 'import ast,sys
t = ast.parse(open("scripts/charts/style.py").read())
print(",".join(next(ast.literal_eval(n.value) for n in t.body if isinstance(n, ast.Assign) and n.targets[0].id == "POLICY_ORDER")))')
  [ "$listed" = "$ours" ] || fail "scripts/charts/style.py's POLICY_ORDER ($ours) is not jetsim policies' order ($listed)"
fi

# The fixtures can fall behind the binary's columns: with --jetsim, every chart again from
# a small sweep it writes now (and a sensitivity run when it has that command).
if [ -n "$jetsim" ]; then
  "$jetsim" sweep --out "$out/live-sweep" --set user.sessions_per_day=25,100 --ram 2GB,3GB \
    --policy lru,oracle,cost-aware --baseline lru --devices 10 --duration 1d --quiet
  render live "$out/live-sweep/combined.csv" --x user.sessions_per_day
  check live lru,oracle,cost-aware '' cold-ratio-vs-user.sessions_per_day p99-vs-user.sessions_per_day \
    paired-differences latency-cdf data-loss-by-strategy
  if grep -q "^ *sensitivity " <<<"$("$jetsim" --help 2>&1)"; then
    "$jetsim" sensitivity --out "$out/live-sens" --baseline lru --policy lru,cost-aware --ram 2GB \
      --devices 5 --duration 1d --quiet >/dev/null
    render live-sens "$out/live-sens/sensitivity.csv" --metric cold_ratio
    check live-sens cost-aware '' tornado-cold_ratio
  fi
fi

n=$(find "$out" -name '*.png' -o -name '*.svg' | wc -l)
if [ $failures -gt 0 ]; then echo "test-charts: $failures failures ($n files in $out)" >&2; exit 1; fi
echo "test-charts: $n charts rendered from $fx and checked"
