#!/usr/bin/env python3
"""Fits and checks splits=auto's cost model (sb_gemm_auto_splits in
kernels/gemm/gemm_schedule_math.h) against the committed H100 split-K measurements.

The model (gemm_schedule_math.h has the why): for s slices of `tiles` output tiles
of kts k-tiles on `sms` SMs,

    T(s) = waves(s) ceil(kts / s) max(1, conc(s) / (MEM sqrt(tiles)))
         + RED tiles s / sms,     waves = ceil(tiles s / sms),
                                  conc = min(tiles s, sms),

and auto runs the s in [1, min(kts / 8, 32)] with the lowest T (ties: the
smaller s). cost() is the header's integer arithmetic, exactly.

The data: every ok row of DATA of the variant that the split-count probe
(DATA's first file) ran, `splitk_reduce`, keyed by (m, k, tile) and the
count it ran (splits_used: an explicit count, or what auto chose, which is
a measurement of that count too). A count's value at a shape is the mean
of its readings (% of cuBLAS of the same run); the best count is the one
with the highest mean. The model's choice at a shape is
  ok          measured, within GAP_PP of the best;
  bad         measured, more than GAP_PP below the best;
  bounded     not run, but between two run counts lo < s < hi that fit in
              one wave (tiles hi <= sms), both within GAP_PP of the best:
              within one wave the measured curves have one peak, so s
              does at least as well as the worse of lo and hi (across
              waves they do not: 1152^2 runs 1 > 2 < 3);
  unverified  none of these: a GPU run of that count decides.
The default sweep's shapes (DEFAULT_SHAPES) must choose a measured count
at >= 95 % of cuBLAS or their best measured count.

The fit: MEM over MEM_GRID, RED over RED_GRID; a point passes when no
choice is bad and the default shapes hold; of the passing points, the one
with the fewest unverified choices, then the most passing neighbours
(the largest square of passing grid points around it), then the smallest
total gap, then the smaller constants.

    fit_auto_splits.py              the fit, and every shape's verdict
    fit_auto_splits.py --map        the pass map over the grid
    fit_auto_splits.py --table      docs/gemm.md's table (header constants)
    fit_auto_splits.py --probe      the syncbench runs that would measure
                                    the unverified choices
Exit 0; 1 when the header's constants fail the checks; 2 on unreadable input.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import sbcsv  # noqa: E402
import sbvariants  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADER = os.path.join(ROOT, "kernels", "gemm", "gemm_schedule_math.h")
H100 = os.path.join("results", "h100-80gb-hbm3")
# (path relative to ROOT, label in the table)
DATA = [
    (os.path.join(H100, "proofs", "round_075319f", "splits.csv"), "R"),
    (os.path.join(H100, "proofs", "offsweep_4152772", "gemm.csv.xz"), "O"),
    (os.path.join(H100, "proofs", "offsweep_2f31c13", "gemm.csv"), "A"),
    # the 62fd08f pair (two machines), the last whose default sweep ran both
    # tiles at every splits count at the K-heavy shapes
    (os.path.join(H100, "history", "20261126T180149Z_62fd08f_bf319e44.csv"), "L"),
    (os.path.join(H100, "history", "20261126T175309Z_62fd08f_082aa943.csv"), "B"),
]
SMS = 132  # every row of DATA: H100 80GB HBM3
FAMILY = "gemm"
GAP_PP = 3.0
DEFAULT_PCT = 95.0
DEFAULT_SHAPES = [(1024, 16384, "128x128x64"), (1024, 16384, "128x256x64"),
                  (512, 32768, "128x128x64"), (512, 32768, "128x256x64")]
MEM_GRID = list(range(24, 65, 2))
RED_GRID = list(range(8, 65, 4))
MIN_SLICE_KTS, MAX_SPLITS = 8, 32
BK = 64


def tile_dims(tile):
    bm, bn, _ = (int(x) for x in tile.split("x"))
    return bm, bn


def tiles_of(m, tile):
    bm, bn = tile_dims(tile)
    return (m // bm) * (m // bn)


def cost(s, tiles, kts, sms, mem, red):
    """sb_gemm_auto_cost: T(s) x 1024 x sms, in the header's integers."""
    blocks = tiles * s
    conc, waves, slice_ = min(blocks, sms), -(-blocks // sms), -(-kts // s)
    pace = max(1024, math.isqrt((conc * conc << 20) // (mem * mem * tiles)))
    return waves * slice_ * pace * sms + red * 1024 * blocks


def choose(tiles, kts, sms, mem, red):
    """sb_gemm_auto_splits."""
    if tiles < 1 or kts < 1 or sms < 1:
        return 1
    cap = min(kts // MIN_SLICE_KTS, MAX_SPLITS)
    best, best_cost = 1, cost(1, tiles, kts, sms, mem, red)
    for s in range(2, cap + 1):
        c = cost(s, tiles, kts, sms, mem, red)
        if c < best_cost:
            best, best_cost = s, c
    return best


def old_choose(tiles, kts, sms):
    """The rule before the model (commit f8b7c70 and earlier): the largest power of two
    with tiles s <= sms, s <= kts / 8, s <= 32."""
    cap, s = min(kts // MIN_SLICE_KTS, MAX_SPLITS), 1
    while 2 * s <= cap and tiles * 2 * s <= sms:
        s *= 2
    return s


def header_constants(path=HEADER):
    """(MEM, RED, MIN_SLICE_KTS, MAX_SPLITS) as gemm_schedule_math.h defines them."""
    text = open(path, encoding="utf-8").read()
    out = []
    for name in ("MEM_BLOCKS", "RED_KTS", "MIN_SLICE_KTS", "MAX_SPLITS"):
        m = re.search(r"#define SB_GEMM_AUTO_%s (\d+)" % name, text)
        if not m:
            raise SystemExit(f"{path}: no #define SB_GEMM_AUTO_{name}")
        out.append(int(m.group(1)))
    return tuple(out)


def probe_variant(data=DATA, root=ROOT):
    """The variant the model is fitted to: the split-K variant (flag
    `split`) that the split-count probe, DATA's first file, ran (the
    separate reduction's, the one whose combining scales with the count)."""
    rows = sbcsv.read(os.path.join(root, data[0][0]))
    names = sorted({r["variant"] for r in rows if r["family"] == FAMILY and r["status"] == "ok"
                    and sbvariants.has_flag(FAMILY, r["variant"], "split")})
    if len(names) != 1:
        raise SystemExit(f"fit_auto_splits: {data[0][0]} ran split variants {names}, "
                         f"not one: name it with --variant")
    return names[0]


def load(data=DATA, root=ROOT, variant=None):
    """{(m, k, tile): {s: [(pct, label), ...]}} over the variant's ok rows
    (default: probe_variant()); the label of an auto row (the count auto
    chose) ends in '*'."""
    variant = variant or probe_variant(data, root)
    shapes = defaultdict(lambda: defaultdict(list))
    for rel, label in data:
        for row in sbcsv.read(os.path.join(root, rel)):
            if row["family"] != FAMILY or row["variant"] != variant or row["status"] != "ok":
                continue
            if row.get("sm_count") != SMS or row.get("splits_used") is None:
                continue
            key = (row["m"], row["k"], row["tile"])
            auto = row["splits"] == sbcsv.AUTO
            shapes[key][row["splits_used"]].append((row["pct_of_cublas"], label + ("*" if auto else "")))
    return {k: dict(v) for k, v in shapes.items()}


def mean(readings):
    return sum(p for p, _ in readings) / len(readings)


def verdict(shape, counts, s, sms=SMS):
    """(status, gap or None, detail) of count s at one shape."""
    means = {c: mean(r) for c, r in counts.items()}
    best = max(means.values())
    if s in means:
        gap = best - means[s]
        return ("ok" if gap <= GAP_PP else "bad"), gap, ""
    tiles = tiles_of(shape[0], shape[2])
    lo = max((c for c in means if c < s), default=None)
    hi = min((c for c in means if c > s), default=None)
    if lo is not None and hi is not None and tiles * hi <= sms:
        gap = best - min(means[lo], means[hi])
        if gap <= GAP_PP:
            return "bounded", gap, f"between {lo} and {hi}"
    return "unverified", None, f"between {lo} and {hi}" if lo and hi else ""


def check(shapes, chooser, sms=SMS):
    """Every shape's (shape, s, status, gap, detail), and whether the
    default shapes hold."""
    rows, defaults_ok = [], True
    for shape in sorted(shapes):
        m, k, tile = shape
        s = chooser(tiles_of(m, tile), k // BK, sms)
        status, gap, detail = verdict(shape, shapes[shape], s, sms)
        rows.append((shape, s, status, gap, detail))
        if shape in DEFAULT_SHAPES:
            means = {c: mean(r) for c, r in shapes[shape].items()}
            if s not in means or (means[s] < DEFAULT_PCT and means[s] < max(means.values())):
                defaults_ok = False
    if any(shape not in shapes for shape in DEFAULT_SHAPES):
        defaults_ok = False
    return rows, defaults_ok


def score(shapes, mem, red):
    """(passes, unverified count, total gap) of one grid point."""
    rows, defaults_ok = check(shapes, lambda t, kts, sms: choose(t, kts, sms, mem, red))
    bad = sum(1 for r in rows if r[2] == "bad")
    unverified = sum(1 for r in rows if r[2] == "unverified")
    total = sum(r[3] for r in rows if r[3] is not None)
    return bad == 0 and defaults_ok, unverified, total


def fit(shapes):
    """The grid's scores and the chosen (MEM, RED)."""
    grid = {(m, r): score(shapes, m, r) for m in MEM_GRID for r in RED_GRID}

    def radius(i, j):
        """The largest n <= 3 such that every grid point within n steps passes."""
        n = 0
        while n < 3:
            a0, a1, b0, b1 = i - n - 1, i + n + 1, j - n - 1, j + n + 1
            if a0 < 0 or b0 < 0 or a1 >= len(MEM_GRID) or b1 >= len(RED_GRID):
                break
            if not all(grid[(MEM_GRID[a], RED_GRID[b])][0]
                       for a in range(a0, a1 + 1) for b in range(b0, b1 + 1)):
                break
            n += 1
        return n

    candidates = []
    for i, m in enumerate(MEM_GRID):
        for j, r in enumerate(RED_GRID):
            ok, unverified, total = grid[(m, r)]
            if ok:
                candidates.append((unverified, -radius(i, j), round(total, 6), m, r))
    if not candidates:
        return grid, None
    best = min(candidates)
    return grid, (best[3], best[4])


def fmt_readings(readings):
    return ", ".join(f"{p:.1f} {lab}" for p, lab in readings)


def table(shapes, mem, red, sms=SMS):
    """docs/gemm.md's table: the old rule's count, the model's, the best
    measured, each with its readings (% of cuBLAS, the file's label; *: an
    auto row)."""
    lines = ["| m = n | k | tile | tiles | old auto | new auto | best measured |",
             "|---|---|---|---|---|---|---|"]
    for shape in sorted(shapes, key=lambda x: (x[2], x[0], x[1])):
        m, k, tile = shape
        counts = shapes[shape]
        tiles, kts = tiles_of(m, tile), k // BK
        means = {c: mean(r) for c, r in counts.items()}
        best = max(means, key=means.get)
        old, new = old_choose(tiles, kts, sms), choose(tiles, kts, sms, mem, red)

        def cell(s):
            if s in counts:
                return f"{s}: {fmt_readings(counts[s])}"
            status, _, _ = verdict(shape, counts, s, sms)
            lo = max((c for c in counts if c < s), default=None)
            hi = min((c for c in counts if c > s), default=None)
            around = "; ".join(f"{c}: {fmt_readings(counts[c])}" for c in (lo, hi) if c is not None)
            return f"**{s}: not run** ({status}; {around})"
        lines.append(f"| {m} | {k // 1024}k | {tile.rsplit('x', 1)[0]} | {tiles} | {cell(old)} | "
                     f"{'= old' if new == old else cell(new)} | {'= new' if best == new else cell(best)} |")
    return "\n".join(lines)


def probe(rows, variant):
    """syncbench runs that would measure the unverified choices."""
    want = defaultdict(set)
    for (m, k, tile), s, status, _, _ in rows:
        if status == "unverified":
            want[(m, tile)].add((k, s))
    out = []
    for (m, tile), ks in sorted(want.items()):
        kk = sorted({k for k, _ in ks})
        ss = sorted({s for _, s in ks})
        out.append(f"syncbench --filter '^{FAMILY}/({sbvariants.ceiling(FAMILY)}|{variant})/' --m {m} "
                   f"--k {','.join(f'{k // 1024}k' for k in kk)} --tile {tile} "
                   f"--stages {6 if tile_dims(tile)[1] == 128 else 4} --splits {','.join(map(str, ss))}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--map", action="store_true", help="the pass map over the grid")
    ap.add_argument("--table", action="store_true", help="docs/gemm.md's table")
    ap.add_argument("--probe", action="store_true", help="runs that would measure the unverified choices")
    ap.add_argument("--variant", help="the split-K variant to fit (default: the one the probe file ran)")
    args = ap.parse_args(argv)
    try:
        variant = args.variant or probe_variant()
        shapes = load(variant=variant)
    except sbcsv.CsvError as e:
        print(f"fit_auto_splits: {e}", file=sys.stderr)
        return 2
    mem, red, min_slice, max_splits = header_constants()
    if (min_slice, max_splits) != (MIN_SLICE_KTS, MAX_SPLITS):
        print(f"fit_auto_splits: gemm_schedule_math.h caps ({min_slice}, {max_splits}) differ from this "
              f"script's ({MIN_SLICE_KTS}, {MAX_SPLITS})", file=sys.stderr)
        return 1
    rows, defaults_ok = check(shapes, lambda t, kts, sms: choose(t, kts, sms, mem, red))
    if args.table:
        print(table(shapes, mem, red))
    elif args.probe:
        print("\n".join(probe(rows, variant)))
    else:
        grid, chosen = fit(shapes)
        if args.map:
            print("MEM\\RED " + " ".join(f"{r:>5}" for r in RED_GRID))
            for m in MEM_GRID:
                print(f"{m:7} " + " ".join(f"{('' if grid[(m, r)][0] else 'x') + str(grid[(m, r)][1]):>5}"
                                          for r in RED_GRID))
            print("(number: unverified choices; x: a bad choice or a default shape lost)")
        print(f"fit: MEM {chosen[0]}, RED {chosen[1]}" if chosen else "fit: no grid point passes")
        print(f"gemm_schedule_math.h: MEM {mem}, RED {red}")
        for (m, k, tile), s, status, gap, detail in rows:
            g = f" {gap:.1f} pp below the best" if gap is not None else ""
            print(f"  {m}x{m}x{k} {tile}, {tiles_of(m, tile)} tile(s): {s} {status}{g} {detail}".rstrip())
        print(f"default shapes: {'hold' if defaults_ok else 'LOST'}")
    bad = [r for r in rows if r[2] == "bad"]
    return 1 if bad or not defaults_ok else 0


if __name__ == "__main__":
    sys.exit(main())
