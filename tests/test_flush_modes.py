"""The figures of docs/history.md's entry "The flush, and the fast launches of
the 64x128 tile on the H200" and of docs/REGRESSIONS.md's paragraph on what is
left of gemm's widest A/A moves, read back from the committed H200 runs they
come from (results/h200/proofs/ab_f5ffa93/, ab_3880117/, ab_52efaa9/,
explain_52efaa9/, ticket_diag/)."""
import csv
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_process_modes import history_section, rows  # noqa: E402  (ok rows of a CSV)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
    """REGRESSIONS.md: the multicast point's fast side in each A/A at f5ffa93,
    every side's median, the memset's medians, splitk_serial's one slice
    against ws_tma_wgmma's kernel, and ncu's durations."""
    mc = KERNELS["`ws_tma_wgmma_multicast` 1x2"]
    sides = {os.path.basename(os.path.dirname(p)) + os.path.basename(p): [r for r in rows(p) if at_the_point(r) and mc(r)][0]
             for p in glob.glob(os.path.join(PROOFS, "ab_f5ffa93", "lease*", "aa_gate_[ab].csv*"))}
    assert len(sides) == 4
    fast = [float(r["min_us"]) for k, r in sides.items() if "_a.csv" in k]
    assert f"fastest {span(fast)} us on one side of each A/A at f5ffa93" in REGRESSIONS
    assert all(float(r["min_us"]) > 75 for k, r in sides.items() if "_b.csv" in k)
    assert f"every side's median {span([float(r['median_us']) for r in sides.values()])}" in REGRESSIONS
    memset = timed("memset, 2 L2s", "`ws_tma_wgmma_multicast` 1x2")
    assert f"medians {span([b for _, b in memset])})" in REGRESSIONS
    serial = [b for _, b in timed("read, 2 L2s (the default)", "`splitk_serial`, one slice")]
    dp = [b for _, b in timed("read, 2 L2s (the default)", "`ws_tma_wgmma`")]
    assert f"(medians {span(serial)} us where `ws_tma_wgmma`'s kernel runs {span(dp)}" in REGRESSIONS
    stalls = ncu_durations()
    assert stalls[("splitk_serial", "64x128x64")] == stalls[("splitk_parallel", "64x128x64")]
    assert (f"under ncu {stalls[('splitk_serial', '64x128x64')]:.1f} against "
            f"{stalls[('ws_tma_wgmma', '64x128x64')]:.1f} us") in REGRESSIONS


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
        if (m, tile, splits) == ("1024", "64x128x64", "auto"):
            assert f"a diagnostic build that takes (tile, slice) from blockIdx ran it at {span(block)} us" in REGRESSIONS
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
