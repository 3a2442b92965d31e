"""scripts/bench.sh's exit statuses (what a CI workflow branches on), with a
stand-in for build/syncbench: a shell script that answers
--print-gpu-slug, writes a committed CSV to --out and exits as told; and a
stand-in interpreter whose plot.py fails or succeeds as told."""
import csv
import os
import stat
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "scripts", "bench.sh")
FIXTURE = os.path.join(ROOT, "tests", "py", "fixtures", "h200_scan_default.csv")

FAKE_BIN = """#!/usr/bin/env bash
[ "$1" = --benchmark_list_tests ] && exit "${FAKE_LIST_RC:-0}"  # the command line's check
if [ "$1" = --print-gpu-slug ]; then
  [ "${FAKE_SLUG_RC:-0}" = 0 ] || { echo "syncbench: no usable CUDA device" >&2; exit "$FAKE_SLUG_RC"; }
  echo fake-gpu; exit 0
fi
while [ $# -gt 0 ]; do
  if [ "$1" = --out ]; then mkdir -p "$(dirname "$2")" && cp "$FAKE_CSV" "$2"; fi
  shift
done
exit "${FAKE_RC:-0}"
"""

# The real interpreter, except that scripts/plot.py exits FAKE_PLOT_RC.
FAKE_PY = f"""#!/usr/bin/env bash
case "$1" in */plot.py) exit "${{FAKE_PLOT_RC:-0}}";; esac
exec {sys.executable} "$@"
"""


def executable(path, text):
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def all_unsupported(tmp_path):
    """The fixture as a GPU that runs none of the kernels would write it."""
    with open(FIXTURE, newline="") as f:
        reader = csv.DictReader(f)
        header, rows = reader.fieldnames, list(reader)
    for r in rows:
        if r["family"] != "reference":
            r.update(status="unsupported", detail="needs sm_80",
                     **{c: "" for c in ("median_us", "min_us", "max_us", "q1_us", "q3_us",
                                         "cv_pct", "gbps", "pct_of_copy")})
    path = tmp_path / "unsupported.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return str(path)


def bench(tmp_path, csv_path=FIXTURE, args=(), **env):
    fake = executable(tmp_path / "syncbench", FAKE_BIN)
    py = executable(tmp_path / "python", FAKE_PY)
    e = dict(os.environ, PY=py, FAKE_CSV=csv_path, **{k: str(v) for k, v in env.items()})
    return subprocess.run(["bash", BENCH, fake, "0", "latest", *args], cwd=tmp_path, env=e,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("sweep_rc", [0, 1, 2, 130])
def test_the_sweep_status_passes_through(tmp_path, sweep_rc):
    p = bench(tmp_path, FAKE_RC=sweep_rc)
    assert p.returncode == sweep_rc, p.stderr
    assert (tmp_path / "results" / "fake-gpu" / "latest.csv").is_file()


def test_no_device_is_3_and_writes_nothing(tmp_path):
    p = bench(tmp_path, FAKE_SLUG_RC=3)
    assert p.returncode == 3 and "no usable CUDA device" in p.stderr
    assert not (tmp_path / "results").exists()


def test_a_gpu_that_runs_no_kernel_is_3(tmp_path):
    p = bench(tmp_path, csv_path=all_unsupported(tmp_path))
    assert p.returncode == 3
    assert "no point could run on this GPU" in p.stderr


def test_plot_failure_is_4_after_a_clean_sweep_only(tmp_path):
    p = bench(tmp_path, FAKE_PLOT_RC=1)
    assert p.returncode == 4 and "plotting" in p.stderr
    p = bench(tmp_path, FAKE_RC=1, FAKE_PLOT_RC=1)
    assert p.returncode == 1  # the sweep's own status wins


def test_bad_usage_is_2(tmp_path):
    p = subprocess.run(["bash", BENCH], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 2 and "usage:" in p.stderr
    p = subprocess.run(["bash", BENCH, str(tmp_path / "nope"), "0", "latest"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 2 and "no such executable" in p.stderr


def test_documented_statuses_match_the_binary():
    """bench.sh's header and the binary's exit codes (harness/cli.h) agree."""
    with open(BENCH) as f:
        doc = f.read()
    with open(os.path.join(ROOT, "harness", "cli.h")) as f:
        cli = f.read()
    for name, code in (("SB_EXIT_OK", 0), ("SB_EXIT_FAILED", 1), ("SB_EXIT_USAGE", 2),
                       ("SB_EXIT_NO_DEVICE", 3), ("SB_EXIT_INTERRUPTED", 130)):
        assert f"{name} = {code}" in cli, name
        assert f"#   {code:<4} " in doc or f"#   {code} " in doc, code
    assert "#   4    " in doc


def test_a_bad_sweep_is_2_before_any_gpu_is_asked_for(tmp_path):
    """The binary's own check of the command line runs first: bad usage is 2
    on a machine without a GPU too (it was 3, from the GPU's slug)."""
    p = bench(tmp_path, args=["--block", "0"], FAKE_LIST_RC=2, FAKE_SLUG_RC=3)
    assert p.returncode == 2
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("arg", ["--device", "--out=x.csv", "--devices", "--resume"])
def test_options_that_choose_the_gpu_or_the_file_are_refused(tmp_path, arg):
    p = bench(tmp_path, args=[arg, "1"] if "=" not in arg else [arg])
    assert p.returncode == 2 and p.stderr.startswith(f"bench.sh: {arg.split('=')[0]}: "), p.stderr
    assert not (tmp_path / "results").exists()
