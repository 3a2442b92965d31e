"""The gate on compute-bound rows (families with a ceiling column:
gemm's pct_of_cublas, devscan's pct_of_cub), and the PR comment's size.

Every pair here is a committed CSV transformed in code: a GEMM variant
made 3% slower (its times x1.03 and its paired ratio / 1.03), clocks moved,
every point made slower. In-process (sbcompare), so the file stays fast."""
import glob
import math
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import sbcompare  # noqa: E402
import sbcsv  # noqa: E402
import sbvariants  # noqa: E402
from test_bands import GEMM_BEYOND_3PCT_ACROSS_CHIPS  # noqa: E402
from test_compare import COMMITTED_PAIR_FAILS, read_records, run_compare, scaled_run, write_records  # noqa: E402

LATEST = os.path.join(ROOT, "results", "h100-80gb-hbm3", "latest.csv")
PAIRS = [(b, os.path.join(os.path.dirname(b), "latest.csv"))
         for b in sorted(glob.glob(os.path.join(ROOT, "results", "*", "baseline.csv")))]
ACCEPTED = os.path.join(ROOT, "results", "accepted.csv")
TIME_COLUMNS = sbcsv.SAMPLE_TIMES
GEMM = "gemm"
CEILING_COLUMN = sbvariants.family(GEMM).ceiling_column
# Every family gated against a ceiling (gemm: cuBLAS, devscan: CUB).
CEILING_FAMILIES = {f.name: f.ceiling_column for f in sbvariants.catalog().values()
                    if f.ceiling_column}
CEILING_COLUMNS = sorted(set(CEILING_FAMILIES.values()))
# Of those, the ones whose paired ratio two runs read (gemm); the others
# (devscan: family flag time_across_runs) two runs read on their time.
PAIRED_ACROSS_RUNS = {f for f in CEILING_FAMILIES if not sbvariants.has_family_flag(f, "time_across_runs")}
GEMM_VARIANTS = [v for v in sbvariants.variants(GEMM)
                 if not sbvariants.has_flag(GEMM, v, "ceiling")]


def records(path=LATEST):
    return read_records(path)


def write(path, header, rows):
    return write_records(path, header, rows)


def slower(row, factor):
    """This point takes factor times as long: times scale, throughput and
    the paired ratio (ceiling time / this time) scale inversely."""
    row = dict(row)
    for c in TIME_COLUMNS:
        if row.get(c):
            row[c] = f"{float(row[c]) * factor:.4f}"
    for c in ("gbps", "pct_of_copy", "gflops", *CEILING_COLUMNS):
        if row.get(c):
            row[c] = f"{float(row[c]) / factor:.4f}"
    return row


def schema3(row):
    """The row as a schema-3 writer would have it: the paired ratio."""
    return {**row, "schema_version": "3"}


def schema2(row):
    """The row as a schema-2 run: no paired ratio to trust, so cycles."""
    return {**row, "schema_version": "2"}


def run(path):
    return sbcompare.load_run(str(path))


def keys(rows):
    return {sbcsv.key(r) for r in rows}


@pytest.fixture(scope="module")
def pairs_by_schema(tmp_path_factory):
    """{'paired': base CSV (schema 3, the committed run as it is),
    'cycles': the same rows marked schema 2}."""
    tmp = tmp_path_factory.mktemp("schemas")
    header, rows = records()
    return {"cycles": write(tmp / "schema2.csv", header, [schema2(r) for r in rows]),
            "paired": write(tmp / "schema3.csv", header, [schema3(r) for r in rows])}


@pytest.mark.parametrize("figure", ["paired", "cycles"])
def test_three_percent_slower_gemm_variant_is_flagged_at_every_point_and_nowhere_else(pairs_by_schema, figure):
    base = run(pairs_by_schema[figure])
    assert GEMM_VARIANTS, "no gemm variant in results/variants.csv"
    for variant in GEMM_VARIANTS:
        pick = lambda r: (r["family"], r["variant"]) == (GEMM, variant) and r["status"] == "ok"  # noqa: E731
        want = keys(r for r in base.rows if pick(r))
        if not want:
            continue  # a variant the committed run does not have yet
        cmp = sbcompare.compare(base, scaled_run(base, pick, 1.03), 0.02)
        flagged = keys(m.base for m in cmp.regressions)
        if figure == "cycles":
            # Without a paired ratio the IQRs must part too (new q1 > base q3):
            # a point whose own IQR is wider than the 3% may pass, by design; few do.
            wide = keys(r for r in base.rows if pick(r) and r["q3_us"] >= 1.03 * r["q1_us"])
            assert want - flagged <= wide and len(want - flagged) <= 1, variant
            want &= flagged
        assert flagged == want, variant
        assert {m.figure for m in cmp.regressions} == {figure}, variant
        assert cmp.improvements == [] and cmp.power_state_differs == [], variant
        if figure == "paired":
            assert all(m.gated == pytest.approx(1.03, rel=2e-3) for m in cmp.regressions)


@pytest.mark.parametrize("base_path,latest_path", PAIRS, ids=[os.path.basename(os.path.dirname(b))
                                                             for b, _ in PAIRS])
def test_three_percent_slower_gemm_variant_against_the_other_chip(base_path, latest_path):
    """Issue 19's planted slowdown on the committed cross-chip pair itself
    (baseline from one chip, latest from another): each GEMM variant made
    3% slower in latest. The gate flags exactly the points whose own A/A
    move leaves them more than its variant's rule-B shift band slower (a
    point that the chip change had made 1.5% faster is the one it can
    miss), nothing outside the variant, and at most a few points in all.
    Every variant is gated, each by its own two-chip band
    (results/bands.csv)."""
    base = run(base_path)
    bands = sbcompare.load_bands()
    aa = sbcompare.compare(base, run(latest_path), bands=bands)
    # Every point is gated, also where the SM clock moved over 5% between
    # the chips (the H200 pair's cuBLAS at 4096^3, the 2x1 multicast at
    # 8192^3, at the power cap).
    # the pair's own regressions (COMMITTED_PAIR_FAILS) stand in every plant below
    # and the points results/accepted.csv accepts for this pair (not applied here)
    assert aa.unjudged == []
    standing = keys(m.base for m in aa.regressions)
    assert all(m.base["family"] != GEMM or m.base["variant"] != "cublas" for m in aa.regressions)
    # listed, and judged: cuBLAS's own rows (cycles) and the variant read at
    # its own reading (p75_ratio: not a clock-free one), where the clock moved
    assert all(m.base["variant"] == "cublas" or sbvariants.has_flag(GEMM, m.base["variant"], "p75_ratio")
               for m in aa.power_state_differs)
    assert all(not m.gated_out for m in aa.power_state_differs)
    figure = {sbcsv.key(m.base): m.gated for m in aa.matches}
    shift = {sbcsv.key(m.base): m.shift_threshold for m in aa.matches}
    point = {sbcsv.key(m.base): m.point_threshold for m in aa.matches}
    own_band = {sbcsv.key(m.base) for m in aa.matches if m.band is not None and m.band.own}
    latest = run(latest_path)
    planted_points = missed = 0
    for variant in GEMM_VARIANTS:
        pick = lambda r: (r["family"], r["variant"]) == (GEMM, variant) and r["status"] == "ok"  # noqa: E731
        want = keys(r for r in base.rows if pick(r))
        if not want:
            continue
        # with the bands, as the gate between two chips reads it (compare.py)
        cmp = sbcompare.compare(base, scaled_run(latest, pick, 1.03), bands=bands)
        got = keys(m.base for m in cmp.regressions) - (standing - want)
        assert all(m.figure == "paired" for m in cmp.regressions if m.base["family"] == GEMM), variant
        if len(want) < sbcompare.VARIANT_MIN_POINTS:  # rule B needs that many; 3% is under rule A's bar
            # unless the chip change had already moved the point that far
            # the same way: then the plant takes it beyond its point band
            assert got <= {k for k in want if figure[k] * 1.03 > 1 + point[k]}, variant
            continue
        band = shift[next(iter(want))]
        # the pair's own move of the variant, over the points rule B reads
        own = sbcompare.shift_estimate([math.log(m.gated) for m in aa.matches
                                        if (m.base["family"], m.base["variant"]) == (GEMM, variant)
                                        and not m.gated_out and sbcsv.key(m.base) not in own_band])
        if band >= 0.03 or 1.03 * math.exp(own) - 1 <= band:
            # its shift band is beyond 3%, or beyond 3% plus the pair's own
            # move of the variant (on the H100 pair: GEMM_BEYOND_3PCT_ACROSS_CHIPS,
            # tests/py/test_bands.py says why); then 5% beyond that move is caught
            assert got <= want, variant
            assert (GEMM, variant) in GEMM_BEYOND_3PCT_ACROSS_CHIPS or not base_path.startswith(
                os.path.dirname(LATEST)), variant
            factor = 1.05 * math.exp(-own) if own < 0 else 1.05
            if band < 0.05:
                cmp = sbcompare.compare(base, scaled_run(latest, pick, factor), bands=bands)
                assert {(m.base["family"], m.base["variant"]) for m in cmp.regressions
                        if sbcsv.key(m.base) not in standing - want} == {(GEMM, variant)}, variant
            continue
        # a point with a band of its own is judged by that band alone (rule B leaves it out)
        assert got == {k for k in want if (figure[k] * 1.03 > 1 + band and k not in own_band)
                       or (k in own_band and figure[k] * 1.03 > 1 + point[k])}, variant
        assert got, variant  # the variant is caught
        planted_points += len(want)
        missed += len(want - got)
    # "a few": each variant's own shift band (1.5-3% between chips) leaves
    # out the points the chip change had made that much faster (each one
    # predicted exactly above): 29 of 260 (11%) on the H100 pair at 62fd08f,
    # 29 of 178 (16%) on the pair at 5a44e11, 22 of 122 (18%) on the pair at
    # 4878a0f (where six variants' own move leaves 3% under their band and
    # are not counted), 34 of 144 (24%) on the H200 pair at 910219a, whose
    # chip B ran cuBLAS 0.7-2.6% slower in its fastest samples at every
    # shape (the paired ratio moved that much in B's favour), with
    # results/bands.csv
    assert planted_points >= 100 and missed <= max(8, 0.25 * planted_points), (missed, planted_points)


def test_the_ceiling_row_and_other_families_keep_their_figures(pairs_by_schema):
    cmp = sbcompare.compare(run(pairs_by_schema["paired"]), run(pairs_by_schema["paired"]))
    figures = {}
    for m in cmp.matches:
        figures.setdefault((m.base["family"], sbvariants.has_flag(
            m.base["family"], m.base["variant"], "ceiling")), set()).add(m.figure)
    assert GEMM in PAIRED_ACROSS_RUNS and "devscan" in set(CEILING_FAMILIES) - PAIRED_ACROSS_RUNS
    for fam in PAIRED_ACROSS_RUNS:
        assert figures.pop((fam, False)) == {"paired"}, fam
        assert figures.pop((fam, True)) == {"cycles"}, fam  # 100% of itself: cycles
    # no ceiling column, or time_across_runs (every row, its ceiling's too): time
    assert set().union(*figures.values()) == {"time"}


@pytest.mark.parametrize("base_schema,new_schema,moved", [
    ("5", "6", {"gemm"}),              # gemm: block median, then fastest samples
    ("3", "4", PAIRED_ACROSS_RUNS),    # ratio of medians, then block median
    ("4", "5", set()),                 # the same reading
    ("6", "6", set()),
])
def test_paired_ratios_compare_only_when_read_the_same_way(tmp_path, base_schema, new_schema, moved):
    """A baseline whose ratios were read one way against a run that reads
    them another (schema 5's block median against schema 6's fastest
    samples for gemm) would move every ratio by the change of reading, not
    of the code: those points fall back to cycles, and the comparison says
    why; a family whose reading stayed (devscan) keeps its paired ratio."""
    header, rows = records()
    base = run(write(tmp_path / "b.csv", header, [{**r, "schema_version": base_schema} for r in rows]))
    new = run(write(tmp_path / "n.csv", header, [{**r, "schema_version": new_schema} for r in rows]))
    cmp = sbcompare.compare(base, new)
    figures = {}
    for m in cmp.matches:
        if (m.base["family"] in CEILING_FAMILIES
                and not sbvariants.has_flag(m.base["family"], m.base["variant"], "ceiling")):
            figures.setdefault(m.base["family"], set()).add(m.figure)
    assert set(figures) == set(CEILING_FAMILIES)
    for fam, figs in figures.items():
        want = {"cycles"} if fam in moved else {"paired"} if fam in PAIRED_ACROSS_RUNS else {"time"}
        assert figs == want, fam
    warning = sbcompare.ratio_reading_warning(cmp)
    if moved:
        assert warning and "read differently" in warning and "gated on cycles" in warning
        assert all(f"{fam}:" in warning for fam in moved)
        assert warning in "\n".join(sbcompare.header_block(cmp, False))
        assert warning in sbcompare.render_gate_summary(cmp)
    else:
        assert warning is None


def test_clock_move_beyond_the_limit_is_listed_and_judged(tmp_path):
    """On a schema-2 pair (cycles): a clock move beyond the limit is listed
    as power state differs and judged all the same (cycles equal: no
    verdict; 10% more cycles at one point: a regression); within it, cycles
    absorb it. Only the families two runs read in a clock-following figure
    (not devscan: its time, like every family without a ceiling)."""
    header, rows = records()
    rows = [schema2(r) for r in rows]
    moved = []
    for r in rows:
        if r["status"] == "ok" and r["sm_clock_mhz"]:
            clock = float(r["sm_clock_mhz"])
            r = {**r, "sm_clock_mhz": f"{clock * 0.92:.2f}"}  # 8% lower
            if r["family"] in PAIRED_ACROSS_RUNS:
                r = slower(r, 1.08)  # and 8% slower: same cycles
        moved.append(r)
    base = run(write(tmp_path / "base.csv", header, rows))
    new = run(write(tmp_path / "new.csv", header, moved))
    cmp = sbcompare.compare(base, new)
    ceiling_ok = keys(r for r in base.rows if r["family"] in PAIRED_ACROSS_RUNS
                      and r["status"] == "ok")
    assert keys(m.base for m in cmp.power_state_differs) == ceiling_ok
    assert all(m.verdict == "" and not m.gated_out for m in cmp.power_state_differs)
    assert all(sbcompare.verdict_cell(cmp, m) == "clock moved" for m in cmp.power_state_differs)
    # Other families are gated on time whatever the clock: unchanged, clean.
    assert cmp.regressions == [] and cmp.gate_failures() == 0
    # A point of a ceiling family 10% slower beyond the clock's 8%: flagged.
    victim = next(i for i, r in enumerate(moved) if r["family"] == GEMM and r["status"] == "ok")
    worse = list(moved)
    worse[victim] = slower(moved[victim], 1.10)
    cmp = sbcompare.compare(base, run(write(tmp_path / "worse.csv", header, worse)))
    assert keys(m.base for m in cmp.regressions) == keys(r for r in base.rows if r["_line"] == victim + 2)
    assert sbcompare.verdict_cell(cmp, cmp.regressions[0]).endswith(", clock moved")
    # Within the limit (4%), the gemm rows are gated on cycles: equal, clean.
    small = [{**r, "sm_clock_mhz": f"{float(r['sm_clock_mhz']) * 0.96:.2f}"}
             if r["family"] in PAIRED_ACROSS_RUNS and r["status"] == "ok" else r for r in rows]
    small = [slower(r, 1 / 0.96) if r["family"] in PAIRED_ACROSS_RUNS and r["status"] == "ok"
             else r for r in small]
    cmp = sbcompare.compare(base, run(write(tmp_path / "small.csv", header, small)))
    assert cmp.power_state_differs == [] and cmp.regressions == []
    assert {m.figure for m in cmp.matches if m.base["family"] == GEMM} == {"cycles"}


@pytest.mark.parametrize("schema", ["5", "6"])
def test_a_fastest_sample_ratio_stays_gated_when_the_clocks_differ(tmp_path, schema):
    """Clocks 8% lower on every row, ratios unchanged. Schema 5 (block
    median): every paired point is listed as power state differs. Schema 6:
    gemm's ratio is read from the fastest samples, which the clock does not
    move (measured, sbcompare.CLOCK_FREE_READINGS): its points are not even
    listed, nor cuBLAS's own row, read on its own fastest sample between two
    runs (schema 5's block median has none: cycles, listed). devscan, read on its time
    between two runs (time_across_runs), is never listed. Either way every
    point is judged: a 3% loss of one variant is a regression."""
    header, rows = records()
    rows = [{**r, "schema_version": schema} for r in rows]
    lower = [{**r, "sm_clock_mhz": f"{float(r['sm_clock_mhz']) * 0.92:.2f}"}
             if r["status"] == "ok" and r["sm_clock_mhz"] else r for r in rows]
    # the last gemm variant with rows in the committed run (a newer one may have none yet)
    victim = [v for v in GEMM_VARIANTS if any((r["family"], r["variant"], r["status"]) == (GEMM, v, "ok")
                                              for r in rows)][-1]
    lower = [slower(r, 1.03) if (r["family"], r["variant"], r["status"]) == (GEMM, victim, "ok")
             else r for r in lower]
    base = run(write(tmp_path / "b.csv", header, rows))
    cmp = sbcompare.compare(base, run(write(tmp_path / "n.csv", header, lower)), 0.02)
    differs = {m.base["family"] for m in cmp.power_state_differs}
    gemm_paired = [m for m in cmp.matches if m.base["family"] == GEMM and m.figure == "paired"]
    assert gemm_paired
    if schema == "5":
        assert differs == PAIRED_ACROSS_RUNS
        assert all(m.power_state for m in gemm_paired)
    else:
        assert not any(m.power_state for m in gemm_paired)
        assert differs == set()  # cuBLAS's own row too: its fastest sample, not its cycles
        assert {m.figure for m in cmp.matches if m.base["variant"] == "cublas"} == {"fastest"}
    assert "devscan" not in differs
    assert {m.base["variant"] for m in cmp.regressions} == {victim}
    assert keys(m.base for m in cmp.regressions) == keys(
        r for r in base.rows if (r["family"], r["variant"], r["status"]) == (GEMM, victim, "ok"))


# ------------------------------------------------------------ the PR comment

def gate(*args):
    return run_compare("--gate", *args)


def everything_slower(tmp_path, src):
    """src's every ok row 3x slower, and every other row wrong: a pair
    where every point fails."""
    header, rows = records(src)
    out = []
    for r in rows:
        if r["status"] == "ok" and r["family"] != "reference":
            r = slower(r, 3.0)
        out.append(r)
    return write(tmp_path / "all_slower.csv", header, out)


@pytest.mark.parametrize("base,new", PAIRS, ids=[os.path.basename(os.path.dirname(b)) for b, _ in PAIRS])
def test_comment_of_the_committed_pairs_fits_and_names_the_detail_file(tmp_path, base, new):
    summary, detail = tmp_path / "gate.md", tmp_path / "gate-detail.md"
    rc, _, err = gate(base, new, "--accept", ACCEPTED, "--summary", summary, "--detail", detail,
                      "--detail-url", "https://example.invalid/run/1")
    assert rc == (1 if COMMITTED_PAIR_FAILS.get(os.path.basename(os.path.dirname(base))) else 0), err
    text = summary.read_text()
    assert len(text) < 60000
    assert "`gate-detail.md` in [this run's artifacts](https://example.invalid/run/1)" in text
    full = detail.read_text()
    assert len(full) > len(text) and "### Points ok on both sides" in full
    assert "| family | variant |" in full


def test_comment_where_every_point_regressed_fits(tmp_path):
    new = everything_slower(tmp_path, LATEST)
    summary, detail = tmp_path / "gate.md", tmp_path / "gate-detail.md"
    rc, _, err = gate(LATEST, new, "--summary", summary, "--detail", detail)
    assert rc == 1, err
    text = summary.read_text()
    n_regressed = len(sbcompare.compare(run(LATEST), run(new), bands=sbcompare.load_bands()).regressions)
    assert n_regressed > 1000
    assert len(text) < 60000
    assert text.startswith(f"## syncbench gate: FAIL ({n_regressed} regression(s)")
    assert "more, see the detail file" in text and "`gate-detail.md`" in text
    # The detail file has every one of them.
    assert detail.read_text().count("| SLOWER (") >= n_regressed


def test_summary_cuts_lists_until_it_fits():
    base = run(LATEST)
    header, rows = records()
    cmp = sbcompare.compare(base, base)
    # The same pair rendered under a tiny limit: the cut still leaves the verdict.
    text = sbcompare.render_gate_summary(cmp, limit=2000)
    assert len(text) <= 2000 and text.startswith("## syncbench gate: PASS")


@pytest.mark.parametrize("new_kind", ["committed", "all_slower"])
def test_summary_only_prints_at_most_40_lines(tmp_path, new_kind):
    for base, new in PAIRS:
        if new_kind == "all_slower":
            new = everything_slower(tmp_path, new)
        rc, out, err = gate("--summary-only", base, new, "--accept", ACCEPTED)
        fails = COMMITTED_PAIR_FAILS.get(os.path.basename(os.path.dirname(base)))
        assert rc == (0 if new_kind == "committed" and not fails else 1), err
        lines = out.splitlines()
        assert 3 < len(lines) <= 40, out
        assert lines[0].startswith("syncbench gate: ")


def test_unmatched_acceptances_are_one_line(tmp_path):
    acc = tmp_path / "accepted.csv"
    acc.write_text("gpu,point,base_commit,new_commit,reason\n"
                   "*,scan/pingpong,0000000,1111111,an old pair\n"
                   "*,scan/mbarrier,0000000,1111111,another old pair\n")
    rc, _, err = gate(LATEST, LATEST, "--accept", acc, "--summary", os.devnull)
    assert rc == 0
    lines = [line for line in err.splitlines() if "matched nothing" in line]
    assert lines == [f"compare: 2 acceptance entries of {acc} matched nothing in this pair "
                     "(lines 2, 3): prune them once no committed pair needs them"]


@pytest.mark.parametrize("figure", ["paired", "cycles"])
def test_sensitivity_is_the_exact_edge_of_the_gated_rule(pairs_by_schema, figure):
    """--sensitivity's factor for a ceiling-family point: just above it the
    point is flagged, just below it is not, on its own figure."""
    base = run(pairs_by_schema[figure])
    cmp = sbcompare.compare(base, base)
    gemm = [m for m in cmp.matches if m.base["family"] == GEMM and m.figure == figure][:8]
    assert len(gemm) == 8
    for m in gemm:
        s = sbcompare.smallest_flagged_scale(m.base, m.new, cmp.threshold, m.figure, m.column)
        for factor, flagged in ((s * 1.0001, True), (s * 0.9999, False)):
            new = {**m.new, **{c: m.new[c] * factor for c in sbcompare.TIMES}}
            if m.column and new.get(m.column):
                new[m.column] = m.new[m.column] / factor
            moved = sbcompare.match_of(m.base, new, cmp.threshold)
            assert moved.figure == figure
            assert sbcompare.match_slower(moved, cmp.threshold) is flagged, (factor, s)


def test_a_variant_flagged_p75_ratio_reads_its_own_from_schema_15(tmp_path):
    """A gemm variant flagged p75_ratio in the variant table reads its
    paired ratio its own way: the block median in schema 15-16 (the flag's
    old name said so), the 75th percentiles from 17; the others keep the
    family's 1st percentiles. Across each change of its reading (14 -> 15,
    16 -> 17) its points fall back to cycles while the others stay on the
    paired ratio, and between two runs of one reading it is paired again;
    in an A/B of two schema-15 runs it is gated on its time (its median),
    the others on their own 1st percentile."""
    flagged = {v for v in GEMM_VARIANTS if sbvariants.has_flag(GEMM, v, "p75_ratio")}
    assert flagged and flagged < set(GEMM_VARIANTS)
    assert all(sbvariants.variant(GEMM, v).ceiling_reading == "p75" for v in flagged)
    header, rows = records()
    header = [*header, "p01_us"] if "p01_us" not in header else header  # an older run: its q1 as the p01
    rows = [{**r, "p01_us": r["q1_us"]} for r in rows]

    def at(schema):
        return run(write(tmp_path / f"s{schema}.csv", header, [{**r, "schema_version": str(schema)} for r in rows]))

    def figures(base, new):
        out = {}
        for m in sbcompare.compare(base, new).matches:
            if m.base["family"] == GEMM and m.base["variant"] in GEMM_VARIANTS:
                out.setdefault(m.base["variant"] in flagged, set()).add(m.figure)
        return out

    s14, s15, s16, s17 = at(14), at(15), at(16), at(17)
    readings = {s: {sbcompare.ratio_reading(r) for r in run_.rows if r["variant"] in flagged}
                for s, run_ in ((14, s14), (15, s15), (16, s16), (17, s17))}
    assert readings == {14: {"p01"}, 15: {"block_median"}, 16: {"block_median"}, 17: {"p75"}}
    assert figures(s14, s15) == {True: {"cycles"}, False: {"paired"}}
    assert figures(s15, s16) == {True: {"paired"}, False: {"paired"}}
    assert figures(s16, s17) == {True: {"cycles"}, False: {"paired"}}
    assert figures(s17, s17) == {True: {"paired"}, False: {"paired"}}
    own = {(r["variant"] in flagged, sbcompare.gated_figure(r, r, interleaved=True)[0])
           for r in s15.rows if r["family"] == GEMM and r["variant"] in GEMM_VARIANTS and r["status"] == "ok"}
    assert own == {(True, "time"), (False, "p01")}


def test_an_ab_against_an_older_reading_judges_at_the_bases_reading(tmp_path):
    """An A/B against a build that read gemm's ratio another way (schema 8:
    the fastest sample; 15: the 1st percentile) judges each gemm point on
    the variant's own samples as the BASE read them (min_us), not on its
    median; a new row without that sample falls back to time; the warning
    says which. A variant flagged p75_ratio is read at its median (its
    fastest sample is a rare mode): time. A 10% slower fastest sample is
    flagged at every such point."""
    header, rows = records()
    base = run(write(tmp_path / "b.csv", header, [{**r, "schema_version": "8"} for r in rows]))
    new = run(write(tmp_path / "n.csv", header, [{**r, "schema_version": "15"} for r in rows]))
    cmp = sbcompare.compare(base, new, interleaved=True)
    figures = {(sbvariants.has_flag(GEMM, m.base["variant"], "p75_ratio"), m.figure) for m in cmp.matches
               if m.base["family"] == GEMM and not sbvariants.has_flag(GEMM, m.base["variant"], "ceiling")}
    assert figures == {(False, "fastest"), (True, "time")}
    warning = sbcompare.ratio_reading_warning(cmp)
    assert warning and "as the base read them" in warning and "cycles" not in warning
    b = next(m.base for m in cmp.matches if m.figure == "fastest")
    assert sbcompare.gated_figure(b, {**b, "schema_version": 15, "min_us": None}, interleaved=True)[0] == "time"
    slow = run(write(tmp_path / "s.csv", header,
                     [{**(slower(r, 1.10) if r["family"] == GEMM else r), "schema_version": "15"} for r in rows]))
    flagged = sbcompare.compare(base, slow, interleaved=True)
    judged = [m for m in flagged.matches if m.figure == "fastest"]
    assert judged and all(sbcompare.match_slower(m, flagged.threshold) for m in judged)


def test_an_ab_reads_a_median_variant_in_cycles_from_schema_16(tmp_path):
    """Schema 16 rows carry median_kcycles. In an A/B of two such runs a
    gemm variant flagged p75_ratio is gated on it (its median in
    cycles), the other gemm variants still on their own 1st percentile:
    the new side's median time 4.5% faster but the same cycles (its
    launches at a higher clock) moves nothing; 10% more cycles is flagged
    at every point. Where a side lacks the column (schema 15) it is time."""
    flagged = {v for v in GEMM_VARIANTS if sbvariants.has_flag(GEMM, v, "p75_ratio")}
    header, rows = records()
    header = [*header, *(c for c in ("p01_us", "median_kcycles") if c not in header)]
    rows = [{**r, "p01_us": r["q1_us"], "schema_version": "16",
             "median_kcycles": f"{float(r['median_us']) * 1.98:.4f}" if r.get("median_us") else ""} for r in rows]
    base = run(write(tmp_path / "b.csv", header, rows))
    faster_clock = [{**slower(r, 0.955), "median_kcycles": r["median_kcycles"]} if r["variant"] in flagged else r
                    for r in rows]
    cmp = sbcompare.compare(base, run(write(tmp_path / "n.csv", header, faster_clock)), interleaved=True)
    figures = {(m.base["variant"] in flagged, m.figure) for m in cmp.matches
               if m.base["family"] == GEMM and m.base["variant"] in GEMM_VARIANTS}
    assert figures == {(True, "median_cycles"), (False, "p01")}
    moved = [m for m in cmp.matches if m.figure == "median_cycles"]
    assert moved and all(m.gated == 1 and m.verdict == "" for m in moved)
    more = [{**r, "median_kcycles": f"{float(r['median_kcycles']) * 1.10:.4f}"} if r["variant"] in flagged else r
            for r in rows]
    cmp = sbcompare.compare(base, run(write(tmp_path / "m.csv", header, more)), interleaved=True)
    judged = [m for m in cmp.matches if m.figure == "median_cycles"]
    assert judged and all(sbcompare.match_slower(m, cmp.threshold) for m in judged)
    old = run(write(tmp_path / "o.csv", header, [{**r, "schema_version": "15", "median_kcycles": ""} for r in rows]))
    assert {m.figure for m in sbcompare.compare(base, old, interleaved=True).matches
            if m.base["variant"] in flagged} == {"time"}
