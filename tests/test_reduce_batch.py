"""The figures of docs/history.md's "the separate reduction's loads in
batches" entry and docs/gemm.md's splitk_reduce row, read back from the
committed H200 runs they come from (results/h200/proofs/reduce_batch/,
offsweep_5273e2f/, round_5273e2f/)."""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_process_modes import best_by_shape, history_section, rows  # noqa: E402  (ok rows; best % of cuBLAS a shape)
from test_reduce_groups import moves as reduce_groups_moves  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROOFS = os.path.join(ROOT, "results", "h200", "proofs")
BATCH = os.path.join(PROOFS, "reduce_batch")


TEXT = history_section("gemm: the separate reduction's loads in batches")


def moves(run, variant="splitk_reduce"):
    """test_reduce_groups' reading of an A/B dir, under reduce_batch/."""
    return reduce_groups_moves(run, variant, root=BATCH)


def test_the_first_batch_against_7c4542b():
    off, _, _ = moves("ab_5f769e8/off")
    default, _, _ = moves("ab_5f769e8/def")
    sk, _, _ = moves("ab_5f769e8/def", "streamk")
    assert f"384^2 x 16k at 7 slices {-off[(384, 16384, '64x128x64', '7')]:.1f}% faster" in TEXT
    assert f"at 512^2 x 32k (128x128) {-sk[(512, 32768, '128x128x64', '')]:.1f}% faster" in TEXT
    assert (f"1024^2 x 16k {default[(1024, 16384, '128x128x64', '2')]:.1f}% slower at 2 slices and "
            f"{default[(1024, 16384, '64x128x64', 'auto')]:.1f}% at the 64x128 tile's one slice") in TEXT


def test_the_variants_table():
    points = [("384^2 x 16k, auto (7 slices)", "off", (384, 16384, "64x128x64", "auto")),
              ("256^2 x 64k, auto (16 slices)", "off", (256, 65536, "64x128x64", "auto")),
              ("1024^2 x 16k, 128x128, 2 slices", "def", (1024, 16384, "128x128x64", "2")),
              ("1024^2 x 16k, 64x128, auto (1 slice)", "def", (1024, 16384, "64x128x64", "auto"))]
    for label, kind, key in points:
        cells = []
        for v in ("a", "e", "f", "b2"):
            m, _, b = moves(f"variants_5f769e8/{v}_{kind}")
            cells.append(f"{m[key]:+.1f}%")
            assert b[key]["splits_used"] == re.search(r"(\d+) slices?", label).group(1), label
        assert f"| {label} | " + " | ".join(cells) + " |" in TEXT, (label, cells)
    # the gemm.md row: batches of 8 on large grids, the worst of them
    a_def = moves("variants_5f769e8/a_def")[0]
    worst = max(v for k, v in a_def.items() if k[0] == 1024)
    gemm_md = " ".join(open(os.path.join(ROOT, "docs", "gemm.md")).read().split())
    assert f"batches of 8 there: up to {worst:.1f}% slower at 1024^2 x 16k, H200 A/B" in gemm_md


def test_the_two_widths_against_7c4542b():
    off, a, b = moves("ab_5273e2f/off")
    default, _, _ = moves("ab_5273e2f/def")
    sk, _, _ = moves("ab_5273e2f/def", "streamk")
    k = (384, 16384, "64x128x64", "auto")
    assert (f"384^2 x 16k auto {float(a[k]['median_us']):.2f} -> {float(b[k]['median_us']):.2f} us "
            f"({float(a[k]['pct_of_cublas']):.1f} -> {float(b[k]['pct_of_cublas']):.1f}% of cuBLAS)") in TEXT
    assert f"256^2 x 64k auto {off[(256, 65536, '64x128x64', 'auto')]:.1f}%" in TEXT
    assert f"512^2 x 32k auto {default[(512, 32768, '128x128x64', 'auto')]:.1f}%" in TEXT
    assert f"`streamk` 512^2 x 32k (128x128) {sk[(512, 32768, '128x128x64', '')]:.1f}%" in TEXT
    worst = max(list(off.values()) + list(default.values()))
    assert f"no `splitk_reduce` point slower by more than {worst:.1f}%" in TEXT
    for run in ("ab_5273e2f/off", "ab_5273e2f/def"):
        assert open(os.path.join(BATCH, run, "gate.md")).read().startswith("## syncbench gate: PASS"), run


def test_the_planted_drop_and_the_sanitizers():
    with open(os.path.join(BATCH, "ab_5273e2f", "broken.csv")) as f:
        broken = list(csv.DictReader(f))
    assert len(broken) == 9 and {r["status"] for r in broken} == {"wrong"}
    assert f"`wrong` at all {len(broken)} points" in TEXT
    for tool in ("memcheck", "racecheck", "synccheck"):
        log = open(os.path.join(BATCH, "ab_5273e2f", "sanitize", f"san_{tool}.log")).read()
        assert ("RACECHECK SUMMARY: 0 hazards" if tool == "racecheck" else "ERROR SUMMARY: 0 errors") in log, tool
        assert "0 wrong, 0 error, 0 deadlock" in log, tool


def test_the_off_sweep_at_5273e2f():
    best = best_by_shape(os.path.join(PROOFS, "offsweep_5273e2f", "gemm.csv"))
    under = sorted((k, v) for k, v in best.items() if v < 90)
    assert f"{len(best) - len(under)} of {len(best)} shapes at 90% of cuBLAS or more" in TEXT
    assert [k for k, _ in under] == [(1152, 1152, 8192), (1152, 2048, 65536)]
    assert f"1152^2 x 8k at {under[0][1]:.1f}%" in TEXT and f"1152 x 2048 x 64k at {under[1][1]:.1f}%" in TEXT
    mn = best_by_shape(os.path.join(PROOFS, "offsweep_5273e2f", "mn_128x256.csv"))
    assert f"reaches {mn[(1152, 2048, 65536)]:.1f}% at 1152 x 2048 x 64k" in TEXT
    cl = best_by_shape(os.path.join(PROOFS, "offsweep_5273e2f", "squares_cluster.csv"))
    assert f"reach {cl[(1152, 1152, 8192)]:.1f}% at 1152^2 x 8k and less elsewhere" in TEXT
    assert max(v for k, v in cl.items() if k != (1152, 1152, 8192)) < cl[(1152, 1152, 8192)]


# The pair, moved to history/ when f5ffa93's was blessed (scripts/bless_pair.py).
PAIR = [os.path.join(ROOT, "results", "h200", "history", f) for f in (
    "20261129T051149Z_5273e2f_b539a1a7.csv.xz", "20261129T051729Z_5273e2f_9bac4ad2.csv.xz")]


def test_the_h200_pair_and_its_third_lease():
    base, latest = (rows(f) for f in PAIR)
    assert {r["commit"] for r in base + latest} == {"5273e2f9f34c"}
    assert {r["gpu_uuid"][:12] for r in base} == {"GPU-b539a1a7"} and {r["gpu_uuid"][:12] for r in latest} == {"GPU-9bac4ad2"}
    assert "lease A GPU-b539a1a7 (baseline), lease B GPU-9bac4ad2 (latest)" in TEXT
    san = open(os.path.join(PROOFS, "round_5273e2f", "sanitize_leaseC.md")).read()
    assert "| racecheck | gemm | 2 |" in san and "racecheck reported 2 hazards in the gemm family" in TEXT
    bad = [line for line in san.splitlines() if line.startswith("| ") and "blind spot" not in line
           and re.match(r"\| (memcheck|racecheck|synccheck|initcheck) \|", line) and "| gemm |" not in line
           and line.split("|")[3].strip() != "0"]
    assert bad == []  # every other tool and family clean
