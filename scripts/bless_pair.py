#!/usr/bin/env python3
"""Blesses a new committed pair (docs/REGRESSIONS.md, "Baselines"): two
default sweeps of one clean commit on two GPUs of one model become
results/<gpu>/baseline.csv and latest.csv, and the pair they replace moves
to results/<gpu>/history/<run_utc>_<commit>_<gpu>.csv.xz, compressed, its
content byte for byte (the very file of results/<gpu>/proofs/round_<commit>/
sweep_<gpu>.csv.xz where that holds the same run, so git stores it once).

    python3 scripts/bless_pair.py RUN_A.csv RUN_B.csv [--results DIR] [--dry-run]

RUN_A becomes baseline.csv, RUN_B latest.csv. The pair is refused (one
line naming file, line and column; exit 2, nothing moved) unless both runs
are of one GPU model, whose results directory exists, on two different
chips, of one commit that is not `-dirty`, of the same points, under one L2
flush, and have no `wrong`, `error` or `deadlock` row. Where git tracks the old pair, each
old file leaves the index and its history file enters it. Afterwards it prints what to rerun:
the bands, the REGRESSIONS block, the report, the answers, the gate."""
from __future__ import annotations

import argparse
import lzma
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # sbcsv, sbcompare
import sbcompare  # noqa: E402
import sbcsv  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAD = ("wrong", "error", "deadlock")


class Refused(Exception):
    pass


def history_name(run):
    """<run_utc as 20261127T203025Z>_<commit, 7>_<gpu_uuid's first 8>.csv.xz"""
    utc = run.provenance("run_utc").replace("-", "").replace(":", "")
    return f"{utc}_{run.provenance('commit')[:7]}_{chip(run)}.csv.xz"


def chip(run):
    """The gpu_uuid's first 8 hex digits, as the history and proof names use them."""
    return sorted(run.gpu_uuids())[0].removeprefix("GPU-")[:8]


def round_copy(gpu, run, content):
    """results/<gpu>/proofs/round_<commit>/sweep_<chip>.csv.xz when it holds
    exactly this content (the round's copy of the same run), else None."""
    path = os.path.join(gpu, "proofs", f"round_{run.provenance('commit')[:7]}", f"sweep_{chip(run)}.csv.xz")
    try:
        with lzma.open(path, "rb") as f:
            return path if f.read() == content else None
    except (OSError, lzma.LZMAError):
        return None


def check(a, b, results):
    """The slug of the pair's GPU directory, or Refused."""
    for run in (a, b):
        for column in ("commit", "run_utc"):
            if len({r[column] for r in run.rows}) != 1:
                raise Refused(f"{run.path}:{run.first_line}: column '{column}': more than one "
                              f"value: one run of one commit is blessed")
        commit = run.provenance("commit")
        if not commit or commit.endswith("-dirty"):
            raise Refused(f"{run.path}:{run.first_line}: column 'commit': '{commit}': "
                          f"a blessed run comes from a clean commit")
        bad = [r for r in run.rows if r["status"] in BAD]
        if bad:
            raise Refused(f"{run.path}:{bad[0]['_line']}: column 'status': {bad[0]['status']} "
                          f"({len(bad)} such rows): a broken run is not blessed")
    if a.gpu_name != b.gpu_name:
        raise Refused(f"{b.path}:{b.first_line}: column 'gpu_name': '{b.gpu_name}', but {a.path} "
                      f"ran on '{a.gpu_name}': a pair is one GPU model")
    if a.provenance("commit") != b.provenance("commit"):
        raise Refused(f"{b.path}:{b.first_line}: column 'commit': {b.provenance('commit')}, but "
                      f"{a.path} ran {a.provenance('commit')}: a pair is one commit")
    if a.gpu_uuids() & b.gpu_uuids():
        raise Refused(f"{b.path}:{b.first_line}: column 'gpu_uuid': {sorted(b.gpu_uuids())[0]}, the "
                      f"chip of {a.path} too: a pair is two runs on two chips")
    only_a, only_b = set(a.by_key) - set(b.by_key), set(b.by_key) - set(a.by_key)
    if only_a or only_b:
        run, key = (a, min(only_a, key=str)) if only_a else (b, min(only_b, key=str))
        raise Refused(f"{run.path}:{run.by_key[key]['_line']}: column 'family': "
                      f"{sbcompare.describe_point(run.by_key[key])} is in one run only ({len(only_a)} "
                      f"only in {a.path}, {len(only_b)} only in {b.path}): a pair is one sweep")
    fa, fb = sbcompare.flush_methods(a), sbcompare.flush_methods(b)
    if fa and fb and set(fa) != set(fb):
        raise Refused(f"{b.path}:{min(fb.values())}: column 'detail': the L2 flushed by a "
                      f"{sorted(fb)[0]}, but {a.path} by a {sorted(fa)[0]}: a pair is one flush")
    slug = sbcsv.gpu_slug(a.gpu_name)
    if not os.path.isdir(os.path.join(results, slug)):
        raise Refused(f"{a.path}:{a.first_line}: column 'gpu_name': '{a.gpu_name}': no "
                      f"{os.path.join(results, slug)} to bless it into")
    return slug


def tracked(path):
    """Whether git tracks the file (then it moves by `git mv`)."""
    return subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(path)), "ls-files",
                           "--error-unmatch", os.path.basename(path)],
                          capture_output=True, text=True).returncode == 0


def plan(a_path, b_path, results):
    """[(action, source, destination)] for the pair, after the checks."""
    a, b = sbcompare.load_run(a_path), sbcompare.load_run(b_path)
    gpu = os.path.join(results, check(a, b, results))
    steps = []
    for name in ("baseline.csv", "latest.csv"):
        old = os.path.join(gpu, name)
        if os.path.exists(old):
            for given in (a_path, b_path):
                if os.path.samefile(given, old):
                    raise Refused(f"{given}: is {old} itself, which the blessing moves to history/: "
                                  f"bless a copy of it")
            run = sbcompare.load_run(old)
            dest = os.path.join(gpu, "history", history_name(run))
            for there in (dest, dest.removesuffix(".xz")):
                if os.path.exists(there):
                    raise Refused(f"{there}: already there: is {old} blessed twice?")
            with open(old, "rb") as f:
                same = round_copy(gpu, run, f.read())
            steps.append(("move", old, dest) if same is None else ("move", old, dest, same))
    steps += [("copy", a_path, os.path.join(gpu, "baseline.csv")),
              ("copy", b_path, os.path.join(gpu, "latest.csv"))]
    return steps


def git(path, *args):
    subprocess.run(["git", *args, os.path.basename(path)], check=True, capture_output=True,
                   cwd=os.path.dirname(os.path.abspath(path)))


def staged(dest):
    """Where a file is written before it takes its place: beside it, so that
    os.replace is one rename and a cut run leaves no half-written file."""
    return dest + ".part"


def apply(steps):
    """The new pair is copied beside its place first, each history file is
    written beside its own and renamed into it, and the new pair takes its
    place last: a run cut anywhere loses no run (at worst the new pair is
    not in place yet, and its .part files say so)."""
    for action, src, dest, *same in steps:
        if action == "copy":
            shutil.copyfile(src, staged(dest))
    for action, src, dest, *same in steps:
        if action != "move":
            continue
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if same:  # the round's file of the same run: one blob in git
            shutil.copyfile(same[0], staged(dest))
        else:
            with open(src, "rb") as f, lzma.open(staged(dest), "wb", preset=9 | lzma.PRESET_EXTREME) as out:
                out.write(f.read())
        os.replace(staged(dest), dest)
        was_tracked = tracked(src)
        if was_tracked:
            git(src, "rm", "-q", "--cached")
        os.remove(src)
        if was_tracked:  # where git keeps the pair, it keeps its history
            git(dest, "add")
    for action, src, dest, *same in steps:
        if action == "copy":
            os.replace(staged(dest), dest)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_a", help="the new baseline.csv (one chip's default sweep)")
    ap.add_argument("run_b", help="the new latest.csv (another chip's, same commit)")
    ap.add_argument("--results", default=os.path.join(ROOT, "results"), help="default: results/")
    ap.add_argument("--dry-run", action="store_true", help="print the moves, change nothing")
    args = ap.parse_args(argv)
    try:
        steps = plan(args.run_a, args.run_b, args.results)
    except (Refused, sbcsv.CsvError) as e:
        print(f"bless_pair: {e}", file=sys.stderr)
        return 2
    for action, src, dest, *same in steps:
        how = f" (as {os.path.relpath(same[0])})" if same else ""
        print(f"{action} {os.path.relpath(src)} -> {os.path.relpath(dest)}{how}")
    if args.dry_run:
        return 0
    apply(steps)
    gpu = os.path.dirname(steps[-1][2])
    stalls = os.path.join(gpu, "stalls.csv")
    redraw = (f"; python3 scripts/explain.py --plot {os.path.relpath(stalls)} (its stall plots label the "
              f"new latest.csv's points)") if os.path.exists(stalls) else ""
    print("bless_pair: now rerun: python3 scripts/bands.py; python3 scripts/bands.py --doc "
          f"docs/REGRESSIONS.md; make report answers history gate-committed{redraw}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
