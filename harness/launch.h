/* The contract between the C harness and the CUDA launchers in kernels/.
 * Every variant has one launcher:  extern "C" cudaError_t
 * sb_<family>_<variant>(sb_launch *L);  it reads the point's axes, and
 * either launches on L->stream (query == 0) or only reports how the launch
 * would be configured (query == 1), without touching the buffers. The
 * runner queries every point once before launching it; a launch must do no
 * avoidable host work (occupancy queries, attribute calls), because it runs
 * between the two CUDA events of a timed sample. */
#ifndef SB_LAUNCH_H
#define SB_LAUNCH_H

#include <cuda_runtime_api.h>

#include "axes.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_launch {
  const long long *axis;  /* [SB_NUM_AXES], SB_AXIS_UNSET where unused */
  const void *in;         /* family-defined input buffer (device) */
  void *out;              /* family-defined output buffer (device) */
  void *scratch;          /* family-defined scratch (device), may be NULL */
  cudaStream_t stream;
  int query;              /* 1: fill the fields below, launch nothing */
  int bounded;            /* 1: the validating launch, whose mbarrier waits
                             the deadlock watchdog bounds; 0: warm-up and
                             timed launches, with the raw wait (variants
                             with a raw twin; kernels/mbarrier.cuh says why) */
  /* Filled by the launcher in query mode: */
  int grid_blocks;        /* blocks the launch uses */
  int block_threads;      /* threads per block (families may derive it) */
  int blocks_per_sm;      /* occupancy; 0 means it cannot launch */
  size_t smem_bytes;      /* dynamic + static shared memory per block */
  int raw_twin;           /* 1: `bounded` picks between two kernels, so the
                             runner checks the timed kernel's output too */
} sb_launch;

typedef cudaError_t (*sb_launch_fn)(sb_launch *L);

#ifdef __cplusplus
}
#endif

#endif
