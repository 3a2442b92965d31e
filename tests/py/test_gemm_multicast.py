"""gemm/ws_tma_wgmma_multicast's wiring, which no GPU checks here (the GPU
run is the proof; this checks what the code says): the planted bug
ws_tma_wgmma_multicast_no_remote_arrive is a test-only row of the broken
build only, whose consumers skip the remote arrive (the peer's producer
then waits forever: a `deadlock` row under the watchdog), and
scripts/gpu_round.sh step b runs it with the other planted bugs; the
protocol's rules are where the issue puts them."""
from test_barrier_broken import _inside_sb_broken, read  # noqa: E402  (one reader of the sources)


def test_no_remote_arrive_is_a_test_only_row_of_the_broken_build():
    src = read("kernels/gemm/gemm.cu")
    # a clustered row (gemm_row_clusters: the multicast flag and sm_90 follow from the type), test only
    head = 'gemm_row_clusters<GemmWsTmaWgmmaMulticastNoRemote, SB_VF_TEST_ONLY>("ws_tma_wgmma_multicast_no_remote_arrive"'
    assert head in src
    assert "using GemmWsTmaWgmmaMulticastNoRemote = GemmWsTmaWgmmaMulticastT<CM, CN, GemmRingNoRemoteArrive>;" in src
    assert _inside_sb_broken(src, head)
    assert _inside_sb_broken(src, "struct GemmRingNoRemoteArrive")
    # the bug: a release that arrives on its own CTA's barrier only
    bug = src[src.index("struct GemmRingNoRemoteArrive"):]
    bug = bug[:bug.index("};")]
    assert "this->lane == rank" in bug


def test_the_default_table_lists_the_variant_but_not_the_bug():
    variants = read("results/variants.csv")
    assert "ws_tma_wgmma_multicast_no_remote_arrive" not in variants
    assert "\ngemm,ws_tma_wgmma_multicast," in variants or ",ws_tma_wgmma_multicast," in variants


def test_gpu_round_step_b_runs_it_with_the_other_planted_bugs():
    step_b = read("scripts/gpu_round.sh")
    step_b = step_b[step_b.index("if step b; then"):]
    assert "gemm/ws_tma_wgmma_multicast_no_remote_arrive/" in step_b
    assert "gemm/splitk_serial_no_release/" in step_b


def _ws_body():
    """The one warp-specialized body (gemm_mainloop.cuh), which the multicast
    variants run with the multicast producer and a cluster ring."""
    main = read("kernels/gemm/gemm_mainloop.cuh")
    body = main[main.index("__device__ __forceinline__ void gemm_ws_body("):]
    return main, body[:body.index("\n}\n")]


def test_the_cluster_rules_are_in_the_kernel():
    src = read("kernels/gemm/gemm.cu")
    variant = src[src.index("struct GemmWsTmaWgmmaMulticastT"):]
    variant = variant[:variant.index("\n};")]
    assert "gemm_ws_body<GemmWsTmaWgmmaMulticastT, T, S, Bounded, R>" in variant
    assert "sb_cluster_ring_rc<S, Bounded, CM, CN>, Ring<S, Bounded, CM * CN>>" in variant
    main, body = _ws_body()
    # init, then a cluster barrier before any remote use; a cluster barrier
    # before exit that the producer warp reaches too (no early return with clusters)
    init = body.index("Ring::init(")
    first_sync = body.index("sb_cluster_sync()")
    assert init < first_sync < body.index("Load::template produce")
    assert body.rindex("sb_cluster_sync()") > body.index("epi.finish(math);")
    assert body.count("return;") == 1 and "if constexpr (!clustered) return;" in body
    # empty counts the consumer warps of every CTA that releases to it
    assert "clustered ? T::WARPS * Ring::CONSUMER_CTAS : T::WARPS * 32" in body
    multicast = main[main.index("struct GemmProduceTmaMulticast"):]
    multicast = multicast[:multicast.index("\n};")]
    assert "sb_cluster_ring<S, Bounded, CM * CN>>;" in multicast and "gemm_tma_produce_multicast<" in multicast
    ring = read("kernels/common/ring.cuh")
    cring = ring[ring.index("struct sb_cluster_ring"):]
    assert "fence_mbarrier_init" in ring[:ring.index("struct sb_cluster_ring")]
    assert "__syncwarp();" in cring and "sb_mbar_arrive_cluster(" in cring
    # CTA-scope semantics: release.cluster put MEMBAR.ALL.GPU in every release
    assert "sb_mbar_arrive_remote(" not in cring
    # the bounded twin bounds the new waits: the producer's acquire and the
    # consumers' wait are sb_ring's (sb_mbar_wait_parity_stage<Bounded>)
    main = read("kernels/gemm/gemm_mainloop.cuh")
    prod = main[main.index("void gemm_tma_produce_multicast("):]
    prod = prod[:prod.index("\n}\n")]
    assert "ring.acquire(st)" in prod and "sb_ring_state &st" in prod  # the caller's state
    # the producer's tail comes once, after its last tile (a persistent
    # producer carries st from tile to tile)
    assert body.index("Load::template produce") < body.index("ring.producer_tail(st)")
    assert "ring.commit_tx(st, (uint32_t)T::STAGE_BYTES)" in prod
    assert ".multicast::cluster" in main


def test_the_persistent_variant_keeps_one_ring_across_tiles():
    """ws_tma_wgmma_multicast_persistent: the ring is initialized once and its
    state (index, parity) declared once, before the tile loop (the one
    warp-specialized body); both CTAs of a cluster walk the same cluster
    tiles (cluster = blockIdx.x / CTAS, stride = clusters: GemmClusterUnits),
    so they stay in step on each other's empty barriers; the accumulators
    are zeroed per tile; the launch is a persistent grid."""
    src = read("kernels/gemm/gemm.cu")
    body = src[src.index("struct GemmWsTmaWgmmaMulticastT"):]
    body = body[:body.index("\n};")]
    assert "GemmClusterUnits<T, CM, CN, Persistent>::make(p)" in body
    _, ws = _ws_body()
    assert ws.count("Ring::init(") == 1 and ws.count("sb_ring_state st;") == 1
    first_use = ws.index("sched.each(")
    assert ws.index("sb_ring_state st;") < first_use and ws.index("Ring::init(") < first_use
    assert "if constexpr (decltype(sched)::walks) math.zero();" in ws
    sched = read("kernels/gemm/gemm_schedulers.cuh")
    walk = sched[sched.index("struct GemmClusterUnits"):]
    walk = walk[:walk.index("\n};")]
    assert "for (int c = (int)(blockIdx.x / CTAS); c < cluster_tiles; c += clusters)" in walk
    assert "sb_ring_state" not in walk and "init(" not in walk
    assert "clusters = (int)(gridDim.x / CTAS)" in walk and ">> 1" not in walk
    assert "static constexpr bool walks = Persistent;" in walk
    assert "GemmWsTmaWgmmaMulticastT<CM, CN, sb_cluster_ring, true>" in src
    # the grid comes from the composition's schedule (persistent), whose host side makes it so
    assert "std::conditional_t<Persistent, GemmSchedulePersistent, GemmScheduleDataParallel>" in body
    host = src[src.index("struct GemmScheduleHost<GemmSchedulePersistent>"):]
    assert "s.grid = SB_GRID_PERSISTENT;" in host[:host.index("\n};")]
    launch = src[src.index("static cudaError_t gemm_launch(sb_launch *L)"):]
    assert "GemmScheduleHost<typename V::Schedule>" in launch
