#!/usr/bin/env bash
# Instructions per event (callgrind, load-independent) for jetsim on the default
# workload (jetsam-bands, 2 GB) and on Workloads/android.yaml (android-lmk, its RAM),
# and per replayed row (lru-reference, 100 devices, from the CSV and from a .jtrace),
# against the C hold loop (Benchmarks/HoldReference/hold.c, 1,000 pending): issues 12
# and 13's event-rate floor. Start-up is subtracted by difference: a run of DEVICES
# devices minus a run of 1 device, divided by the difference in events (from --perf);
# hold.c likewise, HOLDS holds minus 0. Then wall clock: hold.c and jetsim one after
# the other, 3 times each, with the load average; jetsim on WALL devices (2,000: about
# 1 s a run; 200 devices take 0.1 s, too short to time on a shared machine).
#
# Usage: scripts/perf-count.sh [--jetsim PATH] [--devices N] [--wall-devices WALL] [--no-wall] [--wall-only] [--no-build] [--keep DIR]
#   --keep DIR   keep the callgrind profiles of the DEVICES-device runs there
#                (callgrind_annotate DIR/default.cg)
set -euo pipefail
# Relative paths in the arguments are the caller's: made absolute before the cd below.
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
jetsim="" devices=200 wall_devices=2000 wall=1 build=1 holds=2000000 keep="" counts=1
while [ $# -gt 0 ]; do
  case "$1" in
    --jetsim) jetsim=$(abs "${2:?}"); shift 2 ;;
    --devices) devices=${2:?}; shift 2 ;;
    --wall-devices) wall_devices=${2:?}; shift 2 ;;
    --no-wall) wall=0; shift ;;
    --wall-only) counts=0; shift ;;
    --no-build) build=0; shift ;;
    --keep) keep=$(abs "${2:?}"); mkdir -p "$keep"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "perf-count: unknown option '$1'" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
[ "$counts" = 0 ] || command -v valgrind >/dev/null || { echo "perf-count: needs valgrind" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if [ -z "$jetsim" ]; then
  [ "$build" = 0 ] || swift build -c release --product jetsim --no-color-diagnostics >&2
  jetsim=.build/release/jetsim
fi
strip --strip-debug -o "$tmp/jetsim" "$jetsim"
cc -O2 -o "$tmp/hold" Benchmarks/HoldReference/hold.c -lm

irs() {  # instructions of one command (callgrind's total)
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" >/dev/null 2>"$tmp/cg.log"
  sed -n 's/^summary: //p; s/^totals: //p' "$tmp/cg.out" | head -1
}
events() {  # events of one jetsim run (the --perf total row)
  "$tmp/jetsim" "$@" --quiet --out /dev/null --perf "$tmp/perf.csv" >/dev/null
  awk -F, '$1 == "total" { print $3 }' "$tmp/perf.csv"
}
per_event() {  # label, then jetsim's arguments (without --devices)
  local label=$1; shift
  local e1 eN i1 iN
  e1=$(events run --devices 1 "$@"); eN=$(events run --devices "$devices" "$@")
  i1=$(irs "$tmp/jetsim" run --devices 1 "$@" --quiet --out /dev/null)
  iN=$(irs "$tmp/jetsim" run --devices "$devices" "$@" --quiet --out /dev/null)
  [ -z "$keep" ] || cp "$tmp/cg.out" "$keep/$label.cg"
  awk -v l="$label" -v e1="$e1" -v eN="$eN" -v i1="$i1" -v iN="$iN" \
    'BEGIN { printf "%-10s %12d events %14d instr  %7.1f instr/event\n", l, eN - e1, iN - i1, (iN - i1) / (eN - e1) }'
}
common=(--duration 7d --threads 1)
ios=(--policy jetsam-bands --ram 2GB)
android=(--workload Workloads/android.yaml --policy android-lmk)
if [ "$counts" = 1 ]; then
  h0=$(irs "$tmp/hold" 1000 0); hN=$(irs "$tmp/hold" 1000 "$holds")
  awk -v h0="$h0" -v hN="$hN" -v n="$holds" \
    'BEGIN { printf "%-10s %12d holds  %14d instr  %7.1f instr/hold\n", "hold.c", n, hN - h0, (hN - h0) / n }'
  per_event default "${ios[@]}" "${common[@]}"
  per_event android "${android[@]}" "${common[@]}"
  # A replayed row: scripts/bench-replay.sh's trace shape over 100 devices, 2e5 rows
  # less 1e4 (start-up subtracted), lru on Workloads/lru-reference.yaml, one thread;
  # from the CSV, then from the same trace as a .jtrace (skipped by a jetsim without
  # `import --format usage`).
  trace() {  # rows file
    awk -v rows="$1" -v devs=100 'BEGIN { srand(7); print "device,time_s,app,duration_s";
      per = int(rows / devs); for (d = 0; d < devs; d++) for (i = 0; i < per; i++) {
        a = int(30 * rand() * rand()); printf "dev%05d,%d,app%02d,30\n", d, i * 90, a } }' > "$2"
  }
  trace 10000 "$tmp/r1.csv"; trace 200000 "$tmp/rN.csv"
  replay=(run --workload Workloads/lru-reference.yaml --policy lru --ram 2GB --threads 1 --quiet --out /dev/null)
  per_row() {  # label small large
    local i1 iN
    i1=$(irs "$tmp/jetsim" "${replay[@]}" --usage "$2"); iN=$(irs "$tmp/jetsim" "${replay[@]}" --usage "$3")
    awk -v l="$1" -v i1="$i1" -v iN="$iN" 'BEGIN { printf "%-10s %12d rows   %14d instr  %7.1f instr/row\n", l, 190000, iN - i1, (iN - i1) / 190000 }'
  }
  per_row replay-csv "$tmp/r1.csv" "$tmp/rN.csv"
  if "$tmp/jetsim" import --format usage "$tmp/r1.csv" --out "$tmp/r1.jtrace" 2>/dev/null; then
    "$tmp/jetsim" import --format usage "$tmp/rN.csv" --out "$tmp/rN.jtrace"
    per_row replay-jt "$tmp/r1.jtrace" "$tmp/rN.jtrace"
  fi
fi

[ "$wall" = 1 ] || exit 0
echo "wall clock (hold.c 1000 pending, 20M holds; then jetsim --devices $wall_devices; events/s):"
for i in 1 2 3; do
  for w in default android; do
    if [ $w = default ]; then args=("${ios[@]}"); else args=("${android[@]}"); fi
    h=$("$tmp/hold" 1000 20000000 | awk -F, 'NR == 2 { print $4 }')
    "$tmp/jetsim" run --devices "$wall_devices" "${args[@]}" "${common[@]}" --quiet --out /dev/null --perf "$tmp/perf.csv"
    j=$(awk -F, '$1 == "total" { print $5 }' "$tmp/perf.csv")
    awk -v w=$w -v h="$h" -v j="$j" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" \
      'BEGIN { printf "  %-8s hold %10.0f/s  jetsim %10.0f/s  ratio %.2f  load %s\n", w, h, j, j / h, l }'
  done
done
