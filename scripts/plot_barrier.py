"""Plots of the barrier families (barrier, barrier_tma, barrier_cluster).

plot(rows, outdir) takes rows from sbcsv.read (typed dicts) and writes:

  barrier_cycles.png         cycles per op vs block_threads, one line per
                             primitive; panels: participants x contention
                             (grid_sync on its own figure: it is 10-100x
                             slower and would flatten the others)
  barrier_grid_sync.png      grid_sync cycles per op vs block_threads
  barrier_spellings.png      the mbarrier spellings and __syncthreads side
                             by side, participants=all, both contentions
  barrier_tma_latency.png    bulk-copy round trip (cycles and ns) vs bytes
  barrier_cluster.png        barrier.cluster cycles per op vs block_threads,
                             one line per cluster size

Only rows with status ok are drawn. Log scales where values span decades.
Returns the list of files written.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sbplot  # noqa: E402
from sbplot import plt  # noqa: E402

FAMILIES = ("barrier", "barrier_tma", "barrier_cluster")
PARTICIPANTS = ("all", "warp", "elected")
CONTENTIONS = ("one_block_per_sm", "full_occupancy")
VARIANTS = ("syncthreads", "syncwarp", "named_barrier", "cg_block_sync",
            "cuda_barrier_arrive_wait", "cuda_barrier_arrive_and_wait", "ptx_mbarrier_parity",
            "primitives_mbarrier", "mbarrier_test_wait_poll", "arrive_and_drop",
            "completion_function", "expect_tx_zero", "grid_sync", "smem_latency", "smem_latency_bare")
SPELLINGS = ("syncthreads", "cuda_barrier_arrive_wait", "cuda_barrier_arrive_and_wait",
             "ptx_mbarrier_parity", "primitives_mbarrier", "mbarrier_test_wait_poll")


def _variant_style(v):
    """The same colour and marker for a variant in every panel."""
    i = VARIANTS.index(v) if v in VARIANTS else len(VARIANTS)
    return {"color": plt.cm.tab20(i % 20), "marker": "osD^v<>ph*xP+"[i % 13],
            "ls": "--" if v in ("syncthreads", "cg_block_sync") else
                  ":" if v.startswith("smem_latency") else "-"}  # dotted: no synchronization


def _ok(rows, family):
    return [r for r in rows if r.get("family") == family and r.get("status") == "ok"
            and r.get("cycles_per_op") is not None]


def _title_suffix(rows):
    """The GPU(s) and their SM clocks: every run of the figure is named."""
    parts = []
    for i, (label, run) in enumerate(runs := sbplot.split_runs(rows)):
        r = run[0]
        clk = r.get("sm_clock_mhz")
        style = f" ({sbplot.RUN_STYLE_NAMES[i % 4]})" if len(runs) > 1 else ""
        parts.append(f"{r.get('gpu_name', '?')}{style}" + (f", SM clock ~{clk:.0f} MHz" if clk else ""))
    return "\n".join(parts)  # a line per run: long titles must not be clipped


def _lines(ax, rows, xcol, group, label=str, style=None, ycol="cycles_per_op"):
    """One line per group and run: the group's colour (and marker), the
    run's line style and marker fill. Returns {label: points} drawn."""
    runs = sbplot.split_runs(rows)
    names = sorted({group(r) for r in rows}, key=str)
    drawn = {}
    for k, name in enumerate(names):
        for i, (run_label, run) in enumerate(runs):
            pts = sorted((r[xcol], r[ycol]) for r in run if group(r) == name
                         and r.get(ycol) is not None)
            if not pts:
                continue
            kw = {"color": f"C{k % 10}", **sbplot.run_style(i)}
            if style:
                kw.update(style(name))
                if len(runs) > 1:  # the run's style wins: GPUs must stay apart
                    kw.update({key: v for key, v in sbplot.run_style(i).items() if key != "marker"})
            text = sbplot.with_run(label(name), run_label)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], ms=3, label=text, **kw)
            drawn[text] = pts
    return drawn


def _save(fig, outdir, name, written):
    written.append(sbplot.save(fig, os.path.join(outdir, name)))


def _block_axis(ax, rows):
    sbplot.x_at_data(ax, [r["block_threads"] for r in rows], label="block_threads")
    ax.grid(True, which="major", alpha=0.3)


def _note_identical(ax, drawn):
    """Lines on top of each other are named in the panel title."""
    notes = sbplot.identical_text(sbplot.identical_notes(drawn))
    if notes:
        ax.set_title(ax.get_title() + "\n" + notes, fontsize=7)


def plot(rows, outdir):
    os.makedirs(outdir, exist_ok=True)
    written = []
    prim = _ok(rows, "barrier")
    if prim:
        others = [r for r in prim if r["variant"] != "grid_sync"]
        fig, axes = plt.subplots(len(PARTICIPANTS), len(CONTENTIONS), figsize=(13, 14),
                                 sharex=True, squeeze=False, layout="constrained")
        for i, part in enumerate(PARTICIPANTS):
            for j, cont in enumerate(CONTENTIONS):
                ax = axes[i][j]
                sel = [r for r in others if r["participants"] == part and r["contention"] == cont]
                drawn = _lines(ax, sel, "block_threads", lambda r: r["variant"], style=_variant_style)
                ax.set_title(f"participants={part}, {cont}", fontsize=9)
                if drawn:
                    sbplot.log_y(ax)
                ax.set_ylabel("cycles per op")
                _block_axis(ax, others)
                _note_identical(ax, drawn)
        sbplot.legend_outside(fig, axes.flat, ncol=3, fontsize=7)
        fig.suptitle(f"barrier: cycles per synchronization op\n{_title_suffix(prim)}", fontsize=11)
        _save(fig, outdir, "barrier_cycles.png", written)

        grid = [r for r in prim if r["variant"] == "grid_sync"]
        if grid:
            fig, ax = plt.subplots(figsize=(7, 5), layout="constrained")
            _lines(ax, grid, "block_threads", lambda r: r["contention"])
            sbplot.log_y(ax)
            ax.set_ylabel("cycles per grid.sync()")
            _block_axis(ax, grid)
            sbplot.legend_outside(fig, [ax])
            fig.suptitle(f"grid_sync\n{_title_suffix(grid)}", fontsize=10)
            _save(fig, outdir, "barrier_grid_sync.png", written)

        spell = [r for r in prim if r["variant"] in SPELLINGS and r["participants"] == "all"]
        if spell:
            fig, axes = plt.subplots(1, len(CONTENTIONS), figsize=(13, 5.5), squeeze=False,
                                     layout="constrained")
            for j, cont in enumerate(CONTENTIONS):
                ax = axes[0][j]
                drawn = _lines(ax, [r for r in spell if r["contention"] == cont], "block_threads",
                               lambda r: r["variant"], style=_variant_style)
                if drawn:
                    sbplot.log_y(ax)
                ax.set_ylabel("cycles per op")
                ax.set_title(f"full-block arrive+wait, {cont}", fontsize=9)
                _block_axis(ax, spell)
                _note_identical(ax, drawn)
            sbplot.legend_outside(fig, axes.flat, ncol=3)
            fig.suptitle(f"mbarrier spellings vs __syncthreads\n{_title_suffix(spell)}", fontsize=11)
            _save(fig, outdir, "barrier_spellings.png", written)

    tma = _ok(rows, "barrier_tma")
    if tma:
        fig, axes = plt.subplots(1, 2, figsize=(12, 5), squeeze=False, layout="constrained")
        for k, (col, label) in enumerate((("cycles_per_op", "cycles per round trip"),
                                          ("ns_per_op", "ns per round trip"))):
            ax = axes[0][k]
            if _lines(ax, tma, "buffer_bytes", lambda r: r["contention"], ycol=col):
                sbplot.log_y(ax)
            sbplot.x_at_data(ax, [r["buffer_bytes"] for r in tma], label="bytes per bulk copy")
            ax.set_ylabel(label)
            ax.grid(True, which="major", alpha=0.3)
        sbplot.legend_outside(fig, axes.flat)
        fig.suptitle(f"barrier_tma: cp.async.bulk global->shared + mbarrier wait\n{_title_suffix(tma)}", fontsize=11)
        _save(fig, outdir, "barrier_tma_latency.png", written)

    cl = _ok(rows, "barrier_cluster")
    if cl:
        fig, axes = plt.subplots(1, len(CONTENTIONS), figsize=(12, 5), squeeze=False,
                                 layout="constrained")
        for j, cont in enumerate(CONTENTIONS):
            ax = axes[0][j]
            _lines(ax, [r for r in cl if r["contention"] == cont], "block_threads",
                   lambda r: r["cluster"], label=lambda c: f"cluster={c}")
            ax.set_ylabel("cycles per op")
            ax.set_title(cont, fontsize=9)
            _block_axis(ax, cl)
        sbplot.legend_outside(fig, axes.flat)
        fig.suptitle(f"barrier_cluster: barrier.cluster.arrive + wait\n{_title_suffix(cl)}", fontsize=11)
        _save(fig, outdir, "barrier_cluster.png", written)
    return written


if __name__ == "__main__":
    import argparse
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sbcsv

    ap = argparse.ArgumentParser(description="barrier family plots")
    ap.add_argument("csv")
    ap.add_argument("--outdir", default="plots")
    a = ap.parse_args()
    for path in plot(sbcsv.read(a.csv), a.outdir):
        print(path)
