#!/usr/bin/env bash
# GPU proof of --devices (issue 7): the scan sweep on GPU 0 alone, then on
# every GPU at once into one CSV; prints both wall times and how far each
# GPU's medians are from GPU 0's. About 1-2 minutes on 2 H200s.
# Usage: scripts/proof_multigpu.sh BIN OUT_DIR
set -u
BIN=${1:-build/syncbench}
O=${2:-/tmp/sb_multi}
mkdir -p "$O"
args=(--filter "${MULTI_FILTER:-^scan/}" --seed 5 --min-time 0.05)
t0=$(date +%s.%N)
"$BIN" "${args[@]}" --device 0 --out "$O/one.csv" 2> "$O/one.log"
echo "one GPU: exit $?, $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"
t0=$(date +%s.%N)
"$BIN" "${args[@]}" --devices all --out "$O/all.csv" 2> "$O/all.log"
echo "every GPU: exit $?, $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"
grep -E '^syncbench: GPU' "$O/all.log"
python3 - "$O/all.csv" <<'PY'
import math, statistics as st, sys
sys.path[:0] = ["scripts", "scripts/lib"]
import sbcsv
rows = [r for r in sbcsv.read(sys.argv[1]) if r["status"] == "ok" and r["family"] != "reference"]
by = {}
for r in rows:
    by.setdefault(r["gpu_uuid"], {})[sbcsv.key(r)] = r["median_us"]
uuids = sorted(by)
print(f"{len(uuids)} GPUs in one CSV, rows per GPU: {[len(by[u]) for u in uuids]}")
base = by[uuids[0]]
for u in uuids[1:]:
    common = [k for k in base if k in by[u]]
    rs = [by[u][k] / base[k] for k in common]
    g = math.exp(st.mean(math.log(x) for x in rs))
    print(f"{u} vs {uuids[0]}: geometric mean x{g:.4f}, middle 90% x{sorted(rs)[len(rs)//20]:.3f}..x{sorted(rs)[-len(rs)//20-1]:.3f} over {len(rs)} points")
PY
