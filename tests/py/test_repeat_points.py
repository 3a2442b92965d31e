"""scripts/repeat_points.py (the re-placement probe): one worker asked every
point REPS rounds, each take a row; --summary's spreads within one file and
over all files. The worker is tests/py/fake_syncbench.py (no GPU)."""
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "repeat_points.py")
FAKE = os.path.join(ROOT, "tests", "py", "fake_syncbench.py")
P = ["gemm/splitk_serial/stages=6/m=512/k=32768/tile=128x128x64/splits=8",
     "gemm/cublas/m=512/k=32768"]


def fake(tmp_path, **env):
    path = tmp_path / "fake"
    lines = ["#!/bin/sh"] + [f"export FAKE_{k}='{v}'" for k, v in env.items()]
    lines.append(f'exec "{sys.executable}" "{FAKE}" "$@"')
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o755)
    return str(path)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def serve(tmp_path, out, takes, reps=3):
    binary = fake(tmp_path, POINTS=" ".join(P), TAKES=json.dumps(takes))
    return run("--binary", binary, "--out", str(out), "--reps", str(reps), "--", "--quick")


def test_every_point_is_taken_reps_times_in_one_process(tmp_path):
    out = tmp_path / "a.csv"
    takes = {P[0]: [{"median": 100, "min": 95}, {"median": 100, "min": 100}, {"median": 100, "min": 99}]}
    r = serve(tmp_path, out, takes)
    assert r.returncode == 0, r.stderr
    assert "2 points x 3 takes, 0 not ok" in r.stdout
    rows = list(csv.DictReader(open(out)))
    assert [row["variant"] for row in rows] == ["splitk_serial", "cublas"] * 3
    # the fake counts takes per process: the three rows are takes 1, 2, 3
    assert [row["min_us"] for row in rows if row["variant"] == "splitk_serial"] == \
        ["95.0000", "100.0000", "99.0000"]


def test_a_take_that_fails_is_exit_1(tmp_path):
    r = serve(tmp_path, tmp_path / "a.csv", {P[1]: [{"median": 50}, {"status": "error"}]}, reps=2)
    assert r.returncode == 1
    assert "1 not ok" in r.stdout


def test_a_server_that_dies_is_exit_1(tmp_path):
    r = serve(tmp_path, tmp_path / "a.csv", {P[0]: [{"median": 50}, {"status": "die"}]}, reps=2)
    assert r.returncode == 1
    assert "the server died at " + P[0] in r.stderr


def test_summary_tells_the_spread_within_a_process_from_the_spread_across(tmp_path):
    # within each process the fastest sample holds (0.5%), between them it moves 6%
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert serve(tmp_path, a, {P[0]: [{"median": 100, "min": 94}, {"median": 100, "min": 94.47}]}, 2).returncode == 0
    assert serve(tmp_path, b, {P[0]: [{"median": 100, "min": 99.64}, {"median": 100, "min": 99.64}]}, 2).returncode == 0
    r = run("--summary", str(a), str(b))
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if "variant=splitk_serial" in x)
    assert line.endswith("| 2,2 | 0.50% | 6.00%")


def test_usage_errors_are_exit_2():
    assert run("--reps", "2").returncode == 2
    assert run("--binary", "x", "--out", "y", "--reps", "0").returncode == 2
