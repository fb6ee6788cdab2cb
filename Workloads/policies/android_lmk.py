#!/usr/bin/env python3
"""android-lmk for jetsim, as an external policy of protocol 3 (docs/external-policies.md):
lmkd's order over the oom_score_adj ActivityManager gives each candidate, which protocol 3
adds at the end of every update line. The same choices as the built-in `android-lmk`, so
`--policy external:lmk` gives the same CSV as `--policy android-lmk` (but the policy column).

Standard library only. The adj of an update is its sequence's first value (900 for a cached
process with activities, 905 for an empty one, 700 the previous app, 500 a service, 200 or
less a perceptible one); a cached process's slot in its sequence follows from recency (its
last use, the update's fifth field), as ActivityManager's assignCachedAdjIfNecessary gives it:
the oldest of a sequence holds its highest slot. Heaps with lazy deletion, ties to the lower
app index, as the built-in's.

An update line is `update APP STATE MODE RESIDENT_KB LAST_USED_US LAUNCHES COLD_US RESIDENT_US
UNSAVED PRESERVES LEFT_FRONT PREVIOUS BAND ADJ`.
"""
import heapq
import sys

CACHED_MIN, CACHED_MAX, EMPTY_MIN = 900, 999, 905
LEVELS = 5                                           # CACHED_APP_IMPORTANCE_LEVELS
SLOTS = ((CACHED_MAX - CACHED_MIN + 1) >> 1) // LEVELS   # OomAdjuster.mNumSlots = 10
PREVIOUS, SERVICE, PERCEPTIBLE = 700, 500, 200
CACHED, SERVICES, PERCEPTIBLES, EMPTY = 0, 1, 2, 3


def slot(rank, count, first):
    """assignCachedAdjIfNecessary without tiers: ceil(count / 10) processes a slot."""
    factor = max(1, (count + SLOTS - 1) // SLOTS)
    s = rank // factor
    return first + 2 * LEVELS * s if s < SLOTS else CACHED_MAX


class Heaps:
    """Four heaps of (key, app); an app is in one at most (`where`)."""

    def __init__(self):
        self.heaps = [[], [], [], []]
        self.where = {}      # app -> (heap, key)
        self.counts = [0, 0, 0, 0]

    def set(self, app, key, h):
        old = self.where.get(app)
        if old == (h, key):
            return
        if old is not None:
            self.counts[old[0]] -= 1
        self.where[app] = (h, key)
        self.counts[h] += 1
        heapq.heappush(self.heaps[h], (key, app))

    def remove(self, app):
        old = self.where.pop(app, None)
        if old is not None:
            self.counts[old[0]] -= 1

    def heap_of(self, app):
        old = self.where.get(app)
        return None if old is None else old[0]

    def min(self, h):
        heap = self.heaps[h]
        while heap and self.where.get(heap[0][1]) != (h, heap[0][0]):
            heapq.heappop(heap)
        return heap[0] if heap else None


def main():
    read = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    if not read().startswith(b"jetsim-policy 3 "):
        sys.exit("android_lmk.py: expected the greeting 'jetsim-policy 3 NAME' (set policies.external.NAME.protocol: 3)")
    out.write(b"ok\n")
    out.flush()
    heaps = Heaps()
    held = None          # the previous app, idle: adj 700, outside the heaps
    adjustments = 0      # first in, first out among services
    for line in iter(read, b""):
        kind = line[0]
        if kind == 117:  # update ...
            f = line.split()
            app, resident, last_used, adj = int(f[1]), int(f[4]), int(f[5]), int(f[14])
            if adj == PREVIOUS:
                heaps.remove(app)
                held = app
                continue
            if app == held:
                held = None
            if adj <= PERCEPTIBLE:
                heaps.set(app, -resident, PERCEPTIBLES)
            elif adj == SERVICE:
                if heaps.heap_of(app) != SERVICES:
                    adjustments += 1
                    heaps.set(app, adjustments, SERVICES)
            else:
                heaps.set(app, last_used, EMPTY if adj >= EMPTY_MIN else CACHED)
        elif kind == 114:  # remove APP
            app = int(line[7:-1])
            heaps.remove(app)
            if held == app:
                held = None
        elif kind == 118:  # victim NOW_US
            e, a = heaps.min(EMPTY), heaps.min(CACHED)
            if e is not None and a is not None:
                na, ne = heaps.counts[CACHED], heaps.counts[EMPTY]
                adj_a, adj_e = slot(na - 1, na, CACHED_MIN), slot(ne - 1, ne, EMPTY_MIN)
                victim = (a if adj_a > adj_e else e)[1] if adj_a != adj_e else min(e, a)[1]
            elif e is not None or a is not None:
                victim = (e or a)[1]
            elif held is not None:
                victim = held
            else:
                victim = next(x for x in (heaps.min(SERVICES), heaps.min(PERCEPTIBLES)) if x is not None)[1]
            out.write(b"%d\n" % victim)
            out.flush()
        elif kind == 100:  # device SEED DEVICE APPS: a new run, nothing carried over
            heaps = Heaps()
            held = None
            adjustments = 0
        else:
            sys.exit("android_lmk.py: unexpected line %r" % line)


if __name__ == "__main__":
    main()
