#!/usr/bin/env python3
"""What the mbarrier deadlock watchdog costs: compares sweeps of the default
build against `make SB_WATCHDOG=0` builds, point by point.

Usage: watchdog_cost.py --nowd A1.csv A2.csv --wd B1.csv B2.csv
The runs should alternate (A1, B1, A2, B2). Per point, each side's value is
the mean of its runs: cycles_per_op where the row has it (barrier
families), else median_us. Prints, per variant, the geometric mean, min and
max of watchdog / no-watchdog, beside the A/A noise of the no-watchdog runs
(the geometric mean of |A1/A2 - 1|), so a cost can be told from noise.
Exit 0 always when the CSVs are readable (the numbers are the verdict);
2 on unreadable input."""
import argparse
import os
import sys
from collections import defaultdict

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, SCRIPTS)
sys.path.insert(1, os.path.join(SCRIPTS, "lib"))  # the library: sbcsv, sbcompare, ...
import sbcsv  # noqa: E402
import sbvariants  # noqa: E402
from sbcompare import geomean  # noqa: E402


def metric(row):
    """The point's figure of merit, and its name."""
    if row.get("cycles_per_op") is not None:
        return row["cycles_per_op"], "cycles_per_op"
    return row["median_us"], "median_us"


def load(paths):
    """{point key: [value per run]} over the ok rows, and each key's metric name."""
    values, names = defaultdict(list), {}
    for path in paths:
        for row in sbcsv.read(path):
            if row["status"] != "ok" or sbvariants.is_yardstick(row["family"]):
                continue
            v, name = metric(row)
            if v is not None and v > 0:
                values[sbcsv.key(row)].append(v)
                names[sbcsv.key(row)] = name
    return values, names


def summarize(nowd_paths, wd_paths):
    """Per (family, variant): points, metric, geomean/min/max ratio wd/nowd,
    A/A noise (geomean |ratio - 1| of the first two nowd runs, or None)."""
    nowd, names = load(nowd_paths)
    wd, _ = load(wd_paths)
    groups = defaultdict(lambda: {"ratios": [], "aa": []})
    for k, a in nowd.items():
        b = wd.get(k)
        if not b or len(a) != len(nowd_paths) or len(b) != len(wd_paths):
            continue  # a point must be ok in every run to count
        g = groups[(k[0], k[1], names[k])]
        g["ratios"].append((sum(b) / len(b)) / (sum(a) / len(a)))
        if len(a) >= 2:
            g["aa"].append(abs(a[1] / a[0] - 1.0))
    out = []
    for (fam, var, name), g in sorted(groups.items()):
        r = g["ratios"]
        aa = geomean([x + 1e-6 for x in g["aa"]]) if g["aa"] else None
        out.append((fam, var, name, len(r), geomean(r), min(r), max(r), aa))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nowd", nargs="+", required=True, help="CSVs of the SB_WATCHDOG=0 build")
    p.add_argument("--wd", nargs="+", required=True, help="CSVs of the default build")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table")
    a = p.parse_args(argv)
    try:
        rows = summarize(a.nowd, a.wd)
    except sbcsv.CsvError as e:
        print(f"watchdog_cost: {e}", file=sys.stderr)
        return 2
    if not rows:
        print("watchdog_cost: no point is ok in every run", file=sys.stderr)
        return 2
    head = ["family", "variant", "metric", "points", "watchdog / none (geomean)", "min", "max",
            "A/A noise"]
    lines = [[f, v, m, str(n), f"x{g:.4f}", f"x{lo:.4f}", f"x{hi:.4f}",
              "-" if aa is None else f"{aa * 100:.2f}%"] for f, v, m, n, g, lo, hi, aa in rows]
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for l in lines:
            print("| " + " | ".join(l) + " |")
    else:
        w = [max(len(x) for x in col) for col in zip(head, *lines)]
        for l in [head] + lines:
            print("  ".join(x.ljust(n) for x, n in zip(l, w)).rstrip())
    allr = [r for *_, n, g, lo, hi, aa in rows for r in [g] * n]
    print(f"overall: x{geomean(allr):.4f} over {len(allr)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
