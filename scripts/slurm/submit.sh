#!/usr/bin/env bash
# Submits a jetsim run to Slurm as a job array plus one dependent job that merges the
# array's results, and optionally waits for it.
#
# Sharded run (one array task per shard, then `jetsim merge`):
#   scripts/slurm/submit.sh --shards N --outdir DIR [options] -- [jetsim run options...]
#     task I runs:  jetsim run [run options] --shard I/N --out DIR/shard-I.csv
#     final job:    jetsim merge DIR/shard-1.csv.state ... DIR/shard-N.csv.state --out DIR/merged.csv
#
# Sweep (one array task per cell, then concatenation):
#   scripts/slurm/submit.sh --cells FILE --outdir DIR [options] [-- common run options...]
#     FILE has one cell per line: the jetsim run options for that cell, quoted as in a
#     shell ('single', "double", backslash; no variables or globs). Blank lines and lines
#     starting with # are skipped; cell I is the I-th remaining line (saved as line I of
#     DIR/cells.txt). Options after -- are put before every cell's options.
#     task I runs:  jetsim run [common options] [cell I options] --out DIR/cell-I.csv
#     final job:    concatenates DIR/cell-*.csv into DIR/combined.csv (header once; all
#                   headers must be identical, else the job fails)
#
# Options:
#   --jetsim PATH        jetsim executable (default: <repo>/.build/release/jetsim). On a
#                        real cluster it must be visible at this path on the compute nodes.
#   --sbatch "OPTS"      extra sbatch options for both jobs, e.g. "--partition=long
#                        --time=02:00:00 --mem=4G --account=proj". Quoted like a shell
#                        line. May be given more than once.
#   --throttle K         at most K array tasks run at once (--array=1-N%K)
#   --job-name NAME      job name prefix (default jetsim)
#   --wait               wait until the final job has finished; exit 0 only if every task
#                        and the final job succeeded
#   --wait-timeout SECS  give up waiting after SECS (default 86400); the jobs keep running
#   --poll SECS          seconds between 'scontrol show job' polls (default 5)
#   --status             with only --outdir: report on an earlier submission in DIR
#                        (add --wait to wait for it); no new jobs are submitted
#
# DIR gets: array.sbatch and merge.sbatch / combine.sbatch (the generated job scripts;
# `sbatch DIR/array.sbatch` re-runs the array), jobs.env and jobs.txt (job ids and the
# exact sbatch commands), logs/ (Slurm stdout+stderr per task and for the final job),
# per task shard-I.csv (+ .state) or cell-I.csv with a shard-I.ok / shard-I.failed
# (cell-I.ok / cell-I.failed) marker, and finally merged.csv + merge.ok (or
# combined.csv + combine.ok), or merge.failed / combine.failed.
#
# Exit status: 0 submitted (or, with --wait/--status, all done and fine); 1 a task or the
# final job failed, or submission failed; 2 usage error; 3 timed out waiting / still running.

# The job scripts are generated with single-quoted echos (their $ is meant literally):
# shellcheck disable=SC2016,SC2094,SC2153
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd -P)

die()   { echo "submit: ERROR: $*" >&2; exit 1; }
usage() { echo "submit: $*" >&2; echo "usage: $0 --shards N|--cells FILE --outdir DIR [--jetsim PATH] [--sbatch \"OPTS\"] [--throttle K] [--wait] -- [jetsim run options...]" >&2; exit 2; }
say()   { echo "submit: $*" >&2; }

shards='' cells='' outdir='' jetsim=$REPO/.build/release/jetsim job_name=jetsim throttle=''
wait=0 status_only=0 wait_timeout=86400 poll=5
sbatch_extra=() run_args=()

# Splits a shell-quoted string into words (quotes and backslashes honoured, nothing
# expanded) into the global array WORDS. Uses xargs' quote parsing, so no eval.
split_words() {
  local tmp w rc=0
  WORDS=()
  tmp=$(mktemp)
  printf '%s\n' "$1" | xargs -r printf '%s\0' > "$tmp" 2>"$tmp.err" || rc=$?
  if [ $rc -ne 0 ]; then
    echo "cannot parse: $1 ($(cat "$tmp.err"))" >&2
    rm -f "$tmp" "$tmp.err"
    return 1
  fi
  while IFS= read -r -d '' w; do WORDS+=("$w"); done < "$tmp"
  rm -f "$tmp" "$tmp.err"
}

orig_args=("$@")
while [ $# -gt 0 ]; do
  case $1 in
    --shards) [ $# -ge 2 ] || usage "--shards needs a value"; shards=$2; shift 2 ;;
    --shards=*) shards=${1#*=}; shift ;;
    --cells) [ $# -ge 2 ] || usage "--cells needs a value"; cells=$2; shift 2 ;;
    --cells=*) cells=${1#*=}; shift ;;
    --outdir) [ $# -ge 2 ] || usage "--outdir needs a value"; outdir=$2; shift 2 ;;
    --outdir=*) outdir=${1#*=}; shift ;;
    --jetsim) [ $# -ge 2 ] || usage "--jetsim needs a value"; jetsim=$2; shift 2 ;;
    --jetsim=*) jetsim=${1#*=}; shift ;;
    --sbatch|--sbatch=*)
      if [ "$1" = --sbatch ]; then [ $# -ge 2 ] || usage "--sbatch needs a value"; s=$2; shift 2; else s=${1#*=}; shift; fi
      split_words "$s" || usage "bad --sbatch value"
      sbatch_extra+=(${WORDS[@]+"${WORDS[@]}"}) ;;
    --throttle) [ $# -ge 2 ] || usage "--throttle needs a value"; throttle=$2; shift 2 ;;
    --job-name) [ $# -ge 2 ] || usage "--job-name needs a value"; job_name=$2; shift 2 ;;
    --wait) wait=1; shift ;;
    --wait-timeout) [ $# -ge 2 ] || usage "--wait-timeout needs a value"; wait_timeout=$2; shift 2 ;;
    --poll) [ $# -ge 2 ] || usage "--poll needs a value"; poll=$2; shift 2 ;;
    --status) status_only=1; shift ;;
    -h|--help) sed -n '2,/^$/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; run_args=("$@"); break ;;
    *) usage "unknown option '$1' (jetsim run options go after --)" ;;
  esac
done

[ -n "$outdir" ] || usage "--outdir is required"
[[ $wait_timeout =~ ^[0-9]+$ ]] || usage "--wait-timeout must be a number of seconds"
[[ $poll =~ ^[0-9]+([.][0-9]+)?$ ]] || usage "--poll must be a number of seconds"
[[ $job_name =~ ^[A-Za-z0-9._+-]+$ ]] || usage "--job-name may only contain letters, digits and ._+-"

# ------------------------------------------------------------------ job state helpers
# job_field ID FIELD: value of FIELD in 'scontrol show job -o ID' (first line), or
# GONE if Slurm no longer knows the job, or UNKNOWN if scontrol fails otherwise.
job_field() {
  local out
  if ! out=$(timeout 60 scontrol show job -o "$1" 2>&1); then
    case $out in *"Invalid job id"*) echo GONE ;; *) echo UNKNOWN ;; esac
    return 0
  fi
  out=$(printf '%s\n' "$out" | head -n1)
  [[ " $out " =~ [[:space:]]$2=([^[:space:]]*) ]] && echo "${BASH_REMATCH[1]}" || echo UNKNOWN
}

is_active_state() {
  case $1 in
    PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|REQUEUE_FED|REQUEUE_HOLD|RESIZING|SIGNALING|STAGE_OUT|UNKNOWN) return 0 ;;
    *) return 1 ;;
  esac
}

# Per-task Slurm states of an array job as "TASK STATE EXITCODE" lines (best effort).
array_task_states() {
  timeout 60 scontrol show job -o "$1" 2>/dev/null | while IFS= read -r line; do
    local t s e
    if [[ $line =~ ArrayTaskId=([^[:space:]]+) ]]; then t=${BASH_REMATCH[1]}; else continue; fi
    [[ $line =~ JobState=([^[:space:]]+) ]] && s=${BASH_REMATCH[1]} || s='?'
    [[ $line =~ ExitCode=([^[:space:]]+) ]] && e=${BASH_REMATCH[1]} || e='?'
    echo "$t $s $e"
  done
}

count_markers() {  # prefix n -> "ok failed"
  local ok=0 failed=0 i
  for ((i = 1; i <= $2; i++)); do
    [ -e "$outdir/$1-$i.ok" ] && ok=$((ok + 1))
    [ -e "$outdir/$1-$i.failed" ] && failed=$((failed + 1))
  done
  echo "$ok $failed"
}

# Reports on the submission recorded in $outdir/jobs.env; waits if $wait=1.
# Returns 0 all fine, 1 failed, 3 still running (timeout or no --wait).
report() {
  # shellcheck disable=SC1090,SC1091
  . "$outdir/jobs.env"   # KIND TASK_PREFIX FINAL_NAME N ARRAY_JOB FINAL_JOB FINAL_OUT
  local t0=$SECONDS state reason last="" ok failed line
  while :; do
    state=$(job_field "$FINAL_JOB" JobState)
    reason=$(job_field "$FINAL_JOB" Reason)
    read -r ok failed < <(count_markers "$TASK_PREFIX" "$N")
    line="$TASK_PREFIX tasks: $ok/$N ok, $failed failed; $FINAL_NAME job $FINAL_JOB: $state"
    [ "$state" = PENDING ] && line+=" ($reason)"
    if [ "$line" != "$last" ]; then say "[$((SECONDS - t0))s] $line"; last=$line; fi
    if [ "$state" = PENDING ] && [ "$reason" = DependencyNeverSatisfied ]; then
      say "a task failed, so the $FINAL_NAME job $FINAL_JOB can never run; cancelling it"
      scancel "$FINAL_JOB" 2>/dev/null || true
      state=CANCELLED
    fi
    is_active_state "$state" || break
    if [ "$wait" != 1 ]; then return 3; fi
    if (( SECONDS - t0 >= wait_timeout )); then
      say "timed out after ${wait_timeout} s waiting for job $FINAL_JOB (the jobs keep running; check later with: $0 --status --outdir $(printf '%q' "$outdir"))"
      return 3
    fi
    sleep "$poll"
  done

  # The final job has ended (or Slurm forgot it). On a shared file system the markers
  # may show up a little later than the job state: give them up to 30 s.
  local i marker_wait=$SECONDS
  while [ ! -e "$outdir/$FINAL_NAME.ok" ] && [ ! -e "$outdir/$FINAL_NAME.failed" ] && [ "$state" = COMPLETED ] && (( SECONDS - marker_wait < 30 )); do
    sleep 1
  done

  local exit_code bad=()
  exit_code=$(job_field "$FINAL_JOB" ExitCode)
  declare -A slurm_state=()
  local t s e
  while read -r t s e; do slurm_state[$t]="$s exit=$e"; done < <(array_task_states "$ARRAY_JOB")
  for ((i = 1; i <= N; i++)); do
    if [ -e "$outdir/$TASK_PREFIX-$i.ok" ]; then continue; fi
    bad+=("$i")
    if [ -e "$outdir/$TASK_PREFIX-$i.failed" ]; then
      say "$TASK_PREFIX $i FAILED: $(head -c 200 "$outdir/$TASK_PREFIX-$i.failed")  [slurm: ${slurm_state[$i]:-unknown}]"
    else
      say "$TASK_PREFIX $i did not finish (no marker)  [slurm: ${slurm_state[$i]:-unknown}]"
    fi
    local log="$outdir/logs/$TASK_PREFIX-$i.$ARRAY_JOB.out"
    if [ -s "$log" ]; then
      echo "----- last 15 lines of $log -----" >&2; tail -n 15 "$log" >&2; echo "-----" >&2
    fi
  done
  if [ -e "$outdir/$FINAL_NAME.ok" ] && [ ${#bad[@]} -eq 0 ] &&
     { [ "$state" = COMPLETED ] || [ "$state" = GONE ]; } && { [ "$exit_code" = 0:0 ] || [ "$exit_code" = GONE ]; }; then
    say "OK: $N $TASK_PREFIX tasks and the $FINAL_NAME job succeeded: $FINAL_OUT"
    return 0
  fi
  say "$FINAL_NAME job $FINAL_JOB: state $state, exit code $exit_code"
  local flog="$outdir/logs/$FINAL_NAME.$FINAL_JOB.out"
  if [ -s "$flog" ]; then
    echo "----- last 15 lines of $flog -----" >&2; tail -n 15 "$flog" >&2; echo "-----" >&2
  fi
  [ ${#bad[@]} -gt 0 ] && say "FAILED $TASK_PREFIX tasks: ${bad[*]}"
  say "FAILED: see $outdir/logs/"
  return 1
}

# ------------------------------------------------------------------ --status / attach
if [ "$status_only" = 1 ] || { [ "$wait" = 1 ] && [ -z "$shards" ] && [ -z "$cells" ] && [ ${#run_args[@]} -eq 0 ]; }; then
  if [ -n "$shards" ] || [ -n "$cells" ]; then usage "--status takes only --outdir (and --wait)"; fi
  outdir=$(cd "$outdir" 2>/dev/null && pwd -P) || die "no such directory: $outdir"
  [ -f "$outdir/jobs.env" ] || die "$outdir/jobs.env not found: nothing was submitted from there"
  rc=0; report || rc=$?
  [ $rc = 3 ] && [ "$wait" != 1 ] && say "still running"
  exit $rc
fi

# ------------------------------------------------------------------ checks
if [ -n "$shards" ] && [ -n "$cells" ]; then usage "give --shards or --cells, not both"; fi
[ -n "$shards" ] || [ -n "$cells" ] || usage "--shards N or --cells FILE is required"
if [ -n "$shards" ]; then
  [[ $shards =~ ^[1-9][0-9]*$ ]] || usage "--shards must be a positive integer"
fi
[ -z "$throttle" ] || [[ $throttle =~ ^[1-9][0-9]*$ ]] || usage "--throttle must be a positive integer"
for a in ${run_args[@]+"${run_args[@]}"}; do
  case $a in --out|--out=*|--shard|--shard=*) usage "do not pass $a; submit.sh sets --out (and --shard) itself" ;; esac
done
for c in sbatch scontrol scancel; do command -v "$c" >/dev/null || die "'$c' not found: is this a Slurm submit host?"; done

case $jetsim in */*) ;; *) jetsim=$(command -v "$jetsim") || die "jetsim not found on PATH: $jetsim" ;; esac
case $jetsim in /*) ;; *) jetsim=$(cd "$(dirname "$jetsim")" 2>/dev/null && pwd -P)/$(basename "$jetsim") || die "jetsim not found: $jetsim" ;; esac
[ -x "$jetsim" ] || die "jetsim executable not found or not executable: $jetsim (build it with 'swift build -c release' or pass --jetsim PATH)"

mkdir -p "$outdir/logs"
outdir=$(cd "$outdir" && pwd -P)
case $outdir in *%*|*\"*|*$'\n'*) die "--outdir must not contain %, \" or a newline (Slurm file name patterns)";; esac
submit_cwd=$(pwd -P)

# Refuse to reuse a directory whose previous jobs are still queued or running.
if [ -f "$outdir/jobs.env" ]; then
  prev_array=$(sed -n 's/^ARRAY_JOB=//p' "$outdir/jobs.env")
  prev_final=$(sed -n 's/^FINAL_JOB=//p' "$outdir/jobs.env")
  for j in $prev_array $prev_final; do
    st=$(job_field "$j" JobState)
    if [ "$st" != GONE ] && is_active_state "$st" && [ "$st" != UNKNOWN ]; then
      die "$outdir is in use by job $j ($st) from an earlier submission; wait for it, scancel it, or use another --outdir"
    fi
  done
fi

if [ -n "$shards" ]; then
  kind=shards prefix=shard final=merge n=$shards final_out=$outdir/merged.csv
else
  kind=cells prefix=cell final=combine final_out=$outdir/combined.csv
  [ -f "$cells" ] || die "cells file not found: $cells"
  cell_lines=()
  while IFS= read -r l || [ -n "$l" ]; do
    l=${l%$'\r'}
    [[ $l =~ ^[[:space:]]*(#|$) ]] && continue
    cell_lines+=("$l")
  done < "$cells"
  n=${#cell_lines[@]}
  [ "$n" -gt 0 ] || die "no cells in $cells"
fi

# Clear results of an earlier submission into the same directory so that nothing stale
# is mistaken for this run's output.
rm -f "$outdir"/shard-*.csv "$outdir"/shard-*.csv.state "$outdir"/shard-*.ok "$outdir"/shard-*.failed \
      "$outdir"/cell-*.csv "$outdir"/cell-*.csv.state "$outdir"/cell-*.ok "$outdir"/cell-*.failed \
      "$outdir"/merged.csv "$outdir"/merge.ok "$outdir"/merge.failed \
      "$outdir"/combined.csv "$outdir"/combine.ok "$outdir"/combine.failed "$outdir"/jobs.env

q() { printf '%q' "$1"; }
qa() { local a out=""; for a in "$@"; do out+="$(printf '%q' "$a") "; done; printf '%s' "${out% }"; }

array_spec="1-$n"; [ -n "$throttle" ] && array_spec+="%$throttle"
array_script=$outdir/array.sbatch
final_script=$outdir/$final.sbatch

# ------------------------------------------------------------------ array job script
{
  echo '#!/bin/bash'
  echo "#SBATCH --job-name=$job_name-$kind"
  echo "#SBATCH --array=$array_spec"
  echo "#SBATCH --output=\"$outdir/logs/$prefix-%a.%A.out\""
  echo "# Generated by scripts/slurm/submit.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)."
  echo "# Array task I runs jetsim for $prefix I of $n. Re-run: sbatch [options] $(q "$array_script")"
  echo 'set -uo pipefail'
  echo "jetsim=$(q "$jetsim")"
  echo "outdir=$(q "$outdir")"
  echo "n=$n"
  echo "common=($(qa ${run_args[@]+"${run_args[@]}"}))"
  echo 'i=${SLURM_ARRAY_TASK_ID:?run this with sbatch as an array job}'
  echo "cd $(q "$submit_cwd") || { echo \"cannot cd to $(q "$submit_cwd") on \$(hostname)\" | tee \"\$outdir/$prefix-\$i.failed\" >&2; exit 1; }"
  if [ "$kind" = shards ]; then
    echo 'cell=()'
    echo 'out=$outdir/shard-$i.csv'
    echo 'extra=(--shard "$i/$n" --out "$out")'
    echo 'expect=("$out" "$out.state")'
  else
    echo 'case $i in'
    for ((c = 1; c <= n; c++)); do
      split_words "${cell_lines[$((c - 1))]}" || die "cannot parse cell $c in $cells"
      for a in ${WORDS[@]+"${WORDS[@]}"}; do
        case $a in --out|--out=*|--shard|--shard=*) die "cell $c in $cells contains $a; submit.sh sets --out itself" ;; esac
      done
      echo "  $c) cell=($(qa ${WORDS[@]+"${WORDS[@]}"})) ;;"
    done
    echo '  *) echo "no cell $i (1..$n)" >&2; exit 2 ;;'
    echo 'esac'
    echo 'out=$outdir/cell-$i.csv'
    echo 'extra=(--out "$out")'
    echo 'expect=("$out")'
  fi
  cat <<EOF
rm -f "\$outdir/$prefix-\$i.ok" "\$outdir/$prefix-\$i.failed"
echo "jetsim $prefix \$i/\$n on \$(hostname) (job \${SLURM_JOB_ID:-?}), started \$(date)"
# \${a[@]+"\${a[@]}"}: empty arrays are fine under set -u in old bash too
cmd=("\$jetsim" run \${common[@]+"\${common[@]}"} \${cell[@]+"\${cell[@]}"} "\${extra[@]}")
printf '%q ' "\${cmd[@]}"; echo
"\${cmd[@]}"
rc=\$?
msg=
if [ \$rc -ne 0 ]; then
  msg="jetsim exited with status \$rc"
else
  for f in "\${expect[@]}"; do [ -f "\$f" ] || msg="jetsim exited 0 but did not write \$f"; done
fi
echo "finished \$(date): \${msg:-ok}"
if [ -n "\$msg" ]; then
  echo "\$msg (job \${SLURM_JOB_ID:-?} on \$(hostname))" > "\$outdir/$prefix-\$i.failed"
  [ \$rc -ne 0 ] || rc=1
  exit \$rc
fi
touch "\$outdir/$prefix-\$i.ok"
EOF
} > "$array_script"

# ------------------------------------------------------------------ final job script
{
  echo '#!/bin/bash'
  echo "#SBATCH --job-name=$job_name-$final"
  echo "#SBATCH --output=\"$outdir/logs/$final.%j.out\""
  echo "# Generated by scripts/slurm/submit.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)."
  echo "# Runs after every task of $(q "$array_script") succeeded. Re-run: sbatch $(q "$final_script")"
  echo 'set -uo pipefail'
  echo "jetsim=$(q "$jetsim")"
  echo "outdir=$(q "$outdir")"
  echo "n=$n"
  cat <<EOF
rm -f "\$outdir/$final.ok" "\$outdir/$final.failed"
fail() { echo "$final FAILED: \$*" >&2; echo "\$*" > "\$outdir/$final.failed"; exit 1; }
echo "$final of \$n $prefix results on \$(hostname) (job \${SLURM_JOB_ID:-?}), started \$(date)"
missing=()
for ((i = 1; i <= n; i++)); do [ -e "\$outdir/$prefix-\$i.ok" ] || missing+=("\$i"); done
[ \${#missing[@]} -eq 0 ] || fail "$prefix tasks without a .ok marker: \${missing[*]}"
EOF
  if [ "$kind" = shards ]; then
    cat <<'EOF'
states=()
for ((i = 1; i <= n; i++)); do states+=("$outdir/shard-$i.csv.state"); done
cmd=("$jetsim" merge "${states[@]}" --out "$outdir/merged.csv")
printf '%q ' "${cmd[@]}"; echo
"${cmd[@]}" || fail "jetsim merge exited with status $?"
[ -f "$outdir/merged.csv" ] || fail "jetsim merge exited 0 but did not write $outdir/merged.csv"
EOF
  else
    cat <<'EOF'
header=
for ((i = 1; i <= n; i++)); do
  f=$outdir/cell-$i.csv
  [ -s "$f" ] || fail "$f is missing or empty"
  IFS= read -r h < "$f" || true
  h=${h%$'\r'}
  if [ $i -eq 1 ]; then header=$h
  elif [ "$h" != "$header" ]; then fail "header of $f differs from cell-1.csv: '$h' vs '$header'"
  fi
done
files=()
for ((i = 1; i <= n; i++)); do files+=("$outdir/cell-$i.csv"); done
# Header once, then every file's rows (awk also repairs a missing final newline).
awk 'FNR == 1 && NR != 1 { next } { sub(/\r$/, ""); print }' "${files[@]}" > "$outdir/combined.csv.tmp" \
  || fail "concatenation failed"
mv -f "$outdir/combined.csv.tmp" "$outdir/combined.csv" || fail "cannot write $outdir/combined.csv"
echo "combined.csv: $(( $(wc -l < "$outdir/combined.csv") - 1 )) rows from $n cells"
EOF
  fi
  echo "touch \"\$outdir/$final.ok\""
  echo 'echo "finished $(date): ok"'
} > "$final_script"
chmod +x "$array_script" "$final_script"

if [ "$kind" = cells ]; then printf '%s\n' "${cell_lines[@]}" > "$outdir/cells.txt"; fi

# ------------------------------------------------------------------ submit
array_cmd=(sbatch --parsable ${sbatch_extra[@]+"${sbatch_extra[@]}"} "$array_script")
out=$("${array_cmd[@]}" 2>&1) || die "sbatch of the array job failed: $out"
array_job=${out##*$'\n'}; array_job=${array_job%%;*}
[[ $array_job =~ ^[0-9]+$ ]] || die "unexpected sbatch output: $out"

final_cmd=(sbatch --parsable ${sbatch_extra[@]+"${sbatch_extra[@]}"} --dependency="afterok:$array_job" --kill-on-invalid-dep=yes "$final_script")
if ! out=$("${final_cmd[@]}" 2>&1); then
  scancel "$array_job" 2>/dev/null || true
  die "sbatch of the $final job failed (array job $array_job cancelled): $out"
fi
final_job=${out##*$'\n'}; final_job=${final_job%%;*}
[[ $final_job =~ ^[0-9]+$ ]] || { scancel "$array_job" 2>/dev/null || true; die "unexpected sbatch output: $out"; }

{
  echo "KIND=$kind"
  echo "TASK_PREFIX=$prefix"
  echo "FINAL_NAME=$final"
  echo "N=$n"
  echo "ARRAY_JOB=$array_job"
  echo "FINAL_JOB=$final_job"
  echo "FINAL_OUT=$(q "$final_out")"
} > "$outdir/jobs.env"
{
  echo "submitted $(date -u +%Y-%m-%dT%H:%M:%SZ) from $(hostname) in $submit_cwd"
  echo "command:    $(qa "$0" ${orig_args[@]+"${orig_args[@]}"})"
  echo "array job:  $array_job   ($n tasks)   $(qa "${array_cmd[@]}")"
  echo "$final job:  $final_job   $(qa "${final_cmd[@]}")"
} > "$outdir/jobs.txt"

echo "array job $array_job ($n $prefix tasks), $final job $final_job (afterok:$array_job); results in $outdir"
echo "ARRAY_JOB=$array_job"
echo "FINAL_JOB=$final_job"

if [ "$wait" = 1 ]; then
  rc=0; report || rc=$?
  exit $rc
fi
