"""scripts/ab_figures.py --estimators: each sample reading's moves per
family, computed from the two CSVs as the gate matches their points."""
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(1, os.path.join(ROOT, "scripts", "lib"))
import ab_figures  # noqa: E402
import sbcsv  # noqa: E402

RUN = os.path.join(ROOT, "results", "h200", "proofs", "ab_d8effe2", "runA")
A, B = os.path.join(RUN, "aa_gate_a.csv.xz"), os.path.join(RUN, "aa_gate_b.csv.xz")


def test_estimator_lines_match_a_plain_join_of_the_two_csvs():
    lines = ab_figures.estimator_lines(A, B)
    a = {sbcsv.key(r): r for r in sbcsv.read(A) if r["status"] == "ok" and r["family"] == "gemm"}
    b = {sbcsv.key(r): r for r in sbcsv.read(B) if r["status"] == "ok" and r["family"] == "gemm"}
    for column in ("min_us", "q1_us", "median_us"):
        v = [abs(b[k][column] / a[k][column] - 1) * 100 for k in a if k in b]
        want = (f"  gemm {column}: median {statistics.median(v):.2f}%, worst {max(v):.2f}%, "
                f"{sum(x > 3 for x in v)} of {len(v)} over 3%")
        assert want in lines
    # schema 9 rows carry no low percentiles: no line for them
    assert not any("p05_us" in line or "p10_us" in line for line in lines)


def test_every_own_sample_reading_names_a_column_of_the_schema():
    """Each reading the A/B gate can read a point's own samples by (a
    family's ceiling_reading) names a column today's header has, and a
    figure name the summaries print."""
    import sbcompare
    with open(os.path.join(ROOT, "results", "csv_header.csv"), encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    for reading, column in sbcompare.OWN_SAMPLE.items():
        assert column in header and reading in sbcompare.FIGURES and reading in sbcompare.CLOCK_FREE_READINGS
