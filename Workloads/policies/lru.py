#!/usr/bin/env python3
"""lru for jetsim, as an external policy (docs/external-policies.md): kill the
candidate the user left longest ago. The same choices as the built-in `lru`, so
`--policy external:lru` gives the same CSV as `--policy lru` (but the policy column).

Standard library only. Recency is the user's: a candidate's key is (when the user last
left it, its arrival number), fixed while it stays a candidate; an app the user never
used (last use 0: launched by the system) is the oldest of all, ties in the order they
arrived. A heap with lazy deletion: a removed app's entry is skipped when it comes up.

An update line is `update APP STATE MODE RESIDENT_KB LAST_USED_US ...`.
"""
import heapq
import sys


def main():
    read = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    # Version 1 or 2 (2 adds the simulated time to `victim`: not needed for lru).
    if not read().startswith((b"jetsim-policy 1 ", b"jetsim-policy 2 ")):
        sys.exit("lru.py: expected the greeting 'jetsim-policy 1 NAME' or 'jetsim-policy 2 NAME'")
    out.write(b"ok\n")
    out.flush()
    heap = []        # (last use, arrival, app)
    live = {}        # app -> arrival of its live entry
    arrivals = 0
    for line in iter(read, b""):
        kind = line[0]
        if kind == 117:  # update APP STATE MODE RESIDENT_KB LAST_USED_US ...: a new candidate
            fields = line.split(b" ", 6)
            app = fields[1]
            if app not in live:
                arrivals += 1
                live[app] = arrivals
                heapq.heappush(heap, (int(fields[5]), arrivals, app))
        elif kind == 114:  # remove APP
            live.pop(line[7:-1], None)
        elif kind == 118:  # victim (version 2: victim NOW_US)
            while live.get(heap[0][2]) != heap[0][1]:
                heapq.heappop(heap)
            out.write(heap[0][2] + b"\n")
            out.flush()
        elif kind == 100:  # device SEED DEVICE APPS: a new run, nothing carried over
            heap.clear()
            live.clear()
            arrivals = 0
        else:
            sys.exit("lru.py: unexpected line %r" % line)


if __name__ == "__main__":
    main()
