"""No arrow back up: the engine (harness/) and the kernels (kernels/)
include nothing from bench/ (the families sit above both)."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def includes_of(folder):
    for name in sorted(os.listdir(os.path.join(ROOT, folder))):
        if name.endswith((".c", ".h", ".cc", ".cu", ".cuh")):
            with open(os.path.join(ROOT, folder, name), encoding="utf-8") as f:
                for inc in INCLUDE.findall(f.read()):
                    yield f"{folder}/{name}", os.path.normpath(os.path.join(folder, inc))


def test_engine_and_kernels_include_nothing_from_bench():
    bad = [(src, inc) for folder in ("harness", "kernels")
           for src, inc in includes_of(folder) if inc.startswith("bench" + os.sep)]
    assert bad == []


def test_the_check_sees_includes():
    # The scan finds the registry's include of the engine: it reads real files.
    found = dict(includes_of("bench"))
    assert found.get("bench/registry.h") == "harness/family.h"


def _symbols(folder, flag):
    """Symbols that the objects of build/<folder> define (--defined-only) or
    need (-u), from nm: the links, which includes alone do not show."""
    import glob
    import subprocess
    objs = sorted(glob.glob(os.path.join(ROOT, "build", folder, "*.o")))
    assert objs, f"build/{folder}/*.o: build first (make)"
    out = subprocess.run(["nm", flag, *objs], capture_output=True, text=True, check=True).stdout
    return {parts[-1] for parts in (line.split() for line in out.splitlines())
            if len(parts) >= 2 and (flag == "-u" or parts[-2] in "TDBR")}


def test_the_engine_calls_nothing_in_bench_but_the_registry_table():
    # A point's name is the protocol between scripts/ab.py and --serve
    # workers, so the engine names points itself (harness/sweep.c); the
    # only link up to bench/ is the table of families it runs.
    needed = _symbols("harness", "-u") & _symbols("bench", "--defined-only")
    assert needed == {"sb_families", "sb_num_families"}
