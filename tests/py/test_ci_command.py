"""CI runs what the README tells a developer to type: the `make test` line
of the README's Start is a command of .ci/run, and docs/usage.md's Run it
in CI names that same command."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def readme_test_command():
    """The command of the README's `make test` line (its comment cut off)."""
    block = read("README.md").split("## Start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = [ln.split("#", 1)[0].strip() for ln in block.splitlines()]
    found = [ln for ln in lines if ln.startswith("make test")]
    assert len(found) == 1, block
    return found[0]


def ci_commands():
    """.ci/run's command lines, without comments, blank lines, set and cd."""
    lines = [ln.split("#", 1)[0].strip() for ln in read(".ci/run").splitlines()]
    return [ln for ln in lines if ln and not ln.startswith(("set ", "cd "))]


def test_ci_runs_the_readmes_test_command():
    assert readme_test_command() in ci_commands()


def test_run_it_in_ci_names_the_same_command():
    text = " ".join(read("docs/usage.md").split("## Run it in CI", 1)[1].split())
    m = re.match(r"`bash \.ci/run` is `([^`]+)`", text)
    assert m, text[:200]
    assert m.group(1) == readme_test_command()
