"""docs/history.md's session-18 probes, recomputed from their committed CSVs
(results/h100-80gb-hbm3/proofs/probes_2c330e6, probes_4878a0f): the
per-process modes of splitk_serial, the two L2 flushes, devscan's one
occupancy and the raster group. Each figure the page quotes is checked here."""
import csv
import glob
import math
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROOFS = os.path.join(ROOT, "results", "h100-80gb-hbm3", "proofs")
HISTORY = open(os.path.join(ROOT, "docs", "history.md"), encoding="utf-8").read()
KEY = ("variant", "n", "m", "k", "tile", "stages", "splits", "consumer_warps", "block_threads",
       "elems_per_thread", "cluster_shape")


def rows(path):
    with open(path, newline="") as f:
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
    for f in glob.glob(os.path.join(PROOFS, "probes_*", "rep_*.csv")):
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


def test_the_pair_figures():
    """The 4878a0f pair's figures that the page quotes: baseline / latest."""
    h100 = os.path.join(ROOT, "results", "h100-80gb-hbm3")
    runs = [rows(os.path.join(h100, f)) for f in ("baseline.csv", "latest.csv")]
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
