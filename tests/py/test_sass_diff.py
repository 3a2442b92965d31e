"""scripts/sass_diff.py: two builds' kernels side by side. Its kinds, its
matching and its verdicts, on synthetic instruction lists (the real run
needs cuobjdump)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import sass_diff  # noqa: E402

LOOP = ["SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4], R3", "@P0 BRA 0x140",
        "HGMMA.64x128x16.F32 R24, gdesc[UR8], R24", "UTMALDG.2D [UR16], [UR12]",
        "@!P1 STG.E desc[UR6][R2.64], R24", "LDSM.16.M88.4 R4, [R5]", "IMAD R2, R3, 0x4, R2", "EXIT"]


def test_each_instruction_falls_in_its_kind_whatever_its_guard():
    assert [sass_diff.kind(i) for i in LOOP] == ["sync", "branch", "mma", "tma", "global", "shared", "other",
                                                 "branch"]
    assert sass_diff.kind("@!UPT UTMASTG.2D [UR4], [UR6]") == "tma"
    assert sass_diff.kind("BAR.SYNC.DEFER_BLOCKING 0x0") == "sync"
    assert sass_diff.kind("HMMA.16816.F32 R4, R8, R12, R4") == "mma"


def test_counts_add_up_to_every_instruction():
    c = sass_diff.counts(LOOP)
    assert c["all"] == len(LOOP) == sum(c[k] for k in sass_diff.KIND_NAMES)
    assert (c["sync"], c["mma"], c["tma"], c["global"], c["shared"], c["branch"], c["other"]) == (1, 1, 1, 1, 1, 2, 1)


def test_verdicts_follow_the_code_and_the_names():
    edge = LOOP[:4] + ["ISETP.GE.AND P1, PT, R7, R9, PT"] + LOOP[4:]
    base = {"k<A>": LOOP, "k<B>": LOOP, "k<Gone>": LOOP}
    new = {"k<A>": LOOP, "k<B>": edge, "k<Added>": LOOP}
    rows = {r["kernel"]: r for r in sass_diff.rows(base, new, timed={"k<B>"})}
    assert {k: r["verdict"] for k, r in rows.items()} == {
        "k<A>": "identical", "k<B>": "different", "k<Gone>": "only_base", "k<Added>": "only_new"}
    b = rows["k<B>"]
    assert b["timed"] == 1 and rows["k<A>"]["timed"] == 0
    assert (b["base_all"], b["new_all"], b["base_other"], b["new_other"]) == (8, 9, 1, 2)
    assert all(b[f"base_{k}"] == b[f"new_{k}"] for k in ("mma", "tma", "sync", "global", "shared"))
    assert rows["k<Gone>"]["new_all"] == "" and rows["k<Added>"]["base_all"] == ""
    # the math and the synchronization held where only an integer instruction came in
    assert b["same_sync"] == 1 and rows["k<A>"]["same_sync"] == 1 and rows["k<Gone>"]["same_sync"] == ""
    barrier = dict(new, **{"k<A>": LOOP[:1] + LOOP})
    assert {r["kernel"]: r["same_sync"] for r in sass_diff.rows(base, barrier)}["k<A>"] == 0


def test_an_alias_pairs_a_renamed_kernel():
    aliases = [("GemmSingle,", "GemmSingleT<true>,")]
    old = "void gemm_kernel<GemmSingle, GemmTile<128, 128>, 1, false>(GemmParams)"
    assert sass_diff.rename(old, aliases) == "void gemm_kernel<GemmSingleT<true>, GemmTile<128, 128>, 1, false>(GemmParams)"
    assert sass_diff.rename("void gemm_kernel<GemmSingleT<true>, X>", aliases) == "void gemm_kernel<GemmSingleT<true>, X>"
