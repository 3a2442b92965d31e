"""scripts/gpu_round.sh with a fake binary that records its arguments: step
f, the off-sweep run: one run of a sweep a line (--then) into one CSV, every
K-heavy square, M != N shape and shape of up to two waves of tiles, each tile
at the stage and warp counts the family runs it at (so no row is skipped by
the stage rule), and a failing run fails the step; step k, the odd shapes;
step e, the explain run; and step g, the gate's A/A by A/B of the bundle's
binary."""
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
    for var in ("AA_FILTER", "EXPLAIN_FILTER", "EXPLAIN_LATEST", "OFFSWEEP_RESUME"):
        env.pop(var, None)  # the steps' own settings unless the test gives one
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


def sweeps_of(call):
    """The sweeps of one syncbench call: its run options, then each sweep's words."""
    parts = call.split(" --then ")
    return parts[0], parts


def test_step_f_runs_each_shape_and_tile_as_a_sweep_of_one_run(tmp_path):
    r, calls = step_f(tmp_path)
    assert r.returncode == 0 and "gpu_round: offsweep: exit 0" in r.stdout
    assert len(calls) == 1  # one process: one context, cuBLAS's rows once a shape
    out = str(tmp_path / "out" / "offsweep" / "gemm.csv")
    assert calls[0].startswith(f"--out {out} --filter ")
    _, sweeps = sweeps_of(calls[0])
    assert len(sweeps) == 13 and all(s.endswith("--splits auto") for s in sweeps)
    squares = [c for c in sweeps if "--m 128,256,384,640,768,1152 --k 8192,16384,32768,65536,131072" in c]
    mn = [c for c in sweeps if "--m 256,1152 --n 768,2048 --k 16384,65536" in c]
    # the 128x96 tile where 96 divides M and N: the squares 384-1152, n = 768
    squares96 = [c for c in sweeps if "--m 384,768,1152 --k 8192,16384,32768,65536,131072" in c]
    mn96 = [c for c in sweeps if "--m 256,1152 --n 768 --k 16384,65536" in c]
    waves = [c for c in sweeps if "--m 1152,1536,1920 --k 4096,8192,16384" in c]
    assert len(squares) == 2 and len(mn) == 5 and len(squares96) == 1 and len(mn96) == 1 and len(waves) == 4
    # and at the two-wave squares, whose M = N (1152, 1536, 1920) 96 divides
    waves96 = [c for c in waves if "--tile 128x96x64" in c]
    assert len(waves96) == 1 and all("--tile 128x96x64 --stages 7 --warps 4" in c for c in squares96 + mn96 + waves96)
    for c in sweeps:  # the combining variants at 4 consumer warps (8 on the 128x256 tile), the data-parallel ones at 8
        assert c.count("--filter ") == 1
        assert ("--warps 4" in c) == ("splitk|streamk" in c and "128x256" not in c)
        assert ("--tile 64x128x64 --stages 8" in c) or ("--tile 128x128x64" in c and "--stages" in c) \
            or ("--tile 128x96x64 --stages 7" in c) \
            or ("--tile 128x256x64 --stages 4 --warps 8" in c
                and ("multicast" not in c or "--cluster-shape 2x1" in c))


def test_a_failing_run_fails_the_step(tmp_path):
    r, calls = step_f(tmp_path, exit_code=1)
    assert len(calls) == 1 and r.returncode == 1 and "gpu_round: offsweep: exit 1" in r.stdout


def test_step_f_continues_a_cut_run_only_when_asked(tmp_path):
    (tmp_path / "out" / "offsweep").mkdir(parents=True)
    csv = tmp_path / "out" / "offsweep" / "gemm.csv"
    csv.write_text("rows\n")
    r, calls, _ = run_steps(tmp_path, "f", "syncbench", 0, OFFSWEEP_RESUME="1")
    assert r.returncode == 0 and calls[0].startswith(f"--resume {csv} --filter ")


def test_step_k_runs_every_odd_shape_in_one_validating_run(tmp_path):
    r, calls, _ = run_steps(tmp_path, "k", "syncbench", 0)
    assert r.returncode == 0 and "gpu_round: gemm-odd: exit 0" in r.stdout and len(calls) == 1
    run_options, sweeps = sweeps_of(calls[0])
    assert run_options.startswith(f"--unpaired --min-time 0.001 --out {tmp_path}/out/gemm-odd.csv --filter ^gemm/ ")
    shapes = ["--m 1000 --k 1000", "--m 1 --n 4096 --k 4096", "--m 4095 --n 24 --k 1032",
              "--m 1000 --k 8192", "--m 1000 --k 8200"]
    assert [s.split("--filter ^gemm/ ")[1].split(" --tile")[0] for s in sweeps] == shapes
    assert all(s.endswith("--tile 64x128x64,128x128x64,128x256x64,128x96x64 --splits auto,2,3,5,7") for s in sweeps)


def test_step_e_explains_with_the_rounds_sweep_or_another(tmp_path):
    r, calls, bundle = run_steps(tmp_path, "e", "python3", 0, path_first=True)
    assert r.returncode == 0 and "gpu_round: explain: exit 0" in r.stdout
    assert calls == [f"scripts/explain.py --binary {bundle}/syncbench --outdir {tmp_path}/out/explain "
                     f"--latest {tmp_path}/out/latest.csv"]
    other = tmp_path / "other"
    other.mkdir()
    r, calls, _ = run_steps(other, "e", "python3", 4, path_first=True, EXPLAIN_LATEST="x.csv",
                            EXPLAIN_FILTER="^gemm/")
    assert r.returncode == 4 and "gpu_round: explain: exit 4" in r.stdout
    assert calls[0].endswith("--latest x.csv --filter ^gemm/")


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
