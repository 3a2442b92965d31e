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
