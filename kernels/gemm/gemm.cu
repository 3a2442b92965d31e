// GEMM family: C = A * B, fp16 inputs, fp32 accumulation and output.
// A is M x K row-major, B is K x N column-major (N rows of K: every column
// contiguous), C is M x N row-major fp32, N = M. Host side: bench/gemm.c;
// tiles and layout shared with it: gemm_tiles.h; docs/gemm.md.
//
// This file holds the variants (each one's synchronization), the kernel,
// the pickers and the launcher. A variant is a composition (gemm_compose.cuh:
// mainloop, consumer, schedule, epilogue), stated once in its struct's
// base: what it compiles (its tiles and stages), its grid and workspace
// (the schedule's host side, GemmScheduleHost), its table flags and its
// CSV columns follow from it. The pieces they share, in the manner of
// CUTLASS's collective / kernel / scheduler split: gemm_params.cuh (the
// parameter struct, tile shape, swizzle), gemm_mainloop.cuh (stage copies,
// the warp-specialized ring's loops, the producers, gemm_ws_body: the one
// warp-specialized body), gemm_consumers.cuh (mma.sync warps, wgmma warpgroups),
// gemm_schedulers.cuh (tile order, split-K slices, stream-K's units, the
// launch numbering), gemm_fixups.cuh (combining partial tiles across
// blocks, the separate reduction kernel).
//
// Every variant computes the same block tile (BM x BN, K in steps of
// BK = 64) from the same shared-memory layout with the same math, and
// differs only in how the K loop is staged and synchronized:
//   single        1 buffer per operand: cp.async, wait, __syncthreads,
//                 compute, __syncthreads. No overlap.
//   swap          2 buffers (index kt & 1, next ^ 1): per k-tile one
//                 cp.async.wait_group 0 + one __syncthreads, then prefetch
//                 k-tile kt+1 into the other buffer while computing kt.
//   ring          S buffers: S-1 k-tiles in flight; per k-tile one
//                 cp.async.wait_group<S-2> + one __syncthreads.
//   ws_mbarrier   consumer warps + 1 producer warp on an sb_ring (full /
//                 empty mbarriers, S deep): the producer's lanes cp.async a
//                 stage and cp.async.mbarrier.arrive.noinc on `full` (32
//                 arrivals); consumers wait `full`, compute, arrive `empty`.
//   ws_tma        the producer is one elected thread: arrive.expect_tx of
//                 the stage's bytes on `full`, then two 2D TMA copies (A and
//                 B tiles, 128-byte swizzle) that complete_tx on it. sm_90.
//   ws_tma_wgmma  ws_tma with warpgroup consumers: wgmma.mma_async
//                 m64nBNk16 from shared memory (both operands), fence /
//                 commit_group, then wait_group 1: one batch stays in
//                 flight and the PREVIOUS stage is released (CUTLASS's
//                 K_PIPE_MMAS = 1). sm_90a.
//   ws_tma_wgmma_pingpong  persistent; two consumer warpgroups on
//                 alternate 128x128 tiles, taking turns on the tensor cores
//                 and in the epilogue (ordered named barriers).
//   cublas        cublasGemmEx on the same buffers: the ceiling.
//
// The shared-memory layout (every variant): a stage is the A tile (BM rows
// of 64 fp16 = 128 B) then the B tile (BN rows of 64 fp16), each row's 16-B
// chunk c stored at chunk c ^ (row & 7): the 128-byte swizzle that TMA's
// CU_TENSOR_MAP_SWIZZLE_128B writes and wgmma's 128B-swizzle descriptor
// reads, given 1024-B aligned stages; ldmatrix reads 8 rows of one logical
// chunk, which land in 8 different chunks: no bank conflicts.
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/cp_async.cuh"
#include "gemm_tiles.h"
#include "../common/launch.cuh"
#include "../common/ring.cuh"
#include "../common/tensor_map.cuh"

#include "gemm_compose.cuh"     // a variant's four parts: mainloop, consumer, schedule, epilogue
#include "gemm_consumers.cuh"   // what a consumer computes: mma.sync warps, wgmma warpgroups
#include "gemm_mainloop.cuh"    // stage copies, the ws ring's loops, the producers, gemm_ws_body
#include "gemm_params.cuh"      // GemmParams, GemmTile, the swizzle, the epilogue profile
#include "gemm_schedulers.cuh"  // tile order, split-K slices, stream-K units, launch numbering
#include "gemm_fixups.cuh"      // combining partial tiles across blocks, the separate reduction

// ---- the variants: how the K loop is staged and synchronized ----

template <bool WholeTiles = false>
struct GemmSingleT : GemmComposition<GemmCpAsyncOneBuffer, GemmMmaSyncWarps, GemmScheduleDataParallel, GemmDirectStores> {
  using WholeTilesForm = GemmSingleT<true>;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    GemmWarpMma<T> mma(threadIdx.x >> 5);
    const uint16_t *a_blk = p.a + (size_t)m0 * p.k, *b_blk = p.b + (size_t)n0 * p.k;
    const int tiles = WholeTiles ? p.k / T::BK : gemm_k_tiles<T>(p);
    const bool edge = !WholeTiles && gemm_edge_tile<T>(p, m0, n0);  // a partial tile: the predicated copy
    for (int kt = 0; kt < tiles; ++kt) {
      if constexpr (WholeTiles)
        gemm_load_stage<T, T::WARPS * 32>(smem, a_blk, b_blk, p.k, kt * T::BK, threadIdx.x);
      else
        gemm_load_stage<T, T::WARPS * 32>(smem, a_blk, b_blk, p, edge, m0, n0, kt * T::BK, threadIdx.x);
      sb_cp_async_commit();
      sb_cp_async_wait_group<0>();
      __syncthreads();  // every thread's copies are in: the tile is complete (RAW)
      mma.stage(smem);
      __syncthreads();  // every warp has read it before the next copy overwrites it (WAR)
    }
    mma.template store<WholeTiles>(p, m0, n0);
  }
};
using GemmSingle = GemmSingleT<>;

template <bool WholeTiles = false>
struct GemmSwapT : GemmComposition<GemmCpAsyncTwoBuffers, GemmMmaSyncWarps, GemmScheduleDataParallel, GemmDirectStores> {
  using WholeTilesForm = GemmSwapT<true>;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    GemmWarpMma<T> mma(threadIdx.x >> 5);
    const uint16_t *a_blk = p.a + (size_t)m0 * p.k, *b_blk = p.b + (size_t)n0 * p.k;
    const int tiles = WholeTiles ? p.k / T::BK : gemm_k_tiles<T>(p);
    const bool edge = !WholeTiles && gemm_edge_tile<T>(p, m0, n0);  // a partial tile: the predicated copy
    // Prologue: k-tile 0 into buffer 0.
    if constexpr (WholeTiles)
      gemm_load_stage<T, T::WARPS * 32>(smem, a_blk, b_blk, p.k, 0, threadIdx.x);
    else
      gemm_load_stage<T, T::WARPS * 32>(smem, a_blk, b_blk, p, edge, m0, n0, 0, threadIdx.x);
    sb_cp_async_commit();
    int buf = 0;
    for (int kt = 0; kt < tiles; ++kt) {
      sb_cp_async_wait_group<0>();  // my copies of k-tile kt (the only group in flight) landed
      // One barrier, two jobs: everyone's copies of kt are visible (RAW),
      // and everyone finished computing kt - 1 from buffer buf ^ 1 (WAR).
      __syncthreads();
      if (kt + 1 < tiles) {  // steady state: prefetch kt + 1; the epilogue tile has none
        if constexpr (WholeTiles)
          gemm_load_stage<T, T::WARPS * 32>(smem + (buf ^ 1) * T::STAGE_BYTES, a_blk, b_blk, p.k, (kt + 1) * T::BK,
                                            threadIdx.x);
        else
          gemm_load_stage<T, T::WARPS * 32>(smem + (buf ^ 1) * T::STAGE_BYTES, a_blk, b_blk, p, edge, m0, n0,
                                            (kt + 1) * T::BK, threadIdx.x);
        sb_cp_async_commit();
      }
      mma.stage(smem + buf * T::STAGE_BYTES);
      buf ^= 1;
    }
    mma.template store<WholeTiles>(p, m0, n0);
  }
};
using GemmSwap = GemmSwapT<>;

template <bool WholeTiles = false>
struct GemmRingT : GemmComposition<GemmCpAsyncRing, GemmMmaSyncWarps, GemmScheduleDataParallel, GemmDirectStores> {
  using WholeTilesForm = GemmRingT<true>;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    static_assert(S >= 2, "a ring has at least two stages");
    GemmWarpMma<T> mma(threadIdx.x >> 5);
    const uint16_t *a_blk = p.a + (size_t)m0 * p.k, *b_blk = p.b + (size_t)n0 * p.k;
    const int tiles = WholeTiles ? p.k / T::BK : gemm_k_tiles<T>(p);
    const bool edge = !WholeTiles && gemm_edge_tile<T>(p, m0, n0);  // a partial tile: the predicated copy
    // Prologue: k-tiles 0..S-2 into stages 0..S-2, one commit group each
    // (empty groups past the last k-tile keep the count uniform).
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
      if (s < tiles)
        if constexpr (WholeTiles)
          gemm_load_stage<T, T::WARPS * 32>(smem + s * T::STAGE_BYTES, a_blk, b_blk, p.k, s * T::BK, threadIdx.x);
        else
          gemm_load_stage<T, T::WARPS * 32>(smem + s * T::STAGE_BYTES, a_blk, b_blk, p, edge, m0, n0, s * T::BK,
                                            threadIdx.x);
      sb_cp_async_commit();
    }
    int read = 0, write = S - 1;  // stage of k-tile kt, stage of k-tile kt + S - 1
    for (int kt = 0; kt < tiles; ++kt) {
      // S - 1 + kt groups committed, group kt holds k-tile kt: at most S - 2
      // newer ones may still be in flight.
      sb_cp_async_wait_group<S - 2>();
      // Everyone's copies of kt are visible (RAW), and everyone finished
      // computing kt - 1 from stage `write` (WAR).
      __syncthreads();
      if (kt + S - 1 < tiles)
        if constexpr (WholeTiles)
          gemm_load_stage<T, T::WARPS * 32>(smem + write * T::STAGE_BYTES, a_blk, b_blk, p.k, (kt + S - 1) * T::BK,
                                            threadIdx.x);
        else
          gemm_load_stage<T, T::WARPS * 32>(smem + write * T::STAGE_BYTES, a_blk, b_blk, p, edge, m0, n0,
                                            (kt + S - 1) * T::BK, threadIdx.x);
      sb_cp_async_commit();
      mma.stage(smem + read * T::STAGE_BYTES);
      read = read + 1 == S ? 0 : read + 1;
      write = write + 1 == S ? 0 : write + 1;
    }
    mma.template store<WholeTiles>(p, m0, n0);
  }
};
using GemmRing = GemmRingT<>;

// ---- the warp-specialized variants: one body (gemm_mainloop.cuh, gemm_ws_body) ----
// Each names its composition and, in run, the unit(s) and the epilogue it
// hands the body; the ring, the producer and the consumers are the body's.

// ws_mbarrier: the producer warp's 32 lanes cp.async a stage and
// arrive.noinc on `full` (GemmProduceCpAsync); mma.sync consumer warps.
struct GemmWsMbarrier
    : GemmComposition<GemmCpAsyncProducer, GemmMmaSyncWarps, GemmScheduleDataParallel, GemmDirectStores> {
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    gemm_ws_tile<GemmWsMbarrier, T, S, Bounded>(p, smem, m0, n0, 0, gemm_k_tiles<T>(p), 0, GemmStoreEpi{});
  }
};

#ifdef SB_EXPERIMENTAL
// ws_cp_async_wg_wgmma: a producer warpgroup's 128 threads cp.async a stage
// (16-B copies into the 128B-swizzled layout, arrive.noinc on `full`: 128
// arrivals) feeding ws_tma_wgmma's consumer warpgroups, which fence
// (fence.proxy.async.shared::cta) after each wait on `full`: generic
// writes, async-proxy reads. Where K x 2 B is not a multiple of 32 (K =
// 1000) a TMA box pays for the rows that start inside a sector; 16-B
// copies do not. One producer warp starved the consumers (docs/history.md,
// "gemm at K = 1000"); a warpgroup issues a quarter of the copies each, and
// hands registers to the consumers (setmaxnreg: 40 and 216 at two blocks an
// SM, gemm_consumer_regs), so it keeps its siblings' blocks per SM unspilled.
struct GemmWsCpAsyncWgWgmma
    : GemmComposition<GemmCpAsyncWarpgroup, GemmWgmmaWarpgroups, GemmScheduleDataParallel, GemmDirectStores> {
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    gemm_ws_tile<GemmWsCpAsyncWgWgmma, T, S, Bounded>(p, smem, m0, n0, 0, gemm_k_tiles<T>(p), 0, GemmStoreEpi{});
  }
};
#endif

// ws_tma: the elected TMA producer (GemmProduceTma), mma.sync consumer warps.
struct GemmWsTma : GemmComposition<GemmTmaLoads, GemmMmaSyncWarps, GemmScheduleDataParallel, GemmDirectStores> {
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    gemm_ws_tile<GemmWsTma, T, S, Bounded>(p, smem, m0, n0, 0, gemm_k_tiles<T>(p), 0, GemmStoreEpi{});
  }
};

// ws_tma_wgmma: the elected TMA producer, wgmma consumer warpgroups.
struct GemmWsTmaWgmma
    : GemmComposition<GemmTmaLoads, GemmWgmmaWarpgroups, GemmScheduleDataParallel, GemmDirectStores> {
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    gemm_ws_tile<GemmWsTmaWgmma, T, S, Bounded>(p, smem, m0, n0, 0, gemm_k_tiles<T>(p), 0, GemmStoreEpi{});
  }
};

// ws_tma_wgmma_tma_store: ws_tma_wgmma whose epilogue stores C through the
// async proxy (GemmWarpgroupMma::store_tma: staged 16x32 pieces after the
// stages, cp.async.bulk.tensor stores, bulk_group waits), as the persistent
// multicast and ping-pong kernels' TMA-store forms do; one tile per block,
// so the stores drain while the block exits instead of overlapping the
// next tile's MMA.
struct GemmTmaStoreEpi : GemmEpiBase {
  uint32_t staging;
  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, const GemmUnit &u) const {
    unsigned piece = 0;
    math.store_tma(p, u.m0, u.n0, staging, piece);
    math.store_tma_drain();
  }
};
// The persistent multicast TMA-store form's: the staging buffers' pieces
// counted across tiles (each warp's buffer is piece & 1), every store
// drained after the last tile.
struct GemmTmaStoreWalkEpi : GemmEpiBase {
  uint32_t staging;
  unsigned piece = 0;  // this warp's staged pieces so far
  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, const GemmUnit &u) {
    math.store_tma(p, u.m0, u.n0, staging, piece);
  }
  template <class Math>
  __device__ __forceinline__ void finish(Math &math) const {
    math.store_tma_drain();
  }
};
struct GemmWsTmaWgmmaTmaStore
    : GemmComposition<GemmTmaLoads, GemmWgmmaWarpgroups, GemmScheduleDataParallel, GemmTmaStores> {
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    gemm_ws_tile<GemmWsTmaWgmmaTmaStore, T, S, Bounded>(p, smem, m0, n0, 0, gemm_k_tiles<T>(p), 0,
                                                        GemmTmaStoreEpi{{}, smem + (uint32_t)(S * T::STAGE_BYTES)});
  }
};

// Split-K: ws_tma_wgmma over the block's K slice, then the fix-up epilogue
// (gemm_fixups.cuh): serial, in slice order behind the tile's
// semaphore; parallel, partials to the workspace and the last slice reduces.
// Serial's whole-tiles form (WholeTiles, WholeTilesForm: gemm_kernels
// takes it for a point whose every tile is whole): the same kernel with no
// edge-tile code in its fix-up's read-add-write and stores, which otherwise
// cost the whole tiles' loads their schedule (GemmWarpgroupMma::store). The
// TMA mainloop has no edge code to drop (the box's out-of-bounds fill).
template <bool Release, bool WholeTiles = false>
struct GemmSplitKSerialT
    : GemmComposition<GemmTmaLoads, GemmWgmmaWarpgroups, GemmScheduleSplitK<GEMM_COMBINE_SERIAL>, GemmDirectStores> {
  using WholeTilesForm = GemmSplitKSerialT<Release, true>;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    // The tile from blockIdx.x, the slice from the tile's ticket: a slice
    // waits only on a block that took the tile's ticket before it
    // (gemm_slice_ticket).
    int tile, slice, kt0, kt1;
    gemm_slice_ticket<T>(p, &tile, &slice, &kt0, &kt1);
    gemm_tile_origin<T>(p, tile, &m0, &n0);
    gemm_ws_tile<GemmSplitKSerialT, T, S, Bounded>(p, smem, m0, n0, kt0, kt1, tile,
                                                   GemmSerialEpi<T, Bounded, Release, WholeTiles>{{}, slice, tile});
  }
};
using GemmSplitKSerial = GemmSplitKSerialT<true>;

struct GemmSplitKParallel
    : GemmComposition<GemmTmaLoads, GemmWgmmaWarpgroups, GemmScheduleSplitK<GEMM_COMBINE_PARALLEL>, GemmDirectStores> {
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    int slice, kt0, kt1;
    gemm_slice_range<T>(p, &slice, &kt0, &kt1);
    gemm_ws_tile<GemmSplitKParallel, T, S, Bounded>(p, smem, m0, n0, kt0, kt1, 0, GemmParallelEpi<T>{{}, slice});
  }
};

// Split-K with a separate reduction (cuBLASLt's
// CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE): every slice saves its fp32
// partial and is done (no counter, no wait, no memset); a second kernel, a
// PDL secondary, sums the slices (gemm_reduce_partials). Thread 0 lets it
// be scheduled at once: its griddepcontrol.wait, not the trigger, orders it
// after every slice.
// DropLast: the SB_BROKEN build's planted bug (its reduction leaves out a slice).
template <bool DropLast>
struct GemmSplitKReduceT : GemmComposition<GemmTmaLoads, GemmWgmmaWarpgroups,
                                           GemmScheduleSplitK<GEMM_COMBINE_REDUCE, DropLast>, GemmDirectStores> {
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    if (threadIdx.x == 0) sb_pdl_launch_dependents();
    int slice, kt0, kt1;
    gemm_slice_range<T>(p, &slice, &kt0, &kt1);
    gemm_ws_tile<GemmSplitKReduceT, T, S, Bounded>(p, smem, m0, n0, kt0, kt1, 0, GemmSaveEpi<T>{{}, slice});
  }
};

using GemmSplitKReduce = GemmSplitKReduceT<false>;

// Split-K on a cooperative grid (gemm_fixups.cuh, GemmCoopEpi): every
// slice of a tile waits for the others, then sums its piece of the tile.
// Arrive: false in the broken build's planted bug (GemmCoopEpi).
template <bool Arrive>
struct GemmSplitKCoopT : GemmComposition<GemmTmaLoads, GemmWgmmaWarpgroups,
                                         GemmScheduleSplitK<GEMM_COMBINE_COOPERATIVE>, GemmDirectStores> {
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    int slice, kt0, kt1;
    gemm_slice_range<T>(p, &slice, &kt0, &kt1);
    const int tile = (int)blockIdx.x % gemm_tile_count<T>(p);
    gemm_ws_tile<GemmSplitKCoopT, T, S, Bounded>(p, smem, m0, n0, kt0, kt1, tile,
                                                 GemmCoopEpi<T, Bounded, Arrive>{{}, slice, tile});
  }
};

using GemmSplitKCoop = GemmSplitKCoopT<true>;

// Split-K in clusters (gemm_fixups.cuh, GemmClusterEpi): the C slices
// of a cluster sum their partials through distributed shared memory, each
// CTA a C-th of the tile; G = splits / C clusters a tile meet in the
// workspace, the last of them (per piece) storing C. Cluster q, rank r:
// tile q % tiles, slice (q / tiles) C + r (1-D clusters of consecutive
// blocks: q = blockIdx.x / C). No block waits on another cluster.
// Reset: false in the broken build's planted bug (GemmClusterEpi). Its
// whole-tiles form (WholeTilesForm, as serial's) stores C unpredicated: the
// edge tests of the composed epilogue's stores doubled the timed kernel's
// branches against 7842bb7's (193 to 376 at 128x128; scripts/sass_diff.py).
template <bool Reset, bool WholeTiles = false>
struct GemmSplitKClusterT
    : GemmComposition<GemmTmaLoads, GemmWgmmaWarpgroups, GemmScheduleSplitK<GEMM_COMBINE_CLUSTER>, GemmDirectStores> {
  using WholeTilesForm = GemmSplitKClusterT<Reset, true>;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int m0, int n0) {
    static_assert(S * T::STAGE_BYTES >= T::BM * T::BN * 4, "the fp32 partial fits in the stages");
    const int ctas = (int)sb_cluster_size(), tiles = gemm_tile_count<T>(p), kts = gemm_k_tiles<T>(p);
    const int q = (int)blockIdx.x / ctas, tile = q % tiles, group = q / tiles;
    const int slice = group * ctas + (int)sb_cluster_rank();
    gemm_tile_origin<T>(p, tile, &m0, &n0);
    gemm_ws_tile<GemmSplitKClusterT, T, S, Bounded>(
        p, smem, m0, n0, sb_gemm_slice_begin(kts, p.splits, slice), sb_gemm_slice_begin(kts, p.splits, slice + 1), tile,
        GemmClusterEpi<T, Reset, WholeTiles>{{}, smem, tile, group, p.splits / ctas});
  }
};
using GemmSplitKCluster = GemmSplitKClusterT<true>;

// The separate reduction kernel of splitk_reduce and of streamk when many
// blocks feed a tile (p.sk_reduce): gemm_fixups.cuh.
template <class T, bool StreamK, bool DropLast = false, bool Grouped = false, bool Narrow = false>
__global__ void __launch_bounds__(SB_GEMM_REDUCE_THREADS, Narrow ? gemm_reduce_narrow_blocks : 0)
    gemm_reduce_kernel(const __grid_constant__ GemmParams p) {
  gemm_reduce_partials<T, StreamK, DropLast, Grouped, Narrow>(p);
}

// Stream-K (the schedule: gemm_schedulers.cuh; the fix-up: gemm_fixups.cuh): one ring over
// every work unit of the block; per unit the consumers zero, run its
// k-tiles, then store, publish a partial or fix the tile up. Its
// whole-tiles form: no edge form of the store beside the whole one.
template <bool WholeTiles = false>
struct GemmStreamKT : GemmComposition<GemmTmaLoads, GemmWgmmaWarpgroups, GemmScheduleStreamK, GemmDirectStores> {
  using WholeTilesForm = GemmStreamKT<true>;
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int, int) {
    // Block b (gemm_sk_block: finishers wait only on blocks that took their
    // ticket before them), taken under the barrier that publishes the ring's init.
    __shared__ unsigned ticket;
    GemmStreamKEpi<T, Bounded, WholeTiles> epi;
    gemm_ws_body<GemmStreamKT, T, S, Bounded>(
        p, smem,
        [&] {
          ticket = gemm_sk_block(p, gemm_tile_count<T>(p));
          if (p.sk_reduce) sb_pdl_launch_dependents();  // the separate reduction may be scheduled
        },
        [&] { return GemmStreamKUnits<T>::make(p, (int)ticket, &epi.kts, &epi.sk_iters, &epi.sk_grid, &epi.b); },
        epi);
  }
};
using GemmStreamK = GemmStreamKT<>;

// Ping-pong (CUTLASS's KernelTmaWarpSpecializedPingpong), the consumer
// kind with a body of its own: a persistent block of one producer warp
// (the composition's mainloop: the elected TMA thread, or multicast, one
// ring) and TWO consumer warpgroups that work on alternate output tiles:
// the block's tiles are the persistent schedule's walk (GemmClusterUnits:
// tiles b, b + grid, ... in the grouped order; with clusters, cluster
// tiles), j = 0, 1, ..., warpgroup g takes j = g, g + 2, ..., and the
// producer fills the stages in j order, which is the order the consumers
// take them; each tile's accumulators go to the composition's epilogue.
// Design, as CUTLASS's: the tile shape is per consumer warpgroup, so each
// warpgroup computes a WHOLE BM x BN tile (MSUB = 2 m64 slices of 128 x
// 128: 128 fp32 accumulators per thread, ws_tma_wgmma's count), not half
// of a shared one (that is the cooperative scheme, which ws_tma_wgmma's
// 128 x 256 tile already is). The 128 x 256 tile would take 256
// accumulators per thread, so the variant is compiled for 128 x 128 only
// (consumer_warps = 8: two warpgroups of 4).
// The ordering: GemmOrderedSequence<2> (gemm_schedulers.cuh), sections
// 0 = MMA issue and 1 = epilogue: warpgroup 0 issues its tile's wgmma
// batches, hands the tensor cores on, drains its last batch (wait_group 0,
// last release) and stores while warpgroup 1 issues, and so on. The order
// barrier also keeps the parity waits exact: a warpgroup skips the other's
// stages (gemm_ring_skip) and waits on `full` only after the other has
// waited on every stage of the tile before, so it is never more than one
// phase ahead of a barrier.
// What differs from ws_tma_wgmma (128 x 128) besides the synchronization:
// a persistent grid (SMs x 1, capped at the tile count: a block with one
// tile leaves warpgroup 1 idle) instead of a block per tile; one block per
// SM of 288 threads (__launch_bounds__(288, 1), up to 224 registers per
// thread) sharing one ring, instead of two 160-thread blocks per SM with a
// ring each; `empty` counts one warpgroup (128), not every consumer.
// Shared memory per SM is comparable at equal total stages (ping-pong S
// stages against 2 x S/2). No setmaxnreg and a producer warp, not
// CUTLASS's producer warpgroup: ws_tma_wgmma's producer, unchanged.
// TmaStore (ws_tma_wgmma_pingpong_tma_store): the epilogue section stores
// through the async proxy (GemmWarpgroupMma::store_tma, staging after the
// stages, two buffers per consumer warp of both warpgroups), so a
// warpgroup's turn in it ends once its pieces are staged and handed to TMA.
// Multicast (CM x CN = 2x1 or 1x2: ws_tma_wgmma_pingpong_multicast_tma_store,
// CUTLASS's ping-pong kernel with a cluster shape): the persistent grid in
// clusters of 2 CTAs that walk adjacent tiles in step (cluster tiles c,
// c + clusters, ..., gemm_cluster_tile), so warpgroup g of both CTAs holds
// the same stages; each producer multicasts half of the shared box to both
// (gemm_tma_produce_multicast, ws_tma_wgmma_multicast's boxes and byte
// count) and each consumer warp releases a stage on both CTAs' empty
// (sb_cluster_ring: `empty` counts the consuming warpgroup's warps of both
// CTAs). As ws_tma_wgmma_multicast: each CTA inits its ring, then a
// cluster barrier before any remote arrive or multicast, and a cluster
// barrier by every thread of both CTAs before exit.
template <bool TmaStore = false, int CM = 1, int CN = 1>
struct GemmWsTmaWgmmaPingpongT
    : GemmComposition<std::conditional_t<(CM * CN > 1), GemmTmaMulticast<CM, CN>, GemmTmaLoads>, GemmWgmmaPingpong,
                      GemmSchedulePersistent, std::conditional_t<TmaStore, GemmTmaStores, GemmDirectStores>> {
  static constexpr bool clustered = CM * CN > 1;
  static constexpr int groups = GemmWgmmaPingpong::groups;  // consumer warpgroups, a tile each
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int, int) {
    static_assert(T::WARPS == 4, "a consumer warpgroup owns a whole tile: 128 x 128 only");
    using Load = typename GemmWsTmaWgmmaPingpongT::Mainloop;  // TMA, or TMA multicast in clusters
    using R = typename Load::template Ring<S, Bounded>;
    __shared__ GemmRingBars<T, S> bars;
    // full: the producer's arrive.expect_tx; empty: the warpgroup that read
    // the stage (its threads; clustered: its warps, of both CTAs).
    if (threadIdx.x == 0) R::init(bars.full, bars.empty, 1, clustered ? T::WARPS * R::CONSUMER_CTAS : T::WARPS * 32);
    if constexpr (clustered)
      sb_cluster_sync();  // both CTAs' inits visible cluster-wide (and block-wide) before any remote use
    else
      __syncthreads();  // the inits are visible; no block barrier after this
    const R ring(bars.full, bars.empty);
    // This block's tiles in order (the persistent schedule's walk): j = 0 ..
    // mine - 1 (clustered: the cluster's, this CTA's half of each, cluster
    // tiles c, c + clusters, ...).
    const auto sched = GemmClusterUnits<T, CM, CN, true>::make(p);
    const int kts = sched.kts, mine = sched.count();
    if (threadIdx.x >> 5 == groups * T::WARPS) {  // the producer: one elected thread, tiles in j order
      if (threadIdx.x == groups * T::WARPS * 32) {
        sb_ring_state st;
        for (int j = 0; j < mine; ++j) Load::template produce<T, S, Bounded>(p, ring, st, smem, sched.at(j));
        ring.producer_tail(st);  // clustered: both CTAs' consumers released every stage I filled
      }
      if constexpr (clustered) {
        __syncwarp();
        sb_cluster_sync();  // every thread of both CTAs, the producer warp's too
      }
      return;
    }
    const int g = threadIdx.x >> 7;  // consumer warpgroup 0 or 1
    GemmWarpgroupMma<T> math((threadIdx.x >> 5) & 3);  // rows of the whole tile: warpgroup-local index 0
    if (g == 0) ring.grant_credits();  // the bootstrap credit: one warpgroup's arrivals per stage
    const GemmOrderedSequence<2, 2> order{g};
    sb_ring_state st;
    if (g == 1) gemm_ring_skip<S>(st, kts);  // tile 0's stages are warpgroup 0's
    // TmaStore: the staging's pieces counted across tiles, drained after the last
    std::conditional_t<TmaStore, GemmTmaStoreWalkEpi, GemmStoreEpi> epi{};
    if constexpr (TmaStore) epi.staging = smem + S * T::STAGE_BYTES;
    for (int j = g; j < mine; j += groups) {
      const GemmUnit u = sched.at(j);
      math.zero();
      sb_ring_state last;
      order.wait(0, j);  // my turn on the tensor cores
      gemm_consume_mma<T, S, Bounded>(ring, st, last, math, smem, kts);
      order.arrive(0, j + 1 < mine);  // every batch issued: the other warpgroup's turn
      gemm_consume_tail<T, S, Bounded>(ring, last, math, kts);
      order.wait(1, j);
      const long long t0 = Bounded ? clock64() : 0;
      epi(p, math, u);
      gemm_prof_add<Bounded>(p, 0, t0);  // thread 0: warpgroup 0's epilogues
      order.arrive(1, j + 1 < mine);
      gemm_ring_skip<S>(st, kts);  // tile j + 1's stages are the other warpgroup's
    }
    epi.finish(math);
    if constexpr (clustered) sb_cluster_sync();  // no CTA leaves while its peer may still use its smem
  }
};

using GemmWsTmaWgmmaPingpong = GemmWsTmaWgmmaPingpongT<false>;
using GemmWsTmaWgmmaPingpongTmaStore = GemmWsTmaWgmmaPingpongT<true>;
template <int CM, int CN>
using GemmWsTmaWgmmaPingpongMulticastTmaStore = GemmWsTmaWgmmaPingpongT<true, CM, CN>;

// ws_tma_wgmma_multicast: ws_tma_wgmma in clusters of CM x CN CTAs on
// adjacent tiles that share operands (2x1: B; 1x2: A; 2x2, 4x2, 2x4 at the
// 64x128 tile: both), each CTA's producer multicasting its slice of a
// shared box to the CTAs sharing it (CUTLASS's PipelineTmaAsync with a
// cluster shape). The boxes, the byte count and
// the rules: gemm_mainloop.cuh (GemmMulticastBoxes); the tile order:
// gemm_schedulers.cuh (gemm_cluster_tile: the grouped order at cluster
// granularity); the cross-CTA release: ring.cuh (sb_cluster_ring).
// Everything else is ws_tma_wgmma's: the tile, the stages, one wgmma batch
// in flight (gemm_consume_mma: the release of the previous stage, now on
// both CTAs' empty), the epilogue, the occupancy.
// Persistent (ws_tma_wgmma_multicast_persistent, the configuration cuBLAS
// runs at 4096^3 on an H100: results/h100-80gb-hbm3/proofs/round_075319f):
// one cluster per pair of SMs that fit at once, cluster c taking cluster
// tiles c, c + clusters, ...; both CTAs walk the same tiles, so they stay
// in step on each other's empty barriers. The ring's state runs on across
// tiles (parity tracked, no re-init), and the producer fills the next
// tile's stages while the consumers store the last one.
template <int CM, int CN, template <int, bool, int> class Ring = sb_cluster_ring, bool Persistent = false,
          bool TmaStore = false>
struct GemmWsTmaWgmmaMulticastT
    : GemmComposition<GemmTmaMulticast<CM, CN>, GemmWgmmaWarpgroups,
                      std::conditional_t<Persistent, GemmSchedulePersistent, GemmScheduleDataParallel>,
                      std::conditional_t<TmaStore, GemmTmaStores, GemmDirectStores>> {
  template <class T, int S, bool Bounded>
  __device__ static void run(const GemmParams &p, uint32_t smem, int, int) {
    // full: my producer's arrive.expect_tx (+ the bytes of every slice);
    // empty: one arrival per consumer warp of every CTA of my tile row and
    // column (Ring: sb_cluster_ring, or the broken build's; both operands
    // shared: sb_cluster_ring_rc).
    std::conditional_t<TmaStore, GemmTmaStoreWalkEpi, GemmStoreEpi> epi{};
    if constexpr (TmaStore) epi.staging = smem + S * T::STAGE_BYTES;
    // both operands shared: the release goes to the tile row and column only
    using R = std::conditional_t<(CM > 1 && CN > 1), sb_cluster_ring_rc<S, Bounded, CM, CN>, Ring<S, Bounded, CM * CN>>;
    gemm_ws_body<GemmWsTmaWgmmaMulticastT, T, S, Bounded, R>(
        p, smem, [] {}, [&] { return GemmClusterUnits<T, CM, CN, Persistent>::make(p); }, epi);
  }
};
template <int CM, int CN>
using GemmWsTmaWgmmaMulticast = GemmWsTmaWgmmaMulticastT<CM, CN>;
template <int CM, int CN>
using GemmWsTmaWgmmaMulticastPersistent = GemmWsTmaWgmmaMulticastT<CM, CN, sb_cluster_ring, true>;
template <int CM, int CN>
using GemmWsTmaWgmmaMulticastPersistentTmaStore = GemmWsTmaWgmmaMulticastT<CM, CN, sb_cluster_ring, true, true>;

#ifdef SB_BROKEN
// The planted bug (make SB_BROKEN=1 only): a consumer warp's release
// arrives on its own CTA's empty only, never on the peer's (the bootstrap
// credits still reach both). Each empty barrier then gets half its
// arrivals: after the first S k-tiles both producers wait forever, and the
// bounded twin's watchdog makes the point a `deadlock` row.
template <int Stages, bool Bounded, int CTAs>
struct GemmRingNoRemoteArrive : sb_cluster_ring<Stages, Bounded, CTAs> {
  uint32_t rank;
  __device__ __forceinline__ GemmRingNoRemoteArrive(uint64_t *full, uint64_t *empty)
      : sb_cluster_ring<Stages, Bounded, CTAs>(full, empty), rank(sb_cluster_rank()) {}
  __device__ __forceinline__ void release(const sb_ring_state &st) const {
    __syncwarp();
    if (this->lane == rank) sb_mbar_arrive_cluster(this->empty_c + 8u * (uint32_t)st.index);
  }
};
template <int CM, int CN>
using GemmWsTmaWgmmaMulticastNoRemote = GemmWsTmaWgmmaMulticastT<CM, CN, GemmRingNoRemoteArrive>;
#endif

template <class V, class T>
constexpr int gemm_threads() {
  return T::WARPS * 32 * V::groups + (V::ws ? 32 * V::Mainloop::producer_warps : 0);
}

extern __shared__ uint8_t gemm_smem_raw[];

// A block with two consumer warpgroups holds two tiles' accumulators: one per SM.
template <class V, class T>
constexpr int gemm_kernel_min_blocks() {
  return V::groups > 1 ? 1 : gemm_min_blocks<T>();
}
// Whether the target being compiled has what a composition needs: wgmma
// (sm_90a's arch-specific features), TMA and mbarrier transactions (sm_90).
// The one guard of the family: the kernel below.
template <class V>
__host__ __device__ constexpr bool gemm_target_has() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  return true;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return !V::sm90a;
#else
  return !V::sm90a && V::min_cc < 90;
#endif
}
// The one kernel: the composition's body (V::run). Where the target lacks
// what the composition needs, the body is not compiled and the kernel
// traps; it is never launched there (the row's min_cc, and the fat
// binary's sm_90a code on Hopper).
template <class V, class T, int S, bool Bounded>
__global__ void __launch_bounds__(gemm_threads<V, T>(), gemm_kernel_min_blocks<V, T>()) gemm_kernel(const __grid_constant__ GemmParams p) {
  if constexpr (!gemm_target_has<V>()) {
    (void)p;
    __trap();
  } else {
    // The stages start at the next 1024-B boundary (the launch asks for the slack).
    const uint32_t smem = (sb_smem_addr(gemm_smem_raw) + 1023u) & ~1023u;
    int m0, n0;
    gemm_block_tile<T>(p, &m0, &n0);
    const long long t0 = Bounded ? clock64() : 0;
    V::template run<T, S, Bounded>(p, smem, m0, n0);
    gemm_prof_add<Bounded>(p, 1, t0);
  }
}

// ---- what is compiled: stated once, by the composition ----

// Stages compiled per composition and tile (what 227 KiB of shared memory
// holds: 6 x 32 KiB stages of 128 x 128 x 64, 4 x 48 KiB of 128 x 256 x 64):
//  - a fixed-buffer mainloop: its count (single's 1, swap's 2);
//  - a schedule that cuts K (split-K, stream-K): ws_tma_wgmma's best per
//    tile only (docs/gemm.md), to keep the build and the sweep small;
//  - clusters (multicast) and the one-warpgroup TMA-store epilogue: where
//    ws_tma_wgmma is best (3-4 of 128x256, 4-6 of 128x128), so that the
//    comparison is one of synchronization at the mainloop's best settings;
//  - the rest: every count that fits, 2-6 of 128x128, 2-4 of 128x256.
// The one-warpgroup tiles compile one count each, 8 of 64 x 128, 7 of 128 x 96.
template <class T>
using GemmOneGroupStages =
    std::conditional_t<T::BM == 64, sb_values<SB_GEMM_SPLIT_STAGES_64>, sb_values<SB_GEMM_SPLIT_STAGES_96>>;
template <class T>
using GemmSplitStages =
    std::conditional_t<T::BN == 256, sb_values<SB_GEMM_SPLIT_STAGES_256>,
                       std::conditional_t<T::WGMMA_ONLY, GemmOneGroupStages<T>, sb_values<SB_GEMM_SPLIT_STAGES_128>>>;
template <class T>
using GemmBestStages = std::conditional_t<T::BN == 256, sb_values<3, 4>,
                                          std::conditional_t<T::WGMMA_ONLY, GemmOneGroupStages<T>, sb_values<4, 5, 6>>>;
template <class T>
using GemmAllStages = std::conditional_t<T::WGMMA_ONLY, GemmOneGroupStages<T>,
                                         std::conditional_t<T::BN == 256, sb_values<2, 3, 4>, sb_values<2, 3, 4, 5, 6>>>;
template <class V, class T>
struct GemmStages {
  using list = std::conditional_t<
      V::Mainloop::fixed_stages != 0, sb_values<V::Mainloop::fixed_stages>,
      std::conditional_t<V::Schedule::cuts_k, GemmSplitStages<T>,
                         std::conditional_t<(V::cluster_m * V::cluster_n > 1 || (V::tma_store && V::groups == 1)),
                                            GemmBestStages<T>, GemmAllStages<T>>>>;
};

// The tiles a composition is compiled for. Two consumer warpgroups own a
// whole 128 x 128 tile each (ping-pong: 128 x 256 would take 256 fp32
// accumulators per thread). The one-warpgroup tiles (64 x 128, 128 x 96:
// fewer than 4 whole 64 x 64 pieces) need wgmma, and are compiled where
// they answer a question: a block per tile, or K cut (the TMA mainloop's
// data-parallel, split-K and stream-K compositions), and at 64 x 128 (the
// small squares' tile) the multicast clusters.
template <class V, class T>
constexpr bool gemm_compiles_tile() {
  if constexpr (V::groups > 1) return T::BM == 128 && T::BN == 128;
  if constexpr (V::cluster_m * V::cluster_n > 2) return T::BM == 64;  // both operands shared: the 64x128 tile
  if constexpr (!T::WGMMA_ONLY) return true;
  if constexpr (!V::Consumer::wgmma) return false;
  if constexpr (V::cluster_m * V::cluster_n > 1) return T::BM == 64;
  return !V::Schedule::persistent || V::Schedule::cuts_k;
}

// The TMA-store epilogue's staging after the stages (every consumer warp's two pieces).
template <class V, class T>
constexpr int gemm_store_bytes() {
  return V::tma_store ? GemmWarpgroupMma<T>::STORE_BYTES * V::groups : 0;
}

template <class V, class T, int S>
static sb_kernels gemm_twins() {
  return sb_twin_kernels<V::twin>(
      [](auto bounded) { return gemm_kernel<V, T, S, decltype(bounded)::value>; },
      (size_t)S * T::STAGE_BYTES + gemm_store_bytes<V, T>() + SB_GEMM_ALIGN_SLACK);
}

// A variant's whole-tiles form (V::WholeTilesForm: splitk_serial's, and
// single's, swap's and ring's; in the experimental build also
// splitk_cluster's and streamk's), the same composition compiled without its
// edge-tile code, for a point whose every output tile is whole: M and N
// multiples of the tile, and for a cp.async mainloop K a multiple of BK
// (the TMA mainloop fills a partial k-tile itself, so there K is free).
// The row names V only; both forms are compiled at each of its tiles and
// stages, with both twins each, and the picker names the point's pair (the
// same grid, the same shared memory). Where V has no such form, V's
// kernels. The cp.async variants need it as splitk_serial did: their
// mainloop compiled the edge copy (gemm_load_stage's zero-filling form)
// beside the whole one inside the K loop, and ptxas then scheduled the
// whole path's loop worse (swap's 128x128 kernel: 1064 SASS instructions
// against 7842bb7's 648, its loop body 333 against 229, and 4-9% slower at
// 2048^3-4096^3 on an H200).
template <class V, class = void>
struct GemmWholeTiles {
  static constexpr bool has = false;
  using type = V;
};
template <class V>
struct GemmWholeTiles<V, std::void_t<typename V::WholeTilesForm>> {
  static constexpr bool has = true;
  using type = typename V::WholeTilesForm;
};
// Every tile of the point is whole (gemm_whole_tile of each tile), and for
// a cp.async mainloop every k-tile (gemm_edge_tile); false where the shape
// is unset (sb_gemm_compiled asks the pickers without one).
template <class V, class T>
static bool gemm_point_whole(const long long *axis) {
  const long long m = axis[SB_AXIS_M], n = sb_gemm_cols(axis), k = axis[SB_AXIS_K];
  return m > 0 && n > 0 && m % T::BM == 0 && n % T::BN == 0 && (V::Mainloop::tma || (k > 0 && k % T::BK == 0));
}
template <class V, class T, int S>
static sb_kernels gemm_kernels(const long long *axis) {
  if constexpr (GemmWholeTiles<V>::has)
    if (gemm_point_whole<V, T>(axis)) return gemm_twins<typename GemmWholeTiles<V>::type, T, S>();
  (void)axis;
  return gemm_twins<V, T, S>();
}

// ---- pickers: the instantiations the sweeps use ----

template <class V, class T>
static int gemm_pick_tile(const long long *axis, sb_kernels *k, char *why, size_t len) {
  constexpr int warps = T::WARPS * V::groups;
  if (axis[SB_AXIS_WARPS] != warps) {
    snprintf(why, len, "consumer_warps=%lld has no compiled kernel for a %dx%d tile (compiled: %d%s)",
             axis[SB_AXIS_WARPS], T::BM, T::BN, warps,
             V::groups > 1 ? ": two warpgroups of 4" : T::WGMMA_ONLY ? ": one wgmma warpgroup" : "");
    return -1;
  }
  using List = typename GemmStages<V, T>::list;
  if (sb_dispatch(axis[SB_AXIS_STAGES], List{}, [&](auto s) { *k = gemm_kernels<V, T, decltype(s)::value>(axis); }))
    return 0;
  return sb_no_instance<List>("stages", axis[SB_AXIS_STAGES], why, len);
}

// The tiles a composition compiles, as the tile axis names them ("128x128x64, 128x256x64").
template <class V>
static void gemm_compiled_tiles(char *buf, size_t len) {
  const bool on[SB_GEMM_NUM_TILES] = {gemm_compiles_tile<V, Tile128x128>(), gemm_compiles_tile<V, Tile128x256>(),
                                      gemm_compiles_tile<V, Tile64x128>(), gemm_compiles_tile<V, Tile128x96>()};
  size_t at = 0;
  buf[0] = '\0';
  for (int t = 0; t < SB_GEMM_NUM_TILES && at < len; ++t)
    if (on[t])
      at += (size_t)snprintf(buf + at, len - at, "%s%dx%dx%d", at ? ", " : "", sb_gemm_tile_bm(t), sb_gemm_tile_bn(t),
                             SB_GEMM_BK);
}

template <class V, class T>
static int gemm_pick_at(const long long *axis, sb_kernels *k, char *why, size_t len) {
  if constexpr (gemm_compiles_tile<V, T>()) {
    return gemm_pick_tile<V, T>(axis, k, why, len);
  } else {
    char tiles[96];
    gemm_compiled_tiles<V>(tiles, sizeof tiles);
    snprintf(why, len, "tile=%dx%dx%d has no compiled kernel for this variant (compiled: %s)", T::BM, T::BN, SB_GEMM_BK,
             tiles);
    return -1;
  }
}

// The picker of any variant: the tile axis, then the tile's warps and stages.
template <class V>
static int gemm_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  switch (axis[SB_AXIS_TILE]) {
    case SB_GEMM_TILE_128X128: return gemm_pick_at<V, Tile128x128>(axis, k, why, len);
    case SB_GEMM_TILE_128X256: return gemm_pick_at<V, Tile128x256>(axis, k, why, len);
    case SB_GEMM_TILE_64X128: return gemm_pick_at<V, Tile64x128>(axis, k, why, len);
    case SB_GEMM_TILE_128X96: return gemm_pick_at<V, Tile128x96>(axis, k, why, len);
  }
  snprintf(why, len, "tile=%lld has no compiled kernel", axis[SB_AXIS_TILE]);
  return -1;
}

// Multicast: the cluster_shape axis picks the instantiation (2x1 or 1x2;
// Wide: also 2x2, 4x2 and 2x4), then the variant's own picker.
template <template <int, int> class V, bool Wide>
static int gemm_pick_multicast(const long long *axis, sb_kernels *k, char *why, size_t len) {
  switch (axis[SB_AXIS_CLUSTER_SHAPE]) {
    case SB_GEMM_CLUSTER_2X1: return gemm_pick<V<2, 1>>(axis, k, why, len);
    case SB_GEMM_CLUSTER_1X2: return gemm_pick<V<1, 2>>(axis, k, why, len);
  }
  if constexpr (Wide) {
    switch (axis[SB_AXIS_CLUSTER_SHAPE]) {
      case SB_GEMM_CLUSTER_2X2: return gemm_pick<V<2, 2>>(axis, k, why, len);
      case SB_GEMM_CLUSTER_4X2: return gemm_pick<V<4, 2>>(axis, k, why, len);
      case SB_GEMM_CLUSTER_2X4: return gemm_pick<V<2, 4>>(axis, k, why, len);
    }
  }
  snprintf(why, len, "cluster_shape=%lld has no compiled kernel (compiled: 2x1, 1x2%s)", axis[SB_AXIS_CLUSTER_SHAPE],
           Wide ? ", 2x2, 4x2, 2x4" : "");
  return -1;
}

// ---- launchers ----

// The tensor map of an [rows][k] fp16 matrix in boxes of 64 x box_rows,
// 128-byte swizzle.
static cudaError_t gemm_encode_map(CUtensorMap *map, const void *base, int rows, int k, int box_rows) {
  return sb_encode_tensor_map_2d(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, base, (unsigned long long)k,
                                 (unsigned long long)rows, (unsigned long long)k * 2, SB_GEMM_BK,
                                 (unsigned)box_rows, CU_TENSOR_MAP_SWIZZLE_128B);
}

// Both maps of a point, cached: encoding is host work, and every launch
// after the first of a point only compares the key.
static cudaError_t gemm_tensor_maps(GemmParams *p, int bm, int bn) {
  static GemmParams last;
  static int last_bm, last_bn;
  if (last.a == p->a && last.b == p->b && last.m == p->m && last.n == p->n && last.k == p->k && last_bm == bm &&
      last_bn == bn) {
    p->map_a = last.map_a;
    p->map_b = last.map_b;
    return cudaSuccess;
  }
  cudaError_t e = gemm_encode_map(&p->map_a, p->a, p->m, p->k, bm);
  if (e == cudaSuccess) e = gemm_encode_map(&p->map_b, p->b, p->n, p->k, bn);
  if (e != cudaSuccess) return e;
  last = *p;
  last_bm = bm;
  last_bn = bn;
  return cudaSuccess;
}

// C's map for the TMA-store epilogue ([M][N] fp32, boxes of 32 columns x
// 16 rows: one consumer warp's piece, 128-byte rows, 128B swizzle), cached
// as the operands' maps are.
static cudaError_t gemm_tensor_map_c(GemmParams *p) {
  static CUtensorMap map;
  static const float *c;
  static int m, n;
  if (c != p->c || m != p->m || n != p->n) {
    cudaError_t e = sb_encode_tensor_map_2d(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, p->c, (unsigned long long)p->n,
                                            (unsigned long long)p->m, (unsigned long long)p->n * 4, 32, 16,
                                            CU_TENSOR_MAP_SWIZZLE_128B);
    if (e != cudaSuccess) return e;
    c = p->c, m = p->m, n = p->n;
  }
  p->map_c = map;
  return cudaSuccess;
}

// The split variants' device memory, grown as points need it, allocated by
// the query (outside every timed launch) and kept for the process: one
// semaphore / arrival counter per tile, and splitk_parallel's partial tiles.
// The counters are zeroed by the query too, and numbered by launch after
// it (gemm_number_launch).
static unsigned *gemm_sem;
static float *gemm_ws;
static size_t gemm_sem_cap, gemm_ws_cap;
// The epilogue profile (GemmParams::prof): zeroed before each validating
// launch of a ws_tma-based variant, read once by sb_gemm_epilogue_pct.
static unsigned long long *gemm_prof;
static bool gemm_prof_armed;

static cudaError_t gemm_grow(void **buf, size_t *cap, size_t bytes) {
  void *held = NULL;  // the re-placement probe (SB_REPLACE's w): anew, the old one freed after
  if (bytes > 0 && sb_replace_wants('w')) held = *buf, *buf = NULL, *cap = 0;
  cudaError_t e = cudaSuccess;
  if (bytes > *cap) {
    if (*buf) cudaFree(*buf);
    *buf = NULL;
    *cap = 0;
    e = cudaMalloc(buf, bytes);
    if (e == cudaSuccess) *cap = bytes;
  }
  cudaFree(held);
  if (bytes > 0 && getenv("SB_REPLACE"))  // the probe's log: where the workspace lies
    fprintf(stderr, "replace: gemm workspace %zu bytes at %p\n", bytes, *buf);
  return e;
}

// Launch numbering (gemm_schedulers.cuh, sb_epoch_begin): the query
// zeroes the point's counters, semaphores, flags and ticket counter (the
// first sem_bytes of gemm_sem) and the numbering, outside every timed
// launch; every later launch of the point, validating or timed, takes the
// next number (GemmParams::epoch) and no memset. StaleEpoch (the SB_BROKEN
// build's planted bug only): every launch is numbered 1, so from the
// second launch on the counters already hold what launch 1 left.
static unsigned gemm_epoch;  // launches since the point's query
template <bool StaleEpoch = false>
static cudaError_t gemm_number_launch(sb_launch *L, GemmParams *p, size_t sem_bytes) {
  if (L->query) {
    gemm_epoch = 0;
    return cudaMemsetAsync(gemm_sem, 0, sem_bytes, L->stream);
  }
  p->epoch = StaleEpoch ? 1u : ++gemm_epoch;
  return cudaSuccess;
}

// The separate reduction after the GEMM kernel, as its PDL secondary:
// splitk_reduce always (every tile), streamk when many blocks feed a tile
// (p.sk_reduce: its stream-K tiles). p.reduce_groups threads per float4 of
// a tile (streamk: one; splitk_reduce: sb_gemm_reduce_groups on this
// device's SMs, read once a process).
static int gemm_sm_count(void) {
  static int sms = 0;
  int dev = 0;
  if (sms == 0 && (cudaGetDevice(&dev) != cudaSuccess ||
                   cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess))
    sms = 1;  // unknown: one group (the launch itself reports a broken device)
  return sms;
}
template <class T, bool StreamK, bool DropLast = false>
static cudaError_t gemm_reduce_launch_tile(sb_launch *L, GemmParams &p) {
  const int tiles = gemm_tile_count<T>(p);
  const int n = StreamK ? sb_gemm_sk_tiles(tiles, p.sk_grid_blocks) : tiles;
  static_assert(GemmWarpgroupMma<T>::TILE_V4 == T::BM * T::BN / 4, "the reduction's float4s are the tile's");
  const long long blocks = (long long)n * sb_gemm_reduce_blocks_per_tile(T::BM * T::BN);
  p.reduce_groups = StreamK ? 1 : sb_gemm_reduce_groups(blocks, p.splits, gemm_sm_count());
  void *args[] = {&p};
  const void *kernel = (const void *)gemm_reduce_kernel<T, StreamK, DropLast>;
  if constexpr (!StreamK) {
    // a grid over one wave of the wide kernel: the narrow one (more blocks
    // an SM). Its occupancy is read once per instantiation (one device a
    // process); a failed query is not cached, and its error is cleared so
    // that the launch below reports only its own.
    static int wave_cached = 0;
    int wave = wave_cached;
    if (wave == 0) {
      if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&wave, kernel, SB_GEMM_REDUCE_THREADS, 0) == cudaSuccess && wave > 0)
        wave_cached = wave;
      else
        (void)cudaGetLastError(), wave = 1;  // unknown: narrow past one block an SM
    }
    if (p.reduce_groups > 1)
      kernel = (const void *)gemm_reduce_kernel<T, StreamK, DropLast, true>;
    else if (sb_gemm_reduce_narrow(blocks, wave, gemm_sm_count()))
      kernel = (const void *)gemm_reduce_kernel<T, StreamK, DropLast, false, true>;
  }
  return sb_pdl_launch(kernel, (unsigned)(blocks * p.reduce_groups), SB_GEMM_REDUCE_THREADS, L->stream, args);
}
template <bool StreamK, bool DropLast>
static cudaError_t gemm_reduce_launch(sb_launch *L, GemmParams &p, int tile) {
  return tile == SB_GEMM_TILE_128X256 ? gemm_reduce_launch_tile<Tile128x256, StreamK, DropLast>(L, p)
         : tile == SB_GEMM_TILE_64X128 ? gemm_reduce_launch_tile<Tile64x128, StreamK, DropLast>(L, p)
         : tile == SB_GEMM_TILE_128X96 ? gemm_reduce_launch_tile<Tile128x96, StreamK, DropLast>(L, p)
                                       : gemm_reduce_launch_tile<Tile128x128, StreamK, DropLast>(L, p);
}

// ---- the schedules' host side: the grid, the workspace, what runs after ----
// GemmScheduleHost<Schedule> (the schedule tags: gemm_schedulers.cuh):
//   setup<V>(L, p, s, g, &done): the grid (s: blocks, persistence,
//     clusters, a cooperative launch), the workspace (allocated and zeroed
//     by the point's query, numbered by launch after it) and the fields of
//     p the kernel's schedule reads; done: the launch is configured (a
//     query the schedule answered itself);
//   checked(L, p, e): after the launch's configuration (sb_launch_params);
//   after<V>(L, p, tile): what runs after the GEMM kernel (a separate reduction).
// gemm_launch (below) calls these and nothing schedule-specific.
struct GemmGeom {
  int tile, bm, bn;
  long long tiles;  // output tiles: ceil(M / BM) x ceil(N / BN)
};
struct GemmScheduleHostBase {
  template <class V, bool StaleEpoch>
  static cudaError_t setup(sb_launch *, GemmParams &, sb_shape &, const GemmGeom &, bool *) {
    return cudaSuccess;
  }
  static cudaError_t checked(sb_launch *, const GemmParams &, cudaError_t e) { return e; }
  template <class V>
  static cudaError_t after(sb_launch *, GemmParams &, int) {
    return cudaSuccess;
  }
};
template <class Schedule>
struct GemmScheduleHost;

// Data-parallel: a block (a cluster) per tile, the grid gemm_launch sets.
template <>
struct GemmScheduleHost<GemmScheduleDataParallel> : GemmScheduleHostBase {};

// Persistent: as many blocks as are resident, at most one a tile (a cluster a cluster tile).
template <>
struct GemmScheduleHost<GemmSchedulePersistent> : GemmScheduleHostBase {
  template <class V, bool StaleEpoch>
  static cudaError_t setup(sb_launch *, GemmParams &, sb_shape &s, const GemmGeom &, bool *) {
    s.work = s.grid;
    s.grid = SB_GRID_PERSISTENT;
    return cudaSuccess;
  }
};

// Split-K: the grid is tiles x splits; the counters numbered by launch
// (gemm_number_launch), but splitk_cluster's, which its last arrivals set
// back (its query zeroes them all the same), and splitk_reduce's, which it
// has none of.
template <GemmCombine C, bool DropLast>
struct GemmScheduleHost<GemmScheduleSplitK<C, DropLast>> : GemmScheduleHostBase {
  using S = GemmScheduleSplitK<C, DropLast>;
  template <class V, bool StaleEpoch>
  static cudaError_t setup(sb_launch *L, GemmParams &p, sb_shape &s, const GemmGeom &g, bool *) {
    const long long tiles = g.tiles, tile_elems = (long long)g.bm * g.bn;
    // The count: the axis, or for splits=auto the one policy
    // (sb_gemm_auto_splits) on this device's SMs; resolved by the query,
    // read back by every later launch, reported in the row (splits_used).
    if (L->query) {
      const long long want = L->axis[SB_AXIS_SPLITS];
      int dev = 0, sms = 0;
      cudaError_t e;
      if (want == SB_AXIS_AUTO &&
          ((e = cudaGetDevice(&dev)) != cudaSuccess ||
           (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess))
        return e;
      const int kts = sb_gemm_cdiv(p.k, SB_GEMM_BK);
      // splitk_cluster's auto counts waves in the clusters this kernel's
      // blocks form and the device holds at once (2, 4, 8 blocks).
      int at_once[SB_GEMM_CLUSTER_MAX_CTAS + 1] = {0};
      sb_kernels k = {};
      char why[256];  // a point with no kernel: its query says so below
      if (C == GEMM_COMBINE_CLUSTER && want == SB_AXIS_AUTO && L->variant->pick(L->axis, &k, why, sizeof why) == 0)
        for (int c = 2; c <= SB_GEMM_CLUSTER_MAX_CTAS; c *= 2) at_once[c] = sb_clusters_at_once(k.raw, k.smem, s.block, c);
      L->splits_used = want != SB_AXIS_AUTO              ? (int)want
                       : C == GEMM_COMBINE_CLUSTER     ? sb_gemm_cluster_auto_splits((int)tiles, kts, sms, at_once)
                       : C == GEMM_COMBINE_COOPERATIVE ? sb_gemm_coop_auto_splits((int)tiles, kts, sms)
                       : C == GEMM_COMBINE_REDUCE
                           ? sb_gemm_reduce_auto_splits((int)tiles, kts, sms, sb_gemm_reduce_blocks_per_tile(tile_elems))
                           : sb_gemm_auto_splits((int)tiles, kts, sms);
    }
    p.splits = L->splits_used;
    s.grid = tiles * p.splits;
    if constexpr (C == GEMM_COMBINE_CLUSTER) s.cluster = sb_gemm_cluster_ctas(p.splits);
// A diagnostic switch (-D at build time): the same kernel launched without
// the cooperative attribute measured the same times (H100, 69bb694).
#ifndef SB_GEMM_COOP_PLAIN_LAUNCH
    if constexpr (C == GEMM_COMBINE_COOPERATIVE) s.cooperative = true;
#endif
    // serial: + a ticket counter per tile after the semaphores (gemm_slice_ticket);
    // cluster: a counter per (tile, rank), at most tiles x splits
    const size_t sem_bytes =
        gemm_flag(C == GEMM_COMBINE_CLUSTER ? tiles * p.splits : tiles * (S::partials ? 1 : 2)) * sizeof(unsigned);
    const size_t ws_bytes = S::partials ? (size_t)tiles * tile_elems * p.splits * sizeof(float) : 0;
    if (L->query) {
      cudaError_t e = gemm_grow((void **)&gemm_sem, &gemm_sem_cap, sem_bytes);
      if (e == cudaSuccess) e = gemm_grow((void **)&gemm_ws, &gemm_ws_cap, ws_bytes);
      if (e != cudaSuccess || C == GEMM_COMBINE_REDUCE) return e;
    }
    p.sem = gemm_sem;
    p.ws = gemm_ws;
    return gemm_number_launch<StaleEpoch>(L, &p, sem_bytes);
  }
  // splitk_cooperative: every block resident at once, or a skipped row (not a launch error).
  static cudaError_t checked(sb_launch *L, const GemmParams &p, cudaError_t e) {
    if constexpr (C == GEMM_COMBINE_COOPERATIVE) {
      int dev = 0, sms = 0;
      if (e == cudaSuccess && L->query && !L->skip[0] && L->blocks_per_sm > 0 &&
          (e = cudaGetDevice(&dev)) == cudaSuccess &&
          (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) == cudaSuccess &&
          (long long)L->grid_blocks > (long long)L->blocks_per_sm * sms)
        snprintf(L->skip, sizeof L->skip,
                 "cannot launch cooperatively: %d tiles x %d splits = %d blocks, but %d SMs x %d blocks/SM are "
                 "resident at once (fewer splits, or splits=auto)",
                 (int)(L->grid_blocks / p.splits), p.splits, L->grid_blocks, sms, L->blocks_per_sm);
    }
    (void)L, (void)p;
    return e;
  }
  // splitk_reduce: the separate reduction of every tile's slices.
  template <class V>
  static cudaError_t after(sb_launch *L, GemmParams &p, int tile) {
    if constexpr (C == GEMM_COMBINE_REDUCE) return gemm_reduce_launch<false, DropLast>(L, p, tile);
    (void)L, (void)p, (void)tile;
    return cudaSuccess;
  }
};

// Stream-K: the persistent grid (SMs x blocks/SM, from the query); two
// workspace slots (gemm_sk_slot) and one flag per block, then the grid's
// ticket counter and one per tile (gemm_sk_block): zeroed by the query,
// numbered by launch (gemm_number_launch: a flag set in this launch reads
// its number; a counter hands out its tickets a launch). Where nothing is
// split on the persistent grid (sb_gemm_sk_data_parallel) the query picks
// the data-parallel kernel, ws_tma_wgmma's own (same tile and stages), a
// block per tile, which takes no ticket and reads no flag.
template <>
struct GemmScheduleHost<GemmScheduleStreamK> : GemmScheduleHostBase {
  template <class V, bool StaleEpoch>
  static cudaError_t setup(sb_launch *L, GemmParams &p, sb_shape &s, const GemmGeom &g, bool *done) {
    s.grid = SB_GRID_PERSISTENT;
    p.sem = gemm_sem;  // the query allocates them; a launch after it reads them
    p.ws = gemm_ws;
    cudaError_t e = cudaSuccess;
    const int tiles = (int)g.tiles, kts = sb_gemm_cdiv(p.k, SB_GEMM_BK);
    bool data_parallel = false;
    if (L->query) {
      if ((e = sb_launch_params(L, s, p)) != cudaSuccess) return e;
      data_parallel = L->grid_blocks > 0 && sb_gemm_sk_data_parallel(tiles, kts, (int)L->grid_blocks);
      if (data_parallel) {
        sb_shape grid = s;
        grid.grid = tiles;
        if ((e = sb_launch_query(L, grid, gemm_pick<GemmWsTmaWgmma>)) != cudaSuccess) return e;
      }
    }
    // + a ticket counter per tile where fewer tiles than blocks (gemm_sk_block)
    const size_t sem_bytes = gemm_flag((size_t)L->grid_blocks + 1 + (size_t)tiles) * sizeof(unsigned);
    if (L->query) {
      e = gemm_grow((void **)&gemm_sem, &gemm_sem_cap, sem_bytes);
      if (e == cudaSuccess && !data_parallel)
        e = gemm_grow((void **)&gemm_ws, &gemm_ws_cap, (size_t)2 * L->grid_blocks * g.bm * g.bn * sizeof(float));
      if (e != cudaSuccess) return e;
    }
    if ((e = gemm_number_launch(L, &p, sem_bytes)) != cudaSuccess || L->query) {
      *done = true;
      return e;
    }
    p.sem = gemm_sem;
    p.ws = gemm_ws;
    p.sk_grid_blocks = (int)L->grid_blocks;
    p.sk_reduce = sb_gemm_sk_separate(tiles, kts, p.sk_grid_blocks);
    return cudaSuccess;
  }
  // Many blocks a tile (p.sk_reduce): the separate reduction of the split tiles.
  template <class V>
  static cudaError_t after(sb_launch *L, GemmParams &p, int tile) {
    return p.sk_reduce ? gemm_reduce_launch<true, false>(L, p, tile) : cudaSuccess;
  }
};

// One launcher for every composition: the parameters and tensor maps
// (the mainloop's and the epilogue's), the block (the consumer's warps and
// the mainloop's producer warp), a grid of whole clusters of tiles, the
// epilogue profile, then the schedule's host side (GemmScheduleHost): its
// grid, workspace and what runs after the kernel.
template <class V, bool StaleEpoch = false>
static cudaError_t gemm_launch(sb_launch *L) {
  GemmParams p;
  memset(&p, 0, sizeof p);
  p.m = (int)L->axis[SB_AXIS_M];
  p.n = (int)sb_gemm_cols(L->axis);
  p.k = (int)L->axis[SB_AXIS_K];
  p.a = (const uint16_t *)L->in;
  p.b = p.a + (size_t)p.m * p.k;
  p.c = (float *)L->out;
  const int tile = (int)L->axis[SB_AXIS_TILE];
  const int bm = sb_gemm_tile_bm(tile), bn = sb_gemm_tile_bn(tile);
  // Multicast clusters load a slice of a shared operand's box per CTA:
  // A boxes of bm / CN rows, B boxes of bn / CM rows.
  constexpr int CM = V::cluster_m, CN = V::cluster_n;
  if (V::Mainloop::tma && !L->query) {
    cudaError_t e = gemm_tensor_maps(&p, bm / CN, bn / CM);
    if (e == cudaSuccess && V::tma_store) e = gemm_tensor_map_c(&p);
    if (e != cudaSuccess) return e;
  }
  sb_shape s;
  s.cluster = CM * CN;
  s.block = sb_gemm_tile_warps(tile) * 32 * V::groups + (V::ws ? 32 * V::Mainloop::producer_warps : 0);
  // Any shape: ceil(M / BM) x ceil(N / BN) tiles; a cluster of CM x CN
  // tiles takes the edge's partial (or empty) tiles whole, so the grid is
  // whole clusters.
  s.grid = (long long)sb_gemm_cdiv(p.m, bm * CM) * sb_gemm_cdiv(p.n, bn * CN) * (CM * CN);
  const GemmGeom g = {tile, bm, bn, (long long)sb_gemm_cdiv(p.m, bm) * sb_gemm_cdiv(p.n, bn)};
  p.splits = 1;
  if (!L->query && L->bounded) gemm_prof_armed = false;  // a new point: no stale profile
  if constexpr (V::ws && V::Mainloop::tma) {  // the epilogue profile, validating launch only
    if (L->query) {
      if (!gemm_prof && cudaMalloc((void **)&gemm_prof, 2 * sizeof *gemm_prof) != cudaSuccess) {
        cudaGetLastError();  // no profile: the cell stays empty
        gemm_prof = NULL;
      }
    } else if (L->bounded && gemm_prof) {
      cudaError_t e = cudaMemsetAsync(gemm_prof, 0, 2 * sizeof *gemm_prof, L->stream);
      if (e != cudaSuccess) return e;
      p.prof = gemm_prof;
      gemm_prof_armed = true;
    }
  }
  using H = GemmScheduleHost<typename V::Schedule>;
  bool done = false;
  cudaError_t e = H::template setup<V, StaleEpoch>(L, p, s, g, &done);
  if (e != cudaSuccess || done) return e;
  e = H::checked(L, p, sb_launch_params(L, s, p));
  if (e != cudaSuccess || L->query) return e;
  return H::template after<V>(L, p, tile);
}

// Multicast: the cluster_shape axis picks the instantiation; an unset or
// unknown value reaches the picker, which makes it a skipped row.
template <template <int, int> class V, bool Wide>
static cudaError_t gemm_launch_multicast(sb_launch *L) {
  if constexpr (Wide) {
    switch (L->axis[SB_AXIS_CLUSTER_SHAPE]) {
      case SB_GEMM_CLUSTER_2X2: return gemm_launch<V<2, 2>>(L);
      case SB_GEMM_CLUSTER_4X2: return gemm_launch<V<4, 2>>(L);
      case SB_GEMM_CLUSTER_2X4: return gemm_launch<V<2, 4>>(L);
    }
  }
  return L->axis[SB_AXIS_CLUSTER_SHAPE] == SB_GEMM_CLUSTER_1X2 ? gemm_launch<V<1, 2>>(L)
                                                               : gemm_launch<V<2, 1>>(L);
}

extern "C" double sb_gemm_epilogue_pct(void) {
  unsigned long long h[2] = {0, 0};
  const bool armed = gemm_prof_armed;
  gemm_prof_armed = false;
  if (!armed || cudaMemcpy(h, gemm_prof, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess || h[1] == 0) {
    cudaGetLastError();
    return NAN;
  }
  return 100.0 * (double)h[0] / (double)h[1];
}

// cuBLAS on the same buffers. cuBLAS is column-major: row-major C (M x N)
// is column-major C^T (N x M, ld N) = B^T A^T, where the B buffer is B
// column-major (K x N, ld K), taken transposed, and the A buffer is A^T
// column-major (K x M, ld K), taken as is: the "TN" GEMM.
static cudaError_t gemm_cublas_launch(sb_launch *L) {
  static cublasHandle_t handle;  // created once, by the first query
  const int m = (int)L->axis[SB_AXIS_M], n = (int)sb_gemm_cols(L->axis), k = (int)L->axis[SB_AXIS_K];
  if (L->query) {
    if (!handle && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
      handle = NULL;
      return cudaErrorInitializationError;
    }
    if (cublasSetStream(handle, L->stream) != CUBLAS_STATUS_SUCCESS) return cudaErrorInvalidResourceHandle;
    L->grid_blocks = 0;  // cuBLAS's kernels: no occupancy of ours to report
    L->blocks_per_sm = -1;
    L->smem_bytes = 0;
    return cudaSuccess;
  }
  const float one = 1.0f, zero = 0.0f;
  const uint16_t *a = (const uint16_t *)L->in, *b = a + (size_t)m * k;
  const cublasStatus_t st =
      cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16F, k, a, CUDA_R_16F, k,
                   &zero, L->out, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

// One table row from the variant's composition (the description the rest
// follows from): its launcher, its picker, its minimum compute capability
// (cp.async mainloops: sm_80; TMA: sm_90), its flags (gemm_flags: the
// traits the scripts read from --list) and its parts' names (the CSV's
// composition columns). Extra: flags the type does not carry (SB_VF_TEST_ONLY).
template <class V>
constexpr unsigned gemm_flags() {
  using Sch = typename V::Schedule;
  return (V::Mainloop::fixed_stages == 1 ? SB_VF_GEMM_ONE_STAGE : 0u) |
         (V::Mainloop::fixed_stages == 2 ? SB_VF_GEMM_TWO_STAGES : 0u) | (Sch::split ? SB_VF_GEMM_SPLIT : 0u) |
         (Sch::streamk ? SB_VF_GEMM_STREAMK : 0u) | (V::groups > 1 ? SB_VF_GEMM_PINGPONG : 0u) |
         (V::cluster_m * V::cluster_n > 1 ? SB_VF_GEMM_MULTICAST : 0u) |
         // a persistent grid of one-warpgroup blocks walking whole tiles (ping-pong and stream-K have their own)
         (Sch::persistent && !Sch::cuts_k && V::groups == 1 ? SB_VF_GEMM_PERSISTENT : 0u) |
         (V::tma_store ? SB_VF_GEMM_TMA_STORE : 0u) | (GemmCombineIs<Sch, GEMM_COMBINE_CLUSTER>() ? SB_VF_GEMM_DSMEM : 0u) |
         (GemmCombineIs<Sch, GEMM_COMBINE_COOPERATIVE>() ? SB_VF_GEMM_COOPERATIVE : 0u) |
         (V::plain_wgmma ? SB_VF_GEMM_WGMMA_TILE : 0u);
}
template <class V, unsigned Extra = 0, bool StaleEpoch = false>
constexpr sb_variant gemm_row(const char *name, const char *summary) {
  return {name, gemm_launch<V, StaleEpoch>, gemm_pick<V>, V::min_cc, gemm_flags<V>() | Extra, summary,
          gemm_composition_names<V>()};
}
// Clustered variants: the cluster_shape axis picks V<2, 1> or V<1, 2>
// (Wide: also V<2, 2>, V<4, 2> and V<2, 4>, both operands shared; compiled
// in the experimental build only).
#ifdef SB_EXPERIMENTAL
#define SB_GEMM_WIDE_CLUSTERS true
#else
#define SB_GEMM_WIDE_CLUSTERS false
#endif
template <template <int, int> class V, unsigned Extra = 0, bool Wide = false>
constexpr sb_variant gemm_row_clusters(const char *name, const char *summary) {
  return {name,    gemm_launch_multicast<V, Wide>, gemm_pick_multicast<V, Wide>, V<2, 1>::min_cc,
          gemm_flags<V<2, 1>>() | Extra, summary, gemm_composition_names<V<2, 1>>()};
}

// cublas first: at every shape its row is measured before the others, which
// the runner expresses as pct_of_cublas of it.
static const sb_variant gemm_rows[] = {
    {"cublas", gemm_cublas_launch, NULL, 0, SB_VF_NO_KERNEL | SB_VF_CEILING,
     "cublasGemmEx, fp16 in, CUBLAS_COMPUTE_32F, fp32 out: the ceiling"},
    gemm_row<GemmSingle>("single",
     "1 buffer: cp.async, wait, __syncthreads, mma, __syncthreads per k-tile; no overlap"),
    gemm_row<GemmSwap>("swap",
     "2 buffers (^1): prefetch kt+1 while computing kt; 1 wait_group 0 + 1 __syncthreads per k-tile"),
    gemm_row<GemmRing>("ring",
     "S buffers, S-1 k-tiles in flight: 1 cp.async.wait_group<S-2> + 1 __syncthreads per k-tile"),
    gemm_row<GemmWsMbarrier>("ws_mbarrier",
     "producer warp cp.async + arrive.noinc on full; consumer warps wait full, mma, arrive empty"),
    gemm_row<GemmWsTma>("ws_tma",
     "elected thread: expect_tx + 2 TMA 2D boxes on full; mma.sync consumer warps arrive empty"),
#ifdef SB_EXPERIMENTAL
    gemm_row<GemmWsCpAsyncWgWgmma>("ws_cp_async_wg_wgmma",
     "producer warpgroup: 128 threads cp.async + arrive.noinc on full; wgmma consumer warpgroups: wait full, "
     "fence.proxy.async (generic writes, async-proxy reads), k16 x4, commit, wait_group 1, arrive empty"),
#endif
    // Before ws_tma_wgmma, whose mainloop they share: the rows after
    // ws_tma_wgmma are the ones that cut K, and ping-pong (scripts/answers.py).
    // Read at its upper quartile (SB_VF_P75_RATIO), over 4x the places: at 1024^2 x 16k,
    // 1x2, its launches' level followed where its operands lay (medians 58-80 us by place),
    // and the share of fast places from one process to the next; the median moved with it,
    // the upper quartile held (docs/history.md, schema 17).
    // Clusters sharing both operands (2x2, 4x2, 2x4): the experimental build
    // only. Right at every shape, yet at 1000^3 on an H200 57-61% of cuBLAS
    // against 2x1's 81% (docs/history.md, "Clusters sharing both operands").
    gemm_row_clusters<GemmWsTmaWgmmaMulticast, SB_VF_P75_RATIO, SB_GEMM_WIDE_CLUSTERS>("ws_tma_wgmma_multicast",
     "ws_tma_wgmma in clusters of adjacent tiles (cluster_shape 2x1: B shared, 1x2: A shared; the experimental "
     "build's 2x2, 4x2, 2x4 at 64x128: both): each CTA multicasts its slice of a shared box to the CTAs sharing it (expect_tx = every "
     "slice of A and B); consumer warps arrive on every CTA's empty (mapa, mbarrier.arrive.shared::cluster); "
     "cluster barrier after init and before exit"),
    gemm_row_clusters<GemmWsTmaWgmmaMulticastPersistent>("ws_tma_wgmma_multicast_persistent",
     "ws_tma_wgmma_multicast on a persistent grid (as many clusters as fit at once, cluster tiles c, c + clusters, "
     "...): the ring's parity runs on across tiles and the producer fills the next tile's stages during the epilogue"),
    gemm_row_clusters<GemmWsTmaWgmmaMulticastPersistentTmaStore>("ws_tma_wgmma_multicast_persistent_tma_store",
     "ws_tma_wgmma_multicast_persistent storing C through the async proxy: each consumer warp stages 16x32 pieces "
     "in 2 buffers (fence.proxy.async.shared::cta, __syncwarp), lane 0 cp.async.bulk.tensor stores them "
     "(bulk_group; wait_group.read 1 before a buffer is rewritten, wait_group 0 before exit)"),
    gemm_row<GemmWsTmaWgmmaTmaStore>("ws_tma_wgmma_tma_store",
     "ws_tma_wgmma storing C through the async proxy (as ws_tma_wgmma_multicast_persistent_tma_store): staged "
     "16x32 pieces, cp.async.bulk.tensor stores, bulk_group waits, wait_group 0 before exit"),
    gemm_row<GemmWsTmaWgmma>("ws_tma_wgmma",
     "ws_tma with wgmma consumer warpgroups: fence, k16 x4, commit, wait_group 1, arrive empty of the previous stage"),
    gemm_row<GemmSplitKSerial>("splitk_serial",
     "ws_tma_wgmma over K/splits, the tile from blockIdx, the slice from the tile's atomic ticket; slices add into C in order "
     "behind a per-tile semaphore (ld.acquire.gpu spin, st.release.gpu); semaphores and tickets count launches, no memset"),
    gemm_row<GemmSplitKParallel>("splitk_parallel",
     "ws_tma_wgmma over K/splits; fp32 partials to a workspace, atom.acq_rel.gpu arrival; the last slice "
     "reduces in the same kernel; the counters count launches, no memset"),
    gemm_row<GemmSplitKReduce>("splitk_reduce",
     "ws_tma_wgmma over K/splits; fp32 partials to a workspace, no counter, no wait; a second kernel "
     "(PDL secondary, griddepcontrol.wait) sums the slices, one thread per float4 (cuBLASLt's separate reduction); "
     "8 threads a float4 where the tiles are few, each over a share of the slices, summed in shared memory"),
    gemm_row<GemmSplitKCoop>("splitk_cooperative",
     "ws_tma_wgmma over K/splits on a cooperative grid (every block resident): fp32 partials to a workspace, "
     "atom.acq_rel.gpu arrival, each slice spins (ld.acquire.gpu) until all slices of its tile arrived, then sums "
     "its 1/splits of the tile over every slice; the counter counts launches, no memset"),
    gemm_row<GemmSplitKCluster>("splitk_cluster",
     "ws_tma_wgmma over K/splits, the slices of a tile in clusters of up to 8 CTAs: partials stored to shared "
     "memory, cluster barrier, each of the C CTAs sums a C-th of the tile over the cluster (loads through mapa'd "
     "generic addresses); clusters "
     "of one tile meet in a workspace (atom.acq_rel.gpu per piece, the last sums; counters set back by it, no memset)"),
    gemm_row<GemmStreamK>("streamk",
     "persistent ws_tma_wgmma blocks (a grid-wide atomic ticket; with fewer tiles than blocks, the tile from blockIdx "
     "and the piece from the tile's own ticket), equal shares of all k-tiles (DP + SK hybrid; a block per tile "
     "where no tile is split: ws_tma_wgmma's kernel); split tiles "
     "finished by the tile's last k-piece, which waits only on lower tickets' flags (st.release.gpu / "
     "ld.acquire.gpu) and adds their fp32 partials; with more than 4 blocks per tile, partials only, summed by "
     "a separate reduction kernel (PDL secondary); flags hold the launch's number, tickets count launches, no memset"),
    gemm_row<GemmWsTmaWgmmaPingpong>("ws_tma_wgmma_pingpong",
     "persistent ws_tma_wgmma blocks, 2 consumer warpgroups on alternate 128x128 tiles, one ring; "
     "an ordered sequence of named barriers (bar.sync / bar.arrive) alternates their MMA and epilogue turns"),
    gemm_row<GemmWsTmaWgmmaPingpongTmaStore>("ws_tma_wgmma_pingpong_tma_store",
     "ws_tma_wgmma_pingpong whose epilogue turn stores C through the async proxy (as "
     "ws_tma_wgmma_multicast_persistent_tma_store): staged 16x32 pieces, cp.async.bulk.tensor stores, bulk_group waits"),
    gemm_row_clusters<GemmWsTmaWgmmaPingpongMulticastTmaStore>("ws_tma_wgmma_pingpong_multicast_tma_store",
     "ws_tma_wgmma_pingpong_tma_store in clusters of 2 that walk adjacent tiles in step (cluster_shape 2x1: B "
     "shared, 1x2: A shared): each producer multicasts half the shared box to both, consumer warps release a "
     "stage on both CTAs' empty; cluster barrier after init and before exit"),
#ifdef SB_BROKEN
    // The planted bug: ws_tma_wgmma_multicast without the remote arrive;
    // both producers wait forever on their empty barrier -> `deadlock`.
    gemm_row_clusters<GemmWsTmaWgmmaMulticastNoRemote, SB_VF_TEST_ONLY>("ws_tma_wgmma_multicast_no_remote_arrive",
     "TEST ONLY: ws_tma_wgmma_multicast whose consumers release only their own CTA's empty: the producers' "
     "acquire never ends"),
    // The planted bug of the separate reduction: the reduction kernel leaves
    // out the last slice; every point is `wrong` at its validation.
    gemm_row<GemmSplitKReduceT<true>, SB_VF_TEST_ONLY>("splitk_reduce_drops_a_slice",
     "TEST ONLY: splitk_reduce whose reduction kernel sums splits - 1 slices: C is wrong"),
    // The planted bug (make SB_BROKEN=1 only): splitk_serial whose slices
    // never release the semaphore; slice 1 waits forever -> `deadlock`.
    gemm_row<GemmSplitKSerialT<false>, SB_VF_TEST_ONLY>("splitk_serial_no_release",
     "TEST ONLY: splitk_serial without the st.release.gpu: the next slice's wait never ends"),
    // splitk_cooperative whose last slice never counts itself in: every
    // slice of the tile spins forever -> `deadlock` (the bounded twin's watchdog).
    gemm_row<GemmSplitKCoopT<false>, SB_VF_TEST_ONLY>("splitk_cooperative_missing_arrival",
     "TEST ONLY: splitk_cooperative whose last slice does not count itself in: the tile's wait never ends"),
    // splitk_cluster whose last arrivals never set the counters back: the
    // first launch is right; from the second no cluster sees itself last
    // and C is not written -> `wrong` on the dirty workspace (splits > 8).
    gemm_row<GemmSplitKClusterT<false>, SB_VF_TEST_ONLY>("splitk_cluster_no_reset",
     "TEST ONLY: splitk_cluster whose counters are not set back: later launches with 2+ clusters a tile write no C"),
    // splitk_parallel whose launches are all numbered 1 (StaleEpoch: the
    // launch numbering not advanced): validation passes, and so does the
    // recheck of the timed output (same input: C still holds the first
    // launch's answer); from the second launch the counters start where
    // launch 1 left them, no slice sees itself last and C is not written
    // -> `wrong` in the runner's validation on the dirty workspace.
    gemm_row<GemmSplitKParallel, SB_VF_TEST_ONLY, true>("splitk_parallel_stale_counters",
     "TEST ONLY: splitk_parallel whose launch number is never advanced: later launches see stale counters, write no C"),
#endif
};
extern "C" const sb_variant_table sb_gemm_variants = {gemm_rows, sizeof gemm_rows / sizeof gemm_rows[0]};
