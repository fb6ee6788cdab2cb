#!/usr/bin/env python3
"""Fit the OS reserve (memory apps cannot use) per RAM size from public reports.

Reads docs/data/jetsam-reports.csv (iOS JetsamEvent report headers, and for one
report the per-process footprints summed by category), docs/data/ios-crash-limits.csv
(largest single-app footprints measured per device) and
docs/data/android-meminfo-reports.csv, and prints, per RAM size, the fitted reserve
and its plausible range. Standard library only: python3 scripts/fit-reserve.py

Per iOS report (all sizes in MiB):
  managed    = (free + active + inactive + throttled + wired + compressor) x page
               ("free" already holds the speculative pages: host_statistics64 sets
               free_count = vm_page_free_count + vm_page_speculative_count,
               xnu osfmk/kern/host.c; the iPhone15,2 report only adds up to less than
               its 6 GB with speculative left out)
  unaccounted= RAM - managed (firmware carve-outs and pages on no listed queue)
  floor      = unaccounted + wired                  (no report is below this)
  core       = floor + footprints of daemons and system processes above the idle
               band (only where the report's process list was read)
  high       = core + footprints of the idle-band daemons, which jetsam kills first
               (candidates for the memory manager's own killable processes)
The largest footprint one app reached on a device (crash_mb) bounds core from above:
core <= RAM - crash_mb, since that much was usable by one app.
"""
import csv
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DATA = os.path.join(ROOT, "docs", "data")
SIZES = [2048, 3072, 4096, 6144, 8192]


def read(name):
    with open(os.path.join(DATA, name), newline="") as f:
        return list(csv.DictReader(f))


def num(row, key):
    v = row.get(key, "")
    return float(v) if v not in ("", None) else None


def linfit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - b * mx, b


def ios():
    reports = []
    for r in read("jetsam-reports.csv"):
        page = num(r, "count_page_kb") / 1024.0  # MiB per counted page
        ram = num(r, "ram_mb")
        managed = sum(num(r, k) for k in
                      ("free", "active", "inactive", "throttled", "wired", "compressor")) * page
        wired = num(r, "wired") * page
        floor = ram - managed + wired
        act = num(r, "active_system_pages")
        idle = num(r, "idle_daemon_pages")
        rep = dict(id=r["id"], device=r["device"], model=r["model"], os=r["os"], ram=ram,
                   jb=r["jailbroken"] == "yes", managed=managed, unacc=ram - managed,
                   wired=wired, floor=floor,
                   core=floor + act * page if act is not None else None,
                   high=floor + (act + idle) * page if act is not None else None,
                   active_sys=act * page if act is not None else None,
                   idle_d=idle * page if idle is not None else None)
        reports.append(rep)

    print("iOS JetsamEvent reports (MiB)")
    print(f"{'report':12} {'device':11} {'RAM':>5} {'managed':>8} {'unacc.':>7} {'wired':>6} "
          f"{'floor':>6} {'floor%':>6} {'core':>6} {'high':>6}  os")
    for p in reports:
        core = f"{p['core']:6.0f}" if p["core"] is not None else "     -"
        high = f"{p['high']:6.0f}" if p["high"] is not None else "     -"
        print(f"{p['id']:12} {p['device']:11} {p['ram']:5.0f} {p['managed']:8.0f} {p['unacc']:7.0f} "
              f"{p['wired']:6.0f} {p['floor']:6.0f} {100 * p['floor'] / p['ram']:5.1f}% {core} {high}"
              f"  {p['os']}{' (jailbroken)' if p['jb'] else ''}")

    # The floor fit: reports from iOS 11 on (the releases the simulated classes run),
    # jailbroken ones left out (their jetsam limits are changed).
    def major(p):
        return int(p["os"].split()[2].split(".")[0])
    fitset = [p for p in reports if major(p) >= 11 and not p["jb"]]
    a, b = linfit([p["ram"] for p in fitset], [p["floor"] for p in fitset])
    a_all, b_all = linfit([p["ram"] for p in reports], [p["floor"] for p in reports])
    full = [p for p in reports if p["core"] is not None]
    share_act = sum(p["active_sys"] for p in full) / sum(p["ram"] for p in full)
    share_idle = sum(p["idle_d"] for p in full) / sum(p["ram"] for p in full)
    # Footprints ("rpages") count compressed pages at their uncompressed size. The share
    # of footprint that is physically resident, from the same reports' headers:
    # (anonymous + compressor pages) / sum of all footprints.
    raw = {r["id"]: r for r in read("jetsam-reports.csv")}
    phys = []
    for p in full:
        r = raw[p["id"]]
        total_fp = sum(num(r, k) for k in ("idle_daemon_pages", "active_system_pages", "app_pages"))
        phys.append((num(r, "anonymous") + num(r, "compressor")) / total_fp)
    phys_ratio = sum(phys) / len(phys)
    print()
    print(f"floor fit, iOS >= 11, not jailbroken ({len(fitset)} reports): "
          f"floor = {a:.0f} + {b:.4f} x RAM MiB")
    print(f"floor fit, all {len(reports)} reports: floor = {a_all:.0f} + {b_all:.4f} x RAM MiB")
    print(f"footprints of daemons and system processes above the idle band: {100 * share_act:.1f} % of RAM; "
          f"of idle-band daemons: {100 * share_idle:.1f} % of RAM "
          f"(from {len(full)} report with its process list: {', '.join(p['id'] for p in full)})")
    print(f"physically resident share of footprints: {phys_ratio:.2f} "
          f"((anonymous + compressor pages) / sum of footprints, same report)")

    limits = read("ios-crash-limits.csv")
    bound = {}
    for l in limits:
        ram = num(l, "ram_mb")
        v = ram - num(l, "crash_mb")
        bound[ram] = min(bound.get(ram, v), v)
    print()
    print("upper bound on core from the largest one-app footprint (RAM - crash):")
    for l in limits:
        print(f"  {l['device']:14} RAM {num(l, 'ram_mb'):5.0f}  one app {num(l, 'crash_mb'):5.0f}  "
              f"-> core <= {num(l, 'ram_mb') - num(l, 'crash_mb'):5.0f}")

    print()
    print("os_reserve_mb per RAM size (iOS), MiB:")
    print("  proposed = min(floor fit + resident daemons above the idle band, bound), rounded to 64;")
    print("  range    = [lowest of floor fit and measured floors, min(bound, floor fit + all daemon footprints)]")
    print(f"{'RAM':>5} {'floor fit':>9} {'+daemons':>8} {'bound':>6} {'proposed':>8} "
          f"{'low':>6} {'high':>6} {'%RAM':>5}  floors measured at this size (iOS >= 11)")
    out = {}
    for ram in SIZES:
        fl = a + b * ram
        core = fl + share_act * phys_ratio * ram
        hi = fl + (share_act + share_idle) * ram
        bd = bound.get(ram)
        prop = min(core, bd) if bd is not None else core
        high = min(hi, bd) if bd is not None else hi
        same = [p["floor"] for p in fitset if p["ram"] == ram]
        low = min([fl] + same)
        flag = ""
        if low > high:
            # The iPhone floor fit extrapolated past the iPhone data overshoots an iPad's
            # measured bound: report the bound as the low end and the fit as the high end.
            flag = "  (iPhone fit extrapolated; the bound is an iPad's: range = [bound, fit + resident daemons])"
            low, high = high, core
        measured = ", ".join(f"{v:.0f}" for v in same) or "-"
        rounded = round(prop / 64) * 64
        out[ram] = (rounded, low, high)
        print(f"{ram:5d} {fl:9.0f} {core:8.0f} {bd if bd is not None else '-':>6} "
              f"{rounded:8.0f} {low:6.0f} {high:6.0f} {100 * rounded / ram:4.0f}%  {measured}{flag}")
    return out


def android():
    rows = read("android-meminfo-reports.csv")
    print()
    print("Android reports (MiB): floor = (RAM - MemTotal) + kernel + lost RAM, where given")
    for r in rows:
        ram = num(r, "ram_mb")
        total = num(r, "mem_total_kb")
        kernel = num(r, "kernel_kb")
        lost = num(r, "lost_kb")
        parts = []
        floor = 0.0
        if total is not None:
            floor += ram - total / 1024
            parts.append(f"carve-out {ram - total / 1024:.0f}")
        if kernel is not None:
            floor += kernel / 1024
            parts.append(f"kernel {kernel / 1024:.0f}")
        if lost is not None:
            floor += lost / 1024
            parts.append(f"lost {lost / 1024:.0f}")
        print(f"  {r['id']:17} {r['device']:11} RAM {ram:5.0f}  floor {floor:5.0f} "
              f"({100 * floor / ram:4.1f} %)  = {' + '.join(parts)}  [{r['kind']}]")
    print("  Too few Android reports for a fit (none at 8 GB, none from an Android Go phone);")
    print("  see docs/evidence-reserve-and-wakes.md for the ranges taken from them.")


def main():
    ios()
    android()
    return 0


if __name__ == "__main__":
    sys.exit(main())
