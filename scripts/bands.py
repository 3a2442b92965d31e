#!/usr/bin/env python3
"""Each variant's noise band: results/bands.csv, computed from the committed
A/A runs (the gate reads it; docs/REGRESSIONS.md, "Bands").

    python3 scripts/bands.py            # (re)write results/bands.csv
    python3 scripts/bands.py --check    # exit 1 when the file is not current
    python3 scripts/bands.py --doc docs/REGRESSIONS.md [--check]
                                        # the page's generated bands block

The data. An A/A pair is two runs of the same kernels that the gate would
compare, of one GPU model. Three pairings, as the gate tells them apart:
  ab         the two sides of a committed A/A-by-A/B run
             (results/<gpu>/proofs/ab_*/<machine>/<run>_{a,b}.csv, run with
             retakes as scripts/ab.py runs today): one chip, two CUDA
             contexts, interleaved point by point;
  same_chip  two runs of one clean commit on one gpu_uuid, started apart;
  chip       two runs of one clean commit on two chips of the model (two
             machines).
The runs of the last two are each GPU directory's baseline.csv, latest.csv,
history/*.csv (or .csv.xz), the BASE side of each A/A-by-A/B proof (aa_a.csv,
aa_gate_a.csv, aa_cap_a.csv: one sweep per machine), a proof machine's plain default sweep
(default.csv) and a round's default sweeps made to be a pair
(round_*/sweep_<chip>.csv). Each pair is compared by scripts/sbcompare.py
exactly as the gate compares two runs of that pairing (its matching, its
gated figure: time, cycles, the paired ceiling ratio or the fastest
sample), with no band table, so a move is what the gate would see; points
whose power state differs too (the gate judges them).

The band, per (model, pairing, variant), from the moves of its WINDOW (8)
most recent pairs (by the later run; a move: how far the gated figure went
either way, exp(|log ratio|) - 1, so that 2x slower and 2x faster are both
100%, as rules A and B read them):
  point_band_pct = margin x the QUANTILE (95th percentile) of the point
                   moves (rule A's threshold, floored at the gate's
                   threshold, 5% by default);
  shift_band_pct = margin x the worst shift of one pair, the Hodges-Lehmann
                   estimate of its log ratios (rule B's, floored at
                   VARIANT_SHIFT, 1.5%; over pairs where the variant has
                   rule B's VARIANT_MIN_POINTS points);
each capped at sbcompare.BAND_CAP (10%): a band the data would need wider
is written at the cap and named in over_cap (its measurement is to be
fixed); a pair made before BAND_CAP_SINCE is judged by the band its data
measured (sbcompare.Bands.as_of). margin is MARGIN, or LITTLE_DATA_MARGIN
for a variant with fewer than MIN_POINTS point moves or fewer than
MIN_PAIRS pairs in its window: a quantile of a few is a low estimate of the
next move. A new pair pushes the oldest out: a band narrows as well as widens.

Out of sample: derive(exclude=runs) and for_pair(base, new) give the table
without every pair that holds a run judged, so that no run helps set the
band that judges it (the proofs, the tests, compare.py --out-of-sample).

A changed kernel (results/band_epochs.csv: family, variant, since_utc,
since_commit, why): from its first GPU run on, the variant's bands read only
the pairs of runs made since, in each model and pairing that has one (else
those of its kernel before, the latest change with pairs there, else the
older ones; "# epoch:" lines say which). A variant changed twice
has a row for each change: a run is judged by the pairs of its own kernel,
made between the change before it and the next. bands_as_of(run_utc)
gives the table that judges a run of an older kernel.

No variant is left out and none is exempt. The gate takes a variant with
no row for its pairing at its widest band elsewhere, and fails one with no
row at all (a new variant: unjudged) unless compare.py --allow-unjudged.

Exit status: 0 written (or --check: current), 1 --check: the file is not
what the data gives (or missing), 2 unusable input (one line).
"""
from __future__ import annotations

import argparse
import collections
import csv
import dataclasses
import functools
import glob
import io
import itertools
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
import sbvariants  # noqa: E402

ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(ROOT, "results")
# The band: margin x the QUANTILE of the per-point moves of the WINDOW most
# recent A/A pairs (per model, pairing and variant, of its kernel's epoch),
# capped at sbcompare.BAND_CAP. The next A/A pair is another draw from the
# same noise: a high quantile of the recent ones, with a margin, covers it
# without keeping the worst move ever seen, so a quieter run narrows a band.
QUANTILE = 0.95
WINDOW = 8
MARGIN = 1.5
LITTLE_DATA_MARGIN = 2.0
MIN_POINTS = 20
MIN_PAIRS = 2
# A point of its own: a variant's point whose worst A/A move is over
# OWN_POINT_FACTOR times that of every other point of the variant gets a
# band of its own (the gate judges it by that alone, rule B leaves it out)
# and the variant's band is measured without it; at most one point in ten
# of a variant (own_points). So one placement-ridden point (a rare fast
# mode one context never gets) does not widen every other point's band.
OWN_POINT_FACTOR = 2.0
EXIT_OK, EXIT_STALE, EXIT_UNUSABLE = 0, 1, 2
# A variant whose kernel changed reads only the A/A runs of its new kernel
# (results/band_epochs.csv: from since_utc on), where a model and pairing
# has any; elsewhere the older runs still give its band (a comment line says so).
EPOCHS = "band_epochs.csv"
EPOCH_COLUMNS = ("family", "variant", "since_utc", "since_commit", "why")
UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")  # a run_utc
# table_rows' epoch note where a band reads runs older than its kernel's last
# change (before_epoch reads the notes back by it)
EPOCH_PENDING = ": no A/A pair of its kernel since "


def rel(path):
    """A path as the file records it: relative to the repository."""
    path = os.path.abspath(path)
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def gpu_runs(gpu_dir):
    """The committed separate runs of one GPU directory: baseline, latest,
    history, the BASE side of each committed A/A-by-A/B proof (aa_a.csv,
    aa_gate_a.csv, and aa_cap_a.csv: the A/A of the variants whose bands
    were over the cap), each proof machine's plain default sweep (default.csv)
    and the default sweeps a round made to be a pair, one a chip
    (proofs/round_*/sweep_<chip>.csv), blessed or not."""
    paths = [os.path.join(gpu_dir, f) for f in ("baseline.csv", "latest.csv")]
    paths = [p for p in paths if os.path.exists(p)]
    paths += sbcsv.csv_files(os.path.join(gpu_dir, "history", "*.csv"))
    for name in ("aa_a.csv", "aa_gate_a.csv", "aa_cap_a.csv", "default.csv"):  # or .csv.xz (sbcsv.csv_files)
        paths += sbcsv.csv_files(os.path.join(gpu_dir, "proofs", "ab_*", "*", name))
    paths += sbcsv.csv_files(os.path.join(gpu_dir, "proofs", "round_*", "sweep_*.csv"))
    return [sbcompare.load_run(p) for p in paths]


def run_pairs(runs):
    """{"same_chip": [(base, new)], "chip": [...]}: every two runs of one
    clean commit and one GPU model, the earlier as base, by whether they ran
    on one chip or two; a run on several chips, or a second copy of one run
    (same chip and start), takes no part."""
    groups, seen = {}, set()
    for run in runs:
        commit, chips = run.provenance("commit"), run.gpu_uuids()
        if commit == "?" or commit.endswith("-dirty") or len(chips) != 1:
            continue
        ident = (run.gpu_name, *chips, run.provenance("run_utc"))
        if ident in seen:
            continue
        seen.add(ident)
        groups.setdefault((run.gpu_name, commit), []).append(run)
    pairs = {"same_chip": [], "chip": []}
    for (_, _), members in sorted(groups.items()):
        members.sort(key=lambda r: (r.provenance("run_utc"), r.path))
        for a, b in itertools.combinations(members, 2):
            pairs["same_chip" if a.gpu_uuids() == b.gpu_uuids() else "chip"].append((a, b))
    return pairs


def retakes_on(log):
    """Whether an A/B run's ab.txt says it ran with retakes (scripts/ab.py's
    protocol since a973f88: a point that moved is run again in the swapped
    order); runs from before that protocol say nothing of retakes."""
    try:
        with open(log, encoding="utf-8") as f:
            return any(line.startswith("retakes: a common point") for line in f)
    except OSError:
        return False


def ab_pairs(gpu_dir):
    """[(a, b)]: the two sides of each committed A/A-by-A/B run of one GPU
    directory (proofs/ab_*/<machine>/<run>_{a,b}.csv: aa, quick, aa_gemm, ...;
    not the planted runs, plant*, which are A/B, not A/A), made with the
    protocol the gate judges (retakes on: <run>_ab.txt says so). The runs
    before retakes (fbb4b06) keep one-offs the protocol now answers, such as
    devscan/three_kernel_pdl 3.65x slower at one point of a --quick A/A."""
    pairs = []
    for a in sbcsv.csv_files(os.path.join(gpu_dir, "proofs", "ab_*", "*", "*_a.csv")):
        run, ext = (a[:-len("_a.csv.xz")], ".csv.xz") if a.endswith(".xz") else (a[:-len("_a.csv")], ".csv")
        if (not os.path.basename(a).startswith("plant") and os.path.exists(run + "_b" + ext)
                and retakes_on(run + "_ab.txt")):
            pairs.append((sbcompare.load_run(a), sbcompare.load_run(run + "_b" + ext)))
    return pairs


def pair_moves(base, new, interleaved=False):
    """{(family, variant): [(point_axes, gated figure)] per point} of one
    pair, as the gate sees it with no band table (interleaved: as it reads
    an A/B run; sbcompare.compare's matching); points whose power state
    differs too, since the gate judges them."""
    out = {}
    for k, b in base.by_key.items():
        n = new.by_key.get(k)
        if n is not None and b["status"] == n["status"] == sbcompare.OK:
            m = sbcompare.match_of(b, n, sbcompare.DEFAULT_THRESHOLD, interleaved=interleaved)
            out.setdefault(sbcompare.by_variant(m), []).append((sbcompare.point_axes(b), m.gated))
    return out


def run_id(run):
    """What tells one run from another wherever it is copied: its model,
    chips and start (the two sides of one A/B run may share it: both are
    left out together anyway)."""
    return (run.gpu_name, tuple(sorted(run.gpu_uuids())), run.provenance("run_utc"))


def quantile(values, q):
    """The q-quantile of values, linear between order statistics (numpy's
    default): of 20 moves, the 95th percentile lies between the 19th and
    the largest."""
    s = sorted(values)
    at = q * (len(s) - 1)
    lo = int(at)
    return s[lo] + (s[min(lo + 1, len(s) - 1)] - s[lo]) * (at - lo)


def own_points(by_point):
    """The points of one variant that get a band of their own (their worst
    move first): each over OWN_POINT_FACTOR times the worst move of every
    point after it and beyond what the floor judges anyway, at most one in
    ten of the variant's points (one in a variant of 5-19 points, none in a
    smaller one: rule B needs 5)."""
    worst = sorted(((max(moves), point) for point, moves in by_point.items()), reverse=True)
    own = []
    cap = max(1, len(worst) // 10) if len(worst) >= sbcompare.VARIANT_MIN_POINTS else 0
    for i, (move, point) in enumerate(worst[:cap]):
        rest = worst[i + 1][0] if i + 1 < len(worst) else 0.0
        if move <= OWN_POINT_FACTOR * rest or MARGIN * move <= sbcompare.DEFAULT_THRESHOLD:
            break
        own.append(point)
    return own


def variant_order(key):
    family, variant = key
    fams = list(sbvariants.catalog())
    names = sbvariants.variants(family)
    return (fams.index(family) if family in fams else len(fams), family,
            names.index(variant) if variant in names else len(names), variant)


# The rule before the window, the quantile and the cap (issue 52): margin x
# the worst move ever seen; what a history entry of then quotes (table_rows).
WORST_EVER = {"q": 1.0, "cap": math.inf, "window": math.inf}


def band_row(gpu, pairing, family, variant, pairs, moves, shift, margin, point="", q=QUANTILE,
             cap=sbcompare.BAND_CAP):
    """One row of the table from a variant's (or one point's) moves
    (exp|log ratio| - 1 per point), its variant's worst shift over its
    window's pairs (|HL estimate|, as a ratio - 1) and its variant's margin:
    margin x the q-quantile of the moves and margin x the shift, each capped
    at cap (over_cap says which the data would need over)."""
    q = quantile(moves, q)
    cap = cap * 100
    point_band, shift_band = round(margin * q * 100, 2), round(margin * shift * 100, 2)
    over = [rule for rule, band in (("point", point_band), ("shift", shift_band)) if band > cap]
    return {"gpu_name": gpu, "pairing": pairing, "family": family, "variant": variant,
            "pairs": pairs, "points": len(moves),
            "median_move_pct": f"{statistics.median(moves) * 100:.2f}",
            sbcompare.BAND_QUANTILE_COLUMN: f"{q * 100:.2f}",
            "worst_move_pct": f"{max(moves) * 100:.2f}",
            "worst_shift_pct": f"{shift * 100:.2f}", "margin": f"{margin:g}",
            "point_band_pct": f"{min(point_band, cap):.2f}",
            "shift_band_pct": f"{min(shift_band, cap):.2f}",
            sbcompare.BAND_OVER_CAP_COLUMN: "+".join(over),
            sbcompare.BAND_POINT_COLUMN: point}


def load_epoch_list(results):
    """{(family, variant): [(since_utc, since_commit), ...]}: every change of
    each variant, oldest first, from results/band_epochs.csv (# comments; a
    missing file: none). A malformed one (or a variant's rows out of time
    order, or two at one time) is sbcsv.CsvError."""
    path = os.path.join(results, EPOCHS)
    if not os.path.exists(path):
        return {}
    epochs = {}
    with open(path, encoding="utf-8", newline="") as f:
        lines = [(n, line) for n, line in enumerate(f, 1) if line.strip() and not line.startswith("#")]
    if not lines:
        return {}
    reader = csv.DictReader([line for _, line in lines])
    if tuple(reader.fieldnames or ()) != EPOCH_COLUMNS:
        raise sbcsv.CsvError(f"{rel(path)}:{lines[0][0]}: header {','.join(reader.fieldnames or ())!r}: "
                             f"want {','.join(EPOCH_COLUMNS)}")
    for (n, _), row in zip(lines[1:], reader):
        utc = row["since_utc"] or ""
        if not UTC.fullmatch(utc):
            raise sbcsv.CsvError(f"{rel(path)}:{n}: column 'since_utc': {utc!r}: want YYYY-MM-DDTHH:MM:SSZ "
                                 f"(a run_utc)")
        key = (row["family"], row["variant"])
        if key in epochs and epochs[key][-1][0] >= utc:
            raise sbcsv.CsvError(f"{rel(path)}:{n}: column 'since_utc': {'/'.join(key)} again, not after "
                                 f"its change of {epochs[key][-1][0]}")
        epochs.setdefault(key, []).append((utc, row["since_commit"]))
    return epochs


def since(pair, epoch):
    """Whether both runs of a pair were made from epoch's since_utc on (a run
    with no run_utc is taken as older)."""
    return all(UTC.fullmatch(run.provenance("run_utc")) and run.provenance("run_utc") >= epoch[0]
               for run in pair)


def table_rows(pairs, pairing, epochs=None, notes=None, q=QUANTILE, cap=sbcompare.BAND_CAP, window=None,
               before=None):
    """One row per (model, variant) measured in some pair of this pairing,
    each followed by the rows of its points with a band of their own.
    pairs: [AAPair], or [(base, new)] all of this pairing. epochs: a variant
    there (its changes, (utc, commit) oldest first) reads only its pairs
    made since its last change, where this model and pairing has one; else
    those of the latest earlier change that has any (its kernel before),
    else all (noted in notes). Each reads the WINDOW most recent of its
    pairs (by the later run; window: another count); q and cap: band_row's
    (WORST_EVER: the rule of before issue 52). before: epochs whose variant
    reads only its pairs made before them (its old kernel: bands_as_of)."""
    window = WINDOW if window is None else window
    epochs, before = epochs or {}, before or {}
    pairs = [p if isinstance(p, AAPair) else AAPair("", pairing, *p, pair_moves(*p, interleaved=pairing == "ab"))
             for p in pairs]
    pairs = [p for p in pairs if p.pairing == pairing]
    changes, epochs = epochs, {k: v[-1] for k, v in epochs.items()}
    read_since = {}  # (model, family, variant): the change whose pairs it reads
    for p in pairs:
        for k in p.moves:
            if k in changes and not (k in before and since(p.runs, before[k])):
                made = [c for c in changes[k] if since(p.runs, c)]
                if made and made[-1] > read_since.get((p.gpu, *k), ("",)):
                    read_since[(p.gpu, *k)] = made[-1]
    by_variant = {}
    for p in sorted(pairs, key=lambda p: p.when, reverse=True):
        for k, moved in p.moves.items():
            if (p.gpu, *k) in read_since and not since(p.runs, read_since[(p.gpu, *k)]):
                continue  # a kernel before the one it reads
            if k in before and since(p.runs, before[k]):
                continue  # judging the old kernel: not the new one's runs
            newest = by_variant.setdefault((p.gpu, *k), [])
            if len(newest) < window:
                newest.append(moved)
    rows = []
    for (gpu, family, variant), window in sorted(by_variant.items(),
                                                 key=lambda kv: (kv[0][0], variant_order(kv[0][1:]))):
        if (family, variant) in epochs and notes is not None:
            utc, commit = epochs[(family, variant)]
            read = read_since.get((gpu, family, variant))
            notes.append(f"{gpu}: {pairing}: {family}/{variant}"
                         + (f": the A/A pairs of its kernel since {commit} ({utc}) only" if read == (utc, commit)
                            else f"{EPOCH_PENDING}{commit} ({utc}) yet: "
                            + (f"its kernel's before, since {read[1]} ({read[0]})" if read else "the older ones")))
        by_point, shift = {}, 0.0
        for moved in window:
            for point, gated in moved:
                by_point.setdefault(point, []).append(math.expm1(abs(math.log(gated))))
            if len(moved) >= sbcompare.VARIANT_MIN_POINTS:  # rule B's own minimum
                shift = max(shift, math.expm1(abs(sbcompare.shift_estimate([math.log(g) for _, g in moved]))))
        # the margin is the variant's, from all its moves: a point of its own
        # keeps the band its variant would have had, the others get theirs
        little = sum(map(len, by_point.values())) < MIN_POINTS or len(window) < MIN_PAIRS
        margin = LITTLE_DATA_MARGIN if little else MARGIN
        own = own_points(by_point)
        rest = [m for point, moves in by_point.items() if point not in own for m in moves]
        rows.append(band_row(gpu, pairing, family, variant, len(window), rest, shift, margin, q=q, cap=cap))
        rows += [band_row(gpu, pairing, family, variant, len(by_point[point]),
                          by_point[point], shift, margin, point, q=q, cap=cap) for point in own]
    return rows


def describe_pair(base, new):
    return (f"{base.provenance('commit')[:7]} {sbcompare.short_uuid(*base.gpu_uuids())} "
            f"({rel(base.path)}) -> {sbcompare.short_uuid(*new.gpu_uuids())} ({rel(new.path)})")


@dataclasses.dataclass(frozen=True)
class AAPair:
    """One A/A pair of one GPU directory and pairing, with its moves."""
    gpu_dir: str
    pairing: str
    base: sbcompare.Run
    new: sbcompare.Run
    moves: dict  # pair_moves

    @property
    def gpu(self):
        return self.base.gpu_name

    @property
    def runs(self):
        return (self.base, self.new)

    @property
    def when(self):
        """Its later run's start (a run with none is the oldest), then its path."""
        utcs = [r.provenance("run_utc") for r in self.runs]
        return (max(u if UTC.fullmatch(u) else "" for u in utcs), self.new.path)


def render(gpu_dirs_, pairs, epochs=None, exclude=frozenset()):
    """The file's text: comments (rule, pairs, epochs, over the cap),
    header, rows. pairs: [AAPair] of gpu_dirs_; exclude: run_ids left out."""
    out = io.StringIO()
    cap = sbcompare.BAND_CAP * 100
    out.write("# Each variant's noise band per GPU model and pairing: written by\n"
              "# scripts/bands.py from the committed A/A runs; do not edit,\n"
              "# `python3 scripts/bands.py --check` says whether it is current.\n"
              f"# Per model, pairing and variant, its {WINDOW} most recent A/A pairs (of its kernel: epochs below):\n"
              f"# quantile_move_pct = the {QUANTILE * 100:g}th percentile of their point moves, worst_shift_pct = their\n"
              f"# worst shift; point_band_pct = margin x quantile_move_pct (rule A, floored at the gate's threshold),\n"
              f"# shift_band_pct = margin x worst_shift_pct (rule B, floored at "
              f"{sbcompare.VARIANT_SHIFT * 100:g}%); margin {MARGIN:g}, or\n"
              f"# {LITTLE_DATA_MARGIN:g} under {MIN_POINTS} points or {MIN_PAIRS} pairs. Each capped at "
              f"{cap:g}%: over_cap names the band(s) the data\n# would need wider (its measurement is to be "
              f"fixed); a pair made before {sbcompare.BAND_CAP_SINCE} is judged by the\n"
              "# band its data measured (the bands of its time).\n"
              "# point: empty for a variant's band; a point's axes for a band of its own "
              f"(its worst move over {OWN_POINT_FACTOR:g}x\n# every other point's of its variant, "
              "at most one point in ten; its variant's margin), the variant's measured without it,\n# and rule B leaves it out.\n")
    for gpu_dir in gpu_dirs_:
        for pairing in sbcompare.PAIRINGS:
            mine = [p for p in pairs if p.gpu_dir == gpu_dir and p.pairing == pairing]
            if not mine:
                out.write(f"# {rel(gpu_dir)}: {pairing}: no A/A pair\n")
            for p in mine:
                left = " (left out)" if {run_id(r) for r in p.runs} & exclude else ""
                out.write(f"# {rel(gpu_dir)}: {pairing}: {describe_pair(p.base, p.new)}{left}\n")
    columns = [*sbcompare.BAND_COLUMNS[:7], sbcompare.BAND_QUANTILE_COLUMN, *sbcompare.BAND_COLUMNS[7:],
               sbcompare.BAND_OVER_CAP_COLUMN, sbcompare.BAND_POINT_COLUMN]
    rows, notes = derive_rows(pairs, epochs, exclude, notes=[])
    for note in notes:  # results/band_epochs.csv: which runs a changed kernel's band reads
        out.write(f"# epoch: {note}\n")
    for line in over_cap_lines(rows, before_epoch(notes)):
        out.write(f"# over the cap: {line}\n")
    out.write(",".join(columns) + "\n")
    for row in rows:
        cells = [str(row[c]) for c in columns]
        out.write(",".join(f'"{c}"' if "," in c or '"' in c else c for c in cells) + "\n")
    return out.getvalue()


def over_cap_lines(rows, stale=frozenset()):
    """One line per band written at the cap: model, pairing, variant (and
    point), the band its data measured, and where its A/A runs are all
    older than its kernel's last change (stale: before_epoch), that they
    measured the kernel before the fix."""
    return [f"{r['gpu_name']}: {r['pairing']}: {r['family']}/{r['variant']}"
            + (f" ({r[sbcompare.BAND_POINT_COLUMN]})" if r[sbcompare.BAND_POINT_COLUMN] else "")
            + f": measured A {float(r['margin']) * float(r[sbcompare.BAND_QUANTILE_COLUMN]):.1f}% / "
              f"B {float(r['margin']) * float(r['worst_shift_pct']):.1f}%"
            + (BEFORE_EPOCH if band_key(r) in stale else "")
            for r in rows if r[sbcompare.BAND_OVER_CAP_COLUMN]]


# Said of a band whose A/A runs all predate its kernel's last change.
BEFORE_EPOCH = " (runs before its epoch)"


def band_key(row):
    """(model, pairing, 'family/variant') of a band row."""
    return row["gpu_name"], row["pairing"], f"{row['family']}/{row['variant']}"


def before_epoch(notes):
    """{(model, pairing, 'family/variant')} whose band reads only A/A runs
    older than its kernel's last change (band_epochs.csv): the notes
    table_rows writes ("# epoch:" lines of results/bands.csv) say which."""
    out = set()
    for note in notes:
        head, found, _ = note.partition(EPOCH_PENDING)
        if found:
            gpu, pairing, name = head.rsplit(": ", 2)
            out.add((gpu, pairing, name))
    return frozenset(out)


def file_before_epoch(path):
    """before_epoch of a written band file's "# epoch:" lines."""
    with open(path, encoding="utf-8") as f:
        return before_epoch(line[len("# epoch: "):].rstrip("\n") for line in f if line.startswith("# epoch: "))


def derive_rows(pairs, epochs=None, exclude=frozenset(), notes=None, rule=None, before=None):
    """(the table's rows, the epoch notes) from pairs ([AAPair]) without
    every pair holding a run of exclude (run_ids); rule: table_rows' q, cap
    and window (WORST_EVER); before: table_rows'."""
    kept = [p for p in pairs if not {run_id(r) for r in p.runs} & exclude]
    rows = [row for pairing in sbcompare.PAIRINGS
            for row in table_rows(kept, pairing, epochs, notes, before=before, **(rule or {}))]
    return rows, notes


def gpu_dirs(results):
    return sorted(d for d in glob.glob(os.path.join(results, "*"))
                  if os.path.isdir(d) and (os.path.exists(os.path.join(d, "baseline.csv"))
                                           or sbcsv.csv_files(os.path.join(d, "history", "*.csv"))))


@functools.lru_cache(maxsize=None)
def collect(results):
    """(GPU directories, [AAPair], one summary line per directory): every
    committed A/A pair under results with its moves (the slow part: read
    once a process)."""
    dirs, pairs, lines = gpu_dirs(results), [], []
    if not dirs:
        raise sbcsv.CsvError(f"{results}: no GPU directory (DIR/<gpu>/baseline.csv or "
                             f"DIR/<gpu>/history/*.csv): no runs to take bands from")
    for d in dirs:
        found = run_pairs(gpu_runs(d))
        found["ab"] = ab_pairs(d)
        pairs += [AAPair(d, pairing, base, new, pair_moves(base, new, interleaved=pairing == "ab"))
                  for pairing in sbcompare.PAIRINGS for base, new in found[pairing]]
        lines.append(f"{rel(d)}: " + ", ".join(f"{len(found[p])} {p} pair(s)" for p in sbcompare.PAIRINGS))
    if not pairs:
        raise sbcsv.CsvError(f"{results}: no A/A pair of runs in {', '.join(rel(d) for d in dirs)}: "
                             f"no runs to take bands from")
    return dirs, tuple(pairs), lines


def compute(results, drop=()):
    """(the file's text, one summary line per GPU directory and pairing,
    the lines of the bands over the cap). drop: the variants of
    band_epochs.csv to read as if their kernel had not changed (bands_as_of)."""
    epochs = {k: v for k, v in load_epoch_list(results).items() if k not in drop}
    dirs, pairs, lines = collect(results)
    rows, notes = derive_rows(pairs, epochs, notes=[])
    return render(dirs, pairs, epochs), lines, over_cap_lines(rows, before_epoch(notes))


def derive(results=RESULTS, exclude=(), as_of=None, rule=None):
    """The band table (sbcompare.Bands) from the committed A/A runs under
    results, out of sample: without any pair that holds a run of exclude
    (Runs or paths: the runs it will judge, so that none helps set the band
    that judges it); as_of (a run_utc): as the table stood for a run of
    then, a variant whose kernel changed later read as before its change
    (band_epochs.csv); rule: another rule's parameters (WORST_EVER: the
    table of before issue 52, for the figures a history entry quotes)."""
    ids = frozenset(run_id(r if isinstance(r, sbcompare.Run) else sbcompare.load_run(r)) for r in exclude)
    since_, before = {}, {}
    dated = as_of is None or bool(UTC.fullmatch(as_of or ""))  # an undated run is older than every change
    for k, changes in load_epoch_list(results).items():
        past = [c for c in changes if as_of is None or (dated and c[0] <= as_of)]
        later = [c for c in changes if c not in past]
        if past:
            since_[k] = tuple(past)  # the last made the judged run's kernel
        if later:
            before[k] = later[0]  # the next change: its pairs are another kernel's
    return _derived(results, ids, tuple(sorted(since_.items())), tuple(sorted(before.items())),
                    tuple(sorted((rule or {}).items())))


@functools.lru_cache(maxsize=256)
def _derived(results, exclude, since_, before, rule=()):
    _, pairs, _ = collect(results)
    # the judged run's kernel: its pairs made from its change (since_) up to
    # the next one (before), where a model and pairing has any
    rows, _ = derive_rows(pairs, dict(since_), exclude, rule=dict(rule), before=dict(before))
    label = "results/bands.csv" + (" without the pair judged" if exclude else "")
    return sbcompare.make_bands(label, [(n, {c: str(v) for c, v in r.items()}) for n, r in enumerate(rows, 2)])


def bands_as_of(run_utc, results=RESULTS, exclude=(), rule=None):
    """The band table that judges a run made at run_utc: results/bands.csv's,
    or where a variant's kernel changed after it (band_epochs.csv), as
    before that change, from every A/A run of the variant (a committed A/A
    of the old kernel is judged by the bands its kernel had); exclude as in
    derive."""
    return derive(results, exclude, as_of=run_utc or "?", rule=rule)


def for_pair(base, new, results=RESULTS):
    """The bands that judge a committed pair (or a copy of one, planted):
    of its time (bands_as_of its base's start) and out of sample (no A/A
    pair holding either run)."""
    return bands_as_of(base.provenance("run_utc"), results, exclude=(base, new))


# ---------------------------------------------------------------- the doc block

DOC_BEGIN, DOC_END = "<!-- bands:begin -->", "<!-- bands:end -->"
# The proofs the block quotes (issue 36): A/A by A/B at 16d0f95 on two
# machines, the plant on the first, and the second machine's plain sweep (a
# fresh machine's no-op) against the committed pair.
PROOF = os.path.join("h100-80gb-hbm3", "proofs", "ab_16d0f95")
# The A/A-by-A/B proofs the block's first table quotes: 16d0f95's two machines
# (the memset flush) and 54fa7a1's (the read flush, the default since).
AA_PROOFS = (PROOF, os.path.join("h100-80gb-hbm3", "proofs", "ab_54fa7a1"),
             os.path.join("h200", "proofs", "ab_e6f97b9"), os.path.join("h200", "proofs", "ab_f5ffa93"),
             os.path.join("h200", "proofs", "ab_3880117"), os.path.join("h200", "proofs", "ab_52efaa9"),
             os.path.join("h200", "proofs", "ab_910219a"), os.path.join("h200", "proofs", "ab_d8effe2"),
             os.path.join("h200", "proofs", "ab_3a3b6c7"), os.path.join("h200", "proofs", "ab_f3ecdce"),
             os.path.join("h200", "proofs", "ab_1676791"),
             os.path.join("h200", "proofs", "ab_8f86e32"), os.path.join("h200", "proofs", "ab_5de0252"),
             os.path.join("h200", "proofs", "ab_bb177c9"), os.path.join("h200", "proofs", "ab_26ec9c3"),
             os.path.join("h200", "proofs", "ab_2870d29"), os.path.join("h200", "proofs", "ab_983f7d2"))
# The runs of a proof machine the table reads: a gate run of a few families,
# and (3a3b6c7 on, every family no longer fitting one run) reference and gemm,
# and every other family, in one run or (f3ecdce) in several; and the variants
# whose same_chip bands were over the cap (aa_cap: ab_983f7d2).
AA_KINDS = ("aa_gate", "aa_gemm", "aa_gemm_cool", "aa_rest", "aa_rest1", "aa_rest2", "aa_barrier", "aa_scan",
            "aa_multistage", "aa_cap")
PLANTED = ("gemm/splitk_serial", "gemm/streamk", "scan/pingpong")
# The planted A/B runs the block's plant table reads: (its A side, the
# planted variants, the sweep's filter). 16d0f95 on an H100 (issue 36's
# plant) and 444ed79 on an H200, whose plant also slows a cross-SM hand-off
# and both kernel-boundary rows (their spins measured first: SB_PLANT_SPIN).
PLANTS = ((os.path.join(PROOF, "*", "plant36_a.csv"), PLANTED, "^(reference|scan|gemm)/"),
          (os.path.join("h200", "proofs", "round_444ed79", "plant", "a.csv"),
           PLANTED + ("barrier/flag_handoff", "barrier/kernel_boundary_stream", "barrier/kernel_boundary_graph"),
           "^(reference|scan|stencil|barrier)/|^gemm/(cublas|splitk_serial|splitk_reduce|streamk|ws_tma_wgmma)/"))


def pct(values):
    return (f"{statistics.median(values):.2f}% / {max(values):.2f}%" if values else "-")


def aa_rows(results):
    """One table row per A/A-by-A/B run of the proof: its points, the gate's
    flags with the bands, gemm's own fastest sample and every other point's
    move (median / worst), and how many gemm points moved over 3%."""
    rows = []
    for a in [a for proof in AA_PROOFS for kind in AA_KINDS
              for a in sbcsv.csv_files(os.path.join(results, proof, "*", f"{kind}_a.csv"))]:
        base, new = sbcompare.load_run(a), sbcompare.load_run(a.replace("_a.csv", "_b.csv"))
        # the bands of its kernels (band_epochs.csv), out of sample
        cmp = sbcompare.compare(base, new, bands=for_pair(base, new, results), interleaved=True)
        move = lambda m: math.expm1(abs(math.log(m.gated))) * 100  # noqa: E731
        gemm = [move(m) for m in cmp.matches if m.figure in sbcompare.OWN_SAMPLE]
        other = [move(m) for m in cmp.matches if m.figure not in sbcompare.OWN_SAMPLE and not m.gated_out]
        flush = ", ".join(sorted(sbcompare.flush_methods(base)))
        gpu_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(a))))
        proof = os.path.relpath(os.path.dirname(a), os.path.join(gpu_dir, "proofs"))
        kind = os.path.basename(a).split("_a.csv")[0]
        proof += "" if kind == "aa_gate" else f" {kind}"
        rows.append(f"| {os.path.basename(gpu_dir)} {proof} ({sbcompare.short_uuid(*base.gpu_uuids())}, {flush}) "
                    f"| {len(cmp.matches)} | {len(cmp.slower) + len(cmp.improvements)}"
                    + "".join(f"; {'/'.join(k)} {n} slower" for k, n in sorted(
                        collections.Counter(map(sbcompare.by_variant, cmp.slower)).items()))
                    + " "
                    f"| {pct(gemm)} | {sum(v > 3 for v in gemm)} of {len(gemm)} | {pct(other)} |")
    return rows


def plant_runs(results=RESULTS, plants=PLANTS):
    """(base, new, planted, sweep) for each committed plant run of plants:
    its two sides loaded (the B side beside the A side's file)."""
    for pattern, planted, sweep in plants:
        for a in sbcsv.csv_files(os.path.join(results, pattern)):
            b = os.path.join(os.path.dirname(a), os.path.basename(a).replace("a.csv", "b.csv"))
            yield sbcompare.load_run(a), sbcompare.load_run(b), planted, sweep


def plant_rows(results):
    rows = []
    for base, new, planted, sweep in plant_runs(results):
        cmp = sbcompare.compare(base, new, bands=for_pair(base, new, results), interleaved=True)
        pipe = "\\|"  # a table cell's own |
        run = (f"{base.gpu_name} {base.rows[0]['commit'][:7]} "
               f"({sbcompare.short_uuid(*base.gpu_uuids())}, `{sweep.replace('|', pipe)}`)")
        for name in planted:
            ms = [m for m in cmp.matches if "/".join(sbcompare.by_variant(m)) == name]
            beyond = [m for m in ms if m.gated > 1 + m.point_threshold]
            flagged = [m for m in ms if m.verdict == "slower"]
            shift = math.expm1(sbcompare.shift_estimate([math.log(m.gated) for m in ms])) * 100
            rows.append(f"| {run} | `{name}` | {len(ms)} | {max((m.gated - 1) * 100 for m in ms):+.1f}% "
                        f"| {shift:+.2f}% | A {ms[0].point_threshold * 100:.1f}% / B "
                        f"{ms[0].shift_threshold * 100:.1f}% | {len(beyond)} | {len(flagged)} "
                        f"({sum(m.why == 'variant' for m in flagged)} by rule B) |")
        others = sorted({"/".join(sbcompare.by_variant(m)) for m in cmp.regressions} - set(planted))
        unjudged = sorted({"/".join(sbcompare.by_variant(m)) for m in cmp.unjudged})
        rows.append(f"| {run} | any other variant | {len(cmp.matches)} in all | | | | | "
                    f"{', '.join(others) or 'none flagged'}"
                    + (f"; unjudged (no A/A data): {', '.join(unjudged)}" if unjudged else "") + " |")
    return rows


# The fresh machine's no-op sweep (ab_16d0f95/chipB/default.csv) ran
# 16d0f95's kernels; the committed pair it is gated against is the last one
# with the same kernels (9249a8b; 5a44e11 changed devscan's look-back sleep
# and tile). The committed pair itself is two fresh machines at one commit:
# its own row is baseline -> latest.
NOOP_PAIR = [os.path.join("h100-80gb-hbm3", "history", name)
             for name in ("20261127T203025Z_9249a8b_051d54bf.csv",
                          "20261127T203929Z_9249a8b_2992410b.csv")]


def noop_rows(results):
    rows = []

    def row(base_path, new_path):
        base, new = sbcompare.load_run(base_path), sbcompare.load_run(new_path)
        cmp = sbcompare.compare(base, new, bands=for_pair(base, new, results))
        return (f"| `{rel(base_path)}` ({sbcompare.short_uuid(*base.gpu_uuids())}, "
                f"{base.provenance('commit')[:7]}) -> `{rel(new_path)}` "
                f"({sbcompare.short_uuid(*new.gpu_uuids())}, {new.provenance('commit')[:7]}) "
                f"| {len(cmp.matches)} | {len(cmp.regressions)} | {len(cmp.unjudged)} "
                f"| {len(cmp.power_state_differs)} |")
    gpu = os.path.join(results, "h100-80gb-hbm3")
    rows.append(row(os.path.join(gpu, "baseline.csv"), os.path.join(gpu, "latest.csv")))
    for new_path in sbcsv.csv_files(os.path.join(results, PROOF, "*", "default.csv")):
        for base in NOOP_PAIR:
            rows.append(row(os.path.join(results, base), new_path))
    return rows


# The noise probes' experiments (docs/gate-details.md; one A/A by A/B each,
# retakes off, one H100): what changed, and the variants it was about.
EXPERIMENTS = [("memset_old", "flags zeroed by a memset in every timed launch (before 16d0f95)"),
               ("memset_new", "launch-numbered flags, no memset (16d0f95)"),
               ("flags_packed", "flags packed, 4 bytes apart"),
               ("flags_stride", "one flag per 128-byte line (SB_GEMM_FLAG_STRIDE=32)"),
               ("base", "16d0f95 as it is"),
               ("min4x", "4x the samples (--min-time 0.2)"),
               ("warm50", "50 warm-up launches (--warmup 50)"),
               ("free", "servers where the OS puts them"),
               ("pinned", "each server pinned to its own core (taskset)")]
PROBED = ("gemm/splitk_serial", "gemm/streamk", "gemm/ws_tma_wgmma_pingpong", "barrier/grid_sync",
          "barrier/kernel_boundary_stream", "barrier/kernel_boundary_pdl")


def experiment_rows(results):
    """One row per experiment: each probed variant's points' worst move and
    shift, from the CSVs in noise.tar.xz."""
    import tarfile
    import tempfile
    rows = []
    tar_path = os.path.join(results, PROOF, "chipA", "noise.tar.xz")
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        with tarfile.open(tar_path) as tar:
            tar.extractall(tmp, filter="data")
        for name, what in EXPERIMENTS:
            a = os.path.join(tmp, name, "a.csv")
            cmp = sbcompare.compare(sbcompare.load_run(a), sbcompare.load_run(a[:-5] + "b.csv"),
                                    interleaved=True)
            cells = []
            for variant in PROBED:
                g = [m.gated for m in cmp.matches if "/".join(sbcompare.by_variant(m)) == variant]
                if g:
                    worst = max(math.expm1(abs(math.log(x))) for x in g) * 100
                    shift = math.expm1(sbcompare.shift_estimate([math.log(x) for x in g])) * 100
                    cells.append(f"`{variant}` ({len(g)}): {worst:.2f}% / {shift:+.2f}%")
            rows.append(f"| `{name}`: {what} | {'; '.join(cells)} |")
    return rows


# The placement probe (402e4b3, one H100): one process at a time,
# SB_PAD_MIB of device memory taken before the buffers, each pad twice.
PLACEMENT = os.path.join("h100-80gb-hbm3", "proofs", "placement_402e4b3")


def placement_rows(results):
    """Per variant: the worst point's spread between the two runs of one
    pad, and across every run (all pads), from the probe's CSVs
    (pad<MIB>_<run>_m<M>.csv)."""
    times = {}
    for path in sbcsv.csv_files(os.path.join(results, PLACEMENT, "pad*_*_m*.csv")):
        pad, run, _ = os.path.basename(path)[3:-4].split("_")
        for r in sbcsv.read(path):
            if r["status"] == "ok":
                point = (r["variant"], r["m"], r["k"], r["tile"], r["stages"], r["splits"])
                times.setdefault(point, {})[(int(pad), run)] = r["min_us"]
    rows, variants = [], {}
    for point, t in times.items():
        pads = sorted({p for p, _ in t})
        within = max(abs(math.log(t[(p, "1")] / t[(p, "2")])) for p in pads
                     if (p, "1") in t and (p, "2") in t)
        across = math.log(max(t.values()) / min(t.values()))
        v = variants.setdefault(point[0], [0, 0.0, 0.0, pads])
        v[0] += 1
        v[1], v[2] = max(v[1], within), max(v[2], across)
    for name, (n, within, across, pads) in variants.items():
        rows.append(f"| `gemm/{name}` | {n} | {', '.join(map(str, pads))} "
                    f"| {math.expm1(within) * 100:.2f}% | {math.expm1(across) * 100:.2f}% |")
    return rows


def band_table_rows(results):
    """One row per model and variant whose band is above the floors (5% a
    point, 1.5% a shift) in some pairing; a cell per pairing: its rule A /
    rule B band (capped: "over the cap" where its data needs more), the
    QUANTILE point move and the A/A pairs it comes from ("floors" where
    that pairing's band is the floors, "-" without data)."""
    cells, order = {}, []
    stale = file_before_epoch(os.path.join(results, "bands.csv"))
    for _, r in sbcompare._named_rows(os.path.join(results, "bands.csv"), sbcompare.BAND_COLUMNS,
                                      "band table"):
        if r.get(sbcompare.BAND_POINT_COLUMN):
            continue  # own_point_rows
        key = (r["gpu_name"], f"{r['family']}/{r['variant']}")
        point, shift = float(r["point_band_pct"]), float(r["shift_band_pct"])
        above = point > 5 or shift > sbcompare.VARIANT_SHIFT * 100
        if key not in cells:
            cells[key] = {}
            order.append(key)
        cells[key][r["pairing"]] = (above, (
            f"A {max(point, 5):.1f}% / B {max(shift, sbcompare.VARIANT_SHIFT * 100):.1f}%, "
            f"q{QUANTILE * 100:g} {r[sbcompare.BAND_QUANTILE_COLUMN]}% ({r['pairs']})" + over_cap_note(r, stale))
            if above else f"floors ({r['pairs']})")
    return [f"| {gpu} | `{name}` | "
            + " | ".join(cells[(gpu, name)].get(p, (False, "-"))[1] for p in sbcompare.PAIRINGS) + " |"
            for gpu, name in order if any(above for above, _ in cells[(gpu, name)].values())]


def over_cap_note(row, stale=frozenset()):
    """', over the cap: A x% / B y%' (what its data measured) for a band
    written at the cap, with BEFORE_EPOCH where its runs predate its
    kernel's last change (stale: before_epoch), else ''."""
    return (f", over the cap: A {float(row['margin']) * float(row[sbcompare.BAND_QUANTILE_COLUMN]):.1f}% / "
            f"B {float(row['margin']) * float(row['worst_shift_pct']):.1f}%"
            + (BEFORE_EPOCH if band_key(row) in stale else "")
            if row[sbcompare.BAND_OVER_CAP_COLUMN] else "")


def own_point_rows(results):
    """The points with a band of their own (own_points), one row each."""
    stale = file_before_epoch(os.path.join(results, "bands.csv"))
    return [f"| {r['gpu_name']} | {r['pairing']} | `{r['family']}/{r['variant']}` "
            f"| {r[sbcompare.BAND_POINT_COLUMN]} | {r['worst_move_pct']}% ({r['pairs']}) "
            f"| {float(r['point_band_pct']):.1f}%{over_cap_note(r, stale)} |"
            for _, r in sbcompare._named_rows(os.path.join(results, "bands.csv"),
                                              sbcompare.BAND_COLUMNS, "band table")
            if r.get(sbcompare.BAND_POINT_COLUMN)]


def doc_block(results=RESULTS):
    """The generated block of docs/REGRESSIONS.md ("Bands")."""
    out = ["Generated by `python3 scripts/bands.py --doc docs/REGRESSIONS.md` from "
           "`results/bands.csv` and the proofs " + ", ".join(f"`results/{p}/`" for p in AA_PROOFS)
           + " (`make test` checks it).", "",
           "A/A by A/B (`ab.py`, retakes on) over `^(reference|gemm|barrier|devscan)/` (a run "
           "named `aa_gemm`: `^(reference|gemm)/`; `aa_rest`: every other family), "
           "gated with the bands of its kernels (`results/band_epochs.csv`), out of sample (those "
           "of the other A/A pairs, `bands.for_pair`); flagged: slower or faster beyond the band, "
           "the slower variants named:", "",
           "| GPU, proof / machine (chip, L2 flush) | points | flagged | gemm own figure (fastest sample; from d8effe2 the lower quartile, from 3a3b6c7 the 1st percentile): median / worst "
           "| gemm points over 3% | every other point: median / worst |",
           "| --- | --- | --- | --- | --- | --- |", *aa_rows(results), "",
           "The plants (`make PLANT_SLOWDOWN=1`), each A/B against the same commit, gated "
           "with the bands out of sample:", "",
           "| run (chip, sweep) | variant | points | largest move | shift | its band | beyond its point band "
           "| flagged |", "| --- | --- | --- | --- | --- | --- | --- | --- |", *plant_rows(results), "",
           "Where the A/A noise comes from: one A/A by A/B per change (the noise probes of "
           "docs/gate-details.md, retakes off, one H100), each probed variant (its points): its worst point move / "
           "its shift (B against A):", "",
           "| run | variant (points): worst move / shift |", "| --- | --- |",
           *experiment_rows(results), "",
           "Placement: one process at a time, no A/A (the placement probe, "
           f"`results/{PLACEMENT}/`), each run with `SB_PAD_MIB` of device memory taken before "
           "its buffers, each pad twice, at 512 x 512 x 32768 and 1024 x 1024 x 16384; per "
           "variant, the worst point's own fastest sample between the two runs of one pad, "
           "and across every run:", "",
           "| variant | points | pads (MiB) | worst, two runs of one pad | worst, all runs |",
           "| --- | --- | --- | --- | --- |", *placement_rows(results), "",
           "Fresh machines' plain default sweeps (no change) against a committed pair of the "
           "same kernels, out of sample: the committed pair's second run against its first, "
           "and a third machine's (16d0f95) against the 9249a8b pair:", "",
           "| pair | points | regressions | unjudged | power state differs |",
           "| --- | --- | --- | --- | --- |", *noop_rows(results), "",
           "Bands above the floors (rule A at least 5%, or "
           f"{sbcompare.FEW_POINTS_FLOOR * 100:g}% for a variant of fewer than "
           f"{sbcompare.VARIANT_MIN_POINTS} points in the pair, which rule B cannot judge; rule B at least "
           f"{sbcompare.VARIANT_SHIFT * 100:g}%), per pairing: rule A / rule B, the "
           f"{QUANTILE * 100:g}th percentile of the point moves of its A/A window and (in brackets) "
           f"how many A/A pairs (over the {sbcompare.BAND_CAP * 100:g}% cap: written at it, what its data "
           "measured judging a pair made before the cap; \"runs before its epoch\": every A/A run it reads "
           "is older than its kernel's last change, `results/band_epochs.csv`, so it measured the kernel "
           "before that fix, until an A/A of the new one); every variant not listed is judged at the floors:", "",
           "| GPU | variant | " + " | ".join(f"`{p}`" for p in sbcompare.PAIRINGS) + " |",
           "| --- | --- | " + " | ".join("---" for _ in sbcompare.PAIRINGS) + " |",
           *band_table_rows(results), "",
           f"Points with a band of their own (a worst A/A move over {OWN_POINT_FACTOR:g}x that "
           "of every other point of the variant, at most one point in ten): judged by it alone "
           "(rule B leaves them out), their variant's band above measured without them:", "",
           "| GPU | pairing | variant | point | worst move (A/A pairs) | rule A band |",
           "| --- | --- | --- | --- | --- | --- |", *own_point_rows(results), ""]
    return "\n".join(out)


def write_doc(path, check_only, results=RESULTS):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"bands: {path}: {e.strerror or e}", file=sys.stderr)
        return EXIT_UNUSABLE
    begin, end = text.find(DOC_BEGIN), text.find(DOC_END)
    if begin < 0 or end < begin:
        print(f"bands: {path}: no '{DOC_BEGIN}' ... '{DOC_END}' markers", file=sys.stderr)
        return EXIT_UNUSABLE
    new = text[:begin + len(DOC_BEGIN)] + "\n" + doc_block(results) + text[end:]
    if check_only:
        if new != text:
            print(f"bands: {path}: the bands block is not what the committed data gives; "
                  f"run python3 scripts/bands.py --doc {path}", file=sys.stderr)
            return EXIT_STALE
        print(f"bands: {path}: the bands block is current")
        return EXIT_OK
    sbcsv.write_atomically(path, new)
    print(f"bands: wrote the bands block of {path}")
    return EXIT_OK


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="do not write: exit 1 when FILE is not what the committed data gives")
    ap.add_argument("--file", metavar="FILE",
                    help="the table to write or check (default: bands.csv in the --results "
                         "directory, results/bands.csv)")
    ap.add_argument("--doc", metavar="PAGE",
                    help="write (with --check: check) the generated block of PAGE "
                         "(docs/REGRESSIONS.md) instead of the table")
    ap.add_argument("--results", metavar="DIR", default=RESULTS,
                    help="where the runs are: DIR/<gpu>/{baseline,latest,history/*,proofs/ab_*}"
                         " (default results/)")
    args = ap.parse_args(argv)
    if args.file is None:
        args.file = os.path.join(args.results, "bands.csv")
    return args


def check(path, text):
    """EXIT_OK when path holds text, else one line and EXIT_STALE."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            current = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"bands: {path}: cannot read ({getattr(e, 'strerror', None) or e}): "
              f"run python3 scripts/bands.py", file=sys.stderr)
        return EXIT_STALE
    if current != text:
        have, want = current.splitlines(), text.splitlines()
        line = next((i for i, (a, b) in enumerate(zip(have, want), 1) if a != b),
                    min(len(have), len(want)) + 1)
        print(f"bands: {path}:{line}: not what the committed runs give; "
              f"run python3 scripts/bands.py", file=sys.stderr)
        return EXIT_STALE
    print(f"bands: {path} is current")
    return EXIT_OK


def main(argv=None):
    args = parse_args(argv)
    if args.doc:
        try:
            return write_doc(args.doc, args.check, args.results)
        except sbcsv.CsvError as e:
            print(f"bands: {e}", file=sys.stderr)
            return EXIT_UNUSABLE
    try:
        text, lines, over = compute(args.results)
    except sbcsv.CsvError as e:
        print(f"bands: {e}", file=sys.stderr)
        return EXIT_UNUSABLE
    for line in over:
        print(f"bands: over the {sbcompare.BAND_CAP * 100:g}% cap (written at it; its measurement "
              f"is to be fixed): {line}")
    if args.check:
        return check(args.file, text)
    try:
        sbcsv.write_atomically(args.file, text)
    except OSError as e:
        print(f"bands: {args.file}: {e.strerror or e}", file=sys.stderr)
        return EXIT_UNUSABLE
    for line in lines:
        print(f"bands: {line}")
    print(f"bands: wrote {args.file}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
