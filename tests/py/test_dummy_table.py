"""Issue 20: adding a row to a family's table makes it appear in that
family's plot and compare output with no script edit. A dummy variants
table (the committed snapshot plus made-up rows, via SB_VARIANTS) and CSVs
with rows for them (copies of real rows under the new names) go through
plot.py and compare.py; the new names must show up in legends, tick labels
and compare rows."""
import csv
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import compare  # noqa: E402
import plot  # noqa: E402
import plot_pipeline  # noqa: E402
import sbplot  # noqa: E402
import sbvariants  # noqa: E402

FIX = os.path.join(ROOT, "tests", "py", "fixtures")
# family -> (fixture, the existing row whose rows the new one copies)
CASES = {
    "scan": ("h200_scan_default.csv", 1),
    "barrier": ("barrier_h200_run1.csv", 0),
    "pipeline_intensity": ("pipeline_h200.csv", 1),
    "gemm": ("gemm_synthetic_not_results.csv", 2),
}
NEW = "zz_dummy_sync"  # sorts last: table order, not names, must place it


def _rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def _write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, header)
        w.writeheader()
        w.writerows(rows)


@pytest.fixture
def dummy(tmp_path, monkeypatch):
    """{family: CSV path} with NEW's rows, the table listing NEW second
    (variant_index 1, the others shifted), and a new family `dummyscan`."""
    header, table = _rows(sbvariants.SNAPSHOT)
    out, csvs = [], {}
    for row in table:
        fam = row["family"]
        if fam in CASES and row["variant_index"] == "1":
            out.append({**row, "variant": NEW, "flags": "",
                        "summary": "made up: a new synchronization strategy"})
        if fam in CASES and int(row["variant_index"]) >= 1:
            row = {**row, "variant_index": str(int(row["variant_index"]) + 1)}
        out.append(row)
    for fam, (fixture, copy_index) in CASES.items():
        source = sbvariants.variants(fam)[copy_index]
        h, rows = _rows(os.path.join(FIX, fixture))
        if fam == "barrier":  # one participants value: one cycles figure, not three alike
            rows = [r for r in rows if r["family"] != "barrier" or r["participants"] == "all"]
        new = [{**r, "variant": NEW, **_faster(r)}
               for r in rows if r["family"] == fam and r["variant"] == source]
        assert new, fam
        csvs[fam] = str(tmp_path / f"{fam}.csv")
        _write(csvs[fam], h, rows + new)
    path = tmp_path / "variants.csv"
    _write(path, header, out)
    monkeypatch.setenv("SB_VARIANTS", str(path))
    return csvs


def _faster(row):
    """The copied row's times 10% lower: its line must not hide the source's."""
    return {c: f"{float(row[c]) * 0.9:.4f}" for c in row if c.endswith("_us") and row[c]}


def _drawn_labels(paths):
    names = set()
    for p in paths:
        fig = sbplot.drawn(p)
        names |= set(fig["legend"])
        for panel in fig["panels"]:
            names |= {ln["label"] for ln in panel["lines"]}
            names |= set(panel["xticklabels"])
    return names


@pytest.mark.parametrize("family", sorted(CASES))
def test_new_variant_is_plotted(dummy, family, tmp_path, capsys):
    assert sbvariants.variants(family)[1] == NEW
    outdir = tmp_path / "plots"
    assert plot.main([dummy[family], "--outdir", str(outdir)]) == 0
    written = [p for p in sbplot.DRAWN if p.startswith(str(outdir))]
    assert written
    assert any(NEW in label for label in _drawn_labels(written)), family
    if family == "scan":  # drawn in table order: the legend lists NEW second, where the table has it
        assert sbplot.drawn(str(outdir / "scan.png"))["legend"][:2] == [sbvariants.baseline("scan"), NEW]


def test_new_pipeline_variant_is_a_strategy(dummy):
    assert NEW in plot_pipeline._pipelined()
    assert plot_pipeline._base() not in plot_pipeline._pipelined()


@pytest.mark.parametrize("family", sorted(CASES))
def test_new_variant_is_compared(dummy, family, tmp_path, capsys):
    h, rows = _rows(dummy[family])
    rows = [r for r in rows if r["gpu_name"] == rows[0]["gpu_name"]]  # one GPU per CSV
    for r in rows:  # the synthetic gemm fixture has medians only
        r.update({c: r[c] or r["median_us"] for c in r if c.endswith("_us")})
    base, new = str(tmp_path / "base.csv"), str(tmp_path / "new.csv")
    _write(base, h, rows)
    _write(new, h, rows)
    assert compare.main([base, new, "--summary-only"]) == 0
    out = capsys.readouterr().out
    assert any(NEW in line and family in line for line in out.splitlines()), out


def test_a_new_family_gets_bandwidth_against_n(tmp_path, monkeypatch):
    """A family no script knows, sweeping n with GB/s and a ceiling column
    (what devscan brings): GB/s, % of copy and % of its ceiling against n,
    a line per variant."""
    header, table = _rows(sbvariants.SNAPSHOT)
    fam = {"family": "dummyscan", "family_flags": "", "family_summary": "made up",
           "min_cc": "0", "axes": "n", "ceiling_column": "pct_of_cublas",
           "ceiling_reading": "block_median"}
    table += [{**fam, "variant": "lib", "variant_index": "0", "flags": "ceiling;no_kernel",
               "summary": "a library call"},
              {**fam, "variant": "ours", "variant_index": "1", "flags": "", "summary": "ours"}]
    _write(tmp_path / "v.csv", header, table)
    monkeypatch.setenv("SB_VARIANTS", str(tmp_path / "v.csv"))
    h, rows = _rows(os.path.join(FIX, "gemm_synthetic_not_results.csv"))
    proto = next(r for r in rows if r["family"] == "gemm" and r["status"] == "ok")
    new = []
    for i, n in enumerate((1 << 20, 1 << 24, 1 << 28)):
        for v, gbps in (("lib", 3000.0), ("ours", 2500.0 + i)):
            new.append({**proto, "family": "dummyscan", "variant": v, "n": str(n), "m": "",
                        "k": "", "tile": "", "stages": "", "consumer_warps": "",
                        "gbps": str(gbps), "pct_of_copy": str(gbps / 40),
                        "pct_of_cublas": "" if v == "lib" else str(gbps / 30)})
    _write(tmp_path / "d.csv", h, new)
    outdir = tmp_path / "plots"
    assert plot.main([str(tmp_path / "d.csv"), "--outdir", str(outdir)]) == 0
    fig = sbplot.drawn(str(outdir / "dummyscan_bandwidth.png"))
    assert len(fig["panels"]) == 3
    assert [ln["label"] for ln in fig["panels"][0]["lines"]] == ["lib", "ours"]
    assert [ln["label"] for ln in fig["panels"][2]["lines"]] == ["ours"]
    assert fig["panels"][0]["xticklabels"] == ["1M", "16M", "256M"]
