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

__device__ __forceinline__ void sb_mbar_init(uint64_t *bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(sb_smem_addr(bar)),
               "r"(count)
               : "memory");
}

// Arrive with release semantics at CTA scope: this thread's earlier shared
// memory writes are visible to any thread whose wait sees the phase end.
__device__ __forceinline__ void sb_mbar_arrive(uint64_t *bar) {
  asm volatile(
      "{\n\t.reg .b64 state;\n\t"
      "mbarrier.arrive.shared::cta.b64 state, [%0];\n\t}" ::"r"(sb_smem_addr(bar))
      : "memory");
}

// Non-blocking probe: has the phase with this parity completed?
__device__ __forceinline__ bool sb_mbar_test_parity(uint64_t *bar, uint32_t parity) {
  uint32_t done;
#if __CUDA_ARCH__ >= 900
  // try_wait may suspend the thread for a system-dependent time: cheaper
  // than a pure spin on sm_90.
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(sb_smem_addr(bar)), "r"(parity)
      : "memory");
#else
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(sb_smem_addr(bar)), "r"(parity)
      : "memory");
#endif
  return done != 0;
}

// Waits (acquire, CTA scope) until the phase with this parity has completed.
__device__ __forceinline__ void sb_mbar_wait_parity(uint64_t *bar, uint32_t parity) {
  while (!sb_mbar_test_parity(bar, parity)) {
  }
}

#endif
