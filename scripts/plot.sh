#!/usr/bin/env bash
# Turns a sweep's combined CSV (or any jetsim summary CSV) into PNG charts:
#   cold-ratio-vs-ram.png      relaunch cold ratio vs RAM, one line per policy (with 95% CI bars)
#   p99-vs-ram.png             p99 relaunch latency vs RAM, one line per policy
#   data-loss-by-strategy.png  lost edits per device-day by policy and save strategy (at one RAM size)
# Rows that differ in their `overrides` column become separate lines ("policy [overrides]").
# Installs gnuplot (Debian's gnuplot-nox) if it is missing.
#
# Usage: scripts/plot.sh COMBINED.csv [--out DIR] [--loss-ram-mb N]
#   --out DIR          where the PNGs go (default: the CSV's directory)
#   --loss-ram-mb N    RAM size for the data-loss chart (default: the smallest in the CSV)
set -euo pipefail

die() { echo "plot: $*" >&2; exit 2; }
csv=${1:-}
[ -n "$csv" ] && [ "$csv" != --help ] && [ "$csv" != -h ] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; [ -n "$csv" ] && exit 0 || exit 2; }
[ -r "$csv" ] || die "$csv: cannot read it"
shift
out=$(dirname "$csv") loss_ram=''
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --loss-ram-mb) loss_ram=${2:?--loss-ram-mb needs a number}; shift 2 ;;
    *) die "unknown option '$1'" ;;
  esac
done
mkdir -p "$out"

if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plot: installing gnuplot (gnuplot-nox) ..." >&2
  if [ "$(id -u)" = 0 ]; then sudo=''; else sudo='sudo -n'; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y --no-install-recommends gnuplot-nox >/dev/null 2>&1 \
    || { $sudo apt-get update >/dev/null 2>&1 && $sudo apt-get install -y --no-install-recommends gnuplot-nox >/dev/null; } \
    || die "could not install gnuplot-nox; install gnuplot and run again"
fi
terminal="pngcairo size 900,560 font 'sans,10'"
gnuplot -e "set terminal pngcairo" >/dev/null 2>&1 || terminal="png size 900,560"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Extract the columns we need with a real CSV parser (quoted fields may hold commas).
awk -v work="$work" -v lossram="$loss_ram" '
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
NR == 1 { n = parse($0); for (i = 1; i <= n; i++) col[F[i]] = i; next }
{
  sub(/\r$/, "")
  parse($0)
  need = "policy ram_mb relaunch_cold_ratio relaunch_cold_ratio_ci95 relaunch_p99_ms devices duration_h data_loss_units_on_resign_active"
  split(need, names, " ")
  for (k in names) if (!(names[k] in col)) { print "plot: the CSV has no column " names[k] " (is it a jetsim summary?)" > "/dev/stderr"; exit 3 }
  if (F[col["ram_mb"]] == "mixed") next
  series = F[col["policy"]]
  ov = ("overrides" in col) ? F[col["overrides"]] : ""
  if (ov != "") series = series " [" ov "]"
  gsub(/"/, "", series)
  ram = F[col["ram_mb"]] + 0
  key = series SUBSEP ram
  if (!(series in seen)) { seen[series] = 1; order[++ns] = series }
  cold[key] = F[col["relaunch_cold_ratio"]] * 100; ci[key] = F[col["relaunch_cold_ratio_ci95"]] * 100
  p99[key] = F[col["relaunch_p99_ms"]]
  rams[ram] = 1
  dd = F[col["devices"]] * F[col["duration_h"]] / 24
  split("on_resign_active on_enter_background on_terminate periodic never", st, " ")
  for (s = 1; s <= 5; s++) loss[key, s] = (dd > 0) ? F[col["data_loss_units_" st[s]]] / dd : 0
}
END {
  if (ns == 0) { print "plot: no rows with a numeric ram_mb to plot" > "/dev/stderr"; exit 3 }
  nr = 0; for (r in rams) ramlist[++nr] = r + 0
  for (i = 1; i <= nr; i++) for (j = i + 1; j <= nr; j++) if (ramlist[j] < ramlist[i]) { t = ramlist[i]; ramlist[i] = ramlist[j]; ramlist[j] = t }
  lr = (lossram != "") ? lossram + 0 : ramlist[1]
  for (s = 1; s <= ns; s++) {
    name = order[s]
    for (i = 1; i <= nr; i++) {
      key = name SUBSEP ramlist[i]
      if (key in cold) {
        printf "%s %s %s\n", ramlist[i], cold[key], ci[key] > (work "/cold." s)
        printf "%s %s\n", ramlist[i], p99[key] > (work "/p99." s)
      }
    }
    printf "%s\n", name > (work "/names")
    key = name SUBSEP lr
    if (key in cold) printf "\"%s\" %s %s %s %s %s\n", name, loss[key, 1], loss[key, 2], loss[key, 3], loss[key, 4], loss[key, 5] >> (work "/loss")
  }
  print lr > (work "/lossram")
}' "$csv"

mapfile -t names < "$work/names"
cold_plot='' p99_plot=''
for i in "${!names[@]}"; do
  s=$((i + 1))
  [ -f "$work/cold.$s" ] || continue
  title=${names[$i]//\"/}
  cold_plot+="${cold_plot:+, }'$work/cold.$s' using 1:2:3 with yerrorlines lw 2 title \"$title\""
  p99_plot+="${p99_plot:+, }'$work/p99.$s' using 1:2 with linespoints lw 2 title \"$title\""
done
loss_ram_used=$(cat "$work/lossram")

gnuplot <<GP
set terminal $terminal
set grid
set key outside right top
set xlabel "RAM (MB)"

set output "$out/cold-ratio-vs-ram.png"
set title "Relaunches that had to cold-start, by RAM size (95% CI across devices)"
set ylabel "cold relaunches (%)"
set yrange [0:*]
plot $cold_plot

set output "$out/p99-vs-ram.png"
set title "p99 relaunch latency by RAM size"
set ylabel "p99 relaunch latency (ms)"
plot $p99_plot

set output "$out/data-loss-by-strategy.png"
set title "Lost edits per device-day by policy and save strategy (RAM $loss_ram_used MB)"
set xlabel ""
set ylabel "lost edits per device-day"
set style data histograms
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -30
unset xrange
plot '$work/loss' using 2:xtic(1) title "on-resign-active", '' using 3 title "on-enter-background", \
     '' using 4 title "on-terminate", '' using 5 title "periodic", '' using 6 title "never"
GP
echo "plot: wrote $out/cold-ratio-vs-ram.png, $out/p99-vs-ram.png, $out/data-loss-by-strategy.png" >&2
