"""docs/history.md's session-18 probes, recomputed from their committed CSVs
(results/h100-80gb-hbm3/proofs/probes_2c330e6, probes_4878a0f): the
per-process modes of splitk_serial, the two L2 flushes, devscan's one
occupancy and the raster group. Each figure the page quotes is checked here."""
import csv
import glob
import lzma
import math
import os
import re
import statistics

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROOFS = os.path.join(ROOT, "results", "h100-80gb-hbm3", "proofs")
HISTORY = open(os.path.join(ROOT, "docs", "history.md"), encoding="utf-8").read()


def history_section(heading):
    """docs/history.md's section whose '## ' heading starts with `heading`,
    up to the next one, its whitespace flattened to single spaces."""
    start = HISTORY.index("## " + heading)
    end = HISTORY.find("\n## ", start + 1)
    return " ".join(HISTORY[start:end if end > 0 else len(HISTORY)].split())
KEY = ("variant", "n", "m", "k", "tile", "stages", "splits", "consumer_warps", "block_threads",
       "elems_per_thread", "cluster_shape")


def rows(path):
    with (lzma.open if path.endswith(".xz") else open)(path, "rt", newline="") as f:
        return [r for r in csv.DictReader(f) if r["status"] == "ok"]


def takes(mode, variant="splitk_serial", splits="8"):
    """Every take of the mode's processes (both leases): (fastest, median)."""
    files = [f for proof in ("probes_2c330e6", "probes_4878a0f")
             for f in glob.glob(os.path.join(PROOFS, proof, f"rep_{mode}_*.csv"))]
    assert files, mode
    return [(float(r["min_us"]), float(r["median_us"])) for f in files for r in rows(f)
            if r["variant"] == variant and (splits is None or r["splits"] == splits)]


@pytest.mark.parametrize("mode,label", [("plain", "plain (4 processes, two leases)"),
                                        ("f", "`f`: the flush buffer anew (2)"),
                                        ("o", "`o`: the output anew (2)"),
                                        ("i", "`i`: the input anew (1)"),
                                        ("w", "`w`: gemm's workspace anew (1)")])
def test_the_mode_table(mode, label):
    t = takes(mode)
    fast, med = [x for x, _ in t], [y for _, y in t]
    line = f"| {label} | {min(fast):.1f}-{max(fast):.1f} | {min(med):.1f}-{max(med):.1f} |"
    assert line in HISTORY, line


def test_any_buffer_anew_is_the_fast_mode_and_plain_the_slow_one():
    plain = takes("plain")
    for mode in "oiw":
        anew = takes(mode)
        assert max(f for f, _ in anew) * 1.025 < min(f for f, _ in plain), mode
        assert max(m for _, m in anew) * 1.04 < min(m for _, m in plain), mode


def test_one_process_holds_its_fastest_sample():
    for f in [f for proof in ("probes_2c330e6", "probes_4878a0f")
              for f in glob.glob(os.path.join(PROOFS, proof, "rep_*.csv"))]:
        fast = [float(r["min_us"]) for r in rows(f) if r["variant"] == "splitk_serial" and r["splits"] == "8"]
        assert len(fast) == 4 and max(fast) / min(fast) - 1 <= 0.015, f


def test_cublas_and_streamk_spreads():
    for proof in ("probes_2c330e6", "probes_4878a0f"):
        spread = []
        for v in ("cublas", "streamk"):
            xs = [float(r["min_us"]) for f in glob.glob(os.path.join(PROOFS, proof, "rep_*.csv"))
                  if "read" not in f for r in rows(f) if r["variant"] == v]
            spread.append(f"{100 * (max(xs) / min(xs) - 1):.2f}%")
        assert f"{spread[0]} and\n  {spread[1]} ({proof[7:]})" in HISTORY or \
            f"{spread[0]} and {spread[1]} ({proof[7:]})" in HISTORY.replace("\n  ", " "), (proof, spread)


def ab(d):
    a = {tuple(r[c] for c in KEY): r for r in rows(os.path.join(d, "a.csv"))}
    b = {tuple(r[c] for c in KEY): r for r in rows(os.path.join(d, "b.csv"))}
    return a, b


def geomean_change(d, variant):
    a, b = ab(d)
    logs = [math.log(float(b[k]["median_us"]) / float(a[k]["median_us"])) for k in a
            if k in b and k[0] == variant]
    return len(logs), 100 * (math.exp(sum(logs) / len(logs)) - 1)


@pytest.mark.parametrize("variant", ["cublas", "splitk_reduce", "splitk_parallel", "streamk", "ws_tma_wgmma",
                                     "ws_tma_wgmma_pingpong_tma_store", "splitk_serial"])
def test_the_flush_table(variant):
    n, change = geomean_change(os.path.join(PROOFS, "probes_4878a0f", "flush"), variant)
    line = f"| `{variant}` | {n} | {change:+.1f}% |"
    assert line in HISTORY, line


def test_the_k_heavy_ratio_under_each_flush():
    a, b = ab(os.path.join(PROOFS, "probes_4878a0f", "flush"))
    pick = [k for k in a if k[0] == "splitk_reduce" and k[2] == "512" and k[3] == "32768" and k in b]
    best_a = max(float(a[k]["pct_of_cublas"]) for k in pick)
    best_b = max(float(b[k]["pct_of_cublas"]) for k in pick)
    assert f"row is {best_a:.1f}% of cuBLAS under the memset flush and {best_b:.1f}% under the read" in \
        HISTORY.replace("\n", " ")


def pct_of_copy(d, variant, side):
    a, b = ab(os.path.join(PROOFS, d))
    r = next(r for r in (a if side == "a" else b).values()
             if r["variant"] == variant and r["n"] == "268435456")
    return float(r["pct_of_copy"])


@pytest.mark.parametrize("proof,pairs", [
    ("probes_2c330e6", {"lookback": "86.7 -> 88.4 and\n  86.2 -> 87.5",
                        "lookback_relaxed": "90.7 -> 91.3 and 90.7 -> 91.0",
                        "cluster_lookback": "69.7 -> 77.6 and 70.0 -> 76.7",
                        "grid_sync": "65.2 -> 61.2 and 65.0 -> 60.9"}),
    ("probes_4878a0f", {"lookback": "86.3 ->\n  88.5 and 86.4 -> 88.1",
                        "lookback_relaxed": "90.3 -> 91.5 and 90.0 -> 91.0",
                        "cluster_lookback": "69.2 -> 79.2 and 69.8 -> 78.5"})])
def test_the_occupancy_figures(proof, pairs):
    """Uncapped -> 9 blocks, the capped build second in one order, first in the other."""
    first, second = ("dv_ab", "dv_ba") if proof == "probes_2c330e6" else ("occ_ab", "occ_ba")
    text = " ".join(HISTORY.split())
    for variant, quoted in pairs.items():
        got = (f"{pct_of_copy(f'{proof}/{first}', variant, 'a'):.1f} -> "
               f"{pct_of_copy(f'{proof}/{first}', variant, 'b'):.1f} and "
               f"{pct_of_copy(f'{proof}/{second}', variant, 'b'):.1f} -> "
               f"{pct_of_copy(f'{proof}/{second}', variant, 'a'):.1f}")
        assert got == " ".join(quoted.split()), (variant, got)
        assert f"`{variant}` {got}" in text, variant


def test_the_raster_group_ratios():
    d = os.path.join(PROOFS, "probes_2c330e6")
    _, ab_change = geomean_change(os.path.join(d, "g16_ab"), "ws_tma_wgmma_pingpong_tma_store")
    _, ba_change = geomean_change(os.path.join(d, "g16_ba"), "ws_tma_wgmma_pingpong_tma_store")
    assert f"1.{round(ab_change * 10):03d}"[:5] == "1.064" and f"{1 + ba_change / 100:.3f}" == "0.940"
    assert re.search(r"time ratio 16 / 8: 1\.064, and 1 / 0\.940", " ".join(HISTORY.split()))


def h200_ab_bands_then():
    """The H200's `ab` band rows (scripts/bands.py's table_rows) as the
    entries written after ab_e6f97b9 had them: from its two A/A runs alone
    (the A/A runs committed since widen them; an entry quotes its data)."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
    import bands
    then = [p for p in bands.ab_pairs(os.path.join(ROOT, "results", "h200")) if "ab_e6f97b9" in p[0].path]
    assert len(then) == 2
    # by the rule of then: margin x the worst move, no cap
    return [{k: str(v) for k, v in r.items()} for r in bands.table_rows(then, "ab", **bands.WORST_EVER)]


def pair_paths(gpu, commit):
    """The pair of `commit` on results/<gpu>/: baseline.csv and latest.csv
    as committed, or their files in history/ (run_utc order: baseline
    first) once scripts/bless_pair.py moved them for a newer pair."""
    where = os.path.join(ROOT, "results", gpu)
    current = [os.path.join(where, f) for f in ("baseline.csv", "latest.csv")]
    if all(rows(p)[0]["commit"].startswith(commit) for p in current):
        return current
    return sorted(glob.glob(os.path.join(where, "history", f"*_{commit}_*.csv*")))


def test_the_pair_figures():
    """The 4878a0f pair's figures that the page quotes: baseline / latest."""
    paths = pair_paths("h100-80gb-hbm3", "4878a0f")
    assert len(paths) == 2, paths
    runs = [rows(p) for p in paths]
    assert {r["commit"][:7] for run in runs for r in run} == {"4878a0f"}

    def copy(run, v):
        return next(float(r["pct_of_copy"]) for r in run
                    if r["family"] == "devscan" and r["variant"] == v and r["n"] == "268435456")

    def best(run, m):
        return max(float(r["pct_of_cublas"]) for r in run if r["family"] == "gemm" and r["variant"] != "cublas"
                   and r["m"] == r["k"] == m and r["pct_of_cublas"])
    text = " ".join(HISTORY.split())
    a, b = runs
    assert (f"`lookback_relaxed` {copy(a, 'lookback_relaxed'):.1f} and {copy(b, 'lookback_relaxed'):.1f}% "
            f"of copy at 256M, `cluster_lookback` {copy(a, 'cluster_lookback'):.1f} and "
            f"{copy(b, 'cluster_lookback'):.1f}") in text
    assert (f"(1024^3 {best(a, '1024'):.1f}/{best(b, '1024'):.1f}%, 4096^3 {best(a, '4096'):.1f}/"
            f"{best(b, '4096'):.1f}%, 8192^3 {best(a, '8192'):.1f}/{best(b, '8192'):.1f}% of cuBLAS)") in text


# ---- session 19: the pad alone, the read flush (probes_f515353, ab_54fa7a1) ----

SECTION = HISTORY[HISTORY.index("## The read flush, and what is left of the process modes"):]
FLAT = " ".join(SECTION.split())


def fastest_and_median(files, variant="splitk_serial", splits="8"):
    assert files
    t = [(float(r["min_us"]), float(r["median_us"])) for f in files for r in rows(f)
         if r["variant"] == variant and (splits is None or r["splits"] == splits)]
    return [x for x, _ in t], [y for _, y in t]


def span(xs):
    return f"{min(xs):.1f}-{max(xs):.1f}"


@pytest.mark.parametrize("mode,label", [("plain", "plain"), ("f", "`f`: the flush buffer anew"),
                                        ("o", "`o`: the output anew"), ("i", "`i`: the input anew"),
                                        ("w", "`w`: gemm's workspace anew"), ("p", "`p`: the pad alone"),
                                        ("read", "`SB_FLUSH=read`")])
def test_the_pad_alone_table(mode, label):
    fast, med = fastest_and_median(glob.glob(os.path.join(PROOFS, "probes_f515353", f"rep_{mode}_*.csv")))
    assert len(fast) == 8
    assert f"| {label} | {span(fast)} | {span(med)} |" in SECTION


def test_the_pad_alone_is_the_fast_mode():
    def rep(mode):
        return fastest_and_median(glob.glob(os.path.join(PROOFS, "probes_f515353", f"rep_{mode}_*.csv")))
    plain, pad, flush = rep("plain"), rep("p"), rep("f")
    assert max(pad[0]) < min(plain[0]) and max(pad[1]) * 1.04 < min(plain[1])
    assert min(flush[0]) > max(pad[0]) and min(flush[1]) > max(plain[1]) - 1


def worst_moves(d, family, variants, column):
    a = {tuple(r.get(c, "") for c in KEY + ("iters", "participants", "contention")): r
         for r in rows(os.path.join(d, "a.csv")) if r["family"] == family}
    b = {tuple(r.get(c, "") for c in KEY + ("iters", "participants", "contention")): r
         for r in rows(os.path.join(d, "b.csv")) if r["family"] == family}
    out = {}
    for k in a:
        if k in b and k[0] in variants:
            move = math.expm1(abs(math.log(float(b[k][column]) / float(a[k][column])))) * 100
            out[k[0]] = max(out.get(k[0], 0.0), move)
    return out


def test_replacing_the_output_per_point_narrows_gemm_and_widens_the_hand_offs():
    d = os.path.join(PROOFS, "probes_f515353")
    gemm = ("splitk_serial", "ws_tma_wgmma_pingpong", "streamk")
    plain = worst_moves(os.path.join(d, "aa_plain"), "gemm", gemm, "min_us")
    moved = worst_moves(os.path.join(d, "aa_replace_o"), "gemm", gemm, "min_us")
    for v in gemm:
        assert f"`{v}` {plain[v]:.2f}% -> {moved[v]:.2f}%" in FLAT, v
    plain = worst_moves(os.path.join(d, "aa_plain"), "barrier", ("flag_handoff_relaxed",), "median_us")
    moved = worst_moves(os.path.join(d, "aa_replace_o"), "barrier", ("flag_handoff_relaxed",), "median_us")
    v = "flag_handoff_relaxed"
    assert f"`{v}` {plain[v]:.2f}% -> {moved[v]:.2f}%" in FLAT and moved[v] > 4 * plain[v]


def test_the_two_flushes_on_one_lease():
    d = os.path.join(PROOFS, "ab_54fa7a1", "leaseA", "flush")
    read = fastest_and_median(glob.glob(os.path.join(d, "rep_read_*.csv")))
    memset = fastest_and_median(glob.glob(os.path.join(d, "rep_memset_*.csv")))
    assert f"read {span(read[0])} / {span(read[1])} us, memset {span(memset[0])} / {span(memset[1])}" in FLAT
    cub_read = fastest_and_median(glob.glob(os.path.join(d, "rep_read_*.csv")), "cublas", None)[0]
    cub_memset = fastest_and_median(glob.glob(os.path.join(d, "rep_memset_*.csv")), "cublas", None)[0]
    assert f"cuBLAS's fastest {span(cub_read)} us read, {span(cub_memset)} memset" in FLAT
    for f in glob.glob(os.path.join(d, "rep_read_*.csv")):
        assert all("flushed by a read" in r["detail"] for r in rows(f))


@pytest.mark.parametrize("path", [os.path.join(PROOFS, "ab_54fa7a1", "leaseB", "modes.csv"),
                                  os.path.join(ROOT, "results", "h200", "proofs", "round_54fa7a1",
                                               "modes_leaseA.csv")])
def test_single_processes_are_one_mode(path):
    fast, med = fastest_and_median([path], splits=None)
    assert len(fast) == 8
    apart = 100 * (max(fast) / min(fast) - 1)
    assert apart < 2 and f"{span(fast)} us fastest ({apart:.2f}% apart), medians {span(med)}" in FLAT \
        or f"{span(fast)} ({apart:.2f}%), {span(med)}" in FLAT, (path, span(fast), apart, span(med))


def test_the_aa_under_the_read_flush():
    import sys
    sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
    import sbcompare
    d = os.path.join(PROOFS, "ab_54fa7a1", "leaseA")
    cmp = sbcompare.compare(sbcompare.load_run(os.path.join(d, "aa_gate_a.csv")),
                            sbcompare.load_run(os.path.join(d, "aa_gate_b.csv")),
                            bands=sbcompare.load_bands(os.path.join(ROOT, "results", "bands.csv")),
                            interleaved=True)
    moves = sorted(((math.expm1(abs(math.log(m.gated))) * 100, "/".join(sbcompare.by_variant(m)))
                    for m in cmp.matches if m.figure == "fastest"), reverse=True)
    over = [(v, name) for v, name in moves if v > 3]
    assert not cmp.regressions and len(cmp.matches) == 539
    assert f"539 gated points, 0 flagged; gemm's own fastest sample median " \
           f"{statistics.median(v for v, _ in moves):.2f}%, worst {moves[0][0]:.2f}%" in FLAT
    serial = [v for v, name in over if name == "gemm/splitk_serial"]
    other = [(v, name) for v, name in over if name != "gemm/splitk_serial"]
    assert len(serial) == 3 and len(other) == 1 and other[0][1] == "gemm/ws_tma_wgmma_multicast"
    assert f"({serial[0]:.2f}%, {serial[1]:.2f}%, {serial[2]:.2f}%;" in FLAT
    assert f"`ws_tma_wgmma_multicast` point ({other[0][0]:.2f}%); every other gemm point within " \
           f"{moves[len(over)][0]:.2f}%" in FLAT


def test_the_read_flush_sweep_figures():
    run = rows(os.path.join(PROOFS, "ab_54fa7a1", "leaseB", "default.csv"))
    assert {r["commit"][:7] for r in run} == {"54fa7a1"}

    def best(m, k):
        return max(float(r["pct_of_cublas"]) for r in run if r["family"] == "gemm" and r["variant"] != "cublas"
                   and r["m"] == m and r["k"] == k and r["pct_of_cublas"])
    assert (f"{best('512', '32768'):.1f}% of cuBLAS at 512 x 512 x 32768, {best('1024', '1024'):.1f}% at "
            f"1024^3, {best('4096', '4096'):.1f}% at 4096^3 and {best('8192', '8192'):.1f}% at 8192^3") in FLAT
    relaxed = max(float(r["pct_of_copy"]) for r in run if r["family"] == "devscan"
                  and r["variant"] == "lookback_relaxed" and r["n"] == "268435456")
    assert f"`lookback_relaxed` {relaxed:.1f}% of copy at 256M" in FLAT


def best_by_shape(path):
    best = {}
    for r in rows(path):
        if r["family"] == "gemm" and r["variant"] != "cublas":
            key = (int(r["m"]), int(r["n"]), int(r["k"]))
            best[key] = max(best.get(key, 0.0), float(r["pct_of_cublas"]))
    return best


def test_the_off_sweep_under_the_read_flush():
    d = os.path.join(PROOFS, "offsweep_54fa7a1")
    best = best_by_shape(os.path.join(d, "gemm.csv.xz"))
    under = sorted((k, v) for k, v in best.items() if v < 90)
    assert len(best) == 30 and f"{len(under)} of its 30 shapes are under 90%" in FLAT
    quoted = re.findall(r"(\d+\.\d)%", FLAT[FLAT.index("7 of its 30 shapes"):FLAT.index("5 at 4878a0f")])
    assert quoted == [f"{v:.1f}" for _, v in under]
    old = best_by_shape(os.path.join(PROOFS, "offsweep_4878a0f", "gemm.csv.xz"))
    assert f"{sum(v < 90 for v in old.values())} at 4878a0f under the memset" in FLAT
    mn = best_by_shape(os.path.join(d, "mn.csv"))
    low = [mn[(1152, 2048, 16384)], mn[(1152, 2048, 65536)]]
    rest = [v for k, v in mn.items() if k[:2] != (1152, 2048)]
    assert len(rest) == 6 and max(low) < min(rest)
    assert (f"1152 x 2048 at k = 16k and 64k {low[0]:.1f}% and {low[1]:.1f}%, the other six shapes "
            f"{min(rest):.1f}-{max(rest):.1f}%") in FLAT
