"""plot_barrier on a real H200 CSV (tests/py/fixtures/barrier_h200_run1.csv)."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import plot_barrier  # noqa: E402
import sbcsv  # noqa: E402
import sbplot  # noqa: E402

FIXTURE = os.path.join(ROOT, "tests", "py", "fixtures", "barrier_h200_run1.csv")


@pytest.fixture(scope="module")
def fixture_plots(tmp_path_factory):
    """The fixture's rows and every figure drawn from them, once for the
    tests that read the same figures."""
    rows = sbcsv.read(FIXTURE)
    return rows, plot_barrier.plot(rows, str(tmp_path_factory.mktemp("plots")))


def test_writes_every_figure(fixture_plots):
    _, written = fixture_plots
    names = sorted(os.path.basename(p) for p in written)
    assert names == sorted(["barrier_cycles.png", "barrier_cycles_warp.png",
                            "barrier_cycles_elected.png", "barrier_grid_sync.png",
                            "barrier_spellings.png", "barrier_tma_latency.png",
                            "barrier_cluster.png"])
    for p in written:
        assert os.path.getsize(p) > 5_000


def _cycles_panels(written):
    """barrier_cycles.png's panels (of the figures written) and the variants
    drawn in them; checks that each panel holds a few variants, every line
    in its own style."""
    cycles = next(p for p in written if p.endswith("barrier_cycles.png"))
    panels = sbplot.drawn(cycles)["panels"]
    drawn = set()
    for panel in panels:
        styles = [(ln["color"], ln["marker"], ln["ls"], ln["mfc"]) for ln in panel["lines"]]
        assert len(styles) == len(set(styles)), panel["title"]
        variants = {ln["label"].split(" [")[0] for ln in panel["lines"]}
        assert len(variants) <= 6, panel["title"]
        drawn |= variants
    return panels, drawn


def test_cycles_panels_are_small_and_every_line_has_its_own_style(fixture_plots):
    """Issue 20 item 7: groups of a few variants per panel, no two lines of
    a panel alike, and every ok variant (grid-wide ones aside) drawn."""
    rows, written = fixture_plots
    panels, drawn = _cycles_panels(written)
    assert len(panels) >= 6
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


def test_rows_newer_than_the_fixture_land_in_their_own_grouped_panels(tmp_path):
    """Issue 21's prices between SMs (and any row the table gains): ok rows
    for every table row the fixture predates are drawn in barrier_cycles.png's
    grouped panels, never in the catch-all group, a few per panel, each line
    its own style; no script names them."""
    import sbvariants

    # barrier_cycles.png draws participants=all: the other figures' rows stay out
    rows = [r for r in sbcsv.read(FIXTURE) if r["family"] == "barrier" and r["participants"] == "all"]
    have = {r["variant"] for r in rows}
    new = [v for v in sbvariants.variants("barrier") if v not in have]
    assert new, "the table has rows the fixture predates"
    for v in new:
        assert plot_barrier.group_of(v) is not None, v
        assert plot_barrier.group_of(v) != plot_barrier.GROUPS[-1][0], v
    template = next(r for r in rows if r["family"] == "barrier" and r["status"] == "ok"
                    and r["participants"] == "all")
    for i, v in enumerate(new):
        for b in (32, 256, 1024):
            for cont in plot_barrier.CONTENTIONS:
                rows.append({**template, "variant": v, "block_threads": b, "contention": cont,
                             "cycles_per_op": 500.0 * (i + 1) + b})
    panels, drawn = _cycles_panels(plot_barrier.plot(rows, str(tmp_path)))
    assert set(new) <= drawn
    # every new row's group has a row of panels titled with it
    titles = " ".join(p["title"] for p in panels)
    for v in new:
        assert plot_barrier.group_of(v) in titles, v
