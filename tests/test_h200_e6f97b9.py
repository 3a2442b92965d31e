"""docs/history.md's "The H200 current, and its first A/A by A/B": every
figure of the section recomputed from the committed CSVs (the H200 pair,
results/h200/proofs/{round,offsweep,ab,probes}_e6f97b9)."""
import csv
import glob
import math
import os
import re
import statistics
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
import bands  # noqa: E402
import sbcompare  # noqa: E402
from test_process_modes import best_by_shape, h200_ab_bands_then, rows, span  # noqa: E402  (the same readings)

H200 = os.path.join(ROOT, "results", "h200")
PROOFS = os.path.join(H200, "proofs")
HISTORY = open(os.path.join(ROOT, "docs", "history.md"), encoding="utf-8").read()
SECTION = HISTORY[HISTORY.index("## The H200 current, and its first A/A by A/B"):]
SECTION = SECTION[:SECTION.find("\n## ", 1) if "\n## " in SECTION[1:] else len(SECTION)]
FLAT = " ".join(SECTION.split())
# The pair, moved to history/ when 5273e2f's was blessed (scripts/bless_pair.py).
PAIR = [os.path.join(H200, "history", f) for f in ("20261129T001734Z_e6f97b9_8a4c4518.csv.xz",
                                                   "20261129T002318Z_e6f97b9_b5f93f11.csv.xz")]


def best(run, m, k, n=None):
    return max(float(r["pct_of_cublas"]) for r in run if r["family"] == "gemm" and r["variant"] != "cublas"
               and r["m"] == m and r["k"] == k and r["n"] == (n or m) and r["pct_of_cublas"])


def test_the_pair_is_e6f97b9_on_two_chips_and_its_figures():
    a, b = (rows(f) for f in PAIR)
    assert {r["commit"][:7] for r in a + b} == {"e6f97b9"}
    ua, ub = {r["gpu_uuid"][:12] for r in a}, {r["gpu_uuid"][:12] for r in b}
    assert ua == {"GPU-8a4c4518"} and ub == {"GPU-b5f93f11"}
    assert len(a) == len(b) == 1025
    figures = ", ".join(f"{label} {best(a, m, k):.1f}/{best(b, m, k):.1f}%" for label, m, k in
                        (("1024^3", "1024", "1024"), ("4096^3", "4096", "4096"), ("8192^3", "8192", "8192"),
                         ("512 x 512 x 32768", "512", "32768")))
    assert figures in FLAT

    def relaxed(run):
        return max(float(r["pct_of_copy"]) for r in run if r["family"] == "devscan"
                   and r["variant"] == "lookback_relaxed" and r["n"] == "268435456")
    assert f"`lookback_relaxed` {relaxed(a):.1f}/{relaxed(b):.1f}% of copy at 256M" in FLAT


def test_the_pair_judged_out_of_sample_fails_only_at_the_old_split_k_kernel():
    """By the bands as its kernels had them (results/band_epochs.csv) and out
    of sample (bands.for_pair): splitk_serial's old kernel (one grid-wide
    ticket, before 910219a) moved its two 512 x 512 x 32768 points ~10%
    between the pair's two chips, beyond what the other pairs measured."""
    base, new = sbcompare.load_run(PAIR[0]), sbcompare.load_run(PAIR[1])
    cmp = sbcompare.compare(base, new, bands=bands.for_pair(base, new))
    assert {sbcompare.describe_point(m.base) for m in cmp.regressions} == {
        f"gemm/splitk_serial stages=6 buffer_bytes=32768 n=512 consumer_warps=4 m=512 k=32768 tile=128x128x64 "
        f"splits={s}" for s in ("auto", "8")}


def test_the_off_sweep_figures():
    best_of = best_by_shape(os.path.join(PROOFS, "offsweep_e6f97b9", "gemm.csv"))
    squares = {k: v for k, v in best_of.items() if k[0] == k[1]}
    under = sorted((k, v) for k, v in squares.items() if v < 90)
    assert len(squares) == 30 and f"{len(under)} of its 30 squares are under 90%" in FLAT
    start = FLAT.index("squares are under 90%")
    quoted = re.findall(r"(\d+\.\d)%\)?[,;)]", FLAT[start:FLAT.index("M != N", start)])
    assert quoted == [f"{v:.1f}" for _, v in under]
    mn = {k: v for k, v in best_of.items() if k[0] != k[1]}
    low = min(mn, key=mn.get)
    assert f"M != N {min(mn.values()):.1f}-{max(mn.values()):.1f}%" in FLAT
    assert low == (1152, 2048, 65536) and "1152 x 2048 x 64k the lowest" in FLAT


def test_the_planted_stale_tag_is_caught():
    got = [r for r in csv.DictReader(open(os.path.join(PROOFS, "round_e6f97b9", "broken_leaseA.csv")))
           if r["variant"] == "lookback_stale_tag"]
    assert got and all(r["status"] == "wrong" and "second launch on the dirty workspace" in r["detail"]
                       for r in got)


def aa(lease, bands):
    d = os.path.join(PROOFS, "ab_e6f97b9", lease)
    return sbcompare.compare(sbcompare.load_run(os.path.join(d, "aa_gate_a.csv")),
                             sbcompare.load_run(os.path.join(d, "aa_gate_b.csv")), bands=bands, interleaved=True)


def move(m):
    return math.expm1(abs(math.log(m.gated))) * 100


def test_the_aa_figures():
    table = sbcompare.load_bands(os.path.join(ROOT, "results", "bands.csv"))
    runs = [aa(lease, table) for lease in ("leaseA", "leaseB")]
    assert all(len(c.matches) == 539 and not c.regressions for c in runs)
    fastest = [[(move(m), "/".join(sbcompare.by_variant(m)), m) for m in c.matches if m.figure == "fastest"]
               for c in runs]
    medians = [statistics.median(v for v, _, _ in f) for f in fastest]
    assert f"median {medians[0]:.2f}% and {medians[1]:.2f}%" in FLAT
    serial = [max(v for v, name, _ in f if name == "gemm/splitk_serial") for f in fastest]
    assert f"within {serial[0]:.2f}% and {serial[1]:.2f}% at every point" in FLAT
    worst = [max(f, key=lambda t: t[0]) for f in fastest]
    for _, name, m in worst:
        assert name == "gemm/ws_tma_wgmma_multicast"
        assert tuple(str(m.base[c]) for c in ("m", "k", "tile", "cluster_shape")) == ("1024", "16384", "64x128x64", "1x2")
        assert f"{float(m.base['median_us']):.2f} / {float(m.new['median_us']):.2f}" in FLAT
        assert f"{float(m.base['min_us']):.2f}" in FLAT and f"{float(m.new['min_us']):.2f}" in FLAT
    assert f"worst {worst[0][0]:.2f}% and {worst[1][0]:.2f}%" in FLAT
    for name, label in (("barrier/flag_handoff", "`flag_handoff`"),
                        ("barrier/flag_handoff_relaxed", "`flag_handoff_relaxed`"),
                        ("barrier/lookback_walk_256", "`lookback_walk_256`")):
        shifts = [math.expm1(sbcompare.shift_estimate([math.log(m.gated) for m in c.matches
                                                      if "/".join(sbcompare.by_variant(m)) == name])) * 100
                  for c in runs]
        assert f"{label} {shifts[0]:+.1f} / {shifts[1]:+.1f}%" in FLAT, shifts


def test_the_aa_failed_with_the_bands_of_before():
    """The section's "failed both (6 and 12 points": the gate's summary as
    ab.py wrote it on the device, with the bands of e6f97b9 (no H200 ab
    rows), committed beside each run; today's bands pass both (above)."""
    counts = []
    for lease in ("leaseA", "leaseB"):
        head = open(os.path.join(PROOFS, "ab_e6f97b9", lease, "aa_gate_at_the_time.md")).readline()
        got = re.match(r"## syncbench gate: FAIL \((\d+) regression\(s\), 0 broken", head)
        assert got, head
        counts.append(got.group(1))
    assert f"failed both ({counts[0]} and {counts[1]} points;" in FLAT


@pytest.mark.parametrize("pattern,label", [
    ("alone_6/proc*.csv", "6 fresh, one after another (`alone_6/proc*.csv`)"),
    ("alone_6/rep.csv", "one process, 4 takes (`alone_6/rep.csv`)"),
    ("holder_7/alone*.csv", "3 fresh (`holder_7/alone*.csv`)"),
    ("holder_7/second*.csv", "3 fresh while a `syncbench --serve` holds the GPU (`holder_7/second*.csv`)"),
    ("torch_holder_8/hold0_*.csv", "2 fresh beside an idle PyTorch context (`torch_holder_8/hold0_*.csv`)"),
    ("torch_holder_8/hold8_*.csv", "the same, the PyTorch context holding 8 GiB (`hold8_*.csv`)")])
def test_the_probe_table(pattern, label):
    files = sorted(glob.glob(os.path.join(PROOFS, "probes_e6f97b9", pattern)))
    assert files
    cells = []
    for shape in ("1x2", "2x1"):
        t = [(float(r["min_us"]), float(r["median_us"])) for f in files for r in rows(f)
             if r["cluster_shape"] == shape]
        cells.append(f"{span([a for a, _ in t])} / {span([b for _, b in t])}")
    assert f"| {label} | {cells[0]} | {cells[1]} |" in SECTION


def test_the_fast_mode_figures():
    t = [(float(r["min_us"]), float(r["q1_us"]), float(r["median_us"]))
         for f in glob.glob(os.path.join(PROOFS, "probes_e6f97b9", "alone_6", "*.csv"))
         +          glob.glob(os.path.join(PROOFS, "probes_e6f97b9", "holder_7", "alone*.csv"))
         for r in rows(f) if r["cluster_shape"] == "1x2"]
    fast = [1 - lo / med for lo, _, med in t if lo < 62]
    assert len(fast) >= 9 and f"{min(fast) * 100:.0f}-{max(fast) * 100:.0f}% under its median" in FLAT
    assert "the first quartile is 75-76 us" in FLAT and all(75 <= q1 < 76 for _, q1, _ in t)


def test_the_points_of_their_own_figures():
    """docs/history.md's "Points with a band of their own": the bands.csv
    figures it quotes."""
    text = HISTORY[HISTORY.index("## Points with a band of their own"):]
    flat = " ".join(text.split())
    # the table by the rule of then (margin x the worst move, no cap, every pair)
    _, pairs, _ = bands.collect(bands.RESULTS)
    rows = [{k: str(v) for k, v in r.items()} for r in bands.derive_rows(
        pairs, bands.load_epochs(bands.RESULTS), rule=bands.WORST_EVER)[0]]
    # The H200's ab bands as they were then (h200_ab_bands_then)
    rows = [r for r in rows if (r["gpu_name"], r["pairing"]) != ("NVIDIA H200", "ab")] + h200_ab_bands_then()

    def pick(gpu, pairing, variant, point):
        return next(r for r in rows if (r["gpu_name"], r["pairing"], r["variant"]) == (gpu, pairing, variant)
                    and bool(r["point"]) == point)
    own = pick("NVIDIA H200", "ab", "ws_tma_wgmma_multicast", True)
    rest = pick("NVIDIA H200", "ab", "ws_tma_wgmma_multicast", False)
    assert "cluster_shape=1x2" in own["point"] and "m=1024 k=16384 tile=64x128x64" in own["point"]
    assert (f"the multicast point {float(own['point_band_pct']):.1f}% of its own, the variant's other "
            f"points at the floors ({rest['point_band_pct']}% measured)") in flat
    assert float(rest["point_band_pct"]) < 5
    assert f"every other point of the variant had moved at most {rest['worst_move_pct']}%" in flat
    assert f"(the 1x2 point with a fast mode, {own['worst_move_pct']}% between the contexts)" in flat
    own = pick("NVIDIA H100 80GB HBM3", "chip", "ws_mbarrier", True)
    rest = pick("NVIDIA H100 80GB HBM3", "chip", "ws_mbarrier", False)
    assert "m=1024 k=16384" in own["point"]
    assert (f"point {float(own['point_band_pct']):.1f}% of its own, the variant's band "
            f"{float(rest['point_band_pct']):.1f}%") in flat
