#!/usr/bin/env bash
# The measurement of issue 55 (docs/devscan.md, "Tuning the look-back"):
# what devscan's look-back window, sleeps and tile shape should be on this
# GPU, and what a plain kernel reaches beside the pipeline, in one go.
#   scripts/devscan_tuning.sh BIN DEVICE OUTDIR [REPEATS]
# Each repetition is a fresh process per sweep (the variance that matters
# is between processes), REPEATS of them (default 3), interleaved:
#   tuning_<r>.csv     lookback and lookback_relaxed at 256M: window 32,64 x
#                      first sleep 0,1245,3000 ns x poll sleep 0,648 ns at the
#                      tile shapes 128x16..32, 256x16..32 (what is not compiled
#                      is a skipped row with its reason), and cub; every
#                      setting a tuning instance, today's too (sleeps from
#                      501 tiles: as 500 at 256M), so that they compare alike
#   threshold_<r>.csv  the same rows at 1M, 4M, 16M, 256M, 128x32, today's
#                      window and sleeps, sleeps from 0, 500 (today: the
#                      row's own kernel), 501 (the same through an instance)
#                      or 100000 tiles (never, at these sizes)
#   pipeline_<r>.csv   the pipeline family's default sweep
# Every CSV holds the reference family's d2d_copy (the 100% of pct_of_copy)
# and vector_copy (a plain kernel's copy) of its own process.
# scripts/devscan_tuning.py OUTDIR summarizes them.
# --dry-run as BIN's first argument: print the command lines and the point
# counts (needs no GPU). Exit status: 0, 1 when a sweep had a wrong, error
# or deadlock row, 2 on bad usage.
set -euo pipefail

if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
  exit 0
fi
dry=0
if [ "${1:-}" = --dry-run ]; then dry=1; shift; fi
if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  echo "usage: scripts/devscan_tuning.sh [--dry-run] BIN DEVICE OUTDIR [REPEATS]" >&2
  exit 2
fi
bin=$1 device=$2 out=$3 repeats=${4:-3}
case $repeats in ''|*[!0-9]*|0) echo "devscan_tuning.sh: REPEATS must be a whole number from 1, not '$repeats'" >&2; exit 2 ;; esac
[ -x "$bin" ] || { echo "devscan_tuning.sh: $bin is not an executable syncbench" >&2; exit 2; }

# The rows that read the tuning axes (trait lookback_tuning) and the ceiling,
# from the binary's own table (--list --format=csv), not from their names.
rows=$("$bin" --list --format=csv | python3 -c '
import csv, sys
names = [r["variant"] for r in csv.DictReader(sys.stdin) if r["family"] == "devscan"
         and {"lookback_tuning", "ceiling"} & set(r["flags"].split(";"))]
print("^devscan/(" + "|".join(names) + ")/")')
# shellcheck disable=SC2034,SC2054  # read through declare -n; commas are axis lists
tuning=(--filter "$rows" --n 256M --block 128,256 --elems 16,24,32
        --window 32,64 --first-sleep 0,1245,3000 --poll-sleep 0,648 --sleep-min-tiles 501)
# shellcheck disable=SC2034,SC2054
threshold=(--filter "$rows" --n 1M,4M,16M,256M --block 128 --elems 32
           --sleep-min-tiles 0,500,501,100000)
# shellcheck disable=SC2034
pipeline=(--filter '^pipeline/')

if [ $dry = 1 ]; then
  for s in tuning threshold pipeline; do
    declare -n args=$s
    points=$("$bin" --benchmark_list_tests "${args[@]}" | wc -l)
    printf '%s --device %s --out %s/%s_<r>.csv' "$bin" "$device" "$out" "$s"
    printf " '%s'" "${args[@]}"
    printf '\n    %s points a repetition\n' "$points"
  done
  exit 0
fi

mkdir -p "$out"
status=0
for r in $(seq 1 "$repeats"); do
  for s in tuning threshold pipeline; do
    declare -n args=$s
    echo "devscan_tuning.sh: repetition $r/$repeats: $s" >&2
    rc=0
    "$bin" --device "$device" --out "$out/${s}_$r.csv" "${args[@]}" || rc=$?
    case $rc in
      0) ;;
      1) status=1 ;;
      *) echo "devscan_tuning.sh: $s (repetition $r) exited $rc" >&2; exit "$rc" ;;
    esac
  done
done
exit $status
