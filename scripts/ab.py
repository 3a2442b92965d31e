#!/usr/bin/env python3
"""A/B run of two builds of syncbench on one GPU, interleaved point by point,
then gated (issue 27): a change that does nothing cannot fail the gate,
because both sides of every point ran on the same chip, at the same clocks,
power and temperature, with the same inputs.

    scripts/ab.py --base REV [--new REV] [--device N] [--dir DIR]
        [--threshold PCT] [--summary FILE] [--detail FILE]
        [--base-bin PATH] [--new-bin PATH] [--seed S] [--python PY]
        [--first-server base|new] [--halves | --no-halves] [--retake PCT]
        [--allow-unjudged] [--build-only] [--repo DIR]
        [--base-env NAME=VALUE ...] [--new-env NAME=VALUE ...] [-- SWEEP_ARGS...]
    make ab BASE=REV [NEW=REV] [DEVICE=N] [ABDIR=DIR] [THRESHOLD=PCT] [RETAKE=PCT]
        [ALLOW_UNJUDGED=1] [ARGS="..."]

BASE is a git revision; NEW another one, or (left out) the working tree.
A revision is built from `git archive` in build/ab/<sha12>/src (built once:
a later run of the same commit reuses it); the working tree with `make
build/syncbench` in the repository. Build output: build/ab/<name>.build.log.
--base-bin/--new-bin use a prebuilt binary instead (a GPU machine without
Google Benchmark); the revision then only names the side. --base-env and
--new-env NAME=VALUE (repeatable) set a variable in that side's server
only: an A/B of a setting on one binary (SB_CONTEXTS=16 against 64, say),
recorded in ab.txt.

Both binaries run as servers (`syncbench --serve`, same --seed, same
--device), each sets its worker up (`@start`: its CUDA context) before the
first point, --first-server's side first (the order is recorded: a
context's memory placement moves some rows, docs/REGRESSIONS.md); the points of both sweeps (`--benchmark_list_tests SWEEP_ARGS`)
are walked in sweep order. With --halves (not the default: it measured
worse, docs/REGRESSIONS.md) each side's
samples of a common point are taken in two halves (`@part 1/2 NAME`,
`@part 2/2 NAME`: each half of --min-time, pooled into one row), in the
order A1 B1 B2 A2 for even k and B1 A1 A2 B2 for odd k, so that both sides'
samples straddle the same moment of the GPU's power-cap ramp (the side run
second at a point used to run later in it, and slower: docs/REGRESSIONS.md,
"A/B on one GPU"); a side whose part 1 ends the point (wrong, error...)
is not asked its part 2. By default (--no-halves), or when a server does not
speak `@part` (a build older than it: then noted), point k runs whole on
BASE then NEW for even k and NEW then BASE for odd k. ab.txt records the
protocol that ran. A point only one side has runs whole on that side only
and is listed (DIR/ab.txt, stderr). A server that dies is restarted with
--resume; its point is lost on that side and listed.

Retakes (whole points only; --retake PCT, default 2.5, 0 turns them off):
a common point ok on both sides whose gated figure (the one compare.py
--gate --interleaved reads: sbcompare.match_of) moved by PCT% or more,
B against A, runs again whole on both sides in the swapped order. Each side
keeps the take in which it ran first at the point (the first side's take
1, the second side's retake): both kept takes ran in the same position, so
the order effect (the side run second sat later in the power-cap ramp,
docs/REGRESSIONS.md) cancels, and which take was faster never decides. A
retake that is not ok is kept whatever its position (a broken row is never
hidden; a server that dies in it loses the point there, as ever). At most
max(10, 5% of the common points) retakes a run; past that, none (noted).
After a complete walk DIR/a.takes.csv and DIR/b.takes.csv keep every take
as the servers wrote them, and a.csv and b.csv are rewritten to one row per
point, the rest byte for byte (an interrupted run leaves them raw).

Then `scripts/compare.py --gate DIR/a.csv DIR/b.csv` (with --interleaved when
compare.py has it) writes the summary (default DIR/gate.md) and the detail
(DIR/gate-detail.md); a variant with no band (no A/A data) fails it unless
--allow-unjudged (a new variant's first run). DIR (default build/ab/run) also keeps a.csv, b.csv,
the takes, the servers' stderr (a.log, b.log) and ab.txt: both builds, the
GPU, the seed, the point counts, the one-sided and lost points, the
retakes, the wall times.

Exit status:
  0    the gate passes, every point of both sides ran
  1    a regression, a wrong/error/deadlock row on either side, a point lost
       to a server that died, a gate that could not compare the CSVs, or
       CSVs that could not be rewritten to their kept takes
  2    bad usage: arguments, a revision that does not exist, --new REV with
       uncommitted changes (they would be left out), sweep arguments a side
       refuses, the two servers on different GPUs
  3    no usable GPU (a server exited 3 before `ready`)
  4    the point lists differ: BASE has points NEW lacks (coverage lost);
       after the run and the gate, and only when nothing above is 1
  5    a side does not build, or cannot serve (a build older than A/B
       support: `--serve` unknown)
  130  interrupted (SIGINT/SIGTERM): both servers stopped, CSVs kept as the
       servers wrote them (a retaken point's both takes in them)
Every failure is one line on stderr starting `ab: `.
"""
from __future__ import annotations

import argparse
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library
import sbcompare  # noqa: E402
import sbcsv  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_NO_GPU, EXIT_LISTS, EXIT_BUILD = 0, 1, 2, 3, 4, 5
EXIT_INTERRUPTED = 130
# What a server answers per point; the last three cost the point on that side.
GOOD = {"ok", "skipped", "unsupported"}
BROKEN = {"wrong", "error", "deadlock"}
# A side whose server dies this many points in a row is given up.
MAX_DEATHS_IN_A_ROW = 3
LIST_SHOWN = 5
# Retakes: the default threshold (--retake, percent), and the cap: at most
# max(RETAKE_CAP_MIN, RETAKE_CAP_SHARE of the common points) a run, so that a
# real change moving many points does not double the run's time.
RETAKE_PCT = 2.5
RETAKE_CAP_MIN = 10
RETAKE_CAP_SHARE = 0.05
ENV_SPEC = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")  # --base-env / --new-env
# Options of syncbench that ab.py gives the servers itself, never SWEEP_ARGS.
RESERVED = {"--out", "--resume", "--serve", "--seed", "--device", "--devices",
            "--benchmark_list_tests", "--benchmark_out", "--benchmark_format", "--no-fork"}


class AbError(Exception):
    """One line on stderr (`ab: ...`) and an exit status."""

    def __init__(self, status, line):
        super().__init__(line)
        self.status, self.line = status, line


class Interrupted(Exception):
    pass


def note(line):
    print(f"ab: {line}", file=sys.stderr, flush=True)


def short_list(names, limit=LIST_SHOWN):
    shown = ", ".join(names[:limit])
    return shown + (f" ... and {len(names) - limit} more" if len(names) > limit else "")


def mmss(seconds):
    seconds = int(seconds)
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


# ------------------------------------------------------------ arguments

class Parser(argparse.ArgumentParser):
    def error(self, message):
        """A usage error is one line too (`ab: ...`), exit 2."""
        print(f"ab: {message} (see scripts/ab.py --help)", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def parse_args(argv):
    if "--" in argv:
        cut = argv.index("--")
        argv, sweep = argv[:cut], argv[cut + 1:]
    else:
        sweep = []
    ap = Parser(
        prog="ab.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n")[0],
        epilog="Exit status:" + __doc__.split("Exit status:")[1])
    ap.add_argument("--base", metavar="REV", required=True, help="the base revision")
    ap.add_argument("--new", metavar="REV",
                    help="the new revision (default: the working tree, uncommitted changes included)")
    ap.add_argument("--device", metavar="N", type=int, default=0, help="GPU index (default 0)")
    ap.add_argument("--dir", metavar="DIR",
                    help="where the CSVs, logs, gate files and ab.txt go (default REPO/build/ab/run)")
    ap.add_argument("--threshold", metavar="PCT", default="5",
                    help="the gate's threshold in percent (default 5)")
    ap.add_argument("--summary", metavar="FILE", help="the gate's summary (default DIR/gate.md)")
    ap.add_argument("--detail", metavar="FILE", help="the gate's detail (default DIR/gate-detail.md)")
    ap.add_argument("--base-bin", metavar="PATH", help="a prebuilt BASE binary: do not build BASE")
    ap.add_argument("--new-bin", metavar="PATH", help="a prebuilt NEW binary: do not build NEW")
    ap.add_argument("--first-server", choices=("base", "new"), default="base",
                    help="whose worker (CUDA context) starts first: the side asked first at the first common point (default base)")
    ap.add_argument("--halves", action=argparse.BooleanOptionalAction, default=False,
                    help="take each side's samples of a common point in two halves, A1 B1 B2 A2 "
                         "(even points) / B1 A1 A2 B2 (odd); --no-halves (the default): whole "
                         "points, A B / B A. Halves measured worse on an H100 (docs/REGRESSIONS.md)")
    ap.add_argument("--retake", metavar="PCT", type=float, default=RETAKE_PCT,
                    help=f"whole points: a common point whose gated figure moved by PCT%% or more "
                         f"runs again on both sides in the swapped order, each side keeping its "
                         f"take in first position; at most max({RETAKE_CAP_MIN}, "
                         f"{RETAKE_CAP_SHARE * 100:g}%% of the common points) a run; 0: never "
                         f"(default {RETAKE_PCT:g}; not with --halves)")
    ap.add_argument("--allow-unjudged", action="store_true",
                    help="a point of a variant with no A/A data (no band) does not fail the gate "
                         "(compare.py --allow-unjudged): for a new variant's first A/A run")
    for role in ("base", "new"):
        ap.add_argument(f"--{role}-env", metavar="NAME=VALUE", action="append", default=[],
                        help=f"set NAME to VALUE in the {role.upper()} server's environment only "
                             f"(repeatable)")
    ap.add_argument("--build-only", action="store_true",
                    help="build both sides, print their binaries (BASE then NEW) and exit 0: "
                         "how a GPU node without Google Benchmark gets them (make bundle-ab)")
    ap.add_argument("--seed", metavar="S", type=int,
                    help="the input seed both sides use (default: a fresh random one)")
    ap.add_argument("--python", metavar="PY", default=sys.executable,
                    help="the interpreter for compare.py (default: this one)")
    ap.add_argument("--repo", metavar="DIR", default=os.path.dirname(HERE),
                    help="the git repository to build from (default: the one holding this script)")
    ap.add_argument("--compare", metavar="PATH", default=os.path.join(HERE, "compare.py"),
                    help="the gate script (default: compare.py beside this script)")
    args = ap.parse_args(argv)
    args.sweep = sweep
    for arg in sweep:
        if arg.split("=")[0] in RESERVED:
            ap.error(f"{arg} after --: ab.py sets the servers' {arg.split('=')[0]} itself "
                     f"(SWEEP_ARGS select points: --quick, --filter, axes)")
    args.repo = os.path.abspath(args.repo)
    args.dir = os.path.abspath(args.dir or os.path.join(args.repo, "build", "ab", "run"))
    if args.seed is not None and args.seed < 0:
        ap.error("--seed is a non-negative integer")
    try:
        if not 0 <= float(args.threshold.rstrip("%")) < 1000:
            raise ValueError
    except ValueError:
        ap.error(f"--threshold {args.threshold}: a percentage between 0 and 1000")
    if not 0 <= args.retake < 1000:
        ap.error(f"--retake {args.retake:g}: a percentage between 0 and 1000 (0: no retakes)")
    for role in ("base", "new"):
        for spec in getattr(args, f"{role}_env"):
            if not ENV_SPEC.match(spec):
                ap.error(f"--{role}-env {spec}: NAME=VALUE, NAME a variable's name")
    return args


# ------------------------------------------------------------ revisions and builds

def git(repo, *args, **kw):
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, **kw)


def resolve(repo, rev):
    """The full sha of rev, or None when it names no commit."""
    try:
        p = git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except OSError:
        return None
    sha = p.stdout.strip()
    return sha if p.returncode == 0 and sha else None


def tracked_changes(repo):
    p = git(repo, "status", "--porcelain", "--untracked-files=no")
    if p.returncode != 0:
        raise AbError(EXIT_USAGE, f"{repo}: git status failed: {p.stderr.strip()}")
    return [line[3:] for line in p.stdout.splitlines() if line.strip()]


class Side:
    """One build of syncbench and its server."""

    def __init__(self, label, role, rev):
        self.label, self.role, self.rev = label, role, rev  # rev None: the working tree
        self.sha = None
        self.binary = None
        self.built = ""             # how the binary came to be
        self.points = []
        self.proc = None
        self.uuid = self.commit = None
        self.csv = self.log = None
        self.dropped = []           # (start, end): CSV bytes of the takes not kept
        self.lost = []              # points lost to a server death
        self.bad = []               # (status, name): wrong/error/deadlock/unknown
        self.deaths = 0
        self.deaths_in_a_row = 0
        self.busy = 0.0             # seconds its server spent on requests
        self.env = {}               # --base-env / --new-env: set in its server only

    @property
    def name(self):
        rev = "the working tree" if self.rev is None else self.rev
        sha = f" = {self.sha[:12]}" if self.sha and self.rev != self.sha[:12] else ""
        return f"{self.role} ({rev}{sha})"


def jobs():
    return str(os.cpu_count() or 1)


def run_logged(cmd, log, **kw):
    with open(log, "a", encoding="utf-8") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, **kw).returncode


def build_rev(repo, side, cache):
    sha12 = side.sha[:12]
    if sha12 in cache:
        side.binary, side.built = cache[sha12], "the same build as the other side"
        return
    root = os.path.join(repo, "build", "ab", sha12)
    src = os.path.join(root, "src")
    binary = os.path.join(src, "build", "syncbench")
    stamp = os.path.join(root, "built")
    log = os.path.join(repo, "build", "ab", f"{sha12}.build.log")
    if os.path.exists(stamp) and os.access(binary, os.X_OK):
        note(f"{side.name}: reusing {os.path.relpath(binary, repo)}")
        side.binary, side.built = binary, f"reused {os.path.relpath(binary, repo)}"
        cache[sha12] = binary
        return
    note(f"building {side.name} in {os.path.relpath(src, repo)} "
         f"(log: {os.path.relpath(log, repo)})")
    if os.path.exists(root):
        subprocess.run(["rm", "-rf", root], check=False)
    os.makedirs(src)
    open(log, "w").close()
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"$ git archive {side.sha} | tar -x -C {src}\n")
        f.flush()
        archive = subprocess.Popen(["git", "-C", repo, "archive", side.sha],
                                   stdout=subprocess.PIPE, stderr=f)
        tar = subprocess.run(["tar", "-x", "-C", src], stdin=archive.stdout, stdout=f, stderr=f)
        archive.stdout.close()
        ok = archive.wait() == 0 and tar.returncode == 0
    if ok:
        ok = run_logged(["make", "-C", src, f"COMMIT={sha12}", f"-j{jobs()}", "build/syncbench"],
                        log) == 0
    if not ok or not os.access(binary, os.X_OK):
        raise AbError(EXIT_BUILD, f"{side.name} does not build: see {log}")
    open(stamp, "w").close()
    side.binary, side.built = binary, f"built in {os.path.relpath(src, repo)}"
    cache[sha12] = binary


def build_worktree(repo, side):
    log = os.path.join(repo, "build", "ab", "worktree.build.log")
    note(f"building {side.name} in {repo} (log: {os.path.relpath(log, repo)})")
    open(log, "w").close()
    binary = os.path.join(repo, "build", "syncbench")
    if run_logged(["make", "-C", repo, f"-j{jobs()}", "build/syncbench"], log) != 0 \
            or not os.access(binary, os.X_OK):
        raise AbError(EXIT_BUILD, f"{side.name} does not build: see {log}")
    side.binary, side.built = binary, "built in the working tree"


def prepare(args, base, new):
    """Resolves the revisions, refuses what cannot be done, builds."""
    for side, prebuilt in ((base, args.base_bin), (new, args.new_bin)):
        if side.rev is not None:
            side.sha = resolve(args.repo, side.rev)
            if side.sha is None and not prebuilt:
                flag = "--base" if side is base else "--new"
                raise AbError(EXIT_USAGE, f"{flag} {side.rev}: no such commit in {args.repo}")
        if prebuilt:
            if not (os.path.isfile(prebuilt) and os.access(prebuilt, os.X_OK)):
                flag = "--base-bin" if side is base else "--new-bin"
                raise AbError(EXIT_USAGE, f"{flag} {prebuilt}: not an executable file")
            side.binary, side.built = os.path.abspath(prebuilt), "prebuilt"
    if new.rev is not None and not args.new_bin:
        changed = tracked_changes(args.repo)
        if changed:
            raise AbError(EXIT_USAGE,
                          f"the working tree has uncommitted changes to {len(changed)} tracked "
                          f"file(s) ({short_list(changed, 3)}) that --new {new.rev} would leave "
                          f"out: commit or stash them, or leave NEW unset to test the working tree")
    if base.binary is None or new.binary is None:
        os.makedirs(os.path.join(args.repo, "build", "ab"), exist_ok=True)
    cache = {}
    for side in (base, new):
        if side.binary is None:
            if side.rev is None:
                build_worktree(args.repo, side)
            else:
                build_rev(args.repo, side, cache)


# ------------------------------------------------------------ point lists

def list_points(side, sweep):
    try:
        p = subprocess.run([side.binary, "--benchmark_list_tests", *sweep], capture_output=True,
                           text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise AbError(EXIT_BUILD, f"{side.name}: {side.binary} --benchmark_list_tests: {e}") \
            from None
    why = (p.stderr.strip().splitlines() or [""])[-1]
    if p.returncode == 2:
        raise AbError(EXIT_USAGE, f"{side.name} refuses the sweep arguments "
                                  f"{' '.join(sweep) or '(none)'}: {why}")
    if p.returncode != 0:
        raise AbError(EXIT_BUILD, f"{side.name}: {side.binary} --benchmark_list_tests exited "
                                  f"{p.returncode}: {why}")
    side.points = [line.strip() for line in p.stdout.splitlines() if line.strip()]
    if not side.points:
        raise AbError(EXIT_USAGE, f"{side.name}: the sweep arguments "
                                  f"{' '.join(sweep) or '(none)'} select no point")


def walk_order(base_points, new_points):
    """Every point once, in sweep order: BASE's order, each NEW-only point
    after the common point that precedes it in NEW's list."""
    in_base = set(base_points)
    after = {}
    last = None
    for name in new_points:
        if name in in_base:
            last = name
        else:
            after.setdefault(last, []).append(name)
    order = list(after.get(None, []))
    for name in base_points:
        order.append(name)
        order.extend(after.get(name, []))
    return order


# ------------------------------------------------------------ servers

def last_log_line(side):
    try:
        with open(side.log, encoding="utf-8", errors="replace") as f:
            lines = [line.strip() for line in f if line.strip()]
        return lines[-1] if lines else "(nothing on stderr)"
    except OSError:
        return "(no log)"


def start(side, args, seed, resume=False):
    cmd = [side.binary, "--serve", "--resume" if resume else "--out", side.csv,
           "--seed", str(seed), "--device", str(args.device), *args.sweep]
    with open(side.log, "a", encoding="utf-8") as log:
        log.write(f"ab: $ {' '.join(cmd)}\n")
        log.flush()
        try:
            # Its own session: a terminal's Ctrl-C reaches ab.py only, which
            # stops the servers itself (else a dying server would look like a
            # crash to restart).
            side.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=log, text=True, bufsize=1,
                                         start_new_session=True, env=dict(os.environ, **side.env))
        except OSError as e:
            raise AbError(EXIT_BUILD, f"{side.name}: cannot start {side.binary}: "
                                      f"{e.strerror or e}") from None


def await_ready(side):
    line = side.proc.stdout.readline()
    if not line:
        rc = side.proc.wait()
        if rc == EXIT_NO_GPU:
            raise AbError(EXIT_NO_GPU, f"no usable GPU: the {side.name} server exited 3: "
                                       f"{last_log_line(side)}")
        hint = (" (a build older than A/B support does not know --serve)"
                if rc == EXIT_USAGE else "")
        raise AbError(EXIT_BUILD, f"{side.name} cannot serve: {side.binary} --serve exited "
                                  f"{rc} before `ready`{hint}: {last_log_line(side)} "
                                  f"(log: {side.log})")
    words = line.split()
    if len(words) < 3 or words[0] != "ready":
        raise AbError(EXIT_BUILD, f"{side.name} cannot serve: its first answer is "
                                  f"'{line.strip()}', not `ready <gpu_uuid> <commit>`")
    uuid, commit = words[1], words[2]
    if side.uuid is not None and uuid != side.uuid:
        raise AbError(EXIT_USAGE, f"the restarted {side.name} server runs on {uuid}, "
                                  f"before on {side.uuid}")
    side.uuid, side.commit = uuid, commit


def signal_group(proc, how):
    """A signal to a server and its worker processes (its own session)."""
    try:
        os.killpg(proc.pid, how)
    except OSError:
        pass


def stop(side, how=signal.SIGINT, grace=10):
    """Ends a server: stdin closed (its EOF), or a signal; killed past
    grace. Whatever is left of its process group (a worker outliving a
    server that died) is killed too."""
    proc, side.proc = side.proc, None
    if proc is None:
        return None
    if proc.poll() is None and how is not None:
        signal_group(proc, how)
    for stream in (proc.stdin, proc.stdout):
        try:
            stream.close()
        except (OSError, BrokenPipeError):
            pass
    try:
        rc = proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        signal_group(proc, signal.SIGKILL)
        rc = proc.wait()
    signal_group(proc, signal.SIGKILL)
    return rc


def request_line(name, part):
    """What a server is asked: the point whole (part None) or one half."""
    return name if part is None else f"@part {part}/2 {name}"


def ask(side, name, part=None):
    """(status, median_us or None), or None when the server died. Part 1
    of a point that goes on answers ("partial", None)."""
    request = request_line(name, part)
    try:
        side.proc.stdin.write(request + "\n")
        side.proc.stdin.flush()
        line = side.proc.stdout.readline()
    except (BrokenPipeError, OSError, ValueError):
        return None
    if not line:
        return None
    parts = line.rstrip("\n").split(" ", 2)
    if len(parts) != 3 or parts[2] != name:
        raise AbError(EXIT_BUILD, f"{side.name} answered '{line.strip()}' to '{request}' "
                                  f"(expected `<status> <median_us or -> {name}`)")
    status, median = parts[0], parts[1]
    if status == "partial" and part == 1:
        return status, None
    if status not in GOOD | BROKEN | {"unknown"}:
        raise AbError(EXIT_BUILD, f"{side.name} answered an unknown status '{status}' "
                                  f"for {name}")
    try:
        value = None if median == "-" else float(median)
    except ValueError:
        raise AbError(EXIT_BUILD, f"{side.name} answered '{line.strip()}': "
                                  f"'{median}' is not a time") from None
    return status, value


def start_context(side):
    """--serve's `@start`: the server sets its worker up (CUDA context,
    stream, buffers) and runs nothing."""
    try:
        side.proc.stdin.write("@start\n")
        side.proc.stdin.flush()
        line = side.proc.stdout.readline()
    except (BrokenPipeError, OSError, ValueError):
        line = ""
    if line.strip() != "started":
        raise AbError(EXIT_BUILD, f"{side.name} cannot serve: '@start' got "
                                  f"'{line.strip() or 'no answer'}' (log: {side.log})")


def speaks_parts(side):
    """Whether the server knows `@part` (a build older than it answers
    `unknown` with the whole line as the name). Runs nothing."""
    probe = "@probe"
    try:
        side.proc.stdin.write(request_line(probe, 1) + "\n")
        side.proc.stdin.flush()
        line = side.proc.stdout.readline().strip()
    except (BrokenPipeError, OSError, ValueError):
        line = ""
    if line == f"unknown - {probe}":
        return True
    if line == f"unknown - {request_line(probe, 1)}":
        return False
    raise AbError(EXIT_BUILD, f"{side.name} answered '{line or 'nothing'}' to "
                              f"'{request_line(probe, 1)}' (log: {side.log})")


def run_point(side, name, args, seed, part=None):
    """Runs one point (or one part of it) on one side; a dead server is
    restarted (--resume) and the point counted lost there. Returns what to
    print for the side, or ("partial", None) after a part 1 that goes on."""
    t = time.monotonic()
    reply = ask(side, name, part)
    side.busy += time.monotonic() - t
    if reply is None:
        rc = stop(side, how=None, grace=30)
        side.deaths += 1
        side.deaths_in_a_row += 1
        side.lost.append(name)
        at = name if part is None else f"part {part}/2 of {name}"
        note(f"the {side.name} server died at {at} (exit {rc}; its last words: "
             f"{last_log_line(side)}); restarting it with --resume {side.csv}")
        if side.deaths_in_a_row >= MAX_DEATHS_IN_A_ROW:
            raise AbError(EXIT_BUILD, f"{side.name} cannot serve: its server died at "
                                      f"{side.deaths_in_a_row} points in a row (log: {side.log})")
        start(side, args, seed, resume=True)
        await_ready(side)
        return "lost", None
    side.deaths_in_a_row = 0
    status, value = reply
    if status in BROKEN or status == "unknown":
        side.bad.append((status, name))
    return status, value


def fmt_reply(label, reply):
    status, value = reply
    if status == "ok" and value is not None:
        return f"{label} {value:.2f} us"
    return f"{label} {status}"


# ------------------------------------------------------------ retakes

class Take:
    """One whole run of a point on one side: the server's reply and the
    bytes [start, end) of the side's CSV it wrote (its row; none when the
    server died, or answered `error` without a row)."""

    def __init__(self, reply, start, end):
        self.reply, self.start, self.end = reply, start, end

    @property
    def ok(self):
        return self.reply[0] == "ok"


def csv_size(side):
    try:
        return os.path.getsize(side.csv)
    except OSError:
        return 0


def take_rows(side, take):
    """The rows a take wrote, read and checked as the gate reads a CSV
    (sbcsv, and an ok row's times): the file's header line, then the
    take's bytes. None if unreadable."""
    try:
        with open(side.csv, "rb") as f:
            header = f.readline()
            f.seek(take.start)
            body = f.read(take.end - take.start)
        with tempfile.NamedTemporaryFile("wb", suffix=".csv") as tmp:
            tmp.write(header + body)
            tmp.flush()
            rows = sbcsv.read(tmp.name)
        sbcompare.check_ok_timings(side.csv, rows)
        return rows
    except (OSError, sbcsv.CsvError):
        return None


def fmt_move(ratio):
    """A gated figure's ratio (B / A) as a change, or '-' without one."""
    return "-" if ratio is None else f"{(ratio - 1) * 100:+.1f}%"


def without_ranges(data, ranges):
    """data less the (disjoint) byte ranges [start, end)."""
    out, at = [], 0
    for start, end in sorted(ranges):
        out.append(data[at:start])
        at = max(at, end)
    out.append(data[at:])
    return b"".join(out)


def shown(path):
    """A path as ab.txt writes it: from the working directory where it lies
    below it (a committed report names no machine's own folders)."""
    if not path or not os.path.isabs(path):
        return path
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def shown_command(argv):
    """A command as ab.txt writes it: the interpreter as python3, paths shown()."""
    return ["python3" if i == 0 and os.path.basename(a).startswith("python") else shown(a)
            for i, a in enumerate(argv)]


def gated(m):
    """A match's gated ratio (B / A), or None without a match."""
    return None if m is None else m.gated


def takes_path(side):
    """DIR/a.takes.csv beside DIR/a.csv: every take, as the server wrote it."""
    return os.path.splitext(side.csv)[0] + ".takes.csv"


class Retake:
    """A retaken point: the gated figure's ratio (B / A) of the first
    takes, of the retakes and of the kept takes (None where a side's take
    is not ok); broken: the retakes not ok ("A wrong")."""

    def __init__(self, name, figure, first, again, kept, broken):
        self.name, self.figure = name, figure
        self.first, self.again, self.kept, self.broken = first, again, kept, broken

    @property
    def again_text(self):
        return " ".join(self.broken) if self.broken else fmt_move(self.again)

    def line(self):
        return (f"{self.name}: first take {fmt_move(self.first)}, retake {self.again_text}, "
                f"kept {fmt_move(self.kept)} ({self.figure})")


# ------------------------------------------------------------ the run

class Run:
    def __init__(self, args):
        self.args = args
        self.base = Side("A", "BASE", args.base)
        self.new = Side("B", "NEW", args.new)
        for side, specs in ((self.base, args.base_env), (self.new, args.new_env)):
            side.env = dict(spec.split("=", 1) for spec in specs)
        self.seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**63)
        self.t0 = time.monotonic()
        self.t_walk = self.t_walk_end = None
        self.order = []
        self.only_base = self.only_new = []
        self.common = 0
        self.done = 0
        self.contexts = []          # the order the CUDA contexts were created in
        self.halves = args.halves   # the protocol: halves (A B B A) or whole points
        self.protocol = None        # its line in ab.txt
        self.gate = None            # (exit status, command)
        self.threshold = float(args.threshold.rstrip("%")) / 100
        self.retake_cap = 0
        self.retakes_begun = 0      # the retakes asked for, finished or not
        self.retaken = []           # Retake: the points run again in swapped order
        self.over_cap = []          # points past --retake once the cap was reached
        self.bands = None           # the gate's band table (unjudged points: never retaken)
        self.rewritten = False      # a.csv, b.csv cut to their kept takes
        self.summary = args.summary or os.path.join(args.dir, "gate.md")
        self.detail = args.detail or os.path.join(args.dir, "gate-detail.md")

    @property
    def sides(self):
        return (self.base, self.new)

    def start_servers(self):
        args = self.args
        os.makedirs(args.dir, exist_ok=True)
        for side in self.sides:
            side.csv = os.path.join(args.dir, f"{side.label.lower()}.csv")
            side.log = os.path.join(args.dir, f"{side.label.lower()}.log")
            for path in (side.csv, side.log, takes_path(side)):
                if os.path.exists(path):
                    os.remove(path)
        first = self.sides if args.first_server == "base" else self.sides[::-1]
        for side in first:
            start(side, args, self.seed)
            await_ready(side)
        self.create_contexts(first)
        self.choose_protocol()
        if self.base.uuid != self.new.uuid:
            raise AbError(EXIT_USAGE, f"the servers run on different GPUs: BASE on "
                                      f"{self.base.uuid}, NEW on {self.new.uuid} (--device "
                                      f"{args.device}); an A/B run needs one GPU")
        note(f"both servers ready on {self.base.uuid} (device {args.device}), seed {self.seed}")

    def create_contexts(self, order):
        """Sets both workers up (CUDA context, stream, buffers) before the
        first point, the --first-server side first, so that the order in
        which the two contexts are created is fixed and recorded (ab.txt).
        It matters: the driver places a context's own memory (cooperative
        groups' grid barrier among it) by that order, and a second live
        context ran barrier/grid_sync up to 6% apart from the first on an
        H100, whichever build it was (docs/REGRESSIONS.md, "A/B on one GPU").
        A spacer context between the two was tried: it evened one chip and
        not the next, so such rows are told apart by data instead."""
        for side in order:
            start_context(side)
            self.contexts.append(side.label)

    def choose_protocol(self):
        """Halves when asked and both servers speak `@part`, else whole points."""
        if not self.args.halves:
            self.protocol = "whole points, A B (even k) / B A (odd k) (--no-halves)"
            return
        old = [side for side in self.sides if not speaks_parts(side)]
        if old:
            self.halves = False
            self.protocol = (f"whole points, A B (even k) / B A (odd k): --halves asked, but "
                             f"{' and '.join(s.name for s in old)} does not know `@part`")
            note(f"{self.protocol}")
            return
        self.protocol = ("halves, A1 B1 B2 A2 (even k) / B1 A1 A2 B2 (odd k), each half of "
                         "--min-time, pooled into one row (--halves)")

    def run_common(self, first, second, name):
        """Both sides of a common point: whole, first then second (then,
        when it moved by --retake or more, again whole, second then first);
        or in halves, first's part 1, second's part 1, second's part 2,
        first's part 2. A side whose part 1 ended the point (or whose server
        died there) is not asked its part 2. Returns the replies of the
        first take, and what to add to the progress line."""
        args, seed = self.args, self.seed
        if not self.halves:
            takes = {side.label: self.take(side, name) for side in (first, second)}
            replies = {label: t.reply for label, t in takes.items()}
            m = self.match(takes)
            if not self.wants_retake(m, name):
                return replies, ""
            self.retakes_begun += 1
            again = {side.label: self.take(side, name) for side in (second, first)}
            kept = self.keep(first, second, takes, again)
            broken = [fmt_reply(label, again[label].reply) for label in "AB"
                      if not again[label].ok]
            r = Retake(name, m.figure, m.gated, gated(self.match(again)),
                       gated(self.match(kept)), broken)
            self.retaken.append(r)
            return replies, (f"  retake: {fmt_move(r.first)} -> {r.again_text}, "
                             f"kept {fmt_move(r.kept)}")
        replies = {}
        for side, part in ((first, 1), (second, 1), (second, 2), (first, 2)):
            if part == 2 and replies[side.label][0] != "partial":
                continue
            replies[side.label] = run_point(side, name, args, seed, part)
        return replies, ""

    @property
    def retakes_on(self):
        return not self.halves and self.args.retake > 0

    def take(self, side, name):
        """One whole run of the point on one side, with the CSV bytes it
        wrote: the server writes its row (write(2), harness/supervisor.c's
        write_row_line) before it answers; a restart with --resume has cut
        a row the dead server left half written."""
        start = csv_size(side)
        reply = run_point(side, name, self.args, self.seed)
        return Take(reply, start, csv_size(side))

    def match(self, takes):
        """The gate's view of an A and a B take, both ok: sbcompare.match_of
        on their rows as compare.py --gate --interleaved makes it (figure,
        ratio, gated or not); None when a take is not ok or unreadable."""
        if not all(t.ok for t in takes.values()):
            return None
        a, b = take_rows(self.base, takes["A"]), take_rows(self.new, takes["B"])
        if not (a and b and len(a) == len(b) == 1):
            return None
        return sbcompare.match_of(a[0], b[0], self.threshold, bands=self.bands,
                                  pairing="ab", interleaved=True)

    def wants_retake(self, m, name):
        """A point the gate gates whose figure moved by --retake or more,
        while the cap allows."""
        if not self.retakes_on or m is None or m.gated_out:
            return False
        if abs(m.gated - 1) < self.args.retake / 100:
            return False
        if self.retakes_begun < self.retake_cap:
            return True
        if not self.over_cap:
            note(f"the retake cap is reached ({self.retake_cap} points): from {name} on, points "
                 f"that moved {self.args.retake:g}% or more are not retaken (listed in "
                 f"{os.path.join(self.args.dir, 'ab.txt')})")
        self.over_cap.append(name)
        return False

    def keep(self, first, second, takes, again):
        """Each side keeps the take in which it ran first at the point (the
        first side its take 1, the second side its retake): both kept takes
        sat at the same place in the power-cap ramp, whichever was faster.
        A retake that is not ok is kept wherever it ran: a broken row is
        never hidden, and a lost one costs the point there, as ever."""
        kept = {}
        for side in (first, second):
            one, two = takes[side.label], again[side.label]
            keep_one = side is first and two.ok
            kept[side.label], dropped = (one, two) if keep_one else (two, one)
            side.dropped.append((dropped.start, dropped.end))
        return kept

    def keep_takes(self):
        """After a complete walk: DIR/<x>.takes.csv keeps every take as the
        server wrote it, and <x>.csv one row per point (the takes not kept
        cut out; the header and every other row byte for byte, in order),
        or compare.py would refuse a retaken point's two rows."""
        for side in self.sides:
            if not (side.csv and os.path.exists(side.csv)):
                continue
            try:
                with open(side.csv, "rb") as f:
                    raw = f.read()
                sbcsv.write_atomically(takes_path(side), raw)
                sbcsv.write_atomically(side.csv, without_ranges(raw, side.dropped))
            except OSError as e:
                raise AbError(EXIT_FAIL, f"cannot write {e.filename or side.csv}: "
                                         f"{e.strerror or e} ({side.csv} holds every take)") \
                    from None
        self.rewritten = True

    def load_bands(self):
        """compare.py's band table: a point of a variant without A/A data is
        unjudged, so never worth a retake."""
        try:
            self.bands = sbcompare.load_bands(sbcompare.BANDS_FILE)
        except sbcsv.CsvError as e:
            note(f"{e}: retakes consider every variant")

    def plan(self):
        base_set, new_set = set(self.base.points), set(self.new.points)
        self.only_base = [n for n in self.base.points if n not in new_set]
        self.only_new = [n for n in self.new.points if n not in base_set]
        self.common = len(base_set & new_set)
        self.retake_cap = max(RETAKE_CAP_MIN, math.ceil(RETAKE_CAP_SHARE * self.common))
        self.order = walk_order(self.base.points, self.new.points)
        if self.only_base:
            note(f"{len(self.only_base)} point(s) only in BASE (coverage lost; run on BASE "
                 f"only, listed in {os.path.join(self.args.dir, 'ab.txt')}): "
                 f"{short_list(self.only_base)}")
        if self.only_new:
            note(f"{len(self.only_new)} point(s) only in NEW (new, not gated; run on NEW "
                 f"only): {short_list(self.only_new)}")

    def walk(self):
        args, seed = self.args, self.seed
        base_set, new_set = set(self.base.points), set(self.new.points)
        self.t_walk = time.monotonic()
        total = len(self.order)
        # Index among common points: even A then B, odd B then A; the
        # first server asked is the one whose worker (CUDA context) starts first.
        k = 0 if args.first_server == "base" else 1
        if self.retakes_on:
            self.load_bands()
        for i, name in enumerate(self.order, start=1):
            replies, retake = {}, ""
            if name in base_set and name in new_set:
                first, second = (self.base, self.new) if k % 2 == 0 else (self.new, self.base)
                k += 1
                replies, retake = self.run_common(first, second, name)
            else:
                side = self.base if name in base_set else self.new
                replies[side.label] = run_point(side, name, args, seed)
            self.done = i
            a = fmt_reply("A", replies["A"]) if "A" in replies else "A (not in BASE)"
            b = fmt_reply("B", replies["B"]) if "B" in replies else "B (not in NEW)"
            delta = ""
            ra, rb = replies.get("A"), replies.get("B")
            if ra and rb and ra[0] == rb[0] == "ok" and ra[1] and rb[1]:
                delta = f"  {(rb[1] / ra[1] - 1) * 100:+.1f}%"
            print(f"[{i}/{total} {mmss(time.monotonic() - self.t_walk)}] {name}  {a}  {b}{delta}"
                  f"{retake}", file=sys.stderr, flush=True)
        self.t_walk_end = time.monotonic()
        if self.retakes_on:
            note(f"retaken {len(self.retaken)} of {self.common} common point(s) (--retake "
                 f"{self.args.retake:g}%, cap {self.retake_cap})"
                 + (f"; {len(self.over_cap)} more past the cap" if self.over_cap else ""))

    def finish_servers(self):
        for side in self.sides:
            stop(side, how=None, grace=120)

    def run_gate(self):
        args = self.args
        cmd = [args.python, args.compare, "--gate", self.base.csv, self.new.csv]
        if compare_knows(args.python, args.compare, "--interleaved"):
            cmd.append("--interleaved")
        cmd += ["--threshold", args.threshold, "--summary", self.summary,
                "--detail", self.detail]
        # ab.py accounts for the points missing from NEW itself (exit 4, lost).
        if self.only_base or self.new.lost or any(s == "unknown" for s, _ in self.new.bad):
            cmd.append("--allow-missing")
        if args.allow_unjudged:
            cmd.append("--allow-unjudged")
        sys.stdout.flush()
        try:
            rc = subprocess.run(cmd).returncode
        except OSError as e:
            raise AbError(EXIT_USAGE, f"cannot run the gate {' '.join(cmd[:2])}: "
                                      f"{e.strerror or e}") from None
        self.gate = (rc, cmd)
        return rc

    def verdict(self):
        """(status, failure lines)."""
        failures = []
        gate_rc = self.gate[0] if self.gate else None
        if gate_rc == 1:
            failures.append(f"the gate FAILED (summary: {self.summary})")
        elif gate_rc not in (0, None):
            failures.append(f"the gate could not compare the two CSVs (compare.py exited "
                            f"{gate_rc})")
        for side in self.sides:
            if side.bad:
                failures.append(f"{side.name}: {len(side.bad)} point(s) not run cleanly: "
                                f"{short_list([f'{n} ({s})' for s, n in side.bad])}")
            if side.lost:
                failures.append(f"{side.name}: {len(side.lost)} point(s) lost to server "
                                f"deaths: {short_list(side.lost)}")
        if failures:
            return EXIT_FAIL, failures
        if self.only_base:
            return EXIT_LISTS, [f"coverage lost: {len(self.only_base)} point(s) of BASE are "
                                f"not in NEW's sweep: {short_list(self.only_base)} "
                                f"({os.path.join(self.args.dir, 'ab.txt')} lists them)"]
        return EXIT_OK, []

    def retake_lines(self):
        """ab.txt: the retake rule, and each retaken point's moves."""
        if self.halves:
            return ["retakes: none with halves"]
        if not self.retakes_on:
            return ["retakes: off (--retake 0)"]
        lines = [f"retakes: a common point whose gated figure moved {self.args.retake:g}% or "
                 f"more (B vs A) ran again whole in the swapped order, each side keeping its "
                 f"take in first position; cap {self.retake_cap} retakes",
                 f"retaken: {len(self.retaken)} (the gated figure, B vs A: first take, retake, "
                 f"kept)"]
        lines += [f"  {r.line()}" for r in self.retaken]
        if self.over_cap:
            lines.append(f"not retaken, past the cap: {len(self.over_cap)}")
            lines += [f"  {n}" for n in self.over_cap]
        return lines

    def takes_lines(self):
        """ab.txt: where every take is, once the CSVs were cut to one row a
        point, or that they were not."""
        a, b = self.base, self.new
        if self.rewritten:
            return [f"takes: every take in {shown(takes_path(a))} and {shown(takes_path(b))}; "
                    f"{shown(a.csv)} and {shown(b.csv)} keep one row per point"]
        if self.retakes_begun:
            return [f"takes: {shown(a.csv)} and {shown(b.csv)} as the servers wrote them (the walk did not "
                    f"complete): a retaken point's both takes are in them"]
        return []

    def report(self, status, why=None):
        """DIR/ab.txt: what ran, on what, what went missing, how long."""
        args = self.args
        now = time.monotonic()
        lines = [f"A/B run (scripts/ab.py), {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
                 f"exit status: {status}" + (f" ({why})" if why else "")]
        for side in self.sides:
            rev = "the working tree" if side.rev is None else side.rev
            lines.append(f"{side.role} ({side.label}): rev {rev}, sha {side.sha or '-'}, "
                         f"binary {shown(side.binary) or '-'} ({side.built or 'not built'}), "
                         f"commit {side.commit or '-'}, CSV {shown(side.csv) or '-'}" +
                         (", env " + " ".join(f"{k}={v}" for k, v in side.env.items()) if side.env else ""))
        lines += [f"GPU: {self.base.uuid or self.new.uuid or '-'} (device {args.device})",
                  f"seed: {self.seed}",
                  f"sweep arguments: {' '.join(args.sweep) or '(none)'}",
                  f"protocol: {self.protocol or '-'}",
                  *self.retake_lines(),
                  f"points: BASE {len(self.base.points)}, NEW {len(self.new.points)}, "
                  f"common {self.common}, run {self.done} of {len(self.order)}"]

        def listing(title, names):
            lines.append(f"{title}: {len(names)}")
            lines.extend(f"  {n}" for n in names)

        listing("only in BASE (coverage lost, run on BASE only)", self.only_base)
        listing("only in NEW (new, not gated, run on NEW only)", self.only_new)
        for side in self.sides:
            listing(f"lost on {side.role} (server died; {side.deaths} death(s))", side.lost)
        for side in self.sides:
            listing(f"not run cleanly on {side.role}", [f"{n} ({s})" for s, n in side.bad])
        lines += self.takes_lines()
        if self.gate:
            lines.append(f"gate: exit {self.gate[0]}: {' '.join(shown_command(self.gate[1]))}")
        lines.append(f"CUDA contexts created in this order: {', '.join(self.contexts) or '-'}")
        walk = ((self.t_walk_end or now) - self.t_walk) if self.t_walk else 0
        lines.append(f"wall: whole run {mmss(now - self.t0)}, interleaved part {mmss(walk)}")
        busy = max(self.base.busy, self.new.busy)
        if busy > 0:
            lines.append(f"busy: BASE {mmss(self.base.busy)}, NEW {mmss(self.new.busy)} (each "
                         f"server's time on its points, about one sweep); interleaved part / "
                         f"the busier side = {walk / busy:.2f}x")
        try:
            os.makedirs(args.dir, exist_ok=True)
            with open(os.path.join(args.dir, "ab.txt"), "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
        except OSError as e:
            note(f"cannot write {os.path.join(args.dir, 'ab.txt')}: {e.strerror or e}")


def compare_knows(python, compare, flag):
    try:
        p = subprocess.run([python, compare, "--help"], capture_output=True, text=True,
                           timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0 and flag in p.stdout


def on_signal(signum, frame):
    raise Interrupted()


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    run = Run(args)
    started = False
    try:
        prepare(args, run.base, run.new)
        if args.build_only:
            for side in run.sides:
                print(side.binary)
            return EXIT_OK
        for side in run.sides:
            list_points(side, args.sweep)
        run.plan()
        started = True
        run.start_servers()
        run.walk()
        run.finish_servers()
        run.keep_takes()
        run.run_gate()
        status, failures = run.verdict()
        for line in failures:
            note(line)
        run.report(status)
        if status == EXIT_OK:
            note(f"passed: {run.done} points, BASE {run.base.commit} vs NEW {run.new.commit} "
                 f"on {run.base.uuid} ({os.path.join(args.dir, 'ab.txt')})")
        return status
    except AbError as e:
        for side in run.sides:
            stop(side)
        if started:
            run.report(e.status, e.line)
        note(e.line)
        return e.status
    except Interrupted:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for side in run.sides:
            stop(side)
        if started:
            run.report(EXIT_INTERRUPTED, "interrupted")
        kept = " ".join(s.csv for s in run.sides if s.csv and os.path.exists(s.csv))
        retaken = (f" ({run.retakes_begun} retaken point(s): every take in them)"
                   if run.retakes_begun else "")
        raw = "" if run.rewritten else f", as the servers wrote them{retaken}"
        note("interrupted" + (f"; the rows so far{raw}: {kept}" if kept else ""))
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
