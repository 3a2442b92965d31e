// GEMM family, the tile schedulers: which output tile and which k-tiles a
// block takes. Data-parallel (one block per tile, grouped order; clusters
// of 2 tiles), split-K (a slice of K per block: from blockIdx.x, or from an
// atomic ticket where slices wait on each other), stream-K (a persistent
// grid, equal shares of all k-tiles, a ticket per block), the persistent
// data-parallel walk and ping-pong's ordered turns. Where several blocks
// share a tile, the fix-ups that combine them are gemm_fixups.cuh's. The
// mainloop knows neither: the schedules hand the warp-specialized body
// (gemm_mainloop.cuh, gemm_ws_body) their units (a tile, a K range) and an
// epilogue. The counters, semaphores, flags and
// tickets are zeroed once, by the point's query, and numbered by launch
// (below): no memset in a timed launch.
#ifndef SB_KERNELS_GEMM_SCHEDULERS_CUH
#define SB_KERNELS_GEMM_SCHEDULERS_CUH

#include "../common/launch.cuh"  // sb_epoch_begin
#include "gemm_mainloop.cuh"  // GemmUnit: what a schedule hands the warp-specialized body
#include "gemm_params.cuh"

// ---- the schedules: the composition's schedule part (gemm_compose.cuh) ----
// Each tag names a schedule and says what the rest reads from it: whether
// a block takes one whole tile (data_parallel), whether the grid is
// persistent (a block walks tiles), whether it cuts K (several blocks a
// tile: split-K with its fix-up, or stream-K) and how their partials meet.
// The device side is the functions below; the host side (the grid, the
// workspace, what runs after the kernel) is gemm_launch.cuh's
// GemmScheduleHost<Schedule>.
struct GemmScheduleBase {
  static constexpr bool data_parallel = false, persistent = false, cuts_k = false, split = false, streamk = false;
};
// A block (a cluster of blocks, with a multicast mainloop) per output tile.
struct GemmScheduleDataParallel : GemmScheduleBase {
  static constexpr const char *name = "data_parallel";
  static constexpr bool data_parallel = true;
};
// As many blocks (clusters) as are resident, each walking tiles b, b + grid, ...
struct GemmSchedulePersistent : GemmScheduleBase {
  static constexpr const char *name = "persistent";
  static constexpr bool persistent = true;
};
// Split-K: tiles x splits blocks, a K slice each, and how a tile's slices
// combine (gemm_fixups.cuh): serial (in slice order behind a semaphore),
// parallel (partials to a workspace, the last arrival sums), reduce (a
// separate reduction kernel sums), cooperative (a cooperative grid, each
// slice sums a piece), cluster (the slices of a cluster sum in distributed
// shared memory). DropLast: the broken build's reduction that drops a slice.
enum GemmCombine { GEMM_COMBINE_SERIAL, GEMM_COMBINE_PARALLEL, GEMM_COMBINE_REDUCE, GEMM_COMBINE_COOPERATIVE,
                   GEMM_COMBINE_CLUSTER };
template <GemmCombine C, bool DropLast = false>
struct GemmScheduleSplitK : GemmScheduleBase {
  static constexpr const char *name = C == GEMM_COMBINE_SERIAL        ? "split_k_serial"
                                      : C == GEMM_COMBINE_PARALLEL    ? "split_k_parallel"
                                      : C == GEMM_COMBINE_REDUCE      ? "split_k_reduce"
                                      : C == GEMM_COMBINE_COOPERATIVE ? "split_k_cooperative"
                                                                      : "split_k_cluster";
  static constexpr bool cuts_k = true, split = true;
  static constexpr GemmCombine combine = C;
  // partials through a workspace (every combine but serial's, which adds into C)
  static constexpr bool partials = C != GEMM_COMBINE_SERIAL;
  static constexpr bool drop_last = DropLast;
};
// Whether a schedule is split-K combining as C.
template <class Schedule, GemmCombine C>
constexpr bool GemmCombineIs() {
  if constexpr (Schedule::split)
    return Schedule::combine == C;
  else
    return false;
}
// Stream-K: a persistent grid, equal shares of all k-tiles (below).
struct GemmScheduleStreamK : GemmScheduleBase {
  static constexpr const char *name = "stream_k";
  static constexpr bool persistent = true, cuts_k = true, streamk = true;
};

// ---- data-parallel: one block per output tile ----

// Block b -> block tile: groups of 8 tile-rows, walked column by column
// inside a group, so the blocks resident at once share A rows and B
// columns in L2 (Triton's grouped ordering). Every variant, the same order.
// SB_GEMM_RASTER_GROUP (-D at build time): another group height, a probe.
#ifndef SB_GEMM_RASTER_GROUP
#define SB_GEMM_RASTER_GROUP 8
#endif
template <class T>
__device__ __forceinline__ void gemm_tile_origin(const GemmParams &p, int b, int *m0, int *n0) {
  constexpr int GROUP = SB_GEMM_RASTER_GROUP;
  const int tiles_m = gemm_tiles_m<T>(p), tiles_n = gemm_tiles_n<T>(p);
  const int per_group = GROUP * tiles_n;
  const int first_m = b / per_group * GROUP;
  const int rows = tiles_m - first_m < GROUP ? tiles_m - first_m : GROUP;
  *m0 = (first_m + (b % per_group) % rows) * T::BM;
  *n0 = (b % per_group) / rows * T::BN;
}
template <class T>
__device__ __forceinline__ void gemm_block_tile(const GemmParams &p, int *m0, int *n0) {
  gemm_tile_origin<T>(p, (int)(blockIdx.x % gemm_tile_count<T>(p)), m0, n0);
}

// Multicast clusters (gemm/ws_tma_wgmma_multicast) of CM x CN CTAs:
// cluster c (blockIdx.x / CM CN of a grid launched in clusters of
// {CM CN,1,1}) takes the (CM BM) x (CN BN) tile of C that gemm_tile_origin
// gives block c of a grid of such cluster tiles: the data-parallel
// variants' grouped order at cluster granularity (groups of 8 cluster rows,
// walked column by column), so the tiles resident at once cover the same
// region of C as ws_tma_wgmma's do. Rank r takes the BM x BN piece at tile
// row r % CM and tile column r / CM: 2x1, m0 + r BM (both ranks share n0:
// one B tile); 1x2, n0 + r BN (both share m0: one A tile); 2x2, 4x2, 2x4
// both (a tile column shares B, a tile row A).
template <class T, int CM, int CN>
struct GemmClusterTile {
  static constexpr int BM = T::BM * CM, BN = T::BN * CN;
};
template <class T, int CM, int CN>
__device__ __forceinline__ void gemm_cluster_tile(const GemmParams &p, int cluster, uint32_t rank, int *m0,
                                                  int *n0) {
  gemm_tile_origin<GemmClusterTile<T, CM, CN>>(p, cluster, m0, n0);
  if constexpr (CM > 1 && CN > 1) {  // rank r: tile row r % CM, tile column r / CM
    *m0 += (int)(rank % CM) * T::BM;
    *n0 += (int)(rank / CM) * T::BN;
  } else if constexpr (CM > 1) {
    *m0 += (int)rank * T::BM;
  } else {
    *n0 += (int)rank * T::BN;
  }
}

// Whole tiles, or with a multicast mainloop clusters of CM x CN tiles: the
// cluster tile of blockIdx.x / CTAs (one unit), or, Persistent, every
// (gridDim.x / CTAs)-th from it on (the CTAs of a cluster walk the same
// ones, in step on each other's empty barriers); this CTA's piece (rank)
// of each, over all k-tiles. each() walks them in order (the
// warp-specialized body); count() and at(j) give the j-th (ping-pong's
// warpgroups take every other one).
template <class T, int CM, int CN, bool Persistent>
struct GemmClusterUnits {
  static constexpr bool walks = Persistent;  // several tiles: the accumulators zeroed per tile
  static constexpr int CTAS = CM * CN;
  const GemmParams &p;
  uint32_t rank;
  int m0, n0, kts;  // the one tile (not Persistent)
  __device__ __forceinline__ static GemmClusterUnits make(const GemmParams &p) {
    GemmClusterUnits u{p, CTAS > 1 ? sb_cluster_rank() : 0u, 0, 0, gemm_k_tiles<T>(p)};
    if (!Persistent) gemm_cluster_tile<T, CM, CN>(p, (int)(blockIdx.x / CTAS), u.rank, &u.m0, &u.n0);
    return u;
  }
  template <class F>
  __device__ __forceinline__ void each(F &&f) const {
    if constexpr (Persistent) {
      const int cluster_tiles = gemm_tile_count<GemmClusterTile<T, CM, CN>>(p), clusters = (int)(gridDim.x / CTAS);
      for (int c = (int)(blockIdx.x / CTAS); c < cluster_tiles; c += clusters) {
        int tm, tn;
        gemm_cluster_tile<T, CM, CN>(p, c, rank, &tm, &tn);
        f(GemmUnit{tm, tn, 0, kts, c, rank});
      }
    } else {
      f(GemmUnit{m0, n0, 0, kts, 0, rank});
    }
  }
  // The walk's length for this block (cluster), and its j-th unit.
  __device__ __forceinline__ int count() const {
    const int first = (int)blockIdx.x / CTAS, stride = (int)gridDim.x / CTAS,
              total = gemm_tile_count<GemmClusterTile<T, CM, CN>>(p);
    return first < total ? (total - first + stride - 1) / stride : 0;
  }
  __device__ __forceinline__ GemmUnit at(int j) const {
    const int c = (int)blockIdx.x / CTAS + j * ((int)gridDim.x / CTAS);
    int tm, tn;
    gemm_cluster_tile<T, CM, CN>(p, c, rank, &tm, &tn);
    return GemmUnit{tm, tn, 0, kts, c, rank};
  }
};

// ---- launch numbering: every combining word zeroed once, by the query ----
// The semaphores, arrival counters, flags and ticket counters of
// splitk_serial, splitk_parallel, splitk_cooperative and streamk are zeroed
// by the point's query (gemm.cu, gemm_number_launch: not timed) and never
// again: launch e since the query (p.epoch = 1, 2, ...) finds a word that
// takes n arrivals (or tickets, or releases) a launch at (e - 1) n and
// leaves it at e n; a flag written once a launch reads e once it is set in
// this launch (earlier launches left e - 1 or less). The stream orders
// launch e after every access of launch e - 1. Each test is an equality
// or a difference mod 2^32, so (e - 1) n may wrap; e itself would take 2^32
// launches of one point. (splitk_cluster's last arrivals set its counters
// back instead: GemmClusterEpi.)
// (sb_epoch_begin, kernels/common/launch.cuh: the base, shared with devscan.)
__device__ __forceinline__ unsigned gemm_epoch_end(unsigned epoch, unsigned per_launch) {
  return epoch * per_launch;
}
// This launch's ticket 0, 1, ..., per_launch - 1 (a dynamic block id) from
// a counter that hands out per_launch a launch, one per block (relaxed:
// the ticket orders nothing itself; the waits on lower tickets acquire).
__device__ __forceinline__ unsigned gemm_epoch_ticket(const GemmParams &p, unsigned *counter,
                                                      unsigned per_launch) {
  return atomicAdd(counter, 1u) - sb_epoch_begin(p.epoch, per_launch);
}

// ---- split-K: several blocks per output tile, each a slice of K ----
// Parallel split-K: block b of a split grid takes tile b % tiles (the
// grouped order above) and K slice b / tiles; it never waits, so blockIdx.x
// will do. Serial split-K waits on the slice before it, so its slice comes
// from an atomic ticket instead (gemm_slice_ticket): no reliance on the
// order in which blocks are dispatched. Slice s covers k-tiles
// [s * KT / splits, (s + 1) * KT / splits).

template <class T>
__device__ __forceinline__ void gemm_slice_range(const GemmParams &p, int *slice, int *kt0, int *kt1) {
  const int tiles = gemm_tile_count<T>(p), kts = gemm_k_tiles<T>(p);
  *slice = blockIdx.x / tiles;
  *kt0 = sb_gemm_slice_begin(kts, p.splits, *slice);
  *kt1 = sb_gemm_slice_begin(kts, p.splits, *slice + 1);
}

// Serial split-K's schedule without the dispatch-order assumption: block b
// takes tile b % tiles, as splitk_parallel's blocks do (so the tiles land
// on the SMs where blockIdx.x puts them), and its slice from the tile's own
// ticket counter (p.sem[tiles + tile], after the per-tile semaphores,
// numbered by launch with them: splits tickets a tile a launch): a tile's
// blocks take slices 0, 1, ... in the order they arrive. The block that
// waits on slice s - 1 of its tile waits on a block that took its ticket
// before it, hence has started and is resident, and that block waits only
// on an earlier arrival still: by induction every wait ends, in any
// dispatch order and whatever the residency. Cost: one atomicAdd and one
// __syncthreads at the block's start (the slice reaches the producer and
// the consumers before the ring's k-range is known). One slice-major
// ticket for the whole grid (tile and slice both in arrival order, before
// this) kept the same argument but put tiles on SMs in the order the
// atomics were served: at 1024^2 x 16k, 64x128 tiles, one slice ran 81-84
// us where this order runs 55 (docs/history.md, "The flush, and the fast
// launches of the 64x128 tile on the H200").
template <class T>
__device__ __forceinline__ void gemm_slice_ticket(const GemmParams &p, int *tile, int *slice, int *kt0,
                                                  int *kt1) {
  __shared__ unsigned ticket;
  const int tiles = gemm_tile_count<T>(p), kts = gemm_k_tiles<T>(p);
  *tile = (int)(blockIdx.x % (unsigned)tiles);
  if (threadIdx.x == 0) ticket = gemm_epoch_ticket(p, p.sem + gemm_flag(tiles + *tile), (unsigned)p.splits);
  __syncthreads();  // the slice is every thread's
  *slice = (int)ticket;
  *kt0 = sb_gemm_slice_begin(kts, p.splits, *slice);
  *kt1 = sb_gemm_slice_begin(kts, p.splits, *slice + 1);
}

// ---- stream-K: a persistent grid, equal shares of all MAC iterations ----
// gemm_schedule_math.h has the schedule; block b's stream-K range is
// [begin(b), begin(b + 1)), cut into pieces at tile boundaries. Who is b:
// a ticket (GemmStreamK::run: thread 0's gemm_epoch_ticket on p.sem[grid],
// after the flags; grid tickets a launch), not blockIdx.x. A flag set in
// this launch reads p.epoch (the launch numbering). The fix-up of a split tile is
// CUTLASS 2.x's (gemm_universal_streamk.h): the piece that holds the tile's
// END (k1 = kts, k0 > 0) finishes it, and the blocks before it in the
// tile contribute; every block walks its pieces from the LAST to the first,
// then its data-parallel tiles. So:
// - a contributor piece (k1 < kts) can only be a block's last piece (every
//   earlier one runs to a tile boundary), which it walks first, before any
//   wait: partial to the block's workspace slot, release the block's flag;
// - a finisher piece (k0 > 0) can only be a block's first piece, which it
//   walks after its other stream-K pieces (CUTLASS's order: contributions
//   published early, the wait late); its contributors are the non-empty
//   blocks c < b whose range meets the tile: it waits only on LOWER tickets.
// Why a ticket and not blockIdx.x (nor a cooperative launch): "lower index"
// guarantees progress only if lower blocks run no later, and CUDA documents
// no dispatch order. A ticket is taken by a block that is already running,
// so a finisher waits on started (hence resident) blocks, whose
// contributions need no wait at all: every wait ends, whatever the dispatch
// order and whatever else shares the GPU. A cooperative launch would also
// turn a grid that cannot be resident into a launch error, but it still
// leans on "all resident" (as today's owners, which wait on higher
// indices, do), and it costs what the timed rows would then measure: a
// cooperative grid cannot start until the previous kernel's blocks have
// drained. The ticket costs one atomicAdd, taken under the barrier that
// publishes the ring's init (no extra barrier).

// Stream-K's block identity b (thread 0, once). A data-parallel grid (no
// tile split) waits on no one and takes blockIdx.x (sb_gemm_sk_data_parallel's
// launch runs ws_tma_wgmma's kernel instead: this path is its fallback).
// Fewer tiles than blocks: every tile is cut in g = sk_grid / tiles equal
// pieces, b = tile g + piece, so a tile's pieces are the blocks that share
// it; the tile comes from blockIdx.x (tile = blockIdx.x mod tiles,
// splitk_parallel's placement) and the piece from the tile's own ticket
// counter (p.sem[grid + 1 + tile], after the flags and the grid's ticket
// counter; g tickets a launch): the finisher, the piece that holds the
// tile's end, is the tile's last arrival and waits only on its earlier
// ones, which have started. Blocks past sk_grid have empty ranges. DP + SK
// (tiles >= blocks: a block's range crosses tiles): one ticket counter for
// the grid (p.sem[grid]), b in arrival order, finishers waiting on lower
// tickets. Why not every block from the grid's counter: it puts tiles on
// SMs in the order the atomics are served (gemm_slice_ticket).
__device__ __forceinline__ unsigned gemm_sk_block(const GemmParams &p, int tiles) {
  const int grid = (int)gridDim.x;
  if (!sb_gemm_sk_tiles(tiles, grid)) return blockIdx.x;
  if (tiles >= grid) return gemm_epoch_ticket(p, p.sem + gemm_flag(grid), (unsigned)grid);
  // sk_grid = g tiles (gemm_schedule_math.h; tests/c/test_gemm.c checks the cut)
  const unsigned sk_grid = (unsigned)sb_gemm_sk_grid(tiles, grid), g = sk_grid / (unsigned)tiles;
  const unsigned tile = blockIdx.x % (unsigned)tiles;
  if (blockIdx.x >= sk_grid) return blockIdx.x;
  return tile * g + gemm_epoch_ticket(p, p.sem + gemm_flag((size_t)grid + 1 + tile), g);
}

template <class F>
__device__ __forceinline__ void gemm_sk_units(int b, int tiles, int kts, int sk_tiles, int it0, int it1, F &&f) {
  for (int it = it1; it > it0;) {  // the stream-K pieces, last first
    const int tile = (it - 1) / kts, t0 = tile * kts;
    const int k0 = (it0 > t0 ? it0 : t0) - t0, k1 = it - t0;
    f(tile, k0, k1);
    it -= k1 - k0;
  }
  for (int t = sk_tiles + b; t < tiles; t += (int)gridDim.x) f(t, 0, kts);
}

// Stream-K's units for the warp-specialized body (gemm_ws_body): block b's
// pieces (gemm_sk_units), each placed by the grouped tile order. make():
// the schedule of block b (its ticket), and the numbers its fix-up reads
// (GemmStreamKEpi: kts, sk_iters, sk_grid, b).
template <class T>
struct GemmStreamKUnits {
  static constexpr bool walks = true;  // several units: the accumulators zeroed per unit
  const GemmParams &p;
  int b, tiles, kts, sk_tiles, it0, it1;
  __device__ __forceinline__ static GemmStreamKUnits make(const GemmParams &p, int b, int *kts, int *sk_iters,
                                                           int *sk_grid, int *block) {
    const int tiles = gemm_tile_count<T>(p), grid = gridDim.x;
    *kts = gemm_k_tiles<T>(p);
    const int sk_tiles = sb_gemm_sk_tiles(tiles, grid);
    *sk_iters = sk_tiles * *kts, *sk_grid = sb_gemm_sk_grid(tiles, grid), *block = b;
    return {p, b, tiles, *kts, sk_tiles, sb_gemm_sk_begin(*sk_iters, *sk_grid, b),
            sb_gemm_sk_begin(*sk_iters, *sk_grid, b + 1)};
  }
  template <class F>
  __device__ __forceinline__ void each(F &&f) const {
    gemm_sk_units(b, tiles, kts, sk_tiles, it0, it1, [&](int tile, int k0, int k1) {
      int m0, n0;
      gemm_tile_origin<T>(p, tile, &m0, &n0);
      f(GemmUnit{m0, n0, k0, k1, tile, 0u});
    });
  }
};

// ---- persistent data-parallel tiles: stream-K's DP part, the ping-pong variant ----
// Block b of a persistent grid takes whole tiles first + b, first + b +
// grid, ... (each placed by gemm_tile_origin's grouped order): the order of
// gemm_sk_units' data-parallel loop, with first = sk_tiles there and 0 here.
__device__ __forceinline__ int gemm_dp_tile(int first, int j) {
  return first + (int)blockIdx.x + j * (int)gridDim.x;
}
__device__ __forceinline__ int gemm_dp_count(int first, int tiles) {
  const int t0 = first + (int)blockIdx.x, grid = (int)gridDim.x;
  return t0 < tiles ? (tiles - t0 + grid - 1) / grid : 0;
}

// ---- ping-pong: two consumer warpgroups take turns ----
// CUTLASS's OrderedSequenceBarrier<Depth, 2> (include/cutlass/pipeline/
// sm90_pipeline.hpp) over named barriers Base .. Base + 2 Depth - 1 (0 is
// __syncthreads, 1 gemm_consumer_sync). Each of Depth sections (the
// ping-pong variant: 0 = issuing the tile's MMAs, 1 = its epilogue) is held
// by one consumer warpgroup at a time, alternately, group 0 first: the
// block's turn-th tile (turn = 0, 1, 2, ...; group turn % 2) enters section
// d with bar.sync on barrier Base + 2 d + group and leaves it with
// bar.arrive on Base + 2 d + (group ^ 1), both counted over the two
// warpgroups (256 threads: 128 arrive, 128 sync).
// A named barrier has no phase, so an arrival must never land on a barrier
// whose previous arrival has not met its sync yet: the token makes it so
// (group g arrives on its successor's barrier once per turn, and its next
// arrival needs its own next turn, which needs the successor's sync
// first). The first turn waits for nobody (turn 0) and the last hands on
// to nobody (more = false): every arrive meets exactly one sync, and no
// arrival is pending when the block exits.
template <int Depth, int Base>
struct GemmOrderedSequence {
  static_assert(Base >= 2 && Base + 2 * Depth <= 16, "named barriers 2..15 (0, 1 are taken)");
  static constexpr int THREADS = 2 * 128;
  int group;
  __device__ __forceinline__ void wait(int section, int turn) const {
    if (turn > 0) asm volatile("bar.sync %0, %1;" ::"r"(Base + 2 * section + group), "n"(THREADS) : "memory");
  }
  __device__ __forceinline__ void arrive(int section, bool more) const {
    if (more)
      asm volatile("bar.arrive %0, %1;" ::"r"(Base + 2 * section + (group ^ 1)), "n"(THREADS) : "memory");
  }
};

#endif  // SB_KERNELS_GEMM_SCHEDULERS_CUH
