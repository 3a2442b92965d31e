"""The figures of docs/history.md's entry "The flush, and the fast launches of
the 64x128 tile on the H200" and of docs/REGRESSIONS.md's paragraph on what is
left of gemm's widest A/A moves, read back from the committed H200 runs they
come from (results/h200/proofs/ab_f5ffa93/, ab_3880117/, ab_52efaa9/,
explain_52efaa9/, ticket_diag/); and of its entry "The tile's own ticket on
the H200" (round_910219a/, ticket_diag/fix_910219a_*, ab_910219a/, the pair)."""
import csv
import glob
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_process_modes import history_section, rows  # noqa: E402  (ok rows of a CSV)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
import bands  # noqa: E402
import sbcompare  # noqa: E402
PROOFS = os.path.join(ROOT, "results", "h200", "proofs")
TEXT = history_section("The flush, and the fast launches of the 64x128 tile on the H200")
with open(os.path.join(ROOT, "docs", "REGRESSIONS.md"), encoding="utf-8") as f:
    REGRESSIONS = " ".join(f.read().split())

# The processes timed under each flush: the A/A sides and the one-process probes.
FLUSHES = {
    "read, 2 L2s (the default)": ["ab_f5ffa93/lease*/aa_gate_[ab].csv*", "ab_3880117/discard/modes/read_*.csv",
                                  "ab_52efaa9/read8/modes/read2_*.csv",
                                  "ab_f5ffa93/leaseA/multicast_flush/run_*_read_*.csv"],
    "read, 8 L2s": ["ab_52efaa9/read8/aa_gate_[ab].csv*", "ab_52efaa9/read8/modes/read8_*.csv"],
    "read and discard": ["ab_3880117/discard/aa_gate_[ab].csv*", "ab_3880117/discard/modes/discard_*.csv"],
    "memset, 2 L2s": ["ab_3880117/discard/modes/memset_*.csv", "ab_52efaa9/read8/modes/memset2_*.csv",
                      "ab_f5ffa93/leaseA/multicast_flush/run_*_memset_*.csv"],
    "memset, 8 L2s": ["ab_52efaa9/read8/modes/memset8_*.csv"],
    "none (a warm L2)": ["ab_52efaa9/read8/modes/none2_*.csv"],
}
KERNELS = {
    "`ws_tma_wgmma_multicast` 1x2": lambda r: r["variant"] == "ws_tma_wgmma_multicast" and r["cluster_shape"] == "1x2",
    "`splitk_serial`, one slice": lambda r: r["variant"] == "splitk_serial" and r["splits_used"] == "1",
    "`ws_tma_wgmma`": lambda r: r["variant"] == "ws_tma_wgmma",
}


def at_the_point(r):
    return (r["m"], r["k"], r["tile"]) == ("1024", "16384", "64x128x64")


def timed(flush, kernel):
    """[(fastest, median)] us of each process that ran the kernel under the flush."""
    out = []
    for pattern in FLUSHES[flush]:
        for path in sorted(glob.glob(os.path.join(PROOFS, pattern))):
            out += [(float(r["min_us"]), float(r["median_us"])) for r in rows(path)
                    if at_the_point(r) and KERNELS[kernel](r)]
    return out


def span(values):
    return f"{min(values):.1f}-{max(values):.1f}"


def ncu_durations():
    """{(variant, tile): us} of one launch under Nsight Compute (explain.py's stalls.csv)."""
    with open(os.path.join(PROOFS, "explain_52efaa9", "stalls.csv"), encoding="utf-8") as f:
        return {(r["variant"], r["tile"]): float(r["duration_us"]) for r in csv.DictReader(f)}


def table_rows():
    lines = []
    for flush in FLUSHES:
        cells = []
        for kernel in KERNELS:
            t = timed(flush, kernel)
            cells.append(f"{span([a for a, _ in t])} / {span([b for _, b in t])} ({len(t)})" if t else "-")
        lines.append(f"| {flush} | " + " | ".join(cells) + " |")
    return lines


def test_the_flush_table_is_the_runs():
    """Every row of the entry's table, as the committed runs give it."""
    for line in table_rows():
        assert " ".join(line.split()) in TEXT, line


def test_the_read_flush_runs_are_what_they_say():
    for pattern in FLUSHES["read, 2 L2s (the default)"] + FLUSHES["read, 8 L2s"]:
        for path in glob.glob(os.path.join(PROOFS, pattern)):
            assert all("L2 flushed by a read before each sample" in r["detail"] for r in rows(path)
                       if at_the_point(r)), path
    for pattern in FLUSHES["memset, 2 L2s"]:
        for path in glob.glob(os.path.join(PROOFS, pattern)):
            assert all("L2 flushed by a memset" in r["detail"] for r in rows(path) if at_the_point(r)), path


def test_the_regressions_paragraph():
    """REGRESSIONS.md: the ticket's placement found and removed in 910219a,
    and both variants' bands reading the new kernels' A/A runs since then
    (results/band_epochs.csv)."""
    assert ("Found and removed: where the grid-wide ticket of `splitk_serial` and `streamk` put their "
            "tiles on the SMs (910219a:") in REGRESSIONS
    epochs = bands.load_epochs(os.path.join(ROOT, "results"))
    assert {k: c for k, (_, c) in epochs.items()} == {("gemm", "splitk_serial"): "910219a",
                                                      ("gemm", "streamk"): "910219a"}


def diag(build, variant, m, tile, splits):
    out = []
    for path in sorted(glob.glob(os.path.join(PROOFS, "ticket_diag", f"{build}_*.csv"))):
        out += [float(r["median_us"]) for r in rows(path) if r["variant"] == variant and r["m"] == m
                and r["tile"] == tile and r["splits"] == splits]
    return out


def test_the_ticket_diagnostic():
    """The two builds on one chip: the grid-wide ticket (the committed 52efaa9
    build) against blockIdx order (its diagnostic build), medians."""
    for m, tile, splits in (("1024", "64x128x64", "auto"), ("512", "64x128x64", "auto"),
                            ("512", "128x128x64", "auto"), ("1024", "64x128x64", "2")):
        ticket, block = diag("syncbench", "splitk_serial", m, tile, splits), diag("diag", "splitk_serial", m, tile, splits)
        assert len(ticket) == len(block) == 2
        assert f"{span(ticket)} us against {span(block)}" in TEXT, (m, tile, splits)
        assert min(ticket) > max(block)
    for variant in ("splitk_parallel", "ws_tma_wgmma"):  # untouched by the switch: within 1%
        for tile in ("64x128x64", "128x128x64"):
            for splits in (("auto", "2") if variant != "ws_tma_wgmma" else ("",)):
                a, b = diag("syncbench", variant, "1024", tile, splits), diag("diag", variant, "1024", tile, splits)
                if a and b:
                    assert abs(sum(a) / sum(b) - 1) < 0.01, (variant, tile, splits)


def test_the_new_flushes_a_a_runs():
    """The discard and 8-L2 A/A runs: their worst points, the one process of
    the 8-L2 run in the fast mode, and the gate's grid_sync flags."""
    discard = {re.search(r"_([ab])\.csv", p).group(1): [r for r in rows(p) if at_the_point(r) and KERNELS["`splitk_serial`, one slice"](r)][0]
               for p in glob.glob(os.path.join(PROOFS, "ab_3880117", "discard", "aa_gate_[ab].csv*"))}
    move = 100 * (float(discard["b"]["min_us"]) / float(discard["a"]["min_us"]) - 1)
    assert f"`splitk_serial` ({move:.2f}%, side B without a fast launch" in TEXT
    read8 = [float(r["median_us"]) for p in glob.glob(os.path.join(PROOFS, "ab_52efaa9", "read8", "aa_gate_[ab].csv*"))
             for r in rows(p) if at_the_point(r) and KERNELS["`ws_tma_wgmma_multicast` 1x2"](r)]
    assert f"ran in it (median {min(read8):.1f})" in TEXT and max(read8) > 70
    with open(os.path.join(PROOFS, "ab_52efaa9", "read8", "aa_gate.md"), encoding="utf-8") as f:
        gate = f.read()
    regressions = gate.split("### Regressions", 1)[1].split("\n### ", 1)[0]
    flagged = [line for line in regressions.splitlines() if line.startswith("| barrier | grid_sync |") and "SLOWER (B)" in line]
    changes = [float(line.split("|")[-4].strip().rstrip("%")) for line in flagged]
    assert "FAIL (5 regression(s)" in gate and len(flagged) == 5
    assert f"failed `grid_sync` by rule B at {len(flagged)} points, side B {span(changes)}% slower" in TEXT
    stalls = ncu_durations()
    assert (f"the two split kernels took the same {stalls[('splitk_serial', '64x128x64')]:.1f} us and "
            f"`ws_tma_wgmma` {stalls[('ws_tma_wgmma', '64x128x64')]:.1f}") in TEXT


def test_streamk_shows_the_same_signature():
    """stream-K at 1024^2 x 16k, 128x128 (2 blocks a tile): its fastest sample
    as splitk_parallel's 2 slices', its median 20% over theirs (lease A's A/A, side A)."""
    a = rows(os.path.join(PROOFS, "ab_f5ffa93", "leaseA", "aa_gate_a.csv.xz"))

    def one(variant, splits):
        (r,) = [r for r in a if r["variant"] == variant and r["m"] == "1024" and r["k"] == "16384"
                and r["tile"] == "128x128x64" and r["splits"] == splits and r["stages"] == "6"]
        return float(r["min_us"]), float(r["median_us"])
    sk, par = one("streamk", ""), one("splitk_parallel", "2")
    assert sk[0] == par[0]
    assert f"median {round(100 * (sk[1] / par[1] - 1))}% over" in TEXT


# ------------------------------------------------ the fix's first GPU runs (910219a)

FIX = history_section("The tile's own ticket on the H200")


def test_the_fix_at_the_diagnostics_points():
    """splitk_serial (and streamk, splitk_parallel) at the ticket diagnostic's
    points, two processes of 910219a, against the diagnostic's medians."""
    said = {("1024", "64x128x64", "auto"): "one slice {fix} us (the grid-wide ticket: {ticket}, the diagnostic build {block},",
            ("1024", "64x128x64", "2"): "two slices {fix} ({block})",
            ("512", "128x128x64", "auto"): "128x128 {fix} ({block})"}
    for (m, tile, splits), words in said.items():
        fix, block = diag("fix_910219a", "splitk_serial", m, tile, splits), diag("diag", "splitk_serial", m, tile, splits)
        ticket = diag("syncbench", "splitk_serial", m, tile, splits)
        assert len(fix) == 2 and words.format(fix=span(fix), block=span(block), ticket=span(ticket)) in FIX, (m, tile, splits)
        assert min(ticket) > 1.1 * max(fix), (m, tile, splits)
    fix = diag("fix_910219a", "splitk_serial", "512", "64x128x64", "auto")
    fastest = [float(r["min_us"]) for p in sorted(glob.glob(os.path.join(PROOFS, "ticket_diag", "fix_910219a_*_b.csv")))
               for r in rows(p) if r["variant"] == "splitk_serial" and r["tile"] == "64x128x64"]
    block = diag("diag", "splitk_serial", "512", "64x128x64", "auto")
    assert f"512^2 x 32k 64x128 {span(fix)}, fastest samples {span(fastest)} (diagnostic medians {span(block)})" in FIX
    sk = diag("fix_910219a", "streamk", "1024", "128x128x64", "")
    par = diag("fix_910219a", "splitk_parallel", "1024", "128x128x64", "2")
    assert f"median {span(sk)} us, `splitk_parallel`'s two slices {span(par)}" in FIX
    assert {r["commit"] for p in glob.glob(os.path.join(PROOFS, "ticket_diag", "fix_910219a_*.csv"))
            for r in rows(p)} == {"910219ab05ad"}


def test_the_round_and_the_sanitizer_run_that_checked_nothing():
    d = os.path.join(PROOFS, "round_910219a")
    quick = [r["status"] for r in csv.DictReader(open(os.path.join(d, "quick_validate.csv")))]
    assert f"`--quick` {quick.count('ok')} ok, {quick.count('skipped')} skipped, nothing wrong" in FIX
    assert set(quick) == {"ok", "skipped"}
    san = open(os.path.join(d, "sanitize.md")).read()
    for tool in ("memcheck", "racecheck", "synccheck", "initcheck"):
        assert f"| {tool}, 128x96x64 tile | gemm | 0 | 0 / 26 | 0 |" in san, tool
    again = open(os.path.join(d, "sanitize_gemm_leaseB.md")).read()
    for tool in ("memcheck", "racecheck", "synccheck", "initcheck"):
        assert f"| {tool}, 128x96x64 tile | gemm | 0 | 13 / 26 | 0 |" in again, tool
    assert "0 of 26 ok under each tool" in FIX and "13 of 26 rows ok under each tool" in FIX
    assert again.rstrip().endswith("clean.")


def geomean_vs(old, new, variant):
    key = lambda r: tuple(r[c] for c in ("variant", "m", "n", "k", "tile", "stages", "splits", "consumer_warps",  # noqa: E731
                                         "cluster_shape"))
    a = {key(r): float(r["median_us"]) for r in rows(old) if r["variant"] == variant}
    b = {key(r): float(r["median_us"]) for r in rows(new) if r["variant"] == variant}
    ratios = [b[k] / a[k] for k in a if k in b]
    return math.exp(sum(map(math.log, ratios)) / len(ratios)), min(ratios)


def test_the_pair_against_f5ffa93s():
    old = glob.glob(os.path.join(ROOT, "results", "h200", "history", "*_f5ffa93_6502e095.csv*"))[0]
    new = os.path.join(ROOT, "results", "h200", "baseline.csv")
    assert rows(new)[0]["commit"] == "910219ab05ad"
    pct = lambda x: f"{100 * (x - 1):+.1f}%".replace("+-", "-")  # noqa: E731
    g, best = geomean_vs(old, new, "splitk_serial")
    assert f"`splitk_serial` {pct(g)} (best point {pct(best)})" in FIX
    g, best = geomean_vs(old, new, "streamk")
    assert f"`streamk` {pct(g)} (best {pct(best)})" in FIX
    for v in ("splitk_parallel", "ws_tma_wgmma"):
        assert f"`{v}` {pct(geomean_vs(old, new, v)[0])}" in FIX, v


def worst_own_fastest(a, variant):
    """The worst move of a variant's own fastest sample in one A/A run by A/B."""
    base, new = sbcompare.load_run(a), sbcompare.load_run(a.replace("_a.csv", "_b.csv"))
    moved = bands.pair_moves(base, new, interleaved=True)[("gemm", variant)]
    return 100 * max(math.expm1(abs(math.log(g))) for _, g in moved)


def test_the_aa_runs_of_the_new_kernels():
    new = [os.path.join(PROOFS, "ab_910219a", lease, "aa_gate_a.csv.xz") for lease in ("leaseB", "leaseB_again")]
    old = [p for proof in ("ab_f5ffa93", "ab_3880117", "ab_52efaa9")
           for p in glob.glob(os.path.join(PROOFS, proof, "*", "aa_gate_a.csv*"))]
    assert len(old) == 4
    for variant, before in (("splitk_serial", "`splitk_serial` "), ("streamk", "`streamk` ")):
        now = [worst_own_fastest(p, variant) for p in new]
        then = [worst_own_fastest(p, variant) for p in old]
        assert f"{now[0]:.2f}% and {now[1]:.2f}%" in FIX, variant
        assert f"{before}{min(then):.2f}-{max(then):.2f}%" in FIX, variant
        assert max(now) < 1.5 < min(then)


def test_the_bands_before_and_after_the_epoch():
    then = bands.bands_as_of("2026-11-29T07:14:47Z", rule=bands.WORST_EVER)  # f5ffa93's pair, by the rule of then
    now = sbcompare.load_bands()
    point = ("stages=8 buffer_bytes=24576 n=1024 consumer_warps=4 m=1024 k=16384 tile=64x128x64 splits=auto")
    b, own = then.band("NVIDIA H200", "ab", "gemm", "splitk_serial"), then.band("NVIDIA H200", "ab", "gemm", "splitk_serial", point)
    assert own.own and f"`splitk_serial` {100 * b.point:.2f}% and its one-slice point's own {100 * own.point:.2f}%" in FIX
    assert now.band("NVIDIA H200", "ab", "gemm", "splitk_serial", point).point < sbcompare.DEFAULT_THRESHOLD


def multicast_1x2(path):
    return [r for r in rows(path) if at_the_point(r) and KERNELS["`ws_tma_wgmma_multicast` 1x2"](r)]


def test_the_multicast_fast_launches_follow_the_first_context():
    """The six A/A runs under the default flush: side A (its context created
    first) has the fast launches, side B none; every take of 910219a's two."""
    runs = [p for proof in ("ab_e6f97b9", "ab_f5ffa93", "ab_910219a")
            for p in sorted(glob.glob(os.path.join(PROOFS, proof, "*", "aa_gate_a.csv*")))]
    assert len(runs) == 6
    a = [float(r["min_us"]) for p in runs for r in multicast_1x2(p)]
    b = [float(r["min_us"]) for p in runs for r in multicast_1x2(p.replace("_a.csv", "_b.csv"))]
    assert len(a) == len(b) == 6 and max(a) < 60 < 70 < min(b)
    assert f"side A, whose context is created first, had them (fastest {span(a)} us) and side B never ({span(b)})" in FIX
    for run in runs:
        with open(os.path.join(os.path.dirname(run), "aa_gate_ab.txt"), encoding="utf-8") as f:
            assert "CUDA contexts created in this order: A, B" in f.read(), run
    takes = {side: [float(r["min_us"]) for p in glob.glob(os.path.join(PROOFS, "ab_910219a", "*", f"aa_gate_{side}.takes.csv.xz"))
                    for r in multicast_1x2(p)] for side in "ab"}
    assert len(takes["a"]) == len(takes["b"]) == 4  # a first take and a retake, in each run
    assert f"every take of A {span(takes['a'])} us, of B {span(takes['b'])}" in FIX
