#!/usr/bin/env bash
# End-to-end tests: builds the release jetsim once and runs the end-to-end suites
# (Tests/JetSimCLITests: the golden files per workload and policy, every subcommand
# through the binary, hostile inputs, the scripts) against it. `swift test` runs the
# unit, property and statistical tests and skips these suites, since through the debug
# binary they took most of its time.
#   scripts/test-e2e.sh                    build release, run every end-to-end suite
#   scripts/test-e2e.sh --jetsim BIN       against BIN, no build (a debug build works too)
#   scripts/test-e2e.sh --filter REGEX     only the tests swift test's --filter selects
#   scripts/test-e2e.sh --scratch-path DIR the test bundle's debug build in DIR (as `swift
#                                          test --scratch-path DIR` built it; CI's, beside the release build)
#   JETSIM_UPDATE_GOLDEN=1 scripts/test-e2e.sh --filter Golden    re-record the goldens
# It builds the test bundle (debug) too, unless `swift test` has just built it.
set -euo pipefail
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
jetsim="" filter=JetSimCLITests scratch=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jetsim) jetsim=$(abs "${2:?--jetsim needs a path}"); shift 2 ;;
    --filter) filter="JetSimCLITests.*(${2:?--filter needs a pattern})"; shift 2 ;;
    --scratch-path) scratch=(--scratch-path "$(abs "${2:?--scratch-path needs a directory}")"); shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test-e2e: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
if [ -z "$jetsim" ]; then
  # The same build as scripts/install.sh (--no-color-diagnostics: see there), so one
  # after the other reuses it.
  swift build -c release --product jetsim --no-color-diagnostics
  jetsim=$(swift build -c release --show-bin-path --no-color-diagnostics)/jetsim
fi
[ -x "$jetsim" ] || { echo "test-e2e: $jetsim is not an executable" >&2; exit 2; }
echo "test-e2e: end-to-end suites against $jetsim"
JETSIM_BIN=$jetsim exec swift test "${scratch[@]}" --filter "$filter"
