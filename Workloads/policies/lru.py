#!/usr/bin/env python3
"""lru for jetsim, as an external policy (docs/external-policies.md): kill the
candidate the user left longest ago. The same choices as the built-in `lru`, so
`--policy external:lru` gives the same CSV as `--policy lru` (but the policy column).

Standard library only. The order is an OrderedDict: an app joins at the end when it
becomes a candidate (it left the front, or was launched in the background); later
updates of a candidate do not move it; the first entry is the victim.
"""
import sys
from collections import OrderedDict


def main():
    read = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    if not read().startswith(b"jetsim-policy 1 "):
        sys.exit("lru.py: expected the greeting 'jetsim-policy 1 NAME'")
    out.write(b"ok\n")
    out.flush()
    order = OrderedDict()
    for line in iter(read, b""):
        kind = line[0]
        if kind == 117:  # update APP ...: a new candidate joins at the end
            app = line[7:line.index(b" ", 7)]
            if app not in order:
                order[app] = None
        elif kind == 114:  # remove APP
            order.pop(line[7:-1], None)
        elif kind == 118:  # victim
            out.write(next(iter(order)) + b"\n")
            out.flush()
        elif kind == 100:  # device SEED DEVICE APPS: a new run, nothing carried over
            order.clear()
        else:
            sys.exit("lru.py: unexpected line %r" % line)


if __name__ == "__main__":
    main()
