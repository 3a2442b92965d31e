#!/usr/bin/env python3
"""Compares syncbench CSVs point by point, across runs or across GPUs, and
gates regressions in CI.

    python scripts/compare.py BASE.csv NEW.csv [MORE.csv ...] [--markdown]
    python scripts/compare.py --gate BASE.csv NEW.csv [--threshold 5] [--summary FILE]

Points are joined on family, variant and every axis. For each point the
time ratio new/base is printed, then geometric means per family and per
variant, then the points present (or ok) on one side only. With more than
two CSVs, each is compared with the first. When the GPU names differ
(cross-GPU mode) normalized figures (pct_of_copy, cycles_per_op) are
compared as well.

--gate (two CSVs of one GPU model): a point regresses when its median is
more than --threshold percent slower AND new q1 > base q3 (the
interquartile ranges do not overlap). A point ok in base but not ok in new
(wrong, error, ...) or missing from new fails the gate too. The Markdown
summary goes to --summary FILE, or to stdout. See docs/REGRESSIONS.md.

Exit status: 0 no regression, 1 regressions (gate only), 2 unusable input
(the message names file, line and column).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sbcompare  # noqa: E402
import sbcsv  # noqa: E402

EXIT_OK, EXIT_REGRESSION, EXIT_UNUSABLE = 0, 1, 2


class UsageError(Exception):
    """Input that parses but cannot be compared as asked."""


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+", help="syncbench CSV files; the first is the base")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    ap.add_argument("--gate", action="store_true",
                    help="regression gate: exit 1 when BASE -> NEW regresses")
    ap.add_argument("--threshold", type=threshold_pct,
                    default=sbcompare.DEFAULT_THRESHOLD * 100,
                    help="slowdown in percent a regression must exceed (default 5)")
    ap.add_argument("--summary", metavar="FILE",
                    help="with --gate: write the Markdown summary here (default stdout)")
    ap.add_argument("--allow-missing", action="store_true",
                    help="with --gate: points of base absent from new do not fail the gate")
    ap.add_argument("--sensitivity", action="store_true",
                    help="for an A/A pair: per variant, the slowdown the gate would flag")
    ap.add_argument("--plots", metavar="DIR",
                    help="also draw one plot set of all CSVs into DIR (scripts/plot.py)")
    args = ap.parse_args(argv)
    if len(args.csv) < 2:
        ap.error("give at least two CSV files")
    if args.gate and len(args.csv) != 2:
        ap.error("--gate compares exactly two CSV files: BASE NEW")
    if (args.summary or args.allow_missing) and not args.gate:
        ap.error("--summary and --allow-missing go with --gate")
    return args


def threshold_pct(text):
    """'5' or '5%' -> 5.0; a threshold is a non-negative percentage."""
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a percentage") from None
    if not 0 <= value < 1000:
        raise argparse.ArgumentTypeError(f"{text}: a threshold is between 0 and 1000 percent")
    return value


def check_gate_input(cmp):
    """The gate needs one GPU model and something in common."""
    if cmp.cross_gpu:
        raise UsageError(
            f"{cmp.new.path}:{cmp.new.first_line}: column 'gpu_name': '{cmp.new.gpu_name}', but "
            f"{cmp.base.path} ran on '{cmp.base.gpu_name}'; the gate compares runs of one GPU "
            f"model (compare them without --gate)")
    if not cmp.matches:
        raise UsageError(f"{cmp.new.path}:{cmp.new.first_line}: column 'family': no point is ok "
                         f"in both {cmp.base.path} and {cmp.new.path}: nothing to gate")


def emit(text):
    """print(), except that a reader leaving early (| head) is no error:
    the exit status must still be the comparison's."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def run_gate(cmp, args):
    check_gate_input(cmp)
    summary = sbcompare.render_gate_summary(cmp, args.allow_missing)
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as f:
            f.write(summary)
        emit(sbcompare.render_comparison(cmp, args.markdown))
    else:
        emit(summary)
    failures = cmp.gate_failures(args.allow_missing)
    print(f"compare: gate {'FAILED' if failures else 'passed'}: {len(cmp.regressions)} "
          f"regression(s), {len(cmp.broken)} broken, {len(cmp.missing)} missing "
          f"({'not counted' if args.allow_missing else 'counted'}) over "
          f"{len(cmp.matches)} points", file=sys.stderr)
    return EXIT_REGRESSION if failures else EXIT_OK


def draw_plots(paths, outdir):
    """One plot set for all CSVs, by plot.py (which labels lines by GPU)."""
    plot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot.py")
    return subprocess.call([sys.executable, plot, *paths, "--outdir", outdir])


def main(argv=None):
    args = parse_args(argv)
    threshold = args.threshold / 100
    try:
        runs = [sbcompare.load_run(p) for p in args.csv]
        comparisons = [sbcompare.compare(runs[0], r, threshold) for r in runs[1:]]
        if args.gate:
            return run_gate(comparisons[0], args)
    except (sbcsv.CsvError, UsageError) as e:
        print(f"compare: {e}", file=sys.stderr)
        return EXIT_UNUSABLE
    except OSError as e:
        print(f"compare: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return EXIT_UNUSABLE
    for cmp in comparisons:
        emit(sbcompare.render_comparison(cmp, args.markdown))
        if args.sensitivity:
            emit(sbcompare.sensitivity_table(cmp, args.markdown) + "\n")
    if args.plots and draw_plots(args.csv, args.plots) != 0:
        return EXIT_UNUSABLE
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
