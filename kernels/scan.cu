// Scan family: each block runs an inclusive Kogge-Stone scan over its tile
// of block_threads 32-bit words (wrapping arithmetic, so results are exact),
// `iters` times in shared memory, then writes the tile back. The tile's tail
// past n is padded with 0, the identity, so a ragged last tile is exact.
//
// Per scan step (log2(block_threads) steps per pass), the variants differ
// only in how they keep the step's reads apart from its writes:
//   two_barrier   in place:  read | barrier | write | barrier   (2 per step)
//   pingpong      two buffers, read one / write other | barrier (1 per step)
//   mbarrier      two buffers, arrive + parity wait on an mbarrier (1 per step)
//   warp_shuffle  shuffles inside warps, then one pass over warp totals
//                 (2 barriers per pass, none per step)
#include "common.cuh"
#include "mbarrier.cuh"

#define SB_SCAN_ARGS const uint32_t *__restrict__ in, uint32_t *__restrict__ out, long long n, int iters

__device__ __forceinline__ long long scan_index(void) {
  return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__global__ void scan_two_barrier_kernel(SB_SCAN_ARGS) {
  extern __shared__ uint32_t tile[];
  const int t = threadIdx.x, size = blockDim.x;
  const long long g = scan_index();
  uint32_t v = g < n ? in[g] : 0u;
  tile[t] = v;
  __syncthreads();
  for (int it = 0; it < iters; ++it)
    for (int off = 1; off < size; off <<= 1) {
      uint32_t add = t >= off ? tile[t - off] : 0u;
      __syncthreads();  // every read of this step is done before any write (WAR)
      v += add;
      tile[t] = v;
      __syncthreads();  // every write is visible before the next step reads (RAW)
    }
  if (g < n) out[g] = v;
}

__global__ void scan_pingpong_kernel(SB_SCAN_ARGS) {
  extern __shared__ uint32_t buf[];  // two tiles: read one, write the other
  const int t = threadIdx.x, size = blockDim.x;
  const long long g = scan_index();
  uint32_t v = g < n ? in[g] : 0u;
  buf[t] = v;
  __syncthreads();
  int cur = 0;
  for (int it = 0; it < iters; ++it)
    for (int off = 1; off < size; off <<= 1) {
      const uint32_t *src = buf + cur * size;
      if (t >= off) v += src[t - off];
      buf[(cur ^ 1) * size + t] = v;
      // One barrier: the next step writes `src`, which nobody reads after
      // this point, and reads the buffer just written.
      __syncthreads();
#ifdef SB_PLANT_SLOWDOWN
      // Build-time knob for the regression-gate proof (make
      // PLANT_SLOWDOWN=1): one redundant barrier per step, pingpong only.
      __syncthreads();
#endif
      cur ^= 1;
    }
  if (g < n) out[g] = v;
}

template <bool Bounded>
__global__ void scan_mbarrier_kernel(SB_SCAN_ARGS) {
  extern __shared__ uint32_t buf[];
  __shared__ __align__(8) uint64_t bar;
  const int t = threadIdx.x, size = blockDim.x;
  const long long g = scan_index();
  if (t == 0) sb_mbar_init(&bar, size);  // once; every thread arrives per phase
  uint32_t v = g < n ? in[g] : 0u;
  buf[t] = v;
  __syncthreads();  // publishes the init and the loaded tile
  const uint32_t bar_a = sb_mbar_addr(&bar);  // once, outside the loop
  uint32_t parity = 0;
  int cur = 0;
  for (int it = 0; it < iters; ++it)
    for (int off = 1; off < size; off <<= 1) {
      const uint32_t *src = buf + cur * size;
      if (t >= off) v += src[t - off];
      buf[(cur ^ 1) * size + t] = v;
      // Every thread arrives (from a converged warp: the hardware folds the
      // warp's arrivals). One elected arrive per warp after __syncwarp would
      // release only lane 0's writes as far as racecheck can tell.
      sb_mbar_arrive(bar_a);               // release: my write is published
      sb_mbar_wait_parity<Bounded>(bar_a, parity);  // acquire: everyone's writes seen
      parity ^= 1;
      cur ^= 1;
    }
  // No mbarrier.inval: the barrier dies with the block and its shared
  // memory is not reused for anything else.
  if (g < n) out[g] = v;
}

__global__ void scan_warp_shuffle_kernel(SB_SCAN_ARGS) {
  // Warp totals, double-buffered across passes so that a fast warp's next
  // pass cannot overwrite totals a slow warp has yet to read.
  __shared__ uint32_t totals[2][32];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const int warps = blockDim.x >> 5;
  const long long g = scan_index();
  uint32_t v = g < n ? in[g] : 0u;
  for (int it = 0; it < iters; ++it) {
    for (int off = 1; off < 32; off <<= 1) {
      uint32_t y = __shfl_up_sync(0xffffffffu, v, off);
      if (lane >= off) v += y;
    }
    if (warps > 1) {
      uint32_t *tot = totals[it & 1];
      if (lane == 31) tot[warp] = v;
      __syncthreads();  // warp totals written
      if (warp == 0) {
        uint32_t w = lane < warps ? tot[lane] : 0u;
        for (int off = 1; off < 32; off <<= 1) {
          uint32_t y = __shfl_up_sync(0xffffffffu, w, off);
          if (lane >= off) w += y;
        }
        if (lane < warps) tot[lane] = w;
      }
      __syncthreads();  // scanned totals visible
      if (warp > 0) v += tot[warp - 1];
    }
  }
  if (g < n) out[g] = v;
}

// Launchers: one per variant, the contract in harness/launch.h.

// LAUNCH is SB_LAUNCH with one kernel, SB_LAUNCH_TWIN with the bounded and
// the raw instantiation of an mbarrier variant (common.cuh).
#define SCAN_LAUNCHER(variant, buffers, LAUNCH, ...)                             \
  extern "C" cudaError_t sb_scan_##variant(sb_launch *L) {                       \
    const int block = (int)L->axis[SB_AXIS_BLOCK];                               \
    const long long n = L->axis[SB_AXIS_N];                                      \
    const int iters = (int)L->axis[SB_AXIS_ITERS];                               \
    const size_t smem = (size_t)buffers * block * sizeof(uint32_t);              \
    LAUNCH(L, __VA_ARGS__, sb_ceil_div(n, block), block, smem,                   \
           (const uint32_t *)L->in, (uint32_t *)L->out, n, iters);               \
  }

SCAN_LAUNCHER(two_barrier, 1, SB_LAUNCH, scan_two_barrier_kernel)
SCAN_LAUNCHER(pingpong, 2, SB_LAUNCH, scan_pingpong_kernel)
SCAN_LAUNCHER(mbarrier, 2, SB_LAUNCH_TWIN, scan_mbarrier_kernel<true>, scan_mbarrier_kernel<false>)
SCAN_LAUNCHER(warp_shuffle, 0, SB_LAUNCH, scan_warp_shuffle_kernel)
