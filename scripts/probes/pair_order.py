# pair_order.py SWEEP.csv PAIRS.jsonl[.xz] > order.csv: for each paired point of a sweep, how its
# samples differ by their place in their pair. A paired point's samples alternate v c / c v
# (harness/timing.c: the ceiling first in odd pairs), so each side runs first in half its pairs and
# second, right after the other side's launch was waited for, in the rest. Per point: the median of
# the variant's samples that ran first in their pair minus the median of those that ran second (us),
# the same for the ceiling's, and whether the sweep flushed the L2 before each sample (its row's
# detail) or timed it with no flush (a working set over 4x the L2). A sample with a flush before it
# starts behind that flush on a busy stream; one with none, on an idle stream, unless the clock
# witness's spin runs just before it (every 1 ms of kernel time, before a pair's first side).
import csv, json, lzma, os, statistics, sys

sys.path[:0] = [os.path.join(os.path.dirname(os.path.abspath(__file__)), d) for d in ('..', '../lib')]
import explain, sbcsv  # noqa: E402

def first_minus_second(samples, first_parity):
    """The median of samples at first_parity's indices minus the rest's, in us."""
    first = [x for i, x in enumerate(samples) if i % 2 == first_parity]
    second = [x for i, x in enumerate(samples) if i % 2 != first_parity]
    if not first or not second:
        return ''
    return f'{(statistics.median(first) - statistics.median(second)) * 1e6:.3f}'


def main(sweep, pairs):
    ok = [r for r in sbcsv.read(sweep) if r['status'] == 'ok']
    w = csv.writer(sys.stdout, lineterminator='\n')
    w.writerow(('point', 'family', 'variant', 'flushed', 'samples', 'median_us', 'variant_first_minus_second_us',
                'ceiling_first_minus_second_us', 'status', *explain.PROVENANCE))
    with (lzma.open if pairs.endswith('.xz') else open)(pairs, 'rt') as f:
        for line in f:
            j = json.loads(line)
            point = explain.parse_name(j['point'])
            family, variant = point['family'], point['variant']
            row = explain.latest_row(point, ok)
            if row is None:
                sys.exit(f"pair_order.py: {pairs}: point {j['point']} is not an ok row of {sweep}")
            v, c = j['variant_s'], j.get('ceiling_s') or []
            w.writerow((j['point'], family, variant, int('L2 flushed' in (row.get('detail') or '')), len(v),
                        f"{row['median_us']:.4f}", first_minus_second(v, 0),
                        first_minus_second(c, 1) if len(c) == len(v) else '', 'ok')
                       + tuple(row.get(k, '') for k in explain.PROVENANCE))


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: pair_order.py SWEEP.csv PAIRS.jsonl[.xz]')
    main(sys.argv[1], sys.argv[2])
