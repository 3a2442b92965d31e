#!/usr/bin/env bash
# Every GPU check of a build on one GPU node (sweeps, compute-sanitizer, the
# planted bugs, the off-sweep proof, the gate's A/A), from a bundle built beforehand
# on a machine with the toolkit (make bundle, EXTRA=1 for steps a, b, o and
# p; docs/fleet.md): the node needs neither network, nvcc nor Google
# Benchmark. Run it from inside the bundle. Each step writes under OUT and
# prints one summary line; the exit status is the first failing step's (0:
# all passed).
#
#   STEPS=qpsa scripts/gpu_round.sh . out
#     q  quick sweep (every variant validated and timed)  -> quick.csv
#     p  the plain scan/stencil/multistage/devscan kernels (tests/gpu/plain_kernels.cu) -> plain.txt
#     o  the scan kernels beside e917ed3's (tests/gpu/scan_predecessors.cu) -> predecessors.txt
#     s  compute-sanitizer over every family (scripts/sanitize.sh)    -> sanitize.md
#     a  the sm_80 code path: the compute_80 PTX build's default sweep -> sm80-path.csv
#     d  the default sweep (make bench's)                             -> latest.csv, pairs.jsonl
#     b  the broken-variant proof (each bad point costs one row; the
#        planted gemm/barrier rows each get their expected status, the
#        split-K ones also at the 128x96 tile)                         -> broken.csv
#     f  the off-sweep proof: gemm's K-heavy squares (m = n = 128-1152, k =
#        8k-128k) and M != N shapes (there also the 128x256 tile, which
#        1152 / 256 rules out at the squares, and the data-parallel ping-pong
#        and persistent multicast kernels; the 128x96 tile where M and N
#        are whole 96s), the shapes of up to two waves of tiles (m = n =
#        1152-1920, k = 4k-16k: where stream-K's partial wave matters), one
#        tile at its stage counts (a sweep each, --then: one run), so the CSV
#        holds no rows skipped by the stage rule (OFFSWEEP_RESUME=1
#        continues a cut run's CSV)                           -> offsweep/gemm.csv
#     k  gemm at shapes no tile divides, every variant and tile validated
#        (scripts/gemm_odd.sh, make gemm-odd's)              -> gemm-odd.csv
#     e  where the warps wait: scripts/explain.py (Nsight Compute) over the
#        explain set, with the points of step d's sweep (EXPLAIN_LATEST=CSV:
#        another sweep's; EXPLAIN_FILTER=REGEX: part of the set, e.g. '^gemm/')
#                                                             -> explain/stalls.csv, explain.log
#     g  the gate's A/A (issue 36's proof): scripts/ab.py with the bundle's
#        binary on both sides, retakes on, over ^(reference|gemm|barrier|devscan)/
#        (AA_FILTER: another --filter, e.g. '^(reference|gemm)/' or every other
#        family: an A/A of every family is two runs on an H200);
#        a flagged point fails the step (a change that does nothing)   -> aa/
# Time on an H200: q 25 s, p < 1 min, s 3.5 min, g 4.5 min, a < 10 min (910219a); d about 5.5 min
# (each committed sweep's elapsed_s: the README's answers give it); f and k, one run each since
# --then, not yet timed whole (f's 13 lines took 2-4 min a part in the offsweep proofs, k 20-40 s a shape).
set -u
C=${1:?usage: STEPS=... scripts/gpu_round.sh BUNDLE_DIR OUT_DIR}
O=${2:?usage: STEPS=... scripts/gpu_round.sh BUNDLE_DIR OUT_DIR}
STEPS=${STEPS:-qps}
mkdir -p "$O"
. "$(dirname "$0")/bundle.sh"
unpack_bundle "$C"
rc=0
step() { [[ $STEPS == *$1* ]]; }
ran() { # name status seconds
  echo "gpu_round: $1: exit $2 in $3 s"
  if [ "$2" != 0 ] && [ "$rc" = 0 ]; then rc=$2; fi
}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$O/gpu.txt" 2>&1
cat "$O/gpu.txt"
if step q; then
  t=$SECONDS; "$C/syncbench" --quick --out "$O/quick.csv" 2> "$O/quick.log"
  ran quick $? $((SECONDS - t)); tail -3 "$O/quick.log"
fi
if step p; then
  t=$SECONDS; "$C/plain_kernels" > "$O/plain.txt" 2>&1
  ran plain $? $((SECONDS - t)); tail -1 "$O/plain.txt"
fi
if step o; then
  t=$SECONDS; "$C/scan_predecessors" > "$O/predecessors.txt" 2>&1
  ran predecessors $? $((SECONDS - t)); tail -1 "$O/predecessors.txt"
fi
if step s; then
  t=$SECONDS; CANARY=$C/racecheck_canary scripts/sanitize.sh "$C/syncbench" 0 > "$O/sanitize.log" 2>&1
  ran sanitize $? $((SECONDS - t))
  cp results/*/sanitize.md "$O/" 2>/dev/null; tail -3 "$O/sanitize.log"
fi
if step a; then
  t=$SECONDS; "$C/sm80/syncbench" --out "$O/sm80-path.csv" 2> "$O/sm80-path.log"
  ran sm80-path $? $((SECONDS - t)); tail -3 "$O/sm80-path.log"
fi
if step d; then
  t=$SECONDS; SB_PAIRS_FILE="$O/pairs.jsonl" "$C/syncbench" --out "$O/latest.csv" 2> "$O/latest.log"
  ran default $? $((SECONDS - t)); tail -3 "$O/latest.log"
fi
if step b; then
  t=$SECONDS; "$C/broken/syncbench" --quick --filter '^(broken/|gemm/splitk_serial_no_release/|gemm/splitk_parallel_stale_counters/|gemm/ws_tma_wgmma_multicast_no_remote_arrive/|gemm/splitk_reduce_drops_a_slice/|gemm/splitk_cooperative_missing_arrival/|barrier/flag_handoff_lost_token/|devscan/lookback_stale_tag/)' --out "$O/broken.csv" 2> "$O/broken.log"
  s=$?
  # splitk_cluster_no_reset is wrong only where 2+ clusters share a tile
  # (splits > 8: its counters), which --quick's auto counts never reach.
  "$C/broken/syncbench" --filter '^gemm/splitk_cluster_no_reset/' --m 256 --k 8k --splits 16,24 \
    --resume "$O/broken.csv" 2>> "$O/broken.log"
  s2=$?
  # The split-K plants again at the 128x96x64 tile, at 384^2 where it fits
  # (its own stage count and bookkeeping: 12 reduction blocks a tile).
  "$C/broken/syncbench" --filter '^gemm/(splitk_serial_no_release|splitk_parallel_stale_counters|splitk_reduce_drops_a_slice|splitk_cooperative_missing_arrival)/' \
    --m 384 --k 8k --tile 128x96x64 --splits auto --resume "$O/broken.csv" 2>> "$O/broken.log"
  s3=$?
  "$C/broken/syncbench" --filter '^gemm/splitk_cluster_no_reset/' --m 384 --k 8k --tile 128x96x64 --splits 16 \
    --resume "$O/broken.csv" 2>> "$O/broken.log"
  s4=$?
  for x in $s2 $s3 $s4; do [ $s = 1 ] && [ $x != 1 ] && s=$x; done
  ran broken "$([ $s = 1 ] && echo 0 || echo $s)" $((SECONDS - t))  # 1 expected: bad points
  grep -c ',deadlock,\|,wrong,\|,error,' "$O/broken.csv"
  # The planted rows outside the broken family (its own: proof_reliability.sh
  # step 1) must get their status, and the words that say which check caught them.
  python3 - "$O/broken.csv" <<'EOF'
import csv, sys
want = {"gemm/splitk_serial_no_release": ("deadlock", "watchdog"),
        "gemm/splitk_parallel_stale_counters": ("wrong", "second launch on the dirty workspace"),
        "gemm/splitk_cluster_no_reset": ("wrong", "second launch on the dirty workspace"),
        "gemm/splitk_cooperative_missing_arrival": ("deadlock", "watchdog"),
        "gemm/ws_tma_wgmma_multicast_no_remote_arrive": ("deadlock", "watchdog"),
        "gemm/splitk_reduce_drops_a_slice": ("wrong", "differ from the double reference"),
        "barrier/flag_handoff_lost_token": ("deadlock", "watchdog"),
        "devscan/lookback_stale_tag": ("wrong", "second launch on the dirty workspace")}
seen = dict.fromkeys(want, 0)
at96 = dict.fromkeys((n for n in want if n.startswith("gemm/splitk_")), 0)  # caught at the 128x96 tile too
bad = 0
for r in csv.DictReader(open(sys.argv[1], newline="")):
    name = r["family"] + "/" + r["variant"]
    if name not in want or r["status"] in ("skipped", "unsupported"):
        continue
    status, words = want[name]
    good = r["status"] == status and words in r["detail"]
    seen[name] += good
    if name in at96 and r.get("tile") == "128x96x64":
        at96[name] += good
    bad += not good
    print(f"  {'PASS' if good else 'FAIL'} {name}: {r['status']}: {r['detail'][:200]}")
missing = [n for n, k in seen.items() if k == 0]
for n in missing:
    print(f"  FAIL {n}: no row with status {want[n][0]}")
missing96 = [n for n, k in at96.items() if k == 0]
for n in missing96:
    print(f"  FAIL {n}: no row with status {want[n][0]} at the 128x96x64 tile")
sys.exit(1 if bad or missing or missing96 else 0)
EOF
  ran planted $? 0
fi
if step f; then
  t=$SECONDS; mkdir -p "$O/offsweep"
  G='^gemm/(cublas|splitk|streamk|ws_tma_wgmma/)'
  SQUARES="--m 128,256,384,640,768,1152 --k 8192,16384,32768,65536,131072"
  MN="--m 256,1152 --n 768,2048 --k 16384,65536"
  WAVES="--m 1152,1536,1920 --k 4096,8192,16384"  # up to two waves of 128x128 tiles on 132 SMs (96 divides each)
  SQUARES96="--m 384,768,1152 --k 8192,16384,32768,65536,131072" MN96="--m 256,1152 --n 768 --k 16384,65536"
  # One run, a sweep a line (--then): one context for all, cuBLAS's rows once
  # a shape. Each line: shape ; filter ; tile and the stage, warp and cluster
  # counts it runs at.
  sweeps=()
  while IFS=';' read -r shape filter tile; do
    [ ${#sweeps[@]} = 0 ] || sweeps+=(--then)
    # shellcheck disable=SC2206  # the shapes and tiles are word lists
    sweeps+=(--filter "$filter" $shape $tile --splits auto)
  done <<EOF
$SQUARES;$G;--tile 128x128x64 --stages 5,6 --warps 4
$SQUARES;$G;--tile 64x128x64 --stages 8 --warps 4
$SQUARES96;$G;--tile 128x96x64 --stages 7 --warps 4
$MN;$G;--tile 128x128x64 --stages 5,6 --warps 4
$MN;$G;--tile 64x128x64 --stages 8 --warps 4
$MN;$G;--tile 128x256x64 --stages 4 --warps 8
$MN96;$G;--tile 128x96x64 --stages 7 --warps 4
$MN;^gemm/ws_tma_wgmma_pingpong_tma_store/;--tile 128x128x64 --stages 6 --warps 8
$MN;^gemm/ws_tma_wgmma_multicast_persistent_tma_store/;--tile 128x256x64 --stages 4 --warps 8 --cluster-shape 2x1
$WAVES;$G;--tile 128x128x64 --stages 5,6 --warps 4
$WAVES;$G;--tile 64x128x64 --stages 8 --warps 4
$WAVES;^gemm/ws_tma_wgmma_pingpong_tma_store/;--tile 128x128x64 --stages 6 --warps 8
$WAVES;$G;--tile 128x96x64 --stages 7 --warps 4
EOF
  into=(--out "$O/offsweep/gemm.csv")  # OFFSWEEP_RESUME=1: continue a cut run's CSV
  [ "${OFFSWEEP_RESUME:-0}" = 1 ] && [ -s "$O/offsweep/gemm.csv" ] && into=(--resume "$O/offsweep/gemm.csv")
  "$C/syncbench" "${into[@]}" "${sweeps[@]}" < /dev/null 2>> "$O/offsweep/gemm.log"
  ran offsweep $? $((SECONDS - t)); tail -1 "$O/offsweep/gemm.log"
fi
if step k; then
  t=$SECONDS; scripts/gemm_odd.sh "$C/syncbench" "$O/gemm-odd.csv" < /dev/null 2> "$O/gemm-odd.log"
  ran gemm-odd $? $((SECONDS - t)); tail -1 "$O/gemm-odd.log"
fi
if step e; then
  t=$SECONDS
  python3 scripts/explain.py --binary "$C/syncbench" --outdir "$O/explain" \
    --latest "${EXPLAIN_LATEST:-$O/latest.csv}" ${EXPLAIN_FILTER:+--filter "$EXPLAIN_FILTER"} > "$O/explain.log" 2>&1
  ran explain $? $((SECONDS - t)); tail -2 "$O/explain.log"
fi
if step g; then
  t=$SECONDS
  python3 scripts/ab.py --base A --new A2 --base-bin "$C/syncbench" --new-bin "$C/syncbench" \
    --dir "$O/aa" -- --filter "${AA_FILTER:-^(reference|gemm|barrier|devscan)/}" > "$O/aa.log" 2>&1
  ran aa $? $((SECONDS - t)); tail -3 "$O/aa.log"
fi
exit $rc
