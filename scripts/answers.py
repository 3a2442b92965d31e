#!/usr/bin/env python3
"""The README's answers, computed from committed CSVs: per workload, which
variant to use; the GEMM squares, devscan and the price list in a line or
a table each; and the docs pages' long tables (docs/gemm.md: GEMM with its
ties, each variant, split-K and stream-K per GPU with its off-sweep proof;
docs/devscan.md; docs/barrier.md: the price list; docs/explain.md: where
the warps wait), and the README's list of families (the variant table).

    python3 scripts/answers.py [CSV ...]            print the README's block
    python3 scripts/answers.py --write README.md [CSV ...]
                                                    replace that block between
                                                    the markers in place
    python3 scripts/answers.py --write-all [CSV ...]
                                                    replace every generated
                                                    block (make answers)

Default CSVs: results/h200/latest.csv and results/h100-80gb-hbm3/latest.csv
(one GPU each, columns read by name through sbcsv). tests/py/test_answers.py
checks that every page holds exactly what this prints, so the pages cannot
drift from the data: after new results, run `make answers`.

The rule, per workload family and GPU: every variant's speedup over the
family's baseline (the variant flagged baseline in its table) at each swept point where both are ok,
summarised by the geometric mean. A variant qualifies only if it is ok at
every point where the baseline is, and has no wrong/error/deadlock row. The
baseline counts as 1.00x, so "keep the baseline" is a possible answer.
Variants within TIE of the best are named together: such a difference is no
reason to choose.

GEMM (family `gemm`) is answered against cuBLAS instead: per shape (M = N,
K) and GPU, the ok non-cuBLAS row with the highest pct_of_cublas, with its
tile and stage count; then, at GEMM_DETAIL, each variant's best row. Left
out when no CSV has ok gemm rows.

Exit status: 0 done, 2 unusable input (a CSV, or a README without markers).
"""
from __future__ import annotations

import argparse
import glob
import math
import os
import sys
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import sbcompare  # noqa: E402  (fmt_axis: 1M, 16M as the CLI writes them)
import sbcsv  # noqa: E402
import sbstalls  # noqa: E402
import sbvariants  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CSVS = ["results/h200/latest.csv", "results/h100-80gb-hbm3/latest.csv"]
BEGIN = "<!-- answers:begin -->"
END = "<!-- answers:end -->"
# Geomeans closer than this (relative) are a tie: both variants are named.
TIE = 0.02
FAILED = {"wrong", "error", "deadlock"}
# How a family's paired ceiling ratio is read (its variant table's
# ceiling_reading; harness/paired.h), in words.
READING_TEXT = {"fastest": "the ratio of the two sides' fastest samples",
                "low_quartile": "the ratio of the two sides' lower quartiles",
                "p01": "the ratio of the two sides' 1st percentiles",
                "p75": "the ratio of the two sides' 75th percentiles",
                "block_median": "the median of the v c c v block ratios"}


def paired_text(family, runs=()):
    """'paired samples, <reading>' for a family with a paired ceiling: as
    the runs' rows were read (their schema's reading, GPU by GPU where they
    differ), or as the variant table says without rows."""
    fam = sbvariants.family(family)
    if not fam or not fam.ceiling_column:
        return "paired samples"
    read = {}
    for run in runs:
        row = next((r for r in run.rows if r["family"] == family), None)
        if row:
            read.setdefault(sbcompare.ratio_reading(row), []).append(run.label)
    if len(read) > 1:
        return "paired samples, " + "; ".join(
            f"{READING_TEXT.get(reading, reading)} ({', '.join(gpus)})" for reading, gpus in read.items())
    reading = next(iter(read), fam.ceiling_reading)
    return f"paired samples, {READING_TEXT.get(reading, reading)}"


@dataclass(frozen=True)
class Workload:
    family: str
    text: str                    # what the workload is, for the table
    plot: str                    # figure under results/<gpu>/plots/
    baseline: str | None = None  # default: the table's baseline flag
    plain: str | None = None     # the plain loop (flag `plain`): an answer too

    def base(self):
        return self.baseline or sbvariants.baseline(self.family)


# Families absent from every CSV are left out of the table.
WORKLOADS = [
    Workload("scan", "block-wide scan of 32-bit words in shared memory", "scan_speedup.png"),
    Workload("stencil", "1D 3-point Jacobi stencil, tile in shared memory", "stencil_speedup.png"),
    Workload("stencil2d", "2D 5-point Jacobi stencil, tile in shared memory",
             "stencil2d_speedup.png"),
    Workload("multistage", "three dependent stages per pass in one block",
             "multistage_speedup.png"),
    Workload("pipeline", "streaming through shared-memory stages, no compute",
             "pipeline_heatmap.png"),
    # The plain float4 loop (flagged `plain`) has no shared memory and no
    # synchronization; when it is the fastest, it is the answer, and the
    # best staged variant is named beside it.
    Workload("pipeline_intensity", "the same stream with 16-1024 FLOP per element",
             "pipeline_intensity.png", baseline=sbvariants.baseline("pipeline"),
             plain=sbvariants.plain("pipeline_intensity")),
]


@dataclass(frozen=True)
class Price:
    family: str
    variant: str
    label: str
    where: dict                  # axis -> value selecting one row
    plot: str


# The price list: cycles per operation of every row of the barrier tables
# (table order, the table's summary as its label) at one configuration per
# family. The barrier table's first row is the unit the others are given
# as multiples of.
PRICE_AXES = {"block_threads": 256, "participants": "all", "contention": "one_block_per_sm"}
PRICE_FAMILIES = {  # family -> (configuration, figure)
    "barrier": (PRICE_AXES, "barrier_cycles.png"),
    "barrier_cluster": ({"block_threads": 256, "cluster": 2, "contention": "one_block_per_sm"},
                        "barrier_cluster.png"),
    "barrier_tma": ({"block_threads": 32, "buffer_bytes": 4096, "contention": "one_block_per_sm"},
                    "barrier_tma_latency.png"),
}


def md_text(text):
    """A table summary as markdown table-cell text."""
    for ch in "\\_*|<>":
        text = text.replace(ch, "\\" + ch)
    return text


def _price_plot(family, variant, plot):
    """Grid-wide barrier rows have their own figure (plot_barrier.GRID)."""
    import plot_barrier  # matplotlib: only when a price list is written
    grid = family == "barrier" and plot_barrier.group_of(variant) is None
    return "barrier_grid_sync.png" if grid else plot


def prices():
    return [Price(f, v, f"`{v}`: {md_text(sbvariants.summary(f, v))}", where,
                  _price_plot(f, v, plot))
            for f, (where, plot) in PRICE_FAMILIES.items() for v in sbvariants.variants(f)]


def price_reference():
    return sbvariants.variants("barrier")[0]


# GEMM: every variant is read against the ceiling row (cuBLAS, flagged
# `ceiling` in the table) at the same (m, k).
GEMM_YARDSTICK = sbvariants.ceiling("gemm")


def gemm_variants():
    """[(variant, what its K loop is: the table's summary)], table order."""
    return [(v, md_text(sbvariants.summary("gemm", v))) for v in sbvariants.variants("gemm")
            if v != GEMM_YARDSTICK]


GEMM_DETAIL = (4096, 4096)  # (m, k) of the per-variant table
GEMM_PLOTS = [("TFLOP/s", "gemm_tflops.png"), ("% of cuBLAS", "gemm_pct_of_cublas.png"),
              ("% of cuBLAS against K/(M*N)", "gemm_pct_vs_k_ratio.png")]


# Results measured with these kernels carry the audit's caveat, and the
# answers of these families are marked as under re-measurement.
AUDITED_COMMITS = ("e917ed3",)
REMEASURE = {"stencil", "stencil2d", "price list"}
MARK = "†"


# ---- selection (pure functions of rows) ----

@dataclass
class Ratio:
    """Baseline median / variant median over the points both have."""
    geomean: float
    low: float
    high: float
    points: int


@dataclass
class Choice:
    baseline: str
    best: str | None                    # None: no ok baseline row
    contenders: list = field(default_factory=list)  # within TIE of the best, best first
    ratios: dict = field(default_factory=dict)      # qualified variant -> Ratio
    plain: str | None = None                        # the workload's plain loop, if it ran

    @property
    def staged(self):
        """The best variant that is not the plain loop (None if none)."""
        others = [v for v in self.ratios if v != self.plain]
        return max(others, key=lambda v: self.ratios[v].geomean, default=None)


def point_times(rows, family):
    """{variant: {point: median_us}} over the family's ok rows."""
    out = {}
    for r in rows:
        if r["family"] == family and r["status"] == "ok" and r.get("median_us"):
            out.setdefault(r["variant"], {})[sbcsv.key(r)[2:]] = r["median_us"]
    return out


def failed_variants(rows, family):
    return {r["variant"] for r in rows if r["family"] == family and r["status"] in FAILED}


def ratio(base, times):
    """Ratio over the baseline's points, or None if `times` misses one."""
    if not base or any(p not in times for p in base):
        return None
    rs = [base[p] / times[p] for p in base]
    return Ratio(math.exp(sum(map(math.log, rs)) / len(rs)), min(rs), max(rs), len(rs))


def choose(rows, workload):
    times = point_times(rows, workload.family)
    failed = failed_variants(rows, workload.family)
    base_name = workload.base()
    choice = Choice(baseline=base_name, best=None)
    base = times.get(base_name)
    if not base or base_name in failed:
        return choice
    for variant, t in times.items():
        if variant in failed:
            continue
        r = ratio(base, t)
        if r is not None:
            choice.ratios[variant] = r
    if workload.plain in choice.ratios:
        choice.plain = workload.plain
    ranked = sorted(choice.ratios, key=lambda v: -choice.ratios[v].geomean)
    choice.best = ranked[0]
    top = choice.ratios[choice.best].geomean
    choice.contenders = [v for v in ranked if choice.ratios[v].geomean * (1 + TIE) >= top]
    return choice


def price_row(rows, price):
    """The one row of `price` at its configuration, or None."""
    for r in rows:
        if (r["family"] == price.family and r["variant"] == price.variant
                and all(r.get(a) == v for a, v in price.where.items())):
            return r
    return None


def gemm_rows(rows):
    return [r for r in rows if r["family"] == "gemm" and r["status"] == "ok"]


def gemm_n(r):
    """C's columns of a gemm row: n (= m but where --n was given with --m)."""
    return r.get("n") or r["m"]


def at_shape(r, m, k, n=None):
    """Is row r at m x n x k (n None: the square, n = m)?"""
    return (r["m"], r["k"]) == (m, k) and gemm_n(r) == (n or m)


def gemm_shapes(runs):
    """The square (m, k) (n = m) with an ok gemm row in any run: by size,
    then the others (the K-heavy shape). M != N: gemm_mn_shapes."""
    shapes = {(r["m"], r["k"]) for run in runs for r in gemm_rows(run.rows) if gemm_n(r) == r["m"]}
    return sorted(shapes, key=lambda s: (s[0] != s[1], s[0], s[1]))


def gemm_mn_shapes(runs):
    """The (m, k, n) with n != m with an ok gemm row in any run, sorted."""
    return sorted({(r["m"], r["k"], gemm_n(r)) for run in runs for r in gemm_rows(run.rows) if gemm_n(r) != r["m"]})


def gemm_every_shape(runs):
    """Every (m, k, n) of the runs: the squares (n None) as gemm_shapes
    orders them, then the M != N shapes."""
    return [(m, k, None) for m, k in gemm_shapes(runs)] + gemm_mn_shapes(runs)


def gemm_cublas(rows, m, k, n=None):
    """The ok cublas row at m x n x k (n None: n = m), or None."""
    return next((r for r in gemm_rows(rows) if r["variant"] == GEMM_YARDSTICK
                 and at_shape(r, m, k, n) and r.get("gflops")), None)


def gemm_best(rows, m, k, variant=None, n=None):
    """The ok row at m x n x k (n None: n = m) with the highest
    pct_of_cublas: among every non-cuBLAS variant, or only `variant`'s.
    None if there is none."""
    cands = [r for r in gemm_rows(rows)
             if at_shape(r, m, k, n) and r.get("pct_of_cublas") is not None
             and (r["variant"] == variant if variant else r["variant"] != GEMM_YARDSTICK)]
    return max(cands, key=lambda r: r["pct_of_cublas"], default=None)


def gemm_ties(rows, m, k, best):
    """The other non-cuBLAS ok rows at best's shape (m x n x k) within TIE
    of `best`, best first."""
    top = best["pct_of_cublas"]
    near = [r for r in gemm_rows(rows)
            if at_shape(r, m, k, gemm_n(best)) and r is not best and r["variant"] != GEMM_YARDSTICK
            and r.get("pct_of_cublas") is not None and r["pct_of_cublas"] * (1 + TIE) >= top]
    return sorted(near, key=lambda r: -r["pct_of_cublas"])


def fmt_shape(m, k, n=None):
    return f"{m} x {n or m} x {k}"


def fmt_gemm_config(r):
    stages = r.get("stages")
    return f"{r['tile']}, {stages} stage{'s' if stages != 1 else ''}"


def gemm_best_cell(rows, m, k, ties=True):
    best = gemm_best(rows, m, k)
    if best is None:
        return "-"
    text = f"`{best['variant']}` ({fmt_gemm_config(best)}): {best['pct_of_cublas']:.1f}%"
    ties = gemm_ties(rows, m, k, best) if ties else []
    if ties:
        text += f"; within {TIE:.0%}: " + ", ".join(
            (f"`{r['variant']}` " if r["variant"] != best["variant"] else "")
            + f"{fmt_gemm_config(r)} ({r['pct_of_cublas']:.1f}%)" for r in ties)
    return text


def gemm_table(runs, ties=True):
    head = ["M x N x K"]
    for run in runs:
        head += [f"{run.label}: cuBLAS TFLOP/s", f"{run.label}: best other variant, % of cuBLAS"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for m, k in gemm_shapes(runs):
        cells = [fmt_shape(m, k)]
        for run in runs:
            ref = gemm_cublas(run.rows, m, k)
            cells += [f"{ref['gflops'] / 1000:.0f}" if ref else "-", gemm_best_cell(run.rows, m, k, ties)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def gemm_variant_table(runs, m, k):
    head = ["variant", "K loop", *(f"{run.label}: best % of cuBLAS" for run in runs)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for variant, text in gemm_variants():
        bests = [gemm_best(run.rows, m, k, variant) for run in runs]
        if not any(bests):
            continue
        cells = [f"`{variant}`", text,
                 *(f"{b['pct_of_cublas']:.1f}% ({fmt_gemm_config(b)})" if b else "-"
                   for b in bests)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def gemm_intro(ties, runs=()):
    return ("GEMM (`gemm`: fp16 in, fp32 out, N = M) against cuBLAS at the same shape: cuBLAS's "
            "TFLOP/s, and the fastest other variant with its tile and stage count, as % of "
            f"cuBLAS ({paired_text('gemm', runs)}; higher is better)"
            + (f", with the other configurations within {TIE:.0%} of it." if ties else "."))


def gemm_section(runs, where=""):
    """docs/gemm.md's block: the GEMM answer with its ties, each variant at
    GEMM_DETAIL, the split-K tables and the plots; [] when no run has an ok
    gemm row."""
    if not gemm_shapes(runs):
        return []
    plots = "; ".join(f"{what}: {plot_links(runs, plot, where)}" for what, plot in GEMM_PLOTS)
    lines = [gemm_intro(True, runs), "", *gemm_table(runs)]
    m, k = GEMM_DETAIL
    if any(gemm_best(run.rows, m, k, v) for run in runs for v, _ in gemm_variants()):
        lines += [
            "",
            f"What stages and warp specialization buy, at {fmt_shape(m, k)}: each variant's "
            "best % of cuBLAS over the swept tiles and stage counts.",
            "",
            *gemm_variant_table(runs, m, k),
        ]
    lines += gemm_split_section(runs)
    lines += ["", f"Plots: {plots}."]
    return lines


# ---- split-K / stream-K: what combining partial tiles buys at K-heavy shapes ----

def gemm_split_variants():
    """The gemm variants that combine partial tiles of one output: the
    table's `split` (split-K) and `stream_k` traits, in table order."""
    return [v for v, _ in gemm_variants()
            if sbvariants.has_flag("gemm", v, "split") or sbvariants.has_flag("gemm", v, "stream_k")]


def _split_mainloop():
    """The mainloop the split-K / stream-K variants share (docs/gemm.md),
    which they are read against shape by shape: the variant whose table row
    carries the wgmma_tile trait (bench/gemm.c)."""
    return next((v for v in sbvariants.variants("gemm")
                 if sbvariants.has_flag("gemm", v, "wgmma_tile")), None)


GEMM_SPLIT_MAINLOOP = _split_mainloop()


# The off-sweep proof (results/<gpu>/proofs/offsweep_<commit>/gemm.csv:
# shapes outside the default sweep, issues 29 and 39) the split-K table
# reads: the one of the run's own commit, but where a GPU's directory is
# named here, that commit's. The H200's is of the pair before its pair
# (910219a changed only where splitk_serial's and streamk's blocks take
# their tiles: docs/gemm.md, "Off the default sweep").
OFFSWEEP_PROOF = {"h200": "f5ffa93"}


def offsweep_dir(run):
    """The directory of the run's off-sweep proof, as `run.path` is given
    (it may not exist)."""
    where = os.path.dirname(run.path)
    commit = OFFSWEEP_PROOF.get(os.path.basename(where), run.commit[:7])
    return os.path.join(where, "proofs", f"offsweep_{commit}")


def offsweep_rows(run):
    """The rows of the run's off-sweep proof (offsweep_dir), or []."""
    where = offsweep_dir(run)
    path = os.path.join(where if os.path.isabs(where) else os.path.join(ROOT, where), "gemm.csv")
    if not os.path.exists(path) and os.path.exists(path + ".xz"):  # committed compressed
        path += ".xz"
    return sbcsv.read(path) if os.path.exists(path) else []


def gemm_split_table(run):
    """Per shape of one run: the mainloop's best % of cuBLAS, and each
    combining variant's best with its gain over the mainloop; then a line
    per shape of the run's off-sweep proof (offsweep_rows)."""
    split = gemm_split_variants()
    head = ["M x N x K", "K / (M N)", f"`{GEMM_SPLIT_MAINLOOP}`", *(f"`{v}`" for v in split)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    proof_run = Run(run.path, offsweep_rows(run), run.label, run.commit, run.run_utc)
    default = gemm_shapes([run])
    extra = [(m, k, n) for m, k, n in gemm_every_shape([proof_run]) if n is not None or (m, k) not in default]
    for m, k, n in [(m, k, None) for m, k in default] + extra:
        proof = (m, k) not in default or n is not None
        cells = [fmt_shape(m, k, n) + (" (off-sweep proof)" if proof else ""),
                 f"{int(k) / (int(m) * int(n or m)):.3g}"]
        src = proof_run if proof else run
        base = gemm_best(src.rows, m, k, GEMM_SPLIT_MAINLOOP, n)
        cells.append(f"{base['pct_of_cublas']:.1f}%" if base else "-")
        for v in split:
            b = gemm_best(src.rows, m, k, v, n)
            if not b:
                cells.append("-")
                continue
            text = f"{b['pct_of_cublas']:.1f}%"
            if b.get("splits") == sbcsv.AUTO:  # schema 7: the launcher's pick
                used = b.get("splits_used") or "?"
                text += f" (auto: {used} split{'' if str(used) == '1' else 's'})"
            elif b.get("splits"):
                text += f" ({b['splits']} splits)"
            if base:
                text += f", {b['pct_of_cublas'] / base['pct_of_cublas']:.2f}x"
            cells.append(text)
        lines.append("| " + " | ".join(cells) + " |")
    return lines


OFFSWEEP_BAR = 85.0  # issue 29: the best combining variant at every off-sweep shape


def offsweep_proof_table(main, other=None):
    """The off-sweep table of off-sweep proofs (offsweep_<commit>/gemm.csv
    rows; docs/history.md has edbf733's): per shape of `main`, cuBLAS's median, the best combining
    variant over every tile (bold under OFFSWEEP_BAR) with its splits_used,
    the best at 128x128 alone, and `other`'s best (another GPU's proof)."""
    split = gemm_split_variants()

    def best(rows, m, k, n, tile=None):
        cands = [r for v in split for r in [gemm_best([x for x in rows if tile is None or x.get("tile") == tile],
                                                     m, k, v, n)] if r]
        return max(cands, key=lambda r: r["pct_of_cublas"], default=None)

    def cell(r):
        if r is None:
            return "-"
        tile = str(r["tile"]).rsplit("x", 1)[0]
        return f"`{r['variant']}` {tile}: {r['pct_of_cublas']:.1f}% ({r.get('splits_used') or '-'})"

    other_gpu = next((r["gpu_name"] for r in other or [] if r.get("gpu_name")), "other GPU").removeprefix("NVIDIA ")
    lines = ["| m x n | k | cuBLAS median | best combining variant, tile: % of cuBLAS (splits_used) "
             f"| best at 128x128 | {other_gpu}: best combining variant |", "|---|---|---|---|---|---|"]
    for m, k, n in gemm_every_shape([Run("", main, "", "", "")]):
        cub = gemm_cublas(main, m, k, n)
        b, b128 = best(main, m, k, n), best(main, m, k, n, "128x128x64")
        text = cell(b)
        if b is not None and b["pct_of_cublas"] < OFFSWEEP_BAR:
            text = f"**{text}**"
        shape = f"{m} x {n or m}"
        lines.append(f"| {shape} | {k} | {cub['median_us']:.2f} us | {text} | "
                     f"{b128['pct_of_cublas']:.1f}% | {cell(best(other, m, k, n)) if other else '-'} |"
                     if cub and b128 else f"| {shape} | {k} | - | {text} | - | - |")
    return lines


def offsweep_words(run):
    """Where a run's off-sweep lines come from, in words."""
    if not offsweep_rows(run):
        return "no off-sweep proof"
    commit = os.path.basename(offsweep_dir(run)).removeprefix("offsweep_")
    pair = "" if run.commit.startswith(commit) else f"; the sweep's: {run.commit[:7]}"
    return f"off-sweep lines from `{offsweep_dir(run)}/`, commit {commit}{pair}"


def gemm_split_section(runs):
    runs = [run for run in runs if any(gemm_best(run.rows, m, k, v) for m, k in gemm_shapes([run])
                                       for v in gemm_split_variants())]
    if not runs:
        return []
    lines = [
        "",
        "Split-K and stream-K (blocks combining partial tiles of one output, on "
        f"`{GEMM_SPLIT_MAINLOOP}`'s mainloop), one table per GPU: each variant's best % of "
        f"cuBLAS per shape, best over tiles and splits, and its speedup over the best "
        f"`{GEMM_SPLIT_MAINLOOP}` row of the same run (>1.00x: the combining pays). Lines "
        "marked (off-sweep proof) are the shapes of the GPU's off-sweep proof (splits=auto), "
        "outside the default sweep.",
    ]
    for run in runs:
        lines += ["", f"{run.label}, {offsweep_words(run)}:", "", *gemm_split_table(run)]
    return lines


# ---- devscan: the cross-block strategies against CUB and copy ----

DEVSCAN = "devscan"


def devscan_rows(rows):
    return [r for r in rows if r["family"] == DEVSCAN and r["status"] == "ok"
            and r.get("gbps") is not None]


def devscan_sizes(runs):
    return sorted({r["n"] for run in runs for r in devscan_rows(run.rows)})


def devscan_best(rows, n, variant):
    """The variant's fastest row at n (over its tile shapes), or None."""
    cands = [r for r in devscan_rows(rows) if r["n"] == n and r["variant"] == variant]
    return max(cands, key=lambda r: r["gbps"], default=None)


def devscan_cell(rows, n, variant, ceiling):
    r = devscan_best(rows, n, variant)
    if r is None:
        return "-"
    text = f"{r['pct_of_copy']:.0f}% of copy" if r.get("pct_of_copy") is not None else ""
    if variant != ceiling and r.get("pct_of_cub") is not None:
        text = f"**{r['pct_of_cub']:.0f}%** of CUB, " + text
    if variant != ceiling and r.get("block_threads") and r.get("elems_per_thread"):
        text += f" ({r['block_threads']}x{r['elems_per_thread']})"
    return text


def devscan_fastest(rows, n, ceiling):
    cands = [devscan_best(rows, n, v) for v in sbvariants.variants(DEVSCAN) if v != ceiling]
    cands = [r for r in cands if r is not None]
    return max(cands, key=lambda r: r["gbps"], default=None)


def devscan_section(runs, where=""):
    """docs/devscan.md's block: every strategy against CUB and copy."""
    sizes = devscan_sizes(runs)
    if not sizes:
        return []
    ceiling = sbvariants.ceiling(DEVSCAN)
    head = ["variant: how tiles learn their prefix",
            *(f"{run.label}: n = {sbcompare.fmt_axis(n)}" for run in runs for n in sizes)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for v in sbvariants.variants(DEVSCAN):
        cells = [f"`{v}`: {md_text(sbvariants.summary(DEVSCAN, v))}",
                 *(devscan_cell(run.rows, n, v, ceiling) for run in runs for n in sizes)]
        lines.append("| " + " | ".join(cells) + " |")
    return [
        "",
        f"Device-wide scan (`{DEVSCAN}`: inclusive scan of n int32 across the whole GPU), one "
        "row per way blocks learn their prefix: % of CUB's `DeviceScan::InclusiveSum` "
        f"({paired_text(DEVSCAN, runs)}) and % of a device-to-device copy of the same bytes, both in the "
        "same run, best tile shape (block threads x elements per thread). " + devscan_use(runs),
        "",
        *lines,
        "",
        f"Plots: {plot_links(runs, DEVSCAN + '_bandwidth.png', where)}.",
    ]


def devscan_use(runs):
    """'Fastest non-CUB strategy per size: <GPU>: 1M: `v` (95% of CUB), ...'"""
    ceiling = sbvariants.ceiling(DEVSCAN)
    use = []
    for run in runs:
        picks = []
        for n in devscan_sizes(runs):
            best = devscan_fastest(run.rows, n, ceiling)
            if best is not None:
                picks.append(f"{sbcompare.fmt_axis(n)}: `{best['variant']}` ({best['pct_of_cub']:.0f}% of CUB)"
                             if best.get("pct_of_cub") is not None else f"{sbcompare.fmt_axis(n)}: `{best['variant']}`")
        if picks:
            use.append(f"{run.label}: " + ", ".join(picks))
    return "Fastest non-CUB strategy per size: " + "; ".join(use) + "."


# ---- rendering ----

@dataclass
class Run:
    path: str     # as given (relative to the repository root by default)
    rows: list
    label: str    # short GPU name
    commit: str
    run_utc: str


def load(path):
    """One run of one GPU with one row a point: a duplicated point would
    otherwise decide an answer by whichever copy came last."""
    rows = sbcompare.load_run(path if os.path.isabs(path) else os.path.join(ROOT, path), timings=False).rows
    first = next((r for r in rows if r.get("gpu_name")), {})
    label = (first.get("gpu_name") or "unknown GPU").removeprefix("NVIDIA ")
    return Run(path, rows, label, first.get("commit") or "unknown", first.get("run_utc") or "?")


def audited(runs):
    return any(r.commit.startswith(AUDITED_COMMITS) for r in runs)


def fmt_ratio(r):
    return (f"{r.geomean:.2f}x ({r.low:.2f}-{r.high:.2f}x, "
            f"{r.points} point{'s' if r.points != 1 else ''})")


def link(path, where=""):
    """`path` (from the repository root) as a link from a page in the
    directory `where` ("": the README)."""
    return os.path.relpath(path, where) if where and not os.path.isabs(path) else path


def plot_links(runs, plot, where=""):
    links = []
    for run in runs:
        rel = os.path.join(os.path.dirname(run.path), "plots", plot)
        if os.path.exists(os.path.join(ROOT, rel) if not os.path.isabs(rel) else rel):
            links.append(f"[{run.label}]({link(rel, where)})")
    return ", ".join(links) or "-"


def use_cell(choices, labels):
    """The variants within TIE of the best on every GPU; when no variant is,
    each GPU's best by name."""
    pairs = [(c, label) for c, label in zip(choices, labels) if c.best is not None]
    if not pairs:
        return "-"
    choices, labels = [c for c, _ in pairs], [label for _, label in pairs]
    names = [v for v in choices[0].contenders if all(v in c.contenders for c in choices)]
    if not names:
        return "depends on the GPU: " + ", ".join(
            f"`{c.best}` on {label}" for c, label in zip(choices, labels))
    text = ", ".join(f"`{v}`" for v in names)
    if names == [choices[0].plain]:
        return text + ": the plain loop (no shared-memory staging, no synchronization) beats every staged variant"
    if len(names) > 1:
        text += f": a tie (within {TIE:.0%})"
        if choices[0].baseline in names:
            text += ", the synchronization does not decide it"
    elif names == [choices[0].baseline]:
        text += ": the baseline, nothing beats it"
    return text


def gpu_cell(choice, workload):
    if choice.best is None:
        return f"no ok `{choice.baseline}` row"
    if choice.best == choice.baseline:
        others = [v for v in choice.ratios if v != choice.baseline]
        if not others:
            return "no other variant qualifies"
        runner = max(others, key=lambda v: choice.ratios[v].geomean)
        text = f"best other: `{runner}` {fmt_ratio(choice.ratios[runner])}"
    elif choice.best == choice.plain:
        text = f"plain loop `{choice.plain}` {fmt_ratio(choice.ratios[choice.plain])}"
        if choice.staged:
            text += f"; best staged: `{choice.staged}` {fmt_ratio(choice.ratios[choice.staged])}"
        return text
    else:
        text = f"`{choice.best}` {fmt_ratio(choice.ratios[choice.best])}"
    if choice.plain:
        text += f"; plain loop `{choice.plain}` {choice.ratios[choice.plain].geomean:.2f}x"
    return text


def answers_table(runs, marked):
    head = ["workload", "use", *(f"{r.label}: speedup over the baseline" for r in runs), "plot"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for w in WORKLOADS:
        if not any(r["family"] == w.family for run in runs for r in run.rows):
            continue
        choices = [choose(run.rows, w) for run in runs]
        mark = f" {MARK}" if marked and w.family in REMEASURE else ""
        cells = [f"`{w.family}`{mark}: {w.text} (baseline `{w.base()}`)", use_cell(choices, [r.label for r in runs]),
                 *(gpu_cell(c, w) for c in choices), plot_links(runs, w.plot)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def price_cell(rows, price, reference):
    r = price_row(rows, price)
    if r is None:
        return "not measured"
    if r["status"] != "ok" or r.get("cycles_per_op") is None:
        return r["status"]
    text = f"{r['cycles_per_op']:.0f}"
    ref = price_row(rows, reference)
    if price is not reference and ref is not None and ref.get("cycles_per_op"):
        text += f" ({r['cycles_per_op'] / ref['cycles_per_op']:.1f}x)"
    return text


def fmt_config(where):
    """{'block_threads': 256, 'contention': 'one_block_per_sm'} ->
    '256 threads, one_block_per_sm'."""
    words = {"block_threads": "{} threads", "cluster": "cluster of {}",
             "buffer_bytes": "{} bytes", "participants": "participants={}"}
    return ", ".join(words.get(a, "{}").format(v) for a, v in where.items())


def price_table(runs, where=""):
    price_list = prices()
    reference = next(p for p in price_list if p.variant == price_reference())
    head = ["primitive", "configuration", *(f"{r.label}: cycles/op" for r in runs), "plot"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for p in price_list:
        if not any(price_row(run.rows, p) for run in runs):
            continue
        config = fmt_config(p.where)
        cells = [p.label, config, *(price_cell(run.rows, p, reference) for run in runs),
                 plot_links(runs, p.plot, where)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def price_section(runs, marked, where=""):
    """docs/barrier.md's block: the whole price list."""
    if not any(price_row(run.rows, p) for run in runs for p in prices()):
        return []
    return [f"Cycles per operation, over blocks (the median in rows of schema 11 and before, the trimmed mean "
            f"from 12, at full occupancy the 90th percentile from 14; in parentheses: multiples of "
            f"`{price_reference()}` on the same GPU){f' {MARK}' if marked else ''}.",
            "", *price_table(runs, where), *(["", *caveat(runs)] if marked else [])]


def price_summary(runs, marked):
    """The README's line: the reference primitive's price per GPU."""
    price_list = prices()
    reference = next(p for p in price_list if p.variant == price_reference())
    def cell(run):
        r = price_row(run.rows, reference)
        if r["status"] != "ok" or r.get("cycles_per_op") is None:
            return f"nothing on the {run.label} (its row: {r['status']})"
        return f"{price_cell(run.rows, reference, reference)} on the {run.label}"
    cells = [cell(run) for run in runs if price_row(run.rows, reference)]
    if not cells:
        return []
    return ["", f"Barrier price list{f' {MARK}' if marked else ''}: `{reference.variant}` costs "
            f"{', '.join(cells)} (cycles per operation, {fmt_config(reference.where)}); every primitive "
            f"({len(price_list)}), in cycles and as multiples of it: "
            f"[docs/barrier.md]({PAGE_LINKS['docs/barrier.md']})."]


def caveat(runs):
    by_commit = {}
    for r in runs:
        if r.commit.startswith(AUDITED_COMMITS):
            by_commit.setdefault(r.commit[:7], []).append(r.label)
    which = "; ".join(f"the {' and '.join(labels)} numbers above with the kernels of commit {c}"
                      for c, labels in by_commit.items())
    return [
        f"**{MARK} Under re-measurement.** We measured {which}. An audit of those kernels (issue 12) found that several carried "
        "generic-code overhead: block size and elements per thread were runtime values, not "
        "compile-time shapes. In plain code the stencil's `pingpong` vs `two_barrier` "
        "conclusion flips, and the barrier price list timed each phase's proof work (a store "
        "and a load) together with the primitive. The kernels have been rewritten with "
        "compile-time shapes on main; the CSVs will be regenerated on the next GPU run, and "
        "this block with them (`make answers`). Until then, do not choose a stencil "
        f"synchronization or quote a barrier price from the rows marked {MARK}; the other "
        "answers are re-measured in the same run.",
    ]


# The GPU the sm_80 code path is for; until a run of one is in the answers,
# they say that only the compute_80 build on Hopper stands for it.
SM80_GPU = "A100"
SM80_PATH_CSV = "sm80-path.csv"  # results/<gpu>/: the compute_80 build's sweep


def sm80_note(runs):
    """[] when an A100 run is among the answers' runs, else the line that
    says none was measured and what stands for it."""
    if any(SM80_GPU in r.label for r in runs):
        return []
    proofs = sorted(os.path.relpath(p, ROOT) for p in
                    glob.glob(os.path.join(ROOT, "results", "*", SM80_PATH_CSV)))
    where = (f" ({', '.join(f'`{p}`' for p in proofs)}: it compiles, launches and computes "
             "the right answer; its timings are a Hopper GPU's)" if proofs else "")
    return [f"**No {SM80_GPU} has been measured.** "
            f"The {SM80_GPU}'s code path (sm_80) is proven only by the `compute_80` build run "
            f"on Hopper{where}: [The A100 code path, run without an A100]"
            "(docs/usage.md#the-a100-code-path-run-without-an-a100).", ""]


def readme_lines(stalls_rows, latest_rows=None):
    """One line per workload of WORKLOADS with rows in stalls.csv:
    'why (`scan`): `warp_shuffle` 32% of warp cycles at barriers,
    `two_barrier` 50% ...' for the README's chosen variant and the
    baseline (why_text; only the baseline when they are the same)."""
    lines = []
    for w in WORKLOADS:
        mine = {r["variant"]: r for r in stalls_rows if r["family"] == w.family}
        if not mine:
            continue
        chosen = None
        if latest_rows:
            chosen = choose(latest_rows, w).best
        names = [v for v in dict.fromkeys([chosen, w.base()]) if v in mine]
        if not names:
            continue
        lines.append(f"why (`{w.family}`): " + sbstalls.why_text([(v, mine[v]) for v in names]))
    return lines + devscan_why(stalls_rows, latest_rows) + gemm_why(stalls_rows, latest_rows)


def devscan_why(stalls_rows, latest_rows):
    """devscan at its largest n: the fastest variant of the README's table
    and CUB, from their stalls.csv rows."""
    mine = {r["variant"]: r for r in stalls_rows if r["family"] == DEVSCAN}
    ceiling = sbvariants.ceiling(DEVSCAN)
    sizes = sorted({r["n"] for r in devscan_rows(latest_rows or [])})
    best = devscan_fastest(latest_rows, sizes[-1], ceiling) if sizes else None
    names = [v for v in dict.fromkeys([best and best["variant"], ceiling]) if v in mine]
    if not names:
        return []
    return [f"why (`{DEVSCAN}`, n = {sizes[-1]}): "
            + sbstalls.why_text([(v, mine[v]) for v in names])]


def gemm_why(stalls_rows, latest_rows):
    """gemm per shape that stalls.csv has: the README's fastest variant at
    that shape and cuBLAS."""
    lines = []
    rows = [r for r in stalls_rows if r["family"] == "gemm"]
    for m, k in dict.fromkeys((str(r["m"]), str(r["k"])) for r in rows):
        here = {r["variant"]: r for r in rows if (str(r["m"]), str(r["k"])) == (m, k)}
        best = gemm_best(latest_rows or [], int(m), int(k))
        names = [v for v in dict.fromkeys([best and best["variant"], GEMM_YARDSTICK])
                 if v in here]
        if names:
            lines.append(f"why (`gemm`, {fmt_shape(m, k)}): "
                         + sbstalls.why_text([(v, here[v]) for v in names]))
    return lines


def why_lines(runs):
    """Where the chosen variant's and the baseline's warps wait, per
    workload (scripts/explain.py), from results/<gpu>/stalls.csv beside
    each run's CSV; [] when no run has one."""
    out, notes = [], []
    for run in runs:
        path = os.path.join(os.path.dirname(run.path if os.path.isabs(run.path)
                                            else os.path.join(ROOT, run.path)), "stalls.csv")
        if os.path.exists(path):
            stalls = sbstalls.read_stalls(path)
            out += [f"{run.label}: {line}" for line in readme_lines(stalls, run.rows)]
            # an explain run of other kernels than the sweep's says so
            other = sorted({str(r.get("commit") or "")[:7] for r in stalls} - {str(run.commit or "")[:7]})
            if other:
                notes.append(f"{run.label}: the explain run at {', '.join(other)}, the sweep at {str(run.commit)[:7]}")
    return ["Where the warps wait (Nsight Compute warp states"
            f"{''.join('; ' + n for n in notes)}):", "",
            *(f"- {x}" for x in out)] if out else []


def flush_words(run):
    """', the L2 flushed by a memset' where the run's rows say so: the flush
    it was timed under, when it is not today's read (SB_FLUSH)."""
    methods = sbcompare.flush_methods(run)
    others = sorted(set(methods) - {"read"})
    return (f", the L2 flushed by a {' and a '.join(sorted(methods))}: "
            + ", ".join(f"`{sbcompare.flush_env(m)}`" for m in others) if others else "")


def sweep_time_words(run):
    """', the sweep in 5:31' from the run's own elapsed_s cells (schema 8
    on); nothing for a run that does not record its time."""
    wall = sbcsv.sweep_wall_s(run.rows)
    return "" if wall is None else f", the sweep in {int(wall) // 60}:{int(wall) % 60:02d}"


def gemm_summary(runs):
    """The README's GEMM lines: the fastest variant per default shape."""
    if not gemm_shapes(runs):
        return []
    return ["", gemm_intro(False, runs) + f" With the ties, each variant at {fmt_shape(*GEMM_DETAIL)}, "
            "and split-K and stream-K at the K-heavy and off-sweep shapes: "
            f"[docs/gemm.md]({PAGE_LINKS['docs/gemm.md']}).", "", *gemm_table(runs, ties=False)]


def devscan_summary(runs):
    if not devscan_sizes(runs):
        return []
    return ["", f"Device-wide scan (`{DEVSCAN}`), % of CUB ({paired_text(DEVSCAN, runs)}). "
            + devscan_use(runs) + f" Every strategy: [docs/devscan.md]({PAGE_LINKS['docs/devscan.md']})."]


def why_summary(runs):
    if not why_lines(runs):
        return []
    return ["", "Where the chosen variant's and the baseline's warps wait (Nsight Compute warp "
            f"states): [docs/explain.md]({PAGE_LINKS['docs/explain.md']})."]


def block(runs):
    """The markdown between the README's markers (without them): a line a
    workload, the GEMM squares, a line for devscan and the price list; the
    long tables are the docs pages' blocks (page_blocks)."""
    marked = audited(runs)
    measured = "; ".join(f"{r.label}: `{r.path}` (commit {r.commit[:7]}, {r.run_utc}"
                         f"{sweep_time_words(r)}{flush_words(r)})" for r in runs)
    lines = [
        *sm80_note(runs),
        f"Measured: {measured}. Speedup = baseline median time / variant median time per "
        "point, as the geometric mean (lowest-highest, points) over the family's default "
        "sweep; higher is better.",
        "",
        *answers_table(runs, marked),
        *why_summary(runs),
        *gemm_summary(runs),
        *devscan_summary(runs),
        *price_summary(runs, marked),
    ]
    if marked:
        lines += ["", *caveat(runs)]
    return "\n".join(lines) + "\n"


# The docs pages with a generated block, and the heading above it (the
# README's block links there).
PAGE_LINKS = {
    "docs/gemm.md": "docs/gemm.md#the-committed-results",
    "docs/devscan.md": "docs/devscan.md#the-committed-results",
    "docs/barrier.md": "docs/barrier.md#the-price-list",
    "docs/explain.md": "docs/explain.md#where-the-warps-wait",
}


def page_blocks(runs):
    """{page: its block} for the docs pages of PAGE_LINKS."""
    marked = audited(runs)
    blocks = {
        "docs/gemm.md": gemm_section(runs, "docs"),
        "docs/devscan.md": devscan_section(runs, "docs"),
        "docs/barrier.md": price_section(runs, marked, "docs"),
        "docs/explain.md": why_lines(runs),
    }
    return {page: "\n".join(lines).lstrip("\n") + "\n" for page, lines in blocks.items()}


# The README's list of families: what each is and its variants, from the
# variant table (results/variants.csv), with the page that explains it.
FAMILY_DOCS = {"stencil": "stencil", "stencil2d": "stencil", "multistage": "stencil",
               "pipeline": "pipeline", "pipeline_intensity": "pipeline", "barrier": "barrier",
               "barrier_tma": "barrier", "barrier_cluster": "barrier", "gemm": "gemm",
               "devscan": "devscan"}


def families_block():
    lines = []
    for name, fam in sbvariants.catalog().items():
        roles = {sbvariants.baseline(name): "baseline", sbvariants.ceiling(name): "ceiling",
                 sbvariants.plain(name): "plain loop"}
        names = ", ".join(f"`{v}`" + (f" ({roles[v]})" if v in roles else "")
                          for v in sbvariants.variants(name))
        doc = FAMILY_DOCS.get(name)
        where = f", [docs/{doc}.md](docs/{doc}.md)" if doc else ""
        count = len(fam.variants)
        lines.append(f"- **{name}** ({count} variant{'s' if count != 1 else ''}{where}): "
                     f"{md_text(fam.summary)}: {names}")
    return "\n".join(lines) + "\n"


def markers(name):
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def replace_block(text, new_block, where="README", name="answers"):
    """`text` with the part between the markers replaced; ValueError if the
    markers are missing or out of order."""
    begin_mark, end_mark = markers(name)
    begin, end = text.find(begin_mark), text.find(end_mark)
    if begin < 0 or end < begin:
        raise ValueError(f"{where}: no '{begin_mark}' ... '{end_mark}' markers")
    return text[:begin + len(begin_mark)] + "\n" + new_block + text[end:]


def current_block(text, name="answers"):
    begin_mark, end_mark = markers(name)
    begin, end = text.find(begin_mark), text.find(end_mark)
    if begin < 0 or end < begin:
        return None
    return text[begin + len(begin_mark):end].removeprefix("\n")


def expected_blocks(runs):
    """{(page, marker name): block} of every generated block."""
    out = {("README.md", "answers"): block(runs), ("README.md", "families"): families_block()}
    out.update({(page, "answers"): text for page, text in page_blocks(runs).items()})
    return out


def write_blocks(blocks):
    """{(page, marker name): block}: every page's new text is made (and
    every marker found) before any page is written, each page atomically:
    a page without its markers changes none."""
    pages = {}
    for (path, name), new_block in blocks.items():
        if path not in pages:
            with open(path, encoding="utf-8") as f:
                pages[path] = f.read()
        pages[path] = replace_block(pages[path], new_block, path, name)
    for path, text in pages.items():
        sbcsv.write_atomically(path, text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="*", default=DEFAULT_CSVS)
    ap.add_argument("--write", metavar="README", help="replace the answers block in this file")
    ap.add_argument("--write-all", action="store_true",
                    help="replace every generated block: README.md's and the docs pages'")
    ap.add_argument("--offsweep", nargs="+", metavar="PROOF_CSV",
                    help="print the off-sweep table of this proof (a second: another GPU's)")
    args = ap.parse_args(argv)
    try:
        if args.offsweep:
            rows = [sbcsv.read(p) for p in args.offsweep[:2]]
            sys.stdout.write("\n".join(offsweep_proof_table(*rows)) + "\n")
            return 0
        runs = [load(p) for p in args.csv]
        out = block(runs)
        if args.write_all:
            write_blocks({(os.path.join(ROOT, page), name): text
                          for (page, name), text in expected_blocks(runs).items()})
        elif args.write:
            write_blocks({(args.write, "answers"): out})
        else:
            sys.stdout.write(out)
    except (sbcsv.CsvError, ValueError, OSError) as e:
        print(f"answers.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
