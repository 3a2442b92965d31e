// Pipeline family: stream n floats from global memory through shared-memory
// stages; consumers apply intensity/2 dependent FMAs to every element and
// write it out (intensity 0: a copy through shared memory). Tiling and the
// tail rules: pipeline_tiles.h. Host side: bench/pipeline.c.
//
// Compile-time shape (CUB style): S stages, a tile of Bytes per stage
// (Tile = Bytes / 4 floats) and W consumer warps, instantiated for the
// points of the sweeps (PipelineShapes below); other points are `skipped`
// with the picker's reason. Every variant has the same consumer layout
// (consumer thread c drains float4 c, c + W*32, ... of a tile), the same
// FMA chain, __launch_bounds__ of its block and the same shared memory
// (S * Bytes, + 16 B of barriers per stage where there are barriers); they
// differ in how a stage passes from whoever fills it to whoever drains it:
//   sync_single    W*32 threads. One tile of S*Bytes: load it,
//                  __syncthreads, compute + store, __syncthreads. No overlap.
//   double_buffer  W*32 threads, S buffers. cp.async fills buffer (i+S-1)%S
//                  while buffer i%S is computed; per tile one
//                  cp.async.wait_group<S-2> + one __syncthreads (two when S = 1).
//   ws_barrier     W consumer warps + 1 producer warp. The producer fills
//                  with ordinary loads; per stage a cuda::barrier `filled`
//                  (32 arrivals: every producer lane) and `ready` (W*32:
//                  every consumer thread), driven as the ring below.
//   ws_tma         W consumer warps + 1 producer warp of which one elected
//                  thread issues a cp.async.bulk per tile that completes on
//                  the stage's `full` mbarrier (commit_tx of exactly the
//                  copy's bytes); consumers release through `empty` (W*32
//                  arrivals) after fence.proxy.async (docs/pipeline.md,
//                  "Proxy fences"). sm_90.
//   ws_tma_2d      ws_tma over a [rows][4096] matrix in 256-column boxes with
//                  cp.async.bulk.tensor.2d and a __grid_constant__ CUtensorMap.
//   reference      plain float4 grid-stride loop, no shared memory.
// The warp-specialized variants run one warp more than the others (the
// producer): that is the design being measured, not a difference in the
// consumers' work.
//
// Warp-specialized handoff: sb_ring (ring.cuh) over the stages' full/empty
// barriers. The consumers grant one empty credit per stage before their
// loop, so the producer's first acquire of each stage waits on a phase that
// really completes; after its last commit the producer runs producer_tail,
// leaving only once every stage it filled was released.
//
// Every variant runs a persistent grid (sb_shape SB_GRID_PERSISTENT: the
// resident blocks, or one per SM with contention=one_block_per_sm, capped
// at the number of tiles); block b takes tiles b, b+grid, ...
#include <stddef.h>
#include <string.h>

#include <cuda/barrier>

#include "../common/cp_async.cuh"
#include "../common/launch.cuh"
#include "../common/mbarrier.cuh"
#include "pipeline_tiles.h"
#include "../common/ring.cuh"
#include "../common/tensor_map.cuh"

// The one kernel parameter of every variant. The tensor map comes first,
// at least 64-byte aligned as the TMA unit requires (CUtensorMap carries its
// own alignas(128) in CUDA 13's cuda.h; an alignas(64) here would be an
// ignored reduction); only ws_tma_2d reads it, in place (the kernel
// parameter is __grid_constant__, so &p.map is the parameter itself and no
// copy is made).
struct PipelineParams {
  CUtensorMap map;
  const float *in;
  float *out;
  long long n;
  int fmas;
};
static_assert(alignof(PipelineParams) >= 64 && offsetof(PipelineParams, map) == 0,
              "the tensor map leads the parameter, 64-byte aligned");

// Every kernel's dynamic shared memory: the stages, then (warp-specialized
// variants) the ring's barriers. No pipeline kernel has static shared
// memory, so the stages start at the 1 KiB-aligned base of the block's
// window (the tensor copy needs 128 B).
extern __shared__ __align__(1024) float pl_smem[];

// ---- the compiled shapes ----

template <int S, int KiB, int W>
struct PlShape {
  static constexpr int stages = S, bytes = KiB * 1024, tile = bytes / 4, warps = W,
                       consumers = W * 32;
};

// The stage-times-buffer products that fit the 227 KB a block may use (of
// the sweeps' powers of two, up to 128 KiB; bench/pipeline.c skips the
// others before the picker runs).
constexpr bool pl_fits(int s, int kib) { return s * kib <= 128; }

// The sweeps' points (bench/pipeline.c): pipeline = stages 1,2,4,8 x
// buffer_bytes 1k..64k x 4 consumer warps (default; quick is a subset);
// pipeline_intensity = stages 4 x 16k x 2,8 consumer warps (default and quick).
using PlHeatStages = sb_values<1, 2, 4, 8>;
using PlHeatKiB = sb_values<1, 2, 4, 8, 16, 32, 64>;
using PlHeatWarps = sb_values<4>;
using PlIntensityStages = sb_values<4>;
using PlIntensityKiB = sb_values<16>;
using PlIntensityWarps = sb_values<2, 8>;

// Calls f(PlShape<S, KiB, W>{}) for the compiled shape (s, kib, w) of the
// cartesian product Ss x Ks x Ws; false if there is none.
template <class Ss, class Ks, class Ws, class F>
static bool pl_dispatch(long long s, long long kib, long long w, F &&f) {
  bool hit = false;
  sb_dispatch(s, Ss{}, [&](auto sc) {
    sb_dispatch(kib, Ks{}, [&](auto kc) {
      sb_dispatch(w, Ws{}, [&](auto wc) {
        constexpr int S = std::decay_t<decltype(sc)>::value, K = std::decay_t<decltype(kc)>::value;
        if constexpr (pl_fits(S, K)) {
          f(PlShape<S, K, std::decay_t<decltype(wc)>::value>{});
          hit = true;
        }
      });
    });
  });
  return hit;
}

template <class F>
static bool pl_dispatch_sweeps(long long s, long long kib, long long w, F &&f) {
  return pl_dispatch<PlHeatStages, PlHeatKiB, PlHeatWarps>(s, kib, w, f) ||
         pl_dispatch<PlIntensityStages, PlIntensityKiB, PlIntensityWarps>(s, kib, w, f);
}

// ---- what every consumer does ----

__device__ __forceinline__ float4 pl_chain4(float4 v, int fmas) {
  // Four independent dependent chains per thread: instruction-level
  // parallelism, but no chain can be shortened (fmas is a runtime value).
#pragma unroll 4
  for (int k = 0; k < fmas; ++k) {
    v.x = fmaf(v.x, PL_FMA_A, PL_FMA_B);
    v.y = fmaf(v.y, PL_FMA_A, PL_FMA_B);
    v.z = fmaf(v.z, PL_FMA_A, PL_FMA_B);
    v.w = fmaf(v.w, PL_FMA_A, PL_FMA_B);
  }
  return v;
}

// Walks a tile of `len` floats (len <= Tile): vec(j) for the float4 indices
// j = first, first + Step, ... and tail(j) for the len % 4 floats after the
// vectors. A full tile (every tile but the last) has a compile-time trip
// count and no tail (Tile is a multiple of 256 floats); its loop unrolls by
// Unroll (copies: every copy of the tile in flight at once, up to 8 per
// thread; compute: 4 float4 chains interleaved).
template <int Tile, int Step, int Unroll, class Vec, class Tail>
__device__ __forceinline__ void pl_walk(int len, int first, Vec &&vec, Tail &&tail) {
  constexpr int nvec = Tile / 4, rounds = (nvec + Step - 1) / Step;
  if (len == Tile) {
#pragma unroll Unroll
    for (int u = 0; u < rounds; ++u) {
      const int j = first + u * Step;
      if (nvec % Step == 0 || j < nvec) vec(j);
    }
  } else {
    const int nv = len / 4;
#pragma unroll 1
    for (int j = first; j < nv; j += Step) vec(j);
    for (int j = nv * 4 + first; j < len; j += Step) tail(j);
  }
}

// Drains tile k from shared memory `buf`: the vectors from buf, the len % 4
// tail floats from tail_src (buf itself, or the tile's place in global
// memory where the copy engine cannot move fewer than 16 bytes).
template <int Tile, int Step>
__device__ __forceinline__ void pl_consume(const PipelineParams &p, const float *buf,
                                           const float *tail_src, long long k, int first) {
  const long long base = k * Tile;
  const float4 *src = (const float4 *)buf;
  float4 *dst = (float4 *)(p.out + base);
  pl_walk<Tile, Step, 4>(
      (int)pl_tile_len(p.n, Tile, k), first, [&](int j) { dst[j] = pl_chain4(src[j], p.fmas); },
      [&](int j) { p.out[base + j] = pl_chain(tail_src[j], p.fmas); });
}

// In the all-thread variants each thread drains what the next warp loaded,
// as any real tile kernel reads its neighbours' data: the barrier between
// load and use is load-bearing (and racecheck would see it missing).
template <int Threads>
__device__ __forceinline__ int pl_rotated(int t) {
  return (t + 32) % Threads;
}

__device__ __forceinline__ long long pl_tile_of(long long i) {
  return blockIdx.x + i * gridDim.x;
}

// ---- sync_single ----

struct PlSyncSingle {
  static constexpr bool twin = false, warp_specialized = false;
  template <class Sh, bool Bounded>
  __device__ static void run(const PipelineParams &p) {
    constexpr int tile = Sh::stages * Sh::tile, threads = Sh::consumers;  // all stages: one tile
    const int t = threadIdx.x, me = pl_rotated<threads>(t);
    const long long tiles = pl_num_tiles(p.n, tile);
    float4 *buf4 = (float4 *)pl_smem;
    for (long long k = blockIdx.x; k < tiles; k += gridDim.x) {
      const long long base = k * tile;
      const float4 *src = (const float4 *)(p.in + base);
      pl_walk<tile, threads, 8>(
          (int)pl_tile_len(p.n, tile, k), t, [&](int j) { buf4[j] = src[j]; },
          [&](int j) { pl_smem[j] = p.in[base + j]; });
      __syncthreads();  // the tile is in shared memory (RAW)
      pl_consume<tile, threads>(p, pl_smem, pl_smem, k, me);
      __syncthreads();  // everyone has read it before the next load (WAR)
    }
  }
};

// ---- double_buffer: cp.async (sm_80+) ----

struct PlDoubleBuffer {
  static constexpr bool twin = false, warp_specialized = false;

  // This thread's share of the copies of the block's i-th tile into buffer
  // i % S, committed as one group. Past the block's last tile it commits an
  // empty group, so that every iteration commits exactly one and the wait
  // count below holds through the epilogue.
  template <class Sh>
  __device__ static void issue(const PipelineParams &p, long long i, long long mine) {
    if (i < mine) {
      const long long k = pl_tile_of(i), base = k * Sh::tile;
      float *buf = pl_smem + (int)(i % Sh::stages) * Sh::tile;
      pl_walk<Sh::tile, Sh::consumers, 8>(
          (int)pl_tile_len(p.n, Sh::tile, k), threadIdx.x,
          [&](int j) { sb_cp_async16(buf + 4 * j, p.in + base + 4 * j); },
          [&](int j) { sb_cp_async4(buf + j, p.in + base + j); });
    }
    sb_cp_async_commit();
  }

  template <class Sh, bool Bounded>
  __device__ static void run(const PipelineParams &p) {
    constexpr int S = Sh::stages;
    const int me = pl_rotated<Sh::consumers>(threadIdx.x);
    const long long mine = pl_block_tiles(pl_num_tiles(p.n, Sh::tile), gridDim.x, blockIdx.x);
    // Prologue: tiles 0..S-2 in flight before any compute.
#pragma unroll
    for (int i = 0; i < S - 1; ++i) issue<Sh>(p, i, mine);
    // Steady state; the last S-1 iterations are the epilogue (nothing left
    // to prefetch: their groups are empty).
    for (long long i = 0; i < mine; ++i) {
      if constexpr (S == 1) issue<Sh>(p, i, mine);
      // Committed so far: S-1+i groups (S = 1: i+1); tile i's is the oldest
      // one still needed, so S-2 younger groups may stay in flight.
      sb_cp_async_wait_group<S == 1 ? 0 : S - 2>();
      // Everyone's copies of tile i have landed (RAW), and everyone is done
      // with tile i-1, whose buffer the next line refills (WAR).
      __syncthreads();
      if constexpr (S > 1) issue<Sh>(p, i + S - 1, mine);
      const float *buf = pl_smem + (int)(i % S) * Sh::tile;
      pl_consume<Sh::tile, Sh::consumers>(p, buf, buf, pl_tile_of(i), me);
      if constexpr (S == 1) __syncthreads();  // one buffer: drained before its refill
    }
  }
};

// ---- ws_barrier: producer warp, ordinary loads, cuda::barrier ----

#define PL_PRODUCER_BATCH 8  // float4 loads each producer lane keeps in flight

typedef cuda::barrier<cuda::thread_scope_block> pl_barrier;
// The ring addresses stage s's barrier as the first one's + 8 * s.
static_assert(sizeof(pl_barrier) == sizeof(uint64_t), "cuda::barrier is one native mbarrier");

struct PlWsBarrier {
  static constexpr bool twin = true, warp_specialized = true;

  // A batch of PL_PRODUCER_BATCH float4 per lane in flight at a time: all
  // loads of a batch, then all its stores. Whole: nvec is whole batches, so
  // no lane needs a bound check.
  template <bool Whole>
  __device__ static void copy_batches(float4 *dst, const float4 *src, int nvec, int lane) {
    constexpr int batch = 32 * PL_PRODUCER_BATCH;
#pragma unroll 1
    for (int j0 = 0; j0 < nvec; j0 += batch) {
      float4 r[PL_PRODUCER_BATCH];
#pragma unroll
      for (int u = 0; u < PL_PRODUCER_BATCH; ++u) {
        const int j = j0 + u * 32 + lane;
        if (Whole || j < nvec) r[u] = src[j];
      }
#pragma unroll
      for (int u = 0; u < PL_PRODUCER_BATCH; ++u) {
        const int j = j0 + u * 32 + lane;
        if (Whole || j < nvec) dst[j] = r[u];
      }
    }
  }

  // The producer warp copies tile k into buf with ordinary loads.
  template <int Tile>
  __device__ static void produce(float *buf, const PipelineParams &p, long long k, int lane) {
    const long long base = k * Tile;
    const int len = (int)pl_tile_len(p.n, Tile, k);
    const float4 *src = (const float4 *)(p.in + base);
    if (len == Tile) {  // every tile but the last: compile-time bounds
      copy_batches<(Tile / 4) % (32 * PL_PRODUCER_BATCH) == 0>((float4 *)buf, src, Tile / 4, lane);
      return;
    }
    const int nvec = len / 4;
    copy_batches<false>((float4 *)buf, src, nvec, lane);
    for (int j = nvec * 4 + lane; j < len; j += 32) buf[j] = p.in[base + j];
  }

  template <class Sh, bool Bounded>
  __device__ static void run(const PipelineParams &p) {
    // filled[s]: stage s holds its next tile (every producer lane arrives);
    // ready[s]: stage s is free to refill (every consumer thread arrives).
    // Every thread arrives for its own accesses, as in the CUDA guide: an
    // mbarrier arrive releases only the arriving thread's prior accesses,
    // and racecheck does not credit __syncwarp + one elected arrive for the
    // other lanes' ordinary shared-memory stores and loads. They sit after
    // the stages, where the TMA variants keep full/empty (the same layout;
    // as static shared memory they would push the 1 KiB-aligned stages up
    // by a whole KiB); init() constructs them in place.
    pl_barrier *const filled = reinterpret_cast<pl_barrier *>(pl_smem + Sh::stages * Sh::tile);
    pl_barrier *const ready = filled + Sh::stages;
    constexpr int consumers = Sh::consumers;
    if (threadIdx.x < Sh::stages) {
      init(&ready[threadIdx.x], consumers);
      init(&filled[threadIdx.x], 32);
    }
    __syncthreads();  // publishes the inits; the last block-wide barrier
    // Initialized and arrived on through libcu++ (what this variant
    // measures); the parity waits, the credits and the tail go through the
    // ring on the barriers' native mbarriers, so the phase is tracked in one
    // place and the deadlock watchdog bounds the validating launch's waits.
    const sb_ring<Sh::stages, Bounded> ring(cuda::device::barrier_native_handle(filled[0]),
                                            cuda::device::barrier_native_handle(ready[0]));
    const long long mine = pl_block_tiles(pl_num_tiles(p.n, Sh::tile), gridDim.x, blockIdx.x);
    sb_ring_state st;
    if (threadIdx.x >= consumers) {  // the producer warp
      const int lane = threadIdx.x % 32;
      for (long long i = 0; i < mine; ++i) {
        ring.acquire(st);  // every consumer released this stage's previous tile
        produce<Sh::tile>(pl_smem + st.index * Sh::tile, p, pl_tile_of(i), lane);
        (void)filled[st.index].arrive();  // release: this lane's stores into the stage
        st.advance<Sh::stages>();
      }
      ring.producer_tail(st);
    } else {
      ring.grant_credits();  // the stages start empty
      for (long long i = 0; i < mine; ++i) {
        ring.wait(st);  // acquire: the producer's stores
        const float *buf = pl_smem + st.index * Sh::tile;
        pl_consume<Sh::tile, consumers>(p, buf, buf, pl_tile_of(i), threadIdx.x);
        (void)ready[st.index].arrive();  // release: this thread is done reading the stage
        st.advance<Sh::stages>();
      }
    }
  }
};

// ---- ws_tma / ws_tma_2d: elected producer thread, bulk copies, mbarriers ----

// Shared memory: S buffers of Tile floats, then full[S], empty[S]. No
// static shared memory, so the buffers start at the base of the block's
// window, aligned as the tensor copy's 128 B needs.
template <class Sh, bool Bounded>
struct PlTmaRing {
  uint64_t *full = (uint64_t *)(pl_smem + Sh::stages * Sh::tile);
  uint64_t *empty = full + Sh::stages;
  sb_ring<Sh::stages, Bounded> ring;

  // Thread 0 initializes (full: the producer's commit_tx; empty: every
  // consumer thread), with the fence that shows the inits to the copy
  // engine; the __syncthreads is the last block-wide barrier.
  __device__ PlTmaRing() : ring(full, empty) {
    if (threadIdx.x == 0) sb_ring<Sh::stages, Bounded>::init(full, empty, 1, Sh::consumers);
    __syncthreads();
  }

  // A consumer thread is done reading the stage with generic loads, which
  // the copy engine then overwrites: release_generic (docs/pipeline.md,
  // "Proxy fences"). Every consumer thread arrives, its warp converged
  // (the hardware folds a converged warp's arrivals): one elected lane per
  // warp after __syncwarp would release only that lane's reads as far as
  // racecheck can tell, and it reports the copy engine's overwrite as a race.
  __device__ __forceinline__ void release(const sb_ring_state &st) const { ring.release_generic(st); }
};

// The elected producer thread: for each of the block's tiles, acquire the
// stage, commit_tx the bytes copy(buf, k, full_bar) will deliver, issue it;
// then the tail. bytes_of(k) is exactly what the copy moves.
template <class Sh, bool Bounded, class Bytes, class Copy>
__device__ __forceinline__ void pl_tma_produce(const PlTmaRing<Sh, Bounded> &r, long long mine,
                                               Bytes &&bytes_of, Copy &&copy) {
  sb_ring_state st;
  for (long long i = 0; i < mine; ++i) {
    const long long k = pl_tile_of(i);
    r.ring.acquire(st);
    const uint32_t bytes = bytes_of(k);
    r.ring.commit_tx(st, bytes);
    if (bytes) copy(pl_smem + st.index * Sh::tile, k, r.ring.full_bar(st.index), bytes);
    st.advance<Sh::stages>();
  }
  r.ring.producer_tail(st);
}

struct PlWsTma {
  static constexpr bool twin = true, warp_specialized = true;
  template <class Sh, bool Bounded>
  __device__ static void run(const PipelineParams &p) {
#if __CUDA_ARCH__ >= 900
    const PlTmaRing<Sh, Bounded> r;
    const long long mine = pl_block_tiles(pl_num_tiles(p.n, Sh::tile), gridDim.x, blockIdx.x);
    if (threadIdx.x >= Sh::consumers) {
      if (threadIdx.x != Sh::consumers) return;  // one elected producer thread
      // The copy engine moves the tile's whole 16-byte vectors: expect_tx
      // counts exactly those bytes (0 for a tail tile under 4 floats: the
      // arrival alone then completes the phase).
      pl_tma_produce(
          r, mine,
          [&](long long k) { return (uint32_t)pl_vec_elems(pl_tile_len(p.n, Sh::tile, k)) * 4u; },
          [&](float *dst, long long k, uint32_t bar, uint32_t bytes) {
            sb_bulk_copy_g2s(dst, p.in + k * Sh::tile, bytes, bar);
          });
      return;
    }
    r.ring.grant_credits();  // the stages start empty
    sb_ring_state st;
    for (long long i = 0; i < mine; ++i) {
      const long long k = pl_tile_of(i);
      r.ring.wait(st);  // every lane waits: acquire
      pl_consume<Sh::tile, Sh::consumers>(p, pl_smem + st.index * Sh::tile, p.in + k * Sh::tile,
                                          k, threadIdx.x);
      r.release(st);
      st.advance<Sh::stages>();
    }
#else
    (void)p;
    __trap();  // min_cc 90: never launched below sm_90
#endif
  }
};

// One 2D box: columns [c0, c0+256), rows [r0, r0+box_rows) of the tensor
// map into dst; completes the box's bytes on bar. Rows past the tensor's
// end arrive as zeros and still count toward the transaction bytes.
__device__ __forceinline__ void pl_tma_load_2d(void *dst, const CUtensorMap *map, int c0, int r0,
                                               uint32_t bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(sb_smem_addr(dst)),
      "l"((unsigned long long)map), "r"(c0), "r"(r0), "r"(bar)
      : "memory");
#else
  (void)dst, (void)map, (void)c0, (void)r0, (void)bar;
  __trap();
#endif
}

struct PlWsTma2d {
  static constexpr bool twin = true, warp_specialized = true;
  template <class Sh, bool Bounded>
  __device__ static void run(const PipelineParams &p) {
#if __CUDA_ARCH__ >= 900
    constexpr int box_rows = Sh::tile / PL_2D_BOX_COLS, row_vecs = PL_2D_BOX_COLS / 4;
    const PlTmaRing<Sh, Bounded> r;
    const long long mine = pl_block_tiles(pl_2d_tiles(p.n, box_rows), gridDim.x, blockIdx.x);
    if (threadIdx.x >= Sh::consumers) {
      if (threadIdx.x != Sh::consumers) return;  // one elected producer thread
      // A box always delivers box_rows * 256 floats (zero-filled past the
      // last row): that is the transaction count.
      pl_tma_produce(
          r, mine, [](long long) { return (uint32_t)Sh::bytes; },
          [&](float *dst, long long k, uint32_t bar, uint32_t) {
            pl_tma_load_2d(dst, &p.map, (int)pl_2d_col0(k), (int)pl_2d_row0(k, box_rows), bar);
          });
      return;
    }
    r.ring.grant_credits();  // the stages start empty
    sb_ring_state st;
    for (long long i = 0; i < mine; ++i) {
      const long long k = pl_tile_of(i);
      const long long r0 = pl_2d_row0(k, box_rows), c0 = pl_2d_col0(k);
      float *out = p.out + r0 * PL_2D_WIDTH + c0;
      const float4 *src = (const float4 *)(pl_smem + st.index * Sh::tile);
      r.ring.wait(st);
      // Only the rows inside the matrix: a box of the last band may reach
      // past it (those rows hold the copy engine's zeros).
      const int valid = (int)pl_2d_valid_rows(p.n, box_rows, k) * PL_2D_BOX_COLS;
      pl_walk<Sh::tile, Sh::consumers, 4>(
          valid, threadIdx.x,
          [&](int j) {
            *(float4 *)(out + j / row_vecs * PL_2D_WIDTH + j % row_vecs * 4) =
                pl_chain4(src[j], p.fmas);
          },
          [](int) {});  // whole rows: no tail
      r.release(st);
      st.advance<Sh::stages>();
    }
    // The n % 4096 floats after the matrix: block 0's consumers, from global.
    if (blockIdx.x == 0)
      for (long long j = pl_2d_rows(p.n) * PL_2D_WIDTH + threadIdx.x; j < p.n; j += Sh::consumers)
        p.out[j] = pl_chain(p.in[j], p.fmas);
#else
    (void)p;
    __trap();  // min_cc 90: never launched below sm_90
#endif
  }
};

// ---- reference: what one writes without any of this ----

struct PlReference {
  static constexpr bool twin = false, warp_specialized = false;
  template <class Sh, bool Bounded>
  __device__ static void run(const PipelineParams &p) {
    const long long nvec = p.n / 4, stride = (long long)gridDim.x * Sh::consumers;
    const long long first = (long long)blockIdx.x * Sh::consumers + threadIdx.x;
    for (long long j = first; j < nvec; j += stride)
      ((float4 *)p.out)[j] = pl_chain4(((const float4 *)p.in)[j], p.fmas);
    for (long long j = nvec * 4 + first; j < p.n; j += stride) p.out[j] = pl_chain(p.in[j], p.fmas);
  }
};

// ---- the kernel, the pickers, the launcher ----

// Warp-specialized variants: one producer warp besides the W consumer warps.
template <class V, int W>
constexpr int pl_block_threads() {
  return W * 32 + (V::warp_specialized ? 32 : 0);
}

template <class V, class Sh, bool Bounded>
__global__ void __launch_bounds__(pl_block_threads<V, Sh::warps>())
    pipeline_kernel(const __grid_constant__ PipelineParams p) {
  V::template run<Sh, Bounded>(p);
}

// Dynamic shared memory: the stages, then the ring's full[S] and empty[S]
// in the warp-specialized variants; none for reference.
template <class V, class Sh>
constexpr size_t pl_dynamic_smem() {
  if (std::is_same<V, PlReference>::value) return 0;
  return (size_t)Sh::stages * Sh::bytes + (V::warp_specialized ? 2 * Sh::stages * sizeof(uint64_t) : 0);
}

template <class V, class Sh>
static sb_kernels pl_kernels() {
  return sb_twin_kernels<V::twin>(
      [](auto bounded) { return pipeline_kernel<V, Sh, decltype(bounded)::value>; },
      pl_dynamic_smem<V, Sh>());
}

static int pl_no_instance(const long long *axis, char *why, size_t len) {
  snprintf(why, len,
           "stages=%lld buffer_bytes=%lld consumer_warps=%lld has no compiled kernel "
           "(compiled: stages 1,2,4,8 x buffer_bytes 1k..64k within 128 KiB x 4 warps; "
           "stages 4 x 16k x 2,8 warps)",
           axis[SB_AXIS_STAGES], axis[SB_AXIS_BUFFER_BYTES], axis[SB_AXIS_WARPS]);
  return -1;
}

template <class V>
static int pl_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  const long long bytes = axis[SB_AXIS_BUFFER_BYTES];
  if (bytes % 1024 == 0 &&
      pl_dispatch_sweeps(axis[SB_AXIS_STAGES], bytes / 1024, axis[SB_AXIS_WARPS],
                         [&](auto sh) { *k = pl_kernels<V, decltype(sh)>(); }))
    return 0;
  return pl_no_instance(axis, why, len);
}

// sync_single runs one tile of stages x buffer_bytes: the instance is that
// product (the heatmap keeps its stages = 1 row; the intensity family's
// 4 x 16k is a 64 KiB tile).
using PlIntensityOneTileKiB = sb_values<4 * 16>;  // the intensity sweep's stages x KiB
static int pl_pick_sync_single(const long long *axis, sb_kernels *k, char *why, size_t len) {
  const long long bytes = axis[SB_AXIS_STAGES] * axis[SB_AXIS_BUFFER_BYTES];
  const long long kib = bytes / 1024, w = axis[SB_AXIS_WARPS];
  auto pick = [&](auto sh) { *k = pl_kernels<PlSyncSingle, decltype(sh)>(); };
  if (bytes % 1024 == 0 &&
      (pl_dispatch<sb_values<1>, PlHeatKiB, PlHeatWarps>(1, kib, w, pick) ||
       pl_dispatch<sb_values<1>, PlIntensityOneTileKiB, PlIntensityWarps>(1, kib, w, pick)))
    return 0;
  return pl_no_instance(axis, why, len);
}

// reference: no stages; only the block size is compiled.
using PlReferenceWarps = sb_values<2, 4, 8>;
static int pl_pick_reference(const long long *axis, sb_kernels *k, char *why, size_t len) {
  if (sb_dispatch(axis[SB_AXIS_WARPS], PlReferenceWarps{},
                  [&](auto w) { *k = pl_kernels<PlReference, PlShape<1, 1, decltype(w)::value>>(); }))
    return 0;
  return sb_no_instance<PlReferenceWarps>("consumer_warps", axis[SB_AXIS_WARPS], why, len);
}

// The tensor map of `in` seen as [n / 4096][4096] floats, boxes of 256 x
// box_rows. Cached host-side: the timed launches reuse the validating
// launch's map (same buffer).
static cudaError_t pl_tensor_map(CUtensorMap *map, const void *in, long long n, int box_rows) {
  static CUtensorMap last;
  static const void *last_in;
  static long long last_n;
  static int last_rows;
  if (last_in == in && last_n == n && last_rows == box_rows) {
    *map = last;
    return cudaSuccess;
  }
  cudaError_t e = sb_encode_tensor_map_2d(
      map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, in, PL_2D_WIDTH, (unsigned long long)pl_2d_rows(n),
      PL_2D_WIDTH * sizeof(float), PL_2D_BOX_COLS, (unsigned)box_rows, CU_TENSOR_MAP_SWIZZLE_NONE);
  if (e != cudaSuccess) return e;
  last = *map;
  last_in = in;
  last_n = n;
  last_rows = box_rows;
  return cudaSuccess;
}

static cudaError_t pl_launch(sb_launch *L) {
  const sb_variant *v = L->variant;
  PipelineParams p;
  memset(&p.map, 0, sizeof p.map);  // every variant but ws_tma_2d ignores it
  p.in = (const float *)L->in;
  p.out = (float *)L->out;
  p.n = L->axis[SB_AXIS_N];
  p.fmas = (int)(L->axis[SB_AXIS_INTENSITY] / 2);  // an FMA is 2 FLOP
  const int warps = (int)L->axis[SB_AXIS_WARPS];
  long long tile = L->axis[SB_AXIS_BUFFER_BYTES] / 4;
  if (v->flags & SB_VF_PL_ONE_TILE) tile *= L->axis[SB_AXIS_STAGES];
  sb_shape s;
  s.grid = SB_GRID_PERSISTENT;
  s.one_per_sm = L->axis[SB_AXIS_CONTENTION] == 0;  // contention=one_block_per_sm
  s.block = warps * 32 + (v->flags & SB_VF_PL_WARP_SPECIALIZED ? 32 : 0);
  if (v->flags & SB_VF_PL_NO_STAGES) {
    s.work = sb_ceil_div(p.n / 4 > 0 ? p.n / 4 : 1, s.block);
  } else if (v->flags & SB_VF_PL_TENSOR_2D) {
    const int box_rows = (int)pl_2d_box_rows(tile * 4);
    const long long tiles = pl_2d_tiles(p.n, box_rows);
    s.work = tiles > 0 ? tiles : 1;  // n < 4096: no matrix, block 0 runs the tail
    if (!L->query && pl_2d_rows(p.n) > 0) {
      const cudaError_t e = pl_tensor_map(&p.map, L->in, p.n, box_rows);
      if (e != cudaSuccess) return e;
    }
  } else {
    s.work = pl_num_tiles(p.n, tile);
  }
  return sb_launch_params(L, s, p);
}

static constexpr sb_variant pipeline_rows[] = {
    {"sync_single", pl_launch, pl_pick_sync_single, 0, SB_VF_PL_ONE_TILE | SB_VF_BASELINE,
     "one tile of stages*buffer_bytes: load, __syncthreads, compute+store, __syncthreads"},
    {"double_buffer", pl_launch, pl_pick<PlDoubleBuffer>, 0, 0,
     "cp.async into `stages` buffers, prefetch i+S-1 while computing i: 1 __syncthreads/tile"},
    {"ws_barrier", pl_launch, pl_pick<PlWsBarrier>, 0,
     SB_VF_PL_WARP_SPECIALIZED,
     "producer warp, ordinary loads; cuda::barrier ready/filled per stage, every thread arrives"},
    {"ws_tma", pl_launch, pl_pick<PlWsTma>, 90, SB_VF_PL_WARP_SPECIALIZED,
     "elected thread: cp.async.bulk + full mbarrier expect_tx; empty mbarrier, every consumer arrives"},
    {"ws_tma_2d", pl_launch, pl_pick<PlWsTma2d>, 90,
     SB_VF_PL_WARP_SPECIALIZED | SB_VF_PL_TENSOR_2D,
     "ws_tma with cp.async.bulk.tensor.2d boxes of a __grid_constant__ CUtensorMap"},
    {"reference", pl_launch, pl_pick_reference, 0, SB_VF_PL_NO_STAGES | SB_VF_PLAIN,
     "float4 grid-stride loop, no shared memory, no barriers"},
};
// pipeline_intensity runs every row; pipeline the first PL_NUM_STAGED (the
// heatmap of stages x buffer_bytes: `reference` has no stages).
static_assert(PL_NUM_STAGED == 5 && (pipeline_rows[PL_NUM_STAGED].flags & SB_VF_PL_NO_STAGES),
              "the rows with stages come first");
extern "C" const sb_variant_table sb_pipeline_variants = {
    pipeline_rows, sizeof pipeline_rows / sizeof pipeline_rows[0]};
extern "C" const sb_variant_table sb_pipeline_staged_variants = {pipeline_rows, PL_NUM_STAGED};
