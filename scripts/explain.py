#!/usr/bin/env python3
"""Where each variant's warps wait, measured: Nsight Compute's warp-state
statistics for chosen sweep points (issue 38; reference: docs/explain.md).

    python3 scripts/explain.py [--binary build/syncbench] [--device 0]
        [--outdir results/<gpu-slug>] [--filter REGEX [--any-point]] [--dry-run]
        [--budget 280] [--batch-timeout 600] [--latest CSV]
    python3 scripts/explain.py --readme-lines STALLS_CSV [--latest CSV]
    python3 scripts/explain.py --plot STALLS_CSV [--latest CSV] [--outdir DIR]

The points are cut into batches, one per family and replay mode; each
batch is one ncu run (`--profile-from-start off`) of `syncbench --no-fork
--unpaired --no-reference --warmup 2 --min-time 0.001 --profile-warmup
--filter '^(<point>|<point>...)$'`. Each point's last warm-up launch (the
kernels the timed loop runs, after one validated and one warm launch) is
the only thing profiled: syncbench runs it alone between
cudaProfilerStart/Stop, after a marker kernel whose grid is the point's
place in the run's point list + 1, so the report says which kernels are
whose. Every batch runs in kernel replay (one process; ncu saves the
memory a kernel can reach before its first pass and restores what it
wrote before each later one, so a stateful kernel, with split-K flags,
stream-K and device-scan tickets or epoch-numbered counters, sees the same
state in every pass); --stateful-replay application runs the stateful
points' batches in application replay instead (a fresh process per pass).

Outputs under --outdir: stalls.csv (one row per point: the point's key
columns as the sweep CSV has them, share_<reason> per stall reason as a
fraction of all warp cycles, issue/SM/DRAM/tensor-pipe % of peak, kernels,
duration_us, ncu_version and the sweep CSV's provenance columns; rewritten
after every batch, so rows already measured survive a later failure),
plots/<family>_stalls.png, and ncu/ (each batch's report, raw CSV, log and
its syncbench rows).

Exit status: 0 every point profiled; 1 some point failed (the others are
written); 2 bad usage (no binary, a filter that matches nothing); 3 ncu not
found; 4 performance counters not permitted (ERR_NVGPUCTRPERM; rows already
written are kept); 130 interrupted.
"""
from __future__ import annotations

import argparse
import csv
import datetime
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
import answers  # noqa: E402  (the README's own selection rules; readme_lines)
import sbcsv  # noqa: E402
from sbstalls import REASONS, number, read_stalls, why_text  # noqa: E402,F401
import sbvariants  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXIT_FAILED, EXIT_USAGE, EXIT_NO_NCU, EXIT_PERM = 1, 2, 3, 4

HOPPER_ONLY = {"gmma"}
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
DURATION = "gpu__time_duration.sum"
ISSUE = "smsp__issue_active.avg.pct_of_peak_sustained_active"
SM_TP = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
DRAM_TP = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
TENSOR = {"hmma": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
          "gmma": "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"}
TENSOR_FAMILIES = {"gemm"}
# The harness's own kernels: never part of a variant's launch.
HARNESS_KERNELS = re.compile(r"^sb_clock_kernel")
PERM_ERROR = "ERR_NVGPUCTRPERM"
PROVENANCE = ["gpu_name", "gpu_uuid", "driver", "cuda", "commit", "run_utc"]
WARMUP = 2  # the profiled group is launch WARMUP: the last warm-up


def key_columns():
    """family, variant and every axis column, in the sweep CSV's order."""
    with open(sbcsv.HEADER_SNAPSHOT, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    return header[header.index("family"):header.index("status")]


def columns():
    return [*key_columns(), *(f"share_{r}" for r in REASONS), "issue_active_pct",
            "sm_throughput_pct", "dram_throughput_pct", "tensor_pipe_pct", "kernels",
            "duration_us", "ncu_version", *PROVENANCE]


def metrics(family, hopper=True):
    """The metric list of one point's ncu run."""
    out = [DURATION, ISSUE, SM_TP, DRAM_TP]
    out += [STALL_METRIC.format(r) for r in REASONS if hopper or r not in HOPPER_ONLY]
    if family in TENSOR_FAMILIES:
        out += [TENSOR["hmma"]] + ([TENSOR["gmma"]] if hopper else [])
    return out


# ---- ncu's CSV (--csv --page raw) ----

# ncu picks one time unit per column and report (the units row): ns here.
TIME_UNITS_NS = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6,
                 "msecond": 1e6, "s": 1e9, "second": 1e9}


def parse_ncu_csv(text):
    """[{'id', 'kernel', 'grid', metric: float|None, ...}] per profiled
    launch, in launch order; gpu__time_duration in ns whatever unit the
    units row gives it. Lines before the header (==PROF== messages, the
    application's output) are skipped."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        return []
    reader = csv.reader(io.StringIO("\n".join(lines[start:])))
    header = next(reader)
    out, scale = [], 1.0
    for rec in reader:
        if len(rec) != len(header) or rec[0].startswith("=="):
            continue
        row = dict(zip(header, rec))
        if number(row["ID"]) is None:  # the units row ("", "", ..., "nsecond")
            unit = row.get(DURATION, "").strip()
            if unit and unit not in TIME_UNITS_NS:
                raise ValueError(f"ncu's CSV: {DURATION} in an unknown unit '{unit}'")
            scale = TIME_UNITS_NS.get(unit, 1.0)
            continue
        launch = {"id": int(number(row["ID"])), "kernel": row.get("Kernel Name", ""),
                  "grid": row.get("Grid Size", "")}
        for name, value in row.items():
            if "__" in name:
                launch[name] = number(value)
        if launch.get(DURATION) is not None:
            launch[DURATION] *= scale
        out.append(launch)
    return sorted(out, key=lambda x: x["id"])


MARKER = "sb_profile_mark_kernel"


def grid_x(launch):
    """The first grid dimension of a launch ('(5, 1, 1)' -> 5), else None."""
    m = re.match(r"\(?\s*(\d+)", launch.get("grid", "") or "")
    return int(m.group(1)) if m else None


def marked_groups(launches):
    """{point index: its profiled launch's kernels}: syncbench
    --profile-warmup opens each point's profiled launch with the marker
    kernel on (index + 1) blocks; the kernels up to the next marker are
    that launch's, the harness's own (the clock witness) left out. A point
    marked twice keeps its last group."""
    groups, current = {}, None
    for x in launches:
        if x["kernel"].startswith(MARKER):
            g = grid_x(x)
            current = g - 1 if g else None
            if current is not None:
                groups[current] = []
        elif current is not None and not HARNESS_KERNELS.match(x["kernel"]):
            groups[current].append(x)
    return {i: g for i, g in groups.items() if g}


def combine(group, family):
    """One stalls.csv row's measured columns from a launch's kernels:
    each kernel's shares of warp cycles (its per-reason ratio over the sum
    of its ratios), the kernels weighted by their durations."""
    weights = [k.get(DURATION) or 0.0 for k in group]
    total = sum(weights)
    if total <= 0:
        weights, total = [1.0] * len(group), float(len(group))
    shares = dict.fromkeys(REASONS, 0.0)
    for k, w in zip(group, weights):
        ratios = {r: k.get(STALL_METRIC.format(r)) or 0.0 for r in REASONS}
        s = sum(ratios.values())
        if s > 0:
            for r in REASONS:
                shares[r] += w / total * ratios[r] / s

    def avg(metric):
        vals = [(k.get(metric), w) for k, w in zip(group, weights) if k.get(metric) is not None]
        return sum(v * w for v, w in vals) / sum(w for _, w in vals) if vals else None

    tensor = None
    if family in TENSOR_FAMILIES:
        cands = [v for v in (avg(m) for m in TENSOR.values()) if v is not None]
        tensor = max(cands) if cands else None
    row = {f"share_{r}": shares[r] for r in REASONS}
    row.update(issue_active_pct=avg(ISSUE), sm_throughput_pct=avg(SM_TP),
               dram_throughput_pct=avg(DRAM_TP), tensor_pipe_pct=tensor,
               kernels=len(group),
               duration_us=sum(k.get(DURATION) or 0.0 for k in group) / 1000.0)
    return row


def fmt_cell(value):
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def earlier_rows(path):
    """The rows a stalls.csv already holds (raw cells), kept by a later run
    for every point it does not measure again; [] when there is none. A
    file of another header is refused (a clear line, exit 2 by the caller)."""
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != columns():
            raise ValueError(f"{path}: not this version's stalls.csv (its header differs); "
                             "move it aside or use another --outdir")
        return list(reader)


def merged(earlier, rows):
    """earlier rows whose point this run did not measure, then this run's."""
    keys = {tuple(fmt_cell(r.get(c)) for c in key_columns()) for r in rows}
    return [r for r in earlier if tuple(r.get(c, "") for c in key_columns()) not in keys] + rows


def write_csv(path, rows):
    """stalls.csv: one header line, one row per point (atomic rewrite)."""
    cols = columns()
    text = io.StringIO()
    w = csv.writer(text, lineterminator="\n")
    w.writerow(cols)
    for r in rows:
        w.writerow([fmt_cell(r.get(c)) for c in cols])
    sbcsv.write_atomically(path, text.getvalue())


# ---- points ----

def parse_name(name):
    """'scan/pingpong/block_threads=256/n=1M' -> {'family', 'variant', axis: str}."""
    parts = name.strip().split("/")
    point = {"family": parts[0], "variant": parts[1], "name": name.strip()}
    for p in parts[2:]:
        a, _, v = p.partition("=")
        point[a] = v
    return point


def same_axes(point, row):
    """Does a CSV row hold this point (every axis of the point equal)?"""
    for a, v in point.items():
        if a in ("family", "variant", "name"):
            continue
        if str(row.get(a)) != v:
            return False
    return point["family"] == row["family"] and point["variant"] == row["variant"]


def _int(v):
    try:
        return int(v)
    except (TypeError, ValueError):
        return -1


ONE_POINT_FAMILIES = ["scan", "stencil", "stencil2d", "multistage", "pipeline",
                      "pipeline_intensity", "devscan"]
REP_THREADS = 256  # of the largest-n points: the block size nearest this
GEMM_SHAPES = [(4096, 4096), (512, 32768), (1024, 16384)]
CALIBRATION_AXES = {"block_threads": "256", "participants": "all",
                    "contention": "one_block_per_sm"}


def _best_from(rows, points, pick):
    """The point of `points` that the row `pick(rows)` holds, else None."""
    if not rows:
        return None
    row = pick(rows)
    return next((p for p in points if row is not None and same_axes(p, row)), None)


def latest_row(point, latest_rows):
    """latest.csv's row of the point, or None."""
    return next((r for r in latest_rows or [] if same_axes(point, r)), None)


def runs_in(point, latest_rows):
    """False when latest.csv holds the point with another status than ok
    (skipped, unsupported: no launch to profile); True otherwise."""
    row = latest_row(point, latest_rows)
    return row is None or row.get("status") == "ok"


def nearest_runnable(mine, rep, latest_rows):
    """The variant's point that shares the most axes with the family's
    representative point and runs (latest.csv: ok), sweep order breaking
    ties; None when no point shares every axis and none runs."""
    shared = [a for a in rep if a not in ("family", "variant", "name")]
    ranked = sorted(mine, key=lambda p: -sum(p.get(a) == rep[a] for a in shared if a in p))
    exact = [p for p in ranked if all(p.get(a) == rep[a] for a in shared if a in p)]
    for p in exact + ranked:
        if runs_in(p, latest_rows):
            return p
    return exact[0] if exact else None


def default_set(names, latest_rows=None):
    """The explain set, in the order it is profiled: the barrier
    calibration rows, one point per variant of each workload family (the
    baseline's point of largest n; devscan: the README's best tile shape
    there, from latest.csv), gemm at 4096^3 and the K-heavy shapes (the
    README's best configuration per variant when latest.csv has it). A
    point latest.csv holds as skipped or unsupported gives way to the
    variant's nearest point that ran."""
    pts = [parse_name(n) for n in names if n.count("/") >= 1]
    by_fam = {}
    for p in pts:
        by_fam.setdefault(p["family"], []).append(p)
    chosen = []
    for v in sbvariants.family("barrier").with_flag("calibration"):  # the table's calibration rows
        chosen += [p for p in by_fam.get("barrier", []) if p["variant"] == v
                   and all(p.get(a) == x for a, x in CALIBRATION_AXES.items())][:1]
    for fam in ONE_POINT_FAMILIES:
        fam_pts = by_fam.get(fam, [])
        if not fam_pts:
            continue
        base = sbvariants.baseline(fam) or fam_pts[0]["variant"]
        base_pts = [p for p in fam_pts if p["variant"] == base] or fam_pts
        n_max = max(_int(p.get("n")) for p in base_pts)
        biggest = [p for p in base_pts if _int(p.get("n")) == n_max]
        near = min(abs(_int(p.get("block_threads", REP_THREADS)) - REP_THREADS) for p in biggest)
        biggest = [p for p in biggest
                   if abs(_int(p.get("block_threads", REP_THREADS)) - REP_THREADS) == near]
        rep = biggest[len(biggest) // 2]  # the middle of the other axes' sweep
        for v in dict.fromkeys(p["variant"] for p in fam_pts):
            mine = [p for p in fam_pts if p["variant"] == v]
            pick = None
            if fam == answers.DEVSCAN and latest_rows:
                pick = _best_from(latest_rows, mine,
                                  lambda rows, v=v: answers.devscan_best(rows, n_max, v))
            if pick is None:
                pick = nearest_runnable(mine, rep, latest_rows)
            if pick is None:
                top = max(_int(p.get("n")) for p in mine)
                pick = next(p for p in mine if _int(p.get("n")) == top)
            chosen.append(pick)
    gemm = by_fam.get("gemm", [])
    for m, k in GEMM_SHAPES:
        here = [p for p in gemm if _int(p.get("m")) == m and _int(p.get("k")) == k]
        for v in dict.fromkeys(p["variant"] for p in here):
            mine = [p for p in here if p["variant"] == v]
            pick = _best_from(latest_rows, mine,
                              lambda rows, v=v: answers.gemm_best(rows, m, k, v)
                              if v != answers.GEMM_YARDSTICK else answers.gemm_cublas(rows, m, k))
            if pick is None:
                pick = next((p for p in mine if p.get("splits") == "auto"), mine[0])
            chosen.append(pick)
    return chosen


# ---- running ----

def batch_filter(points):
    """syncbench's --filter for exactly these points."""
    return "^(" + "|".join(re.escape(p["name"]) for p in points) + ")$"


def syncbench_args(binary, points, device, out_csv):
    """The profiled run: the batch's points in one process, each point's
    last warm-up launch in a profiler range opened by its marker kernel.
    out_csv: their rows (a file: syncbench refuses to write its CSV to a
    device such as /dev/null)."""
    return [binary, "--no-fork", "--unpaired", "--no-reference", "--device", str(device),
            "--warmup", str(WARMUP), "--min-time", "0.001", "--seed", "1", "--profile-warmup",
            "--filter", batch_filter(points), "--out", out_csv]


# Families and variant traits whose kernels keep state across launches
# (tickets, epoch-numbered flags and counters): --stateful-replay decides.
STATEFUL_FAMILIES = {"devscan"}
STATEFUL_FLAGS = ("split", "stream_k")


def stateful(point):
    fam, var = point["family"], point["variant"]
    return fam in STATEFUL_FAMILIES or any(
        sbvariants.has_flag(fam, var, f) for f in STATEFUL_FLAGS)


# How stateful points are replayed (--stateful-replay): kernel by default:
# ncu restores the memory a kernel writes before each pass, so a stateful
# launch (flags, tickets, launch-numbered counters) sees its first pass's
# state again; application replay (a fresh process per pass, 15 passes for
# this metric list) gave the same shares on an H100 (docs/history.md,
# "explain: kernel replay for the stateful points") at 1.6x the time.
STATEFUL_REPLAY = {"mode": "kernel"}


def replay_mode(point):
    """--stateful-replay's mode (application: a fresh process per pass) for
    stateful kernels, kernel (one process, ncu saves and restores memory
    between passes) otherwise."""
    return STATEFUL_REPLAY["mode"] if stateful(point) else "kernel"


def batches(points):
    """The points cut into ncu runs: one per family and replay mode, in
    the set's order (a run that fails costs its batch, not the set)."""
    out = {}
    for p in points:
        out.setdefault((p["family"], replay_mode(p)), []).append(p)
    return list(out.values())


def ncu_profile_args(ncu, report, batch, hopper, device, binary, drop=()):
    mets = [m for m in metrics(batch[0]["family"], hopper) if m not in drop]
    mode = replay_mode(batch[0])
    match = ["--app-replay-match", "grid"] if mode == "application" else []
    return [ncu, "--replay-mode", mode, *match,
            "--cache-control", "all", "--clock-control", "base", "--profile-from-start", "off",
            "--metrics", ",".join(mets), "-f", "-o", report,
            *syncbench_args(binary, batch, device, report + ".rows.csv")]


def ncu_import_args(ncu, report):
    return [ncu, "--import", report + ".ncu-rep", "--csv", "--page", "raw"]


# From the batched runs on an H100 (proofs/explain_301b97d): seconds
# to start a profiled process and per point in kernel replay; in
# application replay ncu ran this metric list in 15 passes, each a process
# start and every point of the batch again. Kernel replay also saves and
# restores the memory a kernel writes, once per pass: on an H200 at ccb87e3
# (proofs/round_ccb87e3, explain*.log.xz) the points that move 1-2 GiB
# (pipeline, pipeline_intensity, devscan at 256M) took 1.6-2.7 s a GiB more
# than the rest, so the default set's estimate, 2.2 min, fell short of its
# 3.1: REPLAY_S_PER_GIB, of each point's bytes_moved in latest.csv.
START_S, KERNEL_POINT_S, REPLAY_S_PER_GIB = 4.0, 1.2, 2.0
APP_PASSES, APP_START_S, APP_POINT_PASS_S = 15, 1.5, 0.45


def moved_gib(point, latest_rows):
    """The point's bytes_moved in latest.csv, in GiB (0 where it has none)."""
    row = latest_row(point, latest_rows)
    return ((row or {}).get("bytes_moved") or 0) / 2**30


def estimate_s(points, latest_rows=None):
    """Rough cost of the set, batch by batch (latest_rows: what each point
    moves, which kernel replay saves and restores)."""
    total = 0.0
    for b in batches(points):
        if replay_mode(b[0]) == "application":
            total += APP_PASSES * (APP_START_S + APP_POINT_PASS_S * len(b))
        else:
            total += START_S + sum(KERNEL_POINT_S + REPLAY_S_PER_GIB * moved_gib(p, latest_rows) for p in b)
    return total


class Stop(Exception):
    def __init__(self, status, line):
        super().__init__(line)
        self.status, self.line = status, line


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout, check=False)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or "") if isinstance(e.stdout, str) else ""


def row_outcomes(path):
    """{'family/variant': [rows]} from the profiled run's own CSV."""
    out = {}
    try:
        for r in sbcsv.read(path):
            name = "/".join([r["family"], r["variant"]])
            out.setdefault(name, []).append(r)
    except (OSError, sbcsv.CsvError):
        return {}
    return out


def why_unmarked(point, outcomes):
    """Why a point of the batch has no profiled launch: its row's status."""
    for r in outcomes.get(f"{point['family']}/{point['variant']}", []):
        if same_axes(point, r):
            return f"no profiled launch (its row: {r.get('status')}: {r.get('detail') or '-'})"
    return "no profiled launch (no row: the run ended before it)"


def profile_batch(args, ncu, batch, index, drop, hopper, ncudir):
    """{point name: measured columns} and {point name: why it failed} for
    one ncu run over the batch; raises Stop on a counter permission error.
    index: the batch's points' places in the run's point list."""
    fam, mode = batch[0]["family"], replay_mode(batch[0])
    base = os.path.join(ncudir, f"{fam}_{mode}")
    for _ in range(3):
        cmd = ncu_profile_args(ncu, base, batch, hopper, args.device, args.binary, drop)
        rc, out = run(cmd, args.batch_timeout)
        with open(base + ".log", "w", encoding="utf-8") as f:
            f.write(out)
        if PERM_ERROR in out:
            raise Stop(EXIT_PERM, "explain.py: ncu may not read the GPU's performance counters "
                       f"({PERM_ERROR}): run as root or set NVreg_RestrictProfilingToAdminUsers=0")
        missing = re.findall(r"Failed to find metric\s+'?([A-Za-z0-9_.]+)", out)
        if missing and not set(missing) <= drop:
            drop.update(missing)
            print(f"explain.py: this ncu/GPU lacks {', '.join(missing)}; left out from here on")
            continue
        break
    rc_import, text = run(ncu_import_args(ncu, base), args.batch_timeout)
    with open(base + ".csv", "w", encoding="utf-8") as f:
        f.write(text)
    try:
        groups = marked_groups(parse_ncu_csv(text))
    except ValueError as e:
        return {}, {p["name"]: f"{e} ({base}.csv)" for p in batch}
    outcomes = row_outcomes(base + ".rows.csv")
    measured, failed = {}, {}
    for p in batch:
        g = groups.get(index.get(p["name"], -1))
        if g:
            measured[p["name"]] = combine(g, fam)
        elif rc != 0:
            tail = " | ".join(out.strip().splitlines()[-3:])
            failed[p["name"]] = f"ncu exit {rc}: {tail}"
        else:
            failed[p["name"]] = why_unmarked(p, outcomes)
    return measured, failed


def provenance(binary, device):
    prov = dict.fromkeys(PROVENANCE, "")
    rc, out = run(["nvidia-smi", "-i", str(device), "--query-gpu=name,uuid,driver_version,compute_cap",
                   "--format=csv,noheader"], 30) if shutil.which("nvidia-smi") else (1, "")
    cc = None
    if rc == 0 and out.strip():
        f = [x.strip() for x in out.strip().splitlines()[0].split(",")]
        if len(f) >= 4:
            prov.update(gpu_name=f[0], gpu_uuid=f[1], driver=f[2])
            cc = number(f[3])
    rc, out = run([binary, "--version"], 30)
    m = re.search(r"^commit (\S+)", out, re.M)
    prov["commit"] = m.group(1) if m else "unknown"
    m = re.search(r"cuda runtime (\S+)", out)
    prov["cuda"] = m.group(1) if m else ""
    prov["run_utc"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return prov, cc


def ncu_version(ncu):
    rc, out = run([ncu, "--version"], 30)
    m = re.search(r"Version (\S+)", out)
    return m.group(1) if m else (out.strip().splitlines() or [""])[-1]


def list_points(binary):
    rc, out = run([binary, "--benchmark_list_tests"], 60)
    if rc != 0:
        raise Stop(EXIT_USAGE, f"explain.py: {binary} --benchmark_list_tests failed (exit {rc})")
    return [ln for ln in out.splitlines() if "/" in ln]


def load_latest(path):
    if path and os.path.exists(path):
        try:
            return sbcsv.read(path)
        except sbcsv.CsvError as e:
            print(f"explain.py: {e}; choosing points without it")
    return None


def batch_index(names, batch):
    """{point name: its place in the batch run's point list}: syncbench's
    --filter keeps the sweep's order and --no-reference drops the copy, so
    the place is the point's rank among the batch's points in `names`
    (--benchmark_list_tests), the number its marker kernel carries."""
    wanted = {p["name"] for p in batch}
    return {n: k for k, n in enumerate(n for n in names if n in wanted)}


def choose_points(args, names, latest_rows):
    """The default explain set, or with --any-point every sweep point;
    --filter narrows either (a second run for the points a budget skipped
    takes the same set, narrowed)."""
    points = ([parse_name(n) for n in names] if args.any_point
              else default_set(names, latest_rows))
    if args.filter:
        rx = re.compile(args.filter)
        points = [p for p in points if rx.search(p["name"])]
    return points


def profile_all(args):
    if not os.access(args.binary, os.X_OK):
        raise Stop(EXIT_USAGE, f"explain.py: no syncbench at {args.binary} (make, or --binary PATH)")
    ncu = shutil.which(args.ncu)
    if ncu is None and not args.dry_run:
        raise Stop(EXIT_NO_NCU, f"explain.py: ncu not found ({args.ncu}): install Nsight Compute "
                   "(CUDA Toolkit) or put it on PATH")
    ncu = ncu or args.ncu
    if args.outdir is None:
        rc, out = run([args.binary, "--print-gpu-slug", "--device", str(args.device)], 60)
        slug = out.strip().splitlines()[-1] if rc == 0 and out.strip() else "unknown-gpu"
        args.outdir = os.path.join(ROOT, "results", slug)
    latest = args.latest or os.path.join(args.outdir, "latest.csv")
    latest_rows = load_latest(latest)
    names = list_points(args.binary)
    points = choose_points(args, names, latest_rows)
    if not points:
        raise Stop(EXIT_USAGE, "explain.py: no point selected (see --filter, syncbench --list)")
    est = estimate_s(points, latest_rows)
    runs = batches(points)
    n_app = sum(replay_mode(p) == "application" for p in points)
    print(f"explain.py: {len(points)} points ({n_app} in application "
          f"replay) in {len(runs)} ncu runs, about {est / 60:.1f} min "
          f"(budget {args.budget:.0f} s: runs not started by then are reported, not run)")
    ncudir = os.path.join(args.outdir, "ncu")
    if args.dry_run:
        for b in runs:
            rep = os.path.join(ncudir, f"{b[0]['family']}_{replay_mode(b[0])}")
            print(shlex.join(ncu_profile_args(ncu, rep, b, True, args.device, args.binary)))
        return 0
    os.makedirs(ncudir, exist_ok=True)
    prov, cc = provenance(args.binary, args.device)
    hopper = cc is None or cc >= 9.0
    version = ncu_version(ncu)
    stalls = os.path.join(args.outdir, "stalls.csv")
    try:
        earlier = earlier_rows(stalls)  # a second run (--filter) adds its points to the first's
    except ValueError as e:
        print(f"explain.py: {e}", file=sys.stderr)
        return EXIT_USAGE
    rows, failed, skipped, drop = [], [], [], set()
    t0 = time.monotonic()
    try:
        for i, b in enumerate(runs):
            if time.monotonic() - t0 > args.budget:
                skipped = [p for later in runs[i:] for p in later]
                break
            t = time.monotonic()
            print(f"explain.py: [{i + 1}/{len(runs)}] {b[0]['family']}, {len(b)} points, "
                  f"{replay_mode(b[0])} replay", flush=True)
            index = batch_index(names, b)
            measured, why = profile_batch(args, ncu, b, index, drop, hopper, ncudir)
            for p in b:
                if p["name"] in measured:
                    row = {c: p.get(c, "") for c in key_columns()}
                    row.update(measured[p["name"]], ncu_version=version, **prov)
                    rows.append(row)
                else:
                    print(f"explain.py: {p['name']}: FAILED: {why[p['name']]}")
                    failed.append(p["name"])
            print(f"explain.py: [{i + 1}/{len(runs)}] {len(measured)} of {len(b)} measured in "
                  f"{time.monotonic() - t:.0f} s", flush=True)
            write_csv(stalls, merged(earlier, rows))
    finally:
        if rows:
            write_csv(stalls, merged(earlier, rows))
    print(f"explain.py: {time.monotonic() - t0:.0f} s in all")
    if skipped:
        print(f"explain.py: budget spent: {len(skipped)} points not run: "
              + ", ".join(p["name"] for p in skipped))
    if rows:
        for path in plot(stalls, latest_rows, os.path.join(args.outdir, "plots")):
            print(f"explain.py: wrote {os.path.relpath(path)}")
        print(f"explain.py: wrote {os.path.relpath(stalls)} ({len(rows)} rows measured, "
              f"{len(merged(earlier, rows)) - len(rows)} kept from before)")
    if failed:
        print(f"explain.py: {len(failed)} point(s) failed: {', '.join(failed)}")
        return EXIT_FAILED
    return 0


# ---- picture ----

def reason_colors():
    """One colour per reason, the same in every figure."""
    import matplotlib
    cmap = matplotlib.colormaps["tab20"]
    return {r: matplotlib.colors.to_hex(cmap(i % 20)) for i, r in enumerate(REASONS)}


def sweep_time(row, latest_rows):
    """The point's median_us in the sweep CSV, else None."""
    for r in latest_rows or []:
        if r["family"] == row["family"] and r["variant"] == row["variant"] and all(
                str(r.get(a)) == str(row.get(a)) for a in key_columns()[2:] if row.get(a) not in (None, "")):
            return r.get("median_us")
    return None


BARS = {}  # path -> the bars a figure drew (labels, segments), for the tests


def plot(stalls_csv, latest_rows, outdir):
    """plots/<family>_stalls.png per family: one stacked bar per point."""
    import sbplot
    import matplotlib.pyplot as plt
    rows = read_stalls(stalls_csv)
    os.makedirs(outdir, exist_ok=True)
    colors = reason_colors()
    written = []
    for fam in dict.fromkeys(r["family"] for r in rows):
        mine = [r for r in rows if r["family"] == fam]
        labels = []
        for r in mine:
            extra = f" ({r['m']}x{r['m']}x{r['k']})" if fam == "gemm" else ""
            labels.append(r["variant"] + extra)
        used = [x for x in REASONS if any((r.get(f"share_{x}") or 0) > 0.005 for r in mine)]
        fig, ax = plt.subplots(figsize=(9, 1.2 + 0.38 * len(mine)))
        left = [0.0] * len(mine)
        for x in used:
            vals = [r.get(f"share_{x}") or 0.0 for r in mine]
            ax.barh(range(len(mine)), vals, left=left, color=colors[x], label=x)
            left = [a + b for a, b in zip(left, vals)]
        for i, r in enumerate(mine):
            t = sweep_time(r, latest_rows)
            text = (f"{t:.1f} us (sweep)" if t is not None else
                    f"{r['duration_us']:.1f} us (ncu)" if r.get("duration_us") else "")
            ax.text(1.01, i, text, va="center", fontsize=7)
        ax.set_yticks(range(len(mine)), labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.set_xlabel("share of warp cycles (Nsight Compute warp states)")
        gpu = next((r.get("gpu_name") for r in mine if r.get("gpu_name")), "")
        fig.suptitle(f"{fam}: where the warps wait{f' ({gpu})' if gpu else ''}", fontsize=10)
        sbplot.legend_outside(fig, [ax], ncol=6, fontsize=7)
        out = os.path.join(outdir, f"{fam}_stalls.png")
        BARS[os.path.abspath(out)] = {"labels": labels, "segments": len(ax.patches)}
        written.append(sbplot.save(fig, out))
    return written


# ---- README lines: answers.readme_lines, on sbstalls ----

readme_lines = answers.readme_lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "syncbench"))
    ap.add_argument("--ncu", default="ncu")
    ap.add_argument("--device", type=int, default=0)
    ap.add_argument("--outdir", help="default: results/<gpu-slug>")
    ap.add_argument("--latest", help="the sweep CSV (default: OUTDIR/latest.csv)")
    ap.add_argument("--filter", help="profile only the points of the set whose name this regex "
                                     "matches")
    ap.add_argument("--any-point", action="store_true",
                    help="choose from every point of the sweep, not the default explain set "
                         "(with --filter)")
    ap.add_argument("--budget", type=float, default=280.0,
                    help="seconds after which no new ncu run starts (default 280)")
    ap.add_argument("--batch-timeout", type=float, default=600.0,
                    help="seconds one ncu run may take (default 600)")
    ap.add_argument("--stateful-replay", choices=("application", "kernel"), default="kernel",
                    help="ncu's replay mode for stateful kernels (default kernel)")
    ap.add_argument("--dry-run", action="store_true", help="print the ncu commands, run nothing")
    ap.add_argument("--readme-lines", metavar="STALLS_CSV")
    ap.add_argument("--plot", metavar="STALLS_CSV")
    args = ap.parse_args(argv)
    STATEFUL_REPLAY["mode"] = args.stateful_replay
    try:
        if args.readme_lines or args.plot:
            path = args.readme_lines or args.plot
            try:
                stalls = read_stalls(path)
                latest = load_latest(args.latest or os.path.join(os.path.dirname(path), "latest.csv"))
            except sbcsv.CsvError as e:
                print(f"explain.py: {e}", file=sys.stderr)
                return EXIT_USAGE
            if not stalls:
                print(f"explain.py: {path}:2: no rows after the header: nothing to plot or quote",
                      file=sys.stderr)
                return EXIT_USAGE
            if args.readme_lines:
                for line in readme_lines(stalls, latest):
                    print(line)
            else:
                for p in plot(path, latest, args.outdir or os.path.join(os.path.dirname(path), "plots")):
                    print(f"explain.py: wrote {p}")
            return 0
        return profile_all(args)
    except Stop as e:
        print(e.line)
        return e.status
    except KeyboardInterrupt:
        print("explain.py: interrupted; rows already measured are in stalls.csv")
        return 130


if __name__ == "__main__":
    sys.exit(main())
