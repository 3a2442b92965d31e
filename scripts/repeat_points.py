#!/usr/bin/env python3
"""Times the same points again and again in ONE process (the re-placement
probe, scripts/noise_probe.sh step r): a `syncbench --serve` worker is
asked each point of the sweep in turn, REPS rounds, every take a row of
--out. With SB_REPLACE set in the environment each take runs on buffers
allocated anew (harness/runner.c); without it, on the process's one
placement. `--summary CSV...` prints, per point, the spread of its fastest
sample over the takes of each file and over all files.

    repeat_points.py --binary BIN --out CSV --reps R -- SWEEP_ARGS
    repeat_points.py --summary A.csv [B.csv ...]

Exit status: 0; 1 a take that did not pass or a server that died; 2 usage.
"""
import argparse
import csv
import subprocess
import sys
from collections import defaultdict


def serve(binary, out, reps, sweep):
    names = subprocess.run([binary, "--benchmark_list_tests", *sweep], capture_output=True,
                           text=True, check=True).stdout.split()
    proc = subprocess.Popen([binary, "--serve", "--out", out, *sweep], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    ready = proc.stdout.readline().split()
    if not ready or ready[0] != "ready":
        print(f"repeat_points: {binary} --serve did not start: {' '.join(ready)}", file=sys.stderr)
        return 1
    failed = 0
    for _ in range(reps):
        for name in names:
            proc.stdin.write(name + "\n")
            proc.stdin.flush()
            answer = proc.stdout.readline().split(" ", 2)
            if len(answer) != 3:
                print(f"repeat_points: the server died at {name}", file=sys.stderr)
                return 1
            failed += answer[0] != "ok"
    proc.stdin.close()
    proc.wait()
    print(f"repeat_points: {len(names)} points x {reps} takes, {failed} not ok -> {out}")
    return 1 if failed else 0


POINT = ("family", "variant", "block_threads", "stages", "n", "elems_per_thread", "consumer_warps",
         "participants", "contention", "m", "k", "tile", "splits", "cluster_shape")


def spread(values):
    return 100.0 * (max(values) / min(values) - 1.0)


def summary(files):
    takes = defaultdict(lambda: defaultdict(list))  # point -> file -> fastest samples
    for f in files:
        with open(f, newline="") as fh:
            for row in csv.DictReader(fh):
                if row["status"] == "ok":
                    takes[tuple(row[c] for c in POINT)][f].append(float(row["min_us"]))
    print("point | takes per file | widest spread within one file | spread of all takes")
    for point, per_file in sorted(takes.items()):
        within = max(spread(v) for v in per_file.values())
        every = [x for v in per_file.values() for x in v]
        label = "/".join(f"{c}={v}" for c, v in zip(POINT, point) if v)
        print(f"{label} | {','.join(str(len(v)) for v in per_file.values())} | "
              f"{within:.2f}% | {spread(every):.2f}%")
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary")
    ap.add_argument("--out")
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--summary", nargs="+", metavar="CSV")
    ap.add_argument("sweep", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    if args.summary:
        return summary(args.summary)
    sweep = args.sweep[1:] if args.sweep[:1] == ["--"] else args.sweep
    if not args.binary or not args.out or args.reps < 1:
        ap.error("--binary, --out and --reps >= 1 (or --summary CSV...)")
    return serve(args.binary, args.out, args.reps, sweep)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
