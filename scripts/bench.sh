#!/usr/bin/env bash
# make bench / bench-quick: run a sweep into results/<gpu-slug>/<name>.csv,
# then plot it. Usage: scripts/bench.sh BIN DEVICE NAME [syncbench args...]
set -u
bin=$1 device=$2 name=$3
shift 3
py=${PY:-python3}
slug=$("$bin" --print-gpu-slug --device "$device") || exit $?
out=results/$slug
"$bin" --device "$device" --out "$out/$name.csv" "$@"
rc=$?
# Plot whatever finished, even after a failed or interrupted point.
if [ -s "$out/$name.csv" ]; then
  "$py" scripts/plot.py "$out/$name.csv" --outdir "$out/plots" || rc=${rc/#0/1}
fi
exit $rc
