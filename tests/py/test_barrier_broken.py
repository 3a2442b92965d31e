"""The planted flag hand-off bug (kernels/families/barrier.cu, flag_handoff_lost_token:
side 1 waits for a token side 0 never sends, so both spin) is a test-only
row of the barrier table, built only with SB_BROKEN=1, whose validating twin
waits under the watchdog, and scripts/gpu_round.sh step b runs it with the
other planted bugs (each must cost one `deadlock` row). The GPU run is the
proof (no GPU in CI); this checks the wiring."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def _inside_sb_broken(src, needle):
    """needle's first occurrence lies between an #ifdef SB_BROKEN and its #endif."""
    i = src.index(needle)
    before = src[:i]
    return before.rfind("#ifdef SB_BROKEN") > before.rfind("#endif")


def test_lost_token_is_a_test_only_row_of_the_broken_build():
    src = read("kernels/families/barrier.cu")
    row = src[src.index("BARRIER_HANDOFF_ROW(flag_handoff_lost_token"):]
    row = row[:row.index("),")]
    assert "SB_VF_TEST_ONLY" in row
    # the planted twin of flag_handoff: its policy, with LoseToken = true
    assert row.split(",")[1:3] == [" DevLookAcqRel", " true"]
    assert _inside_sb_broken(src, "BARRIER_HANDOFF_ROW(flag_handoff_lost_token")
    macro = src[src.index("#define BARRIER_HANDOFF_ROW"):]
    assert "SB_BARRIER_VF_PAIR" in macro[:macro.index("summary}")]
    # the bug itself: the waiting side asks for a token one ahead
    assert "LoseToken ? want + 1 : want" in src
    # and its wait is bounded in the validating twin (a row, not a hang)
    flags = read("kernels/common/lookback.cuh")
    wait_for = flags[flags.index("void wait_for("):]
    assert "failed_poll(" in wait_for[:wait_for.index("}")]
    assert "sb_wd_check(" in flags


def test_the_default_table_does_not_list_it():
    assert "flag_handoff_lost_token" not in read("results/variants.csv")


def test_gpu_round_step_b_runs_it_with_the_other_planted_bugs():
    step_b = read("scripts/gpu_round.sh")
    step_b = step_b[step_b.index("if step b; then"):]
    assert "barrier/flag_handoff_lost_token/" in step_b
    assert "$C/broken/syncbench" in step_b
