// Multi-stage family: each block holds a tile of B (block_threads) x E
// (elems_per_thread) consecutive floats (the last tile may be short) and
// runs `iters` passes of three stages over it in shared memory:
//   1. preprocess   P[i] = 1.1 * x[i]
//   2. blur         Q[i] = mean of P[i-2..i+2] over the valid ones (inside the tile)
//   3. smooth       x[i] = cascade: v = Q[i]; then for j = 1, 2, 3, while
//                   i + j is inside the tile, v = 0.5 * (v + Q[i + j])
// then writes x back. Host side: bench/multistage.c; the element arithmetic
// (shared with the host tests): multistage_math.h.
//
// B and E are compile-time parameters (CUB's BLOCK_THREADS and
// ITEMS_PER_THREAD), instantiated for the sweeps' values (MsBlocks, MsElems
// below): every per-element loop unrolls, the buffers sit at compile-time
// offsets, and all variants share one kernel, its __launch_bounds__, the
// shared-memory layout (MsLayout: A, P, Q of one tile each, P and Q with
// zeros around them; dynamic because 1024 x 8 needs 96 KiB) and the element
// arithmetic. Roles: `uniform` gives thread t the elements e = k*B + t of
// every stage; the specialized variants split the block into halves of
// H = B/2 threads, the first preprocessing, the second blurring (element
// c*H + id, 2E chunks of H each), and all smooth.
//
// Neighbours without branches (as kernels/families/stencil.cu): P has two zeros
// before and after the tile, Q three after it, and in a short tile the
// elements past the valid part hold 0 and keep it. Every element takes the
// same loads and the same operations; only its weight (blur: fl(1/points),
// smooth: 0.5 * 2^missing steps, 0 past the valid part) depends on where it
// lies, and in a full tile only a thread's first element (j = 0: the
// tile's first two) and last one (j = K-1: its last two or three) differ
// from the interior's: three weights per thread, computed once
// (MsWeights). The one short tile of a launch takes a second copy of the
// variant's code, chosen once per block, that derives each weight from the
// element's position. multistage_math.h shows the result equals the
// stages as defined, bit for bit.
//
// Variants and synchronization per pass:
//   uniform               every thread runs every stage on its elements:
//                         2 __syncthreads (after preprocess, after blur);
//                         smooth -> next preprocess is the same thread and
//                         element, so neither a barrier nor shared memory:
//                         x stays in the thread's registers (A unused)
//   specialized           half preprocesses, half blurs, all smooth:
//                         3 __syncthreads, half the block idle in stages 1-2;
//                         smooth -> preprocess crosses threads, through A
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

#include "../common/launch.cuh"
#include "../common/mbarrier.cuh"
#include "multistage_math.h"

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

// The block's buffers at compile-time offsets in dynamic shared memory.
extern __shared__ __align__(16) float ms_smem[];

// Floats of dynamic shared memory for a tile of T:
//   A [0, T) | 2 zeros | P [T+2, 2T+2) | 2 zeros | Q [2T+4, 3T+4) | 3 zeros
// Pad i (0 .. PADS-1) is at pad(i); the kernel zeroes them before the
// variant runs, and every variant has a block barrier before its first blur.
template <int T>
struct MsLayout {
  static constexpr int A = 0, P = T + SB_MS_P_PAD, Q = P + T + SB_MS_P_PAD;
  static constexpr int FLOATS = Q + T + SB_MS_Q_PAD, PADS = 2 * SB_MS_P_PAD + SB_MS_Q_PAD;
  __device__ static int pad(int i) {
    return i < SB_MS_P_PAD ? T + i : i < 2 * SB_MS_P_PAD ? P + T + (i - SB_MS_P_PAD) : Q + T + (i - 2 * SB_MS_P_PAD);
  }
};

template <int B, int E, bool Full>
struct MsTile {
  static constexpr int T = B * E;
  using L = MsLayout<T>;
  float *const A = ms_smem + L::A, *const P = ms_smem + L::P, *const Q = ms_smem + L::Q;
  const long long base = (long long)blockIdx.x * T;
  const int len;  // valid elements: T (a compile-time constant) in a full tile
  __device__ __forceinline__ explicit MsTile(int valid) : len(Full ? T : valid) {}
  __device__ __forceinline__ bool valid(int e) const { return Full || e < len; }
};

// threadIdx.x and the short tile's length read anew where they are used
// (as kernels/families/stencil.cu's st_tid): the compiler can neither reuse an
// earlier read nor hoist what depends on them out of the pass loop, so the
// short tile's per-element weights are not held in registers through it.
__device__ __forceinline__ int ms_fresh_tid() {
  int v;
  asm volatile("mov.u32 %0, %%tid.x;" : "=r"(v));
  return v;
}
template <int T>
__device__ __forceinline__ int ms_fresh_len(long long n) {
  int b;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(b));
  const long long left = n - (long long)b * T;
  return left < T ? (int)left : T;
}

// Weights of a thread's elements e = j * S + i (j < K) of a tile of S * K.
// Full tile: elements 0 < j < K-1 have all 5 blur points and 3 smooth steps
// (S >= 3), so only j = 0 and j = K-1 need per-thread weights, computed
// once. Short tile: each weight from the element's position, every time.
template <int S, int K, bool Full>
struct MsWeights {
  static_assert(S >= 3, "interior elements have all their neighbours");
  float blur0 = 0.0f, blur_last = 0.0f, smooth_last = 0.0f;
  const long long n;
  __device__ __forceinline__ MsWeights(int i, const MsParams &p) : n(p.n) {
    if (Full) {
      blur0 = sb_ms_blur_weight(i, S * K);
      blur_last = sb_ms_blur_weight((K - 1) * S + i, S * K);
      smooth_last = sb_ms_smooth_weight((K - 1) * S + i, S * K);
    }
  }
  __device__ __forceinline__ float blur(int j) const {
    if (!Full) return sb_ms_blur_weight(j * S + ms_fresh_tid() % S, ms_fresh_len<S * K>(n));
    return j == 0 ? blur0 : j == K - 1 ? blur_last : SB_MS_BLUR_INTERIOR;
  }
  __device__ __forceinline__ float smooth(int j) const {
    if (!Full) return sb_ms_smooth_weight(j * S + ms_fresh_tid() % S, ms_fresh_len<S * K>(n));
    return j == K - 1 ? smooth_last : SB_MS_SMOOTH_INTERIOR;
  }
};

// f(j, e) for j < K, e = j * S + i: a thread's elements (uniform, smooth:
// S = B, K = E) or chunks (specialized roles: S = H, K = 2E). Unrolled
// unless Unroll is false: the short tile's loops over shared memory, whose
// per-element weights would otherwise be scheduled side by side and spill
// on sm_80 (a loop over a register array must unroll).
template <int S, int K, bool Unroll = true, class F>
__device__ __forceinline__ void ms_each(int i, F &&f) {
  if constexpr (Unroll) {
#pragma unroll
    for (int j = 0; j < K; ++j) f(j, j * S + i);
  } else {
#pragma unroll 1
    for (int j = 0; j < K; ++j) f(j, j * S + i);
  }
}

// The specialized roles: the tile between passes lives in A. Every thread
// loads / stores its elements e = k * B + t (0 past the valid part).
template <int B, int E, bool Full>
__device__ __forceinline__ void ms_load(const MsParams &p, const MsTile<B, E, Full> &t) {
  ms_each<B, E, Full>(threadIdx.x, [&](int, int e) { t.A[e] = t.valid(e) ? p.in[t.base + e] : 0.0f; });
}

template <int B, int E, bool Full>
__device__ __forceinline__ void ms_store(const MsParams &p, const MsTile<B, E, Full> &t) {
  ms_each<B, E, Full>(threadIdx.x, [&](int, int e) {
    if (t.valid(e)) p.out[t.base + e] = t.A[e];
  });
}

// Stage 1 / 2 on a half-block thread's chunks, stage 3 on every thread's elements.
template <int B, int E, bool Full>
__device__ __forceinline__ void ms_pre_chunks(const MsTile<B, E, Full> &t, int id) {
  ms_each<B / 2, 2 * E, Full>(id, [&](int, int e) { t.P[e] = sb_ms_pre(t.A[e]); });
}

template <int B, int E, bool Full, class W>
__device__ __forceinline__ void ms_blur_chunks(const MsTile<B, E, Full> &t, int id, const W &w) {
  ms_each<B / 2, 2 * E, Full>(id, [&](int c, int e) { t.Q[e] = sb_ms_blur(t.P + e, w.blur(c)); });
}

template <int B, int E, bool Full, class W>
__device__ __forceinline__ void ms_smooth_all(const MsTile<B, E, Full> &t, const W &w) {
  ms_each<B, E, Full>(threadIdx.x, [&](int k, int e) { t.A[e] = sb_ms_smooth(t.Q + e, w.smooth(k)); });
}

// The block's synchronization objects, one per kernel (not one per tile
// path: both paths of a kernel call these).
template <int Chunks>
__device__ __forceinline__ uint64_t *ms_chunk_barriers() {
  __shared__ __align__(8) uint64_t full[Chunks];
  return full;
}

// cuda::barrier waits are libcu++'s own (mbarrier.try_wait with back-off),
// not sb_mbar_wait_parity: this variant measures cuda::barrier as is.
typedef cuda::barrier<cuda::thread_scope_block> ms_block_barrier;

__device__ __forceinline__ ms_block_barrier &ms_barrier() {
  __shared__ ms_block_barrier bar;
  return bar;
}

struct MsUniform {
  static constexpr bool twin = false;
  template <int B, int E, bool Bounded, bool Full>
  __device__ static void run(const MsParams &p, const MsTile<B, E, Full> &t) {
    const int i = threadIdx.x;
    const MsWeights<B, E, Full> w(i, p);
    float x[E];  // the thread's elements k * B + t, between passes
    ms_each<B, E>(i, [&](int k, int e) { x[k] = t.valid(e) ? p.in[t.base + e] : 0.0f; });
#pragma unroll 1
    for (int pass = 0; pass < p.iters; ++pass) {
      ms_each<B, E>(i, [&](int k, int e) { t.P[e] = sb_ms_pre(x[k]); });
      __syncthreads();  // P complete (blur reads neighbours); last smooth's reads of Q done
      ms_each<B, E>(i, [&](int k, int e) { t.Q[e] = sb_ms_blur(t.P + e, w.blur(k)); });
      __syncthreads();  // Q complete (smooth reads ahead); blur's reads of P done
      ms_each<B, E>(i, [&](int k, int e) { x[k] = sb_ms_smooth(t.Q + e, w.smooth(k)); });
    }
    ms_each<B, E>(i, [&](int k, int e) {
      if (t.valid(e)) p.out[t.base + e] = x[k];
    });
  }
};

struct MsSpecialized {
  static constexpr bool twin = false;
  template <int B, int E, bool Bounded, bool Full>
  __device__ static void run(const MsParams &p, const MsTile<B, E, Full> &t) {
    constexpr int H = B / 2;
    const bool producer = threadIdx.x < H;
    const int id = producer ? threadIdx.x : threadIdx.x - H;
    const MsWeights<H, 2 * E, Full> wc(id, p);       // blur, on chunks
    const MsWeights<B, E, Full> wt(threadIdx.x, p);  // smooth, on elements
    ms_load(p, t);
    __syncthreads();  // producers read elements other threads loaded
#pragma unroll 1
    for (int pass = 0; pass < p.iters; ++pass) {
      if (producer) ms_pre_chunks(t, id);
      __syncthreads();  // P complete
      if (!producer) ms_blur_chunks(t, id, wc);
      __syncthreads();  // Q complete; P free again
      ms_smooth_all(t, wt);
      __syncthreads();  // A complete for the producers; Q free again
    }
    ms_store(p, t);
  }
};

struct MsSpecializedMbarrier {
  static constexpr bool twin = true;
  template <int B, int E, bool Bounded, bool Full>
  __device__ static void run(const MsParams &p, const MsTile<B, E, Full> &t) {
    constexpr int H = B / 2, chunks = 2 * E;
    // full[c]: chunk c of P (elements c*H .. c*H+H-1) is written. One phase
    // per pass, so the phase parity of pass p is p & 1. Arrivals: every
    // producer thread, from a converged warp (the hardware folds a converged
    // warp's arrivals). Not one elected lane per warp after __syncwarp: the
    // arrive's release covers only the arriving thread's own writes as far
    // as compute-sanitizer's racecheck can tell, and it reports that as a race.
    uint64_t *const full = ms_chunk_barriers<chunks>();
    const bool producer = threadIdx.x < H;
    const int id = producer ? threadIdx.x : threadIdx.x - H;
    const MsWeights<H, chunks, Full> wc(id, p);
    const MsWeights<B, E, Full> wt(threadIdx.x, p);
    if (threadIdx.x == 0)
#pragma unroll
      for (int c = 0; c < chunks; ++c) sb_mbar_init(&full[c], H);
    ms_load(p, t);
    __syncthreads();  // publishes the inits and the loaded tile
    const uint32_t full_a = sb_mbar_addr(full);  // chunk c's barrier: full_a + 8 * c
#pragma unroll 1
    for (int pass = 0; pass < p.iters; ++pass) {
      const uint32_t parity = pass & 1;
      if (producer) {
        // Never waits for the blur: P is single-buffered, and the two block
        // barriers below (which smooth needs anyway) order this pass's P
        // writes after the previous pass's blur reads.
        ms_each<H, chunks, Full>(id, [&](int c, int e) {
          t.P[e] = sb_ms_pre(t.A[e]);
          sb_mbar_arrive(full_a + 8u * c);  // release: this thread's P write
        });
      } else {
        // Element c*H+id needs P[e-2 .. e+2]: chunk c, chunk c-1 (already
        // waited for) and, for the last two ids (`ahead`), chunk c+1, which
        // they wait for one chunk early. P's pads need no wait.
        const bool ahead = id + 2 >= H;
        ms_each<H, chunks, Full>(id, [&](int c, int e) {
          if (c == 0 || !ahead) sb_mbar_wait_parity_stage<Bounded>(full_a + 8u * c, parity, c);
          if (ahead && c + 1 < chunks)
            sb_mbar_wait_parity_stage<Bounded>(full_a + 8u * (c + 1), parity, c + 1);
          t.Q[e] = sb_ms_blur(t.P + e, wc.blur(c));
        });
      }
      __syncthreads();  // Q complete; every blur read of P and every wait done
      ms_smooth_all(t, wt);
      __syncthreads();  // A complete for the producers; Q free again
    }
    ms_store(p, t);
  }
};

struct MsEarlyExit {
  static constexpr bool twin = false;
  template <int B, int E, bool Bounded, bool Full>
  __device__ static void run(const MsParams &p, const MsTile<B, E, Full> &t) {
    constexpr int H = B / 2;
    ms_block_barrier &bar = ms_barrier();
    const bool producer = threadIdx.x < H;
    const int id = producer ? threadIdx.x : threadIdx.x - H;
    const MsWeights<H, 2 * E, Full> wc(id, p);        // blur, and the last smooth, on chunks
    const MsWeights<B, E, Full> wt(threadIdx.x, p);  // smooth, on elements
    if (threadIdx.x == 0) init(&bar, B);
    ms_load(p, t);
    __syncthreads();  // the last __syncthreads: from here on threads may leave
#pragma unroll 1
    for (int pass = 0; pass < p.iters; ++pass) {
      const bool last = pass + 1 == p.iters;
      if (producer) {
        ms_pre_chunks(t, id);
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
      if (!producer) ms_blur_chunks(t, id, wc);
      bar.arrive_and_wait();  // Q complete (in the last pass: blur threads only)
      if (!last) {
        ms_smooth_all(t, wt);
        bar.arrive_and_wait();  // A complete; Q free again
      } else {
        ms_each<H, 2 * E, Full>(id, [&](int c, int e) {
          if (t.valid(e)) p.out[t.base + e] = sb_ms_smooth(t.Q + e, wc.smooth(c));
        });
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
  const int by_smem = 228 * 1024 / (MsLayout<B * E>::FLOATS * (int)sizeof(float) + 1024);
  return 2048 / B < by_smem ? 2048 / B : by_smem;
}

template <class V, int B, int E, bool Bounded>
__global__ void __launch_bounds__(B, Bounded ? 1 : ms_min_blocks<B, E>())
    multistage_kernel(const MsParams p) {
  using L = MsLayout<B * E>;
  if (threadIdx.x < L::PADS) ms_smem[L::pad(threadIdx.x)] = 0.0f;
  // The tile's path, once per block: only the last tile can be short.
  const long long left = p.n - (long long)blockIdx.x * (B * E);
  if (left >= B * E)
    V::template run<B, E, Bounded>(p, MsTile<B, E, true>(B * E));
  else
    V::template run<B, E, Bounded>(p, MsTile<B, E, false>((int)left));
}

template <class V, int B, int E>
static sb_kernels ms_kernels() {
  return sb_twin_kernels<V::twin>(
      [](auto bounded) { return multistage_kernel<V, B, E, decltype(bounded)::value>; },
      MsLayout<B * E>::FLOATS * sizeof(float));
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
