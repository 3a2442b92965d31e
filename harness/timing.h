/* Timing one launch with CUDA events: the per-iteration callback that
 * Google Benchmark drives through the shim, with an optional L2 flush
 * before each sample. Samples are kept for the statistics (stats.h). */
#ifndef SB_TIMING_H
#define SB_TIMING_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "launch.h"

typedef struct sb_timer {
  sb_launch_fn fn;
  sb_launch *launch;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  void *flush_buf;     /* non-NULL: overwrite it before every sample */
  size_t flush_bytes;
  unsigned flushes;
  double *samples;     /* seconds */
  size_t count, cap;
  volatile int *stop_flag; /* set by a signal handler: end the benchmark */
} sb_timer;

/* Creates the events. Returns cudaSuccess or the CUDA error. */
cudaError_t sb_timer_init(sb_timer *t, cudaStream_t stream);
void sb_timer_destroy(sb_timer *t);
/* Forgets the samples of the last point. */
void sb_timer_reset(sb_timer *t);

/* gbs_iteration_fn: one flushed (if asked), event-timed launch. */
int sb_timer_sample(void *ctx, double *seconds, char *err, size_t errlen);

#endif
