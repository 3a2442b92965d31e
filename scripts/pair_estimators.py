#!/usr/bin/env python3
"""How much would each way of reading the paired samples move between two
runs? Reads two SB_PAIRS_FILE dumps (one JSON line per paired point: its
variant and ceiling samples in the order taken, harness/paired.h), computes
each estimator of the ceiling ratio on both, and prints, per estimator, how
far the two runs disagree: the A/A noise that a gate on that estimator
would have to tolerate (docs/REGRESSIONS.md).

  python scripts/pair_estimators.py A.jsonl[.xz] B.jsonl[.xz] [--prefix gemm/]

Exit status: 0, or 2 for unusable input (one line naming file and line).
"""
from __future__ import annotations

import argparse
import json
import lzma
import math
import statistics
import sys


def quantile(xs, p):
    """The p-quantile by linear interpolation (the harness's type 7)."""
    xs = sorted(xs)
    h = (len(xs) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


def blocks(v, c):
    """Per v c c v block: the block's ceiling time / its variant time."""
    return [(c[2 * i] + c[2 * i + 1]) / (v[2 * i] + v[2 * i + 1]) for i in range(len(v) // 2)]


def whole(v):
    """Samples in whole v c c v blocks, as the harness counts them (a
    trailing odd pair has no partner)."""
    return len(v) - len(v) % 2 if len(v) > 1 else len(v)


# name -> (what it is, ceiling/variant ratio from the samples)
ESTIMATORS = {
    "fastest": ("fastest(ceiling) / fastest(variant) (the harness for gemm, schema 6)",
                lambda v, c: min(c[:whole(v)]) / min(v[:whole(v)])),
    "block": ("median of per-block ratios (schema 4-5; devscan from 6)",
              lambda v, c: statistics.median(blocks(v, c))),
    "ratio_of_medians": ("median(ceiling) / median(variant) (schema 3)",
                         lambda v, c: statistics.median(c) / statistics.median(v)),
    "pair_median": ("median of per-pair ratios",
                    lambda v, c: statistics.median(ci / vi for vi, ci in zip(v, c))),
    "q25": ("lower quartile(ceiling) / lower quartile(variant)",
            lambda v, c: quantile(c, 0.25) / quantile(v, 0.25)),
}


class DumpError(Exception):
    pass


def load(path):
    """{point: (variant samples, ceiling samples)} of one dump."""
    opener = lzma.open if path.endswith(".xz") else open
    points = {}
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                try:
                    d = json.loads(line)
                    v, c = d["variant_s"], d["ceiling_s"]
                    if len(v) != len(c) or len(v) < 2 or min(v) <= 0 or min(c) <= 0:
                        raise ValueError("needs two or more positive samples on each side, as many")
                    points[d["point"]] = (v, c)
                except (ValueError, KeyError, TypeError) as e:
                    raise DumpError(f"{path}:{number}: not a paired-samples line ({e})") from None
    except OSError as e:
        raise DumpError(f"{path}: {e.strerror or e}") from None
    if not points:
        raise DumpError(f"{path}: no paired points")
    return points


def disagreement(a, b, prefix=""):
    """{estimator: [(|relative change| %, |change| in points, point), ...]}
    over the points both dumps hold."""
    common = sorted(p for p in a if p in b and p.startswith(prefix))
    out = {}
    for name, (_, f) in ESTIMATORS.items():
        rows = []
        for p in common:
            ra, rb = f(*a[p]), f(*b[p])
            rows.append((abs(ra / rb - 1) * 100, abs(ra - rb) * 100, p))
        out[name] = rows
    return out


def render(table):
    lines = ["estimator         points  median %  p90 %  worst %  >3%  >1 point  worst point"]
    for name, rows in table.items():
        if not rows:
            continue
        d = [r[0] for r in rows]
        worst = max(rows)
        lines.append(f"{name:<17} {len(rows):>6}  {statistics.median(d):>8.2f} {quantile(d, 0.9):>6.2f} "
                     f"{worst[0]:>8.2f} {sum(1 for x in d if x > 3):>4} {sum(1 for r in rows if r[1] > 1):>9}"
                     f"  {worst[2]}")
    lines += ["", *(f"{name}: {what}" for name, (what, _) in ESTIMATORS.items())]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", help="SB_PAIRS_FILE dump of run A (.xz allowed)")
    ap.add_argument("b", help="the same sweep's dump of run B")
    ap.add_argument("--prefix", default="", help="only points whose name starts so (e.g. gemm/)")
    args = ap.parse_args(argv)
    try:
        table = disagreement(load(args.a), load(args.b), args.prefix)
    except DumpError as e:
        print(f"pair_estimators.py: {e}", file=sys.stderr)
        return 2
    if not any(table.values()):
        print("pair_estimators.py: the two dumps share no paired point"
              + (f" starting with {args.prefix!r}" if args.prefix else ""), file=sys.stderr)
        return 2
    print(render(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
