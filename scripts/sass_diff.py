#!/usr/bin/env python3
"""Two builds' machine code side by side, kernel by kernel: which kernels
are the same instruction for instruction, and where the others differ, by
kind of instruction. A change to how the kernels are stated (issue 54's
composition) keeps each kernel's SASS, or explains each difference: this
is the table that says which.

    python3 scripts/sass_diff.py BASE_BINARY NEW_BINARY [--arch sm_90a]
        [--filter REGEX] [--timed] [--alias FROM=TO ...] [--out CSV]

Kernels are matched by name (demangled where c++filt is found) within the
cubins of one architecture (--arch, default sm_90a); --alias FROM=TO
renames in the base's names first, for a kernel the new build names
otherwise (GemmSingle, -> GemmSingleT<true>,); --filter keeps the kernels whose
mangled or demangled name matches; --timed keeps the timed ones (the
kernels say which, as scripts/twin_sass.py reads them). One CSV row a
kernel (to --out, or stdout): kernel (demangled where c++filt is found),
timed, verdict (identical, different, only_base, only_new), then for each
side the count of every instruction and of each kind in KINDS (mma, tma,
sync, global, shared, branch, other), and same_sync: 1 where both sides
hold as many mma, tma and sync instructions (the variant's math and
synchronization), whatever else moved. A summary line goes to stderr.

Exit status: 0 written; 2 cuobjdump missing, a binary unreadable, or no
cubin of that architecture.
"""
import argparse
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from kernel_resources import KERNELS_DIR, demangle, twin_flags  # noqa: E402
from twin_sass import extract_both, raw_kernels  # noqa: E402

# Each kind by the head of its opcode (the part before the first '.').
KINDS = (
    ("mma", ("HGMMA", "HMMA", "IMMA", "QGMMA", "IGMMA", "WARPGROUP")),
    ("tma", ("UTMALDG", "UTMASTG", "UTMAPF", "UTMACCTL", "UTMACMDFLUSH", "UBLKCP", "UBLKRED", "UBLKPF")),
    ("sync", ("SYNCS", "BAR", "UCGABAR", "MEMBAR", "FENCE", "ERRBAR", "DEPBAR", "WARPSYNC", "CCTL")),
    ("global", ("LDG", "STG", "LD", "ST", "RED", "REDG", "ATOM", "ATOMG", "REDUX")),
    ("shared", ("LDS", "STS", "LDSM", "STSM", "ATOMS")),
    ("branch", ("BRA", "BRX", "JMP", "CALL", "RET", "EXIT", "BSSY", "BSYNC", "BREAK", "WARPSYNC")),
)
KIND_NAMES = [k for k, _ in KINDS] + ["other"]
# What a variant's synchronization and math are: same_sync is 1 where both
# sides hold as many instructions of each of these kinds.
SYNC_KINDS = ("mma", "tma", "sync")
GUARD = re.compile(r"^@!?U?P[T\d]+\s+")


def kind(instruction):
    """The kind of one SASS instruction text ('@P0 HGMMA.64x128x16...' -> 'mma')."""
    head = GUARD.sub("", instruction.strip()).split(" ")[0].split(".")[0]
    for name, heads in KINDS:
        if head in heads:
            return name
    return "other"


def counts(code):
    """{'all': n, kind: n, ...} of one kernel's instructions."""
    out = dict.fromkeys(["all"] + KIND_NAMES, 0)
    for ins in code:
        out["all"] += 1
        out[kind(ins)] += 1
    return out


def rows(base, new, timed=frozenset(), names=None):
    """One dict per kernel of either side ({name: [instruction, ...]}, matched
    by name): kernel (names[name] where given), timed (name in timed),
    verdict, base_<kind> and new_<kind> counts."""
    names = names or {}
    out = []
    for k in sorted(set(base) | set(new)):
        b, n = base.get(k), new.get(k)
        verdict = ("only_new" if b is None else "only_base" if n is None else
                   "identical" if b == n else "different")
        row = {"kernel": names.get(k, k), "timed": int(k in timed), "verdict": verdict}
        for side, code in (("base", b), ("new", n)):
            c = counts(code) if code is not None else dict.fromkeys(["all"] + KIND_NAMES, "")
            row.update({f"{side}_{name}": v for name, v in c.items()})
        row["same_sync"] = "" if b is None or n is None else int(
            all(row[f"base_{k}"] == row[f"new_{k}"] for k in SYNC_KINDS))
        out.append(row)
    return out


def rename(name, aliases):
    """name with each (FROM, TO) of aliases replaced, in order."""
    for old, to in aliases:
        name = name.replace(old, to)
    return name


def functions(cubins, arch):
    """{mangled: code} over the cubins of one architecture."""
    out = {}
    for cubin, funcs in cubins.items():
        if f".{arch}." in cubin or cubin.endswith(f"{arch}.cubin"):
            out.update(funcs)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--filter", default="", help="keep kernels whose mangled or demangled name matches")
    ap.add_argument("--timed", action="store_true", help="keep the timed kernels only")
    ap.add_argument("--alias", action="append", default=[], metavar="FROM=TO",
                    help="rename FROM to TO in the base's kernel names before matching (repeatable)")
    ap.add_argument("--out", help="CSV path (default: stdout)")
    a = ap.parse_args(argv)
    both = extract_both(a.base, a.new, "sass_diff")
    if both is None:
        return 2
    base, new = functions(both[0], a.arch), functions(both[1], a.arch)
    if not base or not new:
        print(f"sass_diff: no {a.arch} cubin in {a.base if not base else a.new}", file=sys.stderr)
        return 2
    aliases = []
    for spec in a.alias:
        old, sep, to = spec.partition("=")
        if not sep or not old:
            print(f"sass_diff: --alias {spec!r} is not FROM=TO", file=sys.stderr)
            return 2
        aliases.append((old, to))
    names = demangle(sorted(set(base) | set(new)))
    pat = re.compile(a.filter)
    flags = twin_flags([KERNELS_DIR])
    timed_mangled = set(raw_kernels(base, flags)) | set(raw_kernels(new, flags))
    keep = {k for k in set(base) | set(new) if (pat.search(k) or pat.search(names.get(k, k))) and
            (not a.timed or k in timed_mangled)}
    base_named = {rename(names.get(k, k), aliases): v for k, v in base.items() if k in keep}
    new_named = {names.get(k, k): v for k, v in new.items() if k in keep}
    timed = {rename(names.get(k, k), aliases) for k in timed_mangled if k in base} | \
        {names.get(k, k) for k in timed_mangled if k in new}
    table = rows(base_named, new_named, timed)
    f = open(a.out, "w", newline="", encoding="utf-8") if a.out else sys.stdout
    w = csv.DictWriter(f, fieldnames=["kernel", "timed", "verdict"] +
                       [f"{s}_{k}" for s in ("base", "new") for k in ["all"] + KIND_NAMES] + ["same_sync"],
                       lineterminator="\n")
    w.writeheader()
    w.writerows(table)
    if a.out:
        f.close()
    tally = {}
    for r in table:
        tally[r["verdict"]] = tally.get(r["verdict"], 0) + 1
    print("sass_diff: " + ", ".join(f"{v} {n}" for v, n in sorted(tally.items())) +
          f" ({len(table)} kernels, {a.arch})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
