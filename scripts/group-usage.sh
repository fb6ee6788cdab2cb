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
import re
import sys

# Records as jetsim's reader takes them (Sources/JetSim/Timelines/DelimitedReader.swift):
# LF, CRLF or CR ends a record; a field whose first non-blank is `"` is quoted (it may
# hold commas, line breaks and doubled quotes) and is kept as written; unquoted fields
# are trimmed of spaces and tabs; a blank line is no record. Each record is written back
# byte for byte, so a quoted id keeps its blanks (Python's csv module cannot tell a
# quoted " a" from an unquoted one: it wrote " a" back unquoted, which jetsim trims).
# A field: quoted (doubled quotes inside, blanks around) or plain (its first non-blank
# is not a quote); a record: fields joined by commas, up to its line end.
QUOTED = r'[ \t]*"[^"]*(?:""[^"]*)*"[ \t]*'
PLAIN = r'(?![ \t]*")[^,\r\n]*'
RECORD = re.compile(f'(?:{QUOTED}|{PLAIN})(?:,(?:{QUOTED}|{PLAIN}))*(?:\r\n|\r|\n|\\Z)')
# A record's fields in order, each with its comma: (the quoted text with its quotes,
# or "", and the plain text). A record that ends in a field may give one more, empty:
# read only for the header's names and the id, where a missing field reads as "" too.
FIELDS = re.compile(f'[ \\t]*("[^"]*(?:""[^"]*)*")[ \\t]*(?:,|\\Z)|({PLAIN})(?:,|\\Z)')

def records(text, name):
    # Record by record with regular expressions (a loop per character was slow on a
    # large trace); a record that does not match is read by `fields` for its error.
    i, n = 0, len(text)
    while i < n:
        m = RECORD.match(text, i)
        if m is None:
            fields(text, i, name)
            sys.exit(f"{name}: cannot read the record at character {i}")
        raw, i = m.group(), m.end()
        line = raw.rstrip("\r\n")
        if '"' not in line:
            values = [v.strip(" \t") for v in line.split(",")]
            blank = len(values) == 1 and not values[0]
        else:
            values = [q[1:-1].replace('""', '"') if q else p.strip(" \t") for q, p in FIELDS.findall(line)]
            blank = False
        if not blank:
            yield raw if raw.endswith(("\n", "\r")) else raw + "\n", values

# The per-character reading, kept for its errors (text after a closing quote, a
# quote that is not closed) at a record RECORD does not match.
def fields(text, i, name):
    n = len(text)
    while True:
        while i < n and text[i] in " \t":
            i += 1
        if i < n and text[i] == '"':
            i += 1
            while True:
                if i >= n:
                    sys.exit(f"{name}: a quote is not closed")
                c = text[i]
                i += 1
                if c == '"':
                    if i < n and text[i] == '"':
                        i += 1; continue
                    break
            while i < n and text[i] in " \t":
                i += 1
            if i < n and text[i] not in ",\r\n":
                sys.exit(f"{name}: text after a closing quote")
        else:
            while i < n and text[i] not in ",\r\n":
                i += 1
        if i < n and text[i] == ",":
            i += 1
            continue
        return

name = sys.argv[1]
with open(name, encoding="utf-8-sig", newline="") as f:
    text = f.read()
if '"' in text:
    rows = records(text, name)
    split = lambda fields: fields
else:
    # No quote anywhere (the usual trace): a record is a line, a field what lies
    # between commas, trimmed (split only when needed: whole-text operations are fast).
    parts = re.split(r"(\r\n|\r|\n)", text)
    rows = iter([(c + t, c) for c, t in zip(parts[0::2], parts[1::2] + ["\n"]) if "," in c or c.strip(" \t")])
    split = lambda line: [v.strip(" \t") for v in line.split(",")]
header = next(rows, None)
if header is None or "device" not in split(header[1]):
    sys.exit(f"{name}: no header naming a device column")
k = split(header[1]).index("device")
sys.stdout.write(header[0])
# A stable sort on the id as jetsim reads it: " a" unquoted is "a", quoted it is not.
if '"' in text:
    key = lambda r: r[1][k] if k < len(r[1]) else ""
else:
    key = lambda r: f[k].strip(" \t") if k < len(f := r[1].split(",", k + 1)) else ""
sys.stdout.write("".join(raw for raw, _ in sorted(rows, key=key)))
PY
