#!/usr/bin/env bash
# Where the wide A/A moves come from (docs/REGRESSIONS.md, "Where the A/A
# noise comes from"): A/A-by-A/B runs (one binary on both sides, each in its
# own CUDA context, interleaved point by point by scripts/ab.py), each under
# one change, over the variants that moved most. One summary block per run
# (scripts/ab_figures.py --variants).
#
#   STEPS=mfsc scripts/noise_probe.sh CARRY_DIR OUT_DIR
#     m  the timed region: OLD (a cudaMemsetAsync of the flags in every timed
#        launch of splitk_serial, splitk_parallel, streamk) then NEW (none)
#     f  where the flags sit: NEW then STRIDE (NEW built with
#        -DSB_GEMM_FLAG_STRIDE=32: one flag per 128-byte line)
#     s  the sample count: NEW at the default --min-time, then at 4x
#     w  first launches: NEW at the default --warmup 2, then 50
#     c  the CPU: NEW with each side's server pinned to its own core
#        (taskset), then unpinned
#     p  placement: NEW alone (no A/A), one process after another, each with
#        SB_PAD_MIB of device memory taken before its buffers (0, 256, 1024,
#        4096 MiB, each pad twice), over the split-K shapes: a point that moves
#        with the pad but not between two runs of one pad moves with where
#        its memory lies (placement/pad<MIB>_<run>.csv)
#     r  the process's mode: NEW serving the same points 4 times in one
#        process (scripts/repeat_points.py), two processes per way: plain;
#        SB_REPLACE=o, i, w, f (that buffer allocated anew behind a fresh pad
#        before every point), p (the pad alone); SB_FLUSH=memset
#        (replace/rep_<way>_<run>.csv; replace/log: each point's addresses);
#        then A/A by A/B of the noisy variants, plain and with SB_REPLACE=o
# CARRY_DIR holds old, new, stride (xz or not) and lib/.
set -u
C=${1:?usage: STEPS=... scripts/noise_probe.sh CARRY_DIR OUT_DIR}
O=${2:?usage: STEPS=... scripts/noise_probe.sh CARRY_DIR OUT_DIR}
STEPS=${STEPS:-mfsc}
PLACE='^gemm/(cublas|splitk_serial|streamk|ws_tma_wgmma)/'
REPLACE='^gemm/(splitk_serial|streamk|cublas)/'
PADS=${PADS:-0 256 1024 4096}
mkdir -p "$O"
. "$(dirname "$0")/carry.sh"
unpack_carry "$C" --drop
export PYTHONUNBUFFERED=1
SPLIT='^gemm/(splitk_serial|splitk_parallel|streamk)/'
NOISY='^(gemm/(splitk_serial|streamk|ws_tma_wgmma_pingpong)|barrier/(grid_sync|flag_handoff|flag_handoff_relaxed)|devscan/(cub|three_kernel|grid_sync|lookback_relaxed))/'
HOST='^barrier/(kernel_boundary_stream|kernel_boundary_pdl|kernel_boundary_graph|flag_handoff)/'
SHOW='splitk|streamk|pingpong$|grid_sync|flag_handoff|kernel_boundary|devscan'
step() { [[ $STEPS == *$1* ]]; }
aa() { # name binary, then syncbench's arguments
  local d=$1 bin=$2; shift 2
  local t=$SECONDS
  python3 scripts/ab.py --dir "$O/$d" --base A --new A2 --base-bin "$bin" --new-bin "$bin" \
    --retake 0 -- "$@" > "$O/$d.out" 2>&1
  echo "noise_probe: $d: exit $? in $((SECONDS - t)) s"
  python3 scripts/ab_figures.py "$O/$d/a.csv" "$O/$d/b.csv" --variants "$SHOW" 2>&1 | sed 1,4d
}
pinned() { # a wrapper that runs the binary on one core: pinned BIN CORE
  local w="$O/pinned_$2.sh"
  printf '#!/bin/sh\nexec taskset -c %s %s "$@"\n' "$2" "$1" > "$w"; chmod +x "$w"; echo "$w"
}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,power.limit --format=csv,noheader
step m && { aa memset_old "$C/old" --filter "$SPLIT"; aa memset_new "$C/new" --filter "$SPLIT"; }
step f && { aa flags_packed "$C/new" --filter "$SPLIT"; aa flags_stride "$C/stride" --filter "$SPLIT"; }
step s && { aa samples_1x "$C/new" --filter "$NOISY"; aa samples_4x "$C/new" --filter "$NOISY" --min-time 0.2; }
step w && { aa warmup_2 "$C/new" --filter "$NOISY"; aa warmup_50 "$C/new" --filter "$NOISY" --warmup 50; }
if step c; then
  # two wrappers of one binary: ab.py needs two paths for its two servers
  a=$(pinned "$C/new" 2); b=$(pinned "$C/new" 3)
  t=$SECONDS
  python3 scripts/ab.py --dir "$O/cpu_pinned" --base A --new A2 --base-bin "$a" --new-bin "$b" \
    --retake 0 -- --filter "$HOST" > "$O/cpu_pinned.out" 2>&1
  echo "noise_probe: cpu_pinned: exit $? in $((SECONDS - t)) s"
  python3 scripts/ab_figures.py "$O/cpu_pinned/a.csv" "$O/cpu_pinned/b.csv" --variants "$SHOW" | sed 1,4d
  aa cpu_free "$C/new" --filter "$HOST"
fi
if step p; then
  mkdir -p "$O/placement"
  t=$SECONDS
  for run in 1 2; do
    for pad in $PADS; do
      for mk in 512:32768 1024:16384; do
        SB_PAD_MIB=$pad "$C/new" --filter "$PLACE" --m "${mk%:*}" --k "${mk#*:}" --unpaired \
          --no-reference --seed 1 --out "$O/placement/pad${pad}_${run}_m${mk%:*}.csv" \
          > /dev/null 2>> "$O/placement/log"
      done
    done
  done
  echo "noise_probe: placement: $((SECONDS - t)) s"
fi
if step r; then
  # one process per file, each point taken 4 times: plain, then each buffer
  # anew behind a fresh pad before every point (SB_REPLACE), then the memset flush
  mkdir -p "$O/replace"
  t=$SECONDS
  for mode in plain o i w f p memset; do
    for run in 1 2; do
      rep=$mode flush=
      [ "$mode" = plain ] && rep=
      [ "$mode" = memset ] && rep= && flush=memset
      SB_REPLACE=$rep SB_FLUSH=$flush python3 scripts/repeat_points.py --binary "$C/new" \
        --out "$O/replace/rep_${mode}_$run.csv" --reps 4 -- --filter "$REPLACE" --m 512 --k 32768 \
        --tile 128x128x64 --splits 8,auto --stages 6 --warps 4 --no-reference >> "$O/replace/log" 2>&1
    done
    python3 scripts/repeat_points.py --summary "$O/replace/rep_${mode}"_*.csv | sed "s/^/$mode: /"
  done
  echo "noise_probe: replace: $((SECONDS - t)) s"
  # and the A/A by A/B of the noisy variants with each side's output anew
  # before every point: do the per-process modes leave the A/A moves?
  aa aa_plain "$C/new" --filter "$NOISY"
  SB_REPLACE=o aa aa_replace_o "$C/new" --filter "$NOISY"
fi
exit 0
