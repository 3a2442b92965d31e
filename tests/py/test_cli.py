"""build/syncbench's command line, on a host without a usable GPU (CI and
dev machines): what needs no GPU works, a run fails with exit 3, and bad
input fails with exit 2 and one line on stderr before any GPU is touched."""
import csv
import io
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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


LIST_CSV_HEADER = ("family,family_flags,family_summary,variant,variant_index,min_cc,"
                   "flags,axes,ceiling_column,ceiling_reading,summary,mainloop,consumer,schedule,epilogue")


def test_list_csv_matches_the_text_list(syncbench, tmp_path):
    import csv
    import io
    r = run("--list", "--format=csv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == LIST_CSV_HEADER  # the scripts' contract
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    text = list_sections(run("--list", "--format", "text", cwd=tmp_path).stdout)
    by_family = {}
    for row in rows:
        by_family.setdefault(row["family"], []).append(row["variant"])
        assert int(row["variant_index"]) == by_family[row["family"]].index(row["variant"])
        assert "test_only" not in row["flags"].split(";")  # not in the shipped build
    assert by_family == text
    ref = [row for row in rows if row["family"] == "reference"]
    assert ref and all(row["family_flags"] == "yardstick" for row in ref)
    # validated once more on the workspace the timed launches left (harness/runner.c)
    assert {r["family"] for r in rows if "workspace_state" in r["family_flags"].split(";")} == \
        {"gemm", "devscan"}
    # gated on time between two runs: a ceiling family whose ceiling moves between chips on its own
    timed = {r["family"] for r in rows if "time_across_runs" in r["family_flags"].split(";")}
    assert timed == {"devscan"} and all(next(c["ceiling_column"] for c in rows if c["family"] == f)
                                        for f in timed)
    cublas = [row for row in rows if "ceiling" in row["flags"].split(";")]
    assert [(c["family"], c["variant"]) for c in cublas][:1] == [("gemm", "cublas")]
    assert all(c["ceiling_column"] == "pct_of_cublas" for c in rows if c["family"] == "gemm")
    # how each ceiling ratio is read (harness/paired.h): a family without
    # a ceiling has no reading
    readings = {(r["family"], r["ceiling_reading"]) for r in rows}
    assert ("gemm", "p01") in readings and ("devscan", "block_median") in readings
    assert all(bool(r["ceiling_reading"]) == bool(r["ceiling_column"]) for r in rows)
    gemm_axes = next(c["axes"] for c in rows if c["family"] == "gemm").split(";")
    assert {"m", "k", "tile"} <= set(gemm_axes)
    assert run("--list", "--format=json", cwd=tmp_path).returncode == 2


def test_version_needs_no_gpu(syncbench, tmp_path):
    r = run("--version", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("syncbench ") and lines[1].startswith("commit ")
    assert "csv schema 18" in lines and lines[3].startswith("cuda runtime ")


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
    # --out and --benchmark_out under a directory that does not exist yet:
    # the GPU check fails first, so nothing is created.
    r = run("--quick", "--out", str(tmp_path / "new" / "dir" / "x.csv"),
            "--benchmark_out=" + str(tmp_path / "json" / "x.json"), cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("syncbench: no usable CUDA device: ")
    assert os.listdir(tmp_path) == []


# Settings that take one of a few words from the environment: (variable,
# what a refusal says after "syncbench: VAR=value: ", [(value, exit code)]).
# SB_FLUSH names the L2 flush (read by default); SB_HOLD (`unflushed` by
# default) holds the stream while each sample with no flush before it is
# enqueued, `off` leaves it idle; SB_TMA_PROMOTION (`auto` by default: 256 B,
# or 128 B for rows off a 32-byte sector) sets the L2 promotion of every TMA
# tensor map. Any other word is refused with one line before the GPU check
# (3: no GPU here, the value was taken).
WORD_ENVS = [
    ("SB_FLUSH", "the L2 flush is `read` (the default), `memset`, `discard` or `none`",
     [("", 3), ("read", 3), ("memset", 3), ("discard", 3), ("none", 3), ("write", 2), ("READ", 2)]),
    ("SB_HOLD", "the stream hold before unflushed samples is `unflushed` (the default) or `off`",
     [("", 3), ("off", 3), ("unflushed", 3), ("on", 2), ("Unflushed", 2)]),
    ("SB_TMA_PROMOTION", "the TMA maps' L2 promotion is `auto` (the default), `256`, `128`, `64` or `none`",
     [("", 3), ("auto", 3), ("256", 3), ("128", 3), ("64", 3), ("none", 3), ("0", 2), ("1", 2), ("32", 2),
      ("256B", 2), ("None", 2)]),
]


# Whole-number settings read from the environment: (variable, value, exit
# code, what a refusal says after "syncbench: VAR=value: "). SB_FLUSH_L2S
# sizes the flush buffer in L2s (2 by default), SB_HOLD_STREAMS the streams a
# held sample rotates over (8), SB_CONTEXTS the fresh contexts the boundary rows' one is chosen from
# (64), SB_PROCESS_CONTEXTS the fresh contexts a worker's own one is chosen
# from (64; 0 keeps the primary context), SB_PLACEMENTS the places in device
# memory a point's samples are taken over (8); anything out of range is refused with one
# line before the GPU check (3: no GPU here, the value was taken).
WHOLE_NUMBER_ENVS = [
    ("SB_FLUSH_L2S", "the flush buffer's size in L2s is a whole number 1-64",
     [("", 3), ("2", 3), ("1", 3), ("64", 3), ("0", 2), ("65", 2), ("4x", 2)]),
    ("SB_HOLD_STREAMS", "the streams a held sample rotates over are a whole number 1-32",
     [("", 3), ("8", 3), ("1", 3), ("32", 3), ("0", 2), ("33", 2), ("x", 2)]),
    ("SB_CONTEXTS", "the fresh contexts the boundary rows' one is chosen from are a whole number 1-64",
     [("", 3), ("16", 3), ("1", 3), ("64", 3), ("0", 2), ("65", 2), ("2.5", 2)]),
    ("SB_PROCESS_CONTEXTS",
     "the fresh contexts a worker's own one is chosen from are a whole number 0-64 (0: the primary context)",
     [("", 3), ("8", 3), ("0", 3), ("64", 3), ("-1", 2), ("65", 2), ("00", 2), ("x", 2)]),
    ("SB_GRID_PROBE_THREADS", "the grid-barrier probe's block size is a whole number 32-1024",
     [("", 3), ("32", 3), ("1024", 3), ("31", 2), ("1025", 2), ("64x", 2)]),
    ("SB_PLACEMENTS", "the places in device memory a point's samples are taken over are a whole number 1-64",
     [("", 3), ("8", 3), ("1", 3), ("64", 3), ("0", 2), ("65", 2), ("3x", 2)]),
]


@pytest.mark.parametrize("env, says, value, code", [(e, s, v, c) for e, s, cases in WORD_ENVS + WHOLE_NUMBER_ENVS
                                                    for v, c in cases])
def test_settings_the_environment_gives_are_refused_with_one_line(syncbench, tmp_path, env, says, value, code):
    r = run("--quick", cwd=tmp_path, env_extra={env: value})
    assert r.returncode == code, r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr
    if code == 2:
        assert r.stderr.strip() == f"syncbench: {env}={value}: {says}"


def test_no_gpu_message_says_what_to_check(syncbench, tmp_path):
    # Not CUDA's "CUDA driver version is insufficient for CUDA runtime
    # version": what is missing, in plain words, and what to check.
    r = run("--quick", cwd=tmp_path)
    assert r.returncode == 3, r.stderr
    line = r.stderr.strip()
    assert "insufficient for CUDA runtime" not in line
    assert "nvidia-smi" in line
    if os.path.exists("/proc/driver/nvidia/version"):  # a GPU host, GPUs hidden
        assert "finds no GPU" in line
        assert "CUDA_VISIBLE_DEVICES is set to ''" in line
    else:  # this kind of CI machine: no driver at all
        assert "no NVIDIA driver is loaded" in line
        assert "install the NVIDIA driver" in line


def test_gemm_odd_shape_lists_every_variant(syncbench, tmp_path):
    # --m 1000 (partial tiles at every edge): a point for every variant, and
    # the same for the shapes the issue names (1 x 4096 x 4096, 4095 x 24 x 1032)
    for args in (["--m", "1000"], ["--m", "1", "--n", "4096", "--k", "4096"],
                 ["--m", "4095", "--n", "24", "--k", "1032"]):
        r = run("--benchmark_list_tests", "--filter", "^gemm/", "--no-reference", *args, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        variants = {n.split("/")[1] for n in r.stdout.splitlines()}
        listed = csv.DictReader(io.StringIO(run("--list", "--format=csv", cwd=tmp_path).stdout))
        want = {row["variant"] for row in listed if row["family"] == "gemm"}
        assert variants == want, (args, want - variants)


def test_then_runs_each_sweep_in_order_and_a_point_once(syncbench, tmp_path):
    # Two tile lines at one shape, each at its own stage count: one run's
    # points are the first sweep's, then the second's new ones, in order;
    # cuBLAS at the shared shape and the reference copy once
    def names(*args):
        r = run("--benchmark_list_tests", *args, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        return r.stdout.splitlines()
    g = ["--filter", "^gemm/(cublas|ws_tma_wgmma)/", "--m", "1024", "--k", "1024,4096"]
    first = names(*g, "--tile", "128x128x64", "--stages", "5")
    second = names(*g, "--tile", "64x128x64", "--stages", "8")
    both = names(*g, "--tile", "128x128x64", "--stages", "5", "--then", *g, "--tile", "64x128x64", "--stages", "8")
    assert both == first + [n for n in second if n not in first]
    assert len(set(both)) == len(both) and len(both) < len(first) + len(second)
    assert sum(n.startswith("gemm/cublas/") for n in both) == 2  # one a shape
    # each sweep its own axes: the first's --k does not reach the second
    one_k = names(*g, "--then", "--filter", "^gemm/ws_tma_wgmma/", "--m", "2048", "--k", "8192", "--tile", "64x128x64")
    assert [n for n in one_k if "m=2048" in n] and all("k=8192" in n for n in one_k if "m=2048" in n)
    # --quick and --no-reference are the run's: every sweep's
    quick = names("--quick", "--no-reference", "--filter", "^scan/pingpong/", "--then", "--filter", "^stencil/pingpong/")
    assert quick == names("--quick", "--no-reference", "--filter", "^(scan|stencil)/pingpong/")


def test_list_tests_needs_no_gpu(syncbench, tmp_path):
    r = run("--benchmark_list_tests", "--quick", "--filter", "^scan/pingpong/",
            "--out", str(tmp_path / "new" / "x.csv"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    names = r.stdout.splitlines()
    assert names and r.stderr == ""
    scan = [n for n in names if n.startswith("scan/")]
    assert scan and all(n.startswith("scan/pingpong/") for n in scan)
    # the reference copy runs in every sweep; nothing else slips through
    assert all(n.startswith(("scan/pingpong/", "reference/")) for n in names)
    assert all("=" in n for n in names)  # family/variant/axis=value/...
    assert len(set(names)) == len(names)
    assert os.listdir(tmp_path) == []
    # --no-reference drops the copy; =true is the same as the bare flag
    r2 = run("--benchmark_list_tests=true", "--quick", "--filter", "^scan/pingpong/",
             "--no-reference", cwd=tmp_path)
    assert r2.returncode == 0, r2.stderr
    assert r2.stdout.splitlines() == scan
    # =false: a normal run, which needs the GPU
    r3 = run("--benchmark_list_tests=false", "--quick", cwd=tmp_path)
    assert r3.returncode == 3, r3.stderr


def test_splits_auto_is_a_point_of_its_own(syncbench, tmp_path):
    r = run("--benchmark_list_tests", "--filter", "^gemm/splitk_parallel/", "--no-reference",
            "--m", "1k", "--k", "16k", "--splits", "auto,4,8", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    names = r.stdout.splitlines()
    splits = sorted(n.rsplit("/splits=", 1)[1] for n in names)
    assert splits == ["4", "4", "8", "8", "auto", "auto"]  # x 2 tiles
    # the default sweep has auto beside the explicit counts
    r = run("--benchmark_list_tests", "--filter", "^gemm/splitk_", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert {n.rsplit("/splits=", 1)[1] for n in r.stdout.splitlines() if "/splits=" in n} == \
        {"auto", "2", "4", "8"}


@pytest.mark.parametrize("flags", [
    ["--benchmark_out=x.json"],
    ["--benchmark_out=res/{gpu}/x.json", "--benchmark_out_format=json"],
    ["--benchmark_format=json", "--benchmark_display_aggregates_only"],
    ["--benchmark_format=console"],
    ["--benchmark_repetitions=3"],
    ["--benchmark_repetitions=3", "--benchmark_out=x.json", "--benchmark_report_aggregates_only=true",
     "--benchmark_time_unit=ms", "--benchmark_context=note=ci,run=7"],
    ["--benchmark_min_time=0.1"],
    ["--benchmark_min_time=0.1s"],
    ["--benchmark_filter=^scan/"],
    ["--benchmark_color=false", "--benchmark_counters_tabular=false",
     "--benchmark_enable_random_interleaving=false", "--benchmark_report_aggregates_only=false"],
], ids=["out", "out-gpu-pattern", "format-json", "format-console", "repetitions",
        "json-shaping", "min-time", "min-time-s", "filter", "defaults-spelled-out"])
def test_accepted_gbench_flags_are_validated_before_the_gpu_check(syncbench, tmp_path, flags):
    r = run("--quick", *flags, cwd=tmp_path)
    assert r.returncode == 3, (flags, r.stderr)
    assert r.stderr.startswith("syncbench: no usable CUDA device"), r.stderr
    assert r.stdout == ""
    assert os.listdir(tmp_path) == []


def test_benchmark_out_under_a_file_fails_before_the_gpu(syncbench, tmp_path):
    (tmp_path / "f").write_text("")
    r = run("--quick", "--benchmark_out=" + str(tmp_path / "f" / "x.json"), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "--benchmark_out=" in r.stderr and "not a directory" in r.stderr
    r = run("--quick", "--out", str(tmp_path / "f" / "d" / "x.csv"), cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("syncbench: --out ") and "not a directory" in r.stderr
    assert os.listdir(tmp_path) == ["f"]


@pytest.mark.parametrize("args, mentions", [
    (["--no-such-option"], "--no-such-option"),
    (["--block", "0"], "0"),
    (["--block", "abc"], "abc"),
    (["--block", ""], "empty"),
    (["--iters", "1,1"], "iters"),
    (["--filter", "^scan/", "--stages", "2"], "stages"),
    (["--filter", "nomatch"], "filter"),
    (["--filter", "("], "("),
    (["--device", "-1"], "-1"),
    (["--n", "1T"], "n: '1T': unknown suffix 'T' (use k, M or G)"),
    (["--n", "99999999999999999999999"], "n: '99999999999999999999999' is too large"),
    (["--block", "32..1T"], "unknown suffix 'T'"),
    (["--out", "."], "is a directory"),
    # `auto` is a value of splits only; a typed 0 or -1 is no way to it
    (["--splits", "0"], "splits=0 is out of range [1, 256] (or auto)"),
    (["--splits", "-1"], "splits: '-1' is not a non-negative integer"),
    (["--m", "auto"], "m: 'auto' is not a value of this axis (only splits takes auto)"),
    (["--tile", "auto"], "tile: 'auto' is not a value of this axis"),
    # Google Benchmark's flags: a bad value names the flag and the value,
    # a flag that cannot work here says why.
    (["--benchmark_repetitions=abc"], "--benchmark_repetitions=abc: not a positive integer"),
    (["--benchmark_repetitions=0"], "--benchmark_repetitions=0: not a positive integer"),
    (["--benchmark_repetitions"], "--benchmark_repetitions needs a value"),
    (["--benchmark_repetitions=2", "--benchmark_repetitions=3"], "given twice"),
    (["--benchmark_min_time=abc"], "--benchmark_min_time=abc: not a number of seconds"),
    (["--benchmark_min_time=100x"], "iteration count"),
    (["--benchmark_min_time=1", "--min-time", "1"], "not both"),
    (["--benchmark_list_tests=maybe"], "--benchmark_list_tests=maybe: not true or false"),
    (["--benchmark_format=csv"], "--benchmark_format=csv: not supported"),
    (["--benchmark_format=xml"], "--benchmark_format=xml: not one of console, json"),
    (["--benchmark_out="], "--benchmark_out needs a file name"),
    (["--benchmark_out=x", "--benchmark_out_format=csv"], "--benchmark_out_format=csv: not supported"),
    (["--benchmark_out_format=json"], "needs --benchmark_out"),
    (["--benchmark_time_unit=ms"], "--benchmark_time_unit shapes only the JSON output"),
    (["--benchmark_format=json", "--benchmark_time_unit=xs"], "--benchmark_time_unit=xs: not one of ns, us, ms, s"),
    (["--benchmark_context=a=b"], "--benchmark_context shapes only the JSON output"),
    (["--benchmark_out=x", "--benchmark_context=novalue"], "--benchmark_context=novalue: not a list"),
    (["--benchmark_report_aggregates_only"], "--benchmark_report_aggregates_only shapes only the JSON"),
    (["--benchmark_out=x", "--benchmark_display_aggregates_only=true"], "--benchmark_display_aggregates_only shapes only"),
    (["--benchmark_counters_tabular=true"], "--benchmark_counters_tabular: not supported"),
    (["--benchmark_color=true"], "--benchmark_color=true: not supported"),
    (["--benchmark_enable_random_interleaving"], "--benchmark_enable_random_interleaving: not supported"),
    (["--benchmark_min_warmup_time=1"], "--benchmark_min_warmup_time is not supported"),
    (["--benchmark_perf_counters=CYCLES"], "--benchmark_perf_counters is not supported"),
    (["--benchmark_filter=-scan"], "negative filters"),
    (["--benchmark_nonsense=1"], "unknown Google Benchmark flag '--benchmark_nonsense'"),
    (["--profile-warmup", "--warmup", "0"], "--profile-warmup profiles the last warm-up launch"),
    (["--cooldown-ms", "-5"], "--cooldown-ms '-5' is not a whole number of milliseconds in [0, 10000]"),
    # one of each option a run: the last would have won (make bench's own --device and --out
    # before the user's ARGS filed one GPU's CSV under another's name)
    (["--out", "a.csv", "--out", "b.csv"], "--out given twice"),
    (["--device", "0", "--device=1"], "--device given twice"),
    (["--seed", "1", "--seed", "2"], "--seed given twice"),
    (["--quick", "--quick"], "--quick given twice"),
    (["-h", "--help"], "--help given twice"),
    (["--quick=no"], "--quick takes no value"),
    (["--format", "csv"], "--format says how --list prints"),
    (["--list", "--filter", "^scan/"], "--list prints every family and variant"),
    (["--list", "--version"], "give one of --help, --list"),
    # gemm's shape rule (bench/gemm.c, sb_gemm_shape_refusal): one line that names it
    (["--m", "1000", "--k", "1001", "--filter", "^gemm/"], "k=1001 is outside the shapes it runs: K a multiple of 8"),
    (["--m", "1000", "--n", "1002", "--k", "1024", "--filter", "^gemm/"], "N a multiple of 4"),
    # --then: each sweep after it its own filter and axes, and nothing else;
    # a bad sweep is named by its place
    (["--filter", "^scan/", "--then"], "the last --then starts an empty sweep"),
    (["--filter", "^scan/", "--then", "--then", "--block", "64"], "--then (argument 4) follows an empty sweep"),
    (["--filter", "^scan/", "--then", "--filter", "^scan/", "--out", "x.csv"],
     "--out after --then: a sweep takes only --filter and axis options"),
    (["--then", "--filter", "^scan/", "--benchmark_filter=^gemm/"], "--benchmark_filter after --then"),
    (["--filter", "^scan/", "--then", "--filter", "nomatch"],
     "the sweep after --then #1: the filter matches no benchmark point"),
    (["--filter", "^scan/", "--then", "--filter", "^gemm/", "--m", "1000", "--k", "1001"],
     "the sweep after --then #1: gemm: m=1000, n=1000, k=1001 is outside the shapes it runs"),
    (["--filter", "nomatch", "--then", "--filter", "^scan/"], "the first sweep (before --then): the filter matches"),
    (["--then", "--filter", "^scan/", "--filter", "^gemm/"], "give one --filter (or --benchmark_filter) a sweep"),
    (["--then", "--block", "64", "--block", "128"], "--block given twice in one sweep"),
    (["--filter", "^scan/"] + ["--then", "--block", "64"] * 32, "at most 32 sweeps a run (31 --then)"),
], ids=["unknown-option", "block-0", "block-abc", "block-empty", "iters-duplicate",
        "stages-unswept", "filter-nomatch", "filter-bad-regex", "device-negative",
        "n-unknown-suffix", "n-too-large", "range-unknown-suffix", "out-directory",
        "splits-0", "splits-negative", "m-auto", "tile-auto",
        "repetitions-abc", "repetitions-0", "repetitions-no-value", "repetitions-twice",
        "min-time-abc", "min-time-iterations", "min-time-twice", "list-tests-maybe",
        "format-csv", "format-xml", "out-empty", "out-format-csv", "out-format-alone",
        "time-unit-no-json", "time-unit-bad", "context-no-json", "context-bad",
        "report-aggregates-no-json", "display-aggregates-file-only", "counters-tabular",
        "color", "random-interleaving", "min-warmup-time", "perf-counters",
        "negative-filter", "unknown-gbench-flag", "profile-without-warmup", "cooldown-negative",
        "out-twice", "device-twice", "seed-twice", "quick-twice", "help-twice", "flag-with-value",
        "format-without-list", "list-with-filter", "list-and-version", "gemm-k-off-rule",
        "gemm-n-off-rule", "then-last-empty", "then-empty-between", "then-run-option", "then-gbench-filter",
        "then-filter-nomatch", "then-gemm-shape", "then-first-nomatch", "then-two-filters", "then-axis-twice",
        "then-too-many"])
def test_bad_input_exits_2_with_one_line(syncbench, tmp_path, args, mentions):
    r = run(*args, cwd=tmp_path)
    assert r.returncode == 2, (args, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("syncbench: ")
    assert mentions in lines[0]
    assert r.stdout == ""
    assert os.listdir(tmp_path) == []  # failed before writing any CSV
