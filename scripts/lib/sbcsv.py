"""Reading syncbench CSVs by column name, with errors that name the file,
line and column. Every script in scripts/ reads results through here.

The writer's schema lives in harness/csv_schema.h; this module knows which
columns each schema version guarantees and how to type them. Columns a
version does not know are kept as strings, so newer files stay readable.
"""
from __future__ import annotations

import csv
import glob
import lzma
import math
import os
import sys

import sbdeps  # noqa: F401  (a missing package: one line and exit 2, not a traceback)

# Schema 2 adds optional columns (regs_per_thread, smem_per_block) and the
# gemm family's (m, k, pct_of_cublas); every column is read by name, so a
# file with or without them reads the same way. Schema 3 adds the power
# state (sm_clock_after_mhz, power_w, temp_c, throttle_reasons, throttled)
# and pct_of_cub; sm_clock_mhz is then the clock over the samples. Schema 4
# takes the ceiling ratios as a median of v c c v block ratios and adds
# ceiling_us (the paired ceiling's own median); schema 5 adds gemm's
# epilogue_pct; schema 6 reads each family's paired ratio as its variant
# table says (sbcompare.ratio_reading); schema 7 lets the splits axis read
# "auto" (the launcher picked the count: a point of its own, beside the
# explicit counts) and adds splits_used, the count the kernel ran with; and the axis
# cluster_shape (gemm/ws_tma_wgmma_multicast); schema 8 adds elapsed_s
# (seconds from the sweep's start to the row: a run's wall time is its
# largest cell, sweep_wall_s()); schema 9 reads gemm's paired ratio from
# the two sides' lower quartiles (ceiling_reading low_quartile), columns
# unchanged; schema 10 adds a composed variant's parts (mainloop, consumer,
# schedule, epilogue: gemm's), which read() gives rows of older files too,
# from the variant table (their variant names are unchanged); schema 11
# adds devscan's look-back tuning axes (window, first_sleep_ns,
# poll_sleep_ns, sleep_min_tiles: whole numbers, empty outside a tuning
# sweep) and the reference family's vector_copy row (its pct_of_copy below
# or above 100; the yardstick is the row at exactly 100); schema 12 prices
# the barrier rows timed by each block's loop by the trimmed mean over
# blocks, not the median, and adds p05_us and p10_us (the samples' 5th and
# 10th percentiles) after q3_us; schema 13 adds p01_us before them and
# reads gemm's paired ratio from the 1st percentiles (p01); schema 14 adds
# placements after samples (the places in device memory a point's samples
# were taken over) and prices the barrier rows timed by each block's loop
# at full occupancy by the 90th percentile over blocks; schema 15 lets a
# variant read its paired ratio otherwise than its family (median_ratio, the block median);
# schema 16 adds median_kcycles after p10_us (the median of each sample's
# time x the SM clock the clock witness read for it, 10^3 cycles); schema
# 17 reads that variant's paired ratio from the 75th percentiles (p75_ratio,
# was median_ratio: sbcompare.ratio_reading); schema 18 holds the stream
# while each sample with no flush before it is enqueued (columns unchanged).
SUPPORTED_SCHEMA_VERSIONS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18}
COMPOSITION = ["mainloop", "consumer", "schedule", "epilogue"]
# Every statistic of a row's per-launch times (a point that takes k times
# as long has each of them k times; older schemas lack the percentiles).
SAMPLE_TIMES = ("median_us", "min_us", "max_us", "q1_us", "q3_us", "p01_us", "p05_us", "p10_us")



# Columns every schema-1 file has, and how to read each non-string one.
AXES = ["block_threads", "stages", "buffer_bytes", "iters", "intensity", "n"]
REQUIRED = [
    "schema_version", "family", "variant", *AXES, "status", "detail",
    "samples", "median_us", "min_us", "max_us", "q1_us", "q3_us", "cv_pct",
    "bytes_moved", "gbps", "pct_of_copy", "blocks_per_sm", "gpu_name",
    "gpu_uuid", "cc", "sm_count", "sm_clock_mhz", "driver", "cuda", "commit",
    "run_utc", "seed",
]
INT_COLUMNS = {"schema_version", *AXES, "samples", "placements", "bytes_moved",
               "blocks_per_sm", "sm_count", "seed", "elems_per_thread",
               "consumer_warps", "cluster", "bytes_in_flight_per_sm",
               "regs_per_thread", "smem_per_block", "m", "k",
               "temp_c", "throttled", "splits_used", "window", "first_sleep_ns",
               "poll_sleep_ns", "sleep_min_tiles"}
# Axes that take `auto` besides a number (schema 7): an int, or the string
# "auto", a value of its own in a row's key.
AUTO = "auto"
INT_OR_AUTO_COLUMNS = {"splits"}
FLOAT_COLUMNS = {"median_us", "min_us", "max_us", "q1_us", "q3_us", "p01_us", "p05_us", "p10_us", "median_kcycles",
                 "cv_pct",
                 "gbps", "pct_of_copy", "sm_clock_mhz", "gflops",
                 "cycles_per_op", "ns_per_op", "pct_of_cublas",
                 "pct_of_cub", "sm_clock_after_mhz", "power_w", "ceiling_us",
                 "epilogue_pct", "elapsed_s"}
STATUSES = {"ok", "skipped", "unsupported", "wrong", "error", "deadlock"}
HEADER_SNAPSHOT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                               "results", "csv_header.csv")


def _schema_axes():
    """The writer's axis columns, beyond schema 1's: in harness/csv_schema.h
    they are the columns between `variant` and `status`. Read from the
    snapshot of `syncbench --csv-header` (make variants), not a copy."""
    with open(HEADER_SNAPSHOT, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    axes = header[header.index("variant") + 1:header.index("status")]
    return [a for a in axes if a not in AXES]


# Axes of later schemas (categorical or numeric): part of a row's key. Cells
# of an axis the types above do not name are read as ints where they are.
EXTRA_AXES = _schema_axes()

class CsvError(Exception):
    """Unusable input: the message names file, line and column."""


def _where(path, line, column=None):
    loc = f"{path}:{line}"
    return f"{loc}: column '{column}'" if column else loc


def _convert(path, line, column, text):
    if text == "":
        return None
    try:
        if column in INT_COLUMNS:
            return int(text)
        if column in INT_OR_AUTO_COLUMNS:
            return AUTO if text == AUTO else int(text)
        if column in FLOAT_COLUMNS:
            value = float(text)
            if math.isnan(value):
                raise ValueError
            return value
        if column in EXTRA_AXES and text.lstrip("-").isdigit():
            return int(text)
    except ValueError:
        raise CsvError(f"{_where(path, line, column)}: '{text}' is not a number") from None
    return text


def _first_bad_column(header, record):
    """Where a row with the wrong field count goes wrong, by column name."""
    if len(record) < len(header):
        return f"column '{header[len(record)]}' onward missing"
    return f"extra field(s) after column '{header[-1]}'"


def csv_files(pattern):
    """The files a glob pattern ending in .csv names, and their committed
    .csv.xz forms (older runs are kept compressed: read() reads either)."""
    return sorted(set(glob.glob(pattern, recursive=True)) | set(glob.glob(pattern + ".xz", recursive=True)))


def on_disk(path):
    """The file a .csv path names: itself, or its committed .csv.xz where
    only that is in the tree (the proofs are kept compressed)."""
    return f"{path}.xz" if not os.path.exists(path) and os.path.exists(f"{path}.xz") else path


def committed(path):
    """Whether a .csv path is in the tree, as itself or compressed (.csv.xz)."""
    return os.path.exists(on_disk(path))


def read_records(path):
    """Every record of a CSV file (lists of strings; a path ending .xz read
    through lzma), or CsvError naming what keeps it from being read: the
    reader under read() and the other CSVs syncbench's scripts read
    (stalls.csv, a --devices run to split)."""
    if not os.path.exists(path):
        raise CsvError(f"{path}: no such file")
    records = []
    opener = lzma.open if str(path).endswith(".xz") else open
    try:
        # utf-8-sig: a byte-order mark, as spreadsheets save a CSV, is not part of the first column's name
        with opener(path, "rt", newline="", encoding="utf-8-sig") as f:
            records.extend(csv.reader(f, strict=True))
    except (lzma.LZMAError, EOFError) as e:
        raise CsvError(f"{path}: not a readable xz file: {e}") from None
    except OSError as e:  # a directory, no permission
        raise CsvError(f"{path}: cannot read: {e.strerror or e}") from None
    except (csv.Error, UnicodeDecodeError) as e:
        # The record being read starts after the last complete one.
        where = f"{path}:{len(records) + 1}" if isinstance(e, csv.Error) else path
        raise CsvError(f"{where}: not a readable CSV: {e}") from None
    return records


def read(path):
    """Returns the rows of one syncbench CSV as dicts of typed values
    (None for empty cells); a path ending .xz is read through lzma (the
    large proofs are committed compressed). Raises CsvError for anything
    unusable. A .csv path that is committed compressed is read as its
    .csv.xz (on_disk)."""
    path = on_disk(path)
    records = read_records(path)
    if not records:
        raise CsvError(f"{path}:1: empty file (no header; column '{REQUIRED[0]}' "
                       f"and every other column missing)")
    header = records[0]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise CsvError(f"{path}:1: missing column(s) {', '.join(missing)}")
    if len(set(header)) != len(header):
        raise CsvError(f"{path}:1: a column name appears twice")
    rows = []
    for number, record in enumerate(records[1:], start=2):
        if not record:
            continue
        if len(record) != len(header):
            raise CsvError(f"{_where(path, number)}: {len(record)} fields, the header has "
                           f"{len(header)} (truncated or malformed row; "
                           f"{_first_bad_column(header, record)})")
        row = {c: _convert(path, number, c, v) for c, v in zip(header, record)}
        if row["schema_version"] not in SUPPORTED_SCHEMA_VERSIONS:
            raise CsvError(f"{_where(path, number, 'schema_version')}: unknown schema "
                           f"version {row['schema_version']} (this script reads "
                           f"{sorted(SUPPORTED_SCHEMA_VERSIONS)})")
        if row["status"] not in STATUSES:
            raise CsvError(f"{_where(path, number, 'status')}: unknown status '{row['status']}'")
        if row["schema_version"] < 10:
            _add_composition(row)
        row["_line"] = number
        rows.append(row)
    return rows


def _add_composition(row):
    """A row of an older schema: its variant's parts from the variant table
    (sbvariants), None where the variant is not composed or not known."""
    try:
        import sbvariants
        parts = sbvariants.composition(row["family"], row["variant"])
    except (ImportError, OSError, ValueError):
        parts = {}
    for c in COMPOSITION:
        row.setdefault(c, parts.get(c))


def write_atomically(path, data):
    """Writes data (str: UTF-8 text as is, no newline translation; bytes as
    they are) to a file beside path, then renames it over path: a run cut
    while writing leaves the old file whole, never half of the new one."""
    tmp = f"{path}.part"
    try:
        with open(tmp, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def read_or_exit(path, prog):
    """read(), for a script's main: unusable input is one line and exit 2."""
    try:
        return read(path)
    except CsvError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def key(row):
    """What identifies a point: family, variant and every axis."""
    return (row["family"], row["variant"], *(row.get(a) for a in AXES + EXTRA_AXES))


def gpu_slug(name):
    """Same rule as sb_gpu_slug() in harness/device.c."""
    out, dash = [], True
    for ch in name:
        if ch.isascii() and ch.isalnum():
            out.append(ch.lower())
            dash = False
        elif not dash:
            out.append("-")
            dash = True
    slug = "".join(out).strip("-")
    if slug.startswith("nvidia-"):
        slug = slug[len("nvidia-"):]
    return slug or "unknown-gpu"


if __name__ == "__main__":
    import sys
    print("usage: import sbcsv (scripts/sbcsv.py is a module of every script that reads a CSV, not a command)\n")
    print(__doc__.strip())
    sys.exit(0)


def sweep_wall_s(rows):
    """A run's wall time in seconds: its largest elapsed_s (schema 8 on),
    or None for a run that does not record it."""
    cells = [r["elapsed_s"] for r in rows if r.get("elapsed_s") is not None]
    return max(cells) if cells else None
