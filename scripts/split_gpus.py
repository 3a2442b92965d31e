#!/usr/bin/env python3
"""Splits a syncbench CSV written by `--devices` (rows of several GPUs,
told apart by gpu_uuid) into one CSV per GPU, which is what the compare and
report scripts take (one CSV = one GPU's run).

    python scripts/split_gpus.py merged.csv [--outdir DIR]

Writes DIR/<stem>.<gpu-uuid>.csv (DIR defaults to the input's directory)
and prints each path with its row count. Each row's fields are copied as
they are, in their original order (lines end in LF, as syncbench writes
them). A .csv.xz input is read through xz. Exit 2 on unusable input (no
rows at all among them)."""
from __future__ import annotations

import argparse
import csv
import os
import sys

sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # the library: sbcsv
import sbcsv  # noqa: E402


def split(path, outdir=None):
    """Returns {gpu_uuid: output path}. Raises sbcsv.CsvError."""
    records = sbcsv.read_records(path)
    if not records:
        raise sbcsv.CsvError(f"{path}:1: empty file, no header")
    header = records[0]
    if "gpu_uuid" not in header:
        raise sbcsv.CsvError(f"{path}:1: no gpu_uuid column: not a syncbench CSV")
    col = header.index("gpu_uuid")
    groups = {}
    for line, row in enumerate(records[1:], start=2):
        if len(row) != len(header):
            raise sbcsv.CsvError(f"{path}:{line}: {len(row)} fields, the header has {len(header)}")
        groups.setdefault(row[col], []).append(row)
    if not groups:
        raise sbcsv.CsvError(f"{path}:2: no rows after the header: nothing to split")
    outdir = outdir or os.path.dirname(os.path.abspath(path))
    os.makedirs(outdir, exist_ok=True)
    stem = os.path.basename(path).removesuffix(".xz").removesuffix(".csv")
    out = {}
    for uuid, rows in groups.items():
        name = os.path.join(outdir, f"{stem}.{uuid or 'no-uuid'}.csv")
        with open(name, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            w.writerows(rows)
        out[uuid] = (name, len(rows))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--outdir")
    args = ap.parse_args(argv)
    try:
        parts = split(args.csv, args.outdir)
    except (sbcsv.CsvError, OSError) as e:
        print(f"split_gpus: {e}", file=sys.stderr)
        return 2
    for uuid, (name, n) in parts.items():
        print(f"{name}: {n} rows ({uuid})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
