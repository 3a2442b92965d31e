#!/usr/bin/env python3
"""syncbench's time over its plain twin's, point by point: reads the lines
of build/plain_kernels (tests/gpu/plain_kernels.cu; gpu_round.sh step p's
plain.txt) and a syncbench CSV from the same run, and prints one row per
plain line whose point the CSV has (same family, variant, block_threads,
elems_per_thread, iters and n) with both medians and their ratio. Lines
without iters (devscan's) are not points of this kind and are passed over.

    plain_ratio.py plain.txt latest.csv [--family multistage] [--limit 1.05]

--limit marks the rows whose ratio exceeds it (issue 20's bound for
multistage/uniform is 1.05). Exit status 1 only when no row matched (the
two files do not describe the same points); the ratio itself never fails.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import sbcsv  # noqa: E402

LINE = re.compile(r"^(?P<family>\w+)/(?P<variant>\w+)\s+B=\s*(?P<block>\d+)\s+E=(?P<elems>\d+)\s+"
                  r"iters=\s*(?P<iters>\d+)\s+n=(?P<n>\d+)\s+(?P<status>ok|WRONG)\s+"
                  r"(?P<us>[0-9.]+|nan)\s+us")


def parse_plain(path):
    """One dict per timed plain line (family, variant, block, elems, iters, n, status, us)."""
    points = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                d = m.groupdict()
                points.append({**{k: int(d[k]) for k in ("block", "elems", "iters", "n")},
                               "family": d["family"], "variant": d["variant"],
                               "status": d["status"], "us": float(d["us"])})
    return points


def matches(row, p):
    """A CSV row is the plain line's point; a family without elems_per_thread
    (scan) runs one element per thread."""
    return (row["family"] == p["family"] and row["variant"] == p["variant"]
            and row["block_threads"] == p["block"] and row["iters"] == p["iters"]
            and row["n"] == p["n"] and (row.get("elems_per_thread") or 1) == p["elems"])


def pairs(points, rows, family=None):
    """(plain point, CSV row) for every plain point the CSV has."""
    return [(p, r) for p in points if family is None or p["family"] == family
            for r in rows if matches(r, p)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("plain")
    ap.add_argument("csv")
    ap.add_argument("--family")
    ap.add_argument("--limit", type=float, default=1.05)
    a = ap.parse_args(argv)
    found = pairs(parse_plain(a.plain), sbcsv.read(a.csv), a.family)
    print(f"{'point':<44} {'plain us':>9} {'syncbench us':>12} {'ratio':>6}")
    for p, r in found:
        point = (f"{p['family']}/{p['variant']} B={p['block']} E={p['elems']} "
                 f"iters={p['iters']} n={p['n']}")
        if p["status"] != "ok" or r["status"] != "ok" or r["median_us"] is None:
            print(f"{point:<44} plain {p['status']}, syncbench {r['status']}")
            continue
        ratio = r["median_us"] / p["us"]
        mark = f"  > {a.limit:g}" if ratio > a.limit else ""
        print(f"{point:<44} {p['us']:>9.1f} {r['median_us']:>12.1f} {ratio:>6.3f}{mark}")
    if not found:
        print("plain_ratio: no plain line matches a row of the CSV", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
