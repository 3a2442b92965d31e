"""The variant tables, as the binary lists them: which families and
variants exist, in which order, and which traits each row carries
(baseline, ceiling, plain, yardstick). Scripts ask here instead of quoting
variant names, so a row added to a table shows up in every plot, compare
and answer without a script edit.

The data is `syncbench --list --format=csv`; the committed snapshot
results/variants.csv is what scripts read (`make variants` rewrites it,
`make test` checks it is current). SB_VARIANTS=<path> reads another file
(the tests use a dummy table that way).

Columns: family,family_flags,family_summary,variant,variant_index,min_cc,
flags,axes,ceiling_column,ceiling_reading,summary (flags ;-joined names;
ceiling_reading: how the paired ratio is read from its samples,
'fastest' or 'block_median', harness/paired.h), then mainloop,consumer,
schedule,epilogue: a composed variant's parts (gemm's,
kernels/gemm/gemm_compose.cuh; empty elsewhere; absent from older lists).
"""
from __future__ import annotations

import csv
import os
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SNAPSHOT = os.path.join(ROOT, "results", "variants.csv")
HEADER = ["family", "family_flags", "family_summary", "variant", "variant_index",
          "min_cc", "flags", "axes", "ceiling_column", "ceiling_reading", "summary"]
# A composed variant's parts (the CSV's columns of the same names, schema 10 on).
COMPOSITION = ["mainloop", "consumer", "schedule", "epilogue"]


@dataclass
class Variant:
    family: str
    name: str
    index: int
    min_cc: int
    flags: frozenset
    summary: str
    composition: dict = field(default_factory=dict)  # {part: name}; {} for a variant that is not composed
    ceiling_reading: str | None = None  # how its paired ratio is read (the family's, or its own: p75_ratio)


@dataclass
class Family:
    name: str
    flags: frozenset
    summary: str
    axes: list
    ceiling_column: str | None
    ceiling_reading: str | None  # 'fastest' or 'block_median' (schema 6 on)
    variants: list = field(default_factory=list)  # table order

    def with_flag(self, flag):
        return [v.name for v in self.variants if flag in v.flags]

    def first_with(self, flag):
        names = self.with_flag(flag)
        return names[0] if names else None


def _split(text):
    return [t for t in (text or "").split(";") if t]


def parse(path):
    """{family: Family} in table order, from a --list --format=csv file."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in HEADER if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}:1: missing column(s) {', '.join(missing)}")
        families = {}
        for row in reader:
            fam = families.setdefault(row["family"], Family(
                row["family"], frozenset(_split(row["family_flags"])), row["family_summary"],
                _split(row["axes"]), row["ceiling_column"] or None,
                row["ceiling_reading"] or None))
            fam.variants.append(Variant(row["family"], row["variant"], int(row["variant_index"]),
                                        int(row["min_cc"] or 0), frozenset(_split(row["flags"])),
                                        row["summary"],
                                        {c: row[c] for c in COMPOSITION if row.get(c)},
                                        row["ceiling_reading"] or None))
    for fam in families.values():
        fam.variants.sort(key=lambda v: v.index)
    return families


_CACHE = {}


def catalog(path=None):
    """{family: Family}: SB_VARIANTS if set, else the committed snapshot."""
    path = path or os.environ.get("SB_VARIANTS") or SNAPSHOT
    if path not in _CACHE:
        _CACHE[path] = parse(path)
    return _CACHE[path]


def family(name):
    return catalog().get(name)


def variants(name):
    """Variant names of a family in table order ([] for an unknown family)."""
    fam = family(name)
    return [v.name for v in fam.variants] if fam else []


def variant(fam_name, name):
    fam = family(fam_name)
    return next((v for v in fam.variants if v.name == name), None) if fam else None


def composition(fam_name, name):
    """{mainloop, consumer, schedule, epilogue: name} of a composed variant, {} otherwise."""
    v = variant(fam_name, name)
    return dict(v.composition) if v else {}


def has_flag(fam_name, name, flag):
    v = variant(fam_name, name)
    return bool(v and flag in v.flags)


def has_family_flag(fam_name, flag):
    """Whether the family's table carries a family trait (family_flags)."""
    fam = family(fam_name)
    return bool(fam and flag in fam.flags)


def baseline(name):
    """The family's baseline variant (the 1.0 of its speedups), or None."""
    fam = family(name)
    return fam.first_with("baseline") if fam else None


def ceiling(name):
    """The family's ceiling row (cuBLAS, CUB), or None."""
    fam = family(name)
    return fam.first_with("ceiling") if fam else None


def plain(name):
    """The family's plain reference loop, or None."""
    fam = family(name)
    return fam.first_with("plain") if fam else None


def baselines():
    """{family: baseline variant} for every family that has one."""
    return {f: b for f in catalog() if (b := baseline(f))}


def yardstick_families():
    """The bandwidth yardstick family (or families): family flag `yardstick`."""
    return [f.name for f in catalog().values() if "yardstick" in f.flags]


def is_yardstick(name):
    fam = family(name)
    return bool(fam and "yardstick" in fam.flags)


def is_yardstick_row(row):
    """The row is the copy every pct_of_copy is against: a yardstick family's
    variant flagged `yardstick` (reference/d2d_copy; the family's other rows,
    vector_copy, are measured against it). A table without that flag (before
    schema 10) had one row in the family: every row of it."""
    fam = family(row["family"])
    if not (fam and "yardstick" in fam.flags):
        return False
    marked = fam.with_flag("yardstick")
    return row["variant"] in marked if marked else True


def ordered(fam_name, names):
    """names in table order; names the table lacks follow, sorted."""
    order = {v: i for i, v in enumerate(variants(fam_name))}
    return sorted(dict.fromkeys(names), key=lambda n: (n not in order, order.get(n, 0), n))


def color(fam_name, name, cmap="tab10"):
    """A stable colour per variant: by its index in the family's table."""
    import matplotlib
    names = variants(fam_name)
    i = names.index(name) if name in names else len(names) + sum(map(ord, name))
    if len(names) > 10 and cmap == "tab10":
        cmap = "tab20"  # more variants than tab10 has colours: no two alike
    colors = matplotlib.colormaps[cmap].colors
    return matplotlib.colors.to_hex(colors[i % len(colors)])


def summary(fam_name, name):
    v = variant(fam_name, name)
    return v.summary if v else ""


if __name__ == "__main__":
    import sys
    print("usage: import sbvariants (scripts/sbvariants.py is a module of the scripts, not a command)\n")
    print(__doc__.strip())
    sys.exit(0)
