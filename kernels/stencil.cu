// Stencil families: each block holds one tile of floats in shared memory,
// applies `iters` Jacobi iterations of an averaging stencil to it, and
// writes it back. Boundary elements average only their valid neighbours
// inside the tile (no halo exchange between tiles).
//   stencil    1D 3-point: tile = block_threads * elems_per_thread
//              consecutive elements; the last tile may be short.
//   stencil2d  2D 5-point on an image ST2D_WIDTH elements wide: tile =
//              tw x th with tw = 64 when the tile has >= 4096 elements,
//              else 32 (so 32x32, 32x64, 64x64, 64x128, ...); tiles at the
//              image's bottom edge may have fewer valid rows.
//
// Thread t owns tile elements e = k * block_threads + t, k < elems: a warp
// touches 32 consecutive words per access, so every shared-memory access
// (centre, left, right, up, down) is free of bank conflicts. A thread keeps
// its own elements in registers (cur[]) and reads only neighbours from
// shared memory.
//
// Per iteration, the variants differ in how they keep the reads of one
// iteration apart from the writes of the next (WAR) and the writes apart
// from the next reads (RAW):
//   two_barrier    in place: read | __syncthreads | write | __syncthreads
//   pingpong       two buffers, one __syncthreads
//   mbarrier       two buffers; every thread arrives on a block mbarrier and
//                  waits on it by phase parity (one phase)
//   split_arrive   two buffers, cuda::barrier: arrive right after the write,
//                  accumulate |new - old| (independent work), then wait
//   arrive_wait    the same work, but arrive_and_wait() before the residual:
//                  what split_arrive is compared with
//   completion     cuda::barrier whose completion function adds up the
//                  warps' residuals once per phase (per-iteration residual)
//   manual_reduce  the same per-iteration residual reduced by hand: warp
//                  shuffles + one __syncthreads + warp 0 sums warp totals
// The four residual variants also write the tile's residual sum (over all
// iterations and elements of |new - old|) after the tile: out[n + block].
#include <cuda/barrier>

#include "common.cuh"
#include "mbarrier.cuh"

// A cuda::barrier in __shared__ has a (trivial, defaulted) constructor that
// nvcc warns about; the documented pattern is to init() it from one thread.
#pragma nv_diag_suppress static_var_with_dynamic_init

#define ST_MAX_ELEMS 8
#define ST2D_WIDTH 4096  // keep equal to SB_STENCIL2D_WIDTH in bench/families.h

// Neighbour mask bits of an owned element.
#define NB_LEFT 1u
#define NB_RIGHT 2u
#define NB_UP 4u
#define NB_DOWN 8u
#define NB_VALID 16u  // the element lies inside the valid part of the tile

struct StencilArgs {
  const float *in;
  float *out;    // n elements, then one residual per block
  long long n;
  int iters;
  int elems;     // elements per thread
  int tw_shift;  // 2D: log2(tile width)
  int tiles_x;   // 2D: tiles per image row
  int rows;      // 2D: image rows (n / ST2D_WIDTH)
};

struct Tile1D {
  long long base;
  int len;  // valid elements in this tile
  __device__ Tile1D(const StencilArgs &a, int tile) {
    base = (long long)blockIdx.x * tile;
    long long left = a.n - base;
    len = left < tile ? (int)left : tile;
  }
  __device__ long long global(int e) const { return base + e; }
  __device__ unsigned mask(int e) const {
    if (e >= len) return 0u;
    return NB_VALID | (e > 0 ? NB_LEFT : 0u) | (e + 1 < len ? NB_RIGHT : 0u);
  }
  // c (the centre, from a register) plus the valid neighbours.
  __device__ float sum(const float *s, int e, unsigned m, float c) const {
    if (m & NB_LEFT) c += s[e - 1];
    if (m & NB_RIGHT) c += s[e + 1];
    return c;
  }
};

struct Tile2D {
  long long base;  // global index of tile element 0
  int shift, rows;  // tile width = 1 << shift; valid rows in this tile
  __device__ Tile2D(const StencilArgs &a, int tile) {
    shift = a.tw_shift;
    const int th = tile >> shift;
    const int bx = blockIdx.x % a.tiles_x, by = blockIdx.x / a.tiles_x;
    const int r0 = by * th;
    rows = a.rows - r0 < th ? a.rows - r0 : th;
    base = (long long)r0 * ST2D_WIDTH + ((long long)bx << shift);
  }
  __device__ long long global(int e) const {
    return base + (long long)(e >> shift) * ST2D_WIDTH + (e & ((1 << shift) - 1));
  }
  __device__ unsigned mask(int e) const {
    const int row = e >> shift, col = e & ((1 << shift) - 1);
    if (row >= rows) return 0u;
    return NB_VALID | (col > 0 ? NB_LEFT : 0u) | (col + 1 < (1 << shift) ? NB_RIGHT : 0u) |
           (row > 0 ? NB_UP : 0u) | (row + 1 < rows ? NB_DOWN : 0u);
  }
  __device__ float sum(const float *s, int e, unsigned m, float c) const {
    if (m & NB_LEFT) c += s[e - 1];
    if (m & NB_RIGHT) c += s[e + 1];
    if (m & NB_UP) c += s[e - (1 << shift)];
    if (m & NB_DOWN) c += s[e + (1 << shift)];
    return c;
  }
};

// Per-thread state: own values, their neighbour masks and 1 / (points).
struct Owned {
  float cur[ST_MAX_ELEMS], w[ST_MAX_ELEMS];
  unsigned m[ST_MAX_ELEMS];
};

// Loads the thread's elements into s and registers (0 past the valid part).
template <class G>
__device__ __forceinline__ void st_load(const StencilArgs &a, const G &g, float *s, Owned &o) {
  const int B = blockDim.x, t = threadIdx.x;
#pragma unroll
  for (int k = 0; k < ST_MAX_ELEMS; ++k)
    if (k < a.elems) {
      const int e = k * B + t;
      const unsigned m = g.mask(e);
      const float v = (m & NB_VALID) ? a.in[g.global(e)] : 0.0f;
      s[e] = v;
      o.cur[k] = v;
      o.m[k] = m;
      o.w[k] = 1.0f / (float)(1 + __popc(m & ~NB_VALID));
    }
}

// New values of the thread's elements from the buffer src.
template <class G>
__device__ __forceinline__ void st_compute(const StencilArgs &a, const G &g, const float *src,
                                           const Owned &o, float *nxt) {
  const int B = blockDim.x, t = threadIdx.x;
#pragma unroll
  for (int k = 0; k < ST_MAX_ELEMS; ++k)
    if (k < a.elems)
      nxt[k] = (o.m[k] & NB_VALID) ? g.sum(src, k * B + t, o.m[k], o.cur[k]) * o.w[k] : 0.0f;
}

__device__ __forceinline__ void st_write(const StencilArgs &a, float *dst, const float *nxt) {
  const int B = blockDim.x, t = threadIdx.x;
#pragma unroll
  for (int k = 0; k < ST_MAX_ELEMS; ++k)
    if (k < a.elems) dst[k * B + t] = nxt[k];
}

// Sum of |new - old| over the thread's elements; then cur = new.
__device__ __forceinline__ float st_residual_and_advance(const StencilArgs &a, Owned &o,
                                                        const float *nxt) {
  float r = 0.0f;
#pragma unroll
  for (int k = 0; k < ST_MAX_ELEMS; ++k)
    if (k < a.elems) {
      r += fabsf(nxt[k] - o.cur[k]);
      o.cur[k] = nxt[k];
    }
  return r;
}

__device__ __forceinline__ void st_advance(const StencilArgs &a, Owned &o, const float *nxt) {
#pragma unroll
  for (int k = 0; k < ST_MAX_ELEMS; ++k)
    if (k < a.elems) o.cur[k] = nxt[k];
}

template <class G>
__device__ __forceinline__ void st_store(const StencilArgs &a, const G &g, const Owned &o) {
  const int B = blockDim.x, t = threadIdx.x;
#pragma unroll
  for (int k = 0; k < ST_MAX_ELEMS; ++k)
    if (k < a.elems && (o.m[k] & NB_VALID)) a.out[g.global(k * B + t)] = o.cur[k];
}

__device__ __forceinline__ float st_warp_sum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

// Block-wide sum of one float per thread at the end of the kernel (block
// size a multiple of 32); thread 0 writes it to the block's residual slot.
__device__ __forceinline__ void st_block_residual(const StencilArgs &a, float r) {
  __shared__ float part[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  r = st_warp_sum(r);
  if (lane == 0) part[warp] = r;
  __syncthreads();
  if (warp == 0) {
    float v = lane < warps ? part[lane] : 0.0f;
    v = st_warp_sum(v);
    if (lane == 0) a.out[a.n + blockIdx.x] = v;
  }
}

// ---- two_barrier: in place, 2 __syncthreads per iteration ----
template <class G>
__global__ void __launch_bounds__(1024) st_two_barrier(StencilArgs a) {
  extern __shared__ float tile[];
  G g(a, blockDim.x * a.elems);
  Owned o;
  float nxt[ST_MAX_ELEMS];
  st_load(a, g, tile, o);
  __syncthreads();
  for (int it = 0; it < a.iters; ++it) {
    st_compute(a, g, tile, o, nxt);
    __syncthreads();  // every neighbour read of this iteration is done (WAR)
    st_write(a, tile, nxt);
    st_advance(a, o, nxt);
    __syncthreads();  // every write is visible to the next reads (RAW)
  }
  st_store(a, g, o);
}

// ---- pingpong: read one buffer, write the other, 1 __syncthreads ----
template <class G>
__global__ void __launch_bounds__(1024) st_pingpong(StencilArgs a) {
  extern __shared__ float smem[];
  const int tile = blockDim.x * a.elems;
  G g(a, tile);
  Owned o;
  float nxt[ST_MAX_ELEMS];
  st_load(a, g, smem, o);
  __syncthreads();
  for (int it = 0; it < a.iters; ++it) {
    const float *src = smem + (it & 1) * tile;  // buffer offsets, not swapped pointers
    float *dst = smem + ((it & 1) ^ 1) * tile;
    st_compute(a, g, src, o, nxt);
    st_write(a, dst, nxt);
    st_advance(a, o, nxt);
    // One barrier: the next iteration reads dst (RAW) and writes src, whose
    // reads all happened before this barrier (WAR).
    __syncthreads();
  }
  st_store(a, g, o);
}

// ---- mbarrier: ping-pong, every thread arrives, waits by parity ----
//
// The barrier is initialized ONCE, before the loop, and each thread tracks
// the phase parity it waits for. A pattern seen in the wild re-initializes
// it at the top of every iteration (`if (t == 0) mbarrier.init(...)`) and
// is wrong: (1) a slow thread may still be spinning in try_wait on the
// previous phase when thread 0 re-inits; init resets the phase to 0 with no
// arrivals, so the waiter may never see the parity it waits for (hang) or
// see a stale one (runs ahead: a data race); (2) a fast thread may arrive
// for the next iteration before the re-init, and the init then erases that
// arrival, so the phase never completes (hang); (3) the PTX ISA makes
// mbarrier.init on an object other threads are using undefined behaviour.
// Nothing but a full __syncthreads before every init would make it safe,
// which is exactly the cost the mbarrier was meant to avoid.
template <bool Bounded, class G>
__global__ void __launch_bounds__(1024) st_mbarrier(StencilArgs a) {
  extern __shared__ float smem[];
  __shared__ __align__(8) uint64_t bar;
  const int tile = blockDim.x * a.elems;
  G g(a, tile);
  Owned o;
  float nxt[ST_MAX_ELEMS];
  if (threadIdx.x == 0) sb_mbar_init(&bar, blockDim.x);  // every thread arrives
  st_load(a, g, smem, o);
  __syncthreads();  // publishes the init and the loaded tile
  const uint32_t bar_a = sb_mbar_addr(&bar);  // once, outside the loop
  uint32_t parity = 0;
  for (int it = 0; it < a.iters; ++it) {
    const float *src = smem + (it & 1) * tile;
    float *dst = smem + ((it & 1) ^ 1) * tile;
    st_compute(a, g, src, o, nxt);
    st_write(a, dst, nxt);
    st_advance(a, o, nxt);
    sb_mbar_arrive(bar_a);               // release: my reads done, writes published
    sb_mbar_wait_parity<Bounded>(bar_a, parity);  // acquire: everybody's
    parity ^= 1;
  }
  // No mbarrier.inval: the barrier dies with the block.
  st_store(a, g, o);
}

// The cuda::barrier variants below wait through cuda::barrier::wait (libcu++
// polls mbarrier.try_wait with its own back-off), not through
// sb_mbar_wait_parity: they measure cuda::barrier as users get it.
typedef cuda::barrier<cuda::thread_scope_block> st_block_barrier;

// ---- split_arrive: arrive, independent work, wait ----
template <class G>
__global__ void __launch_bounds__(1024) st_split_arrive(StencilArgs a) {
  extern __shared__ float smem[];
  __shared__ st_block_barrier bar;
  const int tile = blockDim.x * a.elems;
  G g(a, tile);
  Owned o;
  float nxt[ST_MAX_ELEMS];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  st_load(a, g, smem, o);
  __syncthreads();
  float resid = 0.0f;
  for (int it = 0; it < a.iters; ++it) {
    const float *src = smem + (it & 1) * tile;
    float *dst = smem + ((it & 1) ^ 1) * tile;
    st_compute(a, g, src, o, nxt);
    st_write(a, dst, nxt);
    st_block_barrier::arrival_token token = bar.arrive();  // my part is published
    // Work that needs nobody else's data, overlapping the barrier.
    resid += st_residual_and_advance(a, o, nxt);
    bar.wait(cuda::std::move(token));  // only now: the next iteration reads dst
  }
  st_store(a, g, o);
  st_block_residual(a, resid);
}

// ---- arrive_wait: the same work, barrier not split ----
template <class G>
__global__ void __launch_bounds__(1024) st_arrive_wait(StencilArgs a) {
  extern __shared__ float smem[];
  __shared__ st_block_barrier bar;
  const int tile = blockDim.x * a.elems;
  G g(a, tile);
  Owned o;
  float nxt[ST_MAX_ELEMS];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  st_load(a, g, smem, o);
  __syncthreads();
  float resid = 0.0f;
  for (int it = 0; it < a.iters; ++it) {
    const float *src = smem + (it & 1) * tile;
    float *dst = smem + ((it & 1) ^ 1) * tile;
    st_compute(a, g, src, o, nxt);
    st_write(a, dst, nxt);
    bar.arrive_and_wait();
    resid += st_residual_and_advance(a, o, nxt);
  }
  st_store(a, g, o);
  st_block_residual(a, resid);
}

// ---- completion: a completion function reduces each phase's residual ----
// Runs once per phase on the last thread to arrive, after every arrival
// and before any waiter is released: it sees every warp's partial sum, and
// the next phase's writes to wsum happen only after the wait.
struct StResidualSum {
  const float *wsum;
  float *total;
  int warps;
  __device__ void operator()() noexcept {
    float s = 0.0f;
    for (int w = 0; w < warps; ++w) s += wsum[w];
    *total += s;  // the per-iteration residual s is what a convergence test reads
  }
};
typedef cuda::barrier<cuda::thread_scope_block, StResidualSum> st_completion_barrier;

template <class G>
__global__ void __launch_bounds__(1024) st_completion(StencilArgs a) {
  extern __shared__ float smem[];
  __shared__ st_completion_barrier bar;
  __shared__ float wsum[32], total;
  const int tile = blockDim.x * a.elems;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  G g(a, tile);
  Owned o;
  float nxt[ST_MAX_ELEMS];
  if (threadIdx.x == 0) {
    total = 0.0f;
    StResidualSum f = {wsum, &total, (int)blockDim.x >> 5};
    init(&bar, blockDim.x, f);
  }
  st_load(a, g, smem, o);
  __syncthreads();
  for (int it = 0; it < a.iters; ++it) {
    const float *src = smem + (it & 1) * tile;
    float *dst = smem + ((it & 1) ^ 1) * tile;
    st_compute(a, g, src, o, nxt);
    st_write(a, dst, nxt);
    const float r = st_warp_sum(st_residual_and_advance(a, o, nxt));
    if (lane == 0) wsum[warp] = r;
    bar.arrive_and_wait();  // the completion function adds up wsum
  }
  st_store(a, g, o);
  if (threadIdx.x == 0) a.out[a.n + blockIdx.x] = total;  // last phase completed
}

// ---- manual_reduce: the per-iteration residual reduced by hand ----
template <class G>
__global__ void __launch_bounds__(1024) st_manual_reduce(StencilArgs a) {
  extern __shared__ float smem[];
  // Double-buffered by iteration: warp 0 reads wsum[it & 1] after the
  // barrier of iteration it; the next writes to it come after the barrier
  // of iteration it + 1, which warp 0 reaches only after reading.
  __shared__ float wsum[2][32];
  const int tile = blockDim.x * a.elems;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  G g(a, tile);
  Owned o;
  float nxt[ST_MAX_ELEMS];
  st_load(a, g, smem, o);
  __syncthreads();
  float total = 0.0f;
  for (int it = 0; it < a.iters; ++it) {
    const float *src = smem + (it & 1) * tile;
    float *dst = smem + ((it & 1) ^ 1) * tile;
    st_compute(a, g, src, o, nxt);
    st_write(a, dst, nxt);
    const float r = st_warp_sum(st_residual_and_advance(a, o, nxt));
    if (lane == 0) wsum[it & 1][warp] = r;
    __syncthreads();  // ping-pong barrier, and the warp sums are in
    if (warp == 0) {
      float s = lane < warps ? wsum[it & 1][lane] : 0.0f;
      total += st_warp_sum(s);  // the per-iteration residual, in every lane
    }
  }
  st_store(a, g, o);
  if (threadIdx.x == 0) a.out[a.n + blockIdx.x] = total;
}

// ---- launchers ----

static inline int st_log2(long long v) {
  int s = 0;
  while ((1LL << (s + 1)) <= v) ++s;
  return s;
}

// 1D: one tile of block * elems consecutive elements per block.
static inline void st_args_1d(const sb_launch *L, StencilArgs *a, long long *grid) {
  const long long block = L->axis[SB_AXIS_BLOCK], elems = L->axis[SB_AXIS_ELEMS];
  a->in = (const float *)L->in;
  a->out = (float *)L->out;
  a->n = L->axis[SB_AXIS_N];
  a->iters = (int)L->axis[SB_AXIS_ITERS];
  a->elems = (int)elems;
  a->tw_shift = a->tiles_x = a->rows = 0;
  *grid = sb_ceil_div(a->n, block * elems);
}

// 2D: tiles of tw x th over an image ST2D_WIDTH wide (bench/stencil.c
// checks that n is a multiple of ST2D_WIDTH and the tile >= 32x32).
static inline void st_args_2d(const sb_launch *L, StencilArgs *a, long long *grid) {
  st_args_1d(L, a, grid);
  const long long tile = L->axis[SB_AXIS_BLOCK] * L->axis[SB_AXIS_ELEMS];
  const int tw = tile >= 4096 && tile % 64 == 0 ? 64 : 32;
  const long long th = tile / tw;
  a->tw_shift = st_log2(tw);
  a->tiles_x = ST2D_WIDTH / tw;
  a->rows = (int)(a->n / ST2D_WIDTH);
  *grid = (long long)a->tiles_x * sb_ceil_div(a->rows, th);
}

#define ST_LAUNCHER(fam, variant, geom, args, buffers)                              \
  extern "C" cudaError_t sb_##fam##_##variant(sb_launch *L) {                       \
    StencilArgs a;                                                                  \
    long long grid;                                                                 \
    args(L, &a, &grid);                                                             \
    const int block = (int)L->axis[SB_AXIS_BLOCK];                                  \
    const size_t smem = (size_t)(buffers) * block * a.elems * sizeof(float);        \
    SB_LAUNCH(L, st_##variant<geom>, grid, block, smem, a);                         \
  }

#define ST_VARIANT_LAUNCHERS(variant, buffers)                  \
  ST_LAUNCHER(stencil, variant, Tile1D, st_args_1d, buffers)    \
  ST_LAUNCHER(stencil2d, variant, Tile2D, st_args_2d, buffers)

ST_VARIANT_LAUNCHERS(two_barrier, 1)
ST_VARIANT_LAUNCHERS(pingpong, 2)
// mbarrier: the bounded kernel validates, the raw one is timed (common.cuh).
#define ST_TWIN_LAUNCHER(fam, geom, args)                                          \
  extern "C" cudaError_t sb_##fam##_mbarrier(sb_launch *L) {                       \
    StencilArgs a;                                                                 \
    long long grid;                                                                \
    args(L, &a, &grid);                                                            \
    const int block = (int)L->axis[SB_AXIS_BLOCK];                                 \
    const size_t smem = (size_t)2 * block * a.elems * sizeof(float);               \
    void (*const bounded_k)(StencilArgs) = st_mbarrier<true, geom>;                \
    void (*const raw_k)(StencilArgs) = st_mbarrier<false, geom>;                   \
    SB_LAUNCH_TWIN(L, bounded_k, raw_k, grid, block, smem, a);                     \
  }
ST_TWIN_LAUNCHER(stencil, Tile1D, st_args_1d)
ST_TWIN_LAUNCHER(stencil2d, Tile2D, st_args_2d)
ST_VARIANT_LAUNCHERS(split_arrive, 2)
ST_VARIANT_LAUNCHERS(arrive_wait, 2)
ST_VARIANT_LAUNCHERS(completion, 2)
ST_VARIANT_LAUNCHERS(manual_reduce, 2)
