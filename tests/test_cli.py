"""build/syncbench's command line, on a host without a usable GPU (CI and
dev machines): what needs no GPU works, a run fails with exit 3, and bad
input fails with exit 2 and one line on stderr before any GPU is touched."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import sbcsv  # noqa: E402

from sbcli import run  # noqa: E402


def list_sections(text):
    """--list output -> {family: [variant, ...]}."""
    fams, current = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            current = line.split(":", 1)[0]
            fams[current] = []
        elif line.strip() and not line.strip().startswith("axis "):
            fams[current].append(line.split()[0])
    return fams


def test_list(syncbench, tmp_path):
    r = run("--list", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    fams = list_sections(r.stdout)
    assert "reference" in fams and "scan" in fams
    assert {"two_barrier", "pingpong", "mbarrier", "warp_shuffle"} <= set(fams["scan"])


def test_help(syncbench, tmp_path):
    r = run("--help", cwd=tmp_path)
    assert r.returncode == 0
    assert r.stdout.startswith("usage: syncbench")
    assert "--quick" in r.stdout and "exit status" in r.stdout


def test_csv_header_has_every_required_column(syncbench, tmp_path):
    r = run("--csv-header", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 1
    columns = lines[0].split(",")
    assert len(set(columns)) == len(columns)
    assert [c for c in sbcsv.REQUIRED if c not in columns] == []
    # The header alone is a valid (empty) result file for the reader.
    path = tmp_path / "header.csv"
    path.write_text(r.stdout)
    assert sbcsv.read(str(path)) == []


def test_run_without_gpu_exits_3(syncbench, tmp_path):
    r = run("--quick", "--out", str(tmp_path / "tmp" / "x.csv"), cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("syncbench: no usable CUDA device")


@pytest.mark.parametrize("args, mentions", [
    (["--no-such-option"], "--no-such-option"),
    (["--block", "0"], "0"),
    (["--block", "abc"], "abc"),
    (["--block", ""], "empty"),
    (["--iters", "1,1"], "iters"),
    (["--filter", "^scan/", "--stages", "2"], "stages"),
    (["--filter", "nomatch"], "filter"),
    (["--filter", "("], "("),
    (["--benchmark_out=x"], "benchmark_out"),
    (["--device", "-1"], "-1"),
], ids=["unknown-option", "block-0", "block-abc", "block-empty", "iters-duplicate",
        "stages-unswept", "filter-nomatch", "filter-bad-regex", "benchmark_out",
        "device-negative"])
def test_bad_input_exits_2_with_one_line(syncbench, tmp_path, args, mentions):
    r = run(*args, cwd=tmp_path)
    assert r.returncode == 2, (args, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("syncbench: ")
    assert mentions in lines[0]
    assert r.stdout == ""
    assert os.listdir(tmp_path) == []  # failed before writing any CSV
