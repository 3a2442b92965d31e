#!/usr/bin/env bash
# GPU proof of issue 7 (reliability), about 3 minutes on an H100/H200:
#  1. a sweep with the deliberately broken variants completes, each broken
#     point marked (deadlock/deadlock/wrong/error), healthy rows ok, and
#     they match a clean run within noise;
#  2. SIGINT halfway + --resume gives the same set of rows as an
#     uninterrupted run;
#  3. what the mbarrier watchdog costs: the timed kernels' SASS is the same
#     in both builds (scripts/twin_sass.py), and SB_WATCHDOG=0 binary vs
#     default, alternating runs of every variant that waits through it
#     (scripts/probes/watchdog_cost.py);
#  4. bad devices exit 2;
#  5. make sanitize (scripts/sanitize.sh) is clean.
# Usage: [STEPS=12345] scripts/proof_reliability.sh BUILD_DIR OUT_DIR [SANITIZE_SCRIPT]
#   STEPS: which steps to run (default all).
#   BUILD_DIR holds syncbench, broken/syncbench, nowd/syncbench (make;
#   make SB_BROKEN=1; make SB_WATCHDOG=0).
set -u
B=${1:-build}
O=${2:-/tmp/sb_proof}
SAN=${3:-scripts/sanitize.sh}
mkdir -p "$O"
BIN=$B/syncbench BROKEN=$B/broken/syncbench NOWD=$B/nowd/syncbench
fail=0
note() { echo "proof: $*"; }
STEPS=${STEPS:-12345}
step() { [[ $STEPS == *$1* ]]; }

if step 1; then
note "1. broken variants in a sweep (isolated workers, watchdog 1 s)"
t0=$SECONDS
"$BROKEN" --quick --filter '^(scan|broken)/' --seed 11 --out "$O/broken.csv" 2> "$O/broken.log"
rc=$?
note "broken sweep exit $rc (1 expected: some points failed) in $((SECONDS - t0)) s"
grep -E 'deadlock|error|wrong|fresh worker' "$O/broken.log" | cut -c1-400
"$BIN" --quick --filter '^scan/' --seed 11 --out "$O/clean.csv" 2> "$O/clean.log"
note "clean sweep exit $?"
python3 - "$O/broken.csv" "$O/clean.csv" <<'EOF' || fail=1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
clean = list(csv.DictReader(open(sys.argv[2])))
want = {"wrong_arrival_count": ("deadlock", "watchdog"), "spin_wrong_count": ("deadlock", "watchdog"),
        "wrong_expect_tx": ("deadlock", "watchdog"), "chain_by_block_index": ("deadlock", "watchdog"),
        "missing_barrier": ("wrong", "differ"), "oob_write": ("error", "illegal"),
        "raw_twin_wrong": ("wrong", "timed (raw-wait) kernel")}
ok = True
for r in rows:
    if r["family"] != "broken":
        continue
    st, word = want[r["variant"]]
    good = r["status"] == st and word in r["detail"]
    if r["variant"] == "wrong_expect_tx" and r["status"] == "unsupported":
        good = True
    ok &= good
    print(f"  {'PASS' if good else 'FAIL'} broken/{r['variant']}: {r['status']}: {r['detail'][:300]}")
key = lambda r: (r["family"], r["variant"], r["block_threads"], r["iters"], r["n"])
healthy = {key(r): r for r in rows if r["family"] == "scan"}
base = {key(r): r for r in clean if r["family"] == "scan"}
assert set(healthy) == set(base) and len(healthy) == 16, (len(healthy), len(base))
ratios = []
for k, r in healthy.items():
    if r["status"] != "ok" or base[k]["status"] != "ok":
        ok = False
        print("  FAIL healthy row not ok:", k, r["status"], base[k]["status"])
        continue
    ratios.append(float(r["median_us"]) / float(base[k]["median_us"]))
print(f"  healthy scan rows after the faults: {len(ratios)}/16 ok; median_us vs clean run: "
      f"min x{min(ratios):.3f} max x{max(ratios):.3f}")
print("  every broken point marked, healthy rows intact:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
EOF

fi
if step 2; then
note "2. interrupt (SIGINT) halfway, then --resume"
args=(--filter '^scan/' --n 4M --min-time 0.01 --seed 5 --no-reference)
t0=$(date +%s.%N)
"$BIN" "${args[@]}" --out "$O/full.csv" 2> "$O/full.log"
rc=$?
t1=$(date +%s.%N)
half=$(python3 -c "print(max(1.0, ($t1 - $t0) / 2))")
note "uninterrupted: exit $rc, $(python3 -c "print(round($t1 - $t0, 1))") s; interrupting the next run after $half s"
"$BIN" "${args[@]}" --out "$O/resumed.csv" 2> "$O/interrupted.log" &
pid=$!
sleep "$half"
kill -INT $pid
wait $pid
rc=$?
rows=$(($(wc -l < "$O/resumed.csv") - 1))
note "interrupted: exit $rc (130 expected), $rows rows kept; $(tail -1 "$O/interrupted.log")"
[ $rc = 130 ] || fail=1
"$BIN" "${args[@]}" --resume "$O/resumed.csv" 2> "$O/resume.log"
note "resume: exit $? ($(grep -E 'resuming' "$O/resume.log"))"
python3 - "$O/full.csv" "$O/resumed.csv" <<'EOF' || fail=1
import csv, sys
def keys(p):
    rows = list(csv.DictReader(open(p)))
    k = [(r["family"], r["variant"], r["block_threads"], r["iters"], r["n"], r["status"]) for r in rows]
    return k
a, b = keys(sys.argv[1]), keys(sys.argv[2])
same = sorted(a) == sorted(b) and len(set(b)) == len(b)
print(f"  uninterrupted {len(a)} rows, interrupted+resumed {len(b)} rows, duplicates {len(b) - len(set(b))}: "
      f"same set of rows (point + status): {'PASS' if same else 'FAIL'}")
sys.exit(0 if same else 1)
EOF

fi
if step 3; then
note "3. watchdog cost: every variant whose waits the watchdog bounds, default axes, SB_WATCHDOG=0 vs 1, alternating"
# The variants with a bounded and a raw kernel (kernels/common/mbarrier.cuh): the
# ones that wait through sb_mbar_wait_parity, and the price-list rows with
# their own mbarrier spin loop. Validated with the bounded kernel, timed
# with the raw one, whose SASS must not depend on the watchdog.
python3 scripts/twin_sass.py "$BIN" "$NOWD" | tail -1
[ "${PIPESTATUS[0]}" = 0 ] || fail=1
WD_FILTER=${WD_FILTER:-'^(scan/mbarrier|stencil(2d)?/mbarrier|multistage/specialized_mbarrier|pipeline(_intensity)?/(ws_barrier|ws_tma|ws_tma_2d)|barrier/(ptx_mbarrier_parity|primitives_mbarrier|mbarrier_test_wait_poll|expect_tx_zero)|barrier_tma/tma_roundtrip)/'}
COST_RUNS=${COST_RUNS:-2}  # alternations (nowd, wd); 2 gives an A/A noise figure
t0=$SECONDS
for i in $(seq "$COST_RUNS"); do
  for v in nowd wd; do
    b=$BIN; [ $v = nowd ] && b=$NOWD
    "$b" --filter "$WD_FILTER" --seed 3 --no-reference --out "$O/cost_${v}_$i.csv" 2> "$O/cost_${v}_$i.log"
  done
done
note "four sweeps in $((SECONDS - t0)) s"
python3 scripts/probes/watchdog_cost.py --nowd "$O"/cost_nowd_*.csv --wd "$O"/cost_wd_*.csv || fail=1

fi
if step 4; then
note "4. bad devices"
"$BIN" --quick --device 63 --out "$O/nodev.csv" 2>&1 | tail -1; note "--device 63: exit ${PIPESTATUS[0]} (2 expected)"
"$BIN" --quick --devices 0,63 --out "$O/nodev.csv" 2>&1 | tail -1; note "--devices 0,63: exit ${PIPESTATUS[0]} (2 expected)"

fi
if step 5; then
note "5. sanitize"
"$SAN" "$BIN" 0 2>&1 | tail -8
san=${PIPESTATUS[0]}
cp results/*/sanitize.md "$O/" 2>/dev/null
[ $san = 0 ] || fail=1
fi
note "done: $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
