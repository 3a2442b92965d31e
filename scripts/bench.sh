#!/usr/bin/env bash
# make bench / bench-quick: run a sweep into results/<gpu-slug>/<name>.csv,
# then plot it. Usage: scripts/bench.sh BIN DEVICE NAME [syncbench args...]
#
# Exit status, for a workflow to branch on (make turns every failure into
# its own 2, so CI calls this script directly):
#   0    sweep clean: every row ok, skipped or unsupported, and plotted
#   1    sweep finished, but some row is wrong, error or deadlock (the CSV
#        says which and why), or the CSV could not be written completely
#   2    bad usage: a bad command line, invalid axes or output path
#   3    could not run: no usable CUDA device or driver, or a GPU on which
#        no point could run (every row outside the yardstick unsupported)
#   4    the sweep was clean but plotting it failed
#   130  interrupted (SIGINT/SIGTERM); the finished rows are in the CSV
# A failed sweep keeps its own status even when plotting fails too.
# PY: the Python interpreter for the plots (default python3).
set -u
EXIT_NO_DEVICE=3 EXIT_PLOT=4
if [ $# -lt 3 ]; then
  echo "usage: scripts/bench.sh BIN DEVICE NAME [syncbench args...]" >&2
  exit 2
fi
bin=$1 device=$2 name=$3
shift 3
py=${PY:-python3}
scripts=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$bin" ]; then
  echo "bench.sh: $bin: no such executable (run make first)" >&2
  exit 2
fi
# DEVICE and NAME choose the GPU and the CSV (results/<gpu>/NAME.csv): the
# same options among the sweep's would run one GPU and file another's name.
for a in "$@"; do
  case $a in
    --out | --out=* | --device | --device=* | --devices | --devices=* | --resume | --resume=*)
      echo "bench.sh: ${a%%=*}: make bench chooses the GPU (DEVICE) and writes results/<gpu>/$name.csv" \
        "itself; run $bin directly for another GPU or file" >&2
      exit 2 ;;
  esac
done
# The command line first, without a GPU: bad usage is 2 on any machine.
"$bin" --benchmark_list_tests "$@" >/dev/null || exit $?
slug=$("$bin" --print-gpu-slug --device "$device") || exit $?
out=results/$slug
csv=$out/$name.csv
"$bin" --device "$device" --out "$csv" "$@"
rc=$?
# Plot whatever finished, even after a failed or interrupted point.
if [ -s "$csv" ]; then
  if ! "$py" "$scripts/plot.py" "$csv" --outdir "$out/plots"; then
    echo "bench.sh: plotting $csv failed (the CSV is complete)" >&2
    [ "$rc" -eq 0 ] && rc=$EXIT_PLOT
  fi
fi
# A clean sweep where nothing but the yardstick ran: this GPU cannot run
# syncbench's kernels (older than the build's architectures).
if [ "$rc" -eq 0 ] && [ -s "$csv" ]; then
  "$py" - "$scripts" "$csv" <<'EOF'
import os, sys
scripts = sys.argv.pop(1)
sys.path[:0] = [scripts, os.path.join(scripts, "lib")]
import sbcsv, sbvariants
rows = [r for r in sbcsv.read(sys.argv[1]) if not sbvariants.is_yardstick(r["family"])]
if rows and not any(r["status"] == "ok" for r in rows):
    print(f"bench.sh: no point could run on this GPU: every row of {sys.argv[1]} outside "
          "the yardstick is unsupported or skipped (see their detail)", file=sys.stderr)
    sys.exit(10)
EOF
  [ $? -eq 10 ] && rc=$EXIT_NO_DEVICE
fi
exit "$rc"
