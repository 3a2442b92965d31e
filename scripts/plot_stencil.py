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
"""
from __future__ import annotations

import os

import sys

import matplotlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sbcsv  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FAMILIES = ("stencil", "stencil2d", "multistage")
BASELINE = {f: sbcsv.BASELINES[f] for f in FAMILIES}


def _ok_rows(rows, family):
    sel = [r for r in rows if r["family"] == family and r["status"] == "ok"
           and r.get("median_us") is not None and r.get("iters")]
    if not sel:
        return []
    n = max(r["n"] for r in sel)
    return [r for r in sel if r["n"] == n]


def _variants(sel, family):
    seen = []
    for r in sel:
        if r["variant"] not in seen:
            seen.append(r["variant"])
    base = BASELINE[family]
    return sorted(seen, key=lambda v: (v != base, seen.index(v)))


def _elems(r):
    return r.get("elems_per_thread") or 1


def _grid(sel):
    blocks = sorted({r["block_threads"] for r in sel})
    elems = sorted({_elems(r) for r in sel})
    return blocks, elems


def _subplots(nrows, ncols):
    fig, axes = plt.subplots(nrows, ncols, figsize=(max(3.6 * ncols + 1, 8), 2.9 * nrows + 0.8),
                             squeeze=False, sharex=True)
    return fig, axes


def _title(family, sel):
    r = sel[0]
    return f"{family} on {r['gpu_name']} (n={r['n']:,})"


def _save(fig, outdir, name):
    fig.tight_layout()
    path = os.path.join(outdir, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _iters_grid(family, sel, variants, outdir, y, ylabel, title, name, baseline=None):
    """One panel per (elems_per_thread, block_threads): y(row) against iters,
    one line per variant. y returns None for rows it cannot place."""
    blocks, elems = _grid(sel)
    fig, axes = _subplots(len(elems), len(blocks))
    for i, e in enumerate(elems):
        for j, b in enumerate(blocks):
            ax = axes[i][j]
            for v in variants:
                pts = sorted((r for r in sel if r["variant"] == v and r["block_threads"] == b
                              and _elems(r) == e and y(r) is not None), key=lambda r: r["iters"])
                if pts:
                    ax.plot([r["iters"] for r in pts], [y(r) for r in pts], marker="o", ms=3,
                            label=v, ls="--" if v == baseline else "-")
            if baseline:
                ax.axhline(1.0, color="gray", lw=0.8)
            else:
                ax.set_yscale("log")
            ax.set_xscale("log", base=2)
            ax.set_title(f"block {b}, elems {e}", fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
            if j == 0:
                ax.set_ylabel(ylabel)
            if i == len(elems) - 1:
                ax.set_xlabel("iters")
    axes[0][-1].legend(fontsize=7, loc="upper right")
    fig.suptitle(_title(family, sel) + ": " + title)
    return _save(fig, outdir, name)


def _time_per_iter(family, sel, variants, outdir):
    return _iters_grid(family, sel, variants, outdir, lambda r: r["median_us"] / r["iters"],
                       "µs per iteration (whole launch)", "time per iteration (median / iters)",
                       f"{family}_time_per_iter.png")


def _vs_block(family, sel, variants, outdir):
    blocks, elems = _grid(sel)
    top = max(r["iters"] for r in sel)
    fig, axes = _subplots(1, len(elems))
    for j, e in enumerate(elems):
        ax = axes[0][j]
        for v in variants:
            pts = sorted((r for r in sel if r["variant"] == v and r["iters"] == top
                          and _elems(r) == e),
                         key=lambda r: r["block_threads"])
            if pts:
                ax.plot([r["block_threads"] for r in pts], [r["median_us"] / top for r in pts],
                        marker="o", ms=3, label=v)
        ax.set_xscale("log", base=2)
        ax.set_xticks(blocks, [str(b) for b in blocks])
        ax.set_title(f"elems {e}, iters {top}", fontsize=9)
        ax.set_xlabel("block_threads")
        ax.grid(True, alpha=0.3)
        if j == 0:
            ax.set_ylabel("µs per iteration (whole launch)")
    axes[0][-1].legend(fontsize=7)
    fig.suptitle(_title(family, sel) + ": time per iteration against block size")
    return _save(fig, outdir, f"{family}_vs_block.png")


def _speedup(family, sel, variants, outdir):
    base = BASELINE[family]
    ref = {(r["block_threads"], _elems(r), r["iters"]): r["median_us"]
           for r in sel if r["variant"] == base}
    if not ref:
        return None

    def y(r):
        t = ref.get((r["block_threads"], _elems(r), r["iters"]))
        return t / r["median_us"] if t else None

    return _iters_grid(family, sel, variants, outdir, y, f"speedup over {base}",
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
        variants = _variants(sel, family)
        written.append(_time_per_iter(family, sel, variants, outdir))
        written.append(_vs_block(family, sel, variants, outdir))
        path = _speedup(family, sel, variants, outdir)
        if path:
            written.append(path)
    return written


if __name__ == "__main__":
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sbcsv

    if len(sys.argv) != 3:
        sys.exit("usage: plot_stencil.py RESULTS.csv OUTDIR")
    for p in plot(sbcsv.read(sys.argv[1]), sys.argv[2]):
        print(p)
