"""scripts/plot_pipeline.py against a real H200 run of both pipeline
families (tests/py/fixtures/pipeline_h200.csv, from `syncbench --filter
'^pipeline'`)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))

import plot_pipeline  # noqa: E402
import sbcsv  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "pipeline_h200.csv")


@pytest.fixture(scope="module")
def rows():
    return sbcsv.read(FIXTURE)


def test_writes_the_three_plots(rows, tmp_path):
    paths = plot_pipeline.plot(rows, str(tmp_path))
    names = sorted(os.path.basename(p) for p in paths)
    assert names == ["pipeline_heatmap.png", "pipeline_in_flight.png", "pipeline_intensity.png"]
    for p in paths:
        with open(p, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        assert os.path.getsize(p) > 5_000


def test_every_point_validated(rows):
    fams = [r for r in rows if r["family"].startswith("pipeline")]
    assert fams
    assert not [r for r in fams if r["status"] in ("wrong", "error")]
    # every variant has ok rows, the ragged-n family included
    ragged = {r["variant"] for r in fams if r["status"] == "ok" and r["n"] % 4}
    assert {"sync_single", "double_buffer", "ws_barrier", "ws_tma", "ws_tma_2d",
            "reference"} <= ragged


def test_smallest_good_is_minimal(rows):
    for v in plot_pipeline._pipelined():
        best = plot_pipeline.smallest_good(rows, v)
        if best is None:
            continue
        assert best["pct_of_copy"] >= plot_pipeline.GOOD_PCT
        size = best["stages"] * best["buffer_bytes"]
        for r in plot_pipeline.heatmap_rows(rows):
            if r["variant"] == v and r["status"] == "ok" and \
                    r["stages"] * r["buffer_bytes"] < size:
                assert r["pct_of_copy"] < plot_pipeline.GOOD_PCT


def test_bytes_in_flight_follows_the_formula(rows):
    for r in rows:
        if r["family"].startswith("pipeline") and r["status"] == "ok" and r["variant"] != "reference":
            assert r["bytes_in_flight_per_sm"] == r["stages"] * r["buffer_bytes"] * r["blocks_per_sm"]


def test_summary_has_the_headline_figures(rows):
    s = plot_pipeline.summary(rows)
    assert s["best_pipeline_ws_tma_pct"] > 0
    assert s["best_pipeline_double_buffer_pct"] > 0
    assert set(s["intensity_range_90pct_by_warps"]) == {2, 8}
    # at 2 consumer warps the TMA pipeline holds its plateau further than
    # the unpipelined tile loop (a fact of the committed H200 run)
    plateau = s["plateau_90pct_by_warps"][2]
    assert plateau["ws_tma"] > plateau["sync_single"]
