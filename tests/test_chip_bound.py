"""The gate across chips (issue 27, item 3): results/chip_bound.csv says
which variants ride on the chip (scripts/chip_bound.py computes it from the
committed cross-chip A/A pairs); between two chips of one GPU model their
points are listed as "chip differs", not gated; on one chip (same
gpu_uuid, or an A/B run interleaved on one GPU) every point is gated.

Every "other run" here is a committed CSV transformed in code (times scaled,
gpu_uuid or commit changed), so each test plants one known difference."""
import csv
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import sbcompare  # noqa: E402
import sbcsv  # noqa: E402
from test_compare import (read_records, run_compare, scale_times,  # noqa: E402
                          write_records)

CHIP_BOUND = os.path.join(ROOT, "scripts", "chip_bound.py")
TABLE = os.path.join(ROOT, "results", "chip_bound.csv")
ACCEPTED = os.path.join(ROOT, "results", "accepted.csv")
H100 = os.path.join(ROOT, "results", "h100-80gb-hbm3")
LATEST = os.path.join(H100, "latest.csv")
BASELINE = os.path.join(H100, "baseline.csv")
GPUS = sorted(d for d in os.listdir(os.path.join(ROOT, "results"))
              if os.path.exists(os.path.join(ROOT, "results", d, "baseline.csv")))
CLUSTER = ("barrier_cluster", "cluster_barrier")  # chip-bound on the H100 (the table says)
SPLIT = ("stencil", "split_arrive")               # not chip-bound anywhere
OTHER_CHIP = "GPU-0c0ffee0-1234-5678-9abc-def012345678"
INTERLEAVED = "the two sides ran interleaved point by point on one GPU (A/B"


def chip_table():
    """{(gpu_name, family, variant): row} of the committed table."""
    with open(TABLE, newline="", encoding="utf-8") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {(r["gpu_name"], r["family"], r["variant"]): r for r in rows}


def bound_on(gpu_name):
    """{(family, variant)} the committed table marks chip-bound for gpu_name."""
    return {(f, v) for (g, f, v), r in chip_table().items()
            if g == gpu_name and r["chip_bound"] == "1"}


def variant_of(row):
    return (row["family"], row["variant"])


def planted(tmp_path, name, src=LATEST, uuid=None, factors=(), commit=None, keep=None,
            gpu_name=None):
    """src with each (family, variant) of factors scaled by its factor (ok
    rows), gpu_uuid, commit and gpu_name replaced when given, only the rows
    keep() likes."""
    header, rows = read_records(src)
    factors = dict(factors)
    out = []
    for r in rows:
        r = dict(r)
        if keep and not keep(r):
            continue
        if variant_of(r) in factors and r["status"] == "ok":
            r = scale_times(r, factors[variant_of(r)])
        if uuid:
            r["gpu_uuid"] = uuid
        if commit:
            r["commit"] = commit
        if gpu_name:
            r["gpu_name"] = gpu_name
        out.append(r)
    return write_records(tmp_path / name, header, out)


def keys_where(path, pred):
    return {sbcsv.key(r) for r in sbcsv.read(path) if r["status"] == "ok" and pred(r)}


def gate(base, new, table=None):
    return sbcompare.compare(sbcompare.load_run(base), sbcompare.load_run(new),
                             chip_table=sbcompare.load_chip_bound(table or TABLE))


# ------------------------------------------------------------ the table

def test_the_committed_table_marks_what_rides_on_the_chip_and_no_flat_row():
    """The data's answer (docs/REGRESSIONS.md): on the H100 the cluster
    barrier and devscan's chained hand-offs ride on the chip; rows that
    agree across chips (scan, stencil, stencil2d, multistage, the
    block-scope barriers) do not; every row is marked exactly as the rule
    reads its own columns (moved_pairs >= min_pairs, or the worst shift
    within NEAR_SHIFT of rule B)."""
    import chip_bound
    table = chip_table()
    h100 = sbcompare.load_run(LATEST).gpu_name
    bound = {k for k, r in table.items() if r["chip_bound"] == "1"}
    assert {(h100, *CLUSTER), (h100, "devscan", "chained")} <= bound
    near = chip_bound.NEAR_SHIFT * sbcompare.VARIANT_SHIFT * 100
    for k, r in table.items():
        assert float(r["shift_pct"]) == sbcompare.VARIANT_SHIFT * 100
        rule = (int(r["moved_pairs"]) >= int(r["min_pairs"])
                or float(r["worst_shift_pct"]) >= near - 0.005)
        assert rule == (r["chip_bound"] == "1"), k
        if k[1] in ("scan", "stencil", "stencil2d", "multistage") or k[2] in (
                "syncthreads", "syncwarp", "named_barrier", "cg_block_sync"):
            assert r["chip_bound"] == "0" and float(r["median_move_pct"]) < 1.0, k
    # the cluster barrier moved together (beyond rule B) in several of the H100's pairs
    assert int(table[(h100, *CLUSTER)]["moved_pairs"]) >= 2
    assert float(table[(h100, *CLUSTER)]["worst_move_pct"]) > sbcompare.VARIANT_SHIFT * 100


def test_check_says_the_committed_table_is_current():
    p = subprocess.run([sys.executable, CHIP_BOUND, "--check"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert "is current" in p.stdout


@pytest.mark.parametrize("edit", ["flip", "number", "drop_row", "missing"])
def test_check_fails_on_a_modified_copy(tmp_path, edit):
    copy = tmp_path / "chip_bound.csv"
    text = open(TABLE, encoding="utf-8").read()
    if edit == "flip":  # the cluster barrier no longer chip-bound
        line = next(li for li in text.splitlines() if f",{CLUSTER[0]},{CLUSTER[1]}," in li)
        text = text.replace(line, re.sub(r",1,([\d.]+),(\d+)$", r",0,\1,\2", line))
        assert line not in text
    elif edit == "number":
        text = re.sub(r"(,scan,pingpong,\d+,\d+,\d+,)([\d.]+)", r"\g<1>9.99", text, count=1)
    elif edit == "drop_row":
        text = "\n".join(li for li in text.splitlines() if ",stencil,completion," not in li) + "\n"
    if edit != "missing":
        assert text != open(TABLE, encoding="utf-8").read()
        copy.write_text(text, encoding="utf-8")
    p = subprocess.run([sys.executable, CHIP_BOUND, "--check", "--file", copy],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "chip_bound.py" in p.stderr and "Traceback" not in p.stderr


def small(r):
    return r["family"] in ("scan", "barrier_cluster")


def test_chip_bound_needs_one_move_together_or_a_near_shift(tmp_path):
    """A results folder built in the test: commit X on chips A and B, commit
    Y on chips C and D, a dirty commit and a same-chip rerun. The cluster
    barrier moves 3% together in both cross-chip pairs, scan's pingpong 3%
    in one only: both chip-bound (MIN_PAIRS 1). scan's mbarrier moves 1.1%
    (within rule B, at or past NEAR_SHIFT of it): chip-bound by its worst
    shift; scan's two_barrier 0.9% (under it): not. warp_shuffle moves only
    in the same-chip rerun and the dirty runs, which make no pair: not."""
    import chip_bound
    near = chip_bound.NEAR_SHIFT * sbcompare.VARIANT_SHIFT * 100
    assert 0.9 < near <= 1.1 < sbcompare.VARIANT_SHIFT * 100
    gpu = tmp_path / "results" / "h100-test"
    (gpu / "history").mkdir(parents=True)
    pingpong, mbarrier = ("scan", "pingpong"), ("scan", "mbarrier")
    two_barrier, warp_shuffle = ("scan", "two_barrier"), ("scan", "warp_shuffle")
    planted(gpu, "baseline.csv", uuid="GPU-aaaaaaaa-x", commit="1111111", keep=small)
    planted(gpu, "latest.csv", uuid="GPU-bbbbbbbb-x", commit="1111111", keep=small,
            factors={CLUSTER: 1.03, pingpong: 1.03, mbarrier: 1.011, two_barrier: 1.009})
    planted(gpu / "history", "20260101T000000Z_2222222_cccccccc.csv", uuid="GPU-cccccccc-x",
            commit="2222222", keep=small)
    planted(gpu / "history", "20260101T000500Z_2222222_dddddddd.csv", uuid="GPU-dddddddd-x",
            commit="2222222", keep=small, factors={CLUSTER: 0.97})
    # same chip and start as the baseline at its commit: no second pair
    planted(gpu / "history", "20260101T001000Z_1111111_aaaaaaaa.csv", uuid="GPU-aaaaaaaa-x",
            commit="1111111", keep=small, factors={CLUSTER: 1.10, warp_shuffle: 1.10})
    for name, uuid in (("20260101T002000Z_3333333-dirty_eeeeeeee.csv", "GPU-eeeeeeee-x"),
                       ("20260101T002500Z_3333333-dirty_ffffffff.csv", "GPU-ffffffff-x")):
        planted(gpu / "history", name, uuid=uuid, commit="3333333-dirty", keep=small,
                factors={warp_shuffle: 1.05, two_barrier: 1.05} if "ffff" in uuid else {})
    # another GPU model with one run only: no cross-chip data, no rows
    lone = tmp_path / "results" / "lone"
    lone.mkdir()
    planted(lone, "baseline.csv", uuid="GPU-99999999-x", keep=small, gpu_name="NVIDIA Lone")
    out = tmp_path / "table.csv"
    p = subprocess.run([sys.executable, CHIP_BOUND, "--results", tmp_path / "results",
                        "--file", out], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "lone: no cross-chip A/A data: nothing is chip-bound, every point gated" in p.stdout
    table = sbcompare.load_chip_bound(str(out))
    name = sbcompare.load_run(LATEST).gpu_name
    assert table.measured == {name: 2} and not table.has_data("NVIDIA Lone")
    assert table.variants_of(name) == sorted([CLUSTER, pingpong, mbarrier])
    with open(out, newline="", encoding="utf-8") as f:
        rows = {(r["family"], r["variant"]): r for r in
                csv.DictReader(li for li in f if not li.startswith("#"))}
    assert all(r["min_pairs"] == str(chip_bound.MIN_PAIRS) == "1" for r in rows.values())
    assert all(r["pairs"] == "2" for r in rows.values())
    # moved together in both pairs, and in one pair only: both marked
    assert rows[CLUSTER]["moved_pairs"] == "2" and rows[CLUSTER]["chip_bound"] == "1"
    assert float(rows[CLUSTER]["worst_shift_pct"]) == pytest.approx(3.0, abs=0.01)
    assert rows[pingpong]["moved_pairs"] == "1" and rows[pingpong]["chip_bound"] == "1"
    # within rule B (moved in no pair) but its shift reached NEAR_SHIFT of it: marked
    assert rows[mbarrier]["moved_pairs"] == "0" and rows[mbarrier]["chip_bound"] == "1"
    assert float(rows[mbarrier]["worst_shift_pct"]) == pytest.approx(1.1, abs=0.01)
    # flat: under NEAR_SHIFT, moved in no pair: not marked
    assert rows[two_barrier]["moved_pairs"] == "0" and rows[two_barrier]["chip_bound"] == "0"
    assert float(rows[two_barrier]["worst_shift_pct"]) == pytest.approx(0.9, abs=0.01)
    # only the same-chip rerun and the dirty runs moved it: no pair saw it
    assert rows[warp_shuffle]["chip_bound"] == "0"
    assert float(rows[warp_shuffle]["worst_shift_pct"]) == 0.0
    # and --check agrees with what was just written, then not after an edit
    check = [sys.executable, CHIP_BOUND, "--results", tmp_path / "results", "--file", out, "--check"]
    assert subprocess.run(check, capture_output=True, timeout=300).returncode == 0
    text = out.read_text()
    line = next(li for li in text.splitlines() if f",{CLUSTER[0]},{CLUSTER[1]}," in li)
    edited = text.replace(line, re.sub(r",1,([\d.]+),(\d+)$", r",0,\1,\2", line))
    assert edited != text
    out.write_text(edited)
    assert subprocess.run(check, capture_output=True, timeout=300).returncode == 1


# ------------------------------------------------------------ the gate across chips

def test_chip_bound_points_are_listed_not_gated_across_chips(tmp_path):
    """The cluster barrier 4% slower on another chip (the measured +1.5% to
    +5.8%): every point of every variant the table marks for the H100 (the
    cluster barrier and devscan's chained among them) listed as chip differs
    with its move, no regression, the gate passes; the title says two chips."""
    bound = bound_on(sbcompare.load_run(LATEST).gpu_name)
    assert {CLUSTER, ("devscan", "chained")} <= bound and SPLIT not in bound
    new = planted(tmp_path, "new.csv", uuid=OTHER_CHIP, factors={CLUSTER: 1.04})
    cmp = gate(LATEST, new)
    cluster = keys_where(LATEST, lambda r: variant_of(r) == CLUSTER)
    want = keys_where(LATEST, lambda r: variant_of(r) in bound)
    assert len(cluster) == 18 and cluster < want
    n = len(want)
    assert {sbcsv.key(m.base) for m in cmp.chip_differs} == want
    assert {variant_of(m.base) for m in cmp.chip_differs} == bound
    assert all(m.gated == pytest.approx(1.04 if sbcsv.key(m.base) in cluster else 1.0, rel=1e-3)
               and m.verdict == "" for m in cmp.chip_differs)
    assert cmp.regressions == [] and cmp.gate_failures() == 0 and cmp.chips == "two"
    rc, out, err = run_compare("--gate", LATEST, new)
    assert rc == 0, err
    title = out.splitlines()[0]
    assert title.startswith("## syncbench gate: PASS (0 regression(s)")
    assert f"{n} chip differs" in title and title.endswith("; two chips")
    assert "### Chip differs: chip-bound variants on two chips (not gated)" in out
    shown = out.count("| chip differs (not gated) |")  # the summary lists as many as fit
    assert 18 <= shown <= n and "+4.0%" in out
    assert shown == n or f"... and {n - shown} more, see the detail file" in out
    chips = out.split("- Chips: ", 1)[1].split("\n")[0]
    assert all(f"{f}/{v}" in chips for f, v in bound) and f"{SPLIT[0]}/{SPLIT[1]}" not in chips
    assert f"{n} chip differs (two chips)" in err
    rc, out, _ = run_compare("--gate", "--summary-only", LATEST, new)
    assert rc == 0 and f"chip differs, not gated ({n}):" in out


def test_the_same_data_on_one_chip_is_gated_and_fails(tmp_path):
    """The same 4% on the same gpu_uuid: rule B flags every point of the
    cluster barrier, the gate fails; nothing is chip differs."""
    new = planted(tmp_path, "new.csv", factors={CLUSTER: 1.04})
    cmp = gate(LATEST, new)
    assert cmp.chips == "one" and cmp.chip_differs == []
    assert {sbcsv.key(m.base) for m in cmp.regressions} == keys_where(
        LATEST, lambda r: variant_of(r) == CLUSTER)
    rc, out, err = run_compare("--gate", LATEST, new)
    assert rc == 1, err
    assert out.splitlines()[0].startswith("## syncbench gate: FAIL (18 regression(s)")
    assert out.splitlines()[0].endswith("; one chip")
    uuid = sbcsv.read(LATEST)[0]["gpu_uuid"][:12]
    assert f"both runs on one chip ({uuid}): every point gated" in out


def test_a_real_slowdown_elsewhere_is_still_caught_across_chips(tmp_path):
    """Across chips, the chip-bound variants' moves are not gated, but 3%
    planted in a variant that is not chip-bound (stencil's split_arrive)
    fails the gate at every point."""
    bound = bound_on(sbcompare.load_run(LATEST).gpu_name)
    assert CLUSTER in bound and SPLIT not in bound
    new = planted(tmp_path, "new.csv", uuid=OTHER_CHIP, factors={CLUSTER: 1.04, SPLIT: 1.03})
    cmp = gate(LATEST, new)
    split = keys_where(LATEST, lambda r: variant_of(r) == SPLIT)
    assert len(split) == 12
    assert {sbcsv.key(m.base) for m in cmp.regressions} == split
    assert {sbcsv.key(m.base) for m in cmp.chip_differs} == keys_where(
        LATEST, lambda r: variant_of(r) in bound)
    rc, out, err = run_compare("--gate", LATEST, new)
    assert rc == 1 and "gate FAILED: 12 regression(s)" in err, err


@pytest.mark.parametrize("gpu", GPUS)
def test_the_committed_cross_chip_pair_with_a_planted_slowdown(tmp_path, gpu):
    """On the real pair (baseline and latest: one commit, two chips of one
    model): exactly the variants results/chip_bound.csv marks for that model
    are chip differs (on the H100 the cluster barrier and devscan's chained
    among them), and 3% planted in stencil's split_arrive of latest (not
    chip-bound) is caught at every point, with the acceptances too."""
    baseline = os.path.join(ROOT, "results", gpu, "baseline.csv")
    latest = os.path.join(ROOT, "results", gpu, "latest.csv")
    base = sbcompare.load_run(baseline)
    assert base.gpu_uuids() != sbcompare.load_run(latest).gpu_uuids()
    bound = bound_on(base.gpu_name)
    assert bound and SPLIT not in bound
    if gpu == "h100-80gb-hbm3":
        assert {CLUSTER, ("devscan", "chained")} <= bound
    new = planted(tmp_path, "new.csv", src=latest, factors={SPLIT: 1.03})
    cmp = gate(baseline, new)
    assert {variant_of(m.base) for m in cmp.chip_differs} == bound
    split = keys_where(baseline, lambda r: variant_of(r) == SPLIT)
    assert split and {sbcsv.key(m.base) for m in cmp.regressions} == split
    rc, _, err = run_compare("--gate", baseline, new, "--accept", ACCEPTED)
    assert rc == 1 and f"gate FAILED: {len(split)} regression(s)" in err, err


@pytest.mark.parametrize("gpu", GPUS)
def test_the_committed_pairs_pass_the_gate_as_make_gate_committed_runs_it(gpu):
    base = os.path.join(ROOT, "results", gpu, "baseline.csv")
    new = os.path.join(ROOT, "results", gpu, "latest.csv")
    rc, out, err = run_compare("--gate", base, new, "--accept", ACCEPTED, "--summary", os.devnull)
    assert rc == 0, err
    assert re.search(r"gate passed: 0 regression\(s\), 0 broken, 0 missing \(counted\).* "
                     r"chip differs \(two chips\)", err), err


def test_a_model_without_cross_chip_data_gates_everything(tmp_path):
    """A table that has rows for another model only: across two chips of
    the H100 nothing is chip-bound, the cluster barrier's 4% is gated, and
    the summary says why."""
    header = ",".join(sbcompare.CHIP_BOUND_COLUMNS)
    table = tmp_path / "other_model.csv"
    table.write_text(f"{header}\nNVIDIA H200,{CLUSTER[0]},{CLUSTER[1]},2,2,36,2.0,3.0,2.3,1,1.5,2\n")
    new = planted(tmp_path, "new.csv", uuid=OTHER_CHIP, factors={CLUSTER: 1.04})
    cmp = gate(LATEST, new, table=str(table))
    assert cmp.chip_differs == [] and len(cmp.regressions) == 18
    rc, out, err = run_compare("--gate", LATEST, new, "--chip-bound", table)
    assert rc == 1, err
    assert ("has no cross-chip A/A data for NVIDIA H100 80GB HBM3: nothing is chip-bound, "
            "every point gated") in out


# ------------------------------------------------------------ A/B, interleaved

def test_interleaved_says_so_and_gates_everything(tmp_path):
    new = planted(tmp_path, "new.csv", factors={CLUSTER: 1.04})
    rc, out, err = run_compare("--gate", "--interleaved", LATEST, new)
    assert rc == 1, err  # the chip-bound rows are gated again: one GPU
    assert INTERLEAVED in out
    assert out.splitlines()[0].endswith("; A/B interleaved on one GPU")
    assert "18 regression(s)" in out.splitlines()[0]
    rc, out, err = run_compare("--gate", "--interleaved", LATEST, LATEST)
    assert rc == 0 and INTERLEAVED in out, err
    rc, out, _ = run_compare("--gate", LATEST, LATEST)
    assert rc == 0 and INTERLEAVED not in out


def test_interleaved_with_two_chips_is_an_error(tmp_path):
    new = planted(tmp_path, "new.csv", uuid=OTHER_CHIP)
    rc, out, err = run_compare("--gate", "--interleaved", LATEST, new)
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "column 'gpu_uuid'" in err and "--interleaved" in err and OTHER_CHIP in err


# ------------------------------------------------------------ a bad table

def bad_tables(tmp_path):
    header = ",".join(sbcompare.CHIP_BOUND_COLUMNS)
    row = f"NVIDIA H100 80GB HBM3,{CLUSTER[0]},{CLUSTER[1]},3,2,54,2.02,3.08,2.31,1,1.5,2"
    return {
        "missing": (tmp_path / "absent.csv", None, "cannot read the chip-bound table"),
        "empty": (tmp_path / "empty.csv", "", "empty chip-bound table"),
        "no_column": (tmp_path / "cols.csv", header.replace(",chip_bound", "") + "\n",
                      "missing column(s) chip_bound"),
        "flag": (tmp_path / "flag.csv", f"{header}\n{row.replace(',1,1.5,2', ',yes,1.5,2')}\n",
                 "column 'chip_bound': 'yes', expected 0 or 1"),
        "number": (tmp_path / "num.csv", f"{header}\n{row.replace(',3,2,54,', ',three,2,54,')}\n",
                   "column 'pairs': 'three' is not an integer"),
        "fields": (tmp_path / "fields.csv", f"{header}\n{row},extra\n", "fields, the header has"),
        "duplicate": (tmp_path / "dup.csv", f"{header}\n{row}\n{row}\n", "again (line"),
    }


@pytest.mark.parametrize("case", ["missing", "empty", "no_column", "flag", "number", "fields",
                                  "duplicate"])
def test_a_malformed_chip_bound_file_exits_2_with_one_line(tmp_path, case):
    path, text, message = bad_tables(tmp_path)[case]
    if text is not None:
        path.write_text(text)
    rc, out, err = run_compare("--gate", LATEST, LATEST, "--chip-bound", path)
    assert rc == 2 and out == "", err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"compare: {path}") and message in err, err


def test_the_table_option_is_used_not_the_default(tmp_path):
    """--chip-bound FILE replaces results/chip_bound.csv: a copy with the
    cluster barrier not chip-bound gates it across chips."""
    text = open(TABLE, encoding="utf-8").read()
    line = next(li for li in text.splitlines() if f",{CLUSTER[0]},{CLUSTER[1]}," in li)
    copy = tmp_path / "copy.csv"
    copy.write_text(text.replace(line, re.sub(r",1,([\d.]+),(\d+)$", r",0,\1,\2", line)))
    new = planted(tmp_path, "new.csv", uuid=OTHER_CHIP, factors={CLUSTER: 1.04})
    assert run_compare("--gate", LATEST, new)[0] == 0
    rc, out, err = run_compare("--gate", LATEST, new, "--chip-bound", copy)
    assert rc == 1 and "18 regression(s)" in out.splitlines()[0], err
    shutil.copy(TABLE, tmp_path / "same.csv")
    assert run_compare("--gate", LATEST, new, "--chip-bound", tmp_path / "same.csv")[0] == 0
