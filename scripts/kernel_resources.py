#!/usr/bin/env python3
"""Registers, shared memory, stack and spills of every compiled kernel, from
the ptxas reports the build keeps beside each object (nvcc --resource-usage,
build/kernels/<room>/<family>.res). Needs no GPU.

    kernel_resources.py build/kernels/*/*.res [--table out.md]

Prints one summary line per family (kernels, register range, largest static
shared memory, spills) and writes the full per-kernel table to --table.
Exits 1 when any timed kernel spills (spill stores or loads > 0): a spilling
kernel measures local-memory traffic, not its synchronization.

Which kernels are timed: the kernels say so themselves. A __global__
template of the kernel layer names its validating twin's flag `Bounded`
(barrier's: `Validate`) among its template parameters; this script reads
each kernel template's parameter list from its source (kernels/, or
--sources) and an instantiation whose argument at that parameter is `true`
is the validating twin of a variant (run once, under the deadlock watchdog,
never timed): listed, not failed. Every other instantiation is timed,
whatever its last argument (gemm's narrow reduction ends in `Narrow =
true`), and so is a kernel whose declaration is not found. Kernels of the
test-only `broken` family are never timed either, and a library's kernels
compiled into a family (CUB's, under `cub::`, for the devscan ceiling) are
listed but not ours to fail.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

ENTRY = re.compile(r"ptxas info\s*: Compiling entry function '([^']+)' for '(sm_\w+)'")
PROPS = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
USED = re.compile(r"ptxas info\s*: Used (\d+) registers(?:, used \d+ barriers)?(?:, (\d+) bytes smem)?")


def demangle(names):
    """Itanium names -> C++ signatures (c++filt, when present)."""
    tool = shutil.which("c++filt")
    if not tool or not names:
        return dict(zip(names, names))
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True,
                         check=False).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else dict(zip(names, names))


def parse(path):
    """One dict per (kernel, arch) compiled into one .res file."""
    kernels, cur = [], None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = ENTRY.search(line)
            if m:
                cur = {"file": os.path.basename(path), "mangled": m.group(1), "arch": m.group(2),
                       "regs": None, "smem": 0, "stack": 0, "spill_st": 0, "spill_ld": 0}
                kernels.append(cur)
                continue
            if cur is None:
                continue
            m = PROPS.search(line)
            if m:
                cur["stack"], cur["spill_st"], cur["spill_ld"] = map(int, m.groups())
                continue
            m = USED.search(line)
            if m and cur["regs"] is None:
                cur["regs"] = int(m.group(1))
                cur["smem"] = int(m.group(2) or 0)
    return kernels


# The validating twin's flag, by the name every kernel template gives it.
TWIN_FLAGS = ("Bounded", "Validate")
KERNELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels")
KERNEL_DECL = re.compile(r"template\s*<(?P<params>[^;{}]*?)>\s*__global__\s(?P<decl>[^;{]*)")


def split_top(text):
    """'A<1, 2>, (x, y), true' -> ['A<1, 2>', '(x, y)', 'true']: commas outside <>, (), [] only."""
    parts, depth, cur = [], 0, ""
    for c in text:
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur.strip())
    return parts


def template_args(sig):
    """'void k<A<1, 2>, 128, true>(P)' -> ['A<1, 2>', '128', 'true']; None without template arguments."""
    head = sig.split("(")[0]
    if not head.endswith(">") or "<" not in head:
        return None
    return split_top(head[head.index("<") + 1:-1])


def twin_flags(dirs):
    """{kernel template name: index of its twin flag among its template
    parameters, or None}, from the __global__ templates declared under dirs.
    A name declared twice with the flag at different places maps to None."""
    found = {}
    for top in dirs:
        for root, _, files in os.walk(top):
            for f in sorted(files):
                if not f.endswith((".cu", ".cuh")):
                    continue
                with open(os.path.join(root, f), encoding="utf-8", errors="replace") as src:
                    text = re.sub(r"//[^\n]*", "", src.read())
                for m in KERNEL_DECL.finditer(text):
                    names = [re.sub(r"=.*", "", p).split()[-1] for p in split_top(m["params"]) if p.split()]
                    at = next((i for i, n in enumerate(names) if n in TWIN_FLAGS), None)
                    name = declared_name(m["decl"])
                    if name:
                        found[name] = at if found.get(name, at) == at else None
    return found


def declared_name(decl):
    """'void __launch_bounds__(B) k(const P p)' -> 'k': the name before the last (...) group."""
    depth, end = 0, None
    for i in range(len(decl) - 1, -1, -1):
        if decl[i] == ")":
            depth += 1
        elif decl[i] == "(":
            depth -= 1
            if depth == 0:
                end = i
                break
    m = re.search(r"(\w+)\s*$", decl[:end]) if end else None
    return m.group(1) if m else None


def kernel_name(sig):
    """'void ns::k<A, true>(P)' -> 'k'."""
    head = sig.split("(")[0]
    head = head[:head.index("<")] if "<" in head else head
    return re.split(r"[\s:]+", head.strip())[-1]


def is_timed(k, flags):
    if k["file"].startswith("broken") or k["name"].startswith(("void cub::", "_ZN3cub")):
        return False
    at, args = flags.get(kernel_name(k["name"])), template_args(k["name"])
    return at is None or args is None or at >= len(args) or args[at] != "true"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reports", nargs="+", help="ptxas reports (.res) from nvcc --resource-usage")
    ap.add_argument("--table", help="write the full per-kernel table (markdown) here")
    ap.add_argument("--sources", action="append",
                    help="where the kernels' templates are declared (default: kernels/; repeatable)")
    a = ap.parse_args(argv)
    kernels = []
    for p in a.reports:
        try:
            kernels += parse(p)
        except OSError as e:
            print(f"kernel_resources: cannot read {p}: {e.strerror}", file=sys.stderr)
            return 2
    if not kernels:
        print("kernel_resources: no 'Compiling entry function' lines in the reports "
              "(were the objects built with --resource-usage?)", file=sys.stderr)
        return 2
    names = demangle(sorted({k["mangled"] for k in kernels}))
    flags = twin_flags(a.sources or [KERNELS_DIR])
    for k in kernels:
        k["name"] = names[k["mangled"]]
        k["timed"] = is_timed(k, flags)
    if a.table:
        os.makedirs(os.path.dirname(os.path.abspath(a.table)), exist_ok=True)
        with open(a.table, "w", encoding="utf-8") as f:
            f.write("| file | arch | kernel | timed | regs | static smem B | stack B | spill st/ld B |\n")
            f.write("|---|---|---|---|---|---|---|---|\n")
            for k in kernels:
                f.write(f"| {k['file']} | {k['arch']} | `{k['name']}` | {'yes' if k['timed'] else 'no'} "
                        f"| {k['regs']} | {k['smem']} | {k['stack']} | {k['spill_st']}/{k['spill_ld']} |\n")
    bad = [k for k in kernels if k["timed"] and (k["spill_st"] or k["spill_ld"])]
    by_file = {}
    for k in kernels:
        by_file.setdefault(k["file"], []).append(k)
    for f, ks in sorted(by_file.items()):
        regs = [k["regs"] for k in ks if k["regs"] is not None]
        timed = [k for k in ks if k["timed"]]
        spills = sum(1 for k in timed if k["spill_st"] or k["spill_ld"])
        print(f"{f:16} {len(ks):4} kernels ({len(timed)} timed)  regs {min(regs)}-{max(regs)}  "
              f"static smem <= {max(k['smem'] for k in ks)} B  timed with spills: {spills}")
    for k in bad:
        print(f"SPILL {k['file']} {k['arch']} {k['name']}: {k['spill_st']} B stores, "
              f"{k['spill_ld']} B loads, {k['stack']} B stack, {k['regs']} registers")
    if bad:
        print(f"kernel_resources: {len(bad)} timed kernel(s) spill", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
