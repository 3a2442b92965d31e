// The producer/consumer ring: S stages, each with a `full` and an `empty`
// mbarrier, behind four verbs in the style of CUTLASS's PipelineAsync /
// PipelineTmaAsync (include/cutlass/pipeline/sm90_pipeline.hpp):
//
//   producer:  acquire(st)  wait until stage st.index is empty
//              commit(st)   arrive on full: my ordinary stores are in
//              commit_tx(st, bytes)  arrive.expect_tx: the copy engine's
//                           `bytes` complete the phase (TMA producers)
//   consumer:  wait(st)     wait until stage st.index is full
//              release(st)  arrive on empty: I am done reading it
//              release_generic(st)  the same after generic-proxy reads
//                           of a stage that TMA refills (docs/pipeline.md,
//                           "Proxy fences")
//
// Both sides walk the same sb_ring_state (index, phase parity) and flip the
// parity each time the index wraps: the phase waited on is tracked, never
// re-derived, and the barriers are initialized once, before the loop.
//
// Bootstrap: the empty barriers start with one credit per stage that the
// consumers grant before the loop (grant_credits), so the producer's first
// acquire of every stage waits on a phase that really completes; without it
// the producer would wait forever on its first pass. Tail: producer_tail
// acquires every stage once more, so the producer leaves only after the
// consumers released every stage it filled (no arrival can land on the
// barriers of a block that is gone, and the tail is where a cluster
// producer would wait before exit).
//
// Used by the pipeline family's warp-specialized variants and by the GEMM
// family's ws_* variants. Bounded: the validating twin's waits run under the
// deadlock watchdog (kernels/common/mbarrier.cuh), which reports the stage.
#ifndef SB_KERNELS_RING_CUH
#define SB_KERNELS_RING_CUH

#include "mbarrier.cuh"

struct sb_ring_state {
  int index = 0;
  uint32_t phase = 0;
  template <int Stages>
  __device__ __forceinline__ void advance() {
    if (++index == Stages) index = 0, phase ^= 1u;
  }
};

template <int Stages, bool Bounded>
struct sb_ring {
  static constexpr int CONSUMER_CTAS = 1;  // the CTAs whose consumers release this CTA's stages
  uint32_t full_a, empty_a;  // shared-window addresses of full[0] and empty[0]

  // full and empty: Stages barriers each, in shared memory.
  __device__ __forceinline__ sb_ring(uint64_t *full, uint64_t *empty)
      : full_a(sb_mbar_addr(full)), empty_a(sb_mbar_addr(empty)) {}

  // One thread, before any other use; the caller's __syncthreads publishes
  // it to the block. producers / consumers: arrivals that complete a phase
  // of full / empty. fence.mbarrier_init makes the inits visible to the
  // async proxy too, for the copy engine's complete_tx on full.
  __device__ static void init(uint64_t *full, uint64_t *empty, uint32_t producers,
                              uint32_t consumers) {
#pragma unroll
    for (int s = 0; s < Stages; ++s) {
      sb_mbar_init(&full[s], producers);
      sb_mbar_init(&empty[s], consumers);
    }
    sb_fence_mbarrier_init();
  }

  __device__ __forceinline__ uint32_t full_bar(int s) const { return full_a + 8u * (uint32_t)s; }
  __device__ __forceinline__ uint32_t empty_bar(int s) const { return empty_a + 8u * (uint32_t)s; }

  // Consumer side, before the loop: one empty credit per stage. Every
  // consumer arrival that release() makes, grant_credits makes once per
  // stage (same threads, same count).
  __device__ __forceinline__ void grant_credits() const {
#pragma unroll
    for (int s = 0; s < Stages; ++s) sb_mbar_arrive(empty_bar(s));
  }

  __device__ __forceinline__ void acquire(const sb_ring_state &st) const {
    sb_mbar_wait_parity_stage<Bounded>(empty_bar(st.index), st.phase, st.index);
  }
  __device__ __forceinline__ void commit(const sb_ring_state &st) const {
    sb_mbar_arrive(full_bar(st.index));
  }
  __device__ __forceinline__ void commit_tx(const sb_ring_state &st, uint32_t bytes) const {
    sb_mbar_arrive_expect_tx(full_bar(st.index), bytes);
  }
  __device__ __forceinline__ void wait(const sb_ring_state &st) const {
    sb_mbar_wait_parity_stage<Bounded>(full_bar(st.index), st.phase, st.index);
  }
  __device__ __forceinline__ void release(const sb_ring_state &st) const {
    sb_mbar_arrive(empty_bar(st.index));
  }
  // A consumer that read the stage through the generic proxy (ld.shared,
  // ldmatrix), when the producer refills it through the async proxy (TMA):
  // fence.proxy.async.shared::cta in every reading thread, then release.
  // docs/pipeline.md, "Proxy fences".
  __device__ __forceinline__ void release_generic(const sb_ring_state &st) const {
    sb_fence_proxy_async_shared();
    release(st);
  }
  // After the producer's last commit, with its state: waits for the
  // consumers' release of every stage.
  __device__ __forceinline__ void producer_tail(sb_ring_state st) const {
#pragma unroll 1
    for (int s = 0; s < Stages; ++s) {
      acquire(st);
      st.template advance<Stages>();
    }
  }
};

// The ring of a cluster whose CTAs fill each other's stages (multicast
// TMA, CUTLASS's PipelineTmaAsync with a cluster shape): a stage of CTA r
// is written by the producers of all CTAs CTAs, so no producer may refill
// stage i until the consumers of EVERY CTA are done with it. Each CTA's
// `empty` then counts the consumer warps of all CTAs: a consumer warp's
// release is one arrival on every CTA's empty[i] (lane j arrives on rank
// j's, through mapa, mbarrier.arrive.shared::cluster: one instruction,
// CTAs lanes), after a __syncwarp,
// once the whole warp's reads of the stage are over. Init count:
// consumer warps x CTAs. acquire / commit_tx / wait / producer_tail and
// the parity bookkeeping are sb_ring's; only the consumer's arrivals
// (release, grant_credits) differ.
//
// Rules (kernels/common/mbarrier.cuh, cluster scope): every CTA initializes its
// own ring (init, which ends in fence.mbarrier_init.release.cluster), then
// a cluster barrier, before any remote arrive or multicast; and a cluster
// barrier before any CTA exits.
template <int Stages, bool Bounded, int CTAs>
struct sb_cluster_ring : sb_ring<Stages, Bounded> {
  static_assert(CTAs >= 2 && CTAs <= 32, "one lane per CTA of the cluster");
  static constexpr int CONSUMER_CTAS = CTAs;
  using base = sb_ring<Stages, Bounded>;
  uint32_t empty_c;  // lanes < CTAs: empty[0] of rank `lane` (shared::cluster); others unused
  uint32_t lane;

  __device__ __forceinline__ sb_cluster_ring(uint64_t *full, uint64_t *empty)
      : base(full, empty), lane(threadIdx.x & 31) {
    empty_c = lane < (uint32_t)CTAs ? sb_mapa(this->empty_a, lane) : 0u;
  }

  // One arrival of this warp on empty[s] of every CTA (the peer's producer
  // overwrites this CTA's stage after its wait). The arrival publishes no
  // data, only that the reads are over: CTA-scope semantics, as CUTLASS's
  // (sb_mbar_arrive_cluster; release.cluster's fences cost ~1 us a k-tile).
  __device__ __forceinline__ void arrive_all(int s) const {
    __syncwarp();  // every lane's reads of the stage are over
    if (lane < (uint32_t)CTAs) sb_mbar_arrive_cluster(empty_c + 8u * (uint32_t)s);
  }
  // As sb_ring's, per consumer warp instead of per consumer thread.
  __device__ __forceinline__ void grant_credits() const {
#pragma unroll
    for (int s = 0; s < Stages; ++s) arrive_all(s);
  }
  __device__ __forceinline__ void release(const sb_ring_state &st) const { arrive_all(st.index); }
};

// A cluster of CM x CN CTAs sharing both operands (multicast A along a
// tile row, B along a tile column): a stage of CTA r is written by the
// producers of r's tile row and tile column only, so a consumer warp's
// release arrives on the empty of those CM + CN - 1 CTAs and no other
// (CUTLASS's PipelineTmaAsync: is_same_row_or_col); a producer then waits
// on no consumer that does not read what it wrote. Lane j stands for rank
// j (tile row j % CM, tile column j / CM: gemm_cluster_tile's order).
// Init count: consumer warps x CONSUMER_CTAS.
template <int Stages, bool Bounded, int CM, int CN>
struct sb_cluster_ring_rc : sb_cluster_ring<Stages, Bounded, CM * CN> {
  static_assert(CM > 1 && CN > 1, "a cluster of one row or one column: sb_cluster_ring");
  static constexpr int CONSUMER_CTAS = CM + CN - 1;
  using base = sb_cluster_ring<Stages, Bounded, CM * CN>;
  bool peer;  // this lane's rank shares this CTA's tile row or tile column

  __device__ __forceinline__ sb_cluster_ring_rc(uint64_t *full, uint64_t *empty) : base(full, empty) {
    const uint32_t me = sb_cluster_rank(), j = this->lane;
    peer = j < (uint32_t)(CM * CN) && (j % CM == me % CM || j / CM == me / CM);
  }
  __device__ __forceinline__ void arrive_all(int s) const {
    __syncwarp();  // every lane's reads of the stage are over
    if (peer) sb_mbar_arrive_cluster(this->empty_c + 8u * (uint32_t)s);
  }
  __device__ __forceinline__ void grant_credits() const {
#pragma unroll
    for (int s = 0; s < Stages; ++s) arrive_all(s);
  }
  __device__ __forceinline__ void release(const sb_ring_state &st) const { arrive_all(st.index); }
};

#endif
