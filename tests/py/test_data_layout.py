"""What the repository keeps under results/ (docs/fleet.md, "What the
repository keeps"): plots are small palette PNGs drawn from the CSVs, and
no PNG lies under a proof or history folder."""
import os
import struct

import numpy as np
import pytest

import sbplot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "results")


def pngs():
    for top, _, names in os.walk(RESULTS):
        for name in names:
            if name.lower().endswith(".png"):
                yield os.path.relpath(os.path.join(top, name), ROOT)


def busy_figure():
    """A figure that compresses badly: four panels of noisy lines in many
    colours, larger than any plot script draws."""
    import matplotlib.pyplot as plt
    rng = np.random.default_rng(7)
    fig, axes = plt.subplots(2, 2, figsize=(14, 11))
    for i, ax in enumerate(axes.flat):
        for j in range(10):
            ax.plot(rng.standard_normal(300).cumsum(), label=f"series {i}.{j}")
        ax.set_title(f"panel {i}")
    sbplot.legend_outside(fig, list(axes.flat))
    return fig


def test_the_plot_writer_keeps_a_busy_figure_under_the_limit(tmp_path):
    path = str(tmp_path / "busy.png")
    sbplot.save(busy_figure(), path)
    with open(path, "rb") as f:
        head = f.read(26)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    width, height = struct.unpack(">II", head[16:24])
    assert head[25] == 3, "colour type 3: a palette PNG"
    assert os.path.getsize(path) <= sbplot.MAX_PNG_BYTES
    assert width >= 800 and height >= 700  # still readable, not shrunk to a thumbnail
    assert sbplot.drawn(path)["panels"][0]["title"] == "panel 0"


def test_a_limit_the_first_try_misses_lowers_the_resolution(tmp_path):
    import matplotlib.pyplot as plt
    first, second = str(tmp_path / "a.png"), str(tmp_path / "b.png")
    fig = busy_figure()
    dpi_free = sbplot.small_png(fig, first, limit=10**9)
    dpi_tight = sbplot.small_png(fig, second, limit=os.path.getsize(first) // 2)
    plt.close(fig)
    assert dpi_free == sbplot.DPI and dpi_tight < dpi_free
    assert os.path.getsize(second) < os.path.getsize(first)


@pytest.mark.parametrize("check", ["size", "place"])
def test_every_committed_png_is_a_small_current_plot(check):
    found = list(pngs())
    assert found, "results/ holds the current plots"
    if check == "size":
        big = [(p, os.path.getsize(os.path.join(ROOT, p))) for p in found
               if os.path.getsize(os.path.join(ROOT, p)) > sbplot.MAX_PNG_BYTES]
        assert big == [], "make plots (and make report, history) redraws them small"
    else:
        stale = [p for p in found if {"proofs", "history"} & set(p.split(os.sep))]
        assert stale == [], "a proof or history keeps its CSVs; plots are drawn from them"
