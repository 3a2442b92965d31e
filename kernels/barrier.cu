// Barrier families (barrier, barrier_tma, barrier_cluster): the price of one
// synchronization operation, in SM clock cycles, timed inside the kernel.
//
// Every variant runs the same loop, `iters` times, between two clock64()
// reads of thread 0 (after a block-wide start barrier):
//
//     slot[p & 1][me] = tag(p, me);           // proof: publish
//     <the synchronization operation>
//     ok += slot[p & 1][partner] == tag(p, partner);   // proof: check
//
// The partner is another participating thread (in another warp whenever
// there is one), so a barrier that let a thread through early would show up
// as a missing phase. The two slots alternate, so phase p+2 only overwrites
// a slot after phase p+1's barrier, which every reader of phase p passed
// after its read. Each op therefore includes one st.shared and one
// ld.shared (cluster_barrier: one remote DSMEM load; grid_sync: thread 0's
// global store and load; tma_roundtrip: two ld.shared of the copied data).
//
// At the end every reporting thread folds its count into the block's
// minimum (and counts itself); thread 0 stores the tally and the loop's
// cycles (atomic minimum over launches) into kernels/barrier_layout.h's
// layout. The host checks ok_min == iters and the reporter count against
// its own count of participants.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/ptx>
#include <cuda_awbarrier_primitives.h>

#include "barrier_layout.h"
#include "common.cuh"
#include "mbarrier.cuh"

namespace cg = cooperative_groups;

typedef struct barrier_args {
  const uint32_t *in;  // barrier_tma: two source halves of `bytes` each
  unsigned char *out;  // barrier_layout.h
  int iters;
  int mode;            // SB_PART_*
  int bytes;           // barrier_tma: bytes per copy
} barrier_args;

// The proof slots, two per thread (2 x blockDim.x words), live at the start
// of dynamic shared memory, so small blocks are not held back from full
// occupancy by a fixed 8 KB array.
extern __shared__ __align__(128) unsigned char barrier_dyn[];

typedef struct barrier_smem {
  unsigned ok_min, reporters;
} barrier_smem;

__device__ __forceinline__ uint32_t *barrier_slots(void) { return (uint32_t *)barrier_dyn; }

__device__ __forceinline__ uint32_t barrier_tag(int phase, int id) {
  return (uint32_t)phase * 2048u + (uint32_t)id + 1u;
}

__device__ __forceinline__ void proof_put(barrier_smem *s, int p) {
  (void)s;
  barrier_slots()[(p & 1) * blockDim.x + threadIdx.x] = barrier_tag(p, threadIdx.x);
}

__device__ __forceinline__ unsigned proof_get(const barrier_smem *s, int p, int partner) {
  (void)s;
  return barrier_slots()[(p & 1) * blockDim.x + partner] == barrier_tag(p, partner);
}

// Who takes part (SB_PART_*): on, the partner whose slot this thread checks,
// and how many threads arrive per phase.
//   all      every thread; partner 32 threads on (next warp), or lane+1
//   warp     warp 0 only; partner lane+1
//   elected  lane 0 of each warp; partner lane 0 of the next warp
__device__ __forceinline__ void barrier_role(int mode, int *on, int *partner,
                                             unsigned *count) {
  const int t = threadIdx.x, n = blockDim.x, warps = n >> 5;
  if (mode == SB_PART_ALL) {
    *on = 1;
    *count = n;
    *partner = (t + (n > 32 ? 32 : 1)) % n;
  } else if (mode == SB_PART_WARP) {
    *on = t < 32;
    *count = 32;
    *partner = (t + 1) & 31;
  } else {
    *on = (t & 31) == 0;
    *count = warps;
    *partner = (((t >> 5) + 1) % warps) * 32;
  }
}

// Block-wide start line; returns thread 0's start time.
__device__ __forceinline__ long long barrier_start(barrier_smem *s) {
  if (threadIdx.x == 0) {
    s->ok_min = 0xffffffffu;
    s->reporters = 0;
  }
  __syncthreads();  // also publishes barrier objects initialized before it
  return clock64();
}

// Thread 0 reads the clock first (it always takes part, so its t1 ends the
// loop); then the tally is folded and stored.
__device__ __forceinline__ void barrier_finish(barrier_smem *s, int reporter, unsigned ok,
                                               long long t0, const barrier_args &a) {
  const long long t1 = clock64();
  if (reporter) {
    atomicMin(&s->ok_min, ok);
    atomicAdd(&s->reporters, 1u);
  }
  __syncwarp();  // lanes that sat out the loop wait for those in it
  __syncthreads();
  if (threadIdx.x == 0) {
    sb_barrier_head *head = (sb_barrier_head *)a.out;
    sb_barrier_rec *rec = (sb_barrier_rec *)(head + 1) + blockIdx.x;
    atomicMin(&rec->cycles, (unsigned long long)(t1 - t0));
    rec->ok_min = s->ok_min;
    rec->reporters = s->reporters;
    if (blockIdx.x == 0) {
      head->grid_blocks = gridDim.x;
      head->iters = (uint32_t)a.iters;
      head->magic = SB_BARRIER_MAGIC;
      head->pad = 0;
    }
  }
}

// mbarrier.test_wait.parity: a pure, non-suspending probe (sm_80+), polled.
__device__ __forceinline__ bool barrier_test_wait_parity(uint64_t *bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(sb_smem_addr(bar)), "r"(parity)
      : "memory");
  return done != 0;
}

// Keeps a value alive without using it (an arrive's returned state).
__device__ __forceinline__ void barrier_sink(uint64_t v) { asm volatile("" ::"l"(v)); }

#define BARRIER_PROLOGUE                     \
  __shared__ barrier_smem s;                 \
  int on, partner;                           \
  unsigned count, ok = 0;                    \
  barrier_role(a.mode, &on, &partner, &count); \
  (void)count

// The timed loop of the variants where only some threads may take part:
// the arguments are the synchronization operation of one phase (a braced
// block; it may flip `parity`).
#define BARRIER_TIMED_LOOP(...)                \
  const long long t0 = barrier_start(&s);      \
  if (on)                                      \
    for (int p = 0; p < a.iters; ++p) {        \
      proof_put(&s, p);                        \
      __VA_ARGS__;                             \
      ok += proof_get(&s, p, partner);         \
    }                                          \
  barrier_finish(&s, on, ok, t0, a)

// ---- family `barrier`: block-scope primitives (and grid_sync) ----

__global__ void sb_barrier_syncthreads_kernel(barrier_args a) {
  BARRIER_PROLOGUE;  // mode is `all` (check hook)
  const long long t0 = barrier_start(&s);
  for (int p = 0; p < a.iters; ++p) {
    proof_put(&s, p);
    __syncthreads();
    ok += proof_get(&s, p, partner);
  }
  barrier_finish(&s, on, ok, t0, a);
}

__global__ void sb_barrier_syncwarp_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  const int t = threadIdx.x;
  partner = (t & ~31) | ((t + 1) & 31);  // a lane of the same warp
  BARRIER_TIMED_LOOP({  // all: every warp on its own; warp: warp 0
    __syncwarp();
  });
}

__global__ void sb_barrier_named_barrier_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  const int t = threadIdx.x, n = blockDim.x;
  int id = 1;
  if (a.mode == SB_PART_ALL) {  // two halves, each on its own barrier id
    const int half = n / 2, base = t >= half ? half : 0;
    id = 1 + (t >= half);
    count = half;
    partner = base + (t - base + (half > 32 ? 32 : 1)) % half;
  }
  BARRIER_TIMED_LOOP({
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
  });
}

__global__ void sb_barrier_cg_block_sync_kernel(barrier_args a) {
  BARRIER_PROLOGUE;  // mode is `all`
  cg::thread_block block = cg::this_thread_block();
  const long long t0 = barrier_start(&s);
  for (int p = 0; p < a.iters; ++p) {
    proof_put(&s, p);
    block.sync();
    ok += proof_get(&s, p, partner);
  }
  barrier_finish(&s, on, ok, t0, a);
}

#pragma nv_diag_suppress static_var_with_dynamic_init

typedef cuda::barrier<cuda::thread_scope_block> block_barrier;

__global__ void sb_barrier_cuda_barrier_arrive_wait_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, count);
  BARRIER_TIMED_LOOP({
    block_barrier::arrival_token tok = bar.arrive();
    bar.wait(cuda::std::move(tok));
  });
}

__global__ void sb_barrier_cuda_barrier_arrive_and_wait_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, count);
  BARRIER_TIMED_LOOP({
    bar.arrive_and_wait();
  });
}

// cuda::ptx spelling: mbarrier.arrive, then a try_wait.parity loop (sm_90;
// try_wait does not exist before sm_90, so sm_80 polls test_wait.parity).
// Like the other spelling variants, its wait loop is the thing measured, so
// it does not go through sb_mbar_wait_parity(). Its validating launch
// (Bounded) adds a watchdog check after each failed poll; the timed one is
// the loop as written (the twin launcher below).
template <bool Bounded>
__global__ void sb_barrier_ptx_mbarrier_parity_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, count);
  uint32_t parity = 0;
  // Preprocessor branches cannot sit in a macro argument: the loop is
  // spelled out (the same as BARRIER_TIMED_LOOP).
  const long long t0 = barrier_start(&s);
  if (on)
    for (int p = 0; p < a.iters; ++p) {
      proof_put(&s, p);
      barrier_sink(cuda::ptx::mbarrier_arrive(&bar));
      unsigned long long wd_t0 = 0;
#if __CUDA_ARCH__ >= 900
      while (!cuda::ptx::mbarrier_try_wait_parity(&bar, parity))
        sb_wd_poll_failed<Bounded>(&wd_t0, sb_smem_addr(&bar), parity);
#else
      while (!cuda::ptx::mbarrier_test_wait_parity(&bar, parity))
        sb_wd_poll_failed<Bounded>(&wd_t0, sb_smem_addr(&bar), parity);
#endif
      parity ^= 1;
      ok += proof_get(&s, p, partner);
    }
  barrier_finish(&s, on, ok, t0, a);
}

// cuda_awbarrier_primitives.h spelling: token arrive, token try_wait (sm_90;
// __mbarrier_try_wait aborts before sm_90, so sm_80 polls __mbarrier_test_wait).
#define BARRIER_TRY_WAIT_HINT_NS 1000u  // suspend-time hint; a completed phase wakes it
template <bool Bounded>
__global__ void sb_barrier_primitives_mbarrier_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  __shared__ __mbarrier_t bar;
  if (threadIdx.x == 0) __mbarrier_init(&bar, count);
  const long long t0 = barrier_start(&s);  // spelled out: see ptx_mbarrier_parity
  if (on)
    for (int p = 0; p < a.iters; ++p) {
      proof_put(&s, p);
      __mbarrier_token_t tok = __mbarrier_arrive(&bar);
      unsigned long long wd_t0 = 0;
#if __CUDA_ARCH__ >= 900
      while (!__mbarrier_try_wait(&bar, tok, BARRIER_TRY_WAIT_HINT_NS))
        sb_wd_poll_failed<Bounded>(&wd_t0, sb_smem_addr(&bar), p & 1);
#else
      while (!__mbarrier_test_wait(&bar, tok))
        sb_wd_poll_failed<Bounded>(&wd_t0, sb_smem_addr(&bar), p & 1);
#endif
      ok += proof_get(&s, p, partner);
    }
  barrier_finish(&s, on, ok, t0, a);
}

// Inline PTX arrive, then a pure polling loop on test_wait.parity (never
// suspends), on every architecture.
template <bool Bounded>
__global__ void sb_barrier_mbarrier_test_wait_poll_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) sb_mbar_init(&bar, count);
  const uint32_t bar_a = sb_mbar_addr(&bar);
  uint32_t parity = 0;
  BARRIER_TIMED_LOOP({
    sb_mbar_arrive(bar_a);
    unsigned long long wd_t0 = 0;
    while (!barrier_test_wait_parity(&bar, parity)) sb_wd_poll_failed<Bounded>(&wd_t0, bar_a, parity);
    parity ^= 1;
  });
}

// Half of the participants arrive_and_drop() in phase 0 and leave the loop;
// the other half (thread 0 among them) run the loop with arrive_and_wait().
// What the drop costs the stayers: compare with cuda_barrier_arrive_and_wait
// at half the participants.
__global__ void sb_barrier_arrive_and_drop_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  __shared__ block_barrier bar;
  const int t = threadIdx.x, n = blockDim.x, warp = t >> 5, warps = n >> 5;
  int stay;
  if (a.mode == SB_PART_ALL) {
    const int half = n / 2;
    stay = t < half;
    partner = (t + (half > 32 ? 32 : 1)) % half;
  } else if (a.mode == SB_PART_WARP) {
    stay = t < 16;
    partner = (t + 1) % 16;
  } else {
    stay = warp < warps / 2;
    partner = ((warp + 1) % (warps / 2)) * 32;
  }
  if (t == 0) init(&bar, count);
  const long long t0 = barrier_start(&s);
  if (on && !stay) {
    (void)bar.arrive_and_drop();  // counts for phase 0, then no longer expected
  } else if (on) {
    for (int p = 0; p < a.iters; ++p) {
      proof_put(&s, p);
      bar.arrive_and_wait();
      ok += proof_get(&s, p, partner);
    }
  }
  barrier_finish(&s, on && stay, ok, t0, a);
}

// A completion function runs once per phase (by the last arriver, before
// anyone is released): it counts phases, and every waiter checks the count.
struct barrier_phase_counter {
  unsigned *phases;
  __device__ void operator()() noexcept { *phases += 1; }
};
typedef cuda::barrier<cuda::thread_scope_block, barrier_phase_counter> counting_barrier;

__global__ void sb_barrier_completion_function_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  __shared__ counting_barrier bar;
  __shared__ unsigned phases;
  if (threadIdx.x == 0) {
    phases = 0;
    init(&bar, count, barrier_phase_counter{&phases});
  }
  const long long t0 = barrier_start(&s);
  if (on)
    for (int p = 0; p < a.iters; ++p) {
      proof_put(&s, p);
      bar.arrive_and_wait();
      ok += proof_get(&s, p, partner) & (phases == (unsigned)p + 1u);
    }
  barrier_finish(&s, on, ok, t0, a);
}

// The price list's wait for the variants below: a try_wait.parity loop
// without a suspend hint (test_wait on sm_80), the same instruction and
// loop as the cuda::ptx spelling (ptx_mbarrier_parity), so that the rows
// differ only in what they price. The watchdog bounds it in the validating
// launch only (Bounded); the timed launch is the bare loop.
template <bool Bounded>
__device__ __forceinline__ void barrier_spin_wait(uint32_t bar, uint32_t parity) {
  unsigned long long wd_t0 = 0;
  while (!sb_mbar_probe(bar, parity)) sb_wd_poll_failed<Bounded>(&wd_t0, bar, parity);
}

// mbarrier.arrive.expect_tx with a transaction count of 0: the arrive that
// TMA consumers use, with no copy behind it (sm_90).
template <bool Bounded>
__global__ void sb_barrier_expect_tx_zero_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) sb_mbar_init(&bar, count);
  const uint32_t bar_a = sb_mbar_addr(&bar);
  uint32_t parity = 0;
  BARRIER_TIMED_LOOP({
    sb_mbar_arrive_expect_tx(bar_a, 0);
    barrier_spin_wait<Bounded>(bar_a, parity);
    parity ^= 1;
  });
}

// Shared-memory load latency: no synchronization at all. The calibration
// row for the published microbenchmark figures (pointer chases), and a
// yardstick for the other rows, whose proof adds a st.shared and an
// ld.shared to each op (not a dependent chain like this one). Each
// participating thread follows a dependent chain of ld.shared through the
// proof slots, each slot holding the shared-window address of the next
// (slot i -> slot (i + 33) mod 2 x blockDim: a warp's 32 lanes hit 32
// consecutive words, no bank conflict), so a hop is one LDS and nothing
// else on the dependent path. Every hop is checked against the address the
// thread computes itself; that ALU work hides under the load.
__global__ void sb_barrier_smem_latency_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  (void)partner;
  uint32_t *slot = barrier_slots();
  const uint32_t n = 2u * blockDim.x, base = sb_smem_addr(slot);
  for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) slot[i] = base + 4u * ((i + 33u) % n);
  const long long t0 = barrier_start(&s);  // its __syncthreads publishes the chain
  if (on) {
    uint32_t addr = base + 4u * threadIdx.x, want = threadIdx.x;
    for (int p = 0; p < a.iters; ++p) {
      asm volatile("ld.shared.u32 %0, [%0];" : "+r"(addr)::"memory");
      want += 33u;
      if (want >= n) want -= n;
      ok += addr == base + 4u * want;
    }
  }
  barrier_finish(&s, on, ok, t0, a);
}

// Cooperative-groups grid barrier over a cooperative launch. Thread 0 of each
// block proves it: publishes a tag in global memory, grid.sync(), reads the
// next block's tag (volatile: L1 is not coherent across SMs).
__global__ void sb_barrier_grid_sync_kernel(barrier_args a) {
  BARRIER_PROLOGUE;
  cg::grid_group grid = cg::this_grid();
  const unsigned b = blockIdx.x, g = gridDim.x, next = (b + 1) % g;
  volatile uint32_t *x = (volatile uint32_t *)(a.out + sizeof(sb_barrier_head) +
                                               SB_BARRIER_MAX_BLOCKS * sizeof(sb_barrier_rec));
  const int reporter = threadIdx.x == 0;
  grid.sync();  // every block is resident and past its start
  const long long t0 = barrier_start(&s);
  for (int p = 0; p < a.iters; ++p) {
    if (reporter) x[(p & 1) * SB_BARRIER_MAX_BLOCKS + b] = barrier_tag(p, (int)b);
    grid.sync();
    if (reporter) ok += x[(p & 1) * SB_BARRIER_MAX_BLOCKS + next] == barrier_tag(p, (int)next);
  }
  barrier_finish(&s, reporter, ok, t0, a);
}

// ---- family `barrier_tma`: one thread, one bulk copy, one wait ----

// Thread 0 copies `bytes` from alternating source halves into shared memory
// with cp.async.bulk, completing on an mbarrier (expect_tx == bytes, one
// arrival), waits, and checks the first and last word against the half it
// asked for (a stale or partial copy would hold the other half's words).
template <bool Bounded>
__global__ void sb_barrier_tma_roundtrip_kernel(barrier_args a) {
  __shared__ barrier_smem s;
  __shared__ __align__(8) uint64_t bar;
  unsigned char *dyn = barrier_dyn;  // the copy's destination (no proof slots)
  const uint32_t *dst = (const uint32_t *)dyn;
  const int words = a.bytes / 4, reporter = threadIdx.x == 0;
  unsigned ok = 0;
  if (reporter) {
    sb_mbar_init(&bar, 1);
    sb_fence_mbarrier_init();  // the copy engine's complete_tx is the first async-proxy use
  }
  const long long t0 = barrier_start(&s);
  if (reporter) {
    const uint32_t first[2] = {a.in[0], a.in[words]};
    const uint32_t last[2] = {a.in[words - 1], a.in[2 * words - 1]};
    const uint32_t bar_a = sb_mbar_addr(&bar);
    uint32_t parity = 0;
    for (int p = 0; p < a.iters; ++p) {
      sb_mbar_arrive_expect_tx(bar_a, (uint32_t)a.bytes);
      sb_bulk_copy_g2s(dyn, a.in + (p & 1) * words, (uint32_t)a.bytes, bar_a);
      barrier_spin_wait<Bounded>(bar_a, parity);
      parity ^= 1;
      ok += (dst[0] == first[p & 1]) & (dst[words - 1] == last[p & 1]);
      // My generic-proxy reads of the buffer come before the next copy's
      // async-proxy writes to it.
      sb_fence_proxy_async_shared();
    }
  }
  barrier_finish(&s, reporter, ok, t0, a);
}

// ---- family `barrier_cluster`: barrier.cluster.arrive + wait ----

// Every thread of every block of the cluster arrives (release) and waits
// (acquire) each phase; each thread then reads its own slot index in the
// next block's shared memory (DSMEM).
__global__ void sb_barrier_cluster_barrier_kernel(barrier_args a) {
#if __CUDA_ARCH__ >= 900
  BARRIER_PROLOGUE;  // mode is `all`
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
  const uint32_t *peer = cluster.map_shared_rank(barrier_slots(), (rank + 1) % size);
  const int t = threadIdx.x;
  cluster.sync();  // every block of the cluster has started: its smem exists
  const long long t0 = barrier_start(&s);
  for (int p = 0; p < a.iters; ++p) {
    proof_put(&s, p);
    cuda::ptx::barrier_cluster_arrive();
    cuda::ptx::barrier_cluster_wait();
    ok += peer[(p & 1) * blockDim.x + t] == barrier_tag(p, t);
  }
  barrier_finish(&s, on, ok, t0, a);
  cluster.sync();  // nobody exits while a peer may still read its smem
#else
  (void)a;
  __trap();
#endif
}

// ---- launchers ----

enum { LAUNCH_PLAIN, LAUNCH_COOPERATIVE, LAUNCH_CLUSTER };

// Grid: one block per SM (the dynamic shared memory is padded past half an
// SM's, so two cannot share one) or SMs x occupancy (full_occupancy);
// cluster launches: as many whole clusters as fit at once.
static cudaError_t barrier_launch(sb_launch *L, const void *kernel, int how, size_t smem) {
  const int block = (int)L->axis[SB_AXIS_BLOCK];
  const int full = L->axis[SB_AXIS_CONTENTION] == SB_CONT_FULL;
  int dev = 0, sms = 0, smem_sm = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
  if (e != cudaSuccess) return e;
  if (!full && smem < (size_t)smem_sm / 2 + 1024) smem = (size_t)smem_sm / 2 + 1024;
  if ((e = sb_configure(kernel, 1, block, smem, L)) != cudaSuccess) return e;

  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t cfg = {};
  cfg.blockDim = dim3((unsigned)block);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = L->stream;
  cfg.attrs = attr;
  long long grid = (long long)sms * (full ? L->blocks_per_sm : 1);
  if (how == LAUNCH_COOPERATIVE) {
    attr[0].id = cudaLaunchAttributeCooperative;
    attr[0].val.cooperative = 1;
    cfg.numAttrs = 1;
  } else if (how == LAUNCH_CLUSTER) {
    const int cs = (int)L->axis[SB_AXIS_CLUSTER];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)cs;
    attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3((unsigned)cs);
    int clusters = 0;
    if (L->blocks_per_sm > 0 &&
        (e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg)) != cudaSuccess)
      return e;
    long long fit = (long long)clusters * cs;
    grid = grid / cs * cs;
    if (fit < grid) grid = fit;
    if (grid == 0) L->blocks_per_sm = 0;
  }
  if (grid > SB_BARRIER_MAX_BLOCKS) return cudaErrorInvalidConfiguration;
  L->grid_blocks = (int)grid;
  if (L->query) return cudaSuccess;
  if (L->blocks_per_sm == 0) return cudaErrorInvalidConfiguration;
  cfg.gridDim = dim3((unsigned)grid);
  barrier_args a;
  a.in = (const uint32_t *)L->in;
  a.out = (unsigned char *)L->out;
  a.iters = (int)L->axis[SB_AXIS_ITERS];
  a.mode = L->axis[SB_AXIS_PARTICIPANTS] == SB_AXIS_UNSET ? SB_PART_ALL
                                                          : (int)L->axis[SB_AXIS_PARTICIPANTS];
  a.bytes = L->axis[SB_AXIS_BUFFER_BYTES] == SB_AXIS_UNSET ? 0 : (int)L->axis[SB_AXIS_BUFFER_BYTES];
  void *args[] = {&a};
  e = cudaLaunchKernelExC(&cfg, kernel, args);
  return e == cudaSuccess ? cudaGetLastError() : e;
}

#define BARRIER_LAUNCHER(family, variant, how, smem)                                     \
  extern "C" cudaError_t sb_##family##_##variant(sb_launch *L) {                         \
    return barrier_launch(L, (const void *)sb_barrier_##variant##_kernel, how, (smem)); \
  }

// A variant with its own mbarrier spin loop: the <true> kernel (watchdog
// checks in the loop) validates, the <false> one is timed (harness/launch.h).
static cudaError_t barrier_launch_twin(sb_launch *L, const void *kbounded, const void *kraw,
                                       int how, size_t smem) {
  if (L->query) {
    L->raw_twin = 1;
    cudaError_t e = barrier_launch(L, kbounded, how, smem);
    if (e != cudaSuccess) return e;
  }
  return barrier_launch(L, !L->query && L->bounded ? kbounded : kraw, how, smem);
}
#define BARRIER_TWIN_LAUNCHER(family, variant, how, smem)                              \
  extern "C" cudaError_t sb_##family##_##variant(sb_launch *L) {                       \
    return barrier_launch_twin(L, (const void *)sb_barrier_##variant##_kernel<true>,   \
                               (const void *)sb_barrier_##variant##_kernel<false>, how, \
                               (smem));                                                \
  }

#define SLOTS ((size_t)L->axis[SB_AXIS_BLOCK] * 2 * sizeof(uint32_t))
BARRIER_LAUNCHER(barrier, syncthreads, LAUNCH_PLAIN, SLOTS)
BARRIER_LAUNCHER(barrier, syncwarp, LAUNCH_PLAIN, SLOTS)
BARRIER_LAUNCHER(barrier, named_barrier, LAUNCH_PLAIN, SLOTS)
BARRIER_LAUNCHER(barrier, cg_block_sync, LAUNCH_PLAIN, SLOTS)
BARRIER_LAUNCHER(barrier, cuda_barrier_arrive_wait, LAUNCH_PLAIN, SLOTS)
BARRIER_LAUNCHER(barrier, cuda_barrier_arrive_and_wait, LAUNCH_PLAIN, SLOTS)
BARRIER_TWIN_LAUNCHER(barrier, ptx_mbarrier_parity, LAUNCH_PLAIN, SLOTS)
BARRIER_TWIN_LAUNCHER(barrier, primitives_mbarrier, LAUNCH_PLAIN, SLOTS)
BARRIER_TWIN_LAUNCHER(barrier, mbarrier_test_wait_poll, LAUNCH_PLAIN, SLOTS)
BARRIER_LAUNCHER(barrier, arrive_and_drop, LAUNCH_PLAIN, SLOTS)
BARRIER_LAUNCHER(barrier, completion_function, LAUNCH_PLAIN, SLOTS)
BARRIER_TWIN_LAUNCHER(barrier, expect_tx_zero, LAUNCH_PLAIN, SLOTS)
BARRIER_LAUNCHER(barrier, smem_latency, LAUNCH_PLAIN, SLOTS)
BARRIER_LAUNCHER(barrier, grid_sync, LAUNCH_COOPERATIVE, 0)  // proof slots in global memory
BARRIER_TWIN_LAUNCHER(barrier_tma, tma_roundtrip, LAUNCH_PLAIN, (size_t)L->axis[SB_AXIS_BUFFER_BYTES])
BARRIER_LAUNCHER(barrier_cluster, cluster_barrier, LAUNCH_CLUSTER, SLOTS)
