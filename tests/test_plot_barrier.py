"""plot_barrier on a real H200 CSV (tests/fixtures/barrier_h200_run1.csv)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import plot_barrier  # noqa: E402
import sbcsv  # noqa: E402
import sbplot  # noqa: E402

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "barrier_h200_run1.csv")


def test_writes_every_figure(tmp_path):
    rows = sbcsv.read(FIXTURE)
    written = plot_barrier.plot(rows, str(tmp_path))
    names = sorted(os.path.basename(p) for p in written)
    assert names == sorted(["barrier_cycles.png", "barrier_cycles_warp.png",
                            "barrier_cycles_elected.png", "barrier_grid_sync.png",
                            "barrier_spellings.png", "barrier_tma_latency.png",
                            "barrier_cluster.png"])
    for p in written:
        assert os.path.getsize(p) > 10_000


def test_cycles_panels_are_small_and_every_line_has_its_own_style(tmp_path):
    """Issue 20 item 7: groups of a few variants per panel, no two lines of
    a panel alike, and every ok variant (grid-wide ones aside) drawn."""
    rows = sbcsv.read(FIXTURE)
    written = plot_barrier.plot(rows, str(tmp_path))
    cycles = next(p for p in written if p.endswith("barrier_cycles.png"))
    panels = sbplot.drawn(cycles)["panels"]
    assert len(panels) >= 6
    drawn = set()
    for panel in panels:
        styles = [(ln["color"], ln["marker"], ln["ls"], ln["mfc"]) for ln in panel["lines"]]
        assert len(styles) == len(set(styles)), panel["title"]
        variants = {ln["label"].split(" [")[0] for ln in panel["lines"]}
        assert len(variants) <= 6, panel["title"]
        drawn |= variants
    expected = {r["variant"] for r in rows if r["family"] == "barrier" and r["status"] == "ok"
                and r["participants"] == "all" and plot_barrier.group_of(r["variant"])}
    assert expected and drawn == expected


def test_no_barrier_rows_no_figures(tmp_path):
    rows = [r for r in sbcsv.read(FIXTURE) if r["family"] == "reference"]
    assert plot_barrier.plot(rows, str(tmp_path)) == []


def test_fixture_runs_agree_within_two_percent():
    """The done-when of issue 5, on the two committed back-to-back runs."""
    a = {sbcsv.key(r): r["cycles_per_op"] for r in sbcsv.read(FIXTURE)
         if r["status"] == "ok" and r["family"].startswith("barrier")}
    b = {sbcsv.key(r): r["cycles_per_op"]
         for r in sbcsv.read(FIXTURE.replace("run1", "run2"))
         if r["status"] == "ok" and r["family"].startswith("barrier")}
    assert a.keys() == b.keys() and len(a) > 300
    worst = max(abs(a[k] - b[k]) / min(a[k], b[k]) for k in a if max(a[k], b[k]) >= 10)
    assert worst < 0.02
