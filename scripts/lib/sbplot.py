"""What every syncbench plot shares: telling runs (GPUs) apart, axis ticks
at the data, legends outside the data, and a record of what each saved
figure drew (for the tests).

Rows come from sbcsv.read. A "run" is one CSV's rows: one GPU, one commit,
one start time. With several runs in one figure each run keeps its own line
style and marker (solid/o, dashed/open square, ...) and colours stay with
the variant, so a variant is one colour and each GPU one style; the legend
and the title name the runs.
"""
from __future__ import annotations

import io
import numbers
import os
import textwrap

import sbdeps  # noqa: F401  (a missing package: one line and exit 2, not a traceback)
import matplotlib  # noqa: E402

matplotlib.use("Agg")  # headless: no display on CI or GPU machines
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator  # noqa: E402

import sbcsv  # noqa: E402  (write_atomically)

# One style per run, in run order: line style, marker, and filled or open
# markers, so two runs stay apart even where their lines coincide.
RUN_STYLES = [
    {"ls": "-", "marker": "o", "mfc": None},
    {"ls": "--", "marker": "s", "mfc": "none"},
    {"ls": ":", "marker": "^", "mfc": None},
    {"ls": "-.", "marker": "D", "mfc": "none"},
]
RUN_STYLE_NAMES = ["solid", "dashed", "dotted", "dash-dot"]
# Two series closer than this everywhere are drawn on top of each other:
# their legend entries say so.
IDENTICAL = 0.005

# path -> what the figure saved there drew (see record()).
DRAWN = {}


def source_of(row):
    """What one run is: rows of one run share GPU, commit and start time."""
    return (row.get("gpu_name"), row.get("commit"), row.get("run_utc"))


def source_labels(rows):
    """Short names that tell the runs apart, or '' when there is one run."""
    sources = list(dict.fromkeys(source_of(r) for r in rows))
    if len(sources) <= 1:
        return {s: "" for s in sources}
    for i in range(3):  # GPU name, else commit, else start time
        names = [s[i] or "?" for s in sources]
        if len(set(names)) == len(names):
            return dict(zip(sources, names))
    return {s: f"{s[0]} {s[2]}" for s in sources}


def split_runs(rows):
    """[(label, rows of that run)] in first-seen order; label '' when the
    rows are one run."""
    labels = source_labels(rows)
    out = {}
    for r in rows:
        out.setdefault(source_of(r), []).append(r)
    return [(labels[s], rs) for s, rs in out.items()]


def run_style(index):
    """Line keywords for the index-th run (0 for a lone run)."""
    style = dict(RUN_STYLES[index % len(RUN_STYLES)])
    if style["mfc"] is None:
        del style["mfc"]
    return style


def runs_title(runs):
    """'NVIDIA H100 (solid) vs NVIDIA H200 (dashed)', or the lone GPU."""
    if len(runs) == 1:
        return runs[0][1][0].get("gpu_name") or "unknown GPU"
    return " vs ".join(f"{label} ({RUN_STYLE_NAMES[i % len(RUN_STYLE_NAMES)]})"
                       for i, (label, _) in enumerate(runs))


def with_run(label, run_label):
    return f"{label} [{run_label}]" if run_label else label


def fmt_value(value):
    """128, 1k, 32M: powers of 1024 the way the CLI accepts them."""
    if value is None:
        return "-"
    if isinstance(value, numbers.Integral) or (isinstance(value, float) and value.is_integer()):
        value = int(value)
    if isinstance(value, int) and value >= 1024:
        for shift, suffix in ((30, "G"), (20, "M"), (10, "k")):
            if value % (1 << shift) == 0:
                return f"{value >> shift}{suffix}"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def x_at_data(ax, values, log=True, label=None):
    """x ticks exactly at the data values, as plain numbers (32, 64, 1k),
    on a log2 axis when the values span a factor of 4 or more."""
    values = sorted({v for v in values if v is not None})
    if not values:
        return
    if log and min(values) > 0 and max(values) / min(values) >= 4:
        ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(values))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: fmt_value(v)))
    ax.xaxis.set_minor_locator(NullLocator())
    if len(values) > 8:
        ax.tick_params(axis="x", labelrotation=45)
    if label:
        ax.set_xlabel(label)


def log_y(ax):
    """Log y with at least three labelled ticks as plain numbers: a decade
    with one label (or 6x10^2) reads badly."""
    from matplotlib.ticker import LogLocator
    ax.set_yscale("log")
    lo, hi = ax.get_ylim()
    subs = (1.0, 2.0, 5.0) if hi / lo > 20 else (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}" if v < 1e5 else f"{v:.0e}"))


def identical_notes(series):
    """{label: 'same as <earlier label>'} for series that lie within
    IDENTICAL of an earlier one at every shared x (and share all x)."""
    notes = {}
    items = list(series.items())
    for i, (label, pts) in enumerate(items):
        here = dict(pts)
        for other, opts in items[:i]:
            there = dict(opts)
            if here.keys() == there.keys() and here and all(
                    abs(here[x] - there[x]) <= IDENTICAL * max(abs(there[x]), 1e-12) for x in here):
                notes[label] = f"same as {other}"
                break
    return notes


def identical_text(notes, width=60):
    """Which lines lie on top of each other, short enough for a panel
    title: 'on top of each other: both runs: completion, pingpong;
    arrive_wait = split_arrive' (wrapped to width, at most 3 lines)."""
    def split(label):
        variant, _, run = label.partition(" [")
        return variant, run.rstrip("]")
    both, pairs = [], []
    for a, b in notes.items():
        (va, ra), (vb, rb) = split(a), split(b.removeprefix("same as "))
        if va == vb:
            both.append(va)
        else:
            pairs.append(f"{va} = {vb}" if ra == rb else f"{a} = {b.removeprefix('same as ')}")
    parts = ([f"both runs: {', '.join(dict.fromkeys(both))}"] if both else []) + list(
        dict.fromkeys(pairs))
    if not parts:
        return ""
    lines = textwrap.wrap("on top of each other: " + "; ".join(parts), width)
    return "\n".join(lines[:3]) + (" ..." if len(lines) > 3 else "")


def legend_outside(fig, axes, ncol=None, fontsize=8):
    """One legend for the figure, below the panels (never over data);
    entries of every panel, each once."""
    handles, names = [], []
    for ax in axes:
        for h, n in zip(*ax.get_legend_handles_labels()):
            if n not in names and not n.startswith("_"):
                handles.append(h)
                names.append(n)
    if handles:
        if ncol is None:
            ncol = min(len(names), 4 if max(map(len, names)) <= 28 else 2)
        fig.legend(handles, names, loc="outside lower center", ncol=ncol,
                   fontsize=fontsize, frameon=False)


def record(fig):
    """What the figure draws, per visible panel: title, scales, x ticks and
    labels, and every line (label, points, style, colour)."""
    panels = []
    for ax in fig.axes:
        if not ax.get_visible() or ax.get_label() == "<colorbar>":
            continue
        lines = [{"label": ln.get_label(), "x": [float(v) for v in ln.get_xdata()],
                  "y": [float(v) for v in ln.get_ydata()], "ls": ln.get_linestyle(),
                  "marker": ln.get_marker(), "mfc": ln.get_markerfacecolor(),
                  "color": matplotlib.colors.to_hex(ln.get_color())}
                 for ln in ax.get_lines()]
        panels.append({"title": ax.get_title(), "xscale": ax.get_xscale(),
                       "yscale": ax.get_yscale(), "xlabel": ax.get_xlabel(),
                       "xticks": [float(t) for t in ax.get_xticks()],
                       "xticklabels": [t.get_text() for t in ax.get_xticklabels()],
                       "yticklabels": [t.get_text() for t in ax.get_yticklabels()
                                       if ax.get_ylim()[0] <= t.get_position()[1] <= ax.get_ylim()[1]],
                       "lines": lines, "images": len(ax.get_images())})
    legends = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    legends += [t.get_text() for ax in fig.axes if ax.get_legend()
                for t in ax.get_legend().get_texts()]
    title = fig._suptitle.get_text() if fig._suptitle else ""
    return {"title": title, "panels": panels, "legend": legends,
            "axes_legends": sum(1 for ax in fig.axes if ax.get_legend())}


# A committed plot is at most this many bytes (docs/fleet.md, "What the
# repository keeps"): save() writes a PNG with a palette of PALETTE colours
# and, where that is still larger, draws it again with fewer pixels.
MAX_PNG_BYTES = 150_000
PALETTE = 64
DPI = 90


def small_png(fig, path, dpi=DPI, limit=MAX_PNG_BYTES):
    """Writes fig to path as a palette PNG (no dithering: flat colours
    compress) of at most limit bytes, lowering the resolution by steps of
    15% down to 60 dpi where needed; returns the dpi it used."""
    from PIL import Image
    while True:
        buf = io.BytesIO()
        fig.savefig(buf, dpi=dpi, format="png")
        buf.seek(0)
        img = Image.open(buf).convert("RGB").quantize(
            colors=PALETTE, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        out = io.BytesIO()
        img.save(out, format="png", optimize=True)
        if out.tell() <= limit or dpi <= 60:
            break
        dpi = max(60, int(dpi * 0.85))
    sbcsv.write_atomically(path, out.getvalue())
    return dpi


def save(fig, path, dpi=DPI):
    """Writes the figure (title and legend inside the picture; a .png as a
    small palette PNG, see small_png), records what it drew in DRAWN[path],
    closes it; returns path."""
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("constrained")  # room for titles and the legend
    if str(path).endswith(".png"):
        small_png(fig, path, dpi)
    else:
        fig.savefig(path, dpi=dpi)
    DRAWN[os.path.abspath(path)] = record(fig)  # after drawing: tick labels exist
    plt.close(fig)
    return path


def drawn(path):
    return DRAWN[os.path.abspath(path)]


if __name__ == "__main__":
    import sys
    print("usage: import sbplot (scripts/sbplot.py is a module of the plot scripts, not a command)\n")
    print(__doc__.strip())
    sys.exit(0)
