#!/usr/bin/env bash
# Where the K-heavy off-sweep shapes lose to cuBLAS (issue 39): one device
# call's probe of the shapes under 90 % (docs/history.md, "The H200
# current"), each step writing under OUT_DIR.
#
#   STEPS=tn scripts/kheavy_probe.sh CARRY_DIR OUT_DIR
#     t  timed: the split-K schemes at every slice count that can win, both
#        tiles, beside cuBLAS (paired ratio)                -> splits.csv
#     n  Nsight Compute: each kernel's own duration, grid and name at one
#        point of each scheme (cuBLAS's kernels named, so its split and tile
#        are known), one warm launch a point (--profile-warmup) -> ncu.csv
# CARRY_DIR holds syncbench (xz or not) and lib/ (make carry-lean).
set -u
C=${1:?usage: STEPS=... scripts/kheavy_probe.sh CARRY_DIR OUT_DIR}
O=${2:?usage: STEPS=... scripts/kheavy_probe.sh CARRY_DIR OUT_DIR}
STEPS=${STEPS:-tn}
mkdir -p "$O"
. "$(dirname "$0")/carry.sh"
unpack_carry "$C"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader > "$O/gpu.txt" 2>&1
cat "$O/gpu.txt"
SB=$C/syncbench
SPLIT='^gemm/(cublas|splitk_reduce|splitk_cluster|splitk_parallel)/'
rc=0
if [[ $STEPS == *t* ]]; then
  t=$SECONDS
  "$SB" --filter "$SPLIT" --m 128 --k 16k,32k,64k --tile 64x128x64 --stages 8 --warps 4 \
    --splits 8,12,16,24,32,48,64 \
    --out "$O/splits.csv" 2> "$O/splits.log" || rc=$?
  "$SB" --filter "$SPLIT" --m 256,384 --k 16k --tile 64x128x64 --stages 8 --warps 4 \
    --splits 4,6,8,12,16,24,32 \
    --resume "$O/splits.csv" 2>> "$O/splits.log" || rc=$?
  for tile in '64x128x64 --stages 8' '128x128x64 --stages 4,6'; do
    # shellcheck disable=SC2086  # the tile and its stage counts
    "$SB" --filter '^gemm/(cublas|splitk_reduce|splitk_parallel|streamk|ws_tma_wgmma)/' --m 768,1152 --k 8k \
      --tile $tile --warps 4 --splits 1,2,3,4,6 --resume "$O/splits.csv" 2>> "$O/splits.log" || rc=$?
  done
  echo "kheavy_probe: timed: exit $rc in $((SECONDS - t)) s"; tail -2 "$O/splits.log"
fi
# One ncu run over syncbench's profiled warm-up launches of the points its
# arguments name; the kernels' rows append to ncu.csv.
profile() {
  ncu --profile-from-start off --csv --print-units base \
    --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__cluster_size,launch__registers_per_thread,dram__bytes.sum,lts__t_bytes.sum \
    "$SB" --no-fork --unpaired --no-reference --warmup 2 --min-time 0.001 --profile-warmup "$@" \
    >> "$O/ncu.csv" 2>> "$O/ncu.log" || rc=$?
}
if [[ $STEPS == *n* ]]; then
  t=$SECONDS
  : > "$O/ncu.csv"; : > "$O/ncu.log"
  profile --filter "$SPLIT" --m 128 --k 16k --tile 64x128x64 --stages 8 --warps 4 --splits 16,32 --out "$O/ncu_rows.csv"
  profile --filter '^gemm/(cublas|splitk_reduce|streamk|ws_tma_wgmma)/' --m 1152 --k 8k --tile 128x128x64 \
    --splits 3 --stages 6 --warps 4 --resume "$O/ncu_rows.csv"
  echo "kheavy_probe: ncu: exit $rc in $((SECONDS - t)) s"; tail -2 "$O/ncu.log"
fi
exit $rc
