#!/usr/bin/env bash
# Builds jetsim (release) and installs it into a directory on PATH, so that the README's
# `jetsim ...` commands work as written. Run it again after pulling to update.
#
# Usage: scripts/install.sh [--bindir DIR] [--static]
#   --bindir DIR   where `jetsim` goes (default: /usr/local/bin when it is writable,
#                  otherwise ~/.local/bin, which is then created if needed)
#   --static       fail unless the binary carries the Swift runtime and Foundation
#                  (every release build on Linux does: Package.swift links them in,
#                  so it runs where no Swift toolchain is installed, a cluster's
#                  compute nodes); glibc, libstdc++ and libm stay shared, so a node
#                  needs glibc at least as new as this machine's. Checked with ldd.
#
# The build passes --no-color-diagnostics, as every jetsim script does: SwiftPM adds a
# colour flag to the build description only when it prints to a terminal, so a build
# from a terminal after one from a script (or CI) would otherwise recompile everything.
set -euo pipefail
# Relative paths in the arguments are the caller's: made absolute before the cd below.
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
bindir='' static=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bindir) bindir=$(abs "${2:?--bindir needs a directory}"); shift 2 ;;
    --static) static=1; shift ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install: unknown option '$1'" >&2; exit 2 ;;
  esac
done
cd "$(dirname "$0")/.."
if [ -z "$bindir" ]; then
  if [ -w /usr/local/bin ]; then bindir=/usr/local/bin; else bindir=$HOME/.local/bin; fi
fi
mkdir -p "$bindir" || { echo "install: cannot create $bindir" >&2; exit 1; }
echo "install: building jetsim (release; 3-6 minutes the first time on 2 cores) ..." >&2
swift build -c release --product jetsim --no-color-diagnostics >&2
bin=$(swift build -c release --show-bin-path --no-color-diagnostics)/jetsim
if command -v ldd >/dev/null; then
  # What a node must still provide: the C libraries only, no Swift runtime or Foundation.
  swiftlibs=$(ldd "$bin" | grep -Ei 'libswift|libFoundation|libdispatch|libBlocksRuntime|/swift/' || true)
  if [ -n "$swiftlibs" ]; then
    if [ "$static" = 1 ]; then
      echo "install: --static: $bin still links the Swift runtime:" >&2
      echo "$swiftlibs" >&2
      exit 1
    fi
    echo "install: note: $bin loads the Swift runtime from the toolchain (not Linux?): nodes need the toolchain" >&2
  else
    echo "install: $bin carries the Swift runtime; it needs only: $(ldd "$bin" | awk '/=>/ {print $1} !/=>/ {print $1}' | grep -v '^linux-vdso' | tr '\n' ' ')" >&2
  fi
elif [ "$static" = 1 ]; then
  echo "install: --static: no ldd here to check $bin" >&2
  exit 1
fi
tmp=$(mktemp "$bindir/.jetsim.XXXXXX")
trap 'rm -f "$tmp"' EXIT
cp "$bin" "$tmp" && chmod 755 "$tmp" && mv -f "$tmp" "$bindir/jetsim"
echo "install: $bindir/jetsim ($("$bindir/jetsim" --version))" >&2
case ":$PATH:" in
  *":$bindir:"*) ;;
  *) echo "install: $bindir is not on your PATH; add it with: export PATH=\"$bindir:\$PATH\"" >&2 ;;
esac
