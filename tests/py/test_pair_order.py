"""scripts/probes/pair_order.py: paired samples read by their place in their
pair, on the committed proof that cites it."""
import csv
import io
import lzma
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "probes", "pair_order.py")
PROOF = os.path.join(ROOT, "results", "h200", "proofs", "pair_order_983f7d2")
ROUND = os.path.join(ROOT, "results", "h200", "proofs", "round_983f7d2")
CHIPS = ("e61d089d", "d76a1e8f", "2775c07c")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


HOLD = os.path.join(ROOT, "results", "h200", "proofs", "hold_03faf8b")


def test_the_committed_tables_are_what_the_script_makes_of_the_samples():
    # pair_order_983f7d2's three chips, and hold_03faf8b's two sides, whose
    # held side's unflushed rows say "(SB_HOLD=unflushed)": a flushed row is
    # one that says "L2 flushed", not any that holds the letters "flushed".
    tables = [(os.path.join(ROUND, f"sweep_{chip}.csv.xz"), os.path.join(PROOF, f"pairs_{chip}.jsonl.xz"),
               os.path.join(PROOF, f"order_{chip}.csv.xz")) for chip in CHIPS]
    tables += [(os.path.join(HOLD, f"sweep_{s}.csv.xz"), os.path.join(HOLD, f"pairs_{s}.jsonl.xz"),
                os.path.join(HOLD, f"order_{s}.csv.xz")) for s in "ab"]
    for sweep, pairs, table in tables:
        p = run(sweep, pairs)
        assert p.returncode == 0, p.stderr
        assert p.stdout == lzma.open(table, "rt").read(), table
    held = list(csv.DictReader(lzma.open(os.path.join(HOLD, "order_b.csv.xz"), "rt")))
    assert {r["flushed"] for r in held if "n=268435456" in r["point"]} == {"0"}


def test_first_and_second_are_the_pairs_alternation(tmp_path):
    """A point whose variant samples are 1 us when first in their pair (even
    indices) and 3 us when second, its ceiling's the other way round (first
    at odd indices): -2 and +2 us."""
    sweep = os.path.join(ROUND, "sweep_e61d089d.csv.xz")
    line = lzma.open(os.path.join(PROOF, "pairs_e61d089d.jsonl.xz"), "rt").readline()
    point = line.split('"point": "')[1].split('"')[0]
    made = tmp_path / "pairs.jsonl"
    v = [1e-6 if i % 2 == 0 else 3e-6 for i in range(10)]
    c = [1e-6 if i % 2 == 0 else 3e-6 for i in range(10)]
    made.write_text('{"point": "%s", "variant_s": %s, "ceiling_s": %s}\n' % (point, v, c))
    p = run(sweep, str(made))
    assert p.returncode == 0, p.stderr
    (row,) = list(csv.DictReader(io.StringIO(p.stdout)))
    assert (row["variant_first_minus_second_us"], row["ceiling_first_minus_second_us"]) == ("-2.000", "2.000")


def test_a_point_the_sweep_lacks_is_refused(tmp_path):
    made = tmp_path / "pairs.jsonl"
    made.write_text('{"point": "devscan/lookback/block_threads=128/n=3/elems_per_thread=32", '
                    '"variant_s": [1e-6, 2e-6], "ceiling_s": [1e-6, 2e-6]}\n')
    p = run(os.path.join(ROUND, "sweep_e61d089d.csv.xz"), str(made))
    assert p.returncode != 0
    assert "is not an ok row of" in p.stderr and "n=3" in p.stderr
