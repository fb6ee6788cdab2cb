"""Reading jetsim's CSVs: the summary (`jetsim run --out`, a sweep's combined.csv) and
`jetsim sensitivity`'s sensitivity.csv. Every problem is a `CSVError` naming the file
(and the line or column); the command line turns it into exit 2."""

import csv
import json
import math
import os
import re


class CSVError(Exception):
    """A CSV the charts cannot use: the message names the file and what is wrong."""


def read(path):
    """The header and the rows (dicts) of a CSV, with each row's line number in `_line`."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames
            if not header:
                raise CSVError(f"{path}: the file is empty (no header line)")
            rows = []
            for row in reader:
                if None in row:
                    raise CSVError(f"{path}:{reader.line_num}: more fields than the header has columns")
                row["_line"] = reader.line_num
                rows.append(row)
    except OSError as e:
        raise CSVError(f"{path}: cannot read it ({e.strerror})")
    except (UnicodeDecodeError, csv.Error) as e:
        raise CSVError(f"{path}: not a CSV file ({e})")
    if not rows:
        raise CSVError(f"{path}: the header has no rows under it")
    return header, rows


def require(path, header, columns, what, hint=""):
    """Raises a CSVError naming the columns of `columns` that `header` lacks, what needs
    them, and (`hint`) what writes them."""
    missing = [c for c in columns if c not in header]
    if missing:
        s = "s" if len(missing) > 1 else ""
        raise CSVError(f"{path}: {what} needs the column{s} {', '.join(missing)}, which it lacks"
                       + (f" ({hint})" if hint else ""))


def number(path, row, column):
    """A column's value as a float (`nan` stays nan), or a CSVError naming file, line and column."""
    text = row[column]
    try:
        return float(text)
    except ValueError:
        raise CSVError(f"{path}:{row['_line']}: column {column} is '{text}', not a number")


# --- the summary CSV --------------------------------------------------------------

IDENTITY = ["workload", "policy", "ram_mb", "devices", "duration_h", "seed"]
STRATEGIES = ["on_resign_active", "on_enter_background", "on_terminate", "periodic", "never"]
DELTAS = ["relaunch_cold_ratio", "relaunch_mean_ms", "relaunch_p99_ms", "data_loss_per_device_day"]
PERCENTILE = re.compile(r"^relaunch_p(\d+)(?:_(\d+))?_ms$")


def percentile_columns(header):
    """The relaunch_pNN_ms columns (all relaunches, not one kind's), as (column, fraction), in order."""
    out = []
    for c in header:
        m = PERCENTILE.match(c)
        if m:
            out.append((c, float(m.group(1) + ("." + m.group(2) if m.group(2) else "")) / 100))
    return sorted(out, key=lambda p: p[1])


class Summary:
    """A summary CSV's cells: each row with its dimensions (`ram_mb` and every key of its
    `overrides` column), the dimensions that vary, and what the caption says."""

    def __init__(self, path):
        self.path = path
        self.header, self.rows = read(path)
        if "varied" in self.header and "effect" in self.header:
            raise CSVError(f"{path}: a sensitivity CSV, not a summary: the tornado chart is the one for it")
        require(path, self.header, IDENTITY, "every chart of a summary CSV",
                "is it a CSV that jetsim run, sweep or merge wrote?")
        keys = []  # override keys in first-seen order
        for r in self.rows:
            dims = {"ram_mb": r["ram_mb"]}
            for part in (r.get("overrides") or "").split(";"):
                if not part:
                    continue
                key, eq, value = part.partition("=")
                if not eq:
                    raise CSVError(f"{path}:{r['_line']}: the overrides column has '{part}', not KEY=VALUE")
                dims[key] = value
                if key not in keys:
                    keys.append(key)
            r["_dims"] = dims
        for r in self.rows:  # a key a row does not set is as shipped
            for k in keys:
                r["_dims"].setdefault(k, "as shipped")
        self.keys = ["ram_mb"] + keys
        self.varying = [k for k in self.keys if len({r["_dims"][k] for r in self.rows}) > 1]
        self.fixed = {k: self.rows[0]["_dims"][k] for k in self.keys if k not in self.varying}

    def policies(self):
        return list(dict.fromkeys(r["policy"] for r in self.rows))

    def keep_policies(self, wanted):
        """Keeps the rows of the policies named (the `--policy` filter); an unknown name is an error."""
        have = self.policies()
        unknown = [p for p in wanted if p not in have]
        if unknown:
            raise CSVError(f"{self.path}: no rows for policy {', '.join(unknown)} (it has {', '.join(have)})")
        self.rows = [r for r in self.rows if r["policy"] in wanted]

    def values(self, key):
        """The distinct values of a dimension, sorted numerically when they all are numbers."""
        return sort_values({r["_dims"][key] for r in self.rows})

    def caption(self):
        """Workload, devices, duration and seed (each, or the values it takes), the fixed
        overrides, and the file: the line every chart of this CSV carries."""
        def spread(col, fmt=str):
            vals = list(dict.fromkeys(r[col] for r in self.rows))
            return fmt(vals[0]) if len(vals) == 1 else " / ".join(fmt(v) for v in vals)
        for r in self.rows:  # a duration the caption can say (an empty one raised a traceback)
            h = number(self.path, r, "duration_h")
            if not math.isfinite(h) or h < 0:
                raise CSVError(f"{self.path}:{r['_line']}: column duration_h is '{r['duration_h']}', not a number of hours")
        parts = [f"workload {spread('workload')}",
                 f"{spread('devices')} devices x {spread('duration_h', duration)}",
                 f"seed {spread('seed')}"]
        fixed = [f"{k}={v}" for k, v in self.fixed.items() if k != "ram_mb" and v != "as shipped"]
        if "ram_mb" in self.fixed:
            parts.append(f"RAM {ram_label(self.fixed['ram_mb'])}")
        if fixed:
            parts.append("--set " + " ".join(fixed))
        return ", ".join(parts) + f"; data: {os.path.basename(self.path)}"


def duration(hours):
    """`duration_h` as a reader says it: 24.000 -> 1 day, 168.000 -> 7 days, 12.000 -> 12 h."""
    h = float(hours)
    if h % 24 == 0:
        d = int(h // 24)
        return f"{d} day" if d == 1 else f"{d} days"
    return f"{h:g} h"


def ram_label(mb):
    """2048 -> '2 GB', 1536 -> '1.5 GB' (powers of 1024, as jetsim writes sizes); 'mixed' stays."""
    try:
        return f"{float(mb) / 1024:g} GB"
    except ValueError:
        return "per device class" if mb == "mixed" else mb


def dim_label(key, value):
    """A facet's title: 'RAM 2 GB', 'user.sessions_per_day = 25'."""
    return f"RAM {ram_label(value)}" if key == "ram_mb" else f"{key} = {value}"


def sort_values(values):
    values = list(values)
    try:
        return sorted(values, key=float)
    except ValueError:
        return sorted(values)


def numeric(values):
    try:
        for v in values:
            if not math.isfinite(float(v)):
                return False
        return True
    except ValueError:
        return False


# --- the sensitivity CSV ----------------------------------------------------------

SENSITIVITY = ["workload", "ram_mb", "varied", "kind", "range", "metric", "policy", "baseline",
               "delta_center", "delta_center_ci95", "delta_low", "delta_low_ci95",
               "delta_high", "delta_high_ci95", "effect", "sign_flip"]


class Sensitivity:
    """`jetsim sensitivity`'s CSV, with its provenance sidecar when there is one (the
    devices, duration and seed are only there)."""

    def __init__(self, path):
        self.path = path
        self.header, self.rows = read(path)
        require(path, self.header, SENSITIVITY, "the tornado chart", "is it jetsim sensitivity's sensitivity.csv?")
        self.provenance = None
        try:
            with open(path + ".provenance.json", encoding="utf-8") as f:
                self.provenance = json.load(f)
        except (OSError, ValueError):
            pass

    def keep_policies(self, wanted):
        have = list(dict.fromkeys([r["policy"] for r in self.rows] + [r["baseline"] for r in self.rows]))
        unknown = [p for p in wanted if p not in have]
        if unknown:
            raise CSVError(f"{self.path}: no rows for policy {', '.join(unknown)} (it has {', '.join(have)})")
        self.rows = [r for r in self.rows if r["policy"] in wanted]

    def caption(self):
        workloads = " / ".join(dict.fromkeys(r["workload"] for r in self.rows))
        p = self.provenance
        seconds = None
        if isinstance(p, dict):
            try:
                seconds = float(p.get("duration_s"))
            except (TypeError, ValueError):
                seconds = None
        if isinstance(p, dict) and all(k in p for k in ("devices", "duration_s", "seed")) and seconds is not None \
                and math.isfinite(seconds) and seconds >= 0:
            run = f"{p['devices']} devices x {duration(seconds / 3600)}, seed {p['seed']}"
        elif isinstance(p, dict) and all(k in p for k in ("devices", "duration_s", "seed")):
            run = f"{p['devices']} devices, duration unknown (the sidecar's duration_s is {p['duration_s']!r}), seed {p['seed']}"
        else:
            run = "devices, duration and seed unknown (no provenance sidecar beside the CSV)"
        return f"workload {workloads}, {run}; data: {os.path.basename(self.path)}"
