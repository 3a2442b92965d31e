"""Nsight Compute warp states as syncbench reads them: the stall reasons,
results/<gpu>/stalls.csv, and the words the README's why-lines use. A
library of scripts/explain.py (which writes stalls.csv) and
scripts/answers.py (which quotes it); no command here."""
from __future__ import annotations

import re

import sbcsv

# Warp states, each a WarpStateStats metric
# smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio (warps
# in that state per issued instruction; `selected` is the issuing one).
# gmma exists from sm_90 on only.
REASONS = ["barrier", "membar", "long_scoreboard", "short_scoreboard", "mio_throttle",
           "math_pipe_throttle", "wait", "sleeping", "branch_resolving", "not_selected",
           "selected", "dispatch_stall", "drain", "lg_throttle", "tex_throttle",
           "no_instruction", "misc", "imc_miss", "gmma"]
def number(text):
    """An ncu cell as a float: thousands separators dropped; None for
    n/a, empty or text."""
    t = (text or "").strip().replace(",", "")
    if t.lower() in ("", "n/a", "nan", "-"):
        return None
    try:
        return float(t)
    except ValueError:
        return None


STALLS_REQUIRED = ("family", "variant", "share_barrier", "share_long_scoreboard")


def read_stalls(path):
    """stalls.csv rows, numbers as floats, axis cells as the sweep CSV's types.
    Raises sbcsv.CsvError (file:line) for a file that is not one: no such
    file, not text, no stall columns, a row cut short."""
    records = sbcsv.read_records(path)
    if not records:
        raise sbcsv.CsvError(f"{path}:1: empty file: not a stalls.csv (scripts/explain.py writes one)")
    header = records[0]
    missing = [c for c in STALLS_REQUIRED if c not in header]
    if missing:
        raise sbcsv.CsvError(f"{path}:1: missing column(s) {', '.join(missing)}: not a stalls.csv "
                             f"(scripts/explain.py writes one)")
    rows = []
    for line, record in enumerate(records[1:], start=2):
        if not record:
            continue
        if len(record) != len(header):
            raise sbcsv.CsvError(f"{path}:{line}: {len(record)} fields, the header has {len(header)} "
                                 f"(truncated or malformed row)")
        row = {}
        for c, v in zip(header, record):
            if c.startswith("share_") or c.endswith("_pct") or c == "duration_us":
                row[c] = number(v)
            elif v != "" and (c in sbcsv.INT_COLUMNS or c == "kernels") and re.fullmatch(r"-?\d+", v):
                row[c] = int(v)
            else:
                row[c] = v if v != "" else None
        rows.append(row)
    return rows


def dominant(row, n=1):
    shares = sorted(((row.get(f"share_{r}") or 0.0, r) for r in REASONS if r != "selected"),
                    reverse=True)
    return shares[:n]


def reason_words(reason):
    return {"barrier": "at barriers", "membar": "at memory barriers",
            "long_scoreboard": "on global/L2 data (long scoreboard)",
            "short_scoreboard": "on shared memory (short scoreboard)",
            "wait": "on fixed waits", "sleeping": "sleeping",
            "branch_resolving": "resolving branches",
            "math_pipe_throttle": "on a busy math pipe",
            "mio_throttle": "on the MIO queue", "lg_throttle": "on the LSU queue",
            "gmma": "on wgmma", "not_selected": "eligible, not selected"}.get(reason, f"on {reason}")


def why_text(pairs):
    """One variant: its largest stall. Two (the chosen one, the baseline):
    the stall whose share differs most between them, both shares, then
    where each waits most."""
    if len(pairs) == 1:
        (v, row), = pairs
        share, reason = dominant(row)[0]
        return f"`{v}`: {share:.0%} of warp cycles {reason_words(reason)}"
    (a, ra), (b, rb) = pairs
    share = lambda row, r: row.get(f"share_{r}") or 0.0  # noqa: E731
    differs = max((r for r in REASONS if r != "selected"),
                  key=lambda r: abs(share(ra, r) - share(rb, r)))
    text = (f"`{a}` {share(ra, differs):.0%} of warp cycles {reason_words(differs)}, "
            f"`{b}` {share(rb, differs):.0%}")
    (sa, da), (sb, db) = dominant(ra)[0], dominant(rb)[0]
    if da == db == differs:
        return text + ", where both wait most"
    if da == db:
        return text + f"; both wait most {reason_words(da)} ({sa:.0%}, {sb:.0%})"
    return (text + f"; most: `{a}` {reason_words(da)} ({sa:.0%}), "
            f"`{b}` {reason_words(db)} ({sb:.0%})")




if __name__ == "__main__":
    import sys
    print("usage: import sbstalls (scripts/sbstalls.py is a module of explain.py and answers.py, "
          "not a command)\n")
    print(__doc__.strip())
    sys.exit(0)
