#!/usr/bin/env bash
# Replay speed against a plain C reference (Benchmarks/ReplayReference/lru_replay.c:
# fgets/strtod and an LRU of CAP apps per device), one after the other on the same
# file, with peak memory from /usr/bin/time -v. Not part of the product.
#   scripts/bench-replay.sh [ROWS] [DEVICES]      (default 1000000 rows, 1000 devices)
# Runs, in turn: the C program; jetsim on Workloads/lru-reference.yaml, configured
# like it (4 equal apps fit, no background work, growth, wakes or XNU bands: the
# like-for-like case, whose cold launches must equal C's misses, checked); jetsim on
# the default workload (the full device model). JETSIM=path runs another binary.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}; DEVICES=${2:-1000}; CAP=4   # lru-reference.yaml: 4 apps of 300 MB fit
DIR=${TMPDIR:-/tmp}/jetsim-bench-replay; mkdir -p "$DIR"
# A kept trace is reused only for the same rows and devices.
if [ "$DEVICES" = 1000 ]; then TRACE=$DIR/trace-$ROWS.csv; else TRACE=$DIR/trace-$ROWS-${DEVICES}dev.csv; fi
if [ ! -f "$TRACE" ]; then
  # Grouped by device; 30 apps per device, Zipf-ish choice; uses every 90 s of 30 s.
  awk -v rows="$ROWS" -v devs="$DEVICES" 'BEGIN { srand(7); print "device,time_s,app,duration_s";
    per = int(rows / devs); for (d = 0; d < devs; d++) for (i = 0; i < per; i++) {
      a = int(30 * rand() * rand()); printf "dev%05d,%d,app%02d,30\n", d, i * 90, a } }' > "$TRACE"
fi
cc -O2 -o "$DIR/lru_replay" Benchmarks/ReplayReference/lru_replay.c
if [ -z "${JETSIM:-}" ]; then
  swift build -c release --product jetsim --no-color-diagnostics >/dev/null
  JETSIM=$(swift build -c release --show-bin-path --no-color-diagnostics)/jetsim
fi
echo "trace: $TRACE ($(wc -l < "$TRACE") lines)"
# The cold launches (first launches included: a cache's misses) in a summary CSV.
misses() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { print $c["launches"] - $c["relaunches"] + $c["cold_relaunches"] }' "$1"; }
for run in c lru-reference default; do
  case $run in
    c) cmd=("$DIR/lru_replay" "$TRACE" "$CAP") ;;
    lru-reference) cmd=("$JETSIM" run --usage "$TRACE" --workload Workloads/lru-reference.yaml --policy lru --ram 2GB --quiet --out "$DIR/summary-$run.csv") ;;
    default) cmd=("$JETSIM" run --usage "$TRACE" --policy lru --ram 2GB --quiet --out "$DIR/summary-$run.csv") ;;
  esac
  /usr/bin/time -v "${cmd[@]}" 2> "$DIR/time-$run.txt" > "$DIR/out-$run.txt"
  wall=$(grep "Elapsed (wall" "$DIR/time-$run.txt" | awk '{print $NF}')
  rss=$(grep "Maximum resident" "$DIR/time-$run.txt" | awk '{print $NF}')
  # CPU time too: on a shared machine it is steadier than wall time.
  user=$(grep "User time" "$DIR/time-$run.txt" | awk '{print $NF}')
  sys=$(grep "System time" "$DIR/time-$run.txt" | awk '{print $NF}')
  echo "$run: wall $wall, user $user s, sys $sys s, peak RSS $((rss / 1024)) MB (load $(cut -d' ' -f1 /proc/loadavg))"
done
c_misses=$(awk '{print $3}' "$DIR/out-c.txt"); j_misses=$(misses "$DIR/summary-lru-reference.csv")
if [ "$c_misses" = "$j_misses" ]; then echo "misses: C $c_misses = jetsim lru-reference $j_misses"
else echo "misses differ: C $c_misses, jetsim lru-reference $j_misses" >&2; exit 1; fi
