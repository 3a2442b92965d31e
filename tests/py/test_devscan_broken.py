"""The planted devscan protocol bug (kernels/families/broken.cu, chain_by_block_index:
tile ids from blockIdx.x, reversed, more blocks than fit) is wired into the
test-only broken family and into the GPU proofs that turn it into a
`deadlock` row: scripts/proof_reliability.sh step 1 (expects deadlock +
watchdog) and scripts/gpu_round.sh step b (every broken variant). The GPU
run itself is the proof (no GPU in CI); this checks the wiring."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def test_chain_by_block_index_is_a_test_only_row_of_the_broken_table():
    src = read("kernels/families/broken.cu")
    rows = re.findall(r'\{"(\w+)", broken_launch, broken_pick<(\w+)>, (\d+), ([^,]+),', src)
    row = [r for r in rows if r[0] == "chain_by_block_index"]
    assert row == [("chain_by_block_index", "ChainByBlockIndex", "0", "SB_VF_TEST_ONLY")]
    body = src[src.index("struct ChainByBlockIndex"):src.index("template <class Bug, bool Bounded>")]
    # The bug itself, and a wait the watchdog bounds (so it is a row, not a hang).
    assert "gridDim.x - 1 - blockIdx.x" in body
    assert "sb_wd_check(" in body
    assert "kernels/families/broken.cu" in read("Makefile")  # built only with SB_BROKEN=1


def test_the_gpu_proofs_expect_a_deadlock_row():
    proof = read("scripts/proof_reliability.sh")
    assert '"chain_by_block_index": ("deadlock", "watchdog")' in proof
    # step b of the GPU round runs every planted bug: broken/* and the gemm one
    assert "--filter '^(broken/|" in read("scripts/gpu_round.sh")
