#!/usr/bin/env python3
"""The flag hand-off between SMs, probe by probe: where the latency comes from.

    scripts/plot_handoff.py MAP.csv [MAP.csv ...] --out DIR

MAP.csv (or .csv.xz) is what `SB_HANDOFF_MAP=MAP.csv syncbench --filter '^barrier/flag_handoff'`
appends: one line per probe of a sweep row (variant, block_threads, probe,
sm_a, sm_b, place, cycles_per_op, gpu_uuid, commit). Writes DIR/handoff_map.png,
a row of panels per variant:

  by SM       one-way cycles of SM 0 with every other SM (x: the other SM),
              one marker per flag place, and the pairs across the chip (x: the
              SM of side a), so a slow SM or a slow region shows as a column
  by place    one-way cycles by the flag's 2 MiB page (x: page), every probe
              of that page, so a slow page or L2 slice shows as a column

The row's gated figure is the mean over the probes (the dashed line).
Each process that wrote a map is one run; runs are drawn over each other.
A malformed map gets one line naming the file and the problem, exit 2.
"""
from __future__ import annotations

import argparse
import csv
import lzma
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import sbplot  # noqa: E402
from sbplot import plt  # noqa: E402

COLUMNS = ("variant", "block_threads", "probe", "sm_a", "sm_b", "place", "cycles_per_op")
PAGE = 2 << 20  # the flag area's pages (kernels/families/barrier_layout.h: SB_HANDOFF_PAGE)


class MapError(ValueError):
    pass


def read_map(path):
    """Rows of one map: dicts with ints and a float cycles_per_op."""
    try:
        opener = lzma.open if path.endswith(".xz") else open
        with opener(path, "rt", newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise MapError(f"{path}: not a hand-off map (no column {', '.join(missing)})")
            rows = []
            for n, r in enumerate(reader, start=2):
                try:
                    rows.append({"variant": r["variant"], "block_threads": int(r["block_threads"]),
                                 "probe": int(r["probe"]), "sm_a": int(r["sm_a"]), "sm_b": int(r["sm_b"]),
                                 "place": int(r["place"]), "cycles": float(r["cycles_per_op"]),
                                 "run": path})
                except (TypeError, ValueError):
                    raise MapError(f"{path}:{n}: a cell is not a number: {r}") from None
    except (OSError, lzma.LZMAError) as e:
        raise MapError(f"{path}: {getattr(e, 'strerror', None) or e}") from None
    if not rows:
        raise MapError(f"{path}: no probes")
    return rows


def sweeps(rows):
    """(variant, block_threads, run) -> its probes, in the maps' order."""
    out = {}
    for r in rows:
        out.setdefault((r["variant"], r["block_threads"], r["run"]), []).append(r)
    return out


def plot(rows, outdir):
    """Writes handoff_map.png (one sweep per variant: the smallest block size
    of each run, the figure does not depend on it); returns its path."""
    by = sweeps(rows)
    variants = sorted({v for v, _, _ in by})
    fig, axes = plt.subplots(len(variants), 2, figsize=(11, 3.2 * len(variants)), squeeze=False)
    for i, variant in enumerate(variants):
        keys = sorted(k for k in by if k[0] == variant)
        runs = sorted({k[2] for k in keys})
        ax_sm, ax_place = axes[i]
        for j, run in enumerate(runs):
            block = min(k[1] for k in keys if k[2] == run)
            probes = by[(variant, block, run)]
            color = f"C{j}"
            with0 = [p for p in probes if p["sm_a"] == min(q["sm_a"] for q in probes)]
            across = [p for p in probes if p not in with0]
            tag = f" (run {j + 1})" if len(runs) > 1 else ""
            ax_sm.plot([p["sm_b"] for p in with0], [p["cycles"] for p in with0], ls="none", marker=".",
                       color=color, label=f"SM 0 with SM x{tag}")
            ax_sm.plot([p["sm_a"] for p in across], [p["cycles"] for p in across], ls="none", marker="x",
                       color=color, alpha=0.6, label=f"across the chip, from SM x{tag}")
            ax_place.plot([p["place"] // PAGE for p in probes], [p["cycles"] for p in probes], ls="none",
                          marker=".", color=color, label=f"every probe{tag}")
            mean = statistics.fmean(p["cycles"] for p in probes)
            for ax in (ax_sm, ax_place):
                ax.axhline(mean, ls="--", lw=0.8, color=color)
        ax_sm.set_title(f"{variant}: by SM pair")
        ax_sm.set_xlabel("SM")
        ax_place.set_title(f"{variant}: by the flag's 2 MiB page")
        ax_place.set_xlabel("page of the flag area")
        for ax in (ax_sm, ax_place):
            ax.set_ylabel("cycles, one way")
            ax.legend(fontsize=7)
    fig.suptitle("Flag hand-off between SMs, per probe (dashed: the mean, the row's figure)")
    os.makedirs(outdir, exist_ok=True)
    return sbplot.save(fig, os.path.join(outdir, "handoff_map.png"))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("maps", nargs="+", help="SB_HANDOFF_MAP files")
    ap.add_argument("--out", required=True, help="directory for handoff_map.png")
    a = ap.parse_args(argv)
    try:
        rows = [r for path in a.maps for r in read_map(path)]
    except MapError as e:
        print(f"plot_handoff: {e}", file=sys.stderr)
        return 2
    print(plot(rows, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
