# clock_ramp.py PAIRS.jsonl[.xz]... > ramp.csv: per point of each dump (SB_PAIRS_FILE; samples in the
# order taken), the SM clock the witness read and the sample's time over the first and the last
# eighth of the point's samples: does a point slow down while it is being timed, and with the clock?
import csv, json, lzma, statistics, sys
w = csv.writer(sys.stdout, lineterminator='\n')
w.writerow(['file', 'variant', 'm', 'k', 'tile', 'stages', 'consumer_warps', 'samples',
            'mhz_first', 'mhz_last', 'us_first', 'us_last', 'slowdown_pct', 'status'])
for f in sys.argv[1:]:
    for line in (lzma.open if f.endswith('.xz') else open)(f, 'rt'):
        j = json.loads(line)
        t, mhz = j['variant_s'], j.get('mhz') or []
        if len(t) < 16 or len(mhz) != len(t) or any(m is None for m in mhz):
            continue
        axes = dict(x.split('=', 1) for x in j['point'].split('/')[2:] if '=' in x)
        e = len(t) // 8
        first, last = statistics.median(t[:e]) * 1e6, statistics.median(t[-e:]) * 1e6
        w.writerow([f.split('/')[-1], j['point'].split('/')[1], axes.get('m', ''), axes.get('k', ''), axes.get('tile', ''),
                    axes.get('stages', ''), axes.get('consumer_warps', ''), len(t),
                    f'{statistics.median(mhz[:e]):.0f}', f'{statistics.median(mhz[-e:]):.0f}',
                    f'{first:.2f}', f'{last:.2f}', f'{(last / first - 1) * 100:.2f}', 'ok'])
