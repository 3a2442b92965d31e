"""scripts/ab.py (make ab): two builds of syncbench run as servers on one
GPU, interleaved point by point, then gated. No GPU and no real build:
tests/py/fake_syncbench.py speaks the worker protocol (--serve), per side
(FAKE_SIDE and FAKE_<X>_<SIDE>), and logs every request with a global
sequence number to FAKE_TRACE; the build path runs in a throwaway git
repository whose Makefile's build/syncbench is the fake. The tests written
for whole points pass --no-halves (the default protocol); the halves
(--halves: `@part 1/2`, `@part 2/2` in A1 B1 B2 A2 / B1 A1 A2 B2 order,
measured worse on an H100) have their own tests, then the retakes (a point
whose gated figure moved by --retake or more runs again in swapped order;
FAKE_TAKES scripts each take's figures and status)."""
import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AB = os.path.join(ROOT, "scripts", "ab.py")
FAKE = os.path.join(ROOT, "tests", "py", "fake_syncbench.py")
P = ["scan/pingpong/block_threads=256/iters=16/n=1048576",
     "scan/pingpong/block_threads=512/iters=16/n=1048576",
     "scan/pingpong/block_threads=1024/iters=16/n=1048576",
     "scan/two_barrier/block_threads=256/iters=16/n=1048576",
     "scan/two_barrier/block_threads=512/iters=16/n=1048576",
     "scan/two_barrier/block_threads=1024/iters=16/n=1048576"]
NEW_POINT = "scan/mbarrier/block_threads=256/iters=16/n=1048576"


def wrapper(path, side, **env):
    """An executable that is the fake as side `side`, with per-side settings."""
    lines = ["#!/bin/sh", f"export FAKE_SIDE={side}"]
    lines += [f"export FAKE_{k}_{side}='{v}'" for k, v in env.items()]
    lines.append(f'exec "{sys.executable}" "{FAKE}" "$@"')
    path.write_text("\n".join(lines) + "\n")
    path.chmod(0o755)
    return str(path)


def from_root(path):
    """A path as ab.txt names it when the run's working directory is ROOT:
    from ROOT where it lies below it (pytest's --basetemp under build/)."""
    rel = os.path.relpath(path, ROOT)
    return str(path) if rel.startswith("..") else rel


class Ab:
    """One ab.py run with fake binaries; per-side settings: a={...}, b={...}."""

    def __init__(self, tmp_path, a=None, b=None, args=(), sweep=("--quick",), env=None,
                 prebuilt=True, halves=False):
        self.dir = tmp_path / "run"
        self.trace_path = tmp_path / "trace"
        self.env = dict(os.environ, FAKE_POINTS=" ".join(P), FAKE_TRACE=str(self.trace_path))
        self.env.update(env or {})
        cmd = [sys.executable, AB, "--dir", str(self.dir), *args]
        cmd.append("--halves" if halves else "--no-halves")
        if prebuilt:
            cmd = cmd[:2] + ["--base", "v1"] + cmd[2:] + [
                "--base-bin", wrapper(tmp_path / "base_bin", "A", **(a or {})),
                "--new-bin", wrapper(tmp_path / "new_bin", "B", **(b or {}))]
        self.cmd = cmd + ["--", *sweep]

    def run(self, cwd=ROOT):
        p = subprocess.run(self.cmd, capture_output=True, text=True, env=self.env, cwd=cwd,
                           timeout=60)
        self.rc, self.out, self.err = p.returncode, p.stdout, p.stderr
        return self

    def trace(self, event=None):
        if not self.trace_path.exists():
            return []
        rows = [line.split(" ", 3) for line in self.trace_path.read_text().splitlines()]
        return [(int(s), side, ev, what) for s, side, ev, what in rows
                if event is None or ev == event]

    def runs(self, side):
        return [what for _, s, ev, what in self.trace("run") if s == side]

    def parts(self, side=None):
        """The part requests (side, part, name), in order, without the probe."""
        return [(s, int(ev[4]), what) for _, s, ev, what in self.trace()
                if ev in ("part1", "part2") and what != "@probe" and side in (None, s)]

    def csv_lines(self, side):
        return (self.dir / f"{side}.csv").read_text().splitlines()[1:]

    def csv_rows(self, side):
        lines = (self.dir / f"{side}.csv").read_text().splitlines()
        header = lines[0].split(",")
        return {(r["family"], r["variant"], r["block_threads"]): r
                for r in (dict(zip(header, line.split(","))) for line in lines[1:])}

    def report(self):
        return (self.dir / "ab.txt").read_text()

    def last_line(self):
        return self.err.strip().splitlines()[-1]


def key(name):
    family, variant, block = name.split("/")[:3]
    return family, variant, block.split("=")[1]


def test_points_alternate_order_and_share_one_seed(tmp_path):
    ab = Ab(tmp_path).run()
    assert ab.rc == 0, ab.err
    runs = ab.trace("run")
    assert len(runs) == 2 * len(P)
    for k, name in enumerate(P):
        first, second = runs[2 * k], runs[2 * k + 1]
        assert first[3] == second[3] == name           # both sides of a point back to back
        assert second[0] == first[0] + 1
        assert (first[1], second[1]) == (("A", "B") if k % 2 == 0 else ("B", "A"))
    assert ab.runs("A") == P and ab.runs("B") == P      # each point once per side, in sweep order
    serves = ab.trace("serve")
    assert sorted(s[1] for s in serves) == ["A", "B"]    # one server a side, started together
    seeds = {s[3].split()[0] for s in serves}
    assert len(seeds) == 1 and f"seed: {seeds.pop().split('=')[1]}" in ab.report()
    assert all("sweep=--quick" in s[3] for s in serves)  # the sweep arguments reach the servers
    assert {what for _, _, _, what in ab.trace("list")} == {"--quick"}
    assert sum(line.startswith(f"[{i}/{len(P)} ") for i in range(1, len(P) + 1)
               for line in ab.err.splitlines()) == len(P)


def test_a_given_seed_goes_to_both_sides_and_their_rows(tmp_path):
    ab = Ab(tmp_path, args=["--seed", "12345"]).run()
    assert ab.rc == 0, ab.err
    assert [s[3].split()[0] for s in ab.trace("serve")] == ["seed=12345"] * 2
    assert {r["seed"] for side in "ab" for r in ab.csv_rows(side).values()} == {"12345"}


def test_clean_aa_run_passes_the_gate(tmp_path):
    ab = Ab(tmp_path).run()
    assert ab.rc == 0, ab.err
    assert "compare: gate passed" in ab.err
    assert ab.last_line().startswith("ab: passed: 6 points")
    assert (ab.dir / "gate.md").exists() and (ab.dir / "gate-detail.md").exists()
    report = ab.report()
    for text in ("GPU: GPU-fake-0000", "points: BASE 6, NEW 6, common 6, run 6 of 6",
                 "commit fake-A", "commit fake-B", "wall: whole run", "interleaved part"):
        assert text in report


def test_the_report_names_paths_from_where_it_ran_and_python3(tmp_path):
    """ab.txt is committed as a proof: the binaries and CSVs below the
    working directory are named from it, and the gate's interpreter as python3."""
    ab = Ab(tmp_path).run(cwd=tmp_path)
    assert ab.rc == 0, ab.err
    report = ab.report()
    assert str(tmp_path) not in report and sys.executable not in report
    assert "binary base_bin " in report and "CSV run/a.csv" in report
    gate = next(line for line in report.splitlines() if line.startswith("gate: "))
    assert gate.startswith("gate: exit 0: python3 ")


def test_planted_slowdown_on_new_fails_and_the_summary_names_it(tmp_path):
    ab = Ab(tmp_path, b={"SLOW": f"{P[4]}:1.5"}).run()
    assert ab.rc == 1, ab.err
    assert "compare: gate FAILED: 1 regression(s)" in ab.err
    assert ab.last_line().startswith("ab: the gate FAILED")
    summary = (ab.dir / "gate.md").read_text()
    regressions = summary.split("### Regressions")[1].split("###")[0]
    rows = [line for line in regressions.splitlines() if line.startswith("| scan ")]
    assert rows and rows[0].startswith("| scan | two_barrier | 512 | 16 | 1M |") and len(rows) == 1


@pytest.mark.parametrize("role, rc", [("new", 1), ("base", 0)])
def test_a_sides_env_reaches_its_server_only(tmp_path, role, rc):
    # an A/B of a setting on one binary: the variable slows the side it is
    # given to (the fake reads FAKE_SLOW), so NEW's fails the gate and
    # BASE's makes NEW faster; ab.txt names it on its side's line
    ab = Ab(tmp_path, args=[f"--{role}-env", f"FAKE_SLOW={P[4]}:1.5"]).run()
    assert ab.rc == rc, ab.err
    slow = {"new": "b", "base": "a"}[role]
    rows = {side: ab.csv_rows(side)[key(P[4])] for side in "ab"}
    other = "a" if slow == "b" else "b"
    assert float(rows[slow]["median_us"]) > 1.4 * float(rows[other]["median_us"])
    lines = {line.split(" ")[0]: line for line in ab.report().splitlines() if line.startswith(("BASE", "NEW"))}
    assert lines[role.upper()].endswith(f", env FAKE_SLOW={P[4]}:1.5")
    assert ", env " not in lines[{"new": "BASE", "base": "NEW"}[role]]


@pytest.mark.parametrize("side,other", [("a", "b"), ("b", "a")])
def test_a_crash_costs_that_point_on_that_side_only(tmp_path, side, other):
    ab = Ab(tmp_path, **{side: {"CRASH_POINT": P[2]}}).run()
    assert ab.rc == 1, ab.err
    mine, theirs = ab.csv_rows(side), ab.csv_rows(other)
    assert mine[key(P[2])]["status"] == "error"
    assert theirs[key(P[2])]["status"] == "ok"
    assert all(mine[key(n)]["status"] == "ok" for n in P if n != P[2])
    assert ab.runs("A") == P and ab.runs("B") == P       # the server went on
    role = "BASE (v1)" if side == "a" else "NEW (the working tree)"
    assert f"ab: {role}: 1 point(s) not run cleanly: {P[2]} (error)" in ab.err


def test_a_server_that_dies_is_restarted_with_resume(tmp_path):
    ab = Ab(tmp_path, b={"DIE_AT": P[3]}).run()
    assert ab.rc == 1, ab.err
    serves = [s for s in ab.trace("serve") if s[1] == "B"]
    assert len(serves) == 2
    assert f"out={ab.dir / 'b.csv'}" in serves[0][3]
    assert f"resume={ab.dir / 'b.csv'}" in serves[1][3]
    assert ab.runs("A") == P and ab.runs("B") == P       # the rest completed on both sides
    rows = ab.csv_rows("b")
    assert key(P[3]) not in rows and all(key(n) in rows for n in P if n != P[3])
    assert (ab.dir / "b.csv").read_text().count("schema_version") == 1
    assert f"died at {P[3]}" in ab.err
    assert "lost on NEW (server died; 1 death(s)): 1\n  " + P[3] in ab.report()
    assert f"ab: NEW (the working tree): 1 point(s) lost to server deaths: {P[3]}" in ab.err


def test_base_only_points_are_run_listed_and_exit_4(tmp_path):
    ab = Ab(tmp_path, env={"FAKE_POINTS_B": " ".join(n for n in P if n != P[1])}).run()
    assert ab.rc == 4, ab.err
    assert P[1] in ab.runs("A") and P[1] not in ab.runs("B")
    assert key(P[1]) in ab.csv_rows("a")
    assert f"only in BASE (coverage lost, run on BASE only): 1\n  {P[1]}" in ab.report()
    assert ab.last_line().startswith("ab: coverage lost: 1 point(s)") and P[1] in ab.last_line()
    assert "compare: gate passed" in ab.err           # the gate is no longer about it


def test_new_only_points_are_run_listed_and_not_gated(tmp_path):
    ab = Ab(tmp_path, env={"FAKE_POINTS_B": " ".join(P[:3] + [NEW_POINT] + P[3:])}).run()
    assert ab.rc == 0, ab.err
    assert ab.runs("B") == P[:3] + [NEW_POINT] + P[3:]   # in NEW's sweep order
    assert NEW_POINT not in ab.runs("A")
    assert key(NEW_POINT) in ab.csv_rows("b")
    assert "1 point(s) only in NEW (new, not gated" in ab.err
    assert f"only in NEW (new, not gated, run on NEW only): 1\n  {NEW_POINT}" in ab.report()


def test_no_gpu_is_exit_3(tmp_path):
    ab = Ab(tmp_path, a={"NO_GPU": 1}).run()
    assert ab.rc == 3, ab.err
    assert ab.last_line().startswith("ab: no usable GPU: the BASE (v1) server exited 3")
    assert ab.trace("run") == []


def test_a_build_that_cannot_serve_is_exit_5(tmp_path):
    ab = Ab(tmp_path, b={"NO_SERVE": 1}).run()
    assert ab.rc == 5, ab.err
    line = ab.last_line()
    assert line.startswith("ab: NEW (the working tree) cannot serve") and "--serve exited 2" in line
    assert ab.trace("run") == []


def test_servers_on_two_gpus_are_refused(tmp_path):
    ab = Ab(tmp_path, b={"UUID": "GPU-other"}).run()
    assert ab.rc == 2, ab.err
    assert ab.last_line().startswith("ab: the servers run on different GPUs")


@pytest.mark.parametrize("supported", [True, False])
def test_the_gate_is_interleaved_when_compare_knows_it(tmp_path, supported):
    log = tmp_path / "compare.args"
    compare = tmp_path / "compare.py"
    compare.write_text(textwrap.dedent(f"""\
        import sys
        if "--help" in sys.argv:
            print("usage: compare.py [--gate]{' [--interleaved]' if supported else ''}")
            sys.exit(0)
        if "--interleaved" in sys.argv and not {supported}:
            print("compare.py: error: unrecognized arguments: --interleaved", file=sys.stderr)
            sys.exit(2)
        open({str(log)!r}, "w").write(" ".join(sys.argv[1:]))
        """))
    ab = Ab(tmp_path, args=["--compare", str(compare), "--threshold", "3"]).run()
    assert ab.rc == 0, ab.err
    argv = log.read_text().split()
    assert argv[:3] == ["--gate", str(ab.dir / "a.csv"), str(ab.dir / "b.csv")]
    assert ("--interleaved" in argv) == supported
    assert argv[argv.index("--threshold") + 1] == "3"


@pytest.mark.parametrize("allow", [False, True])
def test_unjudged_fails_the_gate_unless_allowed(tmp_path, allow):
    """ab.py gates as compare.py does by default (a variant with no band
    fails); --allow-unjudged, for a new variant's first A/A run, is passed on."""
    log = tmp_path / "compare.args"
    compare = tmp_path / "compare.py"
    compare.write_text(f"import sys\nopen({str(log)!r}, 'w').write(' '.join(sys.argv[1:]))\n")
    ab = Ab(tmp_path, args=["--compare", str(compare)] + (["--allow-unjudged"] if allow else [])).run()
    assert ab.rc == 0, ab.err
    assert ("--allow-unjudged" in log.read_text().split()) == allow


def test_interrupt_stops_both_servers_and_keeps_the_csvs(tmp_path):
    ab = Ab(tmp_path, env={"FAKE_DELAY": "0.3"})
    p = subprocess.Popen(ab.cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=ab.env, cwd=ROOT)
    deadline = time.monotonic() + 20
    while len(ab.trace("run")) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("ab: interrupted")
    assert (ab.dir / "a.csv").exists() and (ab.dir / "b.csv").exists()
    assert "exit status: 130" in (ab.dir / "ab.txt").read_text()
    assert len(ab.trace("run")) < 2 * len(P)


# ---------------------------------------------------------------- the build path

def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


MAKEFILE = """\
COMMIT := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
build/syncbench: fake.sh.in
\tmkdir -p build
\tsed 's/@COMMIT@/$(COMMIT)/' fake.sh.in > $@
\tchmod +x $@
"""


@pytest.fixture
def repo(tmp_path):
    """A throwaway repository: two commits whose build/syncbench is the fake."""
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q")
    git(r, "config", "user.email", "ab@example.com")
    git(r, "config", "user.name", "ab test")
    (r / "fake.sh.in").write_text(
        f'#!/bin/sh\nexport FAKE_COMMIT=@COMMIT@\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    (r / "Makefile").write_text(MAKEFILE)
    (r / ".gitignore").write_text("build/\n")
    (r / "README").write_text("one\n")
    git(r, "add", ".")
    git(r, "commit", "-q", "-m", "one")
    (r / "README").write_text("two\n")
    git(r, "commit", "-q", "-am", "two")
    return r


def sha12(repo, rev):
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "--short=12", rev],
                          capture_output=True, text=True, check=True).stdout.strip()


def from_repo(tmp_path, repo, *args):
    return Ab(tmp_path, args=["--repo", str(repo), *args], prebuilt=False).run(cwd=tmp_path)


def test_a_rev_that_does_not_exist_is_exit_2(tmp_path, repo):
    ab = from_repo(tmp_path, repo, "--base", "no-such-rev")
    assert ab.rc == 2, ab.err
    assert ab.err.strip().splitlines() == [f"ab: --base no-such-rev: no such commit in {repo}"]


def test_new_rev_with_uncommitted_changes_is_exit_2(tmp_path, repo):
    (repo / "README").write_text("three, not committed\n")
    ab = from_repo(tmp_path, repo, "--base", "HEAD~1", "--new", "HEAD")
    assert ab.rc == 2, ab.err
    lines = ab.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ab: the working tree has uncommitted changes")
    assert "README" in lines[0] and "--new HEAD would leave out" in lines[0]
    assert not (repo / "build").exists()                # nothing was built


def test_builds_a_rev_and_the_working_tree_then_reuses_the_rev(tmp_path, repo):
    (repo / "README").write_text("three, not committed\n")   # NEW is the (dirty) working tree
    ab = from_repo(tmp_path, repo, "--base", "HEAD~1")
    assert ab.rc == 0, ab.err
    base = sha12(repo, "HEAD~1")
    binary = repo / "build" / "ab" / base / "src" / "build" / "syncbench"
    assert os.access(binary, os.X_OK)
    assert (repo / "build" / "ab" / f"{base}.build.log").exists()
    report = ab.report()
    assert f"commit {base}, " in report                 # the Makefile's COMMIT, overridden
    assert f"commit {sha12(repo, 'HEAD')}-dirty, " in report
    again = from_repo(tmp_path, repo, "--base", "HEAD~1")
    assert again.rc == 0, again.err
    assert f"reusing build/ab/{base}/src/build/syncbench" in again.err


def test_a_side_that_does_not_build_is_exit_5(tmp_path, repo):
    (repo / "Makefile").write_text(
        "build/syncbench:\n\t@echo 'kernels/families/scan.cu(12): error: this does not compile' >&2; exit 1\n")
    git(repo, "commit", "-q", "-am", "broken")
    ab = from_repo(tmp_path, repo, "--base", "HEAD~1", "--new", "HEAD")
    assert ab.rc == 5, ab.err
    new = sha12(repo, "HEAD")
    log = repo / "build" / "ab" / f"{new}.build.log"
    assert ab.last_line() == f"ab: NEW (HEAD = {new}) does not build: see {log}"
    assert "this does not compile" in log.read_text()


@pytest.mark.parametrize("args", [[], ["--base", "v1", "--", "--device", "1"],
                                  ["--base", "v1", "--", "--out=x.csv"],
                                  ["--base", "v1", "--threshold", "lots"],
                                  ["--base", "v1", "--new-env", "SB_CONTEXTS"],
                                  ["--base", "v1", "--base-env", "=16"]])
def test_bad_usage_is_exit_2_and_one_line(tmp_path, args):
    p = subprocess.run([sys.executable, AB, *args], capture_output=True, text=True, timeout=60,
                       cwd=tmp_path)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ab: ")


@pytest.mark.parametrize("extra, order", [
    ([], [("A", "a.csv"), ("B", "b.csv")]),
    (["--first-server", "new"], [("B", "b.csv"), ("A", "a.csv")]),
])
def test_both_contexts_are_created_in_a_fixed_order_before_any_point(tmp_path, extra, order):
    # The order of the CUDA contexts decides where the driver places their
    # memory (grid_sync moved 6% with it on an H100): both workers are set
    # up before the first point, in the order asked.
    ab = Ab(tmp_path, args=extra).run()
    assert ab.rc == 0, ab.err
    events = ab.trace()
    starts = [(e[1], e[3]) for e in events if e[2] == "start"]
    assert starts == order
    first_run = min(e[0] for e in events if e[2] == "run")
    assert max(e[0] for e in events if e[2] == "start") < first_run
    labels = ", ".join(side for side, _ in order)
    assert f"CUDA contexts created in this order: {labels}" in ab.report()
    if "--first-server" in extra:   # the first point asks the first context's side first
        assert [e[1] for e in events if e[2] == "run"][:2] == ["B", "A"]


# ---------------------------------------------------------------- halves (the default)

def abba(k, name):
    """The part requests of common point k: A1 B1 B2 A2, or B1 A1 A2 B2."""
    first, second = ("A", "B") if k % 2 == 0 else ("B", "A")
    return [(first, 1, name), (second, 1, name), (second, 2, name), (first, 2, name)]


def test_halves_are_the_default_and_walk_a_b_b_a(tmp_path):
    ab = Ab(tmp_path, halves=True).run()
    assert ab.rc == 0, ab.err
    assert ab.trace("run") == []                          # no whole point
    assert ab.parts() == [p for k, name in enumerate(P) for p in abba(k, name)]
    seqs = [e[0] for e in ab.trace() if e[2] in ("part1", "part2") and e[3] != "@probe"]
    assert seqs == list(range(seqs[0], seqs[0] + 4 * len(P)))   # nothing in between
    for side in "AB":   # each server runs nothing else between a point's two parts
        assert ab.parts(side) == [(side, part, name) for name in P for part in (1, 2)]
    for side in "ab":   # one row per point per side
        assert len(ab.csv_lines(side)) == len(P)
        assert {r["status"] for r in ab.csv_rows(side).values()} == {"ok"}
    assert "protocol: halves, A1 B1 B2 A2 (even k) / B1 A1 A2 B2 (odd k)" in ab.report()
    assert "compare: gate passed" in ab.err
    assert ab.last_line().startswith("ab: passed: 6 points")


def test_no_halves_keeps_whole_points_and_says_so(tmp_path):
    ab = Ab(tmp_path).run()
    assert ab.rc == 0, ab.err
    assert ab.parts() == [] and [e for e in ab.trace() if e[3] == "@probe"] == []
    assert ab.runs("A") == P and ab.runs("B") == P
    assert "protocol: whole points, A B (even k) / B A (odd k) (--no-halves)" in ab.report()


def test_halves_with_first_server_new_start_on_new(tmp_path):
    ab = Ab(tmp_path, halves=True, args=["--first-server", "new"]).run()
    assert ab.rc == 0, ab.err
    assert ab.parts() == [p for k, name in enumerate(P) for p in abba(k + 1, name)]


@pytest.mark.parametrize("side,other", [("a", "b"), ("b", "a")])
def test_a_part_1_failure_ends_the_point_on_that_side(tmp_path, side, other):
    ab = Ab(tmp_path, halves=True, **{side: {"CRASH_POINT": P[2]}}).run()
    assert ab.rc == 1, ab.err
    mine, theirs = side.upper(), other.upper()
    want = [p for p in abba(2, P[2]) if p != (mine, 2, P[2])]   # never asked its part 2
    assert [p for p in ab.parts() if p[2] == P[2]] == want
    assert ab.csv_rows(side)[key(P[2])]["status"] == "error"
    assert ab.csv_rows(other)[key(P[2])]["status"] == "ok"
    assert len(ab.csv_lines(side)) == len(ab.csv_lines(other)) == len(P)
    assert [p for p in ab.parts(mine) if p[2] != P[2]] == \
        [(mine, part, n) for n in P if n != P[2] for part in (1, 2)]   # the server went on
    role = "BASE (v1)" if side == "a" else "NEW (the working tree)"
    assert f"ab: {role}: 1 point(s) not run cleanly: {P[2]} (error)" in ab.err


def test_a_worker_dying_between_the_parts_costs_an_error_row(tmp_path):
    ab = Ab(tmp_path, halves=True, b={"DIE_BETWEEN": P[1]}).run()
    assert ab.rc == 1, ab.err
    assert ab.parts() == [p for k, name in enumerate(P) for p in abba(k, name)]
    assert ab.csv_rows("b")[key(P[1])]["status"] == "error"
    assert ab.csv_rows("a")[key(P[1])]["status"] == "ok"
    assert len(ab.csv_lines("a")) == len(ab.csv_lines("b")) == len(P)
    assert f"ab: NEW (the working tree): 1 point(s) not run cleanly: {P[1]} (error)" in ab.err
    assert [s for s in ab.trace("serve") if s[1] == "B"][1:] == []   # the server lived on


@pytest.mark.parametrize("how,at", [("DIE_AT", "part 1/2"), ("DIE_AT_PART2", "part 2/2")])
def test_a_server_dying_at_a_part_is_restarted_with_resume(tmp_path, how, at):
    ab = Ab(tmp_path, halves=True, b={how: P[3]}).run()
    assert ab.rc == 1, ab.err
    serves = [s for s in ab.trace("serve") if s[1] == "B"]
    assert len(serves) == 2 and f"resume={ab.dir / 'b.csv'}" in serves[1][3]
    assert f"died at {at} of {P[3]}" in ab.err
    # B1 A1 A2 B2 at k=3: B dies at its part 1 (A still runs both) or its part 2.
    want = abba(3, P[3]) if how == "DIE_AT_PART2" else [p for p in abba(3, P[3]) if p != ("B", 2, P[3])]
    assert [p for p in ab.parts() if p[2] == P[3]] == want
    for k, name in enumerate(P):          # the other points, both halves on both sides
        if name != P[3]:
            assert [p for p in ab.parts() if p[2] == name] == abba(k, name)
    rows = ab.csv_rows("b")
    assert key(P[3]) not in rows and len(ab.csv_lines("b")) == len(P) - 1
    assert len(ab.csv_lines("a")) == len(P)
    assert "lost on NEW (server died; 1 death(s)): 1\n  " + P[3] in ab.report()


def test_a_server_without_parts_falls_back_to_whole_points(tmp_path):
    ab = Ab(tmp_path, halves=True, a={"NO_PARTS": 1}).run()
    assert ab.rc == 0, ab.err
    assert ab.parts() == []
    assert ab.runs("A") == ["@part 1/2 @probe"] + P    # the probe: unknown to it, ran nothing
    assert ab.runs("B") == P
    assert "--halves asked, but BASE (v1) does not know `@part`" in ab.err
    assert "protocol: whole points, A B (even k) / B A (odd k): --halves asked" in ab.report()


# ---------------------------------------------------------------- retakes (whole points)

# Two gemm points (gated on each side's fastest sample, min_us, in an A/B
# run) and two scan points (gated on the median): G[0] is common point 0
# (A then B), G[1] point 1 (B then A).
G = ["gemm/ring/stages=3/m=2048/k=2048", "gemm/swap/stages=2/m=2048/k=2048"]
RETAKE_POINTS = G + P[:2]


def takes(**points):
    """FAKE_TAKES: {name: [take, ...]}, each take its fastest sample (min_us)
    at a median of 103 us, or a status."""
    return json.dumps({name: [{"status": t} if isinstance(t, str) else {"median": 103, "min": t}
                              for t in script] for name, script in points.items()})


# First takes 2.9% (G[0]) and 2.7% (G[1]) apart (under rule A's 3% floor of a
# variant of fewer than 5 points, over the 2.5% that retakes) on the fastest sample, the
# medians equal; the retakes closer. G[1]'s A takes: 95 then 97, and A runs
# second there, so A keeps its slower take (the retake, its first position).
MOVED_A = {"TAKES": takes(**{G[0]: [98, 98.5], G[1]: [95, 97]})}
MOVED_B = {"TAKES": takes(**{G[0]: [100.8, 99], G[1]: [97.6, 98.2]})}


def retake_run(tmp_path, a=MOVED_A, b=MOVED_B, points=RETAKE_POINTS, **kw):
    env = {"FAKE_POINTS": " ".join(points)}
    return Ab(tmp_path, a=a, b=b, env=env, **kw).run()


def sides_asked(ab, name):
    """The sides asked for name, whole, in order, and whether back to back."""
    runs = [(seq, side) for seq, side, _, what in ab.trace("run") if what == name]
    seqs = [seq for seq, _ in runs]
    return [side for _, side in runs], seqs == list(range(seqs[0], seqs[0] + len(seqs)))


def rows_by_variant(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    by = {}
    for row in rows:
        by.setdefault(row["variant"], []).append(row)
    return by


def fastest(ab, side, variant, csv_name="{}.csv"):
    return [r["min_us"] for r in rows_by_variant(ab.dir / csv_name.format(side))[variant]]


def test_a_point_that_moved_is_retaken_in_swapped_order_keeping_first_position(tmp_path):
    ab = retake_run(tmp_path)
    assert ab.rc == 0, ab.err
    assert sides_asked(ab, G[0]) == (["A", "B", "B", "A"], True)
    assert sides_asked(ab, G[1]) == (["B", "A", "A", "B"], True)
    for name in P[:2]:                                   # no move: once a side
        assert sorted(sides_asked(ab, name)[0]) == ["A", "B"]
    # Kept: each side's take in first position, faster or not (A's 97 at G[1]).
    assert fastest(ab, "a", "ring") == ["98.0000"] and fastest(ab, "b", "ring") == ["99.0000"]
    assert fastest(ab, "a", "swap") == ["97.0000"] and fastest(ab, "b", "swap") == ["97.6000"]
    progress = [line for line in ab.err.splitlines() if f"] {G[0]} " in line]
    assert len(progress) == 1 and progress[0].endswith("retake: +2.9% -> +0.5%, kept +1.0%")
    report = ab.report()
    assert "retakes: a common point whose gated figure moved 2.5% or more" in report
    assert "cap 10 retakes" in report and "retaken: 2 (" in report
    assert f"  {G[0]}: first take +2.9%, retake +0.5%, kept +1.0% (fastest)" in report
    assert f"  {G[1]}: first take +2.7%, retake +1.2%, kept +0.6% (fastest)" in report
    assert "ab: retaken 2 of 4 common point(s) (--retake 2.5%, cap 10)" in ab.err
    assert "compare: gate passed" in ab.err
    assert "interleaved" in (ab.dir / "gate.md").read_text()


def test_a_point_under_the_threshold_is_not_retaken(tmp_path):
    # The gate's figure decides: gemm's fastest sample 2.4% apart (its median
    # 10%), scan's median 1% apart (its fastest sample 10%): no retake.
    a = {"TAKES": json.dumps({G[0]: [{"median": 100, "min": 98}],
                              P[0]: [{"median": 50, "min": 45}]})}
    b = {"TAKES": json.dumps({G[0]: [{"median": 110, "min": 100.352}],
                              P[0]: [{"median": 50.5, "min": 49.5}]})}
    ab = retake_run(tmp_path, a=a, b=b)
    assert ab.rc == 0, ab.err
    for name in RETAKE_POINTS:
        assert sorted(sides_asked(ab, name)[0]) == ["A", "B"]
    assert "retaken: 0 (" in ab.report() and "retake:" not in ab.err


def test_retake_0_retakes_nothing(tmp_path):
    ab = retake_run(tmp_path, args=["--retake", "0"])
    assert ab.rc == 0, ab.err
    assert sides_asked(ab, G[0])[0] == ["A", "B"] and sides_asked(ab, G[1])[0] == ["B", "A"]
    assert fastest(ab, "b", "ring") == ["100.8000"]
    assert "retakes: off (--retake 0)" in ab.report() and "retake:" not in ab.err
    assert "ab: retaken" not in ab.err
    for side in "ab":                                    # nothing cut: the takes are the CSV
        assert (ab.dir / f"{side}.takes.csv").read_bytes() == (ab.dir / f"{side}.csv").read_bytes()


def test_retakes_stop_at_the_cap(tmp_path):
    points = [f"scan/pingpong/block_threads=256/iters={i}/n=1048576" for i in range(1, 13)]
    b = {"SLOW": ",".join(f"{n}:1.1" for n in points)}   # every point 10% slower on B
    ab = retake_run(tmp_path, a={}, b=b, points=points)
    assert ab.rc == 1, ab.err                           # a real regression: the gate fails
    for name in points[:10]:
        assert len(sides_asked(ab, name)[0]) == 4
    for name in points[10:]:
        assert len(sides_asked(ab, name)[0]) == 2
    cap_notes = [line for line in ab.err.splitlines() if "retake cap is reached" in line]
    assert cap_notes == [f"ab: the retake cap is reached (10 points): from {points[10]} on, "
                         f"points that moved 2.5% or more are not retaken (listed in "
                         f"{ab.dir / 'ab.txt'})"]
    report = ab.report()
    assert "retaken: 10 (" in report
    assert f"not retaken, past the cap: 2\n  {points[10]}\n  {points[11]}\n" in report
    assert len(ab.csv_lines("a")) == len(ab.csv_lines("b")) == len(points)
    assert len((ab.dir / "b.takes.csv").read_text().splitlines()) == 1 + len(points) + 10


@pytest.mark.parametrize("side,status", [("A", "wrong"), ("B", "deadlock")])
def test_a_broken_retake_keeps_its_broken_row(tmp_path, side, status):
    # G[0]: A ran first, B second; A's retake (second position) or B's
    # (first) is not ok: that row stands, whatever its position.
    scripts = {"A": [98, status if side == "A" else 98.5],
               "B": [100.8, status if side == "B" else 99]}
    ab = retake_run(tmp_path, a={"TAKES": takes(**{G[0]: scripts["A"]})},
                    b={"TAKES": takes(**{G[0]: scripts["B"]})})
    assert ab.rc == 1, ab.err
    assert sides_asked(ab, G[0])[0] == ["A", "B", "B", "A"]
    mine, other = side.lower(), "b" if side == "A" else "a"
    assert [r["status"] for r in rows_by_variant(ab.dir / f"{mine}.csv")["ring"]] == [status]
    assert fastest(ab, other, "ring") == (["99.0000"] if other == "b" else ["98.0000"])
    role = "BASE (v1)" if side == "A" else "NEW (the working tree)"
    assert f"ab: {role}: 1 point(s) not run cleanly: {G[0]} ({status})" in ab.err
    assert f"  {G[0]}: first take +2.9%, retake {side} {status}, kept - (fastest)" in ab.report()
    assert (ab.dir / f"{mine}.takes.csv").read_text().count(",ring,") == 2


def test_a_server_dying_in_a_retake_loses_the_point_there(tmp_path):
    ab = retake_run(tmp_path, b={"TAKES": takes(**{G[0]: [100.8, "die"]})})
    assert ab.rc == 1, ab.err
    assert "ring" not in rows_by_variant(ab.dir / "b.csv")   # its first take dropped too
    assert fastest(ab, "a", "ring") == ["98.0000"]
    assert f"lost on NEW (server died; 1 death(s)): 1\n  {G[0]}" in ab.report()
    assert [s[3].split()[1].split("=")[0] for s in ab.trace("serve") if s[1] == "B"] == \
        ["out", "resume"]
    for name in RETAKE_POINTS[1:]:                       # the rest ran on the restarted server
        assert "B" in sides_asked(ab, name)[0]


def test_the_csvs_keep_one_row_a_point_and_the_takes_every_take(tmp_path):
    ab = retake_run(tmp_path)
    assert ab.rc == 0, ab.err
    header = open(os.path.join(ROOT, "results", "csv_header.csv"), encoding="utf-8").readline()
    for side in "ab":
        kept = (ab.dir / f"{side}.csv").read_text().splitlines(keepends=True)
        every = (ab.dir / f"{side}.takes.csv").read_text().splitlines(keepends=True)
        assert kept[0] == every[0] == header
        assert len(kept) == 1 + len(RETAKE_POINTS)
        assert len(every) == 1 + len(RETAKE_POINTS) + 2       # both takes of G[0] and G[1]
        assert [line for line in every if line in kept] == kept   # the rest, in order
        assert sorted(rows_by_variant(ab.dir / f"{side}.csv")) == ["pingpong", "ring", "swap"]
    assert fastest(ab, "a", "ring", "{}.takes.csv") == ["98.0000", "98.5000"]
    assert fastest(ab, "b", "swap", "{}.takes.csv") == ["97.6000", "98.2000"]
    assert f"takes: every take in {from_root(ab.dir / 'a.takes.csv')} and {from_root(ab.dir / 'b.takes.csv')}" \
        in ab.report()


def test_halves_do_not_retake(tmp_path):
    ab = retake_run(tmp_path, halves=True)
    assert ab.rc == 0, ab.err
    assert [p for p in ab.parts() if p[2] == G[0]] == abba(0, G[0])
    assert [p for p in ab.parts() if p[2] == G[1]] == abba(1, G[1])
    assert fastest(ab, "b", "ring") == ["100.8000"]
    assert "retakes: none with halves" in ab.report() and "retake:" not in ab.err


def test_interrupt_during_a_retake_leaves_the_csvs_as_written(tmp_path):
    ab = Ab(tmp_path, a=MOVED_A, b=MOVED_B,
            env={"FAKE_POINTS": " ".join(RETAKE_POINTS), "FAKE_DELAY": "0.4"})
    p = subprocess.Popen(ab.cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=ab.env, cwd=ROOT)
    deadline = time.monotonic() + 20
    while len(ab.trace("run")) < 4 and time.monotonic() < deadline:   # A's retake begun
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith(
        "ab: interrupted; the rows so far, as the servers wrote them (1 retaken point(s): "
        "every take in them)")
    assert fastest(ab, "b", "ring") == ["100.8000", "99.0000"]   # both of B's takes, raw
    assert not (ab.dir / "b.takes.csv").exists()
    assert "(the walk did not complete)" in ab.report()
