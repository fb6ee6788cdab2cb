#!/usr/bin/env python3
"""largest-first for jetsim, as an external policy (docs/external-policies.md): kill
the candidate with the largest resident footprint; ties go to the one left longest
ago (the smallest last_used_us), then to the smallest app index. A short example of
reading the fields of an update; a linear scan per victim, fine for a few dozen
candidates (the built-in `largest-first` keeps a heap).
"""
import sys


def main():
    read = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    read()  # the greeting: jetsim-policy 1 NAME
    out.write(b"ok\n")
    out.flush()
    candidates = {}  # app -> (resident_kb, last_used_us)
    for line in iter(read, b""):
        f = line.split()
        if f[0] == b"update":
            # update APP STATE MODE RESIDENT_KB LAST_USED_US LAUNCHES COLD_LAUNCH_US
            #        RESIDENT_LAUNCH_US UNSAVED_EDITS PRESERVES_UI LEFT_FRONT PREVIOUS BAND
            candidates[int(f[1])] = (int(f[4]), int(f[5]))
        elif f[0] == b"remove":
            candidates.pop(int(f[1]), None)
        elif f[0] == b"victim":
            app = min(candidates, key=lambda a: (-candidates[a][0], candidates[a][1], a))
            out.write(b"%d\n" % app)
            out.flush()
        elif f[0] == b"device":
            candidates.clear()


if __name__ == "__main__":
    main()
