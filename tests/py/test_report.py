"""report.py on the real H200 fixture: its winners tables must agree with
winners computed here straight from the CSV cells, plots must be linked
where they lie, and several GPUs must give a cross-GPU report."""
import csv
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "py"))
from test_compare import FIXTURE, OTHER_GPU, other_gpu, transformed  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import report  # noqa: E402
import sbcompare  # noqa: E402

REPORT = os.path.join(ROOT, "scripts", "report.py")
SHAPE_AXES = ("block_threads", "iters", "n")  # the axes the scan sweep sets


def run_report(*args):
    p = subprocess.run([sys.executable, REPORT, *map(str, args)],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def expected_winners(path=FIXTURE, family="scan"):
    """{(block_threads, iters, n) as strings: (winner, runner-up, margin %,
    beyond noise)} from the raw cells, independent of scripts/."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["family"] == family and r["status"] == "ok"]
    shapes = {}
    for r in rows:
        shapes.setdefault(tuple(r[a] for a in SHAPE_AXES), []).append(r)
    out = {}
    for shape, members in shapes.items():
        w, r = sorted(members, key=lambda m: float(m["median_us"]))[:2]
        margin = (float(r["median_us"]) / float(w["median_us"]) - 1) * 100
        out[shape] = (w["variant"], r["variant"], f"{margin:.1f}%",
                      "yes" if float(w["q3_us"]) < float(r["q1_us"]) else "no")
    return out


def md_table(text, first_header):
    """Rows (dicts) of the first Markdown table whose header starts with
    first_header."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, (c.strip() for c in line.strip("|").split("|")))))
    return rows


def section(text, title):
    """Text of one '## title' section."""
    return text.split(f"\n## {title}\n")[1].split("\n## ")[0]


def scan_shape(row):
    # The report writes n=33554432 as 32M; map it back for comparison.
    n = int(row["n"][:-1]) << 20 if row["n"].endswith("M") else int(row["n"])
    return (row["block_threads"], row["iters"], str(n))


@pytest.fixture
def h200_report(tmp_path):
    rc, out, err = run_report(FIXTURE, "--results", tmp_path)
    assert rc == 0, err
    return (tmp_path / "h200" / "REPORT.md").read_text()


def test_every_scan_winner_matches_the_csv(h200_report):
    table = md_table(section(h200_report, "scan"), "block_threads")
    expected = expected_winners()
    assert len(table) == len(expected) == 24
    got = {scan_shape(r): (r["winner"], r["runner-up"], r["margin"], r["beyond noise"])
           for r in table}
    assert got == expected
    # Real data has both kinds of gap: the noise column is not a constant.
    assert {v[3] for v in expected.values()} == {"yes", "no"}


def test_winner_counts_add_up(h200_report):
    expected = expected_winners()
    winners = [w for w, *_ in expected.values()]
    top = max(set(winners), key=winners.count)
    beyond = sum(1 for w, _, _, noise in expected.values() if w == top and noise == "yes")
    assert (f"**{top}** wins {winners.count(top)} of 24 shapes ({beyond} beyond noise)"
            in section(h200_report, "scan"))


def test_header_names_the_run(h200_report):
    assert h200_report.startswith("# syncbench report: NVIDIA H200\n")
    assert "| source | `" + FIXTURE + "` (97 rows: 97 ok) |" in h200_report
    with open(FIXTURE, newline="") as f:
        ref = next(r for r in csv.DictReader(f) if r["family"] == "reference")
    assert f"| device-to-device copy | {float(ref['gbps']):.2f} GB/s" in h200_report
    assert "## reference" not in h200_report


def test_not_ok_variants_are_listed_and_never_win(tmp_path):
    def cripple(r):
        # mbarrier fails everywhere at 64 threads; at 128 threads x 64 iters
        # every variant is unsupported.
        if (r["variant"] == "mbarrier" and r["block_threads"] == "64") or (
                r["family"] == "scan" and (r["block_threads"], r["iters"]) == ("128", "64")):
            r["status"], r["detail"] = ("wrong" if r["block_threads"] == "64" else "unsupported"), "x"
            for c in ("median_us", "q1_us", "q3_us", "min_us", "max_us"):
                r[c] = ""
        return r
    csv_path = transformed(tmp_path, cripple)
    rc, _, err = run_report(csv_path, "--results", tmp_path / "results")
    assert rc == 0, err
    text = (tmp_path / "results" / "h200" / "REPORT.md").read_text()
    table = {scan_shape(r): r for r in md_table(section(text, "scan"), "block_threads")}
    expected = expected_winners(csv_path)
    for shape, (winner, runner_up, margin, noise) in expected.items():
        row = table[shape]
        assert (row["winner"], row["runner-up"], row["margin"], row["beyond noise"]) == (
            winner, runner_up, margin, noise)
    for iters in ("1", "4", "16", "64"):
        assert table[("64", iters, "33554432")]["not ok"] == "mbarrier: wrong"
    dead = table[("128", "64", "33554432")]
    assert dead["winner"] == "(none ok)" and dead["not ok"].count(": unsupported") == 4


def test_plots_are_linked_by_family_with_relative_paths(tmp_path):
    plots = tmp_path / "h200" / "plots"
    plots.mkdir(parents=True)
    for name in ("scan.png", "scan_speedup.png", "scan_cycles_per_op.png", "noise.png"):
        (plots / name).write_bytes(b"")
    rc, _, err = run_report(FIXTURE, "--results", tmp_path)
    assert rc == 0, err
    text = (tmp_path / "h200" / "REPORT.md").read_text()
    scan = section(text, "scan")
    for name in ("scan.png", "scan_speedup.png", "scan_cycles_per_op.png"):
        assert f"(plots/{name})" in scan
    assert "(plots/noise.png)" in section(text, "Other plots")
    # Every link resolves from the report's own folder.
    for line in text.splitlines():
        if line.startswith("!["):
            assert (tmp_path / "h200" / line.split("](")[1].rstrip(")")).is_file()


def test_a_family_with_no_ok_row_embeds_no_plot(tmp_path):
    """plots/ may hold an earlier run's PNG of a family that broke in this
    run: the report says so instead of showing it."""
    plots = tmp_path / "h200" / "plots"
    plots.mkdir(parents=True)
    (plots / "scan_speedup.png").write_bytes(b"")
    broken = transformed(tmp_path, lambda r: {**r, "status": "wrong"} if r["family"] == "scan" else r,
                         "broken.csv")
    rc, _, err = run_report(broken, "--results", tmp_path)
    assert rc == 0, err
    scan = section((tmp_path / "h200" / "REPORT.md").read_text(), "scan")
    assert "plots/scan_speedup.png" not in scan and "No plot: no point of this family ran ok" in scan


def test_default_input_is_results_latest_csv(tmp_path):
    (tmp_path / "h200").mkdir()
    shutil.copy(FIXTURE, tmp_path / "h200" / "latest.csv")
    rc, out, err = run_report("--results", tmp_path)
    assert rc == 0, err
    text = (tmp_path / "h200" / "REPORT.md").read_text()
    assert "| source | `latest.csv` (97 rows: 97 ok) |" in text
    assert not (tmp_path / "CROSS_GPU.md").exists()


def test_report_is_deterministic(tmp_path, h200_report):
    run_report(FIXTURE, "--results", tmp_path / "again")
    assert (tmp_path / "again" / "h200" / "REPORT.md").read_text() == h200_report


def test_two_gpus_give_a_cross_gpu_report(tmp_path):
    other = transformed(tmp_path, other_gpu, "other.csv")
    results = tmp_path / "results"
    (results / "plots").mkdir(parents=True)
    (results / "plots" / "scan.png").write_bytes(b"")
    rc, _, err = run_report(FIXTURE, other, "--results", results)
    assert rc == 0, err
    slug = "a100-sxm4-80gb"
    assert (results / "h200" / "REPORT.md").is_file() and (results / slug / "REPORT.md").is_file()
    text = (results / "CROSS_GPU.md").read_text()
    assert f"[{OTHER_GPU}]({slug}/REPORT.md)" in text and "[NVIDIA H200](h200/REPORT.md)" in text
    # The 4 unsupported and 4 absent points of the other GPU, each named.
    uneven = md_table(section(text, "Points not ok on every GPU (8)"), "point")
    assert sorted(r[OTHER_GPU] for r in uneven) == ["(absent)"] * 4 + ["unsupported"] * 4
    assert all(r["NVIDIA H200"] == "ok" for r in uneven)
    # Winners per GPU agree with each GPU's own report.
    winners = md_table(text.split("### scan\n")[1], "block_threads")
    expected = expected_winners()
    for row in winners:
        assert row["NVIDIA H200"].split(" ")[0] == expected[scan_shape(row)][0]
    assert "(plots/scan.png)" in section(text, "Plots")
    # Times of the other GPU are 1.6x: the geometric mean says so.
    ratios = md_table(text, "family")
    h200_vs_other = {(r["family"], r["variant"]): r["NVIDIA H200 time ratio"] for r in ratios}
    assert set(h200_vs_other.values()) == {f"{1 / 1.6:.3f}"}


def test_same_gpu_twice_is_refused(tmp_path):
    rc, out, err = run_report(FIXTURE, FIXTURE, "--results", tmp_path)
    assert rc == 2 and f"{FIXTURE}:2: column 'gpu_name'" in err
    assert "Traceback" not in err and not (tmp_path / "h200").exists()


def test_bad_csv_exits_2_with_file_line_column(tmp_path):
    bad = transformed(tmp_path, lambda r: dict(r, schema_version="99") if r["iters"] == "4" else r)
    rc, _, err = run_report(bad, "--results", tmp_path)
    assert rc == 2 and err.startswith(f"report.py: {bad}:4: column 'schema_version'")
    assert "Traceback" not in err


def test_nothing_to_report_exits_2(tmp_path):
    rc, _, err = run_report("--results", tmp_path)
    assert rc == 2 and "latest.csv" in err


def test_speedup_table_matches_the_csv(h200_report):
    """Each cell is two_barrier's median over the variant's, from the CSV."""
    text = section(h200_report, "scan")
    table = md_table(text.split("Speedup over `two_barrier`")[1], "block_threads")
    with open(FIXTURE, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["family"] == "scan"]
    median = {(r["block_threads"], r["iters"], r["n"], r["variant"]): float(r["median_us"])
              for r in rows}
    assert len(table) == 24
    for cell in table:
        shape = scan_shape(cell)
        base = median[shape + ("two_barrier",)]
        for variant in ("pingpong", "mbarrier", "warp_shuffle"):
            assert cell[variant] == f"{base / median[shape + (variant,)]:.2f}x"


# ------------------------------------------------------------ same winner

def shape_of_rows(*variants):
    """A Shape from (variant, median, q1, q3) tuples."""
    rows = [{"family": "scan", "variant": v, "status": "ok", "median_us": m, "q1_us": q1,
             "q3_us": q3, "block_threads": 256} for v, m, q1, q3 in variants]
    (shape,) = sbcompare.shapes(rows)
    return shape


def test_same_winner_is_yes_no_tie_or_na():
    a = shape_of_rows(("pingpong", 100.0, 99.9, 100.1), ("mbarrier", 100.2, 100.1, 100.3))
    b = shape_of_rows(("pingpong", 100.1, 100.0, 100.2), ("mbarrier", 100.0, 99.9, 100.1))
    far = shape_of_rows(("pingpong", 120.0, 119.9, 120.1), ("mbarrier", 100.0, 99.9, 100.1))
    assert report.same_winner([a, a]) == "yes"
    # +0.2% against +0.1%: a noise-level flip is a tie, not "no".
    assert report.same_winner([a, b]) == "yes (within noise)"
    clear = shape_of_rows(("pingpong", 100.0, 99.9, 100.1), ("mbarrier", 110.0, 109.9, 110.1))
    assert report.same_winner([clear, far]) == "no"
    # a's runner-up mbarrier is within noise of its winner, and far's winner.
    assert report.same_winner([a, far]) == "yes (within noise)"
    # A GPU without the shape (or with nothing ok there): not comparable.
    assert report.same_winner([a, None]) == "n/a"
    none_ok = shape_of_rows(("pingpong", 100.0, 99.9, 100.1))
    none_ok.ranked.clear()
    assert report.same_winner([a, none_ok]) == "n/a"


# ------------------------------------------------------------ gemm by part

def test_gemm_by_part_table_matches_the_csv_and_the_variant_table(tmp_path):
    """Each row of gemm's by-part table: the variants with that part (from
    results/variants.csv: schema-9 rows carry no parts, sbcsv gives them the
    table's), their ok points, and the best paired % of cuBLAS among them,
    computed here from the committed H200 run."""
    latest = os.path.join(ROOT, "results", "h200", "latest.csv")
    rc, _, err = run_report(latest, "--results", tmp_path)
    assert rc == 0, err
    table = md_table(section((tmp_path / "h200" / "REPORT.md").read_text(), "gemm"), "part")
    with open(os.path.join(ROOT, "results", "variants.csv"), newline="") as f:
        parts = {r["variant"]: r for r in csv.DictReader(f) if r["family"] == "gemm"}
    with open(latest, newline="") as f:
        ok = [r for r in csv.DictReader(f)
              if r["family"] == "gemm" and r["status"] == "ok" and r["pct_of_cublas"] and parts[r["variant"]]["mainloop"]]
    assert {row["part"] for row in table} == {"mainloop", "consumer", "schedule", "epilogue"}
    for row in table:
        value = row["value"].strip("`")
        have = [r for r in ok if parts[r["variant"]][row["part"]] == value]
        assert row["variants"] == str(len({r["variant"] for r in have}))
        assert row["points"] == str(len(have))
        best = max(have, key=lambda r: float(r["pct_of_cublas"]))
        assert row["best % (variant, shape)"].startswith(f"{float(best['pct_of_cublas']):.1f} (`{best['variant']}`")
    # every composed variant's every ok point is counted once per part
    assert sum(int(row["points"]) for row in table if row["part"] == "consumer") == len(ok)
