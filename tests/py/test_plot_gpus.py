"""Plots of two GPUs' committed runs (results/<gpu>/latest.csv): every
figure keeps the GPUs apart (a line style per GPU, a panel row per GPU for
heatmaps), names both in the legend and the title, and a speedup divides
within one GPU. Checked on what each figure drew (sbplot.drawn), not on
pixels."""
import csv
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import plot  # noqa: E402
import plot_barrier  # noqa: E402
import plot_pipeline  # noqa: E402
import plot_stencil  # noqa: E402
import sbcsv  # noqa: E402
import sbplot  # noqa: E402
import sbvariants  # noqa: E402

H100, H200 = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
CSVS = [os.path.join(ROOT, "results", g, "latest.csv") for g in ("h100-80gb-hbm3", "h200")]


@pytest.fixture(scope="module")
def rows():
    return [r for path in CSVS for r in sbcsv.read(path)]


def family(rows, *names):
    return [r for r in rows if r["family"] in names or r["family"] == "reference"]


def lines_by_label(panel):
    return {ln["label"]: ln for ln in panel["lines"]}


def assert_two_gpus_apart(panel, variants):
    """Each variant: one line per GPU, same colour, different style."""
    lines = lines_by_label(panel)
    for v in variants:
        a, b = lines[f"{v} [{H100}]"], lines[f"{v} [{H200}]"]
        assert a["color"] == b["color"]
        assert (a["ls"], a["marker"], a["mfc"]) != (b["ls"], b["marker"], b["mfc"])


def test_barrier_cluster_has_a_line_per_cluster_and_gpu(rows, tmp_path):
    paths = plot_barrier.plot(family(rows, "barrier_cluster"), str(tmp_path))
    fig = sbplot.drawn(paths[0])
    assert os.path.basename(paths[0]) == "barrier_cluster.png"
    assert H100 in fig["title"] and H200 in fig["title"]
    for panel in fig["panels"]:
        barrier_lines = [ln for ln in panel["lines"] if ln["label"].startswith("cluster=")]
        assert len(barrier_lines) == 6  # 3 cluster sizes x 2 GPUs (other variants: their own lines)
        assert_two_gpus_apart(panel, ["cluster=2", "cluster=4", "cluster=8"])
        for ln in panel["lines"]:  # no sawtooth: each line visits each x once, in order
            assert ln["x"] == sorted(set(ln["x"])) == [64, 256, 1024]
        assert panel["xticklabels"] == ["64", "256", "1k"]
    assert {f"cluster=2 [{H100}]", f"cluster=2 [{H200}]"} <= set(fig["legend"])


def test_stencil_speedup_baseline_is_exactly_one_per_gpu(rows, tmp_path):
    paths = plot_stencil.plot(family(rows, "stencil"), str(tmp_path))
    fig = sbplot.drawn(next(p for p in paths if p.endswith("stencil_speedup.png")))
    assert H100 in fig["title"] and H200 in fig["title"]
    # each GPU's pair has its own iters (the H200's 1, 16, 256; the H100's 1, 16, 64)
    iters = {gpu: sorted({r["iters"] for r in rows if r["family"] == "stencil" and r["gpu_name"] == gpu})
             for gpu in (H100, H200)}
    ticks = sorted(set(iters[H100]) | set(iters[H200]))
    for panel in fig["panels"]:
        lines = lines_by_label(panel)
        for gpu in (H100, H200):
            assert lines[f"two_barrier [{gpu}]"]["x"] == iters[gpu]
            assert lines[f"two_barrier [{gpu}]"]["y"] == [1.0] * len(iters[gpu])
        assert_two_gpus_apart(panel, ["two_barrier", "pingpong", "mbarrier", "completion"])
        assert panel["xticks"] == ticks  # ticks exactly at the data
    assert fig["panels"][-1]["xticklabels"] == [str(t) for t in ticks]  # shared x: bottom row labels
    # A speedup divides within one GPU: the H200 pingpong point is H200's
    # two_barrier over H200's pingpong, from the CSV cells.
    med = {(r["gpu_name"], r["variant"], r["block_threads"], r["elems_per_thread"] or 1,
            r["iters"]): r["median_us"] for r in rows if r["family"] == "stencil"
           and r["status"] == "ok" and r["n"] == 16777216}
    panel = next(p for p in fig["panels"] if p["title"].startswith("block 128, elems 1"))
    got = dict(zip(lines_by_label(panel)[f"pingpong [{H200}]"]["x"],
                   lines_by_label(panel)[f"pingpong [{H200}]"]["y"]))
    assert got[16] == pytest.approx(med[H200, "two_barrier", 128, 1, 16] / med[H200, "pingpong", 128, 1, 16])
    assert fig["axes_legends"] == 0  # one legend, outside the panels


def test_pipeline_heatmap_has_a_panel_row_per_gpu(rows, tmp_path):
    path = plot_pipeline.plot_heatmap(family(rows, "pipeline"), str(tmp_path))
    fig = sbplot.drawn(path)
    panels = fig["panels"]
    assert len(panels) == 2 * 5 and all(p["images"] == 1 for p in panels)
    assert [p["title"].split("\n")[0] for p in panels] == [H100] * 5 + [H200] * 5
    assert H100 in fig["title"] and H200 in fig["title"]


def test_scan_default_plot_draws_each_gpu_and_speedup_within_gpu(rows, tmp_path):
    fams = plot.prepare(family(rows, "scan"))
    scan = fams["scan"]
    path = plot.draw(plot._pyplot(), scan, plot.points(scan), rows, str(tmp_path / "scan.png"),
                     "t", "us", ylog=True)
    fig = sbplot.drawn(path)
    assert H100 in fig["title"] and H200 in fig["title"]
    both = 0
    for panel in fig["panels"]:
        # a panel per iters; one the two pairs share has both GPUs' lines
        gpus = {ln["label"].split(" [")[1].rstrip("]") for ln in panel["lines"]}
        assert gpus and len(panel["lines"]) == 4 * len(gpus)
        if len(gpus) == 2:
            both += 1
            assert_two_gpus_apart(panel, ["two_barrier", "pingpong", "mbarrier", "warp_shuffle"])
        assert panel["xticklabels"] == ["32", "64", "128", "256", "512", "1k"]
        assert len(panel["yticklabels"]) >= 3
    assert both >= 3  # iters 1, 4, 16
    sp = plot.speedups(scan)
    med = {(r["gpu_name"], r["variant"], r["block_threads"], r["iters"]): r["median_us"]
           for r in rows if r["family"] == "scan"}
    for gpu in (H100, H200):
        pts = dict(sp[(("iters", 16),)][f"pingpong [{gpu}]"])
        assert pts[256] == pytest.approx(med[gpu, "two_barrier", 256, 16] / med[gpu, "pingpong", 256, 16])


def test_barrier_spellings_log_axis_has_several_labels(rows, tmp_path):
    # The rows the spellings figure draws (participants=all, its two groups
    # and the table's first row), so that the other figures stay small.
    spelled = {v for t, _ in plot_barrier.GROUPS[1:3] for v in sbvariants.variants("barrier")
               if plot_barrier.group_of(v) == t} | set(sbvariants.variants("barrier")[:1])
    prim = [r for r in family(rows, "barrier") if r["family"] != "barrier"
            or (r["participants"] == "all" and r["variant"] in spelled)]
    paths = plot_barrier.plot(prim, str(tmp_path))
    fig = sbplot.drawn(next(p for p in paths if p.endswith("barrier_spellings.png")))
    for panel in fig["panels"]:
        assert panel["yscale"] == "log" and len(panel["yticklabels"]) >= 3
        assert panel["xticklabels"] == ["32", "256", "1k"]  # the default sweep's sizes
        assert "on top of each other" in panel["title"]  # H100 and H200 cycles coincide
    # One row of panels: one legend, right of its last panel (outside the data).
    assert fig["axes_legends"] == 1


def test_identical_series_are_named():
    notes = sbplot.identical_notes({"a [G1]": [(1, 10.0), (2, 20.0)],
                                    "a [G2]": [(1, 10.01), (2, 20.0)],
                                    "b [G1]": [(1, 12.0), (2, 20.0)]})
    assert notes == {"a [G2]": "same as a [G1]"}
    assert sbplot.identical_text(notes) == "on top of each other: both runs: a"


def test_unknown_family_and_schema_2_columns_do_not_stop_the_plots(tmp_path):
    """A gemm family (axes m/k, gflops, pct_of_cublas) and schema 2's
    regs_per_thread/smem_per_block columns: scan is still drawn."""
    src = os.path.join(ROOT, "tests", "py", "fixtures", "h200_scan_default.csv")
    with open(src, newline="") as f:
        records = list(csv.DictReader(f))
    header = list(records[0]) + [c for c in ("regs_per_thread", "smem_per_block", "m", "k",
                                             "gflops", "pct_of_cublas") if c not in records[0]]
    out = []
    for r in records:
        r = dict(r, schema_version="2", regs_per_thread="32", smem_per_block="4096",
                 m="", k="", gflops="", pct_of_cublas="")
        out.append(r)
        if r["family"] == "scan" and r["variant"] == "pingpong":
            out.append(dict(r, family="gemm", variant="wgmma", m=r["block_threads"], k=r["iters"],
                            block_threads="", iters="", gflops="1000", pct_of_cublas="95.5"))
    path = tmp_path / "v2.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        w.writerows(out)
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "plot.py"), str(path),
                        "--outdir", str(tmp_path / "plots")], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    written = sorted(os.listdir(tmp_path / "plots"))
    assert "scan.png" in written and "scan_speedup.png" in written
    assert "gemm_tflops.png" in written  # plot_gemm.py draws the gemm family
    assert "Traceback" not in p.stderr
