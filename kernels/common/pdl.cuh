// Programmatic dependent launch (PDL, sm_90+): the two device verbs and the
// launch, shared by barrier.cu (kernel_boundary_pdl) and devscan.cu
// (three_kernel_pdl).
//
// What the CUDA programming guide ("Programmatic Dependent Launch and
// Synchronization") and the PTX ISA (griddepcontrol) promise:
//  - A kernel launched with cudaLaunchAttributeProgrammaticStreamSerialization
//    = 1 (the *secondary*) may start before the kernel ahead of it in the
//    stream (the *primary*) has finished: as soon as every block of the
//    primary has executed griddepcontrol.launch_dependents or exited. Without
//    the attribute it starts only after the primary completed and its memory
//    was flushed, whatever the primary executes.
//  - griddepcontrol.launch_dependents (cudaTriggerProgrammaticLaunchCompletion)
//    only lets the secondary be SCHEDULED. It is not a fence: the primary's
//    stores before it need not be visible to the secondary, and the primary
//    may still be running (and storing) after it. One thread of a block
//    suffices (later calls in the block have no effect); a block that never
//    calls it triggers when it exits.
//  - griddepcontrol.wait (cudaGridDependencySynchronize) blocks the calling
//    thread until every prerequisite grid has COMPLETED and all its memory
//    operations are performed and visible to this grid. It is the only thing
//    that makes the primary's results safe to read (or its inputs safe to
//    overwrite), so every thread of a secondary executes it before it touches
//    memory the primary writes or reads. With no PDL launch in flight it
//    returns at once.
//  - The early start is opportunistic, never guaranteed: a secondary that
//    spun on a flag of its primary (or the other way round) could deadlock.
//    No kernel here waits on anything but griddepcontrol.wait, and that waits
//    only on grids whose blocks have all started (a secondary is not launched
//    before every primary block has triggered or exited), so nothing waits on
//    a block that may not be resident.
//
// griddepcontrol needs sm_90: below it the verbs compile to nothing and the
// PDL kernels trap (their rows have min_cc 90; the runner reports them
// `unsupported` on older GPUs and on binaries built from compute_80 PTX,
// sb_built_below_need, so they are never launched there).
#ifndef SB_KERNELS_PDL_CUH
#define SB_KERNELS_PDL_CUH

#include "launch.cuh"

// "memory" clobbers: the compiler keeps every load and store of the
// dependent part after the wait, and the stores a trigger follows before it.
__device__ __forceinline__ void sb_pdl_wait(void) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void sb_pdl_launch_dependents(void) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Appends the programmatic-serialization attribute to a launch configuration
// whose attrs array has room for it.
static inline void sb_pdl_attr(cudaLaunchConfig_t *cfg) {
  cudaLaunchAttribute *a = cfg->attrs + cfg->numAttrs++;
  a->id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a->val.programmaticStreamSerializationAllowed = 1;
}

// sb_launch_go (launch.cuh) with the PDL attribute: what the query chose,
// launched as a secondary of whatever kernel precedes it in L->stream.
static inline cudaError_t sb_launch_go_pdl(sb_launch *L, void **args) {
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[3];
  cfg.gridDim = dim3((unsigned)L->grid_blocks);
  cfg.blockDim = dim3((unsigned)L->block_threads);
  cfg.dynamicSmemBytes = L->kernels.smem;
  cfg.stream = L->stream;
  sb_launch_attrs(L, &cfg, attr);
  sb_pdl_attr(&cfg);
  const void *kernel = L->bounded ? L->kernels.bounded : L->kernels.raw;
  cudaError_t e = cudaLaunchKernelExC(&cfg, kernel, args);
  return e == cudaSuccess ? cudaGetLastError() : e;
}

// Any kernel (not the query's) as a PDL secondary: devscan's second kernel.
static inline cudaError_t sb_pdl_launch(const void *kernel, unsigned grid, unsigned block,
                                        cudaStream_t stream, void **args) {
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 0;
  sb_pdl_attr(&cfg);
  cudaError_t e = cudaLaunchKernelExC(&cfg, kernel, args);
  return e == cudaSuccess ? cudaGetLastError() : e;
}

#endif
