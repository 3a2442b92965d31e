#!/usr/bin/env python3
"""Plots syncbench CSVs: one figure per family, plus a speedup figure where
the family has a baseline variant.

    python scripts/plot.py CSV [CSV...] [--outdir DIR]

Writes DIR/<family>.png (median time per launch, log scale) and, when the
family has a baseline, DIR/<family>_speedup.png (baseline median / variant
median). The `reference` family (device-to-device copy) is not plotted; its
GB/s goes into every title as the yardstick.

Layout is derived from the data, so a new family gets a sensible default
plot without code here: the swept axis with the most values is the x axis,
every combination of the other swept axes gets its own panel, and each
variant is one line. A family that needs a different picture registers a
function in PLOTTERS. Only rows with status ok are drawn; the others are
counted in a note on the figure so that a missing line is never silent.

Exit status: 0 plots written, 2 unusable input (message names file and line),
1 anything else.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import sbcsv  # noqa: E402
import sbplot  # noqa: E402
import sbvariants  # noqa: E402
from sbplot import fmt_value, source_labels, source_of  # noqa: E402,F401

# Baseline variant of each family: the speedup figure divides by it.
METRIC = "median_us"
# Extra per-family metrics: each gets its own figure when a family fills it.
EXTRA_METRICS = {
    "cycles_per_op": "cycles per operation",
    "ns_per_op": "ns per operation",
    "gflops": "GFLOP/s",
}
# Preference order when axes tie for the x axis (and the order of panel
# axes); axes not named here follow in sbcsv order.
AXIS_PREFERENCE = ["block_threads", "buffer_bytes", "elems_per_thread",
                   "consumer_warps", "participants", "cluster", "stages",
                   "iters", "intensity", "contention", "n"]
# Beyond this many panels, the axes with fewest values move into the lines.
MAX_PANELS = 12


def axis_columns():
    """Every axis column sbcsv knows, in preference order."""
    known = list(dict.fromkeys(sbcsv.AXES + sbcsv.EXTRA_AXES))
    return ([a for a in AXIS_PREFERENCE if a in known]
            + [a for a in known if a not in AXIS_PREFERENCE])


def _coerce(value):
    """Axis cells of unknown columns arrive as strings: make numbers numeric
    so they sort and scale as numbers."""
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return value
    return value


def _sort_key(value):
    # None (axis unset), numbers, then names: mixed types must still sort.
    if value is None:
        return (0, 0, "")
    if isinstance(value, (int, float)):
        return (1, value, "")
    return (2, 0, str(value))


@dataclass
class Layout:
    """Which axis is x, which axes split panels, which split lines."""
    x: str | None
    panels: list = field(default_factory=list)
    series: list = field(default_factory=list)
    fixed: dict = field(default_factory=dict)  # axes with one value


def layout(rows):
    """Derives the layout from the axes that vary among rows."""
    values = {a: sorted({_coerce(r.get(a)) for r in rows}, key=_sort_key)
              for a in axis_columns()}
    varying = [a for a in axis_columns() if len(values[a]) > 1]
    fixed = {a: v[0] for a, v in values.items() if len(v) == 1 and v[0] is not None}
    if not varying:
        return Layout(x=None, fixed=fixed)
    # Most values wins x; ties go to the earlier axis in AXIS_PREFERENCE.
    x = max(varying, key=lambda a: (len(values[a]), -varying.index(a)))
    rest = [a for a in varying if a != x]
    panels, series = list(rest), []
    while panels and math.prod(len(values[a]) for a in panels) > MAX_PANELS:
        fewest = min(panels, key=lambda a: len(values[a]))
        panels.remove(fewest)
        series.append(fewest)
    return Layout(x=x, panels=panels, series=series, fixed=fixed)


@dataclass
class Family:
    """Everything the plotters need about one family, computed once."""
    name: str
    rows: list                # every row of the family
    ok: list                  # rows with status ok and a value to plot
    not_ok: Counter           # status -> count of rows not plotted
    layout: Layout
    baseline: str | None
    labels: dict              # source -> label ('' when one run)


def baseline_for(name, variants):
    """The family's baseline if present, else any known baseline name that
    the family has, else None (no speedup figure)."""
    baselines = sbvariants.baselines()  # from the tables' baseline flag
    candidates = [baselines[name]] if name in baselines else []
    candidates += [b for b in baselines.values() if b not in candidates]
    return next((b for b in candidates if b in variants), None)


def prepare(rows):
    """Pure data prep: rows (from sbcsv.read) -> {family: Family}, in CSV
    order, without the reference family."""
    families = {}
    for name in dict.fromkeys(r["family"] for r in rows):
        if sbvariants.is_yardstick(name):
            continue
        fam_rows = [r for r in rows if r["family"] == name]
        ok = [r for r in fam_rows if r["status"] == "ok" and r.get(METRIC) is not None]
        not_ok = Counter(r["status"] for r in fam_rows if r["status"] != "ok")
        no_value = sum(1 for r in fam_rows if r["status"] == "ok" and r.get(METRIC) is None)
        if no_value:
            not_ok["ok without median_us"] += no_value
        labels = source_labels(fam_rows)  # per family: a lone run needs no label
        families[name] = Family(
            name=name, rows=fam_rows, ok=ok, not_ok=not_ok, layout=layout(ok),
            baseline=baseline_for(name, [r["variant"] for r in ok]),
            labels=labels)
    return families


def _collect(fam, metric):
    """(panel, variant, series_rest, x) -> value; duplicates of one point
    (the same CSV passed twice, repeated runs) collapse to their median."""
    lay = fam.layout
    acc = {}
    for r in fam.ok:
        if r.get(metric) is None:
            continue
        panel = tuple((a, _coerce(r.get(a))) for a in lay.panels)
        rest = (tuple((a, _coerce(r.get(a))) for a in lay.series),
                fam.labels.get(source_of(r), ""))
        x = _coerce(r.get(lay.x)) if lay.x else None
        acc.setdefault((panel, r["variant"], rest, x), []).append(r[metric])
    return {k: statistics.median(v) for k, v in acc.items()}


def series_label(variant, rest):
    axes, source = rest
    label = variant
    if axes:
        label += ", " + ", ".join(f"{a}={fmt_value(v)}" for a, v in axes)
    if source:
        label += f" [{source}]"
    return label


def _to_panels(values, family=None):
    """{(panel, variant, rest, x): y} -> {panel: {label: [(x, y), ...]}}
    with panels and x sorted and lines in table order (then CSV order)."""
    out = {}
    order = sbvariants.ordered(family, [k[1] for k in values])
    for (panel, variant, rest, x), y in sorted(values.items(), key=lambda kv: order.index(kv[0][1])):
        out.setdefault(panel, {}).setdefault(series_label(variant, rest), []).append((x, y))
    for lines in out.values():
        for pts in lines.values():
            pts.sort(key=lambda p: _sort_key(p[0]))
    return dict(sorted(out.items(), key=lambda kv: [_sort_key(v) for _, v in kv[0]]))


def points(fam, metric=METRIC):
    """{panel: {line label: [(x, value)]}}. A panel key is a tuple of
    (axis, value) pairs, () when the family has a single panel."""
    return _to_panels(_collect(fam, metric), fam.name)


def speedups(fam):
    """{panel: {line label: [(x, baseline median / variant median)]}} for
    every non-baseline variant, at points where the baseline is ok too.
    Empty when the family has no baseline."""
    if fam.baseline is None:
        return {}
    values = _collect(fam, METRIC)
    ratios = {}
    for (panel, variant, rest, x), value in values.items():
        base = values.get((panel, fam.baseline, rest, x))
        if variant != fam.baseline and base is not None and value > 0:
            ratios[(panel, variant, rest, x)] = base / value
    return _to_panels(ratios, fam.name)


def copy_gbps(rows):
    """source -> best device-to-device copy GB/s of that run (None if the
    run has no ok reference row)."""
    out = {}
    for r in rows:
        if sbvariants.is_yardstick_row(r) and r["status"] == "ok" and r.get("gbps") is not None:
            s = source_of(r)
            out[s] = max(out.get(s) or 0.0, r["gbps"])
    return out


def provenance_lines(fam_rows, all_rows):
    """One line per run: GPU, commit and copy bandwidth."""
    copy = copy_gbps(all_rows)
    sources = list(dict.fromkeys(source_of(r) for r in fam_rows))
    lines = []
    for i, s in enumerate(sources):
        gbps = copy.get(s)
        bw = f"d2d copy {gbps:.0f} GB/s" if gbps is not None else "d2d copy not measured"
        style = f" ({sbplot.RUN_STYLE_NAMES[i % len(sbplot.RUN_STYLE_NAMES)]} lines)" if len(sources) > 1 else ""
        lines.append(f"{s[0] or 'unknown GPU'}{style}, commit {s[1] or 'unknown'}, {bw}")
    return lines


def note_text(fam):
    """'not plotted: 3 unsupported, 1 wrong', or '' when every row is ok."""
    if not fam.not_ok:
        return ""
    return "not plotted: " + ", ".join(f"{n} {status}" for status, n in sorted(fam.not_ok.items()))


# ---------------------------------------------------------------- drawing

def _pyplot():
    return sbplot.plt


def _styles(fam):
    """Line keywords per label: the colour follows the variant (and the
    series axes) across panels and figures, the line style and marker
    follow the run, so two GPUs' lines of one variant stay apart."""
    keys = dict.fromkeys((v, rest) for (_, v, rest, _) in _collect(fam, METRIC))
    runs = list(dict.fromkeys(rest[1] for _, rest in keys))
    colours, out = {}, {}
    known = sbvariants.variants(fam.name)
    for v, rest in keys:
        if not rest[0] and v in known:  # one line per variant: its table colour
            colour = colours.setdefault((v, rest[0]), sbvariants.color(fam.name, v))
        else:
            colour = colours.setdefault((v, rest[0]), f"C{len(colours) % 10}")
        out[series_label(v, rest)] = {"color": colour, **sbplot.run_style(runs.index(rest[1]))}
    return out


def _x_scale(xs):
    """'log2' for positive numbers spanning a factor of 8 or more, 'linear'
    for other numbers, 'category' for names."""
    if not xs or not all(isinstance(x, (int, float)) for x in xs):
        return "category"
    if min(xs) > 0 and max(xs) / min(xs) >= 8:
        return "log2"
    return "linear"


def _panel_title(panel, notes=None):
    title = ", ".join(f"{a}={fmt_value(v)}" for a, v in panel) or ""
    text = sbplot.identical_text(notes or {})
    if text:  # lines drawn on top of each other: say so, never hide one silently
        title += ("\n" if title else "") + text
    return title


def _figure(plt, n_panels):
    ncols = min(n_panels, 2 if n_panels <= 4 else 3)
    nrows = math.ceil(n_panels / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.2 * ncols, 3.6 * nrows + 1.6),
                             squeeze=False, layout="constrained")
    for ax in axes.flat[n_panels:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n_panels])


def draw(plt, fam, data, all_rows, path, title, ylabel, ylog, hline=None):
    """One figure: a panel per key of data, a line per label."""
    lay = fam.layout
    panels = data or {(): {}}
    fig, axes = _figure(plt, len(panels))
    styles = _styles(fam)
    all_x = sorted({x for lines in panels.values() for pts in lines.values() for x, _ in pts},
                   key=_sort_key)
    scale = _x_scale(all_x) if lay.x else "category"
    for ax, (panel, lines) in zip(axes, panels.items()):
        for label, pts in lines.items():
            xs = [x for x, _ in pts]
            ys = [y for _, y in pts]
            style = styles.get(label, {"color": "k"})
            if lay.x is None:  # one point per line: bars
                ax.bar([label], ys, color=style["color"])
                continue
            if scale == "category":
                xs = [all_x.index(x) for x in xs]
            ax.plot(xs, ys, ms=3.5, lw=1.4, label=label, **style)
        if lay.x is not None:
            if scale == "category":
                ax.set_xticks(range(len(all_x)), [fmt_value(x) for x in all_x])
            else:
                sbplot.x_at_data(ax, all_x, log=scale == "log2")
            ax.set_xlabel(lay.x)
        else:
            ax.tick_params(axis="x", labelrotation=30)
        if ylog and lay.x is not None and any(lines.values()):  # bars need a zero
            sbplot.log_y(ax)
        if hline is not None:
            ax.axhline(hline[0], color="0.4", lw=1, ls="--", label=hline[1])
        ax.set_ylabel(ylabel)
        ax.set_title(_panel_title(panel, sbplot.identical_notes(lines)), fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
        if not lines:
            ax.set_xticks([])
            ax.set_yticks([])
            ax.text(0.5, 0.5, "no ok rows", ha="center", va="center", transform=ax.transAxes)
    sbplot.legend_outside(fig, axes, fontsize=9)
    fixed = ", ".join(f"{a}={fmt_value(v)}" for a, v in lay.fixed.items())
    head = [f"{fam.name}: {title}"] + ([fixed] if fixed else [])
    head += provenance_lines(fam.rows, all_rows)
    note = note_text(fam)
    if note:  # in the title block: never hidden behind panels or the legend
        head.append(note)
    fig.suptitle("\n".join(head), fontsize=10)
    return sbplot.save(fig, path)


def plot_default(plt, fam, all_rows, outdir):
    """Median time per launch, the speedup over the baseline, and one
    figure per extra metric the family fills. Returns the paths written."""
    written = [draw(plt, fam, points(fam), all_rows,
                    os.path.join(outdir, f"{fam.name}.png"),
                    "median time per launch (lower is better)", "median µs", ylog=True)]
    sp = speedups(fam)
    if sp:
        written.append(draw(plt, fam, sp, all_rows,
                            os.path.join(outdir, f"{fam.name}_speedup.png"),
                            f"speedup over {fam.baseline} (higher is better)",
                            f"{fam.baseline} median / variant median", ylog=False,
                            hline=(1.0, fam.baseline)))
    for metric, ylabel in extra_metrics(fam.name).items():
        data = points(fam, metric)
        if any(pts for lines in data.values() for pts in lines.values()):
            written.append(draw(plt, fam, data, all_rows,
                                os.path.join(outdir, f"{fam.name}_{metric}.png"),
                                ylabel, ylabel, ylog=metric != "gflops"))
    bw = plot_bandwidth(plt, fam, all_rows, outdir)
    return written + ([bw] if bw else [])


def extra_metrics(family):
    """EXTRA_METRICS plus the family's ceiling column (pct_of_cublas,
    pct_of_cub: the table names it and its ceiling row)."""
    fam = sbvariants.family(family)
    out = dict(EXTRA_METRICS)
    if fam and fam.ceiling_column:
        out[fam.ceiling_column] = f"% of {sbvariants.ceiling(family) or 'the ceiling'}"
    return out


def bandwidth_points(fam, metric):
    """{label: (line style, [(n, best value over the other axes)])}: a line
    per variant (its table colour) and run (its line style), table order."""
    best = {}
    for r in fam.ok:
        if r.get(metric) is not None and r.get("n") is not None:
            k = (r["variant"], fam.labels.get(source_of(r), ""), r["n"])
            best[k] = max(best.get(k, r[metric]), r[metric])
    out = {}
    sources = list(dict.fromkeys(k[1] for k in best))
    for v in sbvariants.ordered(fam.name, [k[0] for k in best]):
        for (var, source, n), y in sorted(best.items(), key=lambda kv: kv[0][2]):
            if var == v:
                style = {"color": sbvariants.color(fam.name, v),
                         **sbplot.run_style(sources.index(source))}
                out.setdefault(series_label(v, ((), source)), (style, []))[1].append((n, y))
    return out


def plot_bandwidth(plt, fam, all_rows, outdir):
    """GB/s, % of copy and % of the ceiling (when the table names one)
    against n, best over the other axes: for a family that moves bytes over
    several sizes (devscan). None when n does not vary or no GB/s."""
    if len({r.get("n") for r in fam.ok if r.get("gbps") is not None}) < 2:
        return None
    metrics = {"gbps": "GB/s", "pct_of_copy": "% of device-to-device copy"}
    ceiling = sbvariants.family(fam.name)
    if ceiling and ceiling.ceiling_column:
        metrics[ceiling.ceiling_column] = extra_metrics(fam.name)[ceiling.ceiling_column]
    data = {m: bandwidth_points(fam, m) for m in metrics}
    data = {m: d for m, d in data.items() if d}
    fig, axes = plt.subplots(1, len(data), figsize=(5.5 * len(data), 4.6), squeeze=False,
                             layout="constrained")
    for ax, (metric, lines) in zip(axes[0], data.items()):
        for label, (style, pts) in lines.items():
            ax.plot([p[0] for p in pts], [p[1] for p in pts], ms=3.5, lw=1.4, label=label, **style)
        sbplot.x_at_data(ax, [p[0] for _, pts in lines.values() for p in pts], label="n")
        ax.set_ylabel(metrics[metric])
        ax.set_title(f"{metrics[metric]} (best over the other axes)", fontsize=9)
        ax.grid(True, which="major", alpha=0.3)
    sbplot.legend_outside(fig, axes[0], fontsize=9)
    head = [f"{fam.name}: bandwidth against n"] + provenance_lines(fam.rows, all_rows)
    fig.suptitle("\n".join(head), fontsize=10)
    return sbplot.save(fig, os.path.join(outdir, f"{fam.name}_bandwidth.png"))


# Families whose picture the default does not tell well register here:
# family -> function(plt, Family, all_rows, outdir) -> list of paths written.
# A special plotter may call plot_default first and add its own figures.
def module_plotter(module_name):
    """A PLOTTERS entry for a family whose figures live in
    scripts/<module_name>.py as plot(rows, outdir) -> paths; it gets the
    family's rows (every status; it draws the ok ones)."""
    def run(plt, fam, all_rows, outdir):
        import importlib
        return importlib.import_module(module_name).plot(fam.rows, outdir)
    return run


PLOTTERS = {
    "barrier": module_plotter("plot_barrier"),
    "barrier_tma": module_plotter("plot_barrier"),
    "barrier_cluster": module_plotter("plot_barrier"),
    "stencil": module_plotter("plot_stencil"),
    "stencil2d": module_plotter("plot_stencil"),
    "multistage": module_plotter("plot_stencil"),
    "pipeline": module_plotter("plot_pipeline"),
    "pipeline_intensity": module_plotter("plot_pipeline"),
    "gemm": module_plotter("plot_gemm"),
}


def plot_family(plt, fam, rows, outdir):
    """The family's figures. A family without a registered plotter gets the
    default picture; if its rows do not fit one (columns this script has
    never seen), it is skipped with a message, and the other families are
    still drawn."""
    if fam.name in PLOTTERS:
        if not any(r["status"] == "ok" for r in fam.rows):
            print(f"plot.py: skipped family {fam.name}: no row ran ok", file=sys.stderr)
            return []
        return PLOTTERS[fam.name](plt, fam, rows, outdir)
    try:
        return plot_default(plt, fam, rows, outdir)
    except (ValueError, TypeError, KeyError, ZeroDivisionError) as e:
        plt.close("all")
        print(f"plot.py: skipped family {fam.name}: its rows do not fit the default plot "
              f"({type(e).__name__}: {e})", file=sys.stderr)
        return []


def load(paths):
    """Rows of every CSV, in order. Raises sbcsv.CsvError."""
    rows = []
    for path in paths:
        for r in sbcsv.read(path):
            r["_path"] = path
            rows.append(r)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+", help="syncbench CSV files")
    ap.add_argument("--outdir", help="where PNGs go (default: plots/ next to the first CSV)")
    args = ap.parse_args(argv)
    try:
        rows = load(args.csv)
    except sbcsv.CsvError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    outdir = args.outdir or os.path.join(os.path.dirname(args.csv[0]) or ".", "plots")
    families = prepare(rows)
    if not families:
        print(f"plot.py: nothing to plot: no family besides the yardstick in "
              f"{', '.join(args.csv)}", file=sys.stderr)
        return 0
    try:
        os.makedirs(outdir, exist_ok=True)
        plt = _pyplot()
        for fam in families.values():
            for path in plot_family(plt, fam, rows, outdir):
                print(f"plot.py: wrote {path}")
    except OSError as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
