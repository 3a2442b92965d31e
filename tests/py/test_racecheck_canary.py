"""build/racecheck_canary (make sanitize's racecheck calibration): its
argument handling, and a clean CUDA error, not a crash, without a GPU."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CANARY = os.path.join(ROOT, os.environ.get("BUILD", "build"), "racecheck_canary")


def run(*args):
    return subprocess.run([CANARY, *args], capture_output=True, text=True, timeout=60)


def test_usage_and_unknown_name_exit_2():
    r = run()
    assert r.returncode == 2 and "usage: racecheck_canary NAME" in r.stderr
    r = run("nope")
    assert r.returncode == 2 and "unknown canary 'nope'" in r.stderr


def test_every_canary_runs_or_reports_the_cuda_error():
    for name in ("racy", "syncthreads", "mbarrier", "atomic_flag", "completion_barrier"):
        r = run(name)
        if r.returncode == 0:  # a GPU: the hand-off must have been right
            assert f"racecheck_canary {name}: 0 wrong reads" in r.stdout
        else:  # no GPU: one line naming the canary and the CUDA error
            assert r.returncode == 3, r.stderr
            assert r.stderr.startswith(f"racecheck_canary {name}: ")
