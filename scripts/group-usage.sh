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
import sys

# Records as jetsim's reader takes them (Sources/JetSim/Timelines/DelimitedReader.swift):
# LF, CRLF or CR ends a record; a field whose first non-blank is `"` is quoted (it may
# hold commas, line breaks and doubled quotes) and is kept as written; unquoted fields
# are trimmed of spaces and tabs; a blank line is no record. Each record is written back
# byte for byte, so a quoted id keeps its blanks (Python's csv module cannot tell a
# quoted " a" from an unquoted one: it wrote " a" back unquoted, which jetsim trims).
def records(text, name):
    i, n = 0, len(text)
    while i < n:
        start, fields, blank = i, [], True
        while True:
            while i < n and text[i] in " \t":
                i += 1
            if i < n and text[i] == '"':
                blank = False
                i += 1
                value = []
                while True:
                    if i >= n:
                        sys.exit(f"{name}: a quote is not closed")
                    c = text[i]
                    i += 1
                    if c == '"':
                        if i < n and text[i] == '"':
                            value.append('"'); i += 1; continue
                        break
                    value.append(c)
                fields.append("".join(value))
                while i < n and text[i] in " \t":
                    i += 1
                if i < n and text[i] not in ",\r\n":
                    sys.exit(f"{name}: text after a closing quote")
            else:
                j = i
                while i < n and text[i] not in ",\r\n":
                    i += 1
                fields.append(text[j:i].strip(" \t"))
                if fields[-1]:
                    blank = False
            if i < n and text[i] == ",":
                blank = False
                i += 1
                continue
            if i < n:
                i += 2 if text.startswith("\r\n", i) else 1
            break
        if not blank:
            raw = text[start:i]
            yield raw if raw.endswith(("\n", "\r")) else raw + "\n", fields

name = sys.argv[1]
with open(name, encoding="utf-8-sig", newline="") as f:
    rows = records(f.read(), name)
    header = next(rows, None)
    if header is None or "device" not in header[1]:
        sys.exit(f"{name}: no header naming a device column")
    k = header[1].index("device")
    sys.stdout.write(header[0])
    # A stable sort on the id as jetsim reads it: " a" unquoted is "a", quoted it is not.
    sys.stdout.write("".join(raw for raw, _ in sorted(rows, key=lambda r: r[1][k] if k < len(r[1]) else "")))
PY
