"""plain_ratio.py: plain_kernels lines paired with a syncbench CSV's rows."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import plain_ratio  # noqa: E402
import sbcsv  # noqa: E402

H100 = os.path.join(ROOT, "results", "h100-80gb-hbm3")
CSV = os.path.join(H100, "latest.csv")
# A real plain_kernels run (scan and stencil lines, the format of every float family).
REAL_PLAIN = os.path.join(H100, "proofs", "kernel_layer_a2b847b", "plain_kernels.txt")

# multistage lines as plain_kernels prints them ("%-17s B=%4d E=%d iters=%3d n=%lld  %s  %.1f us").
LINES = """\
multistage/uniform B= 128 E=2 iters= 16 n=16777216  ok     340.0 us
multistage/uniform B=1024 E=8 iters=  1 n=16777216  WRONG  nan us
multistage/uniform B= 256 E=2 iters= 16 n=16777216  ok     400.0 us
devscan/three_kernel B= 128 E=24 n=16777216  ok     99.0 us  1356 GB/s
plain_kernels: 0 check(s) failed
"""


def test_real_plain_output_parses():
    points = plain_ratio.parse_plain(REAL_PLAIN)
    assert len(points) == 32  # 8 scan + 24 stencil lines
    assert {p["family"] for p in points} == {"scan", "stencil"}
    assert points[0] == {"family": "scan", "variant": "two_barrier", "block": 1024, "elems": 1,
                         "iters": 1, "n": 33554432, "status": "ok", "us": 248.8}


def test_multistage_lines_pair_with_their_rows(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text(LINES)
    points = plain_ratio.parse_plain(str(plain))
    assert [p["block"] for p in points] == [128, 1024, 256]  # devscan's line has no iters
    found = plain_ratio.pairs(points, sbcsv.read(CSV), "multistage")
    assert [(p["block"], p["elems"], p["iters"]) for p, _ in found] == [(128, 2, 16), (1024, 8, 1)]
    p, r = found[0]
    assert r["variant"] == "uniform" and p["us"] == 340.0
    assert (r["block_threads"], r["elems_per_thread"], r["iters"]) == (128, 2, 16)


def test_scan_rows_have_one_element_per_thread():
    found = plain_ratio.pairs(plain_ratio.parse_plain(REAL_PLAIN), sbcsv.read(CSV), "scan")
    assert found and all(r["elems_per_thread"] is None and p["elems"] == 1 for p, r in found)


def test_output_marks_the_limit_and_fails_only_without_a_match(tmp_path, capsys):
    plain = tmp_path / "plain.txt"
    plain.write_text(LINES)
    assert plain_ratio.main([str(plain), CSV, "--family", "multistage"]) == 0
    out = capsys.readouterr().out
    row = next(r for r in sbcsv.read(CSV) if r["family"] == "multistage"
               and r["variant"] == "uniform" and r["status"] == "ok"
               and (r["block_threads"], r["elems_per_thread"], r["iters"]) == (128, 2, 16))
    ratio = row["median_us"] / 340.0
    assert ratio > 1.05  # the line above is made slow enough to cross the limit
    assert "multistage/uniform B=128 E=2 iters=16 n=16777216" in out and f"{ratio:.3f}  > 1.05" in out
    assert "plain WRONG, syncbench ok" in out
    assert plain_ratio.main([str(plain), CSV, "--family", "gemm"]) == 1
