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
#define SB_LAUNCH(L, kernel, grid, block, smem, ...)                          \
  do {                                                                        \
    if ((L)->query)                                                           \
      return sb_configure((const void *)(kernel), (grid), (block), (smem), (L)); \
    kernel<<<(unsigned)(grid), (block), (smem), (L)->stream>>>(__VA_ARGS__);  \
    return cudaGetLastError();                                                \
  } while (0)

static inline long long sb_ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// For a variant whose kernel waits through sb_mbar_wait_parity: `kbounded`
// is its <true> instantiation (waits under the deadlock watchdog), `kraw` its
// <false> one. The query configures both and reports the raw (timed) one;
// a launch runs the one L->bounded asks for (harness/launch.h).
#define SB_LAUNCH_TWIN(L, kbounded, kraw, grid, block, smem, ...)                   \
  do {                                                                            \
    if ((L)->query) {                                                             \
      cudaError_t twin_e_ = sb_configure((const void *)(kbounded), (grid), (block), \
                                         (smem), (L));                            \
      if (twin_e_ != cudaSuccess) return twin_e_;                                 \
      (L)->raw_twin = 1;                                                          \
      return sb_configure((const void *)(kraw), (grid), (block), (smem), (L));     \
    }                                                                             \
    if ((L)->bounded)                                                             \
      kbounded<<<(unsigned)(grid), (block), (smem), (L)->stream>>>(__VA_ARGS__);   \
    else                                                                          \
      kraw<<<(unsigned)(grid), (block), (smem), (L)->stream>>>(__VA_ARGS__);       \
    return cudaGetLastError();                                                    \
  } while (0)

#endif
