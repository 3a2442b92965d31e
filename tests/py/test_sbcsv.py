"""sbcsv.read: typed rows from a real run, and a CsvError naming file, line
and column for each way a CSV can be unusable. Bad CSVs are cut from the
real fixture so that only the defect under test differs."""
import csv
import os
import re
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import sbcsv  # noqa: E402

FIXTURE = os.path.join(ROOT, "tests", "py", "fixtures", "h200_scan_default.csv")


def records():
    """The fixture as a list of records; records[i] is file line i + 1."""
    with open(FIXTURE, newline="") as f:
        return list(csv.reader(f))


def write(tmp_path, recs, name="bad.csv"):
    path = tmp_path / name
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(recs)
    return str(path)


def set_cell(recs, line, column, value):
    recs[line - 1][recs[0].index(column)] = value
    return recs


def error_of(path):
    with pytest.raises(sbcsv.CsvError) as e:
        sbcsv.read(path)
    return str(e.value)


def test_good_fixture_types():
    rows = sbcsv.read(FIXTURE)
    recs = records()
    assert len(rows) == len(recs) - 1
    ref = rows[0]
    assert ref["family"] == "reference" and ref["variant"] == "d2d_copy"
    assert ref["_line"] == 2
    # Axes the reference does not use are empty cells: None, not 0 or "".
    assert ref["block_threads"] is None and ref["iters"] is None
    assert ref["detail"] is None and ref["blocks_per_sm"] is None
    assert ref["n"] == 134217728 and isinstance(ref["n"], int)
    assert ref["median_us"] == pytest.approx(260.448) and isinstance(ref["median_us"], float)
    assert ref["gbps"] == pytest.approx(4122.67)
    assert ref["schema_version"] == 1 and ref["sm_count"] == 132
    assert ref["seed"] == 3789620911034398569
    assert ref["gpu_name"] == "NVIDIA H200" and ref["cc"] == "9.0"
    scan = rows[1]
    assert (scan["variant"], scan["block_threads"], scan["iters"]) == ("two_barrier", 32, 1)
    assert scan["samples"] == 329 and scan["cv_pct"] == pytest.approx(0.63)
    assert {r["status"] for r in rows} == {"ok"}
    # Every row keeps every header column.
    assert all(set(recs[0]) <= set(r) for r in rows)


def test_key_tells_points_apart():
    rows = sbcsv.read(FIXTURE)
    assert len({sbcsv.key(r) for r in rows}) == len(rows)


def test_gpu_slug():
    assert sbcsv.gpu_slug("NVIDIA H200") == "h200"
    assert sbcsv.gpu_slug("NVIDIA H100 80GB HBM3") == "h100-80gb-hbm3"
    assert sbcsv.gpu_slug("") == "unknown-gpu"


def test_unknown_extra_column_is_kept_as_string(tmp_path):
    # Newer writers add columns: older readers must keep reading.
    recs = records()[:3]
    recs[0].append("future_axis")
    recs[1].append("")
    recs[2].append("wide")
    rows = sbcsv.read(write(tmp_path, recs))
    assert rows[0]["future_axis"] is None and rows[1]["future_axis"] == "wide"


def test_empty_file(tmp_path):
    path = write(tmp_path, [])
    msg = error_of(path)
    assert msg.startswith(f"{path}:1:") and "empty" in msg


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.csv")
    assert path in error_of(path)


def test_truncated_row(tmp_path):
    recs = records()[:5]
    recs[2] = recs[2][:10]  # line 3 lost its tail, as after a crash mid-write
    path = write(tmp_path, recs)
    msg = error_of(path)
    assert msg.startswith(f"{path}:3:")
    assert "10 fields" in msg


def test_missing_column(tmp_path):
    recs = records()[:4]
    i = recs[0].index("median_us")
    recs = [r[:i] + r[i + 1:] for r in recs]
    path = write(tmp_path, recs)
    msg = error_of(path)
    assert msg.startswith(f"{path}:1:") and "median_us" in msg


def test_unknown_schema_version(tmp_path):
    path = write(tmp_path, set_cell(records()[:6], 4, "schema_version", "99"))
    msg = error_of(path)
    assert msg.startswith(f"{path}:4: column 'schema_version'")
    assert "3" in msg


def test_the_schema_the_binary_writes_is_one_the_scripts_read():
    # harness/csv_schema.h's version, which every row of a new run carries:
    # a bump there without one here would make every script refuse that run.
    with open(os.path.join(ROOT, "harness", "csv_schema.h"), encoding="utf-8") as f:
        written = int(re.search(r"#define SB_CSV_SCHEMA_VERSION (\d+)", f.read()).group(1))
    assert written == max(sbcsv.SUPPORTED_SCHEMA_VERSIONS)


def test_non_numeric_value(tmp_path):
    path = write(tmp_path, set_cell(records()[:8], 6, "median_us", "fast"))
    msg = error_of(path)
    assert msg.startswith(f"{path}:6: column 'median_us'") and "'fast'" in msg


def test_non_integer_axis(tmp_path):
    path = write(tmp_path, set_cell(records()[:8], 5, "block_threads", "128.5"))
    msg = error_of(path)
    assert msg.startswith(f"{path}:5: column 'block_threads'")


def test_nan_is_not_a_number(tmp_path):
    # The writer leaves NaN cells empty; a literal nan means a foreign file.
    path = write(tmp_path, set_cell(records()[:8], 7, "gbps", "nan"))
    assert error_of(path).startswith(f"{path}:7: column 'gbps'")


def test_unknown_status(tmp_path):
    path = write(tmp_path, set_cell(records()[:9], 7, "status", "maybe"))
    msg = error_of(path)
    assert msg.startswith(f"{path}:7: column 'status'") and "'maybe'" in msg


def test_every_status_the_writer_uses_reads(tmp_path):
    recs = records()[:1 + len(sbcsv.STATUSES)]
    for line, status in enumerate(sorted(sbcsv.STATUSES), start=2):
        set_cell(recs, line, "status", status)
    rows = sbcsv.read(write(tmp_path, recs))
    assert sorted(r["status"] for r in rows) == sorted(sbcsv.STATUSES)


def _gemm_split_rows(header, schema, cells):
    """Records of split-K rows under `header`: one per (splits, splits_used)
    cell pair, the rest of the row filled like the writer's."""
    recs = [header]
    for i, (splits, used) in enumerate(cells):
        row = dict.fromkeys(header, "")
        row.update(schema_version=str(schema), family="gemm", variant="splitk_parallel",
                   stages="6", consumer_warps="4", n="1024", m="1024", k="16384",
                   tile="128x128x64", splits=splits, status="ok", samples="100",
                   median_us="50.0", min_us="49.0", max_us="51.0", q1_us="49.5", q3_us="50.5",
                   gpu_name="NVIDIA H100 80GB HBM3", gpu_uuid="GPU-x", cc="9.0",
                   sm_count="132", commit="c", run_utc="2026-01-01T00:00:00Z", seed=str(i + 1))
        if "splits_used" in row:
            row["splits_used"] = used
        recs.append([row[c] for c in header])
    return recs


def test_schema_7_auto_splits_and_splits_used(tmp_path):
    """Schema 7: `splits` is an int or "auto" (a point of its own, beside
    the explicit counts), splits_used the count the kernel ran with."""
    with open(sbcsv.HEADER_SNAPSHOT) as f:
        header = f.readline().strip().split(",")
    assert "splits_used" in header and header.index("splits_used") > header.index("status")
    assert "splits_used" not in sbcsv.EXTRA_AXES  # a reading, not part of a point's key
    rows = sbcsv.read(write(tmp_path, _gemm_split_rows(header, 7, [("auto", "4"), ("4", "4"), ("8", "8")])))
    assert [(r["splits"], r["splits_used"]) for r in rows] == [("auto", 4), (4, 4), (8, 8)]
    assert rows[0]["splits"] == sbcsv.AUTO
    assert len({sbcsv.key(r) for r in rows}) == 3  # auto is not 4, though it ran 4
    # a non-split row: both cells empty
    recs = _gemm_split_rows(header, 7, [("", "")])
    assert sbcsv.read(write(tmp_path, recs, "plain.csv"))[0]["splits_used"] is None
    # anything else in splits is not a count
    bad = write(tmp_path, set_cell(_gemm_split_rows(header, 7, [("auto", "2"), ("x", "")]), 3, "splits", "Auto"),
                "bad.csv")
    msg = error_of(bad)
    assert msg.startswith(f"{bad}:3: column 'splits'") and "'Auto'" in msg


def test_schema_6_split_rows_still_read(tmp_path):
    """A schema-6 file: no splits_used column, explicit counts only."""
    with open(sbcsv.HEADER_SNAPSHOT) as f:
        header = [c for c in f.readline().strip().split(",") if c != "splits_used"]
    rows = sbcsv.read(write(tmp_path, _gemm_split_rows(header, 6, [("2", ""), ("8", "")])))
    assert [r["splits"] for r in rows] == [2, 8]
    assert all(r.get("splits_used") is None for r in rows)


def test_sweep_wall_s_is_the_largest_elapsed_cell(tmp_path):
    """Schema 8: a run's wall time is its largest elapsed_s; a run without
    the column (schema 7) has none."""
    with open(sbcsv.HEADER_SNAPSHOT) as f:
        header = f.readline().strip().split(",")
    assert header[-1] == "elapsed_s"
    rows = []
    for i, elapsed in enumerate(("1.50", "301.25", "12.00")):
        cells = dict.fromkeys(header, "")
        cells.update(schema_version="8", family="scan", variant="pingpong", block_threads=str(32 << i),
                     status="skipped", detail="x", gpu_name="NVIDIA H100 80GB HBM3", elapsed_s=elapsed)
        rows.append(",".join(cells[c] for c in header))
    path = tmp_path / "run.csv"
    path.write_text(",".join(header) + "\n" + "\n".join(rows) + "\n")
    assert sbcsv.sweep_wall_s(sbcsv.read(str(path))) == pytest.approx(301.25)
    old = os.path.join(os.path.dirname(sbcsv.HEADER_SNAPSHOT), "h100-80gb-hbm3", "history",
                       "20261126T180149Z_62fd08f_bf319e44.csv")
    assert sbcsv.sweep_wall_s(sbcsv.read(old)) is None


def test_the_committed_h100_pair_kept_the_default_sweep_budget():
    """The budget (issue 37): each run of the committed H100 pair took at
    most 4:30, as its own elapsed_s cells say."""
    gpu = os.path.join(os.path.dirname(sbcsv.HEADER_SNAPSHOT), "h100-80gb-hbm3")
    for name in ("baseline.csv", "latest.csv"):
        wall = sbcsv.sweep_wall_s(sbcsv.read(os.path.join(gpu, name)))
        assert wall is not None and wall <= 270, (name, wall)
    # --quick of the pair's commit (the proof that holds its chips' quick runs): at most 30 s
    import glob
    commit = sbcsv.read(os.path.join(gpu, "latest.csv"))[0]["commit"]
    quick = [rows for path in sbcsv.csv_files(os.path.join(gpu, "proofs", "*", "quick*.csv"))
             for rows in [sbcsv.read(path)] if rows and rows[0]["commit"] == commit]
    assert len(quick) >= 2, "commit the pair's --quick runs beside it (proofs/<name>/quick_*.csv)"
    for rows in quick:
        wall = sbcsv.sweep_wall_s(rows)
        assert wall is not None and wall <= 30, wall


def test_an_xz_compressed_csv_reads_as_the_csv(tmp_path):
    """The large proofs are committed as .csv.xz: the same rows, and a file
    that is not xz is a CsvError naming it."""
    import lzma
    with open(FIXTURE, "rb") as f:
        raw = f.read()
    packed = tmp_path / "run.csv.xz"
    packed.write_bytes(lzma.compress(raw))
    assert sbcsv.read(str(packed)) == sbcsv.read(FIXTURE)
    broken = tmp_path / "broken.csv.xz"
    broken.write_bytes(raw)
    with pytest.raises(sbcsv.CsvError, match=r"broken\.csv\.xz: not a readable xz file"):
        sbcsv.read(str(broken))


def test_csv_files_finds_a_pattern_plain_and_compressed(tmp_path):
    """The committed history keeps its older runs as .csv.xz: csv_files
    lists them beside the plain ones (recursively with **), sorted, once."""
    (tmp_path / "h" / "deep").mkdir(parents=True)
    for name in ("h/a.csv", "h/b.csv.xz", "h/deep/c.csv", "h/notes.txt", "h/d.csv.gz"):
        (tmp_path / name).write_text("")
    assert sbcsv.csv_files(str(tmp_path / "h" / "*.csv")) == [str(tmp_path / "h" / "a.csv"),
                                                              str(tmp_path / "h" / "b.csv.xz")]
    assert sbcsv.csv_files(str(tmp_path / "h" / "**" / "*.csv")) == [
        str(tmp_path / "h" / "a.csv"), str(tmp_path / "h" / "b.csv.xz"), str(tmp_path / "h" / "deep" / "c.csv")]


def test_the_bands_read_the_compressed_history():
    """results/bands.csv's pairs include history runs committed as .csv.xz."""
    header = [line for line in open(os.path.join(os.path.dirname(sbcsv.HEADER_SNAPSHOT), "bands.csv"))
              if line.startswith("# results/")]
    assert any("/history/" in line and ".csv.xz)" in line for line in header)


def test_schema_10_composition_columns_and_older_rows(tmp_path):
    """Schema 10: mainloop, consumer, schedule, epilogue after detail (not
    axes: not part of a point's key); a schema-10 row reads them as written,
    a row of an older schema gets its variant's from the variant table
    (names unchanged), cuBLAS and unknown variants None."""
    with open(sbcsv.HEADER_SNAPSHOT) as f:
        header = f.readline().strip().split(",")
    for c in sbcsv.COMPOSITION:
        assert header.index(c) > header.index("detail") and c not in sbcsv.EXTRA_AXES
    recs = _gemm_split_rows(header, 10, [("4", "4")])
    for c, v in zip(sbcsv.COMPOSITION, ("tma", "wgmma", "split_k_parallel", "direct")):
        recs[1][header.index(c)] = v
    row = sbcsv.read(write(tmp_path, recs, "v10.csv"))[0]
    assert [row[c] for c in sbcsv.COMPOSITION] == ["tma", "wgmma", "split_k_parallel", "direct"]
    # schema 9: no such columns; the variant table fills them
    old = [c for c in header if c not in sbcsv.COMPOSITION]
    recs = _gemm_split_rows(old, 9, [("4", "4"), ("8", "8")])
    recs[2][old.index("variant")] = "cublas"
    rows = sbcsv.read(write(tmp_path, recs, "v9.csv"))
    assert [rows[0][c] for c in sbcsv.COMPOSITION] == ["tma", "wgmma", "split_k_parallel", "direct"]
    assert [rows[1][c] for c in sbcsv.COMPOSITION] == [None] * 4
    assert sbcsv.key(rows[0]) != sbcsv.key(rows[1])


def test_committed_gemm_runs_group_by_composition():
    """A committed run (an older schema) groups by the new columns: every
    gemm kernel row has all four parts."""
    runs = sorted(sbcsv.csv_files(os.path.join(ROOT, "results", "*", "latest.csv")))
    rows = [r for path in runs for r in sbcsv.read(path) if r["family"] == "gemm" and r["variant"] != "cublas"]
    if not rows:
        pytest.skip("no committed gemm run")
    assert all(r["mainloop"] and r["consumer"] and r["schedule"] and r["epilogue"] for r in rows)
    assert {r["consumer"] for r in rows} >= {"mma_sync", "wgmma"}


def test_a_byte_order_mark_and_a_directory(tmp_path):
    """A CSV saved with a byte-order mark reads as without it; a directory
    in a file's place is a CsvError naming it, not an OSError."""
    src = os.path.join(ROOT, "tests", "py", "fixtures", "h200_scan_default.csv")
    with open(src, "rb") as f:
        data = f.read()
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + data)
    assert sbcsv.read(str(bom)) == sbcsv.read(src)
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(sbcsv.CsvError, match="dir.csv: cannot read"):
        sbcsv.read(str(tmp_path / "dir.csv"))


def test_write_atomically_leaves_the_old_file_whole_when_it_cannot_finish(tmp_path):
    path = tmp_path / "table.csv"
    path.write_text("old\n")
    sbcsv.write_atomically(str(path), "new\n")
    assert path.read_text() == "new\n"
    (tmp_path / "d").mkdir()
    with pytest.raises(OSError):
        sbcsv.write_atomically(str(tmp_path / "d"), "x")  # a directory cannot be replaced by a file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d", "table.csv"]
