#!/usr/bin/env bash
# Runs the benchmark suite (Benchmarks/, ordo-one/benchmark) in release and prints one
# summary table: benchmark, events/s, ns/event, mallocs, peak MB (medians). With
# Debian's libjemalloc installed it also runs the model benchmarks with jemalloc
# preloaded and prints the ratio to the default allocator; without it, it says so
# and goes on.
#
# Usage: scripts/bench.sh [--filter REGEX] [--quick]
#   --filter REGEX   only benchmarks whose name matches (default: all)
#   --quick          skip the stress and policy-kill benchmarks
# Raw results: .build/bench/*.md (the suite's markdown output).
# Time is reported, never gated; allocation counts are gated by .ci/run
# (JETSIM_BENCHMARKS=1 swift package benchmark thresholds check).
set -euo pipefail
cd "$(dirname "$0")/.."
# The benchmark targets and ordo-one/benchmark are in Package.swift only when asked for.
export JETSIM_BENCHMARKS=1

filter='.*' quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --filter) filter=${2:?}; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ "$quick" = 0 ] || filter='Hold_.*|Device_.*|Fleet_.*|Model_.*|Scenarios_.*'
mkdir -p .build/bench

run_suite() {  # output file, then extra env assignments
  local out=$1; shift
  env "$@" swift package benchmark --filter "$filter" --no-progress --format markdown > "$out" 2> "$out.log" \
    || { echo "bench: the suite failed; see $out.log" >&2; exit 1; }
}

# Turns the markdown into rows: name, events/s, ns/event, mallocs, peak MB (p50).
summarize() {
  awk '
  function scale(name,   s) {
    s = 1
    if (name ~ /\(K\)/) s = 1e3; else if (name ~ /\(M\)/) s = 1e6; else if (name ~ /\(G\)/) s = 1e9
    return s
  }
  function tscale(name) {  # to ns
    if (name ~ /\(ns\)/) return 1; if (name ~ /\(μs\)/ || name ~ /\(us\)/) return 1e3
    if (name ~ /\(ms\)/) return 1e6; if (name ~ /\(s\)/) return 1e9; return 1
  }
  function flush() {
    if (bench == "") return
    eps = ev; nse = ns
    if (eps == "" && thr != "") eps = thr
    if (nse == "" && eps != "" && eps > 0) nse = 1e9 / eps
    printf "%s\t%s\t%s\t%s\t%s\n", bench, (eps == "" ? "-" : sprintf("%.3g", eps)), (nse == "" ? "-" : sprintf("%.1f", nse)), (mal == "" ? "-" : mal), (mem == "" ? "-" : mem)
  }
  /^### / { flush(); bench = substr($0, 5); ev = ""; ns = ""; thr = ""; mal = ""; mem = ""; next }
  /^\|/ {
    n = split($0, c, "|"); name = c[2]; gsub(/^ +| +$/, "", name); v = c[5]; gsub(/[ ,]/, "", v)
    if (v !~ /^[0-9.]+$/) next
    if (name ~ /^events\/s/) ev = v * scale(substr(name, 9))
    else if (name ~ /^ns\/event,/) ns = v
    else if (name ~ /^ns\/event/ && ns == "") ns = v
    else if (name ~ /^Throughput/) thr = v * scale(name)
    else if (name ~ /^Malloc \(total\)/) mal = v * scale(name)
    else if (name ~ /^Memory \(resident peak\)/) mem = v * scale(name) / 1e6
    else if (name ~ /^Time \(wall clock\)/ && ev == "" && thr == "") wall = v * tscale(name)
  }
  END { flush() }' "$1"
}

echo "bench: building and running the suite (release) ..." >&2
run_suite .build/bench/default.md
{
  printf "benchmark\tevents/s\tns/event\tmallocs\tpeak MB\n"
  summarize .build/bench/default.md
} | column -t -s $'\t'

jemalloc=$(ls /usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 2>/dev/null | head -n 1 || true)
if [ -z "$jemalloc" ]; then
  echo
  echo "bench: libjemalloc is not installed (Debian: apt-get install libjemalloc2); skipping the jemalloc comparison."
  exit 0
fi
echo
echo "bench: model benchmarks again with $jemalloc preloaded ..." >&2
filter='Device_.*|Fleet_.*_allpolicies|Model_vs_hold.*'
run_suite .build/bench/jemalloc.md LD_PRELOAD="$jemalloc"
run_suite .build/bench/system.md
join -t $'\t' <(summarize .build/bench/system.md | sort) <(summarize .build/bench/jemalloc.md | sort) \
  | awk -F'\t' 'BEGIN { printf "benchmark\tevents/s (glibc)\tevents/s (jemalloc)\tjemalloc / glibc\n" }
                $2 != "-" && $6 != "-" { printf "%s\t%s\t%s\t%.2f\n", $1, $2, $6, $6 / $2 }' | column -t -s $'\t'
