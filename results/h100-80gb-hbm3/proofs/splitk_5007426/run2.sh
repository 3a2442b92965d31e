#!/bin/bash
# split-K study's device run 2: planted bug, sanitizers, comparisons, default-sweep additions.
C=$(dirname "$0"); O=${OUT_DIR:-/tmp/o}
for z in $(find "$C" -name '*.xz'); do xz -dc "$z" > "${z%.xz}"; chmod +x "${z%.xz}"; done
export LD_LIBRARY_PATH=$C/lib
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
B=$C/syncbench; t=$SECONDS
$C/broken/syncbench --filter '^gemm/splitk_serial_no_release' --m 256 --k 1024 --splits 2 --stages 6 --tile 128x128x64 --watchdog-ms 1000 --out $O/broken.csv 2> $O/broken.log; echo "broken rc=$? (1 expected) $((SECONDS-t)) s"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in racecheck synccheck; do
  timeout 60 $CS --tool $tool --print-limit 5 $B --filter '^gemm/(splitk|streamk)' --m 256 --k 1024 --splits 2,8 --stages 4,6 --warmup 0 --min-time 0.0005 --no-fork --watchdog-ms 20000 --out $O/san-$tool.csv > $O/san-$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'SUMMARY' $O/san-$tool.log | tail -1) $((SECONDS-t)) s"
done
F='^gemm/(cublas|ws_tma_wgmma|splitk|streamk)/'
$B --filter "$F" --m 1k --k 16k --out $O/k16.csv 2> /dev/null; echo "k16 rc=$? $((SECONDS-t)) s"
$B --filter "$F" --m 512 --k 32k --out $O/k32.csv 2> /dev/null; echo "k32 rc=$? $((SECONDS-t)) s"
$B --filter '^gemm/(cublas|ws_tma_wgmma|streamk)/' --m 4k --k 4k --out $O/sq4.csv 2> /dev/null; echo "sq4 rc=$? $((SECONDS-t)) s"
$B --filter '^gemm/(cublas|ws_tma_wgmma|streamk)/' --m 8k --k 8k --tile 128x256x64 --out $O/sq8.csv 2> /dev/null; echo "sq8 rc=$? $((SECONDS-t)) s"
t0=$SECONDS; $B --filter '^gemm/(splitk|streamk)' --out $O/default-new.csv 2> $O/default-new.log; echo "default new-variant points rc=$? $((SECONDS-t0)) s"
t0=$SECONDS; $B --quick --filter '^gemm/' --out $O/quick.csv 2> /dev/null; echo "quick gemm rc=$? $((SECONDS-t0)) s"
python3 - $O/broken.csv $O/san-racecheck.csv $O/default-new.csv $O/quick.csv $O/k16.csv $O/k32.csv $O/sq4.csv $O/sq8.csv <<'PY'
import csv, sys, os, collections
for f in sys.argv[1:]:
    if not os.path.exists(f): continue
    rows = [r for r in csv.DictReader(open(f)) if r.get('family') == 'gemm']
    st = collections.Counter(r['status'] for r in rows)
    print(f"== {os.path.basename(f)} {dict(st)}")
    if 'default' in f or 'quick' in f or 'san' in f:
        for r in rows:
            if r['status'] != 'ok': print("  NOT OK", r['variant'], r['m'], r['k'], r['tile'], r['splits'], r['status'], r['detail'][:150])
        continue
    cub = {(r['m'], r['k']): float(r['median_us']) for r in rows if r['variant'] == 'cublas' and r['median_us']}
    for r in rows:
        us = float(r['median_us']) if r['median_us'] else float('nan')
        c = cub.get((r['m'], r['k']))
        pct = 100 * c / us if c and us == us else float('nan')
        print(f"{r['variant'][:16]:16s} {r['m']:>4}/{r['k']:>5} {r['tile'][:7]:>7} s{r['stages']:>1} sp{r.get('splits',''):>2} {r['status'][:8]:8s} {us:8.1f} {pct:5.1f}% pc={r.get('pct_of_cublas','')} {r['detail'][:100] if r['status']!='ok' else ''}")
PY
