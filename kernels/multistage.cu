// Multi-stage family: each block holds a tile of B (block_threads) x E
// (elems_per_thread) consecutive floats (the last tile may be short) and
// runs `iters` passes of three stages over it in shared memory:
//   1. preprocess   P[i] = 1.1 * A[i]
//   2. blur         Q[i] = mean of P[i-2..i+2] over the valid ones (inside the tile)
//   3. smooth       A[i] = cascade: v = Q[i]; then for j = 1, 2, 3, while
//                   i + j is inside the tile, v = 0.5 * (v + Q[i + j])
// then writes A back. Three shared buffers A, P, Q of one tile each.
// Host side: bench/multistage.c.
//
// B and E are compile-time parameters (CUB's BLOCK_THREADS and
// ITEMS_PER_THREAD), instantiated for the sweeps' values (MsBlocks, MsElems
// below): every per-element loop unrolls, the buffers sit at compile-time
// offsets, and all variants share one kernel, its __launch_bounds__, the
// shared-memory layout (3 x B x E floats, dynamic because 1024 x 8 needs 96
// KiB) and the element arithmetic. Roles: `uniform` gives thread t the
// elements e = k*B + t of every stage; the specialized variants split the
// block into halves of H = B/2 threads, the first preprocessing, the second
// blurring (element c*H + id, 2E chunks of H each), and all smooth.
//
// Variants and synchronization per pass:
//   uniform               every thread runs every stage on its elements:
//                         2 __syncthreads (after preprocess, after blur);
//                         smooth -> next preprocess is the same thread, so
//                         no barrier there
//   specialized           half preprocesses, half blurs, all smooth:
//                         3 __syncthreads, half the block idle in stages 1-2
//   specialized_mbarrier  same roles; producer threads signal each chunk on
//                         its own mbarrier, blur threads wait only for the
//                         chunks their 5 points touch, producers never wait
//                         for the blur: 2 __syncthreads + 2E mbarrier phases,
//                         and blur overlaps preprocessing
//   early_exit            same roles on one cuda::barrier (3 phases per
//                         pass); in the last pass the preprocess threads
//                         have nothing left to do: they arrive_and_drop and
//                         exit, and the blur threads finish blur + smooth +
//                         store on a barrier that now expects only them
//
// No full/empty ring here (each chunk's barrier completes one phase per
// pass and the block barriers order the reuse), so ring.cuh is not used.
#include <cuda/barrier>

#include "launch.cuh"
#include "mbarrier.cuh"

#pragma nv_diag_suppress static_var_with_dynamic_init

struct MsParams {
  const float *in;
  float *out;
  long long n;
  int iters;
};

// The values compiled: block_threads and elems_per_thread of the default
// (128,1024 x 2,8) and quick (128,1024 x 3) sweeps.
using MsBlocks = sb_values<128, 1024>;
using MsElems = sb_values<2, 3, 8>;

// The block's three buffers at compile-time offsets in dynamic shared memory.
extern __shared__ __align__(16) float ms_smem[];

template <int B, int E>
struct MsTile {
  static constexpr int tile = B * E;
  float *const A = ms_smem, *const P = ms_smem + tile, *const Q = ms_smem + 2 * tile;
  const long long base = (long long)blockIdx.x * tile;
  const int len;  // elements of this block's tile (the last one may be short)
  __device__ __forceinline__ explicit MsTile(long long n)
      : len(n - base < tile ? (int)(n - base) : tile) {}
};

__device__ __forceinline__ float ms_pre(float x) { return 1.1f * x; }

__device__ __forceinline__ float ms_blur(const float *p, int e, int len) {
  float s = p[e];
  int c = 1;
  if (e >= 1) s += p[e - 1], ++c;
  if (e + 1 < len) s += p[e + 1], ++c;
  if (e >= 2) s += p[e - 2], ++c;
  if (e + 2 < len) s += p[e + 2], ++c;
  return s * __frcp_rn((float)c);  // correctly rounded 1/c, as 1.0f / c
}

__device__ __forceinline__ float ms_smooth(const float *q, int e, int len) {
  float v = q[e];
  if (e + 1 < len) v = 0.5f * (v + q[e + 1]);
  if (e + 2 < len) v = 0.5f * (v + q[e + 2]);
  if (e + 3 < len) v = 0.5f * (v + q[e + 3]);
  return v;
}

// f(e) for this thread's elements e = k * B + t inside the tile.
template <int B, int E, class F>
__device__ __forceinline__ void ms_each_mine(int len, F &&f) {
#pragma unroll
  for (int k = 0; k < E; ++k) {
    const int e = k * B + (int)threadIdx.x;
    if (e < len) f(e);
  }
}

// f(e) for a half-block thread's elements e = c * H + id inside the tile.
template <int B, int E, class F>
__device__ __forceinline__ void ms_each_chunk(int id, int len, F &&f) {
#pragma unroll
  for (int c = 0; c < 2 * E; ++c) {
    const int e = c * (B / 2) + id;
    if (e < len) f(e);
  }
}

// Every thread loads / stores its elements e = k * B + t (loads pad the
// short last tile with 0).
template <int B, int E>
__device__ __forceinline__ void ms_load(const MsParams &p, const MsTile<B, E> &t) {
#pragma unroll
  for (int k = 0; k < E; ++k) {
    const int e = k * B + (int)threadIdx.x;
    t.A[e] = e < t.len ? p.in[t.base + e] : 0.0f;
  }
}

template <int B, int E>
__device__ __forceinline__ void ms_store(const MsParams &p, const MsTile<B, E> &t) {
  ms_each_mine<B, E>(t.len, [&](int e) { p.out[t.base + e] = t.A[e]; });
}

// Stage 3 by every thread on its elements e = k * B + t.
template <int B, int E>
__device__ __forceinline__ void ms_smooth_all(const MsTile<B, E> &t) {
  ms_each_mine<B, E>(t.len, [&](int e) { t.A[e] = ms_smooth(t.Q, e, t.len); });
}

struct MsUniform {
  static constexpr bool twin = false;
  template <int B, int E, bool Bounded>
  __device__ static void run(const MsParams &p) {
    const MsTile<B, E> t(p.n);
    ms_load(p, t);  // read back by the same thread: no barrier
    for (int pass = 0; pass < p.iters; ++pass) {
      ms_each_mine<B, E>(t.len, [&](int e) { t.P[e] = ms_pre(t.A[e]); });
      __syncthreads();  // P complete (blur reads neighbours); last smooth's reads of Q done
      ms_each_mine<B, E>(t.len, [&](int e) { t.Q[e] = ms_blur(t.P, e, t.len); });
      __syncthreads();  // Q complete (smooth reads ahead); blur's reads of P done
      ms_smooth_all(t);
    }
    ms_store(p, t);
  }
};

struct MsSpecialized {
  static constexpr bool twin = false;
  template <int B, int E, bool Bounded>
  __device__ static void run(const MsParams &p) {
    constexpr int H = B / 2;
    const MsTile<B, E> t(p.n);
    const bool producer = threadIdx.x < H;
    const int id = producer ? threadIdx.x : threadIdx.x - H;
    ms_load(p, t);
    __syncthreads();  // producers read elements other threads loaded
    for (int pass = 0; pass < p.iters; ++pass) {
      if (producer) ms_each_chunk<B, E>(id, t.len, [&](int e) { t.P[e] = ms_pre(t.A[e]); });
      __syncthreads();  // P complete
      if (!producer) ms_each_chunk<B, E>(id, t.len, [&](int e) { t.Q[e] = ms_blur(t.P, e, t.len); });
      __syncthreads();  // Q complete; P free again
      ms_smooth_all(t);
      __syncthreads();  // A complete for the producers; Q free again
    }
    ms_store(p, t);
  }
};

struct MsSpecializedMbarrier {
  static constexpr bool twin = true;
  template <int B, int E, bool Bounded>
  __device__ static void run(const MsParams &p) {
    constexpr int H = B / 2, chunks = 2 * E;
    // full[c]: chunk c of P (elements c*H .. c*H+H-1) is written. One phase
    // per pass, so the phase parity of pass p is p & 1. Arrivals: every
    // producer thread, from a converged warp (the hardware folds a converged
    // warp's arrivals). Not one elected lane per warp after __syncwarp: the
    // arrive's release covers only the arriving thread's own writes as far
    // as compute-sanitizer's racecheck can tell, and it reports that as a race.
    __shared__ __align__(8) uint64_t full[chunks];
    const MsTile<B, E> t(p.n);
    const bool producer = threadIdx.x < H;
    const int id = producer ? threadIdx.x : threadIdx.x - H;
    if (threadIdx.x == 0)
#pragma unroll
      for (int c = 0; c < chunks; ++c) sb_mbar_init(&full[c], H);
    ms_load(p, t);
    __syncthreads();  // publishes the inits and the loaded tile
    const uint32_t full_a = sb_mbar_addr(full);  // chunk c's barrier: full_a + 8 * c
    for (int pass = 0; pass < p.iters; ++pass) {
      const uint32_t parity = pass & 1;
      if (producer) {
        // Never waits for the blur: P is single-buffered, and the two block
        // barriers below (which smooth needs anyway) order this pass's P
        // writes after the previous pass's blur reads.
#pragma unroll
        for (int c = 0; c < chunks; ++c) {
          const int e = c * H + id;
          if (e < t.len) t.P[e] = ms_pre(t.A[e]);
          sb_mbar_arrive(full_a + 8u * c);  // release: this thread's P write
        }
      } else {
        // Element c*H+id needs P[e-2 .. e+2]: chunk c, chunk c-1 (already
        // waited for) and, for the last two ids (`ahead`), chunk c+1, which
        // they wait for one chunk early.
        const bool ahead = id + 2 >= H;
#pragma unroll
        for (int c = 0; c < chunks; ++c) {
          if (c == 0 || !ahead) sb_mbar_wait_parity_stage<Bounded>(full_a + 8u * c, parity, c);
          if (ahead && c + 1 < chunks)
            sb_mbar_wait_parity_stage<Bounded>(full_a + 8u * (c + 1), parity, c + 1);
          const int e = c * H + id;
          if (e < t.len) t.Q[e] = ms_blur(t.P, e, t.len);
        }
      }
      __syncthreads();  // Q complete; every blur read of P and every wait done
      ms_smooth_all(t);
      __syncthreads();  // A complete for the producers; Q free again
    }
    ms_store(p, t);
  }
};

// cuda::barrier waits are libcu++'s own (mbarrier.try_wait with back-off),
// not sb_mbar_wait_parity: this variant measures cuda::barrier as is.
typedef cuda::barrier<cuda::thread_scope_block> ms_block_barrier;

struct MsEarlyExit {
  static constexpr bool twin = false;
  template <int B, int E, bool Bounded>
  __device__ static void run(const MsParams &p) {
    constexpr int H = B / 2;
    __shared__ ms_block_barrier bar;
    const MsTile<B, E> t(p.n);
    const bool producer = threadIdx.x < H;
    const int id = producer ? threadIdx.x : threadIdx.x - H;
    if (threadIdx.x == 0) init(&bar, B);
    ms_load(p, t);
    __syncthreads();  // the last __syncthreads: from here on threads may leave
    for (int pass = 0; pass < p.iters; ++pass) {
      const bool last = pass + 1 == p.iters;
      if (producer) {
        ms_each_chunk<B, E>(id, t.len, [&](int e) { t.P[e] = ms_pre(t.A[e]); });
        if (last) {
          // Counts as this thread's arrival for the current phase (P ready,
          // with release semantics) and lowers the expected count of every
          // later phase by one, so the blur threads' next phase completes
          // without us. A plain `return` here would hang them.
          bar.arrive_and_drop();
          return;
        }
      }
      bar.arrive_and_wait();  // P complete
      if (!producer) ms_each_chunk<B, E>(id, t.len, [&](int e) { t.Q[e] = ms_blur(t.P, e, t.len); });
      bar.arrive_and_wait();  // Q complete (in the last pass: blur threads only)
      if (!last) {
        ms_smooth_all(t);
        bar.arrive_and_wait();  // A complete; Q free again
      } else {
        ms_each_chunk<B, E>(id, t.len,
                            [&](int e) { p.out[t.base + e] = ms_smooth(t.Q, e, t.len); });
      }
    }
  }
};

// Blocks per SM the timed kernel must fit (its __launch_bounds__ minimum):
// as many as the threads (2048 per SM) and the shared memory (228 KB per SM,
// 1 KB of it reserved per block) allow, so that registers never give one
// variant a lower occupancy than the others. The validating twin has no
// minimum (its occupancy is not measured).
template <int B, int E>
constexpr int ms_min_blocks() {
  const int by_smem = 228 * 1024 / (3 * B * E * (int)sizeof(float) + 1024);
  return 2048 / B < by_smem ? 2048 / B : by_smem;
}

template <class V, int B, int E, bool Bounded>
__global__ void __launch_bounds__(B, Bounded ? 1 : ms_min_blocks<B, E>())
    multistage_kernel(const MsParams p) {
  V::template run<B, E, Bounded>(p);
}

template <class V, int B, int E>
static sb_kernels ms_kernels() {
  return sb_twin_kernels<V::twin>(
      [](auto bounded) { return multistage_kernel<V, B, E, decltype(bounded)::value>; },
      3 * (size_t)B * E * sizeof(float));
}

template <class V>
static int ms_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  const long long block = axis[SB_AXIS_BLOCK], elems = axis[SB_AXIS_ELEMS];
  bool hit = false;
  if (!sb_dispatch(block, MsBlocks{}, [&](auto b) {
        hit = sb_dispatch(elems, MsElems{}, [&](auto e) {
          *k = ms_kernels<V, std::decay_t<decltype(b)>::value, std::decay_t<decltype(e)>::value>();
        });
      }))
    return sb_no_instance<MsBlocks>("block_threads", block, why, len);
  return hit ? 0 : sb_no_instance<MsElems>("elems_per_thread", elems, why, len);
}

static cudaError_t ms_launch(sb_launch *L) {
  MsParams p;
  p.in = (const float *)L->in;
  p.out = (float *)L->out;
  p.n = L->axis[SB_AXIS_N];
  p.iters = (int)L->axis[SB_AXIS_ITERS];
  sb_shape s;
  s.block = (int)L->axis[SB_AXIS_BLOCK];
  s.grid = sb_ceil_div(p.n, (long long)s.block * L->axis[SB_AXIS_ELEMS]);
  return sb_launch_params(L, s, p);
}

static const sb_variant multistage_rows[] = {
    {"uniform", ms_launch, ms_pick<MsUniform>, 0, SB_VF_BASELINE,
     "every thread runs all 3 stages: 2 __syncthreads/pass"},
    {"specialized", ms_launch, ms_pick<MsSpecialized>, 0, 0,
     "half preprocesses, half blurs, all smooth: 3 __syncthreads/pass"},
    {"specialized_mbarrier", ms_launch, ms_pick<MsSpecializedMbarrier>, 0, 0,
     "same roles; per-chunk mbarriers, blur waits only for its chunks: 2 __syncthreads + 2*elems phases/pass"},
    {"early_exit", ms_launch, ms_pick<MsEarlyExit>, 0, 0,
     "same roles on a cuda::barrier (3 phases/pass); preprocess threads arrive_and_drop in the last pass"},
};
extern "C" const sb_variant_table sb_multistage_variants = {
    multistage_rows, sizeof multistage_rows / sizeof multistage_rows[0]};
