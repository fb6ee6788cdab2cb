#!/usr/bin/env bash
# Groups a usage trace by device for `jetsim run --usage` (which requires all of a
# device's rows together): parses the file as RFC 4180 CSV (quoted ids holding commas,
# quotes or line breaks are fine; a UTF-8 byte-order mark is dropped), finds the
# `device` column by the header, and sorts the rows stably by device id, so each
# device keeps its rows in file order. Holds the whole file in memory (Python 3).
#   scripts/group-usage.sh IN.csv > OUT.csv
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/group-usage.sh IN.csv > OUT.csv" >&2; exit 2; }
exec python3 - "$1" <<'PY'
import csv, sys
with open(sys.argv[1], encoding="utf-8-sig", newline="") as f:
    rows = csv.reader(f)
    header = next(rows, None)
    if header is None or "device" not in [h.strip(" \t") for h in header]:
        sys.exit(f"{sys.argv[1]}: no header naming a device column")
    k = [h.strip(" \t") for h in header].index("device")
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(header)
    # jetsim trims blanks around unquoted fields: group " a" with "a".
    out.writerows(sorted((r for r in rows if r), key=lambda r: r[k].strip(" \t") if k < len(r) else ""))
PY
