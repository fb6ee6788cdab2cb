#!/usr/bin/env bash
# Charts (PNG and SVG) from jetsim's CSVs: a summary (`jetsim run --out`, a sweep's
# combined.csv) or `jetsim sensitivity`'s sensitivity.csv. `scripts/charts.sh --help`
# lists the charts and options; the code is scripts/charts/.
#
# The first run makes a Python virtual environment in the user's cache directory
# (${XDG_CACHE_HOME:-~/.cache}/jetsim/charts-venv: a read-only checkout works) and installs into it, from PyPI, the pinned packages of
# scripts/charts/requirements.txt (matplotlib and what it needs), saying so first.
# Nothing is installed outside that directory, and nothing as root.
#   JETSIM_CHARTS_VENV=DIR      make the environment there instead
#   JETSIM_CHARTS_PYTHON=PATH   use this Python (it must have matplotlib), install nothing
#
# Usage: scripts/charts.sh CSV [--out DIR] [--charts LIST] [--x KEY] [--at VALUE]
#                              [--policy A,B] [--format png,svg] [--dpi N] [--metric M] [--top N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
req=$root/scripts/charts/requirements.txt
die() { echo "charts: $*" >&2; exit 2; }

if [ -n "${JETSIM_CHARTS_PYTHON:-}" ]; then
  python=$JETSIM_CHARTS_PYTHON
else
  venv=${JETSIM_CHARTS_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/jetsim/charts-venv}
  python=$venv/bin/python
  # The environment is ready when it was made from this very requirements file.
  if ! cmp -s "$req" "$venv/requirements.installed" 2>/dev/null; then
    command -v python3 >/dev/null || die "no python3 on PATH (Python 3.9 or later is needed)"
    packages=$(grep -v '^#' "$req" | grep . | tr '\n' ' ')
    echo "charts: making a Python virtual environment in $venv and installing into it from PyPI:" >&2
    echo "charts:   $packages" >&2
    echo "charts: (once: about a 40 MB download, 200 MB on disk; nothing outside $venv is touched)" >&2
    started=$(date +%s)
    python3 -m venv "$venv" \
      || die "python3 -m venv $venv failed: install Python's venv module (Debian, Ubuntu: the python3-venv package), or set JETSIM_CHARTS_PYTHON to a Python that has matplotlib"
    "$venv/bin/python" -m pip install --disable-pip-version-check --no-cache-dir --quiet --only-binary=:all: -r "$req" \
      || die "pip could not install $req into $venv (no network? a proxy?); or set JETSIM_CHARTS_PYTHON to a Python that has matplotlib"
    cp "$req" "$venv/requirements.installed"
    echo "charts: installed in $(( $(date +%s) - started )) s" >&2
  fi
fi
# matplotlib's font cache goes inside the environment, not to ~/.cache.
[ -n "${JETSIM_CHARTS_PYTHON:-}" ] || export MPLCONFIGDIR=${MPLCONFIGDIR:-$venv/mplconfig}
export PYTHONPATH="$root/scripts${PYTHONPATH:+:$PYTHONPATH}"
exec "$python" -m charts "$@"
