"""scripts/plot_gemm.py against tests/py/fixtures/gemm_synthetic_not_results.csv:
a SYNTHETIC two-GPU CSV (made-up numbers in the real schema, not a
measurement) with every gemm variant, shape and stage count, and one
skipped row per shape."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))

import plot  # noqa: E402
import plot_gemm  # noqa: E402
import sbcsv  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "gemm_synthetic_not_results.csv")


@pytest.fixture(scope="module")
def rows():
    return sbcsv.read(FIXTURE)


def test_fixture_is_marked_synthetic(rows):
    assert {r["commit"] for r in rows} == {"synthetic"}


def test_writes_every_plot(rows, tmp_path):
    paths = plot_gemm.plot(rows, str(tmp_path))
    assert sorted(os.path.basename(p) for p in paths) == [
        "gemm_pct_of_cublas.png", "gemm_pct_vs_k_ratio.png", "gemm_tflops.png"]
    for p in paths:
        with open(p, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        assert os.path.getsize(p) > 5_000


def test_plot_py_dispatches_gemm_to_plot_gemm(tmp_path):
    assert plot.main([FIXTURE, "--outdir", str(tmp_path)]) == 0
    assert (tmp_path / "gemm_tflops.png").exists()
    assert (tmp_path / "gemm_pct_of_cublas.png").exists()


def test_heatmap_takes_the_best_tile_per_stage_and_skips_cublas(rows):
    cells = plot_gemm.heatmap(rows, "NVIDIA H200")
    assert not [k for k in cells if k[0] == "cublas"]
    assert {s for v, s in cells if v == "single"} == {1}
    assert {s for v, s in cells if v == "ring"} == {2, 3, 4, 5, 6}
    want = max(r["pct_of_cublas"] for r in rows if r["gpu_name"] == "NVIDIA H200"
               and r["variant"] == "ring" and r["stages"] == 3 and r["m"] == 4096
               and r["k"] == 4096 and r["status"] == "ok")
    assert cells[("ring", 3)] == want


def test_best_ignores_skipped_rows_and_other_gpus(rows):
    r = plot_gemm.best(rows, "NVIDIA H100 80GB HBM3", "ring", (1024, 16384))
    assert r["status"] == "ok" and r["gpu_name"] == "NVIDIA H100 80GB HBM3"
    assert r["k"] == 16384


def test_summary_names_the_best_variant_per_gpu(rows):
    s = plot_gemm.summary(rows)
    assert set(s) == {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}
    for gpu, v in s.items():
        assert v["best_variant"] == "ws_tma_wgmma"
        assert v["cublas_tflops"] > 0
        assert v["meets_target"] == (v["best_pct_of_cublas"] >= 70.0)


def test_k_ratio_points_keep_m_by_n_shapes_apart():
    """256 x 2048 x 64k and 256^2 x 8k have one K / (M N), 0.125: two points,
    each its own shape's best, the M != N one at k / (m n) (5273e2f's plot
    put 256 x 2048 x 64k's 107% on 256^2 x 64k's x, 1.0)."""
    def row(n, k, pct):
        return {"family": "gemm", "status": "ok", "gflops": 1.0, "gpu_name": "G", "variant": "splitk_reduce",
                "m": 256, "n": n, "k": k, "pct_of_cublas": pct}
    pts = plot_gemm.k_ratio_points([row(256, 8192, 80.0), row(2048, 65536, 107.0), row(256, 65536, 95.0),
                                    row(None, 65536, 90.0)], "G", "splitk_reduce")
    assert pts == [(0.125, 80.0), (0.125, 107.0), (1.0, 95.0)]
