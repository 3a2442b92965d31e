// Multi-stage family: each block holds a tile of block_threads *
// elems_per_thread consecutive floats (the last tile may be short) and runs
// `iters` passes of three stages over it in shared memory:
//   1. preprocess   P[i] = 1.1 * A[i]
//   2. blur         Q[i] = mean of P[i-2..i+2] over the valid ones (inside the tile)
//   3. smooth       A[i] = cascade: v = Q[i]; then for j = 1, 2, 3, while
//                   i + j is inside the tile, v = 0.5 * (v + Q[i + j])
// then writes A back. Three shared buffers A, P, Q of one tile each.
//
// Variants and synchronization per pass:
//   uniform               every thread runs every stage on its elements
//                         (e = k * block + t): 2 __syncthreads (after
//                         preprocess, after blur); smooth -> next preprocess
//                         is the same thread, so no barrier there
//   specialized           the first half of the threads preprocesses, the
//                         second half blurs (2 * elems elements each), all
//                         smooth: 3 __syncthreads, half the block idle in
//                         stages 1 and 2
//   specialized_mbarrier  same roles; the tile is cut into 2 * elems chunks
//                         of block/2 elements; producer threads signal
//                         each chunk on its own mbarrier, blur threads wait only for the chunks
//                         their 5 points touch, producers never wait for
//                         the blur: 2 __syncthreads + 2 * elems mbarrier
//                         phases, and blur overlaps preprocessing
//   early_exit            same roles on one cuda::barrier (3 phases per
//                         pass); in the last pass the preprocess threads
//                         have nothing left to do: they arrive_and_drop and
//                         exit, and the blur threads finish blur + smooth +
//                         store on a barrier that now expects only them
#include <cuda/barrier>

#include "common.cuh"
#include "mbarrier.cuh"

#pragma nv_diag_suppress static_var_with_dynamic_init

#define MS_MAX_ELEMS 8
#define MS_MAX_CHUNKS (2 * MS_MAX_ELEMS)

struct MsArgs {
  const float *in;
  float *out;
  long long n;
  int iters;
  int elems;
};

__device__ __forceinline__ int ms_tile_len(const MsArgs &a, long long base, int tile) {
  const long long left = a.n - base;
  return left < tile ? (int)left : tile;
}

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

// Every thread loads / stores its elements e = k * block + t.
__device__ __forceinline__ void ms_load(const MsArgs &a, float *A, long long base, int len) {
#pragma unroll
  for (int k = 0; k < MS_MAX_ELEMS; ++k)
    if (k < a.elems) {
      const int e = k * blockDim.x + threadIdx.x;
      A[e] = e < len ? a.in[base + e] : 0.0f;
    }
}

__device__ __forceinline__ void ms_store(const MsArgs &a, const float *A, long long base, int len) {
#pragma unroll
  for (int k = 0; k < MS_MAX_ELEMS; ++k)
    if (k < a.elems) {
      const int e = k * blockDim.x + threadIdx.x;
      if (e < len) a.out[base + e] = A[e];
    }
}

// Stage 3 by every thread on its elements e = k * block + t.
__device__ __forceinline__ void ms_smooth_all(const MsArgs &a, float *A, const float *Q, int len) {
#pragma unroll
  for (int k = 0; k < MS_MAX_ELEMS; ++k)
    if (k < a.elems) {
      const int e = k * blockDim.x + threadIdx.x;
      if (e < len) A[e] = ms_smooth(Q, e, len);
    }
}

__global__ void __launch_bounds__(1024) ms_uniform(MsArgs a) {
  extern __shared__ float smem[];
  const int B = blockDim.x, t = threadIdx.x, tile = B * a.elems;
  float *A = smem, *P = smem + tile, *Q = smem + 2 * tile;
  const long long base = (long long)blockIdx.x * tile;
  const int len = ms_tile_len(a, base, tile);
  ms_load(a, A, base, len);  // read back by the same thread: no barrier
  for (int pass = 0; pass < a.iters; ++pass) {
#pragma unroll
    for (int k = 0; k < MS_MAX_ELEMS; ++k)
      if (k < a.elems && k * B + t < len) P[k * B + t] = ms_pre(A[k * B + t]);
    __syncthreads();  // P complete (blur reads neighbours); last smooth's reads of Q done
#pragma unroll
    for (int k = 0; k < MS_MAX_ELEMS; ++k)
      if (k < a.elems && k * B + t < len) Q[k * B + t] = ms_blur(P, k * B + t, len);
    __syncthreads();  // Q complete (smooth reads ahead); blur's reads of P done
    ms_smooth_all(a, A, Q, len);
  }
  ms_store(a, A, base, len);
}

__global__ void __launch_bounds__(1024) ms_specialized(MsArgs a) {
  extern __shared__ float smem[];
  const int B = blockDim.x, H = B / 2, tile = B * a.elems, chunks = 2 * a.elems;
  const bool producer = threadIdx.x < H;
  const int id = producer ? threadIdx.x : threadIdx.x - H;
  float *A = smem, *P = smem + tile, *Q = smem + 2 * tile;
  const long long base = (long long)blockIdx.x * tile;
  const int len = ms_tile_len(a, base, tile);
  ms_load(a, A, base, len);
  __syncthreads();  // producers read elements other threads loaded
  for (int pass = 0; pass < a.iters; ++pass) {
    if (producer) {
#pragma unroll
      for (int c = 0; c < MS_MAX_CHUNKS; ++c)
        if (c < chunks && c * H + id < len) P[c * H + id] = ms_pre(A[c * H + id]);
    }
    __syncthreads();  // P complete
    if (!producer) {
#pragma unroll
      for (int c = 0; c < MS_MAX_CHUNKS; ++c)
        if (c < chunks && c * H + id < len) Q[c * H + id] = ms_blur(P, c * H + id, len);
    }
    __syncthreads();  // Q complete; P free again
    ms_smooth_all(a, A, Q, len);
    __syncthreads();  // A complete for the producers; Q free again
  }
  ms_store(a, A, base, len);
}

template <bool Bounded>
__global__ void __launch_bounds__(1024) ms_specialized_mbarrier(MsArgs a) {
  extern __shared__ float smem[];
  // full[c]: chunk c of P (elements c*H .. c*H+H-1) is written. One phase
  // per pass, so the phase parity of pass p is p & 1. Arrivals: every
  // producer thread, from a converged warp (the hardware folds a converged
  // warp's arrivals). Not one elected lane per warp after __syncwarp: the
  // arrive's release covers only the arriving thread's own writes as far as
  // compute-sanitizer's racecheck can tell, and it reports that as a race.
  __shared__ __align__(8) uint64_t full[MS_MAX_CHUNKS];
  const int B = blockDim.x, H = B / 2, tile = B * a.elems, chunks = 2 * a.elems;
  const bool producer = threadIdx.x < H;
  const int id = producer ? threadIdx.x : threadIdx.x - H;
  float *A = smem, *P = smem + tile, *Q = smem + 2 * tile;
  const long long base = (long long)blockIdx.x * tile;
  const int len = ms_tile_len(a, base, tile);
  if (threadIdx.x == 0)
    for (int c = 0; c < chunks; ++c) sb_mbar_init(&full[c], H);
  ms_load(a, A, base, len);
  __syncthreads();  // publishes the inits and the loaded tile
  const uint32_t full_a = sb_mbar_addr(full);  // chunk c's barrier: full_a + 8 * c
  for (int pass = 0; pass < a.iters; ++pass) {
    const uint32_t parity = pass & 1;
    if (producer) {
      // Never waits for the blur: P is single-buffered, and the two block
      // barriers below (which smooth needs anyway) order this pass's P
      // writes after the previous pass's blur reads.
#pragma unroll
      for (int c = 0; c < MS_MAX_CHUNKS; ++c)
        if (c < chunks) {
          if (c * H + id < len) P[c * H + id] = ms_pre(A[c * H + id]);
          sb_mbar_arrive(full_a + 8u * c);  // release: this thread's P write
        }
    } else {
      // Element c*H+id needs P[e-2 .. e+2]: chunk c, chunk c-1 (already
      // waited for) and, for the last two ids, chunk c+1.
      const int ahead = id + 2 >= H ? 1 : 0;
      int ready = 0;  // chunks this thread has waited for
#pragma unroll
      for (int c = 0; c < MS_MAX_CHUNKS; ++c)
        if (c < chunks) {
          const int need = c + ahead < chunks ? c + ahead : chunks - 1;
          while (ready <= need) sb_mbar_wait_parity<Bounded>(full_a + 8u * ready++, parity);
          if (c * H + id < len) Q[c * H + id] = ms_blur(P, c * H + id, len);
        }
    }
    __syncthreads();  // Q complete; every blur read of P and every wait done
    ms_smooth_all(a, A, Q, len);
    __syncthreads();  // A complete for the producers; Q free again
  }
  ms_store(a, A, base, len);
}

// cuda::barrier waits are libcu++'s own (mbarrier.try_wait with back-off),
// not sb_mbar_wait_parity: this variant measures cuda::barrier as is.
typedef cuda::barrier<cuda::thread_scope_block> ms_block_barrier;

__global__ void __launch_bounds__(1024) ms_early_exit(MsArgs a) {
  extern __shared__ float smem[];
  __shared__ ms_block_barrier bar;
  const int B = blockDim.x, H = B / 2, tile = B * a.elems, chunks = 2 * a.elems;
  const bool producer = threadIdx.x < H;
  const int id = producer ? threadIdx.x : threadIdx.x - H;
  float *A = smem, *P = smem + tile, *Q = smem + 2 * tile;
  const long long base = (long long)blockIdx.x * tile;
  const int len = ms_tile_len(a, base, tile);
  if (threadIdx.x == 0) init(&bar, B);
  ms_load(a, A, base, len);
  __syncthreads();  // the last __syncthreads: from here on threads may leave
  for (int pass = 0; pass < a.iters; ++pass) {
    const bool last = pass + 1 == a.iters;
    if (producer) {
#pragma unroll
      for (int c = 0; c < MS_MAX_CHUNKS; ++c)
        if (c < chunks && c * H + id < len) P[c * H + id] = ms_pre(A[c * H + id]);
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
    if (!producer) {
#pragma unroll
      for (int c = 0; c < MS_MAX_CHUNKS; ++c)
        if (c < chunks && c * H + id < len) Q[c * H + id] = ms_blur(P, c * H + id, len);
    }
    bar.arrive_and_wait();  // Q complete (in the last pass: blur threads only)
    if (!last) {
      ms_smooth_all(a, A, Q, len);
      bar.arrive_and_wait();  // A complete; Q free again
    } else {
#pragma unroll
      for (int c = 0; c < MS_MAX_CHUNKS; ++c)
        if (c < chunks && c * H + id < len) a.out[base + c * H + id] = ms_smooth(Q, c * H + id, len);
    }
  }
}

// LAUNCH is SB_LAUNCH with one kernel, SB_LAUNCH_TWIN with the bounded and
// the raw instantiation of an mbarrier variant (common.cuh).
#define MS_LAUNCHER(variant, LAUNCH, ...)                                         \
  extern "C" cudaError_t sb_multistage_##variant(sb_launch *L) {                  \
    const int block = (int)L->axis[SB_AXIS_BLOCK];                                \
    MsArgs a = {(const float *)L->in, (float *)L->out, L->axis[SB_AXIS_N],        \
                (int)L->axis[SB_AXIS_ITERS], (int)L->axis[SB_AXIS_ELEMS]};        \
    const long long tile = (long long)block * a.elems;                            \
    const size_t smem = 3 * (size_t)tile * sizeof(float);                         \
    LAUNCH(L, __VA_ARGS__, sb_ceil_div(a.n, tile), block, smem, a);               \
  }

MS_LAUNCHER(uniform, SB_LAUNCH, ms_uniform)
MS_LAUNCHER(specialized, SB_LAUNCH, ms_specialized)
MS_LAUNCHER(specialized_mbarrier, SB_LAUNCH_TWIN, ms_specialized_mbarrier<true>,
            ms_specialized_mbarrier<false>)
MS_LAUNCHER(early_exit, SB_LAUNCH, ms_early_exit)
