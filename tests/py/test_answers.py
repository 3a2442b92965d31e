"""scripts/answers.py: README.md's answers and families blocks and the docs
pages' tables are exactly what the script prints for the committed CSVs, and the selection rule does what its
docstring says, on synthetic CSVs (tests/py/fixtures/answers/synthetic_*.csv:
made-up times, no GPU result)."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import answers  # noqa: E402

FIX = os.path.join(ROOT, "tests", "py", "fixtures", "answers")
A = os.path.join(FIX, "synthetic_gpu_a.csv")  # commit synthetic0001
B = os.path.join(FIX, "synthetic_gpu_b.csv")  # commit e917ed3synthetic (audited)


def workload(family):
    return next(w for w in answers.WORKLOADS if w.family == family)


def choice(path, family):
    return answers.choose(answers.load(path).rows, workload(family))


def test_every_generated_block_matches_the_committed_csvs():
    expected = answers.expected_blocks([answers.load(p) for p in answers.DEFAULT_CSVS])
    assert {page for page, _ in expected} >= {"README.md", "docs/gemm.md", "docs/devscan.md",
                                              "docs/barrier.md", "docs/explain.md"}
    for (page, name), text in expected.items():
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            current = answers.current_block(f.read(), name)
        assert current is not None, f"{page} lacks the {name} markers"
        assert current == text, f"{page}'s {name} block is stale: run `make answers`"


def test_the_readme_block_is_a_summary_and_links_the_tables():
    """At most 80 lines; the long tables are the docs pages' blocks, which
    the README's block links."""
    runs = [answers.load(p) for p in answers.DEFAULT_CSVS]
    text = answers.block(runs)
    assert text.count("\n") <= 80
    for page, target in answers.PAGE_LINKS.items():
        if answers.page_blocks(runs)[page].strip():
            assert f"]({target})" in text, page


def test_each_gpu_reads_a_committed_off_sweep_proof():
    """The split-K table's off-sweep lines come from a proof that is there
    (its own commit's, or the one OFFSWEEP_PROOF names) and say which."""
    for path in answers.DEFAULT_CSVS:
        run = answers.load(path)
        assert answers.offsweep_rows(run), answers.offsweep_dir(run)
        commit = answers.offsweep_dir(run).rsplit("offsweep_", 1)[1]
        assert {str(r["commit"])[:7] for r in answers.offsweep_rows(run)} == {commit}
        assert f"commit {commit}" in answers.offsweep_words(run)


def test_the_families_list_is_the_variant_table():
    text = answers.families_block()
    for name, fam in answers.sbvariants.catalog().items():
        line = next(x for x in text.splitlines() if x.startswith(f"- **{name}** ({len(fam.variants)} variant"))
        assert all(f"`{v.name}`" in line for v in fam.variants)
    assert "`cublas` (ceiling)" in text and "`two_barrier` (baseline)" in text


def test_geomean_not_the_single_best_point():
    # pingpong: 2x at one point, 0.5x at the other (geomean 1.0);
    # warp_shuffle: 1.25x at both.
    c = choice(A, "scan")
    assert c.best == "warp_shuffle"
    assert c.ratios["warp_shuffle"].geomean == pytest.approx(1.25)
    p = c.ratios["pingpong"]
    assert (p.geomean, p.low, p.high, p.points) == (pytest.approx(1.0), 0.5, 2.0, 2)


def test_a_variant_with_a_wrong_row_is_never_chosen():
    # mbarrier is 10x faster at its ok point and wrong at the other.
    assert "mbarrier" not in choice(A, "scan").ratios


def test_a_variant_must_cover_every_baseline_point():
    # specialized: 2x at 128 threads, skipped at 256 (where uniform is ok).
    assert "specialized" not in choice(A, "multistage").ratios


def test_points_the_baseline_lacks_do_not_count():
    # sync_single is skipped at stages=2; ws_tma's slow point there is ignored.
    r = choice(A, "pipeline").ratios["ws_tma"]
    assert (r.geomean, r.points) == (pytest.approx(2.0), 1)


def test_the_baseline_wins_when_nothing_beats_it():
    c = choice(A, "stencil")
    assert c.best == "two_barrier" and c.contenders == ["two_barrier"]
    assert answers.use_cell([c], ["A"]) == "`two_barrier`: the baseline, nothing beats it"
    assert answers.gpu_cell(c, workload("stencil")).startswith("best other: `pingpong` 0.91x")


def test_a_tie_names_every_variant_within_TIE():
    # early_exit is 1.0101x: within 2% of the baseline uniform.
    c = choice(A, "multistage")
    assert c.contenders == ["early_exit", "uniform"]
    assert answers.use_cell([c], ["A"]).startswith("`early_exit`, `uniform`: a tie")


def test_the_plain_loop_is_the_answer_when_it_is_fastest():
    # reference (the plain loop, flagged `plain`) is 2x, ws_tma 1.25x.
    w = workload("pipeline_intensity")
    c = choice(A, "pipeline_intensity")
    assert w.plain == answers.sbvariants.plain("pipeline_intensity")
    assert c.best == w.plain == c.plain and c.staged == "ws_tma"
    assert c.ratios[w.plain].geomean == pytest.approx(2.0)
    assert answers.use_cell([c], ["A"]).startswith(f"`{w.plain}`: the plain loop")
    cell = answers.gpu_cell(c, w)
    assert cell.startswith(f"plain loop `{w.plain}` 2.00x") and "best staged: `ws_tma` 1.25x" in cell


def test_the_plain_loop_is_named_beside_a_faster_staged_variant():
    w = workload("pipeline_intensity")
    rows = [dict(r) for r in answers.load(A).rows]
    for r in rows:  # the plain loop 4x slower: 0.5x the baseline
        if r["family"] == w.family and r["variant"] == w.plain and r.get("median_us"):
            r["median_us"] *= 4
    c = answers.choose(rows, w)
    assert c.best == "ws_tma" and c.plain == w.plain
    assert answers.gpu_cell(c, w).endswith(f"; plain loop `{w.plain}` 0.50x")


def test_the_answers_say_no_a100_was_measured():
    text = answers.block([answers.load(A)])
    assert text.startswith("**No A100 has been measured.**")
    assert "sm80-path.csv" in text and "compute_80" in text


def test_the_measured_line_gives_each_sweeps_time_from_its_own_rows():
    run = answers.load(A)
    untimed = answers.Run(run.path, [dict(r, elapsed_s=None) for r in run.rows], run.label, run.commit, run.run_utc)
    timed = answers.Run(run.path, [dict(r, elapsed_s=float(i)) for i, r in enumerate(run.rows)] +
                        [dict(run.rows[0], elapsed_s=331.0)], run.label, run.commit, run.run_utc)
    assert answers.sweep_time_words(untimed) == ""
    assert answers.sweep_time_words(timed) == ", the sweep in 5:31"
    assert f"({run.commit[:7]}, {run.run_utc}, the sweep in 5:31)" in answers.block([timed]).replace("commit ", "")


def test_different_winners_per_gpu_are_named_per_gpu():
    cs = [choice(A, "scan"), choice(B, "scan")]
    assert cs[1].best == "pingpong"
    assert answers.use_cell(cs, ["A", "B"]) == \
        "depends on the GPU: `warp_shuffle` on A, `pingpong` on B"


def test_a_gpu_without_the_family_does_not_decide_the_answer():
    cs = [choice(A, "stencil"), choice(B, "stencil")]
    assert cs[1].best is None
    assert answers.use_cell(cs, ["A", "B"]).startswith("`two_barrier`")
    assert answers.gpu_cell(cs[1], workload("stencil")) == "no ok `two_barrier` row"


def test_price_list_reads_the_named_configuration():
    rows = answers.load(A).rows
    ref = next(p for p in answers.prices() if p.variant == "syncthreads")
    mbar = next(p for p in answers.prices() if p.variant == "ptx_mbarrier_parity")
    grid = next(p for p in answers.prices() if p.variant == "grid_sync")
    # The 128-thread syncthreads row (30 cycles) is not the configuration.
    assert answers.price_cell(rows, ref, ref) == "40"
    assert answers.price_cell(rows, mbar, ref) == "140 (3.5x)"
    assert answers.price_cell(rows, grid, ref) == "skipped"
    assert answers.price_cell(answers.load(B).rows, grid, ref) == "not measured"


def test_caveat_and_marks_only_for_audited_commits():
    plain = answers.block([answers.load(A)])
    assert answers.MARK not in plain and "Under re-measurement" not in plain
    both = answers.block([answers.load(A), answers.load(B)])
    assert "We measured the Synthetic B numbers above with the kernels of commit e917ed3" in both
    assert f"`stencil` {answers.MARK}" in both and f"`scan` {answers.MARK}" not in both
    # A row no run has (barrier.cluster) is left out.
    assert "barrier.cluster" not in both


def test_write_replaces_only_the_block(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n{answers.BEGIN}\nold\n{answers.END}\ntail\n")
    assert answers.main(["--write", str(readme), A]) == 0
    text = readme.read_text()
    assert text.startswith(f"# title\n{answers.BEGIN}\n") and text.endswith(f"{answers.END}\ntail\n")
    assert "old" not in text
    assert answers.current_block(text) == answers.block([answers.load(A)])


def test_write_without_markers_is_unusable_input(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    assert answers.main(["--write", str(readme), A]) == 2
    assert "markers" in capsys.readouterr().err
    assert readme.read_text() == "# no markers\n"


GEMM_HEADER = ("schema_version,family,variant,block_threads,stages,buffer_bytes,iters,intensity,n,"
               "consumer_warps,m,k,tile,status,detail,samples,median_us,min_us,max_us,q1_us,q3_us,"
               "cv_pct,bytes_moved,gbps,pct_of_copy,gflops,pct_of_cublas,blocks_per_sm,gpu_name,"
               "gpu_uuid,cc,sm_count,sm_clock_mhz,driver,cuda,commit,run_utc,seed")


def gemm_csv(tmp_path, rows):
    """A made-up gemm CSV: rows are (variant, m, k, tile, stages, status, gflops, pct)."""
    lines = [GEMM_HEADER]
    for variant, m, k, tile, stages, status, gflops, pct in rows:
        lines.append(f"2,gemm,{variant},,{stages},,,,,,{m},{k},{tile},{status},,10,1,1,1,1,1,0,,,,"
                     f"{gflops},{pct},,NVIDIA Synthetic G,GPU-synthetic,9.0,2,1000,0,0,"
                     f"synthetic0002,2000-01-01T00:00:00Z,1")
    path = tmp_path / "gemm.csv"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_gemm_picks_the_highest_pct_of_cublas_ok_row(tmp_path):
    t1, t2 = "128x128x64", "128x256x64"
    path = gemm_csv(tmp_path, [
        ("cublas", 4096, 4096, "", "", "ok", 500000, 100.0),
        ("ring", 4096, 4096, t1, 3, "ok", 300000, 60.0),
        ("ring", 4096, 4096, t2, 4, "ok", 350000, 70.0),
        ("ws_tma", 4096, 4096, t2, 2, "wrong", 490000, 98.0),   # never: not ok
        ("ws_tma", 4096, 4096, t1, 5, "ok", 400000, 80.0),
        ("ws_tma", 4096, 4096, t2, 3, "ok", 395000, 79.0),      # within TIE of 80
        ("ring", 1024, 1024, t1, 2, "ok", 100000, 50.0),         # another shape
        ("cublas", 1024, 1024, "", "", "ok", 200000, 100.0),
    ])
    rows = answers.load(path).rows
    best = answers.gemm_best(rows, 4096, 4096)
    assert (best["variant"], best["tile"], best["stages"]) == ("ws_tma", t1, 5)
    ring = answers.gemm_best(rows, 4096, 4096, "ring")
    assert (ring["tile"], ring["stages"], ring["pct_of_cublas"]) == (t2, 4, 70.0)
    assert answers.gemm_best(rows, 4096, 4096, "single") is None
    assert answers.gemm_best_cell(rows, 4096, 4096) == (
        f"`ws_tma` ({t1}, 5 stages): 80.0%; within 2%: {t2}, 3 stages (79.0%)")
    runs = [answers.load(path)]
    assert answers.gemm_shapes(runs) == [(1024, 1024), (4096, 4096)]
    text = answers.block(runs)
    assert "| 4096 x 4096 x 4096 | 500 | `ws_tma` (128x128x64, 5 stages): 80.0% |" in text
    page = "\n".join(answers.gemm_section(runs, "docs"))
    assert "`ws_tma` (128x128x64, 5 stages): 80.0%; within 2%" in page
    assert f"| `ws_tma` | {answers.gemm_variants()[4][1]} | 80.0% ({t1}, 5 stages) |" in page
    assert "| `single` |" not in page  # no single row at all: left out


def test_gemm_section_left_out_without_gemm_rows():
    assert answers.gemm_section([answers.load(A), answers.load(B)]) == []
    assert "GEMM" not in answers.block([answers.load(A)])


def test_split_section_reads_each_combining_variant_against_the_mainloop(tmp_path):
    t = "128x128x64"
    split = answers.gemm_split_variants()
    assert split and answers.GEMM_SPLIT_MAINLOOP not in split
    path = gemm_csv(tmp_path, [
        ("cublas", 1024, 16384, "", "", "ok", 500000, 100.0),
        (answers.GEMM_SPLIT_MAINLOOP, 1024, 16384, t, 4, "ok", 250000, 50.0),
        (split[0], 1024, 16384, t, 6, "ok", 400000, 80.0),
        (split[0], 1024, 16384, t, 8, "wrong", 490000, 98.0),  # never: not ok
    ])
    text = "\n".join(answers.gemm_split_section([answers.load(path)]))
    assert "| 1024 x 1024 x 16384 | 0.0156 | 50.0% | 80.0%, 1.60x |" in text


def test_split_section_adds_the_off_sweep_proof_of_the_same_commit(tmp_path):
    """results/<gpu>/proofs/offsweep_<commit>/gemm.csv beside the run: its
    shapes become marked lines; another commit's proof is not read."""
    t = "128x128x64"
    split = answers.gemm_split_variants()
    rows = [("cublas", 1024, 16384, "", "", "ok", 500000, 100.0),
            (split[0], 1024, 16384, t, 6, "ok", 400000, 80.0)]
    path = gemm_csv(tmp_path, rows)
    proof = tmp_path / "proofs" / "offsweep_synthet"
    proof.mkdir(parents=True)
    (proof / "gemm.csv").write_text(open(gemm_csv(proof, [
        ("cublas", 256, 8192, "", "", "ok", 100000, 100.0),
        (answers.GEMM_SPLIT_MAINLOOP, 256, 8192, t, 4, "ok", 20000, 20.0),
        (split[0], 256, 8192, t, 6, "ok", 90000, 90.0)])).read())
    text = "\n".join(answers.gemm_split_section([answers.load(path)]))
    assert "| 256 x 256 x 8192 (off-sweep proof) | 0.125 | 20.0% | 90.0%, 4.50x |" in text
    assert "| 1024 x 1024 x 16384 | 0.0156 |" in text
    proof.rename(tmp_path / "proofs" / "offsweep_0000000")  # another commit: not read
    assert "(off-sweep proof) |" not in "\n".join(answers.gemm_split_section([answers.load(path)]))


def devscan_csv(tmp_path, rows):
    """rows: (variant, n, block, elems, status, gbps, pct_of_copy, pct_of_cub),
    in the binary's own columns (results/csv_header.csv)."""
    import csv
    with open(os.path.join(ROOT, "results", "csv_header.csv"), encoding="utf-8") as f:
        header = next(csv.reader(f))
    path = tmp_path / "devscan.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, header, restval="")
        w.writeheader()
        for v, n, b, e, s, g, pc, pcub in rows:
            w.writerow({"schema_version": 3, "family": "devscan", "variant": v,
                        "block_threads": b, "n": n, "elems_per_thread": e, "status": s,
                        "samples": 10, "median_us": 1, "gbps": g, "pct_of_copy": pc,
                        "pct_of_cub": pcub, "gpu_name": "NVIDIA Synthetic G",
                        "commit": "synthetic0003", "run_utc": "2000-01-01T00:00:00Z"})
    return str(path)


def test_devscan_names_the_fastest_non_ceiling_strategy_per_size(tmp_path):
    import sbvariants
    ceiling = sbvariants.ceiling("devscan")
    others = [v for v in sbvariants.variants("devscan") if v != ceiling]
    slow, fast = others[0], others[1]
    path = devscan_csv(tmp_path, [
        (ceiling, 1048576, "", "", "ok", 2000, 80.0, ""),
        (slow, 1048576, 128, 24, "ok", 1500, 60.0, 75.0),
        (slow, 1048576, 256, 8, "ok", 1900, 76.0, 95.0),   # its best tile
        (fast, 1048576, 128, 16, "wrong", 5000, 200.0, 250.0),  # never: not ok
        (fast, 1048576, 128, 24, "ok", 1800, 72.0, 90.0),
    ])
    text = "\n".join(answers.devscan_section([answers.load(path)]))
    assert f"1M: `{slow}` (95% of CUB)" in text
    assert "**95%** of CUB, 76% of copy (256x8)" in text
    assert "| `" + ceiling + "`: " in text and "80% of copy |" in text
    assert answers.devscan_section([answers.load(A)]) == []


def test_the_answers_say_how_each_ceiling_ratio_is_read():
    """The words say how the published rows were read (their schema's
    reading, GPU by GPU where two GPUs' rows differ), else as each family's
    variant table says; README says it for both families."""
    import sbvariants
    for family in ("gemm", "devscan"):
        reading = sbvariants.family(family).ceiling_reading
        assert answers.paired_text(family) == f"paired samples, {answers.READING_TEXT[reading]}"
    assert answers.paired_text("scan") == "paired samples"  # no ceiling: no reading named

    class Run:
        def __init__(self, gpu, schema):
            self.label = gpu
            self.rows = [{"family": "gemm", "schema_version": schema}]
    old, new = Run("H100", 11), Run("H200", 13)
    assert answers.paired_text("gemm", [old]) == "paired samples, the ratio of the two sides' lower quartiles"
    assert answers.paired_text("gemm", [new, old]) == (
        "paired samples, the ratio of the two sides' 1st percentiles (H200); "
        "the ratio of the two sides' lower quartiles (H100)")
    readme = " ".join(open(os.path.join(ROOT, "README.md"), encoding="utf-8").read().split())
    # the committed rows: the H200's schema 13 on, the H100's before schema 9
    assert ("the ratio of the two sides' 1st percentiles (H200); "
            "the ratio of the two sides' fastest samples (H100 80GB HBM3)") in readme
    assert "the median of the v c c v block ratios" in readme


OFFSWEEP = [os.path.join(ROOT, "results", g, "proofs", "offsweep_edbf733", "gemm.csv.xz")
            for g in ("h100-80gb-hbm3", "h200")]


def test_the_off_sweep_table_of_the_committed_proofs(capsys):
    """`answers.py --offsweep` over the committed H100 and H200 proofs of
    edbf733: a row a shape, and the H100 column has no bold cell (every
    off-sweep shape at 85% of cuBLAS or more)."""
    table = answers.offsweep_proof_table(*(answers.sbcsv.read(p) for p in OFFSWEEP))
    assert len(table) == 2 + 20 and "| H200: best combining variant |" in table[0]
    assert all(line.split(" | ")[3][:2] != "**" for line in table[2:])
    assert answers.main(["--offsweep", *OFFSWEEP]) == 0
    assert capsys.readouterr().out == "\n".join(table) + "\n"
    assert answers.main(["--offsweep", os.path.join(ROOT, "no_such.csv")]) == 2


def test_off_sweep_table_bolds_a_shape_under_the_bar():
    """A shape whose best combining variant is under 85% of cuBLAS is bold;
    the 128x128 column reads that tile only; a second proof fills the last
    column."""
    split = answers.gemm_split_variants()

    def row(variant, tile, pct, splits=""):
        return {"family": "gemm", "variant": variant, "status": "ok", "m": 128, "k": 8192, "tile": tile,
                "pct_of_cublas": pct, "splits_used": splits, "median_us": 10.0, "gflops": 1.0,
                "gpu_name": "NVIDIA Synthetic"}
    main = [row("cublas", "", 100.0), row(split[0], "64x128x64", 84.9, 16), row(split[1], "128x128x64", 70.0, 8)]
    lines = answers.offsweep_proof_table(main, [row("cublas", "", 100.0), row(split[1], "64x128x64", 91.0, 8)])
    assert lines[2] == (f"| 128 x 128 | 8192 | 10.00 us | **`{split[0]}` 64x128: 84.9% (16)** | 70.0% | "
                        f"`{split[1]}` 64x128: 91.0% (8) |")
    assert "| Synthetic: best combining variant |" in lines[0]
    main[1]["pct_of_cublas"] = 85.0
    assert "| `" + split[0] + "` 64x128: 85.0% (16) |" in answers.offsweep_proof_table(main)[2]


def test_off_sweep_and_split_tables_keep_m_by_n_shapes_apart_from_the_squares():
    """A row of m x n x k (n != m, --n with --m) is its own line, after the
    squares, and never the best of the square m x m x k (5273e2f's tables
    showed 1152 x 768 x 16k's 99.5% as 1152^2 x 16k's)."""
    split = answers.gemm_split_variants()

    def row(variant, n, pct):
        return {"family": "gemm", "variant": variant, "status": "ok", "m": 1152, "n": n, "k": 16384,
                "tile": "128x128x64", "pct_of_cublas": pct, "splits_used": 3, "median_us": 10.0, "gflops": 1.0}
    rows = [row("cublas", 1152, 100.0), row(split[0], 1152, 88.0), row("cublas", 768, 100.0), row(split[0], 768, 99.5)]
    lines = answers.offsweep_proof_table(rows)
    assert len(lines) == 4
    assert lines[2].startswith("| 1152 x 1152 | 16384 |") and "88.0%" in lines[2] and "99.5%" not in lines[2]
    assert lines[3].startswith("| 1152 x 768 | 16384 |") and "99.5%" in lines[3]
    assert answers.gemm_best(rows, 1152, 16384)["pct_of_cublas"] == 88.0
    assert answers.gemm_best(rows, 1152, 16384, n=768)["pct_of_cublas"] == 99.5
    assert answers.gemm_shapes([answers.Run("", rows, "", "", "")]) == [(1152, 16384)]
    assert answers.gemm_mn_shapes([answers.Run("", rows, "", "", "")]) == [(1152, 16384, 768)]
    # ties stay at the best row's shape: a square row as close is not one of them
    best = answers.gemm_best(rows, 1152, 16384, n=768)
    near = [row(split[1], 768, 99.0), row(split[1], 1152, 99.4)]
    assert answers.gemm_ties(rows + near, 1152, 16384, best) == [near[0]]


def test_why_lines_say_when_the_explain_run_is_of_other_kernels(tmp_path):
    """stalls.csv from another commit than the sweep's: the header says both;
    from the same commit: it says nothing more."""
    import shutil
    h100 = os.path.join(ROOT, "results", "h100-80gb-hbm3")
    shutil.copy(os.path.join(h100, "stalls.csv"), tmp_path / "stalls.csv")
    run = answers.load(os.path.join(h100, "latest.csv"))
    stalls_commit = {r["commit"][:7] for r in answers.sbstalls.read_stalls(str(tmp_path / "stalls.csv"))}
    assert len(stalls_commit) == 1
    (commit,) = stalls_commit
    other = answers.Run(str(tmp_path / "latest.csv"), run.rows, "H100", "0123456789ab", run.run_utc)
    header = answers.why_lines([other])[0]
    assert f"H100: the explain run at {commit}, the sweep at 0123456" in header
    same = answers.Run(str(tmp_path / "latest.csv"), run.rows, "H100", commit + "00000", run.run_utc)
    assert answers.why_lines([same])[0].endswith("(Nsight Compute warp states):")


def test_a_duplicated_point_is_refused(tmp_path):
    """Two rows of one point would let the later copy decide an answer."""
    with open(A, encoding="utf-8") as f:
        lines = f.read().splitlines()
    dup = tmp_path / "dup.csv"
    dup.write_text("\n".join(lines + [lines[1]]) + "\n")
    assert answers.main([str(dup)]) == 2
    with pytest.raises(answers.sbcsv.CsvError, match="duplicate point"):
        answers.load(str(dup))


def test_a_page_without_its_markers_changes_no_page(tmp_path):
    good, bad = tmp_path / "good.md", tmp_path / "bad.md"
    good.write_text("a\n<!-- answers:begin -->\nold\n<!-- answers:end -->\nb\n")
    bad.write_text("no markers here\n")
    with pytest.raises(ValueError, match="markers"):
        answers.write_blocks({(str(good), "answers"): "new\n", (str(bad), "answers"): "new\n"})
    assert "old" in good.read_text() and bad.read_text() == "no markers here\n"
    answers.write_blocks({(str(good), "answers"): "new\n"})
    assert good.read_text() == "a\n<!-- answers:begin -->\nnew\n<!-- answers:end -->\nb\n"


def test_the_price_line_names_a_failed_reference_row_as_such(tmp_path):
    run = answers.load(A)
    ref = next(p for p in answers.prices() if p.variant == answers.price_reference())
    rows = [dict(r, status="wrong") if r is answers.price_row(run.rows, ref) else r for r in run.rows]
    line = "".join(answers.price_summary([answers.Run(run.path, rows, run.label, run.commit, run.run_utc)],
                                         False))
    assert "costs wrong" not in line and "(its row: wrong)" in line
