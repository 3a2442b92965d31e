"""scripts/ab_figures.py --estimators: each sample reading's moves per
family, computed from the two CSVs as the gate matches their points."""
import os
import statistics
import sys

import pytest

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


def test_family_lines_name_each_point_beyond_3pct_and_only_those(tmp_path):
    """--families (issue 52's measure of an A/A): an A/A whose two sides
    are one CSV, but for one stencil point made 5% slower in every time
    statistic and one scan point 2% slower: stencil's line names that point
    at 5.00% as its one point beyond 3%, scan's names none, and every other
    family moved 0.00%."""
    from test_compare import read_records, write_records
    src = os.path.join(ROOT, "results", "h200", "proofs", "ab_6fa0396", "chipD", "aa_rest_a.csv")
    header, rows = read_records(src)
    slow = {"stencil": 1.05, "scan": 1.02}
    planted = {}
    out = []
    for r in rows:
        r = dict(r)
        fam = r["family"]
        if fam in slow and fam not in planted and r["status"] == "ok":
            planted[fam] = r
            for c in sbcsv.SAMPLE_TIMES:
                if r.get(c):
                    r[c] = repr(float(r[c]) * slow[fam])
        out.append(r)
    a = write_records(tmp_path / "a.csv", header, rows)
    b = write_records(tmp_path / "b.csv", header, out)
    lines = ab_figures.family_lines(a, b)
    heads = {line.split(":")[0].strip(): line for line in lines if not line.startswith("    ")}
    named = [line for line in lines if line.startswith("    ")]
    assert len(named) == 1 and named[0].startswith("    5.00% (time) stencil/")
    assert heads["stencil"].endswith("worst 5.00%, 1 over 3%")
    assert heads["scan"].endswith("worst 2.00%, 0 over 3%")
    assert all("median 0.00%, worst 0.00%, 0 over 3%" in line
               for fam, line in heads.items() if fam not in slow)


def test_two_gpus_runs_an_unknown_plant_and_a_bad_regex_are_refused(tmp_path, capsys):
    """The figures read an interleaved A/B on one GPU: runs of two GPU
    models, a plant that names no variant of the run, and --variants that is
    no regular expression are refused (exit 2, one line), not figured."""
    import ab_figures
    h200 = os.path.join(ROOT, "results", "h200", "latest.csv")
    h100 = os.path.join(ROOT, "results", "h100-80gb-hbm3", "latest.csv")
    assert ab_figures.main([h200, h100]) == 2
    assert "one GPU" in capsys.readouterr().err
    assert ab_figures.main([h200, h200, "--plant", "nope/x"]) == 2
    assert "--plant nope/x" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        ab_figures.main([h200, h200, "--variants", "("])
    assert e.value.code == 2 and "not a regular expression" in capsys.readouterr().err
