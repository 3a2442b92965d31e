"""The TMA-store epilogue (gemm/ws_tma_wgmma_multicast_persistent_tma_store,
gemm/ws_tma_wgmma_pingpong_tma_store): the rules of the async proxy in the
source, and the staging's size agreed between the kernel and the host's
shared-memory check. The GPU runs prove the rest (every point validated,
compute-sanitizer clean: results/h100-80gb-hbm3/proofs/tma_store_*)."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def store_tma_body():
    src = read("kernels/gemm/gemm_consumers.cuh")
    body = src[src.index("void store_tma("):]
    return body[:body.index("\n  }\n")]


def test_writes_are_fenced_before_the_copy_and_a_buffer_waits_for_its_last_read():
    body = store_tma_body()
    wait_read = body.index("cp.async.bulk.wait_group.read 1;")
    first_write = body.index("st.shared.v2.f32")
    fence = body.index("fence.proxy.async.shared::cta;")
    copy = body.index("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group")
    commit = body.index("cp.async.bulk.commit_group;")
    # reuse waits (lane 0) and the warp syncs before anyone writes the buffer;
    # every writer fences, the warp syncs, then lane 0 copies and commits
    assert wait_read < body.index("__syncwarp()", wait_read) < first_write < fence < copy < commit
    assert body.index("__syncwarp()", fence) < copy
    # the wait and the copy are the same thread's (bulk groups are per thread)
    assert body[:wait_read].rstrip().endswith("if (lane == 0) asm volatile(\"")
    assert "if (lane == 0) {" in body[fence:copy]
    # two buffers a warp, alternating: wait_group.read 1 leaves one copy in flight
    assert "(piece & 1u) * STORE_PIECE_BYTES" in body


def test_every_store_completes_before_the_block_exits():
    src = read("kernels/gemm/gemm_consumers.cuh")
    drain = src[src.index("void store_tma_drain()"):]
    assert "cp.async.bulk.wait_group 0;" in drain[:drain.index("}")]
    gemm = read("kernels/gemm/gemm.cu")
    body = gemm[gemm.index("struct GemmWsTmaWgmmaPingpongT"):]
    body = body[:body.index("\n};")]
    # ping-pong and the multicast persistent form: the TMA-store epilogue
    # drains in finish(), after the tile loop, in the consumers (ping-pong's
    # own loop; the warp-specialized body's), and only with TmaStore
    assert "std::conditional_t<TmaStore, GemmTmaStoreWalkEpi, GemmStoreEpi> epi{};" in body
    assert body.index("for (int j = g; j < mine; j += groups) {") < body.index("epi(p, math, u);") < \
        body.index("epi.finish(math);")
    walk = gemm[gemm.index("struct GemmTmaStoreWalkEpi"):]
    walk = walk[:walk.index("\n};")]
    assert walk.index("math.store_tma(") < walk.index("void finish(") < walk.index("math.store_tma_drain();")
    main = read("kernels/gemm/gemm_mainloop.cuh")
    ws = main[main.index("void gemm_ws_body("):]
    assert ws.index("sched.each([&](const GemmUnit &u) {\n      if constexpr") < ws.index("epi.finish(math);")
    multicast = gemm[gemm.index("struct GemmWsTmaWgmmaMulticastT"):]
    assert "std::conditional_t<TmaStore, GemmTmaStoreWalkEpi, GemmStoreEpi> epi{};" in multicast


def test_the_staging_size_agrees_between_kernel_and_host():
    """Two 16 x 32 fp32 pieces per consumer warp: GemmWarpgroupMma's
    STORE_BYTES (times the warpgroups of ping-pong, gemm_store_bytes) and
    gemm_tiles.h's sb_gemm_store_staging_bytes, and bench/gemm.c's check
    (the consumer warps the kernels compile, both warpgroups of ping-pong)."""
    cons = read("kernels/gemm/gemm_consumers.cuh")
    assert "STORE_PIECE_BYTES = 16 * 32 * 4;" in cons
    assert "STORE_BYTES = T::WARPS * 2 * STORE_PIECE_BYTES;" in cons
    tiles = read("kernels/gemm/gemm_tiles.h")
    fn = tiles[tiles.index("sb_gemm_store_staging_bytes(int tile)"):]
    fn = fn[:fn.index("}")]
    # the tile's consumer warps (sb_gemm_tile_warps, GemmTile::WARPS)
    assert "sb_gemm_tile_warps(tile) * 2 * 16 * 32 * 4" in fn
    params = read("kernels/gemm/gemm_params.cuh")
    assert "WARPS = WGMMA_ONLY ? 4 : (BM / 64) * WARPS_N" in params and "WARPS_N = BN / 64" in params
    assert "WGMMA_ONLY = (BM / 64) * WARPS_N < 4" in params
    assert "sb_gemm_tile_wgmma_only(tile) ? 4 : (sb_gemm_tile_bm(tile) / 64) * (sb_gemm_tile_bn(tile) / 64)" in tiles
    gemm = read("kernels/gemm/gemm.cu")
    assert "GemmWarpgroupMma<T>::STORE_BYTES * V::groups" in gemm
    assert "S * T::STAGE_BYTES + gemm_store_bytes<V, T>() + SB_GEMM_ALIGN_SLACK" in gemm
    bench = read("bench/gemm.c")
    # the host's check: the consumer warps the kernels compile (both warpgroups of ping-pong) x 2 pieces
    assert re.search(r"\(compiled \? c\.warps : sb_gemm_tile_warps\(t\)\) \* 2 \* 16 \* 32 \* 4", bench)


def test_c_map_matches_the_piece():
    """C's tensor map: fp32, 32 columns x 16 rows (one warp's piece: 128-byte
    rows, the 128B swizzle the staging writes), appended last to GemmParams
    (the other fields keep their offsets)."""
    gemm = read("kernels/gemm/gemm.cu")
    fn = gemm[gemm.index("static cudaError_t gemm_tensor_map_c("):]
    fn = fn[:fn.index("\n}\n")]
    assert "CU_TENSOR_MAP_DATA_TYPE_FLOAT32" in fn and "32, 16," in fn and "CU_TENSOR_MAP_SWIZZLE_128B" in fn
    params = read("kernels/gemm/gemm_params.cuh")
    struct = params[params.index("struct alignas(128) GemmParams"):]
    struct = struct[:struct.index("\n};")]
    # appended after prof; only later appends (splitk_cooperative's epoch,
    # splitk_reduce's reduce_groups) follow it
    fields = [l.strip() for l in struct.splitlines() if l.strip() and not l.strip().startswith("//")]
    at = fields.index("CUtensorMap map_c;")
    assert fields[at - 1] == "unsigned long long *prof;"
    assert fields[at + 1:] == ["unsigned epoch;", "int reduce_groups;"]
