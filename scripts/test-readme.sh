#!/usr/bin/env bash
# Runs the examples of the README (and of Workloads/README.md, docs/cli.md,
# docs/external-policies.md and docs/jtrace.md) as written, with `jetsim` on PATH, and fails if one fails
# or prints something else than the file shows.
#   ```sh blocks       every command line is run from the repository root; it must exit 0.
#                      `swift test`, `scripts/test-e2e.sh` and `scripts/install.sh` are the
#                      build and the test suites, which CI runs itself, and are not run here.
#   ``` blocks whose lines start with `$ `: a transcript; each command's output must be
#                      exactly the lines that follow it.
#   ``` blocks after a line `<!-- output of: COMMAND -->`: every line shown (except a
#                      line starting with `...`) must appear in COMMAND's output, in order.
# Outputs the examples write go where they say (they write under /tmp); a sweep's or a
# sensitivity run's directory is removed first, since they resume from what they find.
#
# Usage: scripts/test-readme.sh [--jetsim PATH] [FILE.md ...]
set -euo pipefail
# Relative paths in the arguments are the caller's: made absolute before the cd below.
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
jetsim=$(command -v jetsim || true)
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jetsim) jetsim=$(abs "${2:?--jetsim needs a path}"); shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) files+=("$(abs "$1")"); shift ;;
  esac
done
cd "$(dirname "$0")/.."
[ ${#files[@]} -gt 0 ] || files=(README.md Workloads/README.md docs/cli.md docs/external-policies.md docs/jtrace.md)
[ -x "$jetsim" ] || { echo "test-readme: no jetsim (run scripts/install.sh, or give --jetsim PATH)" >&2; exit 2; }
bindir=$(mktemp -d)
trap 'rm -rf "$bindir"' EXIT
ln -s "$(cd "$(dirname "$jetsim")" && pwd)/$(basename "$jetsim")" "$bindir/jetsim"
export PATH="$bindir:$PATH"

failures=0 ran=0
fail() { echo "test-readme: $*" >&2; failures=$((failures + 1)); }

# Runs one command line; prints its stdout (stderr goes to $bindir/err).
run() { bash -o pipefail -c "$1" 2>"$bindir/err"; }

# Compares a transcript's expected lines with what a command printed.
check_output() {  # file line command expected-file
  local got="$bindir/got"
  if ! run "$3" > "$got"; then fail "$1:$2: '$3' failed: $(head -3 "$bindir/err")"; return; fi
  if ! diff -u "$4" "$got" > "$bindir/diff"; then fail "$1:$2: '$3' printed something else:"; head -20 "$bindir/diff" >&2; fi
}

# Checks that every line shown (but `...` lines) appears in the command's output, in order.
check_contains() {  # file line command expected-file
  local got="$bindir/got"
  if ! run "$3" > "$got"; then fail "$1:$2: '$3' failed: $(head -3 "$bindir/err")"; return; fi
  if ! awk 'NR == FNR { if ($0 !~ /^\.\.\./) want[++n] = $0; next }
            { if (i < n && $0 == want[i + 1]) i++ }
            END { if (i < n) { print "missing: " want[i + 1]; exit 1 } }' "$4" "$got" > "$bindir/diff"; then
    fail "$1:$2: '$3': the output shown is not what it prints ($(cat "$bindir/diff"))"
  fi
}

for md in "${files[@]}"; do
  kind='' start=0 n=0 pending_output=''
  : > "$bindir/block"
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    if [ -z "$kind" ]; then
      case "$line" in
        '<!-- output of: '*' -->') pending_output=${line#<!-- output of: }; pending_output=${pending_output% -->} ;;
        '```sh') kind=sh start=$n; : > "$bindir/block" ;;
        '```'*) kind=plain start=$n; : > "$bindir/block" ;;
        '') ;;
        *) pending_output='' ;;
      esac
      continue
    fi
    if [ "$line" != '```' ]; then printf '%s\n' "$line" >> "$bindir/block"; continue; fi
    # The end of a block: act on it.
    if [ "$kind" = sh ]; then
      i=$start
      while IFS= read -r cmd || [ -n "$cmd" ]; do
        i=$((i + 1))
        bare=${cmd%%#*}; bare=${bare%"${bare##*[![:space:]]}"}
        [ -n "$bare" ] || continue
        case "$bare" in 'swift test'|'scripts/test-e2e.sh'*|'scripts/install.sh'*) continue ;; esac
        ran=$((ran + 1))
        # A sweep or sensitivity run resumes in its directory: one left by an earlier
        # run (another binary) would be reused, or refused once the built-in workload
        # changed. Examples write under /tmp only.
        case "$bare" in 'jetsim sweep '*'--out /tmp/'*|'jetsim sensitivity '*'--out /tmp/'*)
          d=${bare#*--out }; d=${d%% *}
          case "$d" in /tmp/?*) [ "${d%/}" != /tmp ] && rm -rf "$d" ;; esac ;;
        esac
        run "$cmd" > /dev/null || fail "$md:$i: '$bare' exited $? : $(head -3 "$bindir/err")"
      done < "$bindir/block"
    elif [ -n "$pending_output" ]; then
      ran=$((ran + 1))
      check_contains "$md" "$start" "$pending_output" "$bindir/block"
    elif head -1 "$bindir/block" | grep -q '^\$ '; then
      # A transcript: split it into commands and their expected output.
      cmd='' cmdline=0 i=$start
      : > "$bindir/want"
      while IFS= read -r l || [ -n "$l" ]; do
        i=$((i + 1))
        if [ "${l#\$ }" != "$l" ]; then
          [ -n "$cmd" ] && { ran=$((ran + 1)); check_output "$md" "$cmdline" "$cmd" "$bindir/want"; }
          cmd=${l#\$ } cmdline=$i
          : > "$bindir/want"
        else
          printf '%s\n' "$l" >> "$bindir/want"
        fi
      done < "$bindir/block"
      [ -n "$cmd" ] && { ran=$((ran + 1)); check_output "$md" "$cmdline" "$cmd" "$bindir/want"; }
    fi
    kind='' pending_output=''
  done < "$md"
done
echo "test-readme: $ran examples from ${files[*]}, $failures failed" >&2
[ "$failures" -eq 0 ]
