# ncu_points.py ROWS.csv NCU_RAW.csv [NCU_RAW.csv ...] > points.csv: one line per profiled point of a
# `syncbench --profile-warmup` run under Nsight Compute (`ncu --profile-from-start off ... -o R`, then
# `ncu --import R.ncu-rep --csv --page raw`): the point's axes and provenance from the run's own rows
# (ROWS.csv, its --out), and each metric of each raw CSV (several ncu passes over the same run) for
# the kernel its marker opened. Points pair with the marked groups in run order (a point that did
# not run, e.g. unsupported, has no group); a point whose launch ran several kernels (cuBLAS's
# split-K) keeps its first, its kernels counted. Nothing is computed: ncu's values as it gave them,
# durations in us (a metric two passes give: the first's).
import csv, os, sys

sys.path[:0] = [os.path.join(os.path.dirname(os.path.abspath(__file__)), d) for d in ('..', '../lib')]
import explain, sbcsv  # noqa: E402

AXES = ('family', 'variant', 'm', 'n', 'k', 'tile', 'cluster_shape', 'stages', 'splits')
LAUNCH = ('kernel', 'kernels', 'grid', 'launch__cluster_size', 'launch__block_size',
          'launch__registers_per_thread')
# ncu's raw page also lists the device's attributes and each metric's avg/min/max: kept are the
# totals (and rates) of the time, L2 and SM-cycle metrics: counts, which ncu gives unscaled (byte
# metrics such as dram__bytes come in a unit ncu picks per report, which parse_ncu_csv does not keep).
KEPT_PREFIXES = ('gpu__time_duration', 'lts__t_', 'sm__cycles_active', 'smsp__')


def kept(metric):
    return metric.startswith(KEPT_PREFIXES) and (metric.endswith(('.sum', '.pct', '.ratio'))
                                                 or metric == 'sm__cycles_active.avg')


def main(rows_path, raw_paths):
    points = [r for r in sbcsv.read(rows_path) if r['status'] == 'ok']
    passes = []
    for path in raw_paths:
        with open(path, encoding='utf-8') as f:
            groups = explain.marked_groups(explain.parse_ncu_csv(f.read()))
        if len(groups) != len(points):
            sys.exit(f"ncu_points.py: {path}: {len(groups)} marked launches, {rows_path}: {len(points)} points")
        passes.append([groups[i] for i in sorted(groups)])
    metrics = sorted({m for p in passes for g in p for m in g[0] if kept(m)})
    w = csv.writer(sys.stdout, lineterminator='\n')
    w.writerow(AXES + LAUNCH + tuple(m.replace(explain.DURATION, 'duration_us') for m in metrics)
               + ('status', *explain.PROVENANCE))
    for i, r in enumerate(points):
        first = passes[0][i][0]
        merged = {}
        for p in reversed(passes):  # the first pass's value where two give one metric
            merged.update({m: v for m, v in p[i][0].items() if v is not None})
        cells = [r.get(a) if r.get(a) is not None else '' for a in AXES]
        cells += [first['kernel'][:160], len(passes[0][i]), first['grid']]
        cells += [merged.get(m, '') for m in LAUNCH[3:]]
        cells += [(merged[m] / 1e3 if m == explain.DURATION else merged[m]) if m in merged else '' for m in metrics]
        w.writerow(cells + ['ok'] + [r.get(c, '') for c in explain.PROVENANCE])


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit(__doc__ or 'usage: ncu_points.py ROWS.csv NCU_RAW.csv [NCU_RAW.csv ...]')
    main(sys.argv[1], sys.argv[2:])
