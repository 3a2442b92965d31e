"""scripts/probes/ncu_points.py: Nsight Compute's raw pages joined to the
profiled run's points, on the committed proof that cites it."""
import csv
import io
import lzma
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "probes", "ncu_points.py")
PROOF = os.path.join(ROOT, "results", "h200", "proofs", "k1000_clocks_983f7d2")


def unpacked(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(lzma.open(os.path.join(PROOF, name + ".xz")).read())
    return str(path)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def test_the_committed_table_is_what_the_script_makes_of_the_raw_pages(tmp_path):
    rows, raw1, raw2 = (unpacked(tmp_path, n) for n in ("ncu_rows.csv", "ncu_raw1.csv", "ncu_raw2.csv"))
    p = run(rows, raw1, raw2)
    assert p.returncode == 0, p.stderr
    assert p.stdout == lzma.open(os.path.join(PROOF, "ncu_points.csv.xz"), "rt").read()
    table = list(csv.DictReader(io.StringIO(p.stdout)))
    # one line per point that ran, in run order, its kernel the one the marker opened
    ran = [r for r in csv.DictReader(open(rows)) if r["status"] == "ok"]
    assert [(t["variant"], t["tile"], t["k"]) for t in table] == [(r["variant"], r["tile"], r["k"]) for r in ran]
    assert all("sb_profile_mark" not in t["kernel"] for t in table)
    assert all(t["variant"] == "cublas" or t["kernel"].startswith("void gemm_kernel") for t in table)
    # the launch metrics of the first page, the L2 metrics of the second
    assert all(float(t["duration_us"]) > 0 and float(t["lts__t_requests_op_read.sum"]) > 0 for t in table)


def test_a_page_of_another_run_is_refused(tmp_path):
    """Rows of a run with one point fewer than the page's marked launches:
    a clear refusal, not a table shifted by one."""
    rows, raw1 = unpacked(tmp_path, "ncu_rows.csv"), unpacked(tmp_path, "ncu_raw1.csv")
    with open(rows, newline="") as f:
        reader = csv.DictReader(f)
        header, records = reader.fieldnames, list(reader)
    last_ok = max(i for i, r in enumerate(records) if r["status"] == "ok")
    fewer = tmp_path / "fewer.csv"
    with open(fewer, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        w.writerows(records[:last_ok] + records[last_ok + 1:])
    p = run(str(fewer), raw1)
    assert p.returncode != 0 and p.stdout == ""
    assert "26 marked launches" in p.stderr and "25 points" in p.stderr
