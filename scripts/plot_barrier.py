"""Plots of the barrier families (barrier, barrier_tma, barrier_cluster).

plot(rows, outdir) takes rows from sbcsv.read (typed dicts) and writes:

  barrier_cycles.png         cycles per op vs block_threads at
                             participants=all, one line per primitive;
                             a row of panels per group (GROUPS: hand-offs
                             and chases, cuda::barrier, mbarrier, the prices
                             between SMs (flag ping-pong and kernel
                             boundaries; look-back walks), bar.sync),
                             a column per contention; the table's first row
                             (thin grey) in every panel as the reference
  barrier_cycles_<p>.png     the same for participants=warp, elected
  barrier_grid_sync.png      grid-wide variants (cooperative launch) alone:
                             they are 10-100x slower and would flatten the rest
  barrier_spellings.png      the cuda::barrier and mbarrier groups side by
                             side, participants=all, both contentions
  barrier_tma_latency.png    bulk-copy round trip (cycles and ns) vs bytes
  barrier_cluster.png        barrier.cluster cycles per op vs block_threads,
                             one line per cluster size (and the other
                             variants, the DSMEM hand-off, by name)

Variants, their order and groups come from the table (sbvariants: table
order, summaries), so a new barrier row is drawn with no edit here.
Only rows with status ok are drawn. Log scales where values span decades.
Returns the list of files written.
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import sbplot  # noqa: E402
from sbplot import plt  # noqa: E402

import sbvariants  # noqa: E402

FAMILIES = ("barrier", "barrier_tma", "barrier_cluster")
PARTICIPANTS = ("all", "warp", "elected")
CONTENTIONS = ("one_block_per_sm", "full_occupancy")
# Panels of barrier_cycles*.png: each variant goes to the first group whose
# test its table summary passes (sbvariants), the rest to the last group, so
# a new table row is always drawn. GRID's variants get their own figure
# (10-100x slower: they would flatten the others).
GROUPS = (
    ("hand-offs and chases (data through shared memory)",
     lambda s: "own slot" in s or "no synchronization" in s),
    ("cuda::barrier", lambda s: "cuda::barrier" in s),
    ("mbarrier: PTX, cuda::ptx, intrinsics",  # mbarrier.arrive, mbarrier_arrive, __mbarrier_arrive
     lambda s: "mbarrier." in s or "mbarrier_" in s),
    ("between SMs: flag ping-pong through L2, kernel boundaries (host-timed)",
     lambda s: "ping-pong" in s or "kernel boundary" in s),
    ("between SMs: devscan's look-back walking w status words", lambda s: "look-back" in s),
    ("bar.sync: block, warp, named, cooperative groups", lambda s: True),
)
GRID = lambda s: "cooperative launch" in s  # noqa: E731
MARKERS = "osD^v<>ph*"
COLORS = [f"C{i}" for i in (0, 1, 2, 3, 4, 5, 6, 8, 9)]  # C7 is grey: the reference's


def _summary(v):
    return sbvariants.summary("barrier", v)


def group_of(v):
    """The panel group of a barrier variant: None for grid-wide ones."""
    s = _summary(v)
    if GRID(s):
        return None
    return next(title for title, test in GROUPS if test(s))


def _grouped(variants):
    """[(group title, its variants in table order)], empty groups left out."""
    ordered = sbvariants.ordered("barrier", variants)
    out = [(t, [v for v in ordered if group_of(v) == t]) for t, _ in GROUPS]
    return [(t, vs) for t, vs in out if vs]


def _style_in(members):
    """A distinct colour and marker per line of one panel; the family's
    first table row (the reference every panel repeats) black and dashed."""
    first = sbvariants.variants("barrier")[:1]

    def style(v):
        if v in first and v not in members:
            return {"color": "0.4", "marker": "", "ls": "-", "lw": 1}
        i = members.index(v) if v in members else len(members)
        return {"color": COLORS[i % len(COLORS)], "marker": MARKERS[i % len(MARKERS)], "ls": "-"}
    return style


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


def _lines(ax, rows, xcol, group, label=str, style=None, ycol="cycles_per_op", order=None):
    """One line per group and run: the group's colour (and marker), the
    run's line style and marker fill. Returns {label: points} drawn.
    order: the groups in drawing (legend) order; default sorted."""
    runs = sbplot.split_runs(rows)
    names = order(list({group(r) for r in rows})) if order else sorted(
        {group(r) for r in rows}, key=str)
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


def _variant_lines(ax, rows, members):
    """The members' lines (plus the reference row, dashed) on one panel."""
    order = lambda names: sbvariants.ordered("barrier", names)  # noqa: E731
    drawn = _lines(ax, rows, "block_threads", lambda r: r["variant"],
                   style=_style_in(members), order=order)
    if drawn:
        sbplot.log_y(ax)
    ax.set_ylabel("cycles per op")
    _note_identical(ax, drawn)
    return drawn


def _group_grid(rows, groups, title, outdir, name, written):
    """Rows of panels: one per group; columns: the contentions. Each panel
    draws its group's variants and the family's first row as reference."""
    conts = [c for c in CONTENTIONS if any(r["contention"] == c for r in rows)]
    if not groups or not conts:
        return
    first = sbvariants.variants("barrier")[:1]
    fig, axes = plt.subplots(len(groups), len(conts), figsize=(5.5 * len(conts) + 3, 3.4 * len(groups) + 1),
                             sharex=True, squeeze=False, layout="constrained")
    for i, (gtitle, members) in enumerate(groups):
        for j, cont in enumerate(conts):
            ax = axes[i][j]
            sel = [r for r in rows if r["contention"] == cont
                   and (r["variant"] in members or r["variant"] in first)]
            ax.set_title(f"{gtitle}\n{cont}", fontsize=9)
            _variant_lines(ax, sel, members)
            _block_axis(ax, rows)
        # a legend per row, right of it, naming the lines of every column
        # (a variant may run at one contention only, e.g. flag_handoff)
        _row_legend(axes[i][-1], [r for r in rows if r["variant"] in members or r["variant"] in first],
                    members)
    fig.suptitle(f"{title}\n{_title_suffix(rows)}", fontsize=11)
    _save(fig, outdir, name, written)


def _row_legend(ax, rows, members):
    """One entry per variant (its colour and marker): the runs' line styles
    are named in the figure title."""
    from matplotlib.lines import Line2D
    style = _style_in(members)
    shown = sbvariants.ordered("barrier", {r["variant"] for r in rows})
    handles = [Line2D([], [], ms=4, **style(v)) for v in shown]
    ax.legend(handles, shown, fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5),
              frameon=False)


def _cycles_figure(prim, part, outdir, written):
    """barrier_cycles.png (participants=all), barrier_cycles_<part>.png."""
    sel = [r for r in prim if r["participants"] == part and group_of(r["variant"])]
    groups = _grouped({r["variant"] for r in sel})
    name = "barrier_cycles.png" if part == PARTICIPANTS[0] else f"barrier_cycles_{part}.png"
    first = sbvariants.variants("barrier")[:1]
    ref = any(r["variant"] in first for r in sel)  # not run at every participants value
    _group_grid(sel, groups, f"barrier: cycles per synchronization op, participants={part}"
                + (f"\n(thin grey: {first[0]}, the table's first row, in every panel)" if ref else ""),
                outdir, name, written)


def _grid_figure(prim, outdir, written):
    grid = [r for r in prim if group_of(r["variant"]) is None]
    if not grid:
        return
    fig, ax = plt.subplots(figsize=(7, 5), layout="constrained")
    variants = sbvariants.ordered("barrier", {r["variant"] for r in grid})
    _lines(ax, grid, "block_threads", lambda r: (r["variant"], r["contention"]),
           label=lambda k: k[1] if len(variants) == 1 else f"{k[0]}, {k[1]}")
    sbplot.log_y(ax)
    ax.set_ylabel("cycles per op")
    _block_axis(ax, grid)
    sbplot.legend_outside(fig, [ax])
    fig.suptitle(f"{', '.join(variants)}\n{_title_suffix(grid)}", fontsize=10)
    _save(fig, outdir, "barrier_grid_sync.png", written)


def _spellings_figure(prim, outdir, written):
    """The arrive/wait groups (cuda::barrier, mbarrier) against the
    reference row, participants=all."""
    sel = [r for r in prim if r["participants"] == PARTICIPANTS[0]]
    members = [v for t, vs in _grouped({r["variant"] for r in sel})
               if t in (GROUPS[1][0], GROUPS[2][0]) for v in vs]
    groups = [("cuda::barrier and mbarrier, side by side", members)] if members else []
    _group_grid(sel, groups, "mbarrier and cuda::barrier spellings, full-block arrive+wait "
                f"(thin grey: {sbvariants.variants('barrier')[0]}, the table's first row)", outdir, "barrier_spellings.png", written)


def plot(rows, outdir):
    os.makedirs(outdir, exist_ok=True)
    written = []
    prim = _ok(rows, "barrier")
    if prim:
        for part in [p for p in PARTICIPANTS if any(r["participants"] == p for r in prim)]:
            _cycles_figure(prim, part, outdir, written)
        _grid_figure(prim, outdir, written)
        _spellings_figure(prim, outdir, written)

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
    # One line per variant and cluster size: the table's first variant (the
    # cluster barrier) by its size alone, the others (the DSMEM hand-off)
    # by name too, so that no line mixes two variants.
    first = next((v for v in sbvariants.variants("barrier_cluster") if any(r["variant"] == v for r in cl)), None)
    if cl:
        fig, axes = plt.subplots(1, len(CONTENTIONS), figsize=(12, 5), squeeze=False,
                                 layout="constrained")
        for j, cont in enumerate(CONTENTIONS):
            ax = axes[0][j]
            _lines(ax, [r for r in cl if r["contention"] == cont], "block_threads",
                   lambda r: (r["variant"] != first, r["variant"], r["cluster"]),
                   label=lambda k: f"cluster={k[2]}" if not k[0] else f"{k[1]} (cluster={k[2]})")
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
    sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
    import sbcsv

    ap = argparse.ArgumentParser(description="barrier family plots")
    ap.add_argument("csv")
    ap.add_argument("--outdir", default="plots")
    a = ap.parse_args()
    for path in plot(sbcsv.read_or_exit(a.csv, "plot_barrier.py"), a.outdir):
        print(path)
