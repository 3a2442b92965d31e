"""The validation on the dirty workspace (harness/runner.c,
revalidate_on_dirty_workspace) and its planted bug (kernels/gemm/gemm.cu,
splitk_parallel_stale_counters: the split-K launch numbering never
advanced, so later launches see the counters launch 1 left, SB_BROKEN
build only). The GPU run is the proof
(scripts/gpu_round.sh step b); this checks the wiring, and runs step b's
expectations on made-up rows. The host side (seed, trait, verify) is
tests/c/test_workspace_state.c."""
import csv
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STALE = "splitk_parallel_stale_counters"
CLUSTER = "splitk_cluster_no_reset"  # wrong only with 2+ clusters a tile (splits > 8)
DEVSCAN_STALE = "lookback_stale_tag"  # devscan: status words tagged as launch 1's


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def _inside_sb_broken(src, needle):
    """needle's first occurrence lies between an #ifdef SB_BROKEN and its #endif."""
    before = src[:src.index(needle)]
    return before.rfind("#ifdef SB_BROKEN") > before.rfind("#endif")


def _function(src, signature):
    body = src[src.index(signature):]
    return body[:body.index("\n}\n")]


def test_the_runner_validates_again_after_timing_and_derive():
    src = read("harness/runner.c")
    run_point = _function(src, "static int run_point(")
    order = [run_point.index(s) for s in ("validate(", "time_point(", "recheck_timed(", "record_timing(",
                                          "derive(", "revalidate_on_dirty_workspace(")]
    assert order == sorted(order)
    check = _function(src, "static int revalidate_on_dirty_workspace(")
    assert "SB_FF_WORKSPACE_STATE" in check
    assert "sb_second_seed(row->seed)" in check
    # the same steps as the first validation (input, poison, bounded launch,
    # verify), never timed, and a failure drops the timing
    assert "validate(r, p, L, seed," in check
    assert "gbs_run_one" not in check and "sb_timer" not in check
    assert "second launch on the dirty workspace (seed %llu)" in check
    assert "drop_timing(name, check.status, row)" in check
    assert "gbs_discard_last(name)" in _function(src, "static void drop_timing(")
    validate = _function(src, "static int validate(")
    assert "cudaMemsetAsync(r->buf.d_out, 0xA5" in validate and "L->bounded = 1" in validate


def test_stale_counters_is_a_test_only_row_of_the_broken_build():
    src = read("kernels/gemm/gemm.cu")
    # the healthy kernels (GemmSplitKParallel: its launcher, picker and split flag follow from the
    # type), StaleEpoch set, test only
    head = 'gemm_row<GemmSplitKParallel, SB_VF_TEST_ONLY, true>("' + STALE + '"'
    assert head in src
    row_fn = src[src.index("template <class V, unsigned Extra = 0, bool StaleEpoch = false>"):]
    assert "gemm_launch<V, StaleEpoch>" in row_fn[:row_fn.index("}")]
    assert _inside_sb_broken(src, head)
    # the counters are zeroed by the query only, and numbered by launch after it
    number = _function(src, "static cudaError_t gemm_number_launch(")
    query = number[number.index("if (L->query) {"):]
    query = query[:query.index("\n  }\n")]
    assert "gemm_epoch = 0;" in query and "cudaMemsetAsync(gemm_sem" in query
    assert number.count("cudaMemsetAsync") == 1
    # the bug: every launch is numbered 1, so the query's zeros serve the first only
    assert "p->epoch = StaleEpoch ? 1u : ++gemm_epoch;" in number
    # the schedules' host side (GemmScheduleHost) numbers its launches, StaleEpoch passed through
    assert "H::template setup<V, StaleEpoch>" in src and "gemm_number_launch<StaleEpoch>(L, &p, sem_bytes)" in src
    for sched in ("GemmScheduleSplitK<C, DropLast>>", "GemmScheduleStreamK>"):
        host = src[src.index("struct GemmScheduleHost<" + sched):]
        assert "cudaMemsetAsync" not in host[:host.index("\n};")]  # no memset in any launch
    assert STALE not in read("results/variants.csv")


def test_gpu_round_step_b_runs_it_and_expects_wrong():
    src = read("scripts/gpu_round.sh")
    step_b = src[src.index("if step b; then"):]
    assert "gemm/" + STALE + "/" in step_b
    assert '"gemm/' + STALE + '": ("wrong", "second launch on the dirty workspace")' in step_b


def test_devscan_stale_tag_is_a_test_only_row_of_the_broken_build():
    src = read("kernels/families/devscan.cu")
    head = 'dev_row<DevLookbackRelaxed, true>("' + DEVSCAN_STALE + '"'
    assert head in src and _inside_sb_broken(src, head)
    number = _function(src, "static cudaError_t dev_number_launch(")
    # zeroed by the query only, numbered by launch after it; the bug keeps launch 1's tag
    query = number[number.index("if (L->query) {"):]
    assert "dev_epoch = 0;" in query and number.count("cudaMemsetAsync") == 1
    assert "p->epoch = ++dev_epoch;" in number
    assert "const unsigned tag = (StaleTag ? 1u : p->epoch) << 2;" in number
    assert "cudaMemsetAsync" not in _function(src, "static cudaError_t dev_before(")
    assert DEVSCAN_STALE not in read("results/variants.csv")
    step_b = read("scripts/gpu_round.sh")
    step_b = step_b[step_b.index("if step b; then"):]
    assert "devscan/" + DEVSCAN_STALE + "/" in step_b
    assert '"devscan/' + DEVSCAN_STALE + '": ("wrong", "second launch on the dirty workspace")' in step_b


def test_step_b_fails_when_the_devscan_tag_passes(tmp_path):
    rows = [g if g[1] != DEVSCAN_STALE else ("devscan", DEVSCAN_STALE, "ok", "") for g in GOOD]
    r = _step_b(tmp_path, rows)
    assert r.returncode != 0 and "FAIL devscan/" + DEVSCAN_STALE + ": ok" in r.stdout


def test_gpu_round_step_b_runs_the_cluster_counters_where_they_exist():
    # --quick's auto counts never put two clusters on a tile: a run of its own, splits > 8
    step_b = read("scripts/gpu_round.sh")
    step_b = step_b[step_b.index("if step b; then"):]
    quick = step_b[:step_b.index("\n")] + step_b[step_b.index("--quick"):step_b.index("--out")]
    assert CLUSTER not in quick
    run = step_b[step_b.index("'^gemm/" + CLUSTER + "/'"):]
    run = run[:run.index("--resume")]
    splits = [int(s) for s in run.split("--splits ")[1].split()[0].split(",")]
    assert splits and min(splits) > 8
    assert '"gemm/' + CLUSTER + '": ("wrong", "second launch on the dirty workspace")' in step_b


def test_step_b_fails_when_the_cluster_counters_pass(tmp_path):
    rows = [g if g[1] != CLUSTER else ("gemm", CLUSTER, "ok", "") for g in GOOD]
    r = _step_b(tmp_path, rows)
    assert r.returncode != 0
    assert "FAIL gemm/" + CLUSTER + ": ok" in r.stdout


ROW = {"family": "", "variant": "", "status": "", "detail": "", "tile": ""}


def _step_b(tmp_path, rows):
    """scripts/gpu_round.sh STEPS=b with a fake broken binary that writes rows."""
    bundle = tmp_path / "bundle"
    (bundle / "broken").mkdir(parents=True)
    fixture = tmp_path / "rows.csv"
    with open(fixture, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(ROW))
        w.writeheader()
        for family, variant, status, detail, *tile in rows:
            w.writerow({"family": family, "variant": variant, "status": status, "detail": detail,
                        "tile": tile[0] if tile else "128x128x64"})
    fake = bundle / "broken" / "syncbench"
    # --out FILE: the fixture's rows; --resume FILE (the second run, at
    # splits > 8): they are already there
    fake.write_text('#!/bin/sh\nwhile [ $# -gt 0 ] && [ "$1" != --out ] && [ "$1" != --resume ]; do shift; done\n'
                    f'[ "$1" = --out ] && cp "{fixture}" "$2"\nexit 1\n')
    fake.chmod(0o755)
    env = dict(os.environ, STEPS="b", PATH=os.environ["PATH"])
    return subprocess.run(["bash", os.path.join(ROOT, "scripts", "gpu_round.sh"), str(bundle),
                           str(tmp_path / "out")], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=60)


WATCHDOG = "watchdog: an mbarrier wait timed out after 1000 ms"
DIRTY = "second launch on the dirty workspace (seed 123): 3 of 4096 sampled elements of C differ"
GOOD = [("broken", "missing_barrier", "wrong", "differ"),
        ("gemm", "splitk_serial_no_release", "deadlock", WATCHDOG),
        ("gemm", STALE, "wrong", DIRTY),
        ("gemm", STALE, "skipped", "consumer_warps=8: no"),
        ("gemm", "ws_tma_wgmma_multicast_no_remote_arrive", "deadlock", WATCHDOG),
        ("gemm", "splitk_reduce_drops_a_slice", "wrong",
         "12 of 4096 sampled elements of C differ from the double reference by more than the tolerance"),
        ("gemm", CLUSTER, "wrong", DIRTY),
        ("gemm", "splitk_cooperative_missing_arrival", "deadlock", WATCHDOG),
        ("barrier", "flag_handoff_lost_token", "deadlock", WATCHDOG),
        ("devscan", DEVSCAN_STALE, "wrong", DIRTY.replace("of C", "of the scan"))]
# The split-K plants at the 128x96x64 tile (step b's run at 384^2)
GOOD += [(fam, v, status, detail, "128x96x64") for fam, v, status, detail in GOOD
         if v.startswith("splitk_") and status != "skipped"]


def test_step_b_passes_when_each_planted_row_gets_its_status(tmp_path):
    r = _step_b(tmp_path, GOOD)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS gemm/" + STALE + ": wrong" in r.stdout


def test_step_b_fails_when_the_stale_counters_pass(tmp_path):
    rows = [g if g[1] != STALE or g[2] == "skipped" else ("gemm", STALE, "ok", "") for g in GOOD]
    r = _step_b(tmp_path, rows)
    assert r.returncode != 0
    assert "FAIL gemm/" + STALE + ": ok" in r.stdout


def test_step_b_fails_when_caught_by_another_check(tmp_path):
    # wrong, but from the first validation: the dirty-workspace check never ran
    rows = [g if g[1] != STALE or g[2] == "skipped" else ("gemm", STALE, "wrong", "3 of 4096 differ")
            for g in GOOD]
    assert _step_b(tmp_path, rows).returncode != 0


def test_step_b_fails_when_a_planted_row_is_missing(tmp_path):
    r = _step_b(tmp_path, [g for g in GOOD if g[1] != STALE or g[2] == "skipped"])
    assert r.returncode != 0
    assert "FAIL gemm/" + STALE + ": no row with status wrong" in r.stdout


def test_step_b_runs_the_split_plants_at_the_128x96_tile_and_fails_without_them(tmp_path):
    step_b = read("scripts/gpu_round.sh")
    step_b = step_b[step_b.index("if step b; then"):step_b.index("if step f; then")]
    runs = [c for c in step_b.split("\n") if "--tile 128x96x64" in c]
    assert len(runs) == 2 and all("--m 384" in c for c in runs)
    plants = {v for fam, v, *_ in GOOD if v.startswith("splitk_")}
    assert all(any(v in line for line in step_b.split("\n")
                   if "128x96x64" in line or "splitk_serial_no_release|" in line) for v in plants)
    without = [g for g in GOOD if len(g) == 4 or g[1] != "splitk_reduce_drops_a_slice"]
    r = _step_b(tmp_path, without)
    assert r.returncode != 0
    assert "FAIL gemm/splitk_reduce_drops_a_slice: no row with status wrong at the 128x96x64 tile" in r.stdout
