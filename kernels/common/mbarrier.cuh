// Block-scope mbarrier helpers in inline PTX, shared by the families that
// hand phases over through an mbarrier. The 64-bit barrier object lives in
// shared memory; all operations take its shared-window address.
//
// Rules these helpers assume (PTX ISA, "mbarrier"):
//  - init happens once, by one thread, before any other operation, and is
//    made visible to the block by a __syncthreads() (block scope: no
//    fence.mbarrier_init needed; that fence is for cluster-scope observers);
//  - the barrier is never re-initialized while a thread may still arrive on
//    it or wait on it;
//  - a waiter tracks the phase parity itself: wait(parity) then flip it.
#ifndef SB_KERNELS_MBARRIER_CUH
#define SB_KERNELS_MBARRIER_CUH

#include <stdint.h>

__device__ __forceinline__ uint32_t sb_smem_addr(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

// A barrier's shared-window address, to compute once before a loop and pass
// to the arrive/wait helpers below (which take addresses, not pointers).
// Why not `&bar` at each use: the compiler sinks the symbol's address into
// the loop, and once the wait has a slow path (the watchdog's), ptxas
// rebuilds it every iteration on sm_90 (S2UR SR_CgaCtaId, UMOV, ULEA: 3 more
// instructions in an 18-instruction scan step, which cost scan/mbarrier 14%
// on an H200). The volatile move is an opaque definition it cannot sink.
__device__ __forceinline__ uint32_t sb_mbar_addr(const void *bar) {
  uint32_t a;
  asm volatile("mov.b32 %0, %1;" : "=r"(a) : "r"(sb_smem_addr(bar)));
  return a;
}

// Plain 32-bit shared-memory accesses through a shared-window address
// (from sb_mbar_addr): for arrays whose address ptxas would otherwise
// rebuild inside every branch of a loop (scan/warp_shuffle's totals).
__device__ __forceinline__ uint32_t sb_lds_u32(uint32_t a) {
  uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
  return v;
}
__device__ __forceinline__ void sb_sts_u32(uint32_t a, uint32_t v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
}

__device__ __forceinline__ void sb_mbar_init(uint64_t *bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sb_smem_addr(bar)),
               "r"(count)
               : "memory");
}

// Arrive with release semantics at CTA scope: this thread's earlier shared
// memory writes are visible to any thread whose wait sees the phase end.
__device__ __forceinline__ void sb_mbar_arrive(uint32_t bar) {
  asm volatile(
      "{\n\t.reg .b64 state;\n\t"
      "mbarrier.arrive.shared::cta.b64 state, [%0];\n\t}" ::"r"(bar)
      : "memory");
}

// One wait attempt: has the phase with this parity completed? On sm_90,
// mbarrier.try_wait with a suspend-time hint: a thread whose phase is not
// yet complete sleeps (NANOSLEEP.SYNCS in SASS) until the barrier unit wakes
// it or the hint runs out, instead of spinning. The hint is the one CUTLASS
// and most Hopper kernels use (0x989680 ns = 10 ms, "arbitrarily large"): a
// correct wait returns true long before it; false means "still waiting, try
// again". sm_80 has no try_wait: test_wait is a pure probe.
#define SB_MBAR_SUSPEND_NS 0x989680u

// mbarrier.test_wait.parity: a pure, non-suspending probe (sm_80+). The one
// spelling of it: sm_80's wait below and the barrier price list's polled
// test_wait row (kernels/families/barrier.cu) both call this.
__device__ __forceinline__ bool sb_mbar_test_wait(uint32_t bar, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}

__device__ __forceinline__ bool sb_mbar_try_wait(uint32_t bar, uint32_t parity) {
#if __CUDA_ARCH__ >= 900
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(bar), "r"(parity), "r"(SB_MBAR_SUSPEND_NS)
      : "memory");
  return done != 0;
#else
  return sb_mbar_test_wait(bar, parity);
#endif
}

// The first attempt of a wait: try_wait without a hint (sm_90), which the
// hardware may still briefly suspend. Kept apart so that the common case, a
// phase already complete, costs one TRYWAIT and a branch in both builds.
__device__ __forceinline__ bool sb_mbar_probe(uint32_t bar, uint32_t parity) {
#if __CUDA_ARCH__ >= 900
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
#else
  return sb_mbar_try_wait(bar, parity);
#endif
}

// ---- deadlock watchdog (host side: harness/watchdog.h) ----
// Every bounded wait below (the validating launches' waits) is bounded by
// %globaltimer: a wait that keeps failing for
// the configured time (default 1 s, --watchdog-ms) records which barrier,
// stage and parity it waited on in host-mapped memory, then traps, so a
// broken protocol costs one `deadlock` row instead of a hung GPU. The clock
// is read only when an attempt fails: on sm_90 after a suspended try_wait
// came back empty-handed (rare: the suspend lasts until the phase completes
// or 10 ms pass), on sm_80 once every SB_WATCHDOG_POLLS failed probes.
// Build with -DSB_WATCHDOG=0 (make SB_WATCHDOG=0) to compile it out.
#ifndef SB_WATCHDOG
#define SB_WATCHDOG 1
#endif
#define SB_WATCHDOG_POLLS 256u
#if SB_WATCHDOG
#include <cuda_runtime.h>

#include "../../harness/watchdog.h"

// Per translation unit (no relocatable device code): set at run time by
// sb_watchdog_configure() through the setter this unit registers below.
// The bound is read after every failed attempt, so it sits in constant
// memory (a cached LDC, not an LDG of hundreds of cycles that would delay
// the next attempt).
static __constant__ unsigned long long sb_wd_timeout_ns = SB_WATCHDOG_DEFAULT_MS * 1000000ull;
static __device__ sb_watchdog_record *sb_wd_record = nullptr;
static __device__ unsigned int sb_wd_claimed = 0;

static cudaError_t sb_wd_set(unsigned long long ns, sb_watchdog_record *rec) {
  cudaError_t e = cudaMemcpyToSymbol(sb_wd_timeout_ns, &ns, sizeof ns);
  if (e == cudaSuccess) e = cudaMemcpyToSymbol(sb_wd_record, &rec, sizeof rec);
  return e;
}
__attribute__((constructor)) static void sb_wd_register_unit(void) {
  sb_watchdog_register(sb_wd_set);
}

__device__ __forceinline__ unsigned long long sb_wd_now_ns(void) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// The first thread to time out writes the record (fired last, after a
// system-scope fence, so the host never sees a half-written record) and
// traps, which aborts the grid. The others wait (up to 100 ms) for the
// record to be complete before they trap, so their traps cannot abort the
// grid while it is half written.
__noinline__ __attribute__((noreturn)) static __device__ void sb_wd_fire(uint32_t bar_addr, uint32_t parity, int stage,
                                               unsigned long long waited) {
  volatile sb_watchdog_record *r = sb_wd_record;
  if (r != nullptr && atomicCAS(&sb_wd_claimed, 0u, 1u) == 0u) {
    r->bar = bar_addr;
    r->stage = stage;
    r->parity = parity;
    r->block[0] = blockIdx.x, r->block[1] = blockIdx.y, r->block[2] = blockIdx.z;
    r->thread[0] = threadIdx.x, r->thread[1] = threadIdx.y, r->thread[2] = threadIdx.z;
    r->waited_ns = waited;
    __threadfence_system();
    r->fired = 1;
    __threadfence_system();
  } else if (r != nullptr) {
    const unsigned long long t0 = sb_wd_now_ns();
    while (!r->fired && sb_wd_now_ns() - t0 < 100000000ull) {
    }
  }
  __trap();
}
#endif

// The wait without the watchdog: a probe, then suspended attempts. What the
// timed (Bounded = false) kernels wait with, and every wait in a
// make SB_WATCHDOG=0 build.
__device__ __forceinline__ void sb_mbar_wait_parity_raw(uint32_t addr, uint32_t parity) {
  if (sb_mbar_probe(addr, parity)) return;
  while (!sb_mbar_try_wait(addr, parity)) {
  }
}

#if SB_WATCHDOG
// One clock check of a wait that keeps failing: the first check starts the
// wait's own clock (t0), a later one fires the report once the bound passed.
__device__ __forceinline__ void sb_wd_check(unsigned long long now, unsigned long long *t0,
                                            uint32_t addr, uint32_t parity, int stage) {
  if (*t0 == 0) {
    *t0 = now;
  } else if (now - *t0 > sb_wd_timeout_ns && sb_wd_timeout_ns != 0) {
    sb_wd_fire(addr, parity, stage, now - *t0);
  }
}
#endif

// Waits (acquire, CTA scope) until the phase with this parity has completed:
// the wait every kernel family uses. `stage` (a pipeline stage or buffer
// index, or -1) only names the wait in the watchdog's report.
//
// Bounded (the default) waits under the deadlock watchdog; Bounded = false
// is the raw wait. A variant that waits here is compiled both ways: the
// runner validates a point with the bounded kernel, so a broken protocol
// becomes a `deadlock` row, and times it with the raw one (harness/launch.h,
// kernels/common/launch.cuh). Why: the watchdog's clock check costs nothing when it
// runs (it runs only after a failed suspended attempt), but its code
// changes how ptxas schedules the caller's loop (the loop's own
// bookkeeping is no longer hoisted above the wait), and that cost 2-4% on
// scan, stencil and multistage; see docs/reliability.md.
//
// The bounded wait: a probe, then suspended attempts (sm_90), and after each
// failed one a clock check against the bound (in constant memory); on
// sm_80, a check every SB_WATCHDOG_POLLS failed probes. Only validating
// launches run it, so it is written to be plain, not fast. The report is
// out of line and never returns.
template <bool Bounded = true>
__device__ __forceinline__ void sb_mbar_wait_parity_stage(uint32_t addr, uint32_t parity,
                                                          int stage) {
#if SB_WATCHDOG
  if constexpr (Bounded) {
    if (sb_mbar_probe(addr, parity)) return;
#if __CUDA_ARCH__ < 900
    uint32_t polls = 0;
#endif
    unsigned long long t0 = 0;
    while (!sb_mbar_try_wait(addr, parity)) {
#if __CUDA_ARCH__ < 900
      if ((++polls & (SB_WATCHDOG_POLLS - 1u)) != 0u) continue;
#endif
      sb_wd_check(sb_wd_now_ns(), &t0, addr, parity, stage);
    }
    return;
  }
#endif
  (void)stage;
  sb_mbar_wait_parity_raw(addr, parity);
}

template <bool Bounded = true>
__device__ __forceinline__ void sb_mbar_wait_parity(uint32_t bar, uint32_t parity) {
  sb_mbar_wait_parity_stage<Bounded>(bar, parity, -1);
}

// For a spin loop written in another spelling (the barrier price list's
// cuda::ptx, cuda_awbarrier_primitives.h and test_wait loops): call after
// each failed poll, with a clock start `t0` that begins at 0. Bounded: one
// watchdog clock check per failed poll (only the validating launch runs it,
// so its speed does not matter); otherwise nothing, and the loop compiles
// to the raw spin the price list times.
template <bool Bounded>
__device__ __forceinline__ void sb_wd_poll_failed(unsigned long long *t0, uint32_t addr,
                                                  uint32_t parity) {
#if SB_WATCHDOG
  if constexpr (Bounded) sb_wd_check(sb_wd_now_ns(), t0, addr, parity, -1);
#endif
  (void)t0, (void)addr, (void)parity;
}

// ---- arrive variants ----

// Arrive `count` times at once (one elected lane arriving for its warp).
__device__ __forceinline__ void sb_mbar_arrive_count(uint32_t bar, uint32_t count) {
  asm volatile(
      "{\n\t.reg .b64 state;\n\t"
      "mbarrier.arrive.shared::cta.b64 state, [%0], %1;\n\t}" ::"r"(bar),
      "r"(count)
      : "memory");
}

// Marks the block's shared memory barrier object invalid, so its memory can
// be reused for something else. Only once no thread uses it any more.
__device__ __forceinline__ void sb_mbar_inval(uint64_t *bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(sb_smem_addr(bar)) : "memory");
}

// ---- sm_90: transaction counts and the bulk copy engine (TMA) ----
// On older architectures these trap: the harness never launches a variant
// whose min_cc the GPU lacks, so reaching them there is a bug.

// Arrive once and add `bytes` to the phase's expected transaction count:
// the phase completes when every arrival is in AND that many bytes landed.
__device__ __forceinline__ void sb_mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n\t.reg .b64 state;\n\t"
      "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n\t}" ::"r"(bar),
      "r"(bytes)
      : "memory");
#else
  (void)bar, (void)bytes;
  __trap();
#endif
}

// Bulk copy global -> shared (cp.async.bulk): `bytes` a multiple of 16,
// both addresses 16-byte aligned. Completion is signalled to `bar` as
// complete_tx of `bytes`, so a prior expect_tx must have counted them.
__device__ __forceinline__ void sb_bulk_copy_g2s(void *dst_smem, const void *src_global,
                                                 uint32_t bytes, uint32_t bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          sb_smem_addr(dst_smem)),
      "l"(src_global), "r"(bytes), "r"(bar)
      : "memory");
#else
  (void)dst_smem, (void)src_global, (void)bytes, (void)bar;
  __trap();
#endif
}

// Orders this thread's earlier generic-proxy shared-memory accesses before
// later async-proxy (TMA) accesses: needed before the copy engine
// overwrites a buffer that threads just read or wrote with ordinary ops
// (docs/pipeline.md, "Proxy fences").
__device__ __forceinline__ void sb_fence_proxy_async_shared(void) {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// Makes an mbarrier.init visible to the async proxy and to other CTAs of a
// cluster: needed when the copy engine (or a peer CTA) is the first to use
// a freshly initialized barrier.
__device__ __forceinline__ void sb_fence_mbarrier_init(void) {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// ---- sm_90: cluster scope (distributed shared memory) ----
// For the barrier price list's dsmem_handoff and tma_multicast_roundtrip
// rows (kernels/families/barrier.cu). Rules these helpers assume (PTX ISA,
// "mbarrier", "Distributed shared memory"):
//  - each CTA initializes its own barriers, then fence.mbarrier_init
//    (sb_fence_mbarrier_init) and a cluster barrier (sb_cluster_sync)
//    before any peer arrives on them or a multicast copy completes on them;
//  - a CTA never exits while a peer may still arrive on its barriers or
//    write its shared memory: a cluster barrier before exit;
//  - addresses are 32-bit shared-window addresses: a CTA's own (shared::cta,
//    from sb_mbar_addr) or a peer's (shared::cluster, from sb_mapa).

// This CTA's rank in its cluster (%cluster_ctarank).
__device__ __forceinline__ uint32_t sb_cluster_rank(void) {
  uint32_t r = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#else
  __trap();
#endif
  return r;
}

// CTAs in this CTA's cluster (%cluster_nctarank; 1 without a cluster launch).
__device__ __forceinline__ uint32_t sb_cluster_size(void) {
  uint32_t n = 1;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
#else
  __trap();
#endif
  return n;
}

// The shared::cluster address of the same variable (own address `addr`) in
// the CTA of rank `rank`.
__device__ __forceinline__ uint32_t sb_mapa(uint32_t addr, uint32_t rank) {
  uint32_t d = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(addr), "r"(rank));
#else
  (void)addr, (void)rank;
  __trap();
#endif
  return d;
}

// A plain (weak) store into a peer's shared memory; published by a later
// release (sb_mbar_arrive_remote) of the same thread.
__device__ __forceinline__ void sb_st_cluster_u32(uint32_t addr, uint32_t v) {
#if __CUDA_ARCH__ >= 900
  asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
#else
  (void)addr, (void)v;
  __trap();
#endif
}

// The generic address of the same shared variable (own generic address
// `p`) in the CTA of rank `rank` (mapa on a generic address): plain C++
// loads through it read the peer's shared memory (distributed shared
// memory), and the compiler may batch them as it does any other loads.
// Ordered after the peer's writes by a cluster barrier between them.
__device__ __forceinline__ const void *sb_cluster_peer(const void *p, uint32_t rank) {
  unsigned long long d = 0;
#if __CUDA_ARCH__ >= 900
  asm("mapa.u64 %0, %1, %2;" : "=l"(d) : "l"(p), "r"(rank));
#else
  (void)p, (void)rank;
  __trap();
#endif
  return reinterpret_cast<const void *>(d);
}

// Arrive once on a peer's barrier (`bar`: a shared::cluster address from
// sb_mapa), release at cluster scope: this thread's earlier writes (its
// st.shared::cluster into the peer) are visible to a peer thread whose
// acquire.cluster wait sees the phase end. A remote arrive returns no state.
__device__ __forceinline__ void sb_mbar_arrive_remote(uint32_t bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(bar)
               : "memory");
#else
  (void)bar;
  __trap();
#endif
}

// Arrive once on a barrier at a shared::cluster address (this CTA's or a
// peer's, from sb_mapa) with the default semantics, release at CTA scope:
// CUTLASS's ClusterBarrier::arrive(cta_id). For an arrival that publishes
// no data of this thread to the peer (a consumer saying its reads of a
// stage are over, before the peer's copy overwrites it). What
// .release.cluster costs instead (sb_mbar_arrive_remote): MEMBAR.ALL.CTA +
// MEMBAR.ALL.GPU before each arrive on sm_90, about 1 us per k-tile in
// gemm/ws_tma_wgmma_multicast's consumer loop on an H100 (2.2-2.6x its time
// at 128x128x64).
__device__ __forceinline__ void sb_mbar_arrive_cluster(uint32_t bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(bar) : "memory");
#else
  (void)bar;
  __trap();
#endif
}

// One wait attempt on this CTA's own barrier, acquire at cluster scope (it
// pairs with a peer's sb_mbar_arrive_remote); no suspend hint, like
// sb_mbar_probe.
__device__ __forceinline__ bool sb_mbar_try_wait_cluster(uint32_t bar, uint32_t parity) {
#if __CUDA_ARCH__ >= 900
  uint32_t done;
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
#else
  (void)bar, (void)parity;
  __trap();
  return false;
#endif
}

// Every (non-exited) thread of every CTA of the cluster: arrive with
// release, wait with acquire. Not .aligned: callers may come out of a
// branch one thread took.
__device__ __forceinline__ void sb_cluster_sync(void) {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
#else
  __trap();
#endif
}

// sb_cluster_sync in two halves, for work between them: arrive (release:
// this thread's earlier writes and reads are ordered before the peers'
// matching wait), later wait (acquire). One arrive, then one wait, per phase.
__device__ __forceinline__ void sb_cluster_arrive(void) {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release;" ::: "memory");
#else
  __trap();
#endif
}
// Relaxed: orders nothing. For an arrival that only says "I am done with
// your shared memory" once the values read are in registers (a later
// instruction used them): a .release arrive is MEMBAR.ALL.GPU first on
// sm_90, as every cluster-scope release is (sb_mbar_arrive_cluster's note).
__device__ __forceinline__ void sb_cluster_arrive_relaxed(void) {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory");
#else
  __trap();
#endif
}
__device__ __forceinline__ void sb_cluster_wait(void) {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
#else
  __trap();
#endif
}

// Bulk copy global -> shared of `bytes`, multicast to every CTA of the
// cluster whose bit is set in `cta_mask`: each receives the bytes at the
// same CTA-relative offset as `dst_smem`, and each one's barrier at the
// same offset as `bar` gets complete_tx of `bytes` (what landed in THAT
// CTA), so every receiver's own expect_tx counts `bytes`, not bytes x CTAs.
// `bytes` a multiple of 16, both addresses 16-byte aligned.
__device__ __forceinline__ void sb_bulk_copy_g2s_multicast(void *dst_smem, const void *src_global,
                                                           uint32_t bytes, uint32_t bar,
                                                           uint16_t cta_mask) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1], %2, [%3], %4;" ::"r"(sb_smem_addr(dst_smem)),
      "l"(src_global), "r"(bytes), "r"(bar), "h"(cta_mask)
      : "memory");
#else
  (void)dst_smem, (void)src_global, (void)bytes, (void)bar, (void)cta_mask;
  __trap();
#endif
}

#endif
