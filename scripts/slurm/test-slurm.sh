#!/usr/bin/env bash
# Integration test of the Slurm tooling on a local single-node cluster (what CI runs).
#
# Usage: scripts/slurm/test-slurm.sh [--jetsim PATH] [--shards N] [--outdir DIR]
#                                    [--timeout SECS] [--quick] [--stop-cluster]
#                                    [-- jetsim run options...]
#
#   --jetsim PATH    jetsim executable (default <repo>/.build/release/jetsim; build it first
#                    with `swift build -c release`)
#   --shards N       number of shards (default 4)
#   --outdir DIR     where results go (default: a new /tmp/jetsim-slurm-test.XXXXXX)
#   --timeout SECS   limit for each Slurm submission / local run (default 600)
#   --quick          only the sharded-vs-unsharded check (skip the failure and sweep checks)
#   --stop-cluster   stop the local cluster at the end (default: leave it running)
#   run options      default: --devices 40 --duration 1d --policy lru,largest-first --ram 2GB
#
# Steps (any failure exits non-zero):
#   1. scripts/slurm/local-cluster.sh start (installs slurm-wlm + munge if needed; needs
#      root, or passwordless sudo when run as another user)
#   2. submit.sh --shards N --outdir DIR --wait -- OPTS   -> DIR/merged.csv
#   3. jetsim run OPTS --out DIR/unsharded.csv (locally, no Slurm)
#   4. cmp DIR/merged.csv DIR/unsharded.csv (must be byte-identical)
#   5. (not with --quick) a run whose shard 2 fails (through a wrapper around jetsim)
#      must make submit.sh --wait exit 1 and produce no merged.csv
#   6. (not with --quick) a 2-cell sweep with OPTS in both cells: DIR/sweep/combined.csv
#      must be unsharded.csv's header plus its rows twice
# Prints the elapsed time of each step and in total.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd -P)

jetsim=$REPO/.build/release/jetsim shards=4 outdir='' timeout_s=600 quick=0 stop_cluster=0
run_args=()
default_run_args=(--devices 40 --duration 1d --policy 'lru,largest-first' --ram 2GB)
have_run_args=0

die() { echo "test-slurm: FAIL: $*" >&2; exit 1; }
usage() { echo "test-slurm: $*" >&2; sed -n '3,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

while [ $# -gt 0 ]; do
  case $1 in
    --jetsim) [ $# -ge 2 ] || usage "--jetsim needs a value"; jetsim=$2; shift 2 ;;
    --shards) [ $# -ge 2 ] || usage "--shards needs a value"; shards=$2; shift 2 ;;
    --outdir) [ $# -ge 2 ] || usage "--outdir needs a value"; outdir=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || usage "--timeout needs a value"; timeout_s=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --stop-cluster) stop_cluster=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; run_args=("$@"); have_run_args=1; break ;;
    *) usage "unknown option '$1'" ;;
  esac
done
[ "$have_run_args" = 1 ] && [ ${#run_args[@]} -gt 0 ] || run_args=("${default_run_args[@]}")
[[ $shards =~ ^[1-9][0-9]*$ ]] || usage "--shards must be a positive integer"
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || usage "--timeout must be a positive integer"

case $jetsim in /*) ;; */*) jetsim=$(pwd -P)/$jetsim ;; *) jetsim=$(command -v "$jetsim" || echo "$jetsim") ;; esac
[ -x "$jetsim" ] || die "jetsim not found at $jetsim (build it with 'swift build -c release' or pass --jetsim PATH)"

if [ -z "$outdir" ]; then
  outdir=$(mktemp -d /tmp/jetsim-slurm-test.XXXXXX)
else
  mkdir -p "$outdir"
  outdir=$(cd "$outdir" && pwd -P)
fi

t_start=$SECONDS
t_step=$SECONDS
step() { echo; echo "=== test-slurm: $* ==="; t_step=$SECONDS; }
done_step() { echo "--- $1: ok ($((SECONDS - t_step)) s)"; }
# The cluster needs root; as another user use passwordless sudo (e.g. CI runners).
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi; }
cleanup() {
  local rc=$?
  if [ "$stop_cluster" = 1 ]; then as_root "$SCRIPT_DIR/local-cluster.sh" stop || true; fi
  echo
  if [ $rc -eq 0 ]; then
    echo "test-slurm: PASS in $((SECONDS - t_start)) s (results in $outdir)"
  else
    echo "test-slurm: FAILED (exit $rc) after $((SECONDS - t_start)) s (results in $outdir)" >&2
  fi
}
trap cleanup EXIT

echo "test-slurm: jetsim=$jetsim shards=$shards outdir=$outdir"
printf 'test-slurm: run options:'; printf ' %q' "${run_args[@]}"; echo

step "1. local cluster"
as_root "$SCRIPT_DIR/local-cluster.sh" start || die "local-cluster.sh start failed"
done_step "local cluster"

step "2. $shards-shard run through Slurm"
"$SCRIPT_DIR/submit.sh" --shards "$shards" --outdir "$outdir" --jetsim "$jetsim" --wait \
    --wait-timeout "$timeout_s" --poll 1 -- "${run_args[@]}" \
  || die "sharded submission failed (see $outdir/logs/)"
[ -f "$outdir/merged.csv" ] || die "$outdir/merged.csv missing"
done_step "sharded run"

step "3. unsharded run (local)"
timeout "$timeout_s" "$jetsim" run "${run_args[@]}" --out "$outdir/unsharded.csv" \
  || die "unsharded jetsim run failed or timed out"
[ -f "$outdir/unsharded.csv" ] || die "$outdir/unsharded.csv missing"
done_step "unsharded run"

step "4. merged.csv == unsharded.csv"
if ! cmp "$outdir/merged.csv" "$outdir/unsharded.csv"; then
  diff "$outdir/merged.csv" "$outdir/unsharded.csv" | head -n 20 >&2 || true
  die "merged.csv and unsharded.csv differ"
fi
echo "identical: $(wc -l < "$outdir/merged.csv") lines, $(wc -c < "$outdir/merged.csv") bytes"
done_step "byte identity"

if [ "$quick" != 1 ]; then
  step "5. a failing shard makes submit.sh --wait fail"
  fdir=$outdir/failing
  mkdir -p "$fdir"
  cat > "$fdir/jetsim-fail-shard-2" <<EOF
#!/usr/bin/env bash
# Test wrapper: shard 2 fails, everything else runs the real jetsim.
prev=
for a in "\$@"; do
  if [ "\$prev" = --shard ] && [ "\${a%%/*}" = 2 ]; then echo "injected failure in shard \$a (test-slurm.sh)" >&2; exit 9; fi
  prev=\$a
done
exec $(printf '%q' "$jetsim") "\$@"
EOF
  chmod +x "$fdir/jetsim-fail-shard-2"
  n_fail=$(( shards < 2 ? 2 : shards ))
  rc=0
  "$SCRIPT_DIR/submit.sh" --shards "$n_fail" --outdir "$fdir" --jetsim "$fdir/jetsim-fail-shard-2" --wait \
      --wait-timeout "$timeout_s" --poll 1 -- "${run_args[@]}" || rc=$?
  [ $rc -eq 1 ] || die "submit.sh --wait with a failing shard exited $rc, expected 1"
  [ -e "$fdir/shard-2.failed" ] || die "no shard-2.failed marker"
  [ ! -e "$fdir/merged.csv" ] || die "merged.csv was written although shard 2 failed"
  echo "submit.sh exited 1 as expected"
  done_step "failure detection"

  step "6. 2-cell sweep"
  sdir=$outdir/sweep
  mkdir -p "$sdir"
  line=""
  for a in "${run_args[@]}"; do line+="'${a//\'/\'\\\'\'}' "; done
  printf '%s\n%s\n' "$line" "$line" > "$sdir/cells.in"
  "$SCRIPT_DIR/submit.sh" --cells "$sdir/cells.in" --outdir "$sdir" --jetsim "$jetsim" --wait \
      --wait-timeout "$timeout_s" --poll 1 \
    || die "sweep submission failed (see $sdir/logs/)"
  awk '{ sub(/\r$/, "") } FNR == 1 && NR != 1 { next } { print }' \
      "$outdir/unsharded.csv" "$outdir/unsharded.csv" > "$sdir/expected.csv"
  cmp "$sdir/combined.csv" "$sdir/expected.csv" || die "sweep/combined.csv is not unsharded.csv's header + rows twice"
  done_step "sweep"
fi
