#!/usr/bin/env bash
# Integration test of the Slurm tooling on a local single-node cluster (CI runs it).
#
#   scripts/slurm/test-slurm.sh [--jetsim PATH] [--shards N] [--stop-cluster]
#
# 1. scripts/slurm/local-cluster.sh start (installs slurm-wlm and munge if missing; root)
# 2. submit.sh --shards N --wait: the merged CSV equals the unsharded run, byte for byte
# 3. a shard that fails (a wrapper around jetsim): submit.sh --wait fails, no merged CSV
# 4. submit.sh --sweep --wait (2 points): combined.csv equals a local `jetsim sweep`
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
jetsim=$here/../../.build/release/jetsim shards=4 stop=0
while [ $# -gt 0 ]; do
  case $1 in
    --jetsim) jetsim=${2:?}; shift 2 ;;
    --shards) shards=${2:?}; shift 2 ;;
    --stop-cluster) stop=1; shift ;;
    *) echo "test-slurm: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$jetsim" ] || { echo "test-slurm: no jetsim at $jetsim" >&2; exit 2; }
out=$(mktemp -d /tmp/jetsim-slurm-test.XXXXXX)
fail() { echo "test-slurm: FAIL: $*" >&2; exit 1; }
cleanup() {
  local rc=$?
  [ "$stop" = 0 ] || "$here/local-cluster.sh" stop || true
  if [ $rc -eq 0 ]; then rm -rf "$out"; echo "test-slurm: PASS"; else echo "test-slurm: results kept in $out" >&2; fi
}
trap cleanup EXIT
args=(--devices 40 --duration 1d --policy lru,largest-first --ram 2GB)

echo "== 1. local cluster"
"$here/local-cluster.sh" start

echo "== 2. $shards-shard run on Slurm == the unsharded run"
"$here/submit.sh" --shards "$shards" --outdir "$out/run" --jetsim "$jetsim" --wait -- "${args[@]}" >/dev/null \
  || fail "the sharded run failed (see $out/run/logs)"
"$jetsim" run "${args[@]}" --quiet --out "$out/unsharded.csv"
cmp "$out/run/merged.csv" "$out/unsharded.csv" || fail "merged.csv differs from the unsharded run"

echo "== 3. a failing shard fails the submission and writes no merged CSV"
cat > "$out/failing-jetsim" <<WRAP
#!/usr/bin/env bash
case " \$* " in *" --shard 2/"*) echo "injected failure (test-slurm.sh)" >&2; exit 9 ;; esac
exec $(printf '%q' "$jetsim") "\$@"
WRAP
chmod +x "$out/failing-jetsim"
if "$here/submit.sh" --shards 3 --outdir "$out/failing" --jetsim "$out/failing-jetsim" --wait -- "${args[@]}" >/dev/null 2>&1; then
  fail "submit.sh --wait succeeded although shard 2 failed"
fi
[ ! -e "$out/failing/merged.csv" ] || fail "merged.csv was written although shard 2 failed"

echo "== 4. a 2-point sweep on Slurm == the same sweep run locally"
sweep=("${args[@]}" --set user.sessions_per_day=20,40)
"$here/submit.sh" --sweep --outdir "$out/sweep" --jetsim "$jetsim" --wait -- "${sweep[@]}" >/dev/null \
  || fail "the sweep failed (see $out/sweep/logs)"
"$jetsim" sweep "${sweep[@]}" --quiet --out "$out/local-sweep"
cmp "$out/sweep/combined.csv" "$out/local-sweep/combined.csv" || fail "the Slurm sweep differs from the local one"
