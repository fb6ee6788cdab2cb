#!/usr/bin/env bash
# Runs the same hold model in jetsim's engine and in SimPy 4.1, one after the other,
# at N = 1e3, 1e4, 1e5, 1e6 pending events, and prints holds per second for each and
# the ratio.
#
# The hold model: N events pending; a hold pops the earliest and schedules one at
# now + Exp(mean 1). SimPy's version is the idiomatic one: N processes, each looping
# `yield env.timeout(expovariate(1))`; one hold = one timeout event processed.
#
# Usage: scripts/bench-vs-simpy.sh [HOLDS]   (default 1000000 holds per size for jetsim,
#        HOLDS/5 for SimPy, which is slower; rates are per hold so they compare)
set -euo pipefail
cd "$(dirname "$0")/.."

holds=${1:-1000000}
simpy_holds=$(( holds / 5 ))
venv=${JETSIM_VENV:-.build/simpy-venv}

if [ ! -x "$venv/bin/python" ]; then
  echo "Creating a Python venv with simpy 4.1 in $venv ..." >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet 'simpy==4.1.*'
fi

echo "Building jetsim (release) ..." >&2
swift build -c release --product jetsim --no-color-diagnostics >&2
jetsim=.build/release/jetsim

cat > "$venv/hold.py" <<'PY'
import random, sys, time
import simpy

def run(pending, holds, seed=1):
    random.seed(seed)
    env = simpy.Environment()
    done = [0]
    def holder(env):
        while True:
            yield env.timeout(random.expovariate(1.0))
            done[0] += 1
    for _ in range(pending):
        env.process(holder(env))
    # Warm up: as many holds as there are pending events.
    while done[0] < pending:
        env.step()
    start_done = done[0]
    t0 = time.perf_counter()
    while done[0] - start_done < holds:
        env.step()
    elapsed = time.perf_counter() - t0
    # env.step() also processes the process-resumption events, so count holds, not steps.
    return (done[0] - start_done) / elapsed

pending, holds = int(sys.argv[1]), int(sys.argv[2])
print(f"{run(pending, holds):.0f}")
PY

printf "%-10s %16s %16s %10s %12s\n" "N" "jetsim holds/s" "simpy holds/s" "ratio" "jetsim ns/hold"
for n in 1000 10000 100000 1000000; do
  line=$("$jetsim" hold --pending "$n" --holds "$holds" --no-header)
  js=$(echo "$line" | cut -d, -f4)
  ns=$(echo "$line" | cut -d, -f5)
  sp=$("$venv/bin/python" "$venv/hold.py" "$n" "$simpy_holds")
  ratio=$(python3 -c "print(f'{$js/$sp:.1f}x')")
  printf "%-10s %16s %16s %10s %12s\n" "$n" "$js" "$sp" "$ratio" "$ns"
done
