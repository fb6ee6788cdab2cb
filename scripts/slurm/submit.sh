#!/usr/bin/env bash
# Submits a jetsim run (one array task per shard) or sweep (one per point) to Slurm,
# and a job that depends on the whole array (afterok) and merges its results.
#
#   scripts/slurm/submit.sh --shards N --outdir DIR [--sbatch OPT]... [--jetsim PATH] [--wait] -- RUN-OPTIONS
#   scripts/slurm/submit.sh --sweep      --outdir DIR [--sbatch OPT]... [--jetsim PATH] [--wait] -- SWEEP-OPTIONS
#
# A run gives DIR/merged.csv (`jetsim merge` of DIR/shard-*.csv.state): byte-identical
# to the same run unsharded. A sweep gives DIR/combined.csv and DIR/points/ as
# `jetsim sweep --out DIR` would. --sbatch passes one option to both sbatch calls
# (e.g. --sbatch --partition=long --sbatch --time=02:00:00); --wait waits for the merge
# and exits with its status (non-zero if any task failed: the merge is then cancelled).
# Logs: DIR/logs/. The array's job script is scripts/slurm/array-task.sbatch.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# The installed jetsim (scripts/install.sh), else this checkout's release build.
jetsim=$(command -v jetsim || echo "$here/../../.build/release/jetsim") shards='' sweep=0 outdir='' wait=() extra=()
usage() { echo "submit: $*" >&2; sed -n '5,6p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --shards) shards=${2:?}; shift 2 ;;
    --sweep) sweep=1; shift ;;
    --outdir) outdir=${2:?}; shift 2 ;;
    --sbatch) extra+=("${2:?}"); shift 2 ;;
    --jetsim) jetsim=${2:?}; shift 2 ;;
    --wait) wait=(--wait); shift ;;
    --) shift; break ;;
    *) usage "unknown option '$1'" ;;
  esac
done
[ -n "$outdir" ] || usage "--outdir DIR is required"
[ "$sweep" = 1 ] || [[ $shards =~ ^[1-9][0-9]*$ ]] || usage "give --shards N (N >= 1) or --sweep"
[ -x "$jetsim" ] || usage "no jetsim at $jetsim (scripts/install.sh, or --jetsim PATH)"
jetsim=$(cd "$(dirname "$jetsim")" && pwd -P)/$(basename "$jetsim")
# A binary linked to the toolchain's Swift runtime runs only where that toolchain is,
# at the same path: said once, so a job that fails on a node for it is no surprise.
runtime=$(ldd "$jetsim" 2>/dev/null | sed -n 's/.*=> \(.*\)\/libswiftCore\.so.*/\1/p' | head -1 || true)
[ -z "$runtime" ] || echo "submit: note: $jetsim loads the Swift runtime from $runtime: every compute node needs it there (a release build on Linux carries it: scripts/install.sh --static checks)" >&2
mkdir -p "$outdir/logs"
outdir=$(cd "$outdir" && pwd -P)
printf '%s\n' "$@" > "$outdir/args"

if [ "$sweep" = 1 ]; then
  mode=sweep result=$outdir/combined.csv
  tasks=$("$jetsim" sweep "$@" --list | wc -l)       # also checks the options (exit 2)
  merge=("$jetsim" sweep "$@" --combine --quiet --out "$outdir")
else
  mode=run tasks=$shards result=$outdir/merged.csv
  merge=("$jetsim" merge)
  for i in $(seq 1 "$shards"); do merge+=("$outdir/shard-$i.csv.state"); done
  merge+=(--out "$outdir/merged.csv")
fi
rm -f "$result"   # from an earlier submission: with --wait its presence means success
array=$(sbatch --parsable --job-name=jetsim-$mode --array=1-"$tasks" --output="$outdir/logs/task-%a.log" \
  --export=ALL,JETSIM="$jetsim",JETSIM_MODE=$mode,JETSIM_OUT="$outdir",JETSIM_ARGS="$outdir/args" \
  "${extra[@]}" "$here/array-task.sbatch")
echo "submit: job array $array: $tasks task(s)" >&2
merge_cmd=$(printf '%q ' "${merge[@]}")
sbatch --parsable --job-name=jetsim-merge --dependency=afterok:"${array%%;*}" --kill-on-invalid-dep=yes \
  --output="$outdir/logs/merge.log" "${wait[@]}" "${extra[@]}" --wrap "$merge_cmd"
# sbatch --wait exits 0 for a merge that Slurm cancelled because a task failed.
if [ ${#wait[@]} -gt 0 ] && [ ! -f "$result" ]; then
  echo "submit: no $result: a task or the merge failed; see $outdir/logs/" >&2
  exit 1
fi
