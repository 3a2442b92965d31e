// Scan family: each block runs an inclusive Kogge-Stone scan over its tile
// of B (= block_threads) 32-bit words (wrapping arithmetic, so results are
// exact), `iters` times in shared memory, then writes the tile back. The
// tile's tail past n is padded with 0, the identity, so a ragged last tile
// is exact. Host side: bench/scan.c.
//
// B is a compile-time parameter (CUB's BLOCK_THREADS): the log2(B) steps of
// a pass unroll, every shared-memory offset folds into the instruction, and
// all variants share one kernel body, __launch_bounds__(B) and the layout
// (thread t owns word t). Per scan step the variants differ only in how
// they keep the step's reads apart from its writes:
//   two_barrier   in place:  read | barrier | write | barrier   (2 per step)
//   pingpong      two buffers, read one / write other | barrier (1 per step)
//   mbarrier      two buffers, arrive + parity wait on an mbarrier (1 per step)
//   warp_shuffle  shuffles inside warps, then one pass over warp totals
//                 (2 barriers per pass, none per step)
#include "../common/launch.cuh"
#include "../common/mbarrier.cuh"

struct ScanParams {
  const uint32_t *in;
  uint32_t *out;
  long long n;
  int iters;
};

// Every variant: v is the thread's word; returns it after `iters` scans.
struct ScanTwoBarrier {
  static constexpr bool twin = false;
  // Up to 4 warps the step loop stays rolled: unrolled, ptxas hoists each
  // step's add (which waits on the step's LDS) above the first barrier, so
  // a warp arrives only once its load is back. Measured on an H100 beside
  // e917ed3's runtime loop (tests/gpu/scan_predecessors.cu): unrolled was
  // 3.4% slower at 32 threads, iters 64, and 2.8% at 128 threads, iters 1;
  // rolled is not slower anywhere. From 8 warps on, the barrier waits on
  // many warps anyway and the unrolled loop's fewer instructions win
  // (5-15% faster than rolled at 512 and 1024 threads).
  template <int B>
  static constexpr int step_unroll = B <= 128 ? 1 : 16;
  template <int B, bool Bounded>
  __device__ static uint32_t run(uint32_t v, int iters) {
    __shared__ uint32_t tile[B];
    const int t = threadIdx.x;
    tile[t] = v;
    __syncthreads();
    for (int it = 0; it < iters; ++it) {
#pragma unroll step_unroll<B>
      for (int off = 1; off < B; off <<= 1) {
        const uint32_t add = t >= off ? tile[t - off] : 0u;
        __syncthreads();  // every read of this step is done before any write (WAR)
        v += add;
        tile[t] = v;
        __syncthreads();  // every write is visible before the next step reads (RAW)
      }
    }
    return v;
  }
};

struct ScanPingpong {
  static constexpr bool twin = false;
  template <int B, bool Bounded>
  __device__ static uint32_t run(uint32_t v, int iters) {
    __shared__ uint32_t buf[2][B];  // read one, write the other
    const int t = threadIdx.x;
    uint32_t *src = buf[0], *dst = buf[1];
    src[t] = v;
    __syncthreads();
    // The pass loop stays rolled (the steps unroll): unrolled by 2, it was
    // 0.7-1.2% slower than e917ed3's runtime loop at 32 threads, iters >= 16.
#pragma unroll 1
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int off = 1; off < B; off <<= 1) {
        if (t >= off) v += src[t - off];
        dst[t] = v;
        // One barrier: the next step writes `src`, which nobody reads after
        // this point, and reads the buffer just written.
        __syncthreads();
#ifdef SB_PLANT_SLOWDOWN
        // Build-time knob for the regression-gate proof (make
        // PLANT_SLOWDOWN=1): one redundant barrier per step, pingpong only.
        __syncthreads();
#endif
        uint32_t *w = src;  // unrolled: a register rename, not a move
        src = dst;
        dst = w;
      }
    }
    return v;
  }
};

struct ScanMbarrier {
  static constexpr bool twin = true;
  template <int B, bool Bounded>
  __device__ static uint32_t run(uint32_t v, int iters) {
    __shared__ uint32_t buf[2][B];
    __shared__ __align__(8) uint64_t bar;
    const int t = threadIdx.x;
    if (t == 0) sb_mbar_init(&bar, B);  // once; every thread arrives per phase
    uint32_t *src = buf[0], *dst = buf[1];
    src[t] = v;
    __syncthreads();  // publishes the init and the loaded tile
    const uint32_t bar_a = sb_mbar_addr(&bar);  // once, outside the loop
    uint32_t parity = 0;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int off = 1; off < B; off <<= 1) {
        if (t >= off) v += src[t - off];
        dst[t] = v;
        // Every thread arrives (from a converged warp: the hardware folds
        // the warp's arrivals). One elected arrive per warp after __syncwarp
        // would release only lane 0's writes as far as racecheck can tell.
        sb_mbar_arrive(bar_a);                        // release: my write is published
        sb_mbar_wait_parity<Bounded>(bar_a, parity);  // acquire: everyone's writes seen
        parity ^= 1;
        uint32_t *w = src;
        src = dst;
        dst = w;
      }
    }
    // No mbarrier.inval: the barrier dies with the block and its shared
    // memory is not reused for anything else.
    return v;
  }
};

struct ScanWarpShuffle {
  static constexpr bool twin = false;
  template <int B, bool Bounded>
  __device__ static uint32_t run(uint32_t v, int iters) {
    constexpr int warps = B / 32;
    if constexpr (warps == 1) {
      for (int it = 0; it < iters; ++it) v = warp_scan(v, threadIdx.x & 31, 32);
      return v;
    } else {
      // Warp totals, double-buffered across passes so that a fast warp's
      // next pass cannot overwrite totals a slow warp has yet to read.
      __shared__ uint32_t totals[2][warps];
      const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
      // Each thread's three slots of buffer 0, as shared-window addresses
      // computed once, before the loop; buffer 1 is the same + a constant,
      // folded into the instructions by unrolling passes in pairs. Left to
      // itself, ptxas re-derives them (S2R SR_CgaCtaId, LEA, SHL, LOP)
      // inside the pass, on the critical path after each barrier; the
      // opaque mov of sb_mbar_addr makes each a register it must keep.
      const uint32_t mine = sb_mbar_addr(&totals[0][warp]), lanes = sb_mbar_addr(&totals[0][lane]),
                     before = sb_mbar_addr(&totals[0][warp > 0 ? warp - 1 : 0]);
      auto pass = [&](uint32_t buf) {
        v = warp_scan(v, lane, 32);
        if (lane == 31) sb_sts_u32(mine + buf, v);
        __syncthreads();  // warp totals written
        if (warp == 0) {
          uint32_t w = lane < warps ? sb_lds_u32(lanes + buf) : 0u;
          w = warp_scan(w, lane, warps);
          if (lane < warps) sb_sts_u32(lanes + buf, w);
        }
        __syncthreads();  // scanned totals visible
        if (warp > 0) v += sb_lds_u32(before + buf);
      };
      constexpr uint32_t second = 4u * warps;
      int it = 0;
      for (; it + 2 <= iters; it += 2) {
        pass(0);
        pass(second);
      }
      if (it < iters) pass(0);
      return v;
    }
  }

 private:
  // Inclusive scan of v across the first `width` lanes (a power of two).
  __device__ static uint32_t warp_scan(uint32_t v, int lane, int width) {
#pragma unroll
    for (int off = 1; off < width; off <<= 1) {
      const uint32_t y = __shfl_up_sync(0xffffffffu, v, off);
      if (lane >= off) v += y;
    }
    return v;
  }
};

template <class V, int B, bool Bounded>
__global__ void __launch_bounds__(B) scan_kernel(const ScanParams p) {
  const long long g = (long long)blockIdx.x * B + threadIdx.x;
  uint32_t v = g < p.n ? p.in[g] : 0u;
  v = V::template run<B, Bounded>(v, p.iters);
  if (g < p.n) p.out[g] = v;
}

// The block sizes compiled (the default sweep's 32..1024).
using ScanBlocks = sb_values<32, 64, 128, 256, 512, 1024>;

template <class V, int B>
static sb_kernels scan_kernels() {
  return sb_twin_kernels<V::twin>(
      [](auto bounded) { return scan_kernel<V, B, decltype(bounded)::value>; }, 0);
}

template <class V>
static int scan_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  const long long block = axis[SB_AXIS_BLOCK];
  if (sb_dispatch(block, ScanBlocks{}, [&](auto b) { *k = scan_kernels<V, decltype(b)::value>(); }))
    return 0;
  return sb_no_instance<ScanBlocks>("block_threads", block, why, len);
}

static cudaError_t scan_launch(sb_launch *L) {
  ScanParams p;
  p.in = (const uint32_t *)L->in;
  p.out = (uint32_t *)L->out;
  p.n = L->axis[SB_AXIS_N];
  p.iters = (int)L->axis[SB_AXIS_ITERS];
  sb_shape s;
  s.block = (int)L->axis[SB_AXIS_BLOCK];
  s.grid = sb_ceil_div(p.n, s.block);
  return sb_launch_params(L, s, p);
}

static const sb_variant scan_rows[] = {
    {"two_barrier", scan_launch, scan_pick<ScanTwoBarrier>, 0, SB_VF_BASELINE,
     "in place; read, __syncthreads, write, __syncthreads: 2 barriers/step"},
    {"pingpong", scan_launch, scan_pick<ScanPingpong>, 0, 0,
     "two buffers, roles swapped each step: 1 __syncthreads/step"},
    {"mbarrier", scan_launch, scan_pick<ScanMbarrier>, 0, 0,
     "two buffers; mbarrier arrive + parity wait: 1 mbarrier phase/step"},
    {"warp_shuffle", scan_launch, scan_pick<ScanWarpShuffle>, 0, SB_VF_WHOLE_WARPS,
     "warp shuffles, then one pass over warp totals: 2 barriers/pass, 0/step"},
};
extern "C" const sb_variant_table sb_scan_variants = {scan_rows,
                                                      sizeof scan_rows / sizeof scan_rows[0]};
