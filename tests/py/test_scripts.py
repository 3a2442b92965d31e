"""Every script in scripts/ as a new user meets it: --help prints usage
(exit 0, no traceback); a missing Python package is exit 2 and one line
naming it and the install command (scripts/sbdeps.py), never a traceback;
and no script quotes a variant name (the tables in results/variants.csv
say which row is what)."""
import csv
import glob
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = sorted(glob.glob(os.path.join(ROOT, "scripts", "*.py")))
SHIM = os.path.join(ROOT, "tests", "py", "fixtures", "hide_modules")
FIXTURE = os.path.join(ROOT, "tests", "py", "fixtures", "h200_scan_default.csv")
INSTALL = "install it with: pip install -r requirements.txt (or: make venv)"


def py(*args, hide=None, cwd=None):
    env = dict(os.environ)
    if hide:
        env["PYTHONPATH"] = SHIM + os.pathsep + env.get("PYTHONPATH", "")
        env["SB_HIDE_MODULES"] = hide
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


@pytest.mark.parametrize("script", SCRIPTS, ids=os.path.basename)
def test_help_prints_usage(script):
    p = py(script, "--help")
    assert p.returncode == 0, p.stderr
    assert "usage" in p.stdout.lower() and "Traceback" not in p.stdout + p.stderr


def four_percent_slower_pair(tmp_path):
    """The fixture and a copy where one variant moved 4%: rule B (scipy's
    Wilcoxon test) has to look at it."""
    with open(FIXTURE, newline="") as f:
        reader = csv.DictReader(f)
        header, rows = reader.fieldnames, list(reader)
    for r in rows:
        if r["variant"] == rows[-1]["variant"]:
            for c in ("median_us", "q1_us", "q3_us", "min_us", "max_us"):
                r[c] = f"{float(r[c]) * 1.04:.4f}"
    new = tmp_path / "new.csv"
    with open(new, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return FIXTURE, new


def test_the_shim_hides_what_it_is_told():
    assert py("-c", "import scipy", hide="scipy").returncode == 1
    assert py("-c", "import scipy").returncode == 0


@pytest.mark.parametrize("module", ["scipy"])
def test_gate_without_scipy_is_exit_2_and_one_line(tmp_path, module):
    base, new = four_percent_slower_pair(tmp_path)
    p = py(os.path.join(ROOT, "scripts", "compare.py"), "--gate", base, new, hide=module)
    assert p.returncode == 2
    assert p.stderr.splitlines() == [f"compare.py: the Python package '{module}' is missing; {INSTALL}"]
    assert "Traceback" not in p.stdout


@pytest.mark.parametrize("script,module", [("plot.py", "matplotlib"), ("plot.py", "numpy"),
                                           ("plot_gemm.py", "matplotlib"),
                                           ("plot_pipeline.py", "matplotlib")])
def test_plots_without_their_packages_are_exit_2_and_one_line(tmp_path, script, module):
    p = py(os.path.join(ROOT, "scripts", script), FIXTURE, "--outdir", tmp_path, hide=module)
    assert p.returncode == 2, p.stderr
    assert p.stderr.splitlines() == [f"{script}: the Python package '{module}' is missing; {INSTALL}"]


def test_no_script_quotes_a_variant_name():
    with open(os.path.join(ROOT, "results", "variants.csv"), newline="") as f:
        names = {r["variant"] for r in csv.DictReader(f)}
    quoted = re.compile(r"""(["'])([A-Za-z0-9_]+)\1""")
    found = []
    for path in SCRIPTS:
        name = os.path.basename(path)
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                found += [f"{name}:{number}: {m.group(2)}" for m in quoted.finditer(line)
                          if m.group(2) in names]
    assert found == [], "ask scripts/sbvariants.py (flags) instead of naming a row"


def test_the_library_is_apart_from_the_commands():
    """scripts/lib/ holds the library (no main, imports no command);
    scripts/ holds the commands (issue 37)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    lib = os.path.join(root, "scripts", "lib")
    commands = {f[:-3] for f in os.listdir(os.path.join(root, "scripts")) if f.endswith(".py")}
    modules = sorted(f for f in os.listdir(lib) if f.endswith(".py"))
    assert {"sbcsv.py", "sbcompare.py", "sbvariants.py", "sbplot.py", "sbstalls.py"} <= set(modules)
    for name in modules:
        with open(os.path.join(lib, name), encoding="utf-8") as f:
            text = f.read()
        assert "def main(" not in text, name
        imported = set(re.findall(r"^\s*(?:import|from)\s+(\w+)", text, re.M))
        assert imported & (commands - {"sbdeps"}) == set(), (name, imported & commands)


def test_the_library_is_a_package_of_the_same_modules():
    """scripts/lib is a package: `from lib import sbvariants` gives the
    module the commands import by name, not a second copy."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from lib import sbvariants, sbcsv; "
            "import sbvariants as by_name; assert sbvariants is by_name; "
            "print(sbvariants.variants('barrier')[0], sbcsv.__name__)")
    r = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "scripts")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [sbvariants_first(), "sbcsv"]


def sbvariants_first():
    with open(os.path.join(ROOT, "results", "variants.csv"), newline="") as f:
        return next(r for r in csv.DictReader(f) if r["family"] == "barrier")["variant"]
