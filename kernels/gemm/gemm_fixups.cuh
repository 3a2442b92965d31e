// GEMM family, the fix-ups: where several blocks share an output tile,
// how their partial tiles are combined across blocks (the epilogues the
// split variants hand gemm_ws_body, gemm_mainloop.cuh): serial split-K in
// order behind a per-tile semaphore, parallel through a workspace and an
// arrival counter, on a cooperative grid (every slice sums a piece), in
// clusters (distributed shared memory), stream-K's finisher and
// contributors, and the separate reduction kernel. Which tile and slice a
// block takes, and the launch numbering of their words: gemm_schedulers.cuh.
#ifndef SB_KERNELS_GEMM_FIXUPS_CUH
#define SB_KERNELS_GEMM_FIXUPS_CUH

#include "gemm_consumers.cuh"  // GemmWarpgroupMma: the partials' layout (save, saved_coord)
#include "gemm_mainloop.cuh"   // GemmUnit, GemmEpiBase: what an epilogue takes
#include "gemm_schedulers.cuh"     // the launch numbering, the slices, stream-K's units
#include "../common/mbarrier.cuh"  // sb_wd_poll_failed: the bounded twin's watchdog
#include "../common/pdl.cuh"       // the separate reduction kernel is a PDL secondary

// The consumer threads' own barrier (named barrier 1): the producer warp
// has left, so __syncthreads would wait for it forever.
template <class T>
__device__ __forceinline__ void gemm_consumer_sync() {
  asm volatile("bar.sync 1, %0;" ::"r"(T::WARPS * 32) : "memory");
}

__device__ __forceinline__ unsigned gemm_ld_acquire_gpu(const unsigned *a) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
  return v;
}
__device__ __forceinline__ void gemm_st_release_gpu(unsigned *a, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(a), "r"(v) : "memory");
}
// The arrival of parallel split-K: one RMW that releases this block's
// partial and, for the last arrival, acquires every earlier one (each
// earlier arrival is acq_rel too, so the chain of synchronizes-with runs
// from the first arrival to the last without relying on release sequences).
__device__ __forceinline__ unsigned gemm_atom_add_acq_rel_gpu(unsigned *a, unsigned v) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(a), "r"(v) : "memory");
  return old;
}

// Why no __threadfence() before a release that follows the consumers'
// bar.sync (PTX ISA, "Memory Consistency Model"): a bar.sync synchronizes
// with the bar.sync of every other thread on the barrier ("Synchronizes-
// with"), so each consumer thread's earlier writes (its C stores, its
// partial) precede thread 0's st.release.gpu / atom.acq_rel.gpu in base
// causality order; a release pattern is cumulative over causality order,
// so an ld.acquire.gpu (or an acquiring RMW) that observes it orders all of
// those writes before the acquirer's later reads, and the acquirer's
// bar.sync passes that on to its block. CUTLASS's GenericBarrier
// (arrive_inc: named barrier, then thread 0's red.release.gpu) relies on
// the same rule. The fence was a second, redundant MEMBAR.SC.GPU.

// Spins (one thread) until *sem == want, acquire at GPU scope. Bounded:
// the validating launch's twin, under the deadlock watchdog (a semaphore
// that never turns becomes a `deadlock` row).
template <bool Bounded>
__device__ __forceinline__ void gemm_sem_wait(const unsigned *sem, unsigned want) {
  unsigned long long t0 = 0;
  while (gemm_ld_acquire_gpu(sem) != want)
    sb_wd_poll_failed<Bounded>(&t0, (uint32_t)(uintptr_t)sem, want);
}

// Serial: slice s waits until the tile's semaphore reads base + s (base =
// (epoch - 1) splits: the launch numbering), adds its partial tile into C
// (slice 0 stores), then releases base + s + 1; the last slice leaves it
// at epoch x splits, the next launch's base. Release = false: the planted
// bug of the broken build, which never releases: the next slice's wait is
// caught by the watchdog. WholeTiles: every tile of the launch is whole
// (the host's choice, GemmSplitKSerialT's whole-tiles form): the stores
// have no edge form (GemmWarpgroupMma::store).
template <class T, bool Bounded, bool Release = true, bool WholeTiles = false>
struct GemmSerialEpi : GemmEpiBase {
  int slice;
  int tile;  // gemm_slice_ticket's (blockIdx.x % tiles)
  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, const GemmUnit &u) const {
    const int m0 = u.m0, n0 = u.n0;
    unsigned *sem = p.sem + gemm_flag(tile);
    const unsigned mine = sb_epoch_begin(p.epoch, (unsigned)p.splits) + (unsigned)slice;
    if (threadIdx.x == 0) gemm_sem_wait<Bounded>(sem, mine);
    gemm_consumer_sync<T>();  // every consumer thread is behind the acquire
    if (slice == 0)
      math.template store<false, WholeTiles>(p, m0, n0);
    else
      math.template store<true, WholeTiles>(p, m0, n0);
    gemm_consumer_sync<T>();  // every thread's C writes are done
    if (Release && threadIdx.x == 0) {
#ifdef SB_PLANT_SLOWDOWN
      __nanosleep(1000);  // the gate proof's plant (make PLANT_SLOWDOWN=1): 1 us per slice
#endif
      // No fence: the release is cumulative over the barrier above (see
      // gemm_atom_add_acq_rel_gpu's note).
      gemm_st_release_gpu(sem, mine + 1u);
    }
  }
};

// Parallel: every slice writes its fp32 partial tile to the workspace,
// then counts itself in (one atom.acq_rel.gpu); the last to arrive (reads
// epoch x splits - 1: the launch numbering) reduces the other slices'
// partials into its registers, then stores C. No block ever waits.
template <class T>
struct GemmParallelEpi : GemmEpiBase {
  int slice;
  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, const GemmUnit &u) const {
    const int m0 = u.m0, n0 = u.n0;
    __shared__ int last;
    const int tiles = gemm_tile_count<T>(p), tile = blockIdx.x % tiles;
    constexpr size_t TILE_ELEMS = (size_t)T::BM * T::BN;
    math.save(p.ws + ((size_t)slice * tiles + tile) * TILE_ELEMS);
    gemm_consumer_sync<T>();  // every thread's partial is written
    if (threadIdx.x == 0) {
      // One acq_rel RMW: releases the partial (cumulative over the barrier
      // above) and, for the last arrival, acquires every other slice's.
      last = gemm_atom_add_acq_rel_gpu(p.sem + gemm_flag(tile), 1u) == gemm_epoch_end(p.epoch, (unsigned)p.splits) - 1u;
    }
    gemm_consumer_sync<T>();
    if (!last) return;
    for (int s = 0; s < p.splits; ++s)
      if (s != slice) math.add_from(p.ws + ((size_t)s * tiles + tile) * TILE_ELEMS);
    math.store(p, m0, n0);
  }
};

// Separate reduction (splitk_reduce): every slice saves its fp32 partial at
// [slice][tile] and is done; gemm_reduce_partials sums them in a second kernel.
template <class T>
struct GemmSaveEpi : GemmEpiBase {
  int slice;
  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, const GemmUnit &) const {
    const int tiles = gemm_tile_count<T>(p);
    math.save(p.ws + ((size_t)slice * tiles + blockIdx.x % tiles) * ((size_t)T::BM * T::BN));
  }
};

// ---- split-K on a cooperative grid: every slice sums a piece of the tile ----
// splitk_cooperative: the grid (tiles x splits, block b: tile b % tiles,
// slice b / tiles) is launched cooperatively, so every block is resident
// at once (a grid that cannot be is a skipped row, never a hang) and a
// block may wait for the other slices of its tile. After the K loop each
// slice saves its fp32 partial at [slice][tile] (st.cg), the consumers'
// barrier, then thread 0 counts the slice in (atom.acq_rel.gpu: releases
// the partial, cumulative over the barrier) and spins (ld.acquire.gpu;
// bounded in the twin: a missing slice is a `deadlock` row) until the
// tile's counter reads epoch x splits: every slice of this launch has
// arrived, and their partials are visible. Then slice s sums float4s
// [s TILE_V4 / splits, (s + 1) TILE_V4 / splits) of the tile over every
// slice (slice order: deterministic) and stores them: the reduction is
// spread over all the tile's blocks, with no second kernel and no memset
// (the counter only grows: the launch numbering above).
// The question it answers: does a reduction spread over the tile's own
// blocks (no second kernel, no kernel boundary) beat splitk_reduce's? On
// an H100 it did not: 4-6 us slower at 128^2 and 256^2 x 8k-64k, the same
// with the cooperative attribute off (proofs/cooperative_69bb694).
// Arrive = false: the broken build's planted bug (the last slice never
// counts itself in: every slice of the tile waits forever -> `deadlock`).
template <class T, bool Bounded, bool Arrive = true>
struct GemmCoopEpi : GemmEpiBase {
  int slice, tile;
  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, const GemmUnit &u) const {
    const int m0 = u.m0, n0 = u.n0;
    const int tiles = gemm_tile_count<T>(p);
    const float4 *first = reinterpret_cast<const float4 *>(p.ws) + (size_t)tile * Math::TILE_V4;
    math.save(p.ws + ((size_t)slice * tiles + tile) * ((size_t)T::BM * T::BN));
    gemm_consumer_sync<T>();  // every thread's partial is written
    if (threadIdx.x == 0) {
      unsigned *counter = p.sem + gemm_flag(tile);
      const unsigned want = gemm_epoch_end(p.epoch, (unsigned)p.splits);
      unsigned long long t0 = 0;
      const bool count = Arrive || slice != p.splits - 1;
      for (unsigned v = count ? gemm_atom_add_acq_rel_gpu(counter, 1u) + 1u : gemm_ld_acquire_gpu(counter);
           (int)(v - want) < 0; v = gemm_ld_acquire_gpu(counter))
        sb_wd_poll_failed<Bounded>(&t0, (uint32_t)(uintptr_t)counter, want);
    }
    gemm_consumer_sync<T>();  // every thread is behind the acquire
    const int f1 = sb_gemm_slice_begin(Math::TILE_V4, p.splits, slice + 1);
    for (int f = sb_gemm_slice_begin(Math::TILE_V4, p.splits, slice) + (int)threadIdx.x; f < f1; f += Math::NT) {
      float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
      for (int s = 0; s < p.splits; ++s) {
        const float4 w = __ldcg(first + (size_t)s * tiles * Math::TILE_V4 + f);
        v.x += w.x, v.y += w.y, v.z += w.z, v.w += w.w;
      }
      Math::store_saved(p, m0, n0, f, v);
    }
  }
};

// ---- split-K in clusters: partial tiles combined in distributed shared memory ----
// splitk_cluster: a grid of tiles x splits blocks in clusters of C =
// sb_gemm_cluster_ctas(splits) consecutive blocks (at most 8, the portable
// size); cluster q takes tile q % tiles and group g = q / tiles of the
// tile's G = splits / C groups, and its rank r takes K slice g C + r.
// After the K loop:
//  1. each consumer thread stores its accumulators, in save()'s fragment
//     order, into its CTA's stages: the consumers' barrier first, so that
//     every warpgroup's last wgmma has read its stage (all k-tiles were
//     consumed: no copy is in flight);
//  2. a cluster barrier (arrive.release, wait.acquire): every CTA's partial
//     is visible to the cluster;
//  3. rank r sums float4s [r TILE_V4 / C, (r + 1) TILE_V4 / C) of the tile
//     over the C CTAs' shared memory (loads through mapa'd generic
//     addresses, in rank order), stores the sums (step 4), then arrives on
//     the cluster barrier again (relaxed: its reads of the peers are over)
//     and waits on it only before exit: no CTA's shared memory goes away
//     while a peer still reads it;
//  4. G = 1: rank r stores its piece of C. G > 1: it saves the piece to the
//     workspace at [tile][g] and counts itself on counter (tile, r) with one
//     atom.acq_rel.gpu (gemm_atom_add_acq_rel_gpu's note); the last of the
//     G to arrive sums the G pieces (group order: a deterministic sum),
//     stores C and sets the counter back to 0 for the next launch (every
//     arrival of this launch is in; the stream orders the next launch after
//     this one). The query zeroes the counters once (GemmScheduleHost's setup): no
//     memset in the timed launch.
// No block waits on another cluster: nothing rests on dispatch order, and
// the C CTAs of a cluster are co-scheduled by the hardware.
// Reset = false: the broken build's planted bug (counters never set back:
// from the second launch on no group sees itself last, and C is not written).
// WholeTiles: the whole-tiles form's unpredicated stores (store_saved).
template <class T, bool Reset = true, bool WholeTiles = false>
struct GemmClusterEpi : GemmEpiBase {
  uint32_t smem;  // the stages: this CTA's partial goes there
  int tile, group, groups;

  // Step 3 for clusters of C: this thread's N float4s of the piece, every
  // peer's load issued before any sum is used (plain loads through generic
  // cluster addresses, which the compiler batches: 32 in flight a thread
  // at C = 8, where one volatile ld.shared::cluster after another was
  // waited on each; that first version, 4ef999d, measured within a point
  // of this one, H100), then the stores, then a relaxed arrive: the stores
  // used every loaded value, so no read of a peer is still in flight (a
  // release arrive would add a MEMBAR.ALL.GPU).
  template <int C, class Math>
  __device__ __forceinline__ void sum_cluster(const GemmParams &p, int m0, int n0, int f0, float4 *piece) const {
    constexpr int N = Math::TILE_V4 / C / Math::NT;
    static_assert(N * C * Math::NT == Math::TILE_V4, "whole float4s per thread");
    const float4 *own = reinterpret_cast<const float4 *>(__cvta_shared_to_generic(smem));
    const float4 *peer[C];
#pragma unroll
    for (int c = 0; c < C; ++c) peer[c] = reinterpret_cast<const float4 *>(sb_cluster_peer(own, (uint32_t)c));
    float4 v[N];
#pragma unroll
    for (int i = 0; i < N; ++i) {
      v[i] = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
      for (int c = 0; c < C; ++c) {  // rank order: a deterministic sum
        const float4 w = peer[c][f0 + i * Math::NT];
        v[i].x += w.x, v[i].y += w.y, v[i].z += w.z, v[i].w += w.w;
      }
    }
#pragma unroll
    for (int i = 0; i < N; ++i) {
      if (groups == 1)
        Math::template store_saved<WholeTiles>(p, m0, n0, f0 + i * Math::NT, v[i]);
      else
        __stcg(piece + f0 + i * Math::NT, v[i]);
    }
    sb_cluster_arrive_relaxed();  // my reads of the peers' shared memory are over
  }

  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, const GemmUnit &u) const {
    const int m0 = u.m0, n0 = u.n0;
#if __CUDA_ARCH__ >= 900
    const int ctas = (int)sb_cluster_size(), rank = (int)sb_cluster_rank();
    const int per = Math::TILE_V4 / ctas, f0 = rank * per + (int)threadIdx.x;
    gemm_consumer_sync<T>();  // every warpgroup's last wgmma has read its stage
    math.save_shared(smem);
    sb_cluster_sync();  // every CTA's partial is in its shared memory and visible
    float4 *pieces = reinterpret_cast<float4 *>(p.ws) + (size_t)tile * groups * Math::TILE_V4;
    float4 *mine = pieces + (size_t)group * Math::TILE_V4;
    switch (ctas) {
      case 8: sum_cluster<8, Math>(p, m0, n0, f0, mine); break;
      case 4: sum_cluster<4, Math>(p, m0, n0, f0, mine); break;
      case 2: sum_cluster<2, Math>(p, m0, n0, f0, mine); break;
      default: sum_cluster<1, Math>(p, m0, n0, f0, mine); break;
    }
    if (groups > 1) {
      __shared__ int last;
      gemm_consumer_sync<T>();  // every thread's piece is written
      if (threadIdx.x == 0) {
        unsigned *counter = p.sem + gemm_flag((size_t)tile * ctas + rank);
        last = gemm_atom_add_acq_rel_gpu(counter, 1u) == (unsigned)groups - 1;
        if (Reset && last) *counter = 0u;  // for the next launch: nobody else counts on it in this one
      }
      gemm_consumer_sync<T>();  // every thread is behind the acquire
      if (last)
        for (int f = f0; f < f0 - (int)threadIdx.x + per; f += Math::NT) {
          float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
          for (int g = 0; g < groups; ++g) {  // group order: a deterministic sum
            const float4 w = __ldcg(pieces + (size_t)g * Math::TILE_V4 + f);
            v.x += w.x, v.y += w.y, v.z += w.z, v.w += w.w;
          }
          Math::template store_saved<WholeTiles>(p, m0, n0, f, v);
        }
    }
    sb_cluster_wait();  // no CTA leaves while a peer may read its shared memory
#else
    (void)p, (void)math, (void)m0, (void)n0;
    __trap();
#endif
  }
};

template <class T, bool Bounded, bool WholeTiles, class Math>
__device__ __forceinline__ void gemm_sk_epilogue(const GemmParams &p, Math &math, int m0, int n0, int tile,
                                                 int k0, int k1, int kts, int sk_iters, int sk_grid, int b) {
  constexpr size_t TILE_ELEMS = (size_t)T::BM * T::BN;
  // One store of C at the end, for a whole tile and a finisher both: the
  // store (a whole tile's and an edge tile's forms, gemm_consumers.cuh) is
  // compiled once, not once per path (at 128x256 twice spilled).
  if (k0 == 0 && k1 == kts) {  // a whole tile: no fix-up
  } else if (p.sk_reduce) {  // separate reduction: save the partial; the reduce kernel sums it
    math.save(p.ws + (size_t)sb_gemm_sk_slot(b, k0 > 0) * TILE_ELEMS);
    return;
  } else if (k1 != kts) {  // contributor (the block's first unit): publish the partial, release my flag
    math.save(p.ws + (size_t)b * TILE_ELEMS);
    gemm_consumer_sync<T>();
    // No fence: the release is cumulative over the barrier above (see
    // gemm_atom_add_acq_rel_gpu's note).
    if (threadIdx.x == 0) {
#ifdef SB_PLANT_SLOWDOWN
      __nanosleep(4000);  // the gate proof's plant (make PLANT_SLOWDOWN=1): 4 us per contributor
#endif
      gemm_st_release_gpu(p.sem + gemm_flag(b), p.epoch);
    }
    return;
  } else {  // finisher: wait for every earlier contributor, add their partials, store
    // Contributors: the non-empty blocks in [c_lo, b); c_lo is the last block
    // whose range starts at or before the tile's start (block 0 starts at 0,
    // and b's own range starts inside the tile, so b >= 1 and c_lo >= 0).
    const int tile_begin = tile * kts;
    int c_lo = b - 1;
    while (sb_gemm_sk_begin(sk_iters, sk_grid, c_lo) > tile_begin) --c_lo;
    if (threadIdx.x == 0)
      for (int c = c_lo; c < b; ++c)
        if (sb_gemm_sk_begin(sk_iters, sk_grid, c + 1) != sb_gemm_sk_begin(sk_iters, sk_grid, c))
          gemm_sem_wait<Bounded>(p.sem + gemm_flag(c), p.epoch);
    gemm_consumer_sync<T>();  // every consumer thread is behind the acquires
    for (int c = c_lo; c < b; ++c)
      if (sb_gemm_sk_begin(sk_iters, sk_grid, c + 1) != sb_gemm_sk_begin(sk_iters, sk_grid, c))
        math.add_from(p.ws + (size_t)c * TILE_ELEMS);
  }
  math.template store<false, WholeTiles>(p, m0, n0);
}

// Stream-K's epilogue (gemm_sk_epilogue: a whole tile stored, a partial
// saved for the separate reduction, a contributor's partial published, a
// finisher's fix-up): the schedule's numbers, set when the block's
// schedule is made (GemmStreamKT::run). WholeTiles: the whole-tiles form's
// store, with no edge-tile form beside it (GemmWarpgroupMma::store).
template <class T, bool Bounded, bool WholeTiles = false>
struct GemmStreamKEpi : GemmEpiBase {
  int kts, sk_iters, sk_grid, b;
  template <class Math>
  __device__ __forceinline__ void operator()(const GemmParams &p, Math &math, const GemmUnit &u) const {
    gemm_sk_epilogue<T, Bounded, WholeTiles>(p, math, u.m0, u.n0, u.tile, u.k0, u.k1, kts, sk_iters, sk_grid, b);
  }
};

// ---- the separate reduction: a second kernel sums the partial tiles ----
// Its block size (SB_GEMM_REDUCE_THREADS: gemm_schedule_math.h, whose
// splits=auto reads it; 64 or 128 threads measured within 0.3 us of 256 at
// 128^2 and 256^2 x 8k-64k: H100, 69bb694; docs/gemm.md, "Three ways to
// combine") and how many partials' loads a thread keeps in flight: 8, at
// 64 registers (4 blocks an SM), or in the narrow kernel 4, at 40 (6 blocks
// an SM), for grids over one wave of the wide one, where occupancy is what
// hides the L2's latency (H200, A/B: docs/gemm.md).
constexpr int gemm_reduce_batch = 8, gemm_reduce_narrow_batch = 4, gemm_reduce_narrow_blocks = 6;
// splitk_reduce (every tile: slices 0 .. splits - 1 at [slice][tile]) and
// streamk with p.sk_reduce (its split tiles: the blocks whose range meets
// the tile, at gemm_sk_slot). The GEMM kernel only saves partials (no flag,
// no wait, no counter) and lets this kernel launch early
// (griddepcontrol.launch_dependents); this kernel's griddepcontrol.wait is
// the only synchronization: every block of the GEMM has completed and its
// partials are visible (kernels/common/pdl.cuh). One float4 of a tile in
// save()'s order per p.reduce_groups threads (streamk: 1), each summing a
// contiguous share of the tile's contributors in order, the shares then
// added in group order through shared memory (the same order every
// launch: a deterministic sum); the result stored at the fragment's place
// in C. Grid: tiles x (TILE_V4 x groups / 256) blocks of 256.
// Grouped: the kernel for p.reduce_groups > 1; with one group a float4 the
// other, which has no shared memory (the grouped kernel's, unused, made the
// one-group reduction 3.5-4.9% slower at 256^2 x 16k-64k: H200, A/B).
// DropLast: the broken build's planted bug (splitk_reduce_drops_a_slice):
// the last slice is left out of the sum, so C is wrong at every point.
template <class T, bool StreamK, bool DropLast = false, bool Grouped = false, bool Narrow = false>
__device__ __forceinline__ void gemm_reduce_partials(const GemmParams &p) {
  using Math = GemmWarpgroupMma<T>;
  static_assert(!(StreamK && Grouped) && !(Narrow && (StreamK || Grouped)), "stream-K's reduction runs one group, wide");
  // One group: a thread a float4, CHUNKS blocks a tile (the plain kernel's
  // index math, kept as it was); grouped: per float4s a block, each by
  // `groups` threads (group: which share of the slices).
  constexpr int CHUNKS = Math::TILE_V4 / SB_GEMM_REDUCE_THREADS;
  const int groups = Grouped ? p.reduce_groups : 1, per = SB_GEMM_REDUCE_THREADS / groups;
  const int chunks = Math::TILE_V4 / per, group = threadIdx.x / per;
  const int tile = Grouped ? blockIdx.x / chunks : blockIdx.x / CHUNKS,
            f = Grouped ? (blockIdx.x % chunks) * per + threadIdx.x % per
                        : (blockIdx.x % CHUNKS) * SB_GEMM_REDUCE_THREADS + threadIdx.x;
  const int tiles = gemm_tile_count<T>(p), kts = gemm_k_tiles<T>(p);
  sb_pdl_wait();  // the GEMM grid is complete and its partials visible
  const long long t0 = clock64();  // after the wait: the profile counts the sum, not the GEMM it waited for
  const float4 *ws = reinterpret_cast<const float4 *>(p.ws) + f;
  float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
  // Sums the partials slot(i), i in [i0, i1), in order; slot < 0: nothing
  // there. Every load of a batch issues before the batch's first add: one
  // L2 round trip a batch, not one a partial (a `#pragma unroll 8` loop left
  // its remainder, all of 2-7 partials, one load at a time: SASS).
  constexpr int BATCH = Narrow ? gemm_reduce_narrow_batch : gemm_reduce_batch;
  const auto sum = [&](int i0, int i1, auto slot) {
    for (int b = i0; b < i1; b += BATCH) {
      float4 w[BATCH];
      bool has[BATCH];
#pragma unroll
      for (int i = 0; i < BATCH; ++i) {
        const int s = b + i < i1 ? slot(b + i) : -1;
        has[i] = s >= 0;
        if (has[i]) w[i] = __ldcg(ws + (size_t)s * Math::TILE_V4);
      }
#pragma unroll
      for (int i = 0; i < BATCH; ++i)
        if (has[i]) v.x += w[i].x, v.y += w[i].y, v.z += w[i].z, v.w += w[i].w;
    }
  };
  if constexpr (StreamK) {
    const int grid = p.sk_grid_blocks;  // the stream-K kernel's persistent grid
    const int sk_tiles = sb_gemm_sk_tiles(tiles, grid), sk_grid = sb_gemm_sk_grid(tiles, grid);
    const int sk_iters = sk_tiles * kts, lo = tile * kts, hi = lo + kts;
    const int c = sb_gemm_sk_first_block(sk_iters, sk_grid, lo);
    if (sb_gemm_sk_begin(sk_iters, sk_grid, c + 1) >= hi) return;  // one block's whole tile: stored
    const int last = sb_gemm_sk_first_block(sk_iters, sk_grid, hi - 1);  // the last block that feeds it
    sum(c, last + 1, [&](int d) {  // a block with no iterations saved nothing
      const int b0 = sb_gemm_sk_begin(sk_iters, sk_grid, d);
      return sb_gemm_sk_begin(sk_iters, sk_grid, d + 1) > b0 ? sb_gemm_sk_slot(d, b0 > lo) : -1;
    });
  } else {
    // A group's share of the slices (one group: all of them), in order.
    const int slices = p.splits - (DropLast ? 1 : 0);
    sum(sb_gemm_slice_begin(slices, groups, group), sb_gemm_slice_begin(slices, groups, group + 1),
        [&](int s) { return s * tiles + tile; });
    if constexpr (Grouped) {  // block-uniform: every thread reaches the barrier
      __shared__ float4 share[SB_GEMM_REDUCE_THREADS];
      share[threadIdx.x] = v;
      __syncthreads();
      if (group != 0) return;
#pragma unroll
      for (int g = 1; g < SB_GEMM_REDUCE_MAX_GROUPS; ++g)
        if (g < groups) {
          const float4 w = share[g * per + threadIdx.x];
          v.x += w.x, v.y += w.y, v.z += w.z, v.w += w.w;
        }
    }
  }
  int m0, n0;
  gemm_tile_origin<T>(p, tile, &m0, &n0);
  Math::store_saved(p, m0, n0, f, v);
  // the validating launch's profile: the reduction's cycles count as epilogue
  if (p.prof && threadIdx.x == 0) {
    const unsigned long long dt = (unsigned long long)(clock64() - t0);
    atomicAdd(p.prof, dt);
    atomicAdd(p.prof + 1, dt);
  }
}

#endif  // SB_KERNELS_GEMM_FIXUPS_CUH
