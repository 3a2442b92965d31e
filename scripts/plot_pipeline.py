"""Plots and headline figures for the pipeline families (pipeline,
pipeline_intensity). Rows come from sbcsv.read (typed, None for empty).

    plot(rows, outdir)   writes pipeline_heatmap.png, pipeline_intensity.png,
                         pipeline_in_flight.png (those it has rows for)
    summary(rows)        the issue's headline numbers, as a dict
Run directly: python3 scripts/plot_pipeline.py results.csv [--outdir DIR]
"""
from __future__ import annotations

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import sbplot  # noqa: E402
from sbplot import plt  # noqa: E402

import sbvariants  # noqa: E402

FAMILIES = ("pipeline", "pipeline_intensity")
GOOD_PCT = 90.0


def _base():
    """The one-tile loop every strategy is measured against: the variant
    the tables flag `baseline`."""
    return next(filter(None, map(sbvariants.baseline, FAMILIES)), None)


def _plain():
    """The plain grid-stride loop (no shared memory): flagged `plain`."""
    return next(filter(None, map(sbvariants.plain, FAMILIES)), None)


def _pipelined():
    """Every other variant of the two tables, in table order."""
    names = [v for f in FAMILIES for v in sbvariants.variants(f)]
    return [v for v in dict.fromkeys(names) if v not in (_base(), _plain())]


def _order():
    return [v for v in (_base(), *_pipelined(), _plain()) if v]


def _color(v):
    """Grey baseline, black plain loop, the rest by table index."""
    if v in (_base(), _plain()):
        return "tab:gray" if v == _base() else "black"
    return f"C{(_pipelined().index(v) if v in _pipelined() else 9) % 10}"


def _ok(rows, family):
    return [r for r in rows if r["family"] == family and r["status"] == "ok"
            and r.get("pct_of_copy") is not None]


def _largest(rows, key):
    """Rows at the largest value of `key` (e.g. n) so sizes do not mix."""
    values = [r[key] for r in rows if r.get(key) is not None]
    return [r for r in rows if r.get(key) == max(values)] if values else rows


def _kib(b):
    """Bytes as the other plots and the CLI write them: 1k, 16k, 64k."""
    return sbplot.fmt_value(b)


def _save(fig, outdir, name):
    return sbplot.save(fig, os.path.join(outdir, name))


def heatmap_rows(rows):
    """pipeline-family rows at intensity 0 and the largest n, any warps."""
    fam = [r for r in rows if r["family"] == "pipeline"]
    fam = [r for r in fam if (r.get("intensity") or 0) == 0]
    return _largest(fam, "n")


def smallest_good(rows, variant, pct=GOOD_PCT):
    """The ok row with the fewest stages x buffer_bytes reaching pct% of copy
    (ties: fewer stages), or None."""
    good = [r for r in heatmap_rows(rows) if r["variant"] == variant and r["status"] == "ok"
            and r["pct_of_copy"] >= pct]
    return min(good, key=lambda r: (r["stages"] * r["buffer_bytes"], r["stages"]), default=None)


def best(rows, family, variant, intensity=0):
    cand = [r for r in _ok(rows, family) if r["variant"] == variant
            and (r.get("intensity") or 0) == intensity]
    return max(cand, key=lambda r: r["pct_of_copy"], default=None)


def intensity_range(rows, pct=GOOD_PCT):
    """{consumer_warps: {variant: intensities}}: for each pipelined variant,
    the intensities at which it keeps >= pct% of copy bandwidth while
    sync_single (same warps, same intensity) is below it."""
    out = {}
    fam = _ok(rows, "pipeline_intensity")
    for w in sorted({r["consumer_warps"] for r in fam}):
        out[w] = {}
        for v in _pipelined():
            keep = []
            for i in sorted({r["intensity"] for r in fam}):
                at = {r["variant"]: r["pct_of_copy"] for r in fam
                      if r["consumer_warps"] == w and r["intensity"] == i}
                if at.get(v, 0) >= pct and at.get(_base(), 0) < at[v]:
                    keep.append(i)
            out[w][v] = keep
    return out


def plateau_range(rows, share=0.9):
    """{consumer_warps: {variant: highest intensity}} at which each variant
    still moves >= share of its own intensity-0 bandwidth (its memory-bound
    plateau), or None."""
    out = {}
    fam = _ok(rows, "pipeline_intensity")
    for w in sorted({r["consumer_warps"] for r in fam}):
        out[w] = {}
        for v in _order():
            pts = sorted((r["intensity"], r["gbps"]) for r in fam
                         if r["variant"] == v and r["consumer_warps"] == w)
            if not pts or pts[0][0] != 0:
                continue
            top = None
            for i, g in pts:
                if g < share * pts[0][1]:
                    break
                top = i
            out[w][v] = top
    return out


def summary(rows):
    s = {}
    for fam in ("pipeline", "pipeline_intensity"):
        for v in _order():
            b = best(rows, fam, v)
            if b:
                s[f"best_{fam}_{v}_pct"] = b["pct_of_copy"]
                s[f"best_{fam}_{v}_config"] = (b["stages"], b["buffer_bytes"], b["consumer_warps"])
    for v in [_base(), *_pipelined()]:
        r = smallest_good(rows, v)
        s[f"smallest_90pct_{v}"] = (r["stages"], r["buffer_bytes"], r["pct_of_copy"]) if r else None
    s["intensity_range_90pct_by_warps"] = intensity_range(rows)
    s["plateau_90pct_by_warps"] = plateau_range(rows)
    return s


def plot_heatmap(rows, outdir):
    """One row of panels per run (GPU), one panel per variant."""
    runs = [(label, heatmap_rows(run)) for label, run in sbplot.split_runs(
        [r for r in rows if r["family"] == "pipeline"])]
    hm_all = [r for _, hm in runs for r in hm]
    variants = [v for v in [_base(), *_pipelined()] if any(r["variant"] == v for r in hm_all)]
    if not variants:
        return None
    stages = sorted({r["stages"] for r in hm_all})
    sizes = sorted({r["buffer_bytes"] for r in hm_all})
    fig, axes = plt.subplots(len(runs), len(variants),
                             figsize=(4.2 * len(variants), 4.2 * len(runs) + 0.8), squeeze=False,
                             layout="constrained")
    image = None
    for row_axes, (run_label, hm) in zip(axes, runs):
        for ax, v in zip(row_axes, variants):
            image = _heatmap_panel(ax, hm, v, stages, sizes)
            name = v + (" (one tile of stages x bytes)" if v == _base() else "")
            ax.set_title(f"{run_label}\n{name}" if run_label else name, fontsize=9)
    fig.colorbar(image, ax=axes.ravel().tolist(), label="% of device-to-device copy bandwidth")
    r0 = hm_all[0]
    fig.suptitle(f"pipeline at intensity 0, n={r0['n']}, {r0.get('consumer_warps')} consumer warps, "
                 f"{sbplot.runs_title(runs)}\n(red box: smallest stages x bytes >= {GOOD_PCT:.0f}%)",
                 fontsize=10)
    return _save(fig, outdir, "pipeline_heatmap.png")


def _heatmap_panel(ax, hm, v, stages, sizes):
    """% of copy per stages x buffer_bytes of one variant of one run."""
    grid = [[math.nan] * len(sizes) for _ in stages]
    labels = [[""] * len(sizes) for _ in stages]
    for r in hm:
        if r["variant"] != v:
            continue
        i, j = stages.index(r["stages"]), sizes.index(r["buffer_bytes"])
        if r["status"] == "ok":
            grid[i][j] = r["pct_of_copy"]
            labels[i][j] = f"{r['pct_of_copy']:.0f}"
        else:
            labels[i][j] = r["status"][:4]
    image = ax.imshow(grid, origin="lower", cmap="viridis", vmin=0, vmax=100, aspect="auto")
    for i in range(len(stages)):
        for j in range(len(sizes)):
            value = grid[i][j]
            color = "gray" if math.isnan(value) else ("black" if value >= 60 else "white")
            ax.text(j, i, labels[i][j], ha="center", va="center", fontsize=7, color=color)
    good = smallest_good(hm, v)
    if good:
        i, j = stages.index(good["stages"]), sizes.index(good["buffer_bytes"])
        ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="red", lw=2))
    ax.set_xticks(range(len(sizes)), [_kib(b) for b in sizes], fontsize=8)
    ax.set_yticks(range(len(stages)), stages)
    ax.set_xlabel("buffer_bytes per stage")
    ax.set_ylabel("stages")
    return image


def plot_intensity(rows, outdir):
    runs = [(label, _largest(_ok(run, "pipeline_intensity"), "n"))
            for label, run in sbplot.split_runs([r for r in rows if r["family"] == "pipeline_intensity"])]
    runs = [(label, fam) for label, fam in runs if fam]
    if not runs:
        return None
    all_rows = [r for _, fam in runs for r in fam]
    warps = sorted({r["consumer_warps"] for r in all_rows})
    fig, axes = plt.subplots(2, len(warps), figsize=(4.6 * len(warps), 8.5), squeeze=False,
                             sharex=True, layout="constrained")
    for col, w in enumerate(warps):
        top, bottom = axes[0][col], axes[1][col]
        for i, (run_label, fam) in enumerate(runs):
            style = sbplot.run_style(i)
            for v in _order():
                pts = sorted((r["intensity"], r["gbps"], r.get("gflops") or 0.0)
                             for r in fam if r["variant"] == v and r["consumer_warps"] == w)
                if not pts:
                    continue
                xs = [max(p[0], 1) for p in pts]  # intensity 0 drawn at 1 on the log axis
                top.plot(xs, [p[1] for p in pts], ms=3, label=sbplot.with_run(v, run_label),
                         color=_color(v), **style)
                bottom.plot(xs, [p[2] / 1000 for p in pts], ms=3, color=_color(v), **style)
            copy = [r["gbps"] / r["pct_of_copy"] * 100 for r in fam if r["pct_of_copy"]]
            if copy:
                top.axhline(copy[0], color="k", ls=style["ls"], lw=0.8,
                            label=sbplot.with_run("d2d copy", run_label))
        top.set_title(f"{w} consumer warp{'s' if w > 1 else ''}", fontsize=10)
        top.set_ylabel("GB/s (read + write)")
        bottom.set_ylabel("TFLOP/s")
        xs = sorted({max(r["intensity"], 1) for r in all_rows})
        for ax in (top, bottom):
            sbplot.x_at_data(ax, xs)
            ax.grid(alpha=0.3)
        bottom.set_xlabel("intensity, FLOP/element (0 drawn at 1)")
    sbplot.legend_outside(fig, axes.flat, ncol=3)
    r0 = all_rows[0]
    fig.suptitle(f"pipeline_intensity: stages={r0['stages']}, buffer_bytes={_kib(r0['buffer_bytes'])},"
                 f" n={r0['n']}, {sbplot.runs_title(runs)}", fontsize=10)
    return _save(fig, outdir, "pipeline_intensity.png")


def plot_in_flight(rows, outdir):
    runs = [(label, [r for r in heatmap_rows(run) if r["status"] == "ok"
                     and r.get("bytes_in_flight_per_sm") is not None])
            for label, run in sbplot.split_runs([r for r in rows if r["family"] == "pipeline"])]
    runs = [(label, hm) for label, hm in runs if hm]
    if not runs:
        return None
    fig, ax = plt.subplots(figsize=(8, 5.8), layout="constrained")
    for i, (run_label, hm) in enumerate(runs):
        style = sbplot.run_style(i)
        for v in [_base(), *_pipelined()]:
            pts = sorted((r["bytes_in_flight_per_sm"], r["pct_of_copy"]) for r in hm
                         if r["variant"] == v)
            if not pts:
                continue
            ax.scatter([p[0] / 1024 for p in pts], [p[1] for p in pts], s=12, color=_color(v),
                       alpha=0.6, marker=style["marker"])
            # Upper envelope: the best any configuration reached with at most x.
            env, top = [], 0.0
            for x, y in pts:
                top = max(top, y)
                env.append((x / 1024, top))
            ax.step([e[0] for e in env], [e[1] for e in env], where="post", color=_color(v),
                    ls=style["ls"], label=sbplot.with_run(v, run_label))
    ax.axhline(GOOD_PCT, color="k", ls="--", lw=0.7)
    kib = sorted({r["bytes_in_flight_per_sm"] / 1024 for _, hm in runs for r in hm})
    ax.set_xscale("log", base=2)
    sbplot.x_at_data(ax, [k for k in kib if k == int(k) and int(k) & (int(k) - 1) == 0])
    ax.set_xlabel("stages x buffer_bytes x resident blocks per SM (KiB)")
    ax.set_ylabel("% of device-to-device copy bandwidth")
    ax.set_ylim(0, 105)
    ax.grid(alpha=0.3)
    sbplot.legend_outside(fig, [ax], ncol=3)
    fig.suptitle(f"Bytes in flight per SM at intensity 0 (line: best so far)\n"
                 f"{sbplot.runs_title(runs)}", fontsize=10)
    return _save(fig, outdir, "pipeline_in_flight.png")


def plot(rows, outdir):
    os.makedirs(outdir, exist_ok=True)
    return [p for p in (plot_heatmap(rows, outdir), plot_intensity(rows, outdir),
                        plot_in_flight(rows, outdir)) if p]


if __name__ == "__main__":
    import argparse

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
    import sbcsv

    ap = argparse.ArgumentParser(description="pipeline and pipeline_intensity plots "
                                 "(heatmap, intensity, bytes in flight) and their summary")
    ap.add_argument("csv")
    ap.add_argument("--outdir", default=".")
    a = ap.parse_args()
    data = sbcsv.read_or_exit(a.csv, "plot_pipeline.py")
    for p in plot(data, a.outdir):
        print(p)
    for key, value in summary(data).items():
        print(f"{key}: {value}")
