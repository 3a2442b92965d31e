#!/usr/bin/env bash
# gemm at shapes that are not whole tiles (docs/gemm-composition.md): every
# variant at every compiled tile and split count auto, 2, 3, 5 and 7 (slices
# of unequal k-tiles, the last one partial) at 1000^3, 1 x 4096 x 4096,
# 4095 x 24 x 1032, 1000^2 x 8192 and 1000^2 x 8200, each point validated
# against the CPU reference and barely timed (--unpaired, --min-time 0.001):
# the shapes one after another in one run (--then), into one CSV. A tile a
# variant does not compile is a skipped row. Needs a GPU.
#
#   scripts/gemm_odd.sh BINARY OUT.csv [run options, e.g. --device 1 or --resume OUT.csv]
#
# Exit status: syncbench's (0: every row ok or skipped; 1: some row wrong,
# failed or deadlocked).
set -u
usage="usage: scripts/gemm_odd.sh BINARY OUT.csv [syncbench run options]"
BIN=${1:?$usage}
OUT=${2:?$usage}
shift 2
SHAPES=("--m 1000 --k 1000" "--m 1 --n 4096 --k 4096" "--m 4095 --n 24 --k 1032"
        "--m 1000 --k 8192" "--m 1000 --k 8200")
TILES=64x128x64,128x128x64,128x256x64,128x96x64 SPLITS=auto,2,3,5,7
sweeps=()
for s in "${SHAPES[@]}"; do
  [ ${#sweeps[@]} = 0 ] || sweeps+=(--then)
  # shellcheck disable=SC2206  # a shape is a word list
  sweeps+=(--filter '^gemm/' $s --tile "$TILES" --splits "$SPLITS")
done
into=(--out "$OUT")
for a in "$@"; do [ "$a" != --resume ] || into=(); done  # --resume OUT.csv continues it
exec "$BIN" "$@" --unpaired --min-time 0.001 "${into[@]}" "${sweeps[@]}"
