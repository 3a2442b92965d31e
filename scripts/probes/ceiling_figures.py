# ceiling_figures.py GPU_DIR [FAMILY] > shifts.csv: for every two committed runs of one commit
# (scripts/bands.py's chip and same_chip pairs), per variant of FAMILY (a family with a ceiling
# column, default devscan) and size n, the Hodges-Lehmann shift of its points between the runs,
# read on each figure the gate could take: time (median), cycles (median x SM clock) and the
# paired ratio to the ceiling; n = all: over every point of the variant (what the gate's rule B
# reads). Which figure moves least between two runs is the one to gate on.
import csv, math, os, statistics, sys

sys.path[:0] = [os.path.join(os.path.dirname(os.path.abspath(__file__)), d) for d in ('..', '../lib')]
import bands, sbcompare, sbvariants  # noqa: E402


def hl(xs):
    return statistics.median([(a + b) / 2 for i, a in enumerate(xs) for b in xs[i:]])


gpu_dir, family = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else 'devscan')
column = sbvariants.family(family).ceiling_column
w = csv.writer(sys.stdout, lineterminator='\n')
w.writerow(['gpu_name', 'pairing', 'commit', 'base_chip', 'new_chip', 'family', 'variant', 'n', 'points',
            'time_shift_pct', 'cycles_shift_pct', 'paired_shift_pct', 'abs_time_pct', 'abs_cycles_pct',
            'abs_paired_pct'])
for pairing, pairs in sorted(bands.run_pairs(bands.gpu_runs(gpu_dir)).items()):
    for a, b in pairs:
        moves = {}
        for k, br in a.by_key.items():
            nr = b.by_key.get(k)
            if nr is None or br['family'] != family or br['status'] != 'ok' or nr['status'] != 'ok':
                continue
            t = math.log(nr['median_us'] / br['median_us'])
            c = t + math.log(nr['sm_clock_mhz'] / br['sm_clock_mhz']) if br.get('sm_clock_mhz') and nr.get('sm_clock_mhz') else None
            p = math.log(br[column] / nr[column]) if br.get(column) and nr.get(column) else None
            moves.setdefault((br['variant'], str(br['n'])), []).append((t, c, p))
            moves.setdefault((br['variant'], 'all'), []).append((t, c, p))
        for (variant, n), ms in sorted(moves.items()):
            row = [100 * hl([m[i] for m in ms]) if all(m[i] is not None for m in ms) else None for i in range(3)]
            fmt = lambda v: '' if v is None else f'{v:.3f}'  # noqa: E731
            w.writerow([a.gpu_name, pairing, a.provenance('commit')[:12], sorted(a.gpu_uuids())[0][:12],
                        sorted(b.gpu_uuids())[0][:12], family, variant, n, len(ms), *map(fmt, row),
                        *(fmt(None if v is None else abs(v)) for v in row)])
