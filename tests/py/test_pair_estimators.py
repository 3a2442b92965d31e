"""scripts/pair_estimators.py: the A/A disagreement of each reading of the
paired samples, on synthetic dumps whose answer is known."""
import json
import lzma
import os
import statistics
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "pair_estimators.py")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import pair_estimators  # noqa: E402


def dump(path, points, compress=False):
    text = "".join(json.dumps({"point": p, "variant_s": v, "ceiling_s": c}) + "\n"
                   for p, (v, c) in points.items())
    if compress:
        with lzma.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return str(path)


def steady(n=64, v=100e-6, c=50e-6):
    """Alternating pairs, a little spread, ratio 0.5."""
    return [v * (1 + 0.001 * (i % 5)) for i in range(n)], [c * (1 + 0.001 * (i % 5)) for i in range(n)]


def tailed(n=64, v=100e-6, c=50e-6):
    """The ceiling samples taken right after the variant (even pairs)
    have a heavy tail: 3 of every 4 are twice as slow."""
    vs, cs = steady(n, v, c)
    cs = [x * 2 if i % 2 == 0 and i % 8 != 0 else x for i, x in enumerate(cs)]
    return vs, cs


def test_a_tail_in_the_ceiling_moves_the_block_median_not_the_lower_quartile(tmp_path):
    a = dump(tmp_path / "a.jsonl", {"gemm/x": tailed(), "gemm/y": steady()})
    b = dump(tmp_path / "b.jsonl.xz", {"gemm/x": steady(), "gemm/y": steady(), "devscan/z": steady()},
             compress=True)
    table = pair_estimators.disagreement(pair_estimators.load(a), pair_estimators.load(b), "gemm/")
    by = {name: {p: d for d, _, p in rows} for name, rows in table.items()}
    assert set(by["block"]) == {"gemm/x", "gemm/y"}  # the prefix, and only shared points
    assert by["block"]["gemm/x"] > 30      # the tail lifts every block's sum
    assert by["q25"]["gemm/x"] < 0.5       # the fast quartile does not see it
    assert by["fastest"]["gemm/x"] < 0.5   # nor the fastest samples (the harness, schema 6)
    assert all(by[name]["gemm/y"] < 1e-9 for name in by)  # identical samples agree exactly


def test_the_table_and_exit_codes(tmp_path):
    a = dump(tmp_path / "a.jsonl", {"gemm/x": tailed()})
    b = dump(tmp_path / "b.jsonl", {"gemm/x": steady()})
    r = subprocess.run([sys.executable, SCRIPT, a, b], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith("estimator") and "block " in r.stdout and "q25 " in r.stdout
    other = dump(tmp_path / "c.jsonl", {"scan/q": steady()})
    r = subprocess.run([sys.executable, SCRIPT, a, other], capture_output=True, text=True)
    assert r.returncode == 2 and "share no paired point" in r.stderr


@pytest.mark.parametrize("line,why", [
    ("not json\n", "not a paired-samples line"),
    ('{"point": "p", "variant_s": [1e-6, 1e-6], "ceiling_s": [1e-6]}\n', "as many"),
    ('{"point": "p", "variant_s": [0, 1e-6], "ceiling_s": [1e-6, 1e-6]}\n', "positive"),
])
def test_a_malformed_dump_is_one_line_naming_file_and_line(tmp_path, line, why):
    good = dump(tmp_path / "good.jsonl", {"gemm/x": steady()})
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"point": "gemm/x", "variant_s": steady()[0], "ceiling_s": steady()[1]})
                   + "\n" + line)
    r = subprocess.run([sys.executable, SCRIPT, good, str(bad)], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and f"{bad}:2:" in r.stderr and why in r.stderr
    r = subprocess.run([sys.executable, SCRIPT, good, str(tmp_path / "absent.jsonl")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "absent.jsonl" in r.stderr and "Traceback" not in r.stderr


def committed_disagreement(a, b, prefix):
    """pair_estimators.disagreement of two committed dumps (repository paths)."""
    return pair_estimators.disagreement(pair_estimators.load(os.path.join(ROOT, a)),
                                        pair_estimators.load(os.path.join(ROOT, b)), prefix)


COMMITTED_DUMPS = [
    ("results/h100-80gb-hbm3/proofs/round_5e76918/gemm_pairs_r2.jsonl.xz",
     "results/h100-80gb-hbm3/proofs/round_5e76918/gemm_pairs_r3.jsonl.xz"),
    ("results/h200/proofs/round_5e76918/gemm_pairs_a.jsonl.xz",
     "results/h200/proofs/round_5e76918/gemm_pairs_b.jsonl.xz"),
]


@pytest.mark.parametrize("a,b", COMMITTED_DUMPS)
def test_the_harness_reading_is_the_one_that_moved_least_between_leases(a, b):
    """Why schema 6 reads the fastest samples: on the committed cross-lease
    GEMM dumps (two leases of one commit) its worst point moved less than
    that of the schema 4-5 block median, and fewer points moved by more
    than one point of pct_of_cublas (docs/REGRESSIONS.md)."""
    table = committed_disagreement(a, b, "gemm/")
    worst = {name: max(rows)[0] for name, rows in table.items()}
    over_a_point = {name: sum(1 for r in rows if r[1] > 1) for name, rows in table.items()}
    assert len(table["fastest"]) == 224
    assert worst["fastest"] < 5 and worst["fastest"] < worst["block"]
    assert over_a_point["fastest"] <= over_a_point["block"]


SCHEMA6_DUMPS = [
    ("results/h100-80gb-hbm3/proofs/round_361a70c/pairs_a.jsonl.xz",
     "results/h100-80gb-hbm3/proofs/round_361a70c/pairs_b.jsonl.xz"),
    ("results/h200/proofs/round_361a70c/pairs_a.jsonl.xz",
     "results/h200/proofs/round_361a70c/pairs_b.jsonl.xz"),
]


@pytest.mark.parametrize("a,b", SCHEMA6_DUMPS)
def test_each_family_reads_its_ratio_the_way_that_moved_least(a, b):
    """The committed pairs' own dumps (both leases of commit 361a70c): gemm
    reads the fastest samples (variant table: ceiling_reading), whose worst
    point moved less than the block median's; devscan keeps the block
    median, whose median move is less than the fastest samples'."""
    gemm = committed_disagreement(a, b, "gemm/")
    devscan = committed_disagreement(a, b, "devscan/")
    assert len(gemm["fastest"]) == 224 and len(devscan["block"]) == 54
    assert max(gemm["fastest"])[0] < max(gemm["block"])[0]
    median = lambda rows: statistics.median(r[0] for r in rows)  # noqa: E731
    assert median(devscan["block"]) < median(devscan["fastest"])
