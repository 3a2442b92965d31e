/* The SM clock readers of kernels/clock.cu, callable from C: the harness
 * reaches kernel code only through headers such as this one
 * (tests/test_layers.py keeps it so). */
#ifndef SB_KERNELS_CLOCK_H
#define SB_KERNELS_CLOCK_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The SM clock right now, in MHz: clock64() ticks against %globaltimer over
 * a 200 us spin; synchronizes the stream (harness/runner.c, once per point). */
cudaError_t sb_measure_sm_clock(cudaStream_t stream, double *mhz);

/* The clock witness (harness/timing.c): the same spin, spin_ns long, launched
 * between samples; it writes its reading to mapped pinned host memory and
 * adds no synchronization of its own. */
cudaError_t sb_clock_witness(cudaStream_t stream, unsigned long long spin_ns,
                             double *mapped_mhz);

#ifdef __cplusplus
}
#endif

#endif
