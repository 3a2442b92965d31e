#!/usr/bin/env python3
"""Checks that the timed (raw-wait) kernels are the same machine code with
and without the deadlock watchdog.

A variant that waits through sb_mbar_wait_parity is compiled twice
(kernels/common/mbarrier.cuh): Bounded=true, which the runner launches to validate
a point, and Bounded=false, which it times. The watchdog can then cost the
timed kernels nothing only if their SASS does not depend on SB_WATCHDOG.
This script compares every timed kernel of the default build with the
same kernel of a `make SB_WATCHDOG=0` build, instruction by instruction,
for every architecture in the binaries. Which kernels are timed, the
kernels say (scripts/kernel_resources.py): the validating twin is the
instantiation whose `Bounded` (barrier's `Validate`) template argument is
`true`, wherever that parameter stands; a `false` nested in another
argument (gemm_kernel<GemmSplitKReduce<false>, T, 4, true>) does not make
a twin timed. Without c++filt, the last template argument decides.

Usage: twin_sass.py WATCHDOG_BINARY NO_WATCHDOG_BINARY
Exit 0: every raw kernel identical; 1: some differ or are missing;
2: cuobjdump missing or a binary unreadable.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv, sbcompare, ...
from sass_sync import MISSING, find_tool, tool_env  # noqa: E402  (PATH, $CUDA_HOME/bin, pip's nvidia-cuda-cuobjdump)
from kernel_resources import KERNELS_DIR, demangle, is_timed, twin_flags  # noqa: E402

# Without c++filt: a last template argument `false` closes the argument
# list (scan_kernel<ScanMbarrier, 128, false>: ...Li128ELb0EEv...).
RAW_TWIN = re.compile(r"Lb0EEv")
INSTR = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*(/\*.*)?$")


def parse_sass(text):
    """{function name: [instruction text, ...]} from `cuobjdump -sass` output
    of one cubin (addresses and encodings dropped)."""
    funcs, name = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1)
            funcs[name] = []
            continue
        m = INSTR.match(line)
        if m and name is not None:
            funcs[name].append(m.group(2).rstrip(" ;"))
    return funcs


def raw_kernels(funcs, flags=None):
    """The timed kernels of one cubin's functions: by their twin flag's
    argument where the name demangles, else by RAW_TWIN."""
    flags = twin_flags([KERNELS_DIR]) if flags is None else flags
    names = demangle(sorted(funcs))
    out = {}
    for k, v in funcs.items():
        name = names.get(k, k)
        if name == k:  # not demangled
            timed = bool(RAW_TWIN.search(k))
        else:
            timed = is_timed({"file": "", "name": name}, flags)
        if timed:
            out[k] = v
    return out


def compare(wd, nowd):
    """Per raw kernel: 'identical', 'different' or 'missing' (in the
    no-watchdog build). `wd` and `nowd` map cubin name -> parse_sass()."""
    out, flags = {}, twin_flags([KERNELS_DIR])
    for cubin, funcs in sorted(wd.items()):
        for k, code in sorted(raw_kernels(funcs, flags).items()):
            other = nowd.get(cubin, {}).get(k)
            out[(cubin, k)] = ("missing" if other is None else
                               "identical" if other == code else "different")
    return out


def extract(binary, tmp, tool="cuobjdump"):
    """{cubin name: cuobjdump -sass text} for every cubin in the binary."""
    env = tool_env()
    subprocess.run([tool, "-xelf", "all", os.path.abspath(binary)], cwd=tmp,
                   check=True, stdout=subprocess.DEVNULL, env=env)
    out = {}
    for name in sorted(os.listdir(tmp)):
        if name.endswith(".cubin"):
            r = subprocess.run([tool, "-sass", name], cwd=tmp, check=True,
                               capture_output=True, text=True, env=env)
            out[name] = parse_sass(r.stdout)
    return out


def extract_both(first, second, prog):
    """(extract() of first, of second), or None with the reason on stderr
    (cuobjdump missing, a binary unreadable)."""
    tool = find_tool("cuobjdump")
    if tool is None:
        print(f"{prog}: {MISSING}", file=sys.stderr)
        return None
    try:
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            return extract(first, a, tool), extract(second, b, tool)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"{prog}: cannot read the binaries: {e}", file=sys.stderr)
        return None


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[-5], file=sys.stderr)
        return 2
    both = extract_both(argv[1], argv[2], "twin_sass")
    if both is None:
        return 2
    wd, nowd = both
    result = compare(wd, nowd)
    if not result:
        print("twin_sass: no timed kernels found", file=sys.stderr)
        return 1
    for (cubin, k), verdict in result.items():
        print(f"  {verdict:9s} {cubin:28s} {k}")
    bad = [k for k, v in result.items() if v != "identical"]
    print(f"twin_sass: {len(result) - len(bad)}/{len(result)} timed kernels have the same SASS "
          f"with and without the watchdog")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
