"""scripts/history.py (make history): runs ordered by their provenance,
the gate's verdict per variant and step, one plot per GPU. Runs here are
the real H200 scan fixture with the provenance and times changed in code."""
import csv
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import history  # noqa: E402
import sbcsv  # noqa: E402
import sbplot  # noqa: E402

FIXTURE = os.path.join(ROOT, "tests", "py", "fixtures", "h200_scan_default.csv")
TIMES = sbcsv.SAMPLE_TIMES


def run_csv(path, commit, run_utc, slow=None, factor=1.0):
    """The fixture as run `commit` at `run_utc`; variant `slow` factor x slower."""
    with open(FIXTURE, newline="") as f:
        reader = csv.DictReader(f)
        header, rows = reader.fieldnames, list(reader)
    for r in rows:
        r["commit"], r["run_utc"] = commit, run_utc
        if r["variant"] == slow and r["status"] == "ok":
            for c in TIMES:
                if r.get(c):
                    r[c] = f"{float(r[c]) * factor:.4f}"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return str(path)


@pytest.fixture
def series(tmp_path):
    """Three runs given out of order, one twice (as a baseline copy would be),
    the second one in a folder of 'CI artifacts': pingpong 10% slower from
    the second run on."""
    third = run_csv(tmp_path / "c.csv", "ccc3333", "2026-03-01T00:00:00Z", "pingpong", 1.10)
    first = run_csv(tmp_path / "a.csv", "aaa1111", "2026-01-01T00:00:00Z")
    copy = run_csv(tmp_path / "a_copy.csv", "aaa1111", "2026-01-01T00:00:00Z")
    run_csv(tmp_path / "artifacts" / "results" / "h200" / "latest.csv", "bbb2222",
            "2026-02-01T00:00:00Z", "pingpong", 1.10)
    return [third, first, copy, str(tmp_path / "artifacts")]


def test_runs_are_ordered_by_provenance_and_deduplicated(series):
    by_gpu = history.load_runs(history.expand(series))
    assert list(by_gpu) == ["h200"]
    runs = by_gpu["h200"]
    assert [r.commit for r in runs] == ["aaa1111", "bbb2222", "ccc3333"]
    assert len(runs[0].paths) == 2 and len(runs[0].rows) == len(runs[1].rows)


def test_the_gate_flags_the_step_where_the_variant_slowed_and_nothing_else(series):
    runs = history.load_runs(history.expand(series))["h200"]
    steps = history.steps(runs, 0.05)
    flagged = [(s.index, s.variant, s.flagged) for s in steps if s.flagged]
    assert flagged == [(1, "pingpong", 24)]
    ping = {s.index: s for s in steps if s.variant == "pingpong"}
    assert ping[1].change == pytest.approx(0.10, rel=1e-3)
    assert ping[2].change == pytest.approx(0.0, abs=1e-9)
    assert all(s.change == pytest.approx(0.0, abs=1e-9) for s in steps if s.variant != "pingpong")


def test_one_png_per_gpu_with_a_panel_per_family(series, tmp_path):
    out = tmp_path / "out"
    assert history.main([*series, "--no-committed", "--outdir", str(out), "--accept", ""]) == 0
    png = out / "h200" / "plots" / "history.png"
    assert png.is_file()
    drawn = sbplot.drawn(str(png))
    assert sorted(p["title"] for p in drawn["panels"]) == ["reference", "scan"]
    scan = next(p for p in drawn["panels"] if p["title"] == "scan")
    assert [t.split("\n")[0] for t in scan["xticklabels"]] == ["aaa1111", "bbb2222", "ccc3333"]
    crosses = [ln for ln in scan["lines"] if ln["marker"] == "x"]
    assert [(ln["x"], round(ln["y"][0], 1)) for ln in crosses] == [([1.0], 10.0)]
    variants = [ln["label"] for ln in scan["lines"] if not ln["label"].startswith("_")]
    assert len(variants) == 4  # one line per variant, not per point


def test_one_run_only_is_unusable(tmp_path):
    one = run_csv(tmp_path / "a.csv", "aaa1111", "2026-01-01T00:00:00Z")
    assert history.main([one, "--no-committed", "--outdir", str(tmp_path)]) == 2


@pytest.mark.parametrize("case", ["no median", "zero median", "quartiles out of order", "no such --accept"])
def test_a_run_the_gate_could_not_read_exits_2_with_one_line(tmp_path, capsys, case):
    first = run_csv(tmp_path / "a.csv", "aaa1111", "2026-01-01T00:00:00Z")
    later = run_csv(tmp_path / "b.csv", "bbb2222", "2026-02-01T00:00:00Z")
    accept = ""
    if case == "no such --accept":
        accept = str(tmp_path / "acepted.csv")
    else:
        with open(later, newline="") as f:
            reader = csv.DictReader(f)
            header, rows = reader.fieldnames, list(reader)
        r = next(r for r in rows if r["status"] == "ok")
        if case == "no median":
            r["median_us"] = ""
        elif case == "zero median":
            r["median_us"] = "0"
        else:
            r["q1_us"] = str(float(r["median_us"]) * 2)
        with open(later, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
    assert history.main([first, later, "--no-committed", "--outdir", str(tmp_path), "--accept", accept]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("history.py: "), err
    assert ("acepted.csv" if accept else "b.csv:") in err


def test_committed_sources_leave_out_the_compute_80_build():
    names = {os.path.basename(p) for p in history.committed_sources(os.path.join(ROOT, "results"))}
    assert "latest.csv" in names and not any(n.startswith("sm80") for n in names)


@pytest.fixture(scope="module")
def committed():
    """(the committed sources, their runs by GPU), read once."""
    sources = history.committed_sources(os.path.join(ROOT, "results"))
    return sources, history.load_runs(sources)


def test_the_committed_series_includes_the_earlier_runs_in_order(committed):
    """results/<gpu>/history/ keeps the replaced runs: the committed series
    of each GPU spans several commits, ordered by provenance, ending with
    the current baseline and latest (an A/A pair of one commit)."""
    sources, by_gpu = committed
    assert any(os.sep + "history" + os.sep in p for p in sources)
    for gpu, runs in by_gpu.items():
        commits = [r.commit[:7] for r in runs]
        assert len(set(commits)) >= 4, (gpu, commits)
        assert [r.run_utc for r in runs] == sorted(r.run_utc for r in runs)
        latest = sbcsv.read(os.path.join(ROOT, "results", gpu, "latest.csv"))
        assert runs[-1].commit == latest[0]["commit"] == runs[-2].commit


def test_between_two_chips_each_variant_is_judged_by_its_band(committed):
    # The history reads steps as the gate does: with results/bands.csv the
    # H100's cluster barrier (it moves 1.4% between chips, median) is judged
    # by its own two-chip band and flagged less often between the committed
    # chips than without bands (5% and rule B's 1.5% for all).
    import sbcompare
    h100 = committed[1]["h100-80gb-hbm3"]
    cluster = lambda steps: [s for s in steps if s.variant == "cluster_barrier"]  # noqa: E731
    bare = cluster(history.steps(h100, 0.05))
    assert any(s.flagged for s in bare)
    with_bands = cluster(history.steps(h100, 0.05, bands=sbcompare.load_bands()))
    # by its 95th-percentile band one step still flags points (the 12th run
    # against the 11th): two, where the medians' notches part
    assert with_bands and sum(s.flagged for s in with_bands) < sum(s.flagged for s in bare)
    assert [(s.index, s.flagged) for s in with_bands if s.flagged] == [(11, 2)]


# ------------------------------------------------ --check: the page's figures against the data

def test_every_figure_the_page_quotes_is_the_committed_data():
    assert history.check() == []


def figures_table(tmp_path, rows):
    path = tmp_path / "figures.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(history.FIGURE_COLUMNS)
        w.writerows(rows)
    return str(path)


def page(tmp_path, text):
    path = tmp_path / "history.md"
    path.write_text("# History\n\n## The scan fixture (h200)\n\n" + text + "\n\n## Another entry\n\nnothing\n")
    return str(path)


FIX = os.path.relpath(FIXTURE, ROOT)


def test_check_recomputes_each_named_computation(tmp_path):
    rows = [r for r in csv.DictReader(open(FIXTURE)) if r["status"] == "ok" and r["variant"] == "pingpong"]
    times = sorted(float(r["median_us"]) for r in rows)
    text = (f"pingpong ran {len(rows)} points, its medians {times[0]:.1f}-{times[-1]:.1f} us "
            f"(fastest {times[0]:.2f})")
    table = figures_table(tmp_path, [
        ("The scan fixture", "pingpong ran {} points", FIX, "variant=pingpong", "", "count", "d"),
        ("The scan fixture", "its medians {} us", FIX, "variant=pingpong", "median_us", "span", ".1f"),
        ("The scan", "(fastest {})", FIX, "variant=pingpong", "median_us", "min", ".2f")])
    assert history.check(table, page(tmp_path, text)) == []
    # a figure the data does not give, a filter that matches nothing, an unknown computation
    table = figures_table(tmp_path, [
        ("The scan fixture", "pingpong ran {} points", FIX, "variant!=pingpong", "", "count", "d"),
        ("The scan fixture", "its medians {} us", FIX, "variant=no_such", "median_us", "span", ".1f"),
        ("The scan fixture", "fastest {}", FIX, "variant=pingpong", "median_us", "mode", ".2f"),
        ("Another", "pingpong ran {} points", FIX, "variant=pingpong", "", "count", "d")])
    bad = history.check(table, page(tmp_path, text))
    assert [line for line, _ in bad] == [2, 3, 4, 5]
    assert "does not quote" in bad[0][1] and "no row matches" in bad[1][1] and "unknown stat" in bad[2][1]
    assert "'Another' does not quote" in bad[3][1]


def test_a_filter_value_may_hold_spaces_written_as_percent_20(tmp_path):
    (tmp_path / "forms.csv").write_text("form,gbps\nvec U=4 plain,3863.0\nvec U=8 plain,3830.9\n")
    forms = str(tmp_path / "forms.csv")
    table = figures_table(tmp_path, [
        ("The scan fixture", "moved {} GB/s", forms, "status!=none form=vec%20U=4%20plain", "gbps", "value", ".1f")])
    assert history.check(table, page(tmp_path, "moved 3863.0 GB/s")) == []
    # the same words with their spaces split into filters of their own
    table = figures_table(tmp_path, [
        ("The scan fixture", "moved {} GB/s", forms, "status!=none form=vec U=4 plain", "gbps", "value", ".1f")])
    assert "is not col=value" in history.check(table, page(tmp_path, "moved 3863.0 GB/s"))[0][1]


def test_check_exits_1_with_a_line_per_wrong_figure_and_2_on_an_unusable_table(tmp_path, capsys):
    table = figures_table(tmp_path, [("The scan fixture", "ran {} points", FIX, "variant=pingpong", "", "count", "d")])
    assert history.main(["--check", table, "--history", page(tmp_path, "ran 0 points")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("history.py: ") and ":2: the data gives 'ran " in err[0]
    (tmp_path / "bad.csv").write_text("entry,phrase\n")
    assert history.main(["--check", str(tmp_path / "bad.csv")]) == 2
    assert "columns must be entry,phrase,files" in capsys.readouterr().err
    assert history.main(["--check", str(tmp_path / "none.csv")]) == 2
