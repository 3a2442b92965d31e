"""compare.py and its gate on real H200 data. Every "other run" here is the
real fixture transformed in code (times scaled, rows dropped, statuses or
GPU name changed), so each test plants exactly one known difference.
Real pairs from the GPU go in tests/py/fixtures/compare/<case>/ (see the README
there) and are checked by test_recorded_case."""
import contextlib
import csv
import glob
import io
import json
import lzma
import math
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import compare  # noqa: E402
import sbcompare  # noqa: E402
import sbcsv  # noqa: E402
import sbvariants  # noqa: E402

COMPARE = os.path.join(ROOT, "scripts", "compare.py")
FIXTURE = os.path.join(ROOT, "tests", "py", "fixtures", "h200_scan_default.csv")
QUICK = os.path.join(ROOT, "tests", "py", "fixtures", "h200_quick.csv")
CASES = sorted(glob.glob(os.path.join(ROOT, "tests", "py", "fixtures", "compare", "*", "expect.json")))
TIME_COLUMNS = sbcsv.SAMPLE_TIMES
SCAN_VARIANTS = ["two_barrier", "pingpong", "mbarrier", "warp_shuffle"]


# ------------------------------------------------------------ helpers

def read_records(path=FIXTURE):
    """(header, rows as dicts of strings) exactly as the file has them
    (a committed .csv.xz through lzma, also when named by its .csv)."""
    path = sbcsv.on_disk(path)
    opener = lzma.open if str(path).endswith(".xz") else open
    with opener(path, "rt", newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def write_records(path, header, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


def transformed(tmp_path, fn, name="new.csv", src=FIXTURE):
    """The fixture with fn applied to every row (fn returns the row, or None
    to drop it)."""
    header, rows = read_records(src)
    out = [r2 for r2 in (fn(dict(r)) for r in rows) if r2 is not None]
    return write_records(tmp_path / name, header, out)


def scale_times(row, factor):
    """A run where this point takes factor times as long: every time scales,
    throughput figures and the paired ratio to a ceiling (its time over
    this one's) scale inversely."""
    for c in sbcompare.SLOWER_COLUMNS:  # the sample times and the A/B's cycles
        if row.get(c):
            row[c] = f"{float(row[c]) * factor:.4f}"
    for c in sbcompare.SLOWER_INVERSE:
        if row.get(c):
            row[c] = f"{float(row[c]) / factor:.4f}"
    return row


def scaled_run(run, pick, factor):
    """The run in memory (no CSV written and read back) with every ok row
    that pick(row) chooses taking factor times as long (sbcompare.slowed)."""
    return sbcompare.with_rows(run, [sbcompare.slowed(r, factor) if r["status"] == sbcompare.OK and pick(r) else r
                                     for r in run.rows])


def slow_variant(variant, factor):
    return lambda r: scale_times(r, factor) if r["variant"] == variant else r


def run_compare_cli(*args):
    """scripts/compare.py as a command: (exit status, stdout, stderr)."""
    p = subprocess.run([sys.executable, COMPARE, *map(str, args)],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def run_compare(*args):
    """compare.main in this process (no interpreter and scipy start per
    call), as the command would: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = compare.main([str(a) for a in args])
        except SystemExit as e:  # argparse's usage errors
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def comparison(base, new, threshold=sbcompare.DEFAULT_THRESHOLD):
    return sbcompare.compare(sbcompare.load_run(base), sbcompare.load_run(new), threshold)


def keys_of(rows):
    return {sbcsv.key(r) for r in rows}


def fixture_keys(pred):
    return keys_of(r for r in sbcsv.read(FIXTURE) if pred(r))


# ------------------------------------------------------------ A/A

@pytest.mark.parametrize("path", [FIXTURE, QUICK])
def test_same_run_twice_passes_the_gate(path):
    rc, out, err = run_compare_cli("--gate", path, path)
    assert rc == 0, err
    assert out.startswith("## syncbench gate: PASS (0 regression(s), 0 broken point(s), 0 missing")
    cmp = comparison(path, path)
    assert len(cmp.matches) == len(sbcsv.read(path))
    assert all(m.ratio == 1 and m.verdict == "" for m in cmp.matches)


def test_geomean_of_the_same_run_is_one():
    cmp = comparison(FIXTURE, FIXTURE)
    assert set(sbcompare.geomeans(cmp.matches, sbcompare.by_family).values()) == {1.0}


def test_real_run_to_run_drift_beats_the_iqr_but_not_the_threshold():
    # The two real H200 runs, 9 s apart, share one point: the copy
    # reference. It drifted by about 1% with disjoint IQRs; only the
    # threshold keeps the gate from calling that a regression.
    cmp = comparison(QUICK, FIXTURE)
    (m,) = cmp.matches
    assert m.base["family"] == "reference"
    assert 1.005 < m.ratio < 1.02 and m.new["q1_us"] > m.base["q3_us"]
    assert m.verdict == "" and cmp.regressions == []
    assert sbcompare.slower_beyond_noise(m.base, m.new, threshold=0.0)
    rc, out, _ = run_compare("--gate", "--allow-missing", QUICK, FIXTURE)
    assert rc == 0 and "PASS (0 regression(s), 0 broken point(s))" in out


# ------------------------------------------------------------ planted slowdowns

@pytest.mark.parametrize("variant", SCAN_VARIANTS)
def test_ten_percent_slowdown_flags_that_variant_and_no_other(tmp_path, variant):
    new = transformed(tmp_path, slow_variant(variant, 1.10))
    rc, out, err = run_compare("--gate", FIXTURE, new)
    assert rc == 1, err
    assert out.startswith("## syncbench gate: FAIL (24 regression(s), 0 broken")
    cmp = comparison(FIXTURE, new)
    assert keys_of(m.base for m in cmp.regressions) == fixture_keys(lambda r: r["variant"] == variant)
    assert cmp.improvements == [] and cmp.broken == [] and cmp.missing == []


def test_geomeans_see_the_planted_factor(tmp_path):
    new = transformed(tmp_path, slow_variant("pingpong", 1.10))
    cmp = comparison(FIXTURE, new)
    per_variant = sbcompare.geomeans(cmp.matches, sbcompare.by_variant)
    assert per_variant[("scan", "pingpong")] == pytest.approx(1.10, rel=1e-4)
    assert per_variant[("scan", "mbarrier")] == 1.0
    # 24 of 96 scan points are 10% slower: the family moves by 1.1^(1/4).
    per_family = sbcompare.geomeans(cmp.matches, sbcompare.by_family)
    assert per_family["scan"] == pytest.approx(1.10 ** 0.25, rel=1e-4)
    assert per_family["reference"] == 1.0


COMMITTED = [os.path.join(ROOT, "results", g, "latest.csv") for g in ("h200", "h100-80gb-hbm3")]


@pytest.mark.parametrize("path", COMMITTED, ids=["h200", "h100"])
def test_three_percent_slowdown_of_any_variant_is_flagged_at_every_point(path):
    """Rule B: x1.03 on every timing column of one variant of a real
    committed run flags every point of that variant and nothing else; for
    each variant of 5 or more points, one at a time."""
    base = sbcompare.load_run(path)
    sizes = {}
    for m in sbcompare.compare(base, base).matches:
        sizes[sbcompare.by_variant(m)] = sizes.get(sbcompare.by_variant(m), 0) + 1
    tried = 0
    for (family, variant), count in sizes.items():
        if count < sbcompare.VARIANT_MIN_POINTS:
            continue
        pick = lambda r: (r["family"], r["variant"]) == (family, variant)  # noqa: E731
        cmp = sbcompare.compare(base, scaled_run(base, pick, 1.03))
        assert keys_of(m.base for m in cmp.regressions) == keys_of(
            r for r in base.rows if pick(r) and r["status"] == "ok"), (family, variant)
        assert len(cmp.regressions) == count and cmp.improvements == []
        tried += 1
    assert tried >= 45  # every multi-point variant of the sweep


def test_planted_three_percent_fails_the_gate_with_exit_1(tmp_path):
    path = COMMITTED[0]
    new = transformed(tmp_path, lambda r: scale_times(r, 1.03)
                      if (r["family"], r["variant"]) == ("scan", "pingpong") else r, src=path)
    rc, out, err = run_compare("--gate", path, new)
    assert rc == 1, err
    points = sum(r["status"] == "ok" and (r["family"], r["variant"]) == ("scan", "pingpong")
                 for r in sbcsv.read(path))
    assert points >= 5 and out.startswith(f"## syncbench gate: FAIL ({points} regression(s)")
    assert "| SLOWER (B) |" in out


def test_two_percent_wobble_of_one_variant_is_not_flagged(tmp_path):
    """Just above the largest A/A change of a point, but a variant shift
    under VARIANT_SHIFT: clean."""
    new = transformed(tmp_path, slow_variant("pingpong", 1.012))
    assert comparison(FIXTURE, new).regressions == []


AA_PAIRS = [(os.path.join(ROOT, "tests", "py", "fixtures", "compare", "h200_aa", "base.csv"),
             os.path.join(ROOT, "tests", "py", "fixtures", "compare", "h200_aa", "new.csv")),
            (os.path.join(ROOT, "tests", "py", "fixtures", "barrier_h200_run1.csv"),
             os.path.join(ROOT, "tests", "py", "fixtures", "barrier_h200_run2.csv"))]


@pytest.mark.parametrize("base,new", AA_PAIRS, ids=["h200_aa", "barrier_run1_run2"])
def test_real_aa_pairs_flag_nothing(base, new):
    for a, b in ((base, new), (new, base)):  # either way round
        cmp = comparison(a, b)
        assert len(cmp.matches) > 300
        assert cmp.regressions == [] and cmp.improvements == []
        assert run_compare("--gate", a, b)[0] == 0


def test_one_point_three_percent_needs_a_lower_threshold(tmp_path):
    """A lone point moving 3% is rule A's business: under the default 5%,
    flagged with --threshold 2 (the threshold is the floor of every band:
    scan/mbarrier's on the H200 is under 2%, results/bands.csv)."""
    one = lambda r: scale_times(r, 1.03) if (r["variant"], r["block_threads"], r["iters"]) == (  # noqa: E731
        "mbarrier", "256", "16") else r
    new = transformed(tmp_path, one)
    assert run_compare("--gate", FIXTURE, new)[0] == 0
    rc, out, _ = run_compare("--gate", "--threshold", "2", FIXTURE, new)
    assert rc == 1
    assert "FAIL (1 regression(s)" in out and "| SLOWER (A) |" in out
    assert run_compare("--gate", "--threshold", "2%", FIXTURE, FIXTURE)[0] == 0


def test_faster_run_is_not_a_regression(tmp_path):
    new = transformed(tmp_path, slow_variant("mbarrier", 1 / 1.10))
    rc, out, _ = run_compare("--gate", FIXTURE, new)
    assert rc == 0
    assert "### Largest moves of the gated figure (0 slower, 24 faster beyond noise)" in out
    faster = out.split("largest faster:\n\n")[1].split("\n\n")[0].splitlines()[2:]
    assert len(faster) == 10 and all("| mbarrier |" in line for line in faster)


def widen_new_iqr_over_base_q3(row, samples=None):
    """Median 10% slower, its quartiles spread from 0.8x the old q1 to 1.3x
    the old q3: the spread overlaps; samples: that many samples (the median's
    notch, 1.57 IQR / sqrt(samples), widens as they are fewer)."""
    q1, q3 = float(row["q1_us"]), float(row["q3_us"])
    scale_times(row, 1.10)
    row["q1_us"], row["q3_us"] = f"{q1 * 0.8:.4f}", f"{q3 * 1.3:.4f}"
    if samples is not None:
        row["samples"] = str(samples)
    return row


def test_slowdown_that_the_spread_explains_is_not_flagged(tmp_path):
    target = ("scan", "warp_shuffle", "256")
    pick = lambda r: (r["family"], r["variant"], r["block_threads"]) == target  # noqa: E731
    # Four samples: the new side's median notch (1.57 IQR / 2) reaches below
    # the base's: its spread explains the move
    noisy = transformed(tmp_path, lambda r: widen_new_iqr_over_base_q3(r, samples=4) if pick(r) else r)
    cmp = comparison(FIXTURE, noisy)
    touched = [m for m in cmp.matches if m.base["variant"] == "warp_shuffle"
               and m.base["block_threads"] == 256]
    assert len(touched) == 4 and all(m.ratio > 1.09 for m in touched)
    assert all(m.new["q1_us"] <= m.base["q3_us"] for m in touched)
    assert cmp.regressions == []
    assert run_compare("--gate", FIXTURE, noisy)[0] == 0
    # The same spread over the fixture's own sample counts: the medians'
    # notches part (the median moved more than its samples leave in doubt)
    many = transformed(tmp_path, lambda r: widen_new_iqr_over_base_q3(r) if pick(r) else r, "many.csv")
    assert all(r["samples"] >= 20 for r in sbcsv.read(many) if (r["family"], r["variant"]) == target[:2])
    assert keys_of(m.base for m in comparison(FIXTURE, many).regressions) == keys_of(m.base for m in touched)
    # Rows that count no samples (before the column): their quartiles, which overlap
    bare = transformed(tmp_path, lambda r: widen_new_iqr_over_base_q3(r, samples="") if pick(r) else r, "bare.csv")
    assert comparison(FIXTURE, bare).regressions == []
    # The same medians with the quartiles scaled too: now flagged.
    tight = transformed(tmp_path, lambda r: scale_times(r, 1.10) if pick(r) else r, "tight.csv")
    assert keys_of(m.base for m in comparison(FIXTURE, tight).regressions) == keys_of(
        m.base for m in touched)


def test_sensitivity_is_the_exact_edge_of_the_rule(tmp_path):
    # For each point: scaled just above its smallest flagged factor it is
    # flagged, just below it is not.
    cmp = comparison(FIXTURE, FIXTURE)
    for m in cmp.matches[:12]:
        s = sbcompare.smallest_flagged_scale(m.base, m.new, cmp.threshold)
        assert s >= 1.05
        above = {c: m.new[c] * s * 1.0001 for c in sbcompare.TIMES}
        below = {c: m.new[c] * s * 0.9999 for c in sbcompare.TIMES}
        assert sbcompare.slower_beyond_noise(m.base, above, cmp.threshold)
        assert not sbcompare.slower_beyond_noise(m.base, below, cmp.threshold)


def test_sensitivity_option_reports_per_variant_edges(tmp_path):
    # The second run of this "A/A pair" is 2% faster on pingpong: a 5% gate
    # then needs 1.05 / 0.98 = +7.1% before rule A flags those points; the
    # whole variant fails once rule B's shift (1.5% without a band table)
    # is passed: +2% where the pair agreed, +5% where it had pingpong 2%
    # faster (1.03 x 0.98 is a 0.9% shift).
    faster = transformed(tmp_path, slow_variant("pingpong", 0.98))
    rc, out, _ = run_compare("--sensitivity", FIXTURE, faster)
    assert rc == 0
    rows = {tuple(line.split()[:2]): line.split()[2:] for line in out.splitlines()
            if line.startswith("scan ") and len(line.split()) == 8}
    assert rows[("scan", "pingpong")] == ["24", "time", "-2.0%", "+7.1%", "+7.1%", "+5.0%"]
    assert rows[("scan", "mbarrier")] == ["24", "time", "+0.0%", "+5.0%", "+5.0%", "+2.0%"]
    # with --gate too: the same table after the gate's summary, and the gate's own exit status
    rc, gated, _ = run_compare("--gate", "--sensitivity", FIXTURE, faster)
    assert rc == 0 and "whole variant fails from" in gated
    edges = lambda text: [line.split() for line in text.splitlines()  # noqa: E731
                          if line.startswith("scan ") and line.split()[3:4] == ["time"]]
    assert len(edges(gated)) == 4 and edges(gated) == edges(out)


def test_whole_variant_edge_is_where_the_gate_first_fails(tmp_path):
    # Each edge is a plant the gate fails and the plant below it one it
    # passes; a band wider than every plant leaves no edge.
    cmp = comparison(FIXTURE, FIXTURE)
    variant = ("scan", "mbarrier")
    edge = sbcompare.whole_variant_edge(cmp, variant)
    below = sbcompare.WHOLE_VARIANT_PLANTS[sbcompare.WHOLE_VARIANT_PLANTS.index(edge) - 1]
    rows = lambda f: [sbcompare.slowed(m.new, f) if sbcompare.by_variant(m) == variant  # noqa: E731
                      else m.new for m in cmp.matches]
    for factor, fails in ((edge, True), (below, False)):
        planted = sbcompare.compare(cmp.base, sbcompare.with_rows(cmp.new, rows(factor)))
        assert bool(planted.regressions) == fails
    assert sbcompare.whole_variant_edge(cmp, variant, factors=(1.001, 1.002)) is None


# ------------------------------------------------------------ status changes

def break_point(status):
    def fn(r):
        if (r["variant"], r["block_threads"], r["iters"]) == ("mbarrier", "128", "4"):
            r["status"], r["detail"] = status, f"planted {status}"
            for c in TIME_COLUMNS + ("cv_pct", "gbps", "pct_of_copy"):
                if c in r:
                    r[c] = ""
        return r
    return fn


@pytest.mark.parametrize("status", ["wrong", "error", "deadlock", "unsupported"])
def test_point_ok_in_base_but_not_in_new_fails_the_gate(tmp_path, status):
    new = transformed(tmp_path, break_point(status))
    rc, out, _ = run_compare("--gate", FIXTURE, new)
    assert rc == 1
    assert "FAIL (0 regression(s), 1 broken point(s)" in out
    broken = out.split("### Broken: ok in base, not ok in new\n\n")[1].split("\n\n")[0]
    assert f"| scan | mbarrier | 128 | 4 | 32M | ok | {status} | planted {status} |" in broken


def test_multi_line_detail_keeps_the_markdown_table_whole(tmp_path):
    def wrong_twice(r):
        r = break_point("wrong")(r)
        r["detail"] = r["detail"].replace("planted ", "planted\n") if r["detail"] else r["detail"]
        return r
    rc, out, _ = run_compare("--gate", FIXTURE, transformed(tmp_path, wrong_twice))
    assert rc == 1
    assert "| scan | mbarrier | 128 | 4 | 32M | ok | wrong | planted wrong |" in out


def test_newly_fixed_point_does_not_fail_the_gate(tmp_path):
    base = transformed(tmp_path, break_point("wrong"), "base.csv")
    rc, out, _ = run_compare("--gate", base, FIXTURE)
    assert rc == 0
    assert "1 point(s) new or newly ok in new: not gated (0 new, 1 newly ok)." in out


def drop_point(r):
    return None if (r["variant"], r["block_threads"], r["iters"]) == ("pingpong", "64", "16") else r


def test_point_missing_from_new_fails_unless_allowed(tmp_path):
    new = transformed(tmp_path, drop_point)
    rc, out, _ = run_compare("--gate", FIXTURE, new)
    assert rc == 1 and "1 missing point(s)" in out
    assert "| scan | pingpong | 64 | 16 | 32M | ok | (absent) |" in out
    rc, out, _ = run_compare("--gate", "--allow-missing", FIXTURE, new)
    assert rc == 0 and "Missing in new (not counted: --allow-missing)" in out


def test_summary_file_gets_the_markdown_and_stdout_the_table(tmp_path):
    new = transformed(tmp_path, slow_variant("two_barrier", 1.10))
    summary = tmp_path / "summary.md"
    rc, out, _ = run_compare("--gate", FIXTURE, new, "--summary", summary)
    assert rc == 1
    text = summary.read_text()
    assert text.startswith("## syncbench gate: FAIL (24 regression(s)")
    regressions = text.split("### Regressions\n\n")[1].split("\n\n")[0]
    flagged = [line for line in regressions.splitlines() if line.startswith("| scan |")]
    assert len(flagged) == 24 and all("| two_barrier |" in line for line in flagged)
    assert all(re.search(r"\| \+10\.0% \| A \d+\.\d% / B \d+\.\d% \| SLOWER \(A\) \|$", line)
               for line in flagged)
    assert out.startswith("base: ") and "97 points ok on both sides: 24 slower" in out


# ------------------------------------------------------------ cross-GPU

OTHER_GPU = "NVIDIA A100-SXM4-80GB"


def other_gpu(r):
    """Another GPU: every time 1.6x, and no mbarrier at 1024 threads (as if
    unsupported), and warp_shuffle at n=32M absent from its sweep."""
    r["gpu_name"] = OTHER_GPU
    if r["variant"] == "mbarrier" and r["block_threads"] == "1024":
        r["status"], r["detail"] = "unsupported", "needs sm_90"
        for c in TIME_COLUMNS + ("cv_pct", "gbps", "pct_of_copy"):
            if c in r:
                r[c] = ""
        return r
    if r["variant"] == "warp_shuffle" and r["block_threads"] == "32":
        return None
    return scale_times(r, 1.6) if r["status"] == "ok" else r


def test_cross_gpu_compares_normalized_figures_and_lists_one_sided_rows(tmp_path):
    new = transformed(tmp_path, other_gpu)
    cmp = comparison(FIXTURE, new)
    assert cmp.cross_gpu
    assert cmp.normalized_columns() == ["pct_of_copy"]
    unsupported = fixture_keys(lambda r: r["variant"] == "mbarrier" and r["block_threads"] == 1024)
    absent = fixture_keys(lambda r: r["variant"] == "warp_shuffle" and r["block_threads"] == 32)
    assert keys_of(b for b, _ in cmp.broken) == unsupported and len(unsupported) == 4
    assert keys_of(cmp.only_base) == absent and len(absent) == 4
    assert len(cmp.matches) == 97 - 8
    # scale_times scales pct_of_copy with throughput (as if both GPUs had
    # one copy bandwidth): 1/1.6, to the 2 decimals of the CSV.
    for m in cmp.matches:
        assert m.ratio == pytest.approx(1.6, rel=1e-3)
        assert m.figure_ratio("pct_of_copy") == pytest.approx(1 / 1.6, rel=2e-2)

    rc, out, err = run_compare(FIXTURE, new, "--details")
    assert rc == 0, err
    assert f"mode: cross-GPU (NVIDIA H200 vs {OTHER_GPU})" in out
    assert "base pct_of_copy" in out and "%copy x" in out
    one_sided = out.split("Points on one side only (8:")[1].splitlines()
    # A count per variant and status change, then every point.
    assert [line.split() for line in one_sided if line.endswith(" 4")] == [
        ["scan", "warp_shuffle", "ok", "(absent)", "4"], ["scan", "mbarrier", "ok", "unsupported", "4"]]
    assert sum(line.endswith("unsupported  needs sm_90") for line in one_sided) == 4
    assert sum(" ok " in line and "(absent)" in line for line in one_sided) == 4 + 1


def test_cycles_per_op_is_compared_when_present(tmp_path):
    # Later families fill cycles_per_op; here it is a copy of the median,
    # so the other GPU's cycles scale with its times.
    def with_cycles(r):
        r["cycles_per_op"] = r["median_us"]
        return r
    header, rows = read_records()
    base = write_records(tmp_path / "base.csv", header + ["cycles_per_op"],
                         [with_cycles(r) for r in rows])
    new = transformed(tmp_path, lambda r: (lambda o: o and with_cycles(o))(other_gpu(r)),
                      name="other.csv", src=base)
    cmp = comparison(base, new)
    assert cmp.normalized_columns() == ["pct_of_copy", "cycles_per_op"]
    m = cmp.matches[5]
    assert m.figure_ratio("cycles_per_op") == pytest.approx(1.6, rel=1e-3)
    rc, out, _ = run_compare("--markdown", "--details", base, new)
    assert rc == 0 and "| base cycles_per_op | new cycles_per_op | cycles_per_op ratio |" in out
    assert "| %copy x | cycles x |" in out


def test_gate_refuses_two_gpus(tmp_path):
    new = transformed(tmp_path, other_gpu)
    rc, _, err = run_compare("--gate", FIXTURE, new)
    assert rc == 2
    assert f"{new}:2: column 'gpu_name'" in err and "Traceback" not in err


def test_more_than_two_csvs_compare_each_with_the_first(tmp_path):
    slow = transformed(tmp_path, slow_variant("pingpong", 1.10), "slow.csv")
    rc, out, _ = run_compare(FIXTURE, slow, QUICK)
    assert rc == 0
    assert out.count("base: ") == 2
    assert f"new : {slow}" in out and f"new : {QUICK}" in out


def test_extra_axes_are_part_of_the_key_and_the_table(tmp_path):
    # Two participants values per point: twice the points, none duplicated.
    header, rows = read_records()
    header = header + ["participants"]
    doubled = [dict(r, participants=p) for r in rows for p in ("all", "warp")]
    path = write_records(tmp_path / "p.csv", header, doubled)
    cmp = comparison(path, path)
    assert len(cmp.matches) == 2 * len(rows)
    assert "participants" in cmp.axes()
    rc, out, _ = run_compare(path, path, "--details")
    points = out.split("Points ok on both sides")[1]
    header_line = next(line for line in points.splitlines() if line.startswith("family"))
    assert rc == 0 and header_line.split()[2:6] == ["block_threads", "iters", "n", "participants"]


def test_auto_splits_is_a_point_beside_the_explicit_counts(tmp_path):
    # Schema 7: splits=auto and splits=8 are two points even where auto
    # ran 8; an old file with only the counts gates against a new one with
    # auto too (auto is a point the base lacks, not a duplicate of 8).
    header, rows = read_records()
    header = header + ["splits", "splits_used"]
    new_rows = [dict(r, schema_version="7", splits=s, splits_used="8") for r in rows for s in ("auto", "8")]
    new = write_records(tmp_path / "n.csv", header, new_rows)
    cmp = comparison(new, new)
    assert len(cmp.matches) == 2 * len(rows) and "splits" in cmp.axes()
    old = write_records(tmp_path / "o.csv", header[:-1],
                        [{k: v for k, v in dict(r, splits="8").items() if k != "splits_used"} for r in rows])
    rc, out, err = run_compare("--gate", old, new)
    assert rc == 0, err
    assert f"{len(rows)} point(s) new or newly ok in new: not gated ({len(rows)} new" in out


def test_plots_option_draws_one_plot_set(tmp_path):
    new = transformed(tmp_path, other_gpu)
    outdir = tmp_path / "plots"
    rc, _, err = run_compare(FIXTURE, new, "--plots", outdir)
    assert rc == 0, err
    assert (outdir / "scan.png").is_file()


# ------------------------------------------------------------ bad input

def bad_empty(tmp_path):
    (tmp_path / "bad.csv").write_text("")
    return 1, None


def bad_header_only(tmp_path):
    header, _ = read_records()
    write_records(tmp_path / "bad.csv", header, [])
    return 2, None


def bad_truncated_row(tmp_path):
    # The writer died mid-row: the last line lost its tail.
    text = open(FIXTURE).read().rstrip("\n")
    (tmp_path / "bad.csv").write_text(text[: text.rindex(",NVIDIA H200,")] + "\n")
    return len(text.splitlines()), "gpu_name"


def bad_missing_column(tmp_path):
    header, rows = read_records()
    header = [c for c in header if c != "q3_us"]
    for r in rows:
        del r["q3_us"]
    write_records(tmp_path / "bad.csv", header, rows)
    return 1, "q3_us"


def bad_schema_version(tmp_path):
    header, rows = read_records()
    rows[4]["schema_version"] = str(max(sbcsv.SUPPORTED_SCHEMA_VERSIONS) + 1)
    write_records(tmp_path / "bad.csv", header, rows)
    return 6, "schema_version"


def bad_duplicate_key(tmp_path):
    header, rows = read_records()
    write_records(tmp_path / "bad.csv", header, rows + [dict(rows[10])])
    return len(rows) + 2, "variant"


def bad_ok_without_median(tmp_path):
    header, rows = read_records()
    rows[20]["median_us"] = ""
    write_records(tmp_path / "bad.csv", header, rows)
    return 22, "median_us"


def bad_two_gpus_in_one_file(tmp_path):
    header, rows = read_records()
    rows[30]["gpu_name"] = OTHER_GPU
    write_records(tmp_path / "bad.csv", header, rows)
    return 32, "gpu_name"


BAD_INPUTS = [bad_empty, bad_header_only, bad_truncated_row, bad_missing_column,
              bad_schema_version, bad_duplicate_key, bad_ok_without_median,
              bad_two_gpus_in_one_file]


@pytest.mark.parametrize("side", ["base", "new"])
@pytest.mark.parametrize("gate", [True, False], ids=["gate", "compare"])
@pytest.mark.parametrize("make_bad", BAD_INPUTS, ids=lambda f: f.__name__[4:])
def test_bad_input_exits_2_naming_file_line_and_column(tmp_path, make_bad, gate, side):
    line, column = make_bad(tmp_path)
    bad = str(tmp_path / "bad.csv")
    pair = [bad, FIXTURE] if side == "base" else [FIXTURE, bad]
    rc, out, err = run_compare(*(["--gate"] if gate else []), *pair)
    assert rc == 2
    assert "Traceback" not in err and out == ""
    assert err.startswith(f"compare: {bad}:{line}:")
    assert "column" in err
    if column:
        assert f"'{column}'" in err or column in err.split(":", 3)[3]


def test_missing_file_exits_2(tmp_path):
    rc, _, err = run_compare(FIXTURE, tmp_path / "nope.csv")
    assert rc == 2 and "nope.csv" in err and "Traceback" not in err


def test_gate_with_nothing_in_common_exits_2(tmp_path):
    only_ref = transformed(tmp_path, lambda r: r if r["family"] == "reference" else None)
    scan_only = transformed(tmp_path, lambda r: None if r["family"] == "reference" else r,
                            "scan.csv")
    rc, _, err = run_compare("--gate", only_ref, scan_only)
    assert rc == 2 and "nothing to gate" in err


def test_gate_where_every_point_broke_fails_and_reports_them(tmp_path):
    """A new run whose every point is wrong is a failed gate (exit 1, the
    broken points counted, the summary written), not unusable input."""
    wrong = transformed(tmp_path, lambda r: {**r, "status": "wrong"} if r["status"] == "ok" else r,
                        "wrong.csv")
    summary = tmp_path / "summary.md"
    rc, out, err = run_compare("--gate", "--summary", str(summary), FIXTURE, wrong)
    assert rc == 1, err
    assert "nothing to gate" not in err and "broken" in summary.read_text()


@pytest.mark.parametrize("args", [[FIXTURE], ["--gate", FIXTURE, FIXTURE, FIXTURE],
                                  ["--threshold", "-1", FIXTURE, FIXTURE],
                                  ["--summary", "x.md", FIXTURE, FIXTURE]])
def test_bad_usage_exits_2(args):
    rc, _, err = run_compare(*args)
    assert rc == 2 and "usage:" in err


# ------------------------------------------------------------ recorded pairs

@pytest.mark.parametrize("expect_path", CASES,
                         ids=[os.path.basename(os.path.dirname(p)) for p in CASES])
def test_recorded_case(expect_path, tmp_path):
    """A real pair from the GPU: the gate's exit code and exactly which
    family/variant pairs it flags."""
    case = os.path.dirname(expect_path)
    with open(expect_path) as f:
        expect = json.load(f)
    base = os.path.join(case, expect.get("base", "base.csv"))
    new = os.path.join(case, expect.get("new", "new.csv"))
    threshold = expect.get("threshold_pct", 5)
    rc, out, err = run_compare("--gate", "--threshold", threshold, base, new,
                               "--summary", tmp_path / "s.md")
    assert rc == expect["exit"], err
    cmp = comparison(base, new, threshold / 100)
    flagged = {f"{m.base['family']}/{m.base['variant']}" for m in cmp.regressions}
    assert flagged == set(expect["flagged_variants"])
    assert len(cmp.broken) == expect.get("broken", 0)
    if "min_flagged_fraction" in expect:
        for name in expect["flagged_variants"]:
            family, variant = name.split("/")
            points = [m for m in cmp.matches
                      if (m.base["family"], m.base["variant"]) == (family, variant)]
            hit = [m for m in points if m.verdict == "slower"]
            assert len(hit) >= expect["min_flagged_fraction"] * len(points), name


def test_geomean_ignores_empty_and_is_exact():
    assert sbcompare.geomean([]) is None
    assert sbcompare.geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert sbcompare.geomean([1.1] * 7) == pytest.approx(1.1)
    assert math.isclose(sbcompare.geomean([0.5, 2.0]), 1.0)


# ------------------------------------------------------------ the committed gate

ACCEPTED = os.path.join(ROOT, "results", "accepted.csv")


COMMITTED_PAIRS = sorted(os.path.basename(os.path.dirname(b)) for b in
                         glob.glob(os.path.join(ROOT, "results", "*", "baseline.csv")))


def test_the_h100_has_a_committed_pair():
    assert "h100-80gb-hbm3" in COMMITTED_PAIRS


# What each committed pair (baseline -> latest) fails by its bands: the H100
# pair's ws_tma_wgmma point at 4096^3 (64x128 tile) moved +5.9% between its
# two chips, beyond its 95th-percentile band (the 5% floor), in sample and
# out (tests/py/test_bands.py; make gate-committed).
COMMITTED_PAIR_FAILS = {}  # every standing A/A move of a committed pair is an acceptance entry naming its commit


@pytest.mark.parametrize("gpu", COMMITTED_PAIRS)
def test_committed_gate_compares_two_chips_of_one_commit(gpu):
    """baseline.csv and latest.csv are an A/A pair: the same commit (same
    kernels) on two machines, two runs, not a copy; the gate fails
    only at COMMITTED_PAIR_FAILS, through no acceptance but the ones naming
    this pair's commit."""
    base = os.path.join(ROOT, "results", gpu, "baseline.csv")
    new = os.path.join(ROOT, "results", gpu, "latest.csv")
    b, n = sbcompare.load_run(base), sbcompare.load_run(new)
    assert b.provenance("commit") == n.provenance("commit")
    assert b.provenance("run_utc") != n.provenance("run_utc")
    assert open(base, "rb").read() != open(new, "rb").read()
    fails = len(COMMITTED_PAIR_FAILS.get(gpu, ()))
    rc, _, err = run_compare("--gate", base, new, "--accept", ACCEPTED, "--summary", os.devnull)
    assert rc == (1 if fails else 0), err
    assert re.search(rf"gate (passed|FAILED): {fails} regression\(s\), 0 broken, 0 missing \(counted\)", err), err
    commit = b.provenance("commit")[:7]
    for line in err.splitlines():
        if line.startswith("compare: accepted:"):
            assert f"({commit}..{commit})" in line, line


def test_unaccepted_regression_in_committed_latest_fails_the_gate(tmp_path):
    """A copy of the committed latest.csv with one more variant made slower
    than its baseline: the committed acceptances do not cover it, so the
    gate fails, still applying the acceptances it has."""
    base = os.path.join(ROOT, "results", "h100-80gb-hbm3", "baseline.csv")
    latest = os.path.join(ROOT, "results", "h100-80gb-hbm3", "latest.csv")
    fails = len(COMMITTED_PAIR_FAILS.get("h100-80gb-hbm3", ()))
    rc, _, err = run_compare("--gate", base, latest, "--accept", ACCEPTED, "--summary", os.devnull)
    assert rc == (1 if fails else 0), err
    accepted = re.search(r"gate (?:passed|FAILED): .* (\d+) accepted", err).group(1)
    # An A/A pair: 1.10x puts every point of the variant over the 5% gate.
    new = transformed(tmp_path, lambda r: scale_times(r, 1.10) if (r["family"], r["variant"])
                      == ("stencil", "split_arrive") else r, src=latest)
    rc, out, err = run_compare("--gate", base, new, "--accept", ACCEPTED)
    assert rc == 1, err
    # the acceptances that applied before still apply (none on an A/A pair
    # whose acceptances were all pruned)
    assert re.search(r"gate FAILED: .* (\d+) accepted", err).group(1) == accepted, err
    regressions = out.split("### Regressions\n\n")[1].split("\n\n")[0].splitlines()[2:]
    assert len(regressions) == 12 + fails  # every point of the variant, and the pair's own
    assert sum(line.startswith("| stencil | split_arrive |") for line in regressions) == 12


def write_acceptances(tmp_path, *rows):
    path = tmp_path / "accepted.csv"
    path.write_text("# comment\ngpu,point,base_commit,new_commit,reason\n"
                    + "".join(f"{r}\n" for r in rows))
    return str(path)


def test_acceptance_applies_only_to_its_runs_and_points(tmp_path):
    new = transformed(tmp_path, slow_variant("pingpong", 1.10))
    commit = sbcompare.load_run(FIXTURE).provenance("commit")[:7]
    ok = write_acceptances(tmp_path, f"h200,scan/pingpong,{commit},{commit},planted in a test")
    rc, out, err = run_compare("--gate", FIXTURE, new, "--accept", ok)
    assert rc == 0, err
    assert f"accepted: 24 point(s) by {ok}:3: h200 scan/pingpong" in err
    assert "### Accepted changes (24 point(s), not counted)" in out
    # Another GPU, another commit, or one point only: not (all) covered.
    for row, flagged in ((f"h100*,scan/pingpong,{commit},{commit},x", 24),
                         (f"*,scan/pingpong,0123abc,{commit},x", 24),
                         (f"*,scan/pingpong block_threads=256 *,{commit},{commit},x", 20)):
        rc, _, err = run_compare("--gate", FIXTURE, new, "--accept", write_acceptances(tmp_path, row))
        assert rc == 1 and f"gate FAILED: {flagged} regression(s)" in err, row


def test_bad_acceptance_file_exits_2(tmp_path):
    bad = write_acceptances(tmp_path, "h200,scan/pingpong,abc,,no new commit")
    rc, out, err = run_compare("--gate", FIXTURE, FIXTURE, "--accept", bad)
    assert rc == 2 and f"{bad}:3: column 'new_commit'" in err and "Traceback" not in err


# ------------------------------------------------------------ readable output

CROSS = [os.path.join(ROOT, "results", g, "latest.csv") for g in ("h100-80gb-hbm3", "h200")]


def test_default_output_is_a_short_summary_that_fits_the_terminal():
    rc, out, err = run_compare(*CROSS)
    assert rc == 0, err
    lines = out.splitlines()
    # a row per variant and per family of both runs, and about 20 of header and totals
    variants = {(r["family"], r["variant"]) for path in CROSS for r in sbcsv.read(path)}
    families = {f for f, _ in variants}
    assert len(lines) < len(variants) + len(families) + 25
    # as wide as the longest variant name needs (the name column), the prose wrapped at 100
    longest = max(len(v) for _, v in variants)
    assert max(map(len, lines)) <= 88 + longest and all(len(line) <= 100 for line in lines[:12])
    # Summary first: the per-variant table comes before anything per point.
    assert lines[0].startswith("base: ")
    assert "Per variant" in out and "Points ok on both sides" not in out
    row = next(line.split() for line in lines if line.startswith("pipeline ") and " ws_tma " in line)
    assert row[:3] == ["pipeline", "ws_tma", "25"]


def ok_on_both(a, b):
    """Points ok in both CSVs, counted here from the files themselves."""
    keys = [{sbcompare.describe_point(r) for r in sbcompare.load_run(p).rows
             if r["status"] == "ok"} for p in (a, b)]
    return len(keys[0] & keys[1])


def test_details_on_request_or_to_a_file(tmp_path):
    both = ok_on_both(*CROSS)
    assert both > 500  # the two GPUs' committed pairs share most of their grid
    rc, out, _ = run_compare(*CROSS, "--details")
    assert rc == 0 and f"Points ok on both sides ({both})" in out
    assert out.index("Per variant") < out.index("Points ok on both sides")
    path = tmp_path / "details.txt"
    rc, out, _ = run_compare(*CROSS, "--details-file", path)
    assert rc == 0 and "Points ok on both sides" not in out
    assert f"Points ok on both sides ({both})" in path.read_text()


def test_summary_only_has_no_per_point_rows():
    rc, out, _ = run_compare(*CROSS, "--summary-only")
    assert rc == 0 and "Per variant" in out and "per-point rows" not in out
    assert "Points ok on both sides" not in out


def summary_rows(out):
    table = out.split("Per variant")[1].split("\n\n")[1]
    return [line.split() for line in table.splitlines()[2:]]


def test_family_and_variant_filters():
    rc, out, _ = run_compare(*CROSS, "--family", "scan,stencil")
    assert rc == 0 and {r[0] for r in summary_rows(out)} == {"scan", "stencil"}
    rc, out, _ = run_compare(*CROSS, "--variant", "scan/mbarrier", "--variant", "ws_tma*")
    rows = [r[:3] for r in summary_rows(out)]
    assert rc == 0 and sorted((f, v) for f, v, _ in rows if v != "(all)") == [
        ("gemm", "ws_tma"), ("gemm", "ws_tma_wgmma"), ("gemm", "ws_tma_wgmma_multicast"),
        ("gemm", "ws_tma_wgmma_multicast_persistent"), ("gemm", "ws_tma_wgmma_multicast_persistent_tma_store"),
        ("gemm", "ws_tma_wgmma_pingpong"), ("gemm", "ws_tma_wgmma_pingpong_multicast_tma_store"),
        ("gemm", "ws_tma_wgmma_pingpong_tma_store"), ("gemm", "ws_tma_wgmma_tma_store"), ("pipeline", "ws_tma"),
        ("pipeline", "ws_tma_2d"), ("pipeline_intensity", "ws_tma"),
        ("pipeline_intensity", "ws_tma_2d"), ("scan", "mbarrier")]
    assert "18 points ok on both sides" in run_compare(*CROSS, "--variant", "scan/mbarrier")[1]
    rc, _, err = run_compare(*CROSS, "--family", "nosuch")
    assert rc == 2 and "no row matches" in err


@pytest.mark.parametrize("base_words, new_words", [
    ("L2 flushed before each sample", "L2 flushed by a read before each sample"),
    ("L2 flushed by a read before each sample", "L2 flushed by a memset before each sample"),
    ("L2 flushed by a read and a discard before each sample", "L2 flushed by a read before each sample"),
    ("L2 flushed by a read of 8 L2s before each sample", "L2 flushed by a read before each sample")])
def test_the_gate_refuses_two_flushes_with_exit_2(tmp_path, base_words, new_words):
    """A run timed under another L2 flush (SB_FLUSH) is not gated against the
    base, nor passed: one line, exit 2. The same flush on both sides gates."""
    def worded(words):
        return lambda r: {**r, "detail": r["detail"].replace("L2 flushed before each sample", words)}
    base = transformed(tmp_path, worded(base_words), name="base.csv", src=QUICK)
    new = transformed(tmp_path, worded(new_words), name="new.csv", src=QUICK)
    rc, out, err = run_compare("--gate", base, new)
    assert rc == 2 and out == "", (rc, out, err)
    old = {"L2 flushed before each sample": "memset", "L2 flushed by a read before each sample": "read",
           "L2 flushed by a read and a discard before each sample": "discard",
           "L2 flushed by a read of 8 L2s before each sample": "read SB_FLUSH_L2S=8"}[base_words]
    assert err.count("\n") == 1 and "column 'detail': the L2 was flushed by a" in err, err
    assert err.rstrip().endswith(f"re-baseline, or time the new run with SB_FLUSH={old}"), err
    same = transformed(tmp_path, worded(base_words), name="same.csv", src=QUICK)
    assert run_compare("--gate", base, same)[0] == 0


def test_the_flush_words_are_the_runners():
    """The gate tells the flushes apart by the words harness/runner.c writes
    into `detail`; the legacy words are what rows before the read flush say."""
    with open(os.path.join(ROOT, "harness", "runner.c"), encoding="utf-8") as f:
        runner = f.read()
    current = [words for words, _ in sbcompare.FLUSH_WORDS if words != "L2 flushed before each sample"]
    assert len(current) == 3 and '"L2 flushed by a %s%s before each sample"' in runner
    assert all(f'"{w.removeprefix("L2 flushed by a ")}"' in runner for w in current)
    assert 'snprintf(size, sizeof size, " of %d L2s", sb_flush_l2s())' in runner
    with open(QUICK, newline="") as f:  # a committed run of before: the legacy words, a memset
        assert "L2 flushed before each sample" in f.read()
    assert dict(sbcompare.FLUSH_WORDS)["L2 flushed before each sample"] == "memset"


def test_without_gate_the_summary_counts_points_that_broke(tmp_path):
    header, rows = read_records(FIXTURE)
    ok = [r for r in rows if r["status"] == "ok"]
    broke = transformed(tmp_path, lambda r: {**r, "status": "wrong"} if r in ok[:2] else r, "broke.csv")
    rc, out, err = run_compare(FIXTURE, broke)
    assert rc == 0, err
    assert "on one side only (2 of them ok before and not now)" in out
