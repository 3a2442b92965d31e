#!/usr/bin/env bash
# The A/B proofs of docs/REGRESSIONS.md ("A/B on one GPU"), on a GPU machine
# without Google Benchmark, from `make bundle-ab`'s build/bundle-ab/ (base: BASE's
# build, new: the working tree's, plant: new with PLANT_SLOWDOWN=1):
#
#   STEPS=sqap scripts/ab_proof.sh build/bundle-ab out
#     s  the context order: barrier/grid_sync A/A, each side's context
#        created first                                  -> order_*.out
#     q  A/A by A/B, the quick sweep                   -> quick/ (a.csv, b.csv, ab.txt)
#     a  A/A by A/B, the default sweep (AA_FILTER: its --filter)  -> aa/
#     p  planted: new vs plant (one extra barrier per step in scan/pingpong),
#        over the families that run in under a few minutes -> plant/
#     d  one plain default sweep of new (the 1x of the A/B cost) -> sweep.csv
#     x  the experimental build (make EXPERIMENTAL=1): its quick sweep of
#        the families it changes, compute-sanitizer on them at a tiny size,
#        then A/B new vs experimental over those families -> experimental/
# Each step prints one summary line; the A/B steps' own exit status is
# ab.py's (0 pass, 1 regression or broken rows, ...).
set -u
C=${1:?usage: STEPS=... scripts/ab_proof.sh BUNDLE_DIR OUT_DIR}
O=${2:?usage: STEPS=... scripts/ab_proof.sh BUNDLE_DIR OUT_DIR}
STEPS=${STEPS:-sq}
PLANT_FAMILIES=${PLANT_FAMILIES:-'^(reference|scan|stencil|stencil2d|multistage)/'}
mkdir -p "$O"
. "$(dirname "$0")/bundle.sh"
unpack_bundle "$C" --drop
export PYTHONUNBUFFERED=1
step() { [[ $STEPS == *$1* ]]; }
ab() { # dir, then ab.py's arguments
  local d=$1; shift
  local t=$SECONDS
  python3 scripts/ab.py --dir "$O/$d" "$@" > "$O/$d.out" 2>&1
  local rc=$?
  echo "ab_proof: $d: exit $rc in $((SECONDS - t)) s: $(tail -1 "$O/$d.out")"
  grep -h '^busy\|^CUDA contexts' "$O/$d/ab.txt" 2>/dev/null
}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,power.limit --format=csv,noheader
if step s; then
  G='grid_sync/block_threads=128/iters=1024/participants=all/contention=full'
  for first in base new base new; do
    d=order_$first.$RANDOM
    ab "$d" --base A --new B --base-bin "$C/new" --new-bin "$C/new" \
      --first-server "$first" -- --quick --filter '^barrier/(grid_sync|syncthreads)/'
    grep -h "$G" "$O/$d.out" | tail -1 | cut -d' ' -f4-
  done
fi
step q && ab quick --base BASE --new NEW --base-bin "$C/base" --new-bin "$C/new" -- --quick
step a && ab aa --base BASE --new NEW --base-bin "$C/base" --new-bin "$C/new" ${AA_FILTER:+-- --filter "$AA_FILTER"}
step p && ab plant --base NEW --new PLANT --base-bin "$C/new" --new-bin "$C/plant" -- --filter "$PLANT_FAMILIES"
if step x; then
  X=${EXPERIMENTAL_FAMILIES:-'^(reference|gemm|barrier_cluster|barrier_tma)/'}
  t=$SECONDS; "$C/experimental" --quick --filter "$X" --out "$O/experimental_quick.csv" 2> "$O/experimental_quick.log"
  echo "ab_proof: experimental quick: exit $? in $((SECONDS - t)) s"; tail -1 "$O/experimental_quick.log"
  # scripts/sanitize.sh's tiny sizes (GEMM 256 x 256 x 1024: every ring wraps)
  t=$SECONDS
  SANITIZE_FAMILIES="${EXPERIMENTAL_SANITIZE:-gemm barrier_cluster barrier_tma}" CANARY="$C/racecheck_canary" \
    scripts/sanitize.sh "$C/experimental" 0 > "$O/experimental_sanitize.log" 2>&1
  echo "ab_proof: experimental sanitize: exit $? in $((SECONDS - t)) s"
  cp results/*/sanitize.md "$O/experimental_sanitize.md" 2>/dev/null; tail -3 "$O/experimental_sanitize.log"
  ab experimental --base NEW --new EXPERIMENTAL --base-bin "$C/new" --new-bin "$C/experimental" -- --filter "$X"
fi
if step d; then
  t=$SECONDS; "$C/new" --out "$O/sweep.csv" 2> "$O/sweep.log"
  echo "ab_proof: sweep: exit $? in $((SECONDS - t)) s"; tail -1 "$O/sweep.log"
fi
exit 0
