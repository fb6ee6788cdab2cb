#!/usr/bin/env bash
# Turns a sweep's combined CSV (or any jetsim summary CSV) into PNG charts:
#   cold-ratio-vs-X.png        relaunch cold ratio vs X, one line per policy (95% CI bars)
#   p99-vs-X.png               p99 relaunch latency vs X, one line per policy
#   latency-cdf.png            relaunch latency CDF per policy at one X value, from the
#                              CSV's relaunch_pNN_ms percentile columns
#   data-loss-by-strategy.png  lost edits per device-day by policy and save strategy at one X
# X is RAM (`ram_mb`, file names say `ram`) unless --x names another key: any numeric
# column of the CSV, or a key swept with `jetsim sweep --set KEY=V1,V2,...` (read from the
# `overrides` column). Rows that differ in anything else (other swept keys, RAM when X is
# not RAM) become separate lines, labelled "policy [key=value ...]". Every chart names the
# workload, devices, duration and seed it was made from. Lines differ in colour, marker
# and dash, so coinciding policies stay distinguishable. Installs gnuplot if missing.
#
# Usage: scripts/plot.sh COMBINED.csv [--out DIR] [--x KEY] [--at VALUE]
#   --out DIR     where the PNGs go (default: the CSV's directory)
#   --x KEY       the horizontal axis (default: ram_mb)
#   --at VALUE    the X value for the CDF and data-loss charts (default: the smallest X)
#                 (--loss-ram-mb N is the same as --at N with X = ram_mb)
set -euo pipefail

die() { echo "plot: $*" >&2; exit 2; }
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }
csv=${1:-}
case "$csv" in
  ''|-*) usage; [ "$csv" = --help ] || [ "$csv" = -h ] && exit 0; exit 2 ;;
esac
[ -r "$csv" ] || die "$csv: cannot read it"
shift
out=$(dirname "$csv") xkey=ram_mb at=''
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --x) xkey=${2:?--x needs a key}; shift 2 ;;
    --at|--loss-ram-mb) at=${2:?$1 needs a value}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1'" ;;
  esac
done
mkdir -p "$out" || die "$out: cannot make the directory"

if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plot: installing gnuplot (gnuplot-nox) ..." >&2
  if [ "$(id -u)" = 0 ]; then sudo=''; else sudo='sudo -n'; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y --no-install-recommends gnuplot-nox >/dev/null 2>&1 \
    || { $sudo apt-get update >/dev/null 2>&1 && $sudo apt-get install -y --no-install-recommends gnuplot-nox >/dev/null; } \
    || die "could not install gnuplot-nox; install gnuplot and run again"
fi
terminal="pngcairo size 960,600 font 'sans,10'"
gnuplot -e "set terminal pngcairo" >/dev/null 2>&1 || terminal="png size 960,600"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One pass with a real CSV parser (quoted fields may hold commas and quotes). It writes,
# per series s: cold.s (x cold ci), p99.s (x p99), cdf.s (ms fraction) at the chosen X;
# names (one label per series), loss (bars at the chosen X), xlabels (categorical X),
# meta (the subtitle) and at (the X value used for the CDF and loss charts).
awk -v work="$work" -v xkey="$xkey" -v at="$at" '
function parse(line,   i, c, q, f, n) {
  n = 0; f = ""; q = 0
  for (i = 1; i <= length(line); i++) {
    c = substr(line, i, 1)
    if (q) { if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { f = f "\""; i++ } else q = 0 } else f = f c }
    else if (c == "\"") q = 1
    else if (c == ",") { F[++n] = f; f = "" }
    else f = f c
  }
  F[++n] = f
  return n
}
function isnum(v) { return v ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
function note(name, v) { if (!(name in meta)) meta[name] = v; else if (meta[name] != v) meta[name] = "various" }
NR == 1 {
  sub(/\r$/, "")
  n = parse($0); for (i = 1; i <= n; i++) col[F[i]] = i
  split("workload policy ram_mb devices duration_h seed relaunch_cold_ratio relaunch_cold_ratio_ci95 relaunch_p99_ms data_loss_units_on_resign_active", need, " ")
  for (k in need) if (!(need[k] in col)) { print "plot: the CSV has no column " need[k] " (is it a jetsim summary?)" > "/dev/stderr"; bad = 2; exit 2 }
  # The CDF uses every relaunch_pNN_ms column there is (p1 ... p99_9: 15 of them
  # since the percentile columns were appended; an older CSV has p50, p90, p99).
  for (name in col) if (match(name, /^relaunch_p[0-9]+(_[0-9]+)?_ms$/)) {
    q = substr(name, 11, length(name) - 13)
    sub(/_/, ".", q)
    pct[name] = q / 100   # p50 -> 0.5, p99_9 -> 0.999
  }
  next
}
{
  sub(/\r$/, "")
  parse($0)
  # X: a column, or KEY=value in the overrides column; the rest of the overrides label the series.
  ov = ("overrides" in col) ? F[col["overrides"]] : ""
  rest = ""; x = ""
  if (xkey in col) x = F[col[xkey]]
  m = split(ov, parts, ";")
  for (i = 1; i <= m; i++) {
    if (parts[i] == "") continue
    eq = index(parts[i], "=")
    if (substr(parts[i], 1, eq - 1) == xkey) x = substr(parts[i], eq + 1)
    else rest = rest (rest == "" ? "" : " ") parts[i]
  }
  if (x == "" || x == "mixed") { skipped++; next }
  if (!(x in xseen)) { xseen[x] = 1; xs[++nx] = x; if (!isnum(x)) categorical = 1 }
  series = F[col["policy"]]
  if (xkey != "ram_mb") rest = "ram_mb=" F[col["ram_mb"]] (rest == "" ? "" : " " rest)
  if (rest != "") series = series " [" rest "]"
  if (!(series in sid)) { sid[series] = ++ns; order[ns] = series }
  key = sid[series] SUBSEP x
  cold[key] = F[col["relaunch_cold_ratio"]] * 100; ci[key] = F[col["relaunch_cold_ratio_ci95"]] * 100
  p99[key] = F[col["relaunch_p99_ms"]]
  for (name in pct) q99[key, name] = F[col[name]]
  dd = F[col["devices"]] * F[col["duration_h"]] / 24
  split("on_resign_active on_enter_background on_terminate periodic never", st, " ")
  for (s = 1; s <= 5; s++) loss[key, s] = (dd > 0) ? F[col["data_loss_units_" st[s]]] / dd : 0
  note("workload", F[col["workload"]]); note("devices", F[col["devices"]])
  note("duration_h", F[col["duration_h"]]); note("seed", F[col["seed"]])
}
END {
  if (bad) exit bad
  if (ns == 0) { print "plot: no rows have a value for " xkey " (a CSV column or a swept key in the overrides column)" > "/dev/stderr"; exit 2 }
  # Sort X numerically (or keep first-seen order for categorical values).
  if (!categorical) for (i = 1; i <= nx; i++) for (j = i + 1; j <= nx; j++) if (xs[j] + 0 < xs[i] + 0) { t = xs[i]; xs[i] = xs[j]; xs[j] = t }
  if (at == "") at = xs[1]
  found = 0; for (i = 1; i <= nx; i++) if (xs[i] == at || (!categorical && isnum(at) && xs[i] + 0 == at + 0)) { at = xs[i]; found = 1 }
  if (!found) { print "plot: --at " at " is not one of the values of " xkey " in the CSV" > "/dev/stderr"; exit 2 }
  for (i = 1; i <= nx; i++) printf "%d %s\n", i, xs[i] > (work "/xlabels")
  np = 0; for (name in pct) { pn[++np] = name }
  print np > (work "/npct")
  for (i = 1; i <= np; i++) for (j = i + 1; j <= np; j++) if (pct[pn[j]] < pct[pn[i]]) { t = pn[i]; pn[i] = pn[j]; pn[j] = t }
  for (s = 1; s <= ns; s++) {
    printf "%s\n", order[s] > (work "/names")
    for (i = 1; i <= nx; i++) {
      key = s SUBSEP xs[i]
      if (!(key in cold)) continue
      xv = categorical ? i : xs[i]
      printf "%s %s %s\n", xv, cold[key], ci[key] > (work "/cold." s)
      printf "%s %s\n", xv, p99[key] > (work "/p99." s)
    }
    key = s SUBSEP at
    if (key in cold) {
      printf "\"%s\" %s %s %s %s %s\n", order[s], loss[key, 1], loss[key, 2], loss[key, 3], loss[key, 4], loss[key, 5] > (work "/loss")
      for (i = 1; i <= np; i++) printf "%s %s\n", q99[key, pn[i]], pct[pn[i]] > (work "/cdf." s)
    }
  }
  d = meta["duration_h"]; if (d != "various") d = (d % 24 == 0) ? (d / 24) (d == 24 ? " day" : " days") : (d + 0) " h"
  printf "workload %s, %s devices x %s, seed %s\n", meta["workload"], meta["devices"], d, meta["seed"] > (work "/meta")
  print at > (work "/at")
  print (categorical ? 1 : 0) > (work "/categorical")
  if (skipped) printf "plot: %d rows without a value for %s were left out\n", skipped, xkey > "/dev/stderr"
}' "$csv" || exit $?

mapfile -t names < "$work/names"
meta=$(cat "$work/meta") at=$(cat "$work/at") categorical=$(cat "$work/categorical")
if [ "$xkey" = ram_mb ]; then tag=ram xlabel="RAM (MB)"; else tag=$xkey xlabel=$xkey; fi
gp() { printf '%s' "${1//\"/\\\"}"; }   # a string safe inside gnuplot double quotes

# Series i gets colour i, marker i and dash i (gnuplot cycles them independently).
style() { local i=$1; echo "lc $i pt $(( (i - 1) % 13 + 1 )) dt $(( (i - 1) % 5 + 1 )) lw 2 ps 1.2"; }
cold_plot='' p99_plot='' cdf_plot=''
for i in "${!names[@]}"; do
  s=$((i + 1)) title=$(gp "${names[$i]}")
  if [ -f "$work/cold.$s" ]; then
    cold_plot+="${cold_plot:+, }'$work/cold.$s' using 1:2:3 with yerrorlines $(style $s) title \"$title\""
    p99_plot+="${p99_plot:+, }'$work/p99.$s' using 1:2 with linespoints $(style $s) title \"$title\""
  fi
  [ -f "$work/cdf.$s" ] && cdf_plot+="${cdf_plot:+, }'$work/cdf.$s' using 1:2 with linespoints $(style $s) title \"$title\""
done
xtics=''
if [ "$categorical" = 1 ]; then
  xtics="set xtics ($(awk '{printf "%s\"%s\" %d", (NR > 1 ? ", " : ""), $2, $1}' "$work/xlabels"))"
  xtics+=$'\nset xrange [0.5:*]'
fi

gnuplot <<GP
set terminal $terminal
set termoption noenhanced
set grid
set key outside right top
set xlabel "$(gp "$xlabel")"
$xtics

set output "$out/cold-ratio-vs-$tag.png"
set title "Relaunches that had to cold-start (95% CI across devices)\n$(gp "$meta")"
set ylabel "cold relaunches (%)"
set yrange [0:*]
plot $cold_plot

set output "$out/p99-vs-$tag.png"
set title "p99 relaunch latency\n$(gp "$meta")"
set ylabel "p99 relaunch latency (ms)"
plot $p99_plot

set output "$out/latency-cdf.png"
set title "Relaunch latency CDF at $(gp "$xkey") = $(gp "$at") (points: the CSV's $(cat "$work/npct") percentile columns)\n$(gp "$meta")"
unset xtics
set xtics
set xrange [*:*]
set xlabel "relaunch latency (ms, log scale)"
set ylabel "share of relaunches at or below"
set logscale x
set yrange [0:1]
plot $cdf_plot
unset logscale x

set output "$out/data-loss-by-strategy.png"
set title "Lost edits per device-day by policy and save strategy at $(gp "$xkey") = $(gp "$at")\n$(gp "$meta")"
set xlabel ""
set ylabel "lost edits per device-day"
set yrange [0:*]
set style data histograms
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -30
set xrange [*:*]
plot '$work/loss' using 2:xtic(1) title "on-resign-active", '' using 3 title "on-enter-background", \
     '' using 4 title "on-terminate", '' using 5 title "periodic", '' using 6 title "never"
GP
echo "plot: wrote $out/cold-ratio-vs-$tag.png, $out/p99-vs-$tag.png, $out/latency-cdf.png, $out/data-loss-by-strategy.png" >&2
