// cp.async (sm_80+): per-thread asynchronous copies global -> shared that
// bypass the registers, grouped with commit_group and waited for with
// wait_group. Shared by the families that prefetch tiles this way
// (pipeline's double_buffer, the GEMM family).
//
// Rules (PTX ISA, "cp.async"):
//  - a thread's copies go into the group it commits next; wait_group<N>
//    returns once at most N of the thread's most recent groups are pending,
//    so N counts groups, not bytes, and is an immediate (a template here);
//  - wait_group makes only the waiting thread's own copies visible to it:
//    another thread reads them after a barrier (__syncthreads) that every
//    copying thread passed after its wait;
//  - .cg (16 bytes only) caches in L2 alone: a streamed tile is not kept
//    in L1; .ca (4, 8, 16 bytes) is the form for the sub-16-byte tails.
#ifndef SB_KERNELS_CP_ASYNC_CUH
#define SB_KERNELS_CP_ASYNC_CUH

#include <stdint.h>

__device__ __forceinline__ uint32_t sb_cp_async_smem(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

// 16 bytes, both addresses 16-byte aligned; L2 only. The destination as a
// shared-window address (swizzled tiles compute it directly) or a pointer.
__device__ __forceinline__ void sb_cp_async16(uint32_t dst_smem, const void *src_global) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst_smem), "l"(src_global)
               : "memory");
}
__device__ __forceinline__ void sb_cp_async16(void *dst_smem, const void *src_global) {
  sb_cp_async16(sb_cp_async_smem(dst_smem), src_global);
}

// 16 bytes of which only the first src_bytes (0..16) are read; the rest of
// the destination is zero-filled (bounds-checked tiles: src_bytes = 0 reads
// nothing and writes 16 zero bytes).
__device__ __forceinline__ void sb_cp_async16_zfill(uint32_t dst_smem, const void *src_global,
                                                    uint32_t src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst_smem), "l"(src_global), "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void sb_cp_async16_zfill(void *dst_smem, const void *src_global,
                                                    uint32_t src_bytes) {
  sb_cp_async16_zfill(sb_cp_async_smem(dst_smem), src_global, src_bytes);
}

// 4 bytes, both addresses 4-byte aligned.
__device__ __forceinline__ void sb_cp_async4(void *dst_smem, const void *src_global) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(sb_cp_async_smem(dst_smem)),
               "l"(src_global)
               : "memory");
}

// Closes this thread's current group (an empty group is legal and counts).
__device__ __forceinline__ void sb_cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

// Waits until at most Pending of this thread's most recent groups are in
// flight (Pending = 0: all of them landed).
template <int Pending>
__device__ __forceinline__ void sb_cp_async_wait_group() {
  static_assert(Pending >= 0, "cp.async.wait_group counts pending groups: N >= 0");
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

// Arrive on the mbarrier at shared-window address `bar` once every cp.async
// this thread issued so far has landed; .noinc: the arrival counts against
// the barrier's expected count (a producer warp's copies completing a stage).
__device__ __forceinline__ void sb_cp_async_arrive_noinc(uint32_t bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

#endif
