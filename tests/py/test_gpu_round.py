"""scripts/gpu_round.sh step f, the off-sweep run, with a fake binary that
records its arguments: one CSV (--out, then --resume), every K-heavy square,
M != N shape and shape of up to two waves of tiles, each tile at the stage and warp counts the family runs it
at (so no row is skipped by the stage rule), and a failing run fails the step;
and step g, the gate's A/A by A/B of the bundle's binary."""
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_steps(tmp_path, steps, tool, exit_code, path_first=False, **extra_env):
    """gpu_round.sh STEPS=steps with a fake `tool` (in the bundle, or first on
    PATH) that records its arguments and exits exit_code: (the run, its
    calls, the bundle)."""
    bundle, bin_dir = tmp_path / "bundle", tmp_path / "bin"
    bundle.mkdir()
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    fake = (bin_dir if path_first else bundle) / tool
    fake.write_text(f'#!/bin/sh\necho "$@" >> "{calls}"\nexit {exit_code}\n')
    fake.chmod(0o755)
    env = dict(os.environ, STEPS=steps)
    env.pop("AA_FILTER", None)  # the step's own filter unless the test gives one
    env.update(extra_env)
    if path_first:
        env["PATH"] = f"{bin_dir}:{os.environ['PATH']}"
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "gpu_round.sh"), str(bundle),
                        str(tmp_path / "out")], capture_output=True, text=True, cwd=ROOT,
                       env=env, timeout=60)
    return r, calls.read_text().splitlines(), bundle


def step_f(tmp_path, exit_code=0):
    r, calls, _ = run_steps(tmp_path, "f", "syncbench", exit_code)
    return r, calls


def test_step_f_runs_each_shape_and_tile_into_one_csv(tmp_path):
    r, calls = step_f(tmp_path)
    assert r.returncode == 0 and "gpu_round: offsweep: exit 0" in r.stdout
    out = str(tmp_path / "out" / "offsweep" / "gemm.csv")
    assert calls[0].endswith(f"--out {out}") and all(c.endswith(f"--resume {out}") for c in calls[1:])
    squares = [c for c in calls if "--m 128,256,384,640,768,1152 --k 8192,16384,32768,65536,131072" in c]
    mn = [c for c in calls if "--m 256,1152 --n 768,2048 --k 16384,65536" in c]
    # the 128x96 tile where 96 divides M and N: the squares 384-1152, n = 768
    squares96 = [c for c in calls if "--m 384,768,1152 --k 8192,16384,32768,65536,131072" in c]
    mn96 = [c for c in calls if "--m 256,1152 --n 768 --k 16384,65536" in c]
    waves = [c for c in calls if "--m 1152,1536,1920 --k 4096,8192,16384" in c]
    assert len(squares) == 2 and len(mn) == 5 and len(squares96) == 1 and len(mn96) == 1 and len(waves) == 4
    assert len(calls) == 13
    # and at the two-wave squares, whose M = N (1152, 1536, 1920) 96 divides
    waves96 = [c for c in waves if "--tile 128x96x64" in c]
    assert len(waves96) == 1 and all("--tile 128x96x64 --stages 7 --warps 4" in c for c in squares96 + mn96 + waves96)
    for c in calls:  # the combining variants at 4 consumer warps (8 on the 128x256 tile), the data-parallel ones at 8
        assert ("--warps 4" in c) == ("splitk|streamk" in c and "128x256" not in c)
        assert ("--tile 64x128x64 --stages 8" in c) or ("--tile 128x128x64" in c and "--stages" in c) \
            or ("--tile 128x96x64 --stages 7" in c) \
            or ("--tile 128x256x64 --stages 4 --warps 8" in c
                and ("multicast" not in c or "--cluster-shape 2x1" in c))


def test_a_failing_run_fails_the_step(tmp_path):
    r, calls = step_f(tmp_path, exit_code=1)
    assert len(calls) == 13 and r.returncode == 1 and "gpu_round: offsweep: exit 1" in r.stdout


def step_g(tmp_path, exit_code, **env):
    """Step g with a fake python3 first on PATH."""
    return run_steps(tmp_path, "g", "python3", exit_code, path_first=True, **env)


def test_step_g_is_an_aa_by_ab_of_the_carried_binary_over_the_proof_filter(tmp_path):
    r, calls, bundle = step_g(tmp_path, 0)
    assert r.returncode == 0 and "gpu_round: aa: exit 0" in r.stdout
    assert len(calls) == 1
    assert calls[0] == (f"scripts/ab.py --base A --new A2 --base-bin {bundle}/syncbench "
                        f"--new-bin {bundle}/syncbench --dir {tmp_path}/out/aa -- "
                        f"--filter ^(reference|gemm|barrier|devscan)/")


def test_step_g_takes_another_filter(tmp_path):
    r, calls, _ = step_g(tmp_path, 0, AA_FILTER="^(reference|gemm)/")
    assert r.returncode == 0 and calls[0].endswith("-- --filter ^(reference|gemm)/")


def test_step_g_fails_when_the_aa_fails_the_gate(tmp_path):
    r, calls, _ = step_g(tmp_path, 1)
    assert r.returncode == 1 and "gpu_round: aa: exit 1" in r.stdout
