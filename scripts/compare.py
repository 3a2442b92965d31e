#!/usr/bin/env python3
"""Compares syncbench CSVs point by point, across runs or across GPUs, and
gates regressions in CI.

    python scripts/compare.py BASE.csv NEW.csv [MORE.csv ...] [--markdown]
        [--family F] [--variant V] [--summary-only | --details | --details-file FILE]
    python scripts/compare.py --gate BASE.csv NEW.csv [--threshold 5] [--summary FILE]
        [--detail FILE] [--detail-url URL] [--summary-only] [--accept results/accepted.csv]
        [--bands results/bands.csv | --out-of-sample] [--allow-unjudged] [--interleaved]

Points are joined on family, variant and every axis. The output starts with
one row per variant: the geometric mean of the time ratios new/base and how
many points are slower or faster beyond noise or on one side only. It fits
an 80-120 column terminal; the per-point rows follow with --details, or go
to --details-file FILE. With more than two CSVs, each is compared with the
first. When the GPU names differ (cross-GPU mode) normalized figures
(pct_of_copy, cycles_per_op) are compared as well.

--gate (two CSVs of one GPU model): a point regresses by rule A (its median
more than --threshold percent slower and the medians' notches, +-1.57
IQR/sqrt(samples), do not overlap) or rule B (its
whole variant moved beyond the measured run-to-run noise, and the point
with it); see scripts/sbcompare.py. A point ok in base but not ok in new
(wrong, error, ...) or missing from new fails the gate too, unless an
acceptance of --accept FILE covers it (each applied acceptance is printed,
and one line counts the entries that matched nothing). Rows of a family
with a ceiling column (gemm, devscan) are gated on the paired ceiling ratio
or on cycles, and reported as "power state differs" (not gated) when their
SM clocks moved by more than 5%. Every variant is judged against its own
noise band (--bands FILE, default results/bands.csv, written by
scripts/bands.py from the committed A/A runs) for the pairing of the two
runs: A/B interleaved on one GPU, two runs on one chip, or two chips. A
point of a variant with no A/A data anywhere (a new one) is unjudged and
fails the gate, each such variant named on stderr; --allow-unjudged lets
it pass (listed and counted), for the run that gives its first A/A data.
--out-of-sample: the bands derived by scripts/bands.py from the committed
A/A runs without any pair that holds BASE or NEW (a committed pair is A/A
data itself: no run helps set the band that judges it).
--interleaved: the two CSVs come from an A/B run (scripts/ab.py) that ran
both builds interleaved point by point on one GPU; their gpu_uuid must
agree (else exit 2), and the A/B bands apply.

The short Markdown summary (the PR comment: verdict, counts, every failing
point, the largest moves; under 60,000 characters whatever the number of
points) goes to --summary FILE, or to stdout; the full per-point report to
--detail FILE; --detail-url URL is linked from the summary (a CI run's
artifacts). --gate --summary-only prints at most 40 lines. See
docs/REGRESSIONS.md.

Exit status: 0 no regression, 1 regressions (gate only), 2 unusable input
(the message names file, line and column) or a missing Python package.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import sbdeps  # noqa: E402,F401  (a missing package: one line, exit 2)
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
                    help="with --gate: write the short Markdown summary (the PR comment) "
                         "here (default stdout)")
    ap.add_argument("--detail-url", metavar="URL",
                    help="with --gate: where the detail file can be fetched (linked from the summary)")
    ap.add_argument("--allow-missing", action="store_true",
                    help="with --gate: points of base absent from new do not fail the gate")
    ap.add_argument("--sensitivity", action="store_true",
                    help="for an A/A pair: per variant, the slowdown the gate would flag "
                         "(with --gate: after its summary, judged as the gate judges)")
    ap.add_argument("--plots", metavar="DIR",
                    help="also draw one plot set of all CSVs into DIR (scripts/plot.py)")
    for flag, meta, what in (("--family", "F", "families"),
                             ("--variant", "V", "variants: 'variant' or 'family/variant'")):
        ap.add_argument(flag, action="append", metavar=meta,
                        help=f"only these {what} (glob, repeatable or comma list)")
    detail = ap.add_mutually_exclusive_group()
    for flag, what in (("--summary-only", "only the counts and the per-variant table"),
                       ("--details", "also every point (long and wide)")):
        detail.add_argument(flag, action="store_true", help=what)
    detail.add_argument("--details-file", "--detail", metavar="FILE", dest="details_file",
                        help="write the full per-point comparison to FILE (with --gate: "
                             "the gate's full Markdown report)")
    ap.add_argument("--accept", metavar="FILE",
                    help="acceptance CSV (results/accepted.csv): known changes, listed, not counted")
    ap.add_argument("--bands", metavar="FILE",
                    help="each variant's noise band per GPU model and pairing (default "
                         "results/bands.csv, from scripts/bands.py): rule A's threshold and "
                         "rule B's shift of its points")
    ap.add_argument("--out-of-sample", action="store_true",
                    help="instead of --bands: derive the bands from the committed A/A runs "
                         "(scripts/bands.py) without any pair holding BASE or NEW")
    unjudged = ap.add_mutually_exclusive_group()
    unjudged.add_argument("--allow-unjudged", action="store_true",
                          help="with --gate: a point of a variant with no A/A data (a new "
                               "variant's first run) is listed and counted, not a failure")
    unjudged.add_argument("--fail-unjudged", action="store_true",
                          help="with --gate: a point of a variant with no A/A data fails the "
                               "gate (the default)")
    ap.add_argument("--interleaved", action="store_true",
                    help="the two CSVs come from an A/B run interleaved point by point on one "
                         "GPU (scripts/ab.py): their gpu_uuid must agree; the A/B bands apply")
    args = ap.parse_args(argv)
    args.family = split_list(args.family)
    args.variant = split_list(args.variant)
    if len(args.csv) < 2:
        ap.error("give at least two CSV files")
    if args.gate and len(args.csv) != 2:
        ap.error("--gate compares exactly two CSV files: BASE NEW")
    if (args.summary or args.allow_missing or args.detail_url or args.fail_unjudged
            or args.allow_unjudged) and not args.gate:
        ap.error("--summary, --detail-url, --allow-missing, --allow-unjudged and --fail-unjudged "
                 "go with --gate")
    if args.out_of_sample and args.bands is not None:
        ap.error("--out-of-sample derives the bands: not with --bands")
    return args


def split_list(values):
    return [v for value in values or [] for v in value.split(",") if v]


def threshold_pct(text):
    """'5' or '5%' -> 5.0; a threshold is a non-negative percentage."""
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a percentage") from None
    if not 0 <= value < 1000:
        raise argparse.ArgumentTypeError(f"{text}: a threshold is between 0 and 1000 percent")
    return value


def check_interleaved(runs):
    """An A/B run interleaved on one GPU writes one gpu_uuid on both sides."""
    why = sbcompare.not_one_gpu(runs[0], runs[-1])
    if why:
        raise UsageError(f"{why}; --interleaved means both sides ran interleaved on one GPU")


def check_gate_input(cmp):
    """The gate needs one GPU model and something in common."""
    if cmp.cross_gpu:
        raise UsageError(
            f"{cmp.new.path}:{cmp.new.first_line}: column 'gpu_name': '{cmp.new.gpu_name}', but "
            f"{cmp.base.path} ran on '{cmp.base.gpu_name}'; the gate compares runs of one GPU "
            f"model (compare them without --gate)")
    if not cmp.matches and not cmp.broken:  # every common point broken: a failure, not unusable input
        raise UsageError(f"{cmp.new.path}:{cmp.new.first_line}: column 'family': no point is ok "
                         f"in both {cmp.base.path} and {cmp.new.path}: nothing to gate")
    base, new = sbcompare.flush_methods(cmp.base), sbcompare.flush_methods(cmp.new)
    if base and new and set(base) != set(new):
        b, n = sorted(base)[0], sorted(new)[0]
        raise UsageError(
            f"{cmp.new.path}:{new[n]}: column 'detail': the L2 was flushed by a {n} before each "
            f"sample, but {cmp.base.path} flushed it by a {b} (line {base[b]}); the flush changes "
            f"the times it precedes, so the gate compares runs of one flush (SB_FLUSH): "
            f"re-baseline, or time the new run with {sbcompare.flush_env(b)}")


def emit(text):
    """print(), except that a reader leaving early (| head) is no error:
    the exit status must still be the comparison's."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def write_text(path, text):
    sbcsv.write_atomically(path, text if text.endswith("\n") else text + "\n")


def run_gate(cmp, args, acceptances):
    check_gate_input(cmp)
    cmp.fail_unjudged = not args.allow_unjudged
    unmatched = sbcompare.unmatched_acceptances(cmp, acceptances)
    detail_name = os.path.basename(args.details_file) if args.details_file else None
    summary = sbcompare.render_gate_summary(cmp, args.allow_missing, detail_name,
                                            args.detail_url, unmatched)
    if args.details_file:
        write_text(args.details_file, sbcompare.render_gate_detail(cmp, args.allow_missing, unmatched))
    if args.summary:
        write_text(args.summary, summary)
    if args.summary_only:
        emit(sbcompare.render_gate_brief(cmp, args.allow_missing, unmatched))
    elif args.summary:
        emit(sbcompare.render_comparison(cmp, args.markdown, details=args.details))
    else:
        emit(summary)
    if args.sensitivity:  # the gate's own judgement of each variant's edge, beside its verdict
        emit(sbcompare.sensitivity_table(cmp, args.markdown) + "\n")
    failures = cmp.gate_failures(args.allow_missing)
    for line in sbcompare.acceptance_lines(cmp, reason_chars=60):
        print(f"compare: {line}", file=sys.stderr)
    line = sbcompare.unmatched_line(unmatched)
    if line:
        print(f"compare: {line}", file=sys.stderr)
    for name in sbcompare.unjudged_names(cmp):
        n = sum("/".join(sbcompare.by_variant(m)) == name for m in cmp.unjudged)
        print(f"compare: {name}: {n} point(s) unjudged: no A/A data for it in "
              f"{sbcompare.shown_path(cmp.bands.path)} ("
              + ("--allow-unjudged: not counted)" if args.allow_unjudged else
                 "a failure: commit an A/A run of it and rerun scripts/bands.py, or pass "
                 "--allow-unjudged for its first run)"), file=sys.stderr)
    print(f"compare: gate {'FAILED' if failures else 'passed'}: {len(cmp.regressions)} "
          f"regression(s), {len(cmp.failing_broken)} broken, {len(cmp.missing)} missing "
          f"({'not counted' if args.allow_missing else 'counted'}), {len(cmp.accepted)} "
          f"accepted, {len(cmp.power_state_differs)} power state differs (judged), "
          f"{len(cmp.unjudged)} unjudged ({'not counted' if args.allow_unjudged else 'counted'}) "
          f"({sbcompare.chips_word(cmp)}), over "
          f"{len(cmp.matches)} points ({cmp.new.path})", file=sys.stderr)
    return EXIT_REGRESSION if failures else EXIT_OK


def out_of_sample(runs):
    """The bands of the committed A/A runs less every pair holding one of
    runs (scripts/bands.py), of the base run's time (band_epochs.csv)."""
    import bands  # scripts/bands.py: reads every committed A/A run, only when asked
    return bands.for_pair(runs[0], runs[-1]) if len(runs) == 2 else bands.bands_as_of(
        runs[0].provenance("run_utc"), exclude=runs)


def draw_plots(paths, outdir):
    """One plot set for all CSVs, by plot.py (which labels lines by GPU)."""
    plot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot.py")
    return subprocess.call([sys.executable, plot, *paths, "--outdir", outdir])


def main(argv=None):
    args = parse_args(argv)
    threshold = args.threshold / 100
    try:
        runs = [sbcompare.load_run(p) for p in args.csv]
        if args.family or args.variant:
            runs = [sbcompare.filtered(r, args.family, args.variant) for r in runs]
            if not any(r.rows for r in runs):
                raise UsageError(f"{args.csv[0]}: column 'family': no row matches --family "
                                 f"{','.join(args.family) or '*'} --variant "
                                 f"{','.join(args.variant) or '*'}")
        if args.interleaved:
            if len(runs) != 2:
                raise UsageError("--interleaved compares exactly two CSV files: the two sides "
                                 "of one A/B run")
            check_interleaved(runs)
        bands = (out_of_sample(runs) if args.out_of_sample
                 else sbcompare.load_bands(args.bands or sbcompare.BANDS_FILE))
        comparisons = [sbcompare.compare(runs[0], r, threshold, bands, args.interleaved)
                       for r in runs[1:]]
        acceptances = sbcompare.load_acceptances(args.accept) if args.accept else []
        for cmp in comparisons:
            cmp.accept(acceptances)
        if args.gate:
            return run_gate(comparisons[0], args, acceptances)
    except (sbcsv.CsvError, UsageError) as e:
        print(f"compare: {e}", file=sys.stderr)
        return EXIT_UNUSABLE
    except OSError as e:
        print(f"compare: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return EXIT_UNUSABLE
    details = []
    for cmp in comparisons:
        emit(sbcompare.render_comparison(cmp, args.markdown, details=args.details))
        if not (args.details or args.summary_only):
            emit("(per-point rows: --details, or --details-file FILE)\n")
        if args.details_file:
            details.append(sbcompare.render_comparison(cmp, args.markdown, summary=False))
        if args.sensitivity:
            emit(sbcompare.sensitivity_table(cmp, args.markdown) + "\n")
    if args.details_file:
        try:
            with open(args.details_file, "w", encoding="utf-8") as f:
                f.write("\n".join(details))
        except OSError as e:
            print(f"compare: {args.details_file}: {e.strerror or e}", file=sys.stderr)
            return EXIT_UNUSABLE
    if args.plots and draw_plots(args.csv, args.plots) != 0:
        return EXIT_UNUSABLE
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
