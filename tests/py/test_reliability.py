"""Reliability at the command line, without a GPU (CI): bad input and bad
output paths exit 2 before any GPU work, --resume validates and repairs its
file first, and a run that finds no GPU leaves an existing CSV untouched.
The GPU side (watchdog, fault isolation, interrupt + resume on real
kernels) is proven by the command in docs/reliability.md; the supervisor's
logic is unit-tested without a GPU in tests/c/test_supervisor.c."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sbcli import BIN, run  # noqa: E402


def header(syncbench, tmp_path):
    r = run("--csv-header", cwd=tmp_path)
    assert r.returncode == 0
    return r.stdout


def one_line_error(r, mentions):
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("syncbench: ")
    assert mentions in lines[0], lines[0]


@pytest.mark.parametrize("args, mentions", [
    (["--devices", ""], "--devices"),
    (["--devices", "0,0"], "twice"),
    (["--devices", "x"], "'x'"),
    (["--devices", "0", "--device", "1"], "not both"),
    (["--devices", "all", "--no-fork"], "--no-fork"),
    (["--watchdog-ms", "-1"], "--watchdog-ms"),
    (["--watchdog-ms", "soon"], "--watchdog-ms"),
    (["--point-timeout", "-2"], "--point-timeout"),
    (["--resume", "a.csv", "--out", "b.csv"], "--resume"),
    (["--resume", "missing.csv"], "missing.csv"),
    (["--device", "1024"], "1024"),
    (["--iters", ""], "empty"),
    (["--n", "99999999999999999999"], "n:"),
], ids=["devices-empty", "devices-twice", "devices-word", "device-and-devices",
        "no-fork-all", "watchdog-negative", "watchdog-word", "timeout-negative",
        "resume-vs-out", "resume-missing", "device-too-big", "iters-empty", "n-overflow"])
def test_bad_input_exits_2(syncbench, tmp_path, args, mentions):
    r = run(*args, cwd=tmp_path)
    assert r.returncode == 2, (args, r.stderr)
    one_line_error(r, mentions)
    assert os.listdir(tmp_path) == []


def test_unwritable_out_exits_2_before_gpu_work(syncbench, tmp_path):
    # Without a GPU the run would exit 3; 2 proves the path is checked first.
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = run("--quick", "--out", str(blocker / "sub" / "x.csv"), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    one_line_error(r, "--out")
    r = run("--quick", "--out", str(tmp_path), cwd=tmp_path)  # a directory
    assert r.returncode == 2, r.stderr
    one_line_error(r, "cannot write")


def test_no_gpu_leaves_an_existing_csv_alone(syncbench, tmp_path):
    out = tmp_path / "old.csv"
    out.write_text("precious\n")
    r = run("--quick", "--out", str(out), cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    assert out.read_text() == "precious\n"
    fresh = tmp_path / "new.csv"
    r = run("--quick", "--out", str(fresh), cwd=tmp_path)
    assert r.returncode == 3
    assert not fresh.exists()  # created for the check, removed again


def test_resume_refuses_another_schema(syncbench, tmp_path):
    f = tmp_path / "other.csv"
    f.write_text("schema_version,family,variant\n1,scan,pingpong\n")
    r = run("--resume", str(f), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    one_line_error(r, "header")
    assert f.read_text().startswith("schema_version,family,variant\n")


def test_resume_refuses_a_malformed_middle_row(syncbench, tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text(header(syncbench, tmp_path) + "1,2,3\n" + "4,5,6\n")
    r = run("--resume", str(f), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    one_line_error(r, "line 2")


def test_resume_cuts_a_partial_last_row_before_the_gpu(syncbench, tmp_path):
    h = header(syncbench, tmp_path)
    f = tmp_path / "run.csv"
    f.write_text(h + '1,scan,pingpong,128,,,1,,16777216,,,,,,ok,"torn in the mid')
    r = run("--quick", "--resume", str(f), cwd=tmp_path)
    assert r.returncode == 3, r.stderr  # no GPU here, but the file is repaired
    assert f.read_text() == h


def test_sanitize_script_needs_compute_sanitizer(syncbench, tmp_path):
    r = subprocess.run([os.path.join(ROOT, "scripts", "sanitize.sh"), BIN],
                       capture_output=True, text=True, cwd=tmp_path, timeout=60,
                       env={**os.environ, "COMPUTE_SANITIZER": "/nonexistent"})
    assert r.returncode == 2
    assert "compute-sanitizer not found" in r.stderr


def test_split_gpus_gives_one_csv_per_gpu(tmp_path):
    import sys
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import split_gpus
    src = os.path.join(ROOT, "tests", "py", "fixtures", "h200_quick.csv")
    lines = open(src).read().splitlines(keepends=True)
    head, rows = lines[0], lines[1:]
    col = head.rstrip("\n").split(",").index("gpu_uuid")
    # A merged two-GPU file: the real rows, then the same rows as "GPU-b".
    other = []
    for line in rows:
        cells = next(__import__("csv").reader([line]))
        cells[col] = "GPU-b"
        other.append(",".join(f'"{c}"' if "," in c or '"' in c else c for c in cells) + "\n")
    merged = tmp_path / "all.csv"
    merged.write_text(head + "".join(r for pair in zip(rows, other) for r in pair))
    parts = split_gpus.split(str(merged))
    assert len(parts) == 2
    name, n = parts["GPU-b"]
    assert n == len(rows)
    uuid_a = [u for u in parts if u != "GPU-b"][0]
    assert open(parts[uuid_a][0]).read() == head + "".join(rows)  # byte for byte
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    assert split_gpus.main([str(bad)]) == 2
    header_only = tmp_path / "head.csv"
    header_only.write_text(head)
    assert split_gpus.main([str(header_only)]) == 2
    assert not list(tmp_path.glob("head.*.csv"))
    import lzma
    with lzma.open(tmp_path / "packed.csv.xz", "wb") as f:
        f.write(merged.read_bytes())
    parts = split_gpus.split(str(tmp_path / "packed.csv.xz"))
    assert open(parts[uuid_a][0]).read() == head + "".join(rows)
    assert os.path.basename(parts[uuid_a][0]) == f"packed.{uuid_a}.csv"
