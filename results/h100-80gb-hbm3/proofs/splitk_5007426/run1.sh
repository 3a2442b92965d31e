#!/bin/bash
# split-K study's device run: validation + timing + sanitizer + planted bug.
C=$(dirname "$0"); O=${OUT_DIR:-/tmp/o}
for z in $(find "$C" -name '*.xz'); do xz -dc "$z" > "${z%.xz}"; chmod +x "${z%.xz}"; done
export LD_LIBRARY_PATH=$C/lib
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
B=$C/syncbench
F='^gemm/(cublas|ws_tma_wgmma|splitk)'
t=$SECONDS
$B --filter "$F" --m 1k --k 16k --splits 2,3,4,6,8,16 --out $O/k16.csv 2> $O/k16.log; echo "k16 rc=$? $((SECONDS-t)) s"
$B --filter "$F" --m 512 --k 32k --splits 4,8,12,16,32 --out $O/k32.csv 2> $O/k32.log; echo "k32 rc=$? $((SECONDS-t)) s"
$B --filter "$F" --m 4k --k 4k --splits 2 --out $O/sq.csv 2> $O/sq.log; echo "sq rc=$? $((SECONDS-t)) s"
if [ -x $C/broken/syncbench ]; then
  $C/broken/syncbench --filter '^gemm/splitk_serial_no_release' --m 256 --k 1024 --splits 2 --stages 6 --tile 128x128x64 --watchdog-ms 1000 --out $O/broken.csv 2> $O/broken.log; echo "broken rc=$? (1 expected) $((SECONDS-t)) s"
fi
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in racecheck synccheck; do
  $CS --tool $tool --print-limit 5 $B --filter '^gemm/splitk' --m 256 --k 1024 --splits 2,8 --stages 4,6 --warmup 0 --min-time 0.0005 --no-fork --watchdog-ms 120000 --out $O/san-$tool.csv > $O/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' $O/san-$tool.log | tail -1) $((SECONDS-t)) s"
done
python3 - $O/k16.csv $O/k32.csv $O/sq.csv $O/broken.csv $O/san-racecheck.csv $O/san-synccheck.csv <<'PY'
import csv, sys, os
for f in sys.argv[1:]:
    if not os.path.exists(f): continue
    rows = [r for r in csv.DictReader(open(f)) if r.get('family') == 'gemm']
    print(f"== {os.path.basename(f)}")
    cub = {(r['m'], r['k']): float(r['median_us'] or 'nan') for r in rows if r['variant'] == 'cublas' and r['median_us']}
    for r in rows:
        us = float(r['median_us']) if r['median_us'] else float('nan')
        c = cub.get((r['m'], r['k']))
        pct = 100 * c / us if c and us == us else float('nan')
        print(f"{r['variant']:26s} m={r['m']:>5} k={r['k']:>6} tile={r['tile']:>10} st={r['stages']:>2} sp={r.get('splits',''):>3} "
              f"{r['status']:8s} {us:9.1f}us {pct:6.1f}%cub {r['detail'][:90] if r['status']!='ok' else ''}")
PY
