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
//   chain_by_block_index the devscan chained hand-off with tile ids taken
//                        from blockIdx.x, reversed (tile = gridDim.x - 1 -
//                        blockIdx.x) and more blocks than fit: resident
//                        blocks wait for flags of blocks that cannot start
//                        until they leave -> watchdog -> `deadlock`
//   oob_write            one thread writes 1 TiB past the end of the output:
//                        an illegal address, which poisons the context
//                        -> `error`
// Correct output of every variant: out[i] = in[i] (missing_barrier: each
// tile rotated by 32 words), so a variant that somehow passes is visible.
#include "broken_flags.h"
#include "../common/launch.cuh"
#include "../common/mbarrier.cuh"

__device__ __forceinline__ unsigned long long broken_now_ns(void) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

struct BrokenParams {
  const uint32_t *in;
  uint32_t *out;
  long long n;
};

// Each bug: twin (a bounded and a raw kernel), shared words per thread, and
// run<Bounded>(p) as in every family's variant struct.
struct WrongArrivalCount {
  static constexpr bool twin = false;
  static constexpr int smem_words = 0;
  template <bool Bounded>
  __device__ static void run(const BrokenParams &p) {
    __shared__ __align__(8) uint64_t bar;
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) sb_mbar_init(&bar, blockDim.x + 1);  // BUG: one arrival too many
    __syncthreads();
    uint32_t v = g < p.n ? p.in[g] : 0u;
    sb_mbar_arrive(sb_mbar_addr(&bar));
    sb_mbar_wait_parity_stage<true>(sb_mbar_addr(&bar), 0, 0);  // never completes
    if (g < p.n) p.out[g] = v;
  }
};

struct SpinWrongCount {
  static constexpr bool twin = false;
  static constexpr int smem_words = 0;
  template <bool Bounded>
  __device__ static void run(const BrokenParams &p) {
    __shared__ __align__(8) uint64_t bar;
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) sb_mbar_init(&bar, blockDim.x + 1);  // BUG: one arrival too many
    __syncthreads();
    const uint32_t bar_a = sb_mbar_addr(&bar);
    uint32_t v = g < p.n ? p.in[g] : 0u;
    sb_mbar_arrive(bar_a);
    unsigned long long wd_t0 = 0;
    while (!sb_mbar_probe(bar_a, 0)) sb_wd_poll_failed<true>(&wd_t0, bar_a, 0);  // never completes
    if (g < p.n) p.out[g] = v;
  }
};

struct WrongExpectTx {
  static constexpr bool twin = false;
  static constexpr int smem_words = 1;
  template <bool Bounded>
  __device__ static void run(const BrokenParams &p) {
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
      sb_bulk_copy_g2s(tile, p.in + base, bytes, sb_mbar_addr(&bar));
    }
    sb_mbar_wait_parity_stage<true>(sb_mbar_addr(&bar), 0, 0);  // never completes
    if (base + threadIdx.x < p.n) p.out[base + threadIdx.x] = tile[threadIdx.x];
  }
};

struct MissingBarrier {
  static constexpr bool twin = false;
  static constexpr int smem_words = 1;
  template <bool Bounded>
  __device__ static void run(const BrokenParams &p) {
    extern __shared__ uint32_t tile_raw[];
    volatile uint32_t *tile = tile_raw;
    const int t = threadIdx.x, size = blockDim.x;
    const long long g = (long long)blockIdx.x * blockDim.x + t;
    if ((t >> 5) & 1) {  // odd warps are slow writers
      const unsigned long long t0 = broken_now_ns();
      while (broken_now_ns() - t0 < 50000ull) {
      }
    }
    tile[t] = g < p.n ? p.in[g] : 0u;
    // BUG: no __syncthreads() here; even warps read odd warps' slots before
    // those are written.
    const uint32_t v = tile[(t + 32) % size];
    if (g < p.n) p.out[g] = v;
  }
};

struct RawTwinWrong {
  static constexpr bool twin = true;
  static constexpr int smem_words = 0;
  template <bool Bounded>
  __device__ static void run(const BrokenParams &p) {
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    // BUG (raw twin only): the block's last thread writes its word plus one
    // (not nothing: the validating launch already wrote the right value).
    if (g < p.n) p.out[g] = p.in[g] + (!Bounded && threadIdx.x == blockDim.x - 1);
  }
};

struct OobWrite {
  static constexpr bool twin = false;
  static constexpr int smem_words = 0;
  template <bool Bounded>
  __device__ static void run(const BrokenParams &p) {
    const long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (g < p.n) p.out[g] = p.in[g];
    if (g == 0) p.out[p.n + (1LL << 38)] = 1u;  // BUG: 1 TiB past the end
  }
};

// One flag per tile; never reset: the validating launch deadlocks and traps,
// which ends the worker, and a kernel that somehow finished would only
// leave flags that let a rerun pass straight through.
static __device__ unsigned int broken_chain_flags[1 << 20];

struct ChainByBlockIndex {
  static constexpr bool twin = false;
  static constexpr int smem_words = 0;
  template <bool Bounded>
  __device__ static void run(const BrokenParams &p) {
    // BUG: the tile id comes from the launch order, reversed, not from an
    // atomic counter: block 0 takes the last tile and waits for block 1,
    // ..., and the blocks holding the SMs wait on blocks that cannot start.
    const unsigned tile = gridDim.x - 1 - blockIdx.x;
    if (threadIdx.x == 0 && tile > 0 && tile - 1 < (1u << 20)) {
      const unsigned *flag = &broken_chain_flags[tile - 1];
      unsigned long long t0 = 0;
      for (;;) {
        unsigned f;
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory");
        if (f != 0u) break;
#if SB_WATCHDOG
        sb_wd_check(sb_wd_now_ns(), &t0, 0u, 0u, (int)(tile - 1));
#endif
      }
      (void)t0;
    }
    __syncthreads();
    const long long g = (long long)tile * blockDim.x + threadIdx.x;
    if (g < p.n) p.out[g] = p.in[g];
    __syncthreads();
    if (threadIdx.x == 0 && tile < (1u << 20))
      asm volatile("st.release.gpu.global.u32 [%0], 1;" ::"l"(&broken_chain_flags[tile]) : "memory");
  }
};

template <class Bug, bool Bounded>
__global__ void broken_kernel(const BrokenParams p) {
  Bug::template run<Bounded>(p);
}

// Block size stays a run-time value here: these kernels are never timed.
template <class Bug>
static int broken_pick(const long long *axis, sb_kernels *k, char *, size_t) {
  *k = sb_twin_kernels<Bug::twin>(
      [](auto bounded) { return broken_kernel<Bug, decltype(bounded)::value>; },
      (size_t)Bug::smem_words * (size_t)axis[SB_AXIS_BLOCK] * sizeof(uint32_t));
  return 0;
}

static cudaError_t broken_launch(sb_launch *L) {
  BrokenParams p;
  p.in = (const uint32_t *)L->in;
  p.out = (uint32_t *)L->out;
  p.n = L->axis[SB_AXIS_N];
  sb_shape s;
  s.block = (int)L->axis[SB_AXIS_BLOCK];
  s.grid = sb_ceil_div(p.n, s.block);
  return sb_launch_params(L, s, p);
}

static const sb_variant broken_rows[] = {
    {"wrong_arrival_count", broken_launch, broken_pick<WrongArrivalCount>, 0, SB_VF_TEST_ONLY,
     "mbarrier expects block_threads+1 arrivals, gets block_threads: deadlock"},
    {"spin_wrong_count", broken_launch, broken_pick<SpinWrongCount>, 0, SB_VF_TEST_ONLY,
     "the same, waited with the price list's bounded spin loop: deadlock"},
    {"wrong_expect_tx", broken_launch, broken_pick<WrongExpectTx>, 90, SB_VF_TEST_ONLY,
     "expect_tx 16 bytes more than the bulk copy moves: deadlock"},
    {"missing_barrier", broken_launch, broken_pick<MissingBarrier>, 0,
     SB_VF_TEST_ONLY | SB_BROKEN_ROTATED,
     "reads another warp's shared slot with no barrier: wrong"},
    {"raw_twin_wrong", broken_launch, broken_pick<RawTwinWrong>, 0, SB_VF_TEST_ONLY,
     "validates right, its timed raw twin writes wrong: wrong after timing"},
    {"chain_by_block_index", broken_launch, broken_pick<ChainByBlockIndex>, 0, SB_VF_TEST_ONLY,
     "devscan chain with tile ids from blockIdx.x (reversed), more blocks than fit: deadlock"},
    {"oob_write", broken_launch, broken_pick<OobWrite>, 0, SB_VF_TEST_ONLY,
     "writes 1 TiB past the output: illegal address, error"},
};
extern "C" const sb_variant_table sb_broken_variants = {
    broken_rows, sizeof broken_rows / sizeof broken_rows[0]};
