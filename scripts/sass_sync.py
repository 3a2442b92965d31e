#!/usr/bin/env python3
"""Which SASS synchronization instructions each barrier variant compiles to.

Runs `cuobjdump -sass` on the syncbench binary (no GPU needed), finds the
timed kernel of every variant of the barrier families
(barrier_kernel<barrier_op_<variant>, false>, kernels/families/barrier.cu) for each
architecture in the fat binary (sm_80, sm_90a), and counts the
synchronization opcodes:

  * in the timed loop: the instructions between the kernel's two clock64()
    reads (CS2R ... SR_CLOCKLO), plus the out-of-line blocks the compiler
    puts after the last EXIT (the retry paths of wait loops jump there);
  * in the whole kernel (adds the start/finish __syncthreads, the tally's
    shared atomics, barrier init, ...).

Writes a markdown report (default results/sass_sync.md). Usage:
  scripts/sass_sync.py [--binary build/syncbench] [--out results/sass_sync.md]

cuobjdump and nvdisasm come with the CUDA Toolkit; where the toolkit lacks
them, `pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` provides both
(the script looks in that package's bin folder too).
"""
from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import sbvariants  # noqa: E402

# Opcode families that synchronize or order (first dotted part of the opcode).
SYNC_OPS = {
    "BAR",       # bar.sync / barrier.sync / named barriers
    "SYNCS",     # sm_90 mbarrier unit: SYNCS.ARRIVE.*, SYNCS.PHASECHK.*, SYNCS.EXCH
    "MEMBAR",    # memory barriers (fences)
    "FENCE",     # proxy fences (fence.proxy.async)
    "WARPSYNC",  # __syncwarp
    "CCTL",      # cache control (L1 invalidation around gpu-scope fences)
    # UCGABAR_ARV / UCGABAR_WAIT: sm_90 cluster barrier (matched by prefix)
    "CGAERRBAR", "ERRBAR",
    "NANOSLEEP", "YIELD",
    "DEPBAR",    # scoreboard waits on async copies
    "UBLKCP",    # sm_90 bulk copy (cp.async.bulk)
    "ARRIVES",   # cp.async.mbarrier.arrive
    "ATOMS", "ATOM", "ATOMG", "RED",  # atomics that software barriers are built of
    "VOTE", "MATCH", "REDUX", "ELECT",  # warp-aggregated arrivals
}
OP_RE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P[T0-9]\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)")
FUNC_RE = re.compile(r"Function : (\S+)")
ARCH_RE = re.compile(r"code for (sm_\w+)")
# The timed twin (Validate = false, mangled `Lb0E`) of each variant.
KERNEL_RE = re.compile(r"barrier_kernelI\d+barrier_op_(\w+?)Lb0EEv")


def spellings():
    """The same block-wide arrive + wait in each API's spelling: the barrier
    rows the variant table flags `spelling`."""
    return sbvariants.family("barrier").with_flag("spelling")


def find_tool(name: str) -> str | None:
    env = os.environ.get(name.upper())
    if env:
        return env
    found = shutil.which(name)
    if found:
        return found
    cands = []
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    cands.append(os.path.join(cuda, "bin", name))
    for site in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        cands += glob.glob(os.path.join(site, "nvidia", "*", "bin", name))
    cands += glob.glob(os.path.join(os.path.dirname(__file__), "..", ".venv", "lib", "python3*",
                                    "site-packages", "nvidia", "*", "bin", name))
    for c in cands:
        if os.access(c, os.X_OK):
            return c
    return None


MISSING = ("cuobjdump not found; install the CUDA Toolkit's cuobjdump or "
           "`pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm`")


def tool_env() -> dict:
    """The environment to run cuobjdump in: nvdisasm's directory first on
    PATH where find_tool finds it (cuobjdump -sass calls nvdisasm by name,
    and pip's wheels put the two in directories of their own)."""
    env = dict(os.environ)
    nvdisasm = find_tool("nvdisasm")
    if nvdisasm:
        env["PATH"] = os.path.dirname(nvdisasm) + os.pathsep + env.get("PATH", "")
    return env


def is_sync(op: str) -> bool:
    head = op.split(".")[0]
    return head in SYNC_OPS or head.startswith("UCGABAR")


def analyse(raw_lines):
    """(timed-loop Counter, whole-kernel Counter) of sync opcodes."""
    whole = collections.Counter(op for _, op, _ in raw_lines if is_sync(op))
    clk = [i for i, (_, op, clock) in enumerate(raw_lines) if clock]
    loop = collections.Counter()
    if len(clk) >= 2:
        body = raw_lines[clk[0] + 1:clk[-1]]
        exits = [i for i, (_, op, _) in enumerate(raw_lines) if op == "EXIT"]
        tail = raw_lines[exits[-1] + 1:] if exits else []
        # drop the padding `BRA self` at the very end
        tail = [t for t in tail if not (t[1] == "BRA" and t is tail[-1])]
        loop = collections.Counter(op for _, op, _ in body + tail if is_sync(op))
    return loop, whole


def fmt(c: collections.Counter) -> str:
    if not c:
        return "none"
    return ", ".join(f"`{op}` x{n}" for op, n in sorted(c.items()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default="build/syncbench")
    ap.add_argument("--out", default="results/sass_sync.md")
    a = ap.parse_args(argv)
    tool = find_tool("cuobjdump")
    if not tool:
        print(f"sass_sync: {MISSING}", file=sys.stderr)
        return 2
    env = tool_env()
    if not os.path.exists(a.binary):
        print(f"sass_sync: {a.binary} does not exist; run make first", file=sys.stderr)
        return 2
    res = subprocess.run([tool, "-sass", a.binary], capture_output=True, text=True, env=env)
    if res.returncode != 0:
        print(f"sass_sync: {tool} failed: {res.stderr.strip()}", file=sys.stderr)
        return 2
    version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    kernels = parse(res.stdout)
    if not kernels:
        print(f"sass_sync: no barrier_kernel<barrier_op_*, false> in {a.binary}", file=sys.stderr)
        return 1
    archs = sorted({k[0] for k in kernels})
    variants = []
    for _, v in kernels:
        if v not in variants:
            variants.append(v)
    table = {k: analyse(ins) for k, ins in kernels.items()}

    lines = ["# SASS synchronization instructions of the barrier variants", "",
             f"Generated by `scripts/sass_sync.py` from `{a.binary}` with "
             f"`cuobjdump -sass` ({version[-1] if version else 'unknown version'}). "
             "Static instruction counts (how many times an opcode appears in the code, "
             "not how many times it runs).", "",
             "*Timed loop* = the instructions between the kernel's two `clock64()` reads "
             "(`CS2R ... SR_CLOCKLO`) plus the out-of-line blocks after the last `EXIT` "
             "(where the compiler puts the retry paths of wait loops). *Whole kernel* adds "
             "the common skeleton: the start and finish `__syncthreads` (`BAR.SYNC` x2 "
             "plus `WARPSYNC`), the tally's shared atomics (`ATOMS`), barrier "
             "initialization and the record's global atomic.", ""]
    for arch in archs:
        lines += [f"## {arch}", "", "| variant | in the timed loop | whole kernel |", "|---|---|---|"]
        for v in variants:
            if (arch, v) in table:
                loop, whole = table[(arch, v)]
                lines.append(f"| {v} | {fmt(loop)} | {fmt(whole)} |")
        lines.append("")
    lines += ["## Do the API spellings compile to the same instructions?", "",
              "Timed-loop synchronization opcodes of the mbarrier spellings, per architecture:", ""]
    for arch in archs:
        groups = collections.defaultdict(list)
        for v in spellings():
            if (arch, v) in table:
                groups[fmt(table[(arch, v)][0])].append(v)
        lines.append(f"- **{arch}**: " + ("all the same" if len(groups) == 1 else f"{len(groups)} distinct"))
        for sig, vs in groups.items():
            lines.append(f"  - {', '.join(vs)}: {sig}")
    lines.append("")
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(lines))
    print(f"sass_sync: {len(kernels)} kernels over {', '.join(archs)} -> {a.out}")
    return 0


def parse(sass: str):
    """{(arch, variant): [(address, opcode, reads SR_CLOCKLO), ...]} for the barrier kernels."""
    out = {}
    arch = None
    cur = None
    for line in sass.splitlines():
        m = ARCH_RE.search(line)
        if m:
            arch, cur = m.group(1), None
            continue
        m = FUNC_RE.search(line)
        if m:
            k = KERNEL_RE.search(m.group(1))
            cur = (arch, k.group(1)) if k else None
            if cur:
                out[cur] = []
            continue
        if cur is None:
            continue
        m = OP_RE.match(line)
        if m:
            out[cur].append((int(m.group(1), 16), m.group(2), "SR_CLOCKLO" in line))
    return out


if __name__ == "__main__":
    sys.exit(main())
