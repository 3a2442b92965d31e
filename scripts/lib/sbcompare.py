"""Comparing syncbench runs point by point: the logic behind compare.py
(console/Markdown tables, cross-GPU mode, the regression gate) and the
winner tables of report.py. No printing here except through render_*.

The gate rule (docs/REGRESSIONS.md says why and gives the measurements):
a point ok in both runs regresses when either holds:
  A. the point alone (any point, even a variant's only one):
     1. new median > base median * (1 + threshold)    the slowdown is large, and
     2. new median - notch > base median + notch       the spreads do not explain it:
        the medians' notches (median +- 1.57 IQR / sqrt(samples), McGill,
        Tukey and Larsen 1978: about a 95% interval of the median) do not
        overlap; where a row counts no samples (CSVs before the column),
        new q1 > base q3: the interquartile ranges do not overlap.
  B. the variant as a whole (a variant of VARIANT_MIN_POINTS or more points):
     1. the geometric mean of its time ratios is above 1 + VARIANT_SHIFT,
     2. a one-sided Wilcoxon signed-rank test (scipy) on the log ratios
        says the shift is systematic (p < VARIANT_ALPHA), and
     3. the point itself is more than VARIANT_SHIFT slower.
VARIANT_SHIFT sits above the run-to-run noise measured between real A/A
runs, so clean reruns flag nothing while a uniform 3% slowdown of one
variant is flagged at every one of its points. Faster is the mirror image.
Acceptances (results/accepted.csv) turn known, explained changes of one
base->new pair into "accepted": listed, not counted.

The gated figure. Rows of a family whose variant table names a ceiling
column (gemm: pct_of_cublas, devscan: pct_of_cub; results/variants.csv)
follow the GPU's power state, so the rules above do not read their time:
  - both rows schema >= 3 with the ceiling column filled, read from the
    samples the same way (ratio_reading: schema 3, 4-5, 6 on by the
    family's variant table) (the paired ratio: the ceiling timed in
    samples interleaved with the variant's): the figure
    is base ratio / new ratio, and rule A is that figure above 1 + threshold
    (there are no quartiles of a ratio);
  - between two runs of a family flagged time_across_runs (devscan: CUB
    moves between chips more than the variants' times; docs/history.md):
    its time, every row;
  - the ceiling's own row between two runs: its own sample as its family
    reads the ratio (gemm's cuBLAS: its 1st percentile), where both rows
    carry it and read the ratio the same way (at 8192^3, power-bound, that
    holds across H200 chips where its cycles do not: docs/history.md,
    "Rule A's quartiles against a notch");
  - otherwise: cycles, time x sm_clock_mhz (median and quartiles each
    multiplied by the row's clock);
  - either way, a point whose sm_clock_mhz differs between the two runs by
    more than POWER_STATE_LIMIT is "power state differs": judged all the
    same, by its band (the A/A runs' such points are in it), and listed;
    a paired ratio read from the fastest samples on both sides
    (CLOCK_FREE_READINGS) is not even listed: it moved no more at such
    points than at the others.
Every other row is gated on its time.

Bands: every variant judged against its own measured noise. Rule A's
threshold and rule B's shift are not one number for all: results/bands.csv
(scripts/bands.py writes it from the committed A/A runs, never by hand)
gives each variant, per GPU model and per pairing, the band its points
moved within when nothing changed (a high quantile over its recent A/A
pairs), times a margin, capped at BAND_CAP:
  - the pairing is what the two runs of a point are: "ab" (the two sides of
    an A/B run, interleaved on one GPU, each its own CUDA context),
    "same_chip" (two runs on one gpu_uuid) or "chip" (two chips of one
    model: two machines; a run naming no gpu_uuid counts as
    this, the widest);
  - rule A flags a point beyond max(threshold, point band), rule B a
    variant whose shift (the Hodges-Lehmann estimate: the median of the
    Walsh averages of its log ratios) is beyond max(VARIANT_SHIFT, shift
    band), Wilcoxon p < VARIANT_ALPHA, and each flagged point beyond it;
  - a variant without data in its pairing takes the widest band measured
    for it in another pairing of its model, then on another model
    (Band.source says which); one with no A/A data anywhere (a new
    variant) is "unjudged": listed, and a gate failure unless allowed
    (Comparison.fail_unjudged; compare.py --allow-unjudged).
Without a band table (bands=None: scripts/bands.py measuring the moves,
cross-GPU mode) every point is judged by threshold and VARIANT_SHIFT.

A/B (interleaved). When the two runs are the two sides of one A/B run
(scripts/ab.py: both builds on one GPU, interleaved point by point), the
power state the paired ratio cancels between runs is the same on both sides
already, and the ceiling itself (the same cuBLAS or CUB code on both sides)
is the one row that moves: each side is its own CUDA context, and the
library's kernels ride on where the driver places that context's memory
(CUB's 1M-element scan ran 3-9% apart between the two contexts of A/A
runs on three H100s, cuBLAS's fastest sample up to 5%). So a ceiling
family's point is gated on the variant's own samples, read as the family
reads its ratio: "fastest" -> the ratio of the two fastest samples
(figure "fastest", rule A like the paired ratio), "low_quartile" -> the
ratio of the two lower quartiles (figure "low_quartile"), "block_median"
-> time.
"""
from __future__ import annotations

from collections import Counter
import csv
import fnmatch
import math
import os
import re
import statistics
import textwrap
from dataclasses import dataclass, field

import sbcsv
import sbvariants

DEFAULT_THRESHOLD = 0.05
# A ceiling-family point whose SM clock (sm_clock_mhz) moved by more than
# this between the runs is listed as "power state differs" (and judged all
# the same: no point is left ungated for its clocks).
POWER_STATE_LIMIT = 0.05
# Paired-ratio readings that the clock over the samples does not move: on
# six cross-machine pairs of four H100 runs (commits 5347b92, 361a70c), the
# 23 GEMM points whose clocks differed by more than POWER_STATE_LIMIT moved
# their fastest-sample ratio by a median of 0.1-0.9% and at most 3.7%; the
# other points by 0.35-0.57% and at most 4.0% (docs/REGRESSIONS.md). Such
# points stay gated whatever the clocks.
CLOCK_FREE_READINGS = {"fastest", "low_quartile", "p10", "p05", "p01",
                       "median_cycles"}  # the A/B's cycles: clock-free by construction
# The A/B figure of a clock-free reading: the variant's own samples, read
# the same way (the column of the row that holds them).
OWN_SAMPLE = {"fastest": "min_us", "low_quartile": "q1_us", "p10": "p10_us", "p05": "p05_us",
              "p01": "p01_us", "median_cycles": "median_kcycles"}
# Readings of the paired ratio before the variant table named them per
# schema: schema 6-8 read gemm's fastest samples, devscan's block median;
# schema 9-12 gemm's lower quartiles (the table has said p01 since 13).
READINGS_BEFORE_9 = {"gemm": "fastest", "devscan": "block_median"}
READINGS_BEFORE_13 = {"gemm": "low_quartile", "devscan": "block_median"}
# schema 13-14: gemm's 1st percentiles for every variant (from 15 a variant
# flagged median_ratio reads the block median, as the table said).
READINGS_BEFORE_15 = {"gemm": "p01", "devscan": "block_median"}
# schema 15-16: the variant the table now reads at p75 (flag p75_ratio, then
# median_ratio) read the block median.
READINGS_BEFORE_17 = {"p75": "block_median"}
# What a point is gated on (Match.figure), in the order the docs give them.
FIGURES = {"time": "time", "cycles": "cycles (time x sm_clock_mhz)",
           "paired": "paired ceiling ratio",
           "fastest": "fastest sample (A/B: the variant's own, min_us)",
           "low_quartile": "lower quartile (A/B: the variant's own, q1_us)",
           "p10": "10th percentile (A/B: the variant's own, p10_us)",
           "p05": "5th percentile (A/B: the variant's own, p05_us)",
           "p01": "1st percentile (A/B: the variant's own, p01_us)",
           "median_cycles": "median in cycles (A/B: the variant's own, median_kcycles: each sample at the "
                            "clock the witness read for it)"}
# Rule B, from measured noise: between real A/A runs no variant's geometric
# mean moved by more than 0.4% (H200 back to back, 858 and 397 points) and
# no point of a multi-point variant by more than 1.5%. 1.5% sits above both.
VARIANT_SHIFT = 0.015
VARIANT_MIN_POINTS = 5
# Rule A's floor, with the bands, for a variant of fewer than
# VARIANT_MIN_POINTS points in the pair, which rule B cannot judge: at the
# gate's 5% a +5% change of such a variant sat on the floor (the reference
# rows, the hand-offs, devscan/cub, splitk_cluster). Its own band still
# rules above it. On the committed A/As judged out of sample the lower floor
# flags one more point, none slower (docs/history.md).
FEW_POINTS_FLOOR = 0.03
VARIANT_ALPHA = 0.05
OK = "ok"
# Figures that mean the same thing on any GPU, so cross-GPU mode compares
# them besides times: name -> True when higher is better.
NORMALIZED = {"pct_of_copy": True, "cycles_per_op": False}
TIMES = ("median_us", "q1_us", "q3_us")
# Each variant's noise band per GPU model and pairing: written from the
# committed A/A runs by scripts/bands.py (never edited by hand; its --check
# says whether it is current).
BANDS_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          "results", "bands.csv")
BAND_COLUMNS = ["gpu_name", "pairing", "family", "variant", "pairs", "points",
                "median_move_pct", "worst_move_pct", "worst_shift_pct", "margin",
                "point_band_pct", "shift_band_pct"]
# Optional last column: empty for a variant's band; a point's axes
# (point_axes) for a band of that point's own, which it is judged by instead
# (scripts/bands.py gives one to a point that moved far more than every
# other point of its variant in the A/A runs).
BAND_POINT_COLUMN = "point"
# No band over BAND_CAP: a variant whose A/A data would need more is written
# at the cap and marked in BAND_OVER_CAP_COLUMN ("point", "shift" or both:
# its measurement is to be fixed, not its band widened); the band its data
# measured is margin x quantile_move_pct (rule A) and margin x
# worst_shift_pct (rule B). A pair whose runs were both made before
# BAND_CAP_SINCE is judged by the bands of its time: such a variant by the
# band its data measured (Bands.as_of; the summary says so).
BAND_CAP = 0.10
BAND_CAP_SINCE = "2026-12-02T00:00:00Z"
BAND_OVER_CAP_COLUMN = "over_cap"
BAND_QUANTILE_COLUMN = "quantile_move_pct"
# The pairings a band is measured for, narrowest first (Band: the fallback
# takes the widest of the others).
PAIRINGS = ("ab", "same_chip", "chip")
PAIRING_WORDS = {"ab": "A/B on one GPU", "same_chip": "one chip", "chip": "two chips"}


# ---------------------------------------------------------------- loading

@dataclass
class Run:
    """One CSV: its ok and not-ok rows by point key, and who produced it."""
    path: str
    rows: list
    by_key: dict
    columns: set

    @property
    def gpu_name(self):
        return self.rows[0]["gpu_name"]

    @property
    def first_line(self):
        return self.rows[0]["_line"]

    def provenance(self, column):
        return self.rows[0].get(column) or "?"

    def gpu_uuids(self):
        """The chips the rows ran on (gpu_uuid), empty where none is named."""
        return {r["gpu_uuid"] for r in self.rows if r.get("gpu_uuid")}

    def sm_clock_mhz(self):
        """Median SM clock over ok points, None if the CSV has none."""
        clocks = [r["sm_clock_mhz"] for r in self.rows
                  if r["status"] == OK and r.get("sm_clock_mhz") is not None]
        return statistics.median(clocks) if clocks else None


def load_run(path, timings=True):
    """Reads and validates one CSV: rows, one GPU, a row a point and (timings)
    every ok row's times as the gate rule reads them. Raises sbcsv.CsvError
    (file:line: column)."""
    try:
        rows = sbcsv.read(path)
    except OSError as e:
        raise sbcsv.CsvError(f"{path}: cannot read: {e.strerror or e}") from None
    if not rows:
        raise sbcsv.CsvError(f"{path}:2: column 'family': no result rows after the header")
    check_one_gpu(path, rows)
    if timings:
        check_ok_timings(path, rows)
    return Run(path=path, rows=rows, by_key=unique_keys(path, rows),
               columns=set(rows[0]))


def not_one_gpu(base, new):
    """Why two runs are not the two sides of one interleaved A/B run (which
    writes one gpu_uuid on both sides), or None."""
    b, n = base.gpu_uuids(), new.gpu_uuids()
    if b and n and (b != n or len(b) > 1):
        return (f"{new.path}:{new.first_line}: column 'gpu_uuid': {', '.join(sorted(n))}, but "
                f"{base.path} ran on {', '.join(sorted(b))}")
    return None


def filtered(run, families=None, variants=None):
    """The run with only the rows of the given families and variants
    (globs; a variant pattern may be 'variant' or 'family/variant')."""
    def wanted(row):
        name = f"{row['family']}/{row['variant']}"
        return ((not families or any(fnmatch.fnmatchcase(row["family"], f) for f in families))
                and (not variants or any(fnmatch.fnmatchcase(row["variant"], v)
                                         or fnmatch.fnmatchcase(name, v) for v in variants)))
    rows = [r for r in run.rows if wanted(r)]
    return Run(path=run.path, rows=rows, by_key={k: r for k, r in run.by_key.items() if wanted(r)},
               columns=run.columns)


def with_rows(run, rows):
    """The run with these rows (its own, or changed copies) in place of its own."""
    return Run(path=run.path, rows=rows, by_key={sbcsv.key(r): r for r in rows}, columns=run.columns)


# A point made slower takes more time at every quantile and more cycles; its
# throughput and its paired ratio to a ceiling fall by as much.
SLOWER_COLUMNS = sbcsv.SAMPLE_TIMES + ("median_kcycles",)
SLOWER_INVERSE = ("gbps", "pct_of_copy", "gflops", "pct_of_cublas", "pct_of_cub")


def slowed(row, factor):
    """A parsed row whose point takes factor times as long."""
    row = dict(row)
    for c in SLOWER_COLUMNS:
        if row.get(c) is not None:
            row[c] *= factor
    for c in SLOWER_INVERSE:
        if row.get(c) is not None:
            row[c] /= factor
    return row


def unique_keys(path, rows):
    """{key: row}; two rows with one key make the file ambiguous."""
    seen = {}
    for row in rows:
        k = sbcsv.key(row)
        if k in seen:
            raise sbcsv.CsvError(
                f"{path}:{row['_line']}: column 'variant': duplicate point "
                f"{describe_point(row)} (same family, variant and axes as line "
                f"{seen[k]['_line']})")
        seen[k] = row
    return seen


# How the L2 was emptied before each sample, from an ok row's detail
# (harness/runner.c): a read since 54fa7a1, a memset before it (the rows of
# that time say only "L2 flushed before each sample").
FLUSH_WORDS = (("L2 flushed by a read and a discard", "discard"), ("L2 flushed by a read", "read"),
               ("L2 flushed by a memset", "memset"), ("L2 flushed before each sample", "memset"))


def flush_methods(run):
    """{method: first line that says it} over the run's ok rows; a flush of
    other than 2 L2s (SB_FLUSH_L2S) is a method of its own, "read of 8 L2s"."""
    seen = {}
    for row in run.rows:
        detail = row.get("detail") or ""
        for words, method in FLUSH_WORDS:
            if row["status"] == OK and words in detail:
                size = re.search(re.escape(words) + r" of (\d+) L2s", detail)
                seen.setdefault(f"{method} of {size.group(1)} L2s" if size else method, row["_line"])
                break
    return seen


def flush_env(method):
    """The environment that times a run under a flush_methods() method."""
    size = re.fullmatch(r"(\w+) of (\d+) L2s", method)
    return f"SB_FLUSH={size.group(1)} SB_FLUSH_L2S={size.group(2)}" if size else f"SB_FLUSH={method}"


def check_one_gpu(path, rows):
    """One CSV is one run on one GPU; a mix would compare apples to pears."""
    first = rows[0]["gpu_name"]
    for row in rows:
        if row["gpu_name"] != first:
            raise sbcsv.CsvError(
                f"{path}:{row['_line']}: column 'gpu_name': '{row['gpu_name']}' differs "
                f"from '{first}' on line {rows[0]['_line']} (one CSV must hold one GPU's run)")


def check_ok_timings(path, rows):
    """An ok row needs positive, ordered quartiles: the gate rule uses them."""
    for row in rows:
        if row["status"] != OK:
            continue
        for column in TIMES:
            value = row.get(column)
            if value is None or value <= 0:
                raise sbcsv.CsvError(
                    f"{path}:{row['_line']}: column '{column}': an ok row needs a "
                    f"positive time, found '{'' if value is None else value}'")
        if not row["q1_us"] <= row["median_us"] <= row["q3_us"]:
            raise sbcsv.CsvError(
                f"{path}:{row['_line']}: column 'median_us': {row['median_us']} is "
                f"outside [q1_us, q3_us] = [{row['q1_us']}, {row['q3_us']}]")


# ------------------------------------------------------- points and axes

def axis_columns():
    return list(dict.fromkeys(sbcsv.AXES + sbcsv.EXTRA_AXES))


def axes_in_use(rows):
    """Axis columns that some row sets: the ones worth a table column."""
    return [a for a in axis_columns() if any(r.get(a) is not None for r in rows)]


def fmt_axis(value):
    """32M, 64k: large powers of 1024 the way the CLI accepts them (1024
    threads stay 1024); '' if unset."""
    if value is None:
        return ""
    if isinstance(value, int) and value >= 1 << 16:
        for shift, suffix in ((30, "G"), (20, "M"), (10, "k")):
            if value % (1 << shift) == 0:
                return f"{value >> shift}{suffix}"
    return str(value)


def point_axes(row):
    """A point's axes as one string ("stages=8 n=1024 ... cluster_shape=1x2"):
    with family and variant, what names it (describe_point, a band of one
    point's own in results/bands.csv)."""
    return " ".join(f"{a}={fmt_axis(row.get(a))}" for a in axis_columns()
                    if row.get(a) is not None)


def describe_point(row):
    axes = point_axes(row)
    return f"{row['family']}/{row['variant']}" + (f" {axes}" if axes else "")


def sort_value(value):
    # Axes mix None, numbers and names: sortable all the same.
    if value is None:
        return (0, 0, "")
    if isinstance(value, (int, float)):
        return (1, value, "")
    return (2, 0, str(value))


def shape_of(row):
    """A point's key without its variant: variants of one shape compete."""
    return (row["family"], *(row.get(a) for a in axis_columns()))


# ----------------------------------------------------------- the rule

def notch_us(row):
    """Half the width of a row's median notch, 1.57 IQR / sqrt(samples)
    (McGill, Tukey and Larsen 1978), in us; None where it counts no samples."""
    n = row.get("samples")
    return 1.57 * (row["q3_us"] - row["q1_us"]) / math.sqrt(n) if n else None


def spread_edges(base, new):
    """(base's upper, new's lower) edge of what the samples explain: the
    medians' notches where both rows count their samples, else the
    quartiles (base q3, new q1)."""
    nb, nn = notch_us(base), notch_us(new)
    if nb is None or nn is None:
        return base["q3_us"], new["q1_us"]
    return base["median_us"] + nb, new["median_us"] - nn


def slower_beyond_noise(base, new, threshold, clocks=(1.0, 1.0)):
    """The gate rule: new is slower than base by more than threshold and
    the spreads do not explain it (spread_edges: the medians' notches do
    not overlap; without sample counts, the interquartile ranges). clocks:
    (base, new) multipliers of the times (the SM clocks, to compare cycles)."""
    cb, cn = clocks
    upper, lower = spread_edges(base, new)
    return (new["median_us"] * cn > base["median_us"] * cb * (1 + threshold)
            and lower * cn > upper * cb)


def faster_beyond_noise(base, new, threshold, clocks=(1.0, 1.0)):
    return slower_beyond_noise(new, base, threshold, clocks[::-1])


def ceiling_column(family):
    """The column a family's paired ceiling ratio goes to (its variant
    table says), or None for a family without a ceiling row."""
    fam = sbvariants.family(family)
    return fam.ceiling_column if fam else None


def ratio_reading(row):
    """How the row's paired ceiling ratio was read from its samples, or
    None before pairing (schema 1-2): two rows' ratios compare only when
    read the same way. Schema 3: ratio of two medians; 4-5: median of
    v c c v block ratios; 6-12: as the table said then (READINGS_BEFORE_9,
    READINGS_BEFORE_13, READINGS_BEFORE_15); 15 on: as the variant table says
    for the row's variant (its family's reading, or its own for a variant
    flagged p75_ratio: the 75th percentiles from 17, the block median in
    15-16, READINGS_BEFORE_17)."""
    schema = row.get("schema_version") or 0
    if schema < 3:
        return None
    if schema == 3:
        return "ratio_of_medians"
    if schema <= 5:
        return "block_median"
    if schema <= 8:
        return READINGS_BEFORE_9.get(row["family"], "block_median")
    if schema <= 12:
        return READINGS_BEFORE_13.get(row["family"], "block_median")
    if schema <= 14:
        return READINGS_BEFORE_15.get(row["family"], "block_median")
    var = sbvariants.variant(row["family"], row["variant"])
    fam = sbvariants.family(row["family"])
    reading = (var.ceiling_reading if var else None) or (fam.ceiling_reading if fam else None) or "block_median"
    return READINGS_BEFORE_17.get(reading, reading) if schema <= 16 else reading


def _positive(row, column):
    value = row.get(column)
    return value is not None and value > 0


def _time_across_runs(row, interleaved):
    """Whether two runs (not an A/B run) read the row's family on its time
    (family flag time_across_runs: devscan, memory-bound, whose ceiling
    moves between chips on its own)."""
    return not interleaved and sbvariants.has_family_flag(row["family"], "time_across_runs")


def gated_figure(base, new, interleaved=False):
    """(figure, ceiling column) a matched point is gated on: 'time' for
    families without a ceiling; for the others the paired ratio when both
    rows are schema >= 3, carry it and read it from their samples the same
    way (ratio_reading), else 'cycles' (time x SM clock), else (no
    clock on a side) 'time'. interleaved (an A/B run): the variant's own
    samples, read as its family reads the ratio ('fastest' or 'time');
    where the two builds read it differently (an A/B against a build of an
    older schema), as the BASE read it, when both rows carry that sample (a
    K-heavy chain's median follows its process's share of slow launches,
    its fastest sample does not: docs/history.md), else 'time'. A variant
    flagged p75_ratio (median_ratio before schema 17: its level follows
    where its buffers lie, fast at some places) is read at its median
    whatever the base read, where the new side is of a build that says so
    (schema 15 on): in cycles,
    'median_cycles', where both rows carry it (its long launches run at two
    clock levels under the power cap, and the median time falls in
    either), else 'time'. Between two runs (not interleaved), a family
    flagged time_across_runs (devscan) is read on its time: its ceiling
    moves between chips on its own, the variants' times do not. The
    ceiling's own row between two runs: its own sample as its family reads
    the ratio (gemm: cuBLAS's 1st percentile), where both rows carry it and
    read it alike, else cycles."""
    column = ceiling_column(base["family"])
    if column is None:
        return "time", None
    if _time_across_runs(base, interleaved):
        return "time", column
    if interleaved:
        if (new.get("schema_version") or 0) >= 15 and sbvariants.has_flag(base["family"], base["variant"],
                                                                            "p75_ratio"):
            both = _positive(base, "median_kcycles") and _positive(new, "median_kcycles")
            return ("median_cycles" if both else "time"), column
        reading = ratio_reading(base)
        own = OWN_SAMPLE.get(reading)
        if own and _positive(base, own) and _positive(new, own):
            return reading, column
        return "time", column
    if (not sbvariants.has_flag(base["family"], base["variant"], "ceiling")
            and all((r.get("schema_version") or 0) >= 3 and _positive(r, column)
                    for r in (base, new))
            and ratio_reading(base) == ratio_reading(new)):
        return "paired", column
    own = OWN_SAMPLE.get(ratio_reading(base))
    if (sbvariants.has_flag(base["family"], base["variant"], "ceiling") and own
            and ratio_reading(base) == ratio_reading(new) and _positive(base, own) and _positive(new, own)):
        return ratio_reading(base), column  # the ceiling's own row: its own sample
    if _positive(base, "sm_clock_mhz") and _positive(new, "sm_clock_mhz"):
        return "cycles", column
    return "time", column


def _clocks(figure, base, new):
    """(base, new) multipliers of the times: the SM clocks for cycles."""
    if figure == "cycles":
        return base["sm_clock_mhz"], new["sm_clock_mhz"]
    return 1.0, 1.0


# Figures with no quartiles: rule A is the figure alone past the threshold.
RATIO_FIGURES = {"paired", *OWN_SAMPLE}


def match_slower(m, threshold):
    """Rule A on the point's gated figure."""
    if m.figure in RATIO_FIGURES:
        return m.gated > 1 + threshold
    return slower_beyond_noise(m.base, m.new, threshold, _clocks(m.figure, m.base, m.new))


def match_faster(m, threshold):
    if m.figure in RATIO_FIGURES:
        return 1 / m.gated > 1 + threshold
    return faster_beyond_noise(m.base, m.new, threshold, _clocks(m.figure, m.base, m.new))


def smallest_flagged_scale(base, new, threshold, figure="time", column=None):
    """The factor s such that scaling every time of new by anything above s
    makes the gate flag the point: the point's sensitivity in an A/A pair.
    figure/column: what the point is gated on (gated_figure)."""
    if figure == "paired":  # new's ratio scales by 1/s
        return (1 + threshold) * new[column] / base[column]
    if figure in OWN_SAMPLE:
        own = OWN_SAMPLE[figure]
        return (1 + threshold) * base[own] / new[own]
    cb, cn = _clocks(figure, base, new)
    upper, lower = spread_edges(base, new)  # a scaled row's notch scales with it
    if lower <= 0:  # a notch down to zero (a few samples, a wide spread): no scale parts them
        return math.inf
    return max((1 + threshold) * base["median_us"] * cb / (new["median_us"] * cn),
               upper * cb / (lower * cn))


def shift_estimate(log_ratios):
    """The Hodges-Lehmann estimate of a variant's shift: the median of the
    Walsh averages (d_i + d_j) / 2, i <= j, of its log ratios. It is what the
    Wilcoxon signed-rank test tests, and a few noisy points do not move it
    as they move a mean."""
    d = sorted(log_ratios)
    if not d:
        return 0.0
    walsh = [(d[i] + d[j]) / 2 for i in range(len(d)) for j in range(i, len(d))]
    return statistics.median(walsh)


def variant_shift(log_ratios, shift=VARIANT_SHIFT, alpha=VARIANT_ALPHA):
    """+1 when a variant's points got slower together (rule B), -1 when
    faster together, 0 otherwise. log_ratios: log(new/base) per point;
    shift: the variant's band (its estimate must be beyond it)."""
    if len(log_ratios) < VARIANT_MIN_POINTS:
        return 0
    estimate = shift_estimate(log_ratios)
    if abs(estimate) <= math.log1p(shift):
        return 0
    direction = 1 if estimate > 0 else -1
    moved = [d for d in log_ratios if d != 0]
    if len(moved) < VARIANT_MIN_POINTS:
        return 0
    from scipy.stats import wilcoxon  # only for a variant that moved: keeps compare fast
    try:
        p = wilcoxon(moved, alternative="greater" if direction > 0 else "less").pvalue
    except ValueError:
        return 0
    return direction if p < alpha else 0


def apply_variant_rule(matches):
    """Rule B over matches, on each point's gated figure, each variant
    against its own shift band (verdicts set in place); points not judged
    (unjudged) and points with a band of their own (judged by it alone)
    take no part."""
    groups = {}
    for m in matches:
        if not m.gated_out and not (m.band and m.band.own):
            groups.setdefault(by_variant(m), []).append(m)
    for group in groups.values():
        shift = group[0].shift_threshold
        direction = variant_shift([math.log(m.gated) for m in group], shift)
        for m in group:
            if m.verdict:
                continue
            if direction > 0 and m.gated > 1 + shift:
                m.verdict, m.why = "slower", "variant"
            elif direction < 0 and m.gated < 1 / (1 + shift):
                m.verdict, m.why = "faster", "variant"


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


# -------------------------------------------------------- comparison

@dataclass
class Band:
    """What one variant's points are judged by in one pairing: rule A's
    point band and rule B's shift band (fractions, before the floors of
    threshold and VARIANT_SHIFT), and where they were measured."""
    point: float
    shift: float
    source: str  # e.g. "NVIDIA H100 80GB HBM3, two chips, 6 A/A pairs"
    pairing: str = ""  # the pairing whose data it is (PAIRINGS)
    own: bool = False  # one point's own band (BAND_POINT_COLUMN), not its variant's
    measured: tuple | None = None  # over the cap: (point, shift) its A/A data measured


@dataclass
class Match:
    """One point ok on both sides."""
    base: dict
    new: dict
    verdict: str  # "slower", "faster" or "" (within threshold or noise)
    why: str = ""  # "point" (rule A) or "variant" (rule B)
    figure: str = "time"  # what it is gated on: FIGURES
    column: str | None = None  # the family's ceiling column, if it has one
    power_state: bool = False  # SM clocks differ beyond POWER_STATE_LIMIT: listed, judged all the same
    band: Band | None = None  # its band (its variant's or its own); None with a table: unjudged
    unjudged: bool = False  # no A/A data for its variant anywhere: listed, counted
    threshold: float = DEFAULT_THRESHOLD  # the gate's floor for rule A

    @property
    def gated_out(self):
        """Listed, never a verdict: no A/A data for its variant anywhere."""
        return self.unjudged

    @property
    def point_threshold(self):
        """Rule A's threshold for this point: the gate's, or its band's."""
        return max(self.threshold, self.band.point if self.band else 0.0)

    @property
    def shift_threshold(self):
        """Rule B's shift for this point's variant."""
        return max(VARIANT_SHIFT, self.band.shift if self.band else 0.0)

    @property
    def ratio(self):
        """new time / base time: above 1 is slower."""
        return self.new["median_us"] / self.base["median_us"]

    @property
    def clock_ratio(self):
        """new SM clock / base SM clock, or None without both."""
        b, n = self.base.get("sm_clock_mhz"), self.new.get("sm_clock_mhz")
        return n / b if b and n else None

    @property
    def gated(self):
        """The gated figure's ratio, above 1 is slower: the time ratio, the
        cycles ratio, or base paired ratio / new paired ratio."""
        if self.figure == "paired":
            return self.base[self.column] / self.new[self.column]
        if self.figure in OWN_SAMPLE:
            own = OWN_SAMPLE[self.figure]
            return self.new[own] / self.base[own]
        if self.figure == "cycles":
            return self.ratio * self.clock_ratio
        return self.ratio

    def figure_ratio(self, column):
        b, n = self.base.get(column), self.new.get(column)
        return n / b if b and n is not None else None


@dataclass
class Comparison:
    base: Run
    new: Run
    threshold: float
    matches: list = field(default_factory=list)
    broken: list = field(default_factory=list)      # (base, new): ok -> not ok
    fixed: list = field(default_factory=list)       # (base, new): not ok -> ok
    not_ok_both: list = field(default_factory=list)  # (base, new)
    only_base: list = field(default_factory=list)
    only_new: list = field(default_factory=list)
    accepted: dict = field(default_factory=dict)     # point key -> Acceptance
    acceptances: list = field(default_factory=list)  # those for this pair of runs
    bands: "Bands | None" = None  # results/bands.csv, if loaded
    interleaved: bool = False  # an A/B run: both sides interleaved on one GPU
    fail_unjudged: bool = True  # unjudged points count as gate failures (compare.py --allow-unjudged: not)

    @property
    def cross_gpu(self):
        return self.base.gpu_name != self.new.gpu_name

    def is_accepted(self, row):
        return sbcsv.key(row) in self.accepted

    @property
    def slower(self):
        """Every point slower beyond noise, accepted or not."""
        return [m for m in self.matches if m.verdict == "slower"]

    @property
    def regressions(self):
        return [m for m in self.slower if not self.is_accepted(m.base)]

    @property
    def failing_broken(self):
        return [(b, n) for b, n in self.broken if not self.is_accepted(b)]

    @property
    def improvements(self):
        return [m for m in self.matches if m.verdict == "faster"]

    @property
    def power_state_differs(self):
        """Ceiling-family points whose SM clocks differ beyond the limit
        (judged like every other point; listed)."""
        return [m for m in self.matches if m.power_state]

    @property
    def unjudged(self):
        """Points of variants with no A/A data anywhere (a new variant):
        listed and counted, not judged."""
        return [m for m in self.matches if m.unjudged]

    @property
    def pairing(self):
        """The pairing the bands are read for (PAIRINGS)."""
        if self.interleaved:
            return "ab"
        return "same_chip" if self.chips == "one" else "chip"

    @property
    def chips(self):
        """'one', 'two' or 'unknown': whether the two runs ran on one chip
        (every gpu_uuid of both the same), on two, or cannot tell (a side
        without gpu_uuid)."""
        b, n = self.base.gpu_uuids(), self.new.gpu_uuids()
        if not b or not n:
            return "unknown"
        return "one" if b == n and len(b) == 1 else "two"

    def figure_counts(self):
        """{figure: points gated on it} (points not gated left out)."""
        counts = {f: 0 for f in FIGURES}
        for m in self.matches:
            if not m.gated_out:
                counts[m.figure] += 1
        return counts

    @property
    def missing(self):
        """Points ok in base that new does not have at all."""
        return [r for r in self.only_base if r["status"] == OK and not self.is_accepted(r)]

    def normalized_columns(self):
        """Normalized figures both CSVs have and some matched point fills."""
        return [c for c in NORMALIZED
                if c in self.base.columns and c in self.new.columns
                and any(m.figure_ratio(c) is not None for m in self.matches)]

    def axes(self):
        rows = [r for pair in self.all_pairs() for r in pair if r]
        return axes_in_use(rows + self.only_base + self.only_new)

    def all_pairs(self):
        return ([(m.base, m.new) for m in self.matches] + self.broken + self.fixed
                + self.not_ok_both)

    def gate_failures(self, allow_missing=False):
        return (len(self.regressions) + len(self.failing_broken)
                + (0 if allow_missing else len(self.missing))
                + (len(self.unjudged) if self.fail_unjudged else 0))

    def accept(self, acceptances):
        """Marks the slower, broken and missing points that an acceptance
        for this pair of runs covers; returns the acceptances that apply."""
        self.acceptances = [a for a in acceptances if a.applies(self)]
        candidates = ([m.base for m in self.slower] + [b for b, _ in self.broken]
                      + [r for r in self.only_base if r["status"] == OK])
        for row in candidates:
            for a in self.acceptances:
                if a.covers(row):
                    self.accepted[sbcsv.key(row)] = a
                    break
        return self.acceptances

    def accepted_count(self, acceptance):
        return sum(1 for a in self.accepted.values() if a is acceptance)


def two_chips(b, n):
    """The two rows of a point ran on two chips: both name their gpu_uuid
    and the names differ."""
    ub, un = b.get("gpu_uuid"), n.get("gpu_uuid")
    return bool(ub and un and ub != un)


def match_of(b, n, threshold, cross_gpu=False, bands=None, pairing="chip", interleaved=False, few=False):
    """One point ok on both sides, with its figure, its band and its rule-A
    verdict. bands (Bands): the variant's band for pairing; None judges it by
    threshold alone (as across GPU models). interleaved: an A/B run
    (gated_figure). few: its variant has fewer than VARIANT_MIN_POINTS
    points in the pair (rule B cannot judge it): rule A's floor is at most
    FEW_POINTS_FLOOR where its band was measured in this pairing."""
    figure, column = gated_figure(b, n, interleaved)
    m = Match(b, n, "", figure=figure, column=column, threshold=threshold)
    clock = m.clock_ratio
    clock_free = (figure in OWN_SAMPLE
                  or (figure == "paired" and ratio_reading(b) in CLOCK_FREE_READINGS)
                  # memory-bound, on its time: the SM clock does not set it
                  or (figure == "time" and _time_across_runs(b, interleaved)))
    m.power_state = bool(column and not cross_gpu and clock and not clock_free
                         and abs(clock - 1) > POWER_STATE_LIMIT)
    if bands is not None and not cross_gpu:
        m.band = bands.band(b["gpu_name"], pairing, b["family"], b["variant"], point_axes(b))
        m.unjudged = m.band is None
        if few and m.band is not None and m.band.pairing == pairing:
            m.threshold = min(threshold, FEW_POINTS_FLOOR)
    if not m.gated_out:
        m.verdict = ("slower" if match_slower(m, m.point_threshold) else
                     "faster" if match_faster(m, m.point_threshold) else "")
        m.why = "point" if m.verdict else ""
    return m


def compare(base, new, threshold=DEFAULT_THRESHOLD, bands=None, interleaved=False):
    """Joins two runs on family, variant and every axis. bands (load_bands):
    each variant's noise band for this pair's pairing; None judges every
    point by threshold and VARIANT_SHIFT. interleaved: the two sides ran
    interleaved point by point on one GPU (an A/B run; the summary says
    so)."""
    out = Comparison(base=base, new=new, threshold=threshold, bands=bands,
                     interleaved=interleaved)
    if bands is not None:  # a pair made before the cap: the bands of its time
        out.bands = bands = bands.as_of(max(base.provenance("run_utc"), new.provenance("run_utc")))
    pairing = out.pairing
    few = set()  # variants rule A alone judges: fewer than VARIANT_MIN_POINTS common points
    if bands is not None and not out.cross_gpu:
        common = Counter((b["family"], b["variant"]) for k, b in base.by_key.items()
                         if b["status"] == OK and new.by_key.get(k, {}).get("status") == OK)
        few = {v for v, c in common.items() if c < VARIANT_MIN_POINTS}
    for k, b in base.by_key.items():
        n = new.by_key.get(k)
        if n is None:
            out.only_base.append(b)
        elif b["status"] == OK and n["status"] == OK:
            out.matches.append(match_of(b, n, threshold, out.cross_gpu, bands, pairing, interleaved,
                                        few=(b["family"], b["variant"]) in few))
        elif b["status"] == OK:
            out.broken.append((b, n))
        elif n["status"] == OK:
            out.fixed.append((b, n))
        else:
            out.not_ok_both.append((b, n))
    out.only_new = [n for k, n in new.by_key.items() if k not in base.by_key]
    if not out.cross_gpu:  # across GPU models every point moves: rule B means nothing
        apply_variant_rule(out.matches)
    return out


# ---------------------------------------------------------- acceptances

ACCEPT_COLUMNS = ["gpu", "point", "base_commit", "new_commit", "reason"]


@dataclass
class Acceptance:
    """One line of an acceptance file: points of one GPU whose change from
    base_commit to new_commit is known and explained."""
    where: str        # file:line
    gpu: str          # glob on the GPU slug (sbcsv.gpu_slug), e.g. h200 or *
    point: str        # glob on describe_point(), e.g. pipeline/ws_barrier *
    base_commit: str  # commit prefixes of the two runs it is valid for
    new_commit: str
    reason: str

    def applies(self, cmp):
        return (fnmatch.fnmatchcase(sbcsv.gpu_slug(cmp.new.gpu_name), self.gpu)
                and str(cmp.base.provenance("commit")).startswith(self.base_commit)
                and str(cmp.new.provenance("commit")).startswith(self.new_commit))

    def covers(self, row):
        name = describe_point(row)
        return fnmatch.fnmatchcase(name, self.point) or fnmatch.fnmatchcase(
            f"{row['family']}/{row['variant']}", self.point)

    def describe(self, reason_chars=None):
        reason = self.reason
        if reason_chars and len(reason) > reason_chars:
            reason = reason[:reason_chars - 3].rstrip() + "..."
        return (f"{self.where}: {self.gpu} {self.point} "
                f"({self.base_commit}..{self.new_commit}): {reason}")


def _named_rows(path, columns, name, read_hint="", column_hint=""):
    """[(line number, {column: stripped cell})] of a small CSV read by column
    name ('#' lines are comments), the header holding every one of columns;
    raises sbcsv.CsvError naming file and line. name says what the file is
    ("acceptance file"), the hints what to do about it."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            lines = [(i, line) for i, line in enumerate(f, start=1)
                     if line.strip() and not line.lstrip().startswith("#")]
    except OSError as e:
        raise sbcsv.CsvError(f"{path}: cannot read{read_hint and ' the ' + name}: "
                             f"{e.strerror or e}{read_hint}") from None
    except UnicodeDecodeError:
        raise sbcsv.CsvError(f"{path}:1: not a UTF-8 text file (the {name})") from None
    if not lines:
        raise sbcsv.CsvError(f"{path}:1: empty {name} (no header)")
    records = list(csv.reader(line for _, line in lines))
    header = [c.strip() for c in records[0]]
    missing = [c for c in columns if c not in header]
    if missing:
        raise sbcsv.CsvError(f"{path}:{lines[0][0]}: missing column(s) {', '.join(missing)}"
                             f"{column_hint}")
    rows = []
    for (number, _), record in zip(lines[1:], records[1:]):
        if len(record) != len(header):
            raise sbcsv.CsvError(f"{path}:{number}: {len(record)} fields, the header has "
                                 f"{len(header)}")
        rows.append((number, {c: v.strip() for c, v in zip(header, record)}))
    return rows


def load_acceptances(path):
    """Reads an acceptance CSV (columns by name, '#' lines are comments).
    Raises sbcsv.CsvError naming file, line and column."""
    out = []
    for number, row in _named_rows(path, ACCEPT_COLUMNS, "acceptance file"):
        for column in ACCEPT_COLUMNS:
            if not row[column]:
                raise sbcsv.CsvError(f"{path}:{number}: column '{column}': empty (an "
                                     f"acceptance names its GPU, points, both commits and why)")
        out.append(Acceptance(f"{path}:{number}", *(row[c] for c in ACCEPT_COLUMNS)))
    return out


# ---------------------------------------------------------- the bands

@dataclass
class Bands:
    """results/bands.csv: per GPU model, pairing and variant, the band its
    committed A/A runs moved within (Band); and the points with a band of
    their own."""
    path: str
    rows: dict  # (gpu_name, pairing, family, variant) -> Band
    points: dict = field(default_factory=dict)  # (gpu_name, pairing, family, variant, point_axes) -> Band
    of_its_time: list = field(default_factory=list)  # as_of: the over-cap bands lifted, "family/variant"

    def own(self, gpu_name, pairing, family, variant):
        return self.rows.get((gpu_name, pairing, family, variant))

    def over_cap(self):
        """[(key, Band)] of the bands written at BAND_CAP (rows, then points)."""
        return [(k, b) for table in (self.rows, self.points) for k, b in table.items() if b.measured]

    def as_of(self, run_utc):
        """The bands that judge a pair whose newer run was made at run_utc:
        these, or before BAND_CAP_SINCE (the bands of its time) with every
        band over the cap at the band its data measured."""
        if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", run_utc or "") \
                or run_utc >= BAND_CAP_SINCE or not self.over_cap():
            return self
        lift = lambda b: (Band(*b.measured, b.source + ", over the cap: the band of its time",  # noqa: E731
                               b.pairing, b.own) if b.measured else b)
        return Bands(self.path, {k: lift(b) for k, b in self.rows.items()},
                     {k: lift(b) for k, b in self.points.items()},
                     sorted({f"{k[2]}/{k[3]}" for k, _ in self.over_cap()}))

    def band(self, gpu_name, pairing, family, variant, point=None):
        """The band a point (point_axes; None: the variant's) is judged by in
        this pairing: its own where it has one, else its variant's; without
        data in this pairing, the widest of the variant's other pairings on
        this model, then of any pairing on another model, and no narrower
        than the point's own band there (the source says which); None: no
        A/A data anywhere."""
        if point is not None and (gpu_name, pairing, family, variant, point) in self.points:
            return self.points[(gpu_name, pairing, family, variant, point)]
        own = self.own(gpu_name, pairing, family, variant)
        if own:
            return own
        for same_model in (True, False):
            others = [b for (g, _, f, v), b in self.rows.items()
                      if (f, v) == (family, variant) and (g == gpu_name) == same_model]
            if others:
                widest = max(others, key=lambda b: (b.point, b.shift))
                own_points = [b.point for (g, _, f, v, pt), b in self.points.items()
                              if (f, v, pt) == (family, variant, point) and (g == gpu_name) == same_model]
                return Band(max([widest.point, *own_points]), widest.shift,
                            f"{widest.source}, for want of {PAIRING_WORDS[pairing]} data"
                            + ("" if same_model else f" on {gpu_name}"), widest.pairing)
        return None


def _band_number(path, number, column, text, kind):
    try:
        value = kind(text)
    except ValueError:
        raise sbcsv.CsvError(f"{path}:{number}: column '{column}': '{text}' is not "
                             f"{'an integer' if kind is int else 'a number'}") from None
    if value < 0 or (isinstance(value, float) and not math.isfinite(value)):
        raise sbcsv.CsvError(f"{path}:{number}: column '{column}': '{text}' is negative")
    return value


def load_bands(path=BANDS_FILE):
    """Reads results/bands.csv (scripts/bands.py writes it; '#' lines are
    comments). Raises sbcsv.CsvError naming file, line and column: the gate
    cannot judge a variant without its band."""
    return make_bands(path, _named_rows(path, BAND_COLUMNS, "band table",
                                        read_hint=" (write it with: python3 scripts/bands.py)",
                                        column_hint=" (a band table, scripts/bands.py)"))


def make_bands(path, rows):
    """Bands from [(line number, {column: text})], a band table's rows (path
    names it in errors and in the summary)."""
    bands, points, seen = {}, {}, {}
    for number, row in rows:
        for column in ("gpu_name", "family", "variant"):
            if not row[column]:
                raise sbcsv.CsvError(f"{path}:{number}: column '{column}': empty")
        if row["pairing"] not in PAIRINGS:
            raise sbcsv.CsvError(f"{path}:{number}: column 'pairing': '{row['pairing']}', "
                                 f"expected one of {', '.join(PAIRINGS)}")
        n = _band_number(path, number, "pairs", row["pairs"], int)
        if n < 1:
            raise sbcsv.CsvError(f"{path}:{number}: column 'pairs': 0 (a row needs an A/A pair)")
        _band_number(path, number, "points", row["points"], int)
        for column in ("median_move_pct", "worst_move_pct", "worst_shift_pct"):
            _band_number(path, number, column, row[column], float)
        margin = _band_number(path, number, "margin", row["margin"], float)
        point = _band_number(path, number, "point_band_pct", row["point_band_pct"], float)
        shift = _band_number(path, number, "shift_band_pct", row["shift_band_pct"], float)
        measured = None
        if row.get(BAND_OVER_CAP_COLUMN):
            quantile = _band_number(path, number, BAND_QUANTILE_COLUMN,
                                    row.get(BAND_QUANTILE_COLUMN, ""), float)
            measured = (max(point, margin * quantile) / 100,
                        max(shift, margin * float(row["worst_shift_pct"])) / 100)
        one = row.get(BAND_POINT_COLUMN, "")
        k = (row["gpu_name"], row["pairing"], row["family"], row["variant"]) + ((one,) if one else ())
        if k in seen:
            raise sbcsv.CsvError(f"{path}:{number}: column '{'point' if one else 'variant'}': "
                                 f"{row['family']}/{row['variant']}{' ' + one if one else ''} for "
                                 f"{row['gpu_name']}, {row['pairing']} again (line {seen[k]})")
        seen[k] = number
        (points if one else bands)[k] = Band(
            point / 100, shift / 100,
            f"{row['gpu_name']}, {PAIRING_WORDS[row['pairing']]}, {n} A/A pair(s)"
            + (", the point's own band" if one else ""), row["pairing"], own=bool(one),
            measured=measured)
    return Bands(path=path, rows=bands, points=points)


def geomeans(matches, group, value=lambda m: m.ratio):
    """{group(match): geometric mean of value(match)}, groups in first-seen
    order."""
    groups = {}
    for m in matches:
        groups.setdefault(group(m), []).append(value(m))
    return {g: geomean(v) for g, v in groups.items()}


def by_family(m):
    return m.base["family"]


def by_variant(m):
    return (m.base["family"], m.base["variant"])


# ---------------------------------------------------------- winners

@dataclass
class Shape:
    """One shape of a family: its ok variants fastest first, and the rest."""
    key: tuple       # shape_of() of its rows
    family: str
    axes: dict
    ranked: list
    not_ok: list

    @property
    def winner(self):
        return self.ranked[0] if self.ranked else None

    @property
    def runner_up(self):
        return self.ranked[1] if len(self.ranked) > 1 else None

    @property
    def margin(self):
        """How much slower the runner-up is than the winner (0.1 = 10%)."""
        if self.runner_up is None:
            return None
        return self.runner_up["median_us"] / self.winner["median_us"] - 1

    @property
    def beyond_noise(self):
        """The winner's q3 is below the runner-up's q1: no IQR overlap."""
        if self.runner_up is None:
            return None
        return self.winner["q3_us"] < self.runner_up["q1_us"]


def shapes(rows):
    """Every shape of every family in rows, in axis order."""
    groups = {}
    for r in rows:
        groups.setdefault(shape_of(r), []).append(r)
    out = []
    for k, members in groups.items():
        first = members[0]
        ok = sorted((r for r in members if r["status"] == OK), key=lambda r: r["median_us"])
        out.append(Shape(key=k, family=first["family"],
                         axes={a: first.get(a) for a in axis_columns() if first.get(a) is not None},
                         ranked=ok, not_ok=[r for r in members if r["status"] != OK]))
    out.sort(key=lambda s: (s.family, [sort_value(s.axes.get(a)) for a in axis_columns()]))
    return out


# ---------------------------------------------------------- rendering

def render_table(headers, rows, markdown):
    """Aligned plain text, or a GitHub Markdown table."""
    # A detail cell may hold a newline (the CSV quotes it); a table row may not.
    rows = [[" ".join(str(c).split("\n")) for c in r] for r in rows]
    if markdown:
        esc = [[c.replace("|", "\\|") for c in r] for r in [headers] + rows]
        lines = ["| " + " | ".join(esc[0]) + " |", "|" + "---|" * len(headers)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in esc[1:]])
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([fmt(headers), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def fmt_us(value):
    return "" if value is None else f"{value:.2f}"


def fmt_ratio(value):
    return "" if value is None else f"{value:.3f}"


def fmt_change(ratio):
    return "" if ratio is None else f"{(ratio - 1) * 100:+.1f}%"


def fmt_figure(value):
    return "" if value is None else f"{value:.4g}"


def point_cells(row, axes):
    return [row["family"], row["variant"], *(fmt_axis(row.get(a)) for a in axes)]


def verdict_cell(cmp, m):
    """SLOWER / faster, with the rule that said so (A: the point, B: its
    variant); accepted for a slowdown an acceptance covers; "clock moved"
    added where the power state differs (the point is judged all the same)."""
    if m.unjudged:
        return "unjudged (no A/A data)"
    clock = "clock moved" if m.power_state else ""
    if not m.verdict:
        return clock
    word = m.verdict.upper() if m.verdict == "slower" else m.verdict
    if m.verdict == "slower" and cmp.is_accepted(m.base):
        word = "accepted"
    cell = f"{word} ({'A' if m.why == 'point' else 'B'})"
    return f"{cell}, {clock}" if clock else cell


def figure_cell(m):
    """What the point is gated on, with the clocks where they matter."""
    if m.figure == "paired":
        return f"{m.column} {fmt_figure(m.base[m.column])}->{fmt_figure(m.new[m.column])}"
    if m.figure in OWN_SAMPLE:
        own = OWN_SAMPLE[m.figure]
        unit = "kcycles" if own.endswith("kcycles") else "us"
        return f"{m.figure} {fmt_figure(m.base[own])}->{fmt_figure(m.new[own])} {unit}"
    if m.figure == "cycles" or m.power_state:
        return (f"cycles @ {m.base['sm_clock_mhz']:.0f}->{m.new['sm_clock_mhz']:.0f} MHz"
                if m.clock_ratio else m.figure)
    return m.figure


def band_cell(m):
    """The band the point was judged by: rule A's threshold / rule B's shift."""
    if m.unjudged:
        return "none (no A/A data)"
    own = " (its own)" if m.band and m.band.own else ""
    return f"A {m.point_threshold * 100:.1f}%{own} / B {m.shift_threshold * 100:.1f}%"


def matches_table(cmp, matches, markdown, order="csv", compact=False):
    """One row per matched point; change is the gated figure's change
    (above 0 is slower). order: 'csv' (the sweep's) or as given. compact:
    only the axes these points set (the PR comment)."""
    axes = axes_in_use([m.base for m in matches]) if compact else cmp.axes()
    normalized = cmp.normalized_columns() if cmp.cross_gpu else []
    headers = ["family", "variant", *axes, "base us", "new us", "base IQR us",
               "new IQR us", "time ratio", "gated on", "change", "band", "verdict"]
    for c in normalized:
        headers += [f"base {c}", f"new {c}", f"{c} ratio"]
    rows = []
    if order == "csv":
        matches = sorted(matches, key=lambda m: m.base["_line"])
    for m in matches:
        cells = point_cells(m.base, axes) + [
            fmt_us(m.base["median_us"]), fmt_us(m.new["median_us"]),
            f"{fmt_us(m.base['q1_us'])}-{fmt_us(m.base['q3_us'])}",
            f"{fmt_us(m.new['q1_us'])}-{fmt_us(m.new['q3_us'])}",
            fmt_ratio(m.ratio), figure_cell(m), fmt_change(m.gated), band_cell(m),
            verdict_cell(cmp, m)]
        for c in normalized:
            cells += [fmt_figure(m.base.get(c)), fmt_figure(m.new.get(c)), fmt_ratio(m.figure_ratio(c))]
        rows.append(cells)
    return render_table(headers, rows, markdown)


def status_table(cmp, pairs, markdown, detail_chars=None, compact=False):
    """detail_chars: cut each row's detail to that length; compact: only the
    axes these points set (both for the PR comment)."""
    axes = axes_in_use([b or n for b, n in pairs]) if compact else cmp.axes()
    headers = ["family", "variant", *axes, "base status", "new status", "detail"]
    rows = []
    # Base rows in base CSV order, then rows only new has, in new's order.
    for b, n in sorted(pairs, key=lambda p: (p[0] is None, (p[0] or p[1])["_line"])):
        detail = (n or {}).get("detail") or (b or {}).get("detail") or ""
        if detail_chars and len(detail) > detail_chars:
            detail = detail[:detail_chars - 3].rstrip() + "..."
        rows.append(point_cells(b or n, axes) + [b["status"] if b else "(absent)",
                                                 n["status"] if n else "(absent)", detail])
    return render_table(headers, rows, markdown)


def one_sided_counts(pairs, markdown):
    """How many points each variant lost or gained, by status on each side."""
    counts = {}
    for b, n in pairs:
        row = b or n
        k = (row["family"], row["variant"], b["status"] if b else "(absent)",
             n["status"] if n else "(absent)")
        counts[k] = counts.get(k, 0) + 1
    return render_table(["family", "variant", "base status", "new status", "points"],
                        [[*k, c] for k, c in counts.items()], markdown)


def one_sided_pairs(cmp):
    """Points the two sides cannot compare: absent or not ok on one side."""
    return ([(b, None) for b in cmp.only_base] + [(None, n) for n in cmp.only_new]
            + cmp.broken + cmp.fixed)


def run_line(label, run, markdown=False):
    return (f"{label}: {run.path}{' ' if markdown else chr(10) + '      '}{run.gpu_name}, commit {run.provenance('commit')}, "
            f"run {run.provenance('run_utc')}, {len(run.rows)} rows")


def clock_warning(cmp):
    """Lower clocks slow every point: say so before anyone blames the code."""
    b, n = cmp.base.sm_clock_mhz(), cmp.new.sm_clock_mhz()
    if cmp.cross_gpu or not b or not n or abs(n / b - 1) <= 0.02:
        return None
    return (f"warning: median SM clock differs: base {b:.0f} MHz, new {n:.0f} MHz "
            f"({(n / b - 1) * 100:+.1f}%): time changes may come from the clocks, not the code")


def ratio_reading_warning(cmp):
    """Paired ratios read from the samples in two ways do not compare: say
    that their points fell back to cycles (an A/B run: to the base's
    reading of the variant's own samples), and why."""
    def readings(run):
        return {f"{r['family']}: {ratio_reading(r)}" for r in run.rows
                if ceiling_column(r["family"]) and r.get(ceiling_column(r["family"]))}
    b, n = readings(cmp.base), readings(cmp.new)
    differ = sorted(b ^ n)
    if cmp.cross_gpu or not b or not n or not differ:
        return None
    fallback = ("the variant's own samples as the base read them (time where a side lacks them)"
                if cmp.interleaved else "cycles")
    return (f"warning: the paired ratios were read differently (base: {', '.join(sorted(b - n))}; "
            f"new: {', '.join(sorted(n - b))}): those points are gated on {fallback}, not on the ratio")


def warnings(cmp):
    return [w for w in (clock_warning(cmp), ratio_reading_warning(cmp)) if w]


def rule_text(cmp, markdown=False):
    b = "**" if markdown else ""
    banded = cmp.bands is not None and not cmp.cross_gpu
    a_limit = (f"its variant's point band (at least {cmp.threshold * 100:g}%; "
               f"{min(cmp.threshold, FEW_POINTS_FLOOR) * 100:g}% for a variant of fewer than "
               f"{VARIANT_MIN_POINTS} points, which (B) cannot judge)" if banded
               else f"{cmp.threshold * 100:g}%")
    b_limit = (f"its shift band (at least {VARIANT_SHIFT * 100:g}%)" if banded
               else f"{VARIANT_SHIFT * 100:g}%")
    return (f"rule: a point is slower beyond noise when {b}(A){b} its median is slower by more "
            f"than {a_limit} and the medians' notches (+-1.57 IQR/sqrt(samples); without a "
            f"sample count, the IQRs) do not overlap, "
            f"or {b}(B){b} its variant's shift (Hodges-Lehmann estimate of the log ratios) "
            f"is beyond {b_limit} (Wilcoxon signed-rank, p < {VARIANT_ALPHA:g}, "
            f"{VARIANT_MIN_POINTS}+ points) and the point itself moved by more than it"
            + ("; rule B is off across GPU models" if cmp.cross_gpu else "")
            + (f"; bands: {shown_path(cmp.bands.path)}, measured from committed A/A runs"
               if banded else "")
            + f". Families with a ceiling column are gated on the paired ratio (schema 3+, read "
            f"the same way on both sides; between two runs, not for a family flagged "
            f"time_across_runs: its time; the ceiling's own row: its own sample) or "
            f"on cycles (time x sm_clock_mhz); a point whose SM clock moved by more than "
            f"{POWER_STATE_LIMIT * 100:g}% is judged all the same, and listed (power state differs)")


def header_block(cmp, markdown):
    mode = (f"cross-GPU ({cmp.base.gpu_name} vs {cmp.new.gpu_name}): times and normalized "
            f"figures ({', '.join(cmp.normalized_columns()) or 'none present'})"
            if cmp.cross_gpu else f"same GPU model, {chips_word(cmp)}")
    lines = [run_line("base", cmp.base, markdown), run_line("new ", cmp.new, markdown),
             f"mode: {mode}; time ratio = new / base (above 1 is slower)",
             rule_text(cmp, markdown)]
    if markdown:
        lines = [f"- {line}" for line in lines]
    else:  # an 80-120 column terminal
        lines = lines[:2] + [w for line in lines[2:] for w in textwrap.wrap(line, 100)]
    lines += warnings(cmp)
    return lines


def counts_line(cmp):
    one_sided = one_sided_pairs(cmp)
    accepted = len(cmp.slower) - len(cmp.regressions)
    return (f"{len(cmp.matches)} points ok on both sides: {len(cmp.slower)} slower beyond noise"
            + (f" ({accepted} accepted)" if accepted else "")
            + f", {len(cmp.improvements)} faster; {len(one_sided)} on one side only"
            + (f" ({len(cmp.broken)} of them ok before and not now)"
               if cmp.broken else "")
            + f", {len(cmp.not_ok_both)} not ok on either side")


def summary_table(cmp, markdown):
    """One row per variant (and an (all) row per family): points, geometric
    mean of the time ratios, points slower/faster beyond noise, one-sided
    points, and in cross-GPU mode the normalized figures' geometric means.
    Short headers: it must fit an 80-120 column terminal."""
    normalized = cmp.normalized_columns() if cmp.cross_gpu else []
    short = {"pct_of_copy": "%copy x", "cycles_per_op": "cycles x"}
    accepted = any(cmp.is_accepted(m.base) for m in cmp.slower)
    headers = ["family", "variant", "points", "time x", "change", "slower", "faster",
               *(["accepted"] if accepted else []), "1-sided",
               *(short.get(c, c) for c in normalized)]
    one_sided = {}
    for b, n in one_sided_pairs(cmp):
        row = b or n
        for g in ((row["family"], "(all)"), (row["family"], row["variant"])):
            one_sided[g] = one_sided.get(g, 0) + 1
    groups = {}
    for m in cmp.matches:
        for g in ((m.base["family"], "(all)"), by_variant(m)):
            groups.setdefault(g, []).append(m)
    for g in one_sided:
        groups.setdefault(g, [])
    rows = []
    for (family, variant), ms in groups.items():
        ratio = geomean([m.ratio for m in ms])
        slower = [m for m in ms if m.verdict == "slower"]
        n_acc = sum(1 for m in slower if cmp.is_accepted(m.base))
        cells = [family, variant, len(ms), fmt_ratio(ratio), fmt_change(ratio),
                 len(slower) - n_acc, sum(1 for m in ms if m.verdict == "faster")]
        if accepted:
            cells.append(n_acc)
        cells.append(one_sided.get((family, variant), 0))
        cells += [fmt_ratio(geomean([m.figure_ratio(c) for m in ms])) for c in normalized]
        rows.append([str(c) for c in cells])
    order = list(dict.fromkeys(r[0] for r in rows))
    rows.sort(key=lambda r: (order.index(r[0]), r[1] != "(all)"))
    return render_table(headers, rows, markdown)


def acceptance_lines(cmp, reason_chars=None):
    """Which acceptances applied, to how many points (the entries that
    matched nothing: unmatched_line). reason_chars: cut each reason to that
    length (terminal lines)."""
    return [f"accepted: {cmp.accepted_count(a)} point(s) by {a.describe(reason_chars)}"
            for a in cmp.acceptances if cmp.accepted_count(a)]


def render_comparison(cmp, markdown=False, details=True, summary=True, header=True):
    """The report of one pair of runs: the per-variant summary first, then
    (details) every point."""
    h = "### " if markdown else ""
    out = ["\n".join(header_block(cmp, markdown)), ""] if header else []
    if summary:
        out += [counts_line(cmp), ""]
        applied = acceptance_lines(cmp)
        out += applied + ([""] if applied else [])
        if cmp.matches or one_sided_pairs(cmp):
            out += [f"{h}Per variant: geometric mean of time ratios, points beyond noise", "",
                    summary_table(cmp, markdown), ""]
    if not details:
        return "\n".join(out)
    out += [f"{h}Points ok on both sides ({len(cmp.matches)})", "",
            matches_table(cmp, cmp.matches, markdown) if cmp.matches else "(none)", ""]
    one_sided = one_sided_pairs(cmp)
    out += [f"{h}Points on one side only ({len(one_sided)}: absent, or not ok, on the other)", ""]
    if one_sided:
        out += [one_sided_counts(one_sided, markdown), "", status_table(cmp, one_sided, markdown), ""]
    else:
        out += ["(none)", ""]
    if cmp.not_ok_both:
        out += [f"{h}Points not ok on either side ({len(cmp.not_ok_both)})", "",
                status_table(cmp, cmp.not_ok_both, markdown), ""]
    return "\n".join(out)


# The PR comment (--summary) must fit a GitHub comment (65,536 characters)
# whatever the number of points: lists are cut, the full table goes to the
# detail file (--detail).
SUMMARY_LIMIT = 60000
SUMMARY_LISTED = (40, 20, 10, 5, 0)  # points per list, tried until it fits
LARGEST_MOVES = 10
BRIEF_LINES = 40  # --gate --summary-only


def gate_counts(cmp, allow_missing=False):
    parts = [f"{len(cmp.regressions)} regression(s)", f"{len(cmp.failing_broken)} broken point(s)"]
    if not allow_missing:
        parts.append(f"{len(cmp.missing)} missing point(s)")
    if cmp.power_state_differs:
        parts.append(f"{len(cmp.power_state_differs)} power state differs (judged)")
    if cmp.unjudged:
        parts.append(f"{len(cmp.unjudged)} unjudged (no A/A data)")
    if cmp.accepted:
        parts.append(f"{len(cmp.accepted)} accepted")
    return parts


def gate_title(cmp, allow_missing=False):
    verdict = "FAIL" if cmp.gate_failures(allow_missing) else "PASS"
    return (f"## syncbench gate: {verdict} ({', '.join(gate_counts(cmp, allow_missing))}); "
            f"{chips_word(cmp)}")


def short_uuid(uuid):
    """GPU-d25e9f80: enough of a gpu_uuid to tell two chips apart."""
    return uuid[:12]


def _uuids(run):
    return ", ".join(short_uuid(u) for u in sorted(run.gpu_uuids())) or "?"


def shown_path(path):
    """A path inside the repository as the repository names it (no
    machine's directories in a PR comment)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    full = os.path.abspath(path)
    return os.path.relpath(full, root) if full.startswith(root + os.sep) else path


def chips_word(cmp):
    """Where the two runs ran, in a few words (the gate's title)."""
    if cmp.cross_gpu:
        return "two GPU models"
    if cmp.interleaved:
        return "A/B interleaved on one GPU"
    return {"one": "one chip", "two": "two chips", "unknown": "chips unknown"}[cmp.chips]


def bands_line(cmp):
    """Which bands judged the points: the pairing, the table, how many
    variants fell back to another pairing's band, and the unjudged ones."""
    if cmp.cross_gpu:
        return None
    where = {"ab": f"the two sides ran interleaved point by point on one GPU (A/B, "
                   f"{_uuids(cmp.new)})",
             "same_chip": f"both runs on one chip ({_uuids(cmp.new)})",
             "chip": (f"two chips of one GPU model ({_uuids(cmp.base)} -> {_uuids(cmp.new)})"
                      if cmp.chips == "two" else "a run names no gpu_uuid: read as two chips")
             }[cmp.pairing]
    if cmp.bands is None:
        return (f"{where}: no band table given, every point judged by the threshold "
                f"({cmp.threshold * 100:g}%) and rule B's {VARIANT_SHIFT * 100:g}%")
    judged = {by_variant(m): m.band for m in cmp.matches
              if m.band and not m.band.own}
    own = [describe_point(m.base) for m in cmp.matches
           if m.band and m.band.own]
    borrowed = sorted(f"{f}/{v}" for (f, v), b in judged.items() if b.pairing != cmp.pairing
                      or b.source.split(",")[0] != cmp.new.gpu_name)
    text = (f"{where}: every variant judged by its own {PAIRING_WORDS[cmp.pairing]} band "
            f"({shown_path(cmp.bands.path)}, from committed A/A runs)")
    if borrowed:
        text += (f"; {len(borrowed)} variant(s) without such data judged by their widest "
                 f"band measured elsewhere ({', '.join(borrowed[:8])}"
                 f"{', ...' if len(borrowed) > 8 else ''})")
    if own:
        text += (f"; {len(own)} point(s) judged by a band of their own ({', '.join(own[:4])}"
                 f"{', ...' if len(own) > 4 else ''})")
    lifted = sorted({"/".join(by_variant(m)) for m in cmp.matches
                     if m.band and m.band.source.endswith("the band of its time")})
    if lifted:
        text += (f"; both runs made before the {BAND_CAP * 100:g}% cap ({BAND_CAP_SINCE}): "
                 f"{len(lifted)} variant(s) whose A/A data needs more judged by the bands of "
                 f"their time ({', '.join(lifted[:8])}{', ...' if len(lifted) > 8 else ''})")
    if cmp.unjudged:
        text += (f"; {len(cmp.unjudged)} point(s) of {len(unjudged_names(cmp))} variant(s) with no "
                 f"A/A data anywhere, unjudged ({', '.join(unjudged_names(cmp))})")
    return text


def unjudged_names(cmp):
    """The variants of the unjudged points, "family/variant", sorted."""
    return sorted({"/".join(by_variant(m)) for m in cmp.unjudged})


def figures_line(cmp):
    counts = cmp.figure_counts()
    used = [f"{n} on {FIGURES[f]}" for f, n in counts.items() if n]
    text = f"{len(cmp.matches)} points compared: " + (", ".join(used) or "none gated")
    if cmp.power_state_differs:
        text += (f"; {len(cmp.power_state_differs)} of them with the SM clock moved by more than "
                 f"{POWER_STATE_LIMIT * 100:g}% (power state differs: judged all the same)")
    if cmp.unjudged:
        text += f"; {len(cmp.unjudged)} unjudged: no A/A data for their variant"
    return text


def cut(items, limit):
    """(the first `limit` items, a '... and N more' line or None)."""
    if len(items) <= limit:
        return items, None
    return items[:limit], f"... and {len(items) - limit} more, see the detail file"


def largest_moves(cmp, n=LARGEST_MOVES):
    """(the n largest slowdowns, the n largest speedups) of the gated
    figure among gated points, largest first."""
    gated = [m for m in cmp.matches if not m.gated_out]
    slower = sorted((m for m in gated if m.gated > 1), key=lambda m: -m.gated)[:n]
    faster = sorted((m for m in gated if m.gated < 1), key=lambda m: m.gated)[:n]
    return slower, faster


def unmatched_acceptances(cmp, all_acceptances):
    """Entries of the acceptance file that cover no point of this pair:
    for other runs, or for points that did not change."""
    return [a for a in all_acceptances if not cmp.accepted_count(a)]


def unmatched_line(unmatched):
    if not unmatched:
        return None
    where = ", ".join(a.where.rsplit(":", 1)[-1] for a in unmatched)
    path = unmatched[0].where.rsplit(":", 1)[0]
    return (f"{len(unmatched)} acceptance entr{'y' if len(unmatched) == 1 else 'ies'} of "
            f"{path} matched nothing in this pair (line{'s' if len(unmatched) > 1 else ''} "
            f"{where}): prune them once no committed pair needs them")


def _summary_parts(cmp, allow_missing, detail_name, detail_url, unmatched, listed):
    out = [gate_title(cmp, allow_missing), "",
           f"- base: `{cmp.base.path}` ({cmp.base.gpu_name}, commit `{cmp.base.provenance('commit')}`)",
           f"- new: `{cmp.new.path}` ({cmp.new.gpu_name}, commit `{cmp.new.provenance('commit')}`)",
           *([f"- Bands: {bands_line(cmp)}."] if bands_line(cmp) else []),
           f"- {figures_line(cmp)}."]
    if detail_name or detail_url:
        name = f"`{detail_name}`" if detail_name else "the detail file"
        where = f" in [this run's artifacts]({detail_url})" if detail_url else ""
        out.append(f"- Every point: {name}{where}.")
    out += [f"- {counts_line(cmp)}.", f"- {rule_text(cmp, True)}.", ""]
    for warning in warnings(cmp):
        out += [f"> {warning}", ""]

    def section(title, items, render):
        nonlocal out
        if not items:
            return
        shown, more = cut(items, listed)
        out += [title, ""]
        if shown:
            out += [render(shown), ""]
        if more:
            out += [more, ""]

    worst_first = sorted(cmp.regressions, key=lambda m: -m.gated)
    section("### Regressions", worst_first,
            lambda ms: matches_table(cmp, ms, True, order="given", compact=True))
    section("### Broken: ok in base, not ok in new", cmp.failing_broken,
            lambda ps: status_table(cmp, ps, True, detail_chars=160, compact=True))
    title = "### Missing in new (not counted: --allow-missing)" if allow_missing else "### Missing in new"
    section(title, [(r, None) for r in cmp.missing],
            lambda ps: status_table(cmp, ps, True, detail_chars=160, compact=True))
    section(f"### Power state differs: SM clock moved by more than {POWER_STATE_LIMIT * 100:g}% "
            f"(judged all the same)", cmp.power_state_differs,
            lambda ms: matches_table(cmp, ms, True, compact=True))
    section("### Unjudged: no A/A data for the variant yet (scripts/bands.py)",
            sorted(cmp.unjudged, key=lambda m: -abs(math.log(m.gated))),
            lambda ms: matches_table(cmp, ms, True, order="given", compact=True))
    if cmp.accepted:
        lines = acceptance_lines(cmp, reason_chars=200)
        shown, more = cut(lines, max(listed, 5))
        out += [f"### Accepted changes ({len(cmp.accepted)} point(s), not counted)", "",
                *(f"- {line}" for line in shown), *([more] if more else []), ""]
    slower, faster = largest_moves(cmp)
    if (slower or faster) and listed:
        out += [f"### Largest moves of the gated figure ({len(cmp.slower)} slower, "
                f"{len(cmp.improvements)} faster beyond noise)", ""]
        for what, ms in (("slower", slower), ("faster", faster)):
            if ms:
                out += [f"The {len(ms)} largest {what}:", "",
                        matches_table(cmp, ms, True, order="given", compact=True), ""]
    informational = len(cmp.fixed) + len(cmp.only_new)
    if informational:
        out += [f"{informational} point(s) new or newly ok in new: not gated "
                f"({len(cmp.only_new)} new, {len(cmp.fixed)} newly ok).", ""]
    line = unmatched_line(unmatched)
    if line:
        out += [line[0].upper() + line[1:] + ".", ""]
    return "\n".join(out)


def render_gate_summary(cmp, allow_missing=False, detail_name=None, detail_url=None,
                        unmatched=(), limit=SUMMARY_LIMIT):
    """The PR comment: verdict and counts, every regressed, broken, missing
    and power-state point (lists cut to fit), the largest moves each way,
    and where the detail file is. At most `limit` characters."""
    for listed in SUMMARY_LISTED:
        text = _summary_parts(cmp, allow_missing, detail_name, detail_url, unmatched, listed)
        if len(text) <= limit:
            return text
    return text[:limit - 60].rsplit("\n", 1)[0] + "\n\n... cut to fit, see the detail file\n"


def render_gate_detail(cmp, allow_missing=False, unmatched=()):
    """The full Markdown report of the gate: the summary's sections whole,
    then the per-variant table and every point."""
    out = [gate_title(cmp, allow_missing), "", *header_block(cmp, True), "",
           *([f"- Bands: {bands_line(cmp)}."] if bands_line(cmp) else []),
           f"- {figures_line(cmp)}.", f"- {counts_line(cmp)}.", ""]
    if cmp.regressions:
        out += ["### Regressions", "", matches_table(cmp, cmp.regressions, True), ""]
    if cmp.failing_broken:
        out += ["### Broken: ok in base, not ok in new", "",
                status_table(cmp, cmp.failing_broken, True), ""]
    if cmp.missing:
        out += ["### Missing in new", "", status_table(cmp, [(r, None) for r in cmp.missing], True), ""]
    if cmp.power_state_differs:
        out += ["### Power state differs (judged all the same)", "",
                matches_table(cmp, cmp.power_state_differs, True), ""]
    if cmp.unjudged:
        out += ["### Unjudged: no A/A data for the variant yet", "",
                matches_table(cmp, cmp.unjudged, True), ""]
    if cmp.accepted:
        out += [f"### Accepted changes ({len(cmp.accepted)} point(s), not counted)", "",
                *(f"- {line}" for line in acceptance_lines(cmp)), ""]
    line = unmatched_line(unmatched)
    if line:
        out += [f"- {line}", ""]
    out += [render_comparison(cmp, True, details=True, header=False)]
    return "\n".join(out)


def render_gate_brief(cmp, allow_missing=False, unmatched=(), max_lines=BRIEF_LINES):
    """--gate --summary-only: plain text, at most max_lines lines."""
    def point(m):
        return f"  {describe_point(m.base)}: {fmt_change(m.gated)} ({m.figure}; {band_cell(m)})"

    def row(b, n):
        r = b or n
        return (f"  {describe_point(r)}: {b['status'] if b else '(absent)'} -> "
                f"{n['status'] if n else '(absent)'}")
    head = [gate_title(cmp, allow_missing).removeprefix("## "),
            f"base: {cmp.base.path} ({cmp.base.gpu_name}, commit {cmp.base.provenance('commit')})",
            f"new:  {cmp.new.path} ({cmp.new.gpu_name}, commit {cmp.new.provenance('commit')})",
            *([f"bands: {bands_line(cmp)}"] if bands_line(cmp) else []),
            figures_line(cmp)]
    line = unmatched_line(unmatched)
    tail = [line] if line else []
    slower, faster = largest_moves(cmp, 3)
    moves = (["largest moves of the gated figure:",
              *(f"  {describe_point(m.base)}: {fmt_change(m.gated)}" for m in slower + faster)]
             if slower or faster else [])
    sections = [("regressions", [point(m) for m in cmp.regressions]),
                ("broken", [row(b, n) for b, n in cmp.failing_broken]),
                ("missing", [row(r, None) for r in cmp.missing]),
                ("power state differs", [point(m) for m in cmp.power_state_differs]),
                ("unjudged, no A/A data", [point(m) for m in cmp.unjudged])]
    for listed in (10, 6, 4, 2, 1, 0):
        body = []
        for name, items in sections:
            if items:
                shown, more = cut(items, listed)
                body += [f"{name} ({len(items)}):", *shown, *([f"  {more}"] if more else [])]
        lines = head + body + moves + tail
        if len(lines) <= max_lines:
            break
    return "\n".join(lines[:max_lines])


# The whole-variant slowdowns sensitivity_table tries, smallest first.
WHOLE_VARIANT_PLANTS = (1.01, 1.02, 1.03, 1.05, 1.10, 1.20)


def whole_variant_edge(cmp, variant, factors=WHOLE_VARIANT_PLANTS):
    """The smallest of factors such that every point of variant ((family,
    variant)) that both runs of cmp have ok, made that many times slower on
    the new side, fails the gate as cmp judges (its threshold, bands and
    pairing; rules A and B); None when none of them does."""
    pairs = [(m.base, m.new) for m in cmp.matches if by_variant(m) == variant]
    base = with_rows(cmp.base, [b for b, _ in pairs])
    for factor in factors:
        new = with_rows(cmp.new, [slowed(n, factor) for _, n in pairs])
        if compare(base, new, cmp.threshold, cmp.bands, cmp.interleaved).regressions:
            return factor
    return None


def sensitivity_table(cmp, markdown=False):
    """Per variant, for an A/A pair: the worst slowdown that noise alone
    produced (the threshold must stay above it), the uniform slowdown rule A
    flags at half the points (median) and at every point (max), and the
    smallest of WHOLE_VARIANT_PLANTS that, on every point of the variant,
    fails the gate (rules A and B, the pair's bands)."""
    groups = {}
    for m in cmp.matches:
        groups.setdefault(by_variant(m), []).append(m)
    rows = []
    for (family, variant), matches in groups.items():
        scales = [smallest_flagged_scale(m.base, m.new, m.point_threshold, m.figure, m.column)
                  for m in matches]
        figures = "+".join(dict.fromkeys(m.figure for m in matches))
        edge = whole_variant_edge(cmp, (family, variant))
        rows.append([family, variant, len(matches), figures,
                     fmt_change(max(m.gated for m in matches)),
                     fmt_change(statistics.median(scales)), fmt_change(max(scales)),
                     fmt_change(edge) if edge else f">{fmt_change(WHOLE_VARIANT_PLANTS[-1])}"])
    return render_table(["family", "variant", "points", "figure", "worst A/A change",
                         "flags half the points above", "flags every point above",
                         "whole variant fails from"],
                        rows, markdown)


if __name__ == "__main__":
    import sys
    print("usage: import sbcompare (scripts/sbcompare.py is a module of compare.py and report.py, not a command)\n")
    print(__doc__.strip())
    sys.exit(0)
