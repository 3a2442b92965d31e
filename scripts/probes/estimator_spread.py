# estimator_spread.py PAIRS.jsonl[.xz]...: each point's figure under each estimator in each file (one process each),
# and its spread across the files: the estimator that holds across processes is the one to gate on.
# 'medcyc': the median of each sample's time x the SM clock the witness read for it (dumps with "mhz").
import json, lzma, sys, collections
def q(v, p):
    i = p * (len(v) - 1); lo = int(i); hi = min(lo + 1, len(v) - 1); return v[lo] + (v[hi] - v[lo]) * (i - lo)
ESTS = {'min': 0, 'p1': .01, 'p2': .02, 'p5': .05, 'p10': .10, 'q1': .25, 'med': .5}
by, cyc = collections.defaultdict(list), collections.defaultdict(list)
for f in sys.argv[1:]:
    for line in (lzma.open if f.endswith('.xz') else open)(f, 'rt'):
        j = json.loads(line); by[j['point']].append(sorted(j['variant_s']))
        c = [t * m for t, m in zip(j['variant_s'], j.get('mhz') or []) if m is not None]
        if c: cyc[j['point']].append(sorted(c))
worst = collections.defaultdict(float)
for point, runs in sorted(by.items()):
    if len(runs) < 2: continue
    cells = []
    for e, p in ESTS.items():
        vals = [q(v, p) * 1e6 for v in runs]; s = (max(vals) / min(vals) - 1) * 100
        worst[e] = max(worst[e], s); cells.append(f'{e} {s:4.1f}%')
    if len(cyc[point]) == len(runs):
        vals = [q(v, .5) for v in cyc[point]]; s = (max(vals) / min(vals) - 1) * 100
        worst['medcyc'] = max(worst['medcyc'], s); cells.append(f'medcyc {s:4.1f}%')
    short = point.split('/')[1] + ' ' + '/'.join(x for x in point.split('/')[2:] if x.split('=')[0] in ('m', 'k', 'tile', 'splits', 'cluster_shape'))
    print(f'{short:70s} {len(runs)} procs, n {min(map(len, runs))}: ' + '  '.join(cells))
print('worst spread: ' + '  '.join(f'{e} {worst[e]:.1f}%' for e in worst))
