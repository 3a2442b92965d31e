"""No arrow back up: the engine (harness/) and the kernels (kernels/)
include nothing from bench/ (the families sit above both)."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def _walk(folder, exts):
    """Sources under folder, its rooms too (kernels/common, gemm, families)."""
    for top, dirs, names in sorted(os.walk(os.path.join(ROOT, folder))):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(exts):
                yield os.path.relpath(os.path.join(top, name), ROOT)


def includes_of(folder):
    for src in _walk(folder, (".c", ".h", ".cc", ".cu", ".cuh")):
        with open(os.path.join(ROOT, src), encoding="utf-8") as f:
            for inc in INCLUDE.findall(f.read()):
                yield src, os.path.normpath(os.path.join(os.path.dirname(src), inc))


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
    objs = sorted(glob.glob(os.path.join(ROOT, "build", folder, "**", "*.o"), recursive=True))
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


# The engine reaches kernel code only through its own contract header
# (harness/launch.h, extern "C" guards), which kernels/ include to implement
# it: no include runs from harness/ up to kernels/, and a prototype restated
# in a harness source (which would drift from the definition unseen, since C
# links by name alone) is refused.
CONTRACT = "harness/launch.h"  # sb_variant_table, sb_launch, sb_measure_sm_clock, sb_clock_witness

_PARAMS = r'\((?:[^;{}()]|\([^;{}()]*\))*\)'
EXTERN_PROTOTYPE = re.compile(r'^[ \t]*extern\s+(?:"C"\s+)?[^;{}()"]*?\b(\w+)\s*' + _PARAMS + r'\s*;', re.M)
KERNEL_EXPORT = re.compile(r'extern\s+"C"\s+[^;{}()"=]*?\b(\w+)\s*' + _PARAMS + r'\s*\{')


def _read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def _sources(folder, exts):
    return list(_walk(folder, exts))


def kernel_exports():
    """Functions that kernels/*.cu define for C callers (extern "C" ... {)."""
    return {name for src in _sources("kernels", (".cu",)) for name in KERNEL_EXPORT.findall(_read(src))}


def test_the_harness_declares_no_prototype_of_kernel_code():
    exports = kernel_exports()
    bad = [(src, name) for src in _sources("harness", (".c", ".cc"))
           for name in EXTERN_PROTOTYPE.findall(_read(src)) if name in exports]
    assert bad == [], f"declare these in {CONTRACT}"


def test_the_prototype_check_sees_prototypes_and_exports():
    # The form the check exists for (harness/timing.c before the contract declared it),
    # and the definitions it is matched against: real files.
    old = ("extern cudaError_t sb_clock_witness(cudaStream_t stream, unsigned long long spin_ns,\n"
           "                                    double *mapped_mhz);\n")
    assert EXTERN_PROTOTYPE.findall(old) == ["sb_clock_witness"]
    assert EXTERN_PROTOTYPE.findall('extern "C" int f(void (*cb)(int), int n);') == ["f"]
    assert EXTERN_PROTOTYPE.findall('extern "C" int f(int n) {\n  return n;\n}') == []
    assert {"sb_measure_sm_clock", "sb_clock_witness"} <= kernel_exports()


def test_the_harness_includes_nothing_from_kernels():
    assert [(src, inc) for src, inc in includes_of("harness") if inc.startswith("kernels" + os.sep)] == []
    text = _read(CONTRACT)
    assert '#ifdef __cplusplus\nextern "C" {' in text, f"{CONTRACT}: extern \"C\" guards for C callers"
    # the kernels implement the contract: they include it (the arrow runs down)
    assert ("kernels/common/clock.cu", CONTRACT) in set(includes_of("kernels"))


def test_what_the_engine_links_from_kernels_is_declared_in_the_contract():
    # nm sees what include scans cannot: a call through a prototype without
    # extern, or with none. Every kernel symbol the engine needs is named in
    # the contract header.
    needed = _symbols("harness", "-u") & _symbols("kernels", "--defined-only")
    declared = _read(CONTRACT)
    assert needed and {s for s in needed if not re.search(rf"\b{s}\b", declared)} == set()
