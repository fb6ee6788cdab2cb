#!/usr/bin/env bash
# Fuzz the jetsim binary with hostile input: for every workload key (enumerated from
# the schema table by `jetsim validate --keys`), the ends of its range, random values
# inside it, values just outside it and hostile text; every run flag; random scenario
# lines; random usage rows (quoted fields, CRLF, lone CR); tampered shard states; and
# issue 34's classes: piped inputs and special outputs, sweeps edited, truncated or run
# twice between runs, ids by bytes (CRLF, Unicode normalisation, bytes that are not
# UTF-8), names at NAME_MAX, line breaks in what a shard state records, descriptor
# limits, a large app count (costs that grow faster than the input: 20 s a case);
# hostile .jtrace files (cut short, bytes changed with the checksum made right or not,
# counts claiming more than the file holds; an untouched one must replay to its CSV's
# bytes); and the model at the corners of its assumptions: three plausible-range ends at once
# (from `jetsim sensitivity --list`), a random seed, every policy (a trap found there
# by `sensitivity --interactions` is what this class is for); and issue 46's classes:
# the same --set options in either order, idle-band daemons against the cell's --ram,
# hostile external-policy commands and names (a NUL, a '.', a process that dies, hangs
# or checks what it inherited, SIGTERM mid-run: no child may outlive jetsim), sweeps
# resumed after their app map or policy script changed, a failing output beside good
# ones (none may be replaced), usage-stats' --as against headers of both kinds, import
# that keeps nothing, replays naming many apps, hostile workload names in sensitivity;
# and issue 47's: hostile named apps, --compare-set texts, variant shards tampered with.
# Fails on a trap (exit 132/134/139), a hang (time limit), a leftover
# temporary file, an exit code other than 0, 1 or 2, or a broken property (a piped
# input giving other bytes than the file, a sweep that combines what it should
# refuse, a CSV jetsim wrote that it cannot read back, a device replaced by a file,
# options that give another answer in another order, an output replaced by a failed
# run, a child process left running, a descriptor a child inherited).
#
#   scripts/fuzz.sh [--jetsim PATH] [--seconds S] [--seed N]
#
# CI runs it for 60 s; run it longer by hand (--seconds 1800).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
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
broken() {  # a property that does not hold: $*
  cases=$((cases + 1)); failures=$((failures + 1))
  echo "FAIL: $*" >&2
}
run() {  # run jetsim with a time limit
  timeout -s KILL "$limit" "$jetsim" "$@" >/dev/null 2>"$work/err"
}
start=$(date +%s)
base=(run --devices 3 --quiet --policy lru --ram 2GB)
while [ $(( $(date +%s) - start )) -lt "$seconds" ]; do
  case $((RANDOM % 23)) in
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
  7)  # pipes and special files: a piped input gives the file's bytes; a special output is written into, never replaced
    [ -s u7.csv ] || printf 'device,time_s,app,duration_s\nd1,0,mail,30\nd1,100,maps,20\nd2,0,game,40\nd2,90,mail,5\nd3,5,maps,9\n' > u7.csv
    sh=(); [ $((RANDOM % 2)) = 0 ] && sh=(--shard "$((RANDOM % 2 + 1))/2")
    "$jetsim" run --usage u7.csv --duration 1d --quiet --policy lru --ram 2GB "${sh[@]}" --out f7.csv 2>/dev/null
    cat u7.csv | timeout -s KILL "$limit" "$jetsim" run --usage /dev/stdin --duration 1d --quiet --policy lru --ram 2GB "${sh[@]}" --out p7.csv 2>"$work/err"; rc=$?
    check $rc "piped usage ${sh[*]}"
    [ "$rc" = 0 ] && ! cmp -s f7.csv p7.csv && broken "piped usage ${sh[*]}: other bytes than the file"
    rm -f ff7 l7; mkfifo ff7; ln -s /proc/self/fd/1 l7
    case $((RANDOM % 4)) in
      0) timeout 20 cat ff7 > /dev/null & timeout -s KILL "$limit" "$jetsim" "${base[@]}" --out ff7 2>"$work/err"; rc=$?; wait; t=ff7;;
      1) timeout -s KILL "$limit" "$jetsim" "${base[@]}" --out l7 > g7.csv 2>"$work/err"; rc=$?; t=l7;;
      2) timeout -s KILL "$limit" "$jetsim" "${base[@]}" --out /dev/fd/1 --perf >(cat > /dev/null) > g7.csv 2>"$work/err"; rc=$?; t=/dev/fd/1;;
      3) timeout -s KILL "$limit" "$jetsim" "${base[@]}" --out /dev/null --per-device /dev/null 2>"$work/err"; rc=$?; t=/dev/null;;
    esac
    check $rc "special output $t"
    { [ -p ff7 ] && [ -L l7 ]; } || broken "special output $t: the FIFO or link was replaced"
    ls ff7.provenance.json l7.provenance.json 2>/dev/null | grep -q . && broken "special output $t: a sidecar beside it"
    rm -f ff7 l7 g7.csv
    ;;
  8)  # sweeps edited between runs: a resume or --combine either refuses or gives the fresh sweep's bytes
    sw=(sweep --devices 2 --duration 8h --policy lru --ram 2GB --quiet --set user.sessions_per_day=10,20)
    [ -s ref8/combined.csv ] || "$jetsim" "${sw[@]}" --out ref8 2>/dev/null
    rm -rf s8; "$jetsim" "${sw[@]}" --out s8 2>/dev/null
    p=$(ls s8/points/*.csv | head -$((RANDOM % 2 + 1)) | tail -1)
    case $((RANDOM % 6)) in
      0) truncate -s -$((RANDOM % 40 + 1)) "$p"; what="truncated $p";;
      1) printf 'x,y\n' >> "$p"; what="appended to $p";;
      2) cp "$p" s8/points/1-user.sessions_per_day=10.csv 2>/dev/null; cp "$p.provenance.json" s8/points/1-user.sessions_per_day=10.csv.provenance.json 2>/dev/null; what="a point copied over another";;
      3) touch "s8/points/.$(basename "$p").tmp-1-1"; rm -f "$p"; what="a dead writer's temporary file";;
      4) rm -f "$p.provenance.json"; what="a sidecar removed";;
      5) "$jetsim" "${sw[@]}" --out s8 2>/dev/null & what="a second sweep at once";;
    esac
    flag=(); [ $((RANDOM % 2)) = 0 ] && flag=(--combine)
    timeout -s KILL "$limit" "$jetsim" "${sw[@]}" --out s8 "${flag[@]}" 2>"$work/err"; rc=$?; wait
    check $rc "sweep, $what ${flag[*]}"
    [ "$rc" = 0 ] && ! cmp -s s8/combined.csv ref8/combined.csv && broken "sweep, $what ${flag[*]}: exit 0 with another combined.csv"
    ;;
  9)  # ids by bytes: what jetsim writes from a hostile trace, --usage reads back
    ids=('"a\r\nb"' "caf$(printf '\xc3\xa9')" "cafe$(printf '\xcc\x81')" "$(printf 'x\xff')" '"q,""x"""' '" sp "' "d$((RANDOM % 3))")
    {
      echo "device,time_s,app,duration_s"
      for d in 0 1 2; do id=${ids[$((RANDOM % ${#ids[@]}))]}; for k in 1 2; do printf '%s,%d,%s,%d\n' "$id" $((k * 100)) "${ids[$((RANDOM % ${#ids[@]}))]}" $((RANDOM % 50)); done; done
    } | printf '%b' "$(cat)" > u9.csv
    timeout -s KILL "$limit" "$jetsim" trace --usage u9.csv --format usage --policy lru --ram 2GB --out t9.csv 2>"$work/err"; rc=$?
    check $rc "trace --format usage of $(tr '\n\r' '|~' < u9.csv)"
    if [ "$rc" = 0 ]; then run run --usage t9.csv --policy lru --ram 2GB --quiet --out /dev/null; rc=$?
      check $rc "replay of trace --format usage"; [ "$rc" = 0 ] || broken "trace --format usage wrote a CSV --usage refuses: $(tr '\n\r' '|~' < t9.csv)"; fi
    { echo "package,event_type,timestamp,device"; for k in 1 2 3 4; do printf '%s,%s,%d,%s\n' "${ids[$((RANDOM % ${#ids[@]}))]}" $((k % 2 + 1)) $((k * 1000)) "${ids[$((RANDOM % ${#ids[@]}))]}"; done; } | printf '%b' "$(cat)" > e9.csv
    timeout -s KILL "$limit" "$jetsim" import --format android-usagestats e9.csv --out i9.csv 2>"$work/err"; rc=$?
    check $rc "import of $(tr '\n\r' '|~' < e9.csv)"
    if [ "$rc" = 0 ] && [ "$(wc -l < i9.csv)" -gt 1 ]; then run run --usage i9.csv --policy lru --ram 2GB --quiet --out /dev/null; rc=$?
      [ "$rc" = 0 ] || broken "import wrote a CSV --usage refuses: $(tr '\n\r' '|~' < i9.csv)"; fi
    ;;
  10)  # names at the limits: refused before the work (2) or written (0), never failed after it
    n=$((RANDOM % 40 + 225)); name=$(head -c "$n" /dev/zero | tr '\0' "$( [ $((RANDOM % 2)) = 0 ] && echo a || echo b)")
    [ $((RANDOM % 3)) = 0 ] && name="$(printf '\xc3\xa9%.0s' $(seq $((n / 2))))"
    timeout -s KILL "$limit" "$jetsim" "${base[@]}" --out "$name" 2>"$work/err"; rc=$?
    check $rc "--out of ${#name} characters"
    [ "$rc" = 1 ] && broken "--out of $(printf %s "$name" | wc -c) bytes failed after the work: $(cat "$work/err")"
    rm -f -- "$name" "$name.provenance.json" 2>/dev/null
    ;;
  11)  # what a shard state records: a run that exits 0 merges
    vals=("20" $'20\n' $'2\r0' "[lru]" $'# x\n20')
    v=${vals[$((RANDOM % ${#vals[@]}))]}
    rm -f sh11*.state
    run "${base[@]}" --set "user.sessions_per_day=$v" --shard 1/2 --out sh11a.csv; rc=$?; check $rc "--shard with --set value $(printf %q "$v")"
    run "${base[@]}" --set "user.sessions_per_day=$v" --shard 2/2 --out sh11b.csv; rc2=$?
    if [ "$rc" = 0 ] && [ "$rc2" = 0 ]; then run merge sh11a.csv.state sh11b.csv.state --out m11.csv; rc=$?
      [ "$rc" = 0 ] || broken "shards with --set $(printf %q "$v") exited 0 and do not merge: $(cat "$work/err")"; fi
    ;;
  12)  # few descriptors: exit 0 or 1, never a trap or a temporary file left
    n=$((RANDOM % 40 + 4))
    ( ulimit -n "$n"; timeout -s KILL "$limit" "$jetsim" "${base[@]}" --out a12.csv --per-device b12.csv --perf c12.csv --by class --by-out d12.csv --timeseries e12.csv >/dev/null 2>"$work/err" ); rc=$?
    check $rc "ulimit -n $n with five outputs"
    rm -f ./*12.csv ./*12.csv.provenance.json
    ;;
  13)  # a large app count: each of these took minutes when a cost grew with the apps
       # (issue 34); each takes about a second now, so 20 s is a hang
    n=$((RANDOM % 30000 + 10000))
    case $((RANDOM % 3)) in
      0) { echo "device ram=4GB"; seq 0 $((n - 1)) | sed 's/^/app A/'; seq 0 $((n - 1)) | awk '{ print $1 "s launch A" $1 }'; echo "$((n + 100))s end"; } > g13.scenario
         what="a scenario of $n apps";;
      1) { echo "device ram=8GB inactive-limit-pct=1 reaper=false freezer=false dock=0"
           seq 0 $((n - 1)) | awk '{ print "app A" $1 " footprint=300MB background-footprint=300MB suspended-footprint=300MB" }'
           seq 0 4999 | awk '{ print $1 "s launch A" ($1 % 25) }'; echo "5100s end"; } > g13.scenario
         what="high-water kills among $n apps";;
      2) { echo "device,time_s,app,duration_s"; seq 0 $((n - 1)) | awk '{ print "d" $1 "," ($1 % 1000) ",app" ($1 % 7) ",30" }'; } > g13.csv
         what="usage-stats --days 1e6 of $n devices";;
    esac
    if [ -f g13.csv ]; then timeout -s KILL 20 "$jetsim" usage-stats g13.csv --days 1e6 --out o13.csv >/dev/null 2>"$work/err"; rc=$?
    else timeout -s KILL 20 "$jetsim" scenario g13.scenario --out o13.csv >/dev/null 2>"$work/err"; rc=$?; fi
    check $rc "$what (20 s)"
    rm -f g13.scenario g13.csv o13.csv o13.csv.provenance.json
    ;;
  14)  # three plausible-range ends at once, a random seed, every policy: exit 0
    wl=$( [ $((RANDOM % 2)) = 0 ] && echo default || echo android )
    ram=(); [ "$wl" = default ] && ram=(--ram 2GB)
    if [ ! -s "ends-$wl.txt" ]; then
      "$jetsim" sensitivity --baseline lru --workload "$repo/Workloads/$wl.yaml" "${ram[@]}" --list --out "sl-$wl" 2>/dev/null \
        | awk -F'\t' '$3 != ""' > "ends-$wl.txt"; rm -rf "sl-$wl"
    fi
    n=$(wc -l < "ends-$wl.txt")
    if [ "$n" -gt 0 ]; then
      args=(); picked=""
      for _ in 1 2 3; do l=$((RANDOM % n + 1)); line=$(sed -n "${l}p" "ends-$wl.txt"); picked="$picked $(cut -f2 <<< "$line")"
        while IFS= read -r a; do [ -n "$a" ] && args+=(--set "$a"); done < <(cut -f3 <<< "$line" | sed 's/^--set //; s/ --set /\n/g'); done
      run run --workload "$repo/Workloads/$wl.yaml" "${ram[@]}" --devices 20 --duration 7d --seed "$RANDOM" --policy all --quiet "${args[@]}" --out o14.csv
      check $? "$wl at$picked"
    fi
    ;;
  15)  # the same two --set options in both orders: the same answer (issue 46)
    i=$((RANDOM % ${#keys[@]})); j=$((RANDOM % ${#keys[@]}))
    a="${keys[$i]}=$(value_for "$i")"; b="${keys[$j]}=$(value_for "$j")"
    [ $((RANDOM % 3)) = 0 ] && { a="device_classes.0.critical_available_pct=$((RANDOM % 30))"; b="device_classes.0.kill_target_available_pct=$((RANDOM % 30))"; }
    timeout -s KILL "$limit" "$jetsim" validate --set "$a" --set "$b" > v1.txt 2>"$work/err"; rc1=$?
    timeout -s KILL "$limit" "$jetsim" validate --set "$b" --set "$a" > v2.txt 2>"$work/err"; rc2=$?
    check $rc1 "validate --set $a --set $b"; check $rc2 "validate --set $b --set $a"
    ka=${a%%=*}; kb=${b%%=*}
    # Two settings of one key, or of a section and a key in it: the later wins, by design.
    if [ "$ka" != "$kb" ] && [ "${ka#"$kb".}" = "$ka" ] && [ "${kb#"$ka".}" = "$kb" ]; then
      [ "$rc1" != "$rc2" ] && broken "--set $a and --set $b: exit $rc1 in one order, $rc2 in the other"
      [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && ! cmp -s v1.txt v2.txt && broken "--set $a and --set $b: another workload in the other order"
    fi
    ;;
  16)  # idle-band daemons, reserve and the cell's RAM: refused before the work or run, never a trap
    mb=$((RANDOM % 2500)); n=$((RANDOM % 3 == 0 ? RANDOM * 40 : RANDOM % 2000 + 1)); rate=$((RANDOM % 4 == 0 ? RANDOM % 3600 : RANDOM % 7))
    ram=$(printf '%s\n' 512MB 1GB 1536MB 2GB 3GB | sed -n "$((RANDOM % 5 + 1))p")
    res=(); [ $((RANDOM % 2)) = 0 ] && res=(--set "device_classes.0.os_reserve_mb=$((RANDOM % 1600))")
    cmd=run; [ $((RANDOM % 3)) = 0 ] && cmd=trace
    sets=(--set "device_classes.0.idle_daemons_mb=$mb" --set "device_classes.0.idle_daemon_count=$n" --set "device_classes.0.idle_daemon_relaunches_per_hour=$rate" "${res[@]}")
    if [ $cmd = run ]; then run run --devices 2 --duration 1d --quiet --policy lru --ram "$ram" "${sets[@]}" --out o16.csv; rc=$?
    else run trace --duration 1d --policy lru --ram "$ram" "${sets[@]}" --out t16.csv; rc=$?; fi
    check $rc "$cmd --ram $ram ${sets[*]}"
    [ "$rc" = 1 ] && broken "$cmd --ram $ram ${sets[*]}: exit 1 (a refusal is exit 2 before the work): $(head -c 300 "$work/err")"
    ;;
  17)  # external policies: hostile words and names, processes that die, hang or inspect what
       # they inherited, SIGTERM mid-run; no child outlives jetsim, none inherits a descriptor
    [ -s fds17.py ] || printf '%s\n' 'import os, sys' 'extra = [f for f in os.listdir("/proc/self/fd") if int(f) > 2]' \
      'open(sys.argv[1], "w").write(str(os.getpid()))' 'sys.exit(3) if len(extra) > 1 else None' \
      'exec(open(sys.argv[2]).read())' > fds17.py
    cmds=("[python3, fds17.py, pid17, $repo/Workloads/policies/lru.py]" "[python3, \"$repo/Workloads/policies/lru.py\\0x\"]" "[sh, -c, 'read a; echo ok; exit 0']"
          "[sh, -c, 'read a; echo ok; echo \$\$ > pid17; sleep 30']" "[/nonexistent/x]" "[sh, -c, 'read a; echo ok; while read l; do [ \"\$l\" = victim ] && echo 999999; done']")
    names=(p p p.q "p q" p-1 "")
    c=${cmds[$((RANDOM % ${#cmds[@]}))]}; nm=${names[$((RANDOM % ${#names[@]}))]}
    rm -f pid17
    timeout -s KILL "$limit" "$jetsim" run --devices 2 --duration 1d --quiet --policy "external:$nm" --ram 1GB --threads 2 \
      --set "policies.external.$nm.command=$c" --set "policies.external.$nm.timeout_s=2" --out o17.csv >/dev/null 2>"$work/err" & jp=$!
    if [ $((RANDOM % 2)) = 0 ]; then sleep 0.$((RANDOM % 9 + 1)); kill -TERM $jp 2>/dev/null; fi
    wait $jp; rc=$?
    [ "$rc" = 143 ] && rc=0   # ended by SIGTERM, as asked
    check $rc "external policy $nm: $c"
    if [ -s pid17 ]; then p=$(cat pid17); sleep 0.2
      kill -0 "$p" 2>/dev/null && { broken "external policy $nm ($c): its process $p outlived jetsim"; kill -KILL "$p" 2>/dev/null; }; fi
    grep -q "status 3" "$work/err" && broken "external policy $nm ($c): the process inherited descriptors beyond 0, 1 and 2"
    ;;
  18)  # sweeps resumed after their app map or their policy's script changed: refused, or the fresh sweep's bytes
    [ -s u7.csv ] || printf 'device,time_s,app,duration_s\nd1,0,mail,30\nd1,100,maps,20\nd2,0,game,40\nd2,90,mail,5\nd3,5,maps,9\n' > u7.csv
    printf 'app,archetype\nmail,mail\nmaps,maps\n' > m18.csv; cp "$repo/Workloads/policies/lru.py" p18.py
    sw=(sweep --usage u7.csv --app-map m18.csv --duration 1d --policy lru,external:p --ram 2GB --quiet
        --set "policies.external.p.command=[python3, p18.py]" --set device_classes.0.launch_jitter_sigma=0,0.3)
    rm -rf s18; timeout -s KILL "$limit" "$jetsim" "${sw[@]}" --out s18 2>/dev/null
    case $((RANDOM % 3)) in
      0) printf 'app,archetype\nmail,game\nmaps,maps\n' > m18.csv; what="the app map changed";;
      1) echo "# edited" >> p18.py; what="the policy's script changed";;
      2) rm -f s18/points/1-*.csv; what="a point removed (nothing changed)";;
    esac
    timeout -s KILL "$limit" "$jetsim" "${sw[@]}" --out s18 2>"$work/err"; rc=$?
    check $rc "sweep resumed, $what"
    rm -rf f18; timeout -s KILL "$limit" "$jetsim" "${sw[@]}" --out f18 2>/dev/null
    [ "$rc" = 0 ] && ! cmp -s s18/combined.csv f18/combined.csv && broken "sweep resumed, $what: exit 0 with points of both versions"
    ;;
  19)  # one output fails: none of the run's outputs is replaced (the others kept the run before's)
    "$jetsim" "${base[@]}" --seed 1 --out k19.csv --per-device kd19.csv 2>/dev/null
    cp k19.csv k19.ref; cp kd19.csv kd19.ref
    bad=(/dev/full /nonexistent/x.csv "$work" ro/x.csv); mkdir -p ro; chmod 555 ro
    b=${bad[$((RANDOM % ${#bad[@]}))]}; opt=$(printf '%s\n' --perf --timeseries --per-device | sed -n "$((RANDOM % 3 + 1))p")
    [ "$opt" = --per-device ] && other=() || other=(--per-device kd19.csv)
    run "${base[@]}" --seed 2 --out k19.csv "${other[@]}" "$opt" "$b"; rc=$?
    check $rc "$opt $b beside --out"
    [ "$rc" != 0 ] && { cmp -s k19.csv k19.ref && cmp -s kd19.csv kd19.ref || broken "$opt $b failed (exit $rc) and replaced an output of the run before"; }
    ;;
  20)  # formats: usage-stats' --as against headers of both kinds, import keeping nothing,
       # a replay naming many apps, a hostile workload name through sensitivity
    case $((RANDOM % 4)) in
      0) cols=(device time_s app duration_s time_ms event); h=""; for c in "${cols[@]}"; do [ $((RANDOM % 4)) != 0 ] && h="$h${h:+,}$c"; done
         { echo "$h"; for k in 1 2 3; do echo "$h" | awk -F, -v k=$k '{ for (i = 1; i <= NF; i++) printf "%s%s", (i > 1 ? "," : ""), ($i ~ /time|dur/ ? k * 10 : "x" k % 2); print "" }'; done; } > us20.csv
         as=(); case $((RANDOM % 4)) in 0) as=(--as usage);; 1) as=(--as trace);; 2) as=(--usage-time-unit ms);; esac
         run usage-stats us20.csv "${as[@]}" --format csv --out o20.csv; check $? "usage-stats ${as[*]} of header $h";;
      1) { echo "package,event_type,timestamp"; for k in $(seq $((RANDOM % 4))); do echo "com.x$k,$(printf '%s\n' SCREEN_INTERACTIVE MOVE_TO_FOREGROUND KEYGUARD_HIDDEN | sed -n "$((RANDOM % 3 + 1))p"),$((k * 1000))"; done; } > e20.csv
         rm -f i20.csv; run import --format android-usagestats e20.csv --out i20.csv; rc=$?; check $rc "import of $(tr '\n' '|' < e20.csv)"
         [ "$rc" = 0 ] && { run run --usage i20.csv --policy lru --ram 2GB --quiet --out /dev/null || broken "import wrote a CSV --usage refuses: $(tr '\n' '|' < i20.csv)"; }
         [ "$rc" = 2 ] && [ -e i20.csv ] && broken "import refused its input and wrote i20.csv";;
      2) n=$((9990 + RANDOM % 20)); { echo "device,time_s,app,duration_s"; seq 1 $n | awk '{ print "d," $1 ",a" $1 ",1" }'; } > r20.csv
         wl=(); [ $((RANDOM % 2)) = 0 ] && wl=(--workload "$repo/Workloads/lru-reference.yaml")
         run run --usage r20.csv --policy lru --ram 2GB --quiet "${wl[@]}" --out o20.csv; check $? "replay of $n apps ${wl[*]}";;
      3) names=('"two\nlines"' '"a,\"b\""' "'x y'" '"\t"'); printf 'name: %s\nfleet:\n  devices: 1\n  duration_days: %s\n' "${names[$((RANDOM % ${#names[@]}))]}" "$( [ $((RANDOM % 2)) = 0 ] && echo 0.02 || echo 0.35)" > n20.yaml
         rm -rf sn20; run sensitivity --workload n20.yaml --baseline lru --policy lru,fifo --ram 2GB --quiet --out sn20; check $? "sensitivity of a workload named $(head -1 n20.yaml)";;
    esac
    ;;
  21)  # a hostile .jtrace: cut short, bytes changed (the checksum made right or not),
       # counts claiming more than the file holds; exit 2 naming the file, never a
       # trap. An untouched one replays to its CSV's bytes.
    if [ ! -s j21.jtrace ]; then
      { echo "device,time_s,app,duration_s"
        for d in 0 1 2; do for i in $(seq 0 $((RANDOM % 40 + 1))); do echo "d$d,$((i * 70 + RANDOM % 50)),a$((RANDOM % 6)),$((RANDOM % 90))"; done; done; } > j21.csv
      "$jetsim" import --format usage j21.csv --out j21.jtrace 2>/dev/null
      "$jetsim" run --usage j21.csv --policy lru,oracle --ram 2GB --quiet --out c21.csv 2>/dev/null
      run run --usage j21.jtrace --policy lru,oracle --ram 2GB --quiet --out k21.csv; check $? "replay of a .jtrace"
      cmp -s c21.csv k21.csv || broken "a .jtrace replays to other bytes than its CSV (j21.csv)"
    fi
    size=$(wc -c < j21.jtrace)
    cp j21.jtrace h21.jtrace
    case $((RANDOM % 4)) in
      0) n=$((RANDOM % size)); head -c "$n" j21.jtrace > h21.jtrace; what="cut to $n of $size bytes";;
      1) at=$((RANDOM % size)); printf "\\x$(printf %02x $((RANDOM % 256)))" | dd of=h21.jtrace bs=1 seek="$at" conv=notrunc 2>/dev/null; what="byte $at changed";;
      2) at=$(( (RANDOM % 4) * 8 + 24 )); printf '\xff\xff\xff\x7f' | dd of=h21.jtrace bs=1 seek=$((at + RANDOM % 5)) conv=notrunc 2>/dev/null; what="header count at $at raised";;
      3) at=$((64 + RANDOM % (size - 64))); printf "\\x$(printf %02x $((RANDOM % 256)))" | dd of=h21.jtrace bs=1 seek="$at" conv=notrunc 2>/dev/null
         what="byte $at changed, checksum made right"
         # The checksum made right (python3's own XXH64 is not in its standard library: xxhsum).
         if command -v xxhsum >/dev/null; then
           h=$(tail -c +65 h21.jtrace | xxhsum -H1 | cut -c1-16)
           le=$(echo "$h" | sed 's/\(..\)/\1 /g' | awk '{ for (i = NF; i >= 1; i--) printf "\\x%s", $i }')
           printf "$le" | dd of=h21.jtrace bs=1 seek=56 conv=notrunc 2>/dev/null
         fi;;
    esac
    run run --usage h21.jtrace --policy lru,oracle --ram 2GB --quiet --out o21.csv; rc=$?
    check $rc ".jtrace $what"
    [ "$rc" = 2 ] && ! grep -q "h21.jtrace" "$work/err" && broken ".jtrace $what: the error does not name the file: $(cat "$work/err")"
    rm -f o21.csv o21.csv.provenance.json
    ;;
  22)  # issue 47: hostile named apps (keys at odd values, names like drawn apps', two of one
       # name), --by app, --compare-set with hostile text, and shards of variants merged
       # with a compare line changed: exit 0 or 2, never a trap
    vals=(0 1 -1 1e300 nan '""' '[]' '{}' 1000001 0.5 '{lognormal: {median: 1e12, sigma: 20}}')
    keys22=(install_share user_rank active_mb peak_share cold_launch_ms unsaved_edits_per_min save_strategy background_share)
    names22=(photo camera-0001 rest '"a b"' '"x,y"')
    k=${keys22[$((RANDOM % ${#keys22[@]}))]} v=${vals[$((RANDOM % ${#vals[@]}))]} nm=${names22[$((RANDOM % ${#names22[@]}))]}
    printf 'catalog:\n  named_apps:\n    - name: %s\n      archetype: %s\n      %s: %s\n' "$nm" "$( [ $((RANDOM % 4)) = 0 ] && echo nosuch || echo camera)" "$k" "$v" > na22.yaml
    [ $((RANDOM % 4)) = 0 ] && printf '    - name: %s\n      archetype: game\n' "$nm" >> na22.yaml
    case $((RANDOM % 3)) in
      0) run run --workload na22.yaml --devices 2 --duration 1d --policy lru --ram 2GB --quiet --by app --by-out o22.csv --out p22.csv
         check $? "named app $nm $k=$v with --by app";;
      1) c1=${vals[$((RANDOM % ${#vals[@]}))]} c2=${vals[$((RANDOM % ${#vals[@]}))]}
         run run --workload na22.yaml --devices 2 --duration 1d --policy lru --ram 2GB --quiet --out p22.csv \
           --compare-set "catalog.named_apps.$nm.$k=$c1" --compare-set "catalog.named_apps.$nm.$k=$c2"
         check $? "--compare-set catalog.named_apps.$nm.$k=$c1 / =$c2";;
      2) if [ ! -s v22a.csv.state ]; then
           for i in 1 2; do "$jetsim" run --devices 4 --duration 1d --policy lru --ram 2GB --quiet --shard $i/2 --out v22$( [ $i = 1 ] && echo a || echo b ).csv \
             --compare-set user.sessions_per_day=10 --compare-set user.sessions_per_day=30 2>/dev/null; done
         fi
         sed "s/^compare: user.sessions_per_day=30\$/compare: ${v}/" v22a.csv.state > w22.state
         run merge w22.state v22b.csv.state --out m22.csv; rc=$?; check $rc "merge of a variant shard whose compare line reads '$v'"
         [ "$rc" = 0 ] && broken "merge accepted a variant shard whose compare line was changed to '$v'";;
    esac
    rm -f o22.csv p22.csv m22.csv ./*22.csv.provenance.json
    ;;
  esac
done
echo "fuzz: $cases cases in $seconds s (seed $seed), $failures failure(s)"
[ "$failures" -eq 0 ]
