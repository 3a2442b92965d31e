#!/usr/bin/env python3
"""Reads the folder scripts/devscan_tuning.sh wrote and prints what it
measured (docs/devscan.md, "Tuning the look-back"), as Markdown:

    devscan_tuning.py DIR [--out FILE]

- copy: each repetition's device-to-device copy (GB/s, the 100% of
  pct_of_copy) and the reference family's kernel copy as % of it;
- tuning (tuning_<r>.csv): every tuned setting of the look-back rows at
  256M, % of copy over the repetitions (lowest, median, highest) and the
  median % of CUB, best lowest first; `today` marks the default sweep's
  setting run by the row's own kernel, `today (instance)` the same values
  through a tuning instance (sleep_min_tiles one above today's: the same
  sleeps wherever the grid has more tiles than that), and `beats today` a
  setting whose lowest is above the highest of today's setting of the same
  row and shape (the only reading that survives the spread between
  processes), today's instance form where the folder has it: the other
  settings run instances, and an instance may time apart from the row's
  kernel (docs/devscan.md, "The measurement");
- threshold (threshold_<r>.csv): the same by n and sleep_min_tiles;
- pipeline (pipeline_<r>.csv): the best pipeline point per repetition,
  beside the kernel copy of the same process.

Rows are found by their traits in results/variants.csv (lookback_tuning,
ceiling, yardstick), not by name; a setting is the row's key (variant,
block_threads, elems_per_thread, n, window, first_sleep_ns, poll_sleep_ns,
sleep_min_tiles). Only ok rows count. Exit status: 0, 2 on unusable input
(no CSV of a kind, an unreadable file).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library
import sbcsv  # noqa: E402
import sbvariants  # noqa: E402

TUNING = ("window", "first_sleep_ns", "poll_sleep_ns", "sleep_min_tiles")
KINDS = ("tuning", "threshold", "pipeline")


def read_kind(folder, kind):
    """[(repetition, rows)] of DIR/<kind>_<r>.csv (or .csv.xz, a committed
    proof's), by repetition."""
    paths = sorted(sbcsv.csv_files(os.path.join(folder, f"{kind}_*.csv")),
                   key=lambda p: (len(p), p))
    if not paths:
        raise sbcsv.CsvError(f"{folder}: no {kind}_<r>.csv (run scripts/devscan_tuning.sh first)")
    return [(os.path.basename(p).split(".")[0][len(kind) + 1:], sbcsv.read(p)) for p in paths]


def ok(rows):
    return [r for r in rows if r["status"] == "ok"]


def tuned_rows(rows):
    tuned = set(sbvariants.family("devscan").with_flag("lookback_tuning"))
    return [r for r in ok(rows) if r["family"] == "devscan" and r["variant"] in tuned]


def key(r):
    return (r["variant"], r["block_threads"], r["elems_per_thread"], r["n"],
            *(r.get(a) for a in TUNING))


def spread(values):
    return min(values), statistics.median(values), max(values)


def setting_table(reps):
    """{key: (lowest, median, highest, median % of CUB, repetitions)}."""
    by = {}
    for _, rows in reps:
        for r in tuned_rows(rows):
            if r.get("pct_of_copy") is None:
                continue
            by.setdefault(key(r), []).append((r["pct_of_copy"], r.get("pct_of_cub")))
    out = {}
    for k, vals in by.items():
        lo, med, hi = spread([v for v, _ in vals])
        cub = [c for _, c in vals if c is not None]
        out[k] = (lo, med, hi, statistics.median(cub) if cub else None, len(vals))
    return out


def is_today(k, today):
    return tuple(k[4:]) == today


def is_today_instance(k, today):
    """Today's window and sleeps through a tuning instance: the threshold
    one above today's (scripts/devscan_tuning.sh's 501)."""
    return tuple(k[4:-1]) == today[:-1] and k[-1] == today[-1] + 1


def fmt(x, digits=1):
    return "" if x is None else f"{x:.{digits}f}"


def table(title, headers, rows):
    lines = [f"### {title}", "", "| " + " | ".join(headers) + " |",
             "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines + [""]


def settings_section(title, reps, today):
    stats = setting_table(reps)
    # the bar: today's highest through an instance where there is one, else the row's kernel's
    best_today = {k[:4]: s[2] for k, s in stats.items() if is_today(k, today)}
    best_today.update({k[:4]: s[2] for k, s in stats.items() if is_today_instance(k, today)})
    order = sorted(stats, key=lambda k: (-stats[k][0], k[0], str(k)))
    rows = []
    for k in order:
        lo, med, hi, cub, n = stats[k]
        mark = "today" if is_today(k, today) else "today (instance)" if is_today_instance(k, today) else (
            "beats today" if k[:4] in best_today and lo > best_today[k[:4]] else "")
        rows.append([f"`{k[0]}`", f"{k[1]}x{k[2]}", k[3], *(fmt(v, 0) for v in k[4:]),
                     f"{fmt(lo)} / {fmt(med)} / {fmt(hi)}", fmt(cub), n, mark])
    headers = ["variant", "tile", "n", *TUNING, "% of copy (lowest / median / highest)",
               "% of CUB (median)", "repetitions", ""]
    return table(title, headers, rows)


def yardstick_rows():
    """The copy every pct_of_copy is against (reference/d2d_copy)."""
    return {v for f in sbvariants.yardstick_families() for v in sbvariants.family(f).with_flag("yardstick")}


def copy_section(reps_by_kind):
    yard = yardstick_rows()
    rows = []
    for kind, reps in reps_by_kind.items():
        for rep, rs in reps:
            ref = [r for r in ok(rs) if sbvariants.is_yardstick(r["family"])]
            d2d = [r["gbps"] for r in ref if r["variant"] in yard]
            kernel = [(r["variant"], r["pct_of_copy"]) for r in ref if r["variant"] not in yard]
            rows.append([kind, rep, fmt(d2d[0], 0) if d2d else "not ok",
                         ", ".join(f"`{v}` {fmt(p)}%" for v, p in kernel) or "not ok"])
    return table("The copies", ["sweep", "repetition", "device-to-device copy GB/s",
                                "kernel copy, % of that copy"], rows)


def pipeline_section(reps):
    yard = yardstick_rows()
    rows = []
    for rep, rs in reps:
        pipe = [r for r in ok(rs) if not sbvariants.is_yardstick(r["family"])
                and r.get("pct_of_copy") is not None]
        kernel = [r["pct_of_copy"] for r in ok(rs)
                  if sbvariants.is_yardstick(r["family"]) and r["variant"] not in yard
                  and r.get("pct_of_copy") is not None]
        best = max(pipe, key=lambda r: r["pct_of_copy"], default=None)
        rows.append([rep, f"`{best['variant']}` stages {best['stages']} x {best['buffer_bytes']} B: "
                     f"{fmt(best['pct_of_copy'])}%" if best else "no ok row",
                     f"{fmt(kernel[0])}%" if kernel else "not ok"])
    return table("The pipeline beside the kernel copy",
                 ["repetition", "best pipeline point, % of copy", "kernel copy, % of copy"], rows)


def check_table():
    """The variant table knows the tuning axes (schema 10 on)."""
    fam = sbvariants.family("devscan")
    missing = [a for a in TUNING if not fam or a not in fam.axes]
    if missing:
        raise sbcsv.CsvError(f"results/variants.csv: devscan has no axis {', '.join(missing)}")


def report(folder, today):
    reps = {kind: read_kind(folder, kind) for kind in KINDS}
    lines = [f"## The look-back's tuning: {folder}", ""]
    lines += copy_section(reps)
    lines += settings_section("The look-back at 256M, by setting", reps["tuning"], today)
    lines += settings_section("The sleep threshold, by n", reps["threshold"], today)
    lines += pipeline_section(reps["pipeline"])
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="what scripts/devscan_tuning.sh wrote")
    ap.add_argument("--out", help="write the Markdown here instead of stdout")
    ap.add_argument("--today", default="32,3000,648,500",
                    help="the default sweep's window,first_sleep_ns,poll_sleep_ns,sleep_min_tiles "
                         "(default: today's, docs/devscan.md)")
    args = ap.parse_args(argv)
    try:
        today = tuple(int(v) for v in args.today.split(","))
        if len(today) != len(TUNING):
            raise ValueError
    except ValueError:
        print(f"devscan_tuning.py: --today takes {len(TUNING)} whole numbers, not '{args.today}'",
              file=sys.stderr)
        return 2
    try:
        check_table()
        text = report(args.folder, today)
    except sbcsv.CsvError as e:
        print(f"devscan_tuning.py: {e}", file=sys.stderr)
        return 2
    if args.out:
        try:
            sbcsv.write_atomically(args.out, text + "\n")
        except OSError as e:
            print(f"devscan_tuning.py: {args.out}: {e.strerror or e}", file=sys.stderr)
            return 2
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
