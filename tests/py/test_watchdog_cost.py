"""scripts/probes/watchdog_cost.py: per-variant watchdog / no-watchdog ratios and
A/A noise, on the committed A/A pair with a planted cost."""
import csv
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "probes"))
import watchdog_cost  # noqa: E402

AA = os.path.join(ROOT, "tests", "py", "fixtures", "compare", "h200_aa")
BASE, NEW = os.path.join(AA, "base.csv"), os.path.join(AA, "new.csv")


def scaled(src, dst, variant, factor, column):
    """A copy of src with `column` of one variant's ok rows times factor."""
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        if r["variant"] == variant and r["status"] == "ok" and r[column]:
            r[column] = repr(float(r[column]) * factor)
    with open(dst, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    return str(dst)


def by_variant(rows):
    return {(f, v): (m, n, g, lo, hi, aa) for f, v, m, n, g, lo, hi, aa in rows}


def test_identical_runs_cost_nothing():
    got = by_variant(watchdog_cost.summarize([BASE, NEW], [BASE, NEW]))
    m, n, g, lo, hi, aa = got[("scan", "mbarrier")]
    assert (m, n) == ("median_us", 24)
    assert g == lo == hi == 1.0
    assert 0 < aa < 0.01  # the real A/A pair differs a little


def test_planted_cost_shows_on_its_variant_only(tmp_path):
    wd1 = scaled(BASE, tmp_path / "wd1.csv", "mbarrier", 1.10, "median_us")
    wd2 = scaled(NEW, tmp_path / "wd2.csv", "mbarrier", 1.10, "median_us")
    got = by_variant(watchdog_cost.summarize([BASE, NEW], [wd1, wd2]))
    assert abs(got[("scan", "mbarrier")][2] - 1.10) < 1e-9
    assert got[("stencil", "mbarrier")][2] > 1.09  # stencil has an mbarrier variant too
    assert got[("scan", "pingpong")][2] == 1.0


def test_barrier_families_compare_cycles_per_op(tmp_path):
    wd = scaled(BASE, tmp_path / "wd.csv", "expect_tx_zero", 1.5, "cycles_per_op")
    got = by_variant(watchdog_cost.summarize([BASE], [wd]))
    m, n, g, lo, hi, aa = got[("barrier", "expect_tx_zero")]
    assert m == "cycles_per_op" and abs(g - 1.5) < 1e-9
    assert aa is None  # one no-watchdog run: no A/A figure


def test_cli_prints_table_and_rejects_bad_csv(tmp_path):
    script = os.path.join(ROOT, "scripts", "probes", "watchdog_cost.py")
    r = subprocess.run([sys.executable, script, "--nowd", BASE, NEW, "--wd", BASE, NEW,
                        "--markdown"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "| scan | mbarrier | median_us | 24 | x1.0000 |" in r.stdout
    bad = tmp_path / "bad.csv"
    bad.write_text("schema_version,family\n1,scan\n")
    r = subprocess.run([sys.executable, script, "--nowd", str(bad), "--wd", BASE],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "missing column" in r.stderr
