#!/usr/bin/env bash
# Re-measures the figures README.md and docs/model.md quote from the shipped workloads,
# as markdown, so that they can be updated together after a change to the model:
#   - the headline table of README.md (`jetsim run --format table`);
#   - docs/model.md, "What makes jetsam-bands and lru differ": cold ratios at 2, 3 and 4 GB, as
#     shipped, with the freezer off and with XNU's bands off; the paired difference at
#     each RAM as shipped, with the freezer off and with whole-app thaws
#     (thaw_touch_share=1); the counts the prose cites (reaper kills, system launches,
#     thaws, warnings);
#   - docs/model.md, "What android-lmk and lru do on android.yaml": four runs and the paired figures.
# Seed 1, 500 devices x 7 days (the workloads' own settings). About 10 runs of the
# default fleet: a few minutes on 2 idle cores.
#   scripts/readme-figures.sh [JETSIM [RUN-ARGS...]]
# JETSIM defaults to the release build (built if needed); RUN-ARGS go to every run
# (e.g. `--devices 20 --duration 1d` for a quick check of the script itself; not
# --ram or --policy: the tables read the 2, 3 and 4 GB rows of the policies they
# name, and an absent row stops the script).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ge 1 ] && [ "$1" != - ]; then J=$1; else
  swift build -c release --product jetsim --no-color-diagnostics >/dev/null
  J=$(swift build -c release --show-bin-path --no-color-diagnostics)/jetsim
fi
[ $# -ge 1 ] && shift
run() { "$J" run "$@" ${EXTRA[@]+"${EXTRA[@]}"}; }
EXTRA=("$@")
T=$(mktemp -d "${TMPDIR:-/tmp}/jetsim-figures.XXXXXX"); trap 'rm -rf "$T"' EXIT

# col FILE POLICY RAM COLUMN...: the named columns of the row for POLICY at RAM (MB).
col() {
  local f=$1 p=$2 r=$3; shift 3
  awk -F, -v p="$p" -v r="$r" -v want="$*" '
    NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; n = split(want, w, " "); next }
    $2 == p && $3 == r { s = ""; for (k = 1; k <= n; k++) s = s (k > 1 ? " " : "") $(idx[w[k]]); print s }' "$f"
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f +- %.2f %%", 100 * a, 100 * b }'; }

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo; echo '## Headline (`jetsim run --format table`)'; echo
run --format table --quiet

echo; echo '## jetsam-bands vs lru, default workload'; echo
set_all() { echo "--set device_classes.iphone-11.$1"; }
run --policy jetsam-bands,lru --baseline lru --quiet --out "$T/shipped.csv"
# shellcheck disable=SC2046
run --policy jetsam-bands,lru --baseline lru --quiet $(set_all freezer=false) --out "$T/nofreeze.csv"
# shellcheck disable=SC2046
run --policy jetsam-bands,lru --quiet $(set_all xnu_bands=false) --out "$T/nobands.csv"
# shellcheck disable=SC2046
run --policy jetsam-bands,lru --baseline lru --quiet $(set_all thaw_touch_share=1) --out "$T/wholethaw.csv"
echo '| RAM | jetsam-bands | lru | freezer off: jetsam-bands | lru | `xnu_bands: false`: jetsam-bands | lru |'
echo '|---|---|---|---|---|---|---|'
for r in 2048 3072 4096; do
  row="| $((r / 1024)) GB"
  for f in shipped nofreeze nobands; do for p in jetsam-bands lru; do
    read -r c ci < <(col "$T/$f.csv" "$p" "$r" relaunch_cold_ratio relaunch_cold_ratio_ci95)
    row="$row | $(pct "$c" "$ci")"
  done; done
  echo "$row |"
done
echo
echo "paired (--baseline lru), jetsam-bands minus lru: cold ratio delta and 95 % half-width, points:"
echo '| RAM | as shipped | freezer off | whole-app thaws (`thaw_touch_share=1`) |'
echo '|---|---|---|---|'
for r in 2048 3072 4096; do
  row="| $((r / 1024)) GB"
  for f in shipped nofreeze wholethaw; do
    row="$row | $(col "$T/$f.csv" jetsam-bands "$r" delta_relaunch_cold_ratio delta_relaunch_cold_ratio_ci95 \
      | awk '{ printf "%.2f +- %.2f", 100 * $1, 100 * $2 }')"
  done
  echo "$row |"
done
echo "counts at 2 GB (policy: kills kills_reaper thawed_relaunches system_launches system_wakes memory_warnings freezer_demotions refreezes compressor_peak_kb/device):"
for p in jetsam-bands lru; do
  echo "  $p: $(col "$T/shipped.csv" "$p" 2048 kills kills_reaper thawed_relaunches system_launches system_wakes memory_warnings freezer_demotions refreezes compressor_peak_kb devices)"
done

echo; echo '## android-lmk vs lru, Workloads/android.yaml'; echo
A=Workloads/android.yaml
classes=(pixel-4 pixel-8 android-go)
sets() { local s=(); for c in "${classes[@]}"; do for kv in "$@"; do s+=(--set "device_classes.$c.$kv"); done; done; echo "${s[@]}"; }
run --workload $A --policy android-lmk,lru --baseline lru --quiet --out "$T/a-shipped.csv"
# shellcheck disable=SC2046
run --workload $A --policy android-lmk,lru --quiet $(sets android_zram=false android_zram_writeback=false) --out "$T/a-nozram.csv"
# shellcheck disable=SC2046
run --workload $A --policy android-lmk,lru --quiet $(sets android_lmkd_psi=false) --out "$T/a-minfree.csv"
# shellcheck disable=SC2046
run --workload $A --policy android-lmk,lru --quiet $(sets android_max_cached_processes=8) --out "$T/a-cap8.csv"
echo '| run | android-lmk | lru | kills (lmk) | psi partial / complete / thrashing / low swap / minfree / cap | swap-ins |'
echo '|---|---|---|---|---|---|---|'
for f in a-shipped a-nozram a-minfree a-cap8; do
  ram=$(awk -F, 'NR == 2 { print $3 }' "$T/$f.csv")
  read -r c1 ci1 < <(col "$T/$f.csv" android-lmk "$ram" relaunch_cold_ratio relaunch_cold_ratio_ci95)
  read -r c2 ci2 < <(col "$T/$f.csv" lru "$ram" relaunch_cold_ratio relaunch_cold_ratio_ci95)
  read -r k pp pc th ls mf cap si < <(col "$T/$f.csv" android-lmk "$ram" kills kills_psi_partial kills_psi_complete kills_thrashing kills_low_swap kills_minfree kills_cached_cap swap_ins)
  echo "| $f | $(pct "$c1" "$ci1") | $(pct "$c2" "$ci2") | $k | $pp / $pc / $th / $ls / $mf / $cap | $si |"
done
ram=$(awk -F, 'NR == 2 { print $3 }' "$T/a-shipped.csv")
echo
echo "paired (--baseline lru), android-lmk: cold ratio (points), mean relaunch (ms), lost edits per device-day:"
col "$T/a-shipped.csv" android-lmk "$ram" delta_relaunch_cold_ratio delta_relaunch_cold_ratio_ci95 \
  delta_relaunch_mean_ms delta_relaunch_mean_ms_ci95 delta_data_loss_per_device_day delta_data_loss_per_device_day_ci95 \
  | awk '{ printf "  %.2f +- %.2f points; %.0f +- %.0f ms; %.2f +- %.2f\n", 100 * $1, 100 * $2, $3, $4, $5, $6 }'
echo; echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
