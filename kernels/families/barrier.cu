// Barrier families (barrier, barrier_tma, barrier_cluster): the price of one
// synchronization operation, in SM clock cycles, timed inside the kernel.
// Host side: bench/barrier.c; output layout: kernels/barrier_layout.h.
//
// Every variant is a twin (kernels/common/launch.cuh, sb_twin_kernels):
//
//   timed    (Validate = false): between two clock64() reads of thread 0,
//            after a block-wide start barrier, each participating thread
//            runs `iters` times the operation and nothing else:
//                for (p = 0; p < iters; ++p) <the operation>;
//            It reports how many operations it completed.
//   validating (Validate = true): the same operation inside the proof that
//            every phase completed, and every mbarrier spin under the
//            deadlock watchdog:
//                slot[p & 1][me] = tag(p, me);                       // publish
//                <the operation>
//                ok += slot[p & 1][partner] == tag(p, partner);      // check
//
// The partner is another participating thread (in another warp whenever
// there is one), so a barrier that let a thread through early shows up as
// an unproven phase. The two slots alternate, so phase p+2 overwrites a
// slot only after phase p+1's barrier, which every reader of phase p passed
// after its read. The runner validates a point with the validating kernel
// and times the other; bench/barrier.c's derive checks the timed launch's
// output too (every reporter completed `iters` operations, cycles > 0).
//
// The hand-off variants (syncthreads_handoff, ptx_mbarrier_handoff) time
// the proof itself: publish, synchronize, read what the partner published,
// the cost of a real producer -> consumer hand-off through the primitive.
// smem_latency(_bare) are plain dependent pointer chases, checked once at the end.
//
// At the end every reporting thread folds its count into the block's
// minimum and maximum and counts itself; thread 0 stores them and the
// loop's cycles (an atomic minimum over launches) into the layout.
#include <type_traits>
#ifdef SB_PLANT_SLOWDOWN
#include <cstdio>
#include <cstdlib>
#endif
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/ptx>
#include <cuda_awbarrier_primitives.h>

#include "barrier_layout.h"
#include "../common/launch.cuh"
#include "../common/lookback.cuh"
#include "../common/mbarrier.cuh"
#include "../common/pdl.cuh"
#include "../common/pdl.h"

namespace cg = cooperative_groups;

struct BarrierParams {
  const uint32_t *in;  // barrier_tma: sb_barrier_tma_pairs pairs of source halves of `bytes` each
  unsigned char *out;  // barrier_layout.h
  int iters;
  int mode;            // SB_PART_*
  int bytes;           // barrier_tma: bytes per copy
};

// The proof slots, two per thread (2 x blockDim.x words), live at the start
// of dynamic shared memory, so small blocks are not held back from full
// occupancy by a fixed array (smem_latency keeps its chain there).
extern __shared__ __align__(128) unsigned char barrier_dyn[];

__device__ __forceinline__ uint32_t *barrier_slots(void) { return (uint32_t *)barrier_dyn; }

__device__ __forceinline__ uint32_t barrier_tag(int phase, int id) {
  return (uint32_t)phase * 2048u + (uint32_t)id + 1u;
}

struct BarrierTally {
  unsigned ok_min, ok_max, reporters;
};

// Who takes part (SB_PART_*): on, the partner whose slot this thread checks,
// how many threads arrive per phase, and who reports a count.
//   all      every thread; partner 32 threads on (next warp), or lane+1
//   warp     warp 0 only; partner lane+1
//   elected  lane 0 of each warp; partner lane 0 of the next warp
struct BarrierRole {
  int on;          // runs the loop
  int stay;        // arrive_and_drop: 0 for the threads that drop out instead
  int report;      // folds its count into the block's tally
  int partner;
  unsigned count;  // arrivals per phase
};

__device__ __forceinline__ BarrierRole barrier_role(int mode) {
  const int t = threadIdx.x, n = blockDim.x, warps = n >> 5;
  BarrierRole r;
  r.stay = 1;
  if (mode == SB_PART_ALL) {
    r.on = 1;
    r.count = n;
    r.partner = (t + (n > 32 ? 32 : 1)) % n;
  } else if (mode == SB_PART_WARP) {
    r.on = t < 32;
    r.count = 32;
    r.partner = (t + 1) & 31;
  } else {
    r.on = (t & 31) == 0;
    r.count = warps;
    r.partner = (((t >> 5) + 1) % warps) * 32;
  }
  r.report = r.on;
  return r;
}

__device__ __forceinline__ uint32_t barrier_smid(void) {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Block-wide start line; returns this thread's start time (thread 0's is
// the one recorded).
__device__ __forceinline__ long long barrier_start(BarrierTally *s) {
  if (threadIdx.x == 0) {
    s->ok_min = 0xffffffffu;
    s->ok_max = 0;
    s->reporters = 0;
  }
  __syncthreads();  // also publishes barrier objects initialized before it
  return clock64();
}

// After the loop's end clock: the tally is folded and thread 0 stores it,
// with its own checked result (`value`).
__device__ __forceinline__ void barrier_finish(BarrierTally *s, int reporter, unsigned ok,
                                               long long cycles, const BarrierParams &a,
                                               uint32_t value) {
  if (reporter) {
    atomicMin(&s->ok_min, ok);
    atomicMax(&s->ok_max, ok);
    atomicAdd(&s->reporters, 1u);
  }
  __syncwarp();  // lanes that sat out the loop wait for those in it
  __syncthreads();
  if (threadIdx.x == 0) {
    sb_barrier_head *head = (sb_barrier_head *)a.out;
    sb_barrier_rec *rec = (sb_barrier_rec *)(head + 1) + blockIdx.x;
    atomicMin(&rec->cycles, (unsigned long long)cycles);
    rec->ok_min = s->ok_min;
    rec->ok_max = s->ok_max;
    rec->reporters = s->reporters;
    rec->value = value;
    if (blockIdx.x == 0) {
      head->grid_blocks = gridDim.x;
      head->iters = (uint32_t)a.iters;
      head->magic = SB_BARRIER_MAGIC;
      head->pad = 0;
    }
  }
}

// The slot proof of one thread, its addresses computed once: my slot and
// the partner's in the even phases' half, the current half's offset
// (toggled), and this phase's tags (barrier_tag(p, id), advanced by next()).
// The hand-off rows time it, so a phase costs the store, the load, the
// compare and a few independent adds, as a hand-coded double buffer would.
struct BarrierSlotProof {
  uint32_t *mine, *theirs;
  unsigned half, off;
  uint32_t my_tag, their_tag;
  __device__ explicit BarrierSlotProof(int partner)
      : mine(barrier_slots() + threadIdx.x),
        theirs(barrier_slots() + partner),
        half(blockDim.x),
        off(0),
        my_tag(barrier_tag(0, threadIdx.x)),
        their_tag(barrier_tag(0, partner)) {}
  __device__ void publish() const { mine[off] = my_tag; }
  __device__ unsigned proven() const { return theirs[off] == their_tag; }
  __device__ void next() {
    off ^= half;  // phase p uses half p & 1
    my_tag += barrier_tag(1, 0) - barrier_tag(0, 0);
    their_tag += barrier_tag(1, 0) - barrier_tag(0, 0);
  }
};

// The loop of one participating thread; returns the count it reports.
// Timed: the operation back to back, unrolled 4x (the loop counter costs
// an IADD, ISETP and BRA per 4 operations). Validating, and the hand-off
// variants' timed loop: the proof around each operation.
template <bool Validate, bool Handoff, class Op>
__device__ __forceinline__ unsigned barrier_phases(int iters, const BarrierRole &r, Op &op) {
  if constexpr (Validate || Handoff) {
    BarrierSlotProof proof(r.partner);
    unsigned ok = 0;
    for (int p = 0; p < iters; ++p) {
      op.publish(proof, p);
      op.template sync<Validate>();
      ok += op.proven(proof, p);
      proof.next();
    }
    return ok;
  } else {
    int p = 0;
#pragma unroll 4
    for (; p < iters; ++p) op.template sync<false>();
    return (unsigned)p;
  }
}

// The body every variant shares. V: the variant (a struct below): role(),
// make() (before the start line: thread 0 initializes the barrier object),
// sync<Validate>() (one operation), publish/proven (the proof; by default
// BarrierSlotProof's), result() (the count it reports), value() (thread
// 0's result the host checks, 0 by default) and the optional hooks
// before_start/after_finish/leave.
template <class V, bool Validate>
__global__ void __launch_bounds__(SB_BARRIER_MAX_THREADS) barrier_kernel(const BarrierParams a) {
  __shared__ BarrierTally s;
  const BarrierRole r = V::role(a.mode);
  auto op = V::make(a, r);
  op.before_start();
  const long long t0 = barrier_start(&s);
  unsigned ok = 0;
  if (r.on) {
    if (!V::drops || r.stay)
      ok = barrier_phases<Validate, V::handoff>(a.iters, r, op);
    else
      op.leave();
  }
  const long long cycles = clock64() - t0;  // thread 0 always takes part: its loop's end
  barrier_finish(&s, r.report, op.result(ok), cycles, a, op.value());
  op.after_finish();
}

// Defaults of the variant structs: the shared-memory slot proof, no hooks.
struct BarrierBase {
  static constexpr bool handoff = false;  // true: the timed loop carries the proof too
  static constexpr bool drops = false;    // true: some participants leave after one arrival
  static constexpr bool twin = true;      // false: one kernel validates and is timed
  __host__ static size_t smem(const long long *axis) {
    return (size_t)axis[SB_AXIS_BLOCK] * 2 * sizeof(uint32_t);  // the proof slots
  }
  __device__ static BarrierRole role(int mode) { return barrier_role(mode); }
  __device__ void publish(const BarrierSlotProof &proof, int) const { proof.publish(); }
  __device__ unsigned proven(const BarrierSlotProof &proof, int) const { return proof.proven(); }
  __device__ void before_start() const {}
  __device__ void after_finish() const {}
  __device__ void leave() const {}
  __device__ unsigned result(unsigned ok) const { return ok; }
  __device__ uint32_t value() const { return 0; }  // thread 0's checked result
};

// Keeps a value alive without using it (an arrive's returned state).
__device__ __forceinline__ void barrier_sink(uint64_t v) { asm volatile("" ::"l"(v)); }

// The price list's wait for expect_tx_zero and tma_roundtrip: a
// try_wait.parity loop without a suspend hint (test_wait on sm_80), the same
// instruction and loop as the cuda::ptx spelling (ptx_mbarrier_parity), so
// that the rows differ only in what they price. The watchdog bounds it in
// the validating kernel only.
template <bool Validate>
__device__ __forceinline__ void barrier_spin_wait(uint32_t bar, uint32_t parity) {
  unsigned long long wd_t0 = 0;
  while (!sb_mbar_probe(bar, parity)) sb_wd_poll_failed<Validate>(&wd_t0, bar, parity);
}

// Variants with no per-thread state.
template <class Self>
struct BarrierStateless : BarrierBase {
  __device__ static Self make(const BarrierParams &, const BarrierRole &) { return {}; }
};

#pragma nv_diag_suppress static_var_with_dynamic_init

typedef cuda::barrier<cuda::thread_scope_block> block_barrier;

// The participants' cuda::barrier<thread_scope_block>, made by thread 0.
__device__ __forceinline__ block_barrier *barrier_block_barrier(unsigned count) {
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, count);
  return &bar;
}

template <class Self>
struct BarrierOnBlockBarrier : BarrierBase {
  block_barrier *bar;
  __device__ static Self make(const BarrierParams &, const BarrierRole &r) {
    Self op{};
    op.bar = barrier_block_barrier(r.count);
    return op;
  }
};

// The participants' mbarrier (inline PTX helpers), made by thread 0, and
// the phase parity each thread tracks.
template <class Self>
struct BarrierOnMbarrier : BarrierBase {
  uint32_t bar, parity;
  __device__ static Self make(const BarrierParams &, const BarrierRole &r) {
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) sb_mbar_init(&bar, r.count);
    Self op{};
    op.bar = sb_mbar_addr(&bar);
    op.parity = 0;
    return op;
  }
};

// ---- family `barrier`: block-scope primitives (and grid_sync) ----

struct barrier_op_syncthreads : BarrierStateless<barrier_op_syncthreads> {
  __device__ static BarrierRole role(int) { return barrier_role(SB_PART_ALL); }  // check hook
  template <bool Validate>
  __device__ void sync() const {
    __syncthreads();
  }
};
// publish; __syncthreads; read the partner's slot: timed with the proof.
// The proof is the measurement and there is no spin to bound: one kernel.
struct barrier_op_syncthreads_handoff : barrier_op_syncthreads {
  static constexpr bool handoff = true;
  static constexpr bool twin = false;
};

struct barrier_op_syncwarp : BarrierStateless<barrier_op_syncwarp> {
  __device__ static BarrierRole role(int mode) {  // all: every warp on its own; warp: warp 0
    BarrierRole r = barrier_role(mode);
    const int t = threadIdx.x;
    r.partner = (t & ~31) | ((t + 1) & 31);  // a lane of the same warp
    return r;
  }
  template <bool Validate>
  __device__ void sync() const {
    __syncwarp();
  }
};

// all: two half-blocks, each on its own barrier id; warp: warp 0 on id 1.
struct barrier_op_named_barrier : BarrierBase {
  int id;
  unsigned count;
  __device__ static BarrierRole role(int mode) {
    BarrierRole r = barrier_role(mode);
    if (mode == SB_PART_ALL) {
      const int t = threadIdx.x, half = blockDim.x / 2, base = t >= half ? half : 0;
      r.count = half;
      r.partner = base + (t - base + (half > 32 ? 32 : 1)) % half;
    }
    return r;
  }
  __device__ static barrier_op_named_barrier make(const BarrierParams &a, const BarrierRole &r) {
    const int id = a.mode == SB_PART_ALL && threadIdx.x >= blockDim.x / 2 ? 2 : 1;
    return {{}, id, r.count};
  }
  template <bool Validate>
  __device__ void sync() const {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
  }
};

struct barrier_op_cg_block_sync : BarrierStateless<barrier_op_cg_block_sync> {
  __device__ static BarrierRole role(int) { return barrier_role(SB_PART_ALL); }
  template <bool Validate>
  __device__ void sync() const {
    cg::this_thread_block().sync();
  }
};

struct barrier_op_cuda_barrier_arrive_wait
    : BarrierOnBlockBarrier<barrier_op_cuda_barrier_arrive_wait> {
  template <bool Validate>
  __device__ void sync() const {
    block_barrier::arrival_token tok = bar->arrive();
    bar->wait(cuda::std::move(tok));
  }
};

struct barrier_op_cuda_barrier_arrive_and_wait
    : BarrierOnBlockBarrier<barrier_op_cuda_barrier_arrive_and_wait> {
  template <bool Validate>
  __device__ void sync() const {
    bar->arrive_and_wait();
  }
};

// cuda::ptx spelling: mbarrier.arrive, then a try_wait.parity loop (sm_90;
// try_wait does not exist before sm_90, so sm_80 polls test_wait.parity).
// Like the other spelling variants, its wait loop is the thing measured, so
// it does not go through sb_mbar_wait_parity(); the validating kernel adds
// a watchdog check after each failed poll.
struct barrier_op_ptx_mbarrier_parity : BarrierBase {
  uint64_t *bar;
  uint32_t parity;
  __device__ static barrier_op_ptx_mbarrier_parity make(const BarrierParams &,
                                                        const BarrierRole &r) {
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, r.count);
    return {{}, &bar, 0u};
  }
  template <bool Validate>
  __device__ void sync() {
    barrier_sink(cuda::ptx::mbarrier_arrive(bar));
    unsigned long long wd_t0 = 0;
#if __CUDA_ARCH__ >= 900
    while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity))
      sb_wd_poll_failed<Validate>(&wd_t0, sb_smem_addr(bar), parity);
#else
    while (!cuda::ptx::mbarrier_test_wait_parity(bar, parity))
      sb_wd_poll_failed<Validate>(&wd_t0, sb_smem_addr(bar), parity);
#endif
    parity ^= 1;
  }
};

// publish; arrive + try_wait.parity; read the partner's slot: timed with
// the proof (the mbarrier counterpart of syncthreads_handoff).
struct barrier_op_ptx_mbarrier_handoff : barrier_op_ptx_mbarrier_parity {
  static constexpr bool handoff = true;
};

// cuda_awbarrier_primitives.h spelling: token arrive, token try_wait (sm_90;
// __mbarrier_try_wait aborts before sm_90, so sm_80 polls __mbarrier_test_wait).
#define BARRIER_TRY_WAIT_HINT_NS 1000u  // suspend-time hint; a completed phase wakes it
struct barrier_op_primitives_mbarrier : BarrierBase {
  __mbarrier_t *bar;
  uint32_t parity;  // only names the phase in a watchdog report
  __device__ static barrier_op_primitives_mbarrier make(const BarrierParams &,
                                                        const BarrierRole &r) {
    __shared__ __mbarrier_t bar;
    if (threadIdx.x == 0) __mbarrier_init(&bar, r.count);
    return {{}, &bar, 0u};
  }
  template <bool Validate>
  __device__ void sync() {
    __mbarrier_token_t tok = __mbarrier_arrive(bar);
    unsigned long long wd_t0 = 0;
#if __CUDA_ARCH__ >= 900
    while (!__mbarrier_try_wait(bar, tok, BARRIER_TRY_WAIT_HINT_NS))
      sb_wd_poll_failed<Validate>(&wd_t0, sb_smem_addr(bar), parity);
#else
    while (!__mbarrier_test_wait(bar, tok)) sb_wd_poll_failed<Validate>(&wd_t0, sb_smem_addr(bar), parity);
#endif
    parity ^= 1;
  }
};

// Inline PTX arrive, then a pure polling loop on test_wait.parity (never
// suspends), on every architecture.
struct barrier_op_mbarrier_test_wait_poll
    : BarrierOnMbarrier<barrier_op_mbarrier_test_wait_poll> {
  template <bool Validate>
  __device__ void sync() {
    sb_mbar_arrive(bar);
    unsigned long long wd_t0 = 0;
    while (!sb_mbar_test_wait(bar, parity)) sb_wd_poll_failed<Validate>(&wd_t0, bar, parity);
    parity ^= 1;
  }
};

// mbarrier.arrive.expect_tx with a transaction count of 0: the arrive that
// TMA consumers use, with no copy behind it (sm_90).
struct barrier_op_expect_tx_zero : BarrierOnMbarrier<barrier_op_expect_tx_zero> {
  template <bool Validate>
  __device__ void sync() {
    sb_mbar_arrive_expect_tx(bar, 0);
    barrier_spin_wait<Validate>(bar, parity);
    parity ^= 1;
  }
};

// Half of the participants arrive_and_drop() in phase 0 and leave the loop;
// the other half (thread 0 among them) run the loop with arrive_and_wait().
// What the drop costs the stayers: compare with cuda_barrier_arrive_and_wait
// at half the participants.
struct barrier_op_arrive_and_drop : BarrierOnBlockBarrier<barrier_op_arrive_and_drop> {
  static constexpr bool drops = true;
  __device__ static BarrierRole role(int mode) {
    BarrierRole r = barrier_role(mode);
    const int t = threadIdx.x, n = blockDim.x, warp = t >> 5, warps = n >> 5;
    if (mode == SB_PART_ALL) {
      const int half = n / 2;
      r.stay = t < half;
      r.partner = (t + (half > 32 ? 32 : 1)) % half;
    } else if (mode == SB_PART_WARP) {
      r.stay = t < 16;
      r.partner = (t + 1) % 16;
    } else {
      r.stay = warp < warps / 2;
      r.partner = ((warp + 1) % (warps / 2)) * 32;
    }
    r.report = r.on && r.stay;
    return r;
  }
  template <bool Validate>
  __device__ void sync() const {
    bar->arrive_and_wait();
  }
  __device__ void leave() const { (void)bar->arrive_and_drop(); }  // counts for phase 0 only
};

// A completion function runs once per phase (by the last arriver, before
// anyone is released): it counts phases, and every validating waiter
// checks the count.
struct barrier_phase_counter {
  unsigned *phases;
  __device__ void operator()() noexcept { *phases += 1; }
};
typedef cuda::barrier<cuda::thread_scope_block, barrier_phase_counter> counting_barrier;

struct barrier_op_completion_function : BarrierBase {
  counting_barrier *bar;
  const unsigned *phases;
  __device__ static barrier_op_completion_function make(const BarrierParams &,
                                                        const BarrierRole &r) {
    __shared__ counting_barrier bar;
    __shared__ unsigned phases;
    if (threadIdx.x == 0) {
      phases = 0;
      init(&bar, r.count, barrier_phase_counter{&phases});
    }
    return {{}, &bar, &phases};
  }
  template <bool Validate>
  __device__ void sync() const {
    bar->arrive_and_wait();
  }
  __device__ unsigned proven(const BarrierSlotProof &proof, int p) const {
    return proof.proven() & (*phases == (unsigned)p + 1u);
  }
};

// Shared-memory load latency: no synchronization at all. The calibration
// rows for the published microbenchmark figures (pointer chases): each
// participating thread follows a dependent chain of ld.shared through
// SB_BARRIER_CHASE_SLOTS(block) words (slot i -> slot i+1, wrapping: a
// warp's 32 lanes hit 32 consecutive words mod a multiple of 32, so no bank
// conflict), one hop per loop trip and nothing else.
//   smem_latency       the chain holds word indices, j = s[j]: what the
//                      published P-chase (Jia et al., Luo et al.) compiles
//                      to, one index-to-address step (LEA) + one LDS per hop
//   smem_latency_bare  the chain holds shared-window byte addresses,
//                      a = *a: one bare LDS per hop, the load-to-use latency
// The chain's length has an odd factor, so after `iters` hops (a power of
// two in the sweeps) a thread is not back where it started: each thread
// reports how far it went, (end - start) mod length, once, after the clock
// stops, and the host compares that with iters mod length. No proof slots,
// so one kernel validates and is timed.
template <bool ByIndex>
struct barrier_op_smem_chase : BarrierBase {
  static constexpr bool twin = false;
  uint32_t base, n, at;  // at: the current word's index (ByIndex) or byte address
  __host__ static size_t smem(const long long *axis) {
    return (size_t)SB_BARRIER_CHASE_SLOTS(axis[SB_AXIS_BLOCK]) * sizeof(uint32_t);
  }
  __device__ static barrier_op_smem_chase make(const BarrierParams &, const BarrierRole &) {
    uint32_t *slot = barrier_slots();
    const uint32_t n = SB_BARRIER_CHASE_SLOTS(blockDim.x), base = sb_smem_addr(slot);
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
      const uint32_t next = i + 1u == n ? 0u : i + 1u;
      slot[i] = ByIndex ? next : base + 4u * next;
    }
    // the start line's __syncthreads publishes the chain
    return {{}, base, n, ByIndex ? (uint32_t)threadIdx.x : base + 4u * threadIdx.x};
  }
  template <bool Validate>
  __device__ void sync() {
    if constexpr (ByIndex)  // the address is recomputed from the index every hop
      asm volatile("{ .reg .u32 a; mad.lo.u32 a, %0, 4, %1; ld.shared.u32 %0, [a]; }"
                   : "+r"(at) : "r"(base) : "memory");
    else
      asm volatile("ld.shared.u32 %0, [%0];" : "+r"(at)::"memory");
  }
  // Both kernels are the bare chase: no per-hop proof.
  __device__ void publish(const BarrierSlotProof &, int) const {}
  __device__ unsigned proven(const BarrierSlotProof &, int) const { return 1; }
  __device__ unsigned result(unsigned) const {
    const uint32_t word = ByIndex ? at : (at - base) / 4u;
    return (word + n - threadIdx.x) % n;  // hops mod the chain's length
  }
};
// Types of their own (not aliases), so that each row's kernel carries the
// row's name in its symbol (scripts/sass_sync.py reads rows from the SASS).
struct barrier_op_smem_latency : barrier_op_smem_chase<true> {};
struct barrier_op_smem_latency_bare : barrier_op_smem_chase<false> {};

// Cooperative-groups grid barrier over a cooperative launch. Every thread
// takes part; thread 0 of each block proves it: publishes a tag in global
// memory, grid.sync(), reads the next block's tag (volatile: L1 is not
// coherent across SMs).
struct barrier_op_grid_sync : BarrierBase {
  volatile uint32_t *x;
  __host__ static size_t smem(const long long *) { return 0; }  // proof slots in global memory
  __device__ static BarrierRole role(int) {
    BarrierRole r = barrier_role(SB_PART_ALL);
    r.report = threadIdx.x == 0;
    return r;
  }
  __device__ static barrier_op_grid_sync make(const BarrierParams &a, const BarrierRole &) {
    return {{}, (volatile uint32_t *)(a.out + sizeof(sb_barrier_head) +
                                      SB_BARRIER_MAX_BLOCKS * sizeof(sb_barrier_rec))};
  }
  __device__ void before_start() const { cg::this_grid().sync(); }  // every block resident
  template <bool Validate>
  __device__ void sync() const {
    cg::this_grid().sync();
  }
  __device__ void publish(const BarrierSlotProof &, int p) const {
    if (threadIdx.x == 0) x[(p & 1) * SB_BARRIER_MAX_BLOCKS + blockIdx.x] = barrier_tag(p, blockIdx.x);
  }
  __device__ unsigned proven(const BarrierSlotProof &, int p) const {
    const unsigned next = (blockIdx.x + 1) % gridDim.x;
    return threadIdx.x != 0 || x[(p & 1) * SB_BARRIER_MAX_BLOCKS + next] == barrier_tag(p, next);
  }
};

// ---- between SMs: flags through L2, the look-back, kernel boundaries ----
// The prices devscan's protocols are built of (docs/devscan.md), timed with
// devscan's own flag code (kernels/common/lookback.cuh, DevFlags). Thread 0 (or
// warp 0) of a block takes part; participants must be all.

// flag_handoff(_relaxed): a ping-pong on two packed flag words 128 bytes
// apart, round r carrying token r + 1:
//   side 0: publish ping (P, r+1); wait until pong == (P, r+1)
//   side 1: wait until ping == (P, r+1); publish pong (P, r+1)
// Each round is a round trip, two one-way hand-offs through L2 (derive
// halves it). Pol: DevLookAcqRel (st.release.gpu / ld.acquire.gpu: devscan's
// chained and lookback) or DevLookRelaxed (st/ld.relaxed.gpu: its
// lookback_relaxed).
//
// Where the two sides run and where the flags live set the price (the L2
// slice of the flag's line, the SMs' distance to it), so one pair at one
// address is one draw of a map. The launch is one block per SM
// (cooperative, padded past half an SM's shared memory: every block
// resident, one per SM, nobody waits on a block that has not started), and
// thread 0 of each block plays the probes that name its SM's rank
// (barrier_layout.h: sb_handoff_pair, sb_handoff_place), one probe at a
// time: the `step` word says which probe may run, and the two players of
// probe j wait for step == j (acquire; a block whose turn is further off
// sleeps 8 us between polls, the next pair polls every 100 ns, so the
// waiting blocks put next to no traffic on the L2 while a pair plays).
// Side 0 moves step on (release) after its last round, when side 1 has
// published its last flag. Each side times its own `iters` rounds after
// SB_HANDOFF_WARMUP untimed ones (the flags' lines fetched, both players
// in), and keeps its fastest launch per probe.
//
// The validating twin bounds every wait with the watchdog (step's wait
// restarts the clock whenever step moves: only a stalled sweep is a
// deadlock). With release/acquire it also hands data over beside the flag:
// each side stores a tag in its payload slot (a plain st.global) before its
// flag and checks the other side's after its wait (a plain ld.global),
// which only the release/acquire pair makes safe. The slots alternate by
// round: a side rewrites one two rounds later, after its reader's next
// flag. Relaxed carries nothing beside the word (as lookback_relaxed): its
// proof is the token itself. LoseToken: the planted bug (side 1 waits for a
// token side 0 never sends).
#define BARRIER_PING 0   // u64 words of a probe's place
#define BARRIER_PONG 16  // the next 128-byte line
#define BARRIER_DATA 64  // u32 words: side s's slot k at BARRIER_DATA + 32 s + k

// The gate proof's plant (make PLANT_SLOWDOWN=1): a spin of `cycles` SM
// clocks on the critical path of flag_handoff's round trip (100) and of
// the stream and graph rows' kernels. A graph launches its nodes at a pace
// of its own, and a spin shorter than the slack under that pace slows
// nothing, so the two rows take their spins apart: SB_PLANT_SPIN=S,G
// cycles (default SB_PLANT_SPIN_DEFAULT), read by the plant build alone.
#ifdef SB_PLANT_SLOWDOWN
__device__ __forceinline__ void barrier_plant_spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}
#define SB_PLANT_SPIN_DEFAULT "300,400"  // measured on an H200: the spins nearest +7% (docs/history.md)
static int barrier_plant_cycles(int graph) {
  static int spin[2] = {-1, -1};
  if (spin[0] < 0) {
    const char *env = getenv("SB_PLANT_SPIN");
    if (!env || sscanf(env, "%d,%d", &spin[0], &spin[1]) != 2 || spin[0] < 0 || spin[1] < 0)
      sscanf(SB_PLANT_SPIN_DEFAULT, "%d,%d", &spin[0], &spin[1]);
  }
  return spin[graph != 0];
}
#endif

template <class Pol, bool LoseToken, bool Validate>
__device__ __forceinline__ void barrier_handoff_round(const DevFlags<Pol, Validate> &f, int side,
                                                      uint32_t token) {
  const unsigned long long want = SB_FLAG_WORD(SB_FLAG_P, token);
  if (side == 0) {
    f.publish(BARRIER_PING, SB_FLAG_P, token);
    f.wait_for(BARRIER_PONG, want);
  } else {
    f.wait_for(BARRIER_PING, LoseToken ? want + 1 : want);
#ifdef SB_PLANT_SLOWDOWN
    if constexpr (std::is_same<Pol, DevLookAcqRel>::value) barrier_plant_spin(100);  // flag_handoff only
#endif
    f.publish(BARRIER_PONG, SB_FLAG_P, token);
  }
}

template <bool Bounded>
__device__ __forceinline__ void barrier_handoff_turn(const unsigned *step, unsigned j) {
  unsigned s, seen = 0xffffffffu;
  unsigned long long t0 = 0;
  for (;;) {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(s) : "l"(step) : "memory");
    if (s >= j) return;
    __nanosleep(j - s > 1 ? 8000 : 100);
#if SB_WATCHDOG
    if constexpr (Bounded) {
      if (s != seen) t0 = 0;  // the sweep moved: a new wait
      sb_wd_check(sb_wd_now_ns(), &t0, 0u, 0u, (int)j);
    }
#endif
    seen = s;
    (void)t0, (void)seen;
  }
}

template <class Pol, bool LoseToken, bool Validate>
__global__ void __launch_bounds__(SB_BARRIER_MAX_THREADS) barrier_handoff_kernel(const BarrierParams a) {
  sb_barrier_head *head = (sb_barrier_head *)a.out;
  uint32_t *smids = (uint32_t *)((sb_barrier_rec *)(head + 1) + SB_BARRIER_MAX_BLOCKS);
  unsigned *step = smids + SB_HANDOFF_MAX_SMS;
  sb_handoff_probe *probe = (sb_handoff_probe *)(a.out + SB_HANDOFF_PROBE_OFFSET);
  unsigned char *area = a.out + SB_HANDOFF_AREA_OFFSET;
  const int n = (int)gridDim.x, probes = sb_handoff_probes(n);
  const uint32_t me = barrier_smid();
  if (threadIdx.x == 0) {  // every probe's flags back to X, the sweep to probe 0
    smids[blockIdx.x] = me;
    for (int j = (int)blockIdx.x; j < probes; j += n) {
      unsigned long long *w = (unsigned long long *)(area + sb_handoff_place(j));
      w[BARRIER_PING] = w[BARRIER_PONG] = 0;
    }
    if (blockIdx.x == 0) *step = 0;
  }
  cg::this_grid().sync();  // every SM's id and every flag published
  if (threadIdx.x != 0) return;
  int rank = 0;
  for (int b = 0; b < n; ++b) rank += smids[b] < me;
  for (int j = 0; j < probes; ++j) {
    int ra, rb;
    sb_handoff_pair(j, n, &ra, &rb);
    const int side = rank == ra ? 0 : rank == rb ? 1 : -1;
    if (side < 0) continue;
    barrier_handoff_turn<Validate>(step, (unsigned)j);
    unsigned long long *w = (unsigned long long *)(area + sb_handoff_place(j));
    uint32_t *data = (uint32_t *)w;
    const DevFlags<Pol, Validate> f{w, 0};
    uint32_t token = 0;
    for (int i = 0; i < SB_HANDOFF_WARMUP; ++i) barrier_handoff_round<Pol, LoseToken>(f, side, ++token);
    unsigned ok = 0;
    const long long t0 = clock64();
    if constexpr (Validate) {
      for (int p = 0; p < a.iters; ++p) {
        if constexpr (!Pol::relaxed) data[BARRIER_DATA + 32 * side + (p & 1)] = barrier_tag(p, side);
        barrier_handoff_round<Pol, LoseToken>(f, side, ++token);
        if constexpr (Pol::relaxed)
          ++ok;  // the token in the word: wait_for checked it
        else
          ok += data[BARRIER_DATA + 32 * (side ^ 1) + (p & 1)] == barrier_tag(p, side ^ 1);
      }
    } else {
#pragma unroll 4
      for (int p = 0; p < a.iters; ++p) barrier_handoff_round<Pol, LoseToken>(f, side, ++token);
      ok = token - SB_HANDOFF_WARMUP;
    }
    const long long cycles = clock64() - t0;
    if (side == 0)  // side 1 has published its last flag: the next pair may play
      asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(step), "r"((unsigned)j + 1u) : "memory");
    atomicMin(&probe[j].cycles[side], (unsigned long long)cycles);
    probe[j].smid[side] = me;
    probe[j].rounds[side] = ok;
  }
  if (blockIdx.x == 0) {
    head->grid_blocks = gridDim.x;
    head->iters = (uint32_t)a.iters;
    head->magic = SB_BARRIER_MAGIC;
    head->pad = 0;
  }
}

// lookback_walk_<W>: warp 0 of every block runs devscan's look-back
// (DevFlags<DevLookAcqRel>::look_back: the `lookback` row's protocol) over
// status words whose nearest P lies exactly W words back: 32 words per
// window (lane k reads word i - k with ld.acquire.gpu), and each window an
// L2 round trip whose outcome decides whether there is a next, so W words
// cost ceil(W / 32) windows back to back. The words are the host's input,
// read-only (kernels/families/barrier_layout.h: a copy per block mod 64, guard A
// words before the P): no X, so no spin and no sleep (devscan sleeps
// 3000 ns before a look-back of a grid of 500+ tiles: policy, not the walk).
// Thread 0 reports the sum of its look-backs' prefixes; the host checks it
// against iters x the copy's prefix, mod 2^32. The timed loop is the same
// look-back back to back (each result summed, one add).
template <int W, class Self>
struct BarrierWalk : BarrierBase {
  static_assert(W >= 1 && W <= SB_BARRIER_WALK_MAX && (W & (W - 1)) == 0,
                "walk length: a power of two (its log2 rides in the row's flags)");
  unsigned long long *words;  // this block's copy
  uint32_t sum;
  __host__ static size_t smem(const long long *) { return 0; }
  __device__ static BarrierRole role(int) {
    BarrierRole r = barrier_role(SB_PART_WARP);  // the look-back is warp-wide
    r.report = threadIdx.x == 0;
    return r;
  }
  __device__ static Self make(const BarrierParams &a, const BarrierRole &) {
    Self op{};
    op.words = (unsigned long long *)a.in +
               (blockIdx.x % SB_BARRIER_WALK_COPIES) * SB_BARRIER_WALK_STRIDE(W);
    op.sum = 0;
    return op;
  }
  template <bool Validate>
  __device__ void sync() {
    const DevFlags<DevLookAcqRel, Validate> f{words, 0};  // count 0: no sleeps
    sum += f.look_back(SB_BARRIER_WALK_GUARD + W);
  }
  __device__ void publish(const BarrierSlotProof &, int) const {}
  __device__ unsigned proven(const BarrierSlotProof &, int) const { return 1; }
  __device__ uint32_t value() const { return sum; }
};
struct barrier_op_lookback_walk_1 : BarrierWalk<1, barrier_op_lookback_walk_1> {};
struct barrier_op_lookback_walk_32 : BarrierWalk<32, barrier_op_lookback_walk_32> {};
struct barrier_op_lookback_walk_64 : BarrierWalk<64, barrier_op_lookback_walk_64> {};
struct barrier_op_lookback_walk_256 : BarrierWalk<256, barrier_op_lookback_walk_256> {};

// kernel_boundary_stream / kernel_boundary_graph / kernel_boundary_pdl: a
// kernel boundary, the barrier of devscan's three_kernel, timed by the host:
// a sample is `iters` launches of an EMPTY kernel back to back in the
// runner's stream between its two events (stream), or one launch of a CUDA
// graph of `iters` such kernel nodes, captured and instantiated before any
// timing (graph), or `iters` launches in the stream, each a programmatic
// dependent launch (pdl: cudaLaunchAttributeProgrammaticStreamSerialization,
// kernels/common/pdl.cuh) of a kernel that is empty but for the PDL protocol; per
// boundary = the median sample / iters (bench/barrier.c's derive). The grid:
// block_threads x SMs (one_block_per_sm) or x SMs x blocks per SM
// (full_occupancy), no shared-memory padding. The validating twin is the
// same sequence (the same kind of graph, the same PDL launches) of counting
// kernels: thread 0 of block b of kernel i checks the tag that block b + 1
// (mod the grid) of kernel i - 1 left in the exchange slots (plain loads and
// stores: the boundary is the only barrier between them), counts it, and
// leaves its own tag; every block must count `iters`.
struct BoundaryParams {
  unsigned char *out;
  int i;  // the kernel's place in the sequence
#ifdef SB_PLANT_SLOWDOWN
  int plant_cycles;  // the plant's spin (barrier_plant_cycles)
#endif
};

// Pdl: every thread first triggers its dependents (the next kernel of the
// sequence may launch: it has no prologue of its own, so the earliest point
// is the right one), then waits for this kernel's predecessor to complete
// and flush. Only after that wait may the counting twin read the tag kernel
// i - 1 left, and only after it may it overwrite the slots of parity i,
// which kernel i - 1 read those of kernel i - 2 from: without the wait, a
// block of kernel i that starts while kernel i - 1 still runs (what PDL
// allows once every block of kernel i - 1 has triggered) would read a
// stale tag and miss a boundary. So the twin proves the protocol, not only
// the count. Nothing spins: griddepcontrol.wait is the one wait, and it
// waits on a grid whose blocks have all started (pdl.cuh).
template <bool Pdl, bool Validate>
__global__ void __launch_bounds__(SB_BARRIER_MAX_THREADS) barrier_boundary_kernel(const BoundaryParams a) {
  if constexpr (Pdl) {
#if __CUDA_ARCH__ >= 900
    sb_pdl_launch_dependents();
    sb_pdl_wait();
#else
    __trap();  // min_cc 90: never launched below sm_90 (or from compute_80 PTX)
#endif
  }
#ifdef SB_PLANT_SLOWDOWN
  if constexpr (!Pdl && !Validate) barrier_plant_spin(a.plant_cycles);  // the stream and graph rows
#endif
  if constexpr (Validate) {
    if (threadIdx.x != 0) return;
    sb_barrier_head *head = (sb_barrier_head *)a.out;
    sb_barrier_rec *recs = (sb_barrier_rec *)(head + 1), *rec = recs + blockIdx.x;
    uint32_t *x = (uint32_t *)(recs + SB_BARRIER_MAX_BLOCKS);  // exchange[2][MAX_BLOCKS]
    const int b = (int)blockIdx.x, next = (b + 1) % (int)gridDim.x;
    unsigned ok = 1;  // kernel 0 has no predecessor to check
    if (a.i > 0)
      ok = rec->ok_min + (x[((a.i - 1) & 1) * SB_BARRIER_MAX_BLOCKS + next] == barrier_tag(a.i - 1, next));
    x[(a.i & 1) * SB_BARRIER_MAX_BLOCKS + b] = barrier_tag(a.i, b);
    rec->ok_min = rec->ok_max = ok;
    rec->reporters = 1;
    rec->value = 0;
    if (b == 0) {
      head->grid_blocks = gridDim.x;
      head->iters = (uint32_t)a.i + 1u;
      head->magic = SB_BARRIER_MAGIC;
      head->pad = 0;
    }
  }
}

// ---- family `barrier_tma`: one thread, one bulk copy, one wait ----

// Thread 0 copies `bytes` from alternating halves of its block's own source
// pair (sb_barrier_tma_pairs: the launch's copies spread over the L2) into shared memory
// with cp.async.bulk, completing on an mbarrier (expect_tx == bytes, one
// arrival), and waits. Validating: it also checks the first and last word
// against the half it asked for (a stale or partial copy would hold the
// other half's words), then fence.proxy.async: generic reads before the next
// copy overwrites the buffer (docs/pipeline.md, "Proxy fences"). The timed
// loop reads nothing of the buffer, so it needs no proxy fence: copy, wait, copy.
// The two TMA round trips' copy: `bytes` from alternating halves of the
// input, and the validating twin's check of what landed (the halves' first
// and last words, scalars: no stack), then fence.proxy.async: generic reads
// before the next copy overwrites the buffer (docs/pipeline.md, "Proxy fences").
struct BarrierCopyHalves {
  const uint32_t *src;
  uint32_t bytes;
  uint32_t first0, first1, last0, last1;
  // thread 0's words; every thread's src, bytes. The block's own pair of
  // halves (sb_barrier_tma_pairs): blocks of one cluster of `cluster` share it.
  __device__ void init(const BarrierParams &a, unsigned cluster) {
    const int words = a.bytes / 4;
    src = a.in + (size_t)(blockIdx.x / cluster % sb_barrier_tma_pairs(a.bytes)) * 2 * words;
    if (threadIdx.x == 0) {
      first0 = src[0], first1 = src[words];
      last0 = src[words - 1], last1 = src[2 * words - 1];
    }
    bytes = (uint32_t)a.bytes;
  }
  __device__ const uint32_t *half(uint32_t parity) const { return src + parity * (bytes / 4); }
  __device__ unsigned check(int p) const {
    const uint32_t *dst = (const uint32_t *)barrier_dyn;
    const bool odd = p & 1;
    const unsigned ok = (dst[0] == (odd ? first1 : first0)) & (dst[bytes / 4 - 1] == (odd ? last1 : last0));
    sb_fence_proxy_async_shared();  // generic reads, then a TMA overwrite: docs/pipeline.md, "Proxy fences"
    return ok;
  }
};

struct barrier_op_tma_roundtrip : BarrierBase {
  BarrierCopyHalves copy;
  uint32_t bar, parity;
  __host__ static size_t smem(const long long *axis) { return (size_t)axis[SB_AXIS_BUFFER_BYTES]; }
  __device__ static BarrierRole role(int) {
    BarrierRole r = barrier_role(SB_PART_ALL);
    r.on = r.report = threadIdx.x == 0;
    return r;
  }
  __device__ static barrier_op_tma_roundtrip make(const BarrierParams &a, const BarrierRole &) {
    __shared__ __align__(8) uint64_t bar;
    barrier_op_tma_roundtrip op{};
    if (threadIdx.x == 0) {
      sb_mbar_init(&bar, 1);
      sb_fence_mbarrier_init();  // the copy engine's complete_tx is the first async-proxy use
    }
    op.copy.init(a, 1);
    op.bar = sb_mbar_addr(&bar);
    return op;
  }
  template <bool Validate>
  __device__ void sync() {
    sb_mbar_arrive_expect_tx(bar, copy.bytes);
    sb_bulk_copy_g2s(barrier_dyn, copy.half(parity), copy.bytes, bar);  // halves alternate
    barrier_spin_wait<Validate>(bar, parity);
    parity ^= 1;
  }
  __device__ void publish(const BarrierSlotProof &, int) const {}
  __device__ unsigned proven(const BarrierSlotProof &, int p) const { return copy.check(p); }
};

// ---- family `barrier_cluster`: barrier.cluster.arrive + wait ----

// Every thread of every block of the cluster arrives (release) and waits
// (acquire) each phase. Validating: each thread then reads its own slot
// index in the next block's shared memory (DSMEM).
struct barrier_op_cluster_barrier : BarrierBase {
  const uint32_t *peer;  // my slot's twin in the next block's shared memory
  __device__ static BarrierRole role(int) { return barrier_role(SB_PART_ALL); }
  __device__ static barrier_op_cluster_barrier make(const BarrierParams &, const BarrierRole &) {
#if __CUDA_ARCH__ >= 900
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
    return {{}, cluster.map_shared_rank(barrier_slots(), (rank + 1) % size) + threadIdx.x};
#else
    __trap();  // min_cc 90: never launched there
    return {};
#endif
  }
  // Every block of the cluster has started (its smem exists) / nobody
  // exits while a peer may still read its smem.
  __device__ void before_start() const { barrier_cluster_sync(); }
  __device__ void after_finish() const { barrier_cluster_sync(); }
  template <bool Validate>
  __device__ void sync() const {
#if __CUDA_ARCH__ >= 900
    cuda::ptx::barrier_cluster_arrive();
    cuda::ptx::barrier_cluster_wait();
#endif
  }
  __device__ unsigned proven(const BarrierSlotProof &proof, int) const {
    return peer[proof.off] == proof.my_tag;  // what my twin in the peer published
  }
  __device__ static void barrier_cluster_sync() {
#if __CUDA_ARCH__ >= 900
    cg::this_cluster().sync();
#endif
  }
};

// ---- cluster pipelines' prices: DSMEM hand-off, multicast round trip ----

// dsmem_handoff (family barrier_cluster): flag_handoff's ping-pong, but
// between the two CTAs of one cluster of 2 through distributed shared
// memory instead of L2. Each CTA owns one mbarrier (count 1: the peer's one
// arrival per phase) and one token word. Warp 0 of each CTA plays a side:
//   rank 0: hand (remote arrive on rank 1's barrier); take (wait on its own)
//   rank 1: take; hand
// take: every lane of warp 0 waits on its own barrier with
// try_wait.parity.acquire.cluster and flips the parity (one phase per trip);
// hand: __syncwarp (every lane is past its wait, so no lane can still be
// polling a phase the peer's next arrive would start over), then lane 0
// alone (one elected thread of a converged warp) arrives on the peer's
// barrier: mbarrier.arrive.release.cluster.shared::cluster via mapa.
// Each loop trip is a round trip, two one-way hand-offs: the launch is one
// cluster of 2 (SB_BARRIER_VF_PAIR | SB_BARRIER_VF_CLUSTER: two blocks,
// padded to one per SM, no cooperative launch: a cluster is co-scheduled),
// and derive halves it, as for flag_handoff.
// Rules:
//  - each CTA's thread 0 initializes its own barrier (and zeroes its token),
//    then fence.mbarrier_init.release.cluster; then a cluster barrier
//    (arrive.release + wait.acquire, every thread) before any remote arrive;
//  - parity tracked per side, flipped after each wait;
//  - a cluster barrier after the loop, before exit: no CTA exits while its
//    peer may still arrive on its barrier or store into its token;
//  - warp 0 converged around each hand; one thread arrives.
// Validating twin: the hand-off carries data. Lane 0 of the sender stores
// this trip's tag (barrier_tag(p, rank)) into the peer's token
// (st.shared::cluster via mapa) before its release-arrive; lane 0 of the
// receiver loads its own token after its acquire-wait, and the trip is
// proven if it holds the peer's tag for p. One token per side suffices: a
// side rewrites the peer's token only after taking the hand-off the peer
// sent after reading it. The waits run under the watchdog, so a lost
// arrive is a `deadlock` row. Both twins report, in `value`, how many
// hand-offs each side took (the host wants iters), and each side's SM.
struct barrier_op_dsmem_handoff : BarrierBase {
  unsigned char *x;    // the exchange area (SB_BARRIER_PAIR_SMID)
  uint32_t bar;        // my barrier (shared::cta)
  uint32_t peer_bar;   // the peer's barrier (shared::cluster)
  uint32_t token;      // my token word (shared::cta)
  uint32_t peer_token; // the peer's token word (shared::cluster)
  uint32_t rank, parity;
  uint32_t send, got;  // validating: the tag to send this trip, the token received
  uint32_t taken;      // hand-offs received
  __host__ static size_t smem(const long long *) { return 0; }  // the launcher pads it
  __device__ static BarrierRole role(int) {
    BarrierRole r = barrier_role(SB_PART_WARP);  // warp 0 plays the side
    r.report = threadIdx.x == 0;
    return r;
  }
  __device__ static barrier_op_dsmem_handoff make(const BarrierParams &a, const BarrierRole &) {
    __shared__ __align__(8) uint64_t bar;
    __shared__ uint32_t token;
    barrier_op_dsmem_handoff op{};
    op.rank = sb_cluster_rank();
    if (threadIdx.x == 0) {
      sb_mbar_init(&bar, 1);     // one arrival per phase: the peer's
      token = 0;                 // no tag is 0
      sb_fence_mbarrier_init();  // the init, visible to the peer's remote arrive
    }
    op.x = a.out + sizeof(sb_barrier_head) + SB_BARRIER_MAX_BLOCKS * sizeof(sb_barrier_rec);
    op.bar = sb_mbar_addr(&bar);
    op.token = sb_mbar_addr(&token);
    op.peer_bar = sb_mapa(op.bar, op.rank ^ 1u);
    op.peer_token = sb_mapa(op.token, op.rank ^ 1u);
    return op;
  }
  // Both barriers initialized before either side arrives on its peer's.
  __device__ void before_start() const { sb_cluster_sync(); }
  template <bool Validate>
  __device__ void hand() const {
    __syncwarp();
    if (threadIdx.x == 0) {
      if constexpr (Validate) sb_st_cluster_u32(peer_token, send);  // before the release
      sb_mbar_arrive_remote(peer_bar);
    }
  }
  template <bool Validate>
  __device__ void take() {
    unsigned long long wd_t0 = 0;
    while (!sb_mbar_try_wait_cluster(bar, parity)) sb_wd_poll_failed<Validate>(&wd_t0, bar, parity);
    parity ^= 1;
    ++taken;
    if constexpr (Validate) got = sb_lds_u32(token);  // after the acquire
  }
  template <bool Validate>
  __device__ void sync() {
    if (rank == 0) {
      hand<Validate>();
      take<Validate>();
    } else {
      take<Validate>();
      hand<Validate>();
    }
  }
  __device__ void publish(const BarrierSlotProof &, int p) { send = barrier_tag(p, (int)rank); }
  __device__ unsigned proven(const BarrierSlotProof &, int p) const {
    return got == barrier_tag(p, (int)(rank ^ 1u));
  }
  __device__ uint32_t value() const { return taken; }
  // Which SM each side ran on (the host checks they differ), then nobody
  // exits while the peer may still touch its barrier or token.
  __device__ void after_finish() const {
    if (threadIdx.x == 0) ((uint32_t *)x)[SB_BARRIER_PAIR_SMID + blockIdx.x] = barrier_smid();
    sb_cluster_sync();
  }
};

// tma_multicast_roundtrip (family barrier_tma): tma_roundtrip's copy as one
// multicast to a cluster of 2. Per op, every thread of both CTAs first
// passes a cluster barrier (arrive.release + wait.acquire): the copy about
// to be issued overwrites the peer's buffer and starts the peer's barrier's
// next phase, so the peer must be done with the last one (its wait, and in
// the validating twin its reads and proxy fence). Then thread 0 of each CTA
// arrives on its own barrier with expect_tx(bytes), and thread 0 of rank 0
// issues one cp.async.bulk ... .multicast::cluster of `bytes` with ctaMask
// 0b11: each CTA receives `bytes` and its barrier a complete_tx of `bytes`,
// so each expect_tx counts what the multicast delivers to THAT CTA (not
// 2 x bytes). The peer's expect_tx may come after the copy's complete_tx
// reached its barrier: the phase's tx-count goes negative meanwhile, and the
// phase cannot complete before the peer's arrival. Both thread 0s wait.
// The price is one multicast round trip plus one cluster barrier (compare
// tma_roundtrip + cluster_barrier at cluster 2). Rules as dsmem_handoff's:
// own barrier, fence.mbarrier_init, a cluster barrier before the first copy
// and before exit; the others take part in every cluster barrier, which
// counts every thread of the cluster. Validating: each thread 0 checks the
// first and last word of its copy against the half it expected, then
// fence.proxy.async before the next cluster barrier and copy
// (docs/pipeline.md, "Proxy fences").
struct barrier_op_tma_multicast_roundtrip : BarrierBase {
  BarrierCopyHalves copy;
  uint32_t bar, parity, rank;
  __host__ static size_t smem(const long long *axis) { return (size_t)axis[SB_AXIS_BUFFER_BYTES]; }
  __device__ static BarrierRole role(int) {
    BarrierRole r = barrier_role(SB_PART_ALL);  // all: every thread is in the cluster barrier
    r.report = threadIdx.x == 0;
    return r;
  }
  __device__ static barrier_op_tma_multicast_roundtrip make(const BarrierParams &a,
                                                            const BarrierRole &) {
    __shared__ __align__(8) uint64_t bar;
    barrier_op_tma_multicast_roundtrip op{};
    if (threadIdx.x == 0) {
      sb_mbar_init(&bar, 1);     // one arrival per phase (this CTA's thread 0) + the bytes
      sb_fence_mbarrier_init();  // visible to the copy engine and to the peer's multicast
    }
    op.copy.init(a, 2);  // the cluster's two blocks: one source, one multicast
    op.bar = sb_mbar_addr(&bar);
    op.rank = sb_cluster_rank();
    return op;
  }
  __device__ void before_start() const { sb_cluster_sync(); }
  __device__ void after_finish() const { sb_cluster_sync(); }
  template <bool Validate>
  __device__ void sync() {
    sb_cluster_sync();  // the peer is done with the last copy
    if (threadIdx.x == 0) {
      sb_mbar_arrive_expect_tx(bar, copy.bytes);  // what the multicast delivers to this CTA
      if (rank == 0)  // halves alternate, as tma_roundtrip's
        sb_bulk_copy_g2s_multicast(barrier_dyn, copy.half(parity), copy.bytes, bar, 0x3);
      barrier_spin_wait<Validate>(bar, parity);
    }
    parity ^= 1;
  }
  __device__ void publish(const BarrierSlotProof &, int) const {}
  __device__ unsigned proven(const BarrierSlotProof &, int p) const {
    if (threadIdx.x != 0) return 0;  // thread 0 alone waited, checks and reports
    return copy.check(p);
  }
};

// ---- pickers, launcher, tables ----

template <class V>
static int barrier_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  (void)why, (void)len;  // block size and mode are run-time: every point has its kernels
  *k = sb_twin_kernels<V::twin>(
      [](auto validate) { return barrier_kernel<V, decltype(validate)::value>; }, V::smem(axis));
  return 0;
}

// Grid: one block per SM (the dynamic shared memory is padded past half an
// SM's, so two cannot share one) or SMs x occupancy (full_occupancy), at
// most SB_BARRIER_MAX_BLOCKS; cluster launches: as many whole clusters as
// fit at once; grid_sync: a cooperative launch; dsmem_handoff (PAIR): a
// cluster of 2 blocks, one per SM; flag_handoff (PAIR + SWEEP): a
// cooperative launch of one block per SM. The shape matters only to
// the query (launch.cuh): launches reuse what it chose, so the device is
// asked for its shared memory only then.
static cudaError_t barrier_launch(sb_launch *L) {
  BarrierParams a;
  a.in = (const uint32_t *)L->in;
  a.out = (unsigned char *)L->out;
  a.iters = (int)L->axis[SB_AXIS_ITERS];
  a.mode = L->axis[SB_AXIS_PARTICIPANTS] == SB_AXIS_UNSET ? SB_PART_ALL
                                                          : (int)L->axis[SB_AXIS_PARTICIPANTS];
  a.bytes = L->axis[SB_AXIS_BUFFER_BYTES] == SB_AXIS_UNSET ? 0 : (int)L->axis[SB_AXIS_BUFFER_BYTES];
  sb_shape s;
  if (L->query) {
    const unsigned flags = L->variant->flags;
    s.grid = SB_GRID_PERSISTENT;
    s.work = SB_BARRIER_MAX_BLOCKS;
    s.block = (int)L->axis[SB_AXIS_BLOCK];
    s.one_per_sm = L->axis[SB_AXIS_CONTENTION] != SB_CONT_FULL;
    s.cooperative = (flags & (SB_BARRIER_VF_GRID | SB_BARRIER_VF_PAIR)) != 0;
    s.cluster = flags & SB_BARRIER_VF_CLUSTER ? (int)L->axis[SB_AXIS_CLUSTER] : 1;
    // A pair that is one cluster (dsmem_handoff): the cluster launch
    // co-schedules its two blocks, no cooperative launch. A cluster row of a
    // family without the cluster axis (barrier_tma's
    // tma_multicast_roundtrip): clusters of 2.
    if (flags & SB_BARRIER_VF_PAIR && flags & SB_BARRIER_VF_CLUSTER) s.cooperative = false;
    if (flags & SB_BARRIER_VF_CLUSTER && L->axis[SB_AXIS_CLUSTER] == SB_AXIS_UNSET) s.cluster = 2;
    if (flags & SB_BARRIER_VF_PAIR) {  // the host's check keeps contention one_block_per_sm
      s.grid = 2;
      s.one_per_sm = true;
    }
    if (flags & SB_BARRIER_VF_SWEEP) {  // one block on every SM, all resident
      s.grid = SB_GRID_PERSISTENT;
      s.work = SB_HANDOFF_MAX_SMS;
    }
    if (s.one_per_sm) {
      int dev = 0, smem_sm = 0;
      cudaError_t e = cudaGetDevice(&dev);
      if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
      if (e != cudaSuccess) return e;
      s.min_smem = (size_t)smem_sm / 2 + 1024;
    }
  }
  return sb_launch_params(L, s, a);
}

// flag_handoff(_relaxed)'s sweep kernel and its validating twin.
template <class Pol, bool LoseToken>
static int handoff_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  (void)axis, (void)why, (void)len;
  *k = sb_twin_kernels<true>(
      [](auto validate) { return barrier_handoff_kernel<Pol, LoseToken, decltype(validate)::value>; }, 0);
  return 0;
}

// The kernel-boundary rows: the empty kernel (timed) and its counting twin.
template <bool Pdl>
static int boundary_pick(const long long *axis, sb_kernels *k, char *why, size_t len) {
  (void)axis, (void)why, (void)len;
  *k = sb_twin_kernels<true>(
      [](auto validate) { return barrier_boundary_kernel<Pdl, decltype(validate)::value>; }, 0);
  return 0;
}

// The graph row's two graphs of the current point ([1]: the validating
// one), and the stream its launches are captured on.
static cudaGraphExec_t boundary_exec[2];
static const void *boundary_exec_out;  // the output buffer boundary_exec[1] writes
static const void *boundary_exec_context;  // the context boundary_exec[0] was built in (L->context)
static cudaStream_t boundary_capture;

// `iters` launches of the point's kernel (L->bounded: the counting twin) on
// `stream`; Pdl: each one a PDL secondary of the one before.
template <bool Pdl = false>
static cudaError_t boundary_enqueue(sb_launch *L, cudaStream_t stream, int graph = 0) {
  const int n = (int)L->axis[SB_AXIS_ITERS];
  BoundaryParams p{(unsigned char *)L->out, 0};
#ifdef SB_PLANT_SLOWDOWN
  p.plant_cycles = barrier_plant_cycles(graph);
#else
  (void)graph;
#endif
  void *args[] = {&p};
  const cudaStream_t keep = L->stream;
  L->stream = stream;
  cudaError_t e = cudaSuccess;
  for (; p.i < n && e == cudaSuccess; ++p.i) e = Pdl ? sb_launch_go_pdl(L, args) : sb_launch_go(L, args);
  L->stream = keep;
  return e;
}

// Captures `iters` launches of the point's raw (bounded = 0) or counting
// (1) kernel into a graph, instantiates and uploads it: never inside a
// timed sample (the query builds the raw one, the validating launch the
// counting one, which needs the output buffer the query does not have).
static cudaError_t boundary_build(sb_launch *L, int bounded) {
  cudaGraphExec_t *exec = &boundary_exec[bounded];
  if (*exec) cudaGraphExecDestroy(*exec);
  *exec = nullptr;
  // In another context (L->context), its untimed launch's idle stream
  // captures: a stream captures only in its own context.
  cudaError_t e = boundary_capture || L->context
                      ? cudaSuccess
                      : cudaStreamCreateWithFlags(&boundary_capture, cudaStreamNonBlocking);
  const cudaStream_t capture = L->context ? L->stream : boundary_capture;
  cudaGraph_t g = nullptr;
  if (e == cudaSuccess) e = cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal);
  if (e == cudaSuccess) {
    const int keep = L->bounded;
    L->bounded = bounded;
    const cudaError_t launched = boundary_enqueue(L, capture, 1);
    L->bounded = keep;
    e = cudaStreamEndCapture(capture, &g);
    if (launched != cudaSuccess) e = launched;
  }
  if (e == cudaSuccess) e = cudaGraphInstantiate(exec, g, 0);
  if (g) cudaGraphDestroy(g);
  if (e == cudaSuccess) e = cudaGraphUpload(*exec, L->stream);
  return e;
}

// Grid: SMs (one_block_per_sm) or SMs x occupancy of block_threads, with
// no shared-memory padding (an empty kernel's blocks spread over the SMs,
// and padding would only make the launch costlier).
template <bool Graph, bool Pdl>
static cudaError_t boundary_launch(sb_launch *L) {
  static_assert(!(Graph && Pdl), "the PDL row launches in the stream (no PDL graph row)");
  if (L->query) {
    sb_shape s;
    s.grid = SB_GRID_PERSISTENT;
    s.work = SB_BARRIER_MAX_BLOCKS;
    s.block = (int)L->axis[SB_AXIS_BLOCK];
    s.one_per_sm = L->axis[SB_AXIS_CONTENTION] != SB_CONT_FULL;
    const cudaError_t e = sb_launch_query(L, s);
    L->hold = (L->variant->flags & SB_BARRIER_VF_HELD) != 0;
    L->in_context = 1;  // timed in the timer's chosen context (harness/timing.c)
    if (e != cudaSuccess || !Graph || L->skip[0] || L->blocks_per_sm == 0) return e;
    boundary_exec_out = nullptr;
    boundary_exec_context = nullptr;
    return boundary_build(L, 0);
  }
  if (L->skip[0] || L->blocks_per_sm == 0) return cudaErrorInvalidConfiguration;
  if constexpr (!Graph) {
    return boundary_enqueue<Pdl>(L, L->stream);
  } else {
    if (L->bounded && boundary_exec_out != L->out) {  // the validating launch: untimed
      const cudaError_t e = boundary_build(L, 1);
      if (e != cudaSuccess) return e;
      boundary_exec_out = L->out;
    }
    if (!L->bounded && boundary_exec_context != L->context) {  // a point's first launch in a context: untimed
      const cudaError_t e = boundary_build(L, 0);
      if (e != cudaSuccess) return e;
      boundary_exec_context = L->context;
    }
    return cudaGraphLaunch(boundary_exec[L->bounded ? 1 : 0], L->stream);
  }
}

#define BARRIER_ROW(variant, min_cc, flags, summary) \
  {#variant, barrier_launch, barrier_pick<barrier_op_##variant>, min_cc, flags, summary}
// The rows priced between SMs: thread 0 (or warp 0) of a block reports.
#define BARRIER_DEVICE_ROW(variant, flags, summary) \
  BARRIER_ROW(variant, 0, SB_BARRIER_VF_DEVICE | SB_BARRIER_VF_THREAD0 | (flags), summary)
// flag_handoff(_relaxed): the sweep over SM pairs and flag places.
#define BARRIER_HANDOFF_ROW(variant, pol, lose, flags, summary)                                     \
  {#variant, barrier_launch, handoff_pick<pol, lose>, 0,                                             \
   SB_BARRIER_VF_DEVICE | SB_BARRIER_VF_THREAD0 | SB_BARRIER_VF_PAIR | SB_BARRIER_VF_SWEEP | (flags), \
   summary}
// lookback_walk_<w>: the walk length in the flags and the template from one w.
#define BARRIER_WALK_ROW(w)                                                                  \
  BARRIER_DEVICE_ROW(lookback_walk_##w, SB_BARRIER_VF_WALK(w),                              \
                     "between SMs through L2: devscan's warp look-back (ld.acquire.gpu, 32 " \
                     "words a window) walking " #w " status word(s) back to a P; per look-back")
// pdl: the row's kernels are PDL secondaries (SB_VF_PDL), so it needs sm_90.
#define BARRIER_BOUNDARY_ROW(variant, graph, pdl, flags, summary)                              \
  {#variant, boundary_launch<graph, pdl>, boundary_pick<pdl>, (pdl) ? SB_PDL_MIN_CC : 0,      \
   SB_BARRIER_VF_DEVICE | SB_BARRIER_VF_THREAD0 | SB_BARRIER_VF_HOST_TIMED |                  \
       ((pdl) ? SB_VF_PDL : 0u) | (flags),                                                     \
   summary}
static_assert((SB_VF_PDL & (SB_BARRIER_VF_BLOCK | SB_BARRIER_VF_GRID | SB_BARRIER_VF_CLUSTER |
                            SB_BARRIER_VF_WARPS | SB_BARRIER_VF_HALVES | SB_BARRIER_VF_DROP_HALF |
                            SB_BARRIER_VF_THREAD0 | SB_BARRIER_VF_CHASE | SB_BARRIER_VF_DEVICE |
                            SB_BARRIER_VF_PAIR | SB_BARRIER_VF_HOST_TIMED |
                            SB_BARRIER_VF_SWEEP | SB_BARRIER_VF_HELD |
                            SB_BARRIER_WALK_BITS)) == 0,
              "SB_VF_PDL (kernels/common/pdl.h) must not share a bit with the barrier families' flags");
static_assert((SB_BARRIER_VF_SWEEP & (SB_BARRIER_VF_HELD | SB_BARRIER_VF_CALIBRATION | SB_BARRIER_VF_SPELLING)) == 0 &&
                  (SB_BARRIER_VF_HELD & (SB_BARRIER_VF_CALIBRATION | SB_BARRIER_VF_SPELLING)) == 0 &&
                  (SB_BARRIER_VF_CALIBRATION & SB_BARRIER_VF_SPELLING) == 0 &&
                  ((SB_BARRIER_VF_SWEEP | SB_BARRIER_VF_HELD | SB_BARRIER_VF_CALIBRATION | SB_BARRIER_VF_SPELLING) &
                   (SB_VF_PDL | SB_BARRIER_WALK_BITS | (SB_VF_FAMILY0 * 2047u))) == 0,
              "the traits above the walk length's bits must be apart from each other and from it");

static const sb_variant barrier_rows[] = {
    BARRIER_ROW(syncthreads, 0, SB_BARRIER_VF_BLOCK | SB_BARRIER_VF_CALIBRATION,
                "__syncthreads() back to back (bar.sync 0, every thread)"),
    BARRIER_ROW(syncthreads_handoff, 0, SB_BARRIER_VF_BLOCK,
                "st.shared own slot; __syncthreads(); ld.shared + compare a slot of the next warp"),
    BARRIER_ROW(syncwarp, 0, SB_BARRIER_VF_WARPS,
                "__syncwarp() back to back: each warp on its own (all) or warp 0 (warp)"),
    BARRIER_ROW(named_barrier, 0, SB_BARRIER_VF_WARPS | SB_BARRIER_VF_HALVES,
                "bar.sync id, count: two half-blocks on ids 1 and 2 (all) or warp 0 on id 1 (warp)"),
    BARRIER_ROW(cg_block_sync, 0, SB_BARRIER_VF_BLOCK,
                "cooperative_groups this_thread_block().sync() back to back"),
    BARRIER_ROW(cuda_barrier_arrive_wait, 0, SB_BARRIER_VF_SPELLING,
                "cuda::barrier<block>: token = arrive(); wait(token)"),
    BARRIER_ROW(cuda_barrier_arrive_and_wait, 0, SB_BARRIER_VF_SPELLING,
                "cuda::barrier<block>: arrive_and_wait()"),
    BARRIER_ROW(ptx_mbarrier_parity, 0, SB_BARRIER_VF_SPELLING | SB_BARRIER_VF_CALIBRATION,
                "cuda::ptx mbarrier_arrive + mbarrier_try_wait_parity loop (sm_80: test_wait_parity)"),
    BARRIER_ROW(ptx_mbarrier_handoff, 0, 0,
                "st.shared own slot; ptx_mbarrier_parity's arrive + wait; ld.shared + compare a partner's slot"),
    BARRIER_ROW(primitives_mbarrier, 0, SB_BARRIER_VF_SPELLING,
                "__mbarrier_arrive + __mbarrier_try_wait(token) loop (sm_80: __mbarrier_test_wait)"),
    BARRIER_ROW(mbarrier_test_wait_poll, 0, SB_BARRIER_VF_SPELLING,
                "PTX mbarrier.arrive + polling mbarrier.test_wait.parity (never suspends)"),
    BARRIER_ROW(arrive_and_drop, 0, SB_BARRIER_VF_DROP_HALF,
                "cuda::barrier: half the participants arrive_and_drop() once, the rest arrive_and_wait()"),
    BARRIER_ROW(completion_function, 0, 0,
                "cuda::barrier with a completion function counting phases; arrive_and_wait()"),
    BARRIER_ROW(expect_tx_zero, 90, 0, "mbarrier.arrive.expect_tx with 0 bytes + try_wait.parity loop"),
    BARRIER_ROW(smem_latency, 0, SB_BARRIER_VF_CHASE | SB_BARRIER_VF_CALIBRATION,
                "no synchronization: index pointer chase j = s[j], the published P-chase: LEA + LDS per hop"),
    BARRIER_ROW(smem_latency_bare, 0, SB_BARRIER_VF_CHASE,
                "no synchronization: address pointer chase a = *a, one bare LDS per hop (load-to-use)"),
    BARRIER_ROW(grid_sync, 0, SB_BARRIER_VF_GRID | SB_BARRIER_VF_THREAD0,
                "cooperative launch, cooperative_groups this_grid().sync() back to back"),
    BARRIER_HANDOFF_ROW(flag_handoff, DevLookAcqRel, false, 0,
                        "between SMs through L2: two blocks on two SMs ping-pong a packed flag word, "
                        "st.release.gpu / ld.acquire.gpu spin; per one-way hand-off, the mean over "
                        "SM pairs (SM 0 with every SM, and pairs across the chip) and flag places"),
    BARRIER_HANDOFF_ROW(flag_handoff_relaxed, DevLookRelaxed, false, 0,
                        "between SMs through L2: flag_handoff's ping-pong with st.relaxed.gpu / "
                        "ld.relaxed.gpu (devscan's lookback_relaxed); per one-way hand-off, the "
                        "mean over SM pairs and flag places"),
    BARRIER_WALK_ROW(1),
    BARRIER_WALK_ROW(32),
    BARRIER_WALK_ROW(64),
    BARRIER_WALK_ROW(256),
    BARRIER_BOUNDARY_ROW(kernel_boundary_stream, false, false, SB_BARRIER_VF_HELD,
                         "kernel boundary: iters empty kernels back to back in one stream, "
                         "enqueued behind a held stream and timed by events around them (the "
                         "GPU's pace, not the host's launch rate), on the fastest stream of SB_CONTEXTS "
                         "fresh contexts (the row's detail says how many); per boundary"),
    BARRIER_BOUNDARY_ROW(kernel_boundary_graph, true, false, 0,
                         "kernel boundary, host-timed: one CUDA graph of iters empty kernel nodes "
                         "(captured, instantiated before timing), on kernel_boundary_stream's "
                         "stream; per boundary"),
    // Held like the stream row: each of its kernels is one host launch
    // (cudaLaunchKernelExC with one more attribute), and unheld, with kernels
    // this short, the host's launch rate would set the sample (2.9-5.1 us a
    // launch on the machines measured, docs/barrier.md), a price of the host,
    // not of the boundary. PDL can only take the GPU's share out of a boundary.
    BARRIER_BOUNDARY_ROW(kernel_boundary_pdl, false, true, SB_BARRIER_VF_HELD,
                         "kernel boundary: iters kernels back to back in one stream, each a PDL "
                         "secondary (launch_dependents, then griddepcontrol.wait), enqueued behind "
                         "a held stream, on kernel_boundary_stream's stream; per boundary"),
#ifdef SB_BROKEN
    BARRIER_HANDOFF_ROW(flag_handoff_lost_token, DevLookAcqRel, true, SB_VF_TEST_ONLY,
                        "TEST ONLY: flag_handoff whose side 1 waits for a token side 0 never "
                        "sends: both spin; the watchdog makes it a deadlock row"),
#endif
};
extern "C" const sb_variant_table sb_barrier_variants = {
    barrier_rows, sizeof barrier_rows / sizeof barrier_rows[0]};

static const sb_variant barrier_tma_rows[] = {
    BARRIER_ROW(tma_roundtrip, 90, SB_BARRIER_VF_THREAD0,
                "thread 0: arrive.expect_tx(bytes) + cp.async.bulk global->shared + try_wait.parity loop"),
    BARRIER_ROW(tma_multicast_roundtrip, 90, SB_BARRIER_VF_CLUSTER | SB_BARRIER_VF_THREAD0,
                "cluster of 2: barrier.cluster arrive+wait; each thread 0: arrive.expect_tx(bytes); rank 0: "
                "one cp.async.bulk .multicast::cluster to both CTAs; both: try_wait.parity loop"),
};
extern "C" const sb_variant_table sb_barrier_tma_variants = {
    barrier_tma_rows, sizeof barrier_tma_rows / sizeof barrier_tma_rows[0]};

static const sb_variant barrier_cluster_rows[] = {
    BARRIER_ROW(cluster_barrier, 90, SB_BARRIER_VF_CLUSTER,
                "barrier.cluster.arrive + barrier.cluster.wait back to back, every thread of the cluster"),
    BARRIER_ROW(dsmem_handoff, 90, SB_BARRIER_VF_CLUSTER | SB_BARRIER_VF_PAIR | SB_BARRIER_VF_THREAD0,
                "between the 2 CTAs of one cluster through DSMEM: ping-pong, remote "
                "mbarrier.arrive.release.cluster (mapa) / try_wait.parity.acquire.cluster; per one-way hand-off"),
};
extern "C" const sb_variant_table sb_barrier_cluster_variants = {
    barrier_cluster_rows, sizeof barrier_cluster_rows / sizeof barrier_cluster_rows[0]};
