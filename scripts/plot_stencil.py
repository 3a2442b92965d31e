"""Plots for the stencil, stencil2d and multistage families.

plot(rows, outdir) takes rows from scripts/sbcsv.read (typed dicts, None for
empty cells) and writes, for each of these families present with `ok` rows:
  <family>_time_per_iter.png  median time per iteration (median_us / iters)
                              against iters, one panel per block_threads
                              (columns) and elems_per_thread (rows), one
                              line per variant;
  <family>_vs_block.png       the same at the largest iters, against
                              block_threads, one panel per elems_per_thread;
  <family>_speedup.png        median time of the baseline variant
                              (two_barrier, or uniform for multistage) over
                              each variant's, same panels as the first.
Columns are read by name. Where a CSV holds several n, the largest is used.
Rows of several runs (GPUs): each variant keeps its colour, each run its
line style and marker (scripts/sbplot.py); speedups divide within a run.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import sbcsv  # noqa: E402
import sbplot  # noqa: E402
import sbvariants  # noqa: E402
from sbplot import plt  # noqa: E402

FAMILIES = ("stencil", "stencil2d", "multistage")


def _ok_rows(rows, family):
    """The family's ok rows at the largest n of each run."""
    out = []
    for _, run in sbplot.split_runs([r for r in rows if r["family"] == family]):
        sel = [r for r in run if r["status"] == "ok" and r.get("median_us") is not None
               and r.get("iters")]
        if sel:
            n = max(r["n"] for r in sel)
            out += [r for r in sel if r["n"] == n]
    return out


def _variants(sel, family):
    """The baseline first, then table order."""
    seen = sbvariants.ordered(family, (r["variant"] for r in sel))
    base = sbvariants.baseline(family)
    return sorted(seen, key=lambda v: (v != base, seen.index(v)))


def _elems(r):
    return r.get("elems_per_thread") or 1


def _grid(sel):
    blocks = sorted({r["block_threads"] for r in sel})
    elems = sorted({_elems(r) for r in sel})
    return blocks, elems


def _subplots(nrows, ncols):
    fig, axes = plt.subplots(nrows, ncols, figsize=(max(3.6 * ncols + 1, 8), 2.9 * nrows + 1.8),
                             squeeze=False, sharex=True, layout="constrained")
    return fig, axes


def _title(family, runs):
    ns = sorted({r["n"] for _, sel in runs for r in sel})
    return f"{family} on {sbplot.runs_title(runs)} (n={', '.join(f'{n:,}' for n in ns)})"


def _lines(ax, runs, variants, pick, x, y, baseline=None):
    """One line per variant and run: colour by variant, style by run.
    Returns {label: points} of what it drew."""
    drawn = {}
    for k, v in enumerate(variants):
        for i, (run_label, sel) in enumerate(runs):
            pts = sorted(((x(r), y(r)) for r in sel if r["variant"] == v and pick(r)
                          and y(r) is not None), key=lambda p: p[0])
            if not pts:
                continue
            label = sbplot.with_run(v, run_label)
            style = sbplot.run_style(i)
            if v == baseline and len(runs) == 1:
                style["ls"] = "--"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], ms=3, color=f"C{k % 10}",
                    label=label, **style)
            drawn[label] = pts
    return drawn


def _iters_grid(family, runs, variants, outdir, y, ylabel, title, name, baseline=None):
    """One panel per (elems_per_thread, block_threads): y(row) against iters,
    one line per variant and run. y returns None for rows it cannot place."""
    blocks, elems = _grid([r for _, sel in runs for r in sel])
    iters = sorted({r["iters"] for _, sel in runs for r in sel})
    fig, axes = _subplots(len(elems), len(blocks))
    for i, e in enumerate(elems):
        for j, b in enumerate(blocks):
            ax = axes[i][j]
            drawn = _lines(ax, runs, variants,
                           lambda r, b=b, e=e: r["block_threads"] == b and _elems(r) == e,
                           lambda r: r["iters"], y, baseline)
            if baseline:
                ax.axhline(1.0, color="gray", lw=0.8)
            elif drawn:
                sbplot.log_y(ax)
            sbplot.x_at_data(ax, iters, label="iters" if i == len(elems) - 1 else None)
            notes = sbplot.identical_text(sbplot.identical_notes(
                {k: v for k, v in drawn.items() if baseline is None or not k.startswith(baseline)}))
            ax.set_title(f"block {b}, elems {e}" + (f"\n{notes}" if notes else ""),
                         fontsize=9 if not notes else 7)
            ax.grid(True, which="major", alpha=0.3)
            if j == 0:
                ax.set_ylabel(ylabel)
    sbplot.legend_outside(fig, axes.flat)
    fig.suptitle(_title(family, runs) + ":\n" + title, fontsize=10)
    return sbplot.save(fig, os.path.join(outdir, name))


def _time_per_iter(family, runs, variants, outdir):
    return _iters_grid(family, runs, variants, outdir, lambda r: r["median_us"] / r["iters"],
                       "µs per iteration (whole launch)", "time per iteration (median / iters)",
                       f"{family}_time_per_iter.png")


def _vs_block(family, runs, variants, outdir):
    all_rows = [r for _, sel in runs for r in sel]
    blocks, elems = _grid(all_rows)
    top = max(r["iters"] for r in all_rows)
    fig, axes = _subplots(1, len(elems))
    for j, e in enumerate(elems):
        ax = axes[0][j]
        _lines(ax, runs, variants, lambda r, e=e: r["iters"] == top and _elems(r) == e,
               lambda r: r["block_threads"], lambda r: r["median_us"] / top)
        sbplot.x_at_data(ax, blocks, label="block_threads")
        ax.set_title(f"elems {e}, iters {top}", fontsize=9)
        ax.grid(True, alpha=0.3)
        if j == 0:
            ax.set_ylabel("µs per iteration (whole launch)")
    sbplot.legend_outside(fig, axes.flat)
    fig.suptitle(_title(family, runs) + ":\ntime per iteration against block size", fontsize=10)
    return sbplot.save(fig, os.path.join(outdir, f"{family}_vs_block.png"))


def _speedup(family, runs, variants, outdir):
    """Each run's baseline over each variant of the same run: the baseline
    line of every GPU is exactly 1."""
    base = sbvariants.baseline(family)
    ref = {(sbplot.source_of(r), r["block_threads"], _elems(r), r["iters"]): r["median_us"]
           for _, sel in runs for r in sel if r["variant"] == base}
    if not ref:
        return None

    def y(r):
        t = ref.get((sbplot.source_of(r), r["block_threads"], _elems(r), r["iters"]))
        return t / r["median_us"] if t else None

    return _iters_grid(family, runs, variants, outdir, y, f"speedup over {base}",
                       f"{base} median / variant median (> 1: faster)",
                       f"{family}_speedup.png", baseline=base)


def plot(rows, outdir):
    """Writes the PNGs described above into outdir; returns their paths."""
    os.makedirs(outdir, exist_ok=True)
    written = []
    for family in FAMILIES:
        sel = _ok_rows(rows, family)
        if not sel:
            continue
        runs = sbplot.split_runs(sel)
        variants = _variants(sel, family)
        written.append(_time_per_iter(family, runs, variants, outdir))
        written.append(_vs_block(family, runs, variants, outdir))
        path = _speedup(family, runs, variants, outdir)
        if path:
            written.append(path)
    return written


if __name__ == "__main__":
    import argparse
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
    import sbcsv

    ap = argparse.ArgumentParser(description="stencil, stencil2d and multistage plots "
                                 "(speedup, time per iteration, against block size)")
    ap.add_argument("csv", metavar="RESULTS.csv")
    ap.add_argument("outdir", metavar="OUTDIR")
    a = ap.parse_args()
    for p in plot(sbcsv.read_or_exit(a.csv, "plot_stencil.py"), a.outdir):
        print(p)
