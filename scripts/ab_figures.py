#!/usr/bin/env python3
"""The figures of an A/A or planted A/B run (docs/REGRESSIONS.md, "A/B on one
GPU"), from the two CSVs scripts/ab.py wrote, as the gate reads them:

    python3 scripts/ab_figures.py A.csv B.csv [--plant FAMILY/VARIANT] [--variants RE]

Per run: the gate's verdict with --interleaved; GEMM's gated figure (the
variant's own fastest sample) and, beside it, the paired ceiling ratio the
gate reads between machines: median and worst move, points over 3%; every
other gated point's move (machine-bound ones left out). With --plant: how many
points of the planted variant moved 3% or more and how many of those the
gate flagged, and which points of other variants it flagged (none is the
pass). With --variants RE: one line per variant whose family/variant
matches RE: its points' moves of the gated figure and its shift (the
Hodges-Lehmann estimate rule B reads). With --estimators: per family, the
moves of each reading of a point's samples both CSVs hold (min_us, p05_us,
p10_us, q1_us, median_us): in an A/A, the reading that holds across the
two processes. With --families: issue 52's measure of an A/A, per family:
the median and worst move of each point's gated figure (as the A/B gate
reads it, power-state points included) and every point beyond 3%, named.
Exit status 0, or 2 for unusable input (one line).
"""
from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.join(HERE, "lib"))  # the library: sbcsv, sbcompare, ...
import sbdeps  # noqa: E402,F401  (a missing package: one line, exit 2)
import sbcompare  # noqa: E402
import sbcsv  # noqa: E402


def moves(values):
    """'median m%, worst w%, k of n over 3%' over |move| in percent."""
    if not values:
        return "-"
    return (f"median {statistics.median(values):.2f}%, worst {max(values):.2f}%, "
            f"{sum(v > 3 for v in values)} of {len(values)} over 3%")


def load_pair(base_path, new_path):
    """The two runs of one interleaved A/B: one GPU (the same gpu_uuid on
    both sides), else sbcsv.CsvError: the figures read them as the A/B gate
    does, which two GPUs' runs are not."""
    base, new = sbcompare.load_run(base_path), sbcompare.load_run(new_path)
    why = sbcompare.not_one_gpu(base, new)
    if why:
        raise sbcsv.CsvError(f"{why}: an A/B run's two sides ran interleaved on one GPU")
    return base, new


def figures(base_path, new_path, plant=None):
    """The lines this script prints for one pair of CSVs."""
    base, new = load_pair(base_path, new_path)
    if plant and not any(f"{r['family']}/{r['variant']}" == plant for r in base.rows):
        raise sbcsv.CsvError(f"{base.path}: --plant {plant}: no point of that family/variant in the run")
    cmp = sbcompare.compare(base, new, bands=sbcompare.load_bands(), interleaved=True)
    regressions = [m for m in cmp.matches if m.verdict == "slower"]
    gated = [m for m in cmp.matches if not m.gated_out]
    own = [abs(m.gated - 1) * 100 for m in gated if m.figure in sbcompare.OWN_SAMPLE]
    paired = [abs(m.base[m.column] / m.new[m.column] - 1) * 100 for m in gated
              if m.figure in sbcompare.OWN_SAMPLE and m.base.get(m.column) and m.new.get(m.column)]
    other = [abs(m.gated - 1) * 100 for m in gated if m.figure not in sbcompare.OWN_SAMPLE]
    lines = [f"{new_path}: {len(regressions)} regression(s), {len(cmp.broken)} broken, "
             f"{len(cmp.matches)} points ({len(cmp.unjudged)} unjudged)",
             f"  gemm, own samples (gated: {', '.join(sorted({sbcompare.OWN_SAMPLE[m.figure] for m in gated if m.figure in sbcompare.OWN_SAMPLE})) or '-'}): {moves(own)}",
             f"  gemm, paired ceiling ratio (not gated in A/B): {moves(paired)}",
             f"  every other gated point: {moves(other)}"]
    if plant:
        planted = [m for m in gated if f"{m.base['family']}/{m.base['variant']}" == plant]
        big = [m for m in planted if m.gated >= 1.03]
        flagged = [m for m in big if m.verdict == "slower"]
        others = [sbcompare.describe_point(m.base) for m in regressions if m not in planted]
        lines.append(f"  plant {plant}: {len(planted)} points, {len(big)} moved 3% or more, "
                     f"{len(flagged)} of them flagged; other points flagged: "
                     f"{', '.join(others) or 'none'}")
    return lines


def variant_lines(base_path, new_path, pattern):
    """Per variant matching pattern: median and worst |move| of the gated
    figure, and its shift, as the gate reads an A/B run (no bands)."""
    cmp = sbcompare.compare(sbcompare.load_run(base_path), sbcompare.load_run(new_path),
                            interleaved=True)
    groups = {}
    for m in cmp.matches:
        name = "/".join(sbcompare.by_variant(m))
        if re.search(pattern, name) and not m.power_state:
            groups.setdefault(name, []).append(m.gated)
    lines = []
    for name, gated in groups.items():
        shift = math.expm1(sbcompare.shift_estimate([math.log(g) for g in gated])) * 100
        lines.append(f"  {name}: {len(gated)} points, "
                     f"{moves([math.expm1(abs(math.log(g))) * 100 for g in gated])}, "
                     f"shift {shift:+.2f}%")
    return lines


def family_lines(base_path, new_path, over=3.0):
    """Per family: median and worst |move| of every point's gated figure
    (the A/B gate's reading, with the points whose power state moved), and
    the points that moved more than `over` percent, worst first."""
    cmp = sbcompare.compare(sbcompare.load_run(base_path), sbcompare.load_run(new_path),
                            interleaved=True)
    by_family = {}
    for m in cmp.matches:
        if not m.gated_out:
            by_family.setdefault(m.base["family"], []).append(m)
    lines = []
    for family, ms in sorted(by_family.items()):
        move = {id(m): math.expm1(abs(math.log(m.gated))) * 100 for m in ms}
        lines.append(f"  {family}: {len(ms)} points, median {statistics.median(move.values()):.2f}%, "
                     f"worst {max(move.values()):.2f}%, {sum(v > over for v in move.values())} over {over:g}%")
        for m in sorted(ms, key=lambda m: -move[id(m)]):
            if move[id(m)] > over:
                lines.append(f"    {move[id(m)]:.2f}% ({m.figure}) {sbcompare.describe_point(m.base)}")
    return lines


ESTIMATORS = ("min_us", "p01_us", "p05_us", "p10_us", "q1_us", "median_us")


def estimator_lines(base_path, new_path):
    """Per family: each sample reading's |move| over the points both runs
    have ok (the readings both CSVs carry; p05_us and p10_us from schema 12,
    p01_us from 13)."""
    base, new = sbcompare.load_run(base_path), sbcompare.load_run(new_path)
    cmp = sbcompare.compare(base, new, interleaved=True)
    columns = [c for c in ESTIMATORS if c in base.columns and c in new.columns]
    by_family = {}
    for m in cmp.matches:
        by_family.setdefault(m.base["family"], []).append(m)
    lines = []
    for family, ms in sorted(by_family.items()):
        for c in columns:
            v = [abs(m.new[c] / m.base[c] - 1) * 100 for m in ms if m.base.get(c) and m.new.get(c)]
            lines.append(f"  {family} {c}: {moves(v)}")
    return lines


def regex(text):
    try:
        return re.compile(text)
    except re.error as e:
        raise argparse.ArgumentTypeError(f"'{text}': not a regular expression ({e})") from None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--plant", metavar="FAMILY/VARIANT", help="the planted variant")
    ap.add_argument("--variants", metavar="RE", type=regex,
                    help="also one line per variant whose family/variant matches RE")
    ap.add_argument("--estimators", action="store_true",
                    help="also each sample reading's moves, per family")
    ap.add_argument("--families", action="store_true",
                    help="also per family the gated figure's median and worst move, and each point beyond 3%%")
    args = ap.parse_args(argv)
    try:
        for line in figures(args.base, args.new, args.plant):
            print(line)
        for line in variant_lines(args.base, args.new, args.variants) if args.variants else ():
            print(line)
        for line in estimator_lines(args.base, args.new) if args.estimators else ():
            print(line)
        for line in family_lines(args.base, args.new) if args.families else ():
            print(line)
    except sbcsv.CsvError as e:
        print(f"ab_figures.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
