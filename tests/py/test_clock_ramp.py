"""scripts/probes/clock_ramp.py: the first and last eighth of each point's
samples, in the order a dump (SB_PAIRS_FILE) took them."""
import csv
import io
import json
import lzma
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "probes", "clock_ramp.py")


def dump(path, points):
    with lzma.open(path, "wt") as f:
        for name, seconds, mhz in points:
            f.write(json.dumps({"point": name, "variant_s": seconds, "ceiling_s": [], "mhz": mhz}) + "\n")


def test_each_point_reads_its_first_and_last_eighth_in_the_order_taken(tmp_path):
    # 32 samples: the first 4 at 100 us and 1980 MHz, the last 4 at 110 us and 1600 MHz
    t = [100e-6] * 4 + [105e-6] * 24 + [110e-6] * 4
    m = [1980] * 4 + [1800] * 24 + [1600] * 4
    short = ([1e-6] * 8, [1980] * 8)  # too few samples to split in eighths: left out
    no_clock = ([1e-6] * 32, [None] * 32)  # a sample without its clock: left out
    p = tmp_path / "pairs_a.jsonl.xz"
    dump(p, [("gemm/ws_tma_wgmma/stages=4/m=4096/k=4096/tile=128x128x64", t, m),
             ("gemm/streamk/m=8192/k=8192/tile=128x128x64", *short),
             ("gemm/cublas/m=4096/k=4096", *no_clock)])
    r = subprocess.run([sys.executable, SCRIPT, str(p)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert len(rows) == 1
    row = rows[0]
    assert (row["variant"], row["m"], row["k"], row["tile"], row["stages"]) == ("ws_tma_wgmma", "4096", "4096",
                                                                               "128x128x64", "4")
    assert (row["mhz_first"], row["mhz_last"], row["us_first"], row["us_last"]) == ("1980", "1600", "100.00", "110.00")
    assert row["slowdown_pct"] == "10.00" and row["samples"] == "32" and row["status"] == "ok"
