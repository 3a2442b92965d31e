#!/usr/bin/env python3
"""Regression history: each variant's gated figure over a series of runs,
per GPU, with the gate's noise band and the steps it would have flagged.

    python3 scripts/history.py [CSV or DIR ...] [--results results]
        [--threshold 5] [--accept results/accepted.csv] [--outdir DIR] [--no-committed]

Runs: the committed results/<gpu>/*.csv (not sm80-*: the compute_80 build
is another binary, not another commit of this one) and results/<gpu>/history/
*.csv (earlier committed baselines and latests, kept as they were committed
when a new pair replaced them), plus every CSV given,
directories searched recursively (a folder of downloaded CI artifacts).
A run is the rows sharing GPU, commit and run_utc (provenance columns),
wherever they were found; runs are ordered by run_utc, then commit.

For each pair of consecutive runs of one GPU the gate (scripts/sbcompare.py,
the rule of compare.py --gate, with the acceptances of --accept) compares
every point: its gated figure (time;
for families with a ceiling column the paired ratio or cycles), and whether
it flags it. Per variant and step the plot shows the geometric mean of the
gated figure's change (in %, above 0 is slower) over the points both runs
have; the grey band is the gate's threshold, the dashed lines rule B's
variant shift; a red cross marks a step where the gate would have flagged
points of that variant (the number beside it). One panel per family, one
PNG per GPU: results/<gpu>/plots/history.png (or --outdir DIR/<gpu>/).

    python3 scripts/history.py --check [TABLE] [--history docs/history.md]

--check: every figure that docs/history.md quotes from the committed data,
recomputed (make test runs it). TABLE (default docs/history_figures.csv)
has one row a figure: `entry` (the start of the page's `## ` heading it
sits under), `phrase` (the words as the page quotes them, {} where the
figure goes), `files` (the proof: paths or globs, space-separated; a CSV
may be committed as .csv.xz), `where` (col=value or col!=value filters,
space-separated, a space inside a value written %20, over the rows whose
status is ok unless a filter names status), `column` and `stat`, one of the
computations in STATS (value: the one row's; span: min-max), formatted with
`format` (a Python format spec).
It prints one line per figure that differs and exits 1 if any does.

Exit status: 0 written (or every figure matches), 1 a figure differs from
its data, 2 unusable input (a CSV, the table, or no GPU with two runs) or a
missing Python package.
"""
from __future__ import annotations

import argparse
import csv
import fnmatch
import glob
import lzma
import math
import os
import statistics
import sys
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import sbcompare  # noqa: E402
import sbcsv  # noqa: E402
import sbvariants  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Committed CSVs that are not runs of the default build.
# Files beside the runs that are not sweeps: the compute_80 build's run,
# and make explain's stall profiles (results/<gpu>/stalls.csv).
NOT_HISTORY = ("sm80-*", "stalls.csv")
HISTORY_DIR = "history"  # results/<gpu>/history/: earlier committed runs


@dataclass
class HistoryRun:
    """One run: the rows of one GPU, commit and start time."""
    slug: str
    commit: str
    run_utc: str
    rows: dict = field(default_factory=dict)  # point key -> row
    paths: list = field(default_factory=list)

    @property
    def label(self):
        # month-day and time: short enough for a dozen runs side by side
        return f"{self.commit[:7]}\n{self.run_utc[5:16].replace('T', ' ')}"

    def as_run(self):
        rows = list(self.rows.values())
        return sbcompare.Run(path=", ".join(self.paths), rows=rows, by_key=dict(self.rows),
                             columns=set().union(*(r.keys() for r in rows)))


@dataclass
class Step:
    """One variant between two consecutive runs."""
    family: str
    variant: str
    index: int          # the later run's position in the series
    change: float       # geomean of the gated figure's ratio, minus 1
    points: int
    flagged: int        # points the gate would have flagged slower
    unjudged: int       # points not gated: no A/A data for the variant
    accepted: int = 0   # flagged points an acceptance (--accept) covers


def committed_sources(results):
    """results/<gpu>/*.csv (the current pair) and results/<gpu>/history/*.csv
    (earlier committed runs, kept byte for byte as they were committed; the
    older ones as .csv.xz)."""
    out = []
    paths = (glob.glob(os.path.join(results, "*", "*.csv"))
             + sbcsv.csv_files(os.path.join(results, "*", HISTORY_DIR, "*.csv")))
    for path in sorted(paths):
        name = os.path.basename(path)
        if not any(fnmatch.fnmatch(name, pat) for pat in NOT_HISTORY):
            out.append(path)
    return out


def expand(paths):
    """CSV files, directories searched recursively for *.csv (and *.csv.xz)."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sbcsv.csv_files(os.path.join(p, "**", "*.csv"))
        else:
            out.append(p)
    return out


def load_runs(paths):
    """{slug: [HistoryRun, ...] in provenance order}. Rows of one run found
    in several files (a baseline.csv that was a latest.csv) count once."""
    runs = {}
    for path in paths:
        rows = sbcsv.read(path)
        sbcompare.check_ok_timings(path, rows)  # the gate's checks: its rule reads them
        sbcompare.unique_keys(path, rows)
        for row in rows:
            ident = (sbcsv.gpu_slug(row["gpu_name"] or ""), str(row["commit"] or "?"),
                     str(row["run_utc"] or "?"))
            run = runs.setdefault(ident, HistoryRun(*ident))
            run.rows.setdefault(sbcsv.key(row), row)
            if path not in run.paths:
                run.paths.append(path)
    by_gpu = {}
    for run in runs.values():
        by_gpu.setdefault(run.slug, []).append(run)
    for series in by_gpu.values():
        series.sort(key=lambda r: (r.run_utc, r.commit))
    return by_gpu


def steps(series, threshold, acceptances=(), bands=None):
    """Every variant's Step between consecutive runs of one GPU; bands
    (results/bands.csv): each variant judged by its band for the pair's
    pairing, as the gate does."""
    out = []
    for i in range(1, len(series)):
        cmp = sbcompare.compare(series[i - 1].as_run(), series[i].as_run(), threshold,
                                bands)
        cmp.accept(acceptances)
        groups = {}
        for m in cmp.matches:
            groups.setdefault(sbcompare.by_variant(m), []).append(m)
        for (family, variant), ms in groups.items():
            gated = [m for m in ms if not m.gated_out]
            mean = sbcompare.geomean([m.gated for m in gated])
            slower = [m for m in gated if m.verdict == "slower"]
            accepted = sum(1 for m in slower if cmp.is_accepted(m.base))
            out.append(Step(family, variant, i, (mean - 1) if mean else math.nan, len(gated),
                            len(slower) - accepted, len(ms) - len(gated), accepted))
    return out


def plot(slug, series, threshold, outdir, acceptances=(), bands=None):
    """results/<slug>/plots/history.png (under outdir); returns its path."""
    import sbplot
    plt = sbplot.plt
    found = steps(series, threshold, acceptances, bands)
    families = list(dict.fromkeys(s.family for s in found))
    cols = min(3, max(1, len(families)))
    rows = max(1, math.ceil(len(families) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 3.6 * rows + 1.2), squeeze=False)
    xs = list(range(len(series)))
    for ax, family in zip(axes.flat, families):
        ax.axhspan(-threshold * 100, threshold * 100, color="0.88", zorder=0,
                   label=f"noise band: the gate's threshold (±{threshold * 100:g}%)")
        for y in (-sbcompare.VARIANT_SHIFT * 100, sbcompare.VARIANT_SHIFT * 100):
            ax.axhline(y, color="0.55", ls="--", lw=0.8, zorder=1)
        ax.axhline(0, color="0.3", lw=0.8, zorder=1)
        mine = [s for s in found if s.family == family]
        for variant in sbvariants.ordered(family, [s.variant for s in mine]):
            pts = sorted((s for s in mine if s.variant == variant), key=lambda s: s.index)
            ax.plot([s.index for s in pts], [s.change * 100 for s in pts], marker="o", ms=4,
                    lw=1.2, color=sbvariants.color(family, variant), label=variant)
            for s in pts:
                for count, colour, dy in ((s.flagged, "red", 4), (s.accepted, "orange", -10)):
                    if count:
                        ax.plot([s.index], [s.change * 100], marker="x", ms=10, mew=2,
                                color=colour, ls="none", label="_flagged")
                        ax.annotate(str(count), (s.index, s.change * 100), fontsize=7,
                                    color=colour, xytext=(4, dy), textcoords="offset points")
        ax.set_title(family, fontsize=10)
        ax.set_xticks(xs)
        ax.set_xticklabels([r.label for r in series], fontsize=6, rotation=45, ha="right")
        ax.set_xlim(-0.5, len(series) - 0.5)
        ax.set_ylabel("change vs the run before, %", fontsize=8)
        ax.legend(fontsize=6, ncol=2, loc="best", frameon=False)
    for ax in list(axes.flat)[len(families):]:
        ax.set_visible(False)
    fig.suptitle(f"{slug}: each variant's gated figure against the run before (geometric mean "
                 f"over its points; above 0 is slower)\ngated figure: time, or for families with "
                 f"a ceiling column the paired ratio or cycles; red x: the gate would have "
                 f"flagged that many points (orange: accepted); dashed: rule B's "
                 f"±{sbcompare.VARIANT_SHIFT * 100:g}%",
                 fontsize=9)
    path = os.path.join(outdir, slug, "plots", "history.png")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return sbplot.save(fig, path)


FIGURES = os.path.join(ROOT, "docs", "history_figures.csv")
FIGURE_COLUMNS = ("entry", "phrase", "files", "where", "column", "stat", "format")


def _span(values, spec):
    return f"{min(values):{spec}}-{max(values):{spec}}"


def _one(values, spec):
    if len(values) != 1:
        raise ValueError(f"{len(values)} rows match, not one")
    return format(values[0], spec)


# The named computations of a figure: (values of the rows that match, format spec) -> text.
STATS = {
    "value": _one,
    "min": lambda v, spec: format(min(v), spec),
    "max": lambda v, spec: format(max(v), spec),
    "span": _span,
    "median": lambda v, spec: format(statistics.median(v), spec),
    "count": lambda v, spec: format(len(v), spec or "d"),
}


def figure_rows(files, where):
    """The rows of the files (globs under the repository, .csv.xz beside
    .csv; at least one file) that pass every filter of `where`."""
    paths = [p for pattern in files.split() for p in sbcsv.csv_files(os.path.join(ROOT, pattern))]
    if not paths:
        raise ValueError(f"no file matches {files}")
    tests = []
    for term in where.split():
        col, neg, value = term.partition("!=") if "!=" in term else term.partition("=")
        if not neg:
            raise ValueError(f"filter {term!r} is not col=value or col!=value")
        tests.append((col, neg == "!=", value.replace("%20", " ")))
    if not any(col == "status" for col, _, _ in tests):
        tests.append(("status", False, "ok"))
    out = []
    for path in paths:
        with (lzma.open if path.endswith(".xz") else open)(path, "rt", newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        for r in rows:
            if all(((r.get(col) or "") != value) == neg for col, neg, value in tests):
                out.append(r)
    return out


def figure(spec):
    """The figure a row of the table computes, as text."""
    stat = STATS.get(spec["stat"])
    if stat is None:
        raise ValueError(f"unknown stat {spec['stat']!r} (one of {', '.join(STATS)})")
    rows = figure_rows(spec["files"], spec["where"])
    values = [1.0] * len(rows) if spec["stat"] == "count" else [float(r[spec["column"]]) for r in rows]
    if not values:
        raise ValueError("no row matches")
    return stat(values, spec["format"])


def entries(text):
    """{heading: its text, whitespace flattened} of each '## ' entry."""
    out = {}
    for part in ("\n" + text).split("\n## ")[1:]:
        heading, _, body = part.partition("\n")
        out[heading.strip()] = " ".join(body.split())
    return out


def check(table=FIGURES, history=os.path.join(ROOT, "docs", "history.md")):
    """[(line of the table, what is wrong)] for each figure the page does not
    quote as its data gives it; raises sbcsv.CsvError on an unusable table."""
    try:
        with open(table, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            if tuple(reader.fieldnames or ()) != FIGURE_COLUMNS:
                raise sbcsv.CsvError(f"{table}: columns must be {','.join(FIGURE_COLUMNS)}")
            specs = list(reader)
        with open(history, encoding="utf-8") as f:
            page = entries(f.read())
    except OSError as e:
        raise sbcsv.CsvError(f"{e.filename}: {e.strerror}") from e
    bad = []
    for line, spec in enumerate(specs, start=2):
        where = [h for h in page if h.startswith(spec["entry"])]
        try:
            if len(where) != 1:
                raise ValueError(f"{len(where)} entries start with {spec['entry']!r}")
            quoted = spec["phrase"].replace("{}", figure(spec))
        except (ValueError, KeyError) as e:
            bad.append((line, f"{spec['phrase']!r}: {e}"))
            continue
        if " ".join(quoted.split()) not in page[where[0]]:
            bad.append((line, f"the data gives {quoted!r}, which {spec['entry']!r} does not quote"))
    return bad


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--check"]:
        return main_check(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sources", nargs="*", help="more CSVs or directories of them (CI artifacts)")
    ap.add_argument("--results", default=os.path.join(ROOT, "results"),
                    help="the committed results (default: results/)")
    ap.add_argument("--no-committed", action="store_true",
                    help="only the CSVs given, not results/<gpu>/*.csv")
    ap.add_argument("--threshold", type=float, default=sbcompare.DEFAULT_THRESHOLD * 100,
                    help="the gate's threshold in percent (default 5)")
    ap.add_argument("--outdir", help="write <outdir>/<gpu>/plots/history.png (default: --results)")
    ap.add_argument("--accept", metavar="FILE", default=os.path.join(ROOT, "results", "accepted.csv"),
                    help="acceptances (default results/accepted.csv; '' for none): flagged "
                         "points they cover are drawn as accepted")
    ap.add_argument("--bands", metavar="FILE", default=sbcompare.BANDS_FILE,
                    help="each variant's noise band (default results/bands.csv), as the "
                         "gate reads it")
    args = ap.parse_args(argv)
    paths = ([] if args.no_committed else committed_sources(args.results)) + expand(args.sources)
    try:
        by_gpu = load_runs(paths)
        acceptances = sbcompare.load_acceptances(args.accept) if args.accept else []
        bands = sbcompare.load_bands(args.bands)
    except sbcsv.CsvError as e:
        print(f"history.py: {e}", file=sys.stderr)
        return 2
    written = 0
    for slug, series in sorted(by_gpu.items()):
        if len(series) < 2:
            print(f"history.py: {slug}: one run only ({series[0].paths[0]}): nothing to plot")
            continue
        print(plot(slug, series, args.threshold / 100, args.outdir or args.results, acceptances,
                   bands))
        written += 1
    if not written:
        print("history.py: no GPU has two runs: give more CSVs or directories", file=sys.stderr)
        return 2
    return 0


def main_check(argv):
    ap = argparse.ArgumentParser(prog="history.py --check",
                                 description="every figure docs/history.md quotes, from the committed data")
    ap.add_argument("table", nargs="?", default=FIGURES, help="default docs/history_figures.csv")
    ap.add_argument("--history", default=os.path.join(ROOT, "docs", "history.md"))
    args = ap.parse_args(argv)
    try:
        bad = check(args.table, args.history)
    except sbcsv.CsvError as e:
        print(f"history.py: {e}", file=sys.stderr)
        return 2
    for line, what in bad:
        print(f"history.py: {os.path.relpath(args.table)}:{line}: {what}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
