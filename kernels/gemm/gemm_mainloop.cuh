// GEMM family, the mainloop: how a stage of the K loop is filled and
// handed over. The cp.async stage copy (every thread or one producer warp),
// the TMA box copy, the warp-specialized ring's consumer loop, the
// producers (a cp.async warp, an elected TMA thread, TMA multicast), and
// gemm_ws_body: the one warp-specialized body (ring, producer, consumers,
// epilogue) that every warp-specialized variant runs but ping-pong, with
// its mainloop, consumer, schedule and epilogue as parameters. What the
// consumers compute: gemm_consumers.cuh; which tiles and K ranges a block
// takes (the schedules' units), and the fix-ups: gemm_schedulers.cuh,
// gemm_fixups.cuh.
#ifndef SB_KERNELS_GEMM_MAINLOOP_CUH
#define SB_KERNELS_GEMM_MAINLOOP_CUH

#include "../common/cp_async.cuh"
#include "gemm_params.cuh"
#include "../common/ring.cuh"

#include <type_traits>

// ---- cp.async: the stage copy of the cp.async and ws_mbarrier variants ----

// Copies k-tile k0 of the block's A rows (a_blk = A + m0 * K) and B columns
// (b_blk = B + n0 * K) into `stage`, swizzled: thread t of NT copies 16-B
// chunk t & 7 of rows t / 8, t / 8 + NT / 8, ...; 8 consecutive threads
// read one 128-B row segment. The source pointer steps by NT / 8 rows, so
// the compiler keeps one pointer per operand, not one per copy (a 32-lane
// producer issues 32 + 64 copies per stage).
// Edge (a tile that crosses C's last row or column, or a K that is not a
// whole number of k-tiles): a chunk of a row from `rows` on (past M or N)
// or from column K on is zero-filled, not read (cp.async's src-size 0,
// from the block's first row, a valid address); K is a multiple of 8 (the
// shape rule), so a 16-B chunk is all in or all out. Zeros add nothing to
// the products, so the consumers read a partial stage as a whole one.
template <int NT, int ROWS, bool Edge = false>
__device__ __forceinline__ void gemm_load_rows(uint32_t dst, const uint16_t *src_blk, int K, int k0,
                                               int t, int rows = ROWS) {
  static_assert((ROWS * 8) % NT == 0, "whole chunks per thread");
  const int c = t & 7;
  const uint16_t *src = src_blk + (size_t)(t >> 3) * K + k0 + c * 8;
  const size_t step = (size_t)(NT / 8) * K;
#pragma unroll 8
  for (int it = 0; it < ROWS * 8 / NT; ++it) {
    const int row = it * (NT / 8) + (t >> 3);
    if constexpr (Edge) {
      const bool in = row < rows && k0 + c * 8 < K;
      sb_cp_async16_zfill(dst + gemm_swz(row, c), in ? src : src_blk, in ? 16u : 0u);
    } else {
      sb_cp_async16(dst + gemm_swz(row, c), src);
    }
    src += step;
  }
}

// The stage copy of the block's tile (m0, n0): the whole-tile copy, or the
// edge copy, chosen once per tile (gemm_edge_tile) by a uniform branch.
// A whole-tiles form (single's, swap's, ring's WholeTiles) calls the first
// overload, K by value (7842bb7's form): through the second, with `edge`
// a constant false, NVVM kept k0 and the chunk's column apart (the k-tile
// counter in a uniform register, a 64-bit 3-input add per prefetch) and
// ptxas scheduled the loop's first copy 11 instructions later; swap's
// 128x128 whole form was 2-4% slower than 7842bb7 on an H200. With this
// one the K loops are 7842bb7's instruction for instruction.
template <class T>
__device__ __forceinline__ bool gemm_edge_tile(const GemmParams &p, int m0, int n0) {
  return !gemm_whole_tile<T>(p, m0, n0) || p.k % T::BK != 0;
}
template <class T, int NT>
__device__ __forceinline__ void gemm_load_stage(uint32_t stage, const uint16_t *a_blk, const uint16_t *b_blk, int K,
                                                int k0, int t) {
  gemm_load_rows<NT, T::BM>(stage, a_blk, K, k0, t);
  gemm_load_rows<NT, T::BN>(stage + T::A_BYTES, b_blk, K, k0, t);
}
template <class T, int NT>
__device__ __forceinline__ void gemm_load_stage(uint32_t stage, const uint16_t *a_blk, const uint16_t *b_blk,
                                                const GemmParams &p, bool edge, int m0, int n0, int k0, int t) {
  if (!edge) {
    gemm_load_rows<NT, T::BM>(stage, a_blk, p.k, k0, t);
    gemm_load_rows<NT, T::BN>(stage + T::A_BYTES, b_blk, p.k, k0, t);
  } else {
    gemm_load_rows<NT, T::BM, true>(stage, a_blk, p.k, k0, t, p.m - m0);
    gemm_load_rows<NT, T::BN, true>(stage + T::A_BYTES, b_blk, p.k, k0, t, p.n - n0);
  }
}

// ---- TMA (sm_90): one 2D box per operand ----

// A 2D box (64 columns of K from column k0, BM or BN rows from row r0) into
// `dst`, completing its bytes on `bar` (complete_tx).
__device__ __forceinline__ void gemm_tma_load_2d(uint32_t dst, const CUtensorMap *map, int k0, int r0,
                                                 uint32_t bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
      "l"((unsigned long long)map), "r"(k0), "r"(r0), "r"(bar)
      : "memory");
#else
  (void)dst, (void)map, (void)k0, (void)r0, (void)bar;
  __trap();
#endif
}

// The same box, multicast: written at offset `dst` of the shared memory of
// every CTA of the cluster in `mask`, and complete_tx of the box's bytes on
// the barrier at offset `bar` of each of them. dst and bar: this CTA's own
// shared addresses.
__device__ __forceinline__ void gemm_tma_load_2d_multicast(uint32_t dst, const CUtensorMap *map, int k0,
                                                           int r0, uint32_t bar, uint16_t mask) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
      "l"((unsigned long long)map), "r"(k0), "r"(r0), "r"(bar), "h"(mask)
      : "memory");
#else
  (void)dst, (void)map, (void)k0, (void)r0, (void)bar, (void)mask;
  __trap();
#endif
}

// ---- the warp-specialized ring ----

// The warp-specialized variants: consumer warps 0..WARPS-1 (whole
// warpgroups for wgmma), then one producer warp. Per stage a `full` and an
// `empty` mbarrier (kernels/common/ring.cuh): `empty` expects every consumer
// thread (release from converged warps), `full` what the producer says.
template <class T, int S>
struct GemmRingBars {
  uint64_t full[S], empty[S];
};

// How many MMA batches a Math leaves in flight across the k-loop:
// GemmWarpgroupMma::IN_FLIGHT (1), else 0 (mma.sync returns done).
template <class Math, class = void>
struct GemmInFlight {
  static constexpr int value = 0;
};
template <class Math>
struct GemmInFlight<Math, std::void_t<decltype(Math::IN_FLIGHT)>> {
  static constexpr int value = Math::IN_FLIGHT;
};
// With one stage there is no previous stage to overlap with: the batch is
// waited for (wait_group 0) before its only stage is released.
template <class Math, int S>
struct GemmOverlaps {
  static constexpr bool value = GemmInFlight<Math>::value > 0 && S > 1;
};
// Whether a Math reads the stages through the generic proxy (ldmatrix:
// GemmWarpMma, and any other by default) or the async proxy (wgmma's
// shared-memory descriptors: GemmWarpgroupMma). A TMA-filled stage read
// through the generic proxy is released with release_generic
// (docs/pipeline.md, "Proxy fences").
template <class T>
struct GemmWarpgroupMma;  // gemm_consumers.cuh
template <class Math>
struct GemmGenericReads : std::true_type {};
template <class T>
struct GemmGenericReads<GemmWarpgroupMma<T>> : std::false_type {};

// The consumer's k-loop over n k-tiles of the ring from `st`, in CUTLASS's
// two halves (collective mma / mma_tail), so that the ping-pong variant can
// hand the tensor cores on between them. gemm_consume_mma waits `full`,
// issues, and releases every stage whose reads are over: with one batch in
// flight (wgmma, S >= 2) that is the previous k-tile's stage, after
// wait_group 1, and the last k-tile's stage stays in flight, unreleased, in
// `last`; gemm_consume_tail waits for it (wait_group 0) and releases it.
// Releases stay one per stage per consumer thread, in ring order, so the
// producer's acquire and the parity bookkeeping are the ring's as before.
// FenceReads: generic reads of TMA-filled stages (release_generic).
// The waits are unconditional (wait_group 1 with one batch pending, or 0
// with none, returns at once): a wait skipped on some path makes ptxas
// insert its own before the accumulators' next use and serialize every
// wgmma of the kernel (C7518, "compiler-inserted WG.DP in divergent path").
// Ring: sb_ring, or the multicast variant's sb_cluster_ring / _rc (its
// release arrives on the `empty` of every CTA that writes the stage).
// FenceWrites: wgmma (async-proxy) reads of stages the producer wrote
// through the generic proxy (cp.async): fence.proxy.async after each wait.
template <class T, int S, bool Bounded, bool FenceReads = false, class Math, class Ring = sb_ring<S, Bounded>,
          bool FenceWrites = false>
__device__ __forceinline__ void gemm_consume_mma(const Ring &ring, sb_ring_state &st,
                                                 sb_ring_state &last, Math &math, uint32_t smem, int n) {
  if constexpr (GemmOverlaps<Math, S>::value) {
    static_assert(!FenceReads, "the overlapped k-loop is wgmma's: async-proxy reads");
    for (int kt = 0; kt < n; ++kt) {
      ring.wait(st);  // a different stage from last's: S >= 2
      if constexpr (FenceWrites) sb_fence_proxy_async_shared();  // cp.async's writes, before wgmma reads them
      math.issue(smem + st.index * T::STAGE_BYTES);
      math.template wait<1>();  // batch kt - 1 is complete: its stage's reads are over
      if (kt > 0) ring.release(last);
      last = st;
      st.template advance<S>();
    }
  } else {
    (void)last;
    for (int kt = 0; kt < n; ++kt) {
      ring.wait(st);
      math.stage(smem + st.index * T::STAGE_BYTES);  // returns with its reads done
      if constexpr (FenceReads)
        ring.release_generic(st);
      else
        ring.release(st);
      st.template advance<S>();
    }
  }
}
template <class T, int S, bool Bounded, class Math, class Ring = sb_ring<S, Bounded>>
__device__ __forceinline__ void gemm_consume_tail(const Ring &ring, const sb_ring_state &last,
                                                  Math &math, int n) {
  if constexpr (GemmOverlaps<Math, S>::value) {
    math.template wait<0>();  // the last batch: accumulators final, its stage read
    if (n > 0) ring.release(last);
  } else {
    (void)ring, (void)last, (void)math, (void)n;
  }
}

// Moves a ring state n stages on without consuming them (the ping-pong
// warpgroup skipping the other one's tile): index and parity as n advances.
template <int S>
__device__ __forceinline__ void gemm_ring_skip(sb_ring_state &st, int n) {
  const int i = st.index + n;
  st.phase ^= (uint32_t)(i / S) & 1u;
  st.index = i % S;
}

// The TMA producer: one elected thread; per stage one arrive.expect_tx of
// both tiles' bytes, then the two boxes, which complete_tx on `full`.
template <class T, int S, bool Bounded>
__device__ __forceinline__ void gemm_tma_produce_range(const GemmParams &p, const sb_ring<S, Bounded> &ring,
                                                       sb_ring_state &st, uint32_t smem, int m0, int n0,
                                                       int kt0, int kt1) {
  for (int kt = kt0; kt < kt1; ++kt) {
    ring.acquire(st);
    const uint32_t stage = smem + st.index * T::STAGE_BYTES;
    ring.commit_tx(st, (uint32_t)T::STAGE_BYTES);  // = A box (64 x BM) + B box (64 x BN), fp16
    gemm_tma_load_2d(stage, &p.map_a, kt * T::BK, m0, ring.full_bar(st.index));
    gemm_tma_load_2d(stage + T::A_BYTES, &p.map_b, kt * T::BK, n0, ring.full_bar(st.index));
    st.template advance<S>();
  }
}
// ---- the work unit: what the schedule hands the producer and the consumers ----
// A tile's origin (m0, n0), its k-tiles [k0, k1), the tile's index in the
// grouped order (the fix-ups' workspace and counters), and this CTA's rank
// in its cluster (multicast).
struct GemmUnit {
  int m0, n0, k0, k1, tile;
  uint32_t rank;
};
// The block's one unit, found before the body: a block per tile (blockIdx.x)
// or a split-K slice of one (blockIdx.x or a ticket).
struct GemmOneUnit {
  static constexpr bool walks = false;  // one unit: the accumulators start at zero
  GemmUnit u;
  template <class F>
  __device__ __forceinline__ void each(F &&f) const {
    f(u);
  }
};

// ---- the producers: the mainloop part's device side ----
// produce(p, ring, st, smem, u) fills unit u's stages [u.k0, u.k1) from
// ring state st on (the state runs on across units; the body ends with
// producer_tail). FULL_ARRIVALS: what completes a `full` phase; elected:
// one thread of the producer warp produces (else its 32 lanes); Ring: the
// stage ring the mainloop fills.

// cp.async (ws_mbarrier): the producer warp's 32 lanes copy a stage and
// arrive.noinc on `full` once their copies land: 32 arrivals a phase.
// Warps > 1: a producer warpgroup's 32 x Warps threads, as many arrivals.
template <int Warps = 1>
struct GemmProduceCpAsyncT {
  static constexpr int FULL_ARRIVALS = 32 * Warps;
  static constexpr bool elected = false;
  template <int S, bool Bounded>
  using Ring = sb_ring<S, Bounded>;
  template <class T, int S, bool Bounded, class R>
  __device__ __forceinline__ static void produce(const GemmParams &p, const R &ring, sb_ring_state &st,
                                                 uint32_t smem, const GemmUnit &u) {
    const uint16_t *a_blk = p.a + (size_t)u.m0 * p.k, *b_blk = p.b + (size_t)u.n0 * p.k;
    const bool edge = gemm_edge_tile<T>(p, u.m0, u.n0);  // a partial tile: the predicated copy (once per tile)
    static_assert(T::WARPS % Warps == 0, "the producer threads start at a multiple of their count");
    for (int kt = u.k0; kt < u.k1; ++kt) {
      ring.acquire(st);  // the consumers released this stage
      gemm_load_stage<T, 32 * Warps>(smem + st.index * T::STAGE_BYTES, a_blk, b_blk, p, edge, u.m0, u.n0,
                                     kt * T::BK, threadIdx.x & (32 * Warps - 1));
      // One arrival per thread once its copies land: FULL_ARRIVALS complete the phase.
      sb_cp_async_arrive_noinc(ring.full_bar(st.index));
      st.template advance<S>();
    }
  }
};
using GemmProduceCpAsync = GemmProduceCpAsyncT<1>;

// TMA: one elected thread; per stage one arrive.expect_tx of both tiles'
// bytes (gemm_tma_produce_range), then the two boxes, which complete_tx on `full`.
struct GemmProduceTma {
  static constexpr int FULL_ARRIVALS = 1;
  static constexpr bool elected = true;
  template <int S, bool Bounded>
  using Ring = sb_ring<S, Bounded>;
  template <class T, int S, bool Bounded, class R>
  __device__ __forceinline__ static void produce(const GemmParams &p, const R &ring, sb_ring_state &st,
                                                 uint32_t smem, const GemmUnit &u) {
    gemm_tma_produce_range<T, S, Bounded>(p, ring, st, smem, u.m0, u.n0, u.k0, u.k1);
  }
};

// Blocks per SM every variant of a tile is compiled for, so that they share
// occupancy and differ only in synchronization: two 128 x 128 blocks (the
// 4-warp variants fit two by shared memory up to 3 stages), one 128 x 256.
// Without it the warp-specialized 128 x 128 kernels (5 warps) took 197-224
// registers, and a sub-partition's 16 K registers then hold 2 of their
// warps, not 3: one block per SM against the other variants' two.
template <class T>
__host__ __device__ constexpr int gemm_min_blocks() {
  return T::BN == 128 ? 2 : 1;
}

// A producer warpgroup's registers (setmaxnreg, sm_90a, every thread of
// each warpgroup): the producer keeps GEMM_PRODUCER_REGS and the consumer
// warpgroups take what the block's share of the register file leaves them,
// so the block keeps its siblings' blocks per SM (Blocks) without spilling
// the accumulators. CUTLASS's warp-specialized kernels do the same (40 / 232).
constexpr int GEMM_PRODUCER_REGS = 40;
template <class T, int Blocks, int ProducerThreads>
__host__ __device__ constexpr int gemm_consumer_regs() {
  const int left = (65536 / Blocks - GEMM_PRODUCER_REGS * ProducerThreads) / (T::WARPS * 32) / 8 * 8;
  return left > 240 ? 240 : left;  // setmaxnreg's whole multiples of 8, at most CUTLASS's 240
}
template <int Regs, bool Inc>
__device__ __forceinline__ void gemm_setmaxnreg() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr (Inc)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
  else
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
#endif
}

// ---- the warp-specialized body: one for every mainloop, consumer and schedule ----
//
// V: the composition (gemm_compose.cuh): its mainloop's producer (Load:
// a cp.async warp, one elected thread's TMA boxes, multicast or not) and
// its consumer's Math (mma.sync warps, wgmma warpgroups). The block's
// work comes in units from the schedule (make_sched(), built by every
// thread after the barrier: its each() walks one unit, a cluster tile, a
// persistent walk or stream-K's pieces); the producer fills the ring with
// each unit's stages and the consumers take them in the same order, then
// hand each unit's accumulators to the epilogue (epi: stores, TMA stores,
// a split-K or stream-K fix-up; epi.finish() after the last unit).
// The synchronization:
//  - thread 0 inits the ring (full: the producer's arrivals,
//    Load::FULL_ARRIVALS, + the copies' bytes; empty: every consumer
//    thread, or with clusters each consumer warp of both CTAs) and claims
//    what the schedule takes under the barrier that publishes the init
//    (claim(): stream-K's ticket); then the block barrier, or with
//    clusters a cluster barrier before any remote arrive or multicast;
//  - the producer acquires `empty` (WAR: the consumers are done with the
//    stage) and commits the stage on `full`; the consumers wait `full`
//    (RAW), compute and release `empty` (gemm_consume_mma: one wgmma batch
//    in flight, the previous stage released); the ring's state (index,
//    parity) runs on across units, never re-initialized;
//  - with clusters, every thread of both CTAs (the producer warp's too)
//    meets at a cluster barrier before exit: no CTA leaves while its peer
//    may still arrive on its barriers or multicast into its shared memory.
// Ring: the mainloop's, or the broken build's (a release that skips the
// peer). The bounded twin's epilogue profile: the TMA mainloops'.
template <class V, class T, int S, bool Bounded, class Ring = typename V::Mainloop::template Ring<S, Bounded>,
          class Claim, class MakeSched, class Epi>
__device__ __forceinline__ void gemm_ws_body(const GemmParams &p, uint32_t smem, const Claim &claim,
                                             const MakeSched &make_sched, Epi &epi) {
  using Load = typename V::Mainloop;
  using Math = typename V::Consumer::template Math<T>;
  constexpr bool clustered = Load::cluster_m * Load::cluster_n > 1;
  __shared__ GemmRingBars<T, S> bars;
  if (threadIdx.x == 0) {
    Ring::init(bars.full, bars.empty, Load::FULL_ARRIVALS, clustered ? T::WARPS * Ring::CONSUMER_CTAS : T::WARPS * 32);
    claim();
  }
  if constexpr (clustered)
    sb_cluster_sync();  // every CTA's inits visible cluster-wide (and block-wide) before any remote use
  else
    __syncthreads();  // the inits (and the claim) are visible; no block barrier after this
  const Ring ring(bars.full, bars.empty);
  const auto sched = make_sched();
  const int warp = threadIdx.x >> 5;
  sb_ring_state st;
  if (Load::producer_warps == 1 ? warp == T::WARPS : warp >= T::WARPS) {  // the producer warp(s)
    if constexpr (Load::producer_warps > 1) gemm_setmaxnreg<GEMM_PRODUCER_REGS, false>();
    if (!Load::elected || threadIdx.x == T::WARPS * 32) {
      sched.each([&](const GemmUnit &u) { Load::template produce<T, S, Bounded>(p, ring, st, smem, u); });
      ring.producer_tail(st);  // every stage I filled was released (clusters: by every CTA it feeds)
    }
    if constexpr (!clustered) return;
    __syncwarp();  // all 32 lanes stay for the exit barrier
  } else {
    // The proxies (docs/pipeline.md, "Proxy fences"): TMA (async) writes
    // read by ldmatrix (generic) are released with the proxy fence; cp.async
    // (generic) writes read by wgmma (async) are fenced after each wait;
    // TMA writes read by wgmma, and cp.async's read by ldmatrix, need none.
    constexpr bool fence_reads = Load::tma && GemmGenericReads<Math>::value;
    constexpr bool fence_writes = !Load::tma && !GemmGenericReads<Math>::value;
    if constexpr (Load::producer_warps > 1)
      gemm_setmaxnreg<gemm_consumer_regs<T, gemm_min_blocks<T>(), Load::producer_warps * 32>(), true>();
    Math math(warp);
    ring.grant_credits();  // every stage starts empty: one credit each
    sched.each([&](const GemmUnit &u) {
      if constexpr (decltype(sched)::walks) math.zero();
      sb_ring_state last;
      gemm_consume_mma<T, S, Bounded, fence_reads, Math, Ring, fence_writes>(ring, st, last, math, smem,
                                                                              u.k1 - u.k0);
      gemm_consume_tail<T, S, Bounded>(ring, last, math, u.k1 - u.k0);
      const long long t0 = Bounded && Load::tma ? clock64() : 0;
      epi(p, math, u);
      if constexpr (Load::tma) gemm_prof_add<Bounded>(p, 0, t0);
    });
    epi.finish(math);
  }
  if constexpr (clustered) sb_cluster_sync();  // every thread of every CTA, before exit
}

// The body over one tile's k-tiles [kt0, kt1) (a block per tile, or a
// split-K slice), its origin found before it.
template <class V, class T, int S, bool Bounded, class Epi>
__device__ __forceinline__ void gemm_ws_tile(const GemmParams &p, uint32_t smem, int m0, int n0, int kt0, int kt1,
                                             int tile, Epi &&epi) {
  gemm_ws_body<V, T, S, Bounded>(
      p, smem, [] {}, [&] { return GemmOneUnit{{m0, n0, kt0, kt1, tile, 0u}}; }, epi);
}

// ---- epilogues ----
// epi(p, math, u): unit u's accumulators to C (or to a fix-up); finish():
// after the last unit.
struct GemmEpiBase {
  template <class Math>
  __device__ __forceinline__ void finish(Math &) const {}
};
struct GemmStoreEpi : GemmEpiBase {
  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, const GemmUnit &u) const {
    math.store(p, u.m0, u.n0);
  }
};

// ---- ws_tma_wgmma_multicast: a cluster of tiles shares its operands ----
//
// ws_tma_wgmma (gemm_ws_body with wgmma warpgroups) in clusters of CM x CN
// CTAs on adjacent tiles (gemm_cluster_tile: rank r holds tile row r % CM,
// tile column r / CM of the cluster). The CN CTAs of a tile row share its A
// tile and the CM CTAs of a tile column its B tile: 2x1 share B, 1x2 A, and
// 2x2 / 4x2 / 2x4 both. Per stage each CTA's producer loads its slice of
// each shared operand (A: BM / CN rows at slice r / CM; B: BN / CM rows at
// slice r % CM; whole 8-row swizzle atoms, the launcher's maps' boxes),
// multicast to the CTAs sharing it at the slice's offset of the operand's
// tile, and an unshared operand whole; so each stage of each CTA receives
// its whole A and B tiles: STAGE_BYTES, what its producer's expect_tx
// counts (a peer's slice may complete_tx before that expect_tx: the phase
// still waits for the producer's arrival). What the multicast adds
// (CUTLASS's PipelineTmaAsync with a cluster shape), over ws_tma_wgmma:
//  - `empty` of each CTA counts the consumer warps of the CTAs of its tile
//    row and tile column (each warp's release arrives on their empty, lane
//    r on rank r's: sb_cluster_ring for 2x1 / 1x2, where that is every
//    CTA, sb_cluster_ring_rc where both operands are shared): a stage is
//    refilled by the producers of its row and column, so none may refill it
//    before their consumers are done;
//  - each CTA inits its ring (ending in fence.mbarrier_init.release.cluster),
//    then a cluster barrier, before any remote arrive or multicast;
//  - a cluster barrier before exit, by every thread of every CTA (the
//    producer warp too): no CTA leaves while a peer may still arrive on
//    its barriers or multicast into its shared memory.
// The body: gemm_ws_body with GemmProduceTmaMulticast (below), run by
// GemmWsTmaWgmmaMulticastT (kernels/gemm/gemm.cu). Ring: sb_cluster_ring,
// or the broken build's ring without the remote arrive.
template <class T, int CM, int CN>
struct GemmMulticastBoxes {
  static constexpr int CTAS = CM * CN;
  static_assert(CTAS >= 2 && CTAS <= 8, "a portable cluster of 2 to 8 CTAs");
  // The box rows of the launcher's two maps (map_a, map_b): a slice of each
  // operand, the whole tile where it is not shared.
  static constexpr int BOX_A = T::BM / CN, BOX_B = T::BN / CM;
  static constexpr int A_SLICE_BYTES = BOX_A * T::BK * 2, B_SLICE_BYTES = BOX_B * T::BK * 2;
  static_assert(BOX_A % 8 == 0 && BOX_B % 8 == 0 && A_SLICE_BYTES % 1024 == 0 && B_SLICE_BYTES % 1024 == 0,
                "a slice is whole 8-row swizzle atoms at a 1024-B boundary");
  static_assert(CN * A_SLICE_BYTES + CM * B_SLICE_BYTES == T::STAGE_BYTES, "expect_tx: every slice of A and B");
  // The CTAs sharing this CTA's A (its tile row rm: ranks rm + CM j) and its
  // B (its tile column rn: ranks CM rn + i).
  __device__ __forceinline__ static uint16_t a_mask(uint32_t rm) {
    if constexpr (CM == 1) return (uint16_t)((1u << CN) - 1);
    uint32_t m = 0;
#pragma unroll
    for (int j = 0; j < CN; ++j) m |= 1u << (CM * j);
    return (uint16_t)(m << rm);
  }
  __device__ __forceinline__ static uint16_t b_mask(uint32_t rn) {
    if constexpr (CN == 1) return (uint16_t)((1u << CM) - 1);
    return (uint16_t)(((1u << CM) - 1) << (CM * rn));
  }
};

// One cluster tile's kts stages, from ring state st on (a persistent
// producer carries st from tile to tile; the caller ends with producer_tail).
template <class T, int S, bool Bounded, int CM, int CN, class Ring>
__device__ __forceinline__ void gemm_tma_produce_multicast(const GemmParams &p, const Ring &ring, sb_ring_state &st,
                                                           uint32_t smem, int m0, int n0, uint32_t rank, int kts) {
  using X = GemmMulticastBoxes<T, CM, CN>;
  // this CTA's tile row rm (its slice of B) and tile column rn (its slice of A)
  const uint32_t rm = CN == 1 ? rank : rank % CM, rn = CM == 1 ? rank : rank / CM;
  const uint16_t a_mask = X::a_mask(rm), b_mask = X::b_mask(rn);
  for (int kt = 0; kt < kts; ++kt) {
    ring.acquire(st);  // every CTA's consumers released this stage
    const uint32_t stage = smem + st.index * T::STAGE_BYTES, bar = ring.full_bar(st.index);
    ring.commit_tx(st, (uint32_t)T::STAGE_BYTES);  // what lands in THIS CTA: every slice of A and B
    if constexpr (CN == 1)  // A unshared: my A box
      gemm_tma_load_2d(stage, &p.map_a, kt * T::BK, m0, bar);
    else  // A shared by my tile row: slice rn (rows m0 + rn BM/CN) to each of them
      gemm_tma_load_2d_multicast(stage + rn * X::A_SLICE_BYTES, &p.map_a, kt * T::BK, m0 + (int)rn * X::BOX_A,
                                 bar, a_mask);
    if constexpr (CM == 1)  // B unshared: my B box
      gemm_tma_load_2d(stage + T::A_BYTES, &p.map_b, kt * T::BK, n0, bar);
    else  // B shared by my tile column: slice rm (rows n0 + rm BN/CM) to each of them
      gemm_tma_load_2d_multicast(stage + T::A_BYTES + rm * X::B_SLICE_BYTES, &p.map_b, kt * T::BK,
                                 n0 + (int)rm * X::BOX_B, bar, b_mask);
    st.template advance<S>();
  }
}

// Multicast (clusters of CM x CN CTAs): one elected thread per CTA, its
// slice of each shared operand to the CTAs sharing it and an unshared one
// whole (gemm_tma_produce_multicast); the ring releases each stage on every
// CTA's `empty`.
template <int CM, int CN>
struct GemmProduceTmaMulticast {
  static constexpr int FULL_ARRIVALS = 1;
  static constexpr bool elected = true;
  template <int S, bool Bounded>
  using Ring = std::conditional_t<(CM > 1 && CN > 1), sb_cluster_ring_rc<S, Bounded, CM, CN>,
                                  sb_cluster_ring<S, Bounded, CM * CN>>;
  template <class T, int S, bool Bounded, class R>
  __device__ __forceinline__ static void produce(const GemmParams &p, const R &ring, sb_ring_state &st,
                                                 uint32_t smem, const GemmUnit &u) {
    gemm_tma_produce_multicast<T, S, Bounded, CM, CN>(p, ring, st, smem, u.m0, u.n0, u.rank, u.k1 - u.k0);
  }
};

#endif  // SB_KERNELS_GEMM_MAINLOOP_CUH
