#!/usr/bin/env bash
# Replay of one long device against the C reference (issue 34): a cache-style trace,
# one device, ROWS requests drawn independently from Zipf(0.8) over 10,000 equal
# apps (every 90 s, 30 s each: no locks, a Home and a launch per row that changes
# the app), replayed by Benchmarks/ReplayReference/lru_replay.c with CAP 1000 and by
# jetsim on Workloads/lru-reference.yaml with the RAM for 1,000 of its 300 MB apps
# (--ram 314250MB, the critical level and the kill target both 4 % of it, the OS
# reserve 1.5 GiB: 1,000 fit, 1,001 do not) and --policy lru, one after the other in this one call; prints wall time and peak RSS
# (/usr/bin/time -v) of each, the ratio of their request rates by wall time, and
# checks that jetsim's cold launches equal C's misses. Not part of the product.
#   scripts/bench-one-device.sh [ROWS] [ROUNDS]     (default 1000000 rows, 1 round)
# JETSIM=path runs another binary (else a release build here).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}; ROUNDS=${2:-1}; APPS=10000; CAP=1000; RAM=314250MB
DIR=${TMPDIR:-/tmp}/jetsim-bench-one-device; mkdir -p "$DIR"
TRACE=$DIR/zipf-$ROWS.csv
if [ ! -f "$TRACE" ]; then
  # Zipf(0.8) by inversion of the cumulative weights (a binary search a row).
  awk -v rows="$ROWS" -v apps="$APPS" -v s=0.8 'BEGIN { srand(7); c = 0
    for (k = 1; k <= apps; k++) { c += k ^ -s; cum[k] = c }
    print "device,time_s,app,duration_s"
    for (i = 0; i < rows; i++) { u = rand() * c; lo = 1; hi = apps
      while (lo < hi) { m = int((lo + hi) / 2); if (cum[m] < u) lo = m + 1; else hi = m }
      printf "dev0,%d,app%05d,30\n", i * 90, lo - 1 } }' > "$TRACE.tmp"
  mv "$TRACE.tmp" "$TRACE"
fi
# 32,768 hash slots: above the trace's 10,000 apps (the reference's default is 4,096).
cc -O2 -o "$DIR/lru_replay" Benchmarks/ReplayReference/lru_replay.c
if [ -z "${JETSIM:-}" ]; then
  swift build -c release --product jetsim --no-color-diagnostics >/dev/null
  JETSIM=$(swift build -c release --show-bin-path --no-color-diagnostics)/jetsim
fi
echo "trace: $TRACE ($ROWS requests, one device, Zipf(0.8) over $APPS apps; capacity $CAP)"
misses() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  { print $c["launches"] - $c["relaunches"] + $c["cold_relaunches"] }' "$1"; }
measure() {  # tag, then the command: sets wall (s) and rss (MB)
  local tag=$1; shift
  /usr/bin/time -v "$@" 2> "$DIR/time-$tag.txt" > "$DIR/out-$tag.txt"
  wall=$(awk -F': ' '/Elapsed \(wall/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$DIR/time-$tag.txt")
  rss=$(awk '/Maximum resident/ { printf "%.1f", $NF / 1024 }' "$DIR/time-$tag.txt")
  user=$(awk '/User time/ { print $NF }' "$DIR/time-$tag.txt")
  printf '%-7s wall %6.2f s  user %6.2f s  max RSS %7s MB  (load %s)\n' "$tag" "$wall" "$user" "$rss" "$(cut -d' ' -f1 /proc/loadavg)"
}
for r in $(seq "$ROUNDS"); do
  measure c "$DIR/lru_replay" "$TRACE" "$CAP" 32768; cw=$wall
  measure jetsim "$JETSIM" run --usage "$TRACE" --workload Workloads/lru-reference.yaml --ram "$RAM" --policy lru \
    --set device_classes.0.critical_available_pct=4 --set device_classes.0.kill_target_available_pct=4 \
    --set device_classes.0.os_reserve_mb=1536 --quiet --out "$DIR/summary.csv"; jw=$wall
  awk -v c="$cw" -v j="$jw" 'BEGIN { printf "round: jetsim at %.2fx the C reference'"'"'s requests/s (wall)\n", c / j }'
done
c_misses=$(awk '{print $3}' "$DIR/out-c.txt"); j_misses=$(misses "$DIR/summary.csv")
if [ "$c_misses" = "$j_misses" ]; then echo "misses: C $c_misses = jetsim $j_misses"
else echo "misses differ: C $c_misses, jetsim $j_misses" >&2; exit 1; fi
