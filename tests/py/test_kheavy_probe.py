"""scripts/kheavy_probe.sh with fake syncbench and ncu that record their
arguments: step t runs the split counts into one CSV (--out, then --resume),
each tile at the stage and warp counts the family runs it at; step n runs
ncu over syncbench's profiled warm-up launch; a failing run fails the
script (its exit status), and STEPS picks the steps."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def probe(tmp_path, steps, exit_code=0):
    carry, bin_dir = tmp_path / "carry", tmp_path / "bin"
    carry.mkdir()
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    for fake in (carry / "syncbench", bin_dir / "ncu", bin_dir / "nvidia-smi"):
        code = exit_code if fake.name != "nvidia-smi" else 0
        fake.write_text(f'#!/bin/sh\necho "{fake.name} $@" >> "{calls}"\nexit {code}\n')
        fake.chmod(0o755)
    env = dict(os.environ, STEPS=steps, PATH=f"{bin_dir}:{os.environ['PATH']}")
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "kheavy_probe.sh"), str(carry), str(tmp_path / "out")],
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    got = [c for c in calls.read_text().splitlines() if not c.startswith("nvidia-smi")]
    return r, got


def test_step_t_runs_the_split_counts_into_one_csv(tmp_path):
    r, calls = probe(tmp_path, "t")
    assert r.returncode == 0 and "kheavy_probe: timed: exit 0" in r.stdout
    out = str(tmp_path / "out" / "splits.csv")
    assert all(c.startswith("syncbench ") for c in calls) and len(calls) == 4
    assert calls[0].endswith(f"--out {out}") and all(c.endswith(f"--resume {out}") for c in calls[1:])
    for c in calls:  # 64x128 at 8 stages, 128x128 at 4 and 6, always 4 consumer warps
        assert "--warps 4" in c
        assert ("--tile 64x128x64" in c and "--stages 8" in c) or ("--tile 128x128x64 --stages 4,6" in c)


def test_step_n_profiles_the_warm_launch_only(tmp_path):
    r, calls = probe(tmp_path, "n")
    assert r.returncode == 0 and "kheavy_probe: ncu: exit 0" in r.stdout and len(calls) == 2
    for c in calls:
        assert c.startswith("ncu --profile-from-start off")
        assert "--no-fork --unpaired --no-reference" in c and "--profile-warmup" in c


def test_a_failing_run_fails_the_script(tmp_path):
    r, calls = probe(tmp_path, "tn", exit_code=3)
    assert len(calls) == 6 and r.returncode == 3
    assert "kheavy_probe: timed: exit 3" in r.stdout and "kheavy_probe: ncu: exit 3" in r.stdout
