"""scripts/explain.py without a GPU: ncu's CSV, the marked launch groups, the
weighting of several kernels, stalls.csv, the picture, the README lines,
and its exit statuses with a missing ncu or a counter permission error
(fake ncu and syncbench scripts under tmp_path)."""
import os
import shutil
import stat
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import explain  # noqa: E402
import sbplot  # noqa: E402

FIX = os.path.join(ROOT, "tests", "py", "fixtures", "explain")
SCAN = os.path.join(FIX, "scan_two_barrier.csv")
SPLITK = os.path.join(FIX, "gemm_splitk_two_kernels.csv")
MARKED = os.path.join(FIX, "scan_marked_two_points.csv")
SCRIPT = os.path.join(ROOT, "scripts", "explain.py")
NAMES = [
    "scan/two_barrier/block_threads=256/iters=1/n=33554432",
    "scan/warp_shuffle/block_threads=256/iters=1/n=33554432",
    "gemm/splitk_parallel/stages=6/buffer_bytes=32768/n=512/consumer_warps=4/m=512/k=32768/tile=128x128x64/splits=auto",
]


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_parse_skips_prof_lines_and_units_row():
    launches = explain.parse_ncu_csv(read(SCAN))
    assert [x["id"] for x in launches] == list(range(7))
    assert launches[1][explain.DURATION] == 125500.0      # "125,500"
    assert launches[1][explain.DRAM_TP] is None           # "n/a"
    assert launches[0]["kernel"] == "sb_clock_kernel"


# The profiled launch of each recording made before --profile-warmup (a
# window of launches: validation, warm-ups, timed): its IDs, read off the
# recording (the last warm-up, sb_clock_kernel aside).
WARMUP_IDS = {SCAN: [3], SPLITK: [4, 5]}


def group(path, launches=None):
    launches = launches or explain.parse_ncu_csv(read(path))
    ids = WARMUP_IDS[path]
    return [x for x in launches if x["id"] in ids]


def test_marked_groups_are_the_kernels_after_each_marker():
    launches = explain.parse_ncu_csv(read(MARKED))
    groups = explain.marked_groups(launches)
    # marker (grid 1), scan, clock witness, marker (grid 2), scan, marker (grid 8) alone
    assert sorted(groups) == [0, 1]
    assert [k["id"] for k in groups[0]] == [1] and [k["id"] for k in groups[1]] == [4]
    assert all("scan_kernel" in k["kernel"] for g in groups.values() for k in g)


def test_a_marker_without_kernels_and_kernels_before_any_marker_count_for_nothing():
    launches = [{"id": 0, "kernel": "void gemm_kernel<A>()", "grid": "(8, 1, 1)"},
                {"id": 1, "kernel": "sb_profile_mark_kernel()", "grid": "(3, 1, 1)"},
                {"id": 2, "kernel": "sb_profile_mark_kernel()", "grid": "(5, 1, 1)"},
                {"id": 3, "kernel": "void gemm_kernel<A>()", "grid": "(8, 1, 1)"},
                {"id": 4, "kernel": "void reduce_kernel<A>()", "grid": "(2, 1, 1)"}]
    groups = explain.marked_groups(launches)
    assert list(groups) == [4] and [k["id"] for k in groups[4]] == [3, 4]
    assert explain.marked_groups(launches[:1]) == {}


def test_the_batch_filter_names_exactly_its_points():
    import re
    pts = [explain.parse_name(n) for n in NAMES]
    rx = re.compile(explain.batch_filter(pts))
    assert all(rx.search(n) for n in NAMES)
    assert not rx.search(NAMES[0] + "0") and not rx.search("x" + NAMES[1])
    assert not rx.search(NAMES[0].replace("=256", "=2560"))


def test_batches_one_per_family_and_replay_mode_in_order():
    pts = [explain.parse_name(n) for n in NAMES]
    runs = explain.batches(pts)
    assert [[p["name"] for p in b] for b in runs] == [NAMES[:2], NAMES[2:]]
    assert explain.replay_mode(runs[1][0]) == "kernel"  # the default, for stateful too
    explain.STATEFUL_REPLAY["mode"] = "application"
    try:
        assert explain.replay_mode(runs[1][0]) == "application"
        assert explain.replay_mode(runs[0][0]) == "kernel"
    finally:
        explain.STATEFUL_REPLAY["mode"] = "kernel"


def test_two_kernels_weighted_by_duration():
    row = explain.combine(group(SPLITK), "gemm")
    # main: 0.9 of the time, gmma 2 / long_scoreboard 1 / selected 1 (of 4);
    # reduce: 0.1, long_scoreboard 8 / membar 1 / selected 1 (of 10)
    assert row["share_gmma"] == pytest.approx(0.9 * 0.5)
    assert row["share_long_scoreboard"] == pytest.approx(0.9 * 0.25 + 0.1 * 0.8)
    assert row["share_membar"] == pytest.approx(0.1 * 0.1)
    assert sum(row[f"share_{r}"] for r in explain.REASONS) == pytest.approx(1.0)
    assert row["kernels"] == 2
    assert row["duration_us"] == pytest.approx(1000.0)
    assert row["tensor_pipe_pct"] == pytest.approx(0.9 * 88.1)
    assert row["dram_throughput_pct"] == pytest.approx(0.9 * 12.3 + 0.1 * 70.0)


def stalls_rows():
    rows = []
    for name, fix in ((NAMES[0], SCAN), (NAMES[1], SCAN), (NAMES[2], SPLITK)):
        p = explain.parse_name(name)
        row = {c: p.get(c, "") for c in explain.key_columns()}
        row.update(explain.combine(group(fix), p["family"]), ncu_version="2025.3.0.0", gpu_name="NVIDIA H100 80GB HBM3")
        rows.append(row)
    rows[1]["share_barrier"], rows[1]["share_selected"] = 0.1, rows[1]["share_selected"] + (
        rows[1]["share_barrier"] - 0.1)
    return rows


def test_csv_one_schema_shares_in_unit_interval(tmp_path):
    path = str(tmp_path / "stalls.csv")
    explain.write_csv(path, stalls_rows())
    lines = read(path).splitlines()
    assert lines[0].split(",") == explain.columns() and not lines[0].startswith("#")
    rows = explain.read_stalls(path)
    assert len(rows) == 3
    for r in rows:
        shares = [r[f"share_{x}"] for x in explain.REASONS]
        assert all(0.0 <= s <= 1.0 for s in shares)
        assert sum(shares) == pytest.approx(1.0, abs=1e-4)
    assert rows[0]["tensor_pipe_pct"] is None and rows[2]["tensor_pipe_pct"] is not None
    assert rows[2]["m"] == 512 and rows[2]["splits"] == "auto"


def test_plot_one_bar_per_variant(tmp_path):
    path = str(tmp_path / "stalls.csv")
    explain.write_csv(path, stalls_rows())
    written = explain.plot(path, None, str(tmp_path / "plots"))
    names = sorted(os.path.basename(p) for p in written)
    assert names == ["gemm_stalls.png", "scan_stalls.png"]
    scan = sbplot.drawn(str(tmp_path / "plots" / "scan_stalls.png"))
    bars = explain.BARS[str(tmp_path / "plots" / "scan_stalls.png")]
    assert bars["labels"] == ["two_barrier", "warp_shuffle"]
    assert bars["segments"] % 2 == 0 and bars["segments"] >= 2 * 3  # one stack per variant
    assert "barrier" in scan["legend"] and "selected" in scan["legend"]


def test_readme_lines_name_the_dominant_stall(tmp_path):
    path = str(tmp_path / "stalls.csv")
    explain.write_csv(path, stalls_rows())
    lines = explain.readme_lines(explain.read_stalls(path))
    assert lines == ["why (`scan`): `two_barrier`: 60% of warp cycles at barriers"]


def test_readme_lines_absent_without_stalls_csv(tmp_path):
    import answers
    assert answers.why_lines([answers.Run(str(tmp_path / "latest.csv"), [], "H100", "c", "t")]) == []
    r = subprocess.run([sys.executable, SCRIPT, "--readme-lines", str(tmp_path / "stalls.csv")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr


@pytest.mark.parametrize("case, words", [
    ("a sweep's CSV", "missing column(s) share_barrier"),
    ("cut short", "fields, the header has"),
    ("a directory", "cannot read"),
    ("header only", "no rows after the header"),
])
@pytest.mark.parametrize("verb", ["--readme-lines", "--plot"])
def test_a_file_that_is_no_stalls_csv_is_refused_with_one_line(tmp_path, case, words, verb):
    path = tmp_path / "stalls.csv"
    if case == "a sweep's CSV":
        shutil.copy(os.path.join(ROOT, "results", "h200", "latest.csv"), path)
    elif case == "a directory":
        path.mkdir()
    else:
        explain.write_csv(str(path), stalls_rows())
        text = path.read_text()
        path.write_text(text.splitlines()[0] + "\n" if case == "header only" else text[:len(text) * 2 // 3])
    r = subprocess.run([sys.executable, SCRIPT, verb, str(path), "--outdir", str(tmp_path / "plots")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, (r.stdout, r.stderr)
    assert words in r.stderr, r.stderr
    assert not (tmp_path / "plots").exists()


def fake_bin(tmp_path, ncu=True, perm_at=None):
    """A PATH with a fake syncbench (and a fake ncu, unless ncu=False)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    names = "\\n".join(NAMES)
    (bindir / "syncbench").write_text(
        f"#!{sys.executable}\nimport sys\n"
        f"if '--benchmark_list_tests' in sys.argv: print('{names}')\n"
        "elif '--print-gpu-slug' in sys.argv: print('h100-80gb-hbm3')\n"
        "elif '--version' in sys.argv: print('syncbench 0.6.0\\ncommit abc123\\ncuda runtime 13.0')\n")
    if ncu:
        (bindir / "ncu").write_text(
            f"#!{sys.executable}\nimport os, sys\n"
            "count = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'calls')\n"
            "if '--version' in sys.argv: print('NVIDIA (R) Nsight Compute Command Line Profiler\\n"
            "Version 2025.3.0.0 (build 1)'); sys.exit(0)\n"
            f"if '--import' in sys.argv: sys.stdout.write(open({MARKED!r}).read()); sys.exit(0)\n"
            "n = int(open(count).read()) if os.path.exists(count) else 0\n"
            "open(count, 'w').write(str(n + 1))\n"
            f"if {perm_at!r} is not None and n >= {perm_at!r}:\n"
            "    print('==ERROR== ERR_NVGPUCTRPERM - The user does not have permission'); sys.exit(1)\n")
    for f in bindir.iterdir():
        f.chmod(f.stat().st_mode | stat.S_IEXEC)
    return bindir


def run_script(tmp_path, bindir, *extra):
    env = dict(os.environ, PATH=str(bindir))
    return subprocess.run([sys.executable, SCRIPT, "--binary", str(bindir / "syncbench"),
                           "--outdir", str(tmp_path / "out"), "--filter", "^scan/", *extra],
                          capture_output=True, text=True, env=env)


def test_ncu_missing_one_line_exit_3(tmp_path):
    r = run_script(tmp_path, fake_bin(tmp_path, ncu=False))
    assert r.returncode == explain.EXIT_NO_NCU
    assert r.stdout.strip().count("\n") == 0 and "ncu not found" in r.stdout
    assert not (tmp_path / "out").exists()


def test_counter_permission_exit_4_rows_kept(tmp_path):
    """The second ncu run (gemm's batch) is refused the counters: one line,
    exit 4, the first run's rows (scan's) kept."""
    r = run_script(tmp_path, fake_bin(tmp_path, perm_at=1), "--filter", "^(scan|gemm)/")
    assert r.returncode == explain.EXIT_PERM, r.stdout + r.stderr
    assert sum(explain.PERM_ERROR in ln for ln in r.stdout.splitlines()) == 1
    rows = explain.read_stalls(str(tmp_path / "out" / "stalls.csv"))
    assert [x["variant"] for x in rows] == ["two_barrier", "warp_shuffle"]
    assert rows[0]["commit"] == "abc123" and rows[0]["ncu_version"] == "2025.3.0.0"


def test_profiles_and_plots_with_fake_ncu(tmp_path):
    r = run_script(tmp_path, fake_bin(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    rows = explain.read_stalls(str(tmp_path / "out" / "stalls.csv"))
    assert [x["variant"] for x in rows] == ["two_barrier", "warp_shuffle"]
    assert r.stdout.count("--profile-warmup") == 0 and "1 ncu runs" in r.stdout
    assert (tmp_path / "out" / "plots" / "scan_stalls.png").exists()


def test_dry_run_prints_commands_application_replay_for_stateful(tmp_path):
    bindir = fake_bin(tmp_path, ncu=False)
    env = dict(os.environ, PATH=str(bindir))
    r = subprocess.run([sys.executable, SCRIPT, "--binary", str(bindir / "syncbench"),
                        "--outdir", str(tmp_path / "out"), "--filter", ".", "--dry-run",
                        "--stateful-replay", "application"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    cmds = [ln for ln in r.stdout.splitlines() if ln.startswith("ncu ")]
    assert len(cmds) == 2  # one run per family and replay mode
    assert "--replay-mode kernel" in cmds[0] and "--replay-mode application" in cmds[1]
    for c in cmds:
        assert "--no-fork" in c and "--unpaired" in c and "--warmup 2" in c
        assert "--profile-warmup" in c and "--profile-from-start off" in c
    assert not (tmp_path / "out").exists()


def test_default_set_from_the_list():
    names = [*NAMES, "scan/two_barrier/block_threads=32/iters=1/n=33554432",
             "scan/two_barrier/block_threads=256/iters=1/n=1048576",
             "barrier/syncthreads/block_threads=256/iters=8192/participants=all/contention=one_block_per_sm",
             "barrier/syncthreads/block_threads=256/iters=8192/participants=all/contention=full_occupancy",
             "gemm/cublas/stages=4/buffer_bytes=32768/n=4096/consumer_warps=4/m=4096/k=4096/tile=128x128x64"]
    got = [p["name"] for p in explain.default_set(names)]
    assert got[0].startswith("barrier/syncthreads/") and got[0].endswith("one_block_per_sm")
    assert NAMES[0] in got and NAMES[1] in got and NAMES[2] in got
    assert "scan/two_barrier/block_threads=32/iters=1/n=33554432" not in got
    assert any(n.startswith("gemm/cublas/") for n in got)


REAL = {name: os.path.join(FIX, f"real_{name}.csv")
        for name in ("barrier_syncthreads", "barrier_smem_latency", "scan_two_barrier",
                     "devscan_cub", "gemm_streamk_revalidated")}
WARMUP_IDS.update({REAL["barrier_syncthreads"]: [2], REAL["barrier_smem_latency"]: [2],
                   REAL["scan_two_barrier"]: [2], REAL["devscan_cub"]: [4, 5],
                   REAL["gemm_streamk_revalidated"]: [2]})


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_recordings_parse_to_one_launch_whose_shares_sum_to_one(name):
    g = group(REAL[name])
    assert g, name
    assert all(not k["kernel"].startswith("sb_clock_kernel") for k in g)
    row = explain.combine(g, name.split("_")[0])
    shares = {k: v for k, v in row.items() if k.startswith("share_") and v is not None}
    assert all(0 <= v <= 1 for v in shares.values())
    assert sum(shares.values()) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("name,reason", [("barrier_syncthreads", "share_barrier"),
                                         ("barrier_smem_latency", "share_short_scoreboard")])
def test_the_calibration_rows_land_where_their_construction_says(name, reason):
    """A __syncthreads loop waits at the barrier; a shared-memory pointer
    chase waits on the short scoreboard (the H100 recording)."""
    row = explain.combine(group(REAL[name]), "barrier")
    shares = {k: v for k, v in row.items() if k.startswith("share_") and v is not None}
    assert max(shares, key=shares.get) == reason and shares[reason] > 0.5


def test_why_text_names_the_stall_that_differs_most():
    a = {f"share_{r}": 0.0 for r in explain.REASONS}
    b = dict(a)
    a.update(share_barrier=0.10, share_mio_throttle=0.55, share_selected=0.35)
    b.update(share_barrier=0.40, share_mio_throttle=0.45, share_selected=0.15)
    text = explain.why_text([("pingpong", a), ("two_barrier", b)])
    assert text == ("`pingpong` 10% of warp cycles at barriers, `two_barrier` 40%; "
                    "both wait most on the MIO queue (55%, 45%)")


def test_a_second_run_keeps_the_first_runs_other_points(tmp_path):
    """explain.py --filter after a run whose budget ran out: the points it
    measures replace theirs, every other row of stalls.csv stays (nothing
    is lost); a stalls.csv of another header is refused, not overwritten."""
    path = str(tmp_path / "stalls.csv")
    first = stalls_rows()
    explain.write_csv(path, first)
    earlier = explain.earlier_rows(path)
    assert len(earlier) == len(first)
    again = dict(first[1], share_barrier=0.5)  # the same point, measured again
    out = explain.merged(earlier, [again])
    assert len(out) == len(first)
    assert [r for r in out if r is again] == [again]
    key = lambda r: tuple(explain.fmt_cell(r.get(c)) for c in explain.key_columns())  # noqa: E731
    assert sorted(key(r) for r in out) == sorted(key(r) for r in first)
    (tmp_path / "old.csv").write_text("family,variant,share_barrier\nscan,x,0.1\n")
    with pytest.raises(ValueError, match="header differs"):
        explain.earlier_rows(str(tmp_path / "old.csv"))


def test_a_real_batched_recording_reads_its_durations_in_its_own_unit():
    """The H100's scan batch (402e4b3, --profile-warmup): ncu wrote its
    durations in ms; four markers, each point's one kernel after it."""
    launches = explain.parse_ncu_csv(read(os.path.join(FIX, "real_marked_scan_batch.csv")))
    groups = explain.marked_groups(launches)
    assert sorted(groups) == [0, 1, 2, 3]
    assert [len(g) for g in groups.values()] == [1, 1, 1, 1]
    kernels = [groups[i][0]["kernel"] for i in range(4)]
    assert ["TwoBarrier" in kernels[0], "Pingpong" in kernels[1], "Mbarrier" in kernels[2],
            "WarpShuffle" in kernels[3]] == [True] * 4
    # 32M words, a few hundred us each: in ns, not the CSV's 0.67 (ms)
    assert all(1e5 < groups[i][0][explain.DURATION] < 1e7 for i in range(4))
    row = explain.combine(groups[0], "scan")
    assert 100 < row["duration_us"] < 10000


def test_an_unknown_time_unit_is_an_error_not_a_number():
    text = read(SCAN).replace('"nsecond"', '"fortnight"')
    assert '"fortnight"' in text
    with pytest.raises(ValueError, match="unknown unit 'fortnight'"):
        explain.parse_ncu_csv(text)


def test_a_point_the_sweep_skips_gives_way_to_the_variants_nearest_point_that_ran():
    names = ["pipeline/ws_tma/stages=4/buffer_bytes=1024/n=100",
             "pipeline/sync_single/stages=1/buffer_bytes=1024/n=100",
             "pipeline/sync_single/stages=4/buffer_bytes=1024/n=100"]
    latest = [{"family": "pipeline", "variant": "sync_single", "stages": "4",
               "buffer_bytes": "1024", "n": "100", "status": "skipped"},
              {"family": "pipeline", "variant": "sync_single", "stages": "1",
               "buffer_bytes": "1024", "n": "100", "status": "ok"}]
    mine = [explain.parse_name(n) for n in names[1:]]
    rep = explain.parse_name(names[0])
    assert explain.nearest_runnable(mine, rep, latest)["stages"] == "1"
    assert explain.nearest_runnable(mine, rep, None)["stages"] == "4"


def test_the_estimate_counts_what_kernel_replay_saves_and_restores():
    """A point that moves 2 GiB (latest.csv's bytes_moved) costs
    REPLAY_S_PER_GIB x 2 more than one latest.csv does not hold, or holds
    without bytes (gemm); one batch, kernel replay, started once."""
    big = explain.parse_name("devscan/lookback/block_threads=256/n=256M/elems_per_thread=16")
    small = explain.parse_name("devscan/lookback/block_threads=256/n=1M/elems_per_thread=16")
    latest = [{"family": "devscan", "variant": "lookback", "block_threads": "256", "n": "256M",
               "elems_per_thread": "16", "status": "ok", "bytes_moved": 2 * 2**30},
              {"family": "devscan", "variant": "lookback", "block_threads": "256", "n": "1M",
               "elems_per_thread": "16", "status": "ok", "bytes_moved": None}]
    bare = explain.estimate_s([big, small])
    assert bare == pytest.approx(explain.START_S + 2 * explain.KERNEL_POINT_S)
    assert explain.estimate_s([big, small], latest) == pytest.approx(bare + 2 * explain.REPLAY_S_PER_GIB)
    assert explain.estimate_s([small], latest) == pytest.approx(explain.START_S + explain.KERNEL_POINT_S)


def test_the_documented_time_of_the_default_set_is_its_logs():
    """docs/explain.md's generated line: the point count and seconds are
    what the cited log printed (explain.py: N points ... / S s in all)."""
    import re
    doc = read(os.path.join(ROOT, "docs", "explain.md"))
    block = doc.split("<!-- explain-time:begin -->")[1].split("<!-- explain-time:end -->")[0]
    m = re.search(r"(\d+) points in (\d+) s \((\d+):(\d\d)\), `([^`]+)`", block)
    assert m, block
    points, secs, mins, rest, log = m.groups()
    assert int(secs) == 60 * int(mins) + int(rest)
    text = read(os.path.join(ROOT, log))
    assert re.search(rf"^explain\.py: {points} points ", text, re.M)
    assert re.search(rf"^explain\.py: {secs} s in all$", text, re.M)
    assert "FAILED" not in text
    assert int(secs) <= 300  # the bound for the default set


def test_the_readme_says_why_for_devscan_and_each_gemm_shape_of_the_committed_run():
    import answers
    import sbcsv
    gpu = os.path.join(ROOT, "results", "h100-80gb-hbm3")
    latest = sbcsv.read(os.path.join(gpu, "latest.csv"))
    lines = answers.readme_lines(explain.read_stalls(os.path.join(gpu, "stalls.csv")), latest)
    dev = [ln for ln in lines if ln.startswith("why (`devscan`")]
    best = answers.devscan_fastest(latest, max(r["n"] for r in answers.devscan_rows(latest)), "cub")
    assert len(dev) == 1 and f"`{best['variant']}`" in dev[0] and "`cub`" in dev[0]
    for m, k in explain.GEMM_SHAPES:
        line = [ln for ln in lines if ln.startswith(f"why (`gemm`, {answers.fmt_shape(m, k)})")]
        winner = answers.gemm_best(latest, m, k)["variant"]
        assert len(line) == 1 and f"`{winner}`" in line[0] and "`cublas`" in line[0], (m, k)


def test_the_committed_stalls_csv_has_every_variant_and_calibrates():
    """results/h100-80gb-hbm3/stalls.csv (issue 38's done-when): a row for
    every variant of the explain families, every share in [0, 1] and a
    row's shares adding to 1; the calibration rows where their
    construction puts them."""
    import sbvariants
    rows = explain.read_stalls(os.path.join(ROOT, "results", "h100-80gb-hbm3", "stalls.csv"))
    for fam in explain.ONE_POINT_FAMILIES + ["gemm"]:
        have = {r["variant"] for r in rows if r["family"] == fam}
        assert set(sbvariants.variants(fam)) <= have, (fam, set(sbvariants.variants(fam)) - have)
    for r in rows:
        shares = [r[f"share_{x}"] or 0.0 for x in explain.REASONS]
        assert all(0.0 <= s <= 1.0 for s in shares)
        assert sum(shares) == pytest.approx(1.0, abs=1e-3)
    cal = {r["variant"]: r for r in rows if r["family"] == "barrier"}
    for variant, reason in (("syncthreads", "barrier"), ("smem_latency", "short_scoreboard"),
                            ("ptx_mbarrier_parity", "long_scoreboard")):
        shares = {x: cal[variant][f"share_{x}"] or 0.0 for x in explain.REASONS}
        assert max(shares, key=shares.get) == reason and shares[reason] > 0.5, variant


def test_a_batch_point_is_numbered_by_its_rank_in_the_sweep_order():
    names = ["reference/d2d_copy/n=134217728", *NAMES]
    batch = [explain.parse_name(NAMES[1]), explain.parse_name(NAMES[0])]
    assert explain.batch_index(names, batch) == {NAMES[0]: 0, NAMES[1]: 1}
