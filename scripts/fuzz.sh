#!/usr/bin/env bash
# Fuzz the jetsim binary with hostile input: for every workload key (enumerated from
# the schema table by `jetsim validate --keys`), the ends of its range, random values
# inside it, values just outside it and hostile text; every run flag; random scenario
# lines; random usage rows (quoted fields, CRLF, lone CR); tampered shard states. Fails on a trap (exit 132/134/139), a hang (time limit), a leftover
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
limit=60   # seconds per case: a case that takes longer is a hang (the slowest legitimate cases, such as 10 million catalog apps, take a few seconds in release)
cases=0; failures=0
# Every key with its kind and range, from the schema table itself
# (`jetsim validate --keys`: key, type, min, max, then the plausible range and groups, tab-separated).
keys=(); types=(); lows=(); highs=()
while IFS=$'\t' read -r k t lo hi _; do
  keys+=("$k"); types+=("$t"); lows+=("$lo"); highs+=("$hi")
done < <("$jetsim" validate --keys)
[ ${#keys[@]} -gt 0 ] || { echo "fuzz.sh: $jetsim validate --keys listed no keys" >&2; exit 2; }
hostile=(0 -1 1e308 -1e308 nan .inf 9223372036854775807 18446744073709551616 1e-300 "''" x "[]" "{}" "&a x" "*a"
         "{lognormal: {median: 1e12, sigma: 20}}" "{uniform: [0, 1e12]}" "{exponential: {mean: 1e12}}" "{empirical: [0, 1e12]}")
value_for() {  # a value for key $1: an end of its range, a random value inside, just outside, or hostile
  local i=$1 lo=${lows[$1]} hi=${highs[$1]} t=${types[$1]} v
  if [ "$lo" = "-" ] || [ $((RANDOM % 5)) = 0 ]; then v=${hostile[$((RANDOM % ${#hostile[@]}))]}; echo "$v"; return; fi
  local r=$RANDOM$RANDOM
  case $((RANDOM % 7)) in
    0) v=$lo;; 1) v=$hi;;
    2) v=$(awk -v a="$lo" -v b="$hi" -v r="$r" 'BEGIN { printf "%.17g", a + (b - a) * (r % 1000003) / 1000003 }');;
    3) v=$(awk -v a="$lo" -v b="$hi" -v r="$r" 'BEGIN { if (a <= 0) a = 1e-6; if (b <= a) b = a * 2; printf "%.17g", exp(log(a) + (log(b) - log(a)) * (r % 1000003) / 1000003) }');;
    4) if [ "$t" = "whole number" ]; then v=$(awk -v a="$lo" 'BEGIN { printf "%.0f", a - 1 }'); else v=$(awk -v a="$lo" 'BEGIN { printf "%.17g", a - (a == 0 ? 1e-9 : (a < 0 ? -a : a) * 1e-6) }'); fi;;
    5) if [ "$t" = "whole number" ]; then v=$(awk -v b="$hi" 'BEGIN { printf "%.0f", b + 1 }'); else v=$(awk -v b="$hi" 'BEGIN { printf "%.17g", b + (b == 0 ? 1e-9 : b * 1e-6) }'); fi;;
    6) if [ "$t" = "distribution" ]; then
         case $((RANDOM % 3)) in
           0) v="{uniform: [$lo, $hi]}";; 1) v="{lognormal: {median: $hi, sigma: $((RANDOM % 21))}}";; 2) v="{exponential: {mean: $hi}}";;
         esac
       else v=$hi; fi;;
  esac
  case "$t" in list*) v="[$v]";; esac
  echo "$v"
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
  case $((RANDOM % 7)) in
  0|1)  # a workload key at an end of its range, inside it, just outside it, or hostile
    i=$((RANDOM % ${#keys[@]})); k=${keys[$i]}; v=$(value_for "$i")
    extra=(); [ $((RANDOM % 3)) = 0 ] && { j=$((RANDOM % ${#keys[@]})); extra=(--set "${keys[$j]}=$(value_for "$j")"); }
    run "${base[@]}" --set "$k=$v" "${extra[@]}" --out o.csv; check $? "--set $k=$v ${extra[*]}"
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
        # Now and then a time at the ends of what a scenario may use (36500 days = 3153600000000 ms) or past SimTime's range.
        case $((RANDOM % 8)) in 0) t=3153600000000 ;; 1) t=3153600000001 ;; 2) t=9223372036854000 ;; esac
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
  6)  # random usage rows: CSV with quoted fields, CRLF or CR, hostile numbers
    {
      [ $((RANDOM % 4)) != 0 ] && echo "device,time_s,app,duration_s"
      for _ in $(seq $((RANDOM % 30))); do
        ds=("d$((RANDOM % 3))" "\"d,$((RANDOM % 3))\"" "\"a \"\"q\"\"\"" "" "\"two
lines\"")
        ts=($((RANDOM * RANDOM)) $RANDOM.5 -1 1e300 nan 9223372036854775807 "" x 0)
        as=(mail maps "\"app,x\"" "" game-0001)
        us=($((RANDOM % 600)) 0 -5 1e308 .inf "" 9223372036854775807)
        echo "${ds[$((RANDOM % ${#ds[@]}))]},${ts[$((RANDOM % ${#ts[@]}))]},${as[$((RANDOM % ${#as[@]}))]},${us[$((RANDOM % ${#us[@]}))]}"
      done
    } | case $((RANDOM % 3)) in 0) sed 's/$/\r/';; 1) tr '\n' '\r';; *) cat;; esac > u.csv
    run run --usage u.csv --quiet --policy lru --ram 2GB --out o.csv; check $? "usage $(head -c 300 u.csv | tr '\n\r' '|~')"
    ;;
  esac
done
echo "fuzz: $cases cases in $seconds s (seed $seed), $failures failure(s)"
[ "$failures" -eq 0 ]
