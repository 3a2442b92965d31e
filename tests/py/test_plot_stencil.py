"""scripts/plot_stencil.py on a real H200 sweep (tests/py/fixtures/stencil_h200.csv)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))

import plot_stencil  # noqa: E402
import sbcsv  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "stencil_h200.csv")


def test_writes_three_plots_per_family(tmp_path):
    rows = sbcsv.read(FIXTURE)
    paths = plot_stencil.plot(rows, str(tmp_path))
    names = sorted(os.path.basename(p) for p in paths)
    want = sorted(f"{fam}_{kind}.png" for fam in ("stencil", "stencil2d", "multistage")
                  for kind in ("time_per_iter", "vs_block", "speedup"))
    assert names == want
    for p in paths:
        with open(p, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        assert os.path.getsize(p) > 5_000  # a palette PNG of lines, not a blank canvas


def test_fixture_has_every_variant_validated():
    rows = sbcsv.read(FIXTURE)
    ok = {(r["family"], r["variant"]) for r in rows if r["status"] == "ok"}
    for v in ("two_barrier", "pingpong", "mbarrier", "mbarrier_warp", "split_arrive",
              "arrive_wait", "completion", "manual_reduce"):
        assert ("stencil", v) in ok and ("stencil2d", v) in ok
    for v in ("uniform", "specialized", "specialized_mbarrier", "early_exit"):
        assert ("multistage", v) in ok
    assert not [r for r in rows if r["status"] not in ("ok", "skipped")]


def test_other_families_and_failed_rows_are_ignored(tmp_path):
    rows = sbcsv.read(FIXTURE)
    scan_only = [dict(r, family="scan") for r in rows]
    assert plot_stencil.plot(scan_only, str(tmp_path)) == []
    wrong = [dict(r, status="wrong", median_us=None) for r in rows]
    assert plot_stencil.plot(wrong, str(tmp_path)) == []


def test_speedup_baseline_is_one():
    rows = plot_stencil._ok_rows(sbcsv.read(FIXTURE), "stencil")
    base = {(r["block_threads"], r["elems_per_thread"], r["iters"]): r["median_us"]
            for r in rows if r["variant"] == "two_barrier"}
    assert len(base) == 12  # 2 block sizes x 2 elems x 3 iters
    assert all(v > 0 for v in base.values())
