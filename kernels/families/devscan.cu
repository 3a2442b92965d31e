// Devscan family: an inclusive scan (mod 2^32) of n 32-bit words across
// the whole device. Host side: bench/devscan.c; results: docs/devscan.md.
//
// The array is cut into tiles of B x E words (block_threads x
// elems_per_thread, both compile-time). Every variant shares one tile
// loader (DevTile: 16-byte vectors, warp-striped so each load instruction
// covers 512 contiguous bytes), one block scan (dev_block_scan: in-thread
// scans of 4 words, warp shuffles, warp totals through shared memory) and
// one occupancy where registers allow (DevMinBlocks128). They differ only
// in how a tile learns the sum of
// everything before it (its exclusive prefix):
//   three_kernel      reduce tiles | scan the tile sums (1 block) | scan tiles
//                     plus offsets: two kernel boundaries are the barriers
//   three_kernel_pdl  (sm_90) the same kernels chained by programmatic
//                     dependent launch: kernels 2 and 3 start early, do what
//                     does not need their predecessor, then griddepcontrol.wait
//   grid_sync         the same three phases in one cooperative kernel, grid
//                     sized to what is resident, grid.sync() between them
//   chained           single pass; tile i waits for tile i-1's inclusive
//                     prefix (one flag per tile, a serial chain)
//   lookback          single pass, decoupled look-back (Merrill & Garland
//                     2016): aggregate (A) and inclusive prefix (P) flags
//                     packed with their values in one 64-bit word, published
//                     st.release.gpu, read ld.acquire.gpu; a warp inspects
//                     32 predecessors per step, after a 3000 ns sleep
//   lookback_relaxed  the same with relaxed flag accesses: the price of the
//                     fences (the packed word needs none; docs/devscan.md)
//   cluster_lookback  (sm_90) the tiles of a cluster of 4 blocks combine
//                     their aggregates in distributed shared memory between
//                     two cluster barriers; one look-back per cluster
//   cub               cub::DeviceScan::InclusiveSum: the ceiling
// Tile ids of the single-pass variants come from an atomic counter, in the
// order blocks start, so a tile never waits on one that has not started
// (blockIdx.x gives no such promise). The workspace (counter, flags) is
// zeroed once, by the point's query, and numbered by launch after that
// (dev_next_tile, DevFlags::a0): no timed launch holds a memset.
#include <cooperative_groups.h>

#include <cub/device/device_scan.cuh>

#include "../common/launch.cuh"
#include "../common/lookback.cuh"
#include "../common/mbarrier.cuh"
#include "../common/pdl.cuh"
#include "../common/pdl.h"
#include "devscan_flags.h"

namespace cg = cooperative_groups;

struct DevscanParams {
  const uint32_t *in;
  uint32_t *out;
  long long n;
  int tiles;                     // ceil(n / (B * E))
  unsigned long long *flags;     // single pass: one status word per tile (or cluster)
  uint32_t *sums;                // three_kernel, grid_sync: per-tile sums, then their scan
  unsigned int *counter;         // single pass: the next tile (or cluster) id
  unsigned epoch;                // single pass: launches since the point's query (1, 2, ...)
  unsigned long long flag_a, flag_p;  // single pass: this launch's A and P words (DevFlags)
};

// The tuning instances' sleep threshold (axis sleep_min_tiles, DevFlags::sleep_min),
// written by each point's query: a kernel parameter would change the
// parameter loads of every kernel of the family, and the default sweep's
// kernels are to stay as they were (docs/devscan.md, "Tuning the look-back").
__constant__ int dev_sleep_min_tiles;

// Launch numbering (sb_epoch_begin, kernels/common/launch.cuh, as gemm's):
// launch e finds the counter at (e - 1) x the ids a launch takes and the
// status words below its own (DevFlags::a0; e << 2 in the high half would
// take 2^30 launches to wrap).

// ---- the one tile layout and loader ----

// Thread (warp w, lane l) holds E/4 vectors of 4 words; vector j starts at
// word w*32*E + j*128 + l*4 of the tile: a warp's j-th load is 512
// contiguous bytes. Scan order within a warp is therefore j-major.
template <int B, int E, bool Cs = false>
struct DevTile {
  static_assert(E % 4 == 0 && B % 32 == 0, "16-byte vectors, whole warps");
  static constexpr int V = E / 4, items = B * E;
  uint4 v[V];

  __device__ static long long first(int j) {
    return (long long)(threadIdx.x >> 5) * 32 * E + j * 128 + (threadIdx.x & 31) * 4;
  }
  // Words past n read as 0, the identity (a ragged last tile stays exact).
  __device__ void load(const uint32_t *src, long long base, long long n) {
    if (base + items <= n) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const uint4 *a = reinterpret_cast<const uint4 *>(src + base + first(j));
        v[j] = Cs ? __ldcs(a) : *a;
      }
      return;
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const long long g = base + first(j);
      v[j].x = g < n ? src[g] : 0u;
      v[j].y = g + 1 < n ? src[g + 1] : 0u;
      v[j].z = g + 2 < n ? src[g + 2] : 0u;
      v[j].w = g + 3 < n ? src[g + 3] : 0u;
    }
  }
  // From a whole tile staged in shared memory in global order (lookback_tma's
  // bulk copy): the same vectors as load(), each warp's j-th read 512
  // contiguous bytes (4 wavefronts, no bank conflict).
  __device__ void load_shared(const uint4 *stage) {
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = stage[first(j) / 4];
  }
  __device__ void store(uint32_t *dst, long long base, long long n) const {
    if (base + items <= n) {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        uint4 *a = reinterpret_cast<uint4 *>(dst + base + first(j));
        if (Cs)
          __stcs(a, v[j]);
        else
          *a = v[j];
      }
      return;
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const long long g = base + first(j);
      if (g < n) dst[g] = v[j].x;
      if (g + 1 < n) dst[g + 1] = v[j].y;
      if (g + 2 < n) dst[g + 2] = v[j].z;
      if (g + 3 < n) dst[g + 3] = v[j].w;
    }
  }
  __device__ uint32_t thread_sum() const {
    uint32_t s = 0;
#pragma unroll
    for (int j = 0; j < V; ++j) s += v[j].x + v[j].y + v[j].z + v[j].w;
    return s;
  }
  __device__ void add(uint32_t a) {
#pragma unroll
    for (int j = 0; j < V; ++j) v[j].x += a, v[j].y += a, v[j].z += a, v[j].w += a;
  }
};

// ---- the one block scan ----

template <int B>
struct DevScanSmem {
  uint32_t warp_total[B / 32];
  unsigned int tile;     // single pass: this block's tile id (lookback_tma: its next one)
  uint32_t prefix;       // single pass: the tile's exclusive prefix
};

// Scans the tile in place, tile-local and inclusive, except for each warp's
// share of the tile before it, returned in *warp_prefix (the caller adds it
// with the tile's prefix, in one pass). Returns the tile's sum to every
// thread. One __syncthreads; the caller separates a reuse of `s` from
// these reads by a barrier of its own.
template <int B, int E, bool Cs>
__device__ uint32_t dev_block_scan(DevTile<B, E, Cs> &t, DevScanSmem<B> &s, uint32_t *warp_prefix) {
  constexpr int V = E / 4, W = B / 32;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint32_t total[V], incl[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {  // in-thread inclusive scan of each vector
    t.v[j].y += t.v[j].x;
    t.v[j].z += t.v[j].y;
    t.v[j].w += t.v[j].z;
    total[j] = incl[j] = t.v[j].w;
  }
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {  // the V warp scans, interleaved
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const uint32_t y = __shfl_up_sync(0xffffffffu, incl[j], off);
      if (lane >= off) incl[j] += y;
    }
  }
  uint32_t carry = 0;  // warp-local: the vectors j' < j of all lanes come first
#pragma unroll
  for (int j = 0; j < V; ++j) {
    const uint32_t d = carry + incl[j] - total[j];  // the words before this vector
    t.v[j].x += d, t.v[j].y += d, t.v[j].z += d, t.v[j].w += d;
    carry += __shfl_sync(0xffffffffu, incl[j], 31);
  }
  if (lane == 31) s.warp_total[warp] = carry;
  __syncthreads();
  uint32_t before = 0, all = 0;
#pragma unroll
  for (int w = 0; w < W; ++w) {
    const uint32_t x = s.warp_total[w];
    before += w < warp ? x : 0u;
    all += x;
  }
  *warp_prefix = before;
  return all;
}

// The tile's sum, to every thread (three_kernel, grid_sync phase 1).
template <int B>
__device__ uint32_t dev_block_sum(uint32_t v, DevScanSmem<B> &s) {
  v = __reduce_add_sync(0xffffffffu, v);
  if ((threadIdx.x & 31) == 0) s.warp_total[threadIdx.x >> 5] = v;
  __syncthreads();
  uint32_t all = 0;
#pragma unroll
  for (int w = 0; w < B / 32; ++w) all += s.warp_total[w];
  return all;
}

// ---- shared phases of the multi-pass variants ----

template <int B, int E>
__device__ void dev_reduce_tile(const DevscanParams &p, int tile, DevScanSmem<B> &s) {
  DevTile<B, E> t;
  t.load(p.in, (long long)tile * t.items, p.n);
  const uint32_t sum = dev_block_sum<B>(t.thread_sum(), s);
  if (threadIdx.x == 0) p.sums[tile] = sum;
}

// One block: the tile sums, scanned inclusive in place, B*E at a time.
template <int B, int E>
__device__ void dev_scan_sums(const DevscanParams &p, DevScanSmem<B> &s) {
  uint32_t carry = 0;
  for (long long base = 0; base < p.tiles; base += DevTile<B, E>::items) {
    DevTile<B, E> t;
    t.load(p.sums, base, p.tiles);
    uint32_t wp;
    const uint32_t all = dev_block_scan(t, s, &wp);
    t.add(carry + wp);
    t.store(p.sums, base, p.tiles);
    carry += all;
    __syncthreads();  // every warp has read warp_total before the next chunk writes it
  }
}

// Phase 3: the tile scanned, plus the inclusive sum of the tiles before it.
template <int B, int E>
__device__ void dev_scan_tile_offset(const DevscanParams &p, int tile, DevScanSmem<B> &s) {
  DevTile<B, E> t;
  const long long base = (long long)tile * t.items;
  t.load(p.in, base, p.n);
  const uint32_t offset = tile > 0 ? p.sums[tile - 1] : 0u;
  uint32_t wp;
  dev_block_scan(t, s, &wp);
  t.add(offset + wp);
  t.store(p.out, base, p.n);
}

// ---- flags: the single-pass hand-offs ----

// The status words, the flag policies (memory order, sleeps) and the
// look-back: kernels/common/lookback.cuh (DevFlags), which the barrier price list's
// flag_handoff and lookback_walk rows time on their own.

// Tile ids in the order blocks start (an atomic counter, tiles ids a
// launch), so every tile a block waits on belongs to a block that is
// already running.
template <int B>
__device__ int dev_next_tile(const DevscanParams &p, DevScanSmem<B> &s) {
  if (threadIdx.x == 0) s.tile = atomicAdd(p.counter, 1u) - sb_epoch_begin(p.epoch, (unsigned)p.tiles);
  __syncthreads();
  return (int)s.tile;
}

// ---- the variants: how a tile learns its prefix ----

struct DevThreeKernel {  // kernels: reduce, scan sums, then this one
  static constexpr bool twin = false, cooperative = false, persistent = false, clustered = false,
                        pdl = false;
  template <int B, int E, bool Bounded>
  __device__ static void run(const DevscanParams &p, DevScanSmem<B> &s) {
    dev_scan_tile_offset<B, E>(p, blockIdx.x, s);
  }
};

// three_kernel_pdl: three_kernel's kernels (the same tile, loader, block
// scan, launch bounds and arithmetic) chained by programmatic dependent
// launch (kernels/common/pdl.cuh): kernel 1 is an ordinary launch (it overwrites
// the tile sums the previous scan's kernel 3 read, so it must wait for all
// of it), kernels 2 and 3 are PDL secondaries of the kernel before them.
//
//   kernel 1 (reduce)     load, block sum, thread 0 stores sums[tile], then
//                         triggers: kernel 2 may launch once every block has
//                         issued the store kernel 2 needs (the trigger makes
//                         nothing visible; kernel 2's wait does).
//   kernel 2 (1 block)    triggers at once: kernel 3's prologue reads nothing
//                         kernel 2 writes, and while this one block scans the
//                         sums every other SM is idle; then waits (kernel 1
//                         complete, every sum visible) and scans the sums.
//   kernel 3 (scan+offset) prologue: loads its own input tile (no kernel of
//                         the scan writes the input); then waits (kernel 2
//                         complete and flushed, and kernel 1 before it, since
//                         kernel 2 waited for it); then reads its offset,
//                         scans, adds, stores: three_kernel's order from the
//                         offset on, so the offset's load still overlaps the
//                         block scan.
//
// Why the waits are enough: griddepcontrol.wait returns only when the
// prerequisite grid has completed and all its memory operations are
// performed and visible to this grid (PTX ISA, griddepcontrol; the guide's
// "completed and flushed results to global memory"), while launch_dependents
// only lets the dependent be scheduled and orders no memory. So every read of
// a predecessor's output (kernel 2: the sums; kernel 3: the scanned sums)
// comes after a wait, and so does every write a predecessor could still
// read (kernel 2 scans the sums in place). Nothing spins: kernel 2 is one
// block and waits only in griddepcontrol.wait on kernel 1, all of whose
// blocks have started (kernel 2 launches only after each triggered or
// exited); kernel 3 waits on kernel 2, which is running (it triggered). A
// kernel 3 block that starts early holds its SM slot while it waits, which
// takes a slot from nobody: every block of kernels 1 and 2 is resident by then.
//
// Early (the default row): kernel 2 triggers at its start. !Early (the
// tuning build's three_kernel_pdl_late): after its last store, so kernel 3
// overlaps only kernel 2's exit and flush, not its scan.
template <bool Early>
struct DevThreeKernelPdlT {  // kernels: devscan_pdl_reduce_kernel, devscan_pdl_sums_kernel, this
  static constexpr bool twin = false, cooperative = false, persistent = false, clustered = false,
                        pdl = true, early = Early;
  template <int B, int E, bool Bounded>
  __device__ static void run(const DevscanParams &p, DevScanSmem<B> &s) {
#if __CUDA_ARCH__ >= 900
    const int tile = blockIdx.x;
    DevTile<B, E> t;
    const long long base = (long long)tile * t.items;
    t.load(p.in, base, p.n);  // the prologue: independent of kernels 1 and 2
    sb_pdl_wait();            // kernel 2 complete, the scanned sums visible
    const uint32_t offset = tile > 0 ? p.sums[tile - 1] : 0u;
    uint32_t wp;
    dev_block_scan(t, s, &wp);
    t.add(offset + wp);
    t.store(p.out, base, p.n);
#else
    (void)p, (void)s;
    __trap();  // min_cc 90: the runner never launches it below sm_90 or from compute_80 PTX
#endif
  }
};
using DevThreeKernelPdl = DevThreeKernelPdlT<true>;

struct DevGridSync {
  static constexpr bool twin = false, cooperative = true, persistent = true, clustered = false,
                        pdl = false;
  template <int B, int E, bool Bounded>
  __device__ static void run(const DevscanParams &p, DevScanSmem<B> &s) {
    cg::grid_group grid = cg::this_grid();
    for (int t = blockIdx.x; t < p.tiles; t += gridDim.x) {
      dev_reduce_tile<B, E>(p, t, s);
      __syncthreads();  // warp_total reads done before the next tile writes it
    }
    grid.sync();  // every tile sum written
    if (blockIdx.x == 0) dev_scan_sums<B, E>(p, s);
    grid.sync();  // the scanned sums written
    for (int t = blockIdx.x; t < p.tiles; t += gridDim.x) {
      dev_scan_tile_offset<B, E>(p, t, s);
      __syncthreads();
    }
  }
};

struct DevChained {
  static constexpr bool twin = true, cooperative = false, persistent = false, clustered = false,
                        pdl = false;
  template <int B, int E, bool Bounded>
  __device__ static void run(const DevscanParams &p, DevScanSmem<B> &s) {
    const int tile = dev_next_tile<B>(p, s);
    DevTile<B, E> t;
    const long long base = (long long)tile * t.items;
    t.load(p.in, base, p.n);
    uint32_t wp;
    const uint32_t all = dev_block_scan(t, s, &wp);
    if (threadIdx.x == 0) {
      using F = DevFlags<DevLookAcqRel, Bounded>;
      const F flags{p.flags, p.tiles, p.flag_a, p.flag_p};
      const uint32_t prefix = tile > 0 ? flags.wait_inclusive(tile - 1) : 0u;
      flags.publish(tile, F::P, prefix + all);
      s.prefix = prefix;
    }
    __syncthreads();  // the prefix, to the block
    t.add(s.prefix + wp);
    t.store(p.out, base, p.n);
  }
};

// Warp 0 of a single-pass look-back tile: publishes the tile's aggregate
// (A; tile 0 its inclusive prefix, P), looks back over its predecessors'
// words, publishes P, and leaves the tile's exclusive prefix in s.prefix
// for the caller's __syncthreads to hand to the block. Every thread calls
// it; threads past warp 0 do nothing.
template <class Pol, bool Bounded, int B>
__device__ __forceinline__ void dev_tile_prefix(const DevscanParams &p, int tile, uint32_t all,
                                                DevScanSmem<B> &s) {
  if (threadIdx.x >= 32) return;
  using F = DevFlags<Pol, Bounded>;
  F flags{p.flags, p.tiles, p.flag_a, p.flag_p};
  if constexpr (Pol::min_tiles == DEV_SLEEP_MIN_TILES_RUNTIME) flags.sleep_min = dev_sleep_min_tiles;
  if (threadIdx.x == 0) flags.publish(tile, tile > 0 ? F::A : F::P, all);
  if (tile > 0) {
    const uint32_t prefix = flags.look_back(tile);
    if (threadIdx.x == 0) {
      flags.publish(tile, F::P, prefix + all);
      s.prefix = prefix;
    }
  } else if (threadIdx.x == 0) {
    s.prefix = 0;
  }
}

// Pol: memory order and sleeps. Dynamic = false (blockIdx.x tile ids, as
// CUB) and Cs (streaming cache hints) serve only the tuning build's
// ablation (SB_DEVSCAN_TUNING); every table row of the default build uses
// the atomic counter and plain accesses.
template <class Pol, bool Dynamic = true, bool Cs = false>
struct DevLookbackT {
  static constexpr bool twin = true, cooperative = false, persistent = false, clustered = false,
                        pdl = false;
  template <int B, int E, bool Bounded>
  __device__ static void run(const DevscanParams &p, DevScanSmem<B> &s) {
    const int tile = Dynamic ? dev_next_tile<B>(p, s) : (int)blockIdx.x;
    DevTile<B, E, Cs> t;
    const long long base = (long long)tile * t.items;
    t.load(p.in, base, p.n);
    uint32_t wp;
    const uint32_t all = dev_block_scan(t, s, &wp);
    dev_tile_prefix<Pol, Bounded>(p, tile, all, s);
    __syncthreads();  // the prefix, to the block
    t.add(s.prefix + wp);
    t.store(p.out, base, p.n);
  }
};
using DevLookback = DevLookbackT<DevLookAcqRel>;
using DevLookbackRelaxed = DevLookbackT<DevLookRelaxed>;

#ifdef SB_EXPERIMENTAL
// lookback_tma (sm_90): lookback_relaxed's protocol (the same words, look-back,
// sleeps and tile scan) in persistent blocks whose NEXT tile is in flight
// while this one is scanned, looked back and stored: thread 0 takes the next
// tile id and issues one bulk copy (cp.async.bulk, the copy engine) of it
// into the block's one shared-memory stage as soon as every thread has read
// the current tile out of it, so a block's input keeps streaming through
// its look-back (lookback_relaxed's block has nothing in flight while it
// waits). The tile itself lives in registers, as in every variant.
//
// Per tile: wait full (parity tracked: flips per bulk copy) | each thread
// reads its vectors out of the stage, fence.proxy.async (its generic reads
// before the copy engine's next write) | __syncthreads (the stage is free)
// | thread 0: next id (atomic), expect_tx + bulk copy of it | block scan,
// A, look-back, P | __syncthreads (prefix and next id to the block) | add,
// store. A ragged last tile is never staged (its copy would read past n):
// its threads load it from global memory as lookback_relaxed does.
// Tile ids still come from the counter in the order they are taken, and a
// block takes an id only while it runs and finishes its tiles in the order
// it took them, so the lowest unfinished tile's block is working on it: no
// wait on a block that is not running. A launch takes every id once plus one
// past the end per block (the id that ends its loop).
// Measured slower than lookback_relaxed on an H200 (68% of the copy at 256M
// against 84%; docs/history.md, "A look-back whose next tile is in flight"):
// experimental until why is understood.
template <class Pol>
struct DevLookbackTmaT {
  static constexpr bool twin = true, cooperative = false, persistent = true, clustered = false,
                        pdl = false;
  template <int B, int E, bool Bounded>
  __device__ static void run(const DevscanParams &p, DevScanSmem<B> &s) {
#if __CUDA_ARCH__ >= 900
    using T = DevTile<B, E>;
    extern __shared__ __align__(128) uint4 dev_stage[];  // one tile, T::items words
    __shared__ uint64_t full;
    constexpr uint32_t bytes = T::items * 4u;
    const unsigned ids = (unsigned)p.tiles + gridDim.x;  // a launch's ids (above)
    const uint32_t bar = sb_mbar_addr(&full);
    auto whole = [&](int tile) { return (long long)(tile + 1) * T::items <= p.n; };
    auto take = [&]() {  // thread 0: the next tile id, its copy issued if it is whole
      const int next = (int)(atomicAdd(p.counter, 1u) - sb_epoch_begin(p.epoch, ids));
      if (next < p.tiles && whole(next)) {
        sb_mbar_arrive_expect_tx(bar, bytes);
        sb_bulk_copy_g2s(dev_stage, p.in + (long long)next * T::items, bytes, bar);
      }
      s.tile = (unsigned)next;
    };
    if (threadIdx.x == 0) {
      sb_mbar_init(&full, 1);
      sb_fence_mbarrier_init();  // the init, to the copy engine's complete_tx
      take();
    }
    __syncthreads();  // the barrier's init and the first id
    uint32_t phase = 0;
    for (int tile = (int)s.tile; tile < p.tiles;) {
      T t;
      const long long base = (long long)tile * T::items;
      if (whole(tile)) {
        sb_mbar_wait_parity_stage<Bounded>(bar, phase, 0);  // acquire: the copy's bytes landed
        phase ^= 1u;
        t.load_shared(dev_stage);
        sb_fence_proxy_async_shared();  // these reads before the copy engine's next write
      } else {
        t.load(p.in, base, p.n);
      }
      __syncthreads();  // every thread's reads of the stage (and of the last id) are done
      if (threadIdx.x == 0) take();
      uint32_t wp;
      const uint32_t all = dev_block_scan(t, s, &wp);
      dev_tile_prefix<Pol, Bounded>(p, tile, all, s);
      __syncthreads();  // the prefix and the next id, to the block
      t.add(s.prefix + wp);
      tile = (int)s.tile;
      t.store(p.out, base, p.n);
    }
#else
    (void)p, (void)s;
    __trap();  // min_cc 90: never launched below sm_90
#endif
  }
};
using DevLookbackTma = DevLookbackTmaT<DevLookRelaxed>;
#endif

// Clusters of DEV_CLUSTER blocks, persistent (the grid is what is resident,
// in whole clusters); cluster ids from the counter (dev_next_cluster). Rank r's tile is
// cid * C + r. Per cluster tile: each block writes its aggregate into rank
// 0's shared memory | cluster barrier | rank 0's warp 0 publishes the
// cluster's A, looks back over cluster words, publishes P, writes each
// rank's prefix and the next cluster id | cluster barrier | each block
// reads its prefix and the next id from rank 0.
#define DEV_CLUSTER 4
struct DevClusterShared {
  uint32_t agg[DEV_CLUSTER];     // in rank 0: each rank's tile sum
  uint32_t prefix[DEV_CLUSTER];  // in rank 0: each rank's exclusive prefix
  unsigned int cid;              // in rank 0: the cluster tile to do next
};

struct DevClusterLookback {
  static constexpr bool twin = true, cooperative = false, persistent = true, clustered = true,
                        pdl = false;
  template <int B, int E, bool Bounded>
  __device__ static void run(const DevscanParams &p, DevScanSmem<B> &s) {
#if __CUDA_ARCH__ >= 900
    __shared__ DevClusterShared cs;
    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank();
    DevClusterShared *root = cluster.map_shared_rank(&cs, 0);
    const int clusters = (p.tiles + DEV_CLUSTER - 1) / DEV_CLUSTER;
    if (rank == 0 && threadIdx.x == 0) cs.cid = dev_next_cluster(p);
    cluster.sync();  // the first cluster id
    for (int cid = (int)root->cid; cid < clusters;) {
      const int tile = cid * DEV_CLUSTER + rank;
      DevTile<B, E> t;
      const long long base = (long long)tile * t.items;
      t.load(p.in, base, p.n);
      uint32_t wp;
      const uint32_t all = dev_block_scan(t, s, &wp);
      if (threadIdx.x == 0) root->agg[rank] = all;
      cluster.sync();  // release/acquire: the cluster's aggregates, in rank 0
      if (rank == 0 && threadIdx.x < 32) cluster_prefix<Bounded>(p, cid, cs);
      cluster.sync();  // rank 0's prefixes and next id
      t.add(root->prefix[rank] + wp);
      cid = (int)root->cid;
      t.store(p.out, base, p.n);
    }
    cluster.sync();  // no block leaves while another may still read rank 0's memory
#else
    (void)p, (void)s;
    __trap();  // min_cc 90: the runner never launches it on older GPUs
#endif
  }

 private:
  // Rank 0, warp 0: the cluster's A, its look-back, its P, each rank's
  // prefix and the next cluster id, into rank 0's shared memory (which the
  // next cluster barrier publishes to the other ranks).
  template <bool Bounded>
  __device__ static void cluster_prefix(const DevscanParams &p, int cid, DevClusterShared &cs) {
    const int lane = threadIdx.x & 31;
    const uint32_t mine = lane < DEV_CLUSTER ? cs.agg[lane] : 0u;
    uint32_t incl = mine;
#pragma unroll
    for (int off = 1; off < DEV_CLUSTER; off <<= 1) {
      const uint32_t y = __shfl_up_sync(0xffffffffu, incl, off);
      if (lane >= off) incl += y;
    }
    const uint32_t all = __shfl_sync(0xffffffffu, incl, DEV_CLUSTER - 1);
    using F = DevFlags<DevLookAcqRel, Bounded>;
    const F flags{p.flags, (p.tiles + DEV_CLUSTER - 1) / DEV_CLUSTER, p.flag_a, p.flag_p};
    if (lane == 0) flags.publish(cid, cid > 0 ? F::A : F::P, all);
    uint32_t prefix = 0;
    if (cid > 0) {
      prefix = flags.look_back(cid);
      if (lane == 0) flags.publish(cid, F::P, prefix + all);
    }
    if (lane < DEV_CLUSTER) cs.prefix[lane] = prefix + incl - mine;
    if (lane == 0) cs.cid = dev_next_cluster(p);
  }

  // The next cluster tile id. A launch takes every id below the cluster
  // tiles' count once, plus one past it per resident cluster (its last).
  __device__ static unsigned dev_next_cluster(const DevscanParams &p) {
    const unsigned clusters = (unsigned)((p.tiles + DEV_CLUSTER - 1) / DEV_CLUSTER);
    return atomicAdd(p.counter, 1u) - sb_epoch_begin(p.epoch, clusters + gridDim.x / DEV_CLUSTER);
  }
};

// Occupancy: every kernel of the family asks for the threads of 9 resident
// blocks of 128 (registers capped at 56), what the plainest kernels
// (three_kernel, chained) reach uncapped, so that the variants differ in
// their synchronization, not their occupancy. Against uncapped (H100,
// results/h100-80gb-hbm3/proofs/probes_2c330e6, A/B both orders, 256M): lookback +1.3-1.7 points of
// copy, lookback_relaxed +0.3-0.5, the others within 0.5. Where the cap
// spills, fewer: grid_sync as built (it spills at 56 and lost 4 points),
// cluster_lookback 7 blocks (72 registers; at 64 it spills 4 bytes).
template <class V>
struct DevMinBlocks128 {
  static constexpr int value = 9;
};
template <>
struct DevMinBlocks128<DevGridSync> {
  static constexpr int value = 1;
};
template <>
struct DevMinBlocks128<DevClusterLookback> {
  static constexpr int value = 7;
};
#define DEV_LAUNCH_BOUNDS_N(N, B) __launch_bounds__(B, (N) * 128 / (B) > 0 ? (N) * 128 / (B) : 1)
#define DEV_LAUNCH_BOUNDS(B) DEV_LAUNCH_BOUNDS_N(9, B)

template <class V, int B, int E, bool Bounded>
__global__ void DEV_LAUNCH_BOUNDS_N(DevMinBlocks128<V>::value, B) devscan_kernel(const DevscanParams p) {
  __shared__ DevScanSmem<B> s;
  V::template run<B, E, Bounded>(p, s);
}

template <int B, int E>
__global__ void DEV_LAUNCH_BOUNDS(B) devscan_reduce_kernel(const DevscanParams p) {
  __shared__ DevScanSmem<B> s;
  dev_reduce_tile<B, E>(p, blockIdx.x, s);
}

template <int B, int E>
__global__ void DEV_LAUNCH_BOUNDS(B) devscan_sums_kernel(const DevscanParams p) {
  __shared__ DevScanSmem<B> s;
  dev_scan_sums<B, E>(p, s);
}

// three_kernel_pdl's first two kernels (DevThreeKernelPdlT says who
// triggers and waits where). Early leads the template arguments: a last
// `false` reads as a raw twin's Bounded flag to scripts/twin_sass.py.
template <int B, int E>
__global__ void DEV_LAUNCH_BOUNDS(B) devscan_pdl_reduce_kernel(const DevscanParams p) {
#if __CUDA_ARCH__ >= 900
  __shared__ DevScanSmem<B> s;
  dev_reduce_tile<B, E>(p, blockIdx.x, s);             // thread 0 stores the tile's sum
  if (threadIdx.x == 0) sb_pdl_launch_dependents();  // after that store (issued, not visible)
#else
  (void)p;
  __trap();
#endif
}

template <bool Early, int B, int E>
__global__ void DEV_LAUNCH_BOUNDS(B) devscan_pdl_sums_kernel(const DevscanParams p) {
#if __CUDA_ARCH__ >= 900
  __shared__ DevScanSmem<B> s;
  if (Early) sb_pdl_launch_dependents();   // kernel 3's prologue needs nothing of ours
  sb_pdl_wait();                           // kernel 1 complete: every tile sum visible
  dev_scan_sums<B, E>(p, s);
  if (!Early) sb_pdl_launch_dependents();  // after the last store of the scanned sums
#else
  (void)p;
  __trap();
#endif
}

// ---- host side: shapes, workspace, launchers ----

// The tile shapes compiled (block_threads x elems_per_thread); the default
// sweep's points are among them (tests/c/test_compiled_shapes.c checks it).
using DevBlocks = sb_values<128, 256, 512>;
using DevElems = sb_values<8, 16, 24, 32>;
static constexpr bool dev_compiled(int b, int e) {
  return (b == 128 && (e == 16 || e == 24 || e == 32)) || (b == 256 && (e == 8 || e == 16 || e == 24)) ||
         (b == 512 && e == 8);
}

// Calls f(B, E) (integral constants) for a compiled shape; false if none.
template <class F>
static bool dev_with_shape(long long b, long long e, F &&f) {
  bool found = false;
  sb_dispatch(b, DevBlocks{}, [&](auto B) {
    constexpr int bv = decltype(B)::value;
    sb_dispatch(e, DevElems{}, [&](auto E) {
      if constexpr (dev_compiled(bv, decltype(E)::value)) {
        f(std::integral_constant<int, bv>{}, E);
        found = true;
      }
    });
  });
  return found;
}

// Dynamic shared memory: lookback_tma's stage (one tile); none elsewhere.
template <class V, int B, int E>
struct DevStageBytes {
  static constexpr size_t value = 0;
};
#ifdef SB_EXPERIMENTAL
template <class Pol, int B, int E>
struct DevStageBytes<DevLookbackTmaT<Pol>, B, E> {
  static constexpr size_t value = (size_t)B * E * 4;
};
#endif

template <class V, int B, int E>
static sb_kernels dev_kernels() {
  return sb_twin_kernels<V::twin>(
      [](auto bounded) { return devscan_kernel<V, B, E, decltype(bounded)::value>; },
      DevStageBytes<V, B, E>::value);
}

template <class V>
static int dev_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  if (dev_with_shape(axis[SB_AXIS_BLOCK], axis[SB_AXIS_ELEMS], [&](auto B, auto E) {
        *k = dev_kernels<V, decltype(B)::value, decltype(E)::value>();
      }))
    return 0;
  snprintf(why, len,
           "block_threads=%lld elems_per_thread=%lld has no compiled kernel "
           "(compiled: 128x16, 128x24, 128x32, 256x8, 256x16, 256x24, 512x8)",
           axis[SB_AXIS_BLOCK], axis[SB_AXIS_ELEMS]);
  return -1;
}

// ---- the look-back's tuning: axes window, first_sleep_ns, poll_sleep_ns,
// sleep_min_tiles (lookback and lookback_relaxed only) ----

// A point that leaves them blank (the default sweep) or gives today's values
// (DevLookAcqRel / DevLookRelaxed: 32 words, 3000 / 648 ns, 500 tiles) runs
// the table row's own kernel. Any other combination runs a tuning instance:
// the same DevLookbackT with the window and the sleeps compile-time and the
// threshold read at run time, compiled for every combination of the values
// below at the tile shapes dev_tuned names (the default sweep's shape at
// 256M and its neighbours: docs/devscan.md, "Tuning the look-back"). A
// window of 64 at 128x32 is not compiled: its two words a lane in flight
// need 2 registers more than the 56 of 9 resident blocks, and its timed
// kernel spilled 8 bytes (sm_90a).
//
// PER-DEVICE SELECTION, NOT WRITTEN: if the measurement (scripts/devscan_tuning.sh)
// shows that the best values differ between GPUs, an `auto` value of these
// axes goes here, resolved from the device's properties (SM count, blocks per
// SM, memory bandwidth, L2 size) by a pure host function with a unit test, as
// gemm's splits=auto is (sb_gemm_auto_splits); docs/devscan.md, "Choosing the
// parameters from the device", says what each value would depend on.
using DevWindows = sb_values<32, 64>;
using DevFirstSleeps = sb_values<0, 1245, 3000>;
using DevPollSleeps = sb_values<0, 648>;
static constexpr bool dev_tuned(int w, int b, int e) {
  return (b == 128 && e == 24) || (b == 256 && e == 16) || (b == 128 && e == 32 && w == 32);
}
#define DEV_TUNED_LIST                                                             \
  "window 32,64 x first_sleep_ns 0,1245,3000 x poll_sleep_ns 0,648 at 128x24 and " \
  "256x16, window 32 at 128x32"

static long long dev_axis_or(const long long *axis, int a, long long today) {
  return axis[a] == SB_AXIS_UNSET ? today : axis[a];
}

template <class Pol>
static bool dev_tuning_is_today(const long long *axis) {
  return dev_axis_or(axis, SB_AXIS_WINDOW, Pol::window) == Pol::window &&
         dev_axis_or(axis, SB_AXIS_FIRST_SLEEP, Pol::first_ns) == Pol::first_ns &&
         dev_axis_or(axis, SB_AXIS_POLL_SLEEP, Pol::poll_ns) == Pol::poll_ns &&
         dev_axis_or(axis, SB_AXIS_SLEEP_MIN_TILES, Pol::min_tiles) == Pol::min_tiles;
}

// Pol: the row's own policy (today's values); its memory order is kept.
template <class Pol>
static int dev_pick_lookback(const long long *axis, sb_kernels *k, char *why, size_t len) {
  if (dev_tuning_is_today<Pol>(axis)) return dev_pick<DevLookbackT<Pol>>(axis, k, why, len);
  const long long b = axis[SB_AXIS_BLOCK], e = axis[SB_AXIS_ELEMS];
  bool found = false;
  sb_dispatch(dev_axis_or(axis, SB_AXIS_WINDOW, Pol::window), DevWindows{}, [&](auto W) {
    constexpr int wv = decltype(W)::value;
    sb_dispatch(dev_axis_or(axis, SB_AXIS_FIRST_SLEEP, Pol::first_ns), DevFirstSleeps{}, [&](auto F) {
      sb_dispatch(dev_axis_or(axis, SB_AXIS_POLL_SLEEP, Pol::poll_ns), DevPollSleeps{}, [&](auto P) {
        using T = DevLookbackT<DevLookPolicy<Pol::relaxed, decltype(F)::value, decltype(P)::value,
                                             wv, DEV_SLEEP_MIN_TILES_RUNTIME>>;
        dev_with_shape(b, e, [&](auto B, auto E) {
          constexpr int bv = decltype(B)::value, ev = decltype(E)::value;
          if constexpr (dev_tuned(wv, bv, ev)) {
            *k = dev_kernels<T, bv, ev>();
            found = true;
          }
        });
      });
    });
  });
  if (found) return 0;
  snprintf(why, len,
           "window=%lld first_sleep_ns=%lld poll_sleep_ns=%lld at %lldx%lld has no compiled "
           "look-back (compiled: " DEV_TUNED_LIST ")",
           dev_axis_or(axis, SB_AXIS_WINDOW, Pol::window),
           dev_axis_or(axis, SB_AXIS_FIRST_SLEEP, Pol::first_ns),
           dev_axis_or(axis, SB_AXIS_POLL_SLEEP, Pol::poll_ns), b, e);
  return -1;
}

// One workspace for the process, grown by queries (never inside a timed
// launch): the tile counter, then one 8-byte word per tile (flags, or the
// tile sums of the multi-pass variants).
#define DEV_WS_HEAD 256
static char *dev_ws;
static size_t dev_ws_bytes;

static cudaError_t dev_workspace(size_t bytes) {
  if (bytes <= dev_ws_bytes) return cudaSuccess;
  cudaError_t e = dev_ws ? cudaFree(dev_ws) : cudaSuccess;
  dev_ws = nullptr;
  dev_ws_bytes = 0;
  if (e == cudaSuccess) e = cudaMalloc((void **)&dev_ws, bytes);
  if (e == cudaSuccess) dev_ws_bytes = bytes;
  return e;
}

// What runs before the variant's kernel, inside the timed launch: the
// three_kernel scheme's first two kernels (three_kernel_pdl: kernel 1 an
// ordinary launch, kernel 2 a PDL secondary of it). The single-pass
// variants run nothing before theirs: their counter and flags are numbered
// by launch (dev_number_launch).
template <class V>
static cudaError_t dev_before(sb_launch *L, const DevscanParams &p) {
  if constexpr (std::is_same<V, DevThreeKernel>::value) {
    dev_with_shape(L->axis[SB_AXIS_BLOCK], L->axis[SB_AXIS_ELEMS], [&](auto B, auto E) {
      constexpr int b = decltype(B)::value, e = decltype(E)::value;
      devscan_reduce_kernel<b, e><<<p.tiles, b, 0, L->stream>>>(p);
      devscan_sums_kernel<b, e><<<1, b, 0, L->stream>>>(p);
    });
    return cudaGetLastError();
  } else if constexpr (V::pdl) {
    cudaError_t err = cudaSuccess;
    dev_with_shape(L->axis[SB_AXIS_BLOCK], L->axis[SB_AXIS_ELEMS], [&](auto B, auto E) {
      constexpr int b = decltype(B)::value, e = decltype(E)::value;
      devscan_pdl_reduce_kernel<b, e><<<p.tiles, b, 0, L->stream>>>(p);
      err = cudaGetLastError();
      void *args[] = {const_cast<DevscanParams *>(&p)};
      if (err == cudaSuccess)
        err = sb_pdl_launch((const void *)devscan_pdl_sums_kernel<V::early, b, e>, 1, b, L->stream, args);
    });
    return err;
  }
  (void)L, (void)p;
  return cudaSuccess;
}

// Launch numbering of the single-pass variants (sb_epoch_begin, DevFlags::a0):
// the query zeroes the counter and the status words and restarts the count,
// outside every timed launch; each later launch of the point, validating or
// timed, takes the next number. Only a launch that runs takes one: the
// counter must hold (e - 1) x a launch's ids when launch e starts.
// StaleTag (the SB_BROKEN build's planted bug only): the status words of
// every launch are tagged as launch 1's, so from the second launch on a
// look-back takes the words the last launch left for this one's.
static unsigned dev_epoch;  // launches since the point's query
template <class V, bool StaleTag = false>
static cudaError_t dev_number_launch(sb_launch *L, DevscanParams *p, size_t words) {
  if constexpr (V::twin) {
    if (L->query) {
      dev_epoch = 0;
      return cudaMemsetAsync(dev_ws, 0, DEV_WS_HEAD + words * 8, L->stream);
    }
    p->epoch = ++dev_epoch;
    const unsigned tag = (StaleTag ? 1u : p->epoch) << 2;
    p->flag_a = (unsigned long long)(tag + SB_FLAG_A) << 32;
    p->flag_p = (unsigned long long)(tag + SB_FLAG_P) << 32;
  }
  (void)L, (void)p, (void)words;
  return cudaSuccess;
}

template <class V, bool StaleTag = false>
static cudaError_t dev_launch(sb_launch *L) {
  DevscanParams p;
  p.in = (const uint32_t *)L->in;
  p.out = (uint32_t *)L->out;
  p.n = L->axis[SB_AXIS_N];
  const long long block = L->axis[SB_AXIS_BLOCK], items = block * L->axis[SB_AXIS_ELEMS];
  const long long tiles = sb_ceil_div(p.n, items);
  if (tiles > 0x7fffffffLL) return cudaErrorInvalidValue;
  p.tiles = (int)tiles;
  const size_t words = V::clustered ? (size_t)sb_ceil_div(tiles, DEV_CLUSTER) : (size_t)tiles;
  if (L->query) {
    cudaError_t e = dev_workspace(DEV_WS_HEAD + words * 8);
    const int min_tiles = (int)dev_axis_or(L->axis, SB_AXIS_SLEEP_MIN_TILES, DEV_SLEEP_MIN_TILES);
    if (e == cudaSuccess)  // from the stack: a pageable source is staged before the call returns
      e = cudaMemcpyToSymbolAsync(dev_sleep_min_tiles, &min_tiles, sizeof min_tiles, 0,
                                  cudaMemcpyHostToDevice, L->stream);
    if (e != cudaSuccess) return e;
  }
  p.epoch = 0;
  p.flag_a = p.flag_p = 0;
  p.counter = (unsigned int *)dev_ws;
  p.flags = (unsigned long long *)(dev_ws + DEV_WS_HEAD);
  p.sums = (uint32_t *)(dev_ws + DEV_WS_HEAD);
  sb_shape s;
  s.block = (int)block;
  s.grid = V::persistent ? SB_GRID_PERSISTENT : tiles;
  s.work = V::clustered ? (long long)words * DEV_CLUSTER : tiles;
  s.cooperative = V::cooperative;
  s.cluster = V::clustered ? DEV_CLUSTER : 1;
  const bool runs = !L->query && !L->skip[0] && L->blocks_per_sm > 0;
  if (L->query || runs) {  // the query zeroes the words; a launch that runs takes a number
    cudaError_t e = dev_number_launch<V, StaleTag>(L, &p, words);
    if (e == cudaSuccess && runs) e = dev_before<V>(L, p);
    if (e != cudaSuccess) return e;
  }
  if constexpr (V::pdl) {  // kernel 3: a PDL secondary of kernel 2
    if (L->query) return sb_launch_query(L, s);
    if (L->skip[0] || L->blocks_per_sm == 0) return cudaErrorInvalidConfiguration;
    void *args[] = {&p};
    return sb_launch_go_pdl(L, args);
  }
  return sb_launch_params(L, s, p);
}

// CUB on the same buffers; its temporary storage is sized and allocated by
// the query (once per size), outside the timed region.
static cudaError_t dev_cub_launch(sb_launch *L) {
  static void *temp;
  static size_t temp_bytes;
  const long long n = L->axis[SB_AXIS_N];
  if (n > 0x7fffffffLL) return cudaErrorInvalidValue;
  if (L->query) {
    size_t need = 0;
    cudaError_t e = cub::DeviceScan::InclusiveSum(nullptr, need, (const uint32_t *)nullptr,
                                                  (uint32_t *)nullptr, (int)n, L->stream);
    if (e == cudaSuccess && need > temp_bytes) {
      if (temp) cudaFree(temp);
      temp = nullptr;
      temp_bytes = 0;
      e = cudaMalloc(&temp, need);
      if (e == cudaSuccess) temp_bytes = need;
    }
    L->grid_blocks = 0;  // CUB's kernels: no occupancy of ours to report
    L->blocks_per_sm = -1;
    L->smem_bytes = 0;
    return e;
  }
  size_t bytes = temp_bytes;
  return cub::DeviceScan::InclusiveSum(temp, bytes, (const uint32_t *)L->in, (uint32_t *)L->out,
                                       (int)n, L->stream);
}

// A table row of variant V: its launcher and picker from its type.
template <class V, bool StaleTag = false>
static constexpr sb_variant dev_row(const char *name, int min_cc, unsigned flags, const char *summary) {
  return {name, dev_launch<V, StaleTag>, dev_pick<V>, min_cc, flags, summary};
}
// A look-back row whose tuning axes pick its kernel (dev_pick_lookback).
template <class Pol>
static constexpr sb_variant dev_lookback_row(const char *name, const char *summary) {
  return {name, dev_launch<DevLookbackT<Pol>>, dev_pick_lookback<Pol>, 0,
          SB_VF_DEVSCAN_RESET | SB_VF_DEVSCAN_TUNING, summary};
}
// A tuning row of the first-sleep sweep: relaxed look-back, first sleep NS, CUB's 648 ns poll.
#define DEV_SLEEP_ROW(NS)                                                                     \
  dev_row<DevLookbackT<DevLookPolicy<true, NS, 648>>>("lookback_rlx_s" #NS, 0, SB_VF_DEVSCAN_RESET, \
                                                      "relaxed, " #NS "/648 ns sleeps")

// cub first: at every n its row is measured before the others.
static const sb_variant devscan_rows[] = {
    {"cub", dev_cub_launch, NULL, 0, SB_VF_NO_KERNEL | SB_VF_CEILING,
     "cub::DeviceScan::InclusiveSum (its own init kernel + look-back scan): the ceiling"},
    dev_row<DevThreeKernel>("three_kernel", 0, SB_VF_BASELINE,
     "reduce tiles | scan tile sums in 1 block | scan tiles + offset: 2 kernel boundaries"),
    dev_row<DevGridSync>("grid_sync", 0, 0,
     "the same 3 phases in 1 cooperative resident grid: 2 grid.sync()"),
    dev_row<DevChained>("chained", 0, SB_VF_DEVSCAN_RESET,
     "1 pass, atomic tile ids; each tile waits for its predecessor's P flag"),
    dev_lookback_row<DevLookAcqRel>("lookback",
     "1 pass, atomic tile ids; A then P flags (release), sleep, warp look-back 32 wide (acquire)"),
    dev_lookback_row<DevLookRelaxed>("lookback_relaxed",
     "lookback with relaxed flag stores and loads (the packed word needs no fence): the fences' price"),
    dev_row<DevClusterLookback>("cluster_lookback", 90, SB_VF_DEVSCAN_RESET,
     "clusters of 4 sum aggregates in DSMEM (2 cluster barriers), look back per cluster"),
    dev_row<DevThreeKernelPdl>("three_kernel_pdl", SB_PDL_MIN_CC, SB_VF_PDL,
     "three_kernel chained by PDL: kernels 2, 3 launch early, load what they can, griddepcontrol.wait"),
#ifdef SB_EXPERIMENTAL
    dev_row<DevLookbackTma>("lookback_tma", 90, SB_VF_DEVSCAN_RESET,
     "lookback_relaxed in persistent blocks: the next tile's bulk copy (TMA) in flight during this tile's look-back"),
    dev_row<DevLookbackTmaT<DevLookPolicy<true, 1245, 648>>>("lookback_tma_s1245", 90, SB_VF_DEVSCAN_RESET,
     "lookback_tma, 1245/648 ns sleeps"),
    dev_row<DevLookbackTmaT<DevLookPolicy<true, 0, 648>>>("lookback_tma_s0", 90, SB_VF_DEVSCAN_RESET,
     "lookback_tma, no first sleep, 648 ns polls"),
#endif
#ifdef SB_BROKEN
    // The planted bug (make SB_BROKEN=1 only): lookback_relaxed whose status
    // words keep launch 1's tag; the first launch after the query validates,
    // the runner's second validation on the workspace the timed launches
    // left reads stale prefixes: `wrong` (scripts/gpu_round.sh step b).
    dev_row<DevLookbackRelaxed, true>("lookback_stale_tag", 0, SB_VF_DEVSCAN_RESET | SB_VF_TEST_ONLY,
     "TEST ONLY: lookback_relaxed whose launches all tag their words as launch 1: stale look-backs"),
#endif
#ifdef SB_DEVSCAN_TUNING
    // The look-back ablation behind the choices above (make NVEXTRA=-DSB_DEVSCAN_TUNING;
    // results/h100-80gb-hbm3/proofs/devscan/): memory order x sleeps x tile ids x cache hints.
    dev_row<DevLookbackT<DevLookPolicy<false, 0, 0>>>("lookback_nodelay", 0, SB_VF_DEVSCAN_RESET,
     "acq/rel, no sleeps"),
    dev_row<DevLookbackT<DevLookPolicy<true, 0, 0>>>("lookback_rlx", 0, SB_VF_DEVSCAN_RESET,
     "relaxed, no sleeps"),
    dev_row<DevLookbackT<DevLookPolicy<true, 500, 200>>>("lookback_rlx_dly2", 0, SB_VF_DEVSCAN_RESET,
     "relaxed, 500/200 ns sleeps"),
    dev_row<DevLookbackT<DevLookPolicy<true, 0, 300>>>("lookback_rlx_poll", 0, SB_VF_DEVSCAN_RESET,
     "relaxed, 300 ns poll sleep only"),
    dev_row<DevLookbackT<DevLookPolicy<true, 0, 0>, false>>("lookback_rlx_bid", 0, SB_VF_DEVSCAN_RESET,
     "relaxed, blockIdx tile ids"),
    dev_row<DevLookbackT<DevLookPolicy<true, 0, 0>, true, true>>("lookback_rlx_cs", 0, SB_VF_DEVSCAN_RESET,
     "relaxed, ld/st.cs"),
    dev_row<DevLookbackT<DevLookPolicy<true, 1245, 648>, false>>("lookback_rlx_dly_bid", 0,
     SB_VF_DEVSCAN_RESET, "relaxed, 1245/648 ns sleeps, blockIdx ids: CUB's"),
    // The first sleep swept around CUB's 1245 ns (the default is 3000 ns
    // since the sweep), a longer poll sleep, and CUB's sleeps with streaming
    // hints (issue 39: the look-back nearer copy).
    dev_row<DevLookbackT<DevLookPolicy<true, 1245, 648>>>("lookback_rlx_s1245", 0, SB_VF_DEVSCAN_RESET,
     "relaxed, 1245/648 ns sleeps (CUB's)"),
    DEV_SLEEP_ROW(1800),
    DEV_SLEEP_ROW(2500),
    DEV_SLEEP_ROW(3500),
    DEV_SLEEP_ROW(2000),
    DEV_SLEEP_ROW(3000),
    DEV_SLEEP_ROW(5000),
    dev_row<DevLookbackT<DevLookPolicy<false, 2500, 648>>>("lookback_s2500", 0, SB_VF_DEVSCAN_RESET,
     "acq/rel, 2500/648 ns sleeps"),
    dev_row<DevLookbackT<DevLookPolicy<true, 1245, 1200>>>("lookback_rlx_p1200", 0, SB_VF_DEVSCAN_RESET,
     "relaxed, 1245/1200 ns sleeps"),
    dev_row<DevLookbackT<DevLookPolicy<true, 1245, 648>, true, true>>("lookback_rlx_dly_cs", 0,
     SB_VF_DEVSCAN_RESET, "relaxed, 1245/648 ns sleeps, ld/st.cs"),
    // Where kernel 2 of three_kernel_pdl triggers: after its last store
    // instead of at its start (kernel 3 then overlaps its exit, not its scan).
    dev_row<DevThreeKernelPdlT<false>>("three_kernel_pdl_late", SB_PDL_MIN_CC, SB_VF_PDL,
     "three_kernel_pdl, kernel 2 triggering after its last store"),
#endif
};
extern "C" const sb_variant_table sb_devscan_variants = {
    devscan_rows, sizeof devscan_rows / sizeof devscan_rows[0]};
