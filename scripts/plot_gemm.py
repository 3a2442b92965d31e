"""Plots and headline figures for the gemm family. Rows come from
sbcsv.read (typed, None for empty); several CSVs (GPUs) may be mixed.

    plot(rows, outdir)   writes gemm_tflops.png (TFLOP/s against the shape,
                         one line per variant at its best tile and stages,
                         cuBLAS as a black line, one line style per GPU) and
                         gemm_pct_of_cublas.png (stages x variant heatmap of
                         pct_of_cublas at 4096^3, one panel per GPU) and
                         gemm_pct_vs_k_ratio.png (best pct_of_cublas per
                         variant against K / (M N), when the rows have more
                         than one ratio: where split-K / stream-K pay)
    summary(rows)        per GPU: cuBLAS TFLOP/s and the best other variant's
                         pct_of_cublas at 4096^3
Run directly: python3 scripts/plot_gemm.py results.csv [more.csv] [--outdir DIR]
"""
from __future__ import annotations

import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sbcsv  # noqa: E402

CEILING = "cublas"
ORDER = ["single", "swap", "ring", "ws_mbarrier", "ws_tma", "ws_tma_wgmma",
         "splitk_serial", "splitk_parallel", "streamk"]
COLORS = {"single": "tab:gray", "swap": "tab:blue", "ring": "tab:green",
          "ws_mbarrier": "tab:orange", "ws_tma": "tab:red", "ws_tma_wgmma": "tab:purple",
          "splitk_serial": "tab:olive", "splitk_parallel": "tab:cyan", "streamk": "tab:pink",
          CEILING: "black"}
LINESTYLES = ["-", "--", ":", "-."]
HEATMAP_SIZE = 4096  # M = N = K of the heatmap (the Triton reference shape)
TARGET_PCT = 70.0    # the family's target: best non-cuBLAS variant at 4096^3


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
    path = os.path.join(outdir, name)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_tflops(rows, outdir):
    ok = _ok(rows)
    shapes = _shapes(ok)
    fig, ax = plt.subplots(figsize=(8, 5))
    for g, gpu in enumerate(_gpus(ok)):
        style = LINESTYLES[g % len(LINESTYLES)]
        for v in [CEILING, *ORDER]:
            pts = [(i, best(ok, gpu, v, s)) for i, s in enumerate(shapes)]
            pts = [(i, r["gflops"] / 1000) for i, r in pts if r]
            if not pts:
                continue
            xs, ys = zip(*pts)
            ax.plot(xs, ys, style, marker="o", color=COLORS.get(v, "tab:brown"),
                    linewidth=2.5 if v == CEILING else 1.5,
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
    ax.legend(fontsize=8, ncol=2)
    return _save(fig, outdir, "gemm_tflops.png")


def heatmap(rows, gpu, size=HEATMAP_SIZE):
    """{(variant, stages): best pct_of_cublas over tiles} at size^3 on gpu."""
    cells = {}
    for r in _ok(rows):
        if (r["gpu_name"] != gpu or r["variant"] == CEILING or _shape(r) != (size, size)
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
        variants = [v for v in ORDER if any(k[0] == v for k in cells)]
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


def plot_k_ratio(rows, outdir):
    """Best pct_of_cublas per variant (any tile, stages, splits) against
    K / (M N), log scale; None when the rows have a single ratio."""
    ok = [r for r in _ok(rows) if r["variant"] != CEILING and r.get("pct_of_cublas") is not None]
    shapes = sorted({_shape(r) for r in ok}, key=lambda s: s[1] / (s[0] * s[0]))
    if len({s[1] / (s[0] * s[0]) for s in shapes}) < 2:
        return None
    fig, ax = plt.subplots(figsize=(8, 5))
    gpus = _gpus(ok)
    for g, gpu in enumerate(gpus):
        style = LINESTYLES[g % len(LINESTYLES)]
        for v in ORDER:
            pts = []
            for s in shapes:
                cand = [r["pct_of_cublas"] for r in ok if r["gpu_name"] == gpu and r["variant"] == v
                        and _shape(r) == s]
                if cand:
                    pts.append((s[1] / (s[0] * s[0]), max(cand)))
            if not pts:
                continue
            xs, ys = zip(*pts)
            ax.plot(xs, ys, style, marker="o", color=COLORS.get(v, "tab:brown"),
                    label=f"{v} ({gpu})" if len(gpus) > 1 else v)
    ax.set_xscale("log")
    ax.axhline(100, color="black", linewidth=1)
    ax.set_xlabel("K / (M N)  (M = N; higher: fewer output tiles per MAC)")
    ax.set_ylabel("% of cuBLAS (best tile, stages, splits)")
    ax.set_title("gemm: % of cuBLAS against K / (M N)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
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
        ceiling = best(ok, gpu, CEILING, (HEATMAP_SIZE, HEATMAP_SIZE))
        others = [r for r in ok if r["gpu_name"] == gpu and r["variant"] != CEILING
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
