#!/usr/bin/env python3
"""Writes results/<gpu>/REPORT.md for each GPU's results, and
results/CROSS_GPU.md when there are several GPUs.

    python scripts/report.py [CSV ...] [--results DIR]

Without CSVs it reads DIR/*/latest.csv (DIR defaults to results). Each CSV
must come from a different GPU; its report goes to DIR/<gpu-slug>/REPORT.md.

A report gives, per family, a winners table: for each shape (every axis but
the variant) the fastest variant by median time, how much slower the
runner-up is, and whether the gap is beyond noise (the two interquartile
ranges do not overlap). It embeds DIR/<gpu-slug>/plots/*.png. The
cross-GPU report puts the GPUs side by side: winners per shape, geometric
mean time ratios, points that are not ok on every GPU, and the plots in
DIR/plots/ (make report draws them with scripts/plot.py).

Exit status: 0 written, 1 a report could not be written, 2 unusable input
(the message names file, line and column).
"""
from __future__ import annotations

import argparse
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import sbcompare  # noqa: E402
import sbcsv  # noqa: E402
import sbvariants  # noqa: E402

from sbcompare import fmt_axis, fmt_us, render_table  # noqa: E402

HOW_TO_READ = (
    "Each row is one shape: every axis but the variant. The winner is the "
    "variant with the lowest median time among those with status ok; "
    "*margin* is how much slower the runner-up is; *beyond noise* is yes when "
    "the winner's q3 is below the runner-up's q1, so their interquartile "
    "ranges do not overlap. *Not ok* lists variants that did not run or "
    "failed at this shape.")


# ------------------------------------------------------------ per GPU

def copy_gbps(run):
    """The run's device-to-device copy bandwidth: the 100% of pct_of_copy."""
    rates = [r["gbps"] for r in run.rows
             if sbvariants.is_yardstick_row(r) and r["status"] == "ok" and r.get("gbps")]
    return max(rates) if rates else None


def status_counts(rows):
    counts = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))


def families(rows):
    """Family names in CSV order, the copy reference left out."""
    return [f for f in dict.fromkeys(r["family"] for r in rows) if not sbvariants.is_yardstick(f)]


def yes_no(value):
    return "" if value is None else ("yes" if value else "no")


def fmt_margin(margin):
    return "" if margin is None else f"{margin * 100:.1f}%"


def not_ok_cell(shape):
    return ", ".join(f"{r['variant']}: {r['status']}" for r in shape.not_ok)


def winners_table(family_shapes):
    axes = [a for a in sbcompare.axis_columns() if any(a in s.axes for s in family_shapes)]
    headers = [*axes, "winner", "median us", "runner-up", "runner-up us", "margin",
               "beyond noise", "not ok"]
    rows = []
    for s in family_shapes:
        w, r = s.winner, s.runner_up
        rows.append([*(fmt_axis(s.axes.get(a)) for a in axes),
                     w["variant"] if w else "(none ok)", fmt_us(w["median_us"]) if w else "",
                     r["variant"] if r else "", fmt_us(r["median_us"]) if r else "",
                     fmt_margin(s.margin), yes_no(s.beyond_noise), not_ok_cell(s)])
    return render_table(headers, rows, markdown=True)


def win_counts(family_shapes):
    """'pingpong wins 3 of 24 shapes (2 beyond noise)' per winning variant."""
    wins = {}
    for s in family_shapes:
        if s.winner:
            total, clear = wins.get(s.winner["variant"], (0, 0))
            wins[s.winner["variant"]] = (total + 1, clear + bool(s.beyond_noise))
    ranked = sorted(wins.items(), key=lambda kv: -kv[1][0])
    return "; ".join(f"**{v}** wins {n} of {len(family_shapes)} shapes ({c} beyond noise)"
                     for v, (n, c) in ranked) or "no variant ran ok"


def plot_family(filename, names):
    """The family a plot belongs to: plot.py names them <family>[_what].png;
    the longest matching family name wins (scan vs scan_tiled)."""
    stem = os.path.splitext(filename)[0]
    matches = [f for f in names if stem == f or stem.startswith(f + "_")]
    return max(matches, key=len) if matches else None


def plots_by_family(plot_dir, names):
    """{family or None: [png file names]}, sorted."""
    out = {}
    for path in sorted(glob.glob(os.path.join(plot_dir, "*.png"))):
        name = os.path.basename(path)
        out.setdefault(plot_family(name, names), []).append(name)
    return out


def plot_links(names, rel_dir):
    return [f"![{os.path.splitext(n)[0]}]({rel_dir}/{n})" for n in names]


def shown_path(path, report_dir):
    """Relative to the report when the CSV sits beside it, else as given."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(report_dir))
    return path if rel.startswith("..") else rel


def header_lines(run, report_dir):
    gbps = copy_gbps(run)
    p = run.provenance
    return [
        f"# syncbench report: {run.gpu_name}", "",
        render_table(["", ""], [
            ["GPU", f"{run.gpu_name} (cc {p('cc')}, {p('sm_count')} SMs)"],
            ["driver / CUDA", f"{p('driver')} / {p('cuda')}"],
            ["commit", f"`{p('commit')}`"],
            ["run (UTC)", p("run_utc")],
            ["source", f"`{shown_path(run.path, report_dir)}` "
                       f"({len(run.rows)} rows: {status_counts(run.rows)})"],
            ["device-to-device copy",
             f"{gbps:.2f} GB/s (the 100% of pct_of_copy)" if gbps else "not measured"],
        ], markdown=True), "",
        "Written by `scripts/report.py` (`make report`); do not edit by hand.", ""]


def speedup_table(name, family_shapes, variants):
    """Per shape, how many times faster each variant is than the family's
    baseline (baseline median / variant median); None without a baseline.
    variants: the family's variants in CSV order."""
    baseline = sbvariants.baseline(name)
    if baseline not in variants:
        return None
    axes = [a for a in sbcompare.axis_columns() if any(a in s.axes for s in family_shapes)]
    others = [v for v in variants if v != baseline]
    rows = []
    for shape in family_shapes:
        times = {r["variant"]: r["median_us"] for r in shape.ranked}
        base = times.get(baseline)
        cells = [f"{base / times[v]:.2f}x" if base and v in times else "-" for v in others]
        rows.append([fmt_axis(shape.axes.get(a)) for a in axes] +
                    [fmt_us(base) if base else "-"] + cells)
    headers = axes + [f"{baseline} us"] + [f"{v}" for v in others]
    return (f"Speedup over `{baseline}` (its median time / the variant's; "
            f">1 is faster, - is not ok):\n\n" + render_table(headers, rows, markdown=True))


def composition_table(rows):
    """A composed family's variants by part (sbcsv.COMPOSITION: gemm's
    mainloop, consumer, schedule, epilogue): per value of each part, how many
    variants and ok points have it, the median and the best % of the paired
    ceiling over those points, and where the best was; None for a family
    whose rows name no parts or carry no paired ratio."""
    ok = [r for r in rows if r["status"] == "ok" and r.get("mainloop") and r.get("pct_of_cublas")]
    if not ok:
        return None
    table = []
    for part in sbcsv.COMPOSITION:
        for value in sorted({r[part] for r in ok if r.get(part)}):
            have = [r for r in ok if r.get(part) == value]
            best = max(have, key=lambda r: r["pct_of_cublas"])
            shape = " x ".join(str(best[a]) for a in ("m", "n", "k")) + (f", {best['tile']}" if best.get("tile") else "")
            table.append([part, f"`{value}`", str(len({r['variant'] for r in have})), str(len(have)),
                          f"{statistics.median(r['pct_of_cublas'] for r in have):.1f}",
                          f"{best['pct_of_cublas']:.1f} (`{best['variant']}`, {shape})"])
    return ("By part of the composition (every ok point whose variant has that part; % of the paired "
            "ceiling, higher is better):\n\n" +
            render_table(["part", "value", "variants", "points", "median %", "best % (variant, shape)"],
                         table, markdown=True))


def family_section(name, family_shapes, plots, variants, rows=()):
    out = [f"## {name}", "", win_counts(family_shapes) + ".", "",
           winners_table(family_shapes), ""]
    speedups = speedup_table(name, family_shapes, variants)
    if speedups:
        out += [speedups, ""]
    parts = composition_table(rows)
    if parts:
        out += [parts, ""]
    if plots and not any(s.winner for s in family_shapes):
        out += ["No plot: no point of this family ran ok (a PNG of it in plots/ is another run's).", ""]
    elif plots:
        out += plot_links(plots, "plots") + [""]
    return out


def gpu_report(run, report_dir):
    """REPORT.md text for one run."""
    all_shapes = sbcompare.shapes(run.rows)
    names = families(run.rows)
    plots = plots_by_family(os.path.join(report_dir, "plots"), names)
    out = header_lines(run, report_dir) + [HOW_TO_READ, ""]
    for name in names:
        variants = list(dict.fromkeys(r["variant"] for r in run.rows if r["family"] == name))
        out += family_section(name, [s for s in all_shapes if s.family == name], plots.get(name),
                              variants, [r for r in run.rows if r["family"] == name])
    leftovers = [n for f, ns in plots.items() if f not in names for n in ns]
    if leftovers:
        out += ["## Other plots", ""] + plot_links(leftovers, "plots") + [""]
    return "\n".join(out)


# ------------------------------------------------------------ across GPUs

def gpus_table(runs, results_dir):
    rows = []
    for run in runs:
        slug = sbcsv.gpu_slug(run.gpu_name)
        gbps = copy_gbps(run)
        rows.append([f"[{run.gpu_name}]({slug}/REPORT.md)", run.provenance("cc"),
                     run.provenance("sm_count"), f"{gbps:.0f}" if gbps else "",
                     f"`{run.provenance('commit')}`", run.provenance("run_utc"),
                     status_counts(run.rows)])
    return render_table(["GPU", "cc", "SMs", "copy GB/s", "commit", "run (UTC)", "rows"],
                        rows, markdown=True)


def winner_cell(shape):
    if shape is None:
        return "(absent)"
    if shape.winner is None:
        return "(none ok)"
    if shape.runner_up is None:
        return shape.winner["variant"]
    noise = "" if shape.beyond_noise else ", within noise"
    return f"{shape.winner['variant']} (+{fmt_margin(shape.margin)}{noise})"


def cross_winners(runs, family):
    """Shape -> winner on each GPU, and whether they agree."""
    per_gpu = [{s.key: s for s in sbcompare.shapes(run.rows) if s.family == family}
               for run in runs]
    keys = sorted({k for shapes in per_gpu for k in shapes},
                  key=lambda k: [sbcompare.sort_value(v) for v in k[1:]])
    any_shape = lambda k: next(s[k] for s in per_gpu if k in s)  # noqa: E731
    axes = [a for a in sbcompare.axis_columns() if any(a in any_shape(k).axes for k in keys)]
    rows = []
    for k in keys:
        cells = [winner_cell(shapes.get(k)) for shapes in per_gpu]
        rows.append([*(fmt_axis(any_shape(k).axes.get(a)) for a in axes), *cells,
                     same_winner([shapes.get(k) for shapes in per_gpu])])
    return render_table([*axes, *(r.gpu_name for r in runs), "same winner"], rows, markdown=True)


def co_winners(shape):
    """The winner and every variant within noise of it: median within
    sbcompare.VARIANT_SHIFT (the measured run-to-run noise) or an
    interquartile range that overlaps the winner's."""
    w = shape.winner
    return {r["variant"] for r in shape.ranked
            if r["median_us"] <= w["median_us"] * (1 + sbcompare.VARIANT_SHIFT)
            or r["q1_us"] <= w["q3_us"]}


def same_winner(shapes):
    """yes, 'yes (within noise)' when the winners differ by no more than
    noise (some variant is a co-winner on every GPU), no, or n/a when a GPU
    lacks the shape or has no ok variant there."""
    if any(s is None or s.winner is None for s in shapes):
        return "n/a"
    if len({s.winner["variant"] for s in shapes}) == 1:
        return "yes"
    common = set.intersection(*(co_winners(s) for s in shapes))
    return "yes (within noise)" if common else "no"


def ratio_table(runs):
    """Geometric mean time and pct_of_copy ratios of each GPU against the first."""
    base = runs[0]
    headers, columns = ["family", "variant"], []
    for other in runs[1:]:
        cmp = sbcompare.compare(base, other)
        headers += [f"{other.gpu_name} time ratio", f"{other.gpu_name} pct_of_copy ratio"]
        columns.append((sbcompare.geomeans(cmp.matches, sbcompare.by_variant),
                        sbcompare.geomeans([m for m in cmp.matches if m.figure_ratio("pct_of_copy")],
                                           sbcompare.by_variant,
                                           lambda m: m.figure_ratio("pct_of_copy"))))
    groups = list(dict.fromkeys(g for times, _ in columns for g in times))
    rows = [[*g, *(cell for times, pct in columns
                   for cell in (sbcompare.fmt_ratio(times.get(g)), sbcompare.fmt_ratio(pct.get(g))))]
            for g in groups]
    return render_table(headers, rows, markdown=True)


def uneven_points(runs):
    """Points that are not ok (or absent) on at least one GPU, with each
    GPU's status: the unsupported rows, accounted for."""
    keys = list(dict.fromkeys(k for run in runs for k in run.by_key))
    rows = []
    for k in keys:
        found = [run.by_key.get(k) for run in runs]
        if all(r is not None and r["status"] == "ok" for r in found):
            continue
        any_row = next(r for r in found if r is not None)
        rows.append([sbcompare.describe_point(any_row),
                     *(r["status"] if r else "(absent)" for r in found),
                     next((r["detail"] for r in found if r and r.get("detail")), "")])
    return rows


def cross_report(runs, results_dir):
    out = ["# syncbench across GPUs", "",
           "Written by `scripts/report.py` (`make report`); do not edit by hand.", "",
           gpus_table(runs, results_dir), ""]
    names = list(dict.fromkeys(f for run in runs for f in families(run.rows)))
    out += ["## Winners per shape", "",
            "Winner on each GPU, with the runner-up's margin (see each GPU's report "
            "for the full table).", ""]
    for name in names:
        out += [f"### {name}", "", cross_winners(runs, name), ""]
    out += [f"## Geometric mean ratios against {runs[0].gpu_name}", "",
            "Time ratio above 1: slower than the first GPU. pct_of_copy ratio above 1: "
            "closer to that GPU's own copy bandwidth.", "", ratio_table(runs), ""]
    uneven = uneven_points(runs)
    out += [f"## Points not ok on every GPU ({len(uneven)})", ""]
    out += [render_table(["point", *(r.gpu_name for r in runs), "detail"], uneven, markdown=True)
            if uneven else "(none: every point ran ok on every GPU)", ""]
    plots = sorted(glob.glob(os.path.join(results_dir, "plots", "*.png")))
    if plots:
        out += ["## Plots", ""] + plot_links([os.path.basename(p) for p in plots], "plots") + [""]
    return "\n".join(out)


# ------------------------------------------------------------ main

def load_runs(paths):
    """One run per GPU, sorted by slug. Raises sbcsv.CsvError."""
    runs = {}
    for path in paths:
        run = sbcompare.load_run(path)
        slug = sbcsv.gpu_slug(run.gpu_name)
        if slug in runs:
            raise sbcsv.CsvError(
                f"{path}:{run.first_line}: column 'gpu_name': '{run.gpu_name}' again "
                f"(already from {runs[slug].path}); give one CSV per GPU")
        runs[slug] = run
    return [runs[s] for s in sorted(runs)]


def write(path, text):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    sbcsv.write_atomically(path, text)
    print(f"report.py: wrote {path}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="*", help="CSVs, one per GPU (default: DIR/*/latest.csv)")
    ap.add_argument("--results", default="results", metavar="DIR",
                    help="where reports go: DIR/<gpu>/REPORT.md, DIR/CROSS_GPU.md")
    args = ap.parse_args(argv)
    paths = args.csv or sorted(glob.glob(os.path.join(args.results, "*", "latest.csv")))
    if not paths:
        print(f"report.py: no CSV given and no {args.results}/*/latest.csv", file=sys.stderr)
        return 2
    try:
        runs = load_runs(paths)
    except sbcsv.CsvError as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    try:
        for run in runs:
            report_dir = os.path.join(args.results, sbcsv.gpu_slug(run.gpu_name))
            write(os.path.join(report_dir, "REPORT.md"), gpu_report(run, report_dir))
        if len(runs) > 1:
            write(os.path.join(args.results, "CROSS_GPU.md"), cross_report(runs, args.results))
    except OSError as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
