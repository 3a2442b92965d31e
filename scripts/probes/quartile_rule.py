# quartile_rule.py > rule.csv: rule A's second condition, the quartiles, against a notch, on the
# committed data: the study that made the gate read the notches (its proof, quartile_rule_54076e2, is
# this script's output at 54076e2, before the change). Rule A up to then (quartiles_slower) flagged
# a point whose median moved past its band AND whose interquartile ranges do not overlap. A point whose
# samples spread widely (devscan at 1M: IQR +-4.5% over 7,000 samples) then needs a move of about
# twice its spread, whatever its band. The notch in its place: the medians' ~95% intervals,
# median +- 1.57 IQR / sqrt(samples) (McGill, Tukey and Larsen 1978), do not overlap.
# Rows (kind):
#   flags  every committed A/A pair (scripts/bands.py: ab, same_chip and chip pairings), judged out of
#          sample as the gate judges it (bands.for_pair): the points flagged slower under each rule;
#   added  each point the notch flags and the quartiles do not (value: its gated ratio);
#   edge   pairs of one commit's sweeps on two chips (EDGE_PAIRS): per variant, the smallest whole-
#          variant plant of sbcompare.WHOLE_VARIANT_PLANTS that fails the gate under each rule
#          (empty: none up to the largest).
import csv, os, sys

sys.path[:0] = [os.path.join(os.path.dirname(os.path.abspath(__file__)), d) for d in ('..', '../lib')]
import bands, sbcompare  # noqa: E402

GATE = sbcompare.slower_beyond_noise  # the gate's own rule, restored after each judgement


def quartiles_slower(base, new, threshold, clocks=(1.0, 1.0)):
    """Rule A as it was up to 54076e2: the interquartile ranges do not overlap."""
    cb, cn = clocks
    return (new['median_us'] * cn > base['median_us'] * cb * (1 + threshold)
            and new['q1_us'] * cn > base['q3_us'] * cb)


QUARTILES = quartiles_slower


def notch(row):
    """Half the width of the median's notch (us, sbcompare.notch_us); as the
    study ran it, half the IQR without a sample count."""
    half = sbcompare.notch_us(row)
    return (row['q3_us'] - row['q1_us']) / 2 if half is None else half


def notch_slower(base, new, threshold, clocks=(1.0, 1.0)):
    """Rule A with the notches in place of the quartiles."""
    cb, cn = clocks
    return (new['median_us'] * cn > base['median_us'] * cb * (1 + threshold)
            and (new['median_us'] - notch(new)) * cn > (base['median_us'] + notch(base)) * cb)


RULES = (('quartiles', QUARTILES), ('notch', notch_slower))
H200 = os.path.join(bands.RESULTS, 'h200')
EDGE_PAIRS = [(os.path.join(H200, 'baseline.csv'), os.path.join(H200, 'latest.csv'))] + [
    (os.path.join(H200, 'proofs', f'round_{c}', f'sweep_{a}.csv.xz'),
     os.path.join(H200, 'proofs', f'round_{c}', f'sweep_{b}.csv.xz'))
    for c, chips in (('983f7d2', ('e61d089d', 'd76a1e8f', '2775c07c')), ('ccb87e3', ('1f0db85a', '4cca22c5', 'a531e98e')))
    for i, a in enumerate(chips) for b in chips[i + 1:]]


def judged(base, new, rule, bands_, interleaved=False):
    sbcompare.slower_beyond_noise = rule
    try:
        return sbcompare.compare(base, new, bands=bands_, interleaved=interleaved)
    finally:
        sbcompare.slower_beyond_noise = GATE


def main(edge_pairs=EDGE_PAIRS, gpus=None):
    w = csv.writer(sys.stdout, lineterminator='\n')
    w.writerow(('kind', 'gpu', 'pairing', 'base', 'new', 'variant', 'point', 'rule', 'value', 'status'))
    _, pairs, _ = bands.collect(bands.RESULTS)
    for p in pairs:
        if gpus and os.path.basename(p.gpu_dir) not in gpus:
            continue
        b = bands.for_pair(p.base, p.new)
        head = (os.path.basename(p.gpu_dir), p.pairing, bands.rel(p.base.path), bands.rel(p.new.path))
        flagged = {}
        for name, rule in RULES:
            cmp = judged(p.base, p.new, rule, b, interleaved=p.pairing == 'ab')
            flagged[name] = {sbcompare.describe_point(m.base): m for m in cmp.regressions}
            w.writerow(('flags', *head, '', '', name, len(cmp.regressions), 'ok'))
        for point in sorted(set(flagged['notch']) - set(flagged['quartiles'])):
            m = flagged['notch'][point]
            w.writerow(('added', *head, '/'.join(sbcompare.by_variant(m)), point, 'notch', f'{m.gated:.4f}', 'ok'))
    for base_path, new_path in edge_pairs:
        base, new = sbcompare.load_run(base_path), sbcompare.load_run(new_path)
        b = bands.for_pair(base, new)
        head = (bands.rel(base_path).split(os.sep)[1], 'chip', bands.rel(base_path), bands.rel(new_path))
        for name, rule in RULES:
            sbcompare.slower_beyond_noise = rule
            try:
                cmp = sbcompare.compare(base, new, bands=b)
                for v in sorted({sbcompare.by_variant(m) for m in cmp.matches}):
                    edge = sbcompare.whole_variant_edge(cmp, v)
                    w.writerow(('edge', *head, '/'.join(v), '', name, '' if edge is None else f'{edge:.2f}',
                                'ok' if edge else 'none'))
            finally:
                sbcompare.slower_beyond_noise = GATE


if __name__ == '__main__':
    if len(sys.argv) != 1:
        sys.exit('usage: quartile_rule.py > rule.csv (reads the committed results)')
    main()
