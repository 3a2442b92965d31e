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
import lzma
import os
import sys


def split(path, outdir=None):
    """Returns {gpu_uuid: output path}."""
    opener = lzma.open if str(path).endswith(".xz") else open
    with opener(path, "rt", newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        try:
            header = next(reader)
        except StopIteration:
            raise ValueError(f"{path}:1: empty file, no header") from None
        if "gpu_uuid" not in header:
            raise ValueError(f"{path}:1: no gpu_uuid column: not a syncbench CSV")
        col = header.index("gpu_uuid")
        groups = {}
        for line, row in enumerate(reader, start=2):
            if len(row) != len(header):
                raise ValueError(f"{path}:{line}: {len(row)} fields, the header has {len(header)}")
            groups.setdefault(row[col], []).append(row)
    if not groups:
        raise ValueError(f"{path}:2: no rows after the header: nothing to split")
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
    except UnicodeDecodeError as e:
        print(f"split_gpus: {args.csv}: not a UTF-8 text file ({e.reason} at byte {e.start})", file=sys.stderr)
        return 2
    except lzma.LZMAError as e:
        print(f"split_gpus: {args.csv}: not a readable xz file: {e}", file=sys.stderr)
        return 2
    except (OSError, ValueError, csv.Error) as e:
        print(f"split_gpus: {e}", file=sys.stderr)
        return 2
    for uuid, (name, n) in parts.items():
        print(f"{name}: {n} rows ({uuid})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
