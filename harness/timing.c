#include "timing.h"

#include <stdio.h>
#include <stdlib.h>

cudaError_t sb_timer_init(sb_timer *t, cudaStream_t stream) {
  t->stream = stream;
  t->samples = NULL;
  t->count = t->cap = 0;
  t->flushes = 0;
  cudaError_t e = cudaEventCreate(&t->start);
  if (e == cudaSuccess) e = cudaEventCreate(&t->stop);
  return e;
}

void sb_timer_destroy(sb_timer *t) {
  cudaEventDestroy(t->start);
  cudaEventDestroy(t->stop);
  free(t->samples);
  t->samples = NULL;
}

void sb_timer_reset(sb_timer *t) { t->count = 0; }

static int fail(cudaError_t e, const char *what, char *err, size_t errlen) {
  snprintf(err, errlen, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
  return -1;
}

int sb_timer_sample(void *ctx, double *seconds, char *err, size_t errlen) {
  sb_timer *t = ctx;
  if (t->stop_flag && *t->stop_flag) {
    snprintf(err, errlen, "interrupted");
    return -1;
  }
  cudaError_t e;
  if (t->flush_buf) {
    /* Outside the timed region: evicts the previous sample's data from L2
     * so small working sets are timed from DRAM, like large ones. */
    e = cudaMemsetAsync(t->flush_buf, (int)(++t->flushes & 0xff), t->flush_bytes, t->stream);
    if (e != cudaSuccess) return fail(e, "L2 flush", err, errlen);
  }
  if ((e = cudaEventRecord(t->start, t->stream)) != cudaSuccess)
    return fail(e, "cudaEventRecord", err, errlen);
  if ((e = t->fn(t->launch)) != cudaSuccess) return fail(e, "launch", err, errlen);
  if ((e = cudaEventRecord(t->stop, t->stream)) != cudaSuccess)
    return fail(e, "cudaEventRecord", err, errlen);
  if ((e = cudaEventSynchronize(t->stop)) != cudaSuccess)
    return fail(e, "kernel", err, errlen);
  float ms = 0;
  if ((e = cudaEventElapsedTime(&ms, t->start, t->stop)) != cudaSuccess)
    return fail(e, "cudaEventElapsedTime", err, errlen);
  if (t->count == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 1024;
    double *s = realloc(t->samples, cap * sizeof *s);
    if (!s) {
      snprintf(err, errlen, "out of host memory for samples");
      return -1;
    }
    t->samples = s;
    t->cap = cap;
  }
  *seconds = ms * 1e-3;
  t->samples[t->count++] = *seconds;
  return 0;
}
