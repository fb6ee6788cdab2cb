#!/usr/bin/env bash
# Fuzz the jetsim binary with hostile input: random and boundary values for every
# workload key (enumerated from the schema table through `jetsim validate
# --print-keys`-free means: the key reference in Workloads/README.md, which is
# generated from the table), every run flag, random scenario lines and tampered shard
# states. Fails on a trap (exit 132/134/139), a hang (time limit), a leftover
# temporary file, or an exit code other than 0, 1 or 2.
#
#   scripts/fuzz.sh [--jetsim PATH] [--seconds S] [--seed N]
#
# CI runs it for 60 s; run it longer by hand (--seconds 1800).
set -uo pipefail
cd "$(dirname "$0")/.."
jetsim="$PWD/.build/release/jetsim"; seconds=60; seed=$$
while [ $# -gt 0 ]; do
  case "$1" in
    --jetsim) jetsim="$2"; shift 2;;
    --seconds) seconds="$2"; shift 2;;
    --seed) seed="$2"; shift 2;;
    *) echo "fuzz.sh: unknown option $1" >&2; exit 2;;
  esac
done
RANDOM=$seed
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
limit=20   # seconds per case: a case that takes longer is a hang
cases=0; failures=0
# Keys with their ranges, from the schema table (the generated key reference).
mapfile -t rows < <(grep -E '^\| `[a-z_.]+` \|' "$OLDPWD/Workloads/README.md" 2>/dev/null || grep -hE '^\| `[a-z_.]+` \|' "$(dirname "$jetsim")/../../Workloads/README.md")
keys=(); lows=(); highs=()
for r in "${rows[@]}"; do
  k=$(sed -E 's/^\| `([^`]+)`.*/\1/' <<<"$r")
  range=$(grep -oE 'in -?[0-9.e+]+\.\.\.-?[0-9.e+]+' <<<"$r" | head -1)
  k=${k/device_classes./device_classes.0.}; k=${k/catalog.archetypes./catalog.archetypes.0.}
  keys+=("$k"); lows+=("${range#in }"); highs+=("")
done
values_for() {  # boundary and random values for a key with range LOW...HIGH
  local r="$1" lo hi
  if [ -n "$r" ]; then lo=${r%%...*}; hi=${r##*...}; echo "$lo $hi"; fi
  echo "0 -1 1e308 -1e308 nan .inf 9223372036854775807 18446744073709551616 1e-300 '' x [] {} {lognormal:{median:1e12,sigma:20}} {uniform:[0,1e12]} {exponential:{mean:1e12}}"
}
check() {  # $1 = exit code, $2.. = description
  local rc=$1; shift
  cases=$((cases + 1))
  local left; left=$(find "$work" -name '.*.tmp-*' | head -3)
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ] || [ -n "$left" ]; then
    failures=$((failures + 1))
    echo "FAIL (exit $rc${left:+, left $left}): $*" >&2
    find "$work" -name '.*.tmp-*' -delete
  fi
}
run() {  # run jetsim with a time limit
  timeout -s KILL "$limit" "$jetsim" "$@" >/dev/null 2>"$work/err"
}
start=$(date +%s)
base=(run --devices 3 --quiet --policy lru --ram 2GB)
while [ $(( $(date +%s) - start )) -lt "$seconds" ]; do
  case $((RANDOM % 6)) in
  0|1)  # a workload key at a boundary or a hostile value
    i=$((RANDOM % ${#keys[@]})); k=${keys[$i]}
    read -ra vs <<<"$(values_for "${lows[$i]}" | tr '\n' ' ')"
    v=${vs[$((RANDOM % ${#vs[@]}))]}
    run "${base[@]}" --set "$k=$v" --out o.csv; check $? "--set $k=$v"
    ;;
  2)  # flags with hostile values
    flags=(--devices --threads --seed --ram --shard --out --perf --per-device --duration-days --format)
    vals=(0 -1 1 a - . .. / /dev/full /nonexistent/x 9223372036854775807 18446744073709551615 99999999999999999999 1/0 2/1 1/9223372036854775807 64MB 1TB 2TB 1e300GB "" "a b")
    f=${flags[$((RANDOM % ${#flags[@]}))]}; v=${vals[$((RANDOM % ${#vals[@]}))]}
    run "${base[@]}" "$f" "$v"; check $? "$f '$v'"
    ;;
  3)  # random scenario lines
    {
      echo "app A"; echo "app B size=$((RANDOM))MB"
      for _ in $(seq $((RANDOM % 12))); do
        t=$((RANDOM * RANDOM))
        words=(launch home lock unlock "notify A orientation v$RANDOM" "notify all locale x" "pressure critical ${RANDOM}GB" "switcher-pick B" call answer ignore end "launch A" "launch B" bogus)
        echo "${t}ms ${words[$((RANDOM % ${#words[@]}))]}"
      done
    } | { [ $((RANDOM % 2)) = 0 ] && sed 's/$/\r/' || cat; } > s.scn
    run scenario s.scn --out t.csv; check $? "scenario $(tr '\n' ';' < s.scn)"
    ;;
  4)  # a tampered shard state
    if [ ! -s st.csv.state ]; then "$jetsim" run --devices 5 --quiet --policy lru --ram 2GB --shard 1/2 --out st.csv 2>/dev/null; fi
    n=$(wc -l < st.csv.state); l=$((RANDOM % n + 1))
    sed "${l}s/[0-9]/$((RANDOM % 10))/" st.csv.state > t.state
    [ $((RANDOM % 4)) = 0 ] && sed -i 's/$/\r/' t.state
    run merge t.state t.state --out m.csv; check $? "merge (line $l changed)"
    ;;
  5)  # output places
    outs=(a - . / /dev/full /proc/x /nonexistent/dir/o.csv ro/o.csv "$work")
    mkdir -p ro; chmod 555 ro
    o=${outs[$((RANDOM % ${#outs[@]}))]}
    run "${base[@]}" --out "$o"; check $? "--out $o"
    ;;
  esac
done
echo "fuzz: $cases cases in $seconds s (seed $seed), $failures failure(s)"
[ "$failures" -eq 0 ]
