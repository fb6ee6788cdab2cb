#!/usr/bin/env bash
# Parameter sweeps from the shell: runs every combination of the values given for
# each knob as its own `jetsim run` process, in parallel (GNU parallel when installed,
# else xargs -P), writes one CSV per cell and a combined CSV.
#
# Usage:
#   scripts/sweep.sh --out DIR [--workload FILE] [--ram 2GB,3GB,4GB] [--policy lru,oracle|all]
#                    [--set KEY=V1,V2,...]... [--jobs N] [--jetsim PATH] [--print-cells]
#                    [-- EXTRA jetsim run OPTIONS]
#
#   --ram, --policy   comma-separated values; each value is its own cell. Left out: the
#                     workload's own (run.ram_mb / run.policies) inside every cell.
#   --set KEY=V1,V2   a workload key and its values (repeatable; one axis per key).
#                     Commas inside [..] or {..} do not split: --set 'user.dwell_s={lognormal: {median: 30, sigma: 1}},60'
#   --jobs N          cells at once (default: the number of cores); each cell runs on 1 thread
#   --jetsim PATH     the jetsim binary (default: this repo's, built in release first)
#   --print-cells     print one line of shell-quoted jetsim run options per cell (for
#                     scripts/slurm/submit.sh --cells FILE) and exit
#   after --          options added to every cell (e.g. --devices 2000 --seed 7)
#
# DIR gets: plan.txt (the cells, one per line: ID<TAB>options), cells/ID.csv (one
# summary per cell), cells/ID.log (its stderr), and combined.csv (every cell's rows
# under one header; the `overrides` column says which --set values made each row).
#
# Resuming: a cell whose cells/ID.csv exists is complete (jetsim renames it into place
# only when done) and is skipped; an interrupted cell left no CSV and is run again.
# So stopping a sweep (Ctrl-C) and starting it again with the same arguments loses
# nothing and repeats nothing. Starting it with different arguments in the same DIR
# is refused.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)

die() { echo "sweep: $*" >&2; exit 2; }

# Internal: run one cell (called through parallel/xargs).
if [ "${1:-}" = "--run-cell" ]; then
  dir=$2 id=$3 jetsim=$4
  mapfile -t args < "$dir/cells/$id.args"
  if "$jetsim" run "${args[@]}" --threads 1 --quiet --out "$dir/cells/$id.csv" 2> "$dir/cells/$id.log"; then
    echo "sweep: done $id" >&2
  else
    status=$?
    echo "sweep: FAILED $id (exit $status): $(tail -n 3 "$dir/cells/$id.log")" >&2
    exit 1
  fi
  exit 0
fi

out='' workload='' rams='' policies='' jobs='' jetsim='' print_cells=0
set_keys=() set_values=() extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    --workload) workload=${2:?--workload needs a file}; shift 2 ;;
    --ram) rams=${2:?--ram needs sizes}; shift 2 ;;
    --policy) policies=${2:?--policy needs names}; shift 2 ;;
    --set)
      kv=${2:?--set needs KEY=V1,V2,...}
      [[ "$kv" == *=* ]] || die "--set $kv: expected KEY=V1,V2,..."
      set_keys+=("${kv%%=*}"); set_values+=("${kv#*=}"); shift 2 ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
    --jetsim) jetsim=${2:?--jetsim needs a path}; shift 2 ;;
    --print-cells) print_cells=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[ -n "$out" ] || [ "$print_cells" = 1 ] || die "--out DIR is required"
[ -z "$jobs" ] || [[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs: expected a whole number >= 1, got '$jobs'"
jobs=${jobs:-$(nproc 2>/dev/null || echo 2)}

# Splits a value list at top-level commas (not inside [] or {}).
split_values() {
  local s=$1 depth=0 cur='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case "$c" in
      '['|'{') depth=$((depth + 1)); cur+=$c ;;
      ']'|'}') depth=$((depth - 1)); cur+=$c ;;
      ',') if [ $depth -eq 0 ]; then printf '%s\n' "$cur"; cur=''; else cur+=$c; fi ;;
      *) cur+=$c ;;
    esac
  done
  printf '%s\n' "$cur"
}

# The axes: each a list of option groups (one per value), as lines "flag<US>value".
US=$'\x1f'
axes=()
add_axis() {  # flag, values-text
  local lines='' v
  while IFS= read -r v; do
    [ -n "$v" ] || die "$1: an empty value in '$2'"
    lines+="$1$US$v"$'\n'
  done < <(split_values "$2")
  axes+=("$lines")
}
[ -z "$rams" ] || add_axis --ram "$rams"
[ -z "$policies" ] || add_axis --policy "$policies"
for i in "${!set_keys[@]}"; do
  key=${set_keys[$i]}
  lines=''
  while IFS= read -r v; do lines+="--set$US$key=$v"$'\n'; done < <(split_values "${set_values[$i]}")
  axes+=("$lines")
done

# The cross product, as lines of "flag<US>value<US>flag<US>value...". With no axes
# there is one cell: the workload's own policies and RAM sizes.
combos=''
first=1
for axis in "${axes[@]}"; do
  if [ "$first" = 1 ]; then combos=$axis; first=0; continue; fi
  next=''
  while IFS= read -r prefix; do
    [ -n "$prefix" ] || continue
    while IFS= read -r item; do
      [ -n "$item" ] || continue
      next+="$prefix$US$item"$'\n'
    done <<< "$axis"
  done <<< "$combos"
  combos=$next
done
[ -n "$combos" ] || combos=$'\n'

# A readable, file-safe id per cell.
cell_id() {
  local fields=$1 id='' IFS=$US
  read -r -a parts <<< "$fields"
  for ((k = 0; k + 1 < ${#parts[@]}; k += 2)); do
    local flag=${parts[k]#--} val=${parts[k+1]}
    [ "$flag" = set ] && flag=''
    id+="${id:+_}${flag:+$flag=}$val"
  done
  id=${id:-all}
  printf '%s' "$id" | tr -c 'A-Za-z0-9._=+-' '-'
}

plan=''
ids=()
declare -A seen_ids=()
while IFS= read -r fields; do
  [ -n "$fields" ] || [ ${#axes[@]} -eq 0 ] || continue
  id=$(cell_id "$fields")
  if [ -n "${seen_ids[$id]:-}" ]; then id="$id-$(( ${#ids[@]} + 1 ))"; fi
  seen_ids[$id]=1
  ids+=("$id")
  parts=()
  [ -z "$fields" ] || IFS=$US read -r -a parts <<< "$fields"
  args=()
  [ -z "$workload" ] || args+=(--workload "$workload")
  args+=("${parts[@]}" "${extra[@]}")
  line=$(printf '%q ' "${args[@]}")
  plan+="$id"$'\t'"${line% }"$'\n'
done <<< "${combos%$'\n'}"

if [ "$print_cells" = 1 ]; then
  printf '%s' "$plan" | cut -f2-
  exit 0
fi

if [ -z "$jetsim" ]; then
  # The repo's own binary, brought up to date (a no-op when it is).
  echo "sweep: building jetsim (release) ..." >&2
  (cd "$repo" && swift build -c release --product jetsim >&2) || die "the build failed"
  jetsim="$repo/.build/release/jetsim"
fi
[ -x "$jetsim" ] || die "--jetsim $jetsim: not an executable"
mkdir -p "$out/cells"
if [ -f "$out/plan.txt" ] && [ "$(cat "$out/plan.txt")" != "${plan%$'\n'}" ]; then
  die "$out holds a different sweep (see $out/plan.txt); use another --out, or remove it"
fi
printf '%s' "$plan" > "$out/plan.txt"
# Left over from a killed run: temporary outputs of cells that did not finish.
find "$out/cells" -name '.*.tmp-*' -delete

todo=()
while IFS=$'\t' read -r id line; do
  [ -n "$id" ] || continue
  if [ -f "$out/cells/$id.csv" ]; then continue; fi
  # One argument per line, as the cell runner reads them.
  eval "cell_args=($line)"
  printf '%s\n' "${cell_args[@]}" > "$out/cells/$id.args"
  todo+=("$id")
done < "$out/plan.txt"
total=${#ids[@]}
echo "sweep: $total cells, $(( total - ${#todo[@]} )) already done, ${#todo[@]} to run, $jobs at a time" >&2

status=0
if [ ${#todo[@]} -gt 0 ]; then
  if command -v parallel >/dev/null 2>&1; then
    printf '%s\n' "${todo[@]}" | parallel --will-cite --halt never -j "$jobs" "$0" --run-cell "$out" {} "$jetsim" || status=$?
  else
    printf '%s\0' "${todo[@]}" | xargs -0 -P "$jobs" -I{} "$0" --run-cell "$out" {} "$jetsim" || status=$?
  fi
fi

missing=()
for id in "${ids[@]}"; do [ -f "$out/cells/$id.csv" ] || missing+=("$id"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "sweep: ${#missing[@]} cell(s) did not complete: ${missing[*]}; see $out/cells/<id>.log, then run the same command again" >&2
  exit 1
fi

# The combined CSV: one header (all must agree), every cell's rows in plan order.
tmp="$out/.combined.csv.tmp-$$"
trap 'rm -f "$tmp"' EXIT
header=$(head -n 1 "$out/cells/${ids[0]}.csv")
printf '%s\n' "$header" > "$tmp"
for id in "${ids[@]}"; do
  h=$(head -n 1 "$out/cells/$id.csv")
  [ "$h" = "$header" ] || { echo "sweep: $out/cells/$id.csv has a different header" >&2; exit 1; }
  tail -n +2 "$out/cells/$id.csv" >> "$tmp"
done
mv "$tmp" "$out/combined.csv"
trap - EXIT
echo "sweep: wrote $out/combined.csv ($(( $(wc -l < "$out/combined.csv") - 1 )) rows)" >&2
exit "$status"
