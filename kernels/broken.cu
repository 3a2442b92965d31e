// Broken family: deliberately wrong synchronization, compiled only into the
// test binary (make SB_BROKEN=1 -> build/broken/syncbench), never into the
// default build. Each variant must cost exactly one row of the sweep:
//   wrong_arrival_count  mbarrier initialised for block_threads + 1 arrivals,
//                        only block_threads arrive: the wait never completes
//                        -> watchdog -> `deadlock`
//   spin_wrong_count     as wrong_arrival_count, but waiting with the barrier
//                        price list's own spin loop in its validating form
//                        (try_wait polls, sb_wd_poll_failed<true> after each
//                        failure) -> watchdog -> `deadlock`
//   wrong_expect_tx      expect_tx 16 bytes more than the bulk copy moves:
//                        the transaction count never drains -> `deadlock`
//                        (sm_90)
//   missing_barrier      each thread reads a neighbouring warp's slot of a
//                        shared tile with no barrier in between, while the
//                        writer warps are held back: stale data -> `wrong`
//   raw_twin_wrong       its bounded (validating) kernel copies correctly, its
//                        raw (timed) twin writes the last word of each block
//                        plus one:
//                        the check of the timed output -> `wrong`
//   oob_write            one thread writes 1 TiB past the end of the output:
//                        an illegal address, which poisons the context
//                        -> `error`
// Correct output of every variant: out[i] = in[i] (missing_barrier: each
// tile rotated by 32 words), so a variant that somehow passes is visible.
#include "common.cuh"
#include "mbarrier.cuh"

__device__ __forceinline__ unsigned long long broken_now_ns(void) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

#define SB_BROKEN_ARGS const uint32_t *__restrict__ in, uint32_t *__restrict__ out, long long n

__global__ void broken_wrong_arrival_count_kernel(SB_BROKEN_ARGS) {
  __shared__ __align__(8) uint64_t bar;
  const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) sb_mbar_init(&bar, blockDim.x + 1);  // BUG: one arrival too many
  __syncthreads();
  uint32_t v = g < n ? in[g] : 0u;
  sb_mbar_arrive(sb_mbar_addr(&bar));
  sb_mbar_wait_parity_stage(sb_mbar_addr(&bar), 0, 0);  // never completes
  if (g < n) out[g] = v;
}

__global__ void broken_spin_wrong_count_kernel(SB_BROKEN_ARGS) {
  __shared__ __align__(8) uint64_t bar;
  const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) sb_mbar_init(&bar, blockDim.x + 1);  // BUG: one arrival too many
  __syncthreads();
  const uint32_t bar_a = sb_mbar_addr(&bar);
  uint32_t v = g < n ? in[g] : 0u;
  sb_mbar_arrive(bar_a);
  unsigned long long wd_t0 = 0;
  while (!sb_mbar_probe(bar_a, 0)) sb_wd_poll_failed<true>(&wd_t0, bar_a, 0);  // never completes
  if (g < n) out[g] = v;
}

__global__ void broken_wrong_expect_tx_kernel(SB_BROKEN_ARGS) {
  extern __shared__ __align__(16) uint32_t tile[];
  __shared__ __align__(8) uint64_t bar;
  const long long base = (long long)blockIdx.x * blockDim.x;
  const uint32_t bytes = blockDim.x * sizeof(uint32_t);
  if (threadIdx.x == 0) {
    sb_mbar_init(&bar, 1);
    sb_fence_mbarrier_init();  // the copy engine is the barrier's first other user
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    sb_mbar_arrive_expect_tx(sb_mbar_addr(&bar), bytes + 16);  // BUG: 16 bytes never arrive
    sb_bulk_copy_g2s(tile, in + base, bytes, sb_mbar_addr(&bar));
  }
  sb_mbar_wait_parity_stage(sb_mbar_addr(&bar), 0, 0);  // never completes
  if (base + threadIdx.x < n) out[base + threadIdx.x] = tile[threadIdx.x];
}

__global__ void broken_missing_barrier_kernel(SB_BROKEN_ARGS) {
  extern __shared__ uint32_t tile_raw[];
  volatile uint32_t *tile = tile_raw;
  const int t = threadIdx.x, size = blockDim.x;
  const long long g = (long long)blockIdx.x * blockDim.x + t;
  if ((t >> 5) & 1) {  // odd warps are slow writers
    const unsigned long long t0 = broken_now_ns();
    while (broken_now_ns() - t0 < 50000ull) {
    }
  }
  tile[t] = g < n ? in[g] : 0u;
  // BUG: no __syncthreads() here; even warps read odd warps' slots before
  // those are written.
  const uint32_t v = tile[(t + 32) % size];
  if (g < n) out[g] = v;
}

template <bool Bounded>
__global__ void broken_raw_twin_wrong_kernel(SB_BROKEN_ARGS) {
  const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  // BUG (raw twin only): the block's last thread writes its word plus one
  // (not nothing: the validating launch already wrote the right value).
  if (g < n) out[g] = in[g] + (!Bounded && threadIdx.x == blockDim.x - 1);
}

__global__ void broken_oob_write_kernel(SB_BROKEN_ARGS) {
  const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n) out[g] = in[g];
  if (g == 0) out[n + (1LL << 38)] = 1u;  // BUG: 1 TiB past the end
}

#define BROKEN_LAUNCHER(variant, smem_words)                                    \
  extern "C" cudaError_t sb_broken_##variant(sb_launch *L) {                    \
    const int block = (int)L->axis[SB_AXIS_BLOCK];                              \
    const long long n = L->axis[SB_AXIS_N];                                     \
    const size_t smem = (size_t)(smem_words) * sizeof(uint32_t);                \
    SB_LAUNCH(L, broken_##variant##_kernel, sb_ceil_div(n, block), block, smem, \
              (const uint32_t *)L->in, (uint32_t *)L->out, n);                  \
  }

BROKEN_LAUNCHER(wrong_arrival_count, 0)
BROKEN_LAUNCHER(spin_wrong_count, 0)
BROKEN_LAUNCHER(wrong_expect_tx, block)
BROKEN_LAUNCHER(missing_barrier, block)
BROKEN_LAUNCHER(oob_write, 0)

extern "C" cudaError_t sb_broken_raw_twin_wrong(sb_launch *L) {
  const int block = (int)L->axis[SB_AXIS_BLOCK];
  const long long n = L->axis[SB_AXIS_N];
  SB_LAUNCH_TWIN(L, broken_raw_twin_wrong_kernel<true>, broken_raw_twin_wrong_kernel<false>,
                 sb_ceil_div(n, block), block, 0, (const uint32_t *)L->in, (uint32_t *)L->out, n);
}
