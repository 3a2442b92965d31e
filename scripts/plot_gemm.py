"""Plots and headline figures for the gemm family. Rows come from
sbcsv.read (typed, None for empty); several CSVs (GPUs) may be mixed.

    plot(rows, outdir)   writes gemm_tflops.png (TFLOP/s against the shape,
                         one line per variant at its best tile and stages,
                         cuBLAS as a black line, one line style per GPU) and
                         gemm_pct_of_cublas.png (stages x variant heatmap of
                         pct_of_cublas at 4096^3, one panel per GPU) and
                         gemm_pct_vs_k_ratio.png (% of cuBLAS against
                         K/(M*N), one line per variant)
    Variants, their order and the ceiling come from the table
    (sbvariants): a new gemm variant is drawn with no edit here.
    summary(rows)        per GPU: cuBLAS TFLOP/s and the best other variant's
                         pct_of_cublas at 4096^3
Run directly: python3 scripts/plot_gemm.py results.csv [more.csv] [--outdir DIR]
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import sbdeps  # noqa: E402,F401  (a missing package: one line and exit 2)
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import sbcsv  # noqa: E402

import sbplot  # noqa: E402
import sbvariants  # noqa: E402

FAMILY = "gemm"
LINESTYLES = ["-", "--", ":", "-."]
HEATMAP_SIZE = 4096  # M = N = K of the heatmap (the Triton reference shape)
TARGET_PCT = 70.0    # the family's target: best non-cuBLAS variant at 4096^3


def _ceiling():
    """The cuBLAS row: the variant the table flags `ceiling`."""
    return sbvariants.ceiling(FAMILY)


def _order(rows=()):
    """The other variants: table order, then any the table lacks."""
    names = sbvariants.ordered(FAMILY, [*sbvariants.variants(FAMILY), *(r["variant"] for r in rows)])
    return [v for v in names if v != _ceiling()]


def _color(v):
    return "black" if v == _ceiling() else sbvariants.color(FAMILY, v)


def _ok(rows):
    return [r for r in rows if r["family"] == "gemm" and r["status"] == "ok"
            and r.get("gflops") is not None]


def _gpus(rows):
    return list(dict.fromkeys(r["gpu_name"] for r in rows))


def _shape(r):
    return (r["m"], r["k"])


def _shape_label(shape):
    m, k = shape
    return f"{m}^3" if m == k else f"{m}^2x{k}"


def _shapes(rows):
    """Square shapes by size, then the others (K-heavy) by K."""
    shapes = set(_shape(r) for r in rows)
    return sorted(shapes, key=lambda s: (s[0] != s[1], s[0] if s[0] == s[1] else s[1]))


def best(rows, gpu, variant, shape):
    """The fastest ok row of a variant at one shape on one GPU (any tile,
    stages), or None."""
    cand = [r for r in _ok(rows) if r["gpu_name"] == gpu and r["variant"] == variant
            and _shape(r) == shape]
    return max(cand, key=lambda r: r["gflops"], default=None)


def _save(fig, outdir, name):
    """Through sbplot.save: what the figure drew is recorded for the tests."""
    return sbplot.save(fig, os.path.join(outdir, name))


def plot_tflops(rows, outdir):
    ok = _ok(rows)
    shapes = _shapes(ok)
    fig, ax = plt.subplots(figsize=(8, 6), layout="constrained")
    for g, gpu in enumerate(_gpus(ok)):
        style = LINESTYLES[g % len(LINESTYLES)]
        for v in [_ceiling(), *_order(ok)]:
            pts = [(i, best(ok, gpu, v, s)) for i, s in enumerate(shapes)]
            pts = [(i, r["gflops"] / 1000) for i, r in pts if r]
            if not pts:
                continue
            xs, ys = zip(*pts)
            ax.plot(xs, ys, style, marker="o", color=_color(v),
                    linewidth=2.5 if v == _ceiling() else 1.5,
                    label=f"{v} ({gpu})" if len(_gpus(ok)) > 1 else v)
    ax.set_xticks(range(len(shapes)))
    ax.set_xticklabels([_shape_label(s) for s in shapes])
    ax.set_xlabel("shape (M = N)")
    ax.set_ylabel("TFLOP/s (best tile and stages per variant)")
    gpus = _gpus(ok)
    names = (gpus[0] if len(gpus) == 1 else
             " vs ".join(f"{g} ({LINESTYLES[i % len(LINESTYLES)]})" for i, g in enumerate(gpus)))
    ax.set_title(f"gemm on {names}:\nfp16 in, fp32 accumulate, against cuBLAS")
    ax.grid(True, alpha=0.3)
    sbplot.legend_outside(fig, [ax], ncol=2)  # never over the lines
    return _save(fig, outdir, "gemm_tflops.png")


def heatmap(rows, gpu, size=HEATMAP_SIZE):
    """{(variant, stages): best pct_of_cublas over tiles} at size^3 on gpu."""
    cells = {}
    for r in _ok(rows):
        if (r["gpu_name"] != gpu or r["variant"] == _ceiling() or _shape(r) != (size, size)
                or r.get("pct_of_cublas") is None):
            continue
        key = (r["variant"], r["stages"])
        cells[key] = max(cells.get(key, 0.0), r["pct_of_cublas"])
    return cells


def plot_heatmap(rows, outdir):
    gpus = [g for g in _gpus(_ok(rows)) if heatmap(rows, g)]
    if not gpus:
        return None
    fig, axes = plt.subplots(1, len(gpus), figsize=(7 * len(gpus), 4.5), squeeze=False,
                             constrained_layout=True)
    for ax, gpu in zip(axes[0], gpus):
        cells = heatmap(rows, gpu)
        variants = [v for v in _order(rows) if any(k[0] == v for k in cells)]
        stages = sorted({k[1] for k in cells})
        grid = [[cells.get((v, s), float("nan")) for s in stages] for v in variants]
        im = ax.imshow(grid, cmap="viridis", vmin=0, vmax=100, aspect="auto")
        for i, v in enumerate(variants):
            for j, s in enumerate(stages):
                if (v, s) in cells:
                    ax.text(j, i, f"{cells[(v, s)]:.0f}", ha="center", va="center",
                            color="white" if cells[(v, s)] < 60 else "black", fontsize=9)
        ax.set_xticks(range(len(stages)))
        ax.set_xticklabels([str(s) for s in stages])
        ax.set_yticks(range(len(variants)))
        ax.set_yticklabels(variants)
        ax.set_xlabel("stages")
        ax.set_title(f"{gpu}: % of cuBLAS at {HEATMAP_SIZE}^3")
        fig.colorbar(im, ax=ax, label="pct_of_cublas")
    return _save(fig, outdir, "gemm_pct_of_cublas.png")


def k_ratio_points(rows, gpu, variant):
    """[(K/(M*N), best pct_of_cublas over tiles and stages)] of one variant
    on one GPU, a point per shape m x n x k (n = m but where --n was given),
    sorted by the ratio: two shapes of one ratio are two points."""
    best_at = {}
    for r in _ok(rows):
        if r["gpu_name"] == gpu and r["variant"] == variant and r.get("pct_of_cublas") is not None:
            shape = (r["m"], r.get("n") or r["m"], r["k"])
            best_at[shape] = max(best_at.get(shape, 0.0), r["pct_of_cublas"])
    return sorted((k / (m * n), pct) for (m, n, k), pct in best_at.items())


def offsweep_rows(rows, outdir):
    """The off-sweep proof of the same run's commit, when it is committed
    beside the plots (results/<gpu>/proofs/offsweep_<commit>/gemm.csv: the
    shapes outside the default sweep, issue 29), else []."""
    commits = {str(r.get("commit") or "")[:7] for r in rows} - {""}
    found = []
    for c in sorted(commits):
        path = os.path.join(outdir, os.pardir, "proofs", f"offsweep_{c}", "gemm.csv")
        if os.path.exists(path):
            found += [r for r in sbcsv.read(path) if r.get("family") == "gemm"]
    return found


def plot_k_ratio(rows, outdir):
    """% of cuBLAS against K/(M*N): where split-K and stream-K should win
    (a long K on a small C) is to the right. One line per variant; with the
    off-sweep proof shapes of the same commit when they are committed."""
    extra = offsweep_rows(rows, outdir)
    ok = _ok(list(rows) + extra)
    gpus = _gpus(ok)
    fig, ax = plt.subplots(figsize=(8, 6), layout="constrained")
    drawn = False
    for g, gpu in enumerate(gpus):
        for v in _order(ok):
            pts = k_ratio_points(ok, gpu, v)
            if len(pts) < 2:
                continue
            xs, ys = zip(*pts)
            ax.plot(xs, ys, LINESTYLES[g % len(LINESTYLES)], marker="o", color=_color(v),
                    label=f"{v} ({gpu})" if len(gpus) > 1 else v)
            drawn = True
    if not drawn:
        plt.close(fig)
        return None
    ax.set_xscale("log", base=2)
    ax.set_xlabel("K / (M*N)  (N = M)")
    ax.set_ylabel("% of cuBLAS (best tile and stages)")
    ax.axhline(100, color="black", lw=1)
    proofs = " + off-sweep proof shapes" if extra else ""
    ax.set_title(f"gemm: % of cuBLAS against the K-to-output ratio{proofs}\n{' vs '.join(gpus)}")
    ax.grid(True, alpha=0.3)
    sbplot.legend_outside(fig, [ax], ncol=2)  # never over the lines
    return _save(fig, outdir, "gemm_pct_vs_k_ratio.png")


def plot(rows, outdir):
    ok = _ok(rows)
    if not ok:
        return []
    paths = [plot_tflops(rows, outdir)]
    for extra in (plot_heatmap(rows, outdir), plot_k_ratio(rows, outdir)):
        if extra:
            paths.append(extra)
    return paths


def summary(rows):
    """Per GPU: cuBLAS TFLOP/s at 4096^3, the best other row and whether it
    reaches the 70% target."""
    out = {}
    ok = _ok(rows)
    for gpu in _gpus(ok):
        ceiling = best(ok, gpu, _ceiling(), (HEATMAP_SIZE, HEATMAP_SIZE))
        others = [r for r in ok if r["gpu_name"] == gpu and r["variant"] != _ceiling()
                  and _shape(r) == (HEATMAP_SIZE, HEATMAP_SIZE) and r.get("pct_of_cublas") is not None]
        top = max(others, key=lambda r: r["pct_of_cublas"], default=None)
        out[gpu] = {
            "cublas_tflops": ceiling["gflops"] / 1000 if ceiling else None,
            "best_variant": top["variant"] if top else None,
            "best_tile": top.get("tile") if top else None,
            "best_stages": top["stages"] if top else None,
            "best_pct_of_cublas": top["pct_of_cublas"] if top else None,
            "meets_target": bool(top and top["pct_of_cublas"] >= TARGET_PCT),
        }
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--outdir", default=".")
    args = ap.parse_args(argv)
    try:
        rows = [r for p in args.csv for r in sbcsv.read(p)]
    except sbcsv.CsvError as e:
        print(f"plot_gemm.py: {e}", file=sys.stderr)
        return 2
    os.makedirs(args.outdir, exist_ok=True)
    for p in plot(rows, args.outdir):
        print(f"plot_gemm.py: wrote {p}")
    for gpu, s in summary(rows).items():
        print(f"{gpu}: {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
