"""scripts/plot.py: figures from a real H200 run (the command, headless),
exit status 2 on bad input, and the speedup data checked against ratios worked out by hand from
the fixture's median_us column."""
import csv
import os
import struct
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import plot  # noqa: E402
import sbcsv  # noqa: E402

PLOT = os.path.join(ROOT, "scripts", "plot.py")
FIXTURE = os.path.join(ROOT, "tests", "py", "fixtures", "h200_scan_default.csv")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run_plot(*args):
    env = dict(os.environ)
    env.pop("DISPLAY", None)  # must work headless
    env.pop("MPLBACKEND", None)
    return subprocess.run([sys.executable, PLOT, *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=300)


def png_size(path):
    """(width, height) from the IHDR chunk, after checking the signature."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == PNG_MAGIC, f"{path} is not a PNG"
    assert head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def fixture_records():
    with open(FIXTURE, newline="") as f:
        return list(csv.reader(f))


def write(tmp_path, recs, name):
    path = tmp_path / name
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(recs)
    return path


def test_plots_from_real_run(tmp_path):
    out = tmp_path / "plots"
    r = run_plot(FIXTURE, "--outdir", out)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(out)) == ["scan.png", "scan_speedup.png"]
    for name in ("scan.png", "scan_speedup.png"):
        path = out / name
        width, height = png_size(path)
        assert width >= 800 and height >= 600
        assert path.stat().st_size > 10_000  # four panels of lines (a palette PNG), not a blank canvas


def test_malformed_csv_exits_2_naming_file_and_line(tmp_path):
    recs = fixture_records()[:10]
    recs[4] = recs[4][:7]  # line 5 truncated
    bad = write(tmp_path, recs, "bad.csv")
    r = run_plot(bad, "--outdir", tmp_path / "plots")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr  # one message, no traceback
    assert f"{bad}:5" in lines[0]
    assert not (tmp_path / "plots").exists()


def test_missing_csv_exits_2(tmp_path):
    r = run_plot(tmp_path / "none.csv", "--outdir", tmp_path)
    assert r.returncode == 2
    assert str(tmp_path / "none.csv") in r.stderr and "Traceback" not in r.stderr


def test_layout_of_scan():
    fam = plot.prepare(sbcsv.read(FIXTURE))["scan"]
    assert fam.layout.x == "block_threads"
    assert fam.layout.panels == ["iters"] and fam.layout.series == []
    assert fam.layout.fixed == {"n": 33554432}
    assert fam.baseline == "two_barrier"
    assert list(plot.prepare(sbcsv.read(FIXTURE))) == ["scan"]  # reference is not a figure


def test_speedups_match_hand_computed_ratios():
    fam = plot.prepare(sbcsv.read(FIXTURE))["scan"]
    sp = plot.speedups(fam)
    assert list(sp) == [(("iters", 1),), (("iters", 4),), (("iters", 16),), (("iters", 64),)]
    for lines in sp.values():
        assert list(lines) == ["pingpong", "mbarrier", "warp_shuffle"]
        assert all([x for x, _ in pts] == [32, 64, 128, 256, 512, 1024] for pts in lines.values())
    # two_barrier median_us / variant median_us, read off the fixture.
    at = {(iters, v): dict(pts) for ((_, iters),), lines in sp.items() for v, pts in lines.items()}
    assert at[16, "pingpong"][32] == pytest.approx(2209.4719 / 1684.0320)
    assert at[64, "warp_shuffle"][1024] == pytest.approx(12249.7921 / 3025.4719)
    assert at[1, "mbarrier"][256] == pytest.approx(187.8720 / 300.2240)
    assert at[4, "pingpong"][64] == pytest.approx(541.6640 / 429.6960)


def test_time_points_are_the_medians():
    fam = plot.prepare(sbcsv.read(FIXTURE))["scan"]
    pts = dict(plot.points(fam)[(("iters", 64),)]["mbarrier"])
    assert pts[512] == pytest.approx(16735.1685)


def test_non_ok_rows_are_counted_not_plotted(tmp_path):
    recs = fixture_records()
    head = recs[0]
    # Lines 2..: make three pingpong points unsupported.
    hit = [i for i, r in enumerate(recs) if r[head.index("variant")] == "pingpong"][:3]
    for i in hit:
        recs[i][head.index("status")] = "unsupported"
        recs[i][head.index("median_us")] = ""
    path = write(tmp_path, recs, "partial.csv")
    fam = plot.prepare(sbcsv.read(path))["scan"]
    assert fam.not_ok == {"unsupported": 3}
    assert "3 unsupported" in plot.note_text(fam)
    gone = {(int(recs[i][head.index("iters")]), int(recs[i][head.index("block_threads")]))
            for i in hit}
    sp = plot.speedups(fam)
    for ((_, iters),), lines in sp.items():
        xs = {x for x, _ in lines["pingpong"]}
        assert all(b not in xs for (it, b) in gone if it == iters)
    assert plot.main([str(path), "--outdir", str(tmp_path / "plots")]) == 0
    png_size(tmp_path / "plots" / "scan.png")


def test_a_registered_family_with_no_ok_row_is_skipped_by_name(tmp_path, capsys):
    import csv as _csv
    src = os.path.join(ROOT, "results", "h200", "latest.csv")
    with open(src, newline="") as f:
        reader = _csv.DictReader(f)
        rows = [dict(r, status="wrong") for r in reader if r["family"] in ("reference", "barrier_tma")]
        header = reader.fieldnames
    path = tmp_path / "broken.csv"
    with open(path, "w", newline="") as f:
        w = _csv.DictWriter(f, header, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    assert plot.main([str(path), "--outdir", str(tmp_path / "plots")]) == 0
    assert "skipped family barrier_tma: no row ran ok" in capsys.readouterr().err
    assert not list((tmp_path / "plots").glob("barrier_tma*.png"))


def test_no_baseline_no_speedup_figure(tmp_path):
    recs = fixture_records()
    variant = recs[0].index("variant")
    recs = [r for r in recs if r[variant] != "two_barrier"]
    path = write(tmp_path, recs, "nobase.csv")
    fam = plot.prepare(sbcsv.read(path))["scan"]
    assert fam.baseline is None and plot.speedups(fam) == {}
    assert plot.main([str(path), "--outdir", str(tmp_path / "plots")]) == 0
    assert sorted(os.listdir(tmp_path / "plots")) == ["scan.png"]


def test_new_family_gets_default_plots(tmp_path):
    """A family plot.py has never heard of, with an extra categorical axis
    and an extra metric column, still gets a figure per metric."""
    recs = fixture_records()
    head = recs[0]
    fam_i, var_i, med_i = (head.index(c) for c in ("family", "variant", "median_us"))
    recs[0] = head + ["participants", "cycles_per_op"]
    for k, r in enumerate(recs[1:], start=1):
        scan = r[fam_i] == "scan"
        if scan:
            r[fam_i] = "newfamily"
        r += ["all" if k % 2 else "warp", r[med_i]] if scan else ["", ""]
    path = write(tmp_path, recs, "newfamily.csv")
    fam = plot.prepare(sbcsv.read(path))["newfamily"]
    assert fam.layout.x == "block_threads"
    assert set(fam.layout.panels) == {"participants", "iters"}
    assert plot.main([str(path), "--outdir", str(tmp_path / "plots")]) == 0
    assert sorted(os.listdir(tmp_path / "plots")) == [
        "newfamily.png", "newfamily_cycles_per_op.png", "newfamily_speedup.png"]
