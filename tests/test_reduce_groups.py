"""The figures of docs/history.md's "the separate reduction's slice groups"
entry, read back from the committed H200 runs they come from
(results/h200/proofs/kheavy_e6f97b9/, reduce_groups/, offsweep_a88679b/)."""
import collections
import csv
import io
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_process_modes import best_by_shape, h200_ab_bands_then, rows  # noqa: E402  (ok rows, best % a shape)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROOFS = os.path.join(ROOT, "results", "h200", "proofs")
GROUPS = os.path.join(PROOFS, "reduce_groups")


def ncu_kernels(path):
    """{(point ID, kernel name): {metric: value}} of an `ncu --csv` log
    (several runs, each with its own header line)."""
    out = collections.defaultdict(dict)
    block = 0
    with open(path) as f:
        lines = [line for line in f if line.startswith('"')]
    header = None
    for row in csv.reader(io.StringIO("".join(lines))):
        if row[0] == "ID":
            header, block = row, block + 1
            continue
        d = dict(zip(header, row))
        out[(block, int(d["ID"]), d["Kernel Name"])][d["Metric Name"]] = float(d["Metric Value"].replace(",", ""))
    return out


def kernel(kernels, block, prefix):
    got = [(k, v) for k, v in kernels.items() if k[0] == block and k[2].startswith(prefix)]
    assert got, prefix
    return got


def test_what_cublas_and_ours_ran_at_two_k_heavy_shapes():
    k = ncu_kernels(os.path.join(PROOFS, "kheavy_e6f97b9", "ncu.csv"))
    (_, gemm), = kernel(k, 1, "nvjet_sm90_hss_64x32_64x16_2x4_h_bz_splitK_TNT")
    (_, red), = kernel(k, 1, "void cublasLt::splitKreduce_kernel")
    assert (gemm["launch__grid_size"], gemm["launch__cluster_size"]) == (96, 8)
    assert (red["launch__grid_size"], red["launch__block_size"]) == (32, 512)
    assert round(gemm["gpu__time_duration.sum"] / 1e3, 1) == 8.5 and round(red["gpu__time_duration.sum"] / 1e3, 1) == 4.0
    # splitk_reduce at 16 slices: the first of its two points (16, then 32)
    ours = sorted(kernel(k, 1, "void gemm_kernel<GemmSplitKReduceT<0>"))[0]
    reduce = sorted(kernel(k, 1, "void gemm_reduce_kernel"))[0]
    assert ours[1]["launch__grid_size"] == 32 and reduce[1]["launch__grid_size"] == 16
    assert round(ours[1]["gpu__time_duration.sum"] / 1e3, 1) == 8.6
    assert round(reduce[1]["gpu__time_duration.sum"] / 1e3, 1) == 6.0
    # 1152^2 x 8k
    (_, cb), = kernel(k, 2, "nvjet_sm90_hss_96x128_64x7_4x2_h_bz_TNN")
    assert (cb["launch__grid_size"], cb["launch__cluster_size"]) == (120, 8)
    assert round(cb["lts__t_bytes.sum"] / 1e6) == 200
    ws = sorted(kernel(k, 2, "void gemm_kernel<GemmWsTmaWgmma,"))[0][1]
    sk = kernel(k, 2, "void gemm_kernel<GemmSplitKReduceT<0>")[0][1]
    red = kernel(k, 2, "void gemm_reduce_kernel")[0][1]
    assert ws["launch__grid_size"] == 81 and round(ws["lts__t_bytes.sum"] / 1e6) == 293
    assert sk["launch__grid_size"] == 243 and round(sk["lts__t_bytes.sum"] / 1e6) == 295
    assert round(red["lts__t_bytes.sum"] / 1e6) == 33


def moves(run, variant="splitk_reduce", root=GROUPS):
    """{(m, k, tile, splits): % median move, B against A} of an A/B dir
    under root, and both sides' rows by the same key."""
    def by(side):
        return {(int(r["m"]), int(r["k"]), r["tile"], r["splits"]): r
                for r in rows(os.path.join(root, run, side + ".csv")) if r["variant"] == variant}
    a, b = by("a"), by("b")
    return {key: 100 * (float(b[key]["median_us"]) / float(a[key]["median_us"]) - 1) for key in a if key in b}, a, b


T64 = "64x128x64"


def test_the_ab_moves_quoted():
    m, _, _ = moves("ab_rule1")
    fast = [m[(128, k, T64, s)] for k in (16384, 32768, 65536) for s in ("24", "32", "auto")]
    assert round(-max(fast), 1) == 4.5 and round(-min(fast), 1) == 10.8
    slow = [m[(256, 16384, T64, s)] for s in ("8", "12", "auto")]
    assert round(min(slow), 1) == 5.8 and round(max(slow), 1) == 8.6
    slow = [m[(384, k, T64, "auto")] for k in (16384, 32768, 65536)]
    assert round(min(slow), 1) == 3.5 and round(max(slow), 1) == 8.5
    m, _, _ = moves("ab_1e06a2e")
    assert (round(m[(256, 16384, T64, "12")], 1), round(m[(256, 16384, T64, "auto")], 1)) == (6.9, 9.4)
    m, _, _ = moves("ab_e8f1b34")
    assert (round(m[(256, 16384, T64, "12")], 1), round(m[(256, 16384, T64, "auto")], 1)) == (3.5, 4.9)
    m, a, b = moves("ab_a88679b")
    assert round(m[(128, 16384, T64, "auto")], 1) == -10.2 and round(m[(128, 65536, T64, "auto")], 1) == -7.7
    key = (128, 16384, T64, "auto")
    assert (a[key]["splits_used"], b[key]["splits_used"]) == ("26", "32")
    assert (round(float(a[key]["pct_of_cublas"]), 1), round(float(b[key]["pct_of_cublas"]), 1)) == (79.8, 89.1)
    key = (128, 65536, T64, "auto")
    assert (round(float(a[key]["pct_of_cublas"]), 1), round(float(b[key]["pct_of_cublas"]), 1)) == (88.6, 94.3)
    one = [v for key, v in m.items() if key[0] in (256, 384)]
    assert round(min(one), 1) == -4.6 and round(max(one), 1) == 3.2
    c, _, _ = moves("ab_a88679b", "cublas")
    assert round(min(c.values()), 1) == -2.6 and round(max(c.values()), 1) == 3.8


def test_the_off_sweep_at_a88679b():
    path = os.path.join(PROOFS, "offsweep_a88679b", "gemm.csv")
    new, old = best_by_shape(path), best_by_shape(os.path.join(PROOFS, "offsweep_e6f97b9", "gemm.csv"))
    squares = {s for s in new if s[0] == s[1]}
    assert len(squares) == 30
    under = sorted(s for s in squares if new[s] < 90)
    assert under == [(128, 128, 16384), (384, 384, 16384), (1152, 1152, 8192)]
    assert sum(old[s] < 90 for s in squares) == 6
    pct = {s: round(v, 1) for s, v in new.items()}
    assert (pct[(128, 128, 16384)], pct[(384, 384, 16384)], pct[(1152, 1152, 8192)]) == (89.2, 88.0, 84.3)
    assert round(old[(128, 128, 16384)], 1) == 82.7
    mn = max((r for r in rows(path) if r["family"] == "gemm" and r["variant"] != "cublas"
              and (r["m"], r["n"], r["k"]) == ("1152", "2048", "65536")), key=lambda r: float(r["pct_of_cublas"]))
    assert (mn["variant"], pct[(1152, 2048, 65536)]) == ("streamk", 84.3)
    assert round(old[(1152, 2048, 65536)], 1) == 88.7
    assert {r["commit"] for r in rows(path)} == {"a88679bf006a"}


def test_the_128x256_tile_at_768():
    best = collections.defaultdict(float)
    for r in rows(os.path.join(GROUPS, "tile128x256_e8f1b34.csv")):
        if r["variant"] == "splitk_reduce":
            best[int(r["k"])] = max(best[int(r["k"])], float(r["pct_of_cublas"]))
    assert [round(best[k], 1) for k in (8192, 16384, 32768)] == [79.4, 91.2, 95.4]


def test_the_multicast_profile():
    with open(os.path.join(PROOFS, "kheavy_e6f97b9", "multicast_stalls.csv")) as f:
        got = {(r["variant"], r["cluster_shape"]): r for r in csv.DictReader(f)}
    us = {k: round(float(r["duration_us"]), 1) for k, r in got.items()}
    assert us == {("ws_tma_wgmma", ""): 70.4, ("ws_tma_wgmma_multicast", "2x1"): 77.2,
                  ("ws_tma_wgmma_multicast", "1x2"): 79.7}
    tensor = sorted(round(float(r["tensor_pipe_pct"]), 1) for r in got.values())
    assert tensor == [77.9, 79.6, 85.7]
    wait = [float(r["share_wait"]) for r in got.values()]
    ls = [float(r["share_long_scoreboard"]) for r in got.values()]
    assert (round(100 * min(wait)), round(100 * max(wait))) == (37, 41)
    assert (round(100 * min(ls), 1), round(100 * max(ls), 1)) == (7.5, 11.2)


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_the_sanitizers_came_out_clean(tool):
    with open(os.path.join(GROUPS, "sanitize", f"san_{tool}.log")) as f:
        log = f.read()
    assert "0 errors" in log and "syncbench: 4 ok" in log


def test_the_range_the_header_quotes():
    """kernels/gemm/gemm_schedule_math.h: 8 groups at 128^2, 24-32 slices,
    4.0-12.5% faster over the four A/B runs."""
    got = [v for run in ("ab_rule1", "ab_1e06a2e", "ab_e8f1b34", "ab_a88679b")
           for key, v in moves(run)[0].items() if key[0] == 128 and key[3] in ("24", "32")]
    assert (round(-max(got), 1), round(-min(got), 1)) == (4.0, 12.5)
    with open(os.path.join(ROOT, "kernels", "gemm", "gemm_schedule_math.h")) as f:
        assert "4.0-12.5% faster at 24-32 slices" in f.read()


def test_more_slices_at_128_squared():
    got = {int(r["splits"]): round(float(r["pct_of_cublas"]), 1)
           for r in rows(os.path.join(GROUPS, "slices_a88679b.csv"))
           if r["variant"] == "splitk_reduce" and r["k"] == "16384" and r["tile"] == T64}
    assert got == {24: 89.2, 32: 88.7, 40: 85.8, 48: 81.4, 64: 76.1}


def test_where_the_rest_is_at_128_squared():
    k = ncu_kernels(os.path.join(GROUPS, "ncu_warm_a88679b.csv"))
    us = {name[:24]: round(v["gpu__time_duration.sum"] / 1e3, 1) for (_, pid, name), v in k.items() if pid in (1, 2, 7, 8)}
    assert us == {"nvjet_sm90_hss_64x32_64x": 6.1, "void cublasLt::splitKred": 2.8,
                  "void gemm_kernel<GemmSpl": 5.1, "void gemm_reduce_kernel<": 3.9}
    grids = {pid: int(v["launch__grid_size"]) for (_, pid, name), v in k.items() if pid in (2, 7, 8)}
    assert grids == {2: 32, 7: 64, 8: 128}  # 32 slices x 2 tiles; 16 blocks x 8 groups


def test_a_shares_loads_in_flight_at_once():
    m, a, b = moves("ab_926afa2")
    auto = {k: v for k, v in m.items() if k[3] == "auto"}
    assert (round(-max(auto.values()), 1), round(-min(auto.values()), 1)) == (2.7, 5.7)
    ks = (8192, 16384, 32768, 65536, 131072)
    assert [round(float(b[(128, k, T64, "auto")]["pct_of_cublas"]), 1) for k in ks] == [99.6, 94.1, 95.7, 97.2, 95.4]
    assert [round(float(a[(128, k, T64, "auto")]["pct_of_cublas"]), 1) for k in ks] == [95.2, 88.3, 91.5, 93.9, 92.7]
    for tool in ("memcheck", "racecheck", "synccheck"):
        with open(os.path.join(GROUPS, "sanitize_926afa2", f"san_{tool}.log")) as f:
            log = f.read()
        assert "0 errors" in log and "syncbench: 3 ok" in log, tool


def band(gpu, pairing, variant):
    with open(os.path.join(ROOT, "results", "bands.csv")) as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))
                if (r["gpu_name"], r["pairing"], r["variant"]) == (gpu, pairing, variant) and not r.get("point")]
    return float(rows[0]["point_band_pct"])


def h200_ab_band_then(variant):
    """The H200's `ab` band of a variant as the entry had it (h200_ab_bands_then)."""
    (row,) = [r for r in h200_ab_bands_then() if r["variant"] == variant and not r["point"]]
    return float(row["point_band_pct"])


def move(a_rows, b_rows, pick):
    (a,), (b,) = [r for r in a_rows if pick(r)], [r for r in b_rows if pick(r)]
    return (100 * (float(b["min_us"]) / float(a["min_us"]) - 1), 100 * (float(b["median_us"]) / float(a["median_us"]) - 1))


def test_the_median_condition_figures():
    """docs/history.md, "The fastest-sample rule A against a median
    condition": the false flag it would spare and the planted point it
    would lose."""
    d = os.path.join(GROUPS, "ab_a88679b")
    fastest, median = move(rows(os.path.join(d, "a.csv")), rows(os.path.join(d, "b.csv")),
                           lambda r: r["variant"] == "cublas" and r["m"] == "384" and r["k"] == "65536")
    assert (round(fastest, 1), round(median, 1), h200_ab_band_then("cublas")) == (5.9, 3.8, 5.82)
    d = os.path.join(ROOT, "results", "h100-80gb-hbm3", "proofs", "ab_16d0f95", "leaseA")
    fastest, median = move(rows(os.path.join(d, "plant36_a.csv")), rows(os.path.join(d, "plant36_b.csv")),
                           lambda r: r["variant"] == "streamk" and r["m"] == "1024" and r["k"] == "1024"
                           and r["tile"] == "128x256x64")
    assert (round(fastest, 1), round(median, 1), band("NVIDIA H100 80GB HBM3", "ab", "streamk")) == (8.3, 6.2, 6.40)
