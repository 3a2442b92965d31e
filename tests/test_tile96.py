"""The figures of docs/history.md's "the 128x96x64 tile at 1152" entry, read
back from the committed H200 runs they come from (results/h200/proofs/
tile96_probe_527bf3b/, offsweep_f5ffa93/, round_f5ffa93/, the pair)."""
import csv
import lzma
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_process_modes import best_by_shape, history_section, pair_paths, rows  # noqa: E402  (ok rows; best % of cuBLAS a shape)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H200 = os.path.join(ROOT, "results", "h200")
PROOFS = os.path.join(H200, "proofs")
OFF = os.path.join(PROOFS, "offsweep_f5ffa93", "gemm.csv")
TEXT = history_section("gemm: the 128x96x64 tile at 1152")


def pair_run(name):
    """Every row of the f5ffa93 pair's baseline or latest run, where it is now."""
    paths = pair_paths("h200", "f5ffa93")
    assert len(paths) == 2, paths
    path = paths[("baseline", "latest").index(name)]
    with (lzma.open if path.endswith(".xz") else open)(path, "rt", newline="") as f:
        return list(csv.DictReader(f))


def row(path, variant, m, n, k, tile=None):
    (r,) = [r for r in rows(path) if r["variant"] == variant and (int(r["m"]), int(r["n"]), int(r["k"])) == (m, n, k)
            and (tile is None or r["tile"] == tile)]
    return r


def test_the_probe_81_against_108_blocks():
    probe = os.path.join(PROOFS, "tile96_probe_527bf3b", "probe.csv")
    assert {r["gpu_uuid"][:12] for r in rows(probe)} == {"GPU-ae09c18a"}
    sq, wide = (float(row(probe, "ws_tma_wgmma", 1152, n, 8192)["median_us"]) for n in (1152, 1536))
    assert f"(81 blocks) in {sq:.2f} us" in TEXT and f"(108 blocks, one wave) in {wide:.2f} us" in TEXT
    assert f"cost {round(100 * (wide / sq - 1))}% more time" in TEXT
    assert f"near cuBLAS's {float(row(probe, 'cublas', 1152, 1152, 8192)['median_us']):.2f} us" in TEXT
    with open(os.path.join(PROOFS, "kheavy_e6f97b9", "ncu.csv")) as f:
        assert "nvjet_sm90_hss_96x128_" in f.read()  # cuBLAS's 96-wide tile


def test_the_off_sweep_at_f5ffa93():
    assert {r["gpu_uuid"][:12] for r in rows(OFF)} == {"GPU-37bdb8c7"}
    with open(OFF) as f:
        assert not [r for r in csv.DictReader(f) if r["status"] in ("wrong", "error", "deadlock")]
    ws = row(OFF, "ws_tma_wgmma", 1152, 1152, 8192, "128x96x64")
    assert f"128x96 {float(ws['median_us']):.2f} us, {float(ws['pct_of_cublas']):.1f}% of cuBLAS" in TEXT
    sk8, sk16 = (row(OFF, "streamk", 1152, 1152, k, "128x96x64") for k in (8192, 16384))
    assert "nothing to split" in sk8["detail"]
    assert f"to split on 132 blocks) {float(sk8['pct_of_cublas']):.1f}%" in TEXT
    assert f"1152^2 x 16k `streamk` 128x96 {float(sk16['pct_of_cublas']):.1f}%" in TEXT
    best128 = max(float(r["pct_of_cublas"]) for r in rows(OFF) if r["variant"] != "cublas"
                  and (r["m"], r["n"], r["k"], r["tile"]) == ("1152", "1152", "8192", "128x128x64"))
    assert f"where the best at 128x128 is {best128:.1f}%" in TEXT
    best = best_by_shape(OFF)
    assert len(best) == 38
    under = [s for s, v in best.items() if v < 90]
    assert f"{38 - len(under)} of the 38 shapes reach 90%" in TEXT
    assert under == [(1152, 2048, 65536)]
    r = row(OFF, "splitk_reduce", 1152, 2048, 65536, "128x256x64")
    assert r["splits_used"] == "5" and best[(1152, 2048, 65536)] == float(r["pct_of_cublas"])
    assert f"128x256 at 5 slices {float(r['pct_of_cublas']):.1f}%" in TEXT
    five = [r for r in rows(os.path.join(PROOFS, "tile96_probe_527bf3b", "probe.csv"))
            if r["variant"] == "splitk_reduce" and r["tile"] == "128x256x64" and r["splits"] == "5"]
    assert len(five) == 1 and f"ran {float(five[0]['pct_of_cublas']):.1f}% on the probe lease" in TEXT


def test_sanitizers_planted_bugs_and_the_pair():
    for tool in ("memcheck", "racecheck", "synccheck"):
        log = open(os.path.join(PROOFS, "round_f5ffa93", "san96", f"{tool}.log")).read()
        assert ("0 hazards" if tool == "racecheck" else "ERROR SUMMARY: 0 errors") in log
        assert "14 ok, 0 skipped, 0 unsupported, 0 wrong, 0 error, 0 deadlock" in log
    with open(os.path.join(PROOFS, "round_f5ffa93", "broken96_leaseA.csv")) as f:
        planted = [r for r in csv.DictReader(f) if r["family"] == "gemm"]
    assert len(planted) == 5 and all(r["tile"] == "128x96x64" for r in planted)
    status = [r["status"] for r in planted]
    assert f"{status.count('wrong')} wrong, {status.count('deadlock')} deadlock" in TEXT
    assert status.count("wrong") + status.count("deadlock") == 5
    for name, chip in (("baseline", "GPU-6502e095"), ("latest", "GPU-36bb449f")):
        run = pair_run(name)
        assert {r["commit"] for r in run} == {"f5ffa939e6b9"} and {r["gpu_uuid"][:12] for r in run} == {chip}
        assert sum(r["status"] == "ok" for r in run) == 1025 and sum(r["status"] == "skipped" for r in run) == 117
        assert f"{name} {chip}" in TEXT


def test_the_m_by_n_rows_of_5273e2f():
    old = best_by_shape(os.path.join(PROOFS, "offsweep_5273e2f", "gemm.csv"))
    assert f"1152 x 768 x 16k's {old[(1152, 768, 16384)]:.1f}%" in TEXT
    assert f"whose own best was {old[(1152, 1152, 16384)]:.1f}%" in TEXT


def test_a_third_chip_and_the_whole_96_squares():
    d = os.path.join(PROOFS, "tile96_f5ffa93")
    chip2, whole = os.path.join(d, "chip2.csv"), os.path.join(d, "whole96.csv")
    assert {r["gpu_uuid"][:12] for r in rows(chip2)} == {"GPU-d0e052fd"}
    assert {r["gpu_uuid"][:12] for r in rows(whole)} == {"GPU-49094819"}
    assert {r["commit"] for r in rows(chip2) + rows(whole)} == {"f5ffa939e6b9"}

    def best(path, m, n, k, tile=None):
        cands = [(float(r["pct_of_cublas"]), r) for r in rows(path) if r["family"] == "gemm" and r["variant"] != "cublas"
                 and (int(r["m"]), int(r["n"]), int(r["k"])) == (m, n, k) and (tile is None or r["tile"] == tile)]
        return max(cands, key=lambda pr: pr[0])
    p96, r96 = best(chip2, 1152, 1152, 8192, "128x96x64")
    p128, _ = best(chip2, 1152, 1152, 8192, "128x128x64")
    assert r96["variant"] == "streamk" and f"ran {p96:.1f}% (`streamk` 128x96) against {p128:.1f}% at 128x128" in TEXT
    pw, rw = best(chip2, 1152, 2048, 65536)
    assert (rw["variant"], rw["tile"], rw["splits_used"]) == ("splitk_reduce", "128x256x64", "7")
    assert f"best was {pw:.1f}% (`splitk_reduce` 128x256, 7 slices" in TEXT
    five = [float(r["pct_of_cublas"]) for r in rows(chip2) if r["variant"] == "splitk_reduce" and r["n"] == "2048"
            and r["tile"] == "128x256x64" and r["splits"] == "5"]
    assert f"{five[0]:.1f}% at 5)" in TEXT
    (cub,) = [r for r in rows(chip2) if r["variant"] == "cublas" and r["n"] == "2048"]
    assert f"spread from {float(cub['min_us']):.0f} to {float(cub['max_us']):.0f} us" in TEXT
    # the whole-96 squares: 128x96 best at 1152 only
    winners = {}
    for m in (768, 1152, 1536, 2304):
        for k in (2048, 4096, 8192):
            winners[(m, k)] = best(whole, m, m, k)[1]["tile"]
    assert [s for s, t in winners.items() if t == "128x96x64"] == [(1152, 2048), (1152, 4096), (1152, 8192)]
    p96s = [best(whole, 1152, 1152, k, "128x96x64")[0] for k in (2048, 4096, 8192)]
    p128s = [best(whole, 1152, 1152, k, "128x128x64")[0] for k in (2048, 4096, 8192)]
    assert f"{min(p96s):.1f}-{max(p96s):.1f}% against {min(p128s):.1f}-{max(p128s):.1f}% at 128x128" in TEXT


def test_the_tma_store_form_at_the_tile():
    path = os.path.join(PROOFS, "tile96_f5ffa93", "tma_store96.csv")
    assert {r["gpu_uuid"][:12] for r in rows(path)} == {"GPU-d270079d"}
    pct = {(r["variant"], int(r["k"])): float(r["pct_of_cublas"]) for r in rows(path)
           if r["family"] == "gemm" and r["variant"] != "cublas" and r["tile"] == "128x96x64"}
    for k, name in ((2048, "2k"), (8192, "8k"), (32768, "32k")):
        assert (f"{name} {pct[('ws_tma_wgmma_tma_store', k)]:.1f}% against "
                f"{'`ws_tma_wgmma`' + chr(39) + 's ' if k == 2048 else ''}{pct[('ws_tma_wgmma', k)]:.1f}%") in TEXT


def test_every_tile_above_1024():
    path = os.path.join(PROOFS, "tile96_f5ffa93", "tiles_above_1024.csv")
    assert {r["gpu_uuid"][:12] for r in rows(path)} == {"GPU-b44cda30"}
    best = {}
    for r in rows(path):
        if r["family"] == "gemm" and r["variant"] != "cublas":
            key, pct = (int(r["m"]), int(r["k"])), float(r["pct_of_cublas"])
            if pct > best.get(key, (0.0, ""))[0]:
                best[key] = (pct, r["tile"])
    assert len(best) == 6 and all(tile != "64x128x64" for _, tile in best.values())
    at1536 = [best[(1536, k)][0] for k in (4096, 8192)]
    assert f"stays at {min(at1536):.1f}-{max(at1536):.1f}% of cuBLAS at 4k-8k" in TEXT


def test_the_tile_the_sanitizers_and_the_plants_as_the_entry_says():
    tiles_h = open(os.path.join(ROOT, "kernels", "gemm", "gemm_tiles.h")).read()
    stages = int(re.search(r"#define SB_GEMM_SPLIT_STAGES_96 (\d+)", tiles_h).group(1))
    stage_kib = (128 + 96) * 64 * 2 // 1024
    assert f"{stages} stages of {stage_kib} KiB ({stages * stage_kib} KiB in flight" in TEXT
    assert f"slices ({2 * 96 // 2} accumulators a thread)" in TEXT
    old = best_by_shape(os.path.join(PROOFS, "offsweep_5273e2f", "gemm.csv"))
    assert f"Where 1152^2 x 8k lost ({old[(1152, 1152, 8192)]:.1f}% of cuBLAS" in TEXT
    (sms,) = {r["sm_count"] for r in rows(OFF)}
    assert f"81 tiles for {sms} SMs" in TEXT and (1152 // 128) ** 2 == 81
    assert f"({(1536 // 128) ** 2} tiles of 128x128, {(1536 // 128) ** 2 / int(sms):.2f} waves)" in TEXT
    san = [r for tool in ("memcheck", "racecheck", "synccheck")
           for r in rows(os.path.join(PROOFS, "round_f5ffa93", "san96", f"{tool}.csv")) if r["family"] == "gemm"]
    assert len({r["variant"] for r in san}) == 8 and "over the eight variants at 384^2 x 1k" in TEXT
    assert {(r["m"], r["k"], r["tile"]) for r in san} == {("384", "1024", "128x96x64")}
    assert {r["splits"] for r in san if r["splits"]} == {"auto", "4"} and "splits auto and 4" in TEXT
    with open(os.path.join(PROOFS, "round_f5ffa93", "broken96_leaseA.csv")) as f:
        planted = [r for r in csv.DictReader(f) if r["family"] == "gemm"]
    assert {(r["m"], r["k"]) for r in planted} == {("384", "8192")} and "build at 384^2 x 8k" in TEXT
