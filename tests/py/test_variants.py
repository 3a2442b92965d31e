"""The committed snapshots the scripts read (results/variants.csv,
results/csv_header.csv) are what the binary states (`make variants`
rewrites them), and scripts/sbvariants.py reads the traits right."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sbcli  # noqa: E402
import sbcsv  # noqa: E402
import sbvariants  # noqa: E402

STALE = "stale: run `make variants` and commit the result"


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_csv_header_snapshot_is_current(tmp_path):
    sbcli.require_binary()
    out = sbcli.run("--csv-header", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert _read(sbvariants.os.path.join(ROOT, "results", "csv_header.csv")) == out.stdout, STALE


def test_variants_snapshot_is_current(tmp_path):
    sbcli.require_binary()
    out = sbcli.run("--list", "--format=csv", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert _read(sbvariants.SNAPSHOT) == out.stdout, STALE


def test_snapshot_lists_what_the_text_list_lists(tmp_path):
    """Every family and variant of `--list`, in its order: holds for the
    hand-made snapshot too."""
    sbcli.require_binary()
    out = sbcli.run("--list", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    listed, fam = [], None
    for line in out.stdout.splitlines():
        if not line.startswith(" "):
            fam = line.split(":")[0]
        elif not line.startswith("  axis "):
            listed.append((fam, line.split()[0]))
    snap = [(f.name, v.name) for f in sbvariants.parse(sbvariants.SNAPSHOT).values()
            for v in f.variants]
    assert snap == listed, STALE


def test_traits_are_read_from_flags():
    cat = sbvariants.parse(sbvariants.SNAPSHOT)
    for fam in cat.values():
        assert [v.index for v in fam.variants] == list(range(len(fam.variants)))
        for flag in ("baseline", "ceiling", "plain"):
            assert len(fam.with_flag(flag)) <= 1, (fam.name, flag)
        # A family with a ceiling row names the column its percentages go to.
        assert bool(fam.with_flag("ceiling")) == bool(fam.ceiling_column), fam.name
    assert [f.name for f in cat.values() if "yardstick" in f.flags] == ["reference"]


def test_axis_columns_come_from_the_header_snapshot():
    header = _read(sbcsv.HEADER_SNAPSHOT).strip().split(",")
    axes = header[header.index("variant") + 1:header.index("status")]
    assert sbcsv.AXES + sbcsv.EXTRA_AXES == axes


def test_a_dummy_table_replaces_the_snapshot(tmp_path, monkeypatch):
    path = tmp_path / "v.csv"
    path.write_text(",".join(sbvariants.HEADER) + "\n"
                    "fam,,a family,b_row,1,0,,n,,second\n"
                    "fam,,a family,a_row,0,0,baseline,n,,first\n")
    monkeypatch.setenv("SB_VARIANTS", str(path))
    assert sbvariants.variants("fam") == ["a_row", "b_row"]
    assert sbvariants.baseline("fam") == "a_row"
    assert sbvariants.ordered("fam", ["zz", "b_row", "a_row"]) == ["a_row", "b_row", "zz"]
    assert sbvariants.ceiling("fam") is None and sbvariants.family("scan") is None
