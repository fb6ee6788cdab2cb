#!/usr/bin/env bash
# Byte-identity check for a refactor or a speed pass: runs two jetsim binaries on every
# shipped workload and the built-in default (40 devices x 3 days, every policy; the
# summary, per-device and hourly CSVs, and the exit code) and on a replay of 1e6 usage
# rows over 100 devices (Workloads/lru-reference.yaml; summary and per-device), then
# compares every file byte for byte. Exit 0 when all are equal, 1 when any differ (the
# outputs are kept and named), 2 on bad arguments. A workload key the old binary does not
# know (added since) is left out of a copy both binaries then run, and said.
#   scripts/compare-outputs.sh OLD_JETSIM NEW_JETSIM
set -uo pipefail
[ $# -eq 2 ] && [ -x "$1" ] && [ -x "$2" ] || { echo "usage: scripts/compare-outputs.sh OLD_JETSIM NEW_JETSIM (two executables)" >&2; exit 2; }
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
old=$(abs "$1") new=$(abs "$2")
cd "$(dirname "$0")/.."
d=$(mktemp -d "${TMPDIR:-/tmp}/jetsim-compare.XXXXXX")
trace=$d/trace.csv
# The replay trace of scripts/bench-replay.sh (1e6 rows, 100 devices, srand(7)).
awk 'BEGIN { srand(7); print "device,time_s,app,duration_s"; for (d = 0; d < 100; d++)
  for (i = 0; i < 10000; i++) printf "dev%05d,%d,app%02d,30\n", d, i * 90, int(30 * rand() * rand()) }' > "$trace"
run() {  # tag binary arguments...
  local tag=$1 bin=$2; shift 2
  local ts=(--timeseries "$d/$tag.ts.csv")
  case "$*" in *--usage*) ts=(); : > "$d/$tag.ts.csv" ;; esac   # --timeseries is not for replays
  "$bin" run "$@" --quiet --threads 2 --out "$d/$tag.csv" --per-device "$d/$tag.pd.csv" "${ts[@]}" >/dev/null 2>"$d/$tag.err"
  echo $? > "$d/$tag.rc"
}
cases=("built-in|--devices 40 --duration 3d --policy all")
for w in Workloads/*.yaml; do cases+=("$(basename "$w" .yaml)|--workload $w --devices 40 --duration 3d --policy all"); done
cases+=("replay|--usage $trace --workload Workloads/lru-reference.yaml --policy lru --ram 2GB")
fail=0
for c in "${cases[@]}"; do
  name=${c%%|*} args=${c#*|}
  run "$name.old" "$old" $args
  # A key the old binary does not know (one added since: exit 2, "FILE:LINE: KEY: unknown
  # key"): both binaries run a copy of the workload without that line, said, until the old
  # one reads it (at most 20 keys). The comparison is then of what both understand.
  copied=0
  while [ "$(cat "$d/$name.old.rc")" = 2 ] && [ $copied -lt 20 ]; do
    unknown=$(sed -n 's/^jetsim: \(.*\):\([0-9][0-9]*\): \([^:]*\): unknown key.*/\1 \2 \3/p' "$d/$name.old.err" | head -1)
    [ -n "$unknown" ] || break
    read -r file line key <<<"$unknown"
    [ -f "$file" ] || break
    copy=$d/$name.yaml
    sed "${line}d" "$file" > "$copy.tmp" && mv "$copy.tmp" "$copy"
    args=${args//$file/$copy}
    echo "$name: the old binary does not know $key ($file:$line): both run without it"
    copied=$((copied + 1))
    run "$name.old" "$old" $args
  done
  run "$name.new" "$new" $args
  same=yes
  for ext in csv pd.csv ts.csv rc; do
    cmp -s "$d/$name.old.$ext" "$d/$name.new.$ext" || { echo "DIFFERS: $name ($d/$name.old.$ext vs $d/$name.new.$ext)"; same=no; fail=1; }
  done
  echo "$name: exit $(cat "$d/$name.old.rc"), $(( $(wc -l < "$d/$name.old.csv" 2>/dev/null || echo 1) - 1 )) summary rows, $same"
done
if [ $fail = 0 ]; then rm -rf "$d"; echo "compare-outputs: all equal"; else echo "compare-outputs: some differ (kept in $d)"; fi
exit $fail
