// Shared by every kernels/<family>.cu: the query-or-launch helper behind
// the sb_launch contract (harness/launch.h).
#ifndef SB_KERNELS_COMMON_CUH
#define SB_KERNELS_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "../harness/launch.h"

// Asks for the dynamic shared memory the launch needs (above 48 KB a kernel
// must opt in), then fills the query fields of L from the occupancy API.
static inline cudaError_t sb_configure(const void *kernel, long long grid,
                                       int block, size_t smem, sb_launch *L) {
  if (grid < 1 || grid > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
  cudaError_t e = cudaSuccess;
  if (smem > 48 * 1024)
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)smem);
  if (e != cudaSuccess) return e;
  cudaFuncAttributes attr;
  e = cudaFuncGetAttributes(&attr, kernel);
  if (e != cudaSuccess) return e;
  int per_sm = 0;
  if (block <= attr.maxThreadsPerBlock) {
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem);
    if (e != cudaSuccess) return e;
  }
  L->grid_blocks = (int)grid;
  L->block_threads = block;
  L->blocks_per_sm = per_sm;
  L->smem_bytes = smem + attr.sharedSizeBytes;
  return cudaSuccess;
}

// In a launcher: in query mode configure (the shared-memory opt-in set
// there persists for the kernel) and report; otherwise only launch, so no
// host-side API work lands between a sample's two CUDA events. The runner
// always queries a point before launching it.
//
// A variant that spins on an mbarrier has two kernels: `kbounded`, its
// <true> instantiation (waits under the deadlock watchdog), which the runner
// launches to validate, and `kraw`, its <false> one, which it times
// (harness/launch.h, L->bounded). The query configures both and reports the
// raw one. Any other variant passes its one kernel twice (SB_LAUNCH).
#define SB_LAUNCH_TWIN(L, kbounded, kraw, grid, block, smem, ...)                    \
  do {                                                                             \
    if ((L)->query) {                                                              \
      (L)->raw_twin = (const void *)(kbounded) != (const void *)(kraw);            \
      cudaError_t twin_e_ = (L)->raw_twin ? sb_configure((const void *)(kbounded), \
                                                         (grid), (block), (smem), (L)) \
                                          : cudaSuccess;                           \
      if (twin_e_ != cudaSuccess) return twin_e_;                                  \
      return sb_configure((const void *)(kraw), (grid), (block), (smem), (L));     \
    }                                                                              \
    if ((L)->bounded)                                                              \
      kbounded<<<(unsigned)(grid), (block), (smem), (L)->stream>>>(__VA_ARGS__);    \
    else                                                                           \
      kraw<<<(unsigned)(grid), (block), (smem), (L)->stream>>>(__VA_ARGS__);        \
    return cudaGetLastError();                                                     \
  } while (0)

#define SB_LAUNCH(L, kernel, ...) SB_LAUNCH_TWIN(L, kernel, kernel, __VA_ARGS__)

static inline long long sb_ceil_div(long long a, long long b) { return (a + b - 1) / b; }

#endif
