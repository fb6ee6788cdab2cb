#!/usr/bin/env bash
# Replay speed against a plain C reference (Benchmarks/ReplayReference/lru_replay.c:
# fgets/strtod and an LRU of CAP apps per device), one after the other on the same
# file, with peak memory from /usr/bin/time -v. Not part of the product.
#   scripts/bench-replay.sh [ROWS] [DEVICES]      (default 1000000 rows, 1000 devices)
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${1:-1000000}; DEVICES=${2:-1000}; CAP=4
DIR=${TMPDIR:-/tmp}/jetsim-bench-replay; mkdir -p "$DIR"
TRACE=$DIR/trace-$ROWS.csv
if [ ! -f "$TRACE" ]; then
  # Grouped by device; 30 apps per device, Zipf-ish choice; uses every 90 s of 30 s.
  awk -v rows="$ROWS" -v devs="$DEVICES" 'BEGIN { srand(7); print "device,time_s,app,duration_s";
    per = int(rows / devs); for (d = 0; d < devs; d++) for (i = 0; i < per; i++) {
      a = int(30 * rand() * rand()); printf "dev%05d,%d,app%02d,30\n", d, i * 90, a } }' > "$TRACE"
fi
cc -O2 -o "$DIR/lru_replay" Benchmarks/ReplayReference/lru_replay.c
swift build -c release --product jetsim --no-color-diagnostics >/dev/null
JETSIM=$(swift build -c release --show-bin-path --no-color-diagnostics)/jetsim
echo "trace: $TRACE ($(wc -l < "$TRACE") lines)"
for run in c jetsim; do
  if [ $run = c ]; then cmd=("$DIR/lru_replay" "$TRACE" "$CAP")
  else cmd=("$JETSIM" run --usage "$TRACE" --policy lru --ram 2GB --quiet --out "$DIR/summary.csv"); fi
  /usr/bin/time -v "${cmd[@]}" 2> "$DIR/time-$run.txt" >/dev/null
  wall=$(grep "Elapsed (wall" "$DIR/time-$run.txt" | awk '{print $NF}')
  rss=$(grep "Maximum resident" "$DIR/time-$run.txt" | awk '{print $NF}')
  # CPU time too: on a shared machine it is steadier than wall time.
  user=$(grep "User time" "$DIR/time-$run.txt" | awk '{print $NF}')
  echo "$run: wall $wall, user $user s, peak RSS $((rss / 1024)) MB (load $(cut -d' ' -f1 /proc/loadavg))"
done
